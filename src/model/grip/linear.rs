//! The grip system's linear solves: the chain's banded rows bordered by the length row, by
//! substitution or by pivoted elimination within the band, and the dense elimination.

/// The grip system has no unique solution (a straight string between driven sticks).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SingularGrip;

/// The chain's system by substitution, without pivoting, when every band row's diagonal
/// entry is at least a tenth of its row's largest. Band row r holds the entries of columns
/// r - 2, r - 1, r and of the last (the border column) in `band[r]`; `border` is the last row.
/// Each band row gives its unknown as p_r + q_r x_last from the two before it, and the border
/// row then gives x_last; where the residual shows growth along the chain, one step of
/// iterative refinement (the residual solved the same way) recovers what it lost. O(size).
/// `scratch` holds 8 size values; `rhs` receives the solution. False (nothing solved) when a
/// diagonal entry or the border's pivot is too small: the pivoted elimination then takes the
/// system.
pub(super) fn substitute_band(
    band: &[[f64; 4]],
    border: &[f64],
    rhs: &mut [f64],
    scratch: &mut [f64],
) -> bool {
    let last = band.len();
    let size = last + 1;
    // p and q with two leading zeros, so that rows 0 and 1 need no special case.
    let (q, rest) = scratch.split_at_mut(last + 2);
    let (p, rest) = rest.split_at_mut(last + 2);
    let (residual, rest) = rest.split_at_mut(size);
    // Each band row divided by its diagonal entry (off the substitution's chain of
    // dependences): (a_{r,r-2}, a_{r,r-1}, a_{r,last}, 1) / a_{r,r}.
    let scaled = &mut rest[..4 * last];
    for (a, row) in band.iter().zip(scaled.chunks_exact_mut(4)) {
        // Compared one by one (a NaN entry refuses the row).
        let diagonal = 10.0 * a[2].abs();
        let sound = diagonal >= a[0].abs() && diagonal >= a[1].abs() && diagonal >= a[3].abs();
        if !(sound && a[2] != 0.0) {
            return false;
        }
        let inverse = 1.0 / a[2];
        row.copy_from_slice(&[a[0] * inverse, a[1] * inverse, a[3] * inverse, inverse]);
    }
    let scaled = &*scaled;
    // p (the unknowns for x_last = 0) and q (their dependence on x_last) side by side: two
    // independent chains, each carrying its last two unknowns in locals (read back from the
    // slice, every row would wait on the store of the one before).
    // Row r's unknown from its constant and the two unknowns before it.
    let next = |row: &[f64], (before, last): (f64, f64), constant: f64| {
        constant - row[0] * before - row[1] * last
    };
    let forward = |x: &[f64], p: &mut [f64], q: Option<&mut [f64]>| {
        (p[0], p[1]) = (0.0, 0.0);
        let mut p_two = (0.0, 0.0);
        match q {
            Some(q) => {
                (q[0], q[1]) = (0.0, 0.0);
                let mut q_two = (0.0, 0.0);
                for (r, row) in scaled.chunks_exact(4).enumerate() {
                    let (p_r, q_r) = (next(row, p_two, x[r] * row[3]), next(row, q_two, -row[2]));
                    (p[r + 2], q[r + 2]) = (p_r, q_r);
                    (p_two, q_two) = ((p_two.1, p_r), (q_two.1, q_r));
                }
            }
            None => {
                for (r, row) in scaled.chunks_exact(4).enumerate() {
                    let p_r = next(row, p_two, x[r] * row[3]);
                    p[r + 2] = p_r;
                    p_two = (p_two.1, p_r);
                }
            }
        }
    };
    forward(rhs, p, Some(q));
    let q = &q[2..];
    let slope = border[last] + (0..last).map(|c| border[c] * q[c]).sum::<f64>();
    let scale = border
        .iter()
        .fold(0.0_f64, |m, b| if b.abs() > m { b.abs() } else { m });
    if slope.abs() <= 1e-13 * scale || slope.is_nan() {
        return false;
    }
    let slope_inverse = 1.0 / slope;
    // x from p, q and the border row, in place of the right-hand side `x`.
    let back = |x: &mut [f64], p: &[f64]| {
        let p = &p[2..];
        let x_last = (x[last] - (0..last).map(|c| border[c] * p[c]).sum::<f64>()) * slope_inverse;
        for c in 0..last {
            x[c] = p[c] + q[c] * x_last;
        }
        x[last] = x_last;
    };
    residual.copy_from_slice(rhs);
    back(rhs, p);
    // Refinement: the residual b - A x (independent products, no chain), solved for the
    // correction when it exceeds 1e-12 of the size of the products that make it (a few ulps
    // are the substitution's ordinary round-off; more is growth along the chain).
    fn check(residual: &mut f64, terms: impl Iterator<Item = f64>) -> bool {
        let (mut sum, mut size) = (0.0, residual.abs());
        for term in terms {
            sum += term;
            size += term.abs();
        }
        *residual -= sum;
        residual.abs() > 1e-12 * size
    }
    let mut beyond_round_off = false;
    let x_last = rhs[last];
    // x_{r-2} and x_{r-1} carried along (0 before the first row).
    let mut two = (0.0, 0.0);
    for (r, a) in band.iter().enumerate() {
        let terms = [a[0] * two.0, a[1] * two.1, a[2] * rhs[r], a[3] * x_last];
        beyond_round_off |= check(&mut residual[r], terms.into_iter());
        two = (two.1, rhs[r]);
    }
    let terms = (0..size).map(|c| border[c] * rhs[c]);
    beyond_round_off |= check(&mut residual[last], terms);
    if beyond_round_off {
        forward(residual, p, None);
        back(residual, p);
        for (x, correction) in rhs.iter_mut().zip(residual.iter()) {
            *x += correction;
        }
    }
    true
}

/// Gaussian elimination with partial pivoting of a matrix whose rows are nonzero only in their
/// profile (first, last column) and in the last column, the last row dense: the chain's banded
/// rows bordered by the length row. Pivots are searched among the rows reaching the column
/// (within the band, and the border), so fill stays within the band: O(size) work for a band of
/// bounded width. `rhs` receives the solution.
pub(super) fn solve_bordered(
    matrix: &mut [f64],
    rhs: &mut [f64],
    profile: &mut [(usize, usize)],
    size: usize,
) -> Result<(), SingularGrip> {
    let last = size - 1;
    let mut scale = 0.0_f64;
    for (r, &(lo, hi)) in profile.iter().enumerate() {
        let row = &matrix[r * size..(r + 1) * size];
        scale = scale.max(
            row[lo..=hi]
                .iter()
                .fold(row[last].abs(), |a, b| a.max(b.abs())),
        );
    }
    if scale.is_nan() {
        return Err(SingularGrip);
    }
    for col in 0..size {
        // The rows that can reach col: the next three (a row further down is an untouched band
        // row starting right of col, or was swapped down at most two below an earlier column)
        // and the last (the border, or the row it was swapped with).
        let mut reaching = [usize::MAX; 4];
        let mut count = 0;
        for r in (col..size.min(col + 3)).chain(Some(last).filter(|&l| l >= col + 3)) {
            if profile[r].0 <= col {
                reaching[count] = r;
                count += 1;
            }
        }
        let reaching = &reaching[..count];
        // Threshold pivoting (as sparse solvers do): the largest band entry unless the
        // last row's is ten times larger, so that the dense border row is rarely the pivot
        // (it would fill every row it reaches).
        let entry = |r: usize| matrix[r * size + col].abs();
        let mut pivot = col;
        for &r in reaching.iter().filter(|&&r| r != last) {
            if entry(r) > entry(pivot) {
                pivot = r;
            }
        }
        if profile[last].0 <= col && (entry(last) > 10.0 * entry(pivot) || pivot == last) {
            pivot = last;
        }
        if matrix[pivot * size + col].abs() <= 1e-13 * scale {
            return Err(SingularGrip);
        }
        if pivot != col {
            // Both rows' entries: their profiles and the last column.
            let (from, to) = (
                profile[pivot].0.min(profile[col].0),
                profile[pivot].1.max(profile[col].1),
            );
            for j in (from..=to).chain((to < last).then_some(last)) {
                matrix.swap(pivot * size + j, col * size + j);
            }
            rhs.swap(pivot, col);
            profile.swap(pivot, col);
        }
        let (_, pivot_hi) = profile[col];
        // The swap exchanged two reaching rows: the same positions reach col.
        for &r in reaching.iter().filter(|&&r| r != col) {
            let factor = matrix[r * size + col] / matrix[col * size + col];
            let (lo, hi) = profile[r];
            // Columns the row gains from the pivot row start at zero.
            for j in hi + 1..=pivot_hi.max(hi) {
                if j != last {
                    matrix[r * size + j] = 0.0;
                }
            }
            for j in col..=pivot_hi {
                matrix[r * size + j] -= factor * matrix[col * size + j];
            }
            if pivot_hi < last {
                matrix[r * size + last] -= factor * matrix[col * size + last];
            }
            rhs[r] -= factor * rhs[col];
            profile[r] = ((col + 1).max(lo), hi.max(pivot_hi));
        }
    }
    for col in (0..size).rev() {
        let (_, hi) = profile[col];
        let row = &matrix[col * size..(col + 1) * size];
        let mut value = rhs[col];
        for j in col + 1..=hi {
            value -= row[j] * rhs[j];
        }
        if hi < last && col < last {
            value -= row[last] * rhs[last];
        }
        rhs[col] = value / row[col];
    }
    Ok(())
}

/// Gaussian elimination with partial pivoting, in place: `matrix` (row-major, size x size)
/// and `rhs`, which receives the solution.
pub(crate) fn solve_dense(
    matrix: &mut [f64],
    rhs: &mut [f64],
    size: usize,
) -> Result<(), SingularGrip> {
    let scale = matrix.iter().fold(0.0_f64, |a, b| a.max(b.abs()));
    for col in 0..size {
        let pivot = (col..size)
            .max_by(|&a, &b| {
                matrix[a * size + col]
                    .abs()
                    .total_cmp(&matrix[b * size + col].abs())
            })
            .unwrap_or(col);
        if matrix[pivot * size + col].abs() <= 1e-13 * scale || scale.is_nan() {
            return Err(SingularGrip);
        }
        if pivot != col {
            for j in 0..size {
                matrix.swap(pivot * size + j, col * size + j);
            }
            rhs.swap(pivot, col);
        }
        for row in col + 1..size {
            let factor = matrix[row * size + col] / matrix[col * size + col];
            for j in col..size {
                matrix[row * size + j] -= factor * matrix[col * size + j];
            }
            rhs[row] -= factor * rhs[col];
        }
    }
    for col in (0..size).rev() {
        let mut value = rhs[col];
        for j in col + 1..size {
            value -= matrix[col * size + j] * rhs[j];
        }
        rhs[col] = value / matrix[col * size + col];
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::grip::GripSolver;

    /// A random chain system of `size` unknowns: band rows with columns r - 2..=r and the last,
    /// a dense border row; every third diagonal entry scaled by `diagonal` (tiny ones force the
    /// pivoted elimination's row swaps).
    fn chain_system(
        seed: u64,
        size: usize,
        diagonal: f64,
    ) -> (Vec<f64>, Vec<f64>, Vec<(usize, usize)>) {
        let mut state = seed;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let last = size - 1;
        let mut matrix = vec![0.0; size * size];
        let mut profile = vec![(0, 0); size];
        for r in 0..last {
            let lo = r.saturating_sub(2);
            for c in lo..=r {
                matrix[r * size + c] = next();
            }
            if r % 3 == 1 {
                matrix[r * size + r] *= diagonal;
            }
            if r < 2 {
                matrix[r * size + last] = next();
            }
            profile[r] = (lo, r);
        }
        for c in 0..size {
            matrix[last * size + c] = next();
        }
        profile[last] = (0, last);
        let rhs = (0..size).map(|_| next()).collect();
        (matrix, rhs, profile)
    }

    // Both chain solves agree with the dense elimination on random bordered band systems: the
    // substitution when the diagonal is sound, the pivoted elimination always (with pivots
    // taken off the diagonal when a diagonal entry is tiny).
    #[test]
    fn the_chain_solves_agree_with_dense_elimination() {
        for seed in 0..300 {
            let size = 3 + (seed as usize) % 30;
            for diagonal in [1.0, 1e-6, 0.0] {
                let (matrix, rhs, profile) = chain_system(seed, size, diagonal);
                let mut dense = rhs.clone();
                if solve_dense(&mut matrix.clone(), &mut dense, size).is_err() {
                    continue;
                }
                let scale = dense.iter().fold(1.0_f64, |a, x| a.max(x.abs()));
                let mut pivoted = rhs.clone();
                solve_bordered(
                    &mut matrix.clone(),
                    &mut pivoted,
                    &mut profile.clone(),
                    size,
                )
                .unwrap();
                let mut substituted = rhs.clone();
                let mut scratch = vec![0.0; 8 * size];
                let last = size - 1;
                let band: Vec<[f64; 4]> = (0..last)
                    .map(|r| {
                        let at = |c: Option<usize>| c.map_or(0.0, |c| matrix[r * size + c]);
                        [
                            at(r.checked_sub(2)),
                            at(r.checked_sub(1)),
                            at(Some(r)),
                            at(Some(last)),
                        ]
                    })
                    .collect();
                let border = &matrix[last * size..];
                let sound = substitute_band(&band, border, &mut substituted, &mut scratch);
                // The pivoted elimination as the solver calls it, from the band rows.
                let mut solver = GripSolver::new(last);
                solver.band.copy_from_slice(&band);
                solver.border.copy_from_slice(border);
                solver.rhs.copy_from_slice(&rhs);
                solver.solve_band_pivoted(size).unwrap();
                for c in 0..size {
                    assert!(
                        (pivoted[c] - dense[c]).abs() <= 1e-9 * scale,
                        "seed {seed}, size {size}, diagonal {diagonal}: x_{c} {} against {}",
                        pivoted[c],
                        dense[c]
                    );
                    assert!(
                        (solver.rhs[c] - dense[c]).abs() <= 1e-9 * scale,
                        "seed {seed}, size {size}: from the band x_{c} {} against {}",
                        solver.rhs[c],
                        dense[c]
                    );
                    if sound {
                        assert!(
                            (substituted[c] - dense[c]).abs() <= 1e-9 * scale,
                            "seed {seed}, size {size}: substituted x_{c} {} against {}",
                            substituted[c],
                            dense[c]
                        );
                    }
                }
                assert!(
                    diagonal == 1.0 || size < 5 || !sound,
                    "a tiny diagonal is refused"
                );
            }
        }
    }
}

//! The discrete linear-quadratic regulator of a map z(k+1) = A z(k) + B u(k): the gain K of
//! u = -K z that minimises sum_k (z(k)' Q z(k) + u(k)' R u(k)), from the discrete Riccati
//! equation iterated to its fixed point, and the Popov-Belevitch-Hautus test of whether the
//! corrections reach a multiplier.

use nalgebra::{Complex, DMatrix};

/// Riccati iterations at most.
const MAX_ITERATIONS: usize = 10_000;

/// The iteration stops when no entry of P changes by more than this, relative to P's largest.
const CONVERGED: f64 = 1e-12;

/// The regulator found.
#[derive(Clone, Debug, PartialEq)]
pub struct Regulator {
    /// K (corrections x coordinates): u = -K (z - z*).
    pub gain: DMatrix<f64>,
    /// Riccati iterations done.
    pub iterations: usize,
    /// Whether P reached its fixed point (no: the corrections cannot hold some growing or
    /// undamped mode, and K is the last iterate's).
    pub converged: bool,
}

/// The LQR gain of (A, B) with Q = q I and R = r I, by the iteration
/// P <- Q + A' P A - A' P B (R + B' P B)^-1 B' P A from P = Q.
pub fn regulator(a: &DMatrix<f64>, b: &DMatrix<f64>, q: f64, r: f64) -> Regulator {
    let (m, p) = (a.nrows(), b.ncols());
    let weight_q = DMatrix::identity(m, m) * q;
    let weight_r = DMatrix::identity(p, p) * r;
    let mut riccati = weight_q.clone();
    let mut gain = DMatrix::zeros(p, m);
    for iteration in 1..=MAX_ITERATIONS {
        let s = &weight_r + b.transpose() * &riccati * b;
        let Some(k) = s.lu().solve(&(b.transpose() * &riccati * a)) else {
            return Regulator {
                gain,
                iterations: iteration,
                converged: false,
            };
        };
        gain = k;
        let mut next = &weight_q + a.transpose() * &riccati * (a - b * &gain);
        next = 0.5 * (&next + next.transpose());
        if !next.iter().all(|v| v.is_finite()) {
            return Regulator {
                gain,
                iterations: iteration,
                converged: false,
            };
        }
        let change = (&next - &riccati).amax();
        riccati = next;
        if change <= CONVERGED * riccati.amax().max(1.0) {
            return Regulator {
                gain,
                iterations: iteration,
                converged: true,
            };
        }
    }
    Regulator {
        gain,
        iterations: MAX_ITERATIONS,
        converged: false,
    }
}

/// The eigenvalues of a real matrix, largest modulus first.
pub fn eigenvalues(matrix: &DMatrix<f64>) -> Vec<Complex<f64>> {
    let mut values: Vec<Complex<f64>> = matrix
        .clone()
        .complex_eigenvalues()
        .iter()
        .copied()
        .collect();
    values.sort_by(|x, y| y.norm().total_cmp(&x.norm()));
    values
}

/// How well the corrections reach the multiplier mu of A (Popov-Belevitch-Hautus): the
/// smallest singular value of [A - mu I, B]. Zero: no correction moves that mode, and no gain
/// can change its multiplier.
pub fn reach(a: &DMatrix<f64>, b: &DMatrix<f64>, mu: Complex<f64>) -> f64 {
    let (m, p) = (a.nrows(), b.ncols());
    let mut pencil = DMatrix::<Complex<f64>>::zeros(m, m + p);
    for i in 0..m {
        for j in 0..m {
            pencil[(i, j)] = Complex::new(a[(i, j)], 0.0) - if i == j { mu } else { 0.0.into() };
        }
        for j in 0..p {
            pencil[(i, m + j)] = Complex::new(b[(i, j)], 0.0);
        }
    }
    pencil.singular_values().min()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scalar map z' = a z + b u: the Riccati equation is the quadratic
    /// b^2 P^2 + (r (1 - a^2) - q b^2) P - q r = 0, and K = a b P / (r + b^2 P).
    #[test]
    fn the_scalar_regulator_is_the_riccati_quadratics_root() {
        let (a, b, q, r): (f64, f64, f64, f64) = (1.5, 0.5, 1.0, 2.0);
        let (qa, qb, qc) = (b * b, r * (1.0 - a * a) - q * b * b, -q * r);
        let p = (-qb + (qb * qb - 4.0 * qa * qc).sqrt()) / (2.0 * qa);
        let expected = a * b * p / (r + b * b * p);
        let found = regulator(
            &DMatrix::from_element(1, 1, a),
            &DMatrix::from_element(1, 1, b),
            q,
            r,
        );
        assert!(found.converged);
        assert!((found.gain[(0, 0)] - expected).abs() < 1e-10, "{found:?}");
        assert!((a - b * found.gain[(0, 0)]).abs() < 1.0);
    }

    #[test]
    fn a_growing_mode_that_no_correction_moves_is_not_held() {
        let a = DMatrix::from_row_slice(2, 2, &[1.2, 0.0, 0.0, 0.5]);
        let b = DMatrix::from_row_slice(2, 1, &[0.0, 1.0]);
        assert!(!regulator(&a, &b, 1.0, 1.0).converged);
        assert!(reach(&a, &b, Complex::new(1.2, 0.0)) < 1e-12);
        assert!(reach(&a, &b, Complex::new(0.5, 0.0)) > 0.1);
    }
}

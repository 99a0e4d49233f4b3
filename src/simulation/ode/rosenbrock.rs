//! The stages of RODAS (Hairer and Wanner's `rodas.f`, *Solving ODEs II*, VI.4 and VI.7: order 4
//! with an embedded order-3 solution, six stages, stiffly accurate, L-stable) with Steinebach's
//! coefficients RODASP, a linearly implicit (Rosenbrock) method for stiff systems such as a stiff
//! compliant string. Hairer's own coefficients lose their order on stiff problems driven by a
//! slow forcing (the Prothero-Robinson type a string pulled by the hands is): on
//! x'' = -k (x - sin t) - c x' with k = 1e6, c = 2e3 they took 12,941 steps over 10 s at rtol
//! 1e-6 where RODASP takes 294.
//!
//! A step solves six linear systems with the one matrix W = I / (h gamma) - J, J = df/dy at the
//! step's start (by finite differences, n evaluations, kept across the rejected trials of one
//! step), and uses df/dt (one more evaluation) for the time-dependent hands. In the transformed
//! variables u_i:
//!
//! `W u_i = f(t + c_i h, y + sum_(j<i) a_ij u_j) + sum_(j<i) (C_ij / h) u_j + h d_i df/dt`,
//!
//! the embedded solution is `y + sum a_6j u_j + u_5`, the propagated one adds u_6, so u_6 is the
//! local error estimate. The dense output is Hairer's third-order continuous extension
//! `y_old + theta (dy + (1 - theta) (r2 + theta r3))` with `r2 = sum h2_j u_j`, `r3 = sum h3_j u_j`.
//!
//! Every buffer is allocated in [`Rosenbrock::new`]; a trial allocates nothing.

use super::integrate::{IntegrateError, NonFiniteComponent, OdeSystem, StepStats, Trial};
use super::scale::ErrorScale;

/// gamma: the diagonal of the method.
const GAMMA: f64 = 0.25;
/// Nodes c_1..c_6 (c_5 = c_6 = 1).
const C: [f64; 6] = [0.0, 0.75, 0.21, 0.63, 1.0, 1.0];
/// d_i: coefficients of df/dt in stages 1..4 (0 in stages 5 and 6).
const D: [f64; 6] = [0.25, -0.5, -0.023504, -0.0362, 0.0, 0.0];
/// a_ij (stage states) of stages 2..6; row i has i entries.
const A: [&[f64]; 6] = [
    &[],
    &[3.0],
    &[1.831036793486759, 0.4955183967433795],
    &[2.304376582692669, -0.05249275245743001, -1.176798761832782],
    &[
        -7.170454962423024,
        -4.741636671481785,
        -16.31002631330971,
        -1.062004044111401,
    ],
    // Stage 6 starts from the embedded solution: stage 5's state plus u_5.
    &[
        -7.170454962423024,
        -4.741636671481785,
        -16.31002631330971,
        -1.062004044111401,
        1.0,
    ],
];
/// C_ij (couplings of the transformed stages) of stages 2..6.
const COUPLING: [&[f64]; 6] = [
    &[],
    &[-12.0],
    &[-8.791795173947035, -2.207865586973518],
    &[10.81793056857153, 6.780270611428266, 19.5348594464241],
    &[
        34.19095006749676,
        15.49671153725963,
        54.7476087596413,
        14.16005392148534,
    ],
    &[
        34.62605830930532,
        15.30084976114473,
        56.99955578662667,
        18.40807009793095,
        -5.714285714285717,
    ],
];
/// Dense output rows r2 and r3 over u_1..u_5.
const DENSE: [[f64; 5]; 2] = [
    [
        25.09876703708589,
        11.62013104361867,
        28.49148307714626,
        -5.664021568594133,
        0.0,
    ],
    [
        1.638054557396973,
        -0.7373619806678748,
        8.47791821923899,
        15.9925314877952,
        -1.882352941176471,
    ],
];

/// The workspace of the Rosenbrock stages for a system of dimension n.
#[derive(Clone, Debug)]
pub(super) struct Rosenbrock {
    n: usize,
    /// J = df/dy at `jacobian_at`, row-major.
    jacobian: Vec<f64>,
    /// df/dt at `jacobian_at`.
    time_derivative: Vec<f64>,
    /// The (time, segment) the Jacobian was computed at.
    jacobian_at: Option<(f64, u64)>,
    /// LU factors of W (row-major, unit lower part below the diagonal) and the row pivots.
    lu: Vec<f64>,
    pivots: Vec<usize>,
    /// Transformed stages u_1..u_6, row i at `i * n`.
    u: Vec<f64>,
    /// A stage's state and derivative.
    state: Vec<f64>,
    derivative: Vec<f64>,
}

impl Rosenbrock {
    pub(super) fn new(n: usize) -> Self {
        Self {
            n,
            jacobian: vec![0.0; n * n],
            time_derivative: vec![0.0; n],
            jacobian_at: None,
            lu: vec![0.0; n * n],
            pivots: vec![0; n],
            u: vec![0.0; 6 * n],
            state: vec![0.0; n],
            derivative: vec![0.0; n],
        }
    }

    /// One trial step of size `h` from `(t, y)` with `f = f(t, y)`: the new state in `y_new`,
    /// its derivative in `f_new`, and the error norm: the larger of the step's (scaled RMS of
    /// u_6 by `scale`) and the dense output's, estimated at mid-step as the distance
    /// between the method's third-order interpolant and the cubic Hermite one through both ends'
    /// values and derivatives. The rows and events between steps are read from the interpolant;
    /// on stiff problems the step's own estimate lets steps grow far past what it can follow
    /// (a step of 1 s on cos t puts it 6e-3 off at mid-step while the ends are within 1e-8).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn attempt<S: OdeSystem>(
        &mut self,
        sys: &mut S,
        (t, segment): (f64, u64),
        h: f64,
        y: &[f64],
        f: &[f64],
        (y_new, f_new): (&mut [f64], &mut [f64]),
        scale: &mut ErrorScale,
        stats: &mut StepStats,
    ) -> Result<Trial, IntegrateError<S::Error>> {
        let n = self.n;
        if self.jacobian_at != Some((t, segment)) {
            self.differentiate(sys, t, y, f, stats)?;
            if let Some(index) = super::integrate::first_non_finite(&self.jacobian) {
                return Ok(Trial::NonFinite(NonFiniteComponent::derivative_of(
                    index % n,
                )));
            }
            self.jacobian_at = Some((t, segment));
        }
        if let Err(row) = self.factor(h) {
            return Ok(Trial::NonFinite(NonFiniteComponent::derivative_of(row)));
        }
        for stage in 0..6 {
            // The stage's state and derivative.
            let (done, rest) = self.u.split_at_mut(stage * n);
            if stage == 0 {
                self.derivative.copy_from_slice(f);
            } else {
                for i in 0..n {
                    self.state[i] = y[i]
                        + A[stage]
                            .iter()
                            .enumerate()
                            .map(|(j, a)| a * done[j * n + i])
                            .sum::<f64>();
                }
                let ts = t + C[stage] * h;
                super::integrate::evaluate(sys, ts, &self.state, &mut self.derivative, stats)?;
            }
            // Right-hand side of the stage's linear system, solved in place.
            let u = &mut rest[..n];
            for i in 0..n {
                let coupling: f64 = COUPLING[stage]
                    .iter()
                    .enumerate()
                    .map(|(j, c)| c * done[j * n + i])
                    .sum();
                u[i] = self.derivative[i] + coupling / h + h * D[stage] * self.time_derivative[i];
            }
            solve(&self.lu, &self.pivots, u);
        }
        // The propagated solution: stage 6's state (the embedded solution) plus u_6.
        let u6 = &self.u[5 * n..];
        for i in 0..n {
            y_new[i] = self.state[i] + u6[i];
        }
        if let Some(index) = super::integrate::first_non_finite(y_new) {
            return Ok(Trial::NonFinite(NonFiniteComponent::value_of(index)));
        }
        super::integrate::evaluate(sys, t + h, y_new, f_new, stats)?;
        if let Some(index) = super::integrate::first_non_finite(f_new) {
            return Ok(Trial::NonFinite(NonFiniteComponent::derivative_of(index)));
        }
        let (mut step, mut dense) = (0.0, 0.0);
        scale.update(y, y_new);
        for i in 0..n {
            let sc = scale.of(i);
            step += (self.u[5 * n + i] / sc).powi(2);
            let (r2, r3) = (self.dense_term(0, i), self.dense_term(1, i));
            let interpolant = y[i] + 0.5 * ((y_new[i] - y[i]) + 0.5 * (r2 + 0.5 * r3));
            let hermite = 0.5 * (y[i] + y_new[i]) + 0.125 * h * (f[i] - f_new[i]);
            dense += ((interpolant - hermite) / sc).powi(2);
        }
        Ok(Trial::Finite(scale.rms(step.max(dense))))
    }

    /// Component i of the dense output row r2 (`row` 0) or r3 (`row` 1).
    fn dense_term(&self, row: usize, i: usize) -> f64 {
        DENSE[row]
            .iter()
            .enumerate()
            .map(|(j, w)| w * self.u[j * self.n + i])
            .sum()
    }

    /// The dense output rows of the accepted trial: y_old, y_new - y_old, r2, r3.
    pub(super) fn write_dense(&self, y_old: &[f64], y_new: &[f64], dense: &mut [f64]) {
        let n = self.n;
        for i in 0..n {
            dense[i] = y_old[i];
            dense[n + i] = y_new[i] - y_old[i];
            dense[2 * n + i] = self.dense_term(0, i);
            dense[3 * n + i] = self.dense_term(1, i);
        }
    }

    /// J = df/dy and df/dt at (t, y) by forward differences, each of step sqrt(eps max(1e-5, |x|))
    /// for its variable x (`rodas.f`).
    fn differentiate<S: OdeSystem>(
        &mut self,
        sys: &mut S,
        t: f64,
        y: &[f64],
        f: &[f64],
        stats: &mut StepStats,
    ) -> Result<(), IntegrateError<S::Error>> {
        let n = self.n;
        let increment = |x: f64| (f64::EPSILON * x.abs().max(1e-5)).sqrt();
        self.state.copy_from_slice(y);
        for j in 0..n {
            let delta = increment(y[j]);
            self.state[j] = y[j] + delta;
            let delta = self.state[j] - y[j];
            super::integrate::evaluate(sys, t, &self.state, &mut self.derivative, stats)?;
            self.state[j] = y[j];
            for i in 0..n {
                self.jacobian[i * n + j] = (self.derivative[i] - f[i]) / delta;
            }
        }
        let shifted = t + increment(t);
        super::integrate::evaluate(sys, shifted, y, &mut self.derivative, stats)?;
        for i in 0..n {
            self.time_derivative[i] = (self.derivative[i] - f[i]) / (shifted - t);
        }
        Ok(())
    }

    /// LU factors of W = I / (h gamma) - J with partial pivoting; a zero or non-finite pivot
    /// gives its row.
    fn factor(&mut self, h: f64) -> Result<(), usize> {
        let n = self.n;
        let diagonal = 1.0 / (h * GAMMA);
        for (w, j) in self.lu.iter_mut().zip(&self.jacobian) {
            *w = -j;
        }
        for i in 0..n {
            self.lu[i * n + i] += diagonal;
        }
        for k in 0..n {
            let pivot = (k..n)
                .max_by(|&a, &b| {
                    self.lu[a * n + k]
                        .abs()
                        .total_cmp(&self.lu[b * n + k].abs())
                })
                .unwrap_or(k);
            let p = self.lu[pivot * n + k];
            if p == 0.0 || !p.is_finite() {
                return Err(k);
            }
            self.pivots[k] = pivot;
            if pivot != k {
                for j in 0..n {
                    self.lu.swap(k * n + j, pivot * n + j);
                }
            }
            for r in k + 1..n {
                let factor = self.lu[r * n + k] / p;
                self.lu[r * n + k] = factor;
                for j in k + 1..n {
                    self.lu[r * n + j] -= factor * self.lu[k * n + j];
                }
            }
        }
        Ok(())
    }
}

/// Solves (LU) x = b in place, with the row pivots of [`Rosenbrock::factor`].
fn solve(lu: &[f64], pivots: &[usize], b: &mut [f64]) {
    let n = b.len();
    for k in 0..n {
        b.swap(k, pivots[k]);
    }
    for r in 0..n {
        let sum: f64 = (0..r).map(|j| lu[r * n + j] * b[j]).sum();
        b[r] -= sum;
    }
    for r in (0..n).rev() {
        let sum: f64 = (r + 1..n).map(|j| lu[r * n + j] * b[j]).sum();
        b[r] = (b[r] - sum) / lu[r * n + r];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lu_solve_inverts_a_pivoting_matrix() {
        let mut work = Rosenbrock::new(3);
        // W = I / (h gamma) - J with h gamma = 1: J chosen so that W needs a row swap.
        let w = [0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 1.0];
        for i in 0..3 {
            for j in 0..3 {
                work.jacobian[i * 3 + j] = f64::from(u8::from(i == j)) - w[i * 3 + j];
            }
        }
        work.factor(1.0 / GAMMA).unwrap();
        let x = [1.0, -2.0, 0.5];
        let mut b: Vec<f64> = (0..3)
            .map(|i| (0..3).map(|j| w[i * 3 + j] * x[j]).sum())
            .collect();
        solve(&work.lu, &work.pivots, &mut b);
        for (got, want) in b.iter().zip(x) {
            assert!((got - want).abs() < 1e-14, "{b:?}");
        }
    }
}

//! The stepper: one accepted step at a time with step-size control, dense output of the last
//! step, and the counters (the rules are in [`super`]).

use super::evaluate;
use super::{
    DenseError, ErrorWeights, IntegrateError, Method, NonFiniteComponent, OdeSystem, OptionsError,
    StepOutcome, StepStats, StepperOptions, Trial,
};
use crate::simulation::ode::rosenbrock::Rosenbrock;
use crate::simulation::ode::scale::{ErrorGroups, ErrorScale};
use crate::simulation::ode::tableau::Tableau;

/// Safety factor of the step-size controller.
const SAFETY: f64 = 0.9;
/// Step reduction after a trial with non-finite values.
const NONFINITE_SHRINK: f64 = 0.25;
/// Consecutive non-finite trials in one step before giving up.
const MAX_NONFINITE_TRIALS: u32 = 10;
/// A step within this factor of the remaining interval is stretched to land on the limit.
const LANDING_STRETCH: f64 = 1.01;

/// An explicit Runge-Kutta stepper with dense output of its last accepted step.
///
/// The system is passed to each call, so the caller keeps ownership of it between steps.
#[derive(Clone, Debug)]
pub struct Stepper {
    method: Method,
    tableau: &'static Tableau,
    options: StepperOptions,
    n: usize,
    started: bool,
    segment: u64,
    t: f64,
    t_old: f64,
    /// Step proposed for the next step (s).
    h: f64,
    /// Step proposal kept across resets (s).
    hint: Option<f64>,
    y: Vec<f64>,
    f: Vec<f64>,
    y_new: Vec<f64>,
    y_stage: Vec<f64>,
    /// Stage derivatives, row r at `r * n`.
    k: Vec<f64>,
    /// Dense output coefficient vectors, row r at `r * n`.
    dense: Vec<f64>,
    stats: StepStats,
    /// The first non-finite component of the last trial (or reset) that had one.
    non_finite: Option<NonFiniteComponent>,
    /// The stages' workspace of the Rosenbrock method.
    rosenbrock: Option<Box<Rosenbrock>>,
    /// How each component's local error is scaled.
    scale: ErrorScale,
}

impl Stepper {
    /// A stepper for systems of `dimension` components; all buffers are allocated here. Call
    /// [`Stepper::reset`] before stepping.
    pub fn new(
        method: Method,
        options: StepperOptions,
        dimension: usize,
    ) -> Result<Self, OptionsError> {
        options.validate()?;
        if let Method::Rk4 { step } = method {
            if !(step.is_finite() && step > 0.0) {
                return Err(OptionsError::FixedStep(step));
            }
        }
        if dimension == 0 {
            return Err(OptionsError::ZeroDimension);
        }
        let tableau = method.tableau();
        let n = dimension;
        Ok(Self {
            method,
            tableau,
            options,
            n,
            started: false,
            segment: 0,
            t: 0.0,
            t_old: 0.0,
            h: 0.0,
            hint: None,
            y: vec![0.0; n],
            f: vec![0.0; n],
            y_new: vec![0.0; n],
            y_stage: vec![0.0; n],
            k: vec![0.0; tableau.rows() * n],
            dense: vec![0.0; tableau.dense_rows() * n],
            stats: StepStats::default(),
            non_finite: None,
            rosenbrock: (method == Method::Rodas).then(|| Box::new(Rosenbrock::new(n))),
            scale: ErrorScale::new(options.atol, options.rtol, n),
        })
    }

    /// (Re)starts at time `t` (s) and state `y` with a freshly computed derivative (no FSAL
    /// reuse across a reset). The next step is the last proposal if there is one (capped by
    /// `max_step`), else `initial_step`, else Hairer's `hinit`; RK4 always uses its step.
    pub fn reset<S: OdeSystem>(
        &mut self,
        sys: &mut S,
        t: f64,
        y: &[f64],
    ) -> Result<(), IntegrateError<S::Error>> {
        self.check_dimension(sys, t, y.len())?;
        self.non_finite = NonFiniteComponent::find(self.n, y, &[]);
        if !t.is_finite() || self.non_finite.is_some() {
            return Err(IntegrateError::NonFinite { t });
        }
        self.t = t;
        self.t_old = t;
        self.y.copy_from_slice(y);
        evaluate(sys, t, &self.y, &mut self.f, &mut self.stats)?;
        self.non_finite = NonFiniteComponent::find(self.n, &[], &self.f);
        if self.non_finite.is_some() {
            return Err(IntegrateError::NonFinite { t });
        }
        self.started = true;
        self.segment += 1;
        self.h = match (self.method, self.hint, self.options.initial_step) {
            (Method::Rk4 { step }, _, _) => step,
            (_, Some(hint), _) => hint.min(self.options.max_step),
            (_, None, Some(h)) => h.min(self.options.max_step),
            (_, None, None) => self.initial_step(sys)?,
        };
        Ok(())
    }

    /// How the system's components are measured in the error norm: vectors together, the
    /// values it imposes after each step ([`Stepper::impose`]) not at all.
    pub fn measure_error(&mut self, groups: &ErrorGroups) {
        self.scale.configure(groups);
    }

    /// Lets the system correct the current state in place after an accepted step (a projection
    /// onto what it imposes); when `correct` reports a change the derivative is evaluated anew
    /// there. The dense output of the last step is kept: it ends at the uncorrected state.
    pub fn impose<S: OdeSystem>(
        &mut self,
        sys: &mut S,
        correct: impl FnOnce(&mut S, f64, &mut [f64]) -> bool,
    ) -> Result<(), IntegrateError<S::Error>> {
        if !self.started || !correct(sys, self.t, &mut self.y) {
            return Ok(());
        }
        evaluate(sys, self.t, &self.y, &mut self.f, &mut self.stats)?;
        self.non_finite = NonFiniteComponent::find(self.n, &self.y, &self.f);
        if self.non_finite.is_some() {
            return Err(IntegrateError::NonFinite { t: self.t });
        }
        Ok(())
    }

    /// Forgets the step proposal kept across resets, so that the next reset selects the first
    /// step as a fresh stepper would.
    pub fn forget_step_size(&mut self) {
        self.hint = None;
    }

    /// Takes one accepted step from the current time, never past `t_limit` (s): a step that
    /// would pass it, or end within 1 % of it, is clipped to land exactly on it. Rejected trials
    /// are retried internally.
    pub fn step<S: OdeSystem>(
        &mut self,
        sys: &mut S,
        t_limit: f64,
    ) -> Result<StepOutcome, IntegrateError<S::Error>> {
        if !self.started {
            return Err(IntegrateError::NotStarted { t: self.t });
        }
        self.check_dimension(sys, self.t, self.n)?;
        if t_limit.is_nan() || t_limit <= self.t {
            return Err(IntegrateError::LimitNotAhead { t: self.t, t_limit });
        }
        let mut h = self.h.min(self.options.max_step);
        let mut rejected = false;
        let mut nonfinite = 0u32;
        loop {
            let remaining = t_limit - self.t;
            let clipped = h * LANDING_STRETCH >= remaining;
            let (h_try, t_new) = if clipped {
                (remaining, t_limit)
            } else {
                (h, self.t + h)
            };
            if !clipped && h_try < self.min_step() {
                return Err(if nonfinite > 0 {
                    IntegrateError::NonFinite { t: self.t }
                } else {
                    IntegrateError::StepSizeCollapse {
                        t: self.t,
                        h: h_try,
                    }
                });
            }
            match self.attempt(sys, h_try, t_new)? {
                Trial::NonFinite(component) => {
                    self.non_finite = Some(component);
                    self.stats.rejected_steps += 1;
                    nonfinite += 1;
                    if nonfinite >= MAX_NONFINITE_TRIALS {
                        return Err(IntegrateError::NonFinite { t: self.t });
                    }
                    h = h_try * NONFINITE_SHRINK;
                    rejected = true;
                }
                Trial::Finite(err) if err <= 1.0 => {
                    self.accept(h_try, t_new, err, rejected, clipped.then_some(h));
                    return Ok(StepOutcome {
                        t_old: self.t_old,
                        t_new,
                        reached_limit: clipped,
                    });
                }
                Trial::Finite(err) => {
                    self.stats.rejected_steps += 1;
                    nonfinite = 0;
                    h = h_try * self.factor(err).min(1.0);
                    rejected = true;
                }
            }
        }
    }

    /// Writes the dense output of the last accepted step at `t` (s), `t_old <= t <= t_new`,
    /// into `out`. At `t_new` (the current time) this is the current state exactly.
    pub fn interpolate(&self, t: f64, out: &mut [f64]) -> Result<(), DenseError> {
        if out.len() != self.n {
            return Err(DenseError::Length {
                t,
                expected: self.n,
                found: out.len(),
            });
        }
        if t == self.t {
            out.copy_from_slice(&self.y);
            return Ok(());
        }
        if !(t >= self.t_old && t < self.t) {
            return Err(DenseError::OutOfRange {
                t,
                t_old: self.t_old,
                t_new: self.t,
            });
        }
        let theta = (t - self.t_old) / (self.t - self.t_old);
        // Horner's scheme in theta and 1 - theta, row by row from the last (each component the
        // same operations in the same order as one component at a time, so the same bits). n is
        // at least 1 (`Stepper::new`), so the chunks are not empty.
        let mut rows = self.dense[..self.tableau.dense_rows() * self.n].chunks_exact(self.n);
        if let Some(last) = rows.next_back() {
            out.copy_from_slice(last);
        }
        for (r, row) in rows.enumerate().rev() {
            let factor = if r % 2 == 0 { theta } else { 1.0 - theta };
            for (value, &coefficient) in out.iter_mut().zip(row) {
                *value = coefficient + factor * *value;
            }
        }
        Ok(())
    }

    /// Current time (s): the end of the last accepted step, or the reset time.
    pub fn t(&self) -> f64 {
        self.t
    }

    /// Start of the last accepted step (s); equals [`Stepper::t`] right after a reset.
    pub fn t_old(&self) -> f64 {
        self.t_old
    }

    /// Current state.
    pub fn y(&self) -> &[f64] {
        &self.y
    }

    /// Derivative dy/dt at the current time and state.
    pub fn dydt(&self) -> &[f64] {
        &self.f
    }

    /// Whether a step was accepted since the last reset (dense output covers `[t_old, t]`).
    pub fn has_step(&self) -> bool {
        self.started && self.t > self.t_old
    }

    /// Step size proposed for the next step (s).
    pub fn step_size(&self) -> f64 {
        self.h
    }

    /// Number of resets so far: identifies the current continuous segment.
    pub fn segment(&self) -> u64 {
        self.segment
    }

    /// The state component that was not finite in the last trial step (or reset) that gave
    /// one: the value or its derivative. It names the quantity of an
    /// [`IntegrateError::NonFinite`].
    pub fn non_finite_component(&self) -> Option<NonFiniteComponent> {
        self.non_finite
    }

    /// Counters since construction.
    pub fn stats(&self) -> StepStats {
        self.stats
    }

    /// The method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The options.
    pub fn options(&self) -> &StepperOptions {
        &self.options
    }

    /// Number of state components.
    pub fn dimension(&self) -> usize {
        self.n
    }

    fn check_dimension<S: OdeSystem>(
        &self,
        sys: &S,
        t: f64,
        len: usize,
    ) -> Result<(), IntegrateError<S::Error>> {
        for found in [sys.dimension(), len] {
            if found != self.n {
                return Err(IntegrateError::DimensionMismatch {
                    t,
                    expected: self.n,
                    found,
                });
            }
        }
        Ok(())
    }

    /// Smallest allowed step at the current time (s).
    fn min_step(&self) -> f64 {
        self.options
            .min_step
            .max(16.0 * f64::EPSILON * self.t.abs())
    }

    /// Step-size ratio for an error norm `err` (not clamped to 1 after rejections).
    fn factor(&self, err: f64) -> f64 {
        let tab = self.tableau;
        if tab.error == ErrorWeights::None {
            return 1.0;
        }
        if err == 0.0 {
            return tab.fac_max;
        }
        let exponent = -1.0 / f64::from(tab.error_order + 1);
        (SAFETY * err.powf(exponent)).clamp(tab.fac_min, tab.fac_max)
    }

    /// Computes the stages of a trial step of size `h` ending at `t_new`, leaving the new
    /// state in `y_new` and its derivative in stage row `stages`.
    fn attempt<S: OdeSystem>(
        &mut self,
        sys: &mut S,
        h: f64,
        t_new: f64,
    ) -> Result<Trial, IntegrateError<S::Error>> {
        let (n, tab) = (self.n, self.tableau);
        if let Some(rosenbrock) = &mut self.rosenbrock {
            // The derivative at the new point goes to row 1, for the next step and the locator.
            return rosenbrock.attempt(
                sys,
                (self.t, self.segment),
                h,
                &self.y,
                &self.f,
                (&mut self.y_new, &mut self.k[n..2 * n]),
                &mut self.scale,
                &mut self.stats,
            );
        }
        self.k[..n].copy_from_slice(&self.f);
        let span = StageSpan {
            t: self.t,
            h,
            t_new,
        };
        let stages = 1..tab.stages + 1;
        run_stages(
            sys,
            tab,
            span,
            stages,
            &self.y,
            &mut self.k,
            &mut self.y_stage,
            &mut self.stats,
        )?;
        std::mem::swap(&mut self.y_new, &mut self.y_stage);
        let f_new = &self.k[tab.stages * n..(tab.stages + 1) * n];
        if let Some(component) = NonFiniteComponent::find(n, &self.y_new, f_new) {
            return Ok(Trial::NonFinite(component));
        }
        self.scale.update(&self.y, &self.y_new);
        let err = self.error_norm(h);
        if !err.is_finite() {
            // Finite values whose error estimate overflows: the largest stage derivative is the
            // culprit.
            return Ok(Trial::NonFinite(NonFiniteComponent {
                index: self.largest_stage_component(),
                derivative: true,
            }));
        }
        let extra = tab.stages + 1..tab.rows();
        if err <= 1.0 && !extra.is_empty() {
            // Extra stages of the dense output, from the same start.
            let k = &mut self.k;
            run_stages(
                sys,
                tab,
                span,
                extra.clone(),
                &self.y,
                k,
                &mut self.y_stage,
                &mut self.stats,
            )?;
            if let Some(component) = NonFiniteComponent::find(n, &[], &self.k[extra.start * n..]) {
                return Ok(Trial::NonFinite(component));
            }
        }
        Ok(Trial::Finite(err))
    }

    /// The component with the largest stage derivative of the last trial (by magnitude).
    fn largest_stage_component(&self) -> usize {
        let n = self.n;
        let rows = self.tableau.stages + 1;
        (0..rows * n)
            .max_by(|&a, &b| self.k[a].abs().total_cmp(&self.k[b].abs()))
            .map_or(0, |i| i % n)
    }

    /// Scaled RMS norm of the local error estimate of the trial in `k`, `y_new`.
    fn error_norm(&self, h: f64) -> f64 {
        let scale = &self.scale;
        let combine = |w: &[f64], i: usize| -> f64 {
            w.iter()
                .enumerate()
                .map(|(j, wj)| wj * self.k[j * self.n + i])
                .sum()
        };
        match self.tableau.error {
            // Fixed step; a Rosenbrock trial returns its estimate with its stages.
            ErrorWeights::None | ErrorWeights::Rosenbrock => 0.0,
            ErrorWeights::Embedded(w) => {
                let sum: f64 = (0..self.n)
                    .map(|i| (h * combine(w, i) / scale.of(i)).powi(2))
                    .sum();
                scale.rms(sum)
            }
            ErrorWeights::Dop853 { e5, e3 } => {
                let (mut s5, mut s3) = (0.0, 0.0);
                for i in 0..self.n {
                    let sc = scale.of(i);
                    s5 += (combine(e5, i) / sc).powi(2);
                    s3 += (combine(e3, i) / sc).powi(2);
                }
                let denominator = s5 + 0.01 * s3;
                if denominator > 0.0 {
                    h.abs() * s5 / (scale.counted() * denominator).sqrt()
                } else {
                    0.0
                }
            }
        }
    }

    /// Accepts the trial of size `h` ending at `t_new`: builds the dense output, moves the
    /// state and proposes the next step. `unclipped` is the step the controller had proposed
    /// when the trial was clipped to land on the limit.
    fn accept(&mut self, h: f64, t_new: f64, err: f64, rejected: bool, unclipped: Option<f64>) {
        let (n, tab) = (self.n, self.tableau);
        match &self.rosenbrock {
            Some(rosenbrock) => rosenbrock.write_dense(&self.y, &self.y_new, &mut self.dense),
            None => build_dense(tab, n, h, &self.y, &self.y_new, &self.k, &mut self.dense),
        }
        std::mem::swap(&mut self.y, &mut self.y_new);
        self.f
            .copy_from_slice(&self.k[tab.stages * n..(tab.stages + 1) * n]);
        self.t_old = self.t;
        self.t = t_new;
        self.stats.accepted_steps += 1;
        self.h = match self.method {
            Method::Rk4 { step } => step,
            _ => {
                let factor = self.factor(err);
                let factor = if rejected { factor.min(1.0) } else { factor };
                let mut next = h * factor;
                if let Some(proposed) = unclipped.filter(|_| factor >= 1.0 && !rejected) {
                    next = next.max(proposed);
                }
                let next = next.min(self.options.max_step);
                self.hint = Some(next);
                next
            }
        };
    }

    /// Hairer's initial step selection (`hinit`), with the scaled RMS norm.
    fn initial_step<S: OdeSystem>(&mut self, sys: &mut S) -> Result<f64, IntegrateError<S::Error>> {
        let (n, opts) = (self.n, self.options);
        self.scale.update(&self.y, &self.y);
        let scale = &self.scale;
        let d0 = scale.rms((0..n).map(|i| (self.y[i] / scale.of(i)).powi(2)).sum());
        let d1 = scale.rms((0..n).map(|i| (self.f[i] / scale.of(i)).powi(2)).sum());
        let h0 = if d0 < 1e-5 || d1 < 1e-5 {
            1e-6
        } else {
            0.01 * d0 / d1
        };
        let h0 = h0.min(opts.max_step);
        for i in 0..n {
            self.y_stage[i] = self.y[i] + h0 * self.f[i];
        }
        let f1 = &mut self.k[n..2 * n];
        evaluate(sys, self.t + h0, &self.y_stage, f1, &mut self.stats)?;
        let f1 = &self.k[n..2 * n];
        let scale = &self.scale;
        let d2 = scale.rms(
            (0..n)
                .map(|i| ((f1[i] - self.f[i]) / scale.of(i)).powi(2))
                .sum(),
        ) / h0;
        let order = f64::from(self.tableau.error_order + 1);
        let largest = d1.max(d2);
        let h1 = if largest <= 1e-15 {
            (h0 * 1e-3).max(1e-6)
        } else {
            (0.01 / largest).powf(1.0 / order)
        };
        let h = (100.0 * h0).min(h1).min(opts.max_step);
        Ok(if h.is_finite() && h > 0.0 { h } else { h0 })
    }
}

/// Where a step's stages are evaluated.
#[derive(Clone, Copy)]
struct StageSpan {
    /// Start (s).
    t: f64,
    /// Step (s).
    h: f64,
    /// End (s), used for nodes c = 1 so that the last stage is exactly at the step's end.
    t_new: f64,
}

/// Evaluates the stage rows `rows` of `tab` into `k` (row r at `r * n`), each from
/// `y + h sum_j a[r][j] k_j` built in `scratch`.
#[allow(clippy::too_many_arguments)]
fn run_stages<S: OdeSystem>(
    sys: &mut S,
    tab: &Tableau,
    span: StageSpan,
    rows: std::ops::Range<usize>,
    y: &[f64],
    k: &mut [f64],
    scratch: &mut [f64],
    stats: &mut StepStats,
) -> Result<(), IntegrateError<S::Error>> {
    let n = y.len();
    for r in rows {
        let (done, rest) = k.split_at_mut(r * n);
        let a = tab.a[r];
        for (i, value) in scratch.iter_mut().enumerate() {
            let sum: f64 = a
                .iter()
                .enumerate()
                .map(|(j, aj)| aj * done[j * n + i])
                .sum();
            *value = y[i] + span.h * sum;
        }
        let c = tab.c[r];
        let t = if c == 1.0 {
            span.t_new
        } else {
            span.t + c * span.h
        };
        evaluate(sys, t, scratch, &mut rest[..n], stats)?;
    }
    Ok(())
}

/// Builds the dense output vectors of an accepted step in Hairer's nested form
/// `y(t_old + theta h) = r0 + theta (r1 + (1 - theta)(r2 + theta (r3 + (1 - theta)(r4 + ...))))`:
/// the cubic Hermite part r0..r3 from the end values and derivatives, then
/// `r_{4+m} = h sum_j dense[m][j] k_j`.
fn build_dense(
    tab: &Tableau,
    n: usize,
    h: f64,
    y_old: &[f64],
    y_new: &[f64],
    k: &[f64],
    dense: &mut [f64],
) {
    let f_old = &k[..n];
    let f_new = &k[tab.stages * n..(tab.stages + 1) * n];
    for i in 0..n {
        let dy = y_new[i] - y_old[i];
        let bspl = h * f_old[i] - dy;
        dense[i] = y_old[i];
        dense[n + i] = dy;
        dense[2 * n + i] = bspl;
        dense[3 * n + i] = dy - h * f_new[i] - bspl;
    }
    for (m, coefficients) in tab.dense.iter().enumerate() {
        let row = &mut dense[(4 + m) * n..(5 + m) * n];
        for (i, value) in row.iter_mut().enumerate() {
            let sum: f64 = coefficients
                .iter()
                .enumerate()
                .map(|(j, d)| d * k[j * n + i])
                .sum();
            *value = h * sum;
        }
    }
}

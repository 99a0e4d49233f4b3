//! Runge-Kutta steppers with dense output, over slices of `f64`.
//!
//! Three explicit methods share one stepping routine over their Butcher tableaus, and one
//! linearly implicit method has its stages in `rosenbrock`:
//! - [`Method::Dopri5`]: Dormand-Prince 5(4), FSAL, with Hairer's 4th-order continuous
//!   extension (`dopri5.f`);
//! - [`Method::Dop853`]: Hairer's 8(5,3) with the 7th-order dense output (`dop853.f`; three extra
//!   stages per accepted step);
//! - [`Method::Rk4`]: classical RK4 with a fixed step and cubic Hermite dense output;
//! - [`Method::Rodas`]: RODAS with Steinebach's coefficients (RODASP), Rosenbrock 4(3), L-stable, with its
//!   3rd-order dense output (`rodas.f`): for stiff systems, where an explicit step is bounded
//!   by the fastest mode's period rather than by the accuracy.
//!
//! Step-size control follows Hairer, Norsett and Wanner, *Solving ODEs I*, II.4: the error norm
//! is `sqrt(mean((err_i / (atol + rtol max(|y_i|, |y_new_i|)))^2))`, the new step is
//! `h * clamp(0.9 err^(-1/(q+1)), fac_min, fac_max)` with q the order of the error estimate, and a
//! step accepted after a rejection does not grow. The initial step is Hairer's `hinit`.
//! A system can say how its components are measured ([`ErrorGroups`]): the components of one
//! vector scaled together by its length (a velocity split along a rotating frame is not small
//! because one of its components is), and the values it imposes after each step left out.
//!
//! Every work buffer is allocated in [`Stepper::new`]; [`Stepper::step`] allocates nothing. The
//! stepper integrates forward in time only.

use thiserror::Error;

mod stepper;

pub use super::scale::ErrorGroups;
pub use super::tableau::{ErrorWeights, Tableau};
use super::tableau::{DOP853, DOPRI5, RK4, RODAS};
pub use stepper::Stepper;

/// A system of first-order ODEs `dy/dt = f(t, y)` of fixed dimension.
pub trait OdeSystem {
    /// Error returned by the right-hand side.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Number of state components.
    fn dimension(&self) -> usize;

    /// Writes `dy/dt` at time `t` (s) and state `y` into `dydt` (both of length `dimension()`).
    fn rhs(&mut self, t: f64, y: &[f64], dydt: &mut [f64]) -> Result<(), Self::Error>;
}

/// The integration method.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// Dormand-Prince 5(4) with adaptive steps and 4th-order dense output.
    Dopri5,
    /// Hairer's DOP853: order 8 with a combined 5th/3rd-order error estimate and 7th-order
    /// dense output.
    Dop853,
    /// Classical 4th-order Runge-Kutta with a fixed step `step` (s), the last step of a
    /// stretch shortened to land on the requested limit; cubic Hermite dense output.
    Rk4 {
        /// Step size (s), > 0.
        step: f64,
    },
    /// RODAS (Hairer and Wanner) with Steinebach's RODASP coefficients: Rosenbrock 4(3), six
    /// stages, L-stable, no order reduction under a slow forcing, with a Jacobian by
    /// finite differences once per step and 3rd-order dense output.
    Rodas,
}

impl Method {
    /// The Butcher tableau and controller constants of the method.
    pub fn tableau(&self) -> &'static Tableau {
        match self {
            Self::Dopri5 => &DOPRI5,
            Self::Dop853 => &DOP853,
            Self::Rk4 { .. } => &RK4,
            Self::Rodas => &RODAS,
        }
    }

    /// Short name: `dopri5`, `dop853`, `rk4` or `rodas`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Dopri5 => "dopri5",
            Self::Dop853 => "dop853",
            Self::Rk4 { .. } => "rk4",
            Self::Rodas => "rodas",
        }
    }
}

/// Tolerances and step bounds of the adaptive methods.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepperOptions {
    /// Relative tolerance (dimensionless), > 10 machine epsilons.
    pub rtol: f64,
    /// Absolute tolerance (units of the state), > 0.
    pub atol: f64,
    /// Largest step (s), > 0; may be infinite.
    pub max_step: f64,
    /// First step (s); `None` selects it by Hairer's `hinit`.
    pub initial_step: Option<f64>,
    /// Absolute floor of the step (s), >= 0: the step collapses below
    /// `max(min_step, 16 eps |t|)`.
    pub min_step: f64,
}

impl Default for StepperOptions {
    /// rtol 1e-8, atol 1e-10, no step bound, automatic first step, floor 1e-14 s.
    fn default() -> Self {
        Self {
            rtol: 1e-8,
            atol: 1e-10,
            max_step: f64::INFINITY,
            initial_step: None,
            min_step: 1e-14,
        }
    }
}

/// Invalid stepper options or method.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum OptionsError {
    /// rtol not finite or not above 10 machine epsilons.
    #[error("rtol = {0} must be finite and greater than 10 machine epsilons (2.2e-15)")]
    Rtol(f64),
    /// atol not finite and positive.
    #[error("atol = {0} must be finite and positive")]
    Atol(f64),
    /// max_step not positive (NaN included).
    #[error("max_step = {0} s must be positive (it may be infinite)")]
    MaxStep(f64),
    /// initial_step not finite and positive.
    #[error("initial_step = {0} s must be finite and positive")]
    InitialStep(f64),
    /// min_step negative, not finite, or not below max_step.
    #[error("min_step = {0} s must be finite, >= 0 and below max_step")]
    MinStep(f64),
    /// RK4 step not finite and positive.
    #[error("the RK4 step = {0} s must be finite and positive")]
    FixedStep(f64),
    /// Zero-dimensional system.
    #[error("the system has no state components")]
    ZeroDimension,
}

impl StepperOptions {
    /// Checks every field (see the field docs).
    pub fn validate(&self) -> Result<(), OptionsError> {
        if !(self.rtol.is_finite() && self.rtol > 10.0 * f64::EPSILON) {
            return Err(OptionsError::Rtol(self.rtol));
        }
        if !(self.atol.is_finite() && self.atol > 0.0) {
            return Err(OptionsError::Atol(self.atol));
        }
        if self.max_step.is_nan() || self.max_step <= 0.0 {
            return Err(OptionsError::MaxStep(self.max_step));
        }
        if let Some(h) = self.initial_step {
            if !(h.is_finite() && h > 0.0) {
                return Err(OptionsError::InitialStep(h));
            }
        }
        if !(self.min_step.is_finite() && self.min_step >= 0.0 && self.min_step < self.max_step) {
            return Err(OptionsError::MinStep(self.min_step));
        }
        Ok(())
    }
}

/// Failure of a step, reset or interpolation request; every variant carries the time (s).
#[derive(Debug, Error)]
pub enum IntegrateError<E: std::error::Error + 'static> {
    /// The step size fell below `max(min_step, 16 eps |t|)`.
    #[error(
        "step size collapsed to {h:e} s at t = {t} s: the problem may be stiff or have a \
         discontinuity the integrator cannot resolve"
    )]
    StepSizeCollapse {
        /// Time reached (s).
        t: f64,
        /// The step that was too small (s).
        h: f64,
    },
    /// The right-hand side kept producing non-finite values although the step was reduced.
    #[error(
        "the right-hand side produced non-finite values after t = {t} s even with reduced steps"
    )]
    NonFinite {
        /// Time reached (s).
        t: f64,
    },
    /// The system's right-hand side returned an error.
    #[error("the right-hand side failed at t = {t} s")]
    Rhs {
        /// Time of the failing evaluation (s).
        t: f64,
        /// The system's error.
        #[source]
        source: E,
    },
    /// A state or system of the wrong length.
    #[error("state of length {found} at t = {t} s; the stepper was built for {expected}")]
    DimensionMismatch {
        /// Time (s).
        t: f64,
        /// Dimension of the stepper.
        expected: usize,
        /// Length given.
        found: usize,
    },
    /// A step requested up to a limit that is not after the current time.
    #[error("step limit t_limit = {t_limit} s is not after the current time t = {t} s")]
    LimitNotAhead {
        /// Current time (s).
        t: f64,
        /// The requested limit (s).
        t_limit: f64,
    },
    /// `step` called before `reset`.
    #[error("the stepper has no state yet (t = {t} s): call reset first")]
    NotStarted {
        /// Placeholder time of the unstarted stepper (s).
        t: f64,
    },
}

impl<E: std::error::Error + 'static> IntegrateError<E> {
    /// The time the error carries (s).
    pub fn time(&self) -> f64 {
        match self {
            Self::StepSizeCollapse { t, .. }
            | Self::NonFinite { t }
            | Self::Rhs { t, .. }
            | Self::DimensionMismatch { t, .. }
            | Self::LimitNotAhead { t, .. }
            | Self::NotStarted { t } => *t,
        }
    }
}

/// Dense output requested outside the last step or with a wrong buffer.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum DenseError {
    /// `t` outside `[t_old, t_new]` of the last accepted step.
    #[error("dense output at t = {t} s is outside the last step [{t_old}, {t_new}] s")]
    OutOfRange {
        /// Requested time (s).
        t: f64,
        /// Start of the last step (s).
        t_old: f64,
        /// End of the last step (s).
        t_new: f64,
    },
    /// Output buffer of the wrong length.
    #[error("dense output at t = {t} s into a buffer of length {found}; expected {expected}")]
    Length {
        /// Requested time (s).
        t: f64,
        /// Dimension of the stepper.
        expected: usize,
        /// Length given.
        found: usize,
    },
}

/// Counters of a stepper since its construction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepStats {
    /// Right-hand side evaluations (including starts, `hinit` and dense output stages).
    pub rhs_evaluations: u64,
    /// Accepted steps.
    pub accepted_steps: u64,
    /// Rejected trials (error too large or non-finite values).
    pub rejected_steps: u64,
}

/// One accepted step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepOutcome {
    /// Start of the step (s).
    pub t_old: f64,
    /// End of the step (s).
    pub t_new: f64,
    /// Whether the step landed exactly on the requested limit.
    pub reached_limit: bool,
}

/// Outcome of one trial step.
pub(super) enum Trial {
    /// Finite values, with the error norm (0 for fixed-step methods).
    Finite(f64),
    /// Some value was not finite.
    NonFinite(NonFiniteComponent),
}

/// The first state component found not finite in a trial step or a reset: its value or its
/// derivative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NonFiniteComponent {
    /// Index in the state vector.
    pub index: usize,
    /// Whether the derivative (not the value) was not finite.
    pub derivative: bool,
}

impl NonFiniteComponent {
    /// The value of component `index`.
    pub(super) fn value_of(index: usize) -> Self {
        Self {
            index,
            derivative: false,
        }
    }

    /// The derivative of component `index`.
    pub(super) fn derivative_of(index: usize) -> Self {
        Self {
            index,
            derivative: true,
        }
    }

    /// The first non-finite component among `values` and then `derivatives` (rows of `n`
    /// components each) of a system of dimension `n`.
    fn find(n: usize, values: &[f64], derivatives: &[f64]) -> Option<Self> {
        let at = |index: usize, derivative| Self { index, derivative };
        first_non_finite(values)
            .map(|i| at(i % n, false))
            .or_else(|| first_non_finite(derivatives).map(|i| at(i % n, true)))
    }
}

/// The index of the first value that is not finite, if any.
pub(super) fn first_non_finite(values: &[f64]) -> Option<usize> {
    values.iter().position(|v| !v.is_finite())
}

/// One counted right-hand side evaluation.
pub(super) fn evaluate<S: OdeSystem>(
    sys: &mut S,
    t: f64,
    y: &[f64],
    dydt: &mut [f64],
    stats: &mut StepStats,
) -> Result<(), IntegrateError<S::Error>> {
    stats.rhs_evaluations += 1;
    sys.rhs(t, y, dydt)
        .map_err(|source| IntegrateError::Rhs { t, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// y' = (1, 0) until t = 0.5, then the second component's derivative overflows.
    struct OverflowingSecond;

    impl OdeSystem for OverflowingSecond {
        type Error = std::convert::Infallible;
        fn dimension(&self) -> usize {
            2
        }
        fn rhs(&mut self, t: f64, y: &[f64], dydt: &mut [f64]) -> Result<(), Self::Error> {
            dydt[0] = 1.0;
            dydt[1] = if t > 0.5 {
                1e308 * (1.0 + y[1].abs()) * 10.0
            } else {
                0.0
            };
            Ok(())
        }
    }

    // A stepper that gives up on non-finite values names the component, and every error
    // carries a finite time: the time reached.
    #[test]
    fn a_non_finite_failure_names_its_component_and_the_time_reached() {
        let mut sys = OverflowingSecond;
        let mut stepper = Stepper::new(Method::Dopri5, StepperOptions::default(), 2).unwrap();
        stepper.reset(&mut sys, 0.0, &[0.0, 1.0]).unwrap();
        assert_eq!(stepper.non_finite_component(), None);
        let error = (0..10_000)
            .find_map(|_| stepper.step(&mut sys, 2.0).err())
            .expect("the stepper must stop");
        assert!(matches!(error, IntegrateError::NonFinite { .. }), "{error}");
        assert!(error.time().is_finite() && error.time() <= 0.5, "{error}");
        // The overflowing derivative makes the new value non-finite first.
        assert_eq!(stepper.non_finite_component().map(|c| c.index), Some(1));
        let error = stepper.reset(&mut sys, 0.25, &[0.0, f64::NAN]).unwrap_err();
        assert_eq!(error.time(), 0.25);
        assert_eq!(
            stepper.non_finite_component(),
            Some(NonFiniteComponent {
                index: 1,
                derivative: false
            })
        );
    }
}

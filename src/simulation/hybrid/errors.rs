//! The failures of the ODE layer and the model as run-time errors.

use crate::model::{DynamicsError, StateError};
use crate::simulation::ode::events::EventError;
use crate::simulation::ode::integrate::IntegrateError;
use crate::simulation::report::RunError;

pub fn dynamics_failure(e: DynamicsError, t: f64) -> RunError {
    match e {
        DynamicsError::SegmentCollapsed { segment, .. } => RunError::Collision {
            t,
            segment,
            what: format!("the objects at the ends of segment {segment}"),
            distance: 0.0,
        },
        DynamicsError::SingularGrip => RunError::SingularGrip { t },
        other => non_finite(t, other.to_string()),
    }
}

pub fn state_failure(e: StateError, t: f64) -> RunError {
    match e {
        StateError::SegmentCollapsed { segment } => RunError::Collision {
            t,
            segment,
            what: format!("the objects at the ends of segment {segment}"),
            distance: 0.0,
        },
        other => non_finite(t, other.to_string()),
    }
}

pub fn integrate_failure(e: IntegrateError<DynamicsError>, phase: &'static str) -> RunError {
    match e {
        IntegrateError::StepSizeCollapse { t, h } => RunError::StepSizeCollapse {
            t,
            h,
            phase,
            cause: String::new(),
        },
        IntegrateError::Rhs { t, source } => dynamics_failure(source, t),
        other => non_finite(other.time(), other.to_string()),
    }
}

/// A failure of the event locator; `guard` names the guard of a member in words, with its
/// object.
pub fn event_failure(
    e: EventError<DynamicsError>,
    guard: impl Fn(usize) -> Option<(String, Option<usize>)>,
) -> RunError {
    match e {
        EventError::Events { t, source } => dynamics_failure(source, t),
        EventError::Integrate(e) => integrate_failure(e, "event location"),
        EventError::NonFiniteEvent { t, member } => match guard(member) {
            Some((what, object)) => RunError::NonFinite {
                t,
                phase: "",
                what,
                object,
                cause: String::new(),
            },
            None => non_finite(t, format!("event function {member}")),
        },
        other => non_finite(other.time(), other.to_string()),
    }
}

/// A non-finite failure at t (s) of `what`, to be explained by the diagnosis.
pub fn non_finite(t: f64, what: String) -> RunError {
    RunError::NonFinite {
        t,
        phase: "",
        what,
        object: None,
        cause: String::new(),
    }
}

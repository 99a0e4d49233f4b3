//! The failures of the ODE layer and the model as run-time errors.

use crate::model::{DynamicsError, ImpulseError, StateError};
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

/// A tensing impulse that cannot be completed: an impact of the string that has no solution.
pub fn impulse_failure(e: ImpulseError, t: f64) -> RunError {
    match e {
        ImpulseError::State(e) => state_failure(e, t),
        other => RunError::Impact {
            t,
            what: "the string".to_string(),
            reason: other.to_string(),
        },
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_impulse_that_cannot_complete_ends_the_run_as_an_impact_of_the_string() {
        let error = impulse_failure(ImpulseError::NoConsistentModes { axles: 3 }, 1.25);
        match &error {
            RunError::Impact { t, what, reason } => {
                assert_eq!(*t, 1.25);
                assert_eq!(what, "the string");
                assert!(reason.contains("3 axles at zero slip"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        assert!(error
            .to_string()
            .starts_with("t = 1.250000 s: the impact of the string"));
        let stalled = ImpulseError::Incomplete {
            pieces: 400,
            slip_events: 337,
            length_rate: 0.398,
            length_rate_before: 2.13,
        };
        let message = impulse_failure(stalled, 2.0).to_string();
        assert!(
            message.contains("did not complete") && message.contains("3.980e-1"),
            "{message}"
        );
    }

    #[test]
    fn a_state_error_in_an_impulse_keeps_its_own_failure() {
        let error = impulse_failure(
            ImpulseError::State(StateError::SegmentCollapsed { segment: 2 }),
            0.5,
        );
        assert!(
            matches!(error, RunError::Collision { segment: 2, .. }),
            "{error:?}"
        );
    }
}

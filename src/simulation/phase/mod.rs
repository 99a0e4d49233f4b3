//! The two phases of a run as ODE systems, with their event functions.
//!
//! - Taut: the reduced rotating-frame state of the note (the string length holds by
//!   construction), followed by three energy accumulators.
//! - Loose: positions and velocities of every object, then spins, then the accumulators.
//!
//! The accumulators integrate the power terms of the energy balance along the run:
//! hand work W, friction loss and drag loss (and with a compliant string its damping loss), so
//! that E(t) - E(0) = W - friction - drag - string loss - impulse losses can be checked at any
//! time.

pub mod guards;
pub mod imposed;
pub mod loose;
pub mod run;
pub mod shared;
pub mod taut;

use crate::model::DynamicsError;
use crate::model::{Body, Params, StickInput};
use crate::simulation::drive::Drive;
use crate::simulation::ode::events::EventSystem;
use crate::simulation::ode::integrate::ErrorGroups;

pub use guards::{Guard, Hit, LooseGuard, TautGuard};
pub use loose::LooseSystem;
pub use run::Phases;
pub use shared::{FlightView, Object, SharedGuard};
pub use taut::TautSystem;

/// The most energy accumulators at the end of a phase state: hand work, friction loss, drag
/// loss and, with a compliant string only, the string's damping loss (J).
pub const ACCUMULATORS: usize = 4;

/// The accumulators a run with these parameters integrates: 3, or 4 with a compliant string.
pub fn accumulators(params: &Params) -> usize {
    if params.string_stiffness.is_some() {
        ACCUMULATORS
    } else {
        ACCUMULATORS - 1
    }
}

/// Which phase the string is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The string is taut: its length L holds and it carries tension.
    Taut,
    /// The string is slack (sum l < L): no tension acts, the diabolos fly freely.
    Loose,
}

impl Phase {
    /// The phase's name in the output and in messages ("taut", "loose").
    pub fn name(self) -> &'static str {
        match self {
            Self::Taut => "taut",
            Self::Loose => "loose",
        }
    }
}

/// What a quantity of a run is, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// A position (x-y), m.
    Position,
    /// A velocity (x-y), m/s.
    Velocity,
    /// An acceleration (x-y), m/s^2.
    Acceleration,
    /// A diabolo's spin w, rad/s.
    Spin,
    /// A diabolo's spin acceleration w', rad/s^2.
    SpinAcceleration,
    /// A string angle theta (or phi_0 of the first segment), rad.
    StringAngle,
    /// A string angle's rate, rad/s.
    StringAngleRate,
    /// A segment's length l, m.
    SegmentLength,
    /// A segment's length rate l', m/s.
    SegmentLengthRate,
    /// The string's tension T_0, N.
    Tension,
    /// The work the hands did, J.
    HandWork,
    /// The hands' power, W.
    HandPower,
    /// The energy lost to friction at the axles, J.
    FrictionLoss,
    /// The power lost to friction, W.
    FrictionPower,
    /// The energy lost to spin drag, J.
    DragLoss,
    /// The power lost to spin drag, W.
    DragPower,
    /// The energy lost in a compliant string's damping, J.
    StringLoss,
    /// The power lost in a compliant string's damping, W.
    StringDampingPower,
    /// A component of the state with no other name.
    State,
}

impl Measure {
    /// The energy accounts at the end of a phase state, in order.
    const ACCOUNTS: [Self; ACCUMULATORS] = [
        Self::HandWork,
        Self::FrictionLoss,
        Self::DragLoss,
        Self::StringLoss,
    ];

    /// Its name in messages ("position", "spin acceleration", "hand work"...).
    pub fn name(self) -> &'static str {
        match self {
            Self::Position => "position",
            Self::Velocity => "velocity",
            Self::Acceleration => "acceleration",
            Self::Spin => "spin",
            Self::SpinAcceleration => "spin acceleration",
            Self::StringAngle => "string angle",
            Self::StringAngleRate => "string angle rate",
            Self::SegmentLength => "segment length",
            Self::SegmentLengthRate => "segment length rate",
            Self::Tension => "tension",
            Self::HandWork => "hand work",
            Self::HandPower => "hand power",
            Self::FrictionLoss => "friction loss",
            Self::FrictionPower => "friction power",
            Self::DragLoss => "drag loss",
            Self::DragPower => "drag power",
            Self::StringLoss => "string loss",
            Self::StringDampingPower => "string damping power",
            Self::State => "state",
        }
    }

    /// Its rate of change (itself for a measure that is already a rate, or has none named).
    pub fn rate(self) -> Self {
        match self {
            Self::Position => Self::Velocity,
            Self::Velocity => Self::Acceleration,
            Self::Spin => Self::SpinAcceleration,
            Self::StringAngle => Self::StringAngleRate,
            Self::SegmentLength => Self::SegmentLengthRate,
            Self::HandWork => Self::HandPower,
            Self::FrictionLoss => Self::FrictionPower,
            Self::DragLoss => Self::DragPower,
            Self::StringLoss => Self::StringDampingPower,
            other => other,
        }
    }
}

/// A quantity of a phase state, for messages: what it is and whose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quantity {
    /// The object (0 the left stick, 1..N the diabolos, N + 1 the right stick), or `None` for
    /// the string and the energy accounts.
    pub object: Option<usize>,
    /// What it is.
    pub measure: Measure,
}

impl Quantity {
    /// The `measure` of object `object`.
    pub fn of(object: usize, measure: Measure) -> Self {
        Self {
            object: Some(object),
            measure,
        }
    }

    /// The `measure` of the string (or of the run: an energy account).
    pub fn of_string(measure: Measure) -> Self {
        Self {
            object: None,
            measure,
        }
    }

    /// The energy account at `index` of the accumulators.
    fn account(index: usize) -> Self {
        Self::of_string(Measure::ACCOUNTS[index.min(ACCUMULATORS - 1)])
    }

    /// The rate of change of this quantity.
    pub fn rate(self) -> Self {
        Self {
            measure: self.measure.rate(),
            ..self
        }
    }

    /// What it is, in words.
    pub fn name(self) -> &'static str {
        self.measure.name()
    }
}

/// The hands' inputs at time t for sticks in the given states.
pub fn hand_inputs(drives: &[Drive; 2], t: f64, sticks: &[Body; 2]) -> [StickInput; 2] {
    [
        drives[0].input(t, &sticks[0]),
        drives[1].input(t, &sticks[1]),
    ]
}

/// What the run asks of a phase's ODE system besides its rates and event values.
pub trait PhaseSystem: EventSystem<Error = DynamicsError> {
    /// How its components are measured in the error norm: vectors together, what the paths
    /// impose not at all.
    fn error_groups(&self) -> ErrorGroups;
    /// Puts the state y at t back on the sticks' paths (after a step); whether it changed.
    fn impose(&mut self, t: f64, y: &mut [f64]) -> bool;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulation::drive::Drive;
    use loose::LooseLayout;

    // Every component of both phase states has a name and an owner, in layout order.
    #[test]
    fn state_components_are_named_with_their_object() {
        let params = Params::new(crate::model::ParamValues::default()).unwrap();
        let drives = [Drive::Released, Drive::Released];
        let taut = TautSystem::new(&params, 2, drives.clone());
        let named = |q: Quantity| (q.object, q.name());
        let layout = taut.dynamics.layout();
        assert_eq!(named(taut.quantity(1)), (Some(0), "position"));
        assert_eq!(
            named(taut.quantity(layout.segment_length(1))),
            (Some(1), "segment length")
        );
        assert_eq!(
            named(taut.quantity(layout.theta(2))),
            (Some(2), "string angle")
        );
        assert_eq!(named(taut.quantity(layout.spin(2))), (Some(2), "spin"));
        assert_eq!(
            named(taut.quantity(layout.u_beta(1))),
            (Some(1), "velocity")
        );
        assert_eq!(
            named(taut.quantity(layout.u_alpha_right())),
            (Some(3), "velocity")
        );
        assert_eq!(named(taut.quantity(layout.len() + 2)), (None, "drag loss"));
        let loose = LooseLayout::new(2);
        assert_eq!(named(loose.quantity(4 * 3 + 1)), (Some(3), "position"));
        assert_eq!(named(loose.quantity(4 + 3)), (Some(1), "velocity"));
        assert_eq!(named(loose.quantity(loose.spin(2))), (Some(2), "spin"));
        assert_eq!(named(loose.quantity(loose.len())), (None, "hand work"));
        assert_eq!(loose.quantity(4 + 3).rate().name(), "acceleration");
        assert_eq!(
            loose.quantity(loose.spin(1)).rate().name(),
            "spin acceleration"
        );
    }
}

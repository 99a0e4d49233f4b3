//! Event location on the dense output of a [`Stepper`].
//!
//! Events are the zeros of a vector of event functions g(t, y). After each accepted step
//! [t0, t1] the [`EventLocator`] samples g on the step's interpolant (at a few equally spaced
//! interior points and at t1) and compares signs between consecutive samples, so that a
//! function touching zero and coming back inside one step is found when the samples resolve it.
//! The interior samples are skipped in a step where no zero fits: every armed member keeps its
//! sign from end to end and |g(t0)| + |g(t1)| exceeds twice its larger end rate times the step
//! (the rate at a step's end measured just before it, 1e-3 of the step; the start's is the
//! previous step's end). A zero inside would need a rate somewhere in the step more than twice
//! the larger of those at its ends. Members whose dips are searched, a probe, or a start
//! without known rates sample every step.
//! Each bracket is solved on the interpolant by the Illinois method (never by re-integrating)
//! to `100 eps (|t| + |h|)`; the earliest root wins, and every member whose root lies within
//! that tolerance of it fires with it.
//!
//! Zeros at sample points:
//! - a member exactly zero at the start of a step, or one that fired at the time the step
//!   starts from, never fires there: its sign is taken from just after (a probe sample at
//!   `t0 + probe_fraction h`, then the next samples); so is one within its
//!   [`EventSpec::start_band`] of zero at a start without history (after a reset or a new
//!   configuration);
//! - a member exactly zero at a later sample (t1 included) crosses there if its direction
//!   matches.
//!
//! The reported event time is the post-crossing end of the final bracket: there, every firing
//! member is already on its new side (or exactly zero), so restarting from the event state does
//! not find the same crossing again.
//!
//! The caller's loop: step, locate, apply the event to the located state, restart there.
//!
//! ```
//! use diabolo::simulation::{
//!     Direction, EventLocator, EventOptions, EventSpec, EventSystem, Method, OdeSystem, Stepper,
//!     StepperOptions,
//! };
//!
//! /// A ball falling under gravity onto the floor y = 0.
//! struct Ball;
//! impl OdeSystem for Ball {
//!     type Error = std::convert::Infallible;
//!     fn dimension(&self) -> usize { 2 }
//!     fn rhs(&mut self, _t: f64, y: &[f64], dydt: &mut [f64]) -> Result<(), Self::Error> {
//!         dydt[0] = y[1];
//!         dydt[1] = -9.81;
//!         Ok(())
//!     }
//! }
//! impl EventSystem for Ball {
//!     fn events(&mut self, _t: f64, y: &[f64], out: &mut [f64]) -> Result<(), Self::Error> {
//!         out[0] = y[0];
//!         Ok(())
//!     }
//! }
//!
//! let mut stepper = Stepper::new(Method::Dopri5, StepperOptions::default(), 2).unwrap();
//! let mut locator = EventLocator::new(1, 2, EventOptions::default()).unwrap();
//! locator.set_mut().configure(&[EventSpec::new(Direction::Falling)]).unwrap();
//! let (t_end, mut events) = (0.6, 0);
//! let mut state = [1.0, 0.0];
//! stepper.reset(&mut Ball, 0.0, &state).unwrap();
//! while stepper.t() < t_end {
//!     stepper.step(&mut Ball, t_end).unwrap();
//!     if let Some(hit) = locator.locate(&mut Ball, &stepper, &mut state).unwrap() {
//!         let t = hit.t;
//!         events += 1;
//!         state[1] = -0.5 * state[1]; // bounce
//!         stepper.reset(&mut Ball, t, &state).unwrap();
//!     }
//! }
//! assert_eq!(events, 1);
//! // Analytic: impact at sqrt(2 / g), then a parabola at half the impact speed.
//! let impact = (2.0 / 9.81f64).sqrt();
//! let (v, dt) = (0.5 * 9.81 * impact, 0.6 - impact);
//! approx::assert_abs_diff_eq!(stepper.y()[0], v * dt - 0.5 * 9.81 * dt * dt, epsilon = 1e-12);
//! ```

use thiserror::Error;

use super::integrate::{DenseError, IntegrateError, OdeSystem};

mod gaps;
mod locator;

pub use gaps::GAP_EVALUATIONS;
pub use locator::EventLocator;

/// A system with event functions.
pub trait EventSystem: OdeSystem {
    /// Writes the active event functions g(t, y) into `out` (one value per active member, the
    /// count set by [`EventSet::configure`]). `t` in s.
    fn events(&mut self, t: f64, y: &[f64], out: &mut [f64]) -> Result<(), Self::Error>;

    /// For the members that are gaps ([`EventSpec::gap`]): writes, for the last
    /// [`EventSystem::events`] evaluation, the gap's rate dg/dt and the velocity (m/s, x and
    /// y, z) at which its two ends move relative to each other, `[dg/dt, vx, vy, vz]` (vz 0 in
    /// the plane). A system with gap members must write them; the others are not read.
    fn gap_velocities(&self, out: &mut [GapMotion]) {
        let _ = out;
    }
}

/// A gap's rate and the relative velocity of its ends, `[dg/dt, vx, vy, vz]`, m/s.
pub type GapMotion = [f64; 4];

/// Which zero crossings of an event function fire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From negative to zero or positive.
    Rising,
    /// From positive to zero or negative.
    Falling,
    /// Both.
    Either,
}

impl Direction {
    /// Whether a crossing of this kind fires.
    pub fn accepts(self, crossing: Crossing) -> bool {
        matches!(
            (self, crossing),
            (Self::Either, _)
                | (Self::Rising, Crossing::Rising)
                | (Self::Falling, Crossing::Falling)
        )
    }
}

/// The way a member crossed zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crossing {
    /// Negative before, non-negative after.
    Rising,
    /// Positive before, non-positive after.
    Falling,
}

/// Direction filter and armed flag of one event member.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EventSpec {
    /// Which crossings fire.
    pub direction: Direction,
    /// A disarmed member is ignored until re-armed.
    pub armed: bool,
    /// Search a dip below zero between samples: where a positive member's samples pass a
    /// minimum, the minimum itself is located on the interpolant, so that a value that goes
    /// negative and back within one sampling interval still fires (as falling).
    pub dips: bool,
    /// The member is a gap: a distance between two bodies (or a body and a floor) that a sound
    /// motion never makes negative, whose rate and relative velocity the system reports
    /// ([`EventSystem::gap_velocities`]). Between two positive samples it is searched
    /// conservatively: its second derivative is at least minus the relative acceleration (the
    /// sideways motion of two bodies only moves them apart), bounded by twice the mean
    /// relative acceleration between the samples, so from each end it stays positive over a
    /// known time (the first root of g + g' s - A s^2 / 2); where those two reaches do not
    /// cover the interval, it is halved until they do or a sample is not positive (at most
    /// [`GAP_EVALUATIONS`] evaluations), so that no gap closes unseen between samples, however
    /// far apart the steps are. A gap at or below zero (or within its start band) at a step's
    /// start that rises above zero before a later sample is bracketed from its maximum; one
    /// that closes further than its start band (1e-12 where it has none) fires at the start
    /// (falling): the bodies press into each other; one that reopens goes on unseen.
    pub gap: bool,
    /// At a start without history (the first step after a reset or a new configuration), a
    /// value within this band of zero counts as zero: its sign is taken from just after, as for
    /// an exact zero. For a member whose event leaves it within round-off of zero on its new
    /// side when the run is entered again from the event (a contact's gap after its impact):
    /// its sign there is the root solve's residual, not the motion's.
    pub start_band: f64,
}

impl EventSpec {
    /// An armed member with the given direction.
    pub fn new(direction: Direction) -> Self {
        Self {
            direction,
            armed: true,
            dips: false,
            gap: false,
            start_band: 0.0,
        }
    }

    /// The member as a gap (see [`EventSpec::gap`]).
    pub fn as_gap(self) -> Self {
        Self { gap: true, ..self }
    }

    /// The member with its dips searched (see [`EventSpec::dips`]).
    pub fn with_dips(self) -> Self {
        Self { dips: true, ..self }
    }

    /// The member with a start band (see [`EventSpec::start_band`]).
    pub fn with_start_band(self, start_band: f64) -> Self {
        Self { start_band, ..self }
    }
}

/// Invalid event configuration.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum EventConfigError {
    /// More members than the locator was built for.
    #[error("{requested} event members requested; the locator holds at most {capacity}")]
    TooManyMembers {
        /// Members requested.
        requested: usize,
        /// Capacity.
        capacity: usize,
    },
    /// A member index outside the active set.
    #[error("event member {member} does not exist ({active} active)")]
    NoSuchMember {
        /// Index given.
        member: usize,
        /// Active count.
        active: usize,
    },
    /// Invalid option value.
    #[error("invalid event option: {0}")]
    Option(&'static str),
}

/// The active event members (up to a fixed capacity) with their filters.
#[derive(Clone, Debug)]
pub struct EventSet {
    specs: Vec<EventSpec>,
    active: usize,
    generation: u64,
    /// Whether some active member has its dips searched (else the search costs nothing).
    dips: bool,
    /// Whether some active member is a gap (else no relative velocity is asked for).
    gaps: bool,
}

impl EventSet {
    fn with_capacity(capacity: usize) -> Self {
        Self {
            specs: vec![EventSpec::new(Direction::Either); capacity],
            active: 0,
            generation: 0,
            dips: false,
            gaps: false,
        }
    }

    /// Replaces the active members by `specs` (the event function then writes `specs.len()`
    /// values). Forgets what the locator remembered of the previous set.
    pub fn configure(&mut self, specs: &[EventSpec]) -> Result<(), EventConfigError> {
        if specs.len() > self.specs.len() {
            return Err(EventConfigError::TooManyMembers {
                requested: specs.len(),
                capacity: self.specs.len(),
            });
        }
        self.specs[..specs.len()].copy_from_slice(specs);
        self.active = specs.len();
        self.generation += 1;
        self.dips = specs.iter().any(|s| s.dips);
        self.gaps = specs.iter().any(|s| s.gap);
        Ok(())
    }

    /// Arms or disarms member `member`.
    pub fn set_armed(&mut self, member: usize, armed: bool) -> Result<(), EventConfigError> {
        self.member_mut(member)?.armed = armed;
        Ok(())
    }

    /// Sets the direction filter of member `member`.
    pub fn set_direction(
        &mut self,
        member: usize,
        direction: Direction,
    ) -> Result<(), EventConfigError> {
        self.member_mut(member)?.direction = direction;
        Ok(())
    }

    /// The spec of member `member`, if active.
    pub fn get(&self, member: usize) -> Option<EventSpec> {
        self.specs[..self.active].get(member).copied()
    }

    /// Number of active members.
    pub fn active(&self) -> usize {
        self.active
    }

    /// Largest number of members.
    pub fn capacity(&self) -> usize {
        self.specs.len()
    }

    fn member_mut(&mut self, member: usize) -> Result<&mut EventSpec, EventConfigError> {
        let active = self.active;
        self.specs[..active]
            .get_mut(member)
            .ok_or(EventConfigError::NoSuchMember { member, active })
    }
}

/// Sampling options of the locator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EventOptions {
    /// Equally spaced interior samples per step (besides the step's end).
    pub interior_samples: usize,
    /// Offset of the probe sample that resolves members at zero at a step's start, as a
    /// fraction of the step, in (0, 1 / (interior_samples + 1)).
    pub probe_fraction: f64,
    /// The interior samples are skipped in a step where every armed member keeps its sign
    /// with |g(t0)| + |g(t1)| > `rate_margin` max(|g'(t0)|, |g'(t1)|) h: no zero fits in the
    /// step unless the member's rate somewhere in it exceeds `rate_margin` times the larger of
    /// its rates at the ends (a zero at tau needs |g(t0)| <= M (tau - t0) and
    /// |g(t1)| <= M (t1 - tau), M the largest rate). 0 never skips.
    pub rate_margin: f64,
}

impl Default for EventOptions {
    /// Four interior samples, probe at 1e-3 of the step, interior samples skipped with a
    /// rate margin of 2.
    fn default() -> Self {
        Self {
            interior_samples: 4,
            probe_fraction: 1e-3,
            rate_margin: 2.0,
        }
    }
}

impl EventOptions {
    /// Checks the probe fraction against the sample spacing.
    pub fn validate(&self) -> Result<(), EventConfigError> {
        let spacing = 1.0 / (self.interior_samples as f64 + 1.0);
        if !(self.probe_fraction > 0.0 && self.probe_fraction < spacing) {
            return Err(EventConfigError::Option(
                "probe_fraction must lie in (0, 1 / (interior_samples + 1))",
            ));
        }
        if !(self.rate_margin >= 0.0 && self.rate_margin.is_finite()) {
            return Err(EventConfigError::Option(
                "rate_margin must be finite and not negative",
            ));
        }
        Ok(())
    }
}

/// Failure while locating events; every variant carries the time (s).
#[derive(Debug, Error)]
pub enum EventError<E: std::error::Error + 'static> {
    /// The stepper failed.
    #[error(transparent)]
    Integrate(#[from] IntegrateError<E>),
    /// Dense output failed (a buffer of the wrong length).
    #[error(transparent)]
    Dense(#[from] DenseError),
    /// The event function returned an error.
    #[error("the event functions failed at t = {t} s")]
    Events {
        /// Time of the evaluation (s).
        t: f64,
        /// The system's error.
        #[source]
        source: E,
    },
    /// The event function returned a non-finite value.
    #[error("event function {member} is not finite at t = {t} s")]
    NonFiniteEvent {
        /// Time of the evaluation (s).
        t: f64,
        /// Member index.
        member: usize,
    },
    /// The locator, stepper and buffers disagree on the state dimension.
    #[error("state dimension {found} at t = {t} s; the locator was built for {expected}")]
    DimensionMismatch {
        /// Time (s).
        t: f64,
        /// Dimension of the locator.
        expected: usize,
        /// Dimension found.
        found: usize,
    },
}

impl<E: std::error::Error + 'static> EventError<E> {
    /// The time the error carries (s).
    pub fn time(&self) -> f64 {
        match self {
            Self::Integrate(e) => e.time(),
            Self::Dense(DenseError::OutOfRange { t, .. } | DenseError::Length { t, .. }) => *t,
            Self::Events { t, .. }
            | Self::NonFiniteEvent { t, .. }
            | Self::DimensionMismatch { t, .. } => *t,
        }
    }
}

/// The events of one instant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EventHit<'a> {
    /// Event time (s): the post-crossing end of the root bracket.
    pub t: f64,
    /// Members that fire at `t`, in increasing index order.
    pub members: &'a [usize],
    /// How each of `members` crossed zero (the sign just after the root).
    pub crossings: &'a [Crossing],
    /// Every active event function at `t` (on the post-crossing side for the members).
    pub values: &'a [f64],
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulation::ode::integrate::{Method, Stepper, StepperOptions};

    // Options and member indices are validated.
    #[test]
    fn configuration_is_validated() {
        let bad = EventOptions {
            interior_samples: 4,
            probe_fraction: 0.2,
            ..EventOptions::default()
        };
        assert!(EventLocator::new(2, 1, bad).is_err());
        let bad = EventOptions {
            rate_margin: f64::NAN,
            ..EventOptions::default()
        };
        assert!(EventLocator::new(2, 1, bad).is_err());
        let mut locator = EventLocator::new(2, 1, EventOptions::default()).unwrap();
        let spec = EventSpec::new(Direction::Rising);
        assert!(locator.set_mut().configure(&[spec; 3]).is_err());
        locator.set_mut().configure(&[spec]).unwrap();
        assert!(locator.set_mut().set_armed(1, false).is_err());
        locator.set_mut().set_armed(0, false).unwrap();
        assert_eq!(locator.set().get(0).map(|s| s.armed), Some(false));
        assert!(Direction::Either.accepts(Crossing::Falling));
        assert!(!Direction::Rising.accepts(Crossing::Falling));
    }

    /// y' = 1 from y = 0: y is the time.
    struct Clock;
    impl OdeSystem for Clock {
        type Error = std::convert::Infallible;
        fn dimension(&self) -> usize {
            1
        }
        fn rhs(&mut self, _t: f64, _y: &[f64], dydt: &mut [f64]) -> Result<(), Self::Error> {
            dydt[0] = 1.0;
            Ok(())
        }
    }
    /// sin(3 y), and a narrow dip 0.98 - exp(-((y - 5.05) / 0.01)^2) below zero.
    impl EventSystem for Clock {
        fn events(&mut self, _t: f64, y: &[f64], out: &mut [f64]) -> Result<(), Self::Error> {
            out[0] = (3.0 * y[0]).sin();
            out[1] = 0.98 - (-((y[0] - 5.05) / 0.01).powi(2)).exp();
            Ok(())
        }
    }

    // Steps where no zero fits skip their interior samples (more than half of them here), and
    // every crossing is found at the same time as with every step sampled: the five of
    // sin 3t and the two of a dip 0.02 below zero and some 0.01 s wide (steps of 0.05 s).
    #[test]
    fn interior_samples_are_skipped_only_where_no_zero_fits() {
        let find = |margin: f64| {
            let options = StepperOptions {
                max_step: 0.05,
                ..StepperOptions::default()
            };
            let mut stepper = Stepper::new(Method::Dopri5, options, 1).unwrap();
            let events = EventOptions {
                rate_margin: margin,
                ..EventOptions::default()
            };
            let mut locator = EventLocator::new(2, 1, events).unwrap();
            let spec = EventSpec::new(Direction::Either);
            locator.set_mut().configure(&[spec; 2]).unwrap();
            stepper.reset(&mut Clock, 0.0, &[0.0]).unwrap();
            let mut state = [0.0];
            let mut found = Vec::new();
            while stepper.t() < 6.0 {
                stepper.step(&mut Clock, 6.0).unwrap();
                if let Some(hit) = locator.locate(&mut Clock, &stepper, &mut state).unwrap() {
                    found.push((hit.t, hit.members.to_vec()));
                    let t = hit.t;
                    stepper.reset(&mut Clock, t, &state.clone()).unwrap();
                }
            }
            (found, locator.scanned())
        };
        let (skipping, (scanned, skipped)) = find(2.0);
        let (sampling, (_, none)) = find(0.0);
        // Skipping whatever the rates (a margin near 0) misses the dip: the test can fail.
        let (blind, _) = find(1e-9);
        assert_eq!(none, 0);
        // sin(3 t) crosses at k pi / 3: 5 times in (0, 6); the dip twice.
        let crossings = |found: &[(f64, Vec<usize>)], member| {
            found.iter().filter(|(_, m)| m.contains(&member)).count()
        };
        assert_eq!(crossings(&sampling, 0), 5, "{sampling:?}");
        assert_eq!(crossings(&skipping, 0), 5, "{skipping:?}");
        assert_eq!(crossings(&sampling, 1), 2, "{sampling:?}");
        assert_eq!(crossings(&skipping, 1), 2, "{skipping:?}");
        assert!(crossings(&blind, 1) < 2, "{blind:?}");
        for ((a, _), (b, _)) in skipping.iter().zip(&sampling) {
            assert!((a - b).abs() < 1e-12, "{a} against {b}");
        }
        assert!(
            skipped * 2 > scanned,
            "{skipped} of {scanned} steps skipped"
        );
    }

    /// A ball thrown up at 1 mm/s under g = 10 m/s^2: (y, v).
    struct Ball;
    impl OdeSystem for Ball {
        type Error = std::convert::Infallible;
        fn dimension(&self) -> usize {
            2
        }
        fn rhs(&mut self, _t: f64, y: &[f64], dydt: &mut [f64]) -> Result<(), Self::Error> {
            dydt[0] = y[1];
            dydt[1] = -10.0;
            Ok(())
        }
    }
    impl EventSystem for Ball {
        fn events(&mut self, _t: f64, y: &[f64], out: &mut [f64]) -> Result<(), Self::Error> {
            out[0] = y[0];
            Ok(())
        }
    }

    // A run entered again from an event sits a root solve's residual on the far side of the
    // member that fired (here 1e-15 below zero), and a rebound shorter than the first step
    // (0.2 ms of 50 ms) is missed by its samples. With a start band the start counts as a
    // zero, its sign is taken just after, and the return to zero is found where the parabola
    // says (t = 2 v / g less 1e-12 s); without one it is missed: the test can fail.
    #[test]
    fn a_start_band_finds_the_return_of_a_rebound_shorter_than_the_step() {
        let find = |band: f64| {
            let options = StepperOptions {
                max_step: 0.05,
                initial_step: Some(0.05),
                ..StepperOptions::default()
            };
            let mut stepper = Stepper::new(Method::Dopri5, options, 2).unwrap();
            let mut locator = EventLocator::new(1, 2, EventOptions::default()).unwrap();
            let spec = EventSpec::new(Direction::Falling).with_start_band(band);
            locator.set_mut().configure(&[spec]).unwrap();
            stepper.reset(&mut Ball, 0.0, &[-1e-15, 1e-3]).unwrap();
            let mut state = [0.0; 2];
            while stepper.t() < 0.1 {
                stepper.step(&mut Ball, 0.1).unwrap();
                if let Some(hit) = locator.locate(&mut Ball, &stepper, &mut state).unwrap() {
                    return Some(hit.t);
                }
            }
            None
        };
        let t = find(1e-9).expect("the return is found");
        // The later root of -1e-15 + 1e-3 t - 5 t^2.
        let exact = (1e-3 + (1e-6_f64 - 20.0 * 1e-15).sqrt()) / 10.0;
        assert!((t - exact).abs() < 1e-15, "{t} against {exact}");
        assert_eq!(find(0.0), None);
    }
}

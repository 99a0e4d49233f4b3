//! The hybrid run in space (docs/space.md): the taut and slack string in three dimensions, the
//! tensing impulse, grip and slip, knots, each axle's direction, and flight: leaving the string,
//! landing on it and the floor, contacts (impacts and resting pairs). What the model in space
//! does not follow (the string on a cup, a spin too slow for the fast top, a resting pair's line
//! contact out of the plane) ends the run with a status that names it.

mod contact;
mod flight;
mod layout;
mod projection;
mod report;
mod response;
mod resting;
mod roster;
mod rows;
mod run;
mod session;
mod system;

use nalgebra::Vector3;

use crate::model::space::{SpaceBody, SpaceParams, SpaceState};
use crate::model::StickInput;
use crate::simulation::drive::Side;
use crate::simulation::ode::integrate::{Method, StepperOptions};

pub use response::{tilt_response, TiltResponse};
pub use roster::SpaceRoster;
pub use run::{SpaceEvent, SpaceEventKind, SpaceReport, SpaceRow, SpaceStatus, SpaceStop};
pub use session::SpaceSession;
pub use system::{Body, SpaceGuard, SpaceModelError, SpacePhase, FAST_TOP_RATIO};

/// What one hand does to its stick in space.
pub trait SpaceHand {
    /// The model input at time t for the stick `stick`.
    fn input(&self, t: f64, stick: &SpaceBody) -> StickInput<3>;
    /// The input's limit from before t: what a step that lands on a breakpoint at t reads in
    /// its last stage (the input itself where it is continuous).
    fn input_before(&self, t: f64, stick: &SpaceBody) -> StickInput<3> {
        self.input(t, stick)
    }
    /// Whether the stick's motion is prescribed (infinitely heavy for tension and impulse).
    fn prescribes_motion(&self) -> bool;
    /// Whether the hand imposes the stick's acceleration, with no force limit (an `accel` or
    /// `path` drive): two such hands can pull the string straight.
    fn imposes_acceleration(&self) -> bool {
        self.prescribes_motion()
    }
    /// Times where the input is not smooth, s.
    fn breakpoints(&self) -> Vec<f64>;
    /// Times where the stick's velocity jumps, s, and the velocity just after such a time.
    fn velocity_jumps(&self) -> Vec<f64> {
        Vec::new()
    }
    /// The velocity the stick has just after a velocity jump at t, m/s.
    fn velocity_after(&self, t: f64) -> Option<Vector3<f64>> {
        let _ = t;
        None
    }
}

/// A drive's input at t for `stick`, in space, a knot at t read on `side` of it.
fn drive_input<const D: usize>(
    drive: &crate::simulation::drive::Drive<D>,
    t: f64,
    stick: &SpaceBody,
    side: Side,
) -> StickInput<3> {
    let body = crate::model::Body::<D> {
        pos: nalgebra::SVector::from_fn(|i, _| stick.pos[i]),
        vel: nalgebra::SVector::from_fn(|i, _| stick.vel[i]),
    };
    match drive.input_on_side(t, &body, side).0 {
        StickInput::Force(f) => StickInput::Force(lift(&f)),
        StickInput::Accel(a) => StickInput::Accel(lift(&a)),
    }
}

/// A hand that holds its stick still where it is (prescribed, zero acceleration).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HeldStill;

impl SpaceHand for HeldStill {
    fn input(&self, _t: f64, _stick: &SpaceBody) -> StickInput<3> {
        StickInput::Accel(Vector3::zeros())
    }
    fn prescribes_motion(&self) -> bool {
        true
    }
    fn breakpoints(&self) -> Vec<f64> {
        Vec::new()
    }
}

/// How the run in space integrates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpaceSettings {
    /// Duration, s.
    pub duration: f64,
    /// Time between rows, s.
    pub output_interval: f64,
    /// The stepper's method.
    pub method: Method,
    /// The stepper's tolerances and step bounds.
    pub stepper: StepperOptions,
    /// A bouncing string settles taut when its rebound e L' would be slower than this, m/s.
    pub zeno_speed: f64,
    /// ... or after this many bounces in a row.
    pub zeno_bounces: usize,
    /// The run stops (`budget`) after more events than this per simulated second (and 1,000
    /// more): no input makes it loop forever at one instant.
    pub max_events_per_second: f64,
    /// The run stops (`budget`) after more accepted steps than this per simulated second (and
    /// 1,000 more, and one per `max_step`).
    pub max_steps_per_second: f64,
    /// The floor's height, m: a flying diabolo whose lowest rim point reaches it is dropped.
    /// `None`: no floor.
    pub floor: Option<f64>,
    /// The run stops (`budget`) after this much wall-clock time, s (`None`: no limit). The one
    /// setting whose outcome depends on the machine: off by default.
    pub max_wall: Option<f64>,
}

impl SpaceSettings {
    /// The planar run's settings that a run in space reads: duration, rows, method,
    /// tolerances and step bound, Zeno settling and budgets.
    pub fn from_planar(s: &crate::simulation::Settings) -> Self {
        Self {
            duration: s.duration,
            output_interval: s.output_interval,
            method: s.method,
            stepper: s.stepper_options(),
            zeno_speed: s.zeno_speed,
            zeno_bounces: s.zeno_bounces,
            max_events_per_second: s.max_events_per_second,
            max_steps_per_second: s.max_steps_per_second,
            floor: s.floor,
            max_wall: s.max_wall,
        }
    }
}

impl Default for SpaceSettings {
    fn default() -> Self {
        Self {
            duration: 1.0,
            output_interval: 0.01,
            method: Method::Dopri5,
            stepper: StepperOptions::default(),
            zeno_speed: 1e-4,
            zeno_bounces: 64,
            max_events_per_second: 1e4,
            max_steps_per_second: crate::simulation::report::DEFAULT_MAX_STEPS_PER_SECOND,
            floor: None,
            max_wall: None,
        }
    }
}

/// A run in space: parameters, hands, the initial state and the settings.
#[derive(Clone, Debug)]
pub struct SpaceSimulation<H: SpaceHand> {
    /// The model's parameters.
    pub params: SpaceParams,
    /// The hands (left, right).
    pub hands: [H; 2],
    /// The state at t = 0: every diabolo of the run, in index order K = 1..N (those on the
    /// string left to right among themselves).
    pub initial: SpaceState,
    /// Where each diabolo starts, in index order: on the string or flying (never dropped).
    pub modes: Vec<crate::simulation::DiaboloMode>,
    /// The integration settings.
    pub settings: SpaceSettings,
}

/// A drive in space: a 3D drive as it is, a planar one (D = 2) with z = 0 (the stick keeps to
/// the hands' plane; the model in space runs every planar scenario's hands through this).
impl<const D: usize> SpaceHand for crate::simulation::drive::Drive<D> {
    fn input(&self, t: f64, stick: &SpaceBody) -> StickInput<3> {
        drive_input(self, t, stick, Side::After)
    }
    fn input_before(&self, t: f64, stick: &SpaceBody) -> StickInput<3> {
        drive_input(self, t, stick, Side::Before)
    }
    fn prescribes_motion(&self) -> bool {
        crate::simulation::drive::Drive::prescribes_motion(self)
    }
    fn imposes_acceleration(&self) -> bool {
        crate::simulation::drive::Drive::imposes_acceleration(self)
    }
    fn breakpoints(&self) -> Vec<f64> {
        crate::simulation::drive::Drive::breakpoints(self)
    }
    fn velocity_jumps(&self) -> Vec<f64> {
        crate::simulation::drive::Drive::velocity_jumps(self)
    }
    fn velocity_after(&self, t: f64) -> Option<Vector3<f64>> {
        match self.path() {
            Some(crate::simulation::drive::Path::Linear(line)) => {
                Some(lift(&line.velocity_jump(t).1))
            }
            _ => None,
        }
    }
}

/// A vector of D <= 3 components in space (the missing ones zero).
fn lift<const D: usize>(v: &nalgebra::SVector<f64, D>) -> Vector3<f64> {
    Vector3::from_fn(|i, _| if i < D { v[i] } else { 0.0 })
}

/// A planar setup the model in space cannot run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpaceSetupError {
    /// An axle value is out of its range.
    #[error(transparent)]
    Param(#[from] crate::model::ParamError),
}

impl SpaceSimulation<crate::simulation::drive::Drive> {
    /// The planar simulation `planar` in space: the same parameters, hands, settings and initial
    /// state lifted to z = 0 with every axle along +z, and the axle's values `axle`.
    pub fn from_planar(
        planar: &crate::simulation::Simulation,
        axle: crate::model::space::AxleValues,
    ) -> Result<Self, SpaceSetupError> {
        let s = &planar.settings;
        Ok(Self {
            params: SpaceParams::new(planar.params, axle)?,
            hands: planar.drives.clone(),
            initial: SpaceState::from_planar(&planar.initial),
            modes: planar.modes.clone(),
            settings: SpaceSettings::from_planar(s),
        })
    }
}

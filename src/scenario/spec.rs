//! The scenario file format (docs/interface.md, "Scenario file"): plain serde types, unknown fields
//! rejected, defaults from docs/model.md's realistic values. The JSON Schema of `diabolo schema` is
//! generated from these same types.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::coords::{Keyframe, Vector};

/// A whole scenario: parameters, initial state, hand drives and integration settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A short name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What the scenario shows, in a paragraph.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Physical parameters.
    pub params: ParamsSpec,
    /// The state at t = 0.
    pub initial: InitialSpec,
    /// What the hands do (a missing hand is released).
    #[serde(default)]
    pub drive: DrivesSpec,
    /// Duration, output and integration settings.
    pub sim: SimSpec,
}

/// Physical parameters (SI). Only `string_length` is required.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ParamsSpec {
    /// L: total string length, m.
    #[schemars(range(min = crate::model::ranges::STRING_LENGTH.min, max = crate::model::ranges::STRING_LENGTH.max))]
    pub string_length: f64,
    /// m: mass of one diabolo, kg.
    #[serde(default = "defaults::diabolo_mass")]
    #[schemars(range(min = crate::model::ranges::DIABOLO_MASS.min, max = crate::model::ranges::DIABOLO_MASS.max))]
    pub diabolo_mass: f64,
    /// M: mass of one stick, kg.
    #[serde(default = "defaults::stick_mass")]
    #[schemars(range(min = crate::model::ranges::STICK_MASS.min, max = crate::model::ranges::STICK_MASS.max))]
    pub stick_mass: f64,
    /// c: capstan friction coefficient between string and axle.
    #[serde(default = "defaults::friction")]
    #[schemars(range(min = crate::model::ranges::FRICTION.min, max = crate::model::ranges::FRICTION.max))]
    pub friction: f64,
    /// J = I / (m r^2): normalised spin inertia.
    #[serde(default = "defaults::spin_inertia")]
    #[schemars(range(min = crate::model::ranges::SPIN_INERTIA.min, max = crate::model::ranges::SPIN_INERTIA.max))]
    pub spin_inertia: f64,
    /// D: viscous spin drag, 1/s (w' gets -D w).
    #[serde(default)]
    #[schemars(range(min = crate::model::ranges::SPIN_DRAG.min, max = crate::model::ranges::SPIN_DRAG.max))]
    pub spin_drag: f64,
    /// g: gravitational acceleration, m/s^2.
    #[serde(default = "defaults::gravity")]
    #[schemars(range(min = crate::model::ranges::GRAVITY.min, max = crate::model::ranges::GRAVITY.max))]
    pub gravity: f64,
    /// e: coefficient of restitution at tensing, 0 (plastic) to 1.
    #[serde(default)]
    #[schemars(range(min = crate::model::ranges::RESTITUTION.min, max = crate::model::ranges::RESTITUTION.max))]
    pub restitution: f64,
    /// The friction law at every axle.
    #[serde(default)]
    pub friction_law: FrictionLawName,
    /// Slip-speed width of the tanh law, m/s.
    #[serde(default = "defaults::friction_width")]
    #[schemars(range(min = crate::model::ranges::FRICTION_WIDTH.min, max = crate::model::ranges::FRICTION_WIDTH.max))]
    pub friction_width: f64,
    /// R: radius of a diabolo's disc for contact between diabolos and with the stick tips, m.
    #[serde(
        default = "defaults::diabolo_radius",
        skip_serializing_if = "defaults::is_diabolo_radius"
    )]
    #[schemars(range(min = crate::model::ranges::DIABOLO_RADIUS.min, max = crate::model::ranges::DIABOLO_RADIUS.max))]
    pub diabolo_radius: f64,
    /// e_c: coefficient of restitution of an impact between two diabolos or a diabolo and a
    /// stick tip, 0 (plastic) to 1.
    #[serde(
        default = "defaults::contact_restitution",
        skip_serializing_if = "defaults::is_contact_restitution"
    )]
    #[schemars(range(min = crate::model::ranges::CONTACT_RESTITUTION.min, max = crate::model::ranges::CONTACT_RESTITUTION.max))]
    pub contact_restitution: f64,
    /// EA: axial stiffness of a compliant string, N (docs/elastic.md); absent, the string is
    /// inextensible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = crate::model::ranges::STRING_STIFFNESS.min, max = crate::model::ranges::STRING_STIFFNESS.max))]
    pub string_stiffness: Option<f64>,
    /// eta: damping of the compliant string's stretch, N s (only with `string_stiffness`).
    #[serde(default, skip_serializing_if = "defaults::is_zero")]
    #[schemars(range(min = crate::model::ranges::STRING_DAMPING.min, max = crate::model::ranges::STRING_DAMPING.max))]
    pub string_damping: f64,
    /// In space only: r, the axle's radius where the string wraps it, m (default 0.0065).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = super::ranges::AXLE_RADIUS.min, max = super::ranges::AXLE_RADIUS.max))]
    pub axle_radius: Option<f64>,
    /// In space only: I_t, the moment of inertia about a transverse axis through the centre,
    /// kg m^2 (default: two rings at the cups, I_t = I_p / 2 + m (h / 2)^2 with I_p = J m r^2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = super::ranges::TRANSVERSE_INERTIA.min, max = super::ranges::TRANSVERSE_INERTIA.max))]
    pub transverse_inertia: Option<f64>,
    /// In space only: h, half the distance between the cups' contact planes, m (default 0.06).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = super::ranges::HALF_LENGTH.min, max = super::ranges::HALF_LENGTH.max))]
    pub half_length: Option<f64>,
    /// In space only: the largest angle between a strand and the plane perpendicular to the
    /// axle before the string climbs a cup, degrees (default 35).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = super::ranges::CUP_ANGLE.min, max = super::ranges::CUP_ANGLE.max))]
    pub cup_angle: Option<f64>,
    /// In space only: lambda, where the string sits along a tilted axle (s = lambda sin(tilt)
    /// from the centre toward the upper cup), m (default 0.0011, fitted on the recordings: the
    /// turn of a tilted diabolo; docs/space.md, "The turn").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = super::ranges::STRING_OFFSET.min, max = super::ranges::STRING_OFFSET.max))]
    pub string_offset: Option<f64>,
}

/// Where a diabolo starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum StartMode {
    /// On the string, in the order of the list among the on-string diabolos.
    #[default]
    String,
    /// Off the string, in free flight from `pos` with `vel`.
    Flying,
}

impl StartMode {
    /// Whether this is the default, on the string.
    pub fn is_string(&self) -> bool {
        *self == Self::String
    }
}

/// The friction law of the axles.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FrictionLawName {
    /// The note's law: effective coefficient -c while w' < 0 and +c while w' > 0; grip at
    /// zero slip.
    #[default]
    Step,
    /// Smoothed: c tanh(w' / friction_width).
    Tanh,
    /// One-way clutch (bearing diabolo): -c while w' < 0 and 0 while w' > 0.
    Bearing,
}

/// The initial state: sticks and diabolos (left to right).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InitialSpec {
    /// The left stick; may be omitted when its drive is a path (it starts on the path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<BodySpec>,
    /// The right stick; may be omitted when its drive is a path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right: Option<BodySpec>,
    /// The diabolos, left to right.
    pub diabolos: Vec<DiaboloSpec>,
}

/// A stick tip: position and velocity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BodySpec {
    /// Position [x, y] (or [x, y, z] in space), m.
    #[schemars(inner(range(min = super::ranges::COORDINATE.min, max = super::ranges::COORDINATE.max)))]
    pub pos: Vector,
    /// Velocity [vx, vy] (or [vx, vy, vz] in space), m/s.
    #[serde(default)]
    #[schemars(inner(range(min = super::ranges::VELOCITY.min, max = super::ranges::VELOCITY.max)))]
    pub vel: Vector,
}

/// One diabolo: a position, or a horizontal position `x` at which it is placed on the taut
/// string below the sticks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiaboloSpec {
    /// Position [x, y] (or [x, y, z] in space), m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(inner(range(min = super::ranges::COORDINATE.min, max = super::ranges::COORDINATE.max)))]
    pub pos: Option<Vector>,
    /// Horizontal position, m: the diabolo sits on the taut string there. Several diabolos are
    /// all placed by x (not mixed with pos), left to right strictly between the sticks' x, at
    /// the heights of the lowest taut string (least potential energy) through those abscissas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = super::ranges::COORDINATE.min, max = super::ranges::COORDINATE.max))]
    pub x: Option<f64>,
    /// Velocity [vx, vy] (or [vx, vy, vz] in space), m/s.
    #[serde(default)]
    #[schemars(inner(range(min = super::ranges::VELOCITY.min, max = super::ranges::VELOCITY.max)))]
    pub vel: Vector,
    /// w: axle surface speed (spin), m/s.
    #[serde(default)]
    #[schemars(range(min = super::ranges::SPIN.min, max = super::ranges::SPIN.max))]
    pub spin: f64,
    /// Where it starts: on the string (default) or flying (then it gives `pos`, and no `x`
    /// or `knot`).
    #[serde(default, skip_serializing_if = "StartMode::is_string")]
    pub mode: StartMode,
    /// k: knot degree (turns of the string around the axle).
    #[serde(default)]
    #[schemars(range(min = super::ranges::KNOT.min, max = super::ranges::KNOT.max))]
    pub knot: i32,
    /// In space only: the axle's direction [ax, ay, az], a unit vector (a longer or shorter
    /// one is normalised; default [0, 0, 1], toward the audience).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axle: Option<[f64; 3]>,
    /// In space only, with `"sim": {"axle": "rigid"}`: the rate of the axle's direction a',
    /// 1/s, perpendicular to the axle (default [0, 0, 0]; the fast top's follows from the
    /// string's torque).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axle_rate: Option<[f64; 3]>,
}

/// The two hands. A missing one is `released`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DrivesSpec {
    /// The left hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<DriveSpec>,
    /// The right hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right: Option<DriveSpec>,
}

/// What one hand does to its stick.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum DriveSpec {
    /// A force on the stick, N: constant (`value`) or linear between `keyframes` [t, fx, fy].
    Force(ScheduleSpec),
    /// No force from the hand: the stick moves under gravity and the string.
    Released(ReleasedSpec),
    /// The stick's acceleration, m/s^2 (`value` or `keyframes` [t, ax, ay]); the hand force that
    /// produces it comes from the stick matrix.
    Accel(ScheduleSpec),
    /// The stick follows a path exactly (or, with `tracking`, is pulled toward it).
    Path(PathSpec),
}

/// A released hand: nothing but its `type` (any other field is refused).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReleasedSpec {}

/// A 2-vector over time: `value` (constant) or `keyframes` [t, x, y] (linear between them,
/// held at the end values outside them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScheduleSpec {
    /// A constant [x, y] (or [x, y, z] in space).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Vector>,
    /// [t, x, y] (or [t, x, y, z] in space): t from -1e6 to 1e6 s; forces from -1e4 to 1e4 N,
    /// accelerations from -1e4 to 1e4 m/s^2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keyframes: Option<Vec<Keyframe>>,
}

/// A hand path: one of `keyframes` [t, x, y] (joined as `interpolation` says, at rest at both
/// ends), `sine`, or `csv` (a file of t,x,y samples relative to the scenario file, smoothed
/// and differentiated).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathSpec {
    /// [t, x, y] (or [t, x, y, z] in space): t from -1e6 to 1e6 s, positions from -1000 to
    /// 1000 m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keyframes: Option<Vec<Keyframe>>,
    /// How `keyframes` are joined: "cubic" (default: a C2 spline, which can overshoot and
    /// ring between close keyframes), "pchip" (monotone C1 cubic: no overshoot, a repeated
    /// keyframe holds the hand still) or "linear" (straight pieces; the velocity jumps at
    /// each keyframe).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interpolation: Option<InterpolationName>,
    /// [vx, vy] (or [vx, vy, vz]), m/s: the velocity the cubic spline leaves its first
    /// keyframe with (default at rest), for a hand already moving at its first keyframe; the
    /// first keyframe at t <= 0, at least two keyframes, `"interpolation": "cubic"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(inner(range(min = super::ranges::VELOCITY.min, max = super::ranges::VELOCITY.max)))]
    pub start_velocity: Option<Box<Vector>>,
    /// A sinusoid per axis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sine: Option<SineSpec>,
    /// A CSV file of t,x,y samples, relative to the scenario file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csv: Option<String>,
    /// Half-width of the smoothing window of `csv` samples, s (default 0.02).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = super::ranges::SMOOTHING.min, max = super::ranges::SMOOTHING.max))]
    pub smoothing: Option<f64>,
    /// Pull the stick toward the path with a hand of this stiffness instead of following it
    /// exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracking: Option<TrackingSpec>,
}

/// How a path's keyframes are joined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum InterpolationName {
    /// A C2 cubic spline with the hand at rest at the first and last keyframe; it can overshoot
    /// the keyframes and move between two equal ones.
    #[default]
    Cubic,
    /// A monotone cubic (Fritsch-Carlson, C1) per axis, at rest at the first and last keyframe:
    /// never beyond two neighbouring keyframes, still between two equal ones.
    Pchip,
    /// Straight pieces at constant velocity: the velocity jumps at every keyframe.
    Linear,
}

/// center + amplitude * sin(2 pi frequency t + phase), per axis.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SineSpec {
    /// m.
    #[schemars(inner(range(min = super::ranges::COORDINATE.min, max = super::ranges::COORDINATE.max)))]
    pub center: Vector,
    /// m.
    #[schemars(inner(range(min = super::ranges::AMPLITUDE.min, max = super::ranges::AMPLITUDE.max)))]
    pub amplitude: Vector,
    /// Hz.
    #[schemars(range(min = super::ranges::FREQUENCY.min, max = super::ranges::FREQUENCY.max))]
    pub frequency: f64,
    /// rad.
    #[serde(default)]
    #[schemars(inner(range(min = super::ranges::PHASE.min, max = super::ranges::PHASE.max)))]
    pub phase: Vector,
}

/// A hand pulling the stick toward the path: F = k (p - x) + b (p' - v), at most `max_force`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrackingSpec {
    /// k, N/m.
    #[schemars(range(min = super::ranges::STIFFNESS.min, max = super::ranges::STIFFNESS.max))]
    pub stiffness: f64,
    /// b, N s/m.
    #[schemars(range(min = super::ranges::DAMPING.min, max = super::ranges::DAMPING.max))]
    pub damping: f64,
    /// N.
    #[schemars(range(min = super::ranges::MAX_FORCE.min, max = super::ranges::MAX_FORCE.max))]
    pub max_force: f64,
}

/// Integration settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SimSpec {
    /// Simulated time, s: at least 1e-6, at most the limit of `--max-duration` (default 1e5).
    #[schemars(range(min = super::ranges::DURATION_MIN))]
    pub duration: f64,
    /// Rows at every multiple of this, s.
    #[serde(default = "defaults::output_interval")]
    #[schemars(range(min = super::ranges::OUTPUT_INTERVAL.min, max = super::ranges::OUTPUT_INTERVAL.max))]
    pub output_interval: f64,
    /// Relative tolerance of the adaptive methods.
    #[serde(default = "defaults::rtol")]
    #[schemars(range(min = super::ranges::RTOL.min, max = super::ranges::RTOL.max))]
    pub rtol: f64,
    /// Absolute tolerance of the adaptive methods.
    #[serde(default = "defaults::atol")]
    #[schemars(range(min = super::ranges::ATOL.min, max = super::ranges::ATOL.max))]
    pub atol: f64,
    /// Longest step, s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = super::ranges::MAX_STEP.min, max = super::ranges::MAX_STEP.max))]
    pub max_step: Option<f64>,
    /// Integration method.
    #[serde(default)]
    pub method: MethodName,
    /// Step of `rk4`, s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = super::ranges::STEP.min, max = super::ranges::STEP.max))]
    pub step: Option<f64>,
    /// A bounce sequence settles taut once the rebound speed would be below this, m/s.
    #[serde(default = "defaults::zeno_speed")]
    #[schemars(range(min = super::ranges::ZENO_SPEED.min, max = super::ranges::ZENO_SPEED.max))]
    pub zeno_speed: f64,
    /// ... or after this many bounces in a row.
    #[serde(default = "defaults::zeno_bounces")]
    #[schemars(range(min = super::ranges::ZENO_BOUNCES.min, max = super::ranges::ZENO_BOUNCES.max))]
    pub zeno_bounces: usize,
    /// More events than this per simulated second ends the run.
    #[serde(default = "defaults::max_events_per_second")]
    #[schemars(range(min = super::ranges::MAX_EVENTS_PER_SECOND.min, max = super::ranges::MAX_EVENTS_PER_SECOND.max))]
    pub max_events_per_second: f64,
    /// Neighbours on the string closer than this have met (the run ends), m.
    #[serde(default = "defaults::meeting_distance")]
    #[schemars(range(min = super::ranges::MEETING_DISTANCE.min, max = super::ranges::MEETING_DISTANCE.max))]
    pub meeting_distance: f64,
    /// Wall-clock budget of the run, s: a run that takes longer ends with a failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_wall: Option<f64>,
    /// Height of the floor, m: a flying diabolo whose lowest point (centre y minus
    /// params.diabolo_radius) reaches it is dropped there. No floor: it falls on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = super::ranges::COORDINATE.min, max = super::ranges::COORDINATE.max))]
    pub floor: Option<f64>,
    /// The trick's period, s, when its drives repeat with it (a stroke of keyframes repeated):
    /// `diabolo orbit`'s period unless `--period` is given (sine drives give theirs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = super::ranges::MAX_STEP.min, max = super::ranges::MAX_STEP.max))]
    pub period: Option<f64>,
    /// true: a run in space (x right, y up, z toward the audience; docs/interface.md,
    /// "Scenarios in space"). A third coordinate anywhere (a position, a velocity, a keyframe,
    /// a sine, a force) makes one too; `false` with one is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub space: Option<bool>,
    /// In space only: the axle's equations, "fast_top" (default) or "rigid".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axle: Option<AxleName>,
}

/// The equations of the axle's direction in space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AxleName {
    /// The fast-top limit: a' = tau_perp / (I_p Omega), no nutation.
    #[default]
    FastTop,
    /// The full axisymmetric rigid body, with nutation.
    Rigid,
}

/// The integration method.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MethodName {
    /// Dormand-Prince 5(4), adaptive.
    #[default]
    Dopri5,
    /// Dormand-Prince 8(5,3), adaptive: cheaper at tight tolerances.
    Dop853,
    /// Classical Runge-Kutta with the fixed `step`.
    Rk4,
    /// Rosenbrock 4(3) (RODAS with Steinebach's RODASP coefficients), adaptive, linearly implicit: for a stiff
    /// compliant string (params.string_stiffness of 1e4 N and more).
    Rodas,
}

impl MethodName {
    /// The method's name in a scenario (`dopri5`, `dop853`, `rk4`, `rodas`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Dopri5 => "dopri5",
            Self::Dop853 => "dop853",
            Self::Rk4 => "rk4",
            Self::Rodas => "rodas",
        }
    }
}

/// The hanging scenario: one diabolo at rest at the bottom of a 1.46 m string below two still
/// hands 0.8 m apart at 1.5 m, for 1 s, every other value at its documented default. Change the
/// fields you need (struct update syntax, or the constructors below) instead of parsing JSON.
impl Default for Scenario {
    fn default() -> Self {
        Self {
            name: None,
            description: None,
            params: ParamsSpec::default(),
            initial: InitialSpec {
                diabolos: vec![DiaboloSpec::at_x(0.0)],
                ..InitialSpec::default()
            },
            drive: DrivesSpec {
                left: Some(DriveSpec::still([-0.4, 1.5])),
                right: Some(DriveSpec::still([0.4, 1.5])),
            },
            sim: SimSpec::for_duration(1.0),
        }
    }
}

/// Every parameter at its default, with the model's default string length L = 1.46 m.
impl Default for ParamsSpec {
    fn default() -> Self {
        Self::with_string_length(crate::model::ParamValues::default().string_length)
    }
}

impl ParamsSpec {
    /// Every parameter at its default but the string length `string_length` (L, m), the one
    /// field a scenario must give.
    pub fn with_string_length(string_length: f64) -> Self {
        Self {
            string_length,
            diabolo_mass: defaults::diabolo_mass(),
            stick_mass: defaults::stick_mass(),
            friction: defaults::friction(),
            spin_inertia: defaults::spin_inertia(),
            spin_drag: 0.0,
            gravity: defaults::gravity(),
            restitution: 0.0,
            friction_law: FrictionLawName::default(),
            friction_width: defaults::friction_width(),
            diabolo_radius: defaults::diabolo_radius(),
            contact_restitution: defaults::contact_restitution(),
            string_stiffness: None,
            string_damping: 0.0,
            axle_radius: None,
            transverse_inertia: None,
            half_length: None,
            cup_angle: None,
            string_offset: None,
        }
    }
}

/// No sticks given (both start on their paths) and no diabolo.
impl Default for InitialSpec {
    fn default() -> Self {
        Self {
            left: None,
            right: None,
            diabolos: Vec::new(),
        }
    }
}

impl BodySpec {
    /// A stick tip at rest at `pos` [x, y], m.
    pub fn at_rest(pos: [f64; 2]) -> Self {
        Self {
            pos: pos.into(),
            vel: Vector::default(),
        }
    }
}

impl DiaboloSpec {
    /// A diabolo at rest, without spin, placed on the taut string at the abscissa `x`, m.
    pub fn at_x(x: f64) -> Self {
        Self {
            pos: None,
            x: Some(x),
            vel: Vector::default(),
            spin: 0.0,
            mode: StartMode::String,
            knot: 0,
            axle: None,
            axle_rate: None,
        }
    }

    /// A diabolo flying from `pos` [x, y] (m) with velocity `vel` [vx, vy] (m/s), without spin.
    pub fn flying(pos: [f64; 2], vel: [f64; 2]) -> Self {
        Self {
            vel: vel.into(),
            mode: StartMode::Flying,
            ..Self::at(pos)
        }
    }

    /// A diabolo at rest, without spin, at `pos` [x, y], m.
    pub fn at(pos: [f64; 2]) -> Self {
        Self {
            pos: Some(pos.into()),
            x: None,
            vel: Vector::default(),
            spin: 0.0,
            mode: StartMode::String,
            knot: 0,
            axle: None,
            axle_rate: None,
        }
    }
}

impl DriveSpec {
    /// A hand holding its stick still at `pos` [x, y], m (a one-keyframe path).
    pub fn still(pos: [f64; 2]) -> Self {
        Self::keyframes(vec![[0.0, pos[0], pos[1]]])
    }

    /// A hand moving its stick through `keyframes` [t, x, y] (s, m, m) on a C2 spline, at rest at
    /// both ends.
    pub fn keyframes(keyframes: Vec<[f64; 3]>) -> Self {
        Self::Path(PathSpec {
            keyframes: Some(keyframes.into_iter().map(Keyframe::from).collect()),
            interpolation: None,
            start_velocity: None,
            sine: None,
            csv: None,
            smoothing: None,
            tracking: None,
        })
    }

    /// A hand moving its stick on `center + amplitude sin(2 pi frequency t + phase)` per axis
    /// (m, m, Hz, rad).
    pub fn sine(center: [f64; 2], amplitude: [f64; 2], frequency: f64, phase: [f64; 2]) -> Self {
        Self::Path(PathSpec {
            keyframes: None,
            interpolation: None,
            start_velocity: None,
            sine: Some(SineSpec {
                center: center.into(),
                amplitude: amplitude.into(),
                frequency,
                phase: phase.into(),
            }),
            csv: None,
            smoothing: None,
            tracking: None,
        })
    }

    /// A hand that lets go: no force on the stick.
    pub fn released() -> Self {
        Self::Released(ReleasedSpec {})
    }
}

impl SimSpec {
    /// `duration` s of simulated time (the one field `sim` must give), every other setting at its
    /// default.
    pub fn for_duration(duration: f64) -> Self {
        Self {
            duration,
            output_interval: defaults::output_interval(),
            rtol: defaults::rtol(),
            atol: defaults::atol(),
            max_step: None,
            method: MethodName::default(),
            step: None,
            zeno_speed: defaults::zeno_speed(),
            zeno_bounces: defaults::zeno_bounces(),
            max_events_per_second: defaults::max_events_per_second(),
            meeting_distance: defaults::meeting_distance(),
            max_wall: None,
            floor: None,
            period: None,
            space: None,
            axle: None,
        }
    }
}

pub(super) mod defaults {
    use crate::model::ParamValues;
    use crate::simulation::Settings;

    pub fn diabolo_mass() -> f64 {
        ParamValues::default().diabolo_mass
    }
    pub fn stick_mass() -> f64 {
        ParamValues::default().stick_mass
    }
    pub fn friction() -> f64 {
        ParamValues::default().friction
    }
    pub fn spin_inertia() -> f64 {
        ParamValues::default().spin_inertia
    }
    pub fn gravity() -> f64 {
        ParamValues::default().gravity
    }
    pub fn diabolo_radius() -> f64 {
        ParamValues::default().diabolo_radius
    }
    pub fn contact_restitution() -> f64 {
        ParamValues::default().contact_restitution
    }
    pub fn is_diabolo_radius(value: &f64) -> bool {
        *value == diabolo_radius()
    }
    pub fn is_contact_restitution(value: &f64) -> bool {
        *value == contact_restitution()
    }
    pub fn is_zero(value: &f64) -> bool {
        *value == 0.0
    }
    pub fn friction_width() -> f64 {
        0.01
    }
    pub fn output_interval() -> f64 {
        Settings::default().output_interval
    }
    pub fn rtol() -> f64 {
        Settings::default().rtol
    }
    pub fn atol() -> f64 {
        Settings::default().atol
    }
    pub fn zeno_speed() -> f64 {
        Settings::default().zeno_speed
    }
    pub fn zeno_bounces() -> usize {
        Settings::default().zeno_bounces
    }
    pub fn max_events_per_second() -> f64 {
        Settings::default().max_events_per_second
    }
    pub fn meeting_distance() -> f64 {
        Settings::default().meeting_distance
    }
}

//! From a parsed scenario to a [`Simulation`]: every value checked, every physical
//! impossibility reported with its JSON path, the value, the reason and the fix.

use std::path::Path as FsPath;

use nalgebra::Vector2;

use crate::display::{compact, echoed, Compact};
use crate::input_limits::{read_text, InputLimit, Records};
use crate::model::placement;
use crate::model::{
    lowest_taut_positions, taut_point_below, Body, CartesianState, DiaboloState, FrictionLaw,
    Kinematics, ParamValues, Params, PlacementError, Range, StateError,
};
use crate::simulation::drive::{
    reach_warning, ClampedSpline, Drive, DriveError, MonotoneCubic, Path, Polyline, ReachWarning,
    SampledPath, Schedule, Tracking,
};
use crate::simulation::run::{Settings, SetupError, Simulation};
use crate::simulation::{DiaboloMode, Method};

use super::error::ScenarioError;
use super::limits::{row_count, Limits};
use super::ranges;
use super::spec::defaults;
use super::spec::{
    BodySpec, DiaboloSpec, DriveSpec, FrictionLawName, InterpolationName, MethodName, ParamsSpec,
    PathSpec, Scenario, ScheduleSpec, SimSpec, StartMode,
};

/// A start whose string is within this of taut (m) is put exactly on the taut string, by
/// moving every diabolo vertically by the same amount.
pub const TAUT_SNAP_TOLERANCE: f64 = 1e-4;

/// A path stick's `initial` entry must agree with its path at t = 0 to this (m, m/s).
pub const PATH_AGREEMENT: f64 = 1e-9;

/// Half-width of the smoothing window of CSV path samples when not given, s.
pub const DEFAULT_SMOOTHING: f64 = 0.02;

const SIDES: [&str; 2] = ["left", "right"];

fn invalid(
    path: impl Into<String>,
    value: impl ToString,
    reason: impl Into<String>,
    fix: impl Into<String>,
) -> ScenarioError {
    ScenarioError::Invalid {
        path: path.into(),
        value: value.to_string(),
        reason: reason.into(),
        fix: fix.into(),
    }
}

fn vector(v: [f64; 2]) -> Vector2<f64> {
    Vector2::new(v[0], v[1])
}

fn show(v: Vector2<f64>) -> String {
    format!("[{}, {}]", Compact(v.x), Compact(v.y))
}

/// Largest capstan exponent sum_i c 2 pi (|k_i| + 1) over the diabolos: the tension ratios
/// d_i = exp(sum c' theta') stay below e^300 (1e130), so that products of two still fit a double.
const MAX_CAPSTAN_EXPONENT: f64 = 300.0;

/// `value` at `path` must be within `range`.
fn within(path: impl FnOnce() -> String, value: f64, range: &Range) -> Result<(), ScenarioError> {
    if range.contains(value) {
        return Ok(());
    }
    Err(invalid(
        path(),
        compact(value),
        format!(
            "outside the accepted range {} ({})",
            range.span(),
            range.why
        ),
        format!("give a value {}", range.span()),
    ))
}

/// Each component of `values` at `path[i]` must be within `range`.
fn each_within(path: &str, values: &[f64], range: &Range) -> Result<(), ScenarioError> {
    for (i, v) in values.iter().enumerate() {
        within(|| format!("{path}[{i}]"), *v, range)?;
    }
    Ok(())
}

impl Scenario {
    /// Checks everything and builds the simulation, under the default [`Limits`]. Relative
    /// file names (a `csv` path) are read relative to `base`, the scenario file's folder.
    pub fn build(&self, base: &FsPath) -> Result<Simulation, ScenarioError> {
        self.build_within(base, &Limits::default())
    }

    /// [`Scenario::build`] under the given limits (rows, simulated time).
    pub fn build_within(
        &self,
        base: &FsPath,
        limits: &Limits,
    ) -> Result<Simulation, ScenarioError> {
        let params = build_params(&self.params)?;
        let drives = [
            build_drive(self.drive.left.as_ref(), SIDES[0], base)?,
            build_drive(self.drive.right.as_ref(), SIDES[1], base)?,
        ];
        let settings = build_settings(&self.sim, limits, self.initial.diabolos.len())?;
        self.check_initial_ranges()?;
        self.check_capstan()?;
        let initial = self.build_initial(&params, &drives)?;
        let modes = self.start_modes();
        Simulation::with_modes(params, drives, initial, modes, settings).map_err(|e| match e {
            SetupError::Settings { field, reason } => invalid(
                format!("sim.{field}"),
                "",
                reason,
                "see the sim section of the scenario format (`diabolo schema`)",
            ),
            other => invalid(
                "initial",
                "",
                other.to_string(),
                "check the initial positions",
            ),
        })
    }

    /// Warnings about the hands' paths in `simulation` (built from this scenario): the sticks
    /// come within [`crate::simulation::drive::REACH_MARGIN`] of the string length, or beyond.
    /// A compliant string stretches instead: no warning for it.
    pub fn path_warnings(&self, simulation: &Simulation) -> Vec<ReachWarning> {
        if simulation.params.string_stiffness.is_some() {
            return Vec::new();
        }
        reach_warning(
            &simulation.drives,
            simulation.params.string_length,
            self.sim.duration,
        )
        .into_iter()
        .collect()
    }

    /// Every number of `initial` within its range.
    fn check_initial_ranges(&self) -> Result<(), ScenarioError> {
        for (side, body) in SIDES.iter().zip([&self.initial.left, &self.initial.right]) {
            if let Some(b) = body {
                each_within(&format!("initial.{side}.pos"), &b.pos, &ranges::COORDINATE)?;
                each_within(&format!("initial.{side}.vel"), &b.vel, &ranges::VELOCITY)?;
            }
        }
        for (k, d) in self.initial.diabolos.iter().enumerate() {
            let at = format!("initial.diabolos[{k}]");
            if let Some(pos) = d.pos {
                each_within(&format!("{at}.pos"), &pos, &ranges::COORDINATE)?;
            }
            if let Some(x) = d.x {
                within(|| format!("{at}.x"), x, &ranges::COORDINATE)?;
            }
            each_within(&format!("{at}.vel"), &d.vel, &ranges::VELOCITY)?;
            within(|| format!("{at}.spin"), d.spin, &ranges::SPIN)?;
            within(|| format!("{at}.knot"), f64::from(d.knot), &ranges::KNOT)?;
        }
        Ok(())
    }

    /// The capstan ratios exp(sum c' theta') of all the diabolos together stay finite.
    fn check_capstan(&self) -> Result<(), ScenarioError> {
        let c = self.params.friction;
        let angle: f64 = self
            .initial
            .diabolos
            .iter()
            .map(|d| std::f64::consts::TAU * (f64::from(d.knot).abs() + 1.0))
            .sum();
        if c * angle <= MAX_CAPSTAN_EXPONENT {
            return Ok(());
        }
        Err(invalid(
            "params.friction",
            compact(c),
            format!(
                "with these diabolos and knots the string can wrap {} rad in all, and the capstan ratio exp(c theta) reaches e^{} (at most e^{} keeps the tensions finite)",
                Compact(angle),
                Compact(c * angle),
                Compact(MAX_CAPSTAN_EXPONENT)
            ),
            format!(
                "lower the friction to at most {} or use fewer knots",
                Compact(MAX_CAPSTAN_EXPONENT / angle)
            ),
        ))
    }

    fn build_initial(
        &self,
        params: &Params,
        drives: &[Drive; 2],
    ) -> Result<CartesianState, ScenarioError> {
        let sticks = [
            stick(self.initial.left.as_ref(), &drives[0], SIDES[0])?,
            stick(self.initial.right.as_ref(), &drives[1], SIDES[1])?,
        ];
        let length = params.string_length;
        let distance = (sticks[1].pos - sticks[0].pos).norm();
        // A compliant string may start stretched, up to twice its length (100 % strain).
        let compliant = params.string_stiffness.is_some();
        let reach = if compliant { 2.0 * length } else { length };
        if distance >= reach {
            // Name where the right stick's start was given: its `initial` entry, or its path.
            let at = match (&self.initial.right, &drives[1]) {
                (None, Drive::Path(_) | Drive::Tracking(..)) => "drive.right (its path at t = 0)",
                _ => "initial.right.pos",
            };
            return Err(invalid(
                at,
                show(sticks[1].pos),
                if compliant {
                    format!(
                        "the sticks are {} m apart: a compliant string of length {} m would be stretched by more than 100 %",
                        Compact(distance),
                        Compact(length)
                    )
                } else {
                    format!(
                        "the sticks are {} m apart, not closer than the string length {} m",
                        Compact(distance),
                        Compact(length)
                    )
                },
                "bring the sticks closer together or lengthen params.string_length",
            ));
        }
        let diabolos = &self.initial.diabolos;
        if diabolos.is_empty() {
            return Err(invalid(
                "initial.diabolos",
                "[]",
                "a scenario needs at least one diabolo",
                "add one, e.g. {\"x\": 0.0}",
            ));
        }
        // The diabolos on the string, with their index in the list.
        let on_string: Vec<(usize, &DiaboloSpec)> = diabolos
            .iter()
            .enumerate()
            .filter(|(_, d)| d.mode.is_string())
            .collect();
        let string_specs: Vec<DiaboloSpec> = on_string.iter().map(|(_, d)| (*d).clone()).collect();
        let lowest = lowest_placement(&string_specs, &sticks, length)?;
        let mut state = CartesianState {
            left: sticks[0],
            right: sticks[1],
            diabolos: on_string
                .iter()
                .enumerate()
                .map(|(i, &(k, d))| diabolo(d, k, lowest.as_ref().map(|p| p[i]), &sticks, length))
                .collect::<Result<_, _>>()?,
        };
        for i in 1..state.diabolos.len() {
            let (a, b) = (state.diabolos[i - 1].pos.x, state.diabolos[i].pos.x);
            if b < a {
                return Err(invalid(
                    format!("initial.diabolos[{}].pos", on_string[i].0),
                    show(state.diabolos[i].pos),
                    format!(
                        "diabolos on the string are listed left to right: x = {} comes after x = {}",
                        Compact(b),
                        Compact(a)
                    ),
                    "list the diabolos in the order they sit on the string, left to right",
                ));
            }
        }
        let excess = state.string_used() - length;
        if compliant && excess > length {
            return Err(invalid(
                "initial.diabolos",
                format!("sum l = {} m", Compact(state.string_used())),
                format!("the diabolos stretch the compliant string by {} m, more than its length L = {} m (100 % strain)", Compact(excess), Compact(length)),
                "move the diabolos closer to the sticks",
            ));
        }
        if !compliant && excess > TAUT_SNAP_TOLERANCE {
            return Err(invalid(
                "initial.diabolos",
                format!("sum l = {} m", Compact(state.string_used())),
                format!("the diabolos are off the string: reaching them takes {} m more string than L = {} m", Compact(excess), Compact(length)),
                "move the diabolos within reach of the string (sum of the segment lengths at most L), give the diabolos by \"x\", or give the string a params.string_stiffness",
            ));
        }
        if !compliant && excess.abs() <= TAUT_SNAP_TOLERANCE && !state.diabolos.is_empty() {
            snap_taut(&mut state, length);
        }
        let by_x = !string_specs.is_empty() && string_specs.iter().all(|d| d.x.is_some());
        if compliant && by_x {
            hang_stretched(&mut state, params);
        }
        check_below_string(&state, &on_string)?;
        // Every diabolo in index order: the on-string ones placed, the flying ones as given.
        let mut string_placed = state.diabolos.into_iter();
        let all = diabolos
            .iter()
            .enumerate()
            .map(|(k, d)| match d.mode {
                StartMode::String => Ok(string_placed.next().expect("one per on-string entry")),
                StartMode::Flying => flying_diabolo(d, k),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let full = CartesianState {
            left: state.left,
            right: state.right,
            diabolos: all,
        };
        let modes = self.start_modes();
        check_flying_starts(params, &full, &modes, self.sim.floor)?;
        Ok(full)
    }

    /// Where each diabolo starts, in index order.
    pub fn start_modes(&self) -> Vec<DiaboloMode> {
        self.initial
            .diabolos
            .iter()
            .map(|d| match d.mode {
                StartMode::String => DiaboloMode::String,
                StartMode::Flying => DiaboloMode::Flying,
            })
            .collect()
    }
}

impl ParamsSpec {
    /// The checked parameters.
    pub fn to_params(&self) -> Result<Params, ScenarioError> {
        build_params(self)
    }
}

impl From<ParamValues> for ParamsSpec {
    /// The spec that builds `values` (the inverse of [`ParamsSpec::to_params`]); the tanh
    /// width, which only the tanh law has, at its default for the other laws.
    fn from(values: ParamValues) -> Self {
        let (friction_law, friction_width) = match values.friction_law {
            FrictionLaw::Step => (FrictionLawName::Step, defaults::friction_width()),
            FrictionLaw::Tanh { width } => (FrictionLawName::Tanh, width),
            FrictionLaw::Bearing => (FrictionLawName::Bearing, defaults::friction_width()),
        };
        Self {
            string_length: values.string_length,
            diabolo_mass: values.diabolo_mass,
            stick_mass: values.stick_mass,
            friction: values.friction,
            spin_inertia: values.spin_inertia,
            spin_drag: values.spin_drag,
            gravity: values.gravity,
            restitution: values.restitution,
            friction_law,
            friction_width,
            diabolo_radius: values.diabolo_radius,
            contact_restitution: values.contact_restitution,
            string_stiffness: values.string_stiffness,
            string_damping: values.string_damping,
        }
    }
}

fn build_params(spec: &ParamsSpec) -> Result<Params, ScenarioError> {
    let friction_law = match spec.friction_law {
        FrictionLawName::Step => FrictionLaw::Step,
        FrictionLawName::Tanh => FrictionLaw::Tanh {
            width: spec.friction_width,
        },
        FrictionLawName::Bearing => FrictionLaw::Bearing,
    };
    let values = ParamValues {
        string_length: spec.string_length,
        diabolo_mass: spec.diabolo_mass,
        stick_mass: spec.stick_mass,
        friction: spec.friction,
        spin_inertia: spec.spin_inertia,
        spin_drag: spec.spin_drag,
        gravity: spec.gravity,
        restitution: spec.restitution,
        friction_law,
        diabolo_radius: spec.diabolo_radius,
        contact_restitution: spec.contact_restitution,
        string_stiffness: spec.string_stiffness,
        string_damping: spec.string_damping,
    };
    values
        .check_ranges()
        .and_then(|()| Params::new(values))
        .map_err(|e| {
            invalid(
                format!("params.{}", e.field),
                compact(e.value),
                "out of range",
                e.requirement,
            )
        })
}

/// Every number of `sim` within its range, and the run within the limits.
fn check_sim(spec: &SimSpec, limits: &Limits) -> Result<(), ScenarioError> {
    let duration = Range {
        min: ranges::DURATION_MIN,
        max: limits.max_duration,
        unit: "s",
        why: "the upper bound is --max-duration",
    };
    if spec.duration.is_finite() && spec.duration > limits.max_duration {
        return Err(invalid(
            "sim.duration",
            compact(spec.duration),
            format!(
                "longer than the limit of {} s of simulated time (--max-duration), which keeps a run from streaming rows until the disk fills",
                Compact(limits.max_duration)
            ),
            "shorten the run, or raise the limit with --max-duration SECONDS",
        ));
    }
    within(|| "sim.duration".into(), spec.duration, &duration)?;
    within(
        || "sim.output_interval".into(),
        spec.output_interval,
        &ranges::OUTPUT_INTERVAL,
    )?;
    let rows = row_count(spec.duration, spec.output_interval.min(spec.duration));
    if rows > limits.max_rows {
        return Err(invalid(
            "sim.output_interval",
            compact(spec.output_interval),
            format!(
                "{} s every {} s makes {} rows, more than the limit of {} (--max-rows; a row is about 480 bytes of CSV)",
                Compact(spec.duration),
                Compact(spec.output_interval),
                if rows == u64::MAX { "over 1.8e19".to_string() } else { rows.to_string() },
                limits.max_rows
            ),
            "raise sim.output_interval, shorten sim.duration, or raise the limit with --max-rows N",
        ));
    }
    within(|| "sim.rtol".into(), spec.rtol, &ranges::RTOL)?;
    within(|| "sim.atol".into(), spec.atol, &ranges::ATOL)?;
    if let Some(max_step) = spec.max_step {
        within(|| "sim.max_step".into(), max_step, &ranges::MAX_STEP)?;
    }
    if let Some(step) = spec.step {
        within(|| "sim.step".into(), step, &ranges::STEP)?;
    }
    if let Some(period) = spec.period {
        within(|| "sim.period".into(), period, &ranges::MAX_STEP)?;
    }
    within(
        || "sim.zeno_speed".into(),
        spec.zeno_speed,
        &ranges::ZENO_SPEED,
    )?;
    within(
        || "sim.zeno_bounces".into(),
        spec.zeno_bounces as f64,
        &ranges::ZENO_BOUNCES,
    )?;
    within(
        || "sim.max_events_per_second".into(),
        spec.max_events_per_second,
        &ranges::MAX_EVENTS_PER_SECOND,
    )?;
    within(
        || "sim.meeting_distance".into(),
        spec.meeting_distance,
        &ranges::MEETING_DISTANCE,
    )
}

/// Refuses a `sim.step` or `sim.max_step` that forces more steps than the method takes in
/// about 40 minutes with the scenario's diabolos ([`ranges::max_forced_steps`]).
fn check_forced_steps(spec: &SimSpec, diabolos: usize) -> Result<(), ScenarioError> {
    let most = ranges::max_forced_steps(spec.method, diabolos);
    for (field, step) in [("step", spec.step), ("max_step", spec.max_step)] {
        let Some(step) = step else { continue };
        let steps = spec.duration / step;
        if steps > most {
            return Err(invalid(
                format!("sim.{field}"),
                compact(step),
                format!(
                    "{} s in steps of at most {} s is {} steps, more than the {} that method {} \
                     takes with {diabolos} diabolo(s) in about 40 minutes of computing (about \
                     {} us a step)",
                    Compact(spec.duration),
                    Compact(step),
                    Compact(steps.floor()),
                    Compact(most),
                    spec.method.name(),
                    Compact(ranges::step_cost(spec.method, diabolos) * 1e6),
                ),
                format!("lengthen sim.{field} or shorten sim.duration"),
            ));
        }
    }
    Ok(())
}

fn build_settings(
    spec: &SimSpec,
    limits: &Limits,
    diabolos: usize,
) -> Result<Settings, ScenarioError> {
    check_sim(spec, limits)?;
    check_forced_steps(spec, diabolos)?;
    let method = match (spec.method, spec.step) {
        (MethodName::Rk4, Some(step)) => Method::Rk4 { step },
        (MethodName::Rk4, None) => {
            return Err(invalid(
                "sim.step",
                "missing",
                "method rk4 takes a fixed step",
                "add \"step\": 0.001 (s) to sim",
            ))
        }
        (_, Some(step)) => {
            return Err(invalid(
                "sim.step",
                compact(step),
                "only method rk4 has a fixed step",
                "remove sim.step, or set \"method\": \"rk4\"",
            ))
        }
        (MethodName::Dopri5, None) => Method::Dopri5,
        (MethodName::Dop853, None) => Method::Dop853,
        (MethodName::Rodas, None) => Method::Rodas,
    };
    let mut settings = Settings {
        duration: spec.duration,
        output_interval: spec.output_interval,
        rtol: spec.rtol,
        atol: spec.atol,
        max_step: spec.max_step,
        method,
        zeno_speed: spec.zeno_speed,
        zeno_bounces: spec.zeno_bounces,
        max_events_per_second: spec.max_events_per_second,
        meeting_distance: spec.meeting_distance,
        max_wall: spec.max_wall,
        floor: spec.floor,
        period: spec.period,
        ..Settings::default()
    };
    if settings.output_interval > settings.duration && settings.duration > 0.0 {
        // One row at the start and one at the end.
        settings.output_interval = settings.duration;
    }
    Ok(settings)
}

/// The stick's initial state: from its path when it follows one, else from `initial`.
fn stick(given: Option<&BodySpec>, drive: &Drive, side: &str) -> Result<Body, ScenarioError> {
    let given = given
        .map(|b| -> Result<Body, ScenarioError> {
            let body = Body {
                pos: vector(b.pos),
                vel: vector(b.vel),
            };
            if !(body
                .pos
                .iter()
                .chain(body.vel.iter())
                .all(|v| v.is_finite()))
            {
                return Err(invalid(
                    format!("initial.{side}"),
                    show(body.pos),
                    "not finite",
                    "give finite numbers",
                ));
            }
            Ok(body)
        })
        .transpose()?;
    match (drive, given) {
        (Drive::Path(path), Some(body)) => {
            let start = path.at(0.0);
            for (what, ours, theirs) in [("pos", body.pos, start.pos), ("vel", body.vel, start.vel)] {
                if (ours - theirs).norm() > PATH_AGREEMENT {
                    return Err(invalid(
                        format!("initial.{side}.{what}"),
                        show(ours),
                        format!("the {side} stick follows a path, which at t = 0 has {what} {}", show(theirs)),
                        format!("omit initial.{side} (a path stick starts on its path) or set {what} to {}", show(theirs)),
                    ));
                }
            }
            Ok(body)
        }
        (Drive::Path(path) | Drive::Tracking(path, _), None) => {
            let start = path.at(0.0);
            Ok(Body {
                pos: start.pos,
                vel: start.vel,
            })
        }
        (_, Some(body)) => Ok(body),
        (_, None) => Err(invalid(
            format!("initial.{side}"),
            "missing",
            format!("the {side} stick needs a start position"),
            format!("add \"{side}\": {{\"pos\": [x, y]}} to initial, or drive the {side} stick along a path"),
        )),
    }
}

/// Several diabolos all given by "x": their lowest taut configuration (None for a single
/// diabolo, placed by [`taut_point_below`], or for diabolos given by "pos"). A mix of "x" and
/// "pos" is refused.
fn lowest_placement(
    diabolos: &[DiaboloSpec],
    sticks: &[Body; 2],
    length: f64,
) -> Result<Option<Vec<Vector2<f64>>>, ScenarioError> {
    if diabolos.len() < 2 {
        return Ok(None);
    }
    let by_x = diabolos
        .iter()
        .position(|d| d.x.is_some() && d.pos.is_none());
    let by_pos = diabolos
        .iter()
        .position(|d| d.pos.is_some() && d.x.is_none());
    match (by_x, by_pos) {
        (Some(k), Some(j)) => Err(mixed_placement(diabolos, k, j)),
        (Some(_), None) if diabolos.iter().all(|d| d.x.is_some() && d.pos.is_none()) => {
            let xs: Vec<f64> = diabolos.iter().filter_map(|d| d.x).collect();
            lowest_taut_positions(sticks[0].pos, sticks[1].pos, &xs, length)
                .map(Some)
                .map_err(placement_error)
        }
        // None placed by x, or one with both or neither (reported with that diabolo).
        _ => Ok(None),
    }
}

/// Diabolo `k` placed by "x" and diabolo `j` by "pos": refused at `k`'s x.
fn mixed_placement(diabolos: &[DiaboloSpec], k: usize, j: usize) -> ScenarioError {
    invalid(
        format!("initial.diabolos[{k}].x"),
        compact(diabolos[k].x.unwrap_or_default()),
        format!(
            "diabolo {k} is placed by x and diabolo {j} by pos: several diabolos are placed all by \"x\" (together, on the taut string) or all by \"pos\""
        ),
        "give every diabolo an \"x\" (the lowest taut string through those abscissas) or every diabolo its \"pos\": [x, y]",
    )
}

/// A placement by "x" that cannot be made, named by the diabolo or the stick at fault.
fn placement_error(e: PlacementError) -> ScenarioError {
    match e {
        PlacementError::OutOfOrder { index, x, lower, upper } => invalid(
            format!("initial.diabolos[{index}].x"),
            compact(x),
            format!(
                "several diabolos placed by x sit strictly between the stick tips, left to right: this x must lie strictly between {} and {}",
                Compact(lower),
                Compact(upper)
            ),
            "list the diabolos left to right with increasing x, all strictly between the sticks' x",
        ),
        PlacementError::SticksNotApart { left, right } => invalid(
            "initial.right.pos",
            compact(right),
            format!(
                "several diabolos placed by x need the right stick tip to the right of the left one (x = {})",
                Compact(left)
            ),
            "put the right stick to the right of the left one, or give each diabolo its \"pos\"",
        ),
        PlacementError::SticksTooFarApart { distance, length } => invalid(
            "initial.right.pos",
            compact(distance),
            format!(
                "the sticks are {} m apart, not closer than the string length {} m",
                Compact(distance),
                Compact(length)
            ),
            "bring the sticks closer together or lengthen params.string_length",
        ),
    }
}

fn diabolo(
    spec: &DiaboloSpec,
    k: usize,
    placed: Option<Vector2<f64>>,
    sticks: &[Body; 2],
    length: f64,
) -> Result<DiaboloState, ScenarioError> {
    let at = format!("initial.diabolos[{k}]");
    let pos = match (spec.pos, spec.x, placed) {
        (Some(p), None, _) => vector(p),
        (None, Some(_), Some(p)) => p,
        (None, Some(x), None) => taut_point_below(sticks[0].pos, sticks[1].pos, x, length)
            .map_err(|e| match e {
                StateError::OffString { .. } => invalid(
                    format!("{at}.x"),
                    compact(x),
                    "no point of the taut string below the sticks has this x",
                    "choose x between the reach of the string on either side of the sticks",
                ),
                other => invalid(
                    format!("{at}.x"),
                    compact(x),
                    other.to_string(),
                    "check the stick positions",
                ),
            })?,
        (Some(_), Some(x), _) => {
            return Err(invalid(
                format!("{at}.x"),
                compact(x),
                "both pos and x given",
                "give either pos or x",
            ))
        }
        (None, None, _) => {
            return Err(invalid(
                at,
                "no position",
                "a diabolo needs a position",
                "add \"pos\": [x, y], or \"x\" to place it on the taut string",
            ))
        }
    };
    let vel = vector(spec.vel);
    if !(pos.iter().chain(vel.iter()).all(|v| v.is_finite()) && spec.spin.is_finite()) {
        return Err(invalid(at, show(pos), "not finite", "give finite numbers"));
    }
    Ok(DiaboloState {
        pos,
        vel,
        spin: spec.spin,
        knot: spec.knot,
    })
}

/// A diabolo that starts flying: its `pos` and `vel`, no `x` and no knot.
fn flying_diabolo(spec: &DiaboloSpec, k: usize) -> Result<DiaboloState, ScenarioError> {
    let at = format!("initial.diabolos[{k}]");
    if let Some(x) = spec.x {
        return Err(invalid(
            format!("{at}.x"),
            compact(x),
            "a flying diabolo is not on the string, so it cannot be placed on it by x",
            "give its \"pos\": [x, y], or drop \"mode\": \"flying\"",
        ));
    }
    if spec.knot != 0 {
        return Err(invalid(
            format!("{at}.knot"),
            spec.knot.to_string(),
            "a flying diabolo has no knot degree (the string is not around it)",
            "remove \"knot\", or start it on the string",
        ));
    }
    let Some(pos) = spec.pos else {
        return Err(invalid(
            at,
            "no position",
            "a flying diabolo needs a position",
            "add \"pos\": [x, y]",
        ));
    };
    Ok(DiaboloState {
        pos: vector(pos),
        vel: vector(spec.vel),
        spin: spec.spin,
        knot: 0,
    })
}

/// The start of the diabolos off the string: above the floor, no two discs overlapping (nor a
/// disc and a stick tip), and no flying diabolo below a chord of the string that its flight
/// would cross from below (with the sticks where they start).
fn check_flying_starts(
    params: &Params,
    state: &CartesianState,
    modes: &[DiaboloMode],
    floor: Option<f64>,
) -> Result<(), ScenarioError> {
    let radius = params.diabolo_radius;
    let n = state.diabolo_count();
    if let Some(floor) = floor {
        for (k, d) in state.diabolos.iter().enumerate() {
            if d.pos.y - radius < floor {
                return Err(invalid(
                    "sim.floor",
                    compact(floor),
                    format!(
                        "diabolo {} starts with its lowest point at y = {:.4} m, below the floor (centre y - params.diabolo_radius)",
                        k + 1,
                        d.pos.y - radius
                    ),
                    "lower the floor below every diabolo's start, or raise the diabolo",
                ));
            }
        }
    }
    for a in 0..n {
        for b in a + 1..n {
            let distance = (state.diabolos[a].pos - state.diabolos[b].pos).norm();
            if distance < 2.0 * radius * (1.0 - 1e-9) {
                return Err(invalid(
                    "params.diabolo_radius",
                    compact(radius),
                    format!(
                        "diabolos {} and {} start {distance:.4} m apart: their discs (2R = {} m) overlap",
                        a + 1,
                        b + 1,
                        Compact(2.0 * radius)
                    ),
                    "move them apart, or give a smaller params.diabolo_radius",
                ));
            }
        }
        for (side, tip) in SIDES.iter().zip([state.left.pos, state.right.pos]) {
            let distance = (state.diabolos[a].pos - tip).norm();
            if distance < radius * (1.0 - 1e-9) {
                return Err(invalid(
                    "params.diabolo_radius",
                    compact(radius),
                    format!(
                        "diabolo {} starts {distance:.4} m from the {side} stick tip, inside its disc (R = {} m)",
                        a + 1,
                        Compact(radius)
                    ),
                    "move it away from the stick, or give a smaller params.diabolo_radius",
                ));
            }
        }
    }
    let string: Vec<usize> = (0..n)
        .filter(|&k| modes[k] == DiaboloMode::String)
        .collect();
    let mut objects = vec![state.left.pos];
    objects.extend(string.iter().map(|&k| state.diabolos[k].pos));
    objects.push(state.right.pos);
    for (k, d) in state.diabolos.iter().enumerate() {
        if modes[k] != DiaboloMode::Flying {
            continue;
        }
        for (segment, ends) in objects.windows(2).enumerate() {
            if let Some(time) = rises_through_chord(d, ends[0], ends[1], params.gravity) {
                return Err(invalid(
                    format!("initial.diabolos[{k}].pos"),
                    show(d.pos),
                    format!(
                        "the flying diabolo starts below the chord of segment {segment} of the string and would meet the string from below after {time:.3} s (with the sticks where they start), which is not modelled"
                    ),
                    "start it above the string, or give it a velocity that keeps it below",
                ));
            }
        }
    }
    Ok(())
}

/// The time a diabolo flying from `d` first crosses the chord from a to b upward, strictly
/// between its ends, if it does (its height above the chord is a quadratic in time).
fn rises_through_chord(
    d: &DiaboloState,
    a: Vector2<f64>,
    b: Vector2<f64>,
    gravity: f64,
) -> Option<f64> {
    let chord = b - a;
    if chord.x == 0.0 {
        return None;
    }
    let normal = crate::model::chord_normal(a, b);
    // h(t) = h0 + h1 t + h2 t^2, the height above the chord's line.
    let h0 = normal.dot(&(d.pos - a));
    let h1 = normal.dot(&d.vel);
    let h2 = -0.5 * gravity * normal.y;
    if h0 >= 0.0 {
        return None;
    }
    let roots = if h2 == 0.0 {
        if h1 > 0.0 {
            vec![-h0 / h1]
        } else {
            vec![]
        }
    } else {
        let disc = h1 * h1 - 4.0 * h2 * h0;
        if disc < 0.0 {
            vec![]
        } else {
            let r = disc.sqrt();
            let mut roots = vec![(-h1 - r) / (2.0 * h2), (-h1 + r) / (2.0 * h2)];
            roots.sort_by(f64::total_cmp);
            roots
        }
    };
    let time = roots.into_iter().find(|&t| t > 0.0)?;
    let p = d.pos + d.vel * time + Vector2::new(0.0, -0.5 * gravity * time * time);
    let along = (p - a).dot(&chord) / chord.norm_squared();
    (along > 0.0 && along < 1.0).then_some(time)
}

/// Diabolos placed by "x" on a compliant string: moved down together until the string's mean
/// tension EA delta / L is the tension an inextensible string would carry there at that instant
/// (below), by bisection. Started at the unstretched length, the diabolos would drop onto the
/// stretch and set the string's fast mode ringing, which an explicit integrator must then follow.
fn hang_stretched(state: &mut CartesianState, params: &Params) {
    let Some(string) = params.elastic() else {
        return;
    };
    let placed: Vec<f64> = state.diabolos.iter().map(|d| d.pos.y).collect();
    let mut excess = |shift: f64| {
        for (d, y) in state.diabolos.iter_mut().zip(&placed) {
            d.pos.y = y - shift;
        }
        let stretch = state.string_used() - string.length;
        string.mean_tension(stretch, 0.0) - inextensible_tension(state, params)
    };
    let (mut low, mut high) = (0.0, 1e-6);
    while excess(high) < 0.0 {
        if high > string.length {
            excess(0.0);
            return;
        }
        low = high;
        high *= 2.0;
    }
    let shift = placement::bisect(low, high, &mut excess);
    excess(shift);
}

/// The uniform tension T (N) that keeps sum l constant at this instant, sticks unaccelerated and
/// friction left out: with the diabolos' accelerations a_k = g - (T / m) grad_k, where
/// grad_k = e_(k-1) - e_k is the gradient of sum l at diabolo k, sum l'' = 0 gives
/// T = m (sum_k g . grad_k + sum_i |v_i, perp|^2 / l_i) / sum_k |grad_k|^2, with v_i, perp the
/// relative velocity across segment i normal to it. For one diabolo at rest in a symmetric V it
/// is m g / (2 sin alpha).
fn inextensible_tension(state: &CartesianState, params: &Params) -> f64 {
    let n = state.diabolo_count();
    let unit = |i: usize| (state.position(i + 1) - state.position(i)).normalize();
    let gravity = Vector2::new(0.0, -params.gravity);
    let (mut pull, mut weight) = (0.0, 0.0);
    for k in 1..=n {
        let grad = unit(k - 1) - unit(k);
        pull += grad.norm_squared();
        weight += gravity.dot(&grad);
    }
    let centripetal: f64 = (0..=n)
        .map(|i| {
            let chord = state.position(i + 1) - state.position(i);
            let relative = state.velocity(i + 1) - state.velocity(i);
            let e = chord.normalize();
            (relative - e * relative.dot(&e)).norm_squared() / chord.norm()
        })
        .sum();
    params.diabolo_mass * (weight + centripetal) / pull
}

/// Moves every diabolo vertically by one amount so that sum l = L exactly (Newton).
fn snap_taut(state: &mut CartesianState, length: f64) {
    for _ in 0..50 {
        let excess = state.string_used() - length;
        if excess.abs() <= 1e-14 * length {
            return;
        }
        let h = 1e-7;
        for d in &mut state.diabolos {
            d.pos.y += h;
        }
        let slope = (state.string_used() - length - excess) / h;
        for d in &mut state.diabolos {
            d.pos.y -= h;
        }
        if slope == 0.0 || !slope.is_finite() {
            return;
        }
        let shift = -excess / slope;
        for d in &mut state.diabolos {
            d.pos.y += shift;
        }
    }
}

/// Each diabolo on the string must hang in it (|theta| > pi): not above the line of its
/// neighbours. `entries` gives each one's index in the scenario's list.
fn check_below_string(
    state: &CartesianState,
    entries: &[(usize, &DiaboloSpec)],
) -> Result<(), ScenarioError> {
    let n = state.diabolo_count();
    let mut kin = Kinematics::new(n);
    kin.load_cartesian(state).map_err(|e| match e {
        StateError::SegmentCollapsed { segment } => invalid(
            "initial.diabolos",
            "",
            format!("two neighbours on the string (segment {segment}) are at the same place"),
            "give every diabolo its own position, away from the sticks",
        ),
        other => invalid(
            "initial",
            "",
            other.to_string(),
            "check the initial positions",
        ),
    })?;
    for i in 1..=n {
        let theta = kin.objects()[i].theta;
        if theta.abs() <= std::f64::consts::PI {
            return Err(invalid(
                format!("initial.diabolos[{}].pos", entries[i - 1].0),
                show(state.diabolos[i - 1].pos),
                format!("the diabolo is above the string (the string would bend the wrong way over it: theta = {} rad)", Compact(theta)),
                "place it below the line joining its neighbours on the string",
            ));
        }
    }
    Ok(())
}

fn build_drive(
    spec: Option<&DriveSpec>,
    side: &str,
    base: &FsPath,
) -> Result<Drive, ScenarioError> {
    let at = format!("drive.{side}");
    Ok(match spec {
        None | Some(DriveSpec::Released(_)) => Drive::Released,
        Some(DriveSpec::Force(s)) => Drive::Force(schedule(&at, s, &ranges::FORCE)?),
        Some(DriveSpec::Accel(s)) => Drive::Accel(schedule(&at, s, &ranges::ACCELERATION)?),
        Some(DriveSpec::Path(spec)) => {
            let path = build_path(&at, spec, base)?;
            match &spec.tracking {
                None => Drive::Path(path),
                Some(t) => {
                    let at = format!("{at}.tracking");
                    within(
                        || format!("{at}.stiffness"),
                        t.stiffness,
                        &ranges::STIFFNESS,
                    )?;
                    within(|| format!("{at}.damping"), t.damping, &ranges::DAMPING)?;
                    within(
                        || format!("{at}.max_force"),
                        t.max_force,
                        &ranges::MAX_FORCE,
                    )?;
                    Drive::Tracking(
                        path,
                        Tracking {
                            stiffness: t.stiffness,
                            damping: t.damping,
                            max_force: t.max_force,
                        },
                    )
                }
            }
        }
    })
}

/// The path of a `path` drive: exactly one of keyframes, sine and csv.
fn build_path(at: &str, spec: &PathSpec, base: &FsPath) -> Result<Path, ScenarioError> {
    let given: Vec<&str> = [
        ("keyframes", spec.keyframes.is_some()),
        ("sine", spec.sine.is_some()),
        ("csv", spec.csv.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, present)| present.then_some(name))
    .collect();
    if let (None, Some(name)) = (&spec.keyframes, spec.interpolation) {
        return Err(invalid(
            format!("{at}.interpolation"),
            format!("{name:?}").to_lowercase(),
            "interpolation joins keyframes, and this path has none",
            "remove \"interpolation\", or give the path as \"keyframes\"",
        ));
    }
    Ok(match (&spec.keyframes, &spec.sine, &spec.csv) {
        (Some(points), None, None) => {
            check_keyframes(&format!("{at}.keyframes"), points, &ranges::COORDINATE)?;
            keyframe_path(triples(points), spec.interpolation.unwrap_or_default())
                .map_err(|e| drive_error(at, "keyframes", e))?
        }
        (None, Some(s), None) => {
            let at = format!("{at}.sine");
            each_within(&format!("{at}.center"), &s.center, &ranges::COORDINATE)?;
            each_within(&format!("{at}.amplitude"), &s.amplitude, &ranges::AMPLITUDE)?;
            within(
                || format!("{at}.frequency"),
                s.frequency,
                &ranges::FREQUENCY,
            )?;
            each_within(&format!("{at}.phase"), &s.phase, &ranges::PHASE)?;
            Path::Sine {
                center: vector(s.center),
                amplitude: vector(s.amplitude),
                frequency: s.frequency,
                phase: vector(s.phase),
            }
        }
        (None, None, Some(file)) => {
            let half_window = spec.smoothing.unwrap_or(DEFAULT_SMOOTHING);
            within(
                || format!("{at}.smoothing"),
                half_window,
                &ranges::SMOOTHING,
            )?;
            let samples = read_samples(&format!("{at}.csv"), &base.join(file))?;
            Path::Samples(
                SampledPath::new(samples, half_window).map_err(|e| drive_error(at, "csv", e))?,
            )
        }
        _ => {
            let got = if given.is_empty() {
                "none of them".to_string()
            } else {
                given.join(" and ")
            };
            return Err(invalid(
                at,
                got,
                "a path is exactly one of keyframes, sine or csv",
                "keep one of \"keyframes\", \"sine\", \"csv\"",
            ));
        }
    })
}

/// The path through keyframes joined as `interpolation` says.
fn keyframe_path(
    points: Vec<(f64, Vector2<f64>)>,
    interpolation: InterpolationName,
) -> Result<Path, DriveError> {
    Ok(match interpolation {
        InterpolationName::Cubic => Path::Keyframes(ClampedSpline::new(points)?),
        InterpolationName::Pchip => Path::Monotone(MonotoneCubic::new(points)?),
        InterpolationName::Linear => Path::Linear(Polyline::new(points)?),
    })
}

/// Keyframes [t, x, y]: each time and each value within its range, named by its index.
fn check_keyframes(at: &str, points: &[[f64; 3]], values: &Range) -> Result<(), ScenarioError> {
    for (i, p) in points.iter().enumerate() {
        within(|| format!("{at}[{i}][0]"), p[0], &ranges::KEYFRAME_TIME)?;
        within(|| format!("{at}[{i}][1]"), p[1], values)?;
        within(|| format!("{at}[{i}][2]"), p[2], values)?;
    }
    Ok(())
}

fn triples(points: &[[f64; 3]]) -> Vec<(f64, Vector2<f64>)> {
    points
        .iter()
        .map(|p| (p[0], Vector2::new(p[1], p[2])))
        .collect()
}

/// A force or acceleration schedule, its values within `values`.
fn schedule(at: &str, spec: &ScheduleSpec, values: &Range) -> Result<Schedule, ScenarioError> {
    match (spec.value, spec.keyframes.as_deref()) {
        (Some(v), None) => {
            each_within(&format!("{at}.value"), &v, values)?;
            Ok(Schedule::Constant(vector(v)))
        }
        (None, Some(points)) => {
            check_keyframes(&format!("{at}.keyframes"), points, values)?;
            Schedule::keyframes(triples(points)).map_err(|e| drive_error(at, "keyframes", e))
        }
        (value, keyframes) => Err(invalid(
            at,
            if value.is_some() && keyframes.is_some() {
                "value and keyframes"
            } else {
                "neither"
            },
            "give exactly one of value and keyframes",
            "\"value\": [x, y] for a constant, or \"keyframes\": [[t, x, y], ...]",
        )),
    }
}

fn drive_error(at: &str, field: &str, e: DriveError) -> ScenarioError {
    match e {
        DriveError::TooFewPoints { needed, got, .. } => invalid(
            format!("{at}.{field}"),
            format!("{got} points"),
            format!("needs at least {needed} points"),
            format!("give {needed} or more"),
        ),
        DriveError::TimesNotIncreasing {
            index,
            earlier,
            later,
            ..
        } => invalid(
            format!("{at}.{field}[{index}]"),
            "",
            format!(
                "times must increase ({} after {})",
                Compact(later),
                Compact(earlier)
            ),
            "sort the points by time, without repeated times",
        ),
        DriveError::NonFinite { index, .. } => invalid(
            format!("{at}.{field}[{index}]"),
            "",
            "not finite",
            "give finite numbers",
        ),
        DriveError::NotPositive { what, value } => invalid(
            format!("{at}.{field}"),
            compact(value),
            format!("{what} must be greater than 0"),
            "give a positive value",
        ),
    }
}

/// t,x,y samples of a CSV file (an optional header row of names).
fn read_samples(at: &str, file: &FsPath) -> Result<Vec<(f64, Vector2<f64>)>, ScenarioError> {
    let shown = echoed(&file.display().to_string());
    let text = std::fs::File::open(file)
        .and_then(|f| read_text(std::io::BufReader::new(f), Records::Csv))
        .map_err(|e| {
            invalid(
                at,
                &shown,
                InputLimit::of(&e).map_or_else(
                    || format!("cannot read the file: {e}"),
                    |limit| limit.to_string(),
                ),
                "give the path of a t,x,y CSV file, relative to the scenario file",
            )
        })?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut samples = Vec::new();
    for (row, record) in reader.records().enumerate() {
        let record = record.map_err(|e| {
            invalid(
                at,
                &shown,
                format!("row {}: {e}", row + 1),
                "write three columns t,x,y per row",
            )
        })?;
        if record.len() != 3 {
            return Err(invalid(
                at,
                &shown,
                format!("row {} has {} columns", row + 1, record.len()),
                "write three columns t,x,y per row",
            ));
        }
        let numbers: Result<Vec<f64>, _> = record.iter().map(str::parse::<f64>).collect();
        match numbers {
            Ok(v) if v.iter().all(|x| x.is_finite()) => {
                for (value, range) in v.iter().zip([
                    &ranges::KEYFRAME_TIME,
                    &ranges::COORDINATE,
                    &ranges::COORDINATE,
                ]) {
                    if !range.contains(*value) {
                        return Err(invalid(
                            at,
                            &shown,
                            format!(
                                "row {}: {} is outside the accepted range {} ({})",
                                row + 1,
                                Compact(*value),
                                range.span(),
                                range.why
                            ),
                            "give times and positions within the ranges",
                        ));
                    }
                }
                samples.push((v[0], Vector2::new(v[1], v[2])))
            }
            _ if row == 0 => {} // a header
            _ => {
                return Err(invalid(
                    at,
                    &shown,
                    format!(
                        "row {}: {} is not three finite numbers",
                        row + 1,
                        echoed(&record.iter().collect::<Vec<_>>().join(","))
                    ),
                    "write numbers only (t,x,y), one sample per row",
                ))
            }
        }
    }
    if samples.is_empty() {
        return Err(invalid(
            at,
            &shown,
            "the file has no samples",
            "write one t,x,y row per sample",
        ));
    }
    if let Some(i) = (1..samples.len()).find(|&i| samples[i].0 <= samples[i - 1].0) {
        return Err(invalid(
            at,
            &shown,
            format!(
                "times must increase ({} after {} in sample {})",
                Compact(samples[i].0),
                Compact(samples[i - 1].0),
                i + 1
            ),
            "sort the samples by time, without repeated times",
        ));
    }
    Ok(samples)
}

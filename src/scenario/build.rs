//! From a parsed scenario to a [`Simulation`]: every value checked, every physical
//! impossibility reported with its JSON path, the value, the reason and the fix.

use std::path::Path as FsPath;

use nalgebra::Vector2;

use crate::model::{
    taut_point_below, Body, CartesianState, DiaboloState, FrictionLaw, Kinematics, ParamValues,
    Params, StateError,
};
use crate::simulation::drive::{
    ClampedSpline, Drive, DriveError, Path, SampledPath, Schedule, Tracking,
};
use crate::simulation::run::{Settings, SetupError, Simulation};
use crate::simulation::Method;

use super::error::ScenarioError;
use super::spec::{
    BodySpec, DiaboloSpec, DriveSpec, FrictionLawName, MethodName, ParamsSpec, PathSpec, Scenario,
    SimSpec,
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
    format!("[{}, {}]", v.x, v.y)
}

impl Scenario {
    /// Checks everything and builds the simulation. Relative file names (a `csv` path) are
    /// read relative to `base`, the scenario file's folder.
    pub fn build(&self, base: &FsPath) -> Result<Simulation, ScenarioError> {
        let params = build_params(&self.params)?;
        let drives = [
            build_drive(self.drive.left.as_ref(), SIDES[0], base)?,
            build_drive(self.drive.right.as_ref(), SIDES[1], base)?,
        ];
        let settings = build_settings(&self.sim)?;
        let initial = self.build_initial(&params, &drives)?;
        Simulation::new(params, drives, initial, settings).map_err(|e| match e {
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
        if distance >= length {
            return Err(invalid(
                "initial.right.pos",
                show(sticks[1].pos),
                format!("the sticks are {distance} m apart, not closer than the string length {length} m"),
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
        let mut state = CartesianState {
            left: sticks[0],
            right: sticks[1],
            diabolos: diabolos
                .iter()
                .enumerate()
                .map(|(k, d)| diabolo(d, k, diabolos.len(), &sticks, length))
                .collect::<Result<_, _>>()?,
        };
        for k in 1..state.diabolos.len() {
            let (a, b) = (state.diabolos[k - 1].pos.x, state.diabolos[k].pos.x);
            if b < a {
                return Err(invalid(
                    format!("initial.diabolos[{k}].pos"),
                    show(state.diabolos[k].pos),
                    format!("diabolos are listed left to right: x = {b} comes after x = {a}"),
                    "list the diabolos in the order they sit on the string, left to right",
                ));
            }
        }
        let excess = state.string_used() - length;
        if excess > TAUT_SNAP_TOLERANCE {
            return Err(invalid(
                "initial.diabolos",
                format!("sum l = {} m", state.string_used()),
                format!("the diabolos are off the string: reaching them takes {excess} m more string than L = {length} m"),
                "move the diabolos within reach of the string (sum of the segment lengths at most L), or give a single diabolo by \"x\"",
            ));
        }
        if excess.abs() <= TAUT_SNAP_TOLERANCE {
            snap_taut(&mut state, length);
        }
        check_below_string(&state)?;
        Ok(state)
    }
}

impl ParamsSpec {
    /// The checked parameters.
    pub fn to_params(&self) -> Result<Params, ScenarioError> {
        build_params(self)
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
    Params::new(ParamValues {
        string_length: spec.string_length,
        diabolo_mass: spec.diabolo_mass,
        stick_mass: spec.stick_mass,
        friction: spec.friction,
        spin_inertia: spec.spin_inertia,
        spin_drag: spec.spin_drag,
        gravity: spec.gravity,
        restitution: spec.restitution,
        friction_law,
    })
    .map_err(|e| {
        invalid(
            format!("params.{}", e.field),
            e.value,
            "out of range",
            e.requirement,
        )
    })
}

fn build_settings(spec: &SimSpec) -> Result<Settings, ScenarioError> {
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
                step,
                "only method rk4 has a fixed step",
                "remove sim.step, or set \"method\": \"rk4\"",
            ))
        }
        (MethodName::Dopri5, None) => Method::Dopri5,
        (MethodName::Dop853, None) => Method::Dop853,
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

fn diabolo(
    spec: &DiaboloSpec,
    k: usize,
    count: usize,
    sticks: &[Body; 2],
    length: f64,
) -> Result<DiaboloState, ScenarioError> {
    let at = format!("initial.diabolos[{k}]");
    let pos = match (spec.pos, spec.x) {
        (Some(p), None) => vector(p),
        (None, Some(x)) if count == 1 => taut_point_below(sticks[0].pos, sticks[1].pos, x, length)
            .map_err(|e| match e {
                StateError::OffString { .. } => invalid(
                    format!("{at}.x"),
                    x,
                    "no point of the taut string below the sticks has this x",
                    "choose x between the reach of the string on either side of the sticks",
                ),
                other => invalid(
                    format!("{at}.x"),
                    x,
                    other.to_string(),
                    "check the stick positions",
                ),
            })?,
        (None, Some(x)) => {
            return Err(invalid(
                format!("{at}.x"),
                x,
                "placement by x needs a single diabolo",
                "give each diabolo its \"pos\": [x, y]",
            ))
        }
        (Some(_), Some(x)) => {
            return Err(invalid(
                format!("{at}.x"),
                x,
                "both pos and x given",
                "give either pos or x",
            ))
        }
        (None, None) => {
            return Err(invalid(
                at,
                "no position",
                "a diabolo needs a position",
                "add \"pos\": [x, y] (or \"x\" for a single diabolo on the taut string)",
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

/// Each diabolo must hang in the string (|theta| > pi): not above the line of its neighbours.
fn check_below_string(state: &CartesianState) -> Result<(), ScenarioError> {
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
                format!("initial.diabolos[{}].pos", i - 1),
                show(state.diabolos[i - 1].pos),
                format!("the diabolo is above the string (the string would bend the wrong way over it: theta = {theta:.4} rad)"),
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
        None | Some(DriveSpec::Released) => Drive::Released,
        Some(DriveSpec::Force(s)) => Drive::Force(schedule(&at, s.value, s.keyframes.as_deref())?),
        Some(DriveSpec::Accel(s)) => Drive::Accel(schedule(&at, s.value, s.keyframes.as_deref())?),
        Some(DriveSpec::Path(PathSpec {
            keyframes,
            sine,
            csv,
            smoothing,
            tracking,
        })) => {
            let path = match (keyframes, sine, csv) {
                (Some(points), None, None) => Path::Keyframes(
                    ClampedSpline::new(triples(points))
                        .map_err(|e| drive_error(&at, "keyframes", e))?,
                ),
                (None, Some(s), None) => {
                    if !(s.frequency.is_finite() && s.frequency > 0.0) {
                        return Err(invalid(
                            format!("{at}.sine.frequency"),
                            s.frequency,
                            "a sine needs a positive frequency",
                            "give the frequency in Hz (> 0); for a still hand use a single keyframe",
                        ));
                    }
                    Path::Sine {
                        center: vector(s.center),
                        amplitude: vector(s.amplitude),
                        frequency: s.frequency,
                        phase: vector(s.phase),
                    }
                }
                (None, None, Some(file)) => {
                    let half_window = smoothing.unwrap_or(DEFAULT_SMOOTHING);
                    if !(half_window.is_finite() && half_window > 0.0) {
                        return Err(invalid(
                            format!("{at}.smoothing"),
                            half_window,
                            "must be greater than 0",
                            "give a window half-width in s, e.g. 0.02",
                        ));
                    }
                    let samples = read_samples(&format!("{at}.csv"), &base.join(file))?;
                    Path::Samples(
                        SampledPath::new(samples, half_window)
                            .map_err(|e| drive_error(&at, "csv", e))?,
                    )
                }
                _ => {
                    return Err(invalid(
                        at,
                        "path",
                        "a path is exactly one of keyframes, sine or csv",
                        "keep one of \"keyframes\", \"sine\", \"csv\"",
                    ))
                }
            };
            match tracking {
                None => Drive::Path(path),
                Some(t) => {
                    for (name, value, ok) in [
                        ("stiffness", t.stiffness, t.stiffness > 0.0),
                        ("damping", t.damping, t.damping >= 0.0),
                        ("max_force", t.max_force, t.max_force > 0.0),
                    ] {
                        if !(value.is_finite() && ok) {
                            return Err(invalid(
                                format!("{at}.tracking.{name}"),
                                value,
                                "out of range",
                                "stiffness (N/m) and max_force (N) must be > 0, damping (N s/m) >= 0",
                            ));
                        }
                    }
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

fn triples(points: &[[f64; 3]]) -> Vec<(f64, Vector2<f64>)> {
    points
        .iter()
        .map(|p| (p[0], Vector2::new(p[1], p[2])))
        .collect()
}

fn schedule(
    at: &str,
    value: Option<[f64; 2]>,
    keyframes: Option<&[[f64; 3]]>,
) -> Result<Schedule, ScenarioError> {
    match (value, keyframes) {
        (Some(v), None) => {
            if v.iter().all(|x| x.is_finite()) {
                Ok(Schedule::Constant(vector(v)))
            } else {
                Err(invalid(
                    format!("{at}.value"),
                    format!("{v:?}"),
                    "not finite",
                    "give finite numbers",
                ))
            }
        }
        (None, Some(points)) => {
            Schedule::keyframes(triples(points)).map_err(|e| drive_error(at, "keyframes", e))
        }
        _ => Err(invalid(
            at,
            "",
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
            format!("times must increase ({later} after {earlier})"),
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
            value,
            format!("{what} must be greater than 0"),
            "give a positive value",
        ),
    }
}

/// t,x,y samples of a CSV file (an optional header row of names).
fn read_samples(at: &str, file: &FsPath) -> Result<Vec<(f64, Vector2<f64>)>, ScenarioError> {
    let shown = file.display().to_string();
    let text = std::fs::read_to_string(file).map_err(|e| {
        invalid(
            at,
            &shown,
            format!("cannot read the file: {e}"),
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
                samples.push((v[0], Vector2::new(v[1], v[2])))
            }
            _ if row == 0 => {} // a header
            _ => {
                return Err(invalid(
                    at,
                    &shown,
                    format!(
                        "row {}: {:?} is not three finite numbers",
                        row + 1,
                        record.iter().collect::<Vec<_>>()
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
                samples[i].0,
                samples[i - 1].0,
                i + 1
            ),
            "sort the samples by time, without repeated times",
        ));
    }
    Ok(samples)
}

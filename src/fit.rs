//! Parameter identification (`diabolo fit`): the free parameters minimise the replay error over
//! all the given recordings together, by Nelder-Mead (argmin). The objective is the mean
//! position error over every start and horizon (m) plus `spin_weight` times the mean spin error
//! (rad/s), so that the spin identifies tanh(c theta'/2) / J and the drag while positions carry
//! the friction.

use std::path::Path;

use argmin::core::{CostFunction, Error as ArgminError, Executor, State};
use argmin::solver::neldermead::NelderMead;
use rayon::prelude::*;
use serde::{de, ser, Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use thiserror::Error;

use crate::input_limits::{read_text, Records};
use crate::model::space::{AxleModel, AxleValues, SpaceParams};
use crate::replay::{
    plan_horizons, replay, replays_in_space, statistics, HeldHorizons, Recording, ReplayError,
    ReplayOptions,
};
use crate::scenario::{strict_json, FrictionLawName, ParamsSpec, ScenarioError};

/// A parameter `fit` may move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FreeParameter {
    /// c.
    Friction,
    /// J.
    SpinInertia,
    /// D, 1/s.
    SpinDrag,
    /// A correction (m) added to every recording's estimated string length.
    StringLength,
    /// EA, N: a compliant string's stiffness (freed from 200 N when the parameters have none).
    StringStiffness,
    /// eta, N s: a compliant string's damping.
    StringDamping,
    /// r, m: the axle's radius (a replay in space: the gyroscope's tilt rate goes as
    /// 1 / (J r), and the recorded spin converts as w = -r spin).
    AxleRadius,
    /// I_t, kg m^2: the transverse moment of inertia (a replay in space with the rigid axle;
    /// freed from the two-ring default when the parameters have none).
    TransverseInertia,
}

impl FreeParameter {
    /// Every parameter `fit` may move.
    pub const ALL: [Self; 8] = [
        Self::Friction,
        Self::SpinInertia,
        Self::SpinDrag,
        Self::StringLength,
        Self::StringStiffness,
        Self::StringDamping,
        Self::AxleRadius,
        Self::TransverseInertia,
    ];

    /// EA a fit starts from when it frees the stiffness of parameters that have none, N (the
    /// middle of the 150 to 310 N the shared recordings' stretch shows).
    pub const STARTING_STIFFNESS: f64 = 200.0;

    /// The parameter of `name` (as [`FreeParameter::name`] gives it, spaces around allowed).
    pub fn parse(name: &str) -> Result<Self, FitError> {
        let name = name.trim();
        Self::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Self::ALL.iter().map(|p| p.name()).collect();
                FitError::Parameter(format!(
                    "--free {name}: not a parameter fit can move; use {}",
                    names.join(", ")
                ))
            })
    }

    /// The name in `--free` and in a parameters file (the scenario's field name).
    pub fn name(self) -> &'static str {
        match self {
            Self::Friction => "friction",
            Self::SpinInertia => "spin_inertia",
            Self::SpinDrag => "spin_drag",
            Self::StringLength => "string_length",
            Self::StringStiffness => "string_stiffness",
            Self::StringDamping => "string_damping",
            Self::AxleRadius => "axle_radius",
            Self::TransverseInertia => "transverse_inertia",
        }
    }

    /// Whether the parameter acts only on a replay by the model in space (the axle's).
    pub fn in_space_only(self) -> bool {
        matches!(self, Self::AxleRadius | Self::TransverseInertia)
    }

    /// The parameter's value in `o` (for `StringLength`, the correction `length_offset`, m).
    pub fn value(self, o: &ReplayOptions) -> f64 {
        match self {
            Self::Friction => o.params.friction,
            Self::SpinInertia => o.params.spin_inertia,
            Self::SpinDrag => o.params.spin_drag,
            Self::StringLength => o.length_offset,
            Self::StringStiffness => o
                .params
                .string_stiffness
                .unwrap_or(Self::STARTING_STIFFNESS),
            Self::StringDamping => o.params.string_damping,
            Self::AxleRadius => o.axle.axle_radius,
            Self::TransverseInertia => o
                .axle
                .transverse_inertia
                .unwrap_or_else(|| default_transverse_inertia(o)),
        }
    }

    /// Sets the value, kept in its physical range.
    fn set(self, o: &mut ReplayOptions, v: f64) {
        match self {
            Self::Friction => o.params.friction = v.max(0.0),
            Self::SpinInertia => o.params.spin_inertia = v.max(0.5),
            Self::SpinDrag => o.params.spin_drag = v.max(0.0),
            Self::StringLength => o.length_offset = v.clamp(-0.1, 0.1),
            Self::StringStiffness => o.params.string_stiffness = Some(v.clamp(10.0, 1e6)),
            Self::StringDamping => o.params.string_damping = v.clamp(0.0, 100.0),
            Self::AxleRadius => o.axle.axle_radius = v.clamp(1e-3, 0.05),
            // At least half the polar moment (the perpendicular-axis theorem).
            Self::TransverseInertia => {
                o.axle.transverse_inertia = Some(v.max(0.5 * polar_inertia(o)));
            }
        }
    }

    /// The first simplex step.
    fn step(self, v: f64) -> f64 {
        match self {
            Self::Friction => 0.05,
            Self::SpinInertia => 0.3 * v.abs().max(5.0),
            Self::SpinDrag => 0.02,
            Self::StringLength => 0.005,
            Self::StringStiffness => 0.3 * v.abs().max(50.0),
            Self::StringDamping => 0.5,
            Self::AxleRadius => 0.15 * v.abs().max(1e-3),
            Self::TransverseInertia => 0.3 * v.abs(),
        }
    }
}

/// I_p = J m r^2 of the options' parameters, kg m^2.
fn polar_inertia(o: &ReplayOptions) -> f64 {
    o.params.spin_inertia * o.params.diabolo_mass * o.axle.axle_radius * o.axle.axle_radius
}

/// The transverse moment of inertia the model in space takes when none is given: two rings at
/// the cups, I_p / 2 + m (h / 2)^2, kg m^2 ([`AxleValues::transverse_inertia`]).
fn default_transverse_inertia(o: &ReplayOptions) -> f64 {
    let half = 0.5 * o.axle.half_length;
    0.5 * polar_inertia(o) + o.params.diabolo_mass * half * half
}

/// Why a fit did not run or did not finish.
#[derive(Debug, Error)]
pub enum FitError {
    /// A free parameter, iteration count or spin weight that cannot be used.
    #[error("{0}")]
    Parameter(String),
    /// A recording or replay option that cannot be replayed.
    #[error("{0}")]
    Replay(#[from] ReplayError),
    /// Nelder-Mead stopped on an error.
    #[error("the optimiser failed: {0}")]
    Optimiser(String),
}

/// How the error of a parameter set is measured.
#[derive(Clone, Debug, PartialEq)]
pub struct FitOptions {
    /// The replay (horizons, stride, starting parameter values).
    pub replay: ReplayOptions,
    /// The parameters to move, in the order of the simplex's coordinates.
    pub free: Vec<FreeParameter>,
    /// m of objective per rad/s of mean spin error.
    pub spin_weight: f64,
    /// m of objective per degree of mean tilt error (the recordings replayed in space only;
    /// [`DEFAULT_TILT_WEIGHT`] by default).
    pub tilt_weight: f64,
    /// Nelder-Mead iterations, at most [`MAX_ITERATIONS`].
    pub max_iterations: u64,
}

/// The tilt's default weight in the objective, m per degree: a degree of tilt counts as a
/// centimetre of position (the recordings' mean errors at 0.5 s are about a degree and a few
/// centimetres).
pub const DEFAULT_TILT_WEIGHT: f64 = 0.01;

/// The outcome of a fit.
#[derive(Clone, Debug, PartialEq)]
pub struct FitReport {
    /// The replay options with the fitted values.
    pub fitted: ReplayOptions,
    /// The objective at the starting values, m.
    pub objective_before: f64,
    /// The objective at the fitted values, m.
    pub objective_after: f64,
    /// Mean position error over all starts and horizons at the starting values, m.
    pub position_before: f64,
    /// Mean position error at the fitted values, m.
    pub position_after: f64,
    /// Mean spin error at the starting values, rad/s.
    pub spin_before: f64,
    /// Mean spin error at the fitted values, rad/s.
    pub spin_after: f64,
    /// Mean tilt error of the recordings replayed in space at the starting values, degrees
    /// (NaN when none is).
    pub tilt_before: f64,
    /// Mean tilt error at the fitted values, degrees (NaN when none is).
    pub tilt_after: f64,
    /// How many times the objective was evaluated.
    pub evaluations: u64,
}

/// (objective, mean position error m, mean spin error rad/s) of `options` on the recordings,
/// each at the horizons it holds ([`objective_of`] without a tilt weight).
pub fn objective(
    recordings: &[Recording],
    options: &ReplayOptions,
    spin_weight: f64,
) -> Result<(f64, f64, f64), ReplayError> {
    let o = objective_of(recordings, options, spin_weight, 0.0)?;
    Ok((o.value, o.position, o.spin))
}

/// The objective of a parameter set and its parts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Objective {
    /// position + spin_weight spin + tilt_weight tilt, m.
    pub value: f64,
    /// Mean position error over every start and horizon (a failed run's missing horizons
    /// counting 1 m each), m.
    pub position: f64,
    /// Mean spin error, rad/s.
    pub spin: f64,
    /// Mean tilt error over the starts and horizons of the recordings replayed in space,
    /// degrees (NaN when none is; it then adds nothing).
    pub tilt: f64,
}

/// The [`Objective`] of `options` on the recordings, each at the horizons it holds.
pub fn objective_of(
    recordings: &[Recording],
    options: &ReplayOptions,
    spin_weight: f64,
    tilt_weight: f64,
) -> Result<Objective, ReplayError> {
    type Sums = (f64, f64, usize, f64, usize);
    let per_recording: Vec<Result<Sums, ReplayError>> = recordings
        .par_iter()
        .map(|rec| {
            // Each recording scores the horizons it holds ([`plan_horizons`] has checked that
            // every horizon is held by one).
            let held = HeldHorizons::of(rec, options).options;
            if held.horizons.is_empty() {
                return Ok((0.0, 0.0, 0, 0.0, 0));
            }
            let results = replay(rec, &held).map_err(|e| e.in_recording(&rec.name))?;
            let stats = statistics(&results, &held.horizons);
            let mut sums = (0.0, 0.0, 0usize, 0.0, 0usize);
            for s in stats.iter().filter(|s| s.n > 0) {
                sums.0 += s.mean * s.n as f64;
                sums.1 += s.spin_mean * s.n as f64;
                sums.2 += s.n;
                if let Some(space) = s.space {
                    sums.3 += space.tilt_mean * s.n as f64;
                    sums.4 += s.n;
                }
            }
            // A start whose run failed counts with a large error, so failures are not rewarded.
            let dropped: usize = stats.iter().map(|s| s.dropped).sum();
            sums.0 += 1.0 * dropped as f64;
            sums.2 += dropped;
            Ok(sums)
        })
        .collect();
    let (mut position, mut spin, mut n, mut tilt, mut n_tilt) = (0.0, 0.0, 0usize, 0.0, 0usize);
    for r in per_recording {
        let (p, s, k, a, k_tilt) = r?;
        position += p;
        spin += s;
        n += k;
        tilt += a;
        n_tilt += k_tilt;
    }
    let n = n.max(1) as f64;
    let (position, spin) = (position / n, spin / n);
    let mut value = position + spin_weight * spin;
    let tilt = if n_tilt > 0 {
        let tilt = tilt / n_tilt as f64;
        value += tilt_weight * tilt;
        tilt
    } else {
        f64::NAN
    };
    Ok(Objective {
        value,
        position,
        spin,
        tilt,
    })
}

struct Problem<'a> {
    recordings: &'a [Recording],
    options: &'a FitOptions,
    /// Evaluations so far and the best objective among them.
    tally: &'a std::sync::Mutex<(u64, f64)>,
    progress: &'a (dyn Fn(u64, f64) + Sync),
}

impl Problem<'_> {
    fn with(&self, x: &[f64]) -> ReplayOptions {
        let mut o = self.options.replay.clone();
        for (p, v) in self.options.free.iter().zip(x) {
            p.set(&mut o, *v);
        }
        o
    }
}

impl CostFunction for Problem<'_> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, x: &Self::Param) -> Result<f64, ArgminError> {
        let value = objective_of(
            self.recordings,
            &self.with(x),
            self.options.spin_weight,
            self.options.tilt_weight,
        )?
        .value;
        if let Ok(mut tally) = self.tally.lock() {
            tally.0 += 1;
            tally.1 = tally.1.min(value);
            (self.progress)(tally.0, tally.1);
        }
        Ok(value)
    }
}

/// The most Nelder-Mead iterations of one fit: each replays every recording (seconds), so 1,000
/// is already an hour or more.
pub const MAX_ITERATIONS: u64 = 1000;

/// Fits the free parameters on all the recordings together.
pub fn fit(recordings: &[Recording], options: &FitOptions) -> Result<FitReport, FitError> {
    fit_with_progress(recordings, options, &|_, _| {})
}

/// [`fit`], calling `progress(evaluations, best objective so far)` after each evaluation of the
/// objective by the optimiser.
pub fn fit_with_progress(
    recordings: &[Recording],
    options: &FitOptions,
    progress: &(dyn Fn(u64, f64) + Sync),
) -> Result<FitReport, FitError> {
    if options.free.is_empty() {
        return Err(FitError::Parameter(
            "--free: name at least one parameter".into(),
        ));
    }
    if options.max_iterations > MAX_ITERATIONS {
        return Err(FitError::Parameter(format!(
            "--iterations {}: at most {MAX_ITERATIONS} (each iteration replays every recording)",
            options.max_iterations
        )));
    }
    if !(options.spin_weight.is_finite() && options.spin_weight >= 0.0) {
        return Err(FitError::Parameter(format!(
            "--spin-weight {}: give a weight of 0 or more, m per rad/s",
            crate::display::Compact(options.spin_weight)
        )));
    }
    if !(options.tilt_weight.is_finite() && options.tilt_weight >= 0.0) {
        return Err(FitError::Parameter(format!(
            "--tilt-weight {}: give a weight of 0 or more, m per degree",
            crate::display::Compact(options.tilt_weight)
        )));
    }
    check_free_in_space(recordings, options)?;
    plan_horizons(recordings, &options.replay, true)?;
    let start: Vec<f64> = options
        .free
        .iter()
        .map(|p| p.value(&options.replay))
        .collect();
    let mut simplex = vec![start.clone()];
    for (i, p) in options.free.iter().enumerate() {
        let mut vertex = start.clone();
        vertex[i] += p.step(start[i]);
        simplex.push(vertex);
    }
    let before = objective_of(
        recordings,
        &options.replay,
        options.spin_weight,
        options.tilt_weight,
    )?;
    let tally = std::sync::Mutex::new((0, before.value));
    let problem = Problem {
        recordings,
        options,
        tally: &tally,
        progress,
    };
    let solver = NelderMead::new(simplex)
        .with_sd_tolerance(1e-5)
        .map_err(|e| FitError::Optimiser(e.to_string()))?;
    let result = Executor::new(problem, solver)
        .configure(|state| state.max_iters(options.max_iterations))
        .run()
        .map_err(|e| FitError::Optimiser(e.to_string()))?;
    let best = result.state().get_best_param().cloned().unwrap_or(start);
    let evaluations = result
        .state()
        .get_func_counts()
        .get("cost_count")
        .copied()
        .unwrap_or(0);
    let problem = Problem {
        recordings,
        options,
        tally: &tally,
        progress: &|_, _| {},
    };
    let fitted = problem.with(&best);
    let after = objective_of(
        recordings,
        &fitted,
        options.spin_weight,
        options.tilt_weight,
    )?;
    Ok(FitReport {
        fitted,
        objective_before: before.value,
        objective_after: after.value,
        position_before: before.position,
        position_after: after.position,
        spin_before: before.spin,
        spin_after: after.spin,
        tilt_before: before.tilt,
        tilt_after: after.tilt,
        evaluations,
    })
}

/// The axle's parameters move only a replay in space, and the transverse inertia only the
/// rigid axle's: freeing one where it moves nothing is an error naming it and the fix.
fn check_free_in_space(recordings: &[Recording], options: &FitOptions) -> Result<(), FitError> {
    let in_space = recordings
        .iter()
        .any(|rec| replays_in_space(rec, &options.replay));
    for p in options.free.iter().filter(|p| p.in_space_only()) {
        if !in_space {
            return Err(FitError::Parameter(format!(
                "--free {}: moves only a replay by the model in space, and no recording is \
                 replayed in space (a planar recording, or --planar); give recordings with the \
                 3D columns (as in data/space/) or leave {} out",
                p.name(),
                p.name()
            )));
        }
    }
    if options.free.contains(&FreeParameter::TransverseInertia)
        && options.replay.axle.model != AxleModel::Rigid
    {
        return Err(FitError::Parameter(format!(
            "--free transverse_inertia: the fast-top axle ({}) does not use it (its precession \
             neglects the transverse momentum); set \"axle_model\": \"rigid\" in the --params \
             file's params, or leave transverse_inertia out",
            options.replay.axle.model.name()
        )));
    }
    Ok(())
}

impl Serialize for FreeParameter {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for FreeParameter {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Self::parse(&name).map_err(de::Error::custom)
    }
}

/// How a parameters file's values were fitted (`diabolo fit` writes it; a replay does not read
/// it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitRecord {
    /// The recordings' files, as they were given.
    pub recordings: Vec<String>,
    /// The parameters the fit moved.
    pub free: Vec<FreeParameter>,
    /// How the initial diabolo state of each start was estimated.
    pub initial_state: String,
    /// Mean position error over all starts and horizons before the fit, m.
    pub position_error_before: f64,
    /// Mean position error after the fit, m.
    pub position_error_after: f64,
    /// Mean spin error before the fit, rad/s.
    pub spin_error_before: f64,
    /// Mean spin error after the fit, rad/s.
    pub spin_error_after: f64,
}

/// A parameters file, as `diabolo fit -o` writes it and `diabolo replay --params` and
/// `diabolo fit --params` read it:
/// `{"params": {...}, "length_offset": m, "fit": {...}}`.
///
/// `params` is a scenario's `params` object without `string_length` (each recording's length
/// is estimated from it; `length_offset` is added to every estimate), and `friction_width` is
/// written only for the tanh law, the one that has it. For the recordings replayed in space it
/// may also hold the axle's values ([`AXLE_KEYS`]: `axle_radius` in m, `transverse_inertia` in
/// kg m^2, `axle_model` "fast_top" or "rigid", and as in a scenario `half_length` in m,
/// `cup_angle` in degrees, `string_offset` in m), written only when the file has them. Reading,
/// `params` is typed as a scenario's (the same defaults and messages), `length_offset` is 0
/// unless it is a number and `fit` is kept only when it is a whole [`FitRecord`].
#[derive(Clone, Debug, PartialEq)]
pub struct ParamsFile {
    /// The model parameters. Its `string_length` stands in for the estimates (a replay
    /// replaces it) and is not written.
    pub params: ParamsSpec,
    /// The axle's values for a replay in space (`None`: the file gives none; the defaults).
    pub axle: Option<AxleValues>,
    /// Added to every recording's estimated string length, m.
    pub length_offset: f64,
    /// How the values were fitted.
    pub fit: Option<FitRecord>,
}

/// The keys of a parameters file's `params` that hold the axle's values (for a replay in
/// space), not a scenario's.
pub const AXLE_KEYS: [&str; 6] = [
    "axle_radius",
    "transverse_inertia",
    "axle_model",
    "half_length",
    "cup_angle",
    "string_offset",
];

impl Serialize for ParamsFile {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut params = params_without_length(&self.params).map_err(ser::Error::custom)?;
        if let (Some(axle), Some(fields)) = (self.axle, params.as_object_mut()) {
            fields.insert("axle_radius".into(), axle.axle_radius.into());
            if let Some(inertia) = axle.transverse_inertia {
                fields.insert("transverse_inertia".into(), inertia.into());
            }
            fields.insert("axle_model".into(), axle.model.name().into());
            let defaults = AxleValues::default();
            if axle.half_length != defaults.half_length {
                fields.insert("half_length".into(), axle.half_length.into());
            }
            if axle.cup_angle != defaults.cup_angle {
                fields.insert("cup_angle".into(), axle.cup_angle.to_degrees().into());
            }
            if axle.string_offset != defaults.string_offset {
                fields.insert("string_offset".into(), axle.string_offset.into());
            }
        }
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("params", &params)?;
        map.serialize_entry("length_offset", &self.length_offset)?;
        if let Some(fit) = &self.fit {
            map.serialize_entry("fit", fit)?;
        }
        map.end()
    }
}

/// Takes the axle's keys ([`AXLE_KEYS`]) out of a `params` object: their values (the others at
/// their defaults), or `None` when it has none. A value of the wrong type is an error naming
/// the key, the value and what to give.
fn take_axle(params: &mut Value) -> Result<Option<AxleValues>, ParamsFileError> {
    let Some(fields) = params.as_object_mut() else {
        return Ok(None);
    };
    let taken: Vec<(&str, Value)> = AXLE_KEYS
        .iter()
        .filter_map(|key| fields.shift_remove(*key).map(|v| (*key, v)))
        .collect();
    if taken.is_empty() {
        return Ok(None);
    }
    let wrong = |key: &str, value: &Value, give: &str| {
        ParamsFileError::Axle(format!(
            "params.{key}: {} is not {give}",
            crate::display::echoed(&value.to_string()),
        ))
    };
    let mut axle = AxleValues::default();
    for (key, value) in taken {
        match key {
            "axle_radius" => {
                axle.axle_radius = value.as_f64().ok_or_else(|| {
                    wrong(
                        key,
                        &value,
                        "a number; give the axle's radius in m (the shipped diabolo's is 0.0065)",
                    )
                })?;
            }
            "half_length" | "cup_angle" | "string_offset" => {
                let number = value.as_f64().ok_or_else(|| {
                    wrong(
                        key,
                        &value,
                        "a number; give it as in a scenario's params (docs/interface.md)",
                    )
                })?;
                match key {
                    "half_length" => axle.half_length = number,
                    // Degrees in the file, as in a scenario.
                    "cup_angle" => axle.cup_angle = number.to_radians(),
                    _ => axle.string_offset = number,
                }
            }
            "transverse_inertia" => {
                axle.transverse_inertia = match &value {
                    Value::Null => None,
                    v => Some(v.as_f64().ok_or_else(|| {
                        wrong(key, &value, "a number; give the moment of inertia about a transverse axis in kg m^2, or leave it out for two rings at the cups")
                    })?),
                };
            }
            _ => {
                axle.model = match value.as_str() {
                    Some("fast_top") => AxleModel::FastTop,
                    Some("rigid") => AxleModel::Rigid,
                    _ => {
                        return Err(wrong(
                            key,
                            &value,
                            "an axle model; give \"fast_top\" (the default) or \"rigid\"",
                        ));
                    }
                };
            }
        }
    }
    Ok(Some(axle))
}

/// Why a parameters file cannot be read.
#[derive(Debug, Error)]
pub enum ParamsFileError {
    /// The file cannot be read.
    #[error("{0}")]
    Read(#[from] std::io::Error),
    /// Not JSON, or a `params` object that is not a scenario's.
    #[error("{0}")]
    Format(#[from] ScenarioError),
    /// The document has no `params`.
    #[error("no \"params\" object")]
    NoParams,
    /// An axle value of the wrong type (the message names the key, the value and the fix).
    #[error("{0}")]
    Axle(String),
}

impl ParamsFile {
    /// The fitted values of `report` (the fit of `options` on the recordings of the files
    /// `recordings`), with the record of the fit.
    pub fn fitted(report: &FitReport, options: &FitOptions, recordings: Vec<String>) -> Self {
        // The axle's values when the fit moved one or started from given ones.
        let axle = (options.free.iter().any(|p| p.in_space_only())
            || report.fitted.axle != AxleValues::default())
        .then_some(report.fitted.axle);
        Self {
            params: ParamsSpec::from(report.fitted.params),
            axle,
            length_offset: report.fitted.length_offset,
            fit: Some(FitRecord {
                recordings,
                free: options.free.clone(),
                initial_state: report.fitted.initial.to_string(),
                position_error_before: report.position_before,
                position_error_after: report.position_after,
                spin_error_before: report.spin_before,
                spin_error_after: report.spin_after,
            }),
        }
    }

    /// Reads the file at `path` (at most [`crate::input_limits::MAX_WHOLE_FILE_BYTES`]).
    pub fn read(path: &Path) -> Result<Self, ParamsFileError> {
        let file = std::io::BufReader::new(std::fs::File::open(path)?);
        Self::from_json(&read_text(file, Records::Whole)?)
    }

    /// Reads a file's text (strict JSON: a repeated key is an error).
    pub fn from_json(text: &str) -> Result<Self, ParamsFileError> {
        Self::from_value(strict_json(text)?)
    }

    /// Types a file's document.
    pub fn from_value(document: Value) -> Result<Self, ParamsFileError> {
        let mut params = document
            .get("params")
            .cloned()
            .ok_or(ParamsFileError::NoParams)?;
        let axle = take_axle(&mut params)?;
        if let Some(fields) = params.as_object_mut() {
            // The replay's own length stands in for the estimates, so the object types as a
            // scenario's `params`.
            let length = ReplayOptions::default().params.string_length;
            fields.entry("string_length").or_insert(length.into());
        }
        Ok(Self {
            params: ParamsSpec::from_value(&params)?,
            axle,
            length_offset: document
                .get("length_offset")
                .and_then(Value::as_f64)
                .unwrap_or_default(),
            fit: document
                .get("fit")
                .and_then(|record| FitRecord::deserialize(record).ok()),
        })
    }

    /// The file as written: pretty JSON (no final newline).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a parameters file is JSON")
    }

    /// The replay options with these parameters (the others at their defaults); parameters
    /// out of range, the axle's included, are an error naming the field, the value and the
    /// range.
    pub fn replay_options(&self) -> Result<ReplayOptions, ScenarioError> {
        let params = self.params.to_params()?;
        let axle = self.axle.unwrap_or_default();
        SpaceParams::new(params, axle).map_err(|e| ScenarioError::Invalid {
            path: format!("params.{}", e.field),
            value: crate::display::Compact(e.value).to_string(),
            reason: "out of range".into(),
            fix: format!("give {}", e.requirement),
        })?;
        Ok(ReplayOptions {
            params: *params.values(),
            length_offset: self.length_offset,
            axle,
            ..ReplayOptions::default()
        })
    }
}

impl<'de> Deserialize<'de> for ParamsFile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Self::from_value(Value::deserialize(deserializer)?).map_err(de::Error::custom)
    }
}

/// `params` without `string_length`, and without `friction_width` unless the law is tanh.
fn params_without_length(params: &ParamsSpec) -> Result<Value, serde_json::Error> {
    let mut fields = serde_json::to_value(params)?;
    if let Some(fields) = fields.as_object_mut() {
        fields.shift_remove("string_length");
        if params.friction_law != FrictionLawName::Tanh {
            fields.shift_remove("friction_width");
        }
    }
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{FrictionLaw, ParamValues};
    use approx::assert_ulps_eq;

    /// A file `diabolo fit` wrote before the file became [`ParamsFile`].
    const FITTED: &str = include_str!("../validation/omron_fitted.json");

    fn record() -> FitRecord {
        FitRecord {
            recordings: vec!["a.csv".into(), "b.csv".into()],
            free: FreeParameter::ALL.to_vec(),
            initial_state: "assimilated over the past 0.2 s".into(),
            position_error_before: 0.012,
            position_error_after: 0.011,
            spin_error_before: 1.9,
            spin_error_after: 0.7,
        }
    }

    #[test]
    fn a_file_written_before_reads_and_writes_back_the_same() {
        let file = ParamsFile::from_json(FITTED).unwrap();
        // serde_json reads some decimals 1 ulp off (without its float_roundtrip feature).
        assert_ulps_eq!(file.params.friction, 0.2746013926167509, max_ulps = 1);
        assert_ulps_eq!(file.params.spin_inertia, 47.27466380922124, max_ulps = 1);
        assert_ulps_eq!(file.params.spin_drag, 0.010026134618092333, max_ulps = 1);
        assert_eq!(file.params.friction_law, FrictionLawName::Step);
        assert_ulps_eq!(file.length_offset, -0.0014183694747043774, max_ulps = 1);
        let fit = file.fit.as_ref().unwrap();
        assert_eq!(fit.free, FreeParameter::ALL[..4]);
        assert_eq!(fit.recordings.len(), 5);
        assert_ulps_eq!(fit.spin_error_after, 0.7108112180723336, max_ulps = 1);
        // The same keys in the same order and the same numbers as the JSON of what was read.
        let document: Value = serde_json::from_str(FITTED).unwrap();
        let expected = serde_json::to_string_pretty(&document).unwrap();
        assert_eq!(file.to_json(), expected);
        assert_eq!(FITTED.len(), expected.len() + 1);
    }

    #[test]
    fn a_hand_written_file_takes_the_scenario_defaults() {
        let text = include_str!("../validation/reference_params.json");
        let file = ParamsFile::from_json(text).unwrap();
        assert_eq!(file.length_offset, 0.0);
        assert_eq!(file.fit, None);
        let options = file.replay_options().unwrap();
        let defaults = ReplayOptions::default();
        assert_eq!(
            options.params,
            ParamValues {
                friction: 0.25,
                spin_inertia: 50.0,
                spin_drag: 0.0,
                ..defaults.params
            }
        );
        assert_eq!(options.length_offset, 0.0);
        assert_eq!(options.horizons, defaults.horizons);
    }

    #[test]
    fn written_parameters_read_back_the_same() {
        for law in [
            FrictionLaw::Step,
            FrictionLaw::Tanh { width: 0.05 },
            FrictionLaw::Bearing,
        ] {
            let values = ParamValues {
                friction: 0.31,
                spin_inertia: 42.5,
                spin_drag: 0.0125,
                restitution: 0.3,
                friction_law: law,
                ..ParamValues::default()
            };
            let file = ParamsFile {
                params: ParamsSpec::from(values),
                axle: None,
                length_offset: 0.0031,
                fit: Some(record()),
            };
            let text = file.to_json();
            assert!(!text.contains("string_length\":"), "{text}");
            let tanh = matches!(law, FrictionLaw::Tanh { .. });
            assert_eq!(text.contains("friction_width"), tanh, "{text}");
            let read = ParamsFile::from_json(&text).unwrap();
            assert_eq!(read, file);
            assert_eq!(serde_json::from_str::<ParamsFile>(&text).unwrap(), file);
            let options = read.replay_options().unwrap();
            assert_eq!(options.params, values);
            assert_eq!(options.length_offset, 0.0031);
        }
    }

    #[test]
    fn a_fit_writes_its_fitted_values_and_its_record() {
        let mut fitted = ReplayOptions::default();
        fitted.params.friction = 0.22;
        fitted.length_offset = -0.002;
        let report = FitReport {
            fitted,
            objective_before: 0.02,
            objective_after: 0.01,
            position_before: 0.012,
            position_after: 0.011,
            spin_before: 1.9,
            spin_after: 0.7,
            tilt_before: f64::NAN,
            tilt_after: f64::NAN,
            evaluations: 30,
        };
        let options = FitOptions {
            replay: ReplayOptions::default(),
            free: FreeParameter::ALL.to_vec(),
            spin_weight: 1e-3,
            tilt_weight: DEFAULT_TILT_WEIGHT,
            max_iterations: 10,
        };
        let file = ParamsFile::fitted(&report, &options, record().recordings);
        assert_eq!(file.fit, Some(record()));
        let read = ParamsFile::from_json(&file.to_json()).unwrap();
        let options = read.replay_options().unwrap();
        for p in FreeParameter::ALL {
            assert_eq!(p.value(&options), p.value(&report.fitted), "{}", p.name());
        }
    }

    #[test]
    fn unreadable_files_say_why() {
        let message = |text: &str| ParamsFile::from_json(text).unwrap_err().to_string();
        assert_eq!(message(r#"{"length_offset": 0}"#), r#"no "params" object"#);
        assert!(message(r#"{"params": {"frictio": 0.2}}"#).contains("params"));
        assert!(message(r#"{"params": {"friction": 0.2, "friction": 0.3}}"#)
            .contains("params.friction: the key appears twice"));
        let out_of_range = ParamsFile::from_json(r#"{"params": {"friction": 999}}"#).unwrap();
        let error = out_of_range.replay_options().unwrap_err().to_string();
        assert!(error.contains("params.friction"), "{error}");
    }

    #[test]
    fn free_parameters_read_their_names() {
        for p in FreeParameter::ALL {
            assert_eq!(FreeParameter::parse(&format!(" {} ", p.name())).unwrap(), p);
        }
        assert_eq!(
            FreeParameter::parse("mass").unwrap_err().to_string(),
            "--free mass: not a parameter fit can move; use friction, spin_inertia, spin_drag, \
             string_length, string_stiffness, string_damping, axle_radius, transverse_inertia"
        );
    }
}

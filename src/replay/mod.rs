//! Replay of motion-capture recordings (`diabolo replay`): for start times along a recording,
//! the measured diabolo (position, velocity from a smoothing differentiator, spin) is the
//! initial state, both sticks follow the recorded tip paths, and the simulated diabolo is
//! compared with the measured one at each prediction horizon. Two naive baselines are measured
//! alongside: the diabolo stays where it was, and the diabolo moves rigidly with the midpoint of
//! the hands.

use std::path::Path;

use nalgebra::Vector2;
use rayon::prelude::*;
use thiserror::Error;

mod estimate;

pub use estimate::InitialEstimate;
use estimate::{assimilate, past_cubic, smoothed_estimate};

use crate::display::{echoed, Compact};
use crate::input_limits::{read_failure, Records};
use crate::model::{taut_point_below, Body, CartesianState, DiaboloState, ParamValues, Params};
use crate::output::compress;
use crate::output::table::{csv_reader, csv_reason, interpolate, locate, CsvLine};
use crate::simulation::drive::{Drive, Path as HandPath, SampledPath};
use crate::simulation::run::{Settings, Simulation};
use crate::simulation::DiaboloMode;

/// The columns of a recording, in order.
pub const RECORDING_COLUMNS: [&str; 8] = [
    "t", "left_x", "left_y", "right_x", "right_y", "dia_x", "dia_y", "spin",
];
/// The most starts of one replay: each start is a simulation (about 30 ms), so 20,000 are
/// about 5 minutes on two cores; a stride below the frame interval is refused before this.
pub const MAX_STARTS: usize = 20_000;
/// The most prediction horizons of one replay (each is a column of the report).
pub const MAX_HORIZONS: usize = 100;

/// Axle radius r of the recorded diabolo, m: the model's spin w = -r * (recorded rad/s).
pub const AXLE_RADIUS: f64 = 0.0065;

/// A planar recording: stick tips, diabolo centre (m) and spin (rad/s, counter-clockwise > 0).
#[derive(Clone, Debug, PartialEq)]
pub struct Recording {
    /// The recording's name (its file name without the extension).
    pub name: String,
    /// t: time of each frame, s (increasing).
    pub t: Vec<f64>,
    /// Left stick tip of each frame, m.
    pub left: Vec<Vector2<f64>>,
    /// Right stick tip of each frame, m.
    pub right: Vec<Vector2<f64>>,
    /// Diabolo centre of each frame, m.
    pub dia: Vec<Vector2<f64>>,
    /// Diabolo spin of each frame, rad/s (counter-clockwise > 0).
    pub spin: Vec<f64>,
}

/// A recording that cannot be read, or replay options that do not fit it.
#[derive(Debug, Error)]
pub enum ReplayError {
    /// A recording (or a folder of them) that cannot be read or parsed.
    #[error("{file}: {reason}")]
    Recording {
        /// The file or folder, as named in messages.
        file: String,
        /// What is wrong, with the line and column when there are.
        reason: String,
    },
    /// An option or parameter that does not fit the recording or is out of range.
    #[error("{what}: {reason}")]
    Options {
        /// The option or parameter (e.g. `--horizons`, `params.string_length`).
        what: String,
        /// What is wrong with it, and what to give instead.
        reason: String,
    },
}

impl ReplayError {
    /// The error as one of the recording `name`'s (options errors name it; a recording's
    /// error already does).
    pub fn in_recording(self, name: &str) -> Self {
        match self {
            Self::Options { what, reason } => Self::Recording {
                file: name.to_string(),
                reason: format!("{what}: {reason}"),
            },
            recording => recording,
        }
    }
}

impl Recording {
    /// Reads a recording file, gzip-compressed or not (see [`Recording::parse`]); its name is
    /// the file stem (`.gz` removed first).
    pub fn read(path: &Path) -> Result<Self, ReplayError> {
        let file = path.display().to_string();
        let text =
            compress::read_to_string(path, Records::Csv).map_err(|e| ReplayError::Recording {
                file: file.clone(),
                reason: read_failure(&e),
            })?;
        let name = compress::content_name(path)
            .file_stem()
            .map_or(file.clone(), |s| s.to_string_lossy().to_string());
        Self::parse(&name, &text).map_err(|reason| ReplayError::Recording { file, reason })
    }

    /// The recording at `path`, or every recording of the folder at `path`
    /// ([`Recording::read_dir`]); a folder without one is an error naming it.
    pub fn read_path(path: &Path) -> Result<Vec<Self>, ReplayError> {
        if !path.is_dir() {
            return Ok(vec![Self::read(path)?]);
        }
        let recordings = Self::read_dir(path)?;
        if recordings.is_empty() {
            return Err(ReplayError::Recording {
                file: path.display().to_string(),
                reason: "the folder holds no recording (*.csv or *.csv.gz)".into(),
            });
        }
        Ok(recordings)
    }

    /// Every `*.csv` (or `*.csv.gz`) recording in `dir`, sorted by name.
    pub fn read_dir(dir: &Path) -> Result<Vec<Self>, ReplayError> {
        let failure = |e: std::io::Error| ReplayError::Recording {
            file: dir.display().to_string(),
            reason: format!("cannot list: {e}"),
        };
        let mut paths = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(failure)? {
            let path = entry.map_err(failure)?.path();
            let content = compress::content_name(&path);
            if content.extension().is_some_and(|e| e == "csv") {
                paths.push(path);
            }
        }
        paths.sort();
        paths.iter().map(|p| Self::read(p)).collect()
    }

    /// Columns t,left_x,left_y,right_x,right_y,dia_x,dia_y,spin; `#` lines are comments. A
    /// cell that is not a finite number is an error naming its line and column. Read through
    /// the one CSV reader of [`crate::output::table`].
    pub fn parse(name: &str, text: &str) -> Result<Self, String> {
        let mut rec = Self {
            name: name.to_string(),
            t: Vec::new(),
            left: Vec::new(),
            right: Vec::new(),
            dia: Vec::new(),
            spin: Vec::new(),
        };
        let mut csv = csv_reader(text.as_bytes());
        let mut record = csv::StringRecord::new();
        let mut header_seen = false;
        let mut v = [0.0; 8];
        loop {
            let line_number = csv.position().line() + 1;
            let more = csv
                .read_record(&mut record)
                .map_err(|e| format!("line {line_number}: {}", csv_reason(&e)))?;
            if !more {
                break;
            }
            let line_number = record.position().map_or(line_number, |p| p.line());
            let blank = record.len() == 1 && record[0].is_empty();
            if blank || record[0].starts_with('#') {
                continue;
            }
            if !header_seen {
                header_seen = true;
                if record.iter().ne(RECORDING_COLUMNS) {
                    return Err(format!(
                        "line {line_number}: expected the header {}",
                        RECORDING_COLUMNS.join(",")
                    ));
                }
                continue;
            }
            if record.len() != RECORDING_COLUMNS.len() {
                return Err(format!(
                    "line {line_number} has {} fields, the header {}",
                    record.len(),
                    RECORDING_COLUMNS.len()
                ));
            }
            for ((value, field), column) in v.iter_mut().zip(&record).zip(RECORDING_COLUMNS) {
                *value = field
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| {
                        format!(
                            "line {line_number}, column {column}: `{}` is not a finite number",
                            echoed(field)
                        )
                    })?;
            }
            if let Some(&last) = rec.t.last() {
                if v[0] <= last {
                    return Err(format!(
                        "line {line_number}: t = {} does not increase (the frame before has t = \
                         {}); frames must be in time order",
                        Compact(v[0]),
                        Compact(last)
                    ));
                }
            }
            rec.t.push(v[0]);
            rec.left.push(Vector2::new(v[1], v[2]));
            rec.right.push(Vector2::new(v[3], v[4]));
            rec.dia.push(Vector2::new(v[5], v[6]));
            rec.spin.push(v[7]);
        }
        if rec.t.len() < 8 {
            return Err("fewer than 8 frames".into());
        }
        Ok(rec)
    }

    /// The mean time between frames, s.
    pub fn frame_interval(&self) -> f64 {
        (self.t[self.t.len() - 1] - self.t[0]) / (self.t.len() - 1) as f64
    }

    /// |tipL - dia| + |tipR - dia| of every frame, m.
    pub fn string_sums(&self) -> Vec<f64> {
        (0..self.t.len()).map(|i| self.string_sum(i)).collect()
    }

    /// |tipL - dia| + |tipR - dia| of the frames where the diabolo is below the line from the
    /// left tip to the right one, where it can be on the string, m. (Above the line it has left
    /// the string: its sum measures the flight, not the string.)
    pub fn sums_below_the_tips(&self) -> Vec<f64> {
        (0..self.t.len())
            .filter(|&i| (self.right[i] - self.left[i]).perp(&(self.dia[i] - self.left[i])) < 0.0)
            .map(|i| self.string_sum(i))
            .collect()
    }

    fn string_sum(&self, i: usize) -> f64 {
        (self.left[i] - self.dia[i]).norm() + (self.right[i] - self.dia[i]).norm()
    }

    /// The farthest the recorded tips get apart, m: an inextensible string is at least this
    /// long.
    pub fn tips_span(&self) -> f64 {
        self.left
            .iter()
            .zip(&self.right)
            .map(|(l, r)| (r - l).norm())
            .fold(0.0, f64::max)
    }

    /// The recording's duration from its first frame to its last, s.
    pub fn duration(&self) -> f64 {
        self.t[self.t.len() - 1] - self.t[0]
    }

    /// The frames covering [t0 - margin, t1 + margin], shifted to start at t0.
    fn window(
        &self,
        series: &[Vector2<f64>],
        t0: f64,
        t1: f64,
        margin: f64,
    ) -> Vec<(f64, Vector2<f64>)> {
        self.t
            .iter()
            .zip(series)
            .filter(|(t, _)| **t >= t0 - margin && **t <= t1 + margin)
            .map(|(t, p)| (t - t0, *p))
            .collect()
    }

    /// The measured value of `series` (one of the recording's columns) at t, linear between
    /// frames (held at the ends).
    pub fn at(&self, series: &[Vector2<f64>], t: f64) -> Vector2<f64> {
        let (i, f) = locate(&self.t, t);
        if f == 0.0 {
            series[i]
        } else {
            series[i] + (series[i + 1] - series[i]) * f
        }
    }

    fn spin_at(&self, t: f64) -> f64 {
        interpolate(&self.t, &self.spin, t)
    }
}

/// How the effective string length of a recording is estimated. Both estimates read only the
/// frames with the diabolo below the line of the tips ([`Recording::sums_below_the_tips`]): a
/// flying diabolo above it has a sum that grows with its height.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LengthEstimate {
    /// The 98th percentile of the string sums.
    Percentile98,
    /// The median of the taut frames' sums (taut: within 2 cm of the 98th percentile).
    MedianTaut,
    /// A given length, m.
    Fixed(f64),
}

/// The effective string length of a recording from its sums, m (NaN when no frame has the
/// diabolo below the tips).
pub fn effective_length(rec: &Recording, estimate: LengthEstimate) -> f64 {
    let mut sums = rec.sums_below_the_tips();
    sums.sort_by(f64::total_cmp);
    let p98 = percentile(&sums, 0.98);
    match estimate {
        LengthEstimate::Percentile98 => p98,
        LengthEstimate::MedianTaut => {
            let taut: Vec<f64> = sums
                .iter()
                .copied()
                .filter(|s| (s - p98).abs() <= 0.02)
                .collect();
            percentile(&taut, 0.5)
        }
        LengthEstimate::Fixed(length) => length,
    }
}

/// The q-quantile of sorted values (linear between ranks).
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let x = q * (sorted.len() - 1) as f64;
    let (i, f) = (x.floor() as usize, x - x.floor());
    if i + 1 < sorted.len() {
        sorted[i] * (1.0 - f) + sorted[i + 1] * f
    } else {
        sorted[i]
    }
}

/// What to replay and how.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayOptions {
    /// Prediction horizons, s (multiples of 0.005 s).
    pub horizons: Vec<f64>,
    /// Time between starts, s.
    pub stride: f64,
    /// The physical parameters (the string length is replaced by the estimate).
    pub params: ParamValues,
    /// How the effective string length is estimated from the recording.
    pub length: LengthEstimate,
    /// Half-width of the smoothing window of the recorded hand paths, s.
    pub smoothing: f64,
    /// Half-width of the smoothing window of the measured diabolo (its initial position and
    /// velocity), s.
    pub diabolo_smoothing: f64,
    /// How the initial diabolo state is estimated from the frames up to the start.
    pub initial: InitialEstimate,
    /// rtol: relative tolerance of the integrator (dimensionless); atol is rtol x 1e-3.
    pub rtol: f64,
    /// A start whose string sum is within this of the length (m) is taken as taut: the sum's
    /// shortfall is marker noise and stretch, not slack.
    pub taut_band: f64,
    /// Added to the estimated string length, m (a fitted correction that carries over between
    /// recordings).
    pub length_offset: f64,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        Self {
            horizons: vec![0.2, 0.5, 1.0, 2.0],
            stride: 0.25,
            params: ParamValues::default(),
            length: LengthEstimate::MedianTaut,
            smoothing: 0.025,
            diabolo_smoothing: 0.1,
            initial: InitialEstimate::Assimilated { window: 0.2 },
            rtol: 1e-7,
            taut_band: 0.0,
            length_offset: 0.0,
        }
    }
}

/// Errors of one start at one horizon.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HorizonError {
    /// |p_sim - p_meas|, m.
    pub position: f64,
    /// |v_sim - v_meas|, m/s.
    pub velocity: f64,
    /// |spin_sim - spin_meas|, rad/s.
    pub spin: f64,
    /// Baseline: the diabolo stays put, m.
    pub stay: f64,
    /// Baseline: the diabolo moves rigidly with the hands' midpoint, m.
    pub midpoint: f64,
}

/// One start: its time and the errors at each horizon (`None`: beyond the recording or after a
/// run-time failure).
#[derive(Clone, Debug, PartialEq)]
pub struct StartResult {
    /// The start time in the recording, s.
    pub start: f64,
    /// The errors at each horizon, in the order of the options' horizons.
    pub errors: Vec<Option<HorizonError>>,
    /// Why horizons are missing, if a run failed.
    pub failure: Option<String>,
}

/// Statistics of one horizon over all starts.
#[derive(Clone, Debug, PartialEq)]
pub struct HorizonStats {
    /// The prediction horizon, s.
    pub horizon: f64,
    /// The number of starts with an error at this horizon.
    pub n: usize,
    /// Mean position error, m.
    pub mean: f64,
    /// Median position error, m.
    pub median: f64,
    /// 90th percentile of the position error, m.
    pub p90: f64,
    /// Mean velocity error, m/s.
    pub vel_mean: f64,
    /// Mean spin error, rad/s.
    pub spin_mean: f64,
    /// Mean error of the stays-put baseline, m.
    pub stay_mean: f64,
    /// Mean error of the hands'-midpoint baseline, m.
    pub midpoint_mean: f64,
    /// Starts whose run failed before this horizon.
    pub dropped: usize,
}

/// One figure of a horizon's statistics, as the reports print it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Figure {
    /// Its key in the JSON report.
    pub key: &'static str,
    /// Its heading in a table, with the unit.
    pub heading: &'static str,
    /// The figure's value, in the heading's unit.
    pub value: f64,
    /// Decimals it is printed with.
    pub decimals: usize,
}

impl HorizonStats {
    /// The error figures (after the horizon and the count), in report order.
    pub fn figures(&self) -> [Figure; 7] {
        let figure = |key, heading, value, decimals| Figure {
            key,
            heading,
            value,
            decimals,
        };
        [
            figure("mean", "mean (m)", self.mean, 4),
            figure("median", "median (m)", self.median, 4),
            figure("p90", "p90 (m)", self.p90, 4),
            figure("vel_mean", "velocity mean (m/s)", self.vel_mean, 3),
            figure("spin_mean", "spin mean (rad/s)", self.spin_mean, 2),
            figure("stay_mean", "baseline: stays put (m)", self.stay_mean, 3),
            figure(
                "midpoint_mean",
                "baseline: hands' midpoint (m)",
                self.midpoint_mean,
                3,
            ),
        ]
    }
}

/// The string length of a recording's replay and what it comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReplayLength {
    /// L: the length the replay uses, m.
    pub length: f64,
    /// The estimate from the taut frames' sums (or the given `--length`) plus the options'
    /// `length_offset`, m.
    pub taut: f64,
    /// The farthest the recorded tips get apart, m ([`Recording::tips_span`]).
    pub tips_span: f64,
}

/// The string length of a recording's replay: the estimate from its taut frames plus
/// `length_offset`, but no shorter than the tips' span when the string is inextensible and the
/// length is estimated (the recorded hands pull a real string longer than its hanging length,
/// as at a throw's launch; an inextensible string shorter than their span cannot be driven).
/// A given `--length` and a compliant string are used as they are.
pub fn replay_length(
    rec: &Recording,
    options: &ReplayOptions,
) -> Result<ReplayLength, ReplayError> {
    let taut = effective_length(rec, options.length) + options.length_offset;
    if !taut.is_finite() {
        return Err(ReplayError::Recording {
            file: rec.name.clone(),
            reason: "no frame has the diabolo below the line of the tips, so the string \
                     length cannot be estimated from taut frames; give --length METRES"
                .into(),
        });
    }
    let tips_span = rec.tips_span();
    let estimated = !matches!(options.length, LengthEstimate::Fixed(_));
    let inextensible = options.params.string_stiffness.is_none();
    let length = if estimated && inextensible {
        taut.max(tips_span)
    } else {
        taut
    };
    Ok(ReplayLength {
        length,
        taut,
        tips_span,
    })
}

/// The parameters of a recording's replay: the options' values with the string length of
/// [`replay_length`].
pub fn recording_params(rec: &Recording, options: &ReplayOptions) -> Result<Params, ReplayError> {
    Params::new(ParamValues {
        string_length: replay_length(rec, options)?.length,
        ..options.params
    })
    .map_err(|e| ReplayError::Options {
        what: format!("params.{}", e.field),
        reason: format!("{} ({})", e.requirement, e.value),
    })
}

/// The time from a recording's first frame to its first start, s: room for the smoothing
/// windows and the assimilation window (the same starts for any window up to 0.1 s).
fn first_start(options: &ReplayOptions) -> f64 {
    (2.5 * options.smoothing.max(options.diabolo_smoothing))
        .max(0.25)
        .max(options.initial.lead())
}

/// The longest horizon a recording holds: from its first start to its last frame, s.
pub fn longest_horizon(rec: &Recording, options: &ReplayOptions) -> f64 {
    rec.duration() - first_start(options)
}

/// A recording's share of the options' horizons.
#[derive(Clone, Debug, PartialEq)]
pub struct HeldHorizons {
    /// The options with only the horizons the recording holds (possibly none).
    pub options: ReplayOptions,
    /// The horizons left out: longer than [`longest_horizon`], s.
    pub left_out: Vec<f64>,
    /// The recording's [`longest_horizon`], s.
    pub longest: f64,
}

impl HeldHorizons {
    /// The horizons of `options` that `rec` holds, and those it leaves out.
    pub fn of(rec: &Recording, options: &ReplayOptions) -> Self {
        let longest = longest_horizon(rec, options);
        let (held, left_out) = options.horizons.iter().partition(|&&h| h <= longest + 1e-9);
        Self {
            options: ReplayOptions {
                horizons: held,
                ..options.clone()
            },
            left_out,
            longest,
        }
    }
}

/// Each recording's share of the horizons ([`HeldHorizons::of`]). Horizons that are not
/// positive multiples of 0.005 s are an error; so is a horizon that no recording holds when
/// the horizons were `given`, and (the defaults) no horizon held by any recording. The error
/// names the horizon and the recording that comes closest.
pub fn plan_horizons(
    recordings: &[Recording],
    options: &ReplayOptions,
    given: bool,
) -> Result<Vec<HeldHorizons>, ReplayError> {
    check_horizons(&options.horizons)?;
    let plans: Vec<HeldHorizons> = recordings
        .iter()
        .map(|rec| HeldHorizons::of(rec, options))
        .collect();
    let mut held_by_none = options
        .horizons
        .iter()
        .filter(|h| plans.iter().all(|p| p.left_out.contains(h)));
    let unheld = if given {
        held_by_none.next()
    } else {
        // The defaults: an error only when none is held, naming the shortest.
        let shortest = options.horizons.iter().min_by(|a, b| a.total_cmp(b));
        shortest.filter(|h| plans.iter().all(|p| p.left_out.contains(h)))
    };
    if let (Some(h), Some((rec, plan))) = (
        unheld,
        recordings
            .iter()
            .zip(&plans)
            .max_by(|a, b| a.1.longest.total_cmp(&b.1.longest)),
    ) {
        return Err(ReplayError::Options {
            what: "--horizons".into(),
            reason: too_long(*h, rec, plan.longest),
        });
    }
    Ok(plans)
}

/// Why horizon `h` is longer than the recording holds.
fn too_long(h: f64, rec: &Recording, longest: f64) -> String {
    format!(
        "{} s is longer than the recording {} holds ({} s long, its first start {} s in: at \
         most {} s); give shorter horizons",
        Compact(h),
        rec.name,
        Compact(rec.duration()),
        Compact(rec.duration() - longest),
        Compact(longest)
    )
}

/// Horizons: 1 to [`MAX_HORIZONS`], positive, finite multiples of 0.005 s.
fn check_horizons(horizons: &[f64]) -> Result<(), ReplayError> {
    let bad = |reason: String| ReplayError::Options {
        what: "--horizons".into(),
        reason,
    };
    if horizons.is_empty() || horizons.iter().any(|h| !(h.is_finite() && *h > 0.0)) {
        return Err(bad("give positive horizons in s, e.g. 0.2,0.5,1,2".into()));
    }
    if horizons.len() > MAX_HORIZONS {
        return Err(bad(format!(
            "{} horizons: give at most {MAX_HORIZONS}",
            horizons.len()
        )));
    }
    if horizons
        .iter()
        .any(|h| ((h / 0.005).round() * 0.005 - h).abs() > 1e-9)
    {
        return Err(bad("horizons must be multiples of 0.005 s".into()));
    }
    Ok(())
}

/// Replays every start of the recording (in parallel; results in start order).
pub fn replay(rec: &Recording, options: &ReplayOptions) -> Result<Vec<StartResult>, ReplayError> {
    replay_with_progress(rec, options, &|_, _| {})
}

/// [`replay`], calling `progress(done, starts)` as each start is replayed (from any thread).
pub fn replay_with_progress(
    rec: &Recording,
    options: &ReplayOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Vec<StartResult>, ReplayError> {
    let bad = |what: &str, reason: &str| ReplayError::Options {
        what: what.into(),
        reason: reason.into(),
    };
    check_horizons(&options.horizons)?;
    let (first, last) = (rec.t[0], rec.t[rec.t.len() - 1]);
    let longest = longest_horizon(rec, options);
    if let Some(h) = options.horizons.iter().find(|&&h| h > longest + 1e-9) {
        return Err(bad("--horizons", &too_long(*h, rec, longest)));
    }
    if !(options.stride.is_finite() && options.stride > 0.0) {
        return Err(bad("--stride", "give a positive time between starts, s"));
    }
    let frame = rec.frame_interval();
    if options.stride < frame * (1.0 - 1e-9) {
        return Err(bad(
            "--stride",
            &format!(
                "{} s is shorter than the recording's frame interval ({} s): starts between \
                 frames add no information; give a stride of at least {}",
                Compact(options.stride),
                Compact(frame),
                Compact(frame)
            ),
        ));
    }
    let params = recording_params(rec, options)?;
    let margin = first_start(options);
    let shortest = options
        .horizons
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min);
    let count = ((last - shortest - first - margin) / options.stride).floor() + 1.0;
    if count > MAX_STARTS as f64 {
        return Err(bad(
            "--stride",
            &format!(
                "{} s gives {} starts, more than the {MAX_STARTS} a replay may have (each is a \
                 simulation); give a stride of at least {} s",
                Compact(options.stride),
                Compact(count),
                Compact((last - shortest - first - margin) / (MAX_STARTS - 1) as f64)
            ),
        ));
    }
    let starts: Vec<f64> = (0..)
        .map(|k| first + margin + k as f64 * options.stride)
        .take_while(|s| s + shortest <= last + 1e-9)
        .collect();
    let done = std::sync::atomic::AtomicUsize::new(0);
    Ok(starts
        .par_iter()
        .map(|&start| {
            let result = replay_start(rec, options, &params, start);
            let done = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress(done, starts.len());
            result
        })
        .collect())
}

/// The simulation of one start (see [`start_simulation`]).
pub struct StartRun {
    /// Runs from `start - lead` (recording time) for `lead + duration` seconds.
    pub simulation: Simulation,
    /// The smoothed paths (left tip, right tip, diabolo), time 0 at `start - lead`.
    pub paths: [SampledPath; 3],
    /// How long before the start the simulation begins, s: 0, or the assimilation window
    /// (see [`InitialEstimate::Assimilated`]).
    pub lead: f64,
    /// The measured diabolo position at the start by the smoothing differentiator (past cubic,
    /// or centred window): where the baselines start from, m.
    pub measured: Vector2<f64>,
}

/// The simulation of one start: the measured diabolo at `start` (smoothed position and
/// velocity, spin) on the string of the recording's effective length, both sticks on their
/// recorded paths, for `duration` seconds after the start. With an assimilation window W the
/// simulation begins at `start - W` from the state whose simulated motion best matches the
/// frames of [start - W, start] (see [`InitialEstimate::Assimilated`]).
pub fn start_simulation(
    rec: &Recording,
    options: &ReplayOptions,
    params: &Params,
    start: f64,
    duration: f64,
) -> Result<StartRun, String> {
    let lead = options.initial.lead();
    let from = start - lead;
    let paths = recorded_paths(rec, options, from, lead + duration)?;
    let at_start = smoothed_estimate(rec, options, paths[2].at(lead), start);
    let first = if lead > 0.0 {
        past_cubic(rec, start, lead, -lead).unwrap_or_else(|| paths[2].at(0.0))
    } else {
        at_start
    };
    let guess = DiaboloState {
        pos: first.pos,
        vel: first.vel,
        spin: -AXLE_RADIUS * rec.spin_at(from),
        knot: 0,
    };
    let build = |d: &DiaboloState, until: f64| simulation_from(options, params, &paths, d, until);
    let initial = if lead > 0.0 {
        assimilate(rec, from, lead, guess, &build)
    } else {
        guess
    };
    let simulation = build(&initial, lead + duration)?;
    Ok(StartRun {
        simulation,
        paths,
        lead,
        measured: at_start.pos,
    })
}

/// The smoothed recorded paths (left tip, right tip, diabolo) from `from` for `duration` s,
/// time 0 at `from`.
fn recorded_paths(
    rec: &Recording,
    options: &ReplayOptions,
    from: f64,
    duration: f64,
) -> Result<[SampledPath; 3], String> {
    let margin = (4.0 * options.smoothing.max(options.diabolo_smoothing)).max(0.1);
    let path = |series: &[Vector2<f64>], half_window: f64| {
        SampledPath::new(
            rec.window(series, from, from + duration, margin),
            half_window,
        )
        .map_err(|e| format!("too few frames around the start: {e}"))
    };
    Ok([
        path(&rec.left, options.smoothing)?,
        path(&rec.right, options.smoothing)?,
        path(&rec.dia, options.diabolo_smoothing)?,
    ])
}

/// A simulation of `duration` s from the paths' time 0 with the diabolo in state `diabolo` (put
/// on the string if it is beyond its reach) and the sticks on their paths.
fn simulation_from(
    options: &ReplayOptions,
    params: &Params,
    paths: &[SampledPath; 3],
    diabolo: &DiaboloState,
    duration: f64,
) -> Result<Simulation, String> {
    let [left, right, _] = paths;
    let body = |p: &SampledPath| {
        let q = p.at(0.0);
        Body {
            pos: q.pos,
            vel: q.vel,
        }
    };
    let mut state = CartesianState {
        left: body(left),
        right: body(right),
        diabolos: vec![*diabolo],
    };
    // A diabolo above the line of the tips has left the string: it starts flying. (On the
    // string it hangs on the right of the line from the left tip to the right one.)
    let chord = state.right.pos - state.left.pos;
    let flying = chord.perp(&(diabolo.pos - state.left.pos)) > 0.0;
    // A start beyond the inextensible string's reach (noise, stretch), or within `taut_band` of
    // it, is put on the string: moved along y. A compliant string starts as it was measured,
    // stretched or not.
    let compliant = params.string_stiffness.is_some();
    if !flying && !compliant && state.string_used() > params.string_length - options.taut_band {
        // The point of the taut string below the tips at the same x (if there is one: else the
        // run reports the sticks too far apart).
        let d = &mut state.diabolos[0];
        if let Ok(p) = taut_point_below(
            state.left.pos,
            state.right.pos,
            d.pos.x,
            params.string_length,
        ) {
            d.pos = p;
        }
    }
    let drives = [
        Drive::Path(HandPath::Samples(left.clone())),
        Drive::Path(HandPath::Samples(right.clone())),
    ];
    let settings = Settings {
        duration,
        output_interval: 0.005,
        rtol: options.rtol,
        atol: options.rtol * 1e-3,
        ..Settings::default()
    };
    let mode = if flying {
        DiaboloMode::Flying
    } else {
        DiaboloMode::String
    };
    Simulation::with_modes(*params, drives, state, vec![mode], settings).map_err(|e| e.to_string())
}

fn replay_start(
    rec: &Recording,
    options: &ReplayOptions,
    params: &Params,
    start: f64,
) -> StartResult {
    let last = rec.t[rec.t.len() - 1];
    let longest = options
        .horizons
        .iter()
        .copied()
        .filter(|h| start + h <= last + 1e-9)
        .fold(0.0, f64::max);
    let mut result = StartResult {
        start,
        errors: vec![None; options.horizons.len()],
        failure: None,
    };
    let StartRun {
        simulation,
        paths: [left, right, dia],
        lead,
        measured,
    } = match start_simulation(rec, options, params, start, longest) {
        Ok(s) => s,
        Err(e) => {
            result.failure = Some(e);
            return result;
        }
    };
    let hands = (left, right);
    let mut rows = Vec::with_capacity(options.horizons.len());
    let report = simulation.run(&mut |row| {
        if options
            .horizons
            .iter()
            .any(|h| (row.t - lead - h).abs() < 1e-9)
        {
            rows.push((row.t - lead, row.state.diabolos[0]));
        }
    });
    result.failure = report.failure.map(|f| f.to_string());
    let midpoint = |p: &SampledPath, q: &SampledPath, t: f64| 0.5 * (p.at(t).pos + q.at(t).pos);
    let start_mid = midpoint(&hands.0, &hands.1, lead);
    for (k, h) in options.horizons.iter().enumerate() {
        if start + h > last + 1e-9 {
            continue;
        }
        let Some((_, sim)) = rows.iter().find(|(t, _)| (t - h).abs() < 1e-9) else {
            continue;
        };
        let truth = rec.at(&rec.dia, start + h);
        let truth_vel = dia.at(lead + h).vel;
        result.errors[k] = Some(HorizonError {
            position: (sim.pos - truth).norm(),
            velocity: (sim.vel - truth_vel).norm(),
            spin: (-sim.spin / AXLE_RADIUS - rec.spin_at(start + h)).abs(),
            stay: (measured - truth).norm(),
            midpoint: (measured + (midpoint(&hands.0, &hands.1, lead + h) - start_mid) - truth)
                .norm(),
        });
    }
    result
}

/// Per-horizon statistics of the results.
pub fn statistics(results: &[StartResult], horizons: &[f64]) -> Vec<HorizonStats> {
    horizons
        .iter()
        .enumerate()
        .map(|(k, &horizon)| {
            let errors: Vec<HorizonError> = results.iter().filter_map(|r| r.errors[k]).collect();
            let dropped = results
                .iter()
                .filter(|r| r.errors[k].is_none() && r.failure.is_some())
                .count();
            let mut positions: Vec<f64> = errors.iter().map(|e| e.position).collect();
            positions.sort_by(f64::total_cmp);
            let mean = |f: fn(&HorizonError) -> f64| {
                if errors.is_empty() {
                    f64::NAN
                } else {
                    errors.iter().map(f).sum::<f64>() / errors.len() as f64
                }
            };
            HorizonStats {
                horizon,
                n: errors.len(),
                mean: mean(|e| e.position),
                median: percentile(&positions, 0.5),
                p90: percentile(&positions, 0.9),
                vel_mean: mean(|e| e.velocity),
                spin_mean: mean(|e| e.spin),
                stay_mean: mean(|e| e.stay),
                midpoint_mean: mean(|e| e.midpoint),
                dropped,
            }
        })
        .collect()
}

/// The columns of the per-start errors CSV (`diabolo replay -o`).
pub const START_ERROR_COLUMNS: [&str; 8] = [
    "start",
    "horizon",
    "position_error",
    "velocity_error",
    "spin_error",
    "stay_error",
    "midpoint_error",
    "failure",
];

/// One recording's replay, as [`write_start_errors`] writes it.
#[derive(Clone, Copy, Debug)]
pub struct RecordingErrors<'a> {
    /// The recording's name.
    pub name: &'a str,
    /// Its starts.
    pub results: &'a [StartResult],
    /// The horizons of its results, s.
    pub horizons: &'a [f64],
}

/// Writes the per-start errors CSV: one line per start and horizon, the errors empty where the
/// horizon is missing, the run's failure (commas as `;`) last. With `named` (the replay of a
/// folder) a first column `recording` names each line's recording.
pub fn write_start_errors(
    out: &mut dyn std::io::Write,
    replays: &[RecordingErrors],
    named: bool,
) -> std::io::Result<()> {
    let mut line = CsvLine::with_capacity(256);
    if named {
        line.text("recording");
    }
    line.texts(START_ERROR_COLUMNS).end(out)?;
    for replay in replays {
        for r in replay.results {
            let failure = r.failure.as_deref().unwrap_or("").replace(',', ";");
            for (&h, e) in replay.horizons.iter().zip(&r.errors) {
                if named {
                    line.text(replay.name);
                }
                line.number(r.start).number(h);
                match e {
                    Some(e) => {
                        for v in [e.position, e.velocity, e.spin, e.stay, e.midpoint] {
                            line.number(v);
                        }
                    }
                    None => {
                        for _ in 0..5 {
                            line.plain("");
                        }
                    }
                }
                line.text(&failure).end(out)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_start_errors_are_written_one_line_per_start_and_horizon() {
        let error = HorizonError {
            position: 0.1,
            velocity: 1e-7,
            spin: 2.5,
            stay: 0.0,
            midpoint: f64::NAN,
        };
        let results = [
            StartResult {
                start: 0.25,
                errors: vec![Some(error), None],
                failure: None,
            },
            StartResult {
                start: 0.5,
                errors: vec![None, None],
                failure: Some("t = 1 s: stopped, the sticks are too far apart".into()),
            },
        ];
        let mut out = Vec::new();
        let replays = [RecordingErrors {
            name: "still",
            results: &results,
            horizons: &[0.2, 1.0],
        }];
        write_start_errors(&mut out, &replays, false).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "start,horizon,position_error,velocity_error,spin_error,stay_error,midpoint_error,\
             failure\n\
             0.25,0.2,0.1,1e-7,2.5,0.0,NaN,\n\
             0.25,1.0,,,,,,\n\
             0.5,0.2,,,,,,t = 1 s: stopped; the sticks are too far apart\n\
             0.5,1.0,,,,,,t = 1 s: stopped; the sticks are too far apart\n"
        );
    }
}

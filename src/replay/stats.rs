//! The errors of the starts: per-horizon statistics, and the per-start errors CSV.

use crate::output::table::CsvLine;

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
    /// The third dimension, for a replay by the model in space (`None` for a planar replay;
    /// the errors above are then in x-y, else in 3D).
    pub space: Option<SpaceErrors>,
}

/// The errors of one start at one horizon in the third dimension (a replay in space), with the
/// "stays as it is" forecasts of the same quantities.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpaceErrors {
    /// |z_sim - z_meas| of the centre, m: the error of its distance from the plane.
    pub oop: f64,
    /// |tilt_sim - tilt_meas| of the axle (the recorded one smoothed), degrees.
    pub tilt: f64,
    /// |turn_sim - turn_meas| of the axle (a line's turn, modulo 180), degrees.
    pub turn: f64,
    /// Baseline: the centre keeps its distance from the plane, m.
    pub stay_oop: f64,
    /// Baseline: the axle keeps its tilt, degrees.
    pub stay_tilt: f64,
    /// Baseline: the axle keeps its turn, degrees.
    pub stay_turn: f64,
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
    /// Whether the start was replayed by the model in space (its errors have
    /// [`HorizonError::space`]).
    pub space: bool,
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
    /// The means of the third dimension, for a replay by the model in space (`None` for a
    /// planar replay).
    pub space: Option<SpaceStats>,
}

/// The means of one horizon's errors in the third dimension over all starts (a replay in
/// space), and those of the "stays as it is" forecasts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpaceStats {
    /// Mean |z error| of the centre, m.
    pub oop_mean: f64,
    /// Mean |tilt error| of the axle, degrees.
    pub tilt_mean: f64,
    /// Mean |turn error| of the axle, degrees.
    pub turn_mean: f64,
    /// The centre keeps its distance from the plane: mean |z error|, m.
    pub stay_oop_mean: f64,
    /// The axle keeps its tilt: mean |tilt error|, degrees.
    pub stay_tilt_mean: f64,
    /// The axle keeps its turn: mean |turn error|, degrees.
    pub stay_turn_mean: f64,
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

    /// The figures of the third dimension (after [`HorizonStats::figures`]; none for a planar
    /// replay), in report order.
    pub fn space_figures(&self) -> Vec<Figure> {
        let Some(s) = self.space else {
            return Vec::new();
        };
        let figure = |key, heading, value, decimals| Figure {
            key,
            heading,
            value,
            decimals,
        };
        vec![
            figure("oop_mean", "out of plane (m)", s.oop_mean, 4),
            figure("tilt_mean", "tilt (deg)", s.tilt_mean, 2),
            figure("turn_mean", "turn (deg)", s.turn_mean, 2),
            figure(
                "stay_oop_mean",
                "baseline: oop stays (m)",
                s.stay_oop_mean,
                4,
            ),
            figure(
                "stay_tilt_mean",
                "baseline: tilt stays (deg)",
                s.stay_tilt_mean,
                2,
            ),
            figure(
                "stay_turn_mean",
                "baseline: turn stays (deg)",
                s.stay_turn_mean,
                2,
            ),
        ]
    }

    /// Every figure: [`HorizonStats::figures`], then [`HorizonStats::space_figures`].
    pub fn all_figures(&self) -> Vec<Figure> {
        let mut all = self.figures().to_vec();
        all.extend(self.space_figures());
        all
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
            let in_space = results.iter().any(|r| r.space);
            let space_mean = |f: fn(&SpaceErrors) -> f64| {
                let values: Vec<f64> = errors
                    .iter()
                    .filter_map(|e| e.space.as_ref().map(f))
                    .collect();
                if values.is_empty() {
                    f64::NAN
                } else {
                    values.iter().sum::<f64>() / values.len() as f64
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
                space: in_space.then(|| SpaceStats {
                    oop_mean: space_mean(|s| s.oop),
                    tilt_mean: space_mean(|s| s.tilt),
                    turn_mean: space_mean(|s| s.turn),
                    stay_oop_mean: space_mean(|s| s.stay_oop),
                    stay_tilt_mean: space_mean(|s| s.stay_tilt),
                    stay_turn_mean: space_mean(|s| s.stay_turn),
                }),
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

/// The columns the per-start errors CSV adds before `failure` when a recording was replayed in
/// space (empty for the planar recordings of the same file).
pub const SPACE_ERROR_COLUMNS: [&str; 6] = [
    "oop_error",
    "tilt_error",
    "turn_error",
    "stay_oop_error",
    "stay_tilt_error",
    "stay_turn_error",
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
/// folder) a first column `recording` names each line's recording. When a recording was
/// replayed in space, the [`SPACE_ERROR_COLUMNS`] come before `failure`.
pub fn write_start_errors(
    out: &mut dyn std::io::Write,
    replays: &[RecordingErrors],
    named: bool,
) -> std::io::Result<()> {
    let mut line = CsvLine::with_capacity(256);
    if named {
        line.text("recording");
    }
    let in_space = replays.iter().any(|r| r.results.iter().any(|s| s.space));
    let (columns, failure_column) = START_ERROR_COLUMNS.split_at(START_ERROR_COLUMNS.len() - 1);
    line.texts(columns.iter().copied());
    if in_space {
        line.texts(SPACE_ERROR_COLUMNS);
    }
    line.texts(failure_column.iter().copied()).end(out)?;
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
                if in_space {
                    match e.and_then(|e| e.space) {
                        Some(s) => {
                            for v in [s.oop, s.tilt, s.turn, s.stay_oop, s.stay_tilt, s.stay_turn] {
                                line.number(v);
                            }
                        }
                        None => {
                            for _ in 0..SPACE_ERROR_COLUMNS.len() {
                                line.plain("");
                            }
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
            space: None,
        };
        let results = [
            StartResult {
                start: 0.25,
                errors: vec![Some(error), None],
                failure: None,
                space: false,
            },
            StartResult {
                start: 0.5,
                errors: vec![None, None],
                failure: Some("t = 1 s: stopped, the sticks are too far apart".into()),
                space: false,
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

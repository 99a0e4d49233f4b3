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

//! `diabolo replay` and `diabolo fit`: the model against motion-capture recordings.

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use serde_json::{json, Value};

use super::args::{FitArgs, InitialArg, ReplayArgs, ReplaySettingsArgs};
use super::{create, input_error, say, write_file, CliError};
use diabolo::display::Compact;
use diabolo::fit::{FitError, FitOptions, FreeParameter, ParamsFile};
use diabolo::output::CountProgress;
use diabolo::replay::{
    effective_length, statistics, InitialEstimate, LengthEstimate, Recording, ReplayOptions,
    StartResult,
};

impl ReplaySettingsArgs {
    /// Checks the settings and writes them into `options`.
    fn apply(&self, options: &mut ReplayOptions) -> Result<(), CliError> {
        for (name, value, limit) in [
            ("--diabolo-smoothing", self.diabolo_smoothing, 0.5),
            ("--hand-smoothing", self.hand_smoothing, 0.5),
            ("--window", self.window, 1.0),
        ] {
            if !(value.is_finite() && value > 0.0 && value <= limit) {
                return Err(input_error(
                    name.into(),
                    format!("{value}: give a window in s, above 0 and at most {limit}"),
                ));
            }
        }
        options.diabolo_smoothing = self.diabolo_smoothing;
        options.smoothing = self.hand_smoothing;
        options.initial = match self.initial {
            InitialArg::Assimilate => InitialEstimate::Assimilated {
                window: self.window,
            },
            InitialArg::Cubic => InitialEstimate::PastCubic,
            InitialArg::Centred => InitialEstimate::Centred,
        };
        options.length = match self.length.as_str() {
            "median" => LengthEstimate::MedianTaut,
            "p98" => LengthEstimate::Percentile98,
            other => LengthEstimate::Fixed(
                other
                    .parse()
                    .ok()
                    .filter(|l: &f64| l.is_finite() && *l > 0.0)
                    .ok_or_else(|| {
                        input_error(
                            "--length".into(),
                            format!("{other:?}: give median, p98 or a length in m"),
                        )
                    })?,
            ),
        };
        Ok(())
    }
}

/// The replay options of a command: the `--params` file's parameters (else the defaults), the
/// horizons and stride, and the settings.
fn replay_options(
    params: Option<&Path>,
    horizons: &[f64],
    stride: f64,
    settings: &ReplaySettingsArgs,
) -> Result<ReplayOptions, CliError> {
    let mut options = match params {
        Some(path) => ParamsFile::read(path)
            .map_err(|e| input_error(path.display().to_string(), e.to_string()))?
            .replay_options()?,
        None => ReplayOptions::default(),
    };
    options.horizons = horizons.to_vec();
    options.stride = stride;
    settings.apply(&mut options)?;
    Ok(options)
}

/// The recording at `path`; an unreadable one is an input error naming it.
fn read_recording(path: &std::path::Path) -> Result<Recording, CliError> {
    Recording::read(path).map_err(|e| input_error(path.display().to_string(), e.to_string()))
}

/// Replays the recording from starts along it: the errors per horizon as a table (or one JSON
/// object), the per-start errors to `-o`.
pub fn replay(args: &ReplayArgs) -> Result<(), CliError> {
    let rec = read_recording(&args.recording)?;
    let options = replay_options(
        args.params.as_deref(),
        &args.horizons,
        args.stride,
        &args.settings,
    )?;
    let file = args.output.as_deref().map(create).transpose()?;
    let progress = Mutex::new(CountProgress::new("starts", args.progress.quiet));
    let replayed = diabolo::replay::replay_with_progress(&rec, &options, &|done, all| {
        if let Ok(mut progress) = progress.lock() {
            progress.reached(done as u64, Some(all as u64), "");
        }
    });
    if let Ok(mut progress) = progress.lock() {
        progress.finish();
    }
    let results =
        replayed.map_err(|e| input_error(args.recording.display().to_string(), e.to_string()))?;
    if args.json {
        say_json(&rec, &options, &results)?;
    } else {
        say_table(&rec, &options, &results)?;
    }
    if let Some(file) = file {
        write_file(file, |f| {
            diabolo::replay::write_start_errors(f, &results, &options.horizons)
        })?;
    }
    Ok(())
}

/// The starts whose run failed: (start time s, why).
fn dropped(results: &[StartResult]) -> Vec<(f64, &str)> {
    results
        .iter()
        .filter_map(|r| r.failure.as_deref().map(|f| (r.start, f)))
        .collect()
}

/// The replay's figures as one JSON object.
fn say_json(
    rec: &Recording,
    options: &ReplayOptions,
    results: &[StartResult],
) -> Result<(), CliError> {
    let length = effective_length(rec, options.length) + options.length_offset;
    let horizons: Vec<Value> = statistics(results, &options.horizons)
        .iter()
        .map(|s| {
            let mut row = json!({"horizon": s.horizon, "n": s.n});
            for f in s.figures() {
                row[f.key] = json!(f.value);
            }
            row["dropped"] = json!(s.dropped);
            row
        })
        .collect();
    let dropped = dropped(results);
    let dropped_starts: Vec<Value> = dropped
        .iter()
        .map(|(start, error)| json!({"start": start, "error": error}))
        .collect();
    say(json!({
        "recording": rec.name, "string_length": length, "initial": options.initial.to_string(),
        "starts": results.len(), "horizons": horizons, "dropped": dropped.len(),
        "dropped_starts": dropped_starts,
    }))
}

/// The replay's figures as a table, one line per horizon, and the dropped starts.
fn say_table(
    rec: &Recording,
    options: &ReplayOptions,
    results: &[StartResult],
) -> Result<(), CliError> {
    let length = effective_length(rec, options.length) + options.length_offset;
    say(format_args!(
        "{}: {} starts every {} s, string length {length:.4} m, initial state: {}",
        rec.name,
        results.len(),
        Compact(options.stride),
        options.initial
    ))?;
    let stats = statistics(results, &options.horizons);
    let mut heading = format!("{:>8} {:>5}", "horizon", "n");
    for f in stats.first().map(|s| s.figures()).into_iter().flatten() {
        heading.push_str(&format!("  {}", f.heading));
    }
    say(heading)?;
    for s in &stats {
        let mut line = format!("{:>8} {:>5}", s.horizon, s.n);
        for f in s.figures() {
            let width = f.heading.len();
            line.push_str(&format!("  {:>width$.*}", f.decimals, f.value));
        }
        say(line)?;
    }
    let dropped = dropped(results);
    say(format_args!("dropped (run failed): {}", dropped.len()))?;
    for (start, error) in &dropped {
        say(format_args!("  start at t = {start:.3} s: {error}"))?;
    }
    Ok(())
}

/// Fits the free parameters on the recordings together: the fitted values and the errors
/// before and after, and the parameters file to `-o`.
pub fn fit(args: &FitArgs) -> Result<(), CliError> {
    let recordings = args
        .recordings
        .iter()
        .map(|p| read_recording(p))
        .collect::<Result<Vec<_>, _>>()?;
    let free = args
        .free
        .iter()
        .map(|s| FreeParameter::parse(s).map_err(|e| input_error("--free".into(), e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let replay = replay_options(
        args.params.as_deref(),
        &args.horizons,
        args.stride,
        &args.settings,
    )?;
    let file = args.output.as_deref().map(create).transpose()?;
    let options = FitOptions {
        replay,
        free,
        spin_weight: args.spin_weight,
        max_iterations: args.iterations,
    };
    let progress = Mutex::new(CountProgress::new(
        "objective evaluations",
        args.progress.quiet,
    ));
    let fitted = diabolo::fit::fit_with_progress(&recordings, &options, &|done, best| {
        if let Ok(mut progress) = progress.lock() {
            progress.reached(done, None, &format!("best objective so far {best:.5}"));
        }
    });
    if let Ok(mut progress) = progress.lock() {
        progress.finish();
    }
    let report = fitted.map_err(|e| match e {
        FitError::Replay(e) => input_error("replay".into(), e.to_string()),
        FitError::Parameter(e) => CliError::Replay(e),
        other => CliError::Run(other.to_string()),
    })?;
    say(format_args!(
        "fitted on {} recordings ({} objective evaluations):",
        recordings.len(),
        report.evaluations
    ))?;
    for f in &options.free {
        say(format_args!(
            "  {:<14} {:.5}{}",
            f.name(),
            f.value(&report.fitted),
            if *f == FreeParameter::StringLength {
                " m (added to each recording's estimated length)"
            } else {
                ""
            }
        ))?;
    }
    say(format_args!(
        "  mean position error {:.4} m -> {:.4} m, mean spin error {:.2} -> {:.2} rad/s \
         (objective {:.5} -> {:.5})",
        report.position_before,
        report.position_after,
        report.spin_before,
        report.spin_after,
        report.objective_before,
        report.objective_after
    ))?;
    if let Some(file) = file {
        let names = args.recordings.iter().map(|p| p.display().to_string());
        let fitted = ParamsFile::fitted(&report, &options, names.collect());
        write_file(file, |f| writeln!(f, "{}", fitted.to_json()))?;
    }
    Ok(())
}

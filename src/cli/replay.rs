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
    plan_horizons, replay_length, replays_in_space, statistics, HeldHorizons, InitialEstimate,
    LengthEstimate, Recording, RecordingErrors, ReplayLength, ReplayOptions, StartResult,
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
        options.planar = self.planar;
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
/// horizons (if given) and stride, and the settings.
fn replay_options(
    params: Option<&Path>,
    horizons: Option<&[f64]>,
    stride: f64,
    settings: &ReplaySettingsArgs,
) -> Result<ReplayOptions, CliError> {
    let mut options = match params {
        Some(path) => ParamsFile::read(path)
            .map_err(|e| input_error(path.display().to_string(), e.to_string()))?
            .replay_options()?,
        None => ReplayOptions::default(),
    };
    if let Some(horizons) = horizons {
        options.horizons = horizons.to_vec();
    }
    options.stride = stride;
    settings.apply(&mut options)?;
    Ok(options)
}

/// The recordings at `path` (a file, or a folder of them); an unreadable one is an input error
/// naming it.
fn read_recordings(path: &Path) -> Result<Vec<Recording>, CliError> {
    Recording::read_path(path).map_err(|e| input_error(path.display().to_string(), e.to_string()))
}

/// One recording's replay: its horizons, length and starts.
struct Replayed {
    rec: Recording,
    plan: HeldHorizons,
    length: ReplayLength,
    results: Vec<StartResult>,
}

/// Replays the recording (or each recording of the folder) from starts along it, each at the
/// horizons it holds: the errors per horizon as a table (or one JSON object per recording),
/// the per-start errors to `-o`.
pub fn replay(args: &ReplayArgs) -> Result<(), CliError> {
    let folder = args.recording.is_dir();
    let recordings = read_recordings(&args.recording)?;
    let options = replay_options(
        args.params.as_deref(),
        args.horizons.as_deref(),
        args.stride,
        &args.settings,
    )?;
    let in_input = |e: diabolo::replay::ReplayError| {
        input_error(args.recording.display().to_string(), e.to_string())
    };
    let plans = plan_horizons(&recordings, &options, args.horizons.is_some()).map_err(in_input)?;
    let file = args.output.as_deref().map(create).transpose()?;
    let progress = Mutex::new(CountProgress::new("starts", args.progress.quiet));
    let mut replays = Vec::with_capacity(recordings.len());
    for (rec, plan) in recordings.into_iter().zip(plans) {
        let length = replay_length(&rec, &plan.options).map_err(in_input)?;
        let results = if plan.options.horizons.is_empty() {
            Vec::new()
        } else {
            diabolo::replay::replay_with_progress(&rec, &plan.options, &|done, all| {
                if let Ok(mut progress) = progress.lock() {
                    progress.reached(done as u64, Some(all as u64), &rec.name);
                }
            })
            .map_err(|e| in_input(e.in_recording(&rec.name)))?
        };
        replays.push(Replayed {
            rec,
            plan,
            length,
            results,
        });
    }
    if let Ok(mut progress) = progress.lock() {
        progress.finish();
    }
    if args.json {
        let reports: Vec<Value> = replays.iter().map(json_report).collect();
        say(if folder {
            Value::Array(reports)
        } else {
            reports.into_iter().next().unwrap_or_default()
        })?;
    } else {
        for (k, replayed) in replays.iter().enumerate() {
            if k > 0 {
                say("")?;
            }
            say_table(replayed)?;
        }
    }
    if let Some(file) = file {
        let errors: Vec<RecordingErrors> = replays
            .iter()
            .map(|r| RecordingErrors {
                name: &r.rec.name,
                results: &r.results,
                horizons: &r.plan.options.horizons,
            })
            .collect();
        write_file(file, |f| {
            diabolo::replay::write_start_errors(f, &errors, folder)
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

/// A recording's replay figures as one JSON object.
fn json_report(replayed: &Replayed) -> Value {
    let Replayed {
        rec,
        plan,
        length,
        results,
    } = replayed;
    let options = &plan.options;
    let horizons: Vec<Value> = statistics(results, &options.horizons)
        .iter()
        .map(|s| {
            let mut row = json!({"horizon": s.horizon, "n": s.n});
            for f in s.all_figures() {
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
    let mut report = json!({
        "recording": rec.name, "string_length": length.length, "taut_length": length.taut,
        "tips_span": length.tips_span, "initial": options.initial.to_string(),
        "starts": results.len(), "horizons": horizons, "horizons_left_out": plan.left_out,
        "longest_horizon": plan.longest, "dropped": dropped.len(),
        "dropped_starts": dropped_starts,
    });
    if replays_in_space(rec, options) {
        // Only a replay in space has these keys: a planar report stays as it was.
        report["model"] = json!("space");
        report["axle_model"] = json!(options.axle.model.name());
        report["axle_radius"] = json!(options.axle.axle_radius);
    }
    report
}

/// The model a recording is replayed by, for the table's first line.
fn model_note(rec: &Recording, options: &ReplayOptions) -> String {
    if replays_in_space(rec, options) {
        format!(
            ", model in space ({} axle, r = {} m; errors in 3D, tilt and turn of the axle)",
            options.axle.model.name().replace('_', " "),
            Compact(options.axle.axle_radius)
        )
    } else {
        String::new()
    }
}

/// The string length, and where it comes from when the tips' span sets it.
fn length_note(length: &ReplayLength) -> String {
    if length.length > length.taut {
        format!(
            "string length {:.4} m (the tips' farthest span; taut frames give {:.4} m)",
            length.length, length.taut
        )
    } else {
        format!("string length {:.4} m", length.length)
    }
}

/// A recording's replay figures as a table, one line per horizon, the horizons left out and
/// the dropped starts.
fn say_table(replayed: &Replayed) -> Result<(), CliError> {
    let Replayed {
        rec,
        plan,
        length,
        results,
    } = replayed;
    let options = &plan.options;
    say(format_args!(
        "{}: {} starts every {} s, {}, initial state: {}{}",
        rec.name,
        results.len(),
        Compact(options.stride),
        length_note(length),
        options.initial,
        model_note(rec, options)
    ))?;
    let stats = statistics(results, &options.horizons);
    let mut heading = format!("{:>8} {:>5}", "horizon", "n");
    for f in stats.first().map(|s| s.all_figures()).into_iter().flatten() {
        heading.push_str(&format!("  {}", f.heading));
    }
    say(heading)?;
    for s in &stats {
        let mut line = format!("{:>8} {:>5}", s.horizon, s.n);
        for f in s.all_figures() {
            let width = f.heading.len();
            line.push_str(&format!("  {:>width$.*}", f.decimals, f.value));
        }
        say(line)?;
    }
    if !plan.left_out.is_empty() {
        say(left_out_note(plan))?;
    }
    let dropped = dropped(results);
    say(format_args!("dropped (run failed): {}", dropped.len()))?;
    for (start, error) in &dropped {
        say(format_args!("  start at t = {start:.3} s: {error}"))?;
    }
    Ok(())
}

/// "horizons left out: 1 s, 2 s (...)".
fn left_out_note(plan: &HeldHorizons) -> String {
    let left_out: Vec<String> = plan
        .left_out
        .iter()
        .map(|h| format!("{} s", Compact(*h)))
        .collect();
    format!(
        "horizons left out: {} (longer than the recording holds: at most {} s from its first \
         start)",
        left_out.join(", "),
        Compact(plan.longest)
    )
}

/// Fits the free parameters on the recordings together: the fitted values and the errors
/// before and after, and the parameters file to `-o`.
pub fn fit(args: &FitArgs) -> Result<(), CliError> {
    let mut recordings = Vec::new();
    for path in &args.recordings {
        recordings.extend(read_recordings(path)?);
    }
    let free = args
        .free
        .iter()
        .map(|s| FreeParameter::parse(s).map_err(|e| input_error("--free".into(), e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let mut replay = replay_options(
        args.params.as_deref(),
        args.horizons.as_deref(),
        args.stride,
        &args.settings,
    )?;
    let plans = plan_horizons(&recordings, &replay, args.horizons.is_some())
        .map_err(|e| input_error("replay".into(), e.to_string()))?;
    // The default horizons that no recording holds are left out of the objective.
    replay
        .horizons
        .retain(|h| plans.iter().any(|p| p.options.horizons.contains(h)));
    let file = args.output.as_deref().map(create).transpose()?;
    let options = FitOptions {
        replay,
        free,
        spin_weight: args.spin_weight,
        tilt_weight: args.tilt_weight,
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
    for (rec, plan) in recordings.iter().zip(&plans) {
        if !plan.left_out.is_empty() {
            say(format_args!("  {}: {}", rec.name, left_out_note(plan)))?;
        }
    }
    for f in &options.free {
        say(format_args!(
            "  {:<14} {:.5}{}",
            f.name(),
            f.value(&report.fitted),
            match f {
                FreeParameter::StringLength => " m (added to each recording's estimated length)",
                FreeParameter::AxleRadius => " m",
                FreeParameter::TransverseInertia => " kg m^2",
                _ => "",
            }
        ))?;
    }
    if report.tilt_before.is_finite() {
        say(format_args!(
            "  mean tilt error (recordings replayed in space) {:.3} -> {:.3} degrees",
            report.tilt_before, report.tilt_after
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

//! `diabolo sweep`: a scenario over a grid or random samples of parameter values, in parallel.

use std::io::{self, IsTerminal, Write};

use indicatif::{ProgressBar, ProgressStyle};

use super::args::{SweepAction, SweepArgs, SweepCommand};
use super::input::{read_document, report_warnings};
use super::merge::{finished, remove_stamp, write_stamp};
use super::note;
use super::{commit, create, write_error, CliError};
use diabolo::scenario::plausible::with_likely_mistake;
use diabolo::sweep::shard::Digesting;
use diabolo::sweep::{
    parse_shard_numbers, shard_range, Axis, Sampling, Sweep, SweepError, SweepRunError,
};

/// `diabolo sweep`: merges shards, or runs a sweep.
pub fn command(command: SweepCommand) -> Result<(), CliError> {
    match (command.action, command.run) {
        (Some(SweepAction::Merge(args)), _) => super::merge::merge(&args),
        (None, Some(args)) => sweep(&args),
        (None, None) => Err(CliError::Run("give a scenario (diabolo sweep SCENARIO.json --grid ...) or merge (diabolo sweep merge SHARDS... -o FILE)".into())),
    }
}

/// Runs the points (all valid, or none runs), streams their summary rows in point order and
/// reports failed points as [`CliError::PointsFailed`]; a progress bar on a terminal.
pub fn sweep(args: &SweepArgs) -> Result<(), CliError> {
    let limits = args.input.limits()?;
    let (document, base) = read_document(&args.input)?;
    let mut axes = Vec::new();
    for spec in &args.grid {
        axes.push(Axis::parse_grid(spec)?);
    }
    for spec in &args.list {
        axes.push(Axis::parse_list(spec)?);
    }
    let sampling = args.samples.map(|samples| Sampling {
        samples,
        seed: args.seed,
    });
    let sweep = Sweep::new(document, &base, axes, sampling)
        .map_err(point_with_likely_mistake)?
        .within(limits);
    let shard = args.shard.as_deref().map(parse_shard_numbers).transpose()?;
    let range = shard.map_or(0..sweep.len(), |(k, n)| shard_range(k, n, sweep.len()));
    let jobs = jobs(args.jobs)?;
    // A shard written to a file: skipped when finished, its stamp written after it.
    let stamped = shard.zip(args.output.as_deref());
    if let Some(((k, n), path)) = stamped {
        match finished(&sweep, k, n, path) {
            Ok(()) => {
                if !args.input.quiet {
                    note(format!(
                        "shard {k}/{n}: {} is finished (its stamp {}.json is this shard's of this sweep, and its text the stamp's): skipped",
                        path.display(),
                        path.display()
                    ))?;
                }
                return Ok(());
            }
            Err(Some(reason)) if !args.input.quiet => {
                note(format!(
                    "shard {k}/{n}: {} {reason}: running it again",
                    path.display()
                ))?;
            }
            Err(_) => {}
        }
    }
    // Every point of the run is valid, or nothing runs and nothing is written.
    let warnings = sweep
        .check(range.clone(), jobs)
        .map_err(point_with_likely_mistake)?;
    report_warnings(&args.input, warnings)?;
    if let Some(dir) = &args.save_trajectories {
        std::fs::create_dir_all(dir).map_err(|source| CliError::Output {
            what: "cannot create",
            path: dir.clone(),
            source,
        })?;
    }
    if let Some((_, path)) = stamped {
        remove_stamp(path)?;
    }
    let mut file = args.output.as_deref().map(create).transpose()?;
    // A device or FIFO written through is never finished: no stamp.
    let stamped = stamped.filter(|_| file.as_ref().is_some_and(|f| !f.writes_through()));
    let stdout = io::stdout();
    let mut sink = Digesting::new(match file.as_mut() {
        Some(f) => Box::new(f) as Box<dyn Write>,
        None => Box::new(io::BufWriter::new(stdout.lock())),
    });
    let bar = (!args.input.quiet)
        .then(|| points_bar(range.len()))
        .flatten();
    let outcome = sweep
        .run(
            range,
            jobs,
            &mut sink,
            args.save_trajectories.as_deref(),
            &mut |done, _| {
                if let Some(bar) = &bar {
                    bar.set_position(done as u64);
                }
            },
        )
        .map_err(|e| match e {
            SweepRunError::Write(source) => write_error(args.output.as_deref(), source),
            threads @ SweepRunError::Threads { .. } => CliError::Run(threads.to_string()),
        })?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let (sink, content) = sink.finish();
    drop(sink);
    if let Some(file) = file {
        commit(file)?;
    }
    if let Some(((k, n), path)) = stamped {
        write_stamp(path, &sweep.stamp(k, n, &content))?;
    }
    if outcome.failed > 0 {
        return Err(CliError::PointsFailed {
            failed: outcome.failed,
            points: outcome.points,
        });
    }
    Ok(())
}

/// A point's out-of-range error with the likely unit mistake (see [`with_likely_mistake`]).
fn point_with_likely_mistake(error: SweepError) -> SweepError {
    match error {
        SweepError::Point {
            index,
            values,
            error,
        } => SweepError::Point {
            index,
            values,
            error: Box::new(with_likely_mistake(*error)),
        },
        other => other,
    }
}

/// `--jobs`, else every core; 0 is an input error.
pub(super) fn jobs(jobs: Option<usize>) -> Result<usize, CliError> {
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if jobs == 0 {
        return Err(SweepError::Axis {
            spec: "--jobs 0".into(),
            reason: "at least one thread is needed".into(),
        }
        .into());
    }
    Ok(jobs)
}

/// A progress bar of `points` points on standard error, when it is a terminal.
fn points_bar(points: usize) -> Option<ProgressBar> {
    if !io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(points as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} points, {elapsed} elapsed, about {eta} left",
        )
        .expect("a valid template"),
    );
    Some(bar)
}

//! `diabolo run`: one scenario; the trajectory, the event log and the summary.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::args::RunArgs;
use super::input::load_any;
use super::{commit, create, create_output, note, write_error, write_file, CliError};
use diabolo::output::compress::WRITE_BUFFER;
use diabolo::output::{
    space_stop_message, write_events, write_space_events, AtomicFile, ParallelTrajectoryWriter,
    RunProgress, SpaceSummary, SpaceTrajectoryWriter, Summary,
};
use diabolo::scenario::{Built, Scenario};
use diabolo::simulation::drive::Drive;
use diabolo::simulation::space::{SpaceSimulation, SpaceStatus};
use diabolo::simulation::Simulation;

/// Runs the scenario (in the plane or in space), streaming the rows; the files are committed
/// whether or not the run failed, and a failure is [`CliError::Run`] (exit 1).
pub fn run(args: &RunArgs) -> Result<(), CliError> {
    match load_any(&args.input)? {
        (scenario, Built::Plane(simulation)) => run_plane(args, &scenario, &simulation),
        (scenario, Built::Space(simulation)) => run_space(args, &scenario, &simulation),
    }
}

/// The output files of a run, opened before it (a bad path is an input error).
struct Outputs {
    trajectory: Option<AtomicFile>,
    events: Option<AtomicFile>,
    summary: Option<AtomicFile>,
}

fn open_outputs(args: &RunArgs) -> Result<Outputs, CliError> {
    let outputs = [
        ("-o", args.output.as_ref()),
        ("--events", args.events.as_ref()),
        ("--summary", args.summary.as_ref()),
    ];
    distinct_outputs(&outputs)?;
    Ok(Outputs {
        trajectory: args.output.as_deref().map(create).transpose()?,
        events: args
            .events
            .as_deref()
            .map(|p| create_output("--events", p))
            .transpose()?,
        summary: args
            .summary
            .as_deref()
            .map(|p| create_output("--summary", p))
            .transpose()?,
    })
}

/// A run in space: the same files as in the plane, written on this thread.
fn run_space(
    args: &RunArgs,
    scenario: &Scenario,
    simulation: &SpaceSimulation<Drive<3>>,
) -> Result<(), CliError> {
    let outputs = open_outputs(args)?;
    let sink = match outputs.trajectory {
        Some(file) => Sink::File(file),
        None => Sink::Stdout(io::BufWriter::with_capacity(WRITE_BUFFER, io::stdout())),
    };
    let write_failed = |source| write_error(args.output.as_deref(), source);
    let n = simulation.initial.diabolos.len();
    let compliant = simulation.params.planar.elastic().is_some();
    let mut writer = match SpaceTrajectoryWriter::new(sink, n, compliant) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
        other => other.map_err(write_failed)?,
    };
    let mut summary = SpaceSummary::default();
    let mut io_error = None;
    let mut progress = RunProgress::new(simulation.settings.duration, args.input.quiet);
    let start = Instant::now();
    let report = simulation.run(|row| {
        summary.observe(row);
        progress.reached(row.t);
        if io_error.is_none() {
            io_error = writer.write_row(row).err();
        }
    });
    progress.finish();
    let wall = start.elapsed();
    let mut sink = writer.into_inner();
    let flushed = match io_error {
        Some(e) => Err(e),
        None => sink.flush().map(|()| sink),
    };
    let trajectory_file = match flushed {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe && args.output.is_none() => return Ok(()),
        Err(e) => return Err(write_failed(e)),
        Ok(Sink::File(file)) => Some(file),
        Ok(Sink::Stdout(_)) => None,
    };
    let summary_line = summary
        .to_json(scenario.name.as_deref(), &report, wall)
        .to_string();
    if let Some(file) = outputs.events {
        write_file(file, |f| {
            write_space_events(&mut *f, &report, n).and_then(|()| f.flush())
        })?;
    }
    if let Some(file) = outputs.summary {
        write_file(file, |f| writeln!(f, "{summary_line}"))?;
    }
    if let Some(file) = trajectory_file {
        commit(file)?;
    }
    if args.summary.is_none() && !args.input.quiet {
        note(&summary_line)?;
    }
    match &report.status {
        SpaceStatus::Finished => Ok(()),
        SpaceStatus::Stopped { t, reason } => Err(CliError::Run(format!(
            "the run in space stopped {}{}",
            space_stop_message(*t, reason),
            args.output.as_ref().map_or(String::new(), |p| format!(
                " ({} holds the trajectory up to then)",
                p.display()
            ))
        ))),
    }
}

/// A planar run.
fn run_plane(args: &RunArgs, scenario: &Scenario, simulation: &Simulation) -> Result<(), CliError> {
    // Every output file is opened before the run, so that a bad path is an input error.
    let outputs = [
        ("-o", args.output.as_ref()),
        ("--events", args.events.as_ref()),
        ("--summary", args.summary.as_ref()),
    ];
    distinct_outputs(&outputs)?;
    let trajectory_file = args.output.as_deref().map(create).transpose()?;
    let events_file = args
        .events
        .as_deref()
        .map(|p| create_output("--events", p))
        .transpose()?;
    let summary_file = args
        .summary
        .as_deref()
        .map(|p| create_output("--summary", p))
        .transpose()?;

    let sink = match trajectory_file {
        Some(file) => Sink::File(file),
        None => Sink::Stdout(io::BufWriter::with_capacity(WRITE_BUFFER, io::stdout())),
    };
    let write_failed = |source| write_error(args.output.as_deref(), source);
    let mut writer = match ParallelTrajectoryWriter::new(sink, simulation) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
        other => other.map_err(write_failed)?,
    };
    let mut summary = Summary::default();
    let mut io_error = None;
    let mut progress = RunProgress::new(simulation.settings.duration, args.input.quiet);
    let start = Instant::now();
    let report = simulation.run(&mut |row| {
        summary.observe(row);
        progress.reached(row.t);
        if io_error.is_none() {
            io_error = writer.write_row(row).err();
        }
    });
    progress.finish();
    let finished = writer.finish();
    let wall = start.elapsed();
    let flushed = match (io_error, finished) {
        (Some(e), _) | (None, Err(e)) => Err(e),
        (None, Ok(mut sink)) => sink.flush().map(|()| sink),
    };
    let trajectory_file = match flushed {
        // A reader that stopped early (`diabolo run X | head`) is not an error.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe && args.output.is_none() => return Ok(()),
        Err(e) => return Err(write_failed(e)),
        Ok(Sink::File(file)) => Some(file),
        Ok(Sink::Stdout(_)) => None,
    };

    let summary_line = summary
        .to_json(scenario.name.as_deref(), &report, wall)
        .to_string();
    if let Some(file) = events_file {
        write_file(file, |f| {
            write_events(&mut *f, &report.events).and_then(|()| f.flush())
        })?;
    }
    if let Some(file) = summary_file {
        write_file(file, |f| writeln!(f, "{summary_line}"))?;
    }
    if let Some(file) = trajectory_file {
        commit(file)?;
    }
    // The files are complete whatever standard error does.
    if args.summary.is_none() && !args.input.quiet {
        note(&summary_line)?;
    }
    match report.failure {
        Some(failure) => Err(CliError::Run(format!(
            "the simulation failed: {failure}{}",
            args.output.as_ref().map_or(String::new(), |p| format!(
                " ({} holds the trajectory up to then)",
                p.display()
            ))
        ))),
        None => Ok(()),
    }
}

/// Refuses two outputs that are the same file (`-o t.csv --events ./t.csv`, a hard or symbolic
/// link): one would overwrite the other.
fn distinct_outputs(outputs: &[(&'static str, Option<&PathBuf>)]) -> Result<(), CliError> {
    let named: Vec<(&'static str, &Path)> = outputs
        .iter()
        .filter_map(|&(flag, path)| path.map(|p| (flag, p.as_path())))
        .collect();
    let path_of = |flag: &str| {
        named
            .iter()
            .find(|(f, _)| *f == flag)
            .map_or_else(PathBuf::new, |(_, p)| p.to_path_buf())
    };
    match diabolo::output::shared_destination(&named) {
        Some((other_flag, flag)) => Err(CliError::SharedDestination {
            flag,
            path: path_of(flag),
            other_flag,
            other: path_of(other_flag),
        }),
        None => Ok(()),
    }
}

/// Where the trajectory goes: the `-o` file, or standard output (both can be written from the
/// row formatter's thread).
enum Sink {
    File(AtomicFile),
    Stdout(io::BufWriter<io::Stdout>),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::File(f) => f.write(buf),
            Sink::Stdout(s) => s.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sink::File(f) => f.write_all(buf),
            Sink::Stdout(s) => s.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::File(f) => f.flush(),
            Sink::Stdout(s) => s.flush(),
        }
    }
}

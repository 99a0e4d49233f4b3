//! The `diabolo` command: parse the arguments, call the library, report. Exit codes: 0 success,
//! 1 the simulation failed at run time (the trajectory so far is written), 2 invalid input
//! (nothing written).

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};
use thiserror::Error;

use crate::output::{write_events, AtomicFile, Summary, TrajectoryWriter};
use crate::scenario::{overrides, Scenario, ScenarioError};
use crate::simulation::run::Simulation;

#[derive(Debug, Parser)]
#[command(
    name = "diabolo",
    version,
    about = "Batch simulator of diabolo string dynamics: a JSON scenario in, a CSV trajectory out",
    after_help = "Examples:\n  diabolo run scenarios/whip.json -o whip.csv --events whip.jsonl\n  diabolo validate scenarios/sun.json\n  diabolo schema > scenario.schema.json"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run one scenario: the trajectory CSV to -o (or stdout), the summary to stderr.
    #[command(
        after_help = "Examples:\n  diabolo run scenarios/whip.json -o whip.csv --events whip.jsonl\n  diabolo run scenarios/hanging.json --set params.friction=0.3 --set sim.duration=5 > out.csv\n  cat scenarios/snap.json | diabolo run - --quiet -o snap.csv"
    )]
    Run(RunArgs),
    /// Check a scenario and say what is wrong, with its JSON path and the fix.
    #[command(
        after_help = "Example:\n  diabolo validate scenarios/sun.json --set params.friction=-1"
    )]
    Validate(ValidateArgs),
    /// Print the JSON Schema of the scenario format.
    #[command(after_help = "Example:\n  diabolo schema > scenario.schema.json")]
    Schema,
}

#[derive(Debug, Args)]
pub struct ScenarioArgs {
    /// The scenario JSON file, or - for standard input.
    pub scenario: String,
    /// Override a field by its dotted path, e.g. params.friction=0.2 or initial.diabolos[0].spin=3
    /// (repeatable; VALUE is read as JSON, else as a string).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub input: ScenarioArgs,
    /// Trajectory CSV file (default: standard output).
    #[arg(short, long, value_name = "TRAJ.csv")]
    pub output: Option<PathBuf>,
    /// Event log, JSON lines.
    #[arg(long, value_name = "EVENTS.jsonl")]
    pub events: Option<PathBuf>,
    /// Write the one-line JSON summary here instead of standard error.
    #[arg(long, value_name = "SUMMARY.json")]
    pub summary: Option<PathBuf>,
    /// No summary on standard error (errors are still reported).
    #[arg(short, long)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub input: ScenarioArgs,
}

/// Why the command did not succeed.
#[derive(Debug, Error)]
pub enum CliError {
    #[error("{0}")]
    Input(#[from] ScenarioError),
    #[error("{what} {path}: {source}")]
    Output {
        what: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error("{0}")]
    Run(String),
}

impl CliError {
    /// 2 for input errors (nothing was written), 1 for failures while running or writing.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Input(_) => 2,
            Self::Output { what, .. } if what.starts_with("cannot create") => 2,
            _ => 1,
        }
    }
}

/// Runs the command line; the process exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match execute(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

pub fn execute(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Run(args) => run(&args),
        Command::Validate(args) => {
            let (scenario, simulation) = load(&args.input)?;
            println!(
                "ok: {} ({} diabolo{}, {} s)",
                scenario.name.as_deref().unwrap_or(&args.input.scenario),
                simulation.initial.diabolo_count(),
                if simulation.initial.diabolo_count() == 1 {
                    ""
                } else {
                    "s"
                },
                simulation.settings.duration
            );
            Ok(())
        }
        Command::Schema => {
            let schema = serde_json::to_string_pretty(&Scenario::schema()).expect("JSON");
            println!("{schema}");
            Ok(())
        }
    }
}

/// Reads, overrides, types and builds the scenario.
pub fn load(input: &ScenarioArgs) -> Result<(Scenario, Simulation), ScenarioError> {
    let (text, base) = if input.scenario == "-" {
        let mut text = String::new();
        io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| ScenarioError::Read {
                file: "-".into(),
                reason: e.to_string(),
            })?;
        (text, PathBuf::from("."))
    } else {
        let path = Path::new(&input.scenario);
        let text = std::fs::read_to_string(path).map_err(|e| ScenarioError::Read {
            file: input.scenario.clone(),
            reason: e.to_string(),
        })?;
        let base = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        (text, base)
    };
    let sets = input
        .set
        .iter()
        .map(|s| overrides::split(s).map(|(k, v)| (k.to_string(), v.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let scenario = Scenario::parse(&text, &sets)?;
    let simulation = scenario.build(&base)?;
    Ok((scenario, simulation))
}

fn create(path: &Path) -> Result<AtomicFile, CliError> {
    AtomicFile::create(path).map_err(|source| CliError::Output {
        what: "cannot create",
        path: path.to_path_buf(),
        source,
    })
}

fn run(args: &RunArgs) -> Result<(), CliError> {
    let (scenario, simulation) = load(&args.input)?;
    // Every output file is opened before the run, so that a bad path is an input error.
    let mut trajectory_file = args.output.as_deref().map(create).transpose()?;
    let events_file = args.events.as_deref().map(create).transpose()?;
    let summary_file = args.summary.as_deref().map(create).transpose()?;

    let stdout = io::stdout();
    let sink: Box<dyn Write> = match trajectory_file.as_mut() {
        Some(file) => Box::new(file),
        None => Box::new(io::BufWriter::with_capacity(1 << 16, stdout.lock())),
    };
    let n = simulation.initial.diabolo_count();
    let write_failed = |source| CliError::Output {
        what: "cannot write",
        path: args
            .output
            .clone()
            .unwrap_or_else(|| "standard output".into()),
        source,
    };
    let mut writer = match TrajectoryWriter::new(sink, n) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
        other => other.map_err(write_failed)?,
    };
    let mut summary = Summary::default();
    let mut io_error = None;
    let start = Instant::now();
    let report = simulation.run(&mut |row| {
        summary.observe(row);
        if io_error.is_none() {
            io_error = writer.write_row(row).err();
        }
    });
    let wall = start.elapsed();
    let flushed = match io_error {
        Some(e) => Err(e),
        None => writer.get_mut().flush(),
    };
    match flushed {
        // A reader that stopped early (`diabolo run X | head`) is not an error.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe && args.output.is_none() => return Ok(()),
        Err(e) => return Err(write_failed(e)),
        Ok(()) => {}
    }
    drop(writer);

    let summary_line = summary
        .to_json(scenario.name.as_deref(), &report, wall)
        .to_string();
    if let Some(mut file) = events_file {
        write_events(&mut file, &report.events)
            .and_then(|()| file.flush())
            .map_err(|source| CliError::Output {
                what: "cannot write",
                path: file.target().to_path_buf(),
                source,
            })?;
        commit(file)?;
    }
    match summary_file {
        Some(mut file) => {
            writeln!(file, "{summary_line}").map_err(|source| CliError::Output {
                what: "cannot write",
                path: file.target().to_path_buf(),
                source,
            })?;
            commit(file)?;
        }
        None if !args.quiet => eprintln!("{summary_line}"),
        None => {}
    }
    if let Some(file) = trajectory_file {
        commit(file)?;
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

fn commit(file: AtomicFile) -> Result<(), CliError> {
    let path = file.target().to_path_buf();
    file.commit().map_err(|source| CliError::Output {
        what: "cannot write",
        path,
        source,
    })
}

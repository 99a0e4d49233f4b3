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
    /// Run a scenario over a grid (or random samples) of parameter values, in parallel: one
    /// summary row per point, in point order.
    #[command(
        after_help = "Examples:\n  diabolo sweep scenarios/whip.json --grid params.friction=0.1:0.3:5 --list params.spin_inertia=20,50 -o sweep.csv\n  diabolo sweep scenarios/swing.json --grid params.friction=0.05:0.4:100 --samples 1000 --seed 7 --jobs 2 -o random.csv\n  diabolo sweep scenarios/whip.json --grid params.friction=0.1:0.3:64 --shard 2/4 -o part2.csv"
    )]
    Sweep(SweepArgs),
    /// Compare two trajectory CSVs column by column; exit 1 when any deviates beyond tolerance.
    #[command(
        after_help = "Example:\n  diabolo check new.csv tests/golden/whip.csv --rtol 1e-7 --atol 1e-9 --columns d1_x,d1_y,d1_w"
    )]
    Check(CheckArgs),
}

#[derive(Debug, Args)]
pub struct SweepArgs {
    #[command(flatten)]
    pub input: ScenarioArgs,
    /// A grid axis: KEY=START:STOP:COUNT (COUNT values, both ends included). Repeatable.
    #[arg(long, value_name = "KEY=START:STOP:COUNT")]
    pub grid: Vec<String>,
    /// A list axis: KEY=V1,V2,... Repeatable.
    #[arg(long, value_name = "KEY=V1,V2,...")]
    pub list: Vec<String>,
    /// Instead of the grid, this many random points: grid axes uniform in [START, STOP], list
    /// axes one of their values.
    #[arg(long, value_name = "N")]
    pub samples: Option<usize>,
    /// Seed of --samples.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Summary CSV (default: standard output).
    #[arg(short, long, value_name = "SUMMARY.csv")]
    pub output: Option<PathBuf>,
    /// Threads (default: all cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Run only the K-th of N contiguous blocks of points.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Write each point's trajectory to DIR/point_IIIIII.csv (I = the point's index).
    #[arg(long, value_name = "DIR")]
    pub save_trajectories: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The trajectory to check.
    pub actual: PathBuf,
    /// The reference trajectory.
    pub expected: PathBuf,
    /// Relative tolerance.
    #[arg(long, default_value_t = 1e-6)]
    pub rtol: f64,
    /// Absolute tolerance.
    #[arg(long, default_value_t = 1e-9)]
    pub atol: f64,
    /// Compare only these columns (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub columns: Vec<String>,
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
    #[error("{0}")]
    Sweep(#[from] crate::sweep::SweepError),
    #[error("{0}")]
    Check(#[from] crate::check::CheckError),
    /// A check that ran and found deviations (the report is printed).
    #[error("the trajectories differ beyond tolerance")]
    Differ,
    /// Sweep points failed (their rows say why).
    #[error("{failed} of {points} sweep points failed (see their status and error columns)")]
    PointsFailed { failed: usize, points: usize },
}

impl CliError {
    /// 2 for input errors (nothing was written), 1 for failures while running or writing.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Input(_) | Self::Sweep(_) | Self::Check(_) => 2,
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
        Command::Sweep(args) => sweep(&args),
        Command::Check(args) => check(&args),
        Command::Schema => {
            let schema = serde_json::to_string_pretty(&Scenario::schema()).expect("JSON");
            println!("{schema}");
            Ok(())
        }
    }
}

/// Reads the scenario document and applies the overrides: the document and its folder.
pub fn read_document(input: &ScenarioArgs) -> Result<(serde_json::Value, PathBuf), ScenarioError> {
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
    Ok((Scenario::document(&text, &sets)?, base))
}

/// Reads, overrides, types and builds the scenario.
pub fn load(input: &ScenarioArgs) -> Result<(Scenario, Simulation), ScenarioError> {
    let (document, base) = read_document(input)?;
    let scenario = Scenario::from_value(document)?;
    let simulation = scenario.build(&base)?;
    Ok((scenario, simulation))
}

fn sweep(args: &SweepArgs) -> Result<(), CliError> {
    use crate::sweep::{parse_shard, Axis, Sampling, Sweep};
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
    let sweep = Sweep::new(document, &base, axes, sampling)?;
    let range = match &args.shard {
        Some(spec) => parse_shard(spec, sweep.len())?,
        None => 0..sweep.len(),
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if jobs == 0 {
        return Err(crate::sweep::SweepError::Axis {
            spec: "--jobs 0".into(),
            reason: "at least one thread is needed".into(),
        }
        .into());
    }
    if let Some(dir) = &args.save_trajectories {
        std::fs::create_dir_all(dir).map_err(|source| CliError::Output {
            what: "cannot create",
            path: dir.clone(),
            source,
        })?;
    }
    let mut file = args.output.as_deref().map(create).transpose()?;
    let stdout = io::stdout();
    let mut sink: Box<dyn Write> = match file.as_mut() {
        Some(f) => Box::new(f),
        None => Box::new(io::BufWriter::new(stdout.lock())),
    };
    let bar = if io::IsTerminal::is_terminal(&io::stderr()) {
        let bar = indicatif::ProgressBar::new(range.len() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} points, {elapsed} elapsed, about {eta} left",
            )
            .expect("a valid template"),
        );
        Some(bar)
    } else {
        None
    };
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
        .map_err(|source| CliError::Output {
            what: "cannot write",
            path: args
                .output
                .clone()
                .unwrap_or_else(|| "standard output".into()),
            source,
        })?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    drop(sink);
    if let Some(file) = file {
        commit(file)?;
    }
    if outcome.failed > 0 {
        return Err(CliError::PointsFailed {
            failed: outcome.failed,
            points: outcome.points,
        });
    }
    Ok(())
}

fn check(args: &CheckArgs) -> Result<(), CliError> {
    use crate::check::{compare, CheckOptions, Table};
    let actual = Table::read(&args.actual)?;
    let expected = Table::read(&args.expected)?;
    let options = CheckOptions {
        rtol: args.rtol,
        atol: args.atol,
        columns: args.columns.clone(),
    };
    let report = compare(&actual, &expected, &options);
    println!("{report}");
    if report.passed() {
        Ok(())
    } else {
        Err(CliError::Differ)
    }
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

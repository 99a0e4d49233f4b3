//! The `diabolo` command: parse the arguments, call the library, report. Exit codes: 0 success,
//! 1 the simulation failed at run time (the trajectory so far is written), 2 invalid input
//! (nothing written).

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};
use thiserror::Error;

use crate::output::{write_events, AtomicFile, RunProgress, Summary, TrajectoryWriter};
use crate::scenario::{overrides, Limits, Scenario, ScenarioError};
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
    /// Draw a trajectory: time series with the events marked, or (--xy) the paths in the plane.
    ///
    /// Time series of chosen columns, one panel each, with the loose phases shaded and the events
    /// as vertical lines; or with --xy the paths of the sticks and diabolos in the plane and the
    /// string at a few instants. SVG or PNG by the file's extension.
    #[command(
        after_help = "Examples:\n  diabolo run scenarios/sun.json -o sun.csv --events sun.jsonl\n  diabolo plot sun.csv -o sun.svg --events sun.jsonl\n  diabolo plot sun.csv -o sun.png --columns d1_y,d1_w,T0+T1,energy\n  diabolo plot sun.csv -o sun_xy.svg --xy --instants 6 --events sun.jsonl"
    )]
    Plot(PlotArgs),
    /// Animate a trajectory: sticks, string and spinning diabolos, as SVG or GIF.
    ///
    /// The sticks, the string and the diabolos move in real time (or --speed times faster), with
    /// the time and the phase shown; an animated SVG that plays in a browser, or a GIF, by the
    /// file's extension.
    #[command(
        after_help = "Examples:\n  diabolo animate sun.csv -o sun.svg\n  diabolo animate whip.csv -o whip.gif --fps 20 --speed 0.5 --width 480 --height 360"
    )]
    Animate(AnimateArgs),
    /// Replay a motion-capture recording: the model driven by the recorded hands predicts the
    /// recorded diabolo from starts along it; errors per prediction horizon.
    #[command(
        after_help = "Examples:\n  diabolo replay ../shared/data/omron/y_swing_1_seg1.csv --params fitted.json\n  diabolo replay rec.csv --horizons 0.2,1,2 --stride 0.5 --json -o errors.csv"
    )]
    Replay(ReplayArgs),
    /// Fit parameters to recordings by minimising the replay error over all of them together.
    #[command(
        after_help = "Example:\n  diabolo fit ../shared/data/omron/*.csv --free friction,spin_inertia,spin_drag,string_length -o fitted.json"
    )]
    Fit(FitArgs),
}

#[derive(Debug, Args)]
pub struct PlotArgs {
    /// The trajectory CSV (written by diabolo run).
    pub trajectory: PathBuf,
    /// The picture: FILE.svg or FILE.png.
    #[arg(short, long, value_name = "FILE.svg|png")]
    pub output: PathBuf,
    /// Columns, one panel each; join columns with + to share a panel (T0+T1). Default: the
    /// diabolos' heights, their spins, the tensions, the slack.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "C1,C2+C3,...",
        conflicts_with = "xy"
    )]
    pub columns: Vec<String>,
    /// The event log (JSON lines of diabolo run --events): vertical lines, or markers with --xy.
    #[arg(long, value_name = "EVENTS.jsonl")]
    pub events: Option<PathBuf>,
    /// The paths of the sticks and diabolos in the x-y plane, with the string at a few instants.
    #[arg(long)]
    pub xy: bool,
    /// With --xy: how many instants show the string (evenly spaced, both ends included).
    #[arg(long, default_value_t = 5, requires = "xy")]
    pub instants: usize,
    /// Width in pixels (default 900; --xy 800).
    #[arg(long)]
    pub width: Option<u32>,
    /// Height in pixels (default 180 per panel and 70 more; --xy 640).
    #[arg(long)]
    pub height: Option<u32>,
}

#[derive(Debug, Args)]
pub struct AnimateArgs {
    /// The trajectory CSV (written by diabolo run).
    pub trajectory: PathBuf,
    /// The animation: FILE.svg (SMIL, plays in a browser) or FILE.gif.
    #[arg(short, long, value_name = "FILE.svg|gif")]
    pub output: PathBuf,
    /// Frames per second (a GIF shows at most 50).
    #[arg(long, default_value_t = 30.0)]
    pub fps: f64,
    /// Playing speed: 1 is real time, 0.25 four times slower.
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// Width in pixels.
    #[arg(long, default_value_t = 640)]
    pub width: u32,
    /// Height in pixels.
    #[arg(long, default_value_t = 480)]
    pub height: u32,
    /// How many times slower than real the spools turn (default: the smallest of 1, 2, 5, 10,
    /// 20, ... that keeps the turn between frames within 30 degrees).
    #[arg(long, value_name = "FACTOR")]
    pub spin_slowdown: Option<f64>,
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
    /// Refuse a run of more trajectory rows than this (floor(duration / output_interval) + 1;
    /// the default 10^7 rows is about 4.8 GB of CSV).
    #[arg(long, value_name = "ROWS", default_value_t = Limits::DEFAULT_MAX_ROWS)]
    pub max_rows: u64,
    /// Refuse a run of more simulated time than this, s (the default 1e5 s, more than a day,
    /// is far beyond any routine; longer runs only fill the disk).
    #[arg(long, value_name = "SECONDS", default_value_t = Limits::DEFAULT_MAX_DURATION)]
    pub max_duration: f64,
}

impl ScenarioArgs {
    /// The limits of `--max-rows` and `--max-duration`.
    pub fn limits(&self) -> Result<Limits, ScenarioError> {
        if !(self.max_duration.is_finite() && self.max_duration > 0.0) {
            return Err(ScenarioError::Flag {
                flag: "--max-duration".into(),
                reason: format!(
                    "{} is not a duration; give a positive number of seconds",
                    crate::display::compact(self.max_duration)
                ),
            });
        }
        Ok(Limits {
            max_rows: self.max_rows,
            max_duration: self.max_duration,
        })
    }
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
    /// An output path that cannot take the file (a folder, a missing folder...).
    #[error("{flag} {}: {source}", path.display())]
    Destination {
        flag: &'static str,
        path: PathBuf,
        source: crate::output::DestinationError,
    },
    /// Two outputs of one command that are the same file.
    #[error(
        "{flag} {}: the same file as {other_flag} {}; give each output its own file",
        path.display(),
        other.display()
    )]
    SharedDestination {
        flag: &'static str,
        path: PathBuf,
        other_flag: &'static str,
        other: PathBuf,
    },
    #[error("{0}")]
    Run(String),
    #[error("{0}")]
    Sweep(#[from] crate::sweep::SweepError),
    /// A recording, parameter file or replay option that cannot be used.
    #[error("{0}")]
    Replay(String),
    #[error("{0}")]
    Check(#[from] crate::check::CheckError),
    #[error("{0}")]
    Plot(#[from] crate::plot::PlotError),
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
            Self::Input(_) | Self::Sweep(_) | Self::Check(_) | Self::Replay(_) => 2,
            Self::Destination { .. } | Self::SharedDestination { .. } => 2,
            Self::Output { what, .. } if what.starts_with("cannot create") => 2,
            Self::Plot(e) if e.is_input() => 2,
            _ => 1,
        }
    }
}

/// Runs the command line; the process exit code. Nothing here panics on a full or closed
/// standard output or error: a report that cannot be written is exit 1, and an error message
/// that cannot be written leaves only the exit code. SIGINT, SIGTERM and SIGHUP remove the
/// temporary files and exit with 128 + the signal's number.
pub fn main() -> ExitCode {
    // Without the handler a signal still stops the process, only leaving its temporary files.
    let _ = crate::output::remove_temporary_files_on_signals();
    let result = match Cli::try_parse() {
        Ok(cli) => execute(cli),
        Err(e) => return clap_message(&e),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(io::stderr(), "error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// Prints clap's help or version (exit 0) or usage error (exit 2, whether or not standard error
/// takes the message). Help or version that cannot be written is exit 1; a closed pipe
/// (`diabolo --help | head`) is not an error.
fn clap_message(e: &clap::Error) -> ExitCode {
    let code = ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
    if e.use_stderr() {
        let _ = e.print();
        return code;
    }
    match e.print().and_then(|()| io::stdout().flush()) {
        Err(source) if source.kind() != io::ErrorKind::BrokenPipe => {
            let error = CliError::Output {
                what: "cannot write",
                path: "standard output".into(),
                source,
            };
            let _ = writeln!(io::stderr(), "error: {error}");
            ExitCode::from(error.exit_code())
        }
        _ => code,
    }
}

pub fn execute(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Run(args) => run(&args),
        Command::Validate(args) => {
            let (scenario, simulation) = load(&args.input)?;
            say(format_args!(
                "ok: {} ({} diabolo{}, {} s)",
                scenario.name.as_deref().unwrap_or(&args.input.scenario),
                simulation.initial.diabolo_count(),
                if simulation.initial.diabolo_count() == 1 {
                    ""
                } else {
                    "s"
                },
                simulation.settings.duration
            ))
        }
        Command::Sweep(args) => sweep(&args),
        Command::Check(args) => check(&args),
        Command::Plot(args) => plot(&args),
        Command::Animate(args) => animate(&args),
        Command::Replay(args) => replay_command(&args),
        Command::Fit(args) => fit_command(&args),
        Command::Schema => {
            let schema = serde_json::to_string_pretty(&Scenario::schema()).expect("JSON");
            say(schema)
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
    let limits = input.limits()?;
    let (document, base) = read_document(input)?;
    let scenario = Scenario::from_value(document)?;
    let simulation = scenario.build_within(&base, &limits)?;
    Ok((scenario, simulation))
}

fn sweep(args: &SweepArgs) -> Result<(), CliError> {
    use crate::sweep::{parse_shard, Axis, Sampling, Sweep, SweepRunError};
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
    let sweep = Sweep::new(document, &base, axes, sampling)?.within(limits);
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
    // Every point of the run is valid, or nothing runs and nothing is written.
    sweep.check(range.clone(), jobs)?;
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
        .map_err(|e| match e {
            SweepRunError::Write(source) => write_error(args.output.as_deref(), source),
            threads @ SweepRunError::Threads { .. } => CliError::Run(threads.to_string()),
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
    use crate::check::{compare_files, CheckOptions};
    for (flag, value) in [("--rtol", args.rtol), ("--atol", args.atol)] {
        if !(value.is_finite() && value >= 0.0) {
            return Err(input_error(
                flag.into(),
                format!(
                    "{}: give a tolerance of 0 or more",
                    crate::display::Compact(value)
                ),
            ));
        }
    }
    let options = CheckOptions {
        rtol: args.rtol,
        atol: args.atol,
        columns: args.columns.clone(),
    };
    let report = compare_files(&args.actual, &args.expected, &options)?;
    say(&report)?;
    if report.passed() {
        Ok(())
    } else {
        Err(CliError::Differ)
    }
}

fn plot(args: &PlotArgs) -> Result<(), CliError> {
    use crate::plot::{self, Format, SeriesOptions, XyOptions};
    let format = Format::from_path(&args.output)?;
    let table = picture_table(&args.trajectory)?;
    let events = match &args.events {
        Some(path) => plot::read_events(path)?,
        None => Vec::new(),
    };
    let title = Some(file_title(&args.trajectory));
    let mut file = create(&args.output)?;
    let drawn = if args.xy {
        let defaults = XyOptions::default();
        let options = XyOptions {
            width: args.width.unwrap_or(defaults.width),
            height: args.height.unwrap_or(defaults.height),
            instants: args.instants,
            title,
        };
        plot::xy(&table, &events, &options, format, &mut file)
    } else {
        let options = SeriesOptions {
            panels: SeriesOptions::panels_from(&args.columns),
            width: args.width.unwrap_or(SeriesOptions::default().width),
            height: args.height,
            title,
            ..SeriesOptions::default()
        };
        plot::series(&table, &events, &options, format, &mut file)
    };
    finish_picture(file, drawn)
}

fn animate(args: &AnimateArgs) -> Result<(), CliError> {
    use crate::plot::{self, AnimateOptions, Format};
    let format = Format::from_path(&args.output)?;
    let table = picture_table(&args.trajectory)?;
    let options = AnimateOptions {
        fps: args.fps,
        speed: args.speed,
        width: args.width,
        height: args.height,
        spin_slowdown: args.spin_slowdown,
        title: Some(file_title(&args.trajectory)),
        ..AnimateOptions::default()
    };
    let mut file = create(&args.output)?;
    let drawn = plot::animate(&table, &options, format, &mut file);
    let animation = finish_picture(file, drawn)?;
    let spin = if animation.spin_slowdown == 1.0 {
        "spools at the real spin".to_string()
    } else {
        format!("spools turn {}x slower than real", animation.spin_slowdown)
    };
    note(format_args!(
        "{}: {} frames, {:.2} s, {spin}",
        args.output.display(),
        animation.frames,
        animation.duration,
    ))
}

/// The trajectory a picture is drawn from, at most [`crate::plot::MAX_ROWS`] rows of it (a note
/// on standard error says when rows were left out).
fn picture_table(path: &Path) -> Result<crate::check::Table, CliError> {
    let table = crate::check::Table::read_at_most(path, crate::plot::MAX_ROWS)?;
    if table.thinned() {
        note(format_args!(
            "note: {} has {} rows; the picture is drawn from one row in {} ({} rows, the last \
             included)",
            path.display(),
            table.rows_read,
            table.stride,
            table.rows()
        ))?;
    }
    Ok(table)
}

/// A picture's title: the trajectory's file name.
fn file_title(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().to_string(),
    )
}

/// Commits a drawn picture, or reports why it was not drawn (its temporary file is removed).
fn finish_picture<T>(
    file: AtomicFile,
    drawn: Result<T, crate::plot::PlotError>,
) -> Result<T, CliError> {
    match drawn {
        Ok(value) => {
            commit(file)?;
            Ok(value)
        }
        Err(crate::plot::PlotError::Write(source)) => Err(CliError::Output {
            what: "cannot write",
            path: file.target().to_path_buf(),
            source,
        }),
        Err(e) => Err(e.into()),
    }
}

/// A failed write to `output`, or to standard output when there is none.
fn write_error(output: Option<&Path>, source: io::Error) -> CliError {
    CliError::Output {
        what: "cannot write",
        path: output.map_or_else(|| "standard output".into(), Path::to_path_buf),
        source,
    }
}

/// Opens the `-o` output file (see [`create_output`]).
fn create(path: &Path) -> Result<AtomicFile, CliError> {
    create_output("-o", path)
}

/// Opens the output file of `flag`: a folder, a missing folder or a path that cannot be created
/// is an input error (exit 2), found before anything runs.
fn create_output(flag: &'static str, path: &Path) -> Result<AtomicFile, CliError> {
    use crate::output::DestinationError;
    AtomicFile::open(path).map_err(|source| match source {
        DestinationError::Io(source) => CliError::Output {
            what: "cannot create",
            path: path.to_path_buf(),
            source,
        },
        source => CliError::Destination {
            flag,
            path: path.to_path_buf(),
            source,
        },
    })
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
    match crate::output::shared_destination(&named) {
        Some((other_flag, flag)) => Err(CliError::SharedDestination {
            flag,
            path: path_of(flag),
            other_flag,
            other: path_of(other_flag),
        }),
        None => Ok(()),
    }
}

fn run(args: &RunArgs) -> Result<(), CliError> {
    let (scenario, simulation) = load(&args.input)?;
    // Every output file is opened before the run, so that a bad path is an input error.
    let outputs = [
        ("-o", args.output.as_ref()),
        ("--events", args.events.as_ref()),
        ("--summary", args.summary.as_ref()),
    ];
    distinct_outputs(&outputs)?;
    let mut trajectory_file = args.output.as_deref().map(create).transpose()?;
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

    let stdout = io::stdout();
    let sink: Box<dyn Write> = match trajectory_file.as_mut() {
        Some(file) => Box::new(file),
        None => Box::new(io::BufWriter::with_capacity(1 << 16, stdout.lock())),
    };
    let n = simulation.initial.diabolo_count();
    let write_failed = |source| write_error(args.output.as_deref(), source);
    let mut writer = match TrajectoryWriter::new(sink, n) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
        other => other.map_err(write_failed)?,
    };
    let mut summary = Summary::default();
    let mut io_error = None;
    let mut progress = RunProgress::new(simulation.settings.duration, args.quiet);
    let start = Instant::now();
    let report = simulation.run(&mut |row| {
        summary.observe(row);
        progress.reached(row.t);
        if io_error.is_none() {
            io_error = writer.write_row(row).err();
        }
    });
    let wall = start.elapsed();
    progress.finish();
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
    if let Some(mut file) = summary_file {
        writeln!(file, "{summary_line}").map_err(|source| CliError::Output {
            what: "cannot write",
            path: file.target().to_path_buf(),
            source,
        })?;
        commit(file)?;
    }
    if let Some(file) = trajectory_file {
        commit(file)?;
    }
    // The files are complete whatever standard error does.
    if args.summary.is_none() && !args.quiet {
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

fn commit(file: AtomicFile) -> Result<(), CliError> {
    let path = file.target().to_path_buf();
    file.commit().map_err(|source| CliError::Output {
        what: "cannot write",
        path,
        source,
    })
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A recording CSV (t,left_x,left_y,right_x,right_y,dia_x,dia_y,spin).
    pub recording: PathBuf,
    /// Parameters: a JSON file with a `params` object in the scenario format (as `fit` writes).
    #[arg(long, value_name = "PARAMS.json")]
    pub params: Option<PathBuf>,
    /// Prediction horizons, s (multiples of 0.005).
    #[arg(long, value_delimiter = ',', default_value = "0.2,0.5,1,2")]
    pub horizons: Vec<f64>,
    /// Time between starts, s.
    #[arg(long, default_value_t = 0.25)]
    pub stride: f64,
    #[command(flatten)]
    pub settings: ReplaySettingsArgs,
    /// One JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Per-start errors CSV.
    #[arg(short, long, value_name = "ERRORS.csv")]
    pub output: Option<PathBuf>,
}

/// How a replay estimates the string length, the initial diabolo state and the hand paths
/// (shared by `replay` and `fit`).
#[derive(Debug, Args)]
pub struct ReplaySettingsArgs {
    /// Effective string length: `median` (of the taut frames' sums, default), `p98` (98th
    /// percentile of the sums), or a length in m.
    #[arg(long, default_value = "median")]
    pub length: String,
    /// Initial diabolo state: `assimilate` (the model fitted to the frames of the window before
    /// the start), `cubic` (a cubic fitted to the frames of 2 x diabolo-smoothing before the
    /// start) or `centred` (a centred smoothing window: it sees frames after the start).
    #[arg(long, value_enum, default_value_t = InitialArg::Assimilate)]
    pub initial: InitialArg,
    /// Assimilation window W, s (with --initial assimilate).
    #[arg(long, default_value_t = 0.2)]
    pub window: f64,
    /// Half-width of the diabolo smoothing window, s (the cubic uses twice it, before the
    /// start).
    #[arg(long, default_value_t = 0.1)]
    pub diabolo_smoothing: f64,
    /// Half-width of the smoothing window of the recorded hand paths, s.
    #[arg(long, default_value_t = 0.025)]
    pub hand_smoothing: f64,
}

/// `--initial`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum InitialArg {
    Assimilate,
    Cubic,
    Centred,
}

impl ReplaySettingsArgs {
    /// Checks the settings and writes them into `options`.
    fn apply(&self, options: &mut crate::replay::ReplayOptions) -> Result<(), CliError> {
        use crate::replay::{InitialEstimate, LengthEstimate};
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

#[derive(Debug, Args)]
pub struct FitArgs {
    /// Recording CSVs, fitted together.
    #[arg(required = true)]
    pub recordings: Vec<PathBuf>,
    /// The parameters to move: friction, spin_inertia, spin_drag, string_length (a correction
    /// added to every recording's estimated length).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "friction,spin_inertia,spin_drag"
    )]
    pub free: Vec<String>,
    /// Starting values (a `params` JSON file, as for replay).
    #[arg(long, value_name = "PARAMS.json")]
    pub params: Option<PathBuf>,
    /// Horizons of the objective, s.
    #[arg(long, value_delimiter = ',', default_value = "0.2,0.5,1,2")]
    pub horizons: Vec<f64>,
    /// Time between starts, s.
    #[arg(long, default_value_t = 0.25)]
    pub stride: f64,
    /// Weight of the mean spin error (rad/s) in the objective, m per rad/s.
    #[arg(long, default_value_t = 1e-3)]
    pub spin_weight: f64,
    #[command(flatten)]
    pub settings: ReplaySettingsArgs,
    /// Nelder-Mead iterations.
    #[arg(long, default_value_t = 60)]
    pub iterations: u64,
    /// Write the fitted parameters here (a `params` object in the scenario format).
    #[arg(short, long, value_name = "PARAMS.json")]
    pub output: Option<PathBuf>,
}

/// Writes `text` and a newline to standard output. A full or failing standard output is an
/// error that names it (exit 1), never a panic; a reader that stopped early (`| head`) is not
/// an error. Every report of the command goes through here.
fn say(text: impl std::fmt::Display) -> Result<(), CliError> {
    print_line(&mut io::stdout().lock(), "standard output", text)
}

/// Writes `text` and a newline to standard error (notes and summaries), as [`say`] does.
fn note(text: impl std::fmt::Display) -> Result<(), CliError> {
    print_line(&mut io::stderr().lock(), "standard error", text)
}

/// `text` and a newline to `stream`, flushed; a closed pipe is a quiet success.
fn print_line(
    stream: &mut impl Write,
    name: &str,
    text: impl std::fmt::Display,
) -> Result<(), CliError> {
    match writeln!(stream, "{text}").and_then(|()| stream.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        result => result.map_err(|source| CliError::Output {
            what: "cannot write",
            path: name.into(),
            source,
        }),
    }
}

fn input_error(what: String, reason: String) -> CliError {
    CliError::Replay(if reason.starts_with(&what) {
        reason
    } else {
        format!("{what}: {reason}")
    })
}

/// Replay options from a `--params` file (`{"params": {...}, "length_offset": m}`).
fn replay_options(params: Option<&Path>) -> Result<crate::replay::ReplayOptions, CliError> {
    let mut options = crate::replay::ReplayOptions::default();
    let Some(path) = params else {
        return Ok(options);
    };
    let file = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| input_error(file.clone(), e.to_string()))?;
    let document = crate::scenario::strict_json(&text)
        .map_err(|e| input_error(file.clone(), e.to_string()))?;
    let mut params = document
        .get("params")
        .cloned()
        .ok_or_else(|| input_error(file.clone(), "no \"params\" object".into()))?;
    if let Some(fields) = params.as_object_mut() {
        fields
            .entry("string_length")
            .or_insert(serde_json::json!(1.46));
    }
    let spec = crate::scenario::ParamsSpec::from_value(&params)
        .map_err(|e| input_error(file.clone(), e.to_string()))?;
    options.params = *spec.to_params().map_err(CliError::Input)?.values();
    if let Some(offset) = document.get("length_offset").and_then(|v| v.as_f64()) {
        options.length_offset = offset;
    }
    Ok(options)
}

fn replay_command(args: &ReplayArgs) -> Result<(), CliError> {
    use crate::replay::{effective_length, replay, statistics, Recording};
    let rec = Recording::read(&args.recording)
        .map_err(|e| input_error(args.recording.display().to_string(), e.to_string()))?;
    let mut options = replay_options(args.params.as_deref())?;
    options.horizons = args.horizons.clone();
    options.stride = args.stride;
    args.settings.apply(&mut options)?;
    let mut file = args.output.as_deref().map(create).transpose()?;
    let results = replay(&rec, &options)
        .map_err(|e| input_error(args.recording.display().to_string(), e.to_string()))?;
    let stats = statistics(&results, &options.horizons);
    let length = effective_length(&rec, options.length) + options.length_offset;
    let dropped: Vec<(f64, &str)> = results
        .iter()
        .filter_map(|r| r.failure.as_deref().map(|f| (r.start, f)))
        .collect();
    let initial = options.initial.to_string();
    if args.json {
        let horizons: Vec<serde_json::Value> = stats
            .iter()
            .map(|s| {
                let mut row = serde_json::json!({"horizon": s.horizon, "n": s.n});
                for f in s.figures() {
                    row[f.key] = serde_json::json!(f.value);
                }
                row["dropped"] = serde_json::json!(s.dropped);
                row
            })
            .collect();
        let dropped_starts: Vec<serde_json::Value> = dropped
            .iter()
            .map(|(start, error)| serde_json::json!({"start": start, "error": error}))
            .collect();
        say(serde_json::json!({
            "recording": rec.name, "string_length": length, "initial": initial,
            "starts": results.len(), "horizons": horizons, "dropped": dropped.len(),
            "dropped_starts": dropped_starts,
        }))?;
    } else {
        say(format_args!(
            "{}: {} starts every {} s, string length {length:.4} m, initial state: {initial}",
            rec.name,
            results.len(),
            crate::display::Compact(options.stride)
        ))?;
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
        say(format_args!("dropped (run failed): {}", dropped.len()))?;
        for (start, error) in &dropped {
            say(format_args!("  start at t = {start:.3} s: {error}"))?;
        }
    }
    if let Some(mut f) = file.take() {
        let mut text = String::from("start,horizon,position_error,velocity_error,spin_error,stay_error,midpoint_error,failure\n");
        for r in &results {
            for (h, e) in options.horizons.iter().zip(&r.errors) {
                let failure = r.failure.as_deref().unwrap_or("").replace(',', ";");
                match e {
                    Some(e) => text.push_str(&format!(
                        "{:?},{h:?},{:?},{:?},{:?},{:?},{:?},{failure}\n",
                        r.start, e.position, e.velocity, e.spin, e.stay, e.midpoint
                    )),
                    None => text.push_str(&format!("{:?},{h:?},,,,,,{failure}\n", r.start)),
                }
            }
        }
        f.write_all(text.as_bytes())
            .map_err(|source| CliError::Output {
                what: "cannot write",
                path: f.target().to_path_buf(),
                source,
            })?;
        commit(f)?;
    }
    Ok(())
}

fn fit_command(args: &FitArgs) -> Result<(), CliError> {
    use crate::fit::{fit, FitOptions, FreeParameter};
    use crate::replay::Recording;
    let recordings = args
        .recordings
        .iter()
        .map(|p| {
            Recording::read(p).map_err(|e| input_error(p.display().to_string(), e.to_string()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let free = args
        .free
        .iter()
        .map(|s| FreeParameter::parse(s).map_err(|e| input_error("--free".into(), e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let mut replay = replay_options(args.params.as_deref())?;
    replay.horizons = args.horizons.clone();
    replay.stride = args.stride;
    args.settings.apply(&mut replay)?;
    let mut file = args.output.as_deref().map(create).transpose()?;
    let options = FitOptions {
        replay,
        free: free.clone(),
        spin_weight: args.spin_weight,
        max_iterations: args.iterations,
    };
    let report = fit(&recordings, &options).map_err(|e| match e {
        crate::fit::FitError::Replay(e) => input_error("replay".into(), e.to_string()),
        crate::fit::FitError::Parameter(e) => CliError::Replay(e),
        other => CliError::Run(other.to_string()),
    })?;
    let p = &report.fitted.params;
    say(format_args!(
        "fitted on {} recordings ({} objective evaluations):",
        recordings.len(),
        report.evaluations
    ))?;
    for f in &free {
        let value = match f {
            FreeParameter::Friction => p.friction,
            FreeParameter::SpinInertia => p.spin_inertia,
            FreeParameter::SpinDrag => p.spin_drag,
            FreeParameter::StringLength => report.fitted.length_offset,
        };
        say(format_args!(
            "  {:<14} {value:.5}{}",
            f.name(),
            if *f == FreeParameter::StringLength {
                " m (added to each recording's estimated length)"
            } else {
                ""
            }
        ))?;
    }
    say(format_args!("  mean position error {:.4} m -> {:.4} m, mean spin error {:.2} -> {:.2} rad/s (objective {:.5} -> {:.5})",
        report.position_before, report.position_after, report.spin_before, report.spin_after, report.objective_before, report.objective_after))?;
    if let Some(mut f) = file.take() {
        let law = match p.friction_law {
            crate::model::FrictionLaw::Step => "step",
            crate::model::FrictionLaw::Tanh { .. } => "tanh",
            crate::model::FrictionLaw::Bearing => "bearing",
        };
        let document = serde_json::json!({
            "params": {
                "diabolo_mass": p.diabolo_mass, "stick_mass": p.stick_mass, "friction": p.friction,
                "spin_inertia": p.spin_inertia, "spin_drag": p.spin_drag, "gravity": p.gravity,
                "restitution": p.restitution, "friction_law": law,
            },
            "length_offset": report.fitted.length_offset,
            "fit": {
                "recordings": args.recordings.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
                "free": free.iter().map(|f| f.name()).collect::<Vec<_>>(),
                "initial_state": report.fitted.initial.to_string(),
                "position_error_before": report.position_before, "position_error_after": report.position_after,
                "spin_error_before": report.spin_before, "spin_error_after": report.spin_after,
            },
        });
        writeln!(
            f,
            "{}",
            serde_json::to_string_pretty(&document).expect("JSON")
        )
        .map_err(|source| CliError::Output {
            what: "cannot write",
            path: f.target().to_path_buf(),
            source,
        })?;
        commit(f)?;
    }
    Ok(())
}

//! The `diabolo` command: parse the arguments, call the library, report. Exit codes: 0 success,
//! 1 the simulation failed at run time (the trajectory so far is written), 2 invalid input
//! (nothing written).
//!
//! [`args`] holds the clap definitions; each command has its file; this module dispatches,
//! maps errors to exit codes and holds the output helpers the commands share.

mod args;
mod check;
mod completions;
mod input;
mod merge;
mod orbit;
mod plan;
mod plot;
mod replay;
mod run;
mod schema;
mod stabilize;
mod sweep;
mod validate;

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use thiserror::Error;

use args::{Cli, Command};
use diabolo::output::AtomicFile;
use diabolo::scenario::ScenarioError;

/// Why the command did not succeed.
#[derive(Debug, Error)]
pub enum CliError {
    /// A scenario, flag or parameter that cannot be used.
    #[error("{0}")]
    Input(#[from] ScenarioError),
    /// A file or stream that cannot be created or written.
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
        source: diabolo::output::DestinationError,
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
    /// A run or fit that failed while running.
    #[error("{0}")]
    Run(String),
    /// Sweep axes, shards or points that cannot be used.
    #[error("{0}")]
    Sweep(#[from] diabolo::sweep::SweepError),
    /// A recording, parameter file or replay option that cannot be used.
    #[error("{0}")]
    Replay(String),
    /// Trajectories that cannot be compared.
    #[error("{0}")]
    Check(#[from] diabolo::check::CheckError),
    /// A picture that cannot be drawn.
    #[error("{0}")]
    Plot(#[from] diabolo::plot::PlotError),
    /// A check that ran and found deviations (the report is printed).
    #[error("the trajectories differ beyond tolerance")]
    Differ,
    /// An orbit that cannot be looked for (exit 2) or was not found (exit 1).
    #[error("{0}")]
    Orbit(#[from] diabolo::orbit::OrbitError),
    /// An orbit that cannot be stabilized (exit 2) or whose stabilization's runs failed (1).
    #[error("{0}")]
    Stabilize(#[from] diabolo::orbit::StabilizeError),
    /// A task that cannot be planned (exit 2).
    #[error("{0}")]
    Plan(#[from] diabolo::plan::PlanError),
    /// A plan that does not meet every target (exit 1; the best plan is written).
    #[error("the plan misses {0}")]
    Unmet(String),
    /// Shards that do not merge into one sweep (exit 2), or a merge that cannot be written (1).
    #[error("{0}")]
    Merge(#[from] diabolo::sweep::shard::MergeError),
    /// Sweep points failed (their rows say why).
    #[error("{failed} of {points} sweep points failed (see their status and error columns)")]
    PointsFailed { failed: usize, points: usize },
}

impl CliError {
    /// 2 for input errors (nothing was written), 1 for failures while running or writing.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Input(_) | Self::Sweep(_) | Self::Check(_) | Self::Replay(_) => 2,
            Self::Plan(_) => 2,
            Self::Destination { .. } | Self::SharedDestination { .. } => 2,
            Self::Output { what, .. } if what.starts_with("cannot create") => 2,
            Self::Plot(e) if e.is_input() => 2,
            Self::Orbit(e) => e.exit_code(),
            Self::Merge(e) if e.is_input() => 2,
            Self::Stabilize(e) => e.exit_code(),
            _ => 1,
        }
    }
}

/// Runs the command line; the process exit code. Nothing here panics on a full or closed
/// standard output or error: a report that cannot be written is exit 1, and an error message
/// that cannot be written leaves only the exit code. SIGINT, SIGTERM and SIGHUP remove the
/// temporary files and exit with 128 + the signal's number.
pub fn main() -> ExitCode {
    // Started with the first temporary file.
    diabolo::output::remove_temporary_files_on_signals();
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

/// Runs the parsed command.
pub fn execute(cli: Cli) -> Result<(), CliError> {
    diabolo::output::set_durable_commits(cli.fsync);
    match cli.command {
        Command::Run(args) => run::run(&args),
        Command::Validate(args) => validate::validate(&args),
        Command::Sweep(command) => sweep::command(command),
        Command::Check(args) => check::check(&args),
        Command::Plot(args) => plot::plot(&args),
        Command::Animate(args) => plot::animate(&args),
        Command::Replay(args) => replay::replay(&args),
        Command::Fit(args) => replay::fit(&args),
        Command::Orbit(args) => orbit::orbit(&args),
        Command::Plan(args) => plan::plan(&args),
        Command::Schema => schema::schema(),
        Command::Completions(args) => completions::completions(args.shell),
        Command::Man(args) => completions::man(args.subcommand.as_deref()),
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
    use diabolo::output::DestinationError;
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

/// Writes `file` with `write` and commits it; a failure names the file (its temporary file is
/// removed).
fn write_file(
    mut file: AtomicFile,
    write: impl FnOnce(&mut AtomicFile) -> io::Result<()>,
) -> Result<(), CliError> {
    write(&mut file).map_err(|source| CliError::Output {
        what: "cannot write",
        path: file.target().to_path_buf(),
        source,
    })?;
    commit(file)
}

/// Moves the finished `file` into place.
fn commit(file: AtomicFile) -> Result<(), CliError> {
    let path = file.target().to_path_buf();
    file.commit().map_err(|source| CliError::Output {
        what: "cannot write",
        path,
        source,
    })
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

/// An input error of a replay or check option: `what: reason` (`reason` alone when it
/// already names `what`).
fn input_error(what: String, reason: String) -> CliError {
    CliError::Replay(if reason.starts_with(&what) {
        reason
    } else {
        format!("{what}: {reason}")
    })
}

//! The `diabolo` binary: the command line (`src/cli/`) over the `diabolo` library.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}

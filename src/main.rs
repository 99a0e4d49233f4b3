//! The `diabolo` binary: everything happens in [`diabolo::cli`].

fn main() -> std::process::ExitCode {
    diabolo::cli::main()
}

//! `diabolo completions SHELL` and `diabolo man`: the shell completion script and the manual
//! page, both generated from the clap definitions of [`super::args`], to standard output.

use std::io::{self, Write};

use clap::CommandFactory;
use clap_complete::Shell;

use super::args::Cli;
use super::{write_error, CliError};

/// Prints the completion script of `shell`.
pub fn completions(shell: Shell) -> Result<(), CliError> {
    let mut command = Cli::command();
    let name = command.get_name().to_string();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, name, &mut script);
    print(&script)
}

/// Prints the manual page (section 1) of diabolo, or of one of its subcommands
/// (`diabolo-run`, named as `git` names its pages).
pub fn man(subcommand: Option<&str>) -> Result<(), CliError> {
    let top = Cli::command();
    let command = match subcommand {
        None => top,
        Some(name) => page_of(&top, name)?,
    };
    let mut page = Vec::new();
    clap_mangen::Man::new(command)
        .source(concat!("diabolo ", env!("CARGO_PKG_VERSION")))
        .render(&mut page)
        .map_err(|source| write_error(None, source))?;
    print(&page)
}

/// The subcommand `name` of `top`, named `diabolo-NAME` for its page; an unknown name is an
/// input error listing the known ones.
fn page_of(top: &clap::Command, name: &str) -> Result<clap::Command, CliError> {
    let subcommand = top.find_subcommand(name).ok_or_else(|| {
        let known: Vec<&str> = top.get_subcommands().map(clap::Command::get_name).collect();
        super::input_error(
            "man".into(),
            format!(
                "no subcommand `{name}`; give one of {} or none",
                known.join(", ")
            ),
        )
    })?;
    let page = format!("{}-{}", top.get_name(), subcommand.get_name());
    Ok(subcommand.clone().name(page))
}

/// `bytes` to standard output, flushed; a reader that stopped early (`| head`) is not an error.
fn print(bytes: &[u8]) -> Result<(), CliError> {
    let mut stdout = io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        result => result.map_err(|source| write_error(None, source)),
    }
}

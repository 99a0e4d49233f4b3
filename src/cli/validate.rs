//! `diabolo validate`: check a scenario and say what it holds.

use super::args::ValidateArgs;
use super::input::load;
use super::{say, CliError};

/// Loads and builds the scenario; one line naming it, its diabolos and its duration.
pub fn validate(args: &ValidateArgs) -> Result<(), CliError> {
    let (scenario, simulation) = load(&args.input)?;
    let diabolos = simulation.initial.diabolo_count();
    say(format_args!(
        "ok: {} ({} diabolo{}, {} s)",
        scenario.name.as_deref().unwrap_or(&args.input.scenario),
        diabolos,
        if diabolos == 1 { "" } else { "s" },
        simulation.settings.duration
    ))
}

//! `diabolo validate`: check a scenario and say what it holds.

use super::args::ValidateArgs;
use super::input::load_any;
use super::{say, CliError};
use diabolo::scenario::Built;

/// Loads and builds the scenario; one line naming it, its diabolos and its duration.
pub fn validate(args: &ValidateArgs) -> Result<(), CliError> {
    let (scenario, built) = load_any(&args.input)?;
    let (diabolos, duration, space) = match &built {
        Built::Plane(s) => (s.initial.diabolo_count(), s.settings.duration, ""),
        Built::Space(s) => (s.initial.diabolos.len(), s.settings.duration, ", in space"),
    };
    say(format_args!(
        "ok: {} ({} diabolo{}, {} s{})",
        scenario.name.as_deref().unwrap_or(&args.input.scenario),
        diabolos,
        if diabolos == 1 { "" } else { "s" },
        duration,
        space
    ))
}

//! `diabolo check`: compare two trajectory CSVs column by column.

use super::args::CheckArgs;
use super::{input_error, note, say, CliError};
use diabolo::check::{compare_files, CheckOptions};

/// Prints the comparison; [`CliError::Differ`] (exit 1) when a column deviates beyond tolerance.
pub fn check(args: &CheckArgs) -> Result<(), CliError> {
    for (flag, value) in [("--rtol", args.rtol), ("--atol", args.atol)] {
        if !(value.is_finite() && value >= 0.0) {
            return Err(input_error(
                flag.into(),
                format!(
                    "{}: give a tolerance of 0 or more",
                    diabolo::display::Compact(value)
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
    if let Some(warning) = report.grid_warning() {
        note(warning)?;
    }
    say(&report)?;
    if report.passed() {
        Ok(())
    } else {
        Err(CliError::Differ)
    }
}

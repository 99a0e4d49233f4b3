//! What every check of the build shares: the error naming a value out of place (its JSON
//! path, the value, the reason and the fix), and the range checks.

use nalgebra::{SVector, Vector2};

use crate::display::{compact, Compact};
use crate::model::Range;
use crate::scenario::error::ScenarioError;

/// The two hands, as the format names them.
pub(super) const SIDES: [&str; 2] = ["left", "right"];

/// The error of `value` at `path`: why it cannot be used, and what to give instead.
pub(super) fn invalid(
    path: impl Into<String>,
    value: impl ToString,
    reason: impl Into<String>,
    fix: impl Into<String>,
) -> ScenarioError {
    ScenarioError::Invalid {
        path: path.into(),
        value: value.to_string(),
        reason: reason.into(),
        fix: fix.into(),
    }
}

/// A vector from its two components.
pub(super) fn vector(v: [f64; 2]) -> Vector2<f64> {
    Vector2::new(v[0], v[1])
}

/// A vector as the scenario writes it: `[x, y]` (or `[x, y, z]` in space).
pub(super) fn show<const D: usize>(v: SVector<f64, D>) -> String {
    let parts: Vec<String> = v.iter().map(|c| Compact(*c).to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// `value` at `path` must be within `range`.
pub(super) fn within(
    path: impl FnOnce() -> String,
    value: f64,
    range: &Range,
) -> Result<(), ScenarioError> {
    if range.contains(value) {
        return Ok(());
    }
    Err(invalid(
        path(),
        compact(value),
        format!(
            "outside the accepted range {} ({})",
            range.span(),
            range.why
        ),
        format!("give a value {}", range.span()),
    ))
}

/// Each component of `values` at `path[i]` must be within `range`.
pub(super) fn each_within(path: &str, values: &[f64], range: &Range) -> Result<(), ScenarioError> {
    for (i, v) in values.iter().enumerate() {
        within(|| format!("{path}[{i}]"), *v, range)?;
    }
    Ok(())
}

//! The string length of a recording's replay, and the parameters it gives.

use super::error::ReplayError;
use super::options::{LengthEstimate, ReplayOptions};
use super::recording::Recording;
use super::stats::percentile;
use crate::model::{ParamValues, Params};

/// The effective string length of a recording from its sums, m (NaN when no frame has the
/// diabolo below the tips).
pub fn effective_length(rec: &Recording, estimate: LengthEstimate) -> f64 {
    let mut sums = rec.sums_below_the_tips();
    sums.sort_by(f64::total_cmp);
    let p98 = percentile(&sums, 0.98);
    match estimate {
        LengthEstimate::Percentile98 => p98,
        LengthEstimate::MedianTaut => {
            let taut: Vec<f64> = sums
                .iter()
                .copied()
                .filter(|s| (s - p98).abs() <= 0.02)
                .collect();
            percentile(&taut, 0.5)
        }
        LengthEstimate::Fixed(length) => length,
    }
}

/// The string length of a recording's replay and what it comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReplayLength {
    /// L: the length the replay uses, m.
    pub length: f64,
    /// The estimate from the taut frames' sums (or the given `--length`) plus the options'
    /// `length_offset`, m.
    pub taut: f64,
    /// The farthest the recorded tips get apart, m ([`Recording::tips_span`]).
    pub tips_span: f64,
}

/// The string length of a recording's replay: the estimate from its taut frames plus
/// `length_offset`, but no shorter than the tips' span when the string is inextensible and the
/// length is estimated (the recorded hands pull a real string longer than its hanging length,
/// as at a throw's launch; an inextensible string shorter than their span cannot be driven).
/// A given `--length` and a compliant string are used as they are.
pub fn replay_length(
    rec: &Recording,
    options: &ReplayOptions,
) -> Result<ReplayLength, ReplayError> {
    let taut = effective_length(rec, options.length) + options.length_offset;
    if !taut.is_finite() {
        return Err(ReplayError::Recording {
            file: rec.name.clone(),
            reason: "no frame has the diabolo below the line of the tips, so the string \
                     length cannot be estimated from taut frames; give --length METRES"
                .into(),
        });
    }
    let tips_span = rec.tips_span();
    let estimated = !matches!(options.length, LengthEstimate::Fixed(_));
    let inextensible = options.params.string_stiffness.is_none();
    let length = if estimated && inextensible {
        taut.max(tips_span)
    } else {
        taut
    };
    Ok(ReplayLength {
        length,
        taut,
        tips_span,
    })
}

/// The parameters of a recording's replay: the options' values with the string length of
/// [`replay_length`].
pub fn recording_params(rec: &Recording, options: &ReplayOptions) -> Result<Params, ReplayError> {
    Params::new(ParamValues {
        string_length: replay_length(rec, options)?.length,
        ..options.params
    })
    .map_err(|e| ReplayError::Options {
        what: format!("params.{}", e.field),
        reason: format!("{} ({})", e.requirement, e.value),
    })
}

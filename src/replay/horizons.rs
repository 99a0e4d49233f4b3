//! The prediction horizons: which a recording holds, checked before anything runs.

use super::error::ReplayError;
use super::options::ReplayOptions;
use super::recording::Recording;
use crate::display::Compact;

/// The most prediction horizons of one replay (each is a column of the report).
pub const MAX_HORIZONS: usize = 100;

/// The time from a recording's first frame to its first start, s: room for the smoothing
/// windows and the assimilation window (the same starts for any window up to 0.1 s).
pub(super) fn first_start(options: &ReplayOptions) -> f64 {
    (2.5 * options.smoothing.max(options.diabolo_smoothing))
        .max(0.25)
        .max(options.initial.lead())
}

/// The longest horizon a recording holds: from its first start to its last frame, s.
pub fn longest_horizon(rec: &Recording, options: &ReplayOptions) -> f64 {
    rec.duration() - first_start(options)
}

/// A recording's share of the options' horizons.
#[derive(Clone, Debug, PartialEq)]
pub struct HeldHorizons {
    /// The options with only the horizons the recording holds (possibly none).
    pub options: ReplayOptions,
    /// The horizons left out: longer than [`longest_horizon`], s.
    pub left_out: Vec<f64>,
    /// The recording's [`longest_horizon`], s.
    pub longest: f64,
}

impl HeldHorizons {
    /// The horizons of `options` that `rec` holds, and those it leaves out.
    pub fn of(rec: &Recording, options: &ReplayOptions) -> Self {
        let longest = longest_horizon(rec, options);
        let (held, left_out) = options.horizons.iter().partition(|&&h| h <= longest + 1e-9);
        Self {
            options: ReplayOptions {
                horizons: held,
                ..options.clone()
            },
            left_out,
            longest,
        }
    }
}

/// Each recording's share of the horizons ([`HeldHorizons::of`]). Horizons that are not
/// positive multiples of 0.005 s are an error; so is a horizon that no recording holds when
/// the horizons were `given`, and (the defaults) no horizon held by any recording. The error
/// names the horizon and the recording that comes closest.
pub fn plan_horizons(
    recordings: &[Recording],
    options: &ReplayOptions,
    given: bool,
) -> Result<Vec<HeldHorizons>, ReplayError> {
    check_horizons(&options.horizons)?;
    let plans: Vec<HeldHorizons> = recordings
        .iter()
        .map(|rec| HeldHorizons::of(rec, options))
        .collect();
    let mut held_by_none = options
        .horizons
        .iter()
        .filter(|h| plans.iter().all(|p| p.left_out.contains(h)));
    let unheld = if given {
        held_by_none.next()
    } else {
        // The defaults: an error only when none is held, naming the shortest.
        let shortest = options.horizons.iter().min_by(|a, b| a.total_cmp(b));
        shortest.filter(|h| plans.iter().all(|p| p.left_out.contains(h)))
    };
    if let (Some(h), Some((rec, plan))) = (
        unheld,
        recordings
            .iter()
            .zip(&plans)
            .max_by(|a, b| a.1.longest.total_cmp(&b.1.longest)),
    ) {
        return Err(ReplayError::Options {
            what: "--horizons".into(),
            reason: too_long(*h, rec, plan.longest),
        });
    }
    Ok(plans)
}

/// Why horizon `h` is longer than the recording holds.
pub(super) fn too_long(h: f64, rec: &Recording, longest: f64) -> String {
    format!(
        "{} s is longer than the recording {} holds ({} s long, its first start {} s in: at \
         most {} s); give shorter horizons",
        Compact(h),
        rec.name,
        Compact(rec.duration()),
        Compact(rec.duration() - longest),
        Compact(longest)
    )
}

/// Horizons: 1 to [`MAX_HORIZONS`], positive, finite multiples of 0.005 s.
pub(super) fn check_horizons(horizons: &[f64]) -> Result<(), ReplayError> {
    let bad = |reason: String| ReplayError::Options {
        what: "--horizons".into(),
        reason,
    };
    if horizons.is_empty() || horizons.iter().any(|h| !(h.is_finite() && *h > 0.0)) {
        return Err(bad("give positive horizons in s, e.g. 0.2,0.5,1,2".into()));
    }
    if horizons.len() > MAX_HORIZONS {
        return Err(bad(format!(
            "{} horizons: give at most {MAX_HORIZONS}",
            horizons.len()
        )));
    }
    if horizons
        .iter()
        .any(|h| ((h / 0.005).round() * 0.005 - h).abs() > 1e-9)
    {
        return Err(bad("horizons must be multiples of 0.005 s".into()));
    }
    Ok(())
}

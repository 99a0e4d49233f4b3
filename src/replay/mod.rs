//! Replay of motion-capture recordings (`diabolo replay`): for start times along a recording,
//! the measured diabolo (position, velocity from a smoothing differentiator, spin) is the
//! initial state, both sticks follow the recorded tip paths, and the simulated diabolo is
//! compared with the measured one at each prediction horizon. Two naive baselines are measured
//! alongside: the diabolo stays where it was, and the diabolo moves rigidly with the midpoint of
//! the hands.
//!
//! - `recording`: a recording read and measured (planar, or with the 3D columns: `space`,
//!   which also smooths the axle); `baseline`: the "stays as it is" forecasts of the axle's
//!   tilt and turn and of the centre's distance from the plane; `options`: what to replay and how;
//!   `length`: the string length a recording's replay uses; `horizons`: the prediction
//!   horizons a recording holds.
//! - `start`: one start's simulation and its errors; `estimate`: the initial diabolo
//!   state of a start; `fit`: the Levenberg-Marquardt least squares and the samples both
//!   assimilations (in the plane and in space) fit; `stats`: the statistics over the starts and
//!   the per-start errors CSV.
//! - `in_space`: a start of a recording with the 3D columns replayed by the model in space
//!   (unless [`ReplayOptions::planar`]): the tips on their 3D paths, the initial state
//!   assimilated in 3D, the axle from the smoothed recorded one; errors in 3D with the axle's
//!   tilt and turn and the distance from the plane, next to the "stays as it is" forecasts.

mod baseline;
mod error;
mod estimate;
mod fit;
mod horizons;
mod in_space;
mod length;
mod options;
mod recording;
mod space;
mod start;
mod stats;

use rayon::prelude::*;

use crate::display::Compact;

use horizons::{check_horizons, first_start, too_long};
use start::replay_start;

pub use baseline::{stay_baselines, SpaceBaseline};
pub use error::ReplayError;
pub use horizons::{longest_horizon, plan_horizons, HeldHorizons, MAX_HORIZONS};
pub use in_space::replays_in_space;
pub use length::{effective_length, recording_params, replay_length, ReplayLength};
pub use options::{InitialEstimate, LengthEstimate, ReplayOptions};
pub use recording::{Recording, AXLE_RADIUS, RECORDING_COLUMNS, SPACE_COLUMNS};
pub use space::{Space, AXLE_SMOOTHING};
pub use start::{start_simulation, StartRun};
pub use stats::{
    percentile, statistics, write_start_errors, Figure, HorizonError, HorizonStats,
    RecordingErrors, SpaceErrors, SpaceStats, StartResult, SPACE_ERROR_COLUMNS,
    START_ERROR_COLUMNS,
};

/// The most starts of one replay: each start is a simulation (about 30 ms), so 20,000 are
/// about 5 minutes on two cores; a stride below the frame interval is refused before this.
pub const MAX_STARTS: usize = 20_000;

/// Replays every start of the recording (in parallel; results in start order): by the model in
/// space when the recording has the 3D columns (unless [`ReplayOptions::planar`]), else by the
/// planar model on its x and y.
pub fn replay(rec: &Recording, options: &ReplayOptions) -> Result<Vec<StartResult>, ReplayError> {
    replay_with_progress(rec, options, &|_, _| {})
}

/// Replays several recordings with the same options and pools their starts: each recording at
/// the horizons it holds ([`HeldHorizons::of`]; the others count as missing for its starts),
/// then the statistics of every start together (a mean over all starts, so a recording weighs
/// by its number of starts). Recordings that hold none of the horizons are left out.
pub fn replay_pooled(
    recordings: &[Recording],
    options: &ReplayOptions,
) -> Result<Vec<HorizonStats>, ReplayError> {
    let mut pooled = Vec::new();
    for rec in recordings {
        let held = HeldHorizons::of(rec, options).options;
        if held.horizons.is_empty() {
            continue;
        }
        for result in replay(rec, &held)? {
            let errors = options
                .horizons
                .iter()
                .map(|h| {
                    let k = held.horizons.iter().position(|x| x == h)?;
                    result.errors[k]
                })
                .collect();
            pooled.push(StartResult { errors, ..result });
        }
    }
    Ok(statistics(&pooled, &options.horizons))
}

/// [`replay`], calling `progress(done, starts)` as each start is replayed (from any thread).
pub fn replay_with_progress(
    rec: &Recording,
    options: &ReplayOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Vec<StartResult>, ReplayError> {
    let bad = |what: &str, reason: &str| ReplayError::Options {
        what: what.into(),
        reason: reason.into(),
    };
    check_horizons(&options.horizons)?;
    let (first, last) = (rec.t[0], rec.t[rec.t.len() - 1]);
    let longest = longest_horizon(rec, options);
    if let Some(h) = options.horizons.iter().find(|&&h| h > longest + 1e-9) {
        return Err(bad("--horizons", &too_long(*h, rec, longest)));
    }
    if !(options.stride.is_finite() && options.stride > 0.0) {
        return Err(bad("--stride", "give a positive time between starts, s"));
    }
    let frame = rec.frame_interval();
    if options.stride < frame * (1.0 - 1e-9) {
        return Err(bad(
            "--stride",
            &format!(
                "{} s is shorter than the recording's frame interval ({} s): starts between \
                 frames add no information; give a stride of at least {}",
                Compact(options.stride),
                Compact(frame),
                Compact(frame)
            ),
        ));
    }
    let params = recording_params(rec, options)?;
    let space = if replays_in_space(rec, options) {
        in_space::SpaceSeries::of(rec)
            .map(|series| Ok((series, in_space::space_params(params, options)?)))
            .transpose()?
    } else {
        None
    };
    let margin = first_start(options);
    let shortest = options
        .horizons
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min);
    let count = ((last - shortest - first - margin) / options.stride).floor() + 1.0;
    if count > MAX_STARTS as f64 {
        return Err(bad(
            "--stride",
            &format!(
                "{} s gives {} starts, more than the {MAX_STARTS} a replay may have (each is a \
                 simulation); give a stride of at least {} s",
                Compact(options.stride),
                Compact(count),
                Compact((last - shortest - first - margin) / (MAX_STARTS - 1) as f64)
            ),
        ));
    }
    let starts: Vec<f64> = (0..)
        .map(|k| first + margin + k as f64 * options.stride)
        .take_while(|s| s + shortest <= last + 1e-9)
        .collect();
    let done = std::sync::atomic::AtomicUsize::new(0);
    Ok(starts
        .par_iter()
        .map(|&start| {
            let result = match &space {
                Some((series, space_params)) => {
                    in_space::replay_space_start(rec, series, options, space_params, start)
                }
                None => replay_start(rec, options, &params, start),
            };
            let done = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress(done, starts.len());
            result
        })
        .collect())
}

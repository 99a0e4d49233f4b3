//! One start: its simulation from the estimated diabolo on the recorded hand paths, and its
//! errors at each horizon against the measured diabolo and the two baselines.

use nalgebra::Vector2;

use super::estimate::{assimilate, past_cubic, smoothed_estimate};
use super::options::ReplayOptions;
use super::recording::{Recording, AXLE_RADIUS};
use super::stats::{HorizonError, StartResult};
use crate::model::{taut_point_below, Body, CartesianState, DiaboloState, Params};
use crate::simulation::drive::{Drive, Path as HandPath, SampledPath};
use crate::simulation::DiaboloMode;
use crate::simulation::{Settings, Simulation};

/// The simulation of one start (see [`start_simulation`]).
pub struct StartRun {
    /// Runs from `start - lead` (recording time) for `lead + duration` seconds.
    pub simulation: Simulation,
    /// The smoothed paths (left tip, right tip, diabolo), time 0 at `start - lead`.
    pub paths: [SampledPath; 3],
    /// How long before the start the simulation begins, s: 0, or the assimilation window
    /// (see [`InitialEstimate::Assimilated`](super::InitialEstimate::Assimilated)).
    pub lead: f64,
    /// The measured diabolo position at the start by the smoothing differentiator (past cubic,
    /// or centred window): where the baselines start from, m.
    pub measured: Vector2<f64>,
}

/// The simulation of one start: the measured diabolo at `start` (smoothed position and
/// velocity, spin) on the string of the recording's effective length, both sticks on their
/// recorded paths, for `duration` seconds after the start. With an assimilation window W the
/// simulation begins at `start - W` from the state whose simulated motion best matches the
/// frames of [start - W, start] (see [`InitialEstimate::Assimilated`](super::InitialEstimate::Assimilated)).
pub fn start_simulation(
    rec: &Recording,
    options: &ReplayOptions,
    params: &Params,
    start: f64,
    duration: f64,
) -> Result<StartRun, String> {
    let lead = options.initial.lead();
    let from = start - lead;
    let paths = recorded_paths(rec, options, from, lead + duration)?;
    let at_start = smoothed_estimate(rec, options, paths[2].at(lead), start);
    let first = if lead > 0.0 {
        past_cubic(rec, start, lead, -lead).unwrap_or_else(|| paths[2].at(0.0))
    } else {
        at_start
    };
    let guess = DiaboloState {
        pos: first.pos,
        vel: first.vel,
        spin: -AXLE_RADIUS * rec.spin_at(from),
        knot: 0,
    };
    let build = |d: &DiaboloState, until: f64| simulation_from(options, params, &paths, d, until);
    let initial = if lead > 0.0 {
        assimilate(rec, from, lead, guess, &build)
    } else {
        guess
    };
    let simulation = build(&initial, lead + duration)?;
    Ok(StartRun {
        simulation,
        paths,
        lead,
        measured: at_start.pos,
    })
}

/// The smoothed recorded paths (left tip, right tip, diabolo) from `from` for `duration` s,
/// time 0 at `from`.
fn recorded_paths(
    rec: &Recording,
    options: &ReplayOptions,
    from: f64,
    duration: f64,
) -> Result<[SampledPath; 3], String> {
    let margin = (4.0 * options.smoothing.max(options.diabolo_smoothing)).max(0.1);
    let path = |series: &[Vector2<f64>], half_window: f64| {
        SampledPath::new(
            rec.window(series, from, from + duration, margin),
            half_window,
        )
        .map_err(|e| format!("too few frames around the start: {e}"))
    };
    Ok([
        path(&rec.left, options.smoothing)?,
        path(&rec.right, options.smoothing)?,
        path(&rec.dia, options.diabolo_smoothing)?,
    ])
}

/// A simulation of `duration` s from the paths' time 0 with the diabolo in state `diabolo` (put
/// on the string if it is beyond its reach) and the sticks on their paths.
fn simulation_from(
    options: &ReplayOptions,
    params: &Params,
    paths: &[SampledPath; 3],
    diabolo: &DiaboloState,
    duration: f64,
) -> Result<Simulation, String> {
    let [left, right, _] = paths;
    let body = |p: &SampledPath| {
        let q = p.at(0.0);
        Body {
            pos: q.pos,
            vel: q.vel,
        }
    };
    let mut state = CartesianState {
        left: body(left),
        right: body(right),
        diabolos: vec![*diabolo],
    };
    // A diabolo above the line of the tips has left the string: it starts flying. (On the
    // string it hangs on the right of the line from the left tip to the right one.)
    let chord = state.right.pos - state.left.pos;
    let flying = chord.perp(&(diabolo.pos - state.left.pos)) > 0.0;
    // A start beyond the inextensible string's reach (noise, stretch), or within `taut_band` of
    // it, is put on the string: moved along y. A compliant string starts as it was measured,
    // stretched or not.
    let compliant = params.string_stiffness.is_some();
    if !flying && !compliant && state.string_used() > params.string_length - options.taut_band {
        // The point of the taut string below the tips at the same x (if there is one: else the
        // run reports the sticks too far apart).
        let d = &mut state.diabolos[0];
        if let Ok(p) = taut_point_below(
            state.left.pos,
            state.right.pos,
            d.pos.x,
            params.string_length,
        ) {
            d.pos = p;
        }
    }
    let drives = [
        Drive::Path(HandPath::Samples(left.clone())),
        Drive::Path(HandPath::Samples(right.clone())),
    ];
    let settings = Settings {
        duration,
        output_interval: 0.005,
        rtol: options.rtol,
        atol: options.rtol * 1e-3,
        ..Settings::default()
    };
    let mode = if flying {
        DiaboloMode::Flying
    } else {
        DiaboloMode::String
    };
    Simulation::with_modes(*params, drives, state, vec![mode], settings).map_err(|e| e.to_string())
}

/// Replays the start at `start`: runs it to the longest horizon the recording holds after it
/// and measures the errors at each horizon.
impl StartResult {
    /// The longest horizon the recording holds after `start` (s), and the start's result with
    /// no horizon measured yet.
    pub(super) fn empty(
        rec: &Recording,
        options: &ReplayOptions,
        start: f64,
        space: bool,
    ) -> (f64, Self) {
        let last = rec.t[rec.t.len() - 1];
        let longest = options
            .horizons
            .iter()
            .copied()
            .filter(|h| start + h <= last + 1e-9)
            .fold(0.0, f64::max);
        let result = StartResult {
            start,
            errors: vec![None; options.horizons.len()],
            failure: None,
            space,
        };
        (longest, result)
    }
}

pub(super) fn replay_start(
    rec: &Recording,
    options: &ReplayOptions,
    params: &Params,
    start: f64,
) -> StartResult {
    let (longest, mut result) = StartResult::empty(rec, options, start, false);
    let last = rec.t[rec.t.len() - 1];
    let StartRun {
        simulation,
        paths: [left, right, dia],
        lead,
        measured,
    } = match start_simulation(rec, options, params, start, longest) {
        Ok(s) => s,
        Err(e) => {
            result.failure = Some(e);
            return result;
        }
    };
    let hands = (left, right);
    let mut rows = Vec::with_capacity(options.horizons.len());
    let report = simulation.run(&mut |row| {
        if options
            .horizons
            .iter()
            .any(|h| (row.t - lead - h).abs() < 1e-9)
        {
            rows.push((row.t - lead, row.state.diabolos[0]));
        }
    });
    result.failure = report.failure.map(|f| f.to_string());
    let midpoint = |p: &SampledPath, q: &SampledPath, t: f64| 0.5 * (p.at(t).pos + q.at(t).pos);
    let start_mid = midpoint(&hands.0, &hands.1, lead);
    for (k, h) in options.horizons.iter().enumerate() {
        if start + h > last + 1e-9 {
            continue;
        }
        let Some((_, sim)) = rows.iter().find(|(t, _)| (t - h).abs() < 1e-9) else {
            continue;
        };
        let truth = rec.at(&rec.dia, start + h);
        let truth_vel = dia.at(lead + h).vel;
        result.errors[k] = Some(HorizonError {
            position: (sim.pos - truth).norm(),
            velocity: (sim.vel - truth_vel).norm(),
            spin: (-sim.spin / AXLE_RADIUS - rec.spin_at(start + h)).abs(),
            stay: (measured - truth).norm(),
            midpoint: (measured + (midpoint(&hands.0, &hands.1, lead + h) - start_mid) - truth)
                .norm(),
            space: None,
        });
    }
    result
}

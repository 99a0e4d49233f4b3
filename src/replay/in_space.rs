//! One start replayed by the model in space (a recording with the 3D columns): both sticks on
//! their recorded 3D tip paths, the diabolo's initial centre, velocity and spin assimilated in
//! three dimensions as the planar replay does in the plane, the axle from the smoothed recorded
//! axle, and the errors at each horizon in 3D with those of the axle's tilt and turn and of the
//! distance from the plane, next to the "stays as it is" forecasts.
//!
//! The model in space does not follow everything yet: a run that stops (the diabolo leaves the
//! string, the string reaches a cup, ...) keeps the horizons before the stop and is counted as
//! the planar replay counts its failed runs (`failure`, `dropped`).

use nalgebra::{DVector, Matrix4, SVector, Vector3, Vector4};

use super::error::ReplayError;
use super::fit::{levenberg_marquardt, sample_at, sample_count, SPIN_RESIDUAL_WEIGHT};
use super::options::{InitialEstimate, ReplayOptions};
use super::recording::Recording;
use super::space::AXLE_SMOOTHING;
use super::stats::{HorizonError, SpaceErrors, StartResult};
use crate::display::Compact;
use crate::model::axle_angles::{facing_audience, tilt, turn_difference};
use crate::model::space::{SpaceBody, SpaceDiabolo, SpaceParams, SpaceState};
use crate::model::Params;
use crate::output::table::locate;
use crate::simulation::drive::{Drive, Path as HandPath, PathPoint, SampledPath};
use crate::simulation::space::{SpaceSettings, SpaceSimulation, SpaceStatus};
use crate::simulation::StepperOptions;

/// The series of a 3D recording as the model in space reads them: each point in 3D, and the
/// axle smoothed of its wobble ([`AXLE_SMOOTHING`]).
pub(super) struct SpaceSeries {
    left: Vec<Vector3<f64>>,
    right: Vec<Vector3<f64>>,
    dia: Vec<Vector3<f64>>,
    axle: Vec<Vector3<f64>>,
}

impl SpaceSeries {
    /// The 3D series of `rec` (None for a planar recording).
    pub(super) fn of(rec: &Recording) -> Option<Self> {
        let space = rec.space.as_ref()?;
        let lift = |xy: &[nalgebra::Vector2<f64>], z: &[f64]| {
            xy.iter()
                .zip(z)
                .map(|(p, z)| Vector3::new(p.x, p.y, *z))
                .collect()
        };
        Some(Self {
            left: lift(&rec.left, &space.left_z),
            right: lift(&rec.right, &space.right_z),
            dia: lift(&rec.dia, &space.dia_z),
            axle: space.smoothed_axle(&rec.t, AXLE_SMOOTHING),
        })
    }
}

/// The value of a 3D series at t, linear between frames (held at the ends).
fn at(t: &[f64], series: &[Vector3<f64>], time: f64) -> Vector3<f64> {
    let (i, f) = locate(t, time);
    if f == 0.0 {
        series[i]
    } else {
        series[i] + (series[i + 1] - series[i]) * f
    }
}

/// The parameters of a recording's replay in space: the planar ones (string length estimated,
/// a compliant string's stiffness and damping as given) with the options' axle.
pub(super) fn space_params(
    params: Params,
    options: &ReplayOptions,
) -> Result<SpaceParams, ReplayError> {
    SpaceParams::new(params, options.axle).map_err(|e| ReplayError::Options {
        what: format!("params.{}", e.field),
        reason: format!("{} ({})", e.requirement, Compact(e.value)),
    })
}

/// A cubic fitted by least squares to the frames of `series` in [lo, hi], evaluated at `at`
/// (None with fewer than 6 frames).
fn cubic_fit(
    t: &[f64],
    series: &[Vector3<f64>],
    lo: f64,
    hi: f64,
    at: f64,
) -> Option<PathPoint<3>> {
    let scale = (hi - lo).max(1e-9);
    let basis = |x: f64| Vector4::new(1.0, x, x * x, x * x * x);
    let mut normal = Matrix4::<f64>::zeros();
    let mut rhs = nalgebra::Matrix4x3::<f64>::zeros();
    let mut frames = 0;
    for (ti, p) in t.iter().zip(series) {
        if *ti >= lo - 1e-12 && *ti <= hi + 1e-12 {
            let b = basis((ti - hi) / scale);
            normal += b * b.transpose();
            rhs += b * p.transpose();
            frames += 1;
        }
    }
    if frames < 6 {
        return None;
    }
    let c = normal.lu().solve(&rhs)?;
    let x = (at - hi) / scale;
    let value = |row: Vector4<f64>| {
        let v = c.transpose() * row;
        Vector3::new(v[0], v[1], v[2])
    };
    Some(PathPoint {
        pos: value(basis(x)),
        vel: value(Vector4::new(0.0, 1.0, 2.0 * x, 3.0 * x * x)) / scale,
        acc: value(Vector4::new(0.0, 0.0, 2.0, 6.0 * x)) / (scale * scale),
    })
}

/// The simulation of one start in space (see [`space_start`]).
struct SpaceStartRun {
    simulation: SpaceSimulation<Drive<3>>,
    /// The smoothed diabolo path, time 0 at `start - lead`.
    dia: SampledPath<3>,
    /// The smoothed hand paths (left, right), time 0 at `start - lead`.
    hands: [SampledPath<3>; 2],
    lead: f64,
    /// The measured centre at the start (past cubic, or centred window), m.
    measured: Vector3<f64>,
    /// The smoothed recorded axle at the start: the "stays as it is" forecast of the axle.
    axle_at_start: Vector3<f64>,
}

/// The simulation in space of one start, as the planar replay builds its own
/// ([`super::start_simulation`]): the tips on their smoothed 3D paths from `start - lead`, the
/// diabolo's centre, velocity and spin assimilated over the window before the start (or by a
/// past cubic, or a centred window), its axle and the axle's rate from a local cubic fit of the
/// smoothed recorded axle at `start - lead` over the frames within `diabolo_smoothing` of it
/// and not after the start.
fn space_start(
    rec: &Recording,
    series: &SpaceSeries,
    options: &ReplayOptions,
    params: &SpaceParams,
    start: f64,
    duration: f64,
) -> Result<SpaceStartRun, String> {
    let lead = options.initial.lead();
    let from = start - lead;
    let margin = (4.0 * options.smoothing.max(options.diabolo_smoothing)).max(0.1);
    let path = |s: &[Vector3<f64>], half_window: f64| {
        let samples: Vec<(f64, SVector<f64, 3>)> = rec
            .t
            .iter()
            .zip(s)
            .filter(|(t, _)| **t >= from - margin && **t <= from + lead + duration + margin)
            .map(|(t, p)| (t - from, *p))
            .collect();
        SampledPath::new(samples, half_window)
            .map_err(|e| format!("too few frames around the start: {e}"))
    };
    let left = path(&series.left, options.smoothing)?;
    let right = path(&series.right, options.smoothing)?;
    let dia = path(&series.dia, options.diabolo_smoothing)?;
    let window = 2.0 * options.diabolo_smoothing;
    let past =
        |window: f64, at: f64| cubic_fit(&rec.t, &series.dia, start - window, start, start + at);
    let at_start = match options.initial {
        InitialEstimate::Centred => dia.at(lead),
        _ => past(window, 0.0).unwrap_or_else(|| dia.at(lead)),
    };
    let first = if lead > 0.0 {
        past(lead, -lead).unwrap_or_else(|| dia.at(0.0))
    } else {
        at_start
    };
    let d = options.diabolo_smoothing;
    let axle_fit = cubic_fit(&rec.t, &series.axle, from - d, (from + d).min(start), from);
    let (axle, axle_rate) = match axle_fit {
        Some(fit) if fit.pos.norm() > 0.5 => {
            let a = facing_audience(&fit.pos.normalize());
            let rate = fit.vel / fit.pos.norm();
            (a, rate - a * a.dot(&rate))
        }
        _ => (
            facing_audience(&at(&rec.t, &series.axle, from).normalize()),
            Vector3::zeros(),
        ),
    };
    let guess = SpaceDiabolo {
        pos: first.pos,
        vel: first.vel,
        spin: -params.axle_radius * rec.spin_at(from),
        knot: 0,
        axle,
        axle_rate,
    };
    let hands = [left, right];
    let build = |d: &SpaceDiabolo, until: f64| simulation_from(options, params, &hands, d, until);
    let initial = if lead > 0.0 {
        assimilate(rec, series, params.axle_radius, from, lead, guess, &build)
    } else {
        guess
    };
    Ok(SpaceStartRun {
        simulation: build(&initial, lead + duration),
        dia,
        hands,
        lead,
        measured: at_start.pos,
        axle_at_start: at(&rec.t, &series.axle, start),
    })
}

/// A run in space of `duration` s from the paths' time 0 with the diabolo in state `d`, put on
/// the string when it is beyond its reach (moved along y, as the planar replay does) unless it
/// is above the line of the tips (it has left the string, which the run reports) or the string
/// is compliant (it starts as measured, stretched), its velocity then made tangent to the
/// string.
fn simulation_from(
    options: &ReplayOptions,
    params: &SpaceParams,
    hands: &[SampledPath<3>; 2],
    d: &SpaceDiabolo,
    duration: f64,
) -> SpaceSimulation<Drive<3>> {
    let body = |p: &SampledPath<3>| {
        let q = p.at(0.0);
        SpaceBody {
            pos: q.pos,
            vel: q.vel,
        }
    };
    let (left, right) = (body(&hands[0]), body(&hands[1]));
    let mut diabolo = *d;
    let length = params.planar.values().string_length;
    let sum = |p: &Vector3<f64>| (p - left.pos).norm() + (right.pos - p).norm();
    let chord = right.pos.xy() - left.pos.xy();
    let above = chord.perp(&(diabolo.pos.xy() - left.pos.xy())) > 0.0;
    let compliant = params.planar.elastic().is_some();
    if !above && !compliant && sum(&diabolo.pos) > length - options.taut_band {
        if let Some(y) = taut_height_below(&left.pos, &right.pos, &diabolo.pos, length) {
            diabolo.pos.y = y;
            // No velocity along the string's gradient (the tips' motion is prescribed).
            let u_left = (diabolo.pos - left.pos).normalize();
            let u_right = (right.pos - diabolo.pos).normalize();
            let gradient = u_left - u_right;
            let rate = gradient.dot(&diabolo.vel) + u_right.dot(&right.vel) - u_left.dot(&left.vel);
            let norm = gradient.norm_squared();
            if norm > 0.0 {
                diabolo.vel -= gradient * (rate / norm);
            }
        }
    }
    let initial = SpaceState {
        left,
        right,
        diabolos: vec![diabolo],
    };
    SpaceSimulation {
        params: *params,
        hands: [
            Drive::Path(HandPath::Samples(hands[0].clone())),
            Drive::Path(HandPath::Samples(hands[1].clone())),
        ],
        initial,
        modes: vec![crate::simulation::DiaboloMode::String],
        settings: SpaceSettings {
            duration,
            output_interval: 0.005,
            stepper: StepperOptions {
                rtol: options.rtol,
                atol: options.rtol * 1e-3,
                ..StepperOptions::default()
            },
            ..SpaceSettings::default()
        },
    }
}

/// The height y below the tips at the x and z of `p` where the string of `length` through the
/// point is taut (|p - left| + |right - p| = length), if there is one.
fn taut_height_below(
    left: &Vector3<f64>,
    right: &Vector3<f64>,
    p: &Vector3<f64>,
    length: f64,
) -> Option<f64> {
    let sum = |y: f64| {
        let q = Vector3::new(p.x, y, p.z);
        (q - left).norm() + (right - q).norm()
    };
    // The sum is convex in y: its lowest value on the vertical line, by golden section.
    let (mut a, mut b) = (left.y.min(right.y) - length, left.y.max(right.y) + length);
    let ratio = 0.5 * (5f64.sqrt() - 1.0);
    for _ in 0..100 {
        let (c, d) = (b - ratio * (b - a), a + ratio * (b - a));
        if sum(c) < sum(d) {
            b = d;
        } else {
            a = c;
        }
    }
    let top = 0.5 * (a + b);
    if sum(top) > length {
        return None;
    }
    // Below it the sum falls as y rises: bisection between far below and the lowest sum.
    let (mut lo, mut hi) = (left.y.min(right.y) - length, top);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if sum(mid) > length {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(lo)
}

/// The unknowns of the assimilation: centre, velocity, spin w.
fn to_vector(d: &SpaceDiabolo) -> DVector<f64> {
    DVector::from_vec(vec![
        d.pos.x, d.pos.y, d.pos.z, d.vel.x, d.vel.y, d.vel.z, d.spin,
    ])
}

fn from_vector(x: &DVector<f64>, like: &SpaceDiabolo) -> SpaceDiabolo {
    SpaceDiabolo {
        pos: Vector3::new(x[0], x[1], x[2]),
        vel: Vector3::new(x[3], x[4], x[5]),
        spin: x[6],
        ..*like
    }
}

/// The initial centre, velocity and spin at `from` whose run in space over the next `window`
/// seconds best matches the measured frames, as the planar assimilation does in x-y: least
/// squares on the centre's three coordinates (m) and the spin (weighted) every 0.01 s up to the
/// last frame at or before the start, Levenberg-Marquardt from the guess. The axle is kept as
/// the recording gives it at `from`.
fn assimilate(
    rec: &Recording,
    series: &SpaceSeries,
    radius: f64,
    from: f64,
    window: f64,
    guess: SpaceDiabolo,
    build: &dyn Fn(&SpaceDiabolo, f64) -> SpaceSimulation<Drive<3>>,
) -> SpaceDiabolo {
    let samples = sample_count(rec, from, window);
    let residuals = |x: &DVector<f64>| -> Option<DVector<f64>> {
        let sim = build(&from_vector(x, &guess), window);
        let mut r = DVector::zeros(4 * samples);
        let report = sim.run(|row| {
            if let Some(sample) = sample_at(row.t, samples) {
                let d = &row.state.diabolos[0];
                let e = d.pos - at(&rec.t, &series.dia, from + row.t);
                let spin = -d.spin / radius - rec.spin_at(from + row.t);
                let i = 4 * sample;
                r[i] = e.x;
                r[i + 1] = e.y;
                r[i + 2] = e.z;
                r[i + 3] = SPIN_RESIDUAL_WEIGHT * spin;
            }
        });
        (report.status == SpaceStatus::Finished).then_some(r)
    };
    let h = DVector::from_vec(vec![1e-5, 1e-5, 1e-5, 1e-4, 1e-4, 1e-4, 1e-5]);
    let x = levenberg_marquardt(&residuals, to_vector(&guess), &h);
    from_vector(&x, &guess)
}

/// Replays the start at `start` in space: runs it to the longest horizon the recording holds
/// after it and measures the errors at each horizon (positions in 3D; the axle's tilt and turn
/// against the smoothed recorded axle; the "stays as it is" forecasts alongside). A run that
/// stops keeps the horizons before the stop and names why in `failure`.
pub(super) fn replay_space_start(
    rec: &Recording,
    series: &SpaceSeries,
    options: &ReplayOptions,
    params: &SpaceParams,
    start: f64,
) -> StartResult {
    let (longest, mut result) = StartResult::empty(rec, options, start, true);
    let last = rec.t[rec.t.len() - 1];
    let run = match space_start(rec, series, options, params, start, longest) {
        Ok(run) => run,
        Err(e) => {
            result.failure = Some(e);
            return result;
        }
    };
    let lead = run.lead;
    let mut rows = Vec::with_capacity(options.horizons.len());
    let report = run.simulation.run(|row| {
        if options
            .horizons
            .iter()
            .any(|h| (row.t - lead - h).abs() < 1e-9)
        {
            rows.push((row.t - lead, row.state.diabolos[0]));
        }
    });
    if let SpaceStatus::Stopped { t, reason } = &report.status {
        // As the planar replay's failures read: the run's time, then why.
        result.failure = Some(format!("t = {t:.6} s: {reason} ({})", reason.status()));
    }
    let midpoint = |t: f64| 0.5 * (run.hands[0].at(t).pos + run.hands[1].at(t).pos);
    let start_mid = midpoint(lead);
    let axle_start = run.axle_at_start;
    for (k, h) in options.horizons.iter().enumerate() {
        if start + h > last + 1e-9 {
            continue;
        }
        let Some((_, sim)) = rows.iter().find(|(t, _)| (t - h).abs() < 1e-9) else {
            continue;
        };
        let truth = at(&rec.t, &series.dia, start + h);
        let truth_axle = at(&rec.t, &series.axle, start + h);
        let sim_axle = facing_audience(&sim.axle);
        let measured = run.measured;
        result.errors[k] = Some(HorizonError {
            position: (sim.pos - truth).norm(),
            velocity: (sim.vel - run.dia.at(lead + h).vel).norm(),
            spin: (-sim.spin / params.axle_radius - rec.spin_at(start + h)).abs(),
            stay: (measured - truth).norm(),
            midpoint: (measured + (midpoint(lead + h) - start_mid) - truth).norm(),
            space: Some(SpaceErrors {
                oop: (sim.pos.z - truth.z).abs(),
                tilt: (tilt(&sim_axle) - tilt(&truth_axle)).abs(),
                turn: turn_difference(&sim_axle, &truth_axle).abs(),
                stay_oop: (measured.z - truth.z).abs(),
                stay_tilt: (tilt(&axle_start) - tilt(&truth_axle)).abs(),
                stay_turn: turn_difference(&axle_start, &truth_axle).abs(),
            }),
        });
    }
    result
}

/// Whether `replay` runs the recording by the model in space: it has the 3D columns and the
/// options do not force the planar model.
pub fn replays_in_space(rec: &Recording, options: &ReplayOptions) -> bool {
    rec.space.is_some() && !options.planar
}

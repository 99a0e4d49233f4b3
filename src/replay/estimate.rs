//! The initial diabolo state of a replay start, from the measured frames up to the start (or,
//! for comparison only, from a centred window that sees frames after it).
//!
//! The default is assimilation: the model itself, driven by the recorded hands, is fitted to the
//! measured diabolo over the window W before the start (positions and spins, least squares), and
//! the prediction continues that simulation. The state then satisfies the model's constraint and
//! dynamics, and the noise of a differentiated marker (about 1 mm at 120 Hz, and the diabolo's
//! out-of-plane motion) is averaged over the window by the physics instead of by a polynomial.

use nalgebra::{DVector, Vector2, Vector5};

use super::fit::{levenberg_marquardt, sample_at, sample_count, SPIN_RESIDUAL_WEIGHT};
use super::options::{InitialEstimate, ReplayOptions};
use super::recording::{Recording, AXLE_RADIUS};
use crate::model::DiaboloState;
use crate::simulation::drive::PathPoint;
use crate::simulation::Simulation;

/// The assimilation's unknowns (x, y, vx, vy, w) of a diabolo state (knot 0).
fn to_vector(d: &DiaboloState) -> Vector5<f64> {
    Vector5::new(d.pos.x, d.pos.y, d.vel.x, d.vel.y, d.spin)
}

fn from_vector(x: &Vector5<f64>) -> DiaboloState {
    DiaboloState {
        pos: Vector2::new(x[0], x[1]),
        vel: Vector2::new(x[2], x[3]),
        spin: x[4],
        knot: 0,
    }
}

/// The measured diabolo's position and velocity at `start` by the smoothing differentiator of
/// `options.initial` (`centred` is the centred window's value at the start; the assimilation's
/// first guess, and the baselines, use the past cubic).
pub(super) fn smoothed_estimate(
    rec: &Recording,
    options: &ReplayOptions,
    centred: PathPoint,
    start: f64,
) -> PathPoint {
    match options.initial {
        InitialEstimate::Centred => centred,
        _ => past_cubic(rec, start, 2.0 * options.diabolo_smoothing, 0.0).unwrap_or(centred),
    }
}

/// The cubic least-squares fit to the measured diabolo frames in [start - window, start],
/// evaluated `at` s from the start (None with fewer than 6 frames).
pub(super) fn past_cubic(rec: &Recording, start: f64, window: f64, at: f64) -> Option<PathPoint> {
    let from = start - window;
    let frames: Vec<(f64, Vector2<f64>)> = rec
        .t
        .iter()
        .zip(&rec.dia)
        .filter(|(t, _)| **t >= from - 1e-12 && **t <= start + 1e-12)
        .map(|(t, p)| (t - start, *p))
        .collect();
    if frames.len() < 6 {
        return None;
    }
    // Least squares p(s) = c0 + c1 x + c2 x^2 + c3 x^3, x = s / window, on the past frames.
    let mut normal = nalgebra::Matrix4::<f64>::zeros();
    let mut rhs = nalgebra::Matrix4x2::<f64>::zeros();
    let basis = |x: f64| nalgebra::Vector4::new(1.0, x, x * x, x * x * x);
    for (s, p) in &frames {
        let b = basis(s / window);
        normal += b * b.transpose();
        rhs += b * p.transpose();
    }
    let c = normal.lu().solve(&rhs)?;
    let x = at / window;
    let value = |row: nalgebra::Vector4<f64>| {
        let v = c.transpose() * row;
        Vector2::new(v[0], v[1])
    };
    Some(PathPoint {
        pos: value(basis(x)),
        vel: value(nalgebra::Vector4::new(0.0, 1.0, 2.0 * x, 3.0 * x * x)) / window,
        acc: value(nalgebra::Vector4::new(0.0, 0.0, 2.0, 6.0 * x)) / (window * window),
    })
}

/// The initial diabolo position, velocity and spin at `from` whose simulation over the next
/// `window` seconds best matches the measured frames: least squares on the positions (m) and
/// spins (weighted [`SPIN_RESIDUAL_WEIGHT`] m per rad/s) every 0.01 s, Levenberg-Marquardt from
/// the guess with a forward-difference Jacobian.
pub(super) fn assimilate(
    rec: &Recording,
    from: f64,
    window: f64,
    guess: DiaboloState,
    build: &dyn Fn(&DiaboloState, f64) -> Result<Simulation, String>,
) -> DiaboloState {
    let samples = sample_count(rec, from, window);
    let residuals = |x: &Vector5<f64>| -> Option<DVector<f64>> {
        let sim = build(&from_vector(x), window).ok()?;
        let mut r = DVector::zeros(3 * samples);
        let report = sim.run(&mut |row| {
            if let Some(sample) = sample_at(row.t, samples) {
                let d = &row.state.diabolos[0];
                let e = d.pos - rec.at(&rec.dia, from + row.t);
                let spin = -d.spin / AXLE_RADIUS - rec.spin_at(from + row.t);
                let i = 3 * sample;
                r[i] = e.x;
                r[i + 1] = e.y;
                r[i + 2] = SPIN_RESIDUAL_WEIGHT * spin;
            }
        });
        report.failure.is_none().then_some(r)
    };
    let x = levenberg_marquardt(
        &residuals,
        to_vector(&guess),
        &Vector5::new(1e-5, 1e-5, 1e-4, 1e-4, 1e-5),
    );
    from_vector(&x)
}

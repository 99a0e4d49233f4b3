//! An independent reference for the compliant string (docs/elastic.md) while it pulls: Newton in
//! Cartesian coordinates for every object, the segment tensions from the stretch, the tanh
//! capstan law and the slip speeds measured against the evenly stretched string, classical RK4
//! with a small fixed step. It shares nothing with the product's rotating frames, reduced state,
//! tension solve, stepper or dense output.

use diabolo::model::FrictionLaw;
use diabolo::model::{CartesianState, Params};
use diabolo::simulation::drive::Drive;
use nalgebra::Vector2;

use super::{contact_angle, side};

/// Accelerations of every object (0 the left stick .. N + 1 the right one) and spin rates.
fn rates(
    params: &Params,
    drives: &[Drive; 2],
    t: f64,
    s: &CartesianState,
) -> (Vec<Vector2<f64>>, Vec<f64>) {
    let n = s.diabolo_count();
    let string = params.elastic().expect("a compliant string");
    let width = match params.friction_law {
        FrictionLaw::Tanh { width } => width,
        other => panic!("the reference knows the tanh law only, not {other:?}"),
    };
    let e: Vec<Vector2<f64>> = (0..=n)
        .map(|j| (s.position(j + 1) - s.position(j)).normalize())
        .collect();
    let lengths: Vec<f64> = (0..=n)
        .map(|j| (s.position(j + 1) - s.position(j)).norm())
        .collect();
    let rates: Vec<f64> = (0..=n)
        .map(|j| e[j].dot(&(s.velocity(j + 1) - s.velocity(j))))
        .collect();
    let used: f64 = lengths.iter().sum();
    let (stretch, stretch_rate) = (used - params.string_length, rates.iter().sum::<f64>());
    let mean = (string.stiffness * stretch + string.damping * stretch_rate) / params.string_length;
    assert!(
        mean > 0.0 && stretch > 0.0,
        "the reference string went slack at t = {t}"
    );
    // d_i = exp(sum_{j<=i} c tanh(w'_j / width) theta'_j), w'_j against the stretched string.
    let mut ratios = vec![1.0; n + 1];
    let (mut feed, mut left, mut log_ratio) = (0.0, 0.0, 0.0);
    for k in 1..=n {
        feed += rates[k - 1];
        left += lengths[k - 1];
        let slip = side(s, k) * s.diabolos[k - 1].spin - feed + left / used * stretch_rate;
        log_ratio += params.friction * (slip / width).tanh() * contact_angle(s, k);
        ratios[k] = log_ratio.exp();
    }
    let weighted: f64 = ratios.iter().zip(&lengths).map(|(d, l)| d * l).sum();
    let tensions: Vec<f64> = ratios.iter().map(|d| mean * used / weighted * d).collect();
    let g = Vector2::new(0.0, -params.gravity);
    let mut acc = vec![Vector2::zeros(); n + 2];
    for k in 1..=n {
        acc[k] = (tensions[k] * e[k] - tensions[k - 1] * e[k - 1]) / params.diabolo_mass + g;
    }
    for (side_index, k, pull) in [(0, 0, tensions[0] * e[0]), (1, n + 1, -tensions[n] * e[n])] {
        acc[k] = match &drives[side_index] {
            Drive::Path(path) => path.at(t).acc,
            Drive::Released => pull / params.stick_mass + g,
            other => panic!("the reference knows paths and released sticks, not {other:?}"),
        };
    }
    let spin_mass = params.diabolo_mass * params.spin_inertia;
    let spins = (1..=n)
        .map(|k| {
            side(s, k) * (tensions[k - 1] - tensions[k]) / spin_mass
                - params.spin_drag * s.diabolos[k - 1].spin
        })
        .collect();
    (acc, spins)
}

/// The state advanced by `h` with rates (velocities, accelerations, spin rates) `k` applied to
/// `base`.
fn advance(
    base: &CartesianState,
    k: &(CartesianState, (Vec<Vector2<f64>>, Vec<f64>)),
    h: f64,
) -> CartesianState {
    let (velocities, (acc, spins)) = k;
    let mut s = base.clone();
    let n = s.diabolo_count();
    for o in 0..n + 2 {
        let (p, v) = (velocities.position(o), acc[o]);
        match o {
            0 => {
                s.left.pos += h * p;
                s.left.vel += h * v;
            }
            o if o == n + 1 => {
                s.right.pos += h * p;
                s.right.vel += h * v;
            }
            o => {
                s.diabolos[o - 1].pos += h * p;
                s.diabolos[o - 1].vel += h * v;
                s.diabolos[o - 1].spin += h * spins[o - 1];
            }
        }
    }
    s
}

/// Velocities as a state's positions (for [`advance`]), with the rates at (t, s).
fn slope(
    params: &Params,
    drives: &[Drive; 2],
    t: f64,
    s: &CartesianState,
) -> (CartesianState, (Vec<Vector2<f64>>, Vec<f64>)) {
    let mut velocities = s.clone();
    velocities.left.pos = s.left.vel;
    velocities.right.pos = s.right.vel;
    for d in &mut velocities.diabolos {
        d.pos = d.vel;
    }
    (velocities, rates(params, drives, t, s))
}

/// The run from `start` to `duration` in RK4 steps of `h` (s), sampled every `interval` (s).
pub fn run(
    params: &Params,
    drives: &[Drive; 2],
    start: CartesianState,
    (duration, interval, h): (f64, f64, f64),
) -> Vec<(f64, CartesianState)> {
    let per_sample = (interval / h).round() as usize;
    let samples = (duration / interval).round() as usize;
    let mut s = start;
    let mut out = vec![(0.0, s.clone())];
    for sample in 1..=samples {
        for step in 0..per_sample {
            let t = ((sample - 1) * per_sample + step) as f64 * h;
            let k1 = slope(params, drives, t, &s);
            let k2 = slope(params, drives, t + h / 2.0, &advance(&s, &k1, h / 2.0));
            let k3 = slope(params, drives, t + h / 2.0, &advance(&s, &k2, h / 2.0));
            let k4 = slope(params, drives, t + h, &advance(&s, &k3, h));
            let mut next = s.clone();
            for (k, w) in [(&k1, 1.0), (&k2, 2.0), (&k3, 2.0), (&k4, 1.0)] {
                next = advance(&next, k, w * h / 6.0);
            }
            s = next;
        }
        out.push((sample as f64 * interval, s.clone()));
    }
    out
}

//! An independent reference for the compliant string in space (docs/elastic.md, docs/space.md)
//! while it pulls between stick tips held still: Newton in Cartesian coordinates for every
//! diabolo, the segment tensions from the stretch, the tanh capstan law on the string's turn
//! about each (fixed) axle, slip speeds against the evenly stretched string, classical RK4 with
//! a small fixed step. It shares nothing with the product's tension solve, stepper or dense
//! output; the product's axles are held by an enormous transverse inertia.

use nalgebra::Vector3;

/// One diabolo of the reference: centre, velocity, spin w (m/s) and its fixed axle.
#[derive(Clone, Copy, Debug)]
pub struct Diabolo {
    /// Centre, m.
    pub pos: Vector3<f64>,
    /// Velocity, m/s.
    pub vel: Vector3<f64>,
    /// w, m/s.
    pub spin: f64,
    /// The axle's unit direction (fixed).
    pub axle: Vector3<f64>,
}

/// What the reference needs of the parameters.
#[derive(Clone, Copy, Debug)]
pub struct Law {
    /// L, m.
    pub length: f64,
    /// EA, N.
    pub stiffness: f64,
    /// eta, N s.
    pub damping: f64,
    /// c.
    pub friction: f64,
    /// The tanh law's width, m/s.
    pub width: f64,
    /// m, kg.
    pub mass: f64,
    /// J.
    pub spin_inertia: f64,
    /// D, 1/s.
    pub spin_drag: f64,
    /// g, m/s^2.
    pub gravity: f64,
}

/// The string's turn about the axle a from strand u to strand v: the angle between their
/// projections on the plane perpendicular to a, counter-clockwise seen from a's tip.
fn turn(u: Vector3<f64>, v: Vector3<f64>, a: Vector3<f64>) -> f64 {
    let (u, v) = (u - a * a.dot(&u), v - a * a.dot(&v));
    u.cross(&v).dot(&a).atan2(u.dot(&v))
}

/// Accelerations and spin rates of the diabolos between the tips `tips`.
fn rates(law: &Law, tips: &[Vector3<f64>; 2], s: &[Diabolo]) -> (Vec<Vector3<f64>>, Vec<f64>) {
    let n = s.len();
    let point = |j: usize| match j {
        0 => tips[0],
        j if j == n + 1 => tips[1],
        j => s[j - 1].pos,
    };
    let velocity = |j: usize| {
        if j == 0 || j == n + 1 {
            Vector3::zeros()
        } else {
            s[j - 1].vel
        }
    };
    let chords: Vec<Vector3<f64>> = (0..=n).map(|j| point(j + 1) - point(j)).collect();
    let lengths: Vec<f64> = chords.iter().map(|c| c.norm()).collect();
    let e: Vec<Vector3<f64>> = chords.iter().zip(&lengths).map(|(c, l)| c / *l).collect();
    let rates: Vec<f64> = (0..=n)
        .map(|j| e[j].dot(&(velocity(j + 1) - velocity(j))))
        .collect();
    let used: f64 = lengths.iter().sum();
    let (stretch, stretch_rate) = (used - law.length, rates.iter().sum::<f64>());
    let mean = (law.stiffness * stretch + law.damping * stretch_rate) / law.length;
    assert!(
        mean > 0.0 && stretch > 0.0,
        "the reference string went slack"
    );
    let mut ratios = vec![1.0; n + 1];
    let (mut feed, mut left, mut log_ratio) = (0.0, 0.0, 0.0);
    for k in 1..=n {
        feed += rates[k - 1];
        left += lengths[k - 1];
        let slip = s[k - 1].spin - feed + left / used * stretch_rate;
        let angle = turn(e[k - 1], e[k], s[k - 1].axle).max(0.0);
        log_ratio += law.friction * (slip / law.width).tanh() * angle;
        ratios[k] = log_ratio.exp();
    }
    let weighted: f64 = ratios.iter().zip(&lengths).map(|(d, l)| d * l).sum();
    let tensions: Vec<f64> = ratios.iter().map(|d| mean * used / weighted * d).collect();
    let g = Vector3::new(0.0, -law.gravity, 0.0);
    let acc = (1..=n)
        .map(|k| (tensions[k] * e[k] - tensions[k - 1] * e[k - 1]) / law.mass + g)
        .collect();
    let spin_mass = law.mass * law.spin_inertia;
    let spins = (1..=n)
        .map(|k| (tensions[k - 1] - tensions[k]) / spin_mass - law.spin_drag * s[k - 1].spin)
        .collect();
    (acc, spins)
}

/// `base` advanced by `h` along the rates of `at` (its velocities, and `rates` of it).
fn advance(
    base: &[Diabolo],
    at: &[Diabolo],
    rates: &(Vec<Vector3<f64>>, Vec<f64>),
    h: f64,
) -> Vec<Diabolo> {
    base.iter()
        .zip(at)
        .enumerate()
        .map(|(k, (b, a))| Diabolo {
            pos: b.pos + h * a.vel,
            vel: b.vel + h * rates.0[k],
            spin: b.spin + h * rates.1[k],
            axle: b.axle,
        })
        .collect()
}

/// The run from `start` between the still tips `tips` to `duration` in RK4 steps of `h` (s),
/// sampled every `interval` (s).
pub fn run(
    law: &Law,
    tips: &[Vector3<f64>; 2],
    start: Vec<Diabolo>,
    (duration, interval, h): (f64, f64, f64),
) -> Vec<(f64, Vec<Diabolo>)> {
    let per_sample = (interval / h).round() as usize;
    let samples = (duration / interval).round() as usize;
    let mut s = start;
    let mut out = vec![(0.0, s.clone())];
    for sample in 1..=samples {
        for _ in 0..per_sample {
            let k1 = rates(law, tips, &s);
            let s2 = advance(&s, &s, &k1, h / 2.0);
            let k2 = rates(law, tips, &s2);
            let s3 = advance(&s, &s2, &k2, h / 2.0);
            let k3 = rates(law, tips, &s3);
            let s4 = advance(&s, &s3, &k3, h);
            let k4 = rates(law, tips, &s4);
            let mut next = s.clone();
            for (state, k, w) in [
                (&s, &k1, 1.0),
                (&s2, &k2, 2.0),
                (&s3, &k3, 2.0),
                (&s4, &k4, 1.0),
            ] {
                next = advance(&next, state, k, w * h / 6.0);
            }
            s = next;
        }
        out.push((sample as f64 * interval, s.clone()));
    }
    out
}

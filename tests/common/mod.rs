//! Shared test support: a seeded random generator, random physical states, and an independent
//! Cartesian Newton solve of the taut string (docs/model.md, "Independent cross-check").
#![allow(dead_code)]

pub mod command;
pub mod contacts;
pub mod elastic_reference;
pub mod flight_reference;
#[cfg(feature = "plot")]
pub mod pictures;
pub mod reference;
pub mod space;
pub mod space_elastic_reference;

use diabolo::model::{
    Body, CartesianState, DiaboloState, FrictionLaw, ParamValues, Params, StickInput,
};
use diabolo::random::SplitMix64;
use nalgebra::Vector2;
use std::f64::consts::{PI, TAU};

/// The library's SplitMix64 (`diabolo::random`) with the tests' draws: small, seeded,
/// deterministic.
pub struct SplitMix(SplitMix64);

impl SplitMix {
    pub fn new(seed: u64) -> Self {
        Self(SplitMix64(seed))
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.0.unit()
    }
    /// Uniform integer in lo..=hi.
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % ((hi - lo + 1) as u64)) as i64
    }
    pub fn coin(&mut self) -> bool {
        self.next_u64() & 1 == 1
    }
    pub fn vector(&mut self, scale: f64) -> Vector2<f64> {
        Vector2::new(self.uniform(-scale, scale), self.uniform(-scale, scale))
    }
}

/// Random but physical parameters; `law` chooses the friction law.
pub fn random_params(rng: &mut SplitMix, law: FrictionLaw, string_length: f64) -> Params {
    Params::new(ParamValues {
        string_length,
        diabolo_mass: rng.uniform(0.05, 0.5),
        stick_mass: rng.uniform(0.01, 0.3),
        friction: rng.uniform(0.0, 0.4),
        spin_inertia: rng.uniform(5.0, 80.0),
        spin_drag: rng.uniform(0.0, 0.2),
        gravity: rng.uniform(0.0, 15.0),
        restitution: rng.uniform(0.0, 1.0),
        friction_law: law,
        ..ParamValues::default()
    })
    .unwrap()
}

/// A random turn angle tau at a diabolo of knot degree `knot` that keeps the string on the axle
/// (theta = pi + tau + 2 pi k > pi, or theta < -pi for recaptured states), away from the branch
/// boundaries by `margin`.
pub fn random_turn(rng: &mut SplitMix, knot: i32, margin: f64) -> f64 {
    match knot {
        0 => rng.uniform(margin, PI - margin),
        -1 => rng.uniform(-PI + margin, -margin),
        _ => rng.uniform(-PI + margin, PI - margin),
    }
}

/// Random positions of N diabolos with knots in `knots`, segment lengths in [0.1, 0.6] m, and
/// random velocities and spins; L = sum l (taut), and the right stick's velocity is corrected
/// along e_N so that L' = 0. Returns the state and L.
pub fn random_taut_state(rng: &mut SplitMix, n: usize, knots: (i32, i32)) -> (CartesianState, f64) {
    let mut state = random_positions(rng, n, knots);
    let length = state.string_used();
    for k in 0..n + 2 {
        *state.velocity_mut(k) = rng.vector(2.0);
    }
    for d in &mut state.diabolos {
        d.spin = rng.uniform(-1.0, 1.0);
    }
    let rate = length_rate(&state);
    let e_n = (state.right.pos - state.diabolos[n - 1].pos).normalize();
    state.right.vel -= rate * e_n;
    (state, length)
}

/// Random positions (velocities zero) as in [`random_taut_state`].
pub fn random_positions(rng: &mut SplitMix, n: usize, knots: (i32, i32)) -> CartesianState {
    let mut direction = rng.uniform(-PI, PI);
    let mut pos = rng.vector(0.5);
    let left = Body {
        pos,
        vel: Vector2::zeros(),
    };
    let mut diabolos = Vec::new();
    for i in 0..=n {
        pos += rng.uniform(0.1, 0.6) * Vector2::new(direction.cos(), direction.sin());
        if i < n {
            let knot = rng.int(knots.0 as i64, knots.1 as i64) as i32;
            diabolos.push(DiaboloState {
                pos,
                vel: Vector2::zeros(),
                spin: 0.0,
                knot,
            });
            direction += random_turn(rng, knot, 0.05);
        }
    }
    CartesianState {
        left,
        right: Body {
            pos,
            vel: Vector2::zeros(),
        },
        diabolos,
    }
}

/// Symmetric slip speeds w'_k = sigma_k w_k - (sum_{j<k} l_j' - sum_{j>=k} l_j') / 2 of the
/// diabolos of a state at full length (docs/model.md), from Cartesian positions and velocities:
/// l_j' = e_j . (v_{j+1} - v_j), sigma_k = +1 when the string runs under the axle (theta =
/// pi + tau + 2 pi k > pi, tau the signed turn from e_{k-1} to e_k), -1 when recaptured.
pub fn slip_speeds(state: &CartesianState) -> Vec<f64> {
    let n = state.diabolo_count();
    let e: Vec<Vector2<f64>> = (0..=n)
        .map(|j| (state.position(j + 1) - state.position(j)).normalize())
        .collect();
    let rates: Vec<f64> = (0..=n)
        .map(|j| e[j].dot(&(state.velocity(j + 1) - state.velocity(j))))
        .collect();
    let total: f64 = rates.iter().sum();
    let mut feed = 0.0;
    (0..n)
        .map(|k| {
            feed += rates[k];
            side(state, k + 1) * state.diabolos[k].spin - (feed - 0.5 * total)
        })
        .collect()
}

/// sigma of diabolo k (1..N): +1 when the string runs under its axle, -1 when recaptured.
pub fn side(state: &CartesianState, k: usize) -> f64 {
    let a = (state.position(k) - state.position(k - 1)).normalize();
    let b = (state.position(k + 1) - state.position(k)).normalize();
    let turn = a.perp(&b).atan2(a.dot(&b));
    if PI + turn + TAU * state.diabolos[k - 1].knot as f64 > 0.0 {
        1.0
    } else {
        -1.0
    }
}

/// theta': the contact angle of the string on diabolo k's axle (1..N), rad.
pub fn contact_angle(state: &CartesianState, k: usize) -> f64 {
    let a = (state.position(k) - state.position(k - 1)).normalize();
    let b = (state.position(k + 1) - state.position(k)).normalize();
    let turn = a.perp(&b).atan2(a.dot(&b));
    (PI + turn + TAU * state.diabolos[k - 1].knot as f64).abs() - PI
}

/// The segment impulses J_0..J_N of an impact on the string, recovered from the momentum each
/// diabolo gained: m (v_k+ - v_k-) = J_k e_k - J_{k-1} e_{k-1} is two equations for the two
/// impulses at diabolo k (1..N). Returns, per segment, the values seen from its two ends (from
/// the left and right neighbours; a stick end repeats the diabolo's value).
pub fn segment_impulses(
    params: &Params,
    before: &CartesianState,
    after: &CartesianState,
) -> Vec<(f64, f64)> {
    let n = before.diabolo_count();
    let e: Vec<Vector2<f64>> = (0..=n)
        .map(|j| (before.position(j + 1) - before.position(j)).normalize())
        .collect();
    let mut seen = vec![(f64::NAN, f64::NAN); n + 1];
    for k in 1..=n {
        let p = params.diabolo_mass * (after.velocity(k) - before.velocity(k));
        // p = J_k e_k - J_{k-1} e_{k-1}, by Cramer's rule.
        let det = e[k].perp(&(-e[k - 1]));
        let j_k = p.perp(&(-e[k - 1])) / det;
        let j_prev = e[k].perp(&p) / det;
        seen[k - 1].1 = j_prev;
        seen[k].0 = j_k;
    }
    seen[0].0 = seen[0].1;
    seen[n].1 = seen[n].0;
    seen
}

/// Asserts that `after` is what an impact of the string can make of `before` (positions
/// unchanged): segment impulses that agree at both ends of each segment and never push, spins
/// turned by the friction impulses, m J (w+ - w-) = sigma (J_{k-1} - J_k), and each friction
/// impulse inside its capstan bounds, exp(-c theta') J_{k-1} <= J_k <= exp(c theta') J_{k-1}
/// (the bearing law: <= J_{k-1}). Returns J_0..J_N, N s.
pub fn assert_string_impact(
    params: &Params,
    before: &CartesianState,
    after: &CartesianState,
) -> Vec<f64> {
    let n = before.diabolo_count();
    let seen = segment_impulses(params, before, after);
    // Round-off of the recovered impulses: the momenta's, amplified at a diabolo whose two
    // segments are nearly parallel (the 2x2 solve's determinant, sin tau).
    let largest = seen
        .iter()
        .fold(0.0_f64, |m, &(a, b)| m.max(a.abs()).max(b.abs()));
    let speed = (0..n + 2).fold(0.0_f64, |m, k| {
        m.max(before.velocity(k).norm())
            .max(after.velocity(k).norm())
    });
    let conditioning = (1..=n).fold(1.0_f64, |m, k| {
        let a = (before.position(k) - before.position(k - 1)).normalize();
        let b = (before.position(k + 1) - before.position(k)).normalize();
        m.max(1.0 / a.perp(&b).abs())
    });
    let tolerance = 1e-12 * (largest + params.diabolo_mass * speed) * conditioning;
    let impulses: Vec<f64> = seen.iter().map(|&(a, b)| 0.5 * (a + b)).collect();
    for (j, &(a, b)) in seen.iter().enumerate() {
        assert!(
            (a - b).abs() <= tolerance,
            "segment {j}: impulse {a} from the left, {b} from the right"
        );
        assert!(
            impulses[j] >= -tolerance,
            "segment {j} pushes: J = {}",
            impulses[j]
        );
    }
    let spin_mass = params.diabolo_mass * params.spin_inertia;
    let c = params.friction;
    for k in 1..=n {
        let (below, above) = (impulses[k - 1], impulses[k]);
        let turned = spin_mass * (after.diabolos[k - 1].spin - before.diabolos[k - 1].spin);
        let friction = side(before, k) * (below - above);
        assert!(
            (turned - friction).abs() <= tolerance,
            "diabolo {k}: spin impulse {turned}, friction impulse {friction}"
        );
        let reach = (c * contact_angle(before, k)).exp();
        let upper = match params.friction_law {
            FrictionLaw::Bearing => 1.0,
            _ => reach,
        };
        assert!(
            above >= (below - tolerance) / reach - tolerance
                && above <= (below + tolerance) * upper + tolerance,
            "diabolo {k}: J_k / J_(k-1) = {} outside [{}, {upper}]",
            above / below,
            1.0 / reach
        );
    }
    impulses
}

/// Sets every diabolo's spin so that its slip speed is zero: every axle at zero slip at once.
pub fn zero_slips(state: &mut CartesianState) {
    let slips = slip_speeds(state);
    for (k, slip) in slips.iter().enumerate() {
        state.diabolos[k].spin -= slip / side(state, k + 1);
    }
}

/// L' = sum_i e_i . (v_{i+1} - v_i).
pub fn length_rate(state: &CartesianState) -> f64 {
    (0..=state.diabolo_count())
        .map(|i| {
            let d = state.position(i + 1) - state.position(i);
            d.normalize()
                .dot(&(state.velocity(i + 1) - state.velocity(i)))
        })
        .sum()
}

/// The independent Cartesian solution of one taut instant.
#[derive(Debug, Clone)]
pub struct CartesianSolution {
    pub base_tension: f64,
    /// a_k in x-y for k = 0..=N+1.
    pub accelerations: Vec<Vector2<f64>>,
    /// w_i' for i = 1..=N.
    pub spin_rates: Vec<f64>,
    /// Hand forces (x-y, N).
    pub hand_forces: [Vector2<f64>; 2],
    /// d_0..d_N.
    pub ratios: Vec<f64>,
    /// sigma_i w_i - sum_{j<i} l_j'.
    pub slip_speeds: Vec<f64>,
}

/// String angle at diabolo i computed from Cartesian positions and the knot degree.
pub fn cartesian_theta(state: &CartesianState, i: usize) -> f64 {
    let a = state.position(i) - state.position(i - 1);
    let b = state.position(i + 1) - state.position(i);
    let turn = (a.x * b.y - a.y * b.x).atan2(a.dot(&b));
    let turn = if turn >= PI { turn - TAU } else { turn };
    PI + turn + TAU * f64::from(state.diabolos[i - 1].knot)
}

/// Newton's law for every object with T_i = T_0 d_i along e_i, and T_0 from
/// d^2/dt^2 sum l_i = 0, l_i'' = e_i . (a_{i+1} - a_i) + (|v_{i+1} - v_i|^2 - (e_i . (v_{i+1} - v_i))^2) / l_i.
/// `slip_sign[i-1]` chooses c' = +-c for the step law; the tanh law uses the slip speed.
/// A stick with an `Accel` input is infinitely heavy: its acceleration is given.
pub fn cartesian_solve(
    params: &Params,
    state: &CartesianState,
    slip_sign: &[f64],
    inputs: &[StickInput; 2],
) -> CartesianSolution {
    cartesian_solve_with(params, state, slip_sign, inputs, None)
}

/// [`cartesian_solve`] with the tension ratios d_0..d_N given instead of the friction law.
pub fn cartesian_solve_with(
    params: &Params,
    state: &CartesianState,
    slip_sign: &[f64],
    inputs: &[StickInput; 2],
    given_ratios: Option<&[f64]>,
) -> CartesianSolution {
    let n = state.diabolo_count();
    let g = Vector2::new(0.0, -params.gravity);
    let (m, big_m) = (params.diabolo_mass, params.stick_mass);
    let e: Vec<Vector2<f64>> = (0..=n)
        .map(|i| (state.position(i + 1) - state.position(i)).normalize())
        .collect();
    let l: Vec<f64> = (0..=n)
        .map(|i| (state.position(i + 1) - state.position(i)).norm())
        .collect();
    let rate: Vec<f64> = (0..=n)
        .map(|i| e[i].dot(&(state.velocity(i + 1) - state.velocity(i))))
        .collect();
    let mut ratios = vec![1.0];
    let mut slip_speeds = Vec::new();
    let mut sides = Vec::new();
    let mut feed = 0.0;
    for i in 1..=n {
        feed += rate[i - 1];
        let theta = cartesian_theta(state, i);
        let (side, angle) = if theta > PI {
            (1.0, theta - PI)
        } else if theta < -PI {
            (-1.0, -(theta + PI))
        } else {
            (0.0, 0.0)
        };
        let slip = side * state.diabolos[i - 1].spin - feed;
        let c_eff = match params.friction_law {
            FrictionLaw::Tanh { width } => params.friction * (slip / width).tanh(),
            FrictionLaw::Step => params.friction * slip_sign[i - 1],
            FrictionLaw::Bearing => {
                if slip_sign[i - 1] < 0.0 {
                    -params.friction
                } else {
                    0.0
                }
            }
        };
        let previous = ratios[i - 1];
        ratios.push(previous * (c_eff * angle).exp());
        slip_speeds.push(slip);
        sides.push(side);
    }
    if let Some(given) = given_ratios {
        ratios = given.to_vec();
    }
    // Accelerations affine in T_0: a_k = a0[k] + T_0 a1[k].
    let mut a0 = vec![Vector2::zeros(); n + 2];
    let mut a1 = vec![Vector2::zeros(); n + 2];
    for (s, k, pull) in [(0usize, 0usize, e[0]), (1, n + 1, -ratios[n] * e[n])] {
        match inputs[s] {
            StickInput::Force(f) => {
                a0[k] = g + f / big_m;
                a1[k] = pull / big_m;
            }
            StickInput::Accel(a) => a0[k] = a,
        }
    }
    for i in 1..=n {
        a0[i] = g;
        a1[i] = (ratios[i] * e[i] - ratios[i - 1] * e[i - 1]) / m;
    }
    let mut constant = 0.0;
    let mut slope = 0.0;
    for i in 0..=n {
        let dv = state.velocity(i + 1) - state.velocity(i);
        constant +=
            e[i].dot(&(a0[i + 1] - a0[i])) + (dv.norm_squared() - e[i].dot(&dv).powi(2)) / l[i];
        slope += e[i].dot(&(a1[i + 1] - a1[i]));
    }
    let base_tension = -constant / slope;
    let accelerations: Vec<Vector2<f64>> =
        (0..n + 2).map(|k| a0[k] + base_tension * a1[k]).collect();
    let spin_rates = (1..=n)
        .map(|i| {
            sides[i - 1] * base_tension * (ratios[i - 1] - ratios[i]) / (m * params.spin_inertia)
                - params.spin_drag * state.diabolos[i - 1].spin
        })
        .collect();
    let hand_forces = [
        big_m * (accelerations[0] - g) - base_tension * e[0],
        big_m * (accelerations[n + 1] - g) + base_tension * ratios[n] * e[n],
    ];
    CartesianSolution {
        base_tension,
        accelerations,
        spin_rates,
        hand_forces,
        ratios,
        slip_speeds,
    }
}

/// Random axle modes as slip signs (+1 / -1), one per diabolo.
pub fn random_signs(rng: &mut SplitMix, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| if rng.coin() { 1.0 } else { -1.0 })
        .collect()
}

/// The axle modes matching slip signs.
pub fn modes_from_signs(signs: &[f64]) -> Vec<diabolo::model::AxleMode> {
    signs
        .iter()
        .map(|&s| diabolo::model::AxleMode::from_slip(s))
        .collect()
}

/// Asserts |actual - expected| <= rel * scale, naming the quantity. Scalars and nalgebra vectors
/// alike: a vector passes when every component does (approx's `abs_diff_eq`).
#[track_caller]
pub fn assert_close<T>(actual: T, expected: T, rel: f64, scale: f64, what: &str)
where
    T: approx::AbsDiffEq<Epsilon = f64> + std::ops::Sub<Output = T> + Copy + std::fmt::Debug,
{
    assert!(
        approx::abs_diff_eq!(actual, expected, epsilon = rel * scale),
        "{what}: {actual:?} vs {expected:?} (difference {:?}, allowed {:.3e})",
        actual - expected,
        rel * scale
    );
}

/// A stick held still at `p` (a one-keyframe path: infinitely heavy, no work).
pub fn held(p: [f64; 2]) -> diabolo::simulation::drive::Drive {
    use diabolo::simulation::drive::{ClampedSpline, Drive, Path};
    Drive::Path(Path::Keyframes(
        ClampedSpline::new(vec![(0.0, Vector2::from(p))]).unwrap(),
    ))
}

/// The shipped scenario `scenarios/{name}.json` with the overrides `sets` (`--set` pairs),
/// built.
pub fn shipped(name: &str, sets: &[(&str, &str)]) -> diabolo::Simulation {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let text = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
    let sets: Vec<(String, String)> = sets
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    diabolo::Scenario::parse(&text, &sets)
        .unwrap()
        .build(&dir)
        .unwrap()
}

/// Runs a simulation to its end, collecting every row.
pub fn run_collecting(
    params: Params,
    drives: [diabolo::simulation::drive::Drive; 2],
    state: CartesianState,
    settings: diabolo::simulation::Settings,
) -> (
    diabolo::simulation::RunReport,
    Vec<diabolo::simulation::Row>,
) {
    let sim = diabolo::simulation::Simulation::new(params, drives, state, settings).unwrap();
    let mut rows = Vec::new();
    let report = sim.run(&mut |row| rows.push(row.clone()));
    (report, rows)
}

/// Two diabolos at rest at (x1, y) and (x2, y), spinning at `spins`, on the taut string below
/// still sticks at (-0.5, 0) and (0.5, 0): y from bisecting sum l(y) = L (sum l grows
/// downwards).
pub fn pair_on_taut_string(params: &Params, xs: [f64; 2], spins: [f64; 2]) -> CartesianState {
    let [x1, x2] = xs;
    let used = |y: f64| (x1 + 0.5).hypot(y) + (x2 - x1) + (0.5 - x2).hypot(y);
    let (mut above, mut below) = (0.0, -params.string_length);
    for _ in 0..100 {
        let mid = 0.5 * (above + below);
        if used(mid) > params.string_length {
            below = mid
        } else {
            above = mid
        }
    }
    let stick = |x: f64| Body {
        pos: Vector2::new(x, 0.0),
        vel: Vector2::zeros(),
    };
    let diabolo = |x: f64, spin: f64| DiaboloState {
        pos: Vector2::new(x, above),
        vel: Vector2::zeros(),
        spin,
        knot: 0,
    };
    CartesianState {
        left: stick(-0.5),
        right: stick(0.5),
        diabolos: vec![diabolo(x1, spins[0]), diabolo(x2, spins[1])],
    }
}

/// Runs a scenario given as JSON text (relative paths from the current folder): every row and
/// the report.
pub fn run_text(text: &str) -> (Vec<diabolo::simulation::Row>, diabolo::RunReport) {
    let sim = diabolo::Scenario::parse(text, &[])
        .unwrap()
        .build(std::path::Path::new("."))
        .unwrap();
    let mut rows = Vec::new();
    let report = sim.run(&mut |row| rows.push(row.clone()));
    (rows, report)
}

/// The largest distance between the same object's positions in `rows` and `samples` (the same
/// output times, to 1e-12 s), m.
pub fn worst_position_gap(
    rows: &[diabolo::simulation::Row],
    samples: &[(f64, CartesianState)],
) -> f64 {
    assert_eq!(rows.len(), samples.len());
    let mut worst = 0.0_f64;
    for (row, (t, state)) in rows.iter().zip(samples) {
        assert!((row.t - t).abs() <= 1e-12, "{} vs {t}", row.t);
        for k in 0..state.diabolo_count() + 2 {
            worst = worst.max((row.state.position(k) - state.position(k)).norm());
        }
    }
    worst
}

//! Whole runs of the hybrid simulation against physics known independently: energy
//! conservation without friction, the small-oscillation period of the ellipse (and its
//! stretching when the axle grips and the diabolo rolls), exact free flight and the tensing
//! time, the energy balance of runs with friction, grip, moving hands and impacts, and
//! byte-identical repeat runs.

use crate::common;

use approx::{abs_diff_eq, assert_abs_diff_eq};
use common::{held, run_collecting as run};
use diabolo::model::{CartesianState, DiaboloState, FrictionLaw, ParamValues, Params};
use diabolo::simulation::drive::{ClampedSpline, Drive, Path, Tracking};
use diabolo::simulation::{EventKind, Row, Settings};
use nalgebra::Vector2;

fn params(values: ParamValues) -> Params {
    Params::new(values).unwrap()
}

fn frictionless() -> ParamValues {
    ParamValues {
        friction: 0.0,
        spin_drag: 0.0,
        ..Default::default()
    }
}

/// Times at which x(t) - center crosses zero upward, linearly interpolated between rows.
fn upward_crossings(rows: &[Row], center: f64) -> Vec<f64> {
    rows.windows(2)
        .filter_map(|w| {
            let (a, b) = (
                w[0].state.diabolos[0].pos.x - center,
                w[1].state.diabolos[0].pos.x - center,
            );
            (a < 0.0 && b >= 0.0).then(|| w[0].t + (w[1].t - w[0].t) * (-a) / (b - a))
        })
        .collect()
}

#[test]
fn frictionless_swing_conserves_energy_over_ten_seconds() {
    let p = params(frictionless());
    let state = CartesianState::hanging(&p, [-0.4, 1.5], [0.4, 1.5], 0.3, 0.5).unwrap();
    let settings = Settings {
        duration: 10.0,
        output_interval: 0.01,
        rtol: 1e-10,
        atol: 1e-12,
        ..Default::default()
    };
    let (report, rows) = run(p, [held([-0.4, 1.5]), held([0.4, 1.5])], state, settings);
    assert!(report.failure.is_none(), "{:?}", report.failure);
    assert_eq!(rows.len(), 1001);
    let scale = p.diabolo_mass * p.gravity * p.string_length;
    let e0 = rows[0].energy;
    for row in &rows {
        assert!(
            abs_diff_eq!(row.energy, e0, epsilon = 1e-9 * scale),
            "t = {}: drift {:e} J",
            row.t,
            row.energy - e0
        );
        assert!(
            abs_diff_eq!(row.slack, 0.0, epsilon = 1e-12 * p.string_length),
            "t = {}: slack {:e}",
            row.t,
            row.slack
        );
    }
}

#[test]
fn small_oscillation_period_matches_the_ellipse() {
    // Fixed sticks at the foci (+-c, 0) of the ellipse with semi-axes a = L/2 and
    // b = sqrt(a^2 - c^2); curvature radius a^2/b at the bottom: T = 2 pi sqrt(a^2 / (g b)).
    let p = params(frictionless());
    let (a, c) = (p.string_length / 2.0, 0.4);
    let b = (a * a - c * c).sqrt();
    let state = CartesianState::hanging(&p, [-c, 0.0], [c, 0.0], 1e-4, 0.0).unwrap();
    let settings = Settings {
        duration: 4.0,
        output_interval: 1e-4,
        rtol: 1e-11,
        atol: 1e-14,
        ..Default::default()
    };
    let (report, rows) = run(p, [held([-c, 0.0]), held([c, 0.0])], state, settings);
    assert!(report.failure.is_none(), "{:?}", report.failure);
    let crossings = upward_crossings(&rows, 0.0);
    assert!(crossings.len() >= 2, "{crossings:?}");
    let measured = crossings[crossings.len() - 1] - crossings[crossings.len() - 2];
    let expected = std::f64::consts::TAU * (a * a / (p.gravity * b)).sqrt();
    assert!(
        abs_diff_eq!(measured, expected, epsilon = 1e-6 * expected),
        "period {measured} vs {expected}"
    );
}

#[test]
fn gripping_diabolo_rolls_with_its_period_stretched_by_spin_inertia() {
    // An axle that grips the string rolls along it: the string passes over the axle at the
    // rate l_0' = v sin(alpha) near the bottom (alpha the half opening), so the spin carries
    // 1/2 m J v^2 sin^2(alpha) and the period grows by sqrt(1 + J sin^2(alpha)), sin(alpha) = c/a.
    let p = params(ParamValues {
        friction: 0.5,
        spin_drag: 0.0,
        spin_inertia: 20.0,
        ..Default::default()
    });
    let (a, c) = (p.string_length / 2.0, 0.4);
    let b = (a * a - c * c).sqrt();
    let state = CartesianState::hanging(&p, [-c, 0.0], [c, 0.0], 1e-4, 0.0).unwrap();
    let settings = Settings {
        duration: 11.0,
        output_interval: 2e-4,
        rtol: 1e-11,
        atol: 1e-14,
        ..Default::default()
    };
    let (report, rows) = run(p, [held([-c, 0.0]), held([c, 0.0])], state, settings);
    assert!(report.failure.is_none(), "{:?}", report.failure);
    assert!(
        report.events.iter().any(|e| e.kind == EventKind::Stick),
        "the axle must grip: {:?}",
        report.events
    );
    assert!(
        !report.events.iter().any(|e| e.kind == EventKind::Unstick),
        "{:?}",
        report.events
    );
    let crossings = upward_crossings(&rows, 0.0);
    let measured = crossings[crossings.len() - 1] - crossings[crossings.len() - 2];
    let expected = std::f64::consts::TAU
        * (a * a / (p.gravity * b)).sqrt()
        * (1.0 + p.spin_inertia * (c / a).powi(2)).sqrt();
    assert!(
        abs_diff_eq!(measured, expected, epsilon = 1e-5 * expected),
        "period {measured} vs {expected}"
    );
    // Rolling without slipping dissipates nothing.
    let last = rows.last().unwrap();
    assert!(
        abs_diff_eq!(last.friction_loss, 0.0, epsilon = 1e-12),
        "friction loss {}",
        last.friction_loss
    );
    assert_abs_diff_eq!(last.energy, rows[0].energy, epsilon = 1e-9);
    assert!(report.grip_needed.is_some_and(|g| g < p.friction));
}

#[test]
fn free_flight_follows_the_parabola_and_tenses_on_time() {
    // A diabolo released at rest inside the ellipse, sticks fixed: free fall until
    // |p - A| + |p - B| = L, found here by bisection on the exact parabola.
    let p = params(frictionless());
    let (ax, bx) = (-0.4, 0.4);
    let start = Vector2::new(0.1, -0.2);
    let mut state = CartesianState::hanging(&p, [ax, 0.0], [bx, 0.0], 0.1, 0.0).unwrap();
    state.diabolos[0] = DiaboloState {
        pos: start,
        vel: Vector2::new(0.3, 0.5),
        spin: 0.0,
        knot: 0,
    };
    let flight =
        |t: f64| start + Vector2::new(0.3, 0.5) * t + Vector2::new(0.0, -0.5 * p.gravity * t * t);
    let used = |t: f64| {
        (flight(t) - Vector2::new(ax, 0.0)).norm() + (flight(t) - Vector2::new(bx, 0.0)).norm()
    };
    let (mut lo, mut hi) = (0.0, 1.0);
    assert!(used(hi) > p.string_length);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if used(mid) > p.string_length {
            hi = mid
        } else {
            lo = mid
        }
    }
    let settings = Settings {
        duration: 0.6,
        output_interval: 0.001,
        rtol: 1e-10,
        atol: 1e-13,
        ..Default::default()
    };
    let (report, rows) = run(p, [held([ax, 0.0]), held([bx, 0.0])], state, settings);
    assert!(report.failure.is_none(), "{:?}", report.failure);
    let tense = report
        .events
        .iter()
        .find(|e| e.kind == EventKind::Tense)
        .expect("the string snaps taut");
    assert!(
        abs_diff_eq!(tense.t, hi, epsilon = 1e-10),
        "tensing at {} vs {}",
        tense.t,
        hi
    );
    for row in rows.iter().filter(|r| r.t < hi) {
        assert!(
            (row.state.diabolos[0].pos - flight(row.t)).norm() < 1e-12,
            "t = {}",
            row.t
        );
    }
}

/// A sine-driven right hand and a stiff-hand (tracking) left stick, friction, drag: a busy run.
fn busy(restitution: f64, law: FrictionLaw) -> (Params, [Drive; 2], CartesianState) {
    let p = params(ParamValues {
        restitution,
        spin_drag: 0.05,
        friction_law: law,
        ..Default::default()
    });
    let state = CartesianState::hanging(&p, [-0.4, 1.5], [0.4, 1.5], -0.1, 0.1).unwrap();
    let right = Drive::Path(Path::Sine {
        center: Vector2::new(0.4, 1.5),
        amplitude: Vector2::new(0.0, 0.2),
        frequency: 1.5,
        phase: Vector2::zeros(),
    });
    // A hand with its own stiffness pulling the (finite-mass) left stick along a stroke.
    let stroke = Path::Keyframes(
        ClampedSpline::new(vec![
            (0.0, Vector2::new(-0.4, 1.5)),
            (0.6, Vector2::new(-0.3, 1.35)),
            (1.2, Vector2::new(-0.45, 1.55)),
        ])
        .unwrap(),
    );
    let hand = Tracking {
        stiffness: 150.0,
        damping: 3.0,
        max_force: 4.0,
    };
    let left = Drive::Tracking(stroke, hand);
    (p, [left, right], state)
}

#[test]
fn energy_balance_closes_through_friction_grip_hands_and_impacts() {
    let mut seen = std::collections::BTreeSet::new();
    for (restitution, law) in [
        (0.0, FrictionLaw::Step),
        (0.5, FrictionLaw::Step),
        (0.0, FrictionLaw::Bearing),
        (0.3, FrictionLaw::Tanh { width: 0.02 }),
    ] {
        let (p, drives, state) = busy(restitution, law);
        let settings = Settings {
            duration: 2.0,
            output_interval: 0.002,
            rtol: 1e-10,
            atol: 1e-12,
            ..Default::default()
        };
        let (report, rows) = run(p, drives, state, settings);
        assert!(report.failure.is_none(), "{law:?}: {:?}", report.failure);
        // E(0) of the initial state, before the impulse with which the path-driven hand starts.
        let e0 = report.energy.0;
        for row in &rows {
            let balance = row.hand_work - row.friction_loss - row.drag_loss - row.impulse_loss;
            assert!(
                abs_diff_eq!(row.energy - e0, balance, epsilon = 1e-8),
                "{law:?} t = {}: E - E0 = {}, balance {}",
                row.t,
                row.energy - e0,
                balance
            );
            assert!(row.friction_loss >= -1e-12 && row.drag_loss >= 0.0 && row.impulse_loss >= 0.0);
        }
        let kinds: Vec<_> = report.events.iter().map(|e| e.kind).collect();
        seen.extend(kinds.iter().copied());
        eprintln!(
            "{law:?} e = {restitution}: {} events, {:?}",
            kinds.len(),
            report.stats
        );
    }
    // The runs went through what the balance must close over.
    for kind in [
        EventKind::Tense,
        EventKind::Loosen,
        EventKind::Stick,
        EventKind::Unstick,
        EventKind::SlipReversal,
    ] {
        assert!(seen.contains(&kind), "no {kind:?} in {seen:?}");
    }
}

#[test]
fn same_input_gives_identical_output() {
    let (p, drives, state) = busy(0.3, FrictionLaw::Step);
    let settings = Settings {
        duration: 1.0,
        output_interval: 0.005,
        ..Default::default()
    };
    let (a_report, a) = run(p, drives.clone(), state.clone(), settings.clone());
    let (b_report, b) = run(p, drives, state, settings);
    assert_eq!(a, b);
    assert_eq!(a_report, b_report);
}

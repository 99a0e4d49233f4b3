//! Contact between objects (docs/flight.md): the impact of several unilateral constraints
//! against textbook collisions, the string-only tensing impulse and the complementarity
//! conditions; resting contact against the static equilibrium of two diabolos side by side in a
//! V computed by hand; whole runs against conservation laws.

use crate::common;

use common::*;
use diabolo::model::{
    apply_impact, energy::kinetic_energy, tensing_impulse_with_restitution, CartesianState,
    Constraint, DiaboloState, FrictionLaw, ImpactBody, ParamValues, Params,
};
use diabolo::simulation::{EventKind, Row};
use nalgebra::Vector2;
use proptest::prelude::*;

fn params(friction: f64) -> Params {
    Params::new(ParamValues {
        friction,
        ..ParamValues::default()
    })
    .unwrap()
}

/// Sticks far away at rest, and the given free diabolos.
fn free_discs(discs: &[(Vector2<f64>, Vector2<f64>)]) -> CartesianState {
    let mut state = CartesianState::default();
    state.left.pos = Vector2::new(-5.0, 0.0);
    state.right.pos = Vector2::new(5.0, 0.0);
    state.diabolos = discs
        .iter()
        .map(|&(pos, vel)| DiaboloState {
            pos,
            vel,
            spin: 0.3,
            knot: 0,
        })
        .collect();
    state
}

fn momentum(p: &Params, s: &CartesianState) -> Vector2<f64> {
    s.diabolos
        .iter()
        .map(|d| d.vel * p.diabolo_mass)
        .sum::<Vector2<f64>>()
        + (s.left.vel + s.right.vel) * p.stick_mass
}

fn pair(a: usize, b: usize, restitution: f64) -> Constraint {
    Constraint::Pair {
        a: ImpactBody::Diabolo(a),
        b: ImpactBody::Diabolo(b),
        restitution,
    }
}

#[test]
fn two_free_discs_collide_as_in_the_textbook() {
    // Equal masses, an oblique impact: along the line of centres n the normal velocities follow
    // the 1-D law (v1', v2') = ((1 - e) v1 + (1 + e) v2, (1 + e) v1 + (1 - e) v2) / 2, the
    // tangential ones are kept; e = 1 conserves energy, every e momentum.
    let p = params(0.0);
    let n = Vector2::new(0.6, 0.8);
    let (v1, v2) = (Vector2::new(1.5, 0.7), Vector2::new(-0.4, -1.1));
    for e in [1.0, 0.5, 0.0] {
        let mut state = free_discs(&[(Vector2::zeros(), v1), (n * 0.127, v2)]);
        let before = state.clone();
        let outcome = apply_impact(&p, &mut state, &[], [false; 2], &[pair(1, 2, e)]).unwrap();
        let (u1, u2) = (v1.dot(&n), v2.dot(&n));
        let expected1 = ((1.0 - e) * u1 + (1.0 + e) * u2) / 2.0;
        let expected2 = ((1.0 + e) * u1 + (1.0 - e) * u2) / 2.0;
        let (w1, w2) = (state.diabolos[0].vel, state.diabolos[1].vel);
        assert!((w1.dot(&n) - expected1).abs() < 1e-14 && (w2.dot(&n) - expected2).abs() < 1e-14);
        let t = Vector2::new(-n.y, n.x);
        assert!((w1.dot(&t) - v1.dot(&t)).abs() < 1e-14 && (w2.dot(&t) - v2.dot(&t)).abs() < 1e-14);
        assert!((momentum(&p, &state) - momentum(&p, &before)).norm() < 1e-15);
        assert_eq!(
            state.diabolos[0].spin, 0.3,
            "frictionless: spins pass through"
        );
        let lost = kinetic_energy(&p, &before) - kinetic_energy(&p, &state);
        if e == 1.0 {
            assert!(lost.abs() < 1e-10, "{lost}");
        }
        assert!((outcome.energy_lost - lost).abs() < 1e-12);
        let closing = u1 - u2;
        let textbook = 0.25 * p.diabolo_mass * (1.0 - e * e) * closing * closing;
        assert!((lost - textbook).abs() < 1e-12, "{lost} vs {textbook}");
    }
}

#[test]
fn a_disc_hitting_a_held_stick_tip_rebounds_with_the_restitution() {
    let p = params(0.0);
    let mut state = free_discs(&[(Vector2::new(0.0635, 1.0), Vector2::new(-2.0, 0.5))]);
    state.left.pos = Vector2::new(0.0, 1.0);
    let constraint = Constraint::Pair {
        a: ImpactBody::Left,
        b: ImpactBody::Diabolo(1),
        restitution: 0.4,
    };
    let outcome = apply_impact(&p, &mut state, &[], [true, false], &[constraint]).unwrap();
    let v = state.diabolos[0].vel;
    assert!((v.x - 0.8).abs() < 1e-14 && (v.y - 0.5).abs() < 1e-14);
    assert_eq!(state.left.vel, Vector2::zeros(), "the hand holds its stick");
    assert!((outcome.energy_lost - 0.5 * p.diabolo_mass * (4.0 - 0.64)).abs() < 1e-12);
}

#[test]
fn three_discs_in_a_row_share_one_velocity_in_a_plastic_impact() {
    // Newton's cradle, plastic: the moving disc hits two resting ones in contact; all three move
    // on together at a third of its speed (momentum), the complementarity of each contact.
    let p = params(0.0);
    let d = 0.127;
    let mut state = free_discs(&[
        (Vector2::new(0.0, 0.0), Vector2::new(3.0, 0.0)),
        (Vector2::new(d, 0.0), Vector2::zeros()),
        (Vector2::new(2.0 * d, 0.0), Vector2::zeros()),
    ]);
    apply_impact(
        &p,
        &mut state,
        &[],
        [false; 2],
        &[pair(1, 2, 0.0), pair(2, 3, 0.0)],
    )
    .unwrap();
    for disc in &state.diabolos {
        assert!((disc.vel - Vector2::new(1.0, 0.0)).norm() < 1e-14);
    }
}

#[test]
fn the_string_alone_is_the_tensing_impulse() {
    // One string constraint: the same impulse as the tensing impulse (an independent
    // implementation), without friction and with friction slipping one way.
    let mut rng = SplitMix::new(7);
    let mut compared = 0;
    for trial in 0..200 {
        let n = 1 + trial % 4;
        let (mut state, length) = random_taut_state(&mut rng, n, (0, 0));
        let friction = if trial % 2 == 0 { 0.0 } else { 0.2 };
        let p = Params::new(ParamValues {
            string_length: length,
            friction,
            diabolo_radius: 1e-3,
            ..ParamValues::default()
        })
        .unwrap();
        // Stretching, and each axle slipping fast one way (no slip reverses in the impact).
        state.right.vel += (state.right.pos - state.left.pos).normalize() * 1.5;
        for d in &mut state.diabolos {
            d.spin = 50.0;
        }
        let heavy = [trial % 3 == 0, false];
        let e = 0.3;
        let mut reference = state.clone();
        let record = tensing_impulse_with_restitution(&p, e, &mut reference, heavy).unwrap();
        if record.mode_changes > 0 || record.length_rate_before <= 0.0 {
            continue;
        }
        let slots: Vec<usize> = (1..=n).collect();
        let outcome = apply_impact(
            &p,
            &mut state,
            &slots,
            heavy,
            &[Constraint::String { restitution: e }],
        )
        .unwrap();
        assert!((outcome.impulses[0] - record.magnitude).abs() < 1e-12 * (1.0 + record.magnitude));
        for k in 0..n + 2 {
            assert!(
                (state.velocity(k) - reference.velocity(k)).norm() < 1e-12,
                "trial {trial}"
            );
        }
        for (a, b) in state.diabolos.iter().zip(&reference.diabolos) {
            assert!((a.spin - b.spin).abs() < 1e-10, "trial {trial}");
        }
        assert!((outcome.energy_lost - record.energy_lost).abs() < 1e-10);
        compared += 1;
    }
    assert!(compared >= 100, "only {compared} impacts compared");
}

/// A random impact: a string at full length with n diabolos, one pair of neighbours touching
/// (moved to the contact distance along their segment), random velocities; the constraints:
/// that contact (random e) and, half the time, the string.
pub(crate) fn random_impact(
    seed: u64,
    n: usize,
    with_string: bool,
) -> (Params, CartesianState, Vec<usize>, Vec<Constraint>) {
    let mut rng = SplitMix::new(seed);
    let (state, length) = random_taut_state(&mut rng, n, (0, 0));
    let p = common::random_params(&mut rng, FrictionLaw::Step, length);
    let slots: Vec<usize> = (1..=n).collect();
    let mut constraints = Vec::new();
    // The contact distance of diabolo 1 and the left stick's tip: their distance now.
    let radius = (state.diabolos[0].pos - state.left.pos).norm();
    let p = Params::new(ParamValues {
        diabolo_radius: radius,
        contact_restitution: rng.uniform(0.0, 1.0),
        ..*p
    })
    .unwrap();
    let a = ImpactBody::Left;
    constraints.push(Constraint::Pair {
        a,
        b: ImpactBody::Diabolo(1),
        restitution: p.contact_restitution,
    });
    if with_string {
        constraints.push(Constraint::String {
            restitution: p.restitution,
        });
    }
    (p, state, slots, constraints)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    // After an impact every constraint with a positive impulse separates at e times its
    // approach speed (Newton's law) or, when that gained energy, at the scaled plastic rule's
    // rate, and every constraint with no impulse is not approaching; energy is never gained.
    #[test]
    fn an_impact_is_complementary_and_never_gains_energy(
        seed in any::<u64>(), n in 1usize..4, with_string in any::<bool>(), heavy in any::<[bool; 2]>()
    ) {
        let (p, mut state, slots, constraints) = random_impact(seed, n, with_string);
        let heavy = [heavy[0], heavy[1] && !heavy[0]];
        let outcome = apply_impact(&p, &mut state, &slots, heavy, &constraints).unwrap();
        let scale = 1e-9 * (1.0 + outcome.rates_before.iter().fold(0.0f64, |a, b| a.max(b.abs())));
        for (j, c) in constraints.iter().enumerate() {
            let e = match *c {
                Constraint::Pair { restitution, .. } | Constraint::String { restitution } => restitution,
            };
            let (before, after, impulse) =
                (outcome.rates_before[j], outcome.rates_after[j], outcome.impulses[j]);
            prop_assert!(impulse >= 0.0);
            prop_assert!(after >= -scale, "constraint {j} still approaching: {after}");
            if impulse > 0.0 && outcome.rule == diabolo::model::ImpactRule::Newton {
                prop_assert!((after + e * before.min(0.0)).abs() <= scale,
                    "constraint {j}: {after} vs -e {before}");
            }
        }
        prop_assert!(outcome.energy_lost >= 0.0);
    }
}

#[test]
fn two_diabolos_side_by_side_hang_at_the_static_equilibrium_computed_by_hand() {
    // Frictionless, sticks held at (-+0.5, 1.2), the discs touching at x = -+R: by symmetry the
    // middle segment is horizontal, the outer ones of length s0 = (L - 2R) / 2 drop
    // dy = sqrt(s0^2 - (0.5 - R)^2); one tension T (c = 0) holds each disc: 2 T sin a = 2 m g
    // for the pair, T sin a = m g each; and the contact force balances the rest horizontally:
    // lambda = T (1 - cos a).
    let text = r#"{"params": {"string_length": 1.46, "friction": 0.0},
        "initial": {"diabolos": [{"x": -0.0635}, {"x": 0.0635}]},
        "drive": {"left": {"type": "path", "keyframes": [[0, -0.5, 1.2]]},
                  "right": {"type": "path", "keyframes": [[0, 0.5, 1.2]]}},
        "sim": {"duration": 1.0, "output_interval": 0.01}}"#;
    let (rows, report) = run_text(text);
    assert!(report.failure.is_none(), "{:?}", report.failure);
    let (r, length, m, g): (f64, f64, f64, f64) = (0.0635, 1.46, 0.2, 9.81);
    let s0 = (length - 2.0 * r) / 2.0;
    let dx = 0.5 - r;
    let dy = (s0 * s0 - dx * dx).sqrt();
    let (sin_a, cos_a) = (dy / s0, dx / s0);
    let tension = m * g / sin_a;
    let lambda = tension * (1.0 - cos_a);
    for row in &rows {
        let d = &row.state.diabolos;
        assert!(
            (d[0].pos - Vector2::new(-r, 1.2 - dy)).norm() < 1e-9,
            "t = {}",
            row.t
        );
        assert!(
            (d[1].pos - Vector2::new(r, 1.2 - dy)).norm() < 1e-9,
            "t = {}",
            row.t
        );
        assert!(((d[1].pos - d[0].pos).norm() - 2.0 * r).abs() < 1e-10);
        for t in &row.tensions {
            assert!((t - tension).abs() < 1e-9, "{t} vs {tension}");
        }
        assert_eq!(row.resting.len(), 1);
        let ([a, b], force) = row.resting[0];
        assert_eq!((a, b), (1, 2));
        assert!((force - lambda).abs() < 1e-9, "{force} vs {lambda}");
    }
    assert!(report.events.iter().all(|e| e.kind != EventKind::Contact));
}

#[test]
fn a_resting_contact_holds_its_distance_and_never_pulls() {
    // The shipped two_side_by_side scenario: resting from the start until the hands separate
    // the pair; while held the contact force is positive and the distance 2R.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let text = std::fs::read_to_string(dir.join("two_side_by_side.json")).unwrap();
    let (rows, report) = run_text(&text);
    assert!(report.failure.is_none(), "{:?}", report.failure);
    let separate = report
        .events
        .iter()
        .find(|e| e.kind == EventKind::Separate)
        .expect("the hands separate them");
    let held: Vec<&Row> = rows.iter().filter(|r| !r.resting.is_empty()).collect();
    assert!(held.len() > 40);
    for row in held {
        let (_, force) = row.resting[0];
        assert!(force >= 0.0, "t = {}: {force}", row.t);
        let gap = (row.state.diabolos[1].pos - row.state.diabolos[0].pos).norm();
        assert!((gap - 0.127).abs() < 1e-10, "t = {}: {gap}", row.t);
    }
    assert!(rows
        .iter()
        .filter(|r| r.t < separate.t)
        .all(|r| !r.resting.is_empty()));
}

#[test]
fn two_free_discs_colliding_beside_a_slack_string_conserve_energy_and_momentum() {
    // c = 0, e = 1, the discs far from the string's reach: one elastic impact in the air.
    let text = r#"{"params": {"string_length": 1.46, "friction": 0.0, "contact_restitution": 1.0},
        "initial": {"diabolos": [{"mode": "flying", "pos": [3.0, 2.0], "vel": [1.0, 0.5], "spin": 0.4},
                                 {"mode": "flying", "pos": [3.6, 2.05], "vel": [-1.2, 0.6], "spin": -0.2}]},
        "drive": {"left": {"type": "path", "keyframes": [[0, -0.4, 1.0]]},
                  "right": {"type": "path", "keyframes": [[0, 0.4, 1.0]]}},
        "sim": {"duration": 0.6, "output_interval": 0.01}}"#;
    let (rows, report) = run_text(text);
    assert!(report.failure.is_none(), "{:?}", report.failure);
    assert_eq!(report.contacts, 1);
    let p = params(0.0);
    let energy = |r: &Row| {
        r.state
            .diabolos
            .iter()
            .map(|d| {
                0.5 * p.diabolo_mass * (d.vel.norm_squared() + p.spin_inertia * d.spin * d.spin)
                    + p.diabolo_mass * p.gravity * d.pos.y
            })
            .sum::<f64>()
    };
    let e0 = energy(&rows[0]);
    for row in &rows {
        assert!((energy(row) - e0).abs() < 1e-10, "t = {}", row.t);
        // Momentum: gravity's impulse only.
        let m: Vector2<f64> = row.state.diabolos.iter().map(|d| d.vel).sum();
        let expected = Vector2::new(-0.2, 1.1 - 2.0 * p.gravity * row.t);
        assert!((m - expected).norm() < 1e-12, "t = {}", row.t);
    }
}

#[test]
fn a_glancing_contact_within_one_long_step_is_found() {
    // Two diabolos flying past each other at 20 m/s, 0.1 m apart vertically (2R = 0.127 m),
    // beside a slack string between held sticks: nothing limits the steps (free flights are
    // closed forms), so the pair's approach is a small part of one step; the contact is found
    // at the analytic time.
    let text = r#"{"params": {"string_length": 1.46, "friction": 0.0},
        "initial": {"diabolos": [{"mode": "flying", "pos": [2.0, 2.0], "vel": [10.0, 0.0]},
                                 {"mode": "flying", "pos": [3.0, 2.1], "vel": [-10.0, 0.0]}]},
        "drive": {"left": {"type": "path", "keyframes": [[0, -0.4, 1.0]]},
                  "right": {"type": "path", "keyframes": [[0, 0.4, 1.0]]}},
        "sim": {"duration": 0.2, "output_interval": 0.1}}"#;
    let (_, report) = run_text(text);
    assert!(report.failure.is_none(), "{:?}", report.failure);
    assert_eq!(report.contacts, 1, "{:?}", report.events);
    let contact = report
        .events
        .iter()
        .find(|e| e.kind == EventKind::Contact)
        .unwrap();
    let dx = (0.127f64 * 0.127 - 0.01).sqrt();
    let t = (1.0 - dx) / 20.0;
    assert!((contact.t - t).abs() < 1e-9, "{} vs {t}", contact.t);
}

#[test]
fn four_diabolos_settle_touching_and_the_hands_carry_the_whole_chain() {
    // The shipped four_side_by_side: after the first impacts the four hang as one chain, every
    // neighbour 2R apart and pressed (never pulled); the string and the contacts are internal,
    // so the hands' forces balance gravity and the diabolos' accelerations (Newton's second
    // law for the whole system, the sticks held still): sum F_hand - (2 m_s + 4 m_d) g =
    // m_d sum a_K, the accelerations by central differences of the rows 1 ms apart (their
    // error is O(h^2): about 2e-2 N at 10 ms, 2.2e-4 N at 1 ms).
    let sim = common::shipped("four_side_by_side", &[("sim.output_interval", "0.001")]);
    let p = sim.params;
    let mut rows = Vec::new();
    let report = sim.run(&mut |row| rows.push(row.clone()));
    assert!(report.failure.is_none(), "{:?}", report.failure);
    assert!(report.stats.rows > 4000);
    let contacts = report
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Contact);
    assert!(contacts.clone().count() >= 10 && contacts.clone().all(|e| e.t < 1.5));
    let weight = (2.0 * p.stick_mass + 4.0 * p.diabolo_mass) * p.gravity;
    let h = 1e-3;
    let (mut worst, mut drift): (f64, f64) = (0.0, 0.0);
    for k in 1..rows.len() - 1 {
        let row = &rows[k];
        if row.t < 1.5 {
            continue;
        }
        assert_eq!(row.resting.len(), 3, "t = {}", row.t);
        for (_, force) in &row.resting {
            assert!(*force >= 0.0, "t = {}: {force}", row.t);
        }
        let d = &row.state.diabolos;
        for pair in d.windows(2) {
            let gap = (pair[1].pos - pair[0].pos).norm() - 2.0 * p.diabolo_radius;
            drift = drift.max(gap.abs());
        }
        let accel: Vector2<f64> = (0..4)
            .map(|i| {
                (rows[k + 1].state.diabolos[i].vel - rows[k - 1].state.diabolos[i].vel) / (2.0 * h)
            })
            .sum();
        let hands = row.hand_forces[0] + row.hand_forces[1];
        let residual = hands - Vector2::new(0.0, weight) - p.diabolo_mass * accel;
        worst = worst.max(residual.norm());
    }
    assert!(
        worst < 5e-4 * weight,
        "Newton's law off by {worst} N of {weight} N"
    );
    // The held distance drifts with the integration (rtol 1e-9): 1.0e-9 m after 2.5 s.
    assert!(drift < 1e-8, "the chain's contacts drift {drift} m from 2R");
    eprintln!("residual {worst:.2e} N of {weight} N; contact drift {drift:.2e} m");
}

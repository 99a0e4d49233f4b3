//! Whole runs against an independent Cartesian integration (tests/common/reference.rs:
//! Newton in x-y with the tension from d^2/dt^2 sum l = 0, RK4 with fixed small steps, events by
//! bisection, the impulse in Cartesian form). Scenarios: friction with a spinning diabolo and a
//! sine-driven hand, two diabolos, and a slack string that snaps taut. Positions must agree to
//! 1e-6 m over the run, and the events must be the same.

use crate::common;

use approx::abs_diff_eq;
use common::reference::reference_run;
use common::{held, pair_on_taut_string};
use diabolo::model::{CartesianState, ParamValues, Params};
use diabolo::simulation::drive::{Drive, Path};
use diabolo::simulation::{EventKind, Settings, Simulation};
use nalgebra::Vector2;

/// Runs both simulators and compares positions at every output time; returns the worst gap.
fn compare(
    params: Params,
    drives: [Drive; 2],
    initial: CartesianState,
    slip_signs: &[f64],
    duration: f64,
) -> f64 {
    let settings = Settings {
        duration,
        output_interval: 0.01,
        rtol: 1e-11,
        atol: 1e-13,
        ..Default::default()
    };
    let sim = Simulation::new(params, drives.clone(), initial, settings).unwrap();
    let mut rows = Vec::new();
    let report = sim.run(&mut |row| rows.push(row.clone()));
    assert!(report.failure.is_none(), "{:?}", report.failure);
    // The reference starts from the same state (path sticks already on their paths).
    let reference = reference_run(
        &params,
        &drives,
        &sim.initial,
        slip_signs,
        duration,
        2e-4,
        0.01,
    );
    assert!(
        !reference.slip_reversed,
        "the reference needs every slip to keep its sign"
    );
    let worst = common::worst_position_gap(&rows, &reference.samples);
    let ours: Vec<(f64, &str)> = report
        .events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Loosen | EventKind::Tense))
        .map(|e| (e.t, e.kind.name()))
        .collect();
    assert_eq!(
        ours.len(),
        reference.events.len(),
        "{ours:?} vs {:?}",
        reference.events
    );
    for ((t, kind), (rt, rkind)) in ours.iter().zip(&reference.events) {
        assert_eq!(kind, rkind);
        assert!(abs_diff_eq!(t, rt, epsilon = 1e-8), "{kind} at {t} vs {rt}");
    }
    eprintln!(
        "worst position gap {worst:e} m over {} rows, events {ours:?}",
        rows.len()
    );
    worst
}

#[test]
fn spinning_diabolo_with_friction_and_a_sine_hand_matches_the_cartesian_reference() {
    let p = Params::new(ParamValues {
        spin_drag: 0.05,
        ..Default::default()
    })
    .unwrap();
    let state = CartesianState::hanging(&p, [-0.4, 1.5], [0.4, 1.5], 0.1, 2.0).unwrap();
    let right = Drive::Path(Path::Sine {
        center: Vector2::new(0.4, 1.5),
        amplitude: Vector2::new(0.05, 0.08),
        frequency: 1.5,
        phase: Vector2::zeros(),
    });
    let worst = compare(p, [held([-0.4, 1.5]), right], state, &[1.0], 2.0);
    assert!(worst < 1e-6, "worst position gap {worst:e} m");
}

#[test]
fn two_diabolos_match_the_cartesian_reference() {
    // Two diabolos spinning against each other with strong capstan friction: the spins hold
    // them apart on the string for the whole 2 s, each slipping one way throughout (small
    // diabolos: 127 mm ones would touch at 0.88 s).
    let p = Params::new(ParamValues {
        spin_drag: 0.02,
        friction: 0.5,
        diabolo_radius: 0.02,
        ..Default::default()
    })
    .unwrap();
    let state = pair_on_taut_string(&p, [-0.25, 0.1], [-60.0, 60.0]);
    let worst = compare(
        p,
        [held([-0.5, 0.0]), held([0.5, 0.0])],
        state,
        &[-1.0, 1.0],
        2.0,
    );
    assert!(worst < 1e-6, "worst position gap {worst:e} m");
}

#[test]
fn slack_string_snapping_taut_matches_the_cartesian_reference() {
    let p = Params::new(ParamValues {
        spin_drag: 0.05,
        ..Default::default()
    })
    .unwrap();
    let mut state = CartesianState::hanging(&p, [-0.4, 1.5], [0.4, 1.5], 0.1, 1.5).unwrap();
    // Lift the diabolo 0.15 m inside the ellipse, moving sideways: free flight, then a snap.
    state.diabolos[0].pos.y += 0.15;
    state.diabolos[0].vel = Vector2::new(0.4, 0.0);
    let worst = compare(p, [held([-0.4, 1.5]), held([0.4, 1.5])], state, &[1.0], 2.0);
    assert!(worst < 1e-6, "worst position gap {worst:e} m");
}

/// Runs the engine and the flight reference (frictionless) from `initial` with start `modes`;
/// compares every object's position at every output time and the leave/land/contact/loosen/
/// tense sequence; returns the worst gap (m).
fn compare_flight(
    params: Params,
    drives: [Drive; 2],
    initial: CartesianState,
    modes: Vec<diabolo::DiaboloMode>,
    duration: f64,
) -> f64 {
    use common::flight_reference::{flight_run, World};
    let settings = Settings {
        duration,
        output_interval: 0.01,
        rtol: 1e-11,
        atol: 1e-13,
        ..Default::default()
    };
    let sim =
        Simulation::with_modes(params, drives.clone(), initial, modes.clone(), settings).unwrap();
    let mut rows = Vec::new();
    let report = sim.run(&mut |row| rows.push(row.clone()));
    assert!(report.failure.is_none(), "{:?}", report.failure);
    let on: Vec<usize> = (0..modes.len())
        .filter(|&k| modes[k] == diabolo::DiaboloMode::String)
        .collect();
    let string = CartesianState {
        left: sim.initial.left,
        right: sim.initial.right,
        diabolos: on.iter().map(|&k| sim.initial.diabolos[k]).collect(),
    };
    let world = World {
        left: sim.initial.left,
        right: sim.initial.right,
        diabolos: sim.initial.diabolos.clone(),
        on,
        taut: params.string_length - string.string_used() < 1e-12
            && common::length_rate(&string) >= 0.0,
    };
    let reference = flight_run(&params, &drives, world, duration, 1e-4, 0.01);
    let worst = common::worst_position_gap(&rows, &reference.samples);
    let ours: Vec<(f64, &str)> = report
        .events
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                EventKind::Loosen
                    | EventKind::Tense
                    | EventKind::Leave
                    | EventKind::Land
                    | EventKind::Contact
            )
        })
        .map(|e| (e.t, e.kind.name()))
        .collect();
    assert_eq!(
        ours.iter().map(|e| e.1).collect::<Vec<_>>(),
        reference.events.iter().map(|e| e.1).collect::<Vec<_>>(),
        "{ours:?} vs {:?}",
        reference.events
    );
    for ((t, kind), (rt, _)) in ours.iter().zip(&reference.events) {
        assert!(abs_diff_eq!(t, rt, epsilon = 1e-8), "{kind} at {t} vs {rt}");
    }
    eprintln!("worst position gap {worst:e} m, events {ours:?}");
    worst
}

fn frictionless(restitution: f64, contact_restitution: f64, radius: f64) -> Params {
    Params::new(ParamValues {
        friction: 0.0,
        spin_drag: 0.05,
        restitution,
        contact_restitution,
        diabolo_radius: radius,
        ..Default::default()
    })
    .unwrap()
}

#[test]
fn a_throw_and_catch_matches_the_cartesian_reference() {
    // Thrown straight up from a hang while the right hand sways: the string goes slack, the
    // diabolo leaves it, flies, lands on the chord and snaps the string taut.
    let p = frictionless(0.0, 0.5, 0.0635);
    let mut state = CartesianState::hanging(&p, [-0.4, 1.0], [0.4, 1.0], 0.05, 1.0).unwrap();
    state.diabolos[0].vel = Vector2::new(0.3, 4.0);
    let right = Drive::Path(Path::Sine {
        center: Vector2::new(0.4, 1.0),
        amplitude: Vector2::new(0.05, 0.04),
        frequency: 1.0,
        phase: Vector2::zeros(),
    });
    let modes = vec![diabolo::DiaboloMode::String];
    let worst = compare_flight(p, [held([-0.4, 1.0]), right], state, modes, 2.0);
    assert!(worst < 1e-6, "worst position gap {worst:e} m");
}

#[test]
fn a_landing_beside_another_diabolo_matches_the_cartesian_reference() {
    // Diabolo 1 hangs left of the middle; diabolo 2 drops onto the segment between it and the
    // right stick, takes slot 2, and the two swing on the taut string.
    let p = frictionless(0.0, 0.5, 0.02);
    let mut state = CartesianState::hanging(&p, [-0.5, 1.0], [0.5, 1.0], -0.3, 0.5).unwrap();
    state.diabolos.push(diabolo::model::DiaboloState {
        pos: Vector2::new(0.25, 1.3),
        vel: Vector2::new(-0.2, 0.5),
        spin: -0.3,
        knot: 0,
    });
    let modes = vec![diabolo::DiaboloMode::String, diabolo::DiaboloMode::Flying];
    let worst = compare_flight(p, [held([-0.5, 1.0]), held([0.5, 1.0])], state, modes, 2.0);
    assert!(worst < 1e-6, "worst position gap {worst:e} m");
}

#[test]
fn a_contact_on_a_taut_string_matches_the_cartesian_reference() {
    // Two diabolos slide together on a frictionless taut string and collide elastically (the
    // string's restitution 1 too): the impact is the pair's and the string's together.
    let p = frictionless(1.0, 1.0, 0.0635);
    let state = pair_on_taut_string(&p, [-0.3, 0.2], [0.0, 0.0]);
    let modes = vec![diabolo::DiaboloMode::String; 2];
    let worst = compare_flight(p, [held([-0.5, 0.0]), held([0.5, 0.0])], state, modes, 2.0);
    assert!(worst < 1e-6, "worst position gap {worst:e} m");
}

//! Events and failures of whole runs: grip and its release at the capstan bound, slip
//! reversals, a knot change when the hands cross, a bouncing string settling (Zeno), a path
//! stick following its path, convergence with the expected order, and the run-time failures
//! (two diabolos meeting, a diabolo leaving the string, an event flood), each with its time,
//! its object and the rows up to it.

use crate::common;

use approx::{abs_diff_eq, assert_abs_diff_eq};
use common::{held, pair_on_taut_string, run_collecting as run};
use diabolo::model::{CartesianState, ParamValues, Params};
use diabolo::simulation::drive::{ClampedSpline, Drive, Path};
use diabolo::simulation::Method;
use diabolo::simulation::{EventKind, RunError, RunReport, Settings};
use nalgebra::Vector2;
use std::f64::consts::TAU;

fn kinds(report: &RunReport) -> Vec<EventKind> {
    report.events.iter().map(|e| e.kind).collect()
}

/// A diabolo released at rest off-centre below held sticks, axle not spinning.
fn swing(friction: f64) -> (Params, [Drive; 2], CartesianState) {
    let p = Params::new(ParamValues {
        friction,
        spin_inertia: 20.0,
        ..Default::default()
    })
    .unwrap();
    let state = CartesianState::hanging(&p, [-0.4, 0.0], [0.4, 0.0], 0.25, 0.0).unwrap();
    (p, [held([-0.4, 0.0]), held([0.4, 0.0])], state)
}

#[test]
fn grip_breaks_when_the_needed_coefficient_reaches_the_capstan_bound() {
    let (p, drives, state) = swing(0.2);
    let (report, rows) = run(
        p,
        drives,
        state,
        Settings {
            duration: 3.0,
            output_interval: 0.001,
            ..Default::default()
        },
    );
    assert!(report.failure.is_none(), "{:?}", report.failure);
    let k = kinds(&report);
    let stick = k
        .iter()
        .position(|e| *e == EventKind::Stick)
        .expect("grips");
    assert!(k[stick..].contains(&EventKind::Unstick), "{k:?}");
    // It lets go exactly when the ratio needed reaches exp(c theta'): the largest coefficient
    // needed while gripping is the capstan coefficient itself.
    let needed = report.grip_needed.unwrap();
    assert!(
        needed <= p.friction * (1.0 + 1e-6) && needed > 0.95 * p.friction,
        "needed {needed}"
    );
    // While gripping, no friction loss accrues.
    let at = |t: f64| rows.iter().find(|r| r.t >= t).unwrap();
    let (t_stick, t_unstick) = (
        report.events[stick].t,
        report
            .events
            .iter()
            .find(|e| e.kind == EventKind::Unstick)
            .unwrap()
            .t,
    );
    assert_abs_diff_eq!(
        at(t_unstick).friction_loss,
        at(t_stick + 0.001).friction_loss,
        epsilon = 1e-9
    );
}

#[test]
fn slipping_diabolo_reverses_its_slip_without_gripping() {
    let (p, drives, state) = swing(0.02);
    let (report, _) = run(
        p,
        drives,
        state,
        Settings {
            duration: 3.0,
            output_interval: 0.01,
            ..Default::default()
        },
    );
    let k = kinds(&report);
    assert!(
        k.iter().filter(|e| **e == EventKind::SlipReversal).count() >= 2,
        "{k:?}"
    );
    assert!(!k.contains(&EventKind::Stick));
    assert!(report.grip_needed.is_none());
}

#[test]
fn crossing_hands_wrap_the_string_around_the_axle() {
    let p = Params::new(ParamValues::default()).unwrap();
    let left = Drive::Path(Path::Keyframes(
        ClampedSpline::new(vec![
            (0.0, Vector2::new(-0.1, 0.1)),
            (1.0, Vector2::new(0.25, 0.1)),
        ])
        .unwrap(),
    ));
    let state = CartesianState::hanging(&p, [-0.1, 0.1], [0.05, 0.0], 0.0, 0.5).unwrap();
    let (report, rows) = run(
        p,
        [left, held([0.05, 0.0])],
        state,
        Settings {
            duration: 1.5,
            output_interval: 0.01,
            ..Default::default()
        },
    );
    assert!(report.failure.is_none(), "{:?}", report.failure);
    let change = report
        .events
        .iter()
        .find(|e| e.kind == EventKind::KnotChange)
        .expect("a knot change");
    assert_eq!(change.knot, Some(1));
    let last = rows.last().unwrap();
    assert_eq!(last.state.diabolos[0].knot, 1);
    let theta = last.thetas[0].expect("on the string");
    assert!(theta > TAU && theta < 2.0 * TAU);
}

/// A diabolo lifted inside the ellipse above held sticks: it falls and snaps the string taut.
fn drop(restitution: f64) -> (Params, [Drive; 2], CartesianState) {
    let p = Params::new(ParamValues {
        restitution,
        ..Default::default()
    })
    .unwrap();
    let mut state = CartesianState::hanging(&p, [-0.4, 1.5], [0.4, 1.5], 0.0, 0.5).unwrap();
    state.diabolos[0].pos.y += 0.2;
    (p, [held([-0.4, 1.5]), held([0.4, 1.5])], state)
}

#[test]
fn bouncing_string_settles_taut_after_accumulating_bounces() {
    let (p, drives, state) = drop(0.6);
    let (report, rows) = run(
        p,
        drives,
        state,
        Settings {
            duration: 2.0,
            output_interval: 0.01,
            ..Default::default()
        },
    );
    assert!(report.failure.is_none(), "{:?}", report.failure);
    let k = kinds(&report);
    let tenses = k.iter().filter(|e| **e == EventKind::Tense).count();
    assert!(tenses >= 3, "{k:?}");
    let settle = k
        .iter()
        .position(|e| *e == EventKind::ZenoSettle)
        .expect("the bounces settle");
    assert_eq!(k[settle - 1], EventKind::Tense);
    // Each bounce rebounds at e times its impact speed until the settle.
    for e in report
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Tense)
        .take(2)
    {
        let (before, after) = e.length_rates.unwrap();
        assert!(
            abs_diff_eq!(after, -p.restitution * before, epsilon = 1e-9 * before),
            "{before} -> {after}"
        );
    }
    assert_abs_diff_eq!(rows.last().unwrap().slack, 0.0, epsilon = 1e-12);
}

#[test]
fn path_stick_follows_its_path() {
    let p = Params::new(ParamValues {
        spin_drag: 0.05,
        ..Default::default()
    })
    .unwrap();
    let state = CartesianState::hanging(&p, [-0.4, 1.5], [0.4, 1.5], 0.05, 0.6).unwrap();
    let path = Path::Sine {
        center: Vector2::new(0.4, 1.5),
        amplitude: Vector2::new(0.05, 0.1),
        frequency: 1.5,
        phase: Vector2::zeros(),
    };
    let (report, rows) = run(
        p,
        [held([-0.4, 1.5]), Drive::Path(path.clone())],
        state,
        Settings {
            duration: 10.0,
            output_interval: 0.001,
            ..Default::default()
        },
    );
    assert!(report.failure.is_none(), "{:?}", report.failure);
    let worst = rows
        .iter()
        .map(|r| (r.state.right.pos - path.at(r.t).pos).norm())
        .fold(0.0, f64::max);
    assert!(worst < 1e-9, "worst deviation {worst:e} m");
}

#[test]
fn global_error_falls_with_the_expected_order() {
    // A frictionless swing over 1 s; the truth from DOP853 at rtol 1e-13.
    let p = Params::new(ParamValues {
        friction: 0.0,
        ..Default::default()
    })
    .unwrap();
    let state = CartesianState::hanging(&p, [-0.4, 0.0], [0.4, 0.0], 0.3, 0.0).unwrap();
    let drives = [held([-0.4, 0.0]), held([0.4, 0.0])];
    let end = |method: Method, rtol: f64| {
        let settings = Settings {
            duration: 1.0,
            output_interval: 1.0,
            rtol,
            atol: rtol * 1e-3,
            method,
            ..Default::default()
        };
        let (report, rows) = run(p, drives.clone(), state.clone(), settings);
        assert!(report.failure.is_none());
        rows.last().unwrap().state.diabolos[0].pos
    };
    let truth = end(Method::Dop853, 1e-14);
    // RK4: successive differences of the end state as the step halves fall by 2^4.
    let rk4: Vec<Vector2<f64>> = [0.01, 0.005, 0.0025, 0.00125]
        .iter()
        .map(|&h| end(Method::Rk4 { step: h }, 1e-6))
        .collect();
    let differences: Vec<f64> = rk4.windows(2).map(|w| (w[0] - w[1]).norm()).collect();
    for w in differences.windows(2) {
        let ratio = w[0] / w[1];
        assert!(
            (14.0..18.0).contains(&ratio),
            "RK4 difference ratio {ratio} per halved step ({differences:?})"
        );
    }
    let dopri: Vec<f64> = [1e-6, 1e-8, 1e-10]
        .iter()
        .map(|&r| (end(Method::Dopri5, r) - truth).norm())
        .collect();
    for (w, r) in dopri.windows(2).zip([1e-6, 1e-8]) {
        assert!(w[1] < w[0] / 20.0, "DOPRI5 errors {dopri:?}");
        assert!(w[0] < 100.0 * r, "DOPRI5 error {} at rtol {r}", w[0]);
    }
}

/// Two diabolos at (x1, y) and (x2, y) at rest on a taut string below sticks at (+-0.5, 0).
fn pair(friction: f64, spins: [f64; 2], xs: [f64; 2]) -> (Params, [Drive; 2], CartesianState) {
    pair_of_size(friction, spins, xs, ParamValues::default().diabolo_radius)
}

/// As [`pair`], with discs of radius `radius` (m).
fn pair_of_size(
    friction: f64,
    spins: [f64; 2],
    xs: [f64; 2],
    radius: f64,
) -> (Params, [Drive; 2], CartesianState) {
    let p = Params::new(ParamValues {
        friction,
        spin_drag: 0.02,
        diabolo_radius: radius,
        ..Default::default()
    })
    .unwrap();
    let state = pair_on_taut_string(&p, xs, spins);
    (p, [held([-0.5, 0.0]), held([0.5, 0.0])], state)
}

#[test]
fn two_diabolos_sliding_together_bounce_then_rest_against_each_other() {
    // They slide together on the V: contacts (restitution 0.5), each slower than the last, until
    // the rebound would be slower than the Zeno speed; then they rest in contact, 2R apart,
    // held by a contact force, and the run goes on.
    let (p, drives, state) = pair(0.17, [2.0, -2.0], [-0.15, 0.15]);
    let (report, rows) = run(
        p,
        drives,
        state,
        Settings {
            duration: 2.0,
            output_interval: 0.001,
            ..Default::default()
        },
    );
    assert!(report.failure.is_none(), "{:?}", report.failure);
    let contacts: Vec<_> = report
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Contact)
        .collect();
    assert!(contacts.len() >= 3, "{contacts:?}");
    for pair in contacts.windows(2) {
        assert!(pair[1].speed.unwrap() < pair[0].speed.unwrap());
    }
    let last = contacts.last().unwrap();
    assert_eq!(last.resting, Some(true));
    assert!(contacts[..contacts.len() - 1]
        .iter()
        .all(|c| c.resting == Some(false) && c.object == Some(1)));
    assert_eq!(report.contacts, contacts.len());
    let two_r = 2.0 * p.diabolo_radius;
    for row in rows.iter().filter(|r| r.t > last.t) {
        let gap = (row.state.diabolos[1].pos - row.state.diabolos[0].pos).norm();
        assert!((gap - two_r).abs() < 1e-10, "t = {}: {gap}", row.t);
    }
}

#[test]
fn diabolos_driven_together_fast_bounce_and_rest_without_a_step_size_collapse() {
    // Fast spins against each other drive them together hard: the segment between them shrinks
    // with its direction turning ever faster; the contact at 2R stops them first.
    let (p, drives, state) = pair(0.2, [-100.0, 100.0], [-0.3, 0.3]);
    let settings = Settings {
        duration: 2.0,
        output_interval: 0.001,
        ..Default::default()
    };
    let (report, rows) = run(p, drives, state, settings);
    assert!(report.failure.is_none(), "{:?}", report.failure);
    assert!(report.contacts >= 1);
    let closest = rows
        .iter()
        .map(|r| (r.state.diabolos[1].pos - r.state.diabolos[0].pos).norm())
        .fold(f64::INFINITY, f64::min);
    assert!(closest > 2.0 * p.diabolo_radius - 1e-9, "{closest}");
}

#[test]
fn a_diabolo_swinging_through_the_straight_string_leaves_it_and_flies() {
    // Frictionless, the outer one (further from the middle) swings through the straight line
    // of the string before they meet (small discs: 127 mm ones would touch first): it leaves
    // the string there (theta = pi) and flies.
    let (p, drives, state) = pair_of_size(0.0, [0.0, 0.0], [-0.3, 0.2], 0.005);
    let (report, rows) = run(
        p,
        drives,
        state,
        Settings {
            duration: 2.0,
            output_interval: 0.001,
            ..Default::default()
        },
    );
    let leave = report
        .events
        .iter()
        .find(|e| e.kind == EventKind::Leave)
        .unwrap_or_else(|| panic!("no leave: {:?}", report.events));
    assert_eq!((leave.object, leave.slot), (Some(1), Some(1)));
    // Just before, diabolo 1's string angle approaches pi from above; after, it flies.
    let before = rows.iter().rev().find(|r| r.t < leave.t).unwrap();
    let theta = before.thetas[0].expect("on the string before");
    assert!(
        theta > std::f64::consts::PI && theta < std::f64::consts::PI + 0.2,
        "{theta}"
    );
    let after = rows.iter().find(|r| r.t > leave.t).unwrap();
    assert_eq!(after.modes[0], diabolo::DiaboloMode::Flying);
    assert_eq!((after.thetas[0], after.slots.clone()), (None, vec![0, 1]));
}

#[test]
fn an_event_flood_ends_the_run_instead_of_hanging() {
    // e = 0.6: the bounces accumulate at a finite time within the run.
    let (p, drives, state) = drop(0.6);
    let settings = Settings {
        duration: 2.0,
        output_interval: 0.01,
        zeno_bounces: 10_000,
        zeno_speed: 1e-12,
        max_events_per_second: 20.0,
        ..Default::default()
    };
    let (report, _) = run(p, drives, state, settings);
    assert!(
        matches!(report.failure, Some(RunError::EventFlood { .. })),
        "{:?}",
        report.failure
    );
}

#[test]
fn two_axles_grip_at_once_and_roll_without_friction_loss() {
    // High capstan friction and no spin: both axles grip at once, so the pair rolls along the
    // string (spin following the string speed) instead of sliding, and no friction work is done
    // while both grip. The grip holds the slip at the acceleration level: what work the row shows
    // is the integration's drift of the slip, proportional to the tolerance (1.0e-12 J over the
    // grip at rtol 1e-9, the default; run here at 1e-12).
    let (p, drives, state) = pair(0.8, [0.0, 0.0], [-0.2, 0.15]);
    let (report, rows) = run(
        p,
        drives,
        state,
        Settings {
            duration: 1.0,
            output_interval: 0.01,
            rtol: 1e-12,
            ..Default::default()
        },
    );
    let stuck: Vec<_> = report
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Stick)
        .map(|e| (e.t, e.object))
        .collect();
    assert!(
        stuck.len() >= 2 && stuck[0].1 == Some(1) && stuck[1].1 == Some(2),
        "{:?}",
        report.events
    );
    let released = report
        .events
        .iter()
        .find(|e| e.kind == EventKind::Unstick)
        .map_or(report.end_time, |e| e.t);
    let both = rows
        .iter()
        .filter(|r| r.t > stuck[1].0 && r.t <= released)
        .collect::<Vec<_>>();
    assert!(both.len() > 5, "both grip for {} rows", both.len());
    for row in &both {
        assert!(
            abs_diff_eq!(row.friction_loss, both[0].friction_loss, epsilon = 1e-12),
            "t = {}: {} {}",
            row.t,
            row.friction_loss,
            both[0].friction_loss
        );
    }
    // They roll: the spins move away from zero.
    let last = both.last().unwrap();
    assert!(
        last.state.diabolos.iter().all(|d| d.spin.abs() > 1e-3),
        "{:?}",
        last.state.diabolos
    );
}

#[test]
fn path_stick_stays_on_its_path_through_slack_and_snaps() {
    // A waving hand tosses the diabolo: the string goes slack and snaps taut again and again;
    // the stick is on its path at every row, loose or taut.
    let p = Params::new(ParamValues {
        restitution: 0.3,
        ..Default::default()
    })
    .unwrap();
    let path = Path::Sine {
        center: Vector2::new(0.4, 1.5),
        amplitude: Vector2::new(0.0, 0.25),
        frequency: 2.5,
        phase: Vector2::zeros(),
    };
    let state = CartesianState::hanging(&p, [-0.4, 1.5], [0.4, 1.5], 0.0, 0.5).unwrap();
    let (report, rows) = run(
        p,
        [held([-0.4, 1.5]), Drive::Path(path.clone())],
        state,
        Settings {
            duration: 2.0,
            output_interval: 0.001,
            ..Default::default()
        },
    );
    assert!(report.failure.is_none(), "{:?}", report.failure);
    let loose = rows
        .iter()
        .filter(|r| r.phase == Some(diabolo::simulation::Phase::Loose))
        .count();
    assert!(
        loose > 100
            && report
                .events
                .iter()
                .filter(|e| e.kind == EventKind::Tense)
                .count()
                >= 3,
        "{loose} loose rows, {:?}",
        kinds(&report)
    );
    let worst = rows
        .iter()
        .map(|r| (r.state.right.pos - path.at(r.t).pos).norm())
        .fold(0.0, f64::max);
    assert!(worst < 1e-9, "worst deviation {worst:e} m");
}

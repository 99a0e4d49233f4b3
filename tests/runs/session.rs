//! A session (`Simulation::session`): a run advanced piece by piece, with the hands' drives
//! changed between pieces. Advanced without a change it is the run, bit for bit; changed, it
//! keeps the energy ledger balanced and agrees with the run where the change changes nothing.

use std::path::Path;

use crate::common;
use common::shipped;

use diabolo::simulation::drive::{Drive, Schedule};
use diabolo::{Row, Simulation};

fn scenario_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")
}

fn names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(scenario_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| !t.contains("\"space\": true")))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The rows of a run with rows every `dt`.
fn rows(sim: &Simulation) -> (Vec<Row>, diabolo::RunReport) {
    let mut rows = Vec::new();
    let report = sim.run(&mut |row| rows.push(row.clone()));
    (rows, report)
}

/// Rows compared field by field, NaN equal to NaN (`{:?}` shows every bit of an f64 that
/// matters: shortest round trip).
fn same(a: &Row, b: &Row) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

#[test]
fn a_session_advanced_every_millisecond_shows_the_runs_rows_bit_for_bit() {
    for name in names() {
        let sim = shipped(&name, &[("sim.output_interval", "0.001")]);
        let (expected, report) = rows(&sim);
        let mut session = sim.session();
        for (k, row) in expected.iter().enumerate() {
            let t = if k + 1 == expected.len() {
                row.t
            } else {
                k as f64 * 0.001
            };
            assert_eq!(t, row.t, "{name}: row {k}");
            let reached = session.advance(t, None);
            if reached.is_err() {
                assert!(report.failure.is_some(), "{name}: {reached:?}");
                break;
            }
            let state = session.state().unwrap();
            assert!(
                same(state, row),
                "{name}, t = {t}: the session shows\n{state:?}\nthe run\n{row:?}"
            );
        }
        let _ = session.advance(f64::INFINITY, None);
        let stepped = session.report();
        assert_eq!(stepped.events, report.events, "{name}");
        assert_eq!(stepped.end_time, report.end_time, "{name}");
    }
}

#[test]
fn a_session_without_state_reads_takes_the_runs_steps() {
    for name in ["whip", "swing", "high_toss", "two_diabolos"] {
        let sim = shipped(name, &[]);
        let (_, report) = rows(&sim);
        let mut session = sim.session();
        let mut t = 0.0;
        while !session.finished() {
            t += 0.001;
            session.advance(t, None).unwrap();
        }
        let stepped = session.report();
        assert_eq!(stepped.stats.steps, report.stats.steps, "{name}");
        assert_eq!(stepped.stats.rejected_steps, report.stats.rejected_steps);
        assert_eq!(stepped.events, report.events, "{name}");
    }
}

#[test]
fn a_session_advanced_a_few_steps_at_a_time_gives_the_runs_rows_and_events() {
    // The page's frame budget (web/): pieces of at most 3 steps, each reaching no further
    // than the time asked for, pause between steps and change nothing.
    for name in ["whip", "shower", "two_side_by_side", "stretchy_catch"] {
        let sim = shipped(name, &[]);
        let (expected, report) = rows(&sim);
        let mut got = Vec::new();
        let mut session = sim.session();
        let mut pieces = 0;
        let mut reached = 0.0;
        while !session.finished() {
            let until = reached + 0.05;
            let now = session
                .advance_steps(until, 3, Some(&mut |row: &Row| got.push(row.clone())))
                .unwrap();
            assert!(now <= until && now >= reached, "{name}: {reached} -> {now}");
            reached = now;
            pieces += 1;
        }
        let stepped = session.report();
        assert!(pieces > report.stats.steps / 3, "{name}: {pieces} pieces");
        assert_eq!(got.len(), expected.len(), "{name}");
        assert!(got.iter().zip(&expected).all(|(a, b)| same(a, b)), "{name}");
        assert_eq!(stepped.stats.steps, report.stats.steps, "{name}");
        assert_eq!(stepped.events, report.events, "{name}");
    }
}

/// The ledger: E - E0 = hand work - the losses.
fn imbalance(row: &Row, e0: f64) -> f64 {
    let ledger = row.hand_work
        - row.friction_loss
        - row.drag_loss
        - row.impulse_loss
        - row.string_loss.unwrap_or(0.0);
    row.energy - e0 - ledger
}

#[test]
fn hands_changed_every_ten_milliseconds_keep_the_energy_ledger_balanced() {
    // The swing with the right hand held by a force: a hand that pushes and pulls in turns
    // (a force drive does work on the stick, which the ledger books as hand work).
    let mut sim = shipped("swing", &[("sim.duration", "1.5"), ("sim.rtol", "1e-12")]);
    let weight = sim.params.stick_mass * 9.81;
    sim.drives[1] = Drive::Force(Schedule::Constant(nalgebra::Vector2::new(0.0, weight)));
    let e0 = rows(&sim).1.energy.0;
    let mut session = sim.session();
    for k in 1..=150 {
        let t = k as f64 * 0.01;
        session.advance(t, None).unwrap();
        let push = 0.8 * (7.0 * t).sin();
        let force = nalgebra::Vector2::new(push, weight + 0.5 * push);
        session
            .set_drive(1, Drive::Force(Schedule::Constant(force)))
            .unwrap();
        let row = session.state().unwrap();
        assert_eq!(row.t, t);
        // The taut solve hands the force back through its own arithmetic.
        assert!((row.hand_forces[1] - force).norm() < 1e-12, "t = {t}");
        let off = imbalance(row, e0);
        // Integration error: 2e-10 J at rtol 1e-12, 1e-8 J at rtol 1e-10 (it scales with rtol;
        // a re-entry that booked energy wrongly would not).
        assert!(off.abs() < 1e-9, "t = {t}: the ledger is off by {off} J");
    }
    let report = session.report();
    assert!(report.failure.is_none());
    // The pushes do work: the hand's work is not the still hand's zero.
    assert!(session.state().unwrap().hand_work.abs() > 1e-3);
}

#[test]
fn setting_the_same_drive_again_stays_on_the_run_within_the_tolerance() {
    let sim = shipped(
        "swing",
        &[("sim.output_interval", "0.001"), ("sim.duration", "1")],
    );
    let (expected, _) = rows(&sim);
    let mut session = sim.session();
    let mut worst: f64 = 0.0;
    for (k, row) in expected.iter().enumerate().skip(1) {
        let t = k as f64 * 0.001;
        session.advance(t, None).unwrap();
        session.set_drive(1, sim.drives[1].clone()).unwrap();
        let state = session.state().unwrap();
        let d = (state.state.diabolos[0].pos - row.state.diabolos[0].pos).norm();
        worst = worst.max(d);
    }
    // Restarting the integration every step changes the steps, not the solution: the scenario's
    // rtol is 1e-8 on a 1 s swing.
    assert!(worst < 1e-6, "{worst} m");
    assert!(
        worst > 0.0,
        "restarts take different steps: not bit for bit"
    );
}

#[test]
fn a_failed_session_says_so_at_every_later_call() {
    // Hands 3 m apart on a 1.46 m string: the run cannot start.
    let mut sim = shipped("swing", &[]);
    sim.drives[0] = Drive::Accel(Schedule::Constant(nalgebra::Vector2::new(-400.0, 0.0)));
    let mut session = sim.session();
    let first = session.advance(1.0, None).unwrap_err();
    assert_eq!(session.advance(2.0, None).unwrap_err(), first);
    assert_eq!(session.state().unwrap_err(), first);
    assert!(session.finished());
    let report = session.report();
    assert_eq!(report.failure, Some(first));
    assert_eq!(
        report.events.last().map(|e| e.kind),
        Some(diabolo::EventKind::Failure)
    );
}

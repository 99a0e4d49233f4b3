//! Throws and catches (docs/flight.md) against closed forms: free flight is the exact parabola
//! with the spin decaying as exp(-D t); leave and land times are the analytic crossings of the
//! chord between two held sticks; a drop happens when the lowest point reaches the floor; the
//! energy ledger closes through leaves, flights, landings and drops.

use crate::common;

use common::run_text;
use diabolo::simulation::{EventKind, Row, RunReport};
use diabolo::DiaboloMode;

const G: f64 = 9.81;

/// Sticks held still at (-0.5, 1) and (0.5, 1) (the chord y = 1 between them), one diabolo as
/// given, the sim section as given.
fn held_sticks(diabolo: &str, params: &str, sim: &str) -> String {
    format!(
        r#"{{"params": {{"string_length": 1.46{params}}},
            "initial": {{"diabolos": [{diabolo}]}},
            "drive": {{"left": {{"type": "path", "keyframes": [[0, -0.5, 1.0]]}},
                       "right": {{"type": "path", "keyframes": [[0, 0.5, 1.0]]}}}},
            "sim": {{{sim}}}}}"#
    )
}

/// The first event of `kind`.
fn first(report: &RunReport, kind: EventKind) -> &diabolo::Event {
    report
        .events
        .iter()
        .find(|e| e.kind == kind)
        .unwrap_or_else(|| panic!("no {} in {:?}", kind.name(), report.events))
}

/// E(t) - E(0) = hand work - friction - drag - impulse losses at every row, to 1e-8 J.
fn assert_ledger_closes(rows: &[Row]) {
    let e0 = rows[0].energy;
    let worst = rows
        .iter()
        .map(|r| {
            let books = r.hand_work - r.friction_loss - r.drag_loss - r.impulse_loss;
            ((r.energy - e0) - books).abs()
        })
        .fold(0.0, f64::max);
    assert!(worst < 1e-8, "the ledger is off by {worst:e} J");
}

#[test]
fn free_flight_is_the_exact_parabola_with_an_exponentially_decaying_spin() {
    // Thrown far to the side of the string, it never meets it.
    let diabolo = r#"{"mode": "flying", "pos": [3.0, 1.5], "vel": [0.7, 2.5], "spin": 1.2}"#;
    let (rows, report) = run_text(&held_sticks(
        diabolo,
        r#", "spin_drag": 0.3"#,
        r#""duration": 1.0, "output_interval": 0.01"#,
    ));
    assert!(report.failure.is_none(), "{:?}", report.failure);
    for row in &rows {
        let t = row.t;
        let d = &row.state.diabolos[0];
        let (x, y) = (3.0 + 0.7 * t, 1.5 + 2.5 * t - 0.5 * G * t * t);
        assert!(
            (d.pos.x - x).abs() < 1e-10 && (d.pos.y - y).abs() < 1e-10,
            "t = {t}"
        );
        assert!((d.vel.y - (2.5 - G * t)).abs() < 1e-10, "t = {t}");
        assert!((d.spin - 1.2 * (-0.3 * t).exp()).abs() < 1e-12, "t = {t}");
        assert_eq!(row.modes, [DiaboloMode::Flying]);
        assert_eq!((row.slots.as_slice(), row.thetas[0]), (&[0][..], None));
        // The string joins the sticks directly: one segment.
        assert_eq!(row.tensions.len(), 1);
    }
    assert_ledger_closes(&rows);
    assert_eq!(report.flights[0].airtime, 1.0);
    let apex = 1.5 + 2.5 * 2.5 / (2.0 * G);
    assert!((report.flights[0].highest_flight - apex).abs() < 1e-12);
}

#[test]
fn a_diabolo_dropped_onto_the_chord_lands_at_the_analytic_crossing() {
    // From rest at 0.3 m above the chord y = 1, between the sticks: it lands at sqrt(2 h / g).
    let diabolo = r#"{"mode": "flying", "pos": [0.1, 1.3], "spin": 1.0}"#;
    let (rows, report) = run_text(&held_sticks(
        diabolo,
        "",
        r#""duration": 1.0, "output_interval": 0.01"#,
    ));
    assert!(report.failure.is_none(), "{:?}", report.failure);
    let land = first(&report, EventKind::Land);
    let expected = (2.0 * 0.3 / G).sqrt();
    assert!(
        (land.t - expected).abs() < 1e-10,
        "{} vs {expected}",
        land.t
    );
    assert_eq!((land.object, land.slot), (Some(1), Some(1)));
    assert!((land.speed.unwrap() - G * expected).abs() < 1e-9);
    // Then it falls on the slack string and snaps it taut.
    let tense = first(&report, EventKind::Tense);
    assert!(tense.t > land.t);
    let after = rows.iter().find(|r| r.t > land.t).unwrap();
    assert_eq!((after.modes[0], after.slots[0]), (DiaboloMode::String, 1));
    assert!(after.thetas[0].unwrap() > std::f64::consts::PI);
    assert_ledger_closes(&rows);
    assert_eq!(report.flights[0].landings, 1);
}

#[test]
fn a_diabolo_thrown_up_from_a_hang_leaves_and_lands_at_the_analytic_crossings() {
    // Hanging at x = 0 below the chord y = 1, thrown straight up at 4 m/s: the string goes
    // slack, the diabolo crosses the chord upward (leave) and downward (land) where
    // y0 + v t - g t^2 / 2 = 1.
    let diabolo = r#"{"x": 0.0, "vel": [0.0, 4.0], "spin": 1.0}"#;
    let (rows, report) = run_text(&held_sticks(
        diabolo,
        "",
        r#""duration": 1.2, "output_interval": 0.01"#,
    ));
    assert!(report.failure.is_none(), "{:?}", report.failure);
    let y0 = 1.0 - (0.73f64 * 0.73 - 0.25).sqrt();
    let (a, b, c) = (-G / 2.0, 4.0, y0 - 1.0);
    let root = (b * b - 4.0 * a * c).sqrt();
    let (up, down) = ((-b + root) / (2.0 * a), (-b - root) / (2.0 * a));
    let leave = first(&report, EventKind::Leave);
    let land = first(&report, EventKind::Land);
    assert!((leave.t - up).abs() < 1e-10, "leave {} vs {up}", leave.t);
    assert!((land.t - down).abs() < 1e-10, "land {} vs {down}", land.t);
    assert_eq!((leave.slot, land.slot), (Some(1), Some(1)));
    // Off the string in between: no theta, no knot, mode flying.
    for row in rows.iter().filter(|r| r.t > leave.t && r.t < land.t) {
        assert_eq!(row.modes[0], DiaboloMode::Flying, "t = {}", row.t);
        assert_eq!(row.thetas[0], None);
    }
    assert!((report.flights[0].airtime - (down - up)).abs() < 1e-12);
    assert_ledger_closes(&rows);
}

#[test]
fn a_diabolo_reaching_the_floor_is_dropped_with_its_kinetic_energy_lost() {
    // Thrown beside the string, it falls to the floor at y = 0.2: its lowest point (y - R)
    // reaches it when y = 0.2 + R.
    let diabolo = r#"{"mode": "flying", "pos": [2.0, 1.0], "vel": [0.5, 1.0], "spin": 2.0}"#;
    let (rows, report) = run_text(&held_sticks(
        diabolo,
        r#", "spin_drag": 0.1"#,
        r#""duration": 1.5, "output_interval": 0.01, "floor": 0.2"#,
    ));
    assert!(report.failure.is_none(), "a drop is not a failure");
    let r = 0.0635;
    // 1 + t - g t^2 / 2 = 0.2 + R
    let (a, b, c) = (-G / 2.0, 1.0, 1.0 - 0.2 - r);
    let t_drop = (-b - (b * b - 4.0 * a * c).sqrt()) / (2.0 * a);
    let drop = first(&report, EventKind::Drop);
    assert!((drop.t - t_drop).abs() < 1e-10, "{} vs {t_drop}", drop.t);
    let speed2 = 0.25 + (1.0 - G * t_drop).powi(2);
    assert!((drop.energy_lost.unwrap() - 0.5 * 0.2 * speed2).abs() < 1e-9);
    for row in rows.iter().filter(|row| row.t > drop.t) {
        let d = &row.state.diabolos[0];
        assert_eq!(row.modes[0], DiaboloMode::Dropped);
        assert!((d.pos.y - (0.2 + r)).abs() < 1e-12 && d.vel.norm() == 0.0);
        assert!((d.spin - 2.0 * (-0.1 * row.t).exp()).abs() < 1e-12);
    }
    assert!(report.flights[0].dropped);
    assert_ledger_closes(&rows);
}

#[test]
fn a_diabolo_met_by_the_string_from_below_ends_the_run_naming_it() {
    // The hands sweep the string down over a diabolo hanging in the air below it (static
    // sticks would never reach it, so validation accepts the start): the string would meet it
    // from below, which is not modelled.
    let text = r#"{"params": {"string_length": 1.46},
        "initial": {"diabolos": [{"mode": "flying", "pos": [0.05, 1.2], "vel": [0.0, 0.0]}]},
        "drive": {"left": {"type": "path", "interpolation": "linear",
                           "keyframes": [[0, -0.5, 1.5], [1, -0.5, -3.5]]},
                  "right": {"type": "path", "interpolation": "linear",
                            "keyframes": [[0, 0.5, 1.5], [1, 0.5, -3.5]]}},
        "sim": {"duration": 0.5, "output_interval": 0.01}}"#;
    let (_, report) = run_text(text);
    let failure = report.failure.expect("a failure");
    assert!(
        matches!(failure, diabolo::RunError::FromBelow { diabolo: 1, .. }),
        "{failure:?}"
    );
    let message = failure.to_string();
    assert!(
        message.contains("diabolo 1 reaches the string from below"),
        "{message}"
    );
    // The chord y = 1.5 - 5 t meets the diabolo at y = 1.2 - g t^2 / 2.
    let t = (5.0 - (25.0 - 2.0 * G * 0.3).sqrt()) / G;
    assert!(
        (report.end_time - t).abs() < 1e-9,
        "{} vs {t}",
        report.end_time
    );
}

#[test]
fn a_recaptured_diabolo_reaching_the_flying_regime_from_below_ends_the_run() {
    // Knot degree -1 above the sticks (theta < -pi, the string on the axle's other face): it
    // falls, its string angle rises to -pi, where leaving is not modelled.
    let y = 1.0 + (0.73f64 * 0.73 - 0.16).sqrt();
    let text = format!(
        r#"{{"params": {{"string_length": 1.46}},
        "initial": {{"diabolos": [{{"pos": [0.0, {y}], "knot": -1}}]}},
        "drive": {{"left": {{"type": "path", "keyframes": [[0, -0.4, 1.0]]}},
                   "right": {{"type": "path", "keyframes": [[0, 0.4, 1.0]]}}}},
        "sim": {{"duration": 1.0, "output_interval": 0.01}}}}"#
    );
    let (_, report) = run_text(&text);
    let failure = report.failure.expect("a failure");
    assert!(
        matches!(failure, diabolo::RunError::Recaptured { diabolo: 1, .. }),
        "{failure:?}"
    );
    assert!(failure.to_string().contains("reaches -pi from below"));
}

#[test]
fn a_chord_swinging_through_the_vertical_catches_nothing_far_away() {
    // The right stick, let go, swings below the held left one on the string alone, its chord
    // passing through the vertical; a diabolo flying 1.2 m to the side, level with the chord's
    // span, is crossed by the chord's line but never by the chord: no landing.
    let text = r#"{"params": {"string_length": 1.46},
        "initial": {"right": {"pos": [1.2, 1.5]},
                    "diabolos": [{"mode": "flying", "pos": [1.5, 0.8], "vel": [0.0, 5.0]}]},
        "drive": {"left": {"type": "path", "keyframes": [[0, 0.0, 1.5]]},
                  "right": {"type": "released"}},
        "sim": {"duration": 1.3, "output_interval": 0.01}}"#;
    let (rows, report) = run_text(text);
    assert!(report.failure.is_none(), "{:?}", report.failure);
    assert!(
        report.events.iter().all(|e| e.kind != EventKind::Land),
        "{:?}",
        report.events
    );
    // The right stick did swing past the vertical below the left one.
    assert!(rows.iter().any(|r| r.state.right.pos.x < 0.0));
    assert!(rows.iter().all(|r| r.modes[0] == DiaboloMode::Flying));
}

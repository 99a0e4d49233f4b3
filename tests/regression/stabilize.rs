//! Holding a periodic trick by feedback (`diabolo orbit --stabilize`): the map's sensitivity B
//! against one-period runs the test does itself, the driven swing past its period doubling held
//! by the right hand's sine amplitude and phase (the open loop's multiplier outside the unit
//! circle, the closed loop's inside, the controlled deviation shrinking at the closed loop's
//! rate), and keys that are not numeric fields refused.

use diabolo::orbit::{find_orbit, stabilize, OrbitError, OrbitOptions, StabilizeOptions, Timing};
use diabolo::{Scenario, Simulation};

use crate::common::command::{diabolo, scratch, text};

/// scenarios/driven_swing.json at the drive frequency 0.29 Hz (past the period doubling at
/// 0.278 Hz), with `sets` applied after it.
fn past_doubling(sets: &[(&str, f64)]) -> Simulation {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let text = std::fs::read_to_string(dir.join("driven_swing.json")).unwrap();
    let mut all = vec![("drive.right.sine.frequency".to_string(), "0.29".to_string())];
    all.extend(sets.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    Scenario::parse(&text, &all).unwrap().build(&dir).unwrap()
}

/// The state one period after `start`, run by the simulation itself (no shooting code), with
/// the scenario's tolerances tightened as the orbit's are: d1's x, y, vx, vy, spin.
fn one_period(sim: &Simulation, start: &diabolo::model::CartesianState, period: f64) -> [f64; 5] {
    let mut run = sim.clone();
    run.initial = start.clone();
    run.settings.duration = period;
    run.settings.output_interval = period;
    run.settings.rtol = run.settings.rtol.min(1e-12);
    run.settings.atol = run.settings.atol.min(1e-14);
    run.settings.max_wall = None;
    let mut last = None;
    run.run(&mut |row| last = Some(row.state.clone()));
    let d = &last.unwrap().diabolos[0];
    [d.pos.x, d.pos.y, d.vel.x, d.vel.y, d.spin]
}

/// B's column of the sine's frequency (which moves neither the hand nor its velocity at the
/// section: phase pi/2, the hand at rest at its extreme) equals the central difference of two
/// one-period runs from the orbit's start at the frequency +-h, run by the test.
#[test]
fn the_sensitivity_is_the_difference_of_two_corrected_periods() {
    let base = 0.29;
    let sim = past_doubling(&[]);
    let options = OrbitOptions {
        guess_time: 8.0,
        ..OrbitOptions::default()
    };
    let period = 1.0 / base;
    let orbit = find_orbit(&sim, Timing::Forced { period }, &options).unwrap();
    let keys = ["drive.right.sine.frequency".to_string()];
    let corrected = |u: &[f64]| -> Result<Simulation, OrbitError> {
        Ok(past_doubling(&[(
            "drive.right.sine.frequency",
            base + u[0],
        )]))
    };
    let control = StabilizeOptions {
        starts: 1,
        periods: 2,
        ..StabilizeOptions::default()
    };
    let found = stabilize(&orbit, &keys, &[base], &corrected, &control).unwrap();
    assert!(
        found.fixed_point_residual < 1e-9,
        "{}",
        found.fixed_point_residual
    );
    let h = control.step;
    let plus = one_period(&corrected(&[h]).unwrap(), &orbit.state, period);
    let minus = one_period(&corrected(&[-h]).unwrap(), &orbit.state, period);
    let column: Vec<f64> = (0..5).map(|i| (plus[i] - minus[i]) / (2.0 * h)).collect();
    let scale = column.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    assert!(scale > 1e-3, "the frequency moves the swing: {column:?}");
    let apart = (0..5)
        .map(|i| (found.sensitivity[(i, 0)] - column[i]).abs())
        .fold(0.0, f64::max);
    eprintln!("B's column {column:?}, apart by at most {apart:e}");
    for (i, expected) in column.iter().enumerate() {
        let got = found.sensitivity[(i, 0)];
        // Both are differences of the same runs (tolerances 1e-12 relative), one set run by the
        // shooting and one by the test: they agree to the runs' rounding over 2h (measured
        // 6e-11 against a column of 0.91).
        assert!(
            (got - expected).abs() < 1e-6 * scale,
            "B[{i}] = {got}, the test's difference {expected}"
        );
    }
}

/// The demonstration: the period-1 orbit of the driven swing at 0.29 Hz has a multiplier near
/// -1.088 (past its period doubling); corrected once per period through the right hand's sine
/// amplitude and phase, the closed loop's multipliers are inside the unit circle and the
/// controlled deviation shrinks at the largest one's modulus.
#[test]
fn the_driven_swing_past_its_doubling_is_held_at_the_closed_loops_rate() {
    let dir = scratch("stabilize", "demo");
    let out = dir.join("held.json");
    let done = diabolo(&[
        "orbit",
        &shipped("driven_swing.json"),
        "--guess-time",
        "8",
        "--set",
        "drive.right.sine.frequency=0.29",
        "--stabilize",
        "drive.right.sine.amplitude[0],drive.right.sine.phase[0]",
        "--lqr-r",
        "0.01",
        "--periods",
        "12",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(done.status.success(), "{}", text(&done.stderr));
    assert!(text(&done.stderr).contains("predicted rate"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let s = &json["stabilization"];
    let open_max = s["open_loop"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["modulus"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(open_max > 1.05, "open loop {open_max}");
    let predicted = s["predicted_rate"].as_f64().unwrap();
    for mu in s["closed_loop"].as_array().unwrap() {
        assert!(mu["modulus"].as_f64().unwrap() <= predicted);
    }
    assert!(predicted < 0.9, "closed loop {predicted}");
    assert_eq!(s["stable"], true);
    for run in s["runs"].as_array().unwrap() {
        assert_eq!(run["clamped"], 0, "{run}");
        assert!(run["failure"].is_null(), "{run}");
        let controlled: Vec<f64> = serde_json::from_value(run["controlled"].clone()).unwrap();
        let open: Vec<f64> = serde_json::from_value(run["open_loop"].clone()).unwrap();
        assert!(controlled[12] < 1e-3 * controlled[0], "{controlled:?}");
        assert!(run["open_loop_rate"].as_f64().unwrap() > 1.0, "{open:?}");
        // Periods 6 to 12: the second closed-loop mode (modulus 0.12, against 0.40) is down by
        // (0.12 / 0.40)^6 < 1e-3 of its share at the start, and the deviation (below 1e-5,
        // against the orbit's own scale of 0.01) is in the linear range: the rate per period
        // is the predicted one to about 1e-4 by these estimates (measured: 4e-5); 1 % is
        // allowed.
        let observed = run["observed_rate"].as_f64().unwrap();
        assert!(
            (observed - predicted).abs() < 0.01 * predicted,
            "observed {observed} per period, predicted {predicted}: {controlled:?}"
        );
    }
}

/// A KEY that is not a numeric field of the scenario, a repeated KEY and an autonomous orbit
/// are input errors: exit 2, the key named, nothing written.
#[test]
fn corrections_that_are_not_numeric_fields_are_refused() {
    let dir = scratch("stabilize", "refused");
    let out = dir.join("never.json");
    let swing = shipped("driven_swing.json");
    for (key, words) in [
        (
            "drive.right.sine.amplitude[5]",
            vec!["--stabilize", "amplitude[5]", "not in the scenario"],
        ),
        (
            "params.friction,params.friction",
            vec!["params.friction", "named twice"],
        ),
        ("name", vec!["--stabilize", "name", "not a number"]),
        ("params.spin_inertia", vec!["params.spin_inertia", "--set"]),
    ] {
        let done = diabolo(&[
            "orbit",
            &swing,
            "--stabilize",
            key,
            "-o",
            out.to_str().unwrap(),
        ]);
        let message = text(&done.stderr);
        assert_eq!(done.status.code(), Some(2), "{key}: {message}");
        for word in words {
            assert!(message.contains(word), "{key}: {word:?} not in {message}");
        }
        assert!(!out.exists(), "{key}: nothing written");
    }
    let autonomous = diabolo(&[
        "orbit",
        &shipped("swing.json"),
        "--section",
        "d1_x=0,up",
        "--stabilize",
        "params.friction",
    ]);
    assert_eq!(autonomous.status.code(), Some(2));
    assert!(text(&autonomous.stderr).contains("forced orbit"));
    assert!(autonomous.stdout.is_empty());
}

fn shipped(name: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    dir.join(name).to_str().unwrap().to_string()
}

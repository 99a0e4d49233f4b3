//! Periodic orbits (`diabolo::orbit`): against the analytic small oscillation of the diabolo on
//! the ellipse of fixed sticks, the spin's decay under drag, and the energy budget.

use std::f64::consts::PI;

use diabolo::orbit::{find_orbit, parse_section, OrbitOptions, Timing};
use diabolo::{Scenario, Simulation};

/// The swing of scenarios/swing.json with the diabolo released at `x` from rest, friction c and
/// spin drag D.
fn swing(x: f64, friction: f64, spin_drag: f64) -> Simulation {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let text = std::fs::read_to_string(dir.join("swing.json")).unwrap();
    let sets: Vec<(String, String)> = [
        ("initial.diabolos[0].x", x.to_string()),
        ("params.friction", friction.to_string()),
        ("params.spin_drag", spin_drag.to_string()),
        ("sim.duration", "5".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    Scenario::parse(&text, &sets).unwrap().build(&dir).unwrap()
}

#[test]
fn the_frictionless_small_swing_has_the_ellipses_period_and_multipliers_on_the_unit_circle() {
    let sim = swing(0.002, 0.0, 0.0);
    let section = parse_section("d1_x=0,up", &sim).unwrap();
    let orbit = find_orbit(&sim, Timing::Autonomous(section), &OrbitOptions::default()).unwrap();
    // Sticks 0.8 m apart, L = 1.46 m: a = L / 2, b = sqrt(a^2 - 0.4^2); the bottom's radius of
    // curvature is a^2 / b.
    let a: f64 = 0.73;
    let b = (a * a - 0.16_f64).sqrt();
    let expected = 2.0 * PI * (a * a / (9.81 * b)).sqrt();
    eprintln!("{orbit:#?}");
    assert!(
        ((orbit.period - expected) / expected).abs() < 1e-6,
        "period {} s, expected {expected} s",
        orbit.period
    );
    let own: Vec<_> = orbit
        .multipliers
        .iter()
        .filter(|m| matches!(m.trivial, None | Some("flow")))
        .collect();
    assert_eq!(own.len(), 2, "{:?}", orbit.multipliers);
    for m in own {
        assert!((m.modulus() - 1.0).abs() < 1e-6, "{m}");
    }
    assert!(
        orbit.jacobian_agreement < 1e-6,
        "{}",
        orbit.jacobian_agreement
    );
    assert!(orbit.budget.net().abs() < 1e-8);
    // Released from rest 2 mm from the bottom: its amplitude in x.
    assert!(
        (orbit.amplitudes[0] - 0.002).abs() < 1e-6,
        "{}",
        orbit.amplitudes[0]
    );
}

/// The swing driven by the right hand moving sideways at `frequency` (Hz) by `amplitude` (m),
/// with friction 0.2 and spin drag `drag` (1/s): the axle grips and rolls, so the drag damps
/// the swing.
fn driven_with(frequency: f64, amplitude: f64, drag: f64) -> Simulation {
    let x = 0.05;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let text = std::fs::read_to_string(dir.join("swing.json")).unwrap();
    let drive = format!(
        r#"{{"type": "path", "sine": {{"center": [0.4, 1.5], "amplitude": [{amplitude}, 0.0], "frequency": {frequency}}}}}"#
    );
    let sets: Vec<(String, String)> = [
        ("initial.diabolos[0].x", x.to_string()),
        ("params.friction", "0.2".to_string()),
        ("params.spin_drag", drag.to_string()),
        ("drive.right", drive),
        ("sim.duration", "60".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    Scenario::parse(&text, &sets).unwrap().build(&dir).unwrap()
}

/// [`driven_with`] with the drag 0.5 1/s.
fn driven(frequency: f64, amplitude: f64) -> Simulation {
    driven_with(frequency, amplitude, 0.5)
}

#[test]
fn a_driven_damped_swing_has_one_orbit_from_two_guesses_and_its_budget_closes() {
    let sim = driven(0.8, 0.02);
    let period = diabolo::orbit::drives_period(&sim).unwrap().unwrap();
    assert!((period - 1.25).abs() < 1e-15);
    let timing = Timing::Forced { period };
    let near = find_orbit(&sim, timing, &OrbitOptions::default()).unwrap();
    let late = OrbitOptions {
        guess_time: 12.5,
        ..OrbitOptions::default()
    };
    let far = find_orbit(&sim, timing, &late).unwrap();
    let apart = near
        .point
        .iter()
        .zip(&far.point)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(apart < 1e-9, "{apart}");
    assert!(near.history.len() > 1, "Newton had work to do");
    for orbit in [&near, &far] {
        assert!(orbit.budget.net().abs() < 1e-8, "{:?}", orbit.budget);
        assert!(orbit.budget.imbalance().abs() < 1e-8, "{:?}", orbit.budget);
        assert!(
            orbit.jacobian_agreement < 1e-6,
            "{}",
            orbit.jacobian_agreement
        );
    }
    assert!(near.stable, "{:?}", near.multipliers);
}

#[test]
fn a_nearby_start_converges_to_the_driven_orbit_at_the_leading_multipliers_rate() {
    let sim = driven(0.8, 0.02);
    let period = 1.25;
    let orbit = find_orbit(&sim, Timing::Forced { period }, &OrbitOptions::default()).unwrap();
    let leading = orbit
        .multipliers
        .iter()
        .filter(|m| m.trivial.is_none())
        .map(|m| m.modulus())
        .fold(0.0, f64::max);
    assert!(leading > 0.3 && leading < 1.0, "{:?}", orbit.multipliers);
    let mut nearby = sim.clone();
    nearby.initial = orbit.state.clone();
    nearby.initial.diabolos[0].pos.x += 1e-4;
    nearby.settings.rtol = 1e-12;
    nearby.settings.atol = 1e-14;
    nearby.settings.duration = 21.0 * period;
    let mut session = nearby.session();
    let mut logs = Vec::new();
    for k in 1..=20 {
        session.advance(k as f64 * period, None).unwrap();
        let d = &session.state().unwrap().state.diabolos[0];
        let now = [d.pos.x, d.pos.y, d.vel.x, d.vel.y, d.spin];
        let distance = now
            .iter()
            .zip(&orbit.point)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            .sqrt();
        logs.push((k as f64, distance.ln()));
    }
    // The least-squares slope of log distance over the 20 periods.
    let n = logs.len() as f64;
    let (sx, sy) = logs
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
    let (mx, my) = (sx / n, sy / n);
    let slope = logs.iter().map(|(x, y)| (x - mx) * (y - my)).sum::<f64>()
        / logs.iter().map(|(x, _)| (x - mx) * (x - mx)).sum::<f64>();
    let rate = slope.exp();
    assert!(
        ((rate - leading) / leading).abs() < 0.05,
        "measured {rate} per period, leading multiplier {leading}"
    );
}

#[test]
fn without_friction_the_spins_multiplier_is_its_drag_decay() {
    let drag = 0.3;
    let sim = swing(0.05, 0.0, drag);
    let section = parse_section("d1_x=0,up", &sim).unwrap();
    let orbit = find_orbit(&sim, Timing::Autonomous(section), &OrbitOptions::default()).unwrap();
    let spin = orbit
        .multipliers
        .iter()
        .find(|m| m.trivial == Some("spin"))
        .unwrap_or_else(|| panic!("{:?}", orbit.multipliers));
    let expected = (-drag * orbit.period).exp();
    assert!(
        (spin.value.re - expected).abs() < 1e-8 && spin.value.im == 0.0,
        "{} against exp(-D T) = {expected}",
        spin.value
    );
    // The orbit's spin is the drag's fixed point.
    assert!(orbit.point[4].abs() < 1e-10, "{}", orbit.point[4]);
    assert!(orbit.budget.imbalance().abs() < 1e-8);
}

#[test]
fn a_section_never_crossed_and_a_bad_period_are_input_errors() {
    let sim = swing(0.05, 0.0, 0.0);
    let section = parse_section("d1_y=5,up", &sim).unwrap();
    let error =
        find_orbit(&sim, Timing::Autonomous(section), &OrbitOptions::default()).unwrap_err();
    assert_eq!(error.exit_code(), 2, "{error}");
    assert!(error.to_string().contains("d1_y = 5 upward"), "{error}");
    let error = find_orbit(
        &sim,
        Timing::Forced { period: -1.0 },
        &OrbitOptions::default(),
    )
    .unwrap_err();
    assert_eq!(error.exit_code(), 2);
    assert!(error.to_string().contains("--period"), "{error}");
    let error = parse_section("d7_x=0", &sim).unwrap_err();
    assert!(error.to_string().contains("d1_x"), "{error}");
    assert_eq!(diabolo::orbit::drives_period(&sim), Ok(None));
}

#[test]
fn the_command_writes_the_orbit_and_refuses_what_has_no_period() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let out = std::env::temp_dir().join(format!("orbit_{}.json", std::process::id()));
    let done = std::process::Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .args([
            "orbit",
            dir.join("sun.json").to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let orbit: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    std::fs::remove_file(&out).unwrap();
    assert!((orbit["period"].as_f64().unwrap() - 1.0 / 1.2).abs() < 1e-15);
    assert!(orbit["residual"].as_f64().unwrap() < 1e-10);
    assert!(orbit["energy_budget"]["net"].as_f64().unwrap().abs() < 1e-8);
    let still = std::process::Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .args([
            "orbit",
            dir.join("swing.json").to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(still.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&still.stderr).contains("--section"));
    assert!(!out.exists(), "nothing written");
}

/// The lightly damped swing driven at about half its natural frequency loses stability by a
/// period doubling between 0.256 and 0.258 Hz (found by continuation), which a plain run shows
/// on its own terms: off the orbit, the deviation flips sign every period and grows by the
/// multiplier's modulus.
#[test]
fn continuation_flags_the_period_doubling_that_a_plain_run_shows() {
    let values: Vec<f64> = (0..8).map(|i| 0.25 + 0.002 * i as f64).collect();
    let build = |f: f64| Ok(driven_with(f, 0.05, 0.02));
    let timing = |sim: &Simulation| {
        Ok(Timing::Forced {
            period: diabolo::orbit::drives_period(sim)?.expect("a sine drive"),
        })
    };
    let options = OrbitOptions {
        guess_time: 10.0,
        ..OrbitOptions::default()
    };
    let points = diabolo::orbit::continue_orbit(&build, &timing, &values, &options);
    for p in &points {
        let orbit = p.orbit.as_ref().unwrap();
        assert!(
            orbit.budget.net().abs() < 1e-8,
            "{}: {:?}",
            p.value,
            orbit.budget
        );
    }
    let flagged: Vec<(f64, diabolo::orbit::Crossing)> = points
        .iter()
        .filter_map(|p| p.crossing.map(|c| (p.value, c)))
        .collect();
    assert_eq!(flagged.len(), 1, "{flagged:?}");
    let (value, crossing) = flagged[0];
    assert_eq!(crossing.kind, "period_doubling");
    // Flagged at the first value past it, located inside the grid step it lies in.
    assert!((value - 0.258).abs() < 1e-12, "flagged at {value}");
    assert!(crossing.at > 0.256 && crossing.at < 0.258, "{crossing:?}");
    let mu = crossing.multiplier;
    assert!(
        (mu - nalgebra::Complex::new(-1.0, 0.0)).norm() < 0.05,
        "{mu}"
    );
    // Inside the window: a plain run 1e-8 m off the orbit, sampled once per period.
    let inside = &points[7];
    let orbit = inside.orbit.as_ref().unwrap();
    let mu = inside.nearest.unwrap();
    assert!(mu.re < -1.05 && mu.im == 0.0, "{mu}");
    let mut sim = driven_with(inside.value, 0.05, 0.02);
    sim.initial = orbit.state.clone();
    sim.initial.diabolos[0].pos.x += 1e-8;
    sim.settings.rtol = 1e-12;
    sim.settings.atol = 1e-14;
    sim.settings.duration = 41.0 * orbit.period;
    let mut session = sim.session();
    let deviations: Vec<f64> = (1..=40)
        .map(|k| {
            session.advance(k as f64 * orbit.period, None).unwrap();
            session.state().unwrap().state.diabolos[0].pos.x - orbit.point[0]
        })
        .collect();
    let late = &deviations[19..];
    assert!(
        late.windows(2).all(|w| w[0] * w[1] < 0.0),
        "the deviation flips sign every period: {late:?}"
    );
    let growth = (late[late.len() - 1] / late[0])
        .abs()
        .powf(1.0 / (late.len() - 1) as f64);
    assert!(
        ((growth - mu.norm()) / mu.norm()).abs() < 0.05,
        "grows by {growth} per period, multiplier {mu}"
    );
}

fn diabolo(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn newton_that_cannot_reach_the_tolerance_exits_1_with_its_residual_history() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let sun = dir.join("sun.json");
    let done = diabolo(&["orbit", sun.to_str().unwrap(), "--tol", "1e-30"]);
    assert_eq!(done.status.code(), Some(1));
    let message = String::from_utf8_lossy(&done.stderr);
    assert!(
        message.contains("did not converge") && message.contains("residual history"),
        "{message}"
    );
    let bad = diabolo(&["orbit", sun.to_str().unwrap(), "--period", "-2"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn the_branch_and_the_poincare_section_are_drawn() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let tmp = std::env::temp_dir().join(format!("orbit_pictures_{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let path = |name: &str| tmp.join(name).to_str().unwrap().to_string();
    let scenario = dir.join("driven_swing.json");
    let done = diabolo(&[
        "orbit",
        scenario.to_str().unwrap(),
        "--guess-time",
        "8",
        "--continue",
        "drive.right.sine.frequency=0.27:0.29:3",
        "-o",
        &path("branch.csv"),
    ]);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let branch = std::fs::read_to_string(path("branch.csv")).unwrap();
    assert_eq!(branch.lines().count(), 4);
    assert!(branch.contains("period_doubling"), "{branch}");
    let drawn = diabolo(&["plot", &path("branch.csv"), "-o", &path("branch.svg")]);
    assert!(
        drawn.status.success(),
        "{}",
        String::from_utf8_lossy(&drawn.stderr)
    );
    assert!(std::fs::read_to_string(path("branch.svg"))
        .unwrap()
        .contains("period doubling"));
    let run = diabolo(&[
        "run",
        scenario.to_str().unwrap(),
        "--set",
        "sim.duration=40",
        "-o",
        &path("run.csv"),
        "--quiet",
    ]);
    assert!(run.status.success());
    let section = diabolo(&[
        "plot",
        &path("run.csv"),
        "--poincare",
        "4",
        "-o",
        &path("p.svg"),
    ]);
    assert!(
        section.status.success(),
        "{}",
        String::from_utf8_lossy(&section.stderr)
    );
    assert!(String::from_utf8_lossy(&section.stderr).contains("11 points"));
    let wrong = diabolo(&[
        "plot",
        &path("run.csv"),
        "--poincare",
        "d1_x=a",
        "-o",
        &path("q.svg"),
    ]);
    assert_eq!(wrong.status.code(), Some(2));
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn a_whip_loop_takes_its_period_from_the_scenario() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let whip = dir.join("whip.json");
    let whip = whip.to_str().unwrap();
    // Keyframes that move have no period of their own.
    let none = diabolo(&["orbit", whip]);
    assert_eq!(none.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&none.stderr).contains("sim.period"));
    let found = diabolo(&[
        "orbit",
        whip,
        "--guess-time",
        "2.4",
        "--set",
        "sim.period=0.6",
        "--set",
        "params.spin_drag=0.5",
    ]);
    assert!(
        found.status.success(),
        "{}",
        String::from_utf8_lossy(&found.stderr)
    );
    let orbit: serde_json::Value = serde_json::from_slice(&found.stdout).unwrap();
    assert_eq!(orbit["period"].as_f64(), Some(0.6));
    assert_eq!(orbit["events_per_period"]["loosen"].as_u64(), Some(1));
    assert_eq!(orbit["events_per_period"]["tense"].as_u64(), Some(1));
    assert!(orbit["energy_budget"]["net"].as_f64().unwrap().abs() < 1e-8);
    let bad = diabolo(&["orbit", whip, "--set", "sim.period=-1"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("sim.period"));
}

fn shipped(name: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    dir.join(name).to_str().unwrap().to_string()
}

/// Exit 2 and the message, which must contain every one of `words`.
fn refused(args: &[&str], words: &[&str]) -> String {
    let done = diabolo(args);
    let message = String::from_utf8_lossy(&done.stderr).to_string();
    assert_eq!(done.status.code(), Some(2), "{args:?}: {message}");
    assert!(done.stdout.is_empty(), "{args:?}: nothing written");
    for word in words {
        assert!(
            message.contains(word),
            "{args:?}: {word:?} not in {message}"
        );
    }
    message
}

#[test]
fn a_period_shorter_than_the_fastest_sine_drive_is_refused() {
    let sun = shipped("sun.json");
    // 5e-324 s "found" an orbit before: nothing moves in a subnormal time.
    for period in ["5e-324", "0.001", "-2", "inf"] {
        let flag = format!("--period={period}");
        refused(&["orbit", &sun, &flag], &["--period", "0.01"]);
    }
    let whip = shipped("whip.json");
    refused(
        &["orbit", &whip, "--set", "sim.period=0.001"],
        &["sim.period 0.001", "at least 0.01"],
    );
}

#[test]
fn a_period_out_of_step_with_a_sine_drive_is_refused_and_its_multiples_accepted() {
    let sun = shipped("sun.json");
    // The sun's hands move at 1.2 Hz: 1 s is 1.2 of their periods.
    refused(
        &["orbit", &sun, "--period", "1"],
        &["--period 1 s", "0.8333333333333334 s", "1.2 Hz"],
    );
    // Twice the hands' period, typed to ten digits.
    let done = diabolo(&[
        "orbit",
        &sun,
        "--period",
        "1.6666666667",
        "--guess-time",
        "20",
    ]);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let orbit: serde_json::Value = serde_json::from_slice(&done.stdout).unwrap();
    assert!(orbit["residual"].as_f64().unwrap() < 1e-10);
    // sim.period is checked the same way.
    refused(
        &["orbit", &sun, "--set", "sim.period=1.25"],
        &["sim.period 1.25 s", "hand's sine"],
    );
}

#[test]
fn the_search_is_bounded_by_max_duration() {
    let sun = shipped("sun.json");
    // It ran until killed: 652 periods of 1e5 s at most (one diabolo: 5 coordinates).
    let message = refused(
        &["orbit", &sun, "--period", "1e5"],
        &[
            "100000 s",
            "6.52e7 s",
            "652 periods",
            "--max-duration SECONDS",
        ],
    );
    assert!(message.len() < 600, "{message}");
    // 120 s (144 of the hands' periods) fits in the default limit, not in 1e4 s.
    refused(
        &["orbit", &sun, "--period", "120", "--max-duration", "1e4"],
        &["78240 s", "10000 s (--max-duration)"],
    );
    refused(
        &["orbit", &sun, "--guess-time", "2e5"],
        &["--guess-time 200000 s", "--max-duration"],
    );
    // A section's guess runs the guess time and as long again.
    let swing = shipped("swing.json");
    refused(
        &[
            "orbit",
            &swing,
            "--section",
            "d1_x=0",
            "--guess-time",
            "30",
            "--max-duration",
            "50",
        ],
        &[
            "--guess-time 30 s",
            "60 s of simulated time",
            "limit of 50 s",
        ],
    );
    // --continue checks every value before anything runs.
    refused(
        &[
            "orbit",
            &sun,
            "--period",
            "120",
            "--max-duration",
            "1e4",
            "--continue",
            "params.friction=0.1:0.2:2",
        ],
        &["10000 s (--max-duration)"],
    );
    assert_eq!(diabolo::orbit::most_periods(5, false, 30), 652);
}

#[test]
fn a_diabolo_off_the_string_at_the_orbits_start_is_refused_with_exit_2() {
    // It failed at t = 0 with exit 1 ("the string snaps taut ... in the flying regime").
    let shower = shipped("shower.json");
    refused(
        &["orbit", &shower, "--period", "1"],
        &[
            "diabolo 2 is flying at the orbit's start (t = 0 s)",
            "--guess-time",
        ],
    );
    // Let go at rest 2 m high, above the string's bottom (0.89 m), it falls onto the string
    // and rests on it before 3 s: the orbit from there is the rest.
    let scenario = std::env::temp_dir().join(format!("orbit_fly_{}.json", std::process::id()));
    std::fs::write(
        &scenario,
        r#"{"params":{"string_length":1.46},"initial":{"diabolos":[{"mode":"flying","pos":[0.0,2.0]}]},
            "drive":{"left":{"type":"path","keyframes":[[0,-0.4,1.5]]},
                     "right":{"type":"path","keyframes":[[0,0.4,1.5]]}},
            "sim":{"duration":2}}"#,
    )
    .unwrap();
    let path = scenario.to_str().unwrap();
    refused(&["orbit", path, "--period", "1"], &["diabolo 1 is flying"]);
    let caught = diabolo(&["orbit", path, "--period", "1", "--guess-time", "3"]);
    std::fs::remove_file(&scenario).unwrap();
    assert!(
        caught.status.success(),
        "{}",
        String::from_utf8_lossy(&caught.stderr)
    );
    let orbit: serde_json::Value = serde_json::from_slice(&caught.stdout).unwrap();
    assert!(orbit["point"]["d1_vx"].as_f64().unwrap().abs() < 1e-9);
}

#[test]
fn a_trajectory_longer_than_max_rows_is_refused_before_anything_is_written() {
    let sun = shipped("sun.json");
    let out = std::env::temp_dir().join(format!("orbit_rows_{}.csv", std::process::id()));
    // The scenario's 0.5 s make 501 rows; one period of the hands, 0.833 s, makes 834.
    refused(
        &[
            "orbit",
            &sun,
            "--set",
            "sim.duration=0.5",
            "--set",
            "sim.output_interval=0.001",
            "--max-rows",
            "600",
            "--trajectory",
            out.to_str().unwrap(),
        ],
        &["--trajectory", "834 rows", "limit of 600 (--max-rows)"],
    );
    assert!(!out.exists(), "nothing written");
}

#[test]
fn section_values_in_messages_are_compact() {
    let swing = shipped("swing.json");
    // It printed the 301 digits of 1e300.
    let message = refused(
        &["orbit", &swing, "--section", "d1_x=1e300"],
        &["d1_x = 1e300 upward"],
    );
    assert!(message.len() < 300, "{message}");
}

#[test]
fn continue_errors_name_continue() {
    let sun = shipped("sun.json");
    for (spec, reason) in [
        ("params.friction=a:1:3", "START \"a\""),
        ("params.friction=0:1:0", "COUNT is 0"),
        ("=0:1:3", "KEY"),
    ] {
        let message = refused(&["orbit", &sun, "--continue", spec], &[reason]);
        assert!(message.starts_with("error: --continue "), "{message}");
        assert!(!message.contains("--grid"), "{message}");
    }
}

/// The command lines of the command manual's "Periodic orbits" block (docs/cli.md) that call
/// `diabolo orbit`, as written (continuation lines joined).
fn manual_orbit_commands() -> Vec<Vec<String>> {
    let manual = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md"),
    )
    .unwrap();
    let block = manual
        .split("\n## Periodic orbits\n")
        .nth(1)
        .and_then(|s| s.split("```sh").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("docs/cli.md's Periodic orbits block");
    let joined = block.replace("\\\n", " ");
    joined
        .lines()
        .filter(|l| l.starts_with("diabolo orbit "))
        .map(|l| {
            let command = l.split('#').next().unwrap();
            command
                .split_whitespace()
                .skip(1)
                .map(str::to_string)
                .collect()
        })
        .collect()
}

/// The command manual's orbit commands (docs/cli.md), run as written from a folder with the
/// scenarios: each finds its orbit. The swing's axle slips (friction drains the spin, so nothing
/// repeats) until it grips at 16.1 s; from 20 s on it rolls without loss, and its period is the
/// rolling small swing's on the ellipse: 2 pi sqrt(a^2 / (g b) (1 + J (d / a)^2)), the spin's
/// inertia J m carried at the string's speed over the axle, (d / a) v at the bottom (sticks
/// 2d = 0.8 m apart). Both effects of a finite amplitude (a stiffer ellipse, a smaller (d / a)
/// away from the bottom) shorten it.
#[test]
fn the_manuals_orbit_commands_converge_as_written() {
    let commands = manual_orbit_commands();
    assert_eq!(commands.len(), 3, "{commands:?}");
    let tmp = std::env::temp_dir().join(format!("orbit_manual_{}", std::process::id()));
    std::fs::create_dir_all(tmp.join("scenarios")).unwrap();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    for name in ["sun.json", "swing.json", "driven_swing.json"] {
        std::fs::copy(dir.join(name), tmp.join("scenarios").join(name)).unwrap();
    }
    let mut swing_period = None;
    for args in &commands {
        let done = std::process::Command::new(env!("CARGO_BIN_EXE_diabolo"))
            .args(args)
            .current_dir(&tmp)
            .output()
            .unwrap();
        assert!(
            done.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&done.stderr)
        );
        if args.iter().any(|a| a == "scenarios/swing.json") {
            let orbit: serde_json::Value = serde_json::from_slice(&done.stdout).unwrap();
            assert!(orbit["residual"].as_f64().unwrap() < 1e-10);
            assert!(orbit["energy_budget"]["net"].as_f64().unwrap().abs() < 1e-8);
            swing_period = orbit["period"].as_f64();
        }
    }
    std::fs::remove_dir_all(&tmp).unwrap();
    let (a, d, spin_inertia): (f64, f64, f64) = (0.73, 0.4, 50.0);
    let b = (a * a - d * d).sqrt();
    let rolling = 2.0 * PI * (a * a / (9.81 * b) * (1.0 + spin_inertia * (d / a).powi(2))).sqrt();
    let period = swing_period.expect("the manual's swing");
    assert!(
        period < rolling && period > 0.99 * rolling,
        "period {period} s, the small rolling swing's {rolling} s"
    );
}

//! Hands that both impose their acceleration and pull the string straight (docs/model.md,
//! "Pulled straight"): the run stops where the string's bend sum sin^2 psi falls to
//! `PULLED_STRAIGHT`, at the instant and speed the geometry predicts, whatever the step size,
//! after a few hundred steps (it used to grind through the step budget's 10,000); a hand with
//! a force instead of an imposed acceleration is pulled in by the string and the run goes on.
//! The model in space stops the same pull at the same instant.

use diabolo::scenario::Scenario;
use diabolo::simulation::tolerances::PULLED_STRAIGHT;
use diabolo::simulation::{RunError, RunReport, Simulation};

/// L, m.
const LENGTH: f64 = 1.46;
/// Each hand's acceleration away from the other, m/s^2.
const PULL: f64 = 1.0;
/// Where the hands start, x = -+0.4 m.
const START: f64 = 0.4;

/// One diabolo without spin hanging midway between hands 0.8 m apart that accelerate apart at
/// `PULL` (the right hand as `right`, JSON), with `sim` fields added.
fn pulled_apart(right: &str, sim: &str) -> Simulation {
    Scenario::parse(&pulled_apart_text(right, sim), &[])
        .unwrap()
        .build(std::path::Path::new("."))
        .unwrap()
}

/// The scenario text of [`pulled_apart`].
fn pulled_apart_text(right: &str, sim: &str) -> String {
    format!(
        r#"{{"name": "pulled apart", "params": {{"string_length": {LENGTH}}},
        "initial": {{"left": {{"pos": [-{START}, 1.5], "vel": [0, 0]}},
                     "right": {{"pos": [{START}, 1.5], "vel": [0, 0]}},
                     "diabolos": [{{"x": 0.0, "spin": 0.0}}]}},
        "drive": {{"left": {{"type": "accel", "value": [-{PULL}, 0]}}, "right": {right}}},
        "sim": {{"duration": 1.0, "output_interval": 0.01 {sim}}}}}"#
    )
}

fn run(sim: &Simulation) -> RunReport {
    sim.run(&mut |_| {})
}

const BOTH_IMPOSED: &str = r#"{"type": "accel", "value": [1.0, 0]}"#;

/// The symmetric case by geometry alone: the diabolo stays midway, each segment L/2 long at
/// the angle a (sin^2 a = sin^2 psi = `PULLED_STRAIGHT`) under the hand at x_s = (L/2) cos a, so
/// the hands get there at t = sqrt(2 (x_s - 0.4) / PULL), and the diabolo rises at
/// x_s x_s' / ((L/2) sin a), with x_s' = PULL t.
fn predicted_stop() -> (f64, f64) {
    let half = LENGTH / 2.0;
    let sin_a = PULLED_STRAIGHT.sqrt();
    let x_s = half * (1.0 - PULLED_STRAIGHT).sqrt();
    let t = (2.0 * (x_s - START) / PULL).sqrt();
    (t, x_s * PULL * t / (half * sin_a))
}

#[test]
fn hands_pulling_the_string_straight_stop_the_run_where_the_geometry_says() {
    let report = run(&pulled_apart(BOTH_IMPOSED, ""));
    let (t_predicted, speed_predicted) = predicted_stop();
    let failure = report.failure.expect("the run must stop");
    let message = failure.to_string();
    let RunError::PulledStraight {
        t,
        span,
        length,
        fastest,
    } = failure
    else {
        panic!("expected the string pulled straight, got: {message}");
    };
    assert!((t - t_predicted).abs() < 1e-9, "{t} vs {t_predicted}");
    assert!(
        (span - 2.0 * (START + 0.5 * PULL * t * t)).abs() < 1e-9,
        "{span}"
    );
    assert_eq!(length, LENGTH);
    let (diabolo, speed) = fastest.expect("a diabolo on the string");
    assert_eq!(diabolo, 1);
    assert!(
        (speed - speed_predicted).abs() < 1e-4 * speed_predicted,
        "{speed} vs {speed_predicted}"
    );
    for part in ["pull the string straight", "diabolo 1 at", "force limit"] {
        assert!(message.contains(part), "missing {part:?} in: {message}");
    }
    // Before the guard the run went on shortening its steps until the step budget (10,000
    // steps in 0.1 s) ended it.
    assert!(report.stats.steps < 500, "{} steps", report.stats.steps);
}

#[test]
fn where_the_string_is_pulled_straight_does_not_depend_on_the_step_size() {
    let free = run(&pulled_apart(BOTH_IMPOSED, ""));
    for max_step in ["1e-3", "1e-4"] {
        let sim = pulled_apart(BOTH_IMPOSED, &format!(r#", "max_step": {max_step}"#));
        let bounded = run(&sim);
        assert!(matches!(
            bounded.failure,
            Some(RunError::PulledStraight { .. })
        ));
        assert!(
            (bounded.end_time - free.end_time).abs() < 1e-9,
            "max_step {max_step}: {} vs {}",
            bounded.end_time,
            free.end_time
        );
    }
}

#[test]
fn a_hand_with_a_force_is_pulled_in_by_the_string_and_the_run_goes_on() {
    // The right hand pulls outward with 5 N instead of imposing 1 m/s^2: the straight string is
    // regular, the string pulls the stick in.
    let report = run(&pulled_apart(r#"{"type": "force", "value": [5.0, 0]}"#, ""));
    assert!(report.failure.is_none(), "{:?}", report.failure);
    assert_eq!(report.end_time, 1.0);
}

#[test]
fn in_space_the_same_pull_stops_at_the_same_instant_and_a_hand_with_a_force_goes_on() {
    use diabolo::simulation::space::{SpaceStatus, SpaceStop};
    let (t_predicted, speed_predicted) = predicted_stop();
    let sim = crate::common::space::in_space(
        &pulled_apart_text(BOTH_IMPOSED, ""),
        &[("sim.space", "true")],
    );
    let report = sim.run(|_| {});
    let SpaceStatus::Stopped {
        t,
        reason: SpaceStop::PulledStraight { span, fastest },
    } = report.status
    else {
        panic!(
            "expected the string pulled straight, got {:?}",
            report.status
        );
    };
    assert!((t - t_predicted).abs() < 1e-9, "{t} vs {t_predicted}");
    assert!(
        (span - 2.0 * (START + 0.5 * PULL * t * t)).abs() < 1e-9,
        "{span}"
    );
    let (diabolo, speed) = fastest.expect("a diabolo on the string");
    assert_eq!(diabolo, 1);
    assert!(
        (speed - speed_predicted).abs() < 1e-4 * speed_predicted,
        "{speed}"
    );
    let force = r#"{"type": "force", "value": [5.0, 0]}"#;
    let sim =
        crate::common::space::in_space(&pulled_apart_text(force, ""), &[("sim.space", "true")]);
    assert_eq!(sim.run(|_| {}).status, SpaceStatus::Finished);
}

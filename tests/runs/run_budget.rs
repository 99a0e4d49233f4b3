//! Run-time budgets and failure messages (issue 12): a run that makes no visible progress ends
//! with exit 1 once it takes more steps per simulated second than the step budget, naming the
//! time, the step size, the phase and the likely cause; `sim.max_wall` ends a run that takes too
//! long on the wall clock; a non-finite failure names the quantity and object, at the last finite
//! time reached; an event flood names its last event in words. The budget has a wide margin over
//! the shipped scenarios, does not count the steps a fixed step or `max_step` asks for, and its
//! check allocates nothing per step.
//!
//! Every run here is guarded by a generous wall-time bound (60 s) so that a regression fails
//! instead of hanging.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use diabolo::model::{FrictionLaw, ParamValues, Params};
use diabolo::scenario::Scenario;
use diabolo::simulation::drive::{Drive, Tracking};
use diabolo::simulation::Method;
use diabolo::simulation::{
    object_name, RunError, RunReport, Settings, Simulation, DEFAULT_MAX_STEPS_PER_SECOND,
};
use nalgebra::Vector2;

// The binary's global allocator counts each thread's allocations (the tests run in parallel).
use crate::counting_allocator::thread_allocations;

/// The guard against hangs: no run here may take longer on the wall clock.
const HANG_GUARD: Duration = Duration::from_secs(60);

fn scenarios() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")
}

/// A shipped scenario, built.
fn shipped(name: &str) -> Simulation {
    let path = scenarios().join(format!("{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap();
    Scenario::parse(&text, &[])
        .unwrap()
        .build(&scenarios())
        .unwrap()
}

/// `sim` with its parameters changed by `change` (built directly, past any scenario range).
fn with_params(mut sim: Simulation, change: impl FnOnce(&mut ParamValues)) -> Simulation {
    let mut values = *sim.params.values();
    change(&mut values);
    sim.params = Params::new(values).unwrap();
    sim
}

/// Runs `sim` on another thread; fails the test if it takes longer than the hang guard.
fn run_guarded(sim: Simulation) -> (RunReport, Duration) {
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let start = Instant::now();
        let report = sim.run(&mut |_| {});
        let _ = send.send((report, start.elapsed()));
    });
    receive
        .recv_timeout(HANG_GUARD)
        .expect("the run must end within the hang guard")
}

/// The run stalls into the step budget: a StepBudget failure whose message names the time,
/// the step size, the phase and a cause containing `cause`.
fn assert_stalls(sim: Simulation, cause: &str) {
    let duration = sim.settings.duration;
    let (report, wall) = run_guarded(sim);
    let failure = report.failure.expect("the stalled run must fail");
    let message = failure.to_string();
    match &failure {
        RunError::StepBudget { t, h, phase, .. } => {
            assert!(t.is_finite() && *t >= 0.0 && *t < duration, "{message}");
            assert!(*h > 0.0 && *h < 1e-3, "{message}");
            assert_eq!(*phase, "taut", "{message}");
        }
        other => panic!("expected the step budget, got: {other}"),
    }
    for part in [
        "t = ",
        "taut phase",
        "steps are down to",
        "likely cause",
        cause,
    ] {
        assert!(message.contains(part), "missing {part:?} in: {message}");
    }
    assert!(report.end_time < duration, "{message}");
    assert!(wall < HANG_GUARD, "{wall:?}");
}

#[test]
fn a_huge_diabolo_mass_stalls_into_the_step_budget_naming_the_mass_ratio() {
    let sim = with_params(shipped("hanging"), |p| p.diabolo_mass = 1e9);
    assert_stalls(sim, "huge mass ratio (diabolo_mass 1e9 kg");
}

#[test]
fn a_huge_initial_speed_ends_the_run_naming_the_speed() {
    // Along the string's ellipse (the string neither stretches nor slackens, so no tensing
    // impulse takes the speed away): the diabolo would go round the ellipse in 15 us. The step
    // size collapses (or, for other speeds, the steps run into the budget): either way the run
    // ends at once, naming the speed. (A start at (1e6, 1e6) m/s, across the string, loses its
    // speed to the tensing impulse and runs.)
    let mut sim = shipped("elevator");
    let p = sim.initial.diabolos[0].pos;
    let normal = (p - sim.initial.left.pos).normalize() + (p - sim.initial.right.pos).normalize();
    sim.initial.diabolos[0].vel = 1e5 * Vector2::new(-normal.y, normal.x).normalize();
    let duration = sim.settings.duration;
    let (report, wall) = run_guarded(sim);
    let failure = report.failure.expect("the run must fail");
    let message = failure.to_string();
    assert!(
        matches!(
            failure,
            RunError::StepBudget { .. } | RunError::StepSizeCollapse { .. }
        ),
        "{message}"
    );
    for part in [
        "t = ",
        "taut phase",
        "likely cause",
        "huge speed of diabolo 1",
    ] {
        assert!(message.contains(part), "missing {part:?} in: {message}");
    }
    assert!(report.end_time < duration, "{message}");
    assert!(wall < HANG_GUARD, "{wall:?}");
}

#[test]
fn a_narrow_tanh_friction_stalls_into_the_step_budget_naming_the_width() {
    let sim = with_params(shipped("hanging"), |p| {
        p.friction_law = FrictionLaw::Tanh { width: 1e-300 }
    });
    assert_stalls(sim, "narrow tanh friction law (friction_width 1e-300 m/s");
}

#[test]
fn a_stiff_tracking_hand_stalls_into_the_step_budget_naming_the_hand() {
    let mut sim = shipped("hanging");
    let path = sim.drives[0].path().unwrap().clone();
    sim.drives[0] = Drive::Tracking(
        path,
        Tracking {
            stiffness: 1e12,
            damping: 10.0,
            max_force: 1e3,
        },
    );
    assert_stalls(
        sim,
        "stiff hand tracking the left stick (stiffness 1e12 N/m",
    );
}

#[test]
fn max_wall_ends_a_run_that_takes_too_long_naming_the_time_reached() {
    let mut sim = shipped("whip");
    sim.settings.duration = 1e4;
    sim.settings.max_wall = Some(0.2);
    let (report, wall) = run_guarded(sim);
    let failure = report
        .failure
        .expect("the run must hit its wall-clock budget");
    let message = failure.to_string();
    match failure {
        RunError::WallClock { t, limit, duration } => {
            assert!(t > 0.0 && t < duration, "{message}");
            assert_eq!(limit, 0.2);
            assert_eq!(report.end_time, t);
        }
        other => panic!("expected the wall-clock budget, got: {other}"),
    }
    assert!(message.contains("sim.max_wall = 0.2 s"), "{message}");
    assert!(message.contains("of 10000 s"), "{message}");
    assert!(
        wall >= Duration::from_millis(200) && wall < Duration::from_secs(10),
        "{wall:?}"
    );
}

#[test]
fn max_wall_and_the_step_budget_must_be_positive() {
    for (max_wall, max_steps, field) in [
        (Some(0.0), DEFAULT_MAX_STEPS_PER_SECOND, "max_wall"),
        (Some(f64::NAN), DEFAULT_MAX_STEPS_PER_SECOND, "max_wall"),
        (None, -1.0, "max_steps_per_second"),
    ] {
        let sim = shipped("hanging");
        let settings = Settings {
            max_wall,
            max_steps_per_second: max_steps,
            ..sim.settings.clone()
        };
        let error = Simulation::new(sim.params, sim.drives, sim.initial, settings).unwrap_err();
        assert!(
            error.to_string().starts_with(&format!("sim.{field}: ")),
            "{error}"
        );
    }
}

#[test]
fn the_shipped_scenarios_keep_a_tenfold_margin_below_the_step_budget() {
    let mut names: Vec<String> = std::fs::read_dir(scenarios())
        .unwrap()
        .filter_map(|e| {
            let path = e.unwrap().path();
            let stem = path.file_stem()?.to_string_lossy().into_owned();
            (path.extension()? == "json"
                && std::fs::read_to_string(path).is_ok_and(|t| !t.contains("\"space\": true")))
            .then_some(stem)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 10, "{names:?}");
    for name in names {
        let mut sim = shipped(&name);
        sim.settings.max_steps_per_second = DEFAULT_MAX_STEPS_PER_SECOND / 10.0;
        let (report, _) = run_guarded(sim);
        assert!(report.failure.is_none(), "{name}: {:?}", report.failure);
    }
}

#[test]
fn steps_asked_for_by_a_fixed_or_largest_step_do_not_count_against_the_budget() {
    // 1e6 steps per simulated second, five times the budget, all asked for by the settings.
    for method in [Method::Rk4 { step: 1e-6 }, Method::Dopri5] {
        let mut sim = shipped("swing");
        sim.settings.duration = 0.02;
        sim.settings.method = method;
        if method == Method::Dopri5 {
            sim.settings.max_step = Some(1e-6);
        }
        let (report, _) = run_guarded(sim);
        assert!(report.failure.is_none(), "{method:?}: {:?}", report.failure);
        assert!(report.stats.steps >= 20_000, "{}", report.stats.steps);
    }
}

#[test]
fn the_budget_checks_allocate_nothing_per_step() {
    // swing slips one way throughout (no event) and keeps one output row at each end: a longer
    // run takes many more steps, each checked against both budgets, and must not allocate more.
    let allocations = |duration: f64| {
        let mut sim = shipped("swing");
        sim.settings.duration = duration;
        sim.settings.output_interval = duration;
        sim.settings.max_wall = Some(1e3);
        // Many steps: rtol at its tightest sensible value.
        sim.settings.rtol = 1e-13;
        let before = thread_allocations();
        let report = sim.run(&mut |_| {});
        assert!(report.failure.is_none(), "{:?}", report.failure);
        assert_eq!(report.events.len(), 0, "{:?}", report.events);
        (
            thread_allocations() - before,
            report.stats.steps + report.stats.rejected_steps,
        )
    };
    let (short, short_steps) = allocations(0.5);
    let (long, long_steps) = allocations(2.0);
    assert!(long_steps > short_steps + 100, "{short_steps} {long_steps}");
    assert_eq!(long, short, "steps {short_steps} -> {long_steps}");
}

#[test]
fn a_non_finite_failure_names_the_quantity_its_cause_and_a_finite_time() {
    let cases = [
        (
            with_params(shipped("elevator"), |p| p.spin_drag = 1.7e308),
            "the drag power",
            "strong spin drag (spin_drag 1.7e308 1/s)",
        ),
        (
            with_params(shipped("hanging"), |p| p.friction = 999.0),
            "the string's tension",
            "capstan ratio",
        ),
    ];
    for (sim, what, cause) in cases {
        let (report, _) = run_guarded(sim);
        let failure = report.failure.expect("the run must fail");
        let message = failure.to_string();
        match &failure {
            RunError::NonFinite { t, phase, .. } => {
                assert_eq!(*t, 0.0, "{message}");
                assert_eq!(*phase, "taut", "{message}");
            }
            other => panic!("expected a non-finite failure, got: {other}"),
        }
        assert!(
            message.starts_with(&format!(
                "t = 0.000000 s (taut phase): {what} became non-finite"
            )),
            "{message}"
        );
        assert!(message.contains(cause), "{message}");
        assert!(!message.contains("NaN"), "{message}");
        assert_eq!(report.end_time, 0.0);
        assert!(report.events.iter().all(|e| e.t.is_finite()));
    }
}

#[test]
fn a_collapsing_step_names_its_likely_cause() {
    let cases = [
        (
            with_params(shipped("whip"), |p| p.gravity = 1e300),
            "likely cause: the strong gravity (gravity 1e300 m/s^2)",
        ),
        (
            with_params(shipped("sun"), |p| p.spin_inertia = 1e-300),
            "likely cause: the light spin inertia (spin_inertia 1e-300)",
        ),
    ];
    for (sim, cause) in cases {
        let (report, _) = run_guarded(sim);
        let failure = report.failure.expect("the run must fail");
        let message = failure.to_string();
        assert!(
            matches!(failure, RunError::StepSizeCollapse { t, .. } if t.is_finite()),
            "{message}"
        );
        assert!(message.contains("the step size collapsed to"), "{message}");
        assert!(message.contains(cause), "{message}");
    }
}

#[test]
fn an_event_flood_names_its_last_event_and_object_in_words() {
    let mut sim = shipped("snap_bouncy");
    sim.settings.zeno_bounces = 10_000;
    sim.settings.zeno_speed = 1e-12;
    sim.settings.max_events_per_second = 20.0;
    let (report, _) = run_guarded(sim);
    let failure = report.failure.expect("the run must flood");
    let message = failure.to_string();
    assert!(
        matches!(failure, RunError::EventFlood { .. }),
        "expected an event flood, got: {message}"
    );
    assert!(message.contains("(the last one logged: "), "{message}");
    assert!(
        message.contains(" of the string)")
            || message.contains(" at diabolo ")
            || message.contains(" stick)"),
        "{message}"
    );
    for debug in ["None", "Some(", "object "] {
        assert!(!message.contains(debug), "{debug:?} in: {message}");
    }
}

#[test]
fn objects_are_named_in_words_from_left_to_right() {
    assert_eq!(object_name(0, 2), "the left stick");
    assert_eq!(object_name(1, 2), "diabolo 1");
    assert_eq!(object_name(2, 2), "diabolo 2");
    assert_eq!(object_name(3, 2), "the right stick");
}

// --- The command line ------------------------------------------------------------------------

/// Runs the binary with `args` (and `stdin`), killed after the hang guard.
fn diabolo(args: &[&str], stdin: Option<&str>) -> (Output, Duration) {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        pipe.write_all(text.as_bytes()).unwrap();
    }
    drop(pipe);
    let id = child.id();
    let (send, receive) = mpsc::channel::<()>();
    let killer = std::thread::spawn(move || {
        if receive.recv_timeout(HANG_GUARD).is_err() {
            let _ = Command::new("kill").args(["-9", &id.to_string()]).status();
        }
    });
    let output = child.wait_with_output().unwrap();
    let _ = send.send(());
    killer.join().unwrap();
    (output, start.elapsed())
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("diabolo-budget-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const ISSUE_REPRODUCER: &str = r#"{"params":{"string_length":1.46,"diabolo_mass":1e9},"initial":{"diabolos":[{"x":0}]},"drive":{"left":{"type":"path","keyframes":[[0,-0.4,1.5]]},"right":{"type":"path","keyframes":[[0,0.4,1.5]]}},"sim":{"duration":2,"output_interval":0.01}}"#;

const TRACKING: &str = r#"{"params":{"string_length":1.46},"initial":{"diabolos":[{"x":0}]},
 "drive":{"left":{"type":"path","keyframes":[[0,-0.4,1.5]],"tracking":{"stiffness":1e12,"damping":10,"max_force":1000}},
          "right":{"type":"path","keyframes":[[0,0.4,1.5]]}},
 "sim":{"duration":2,"output_interval":0.01}}"#;

/// Runs `diabolo run ARGS -o DIR/t.csv` (the scenario text on standard input when given);
/// the output, the wall time and the trajectory written, if any.
fn run_to(d: &Path, args: &[&str], stdin: Option<&str>) -> (Output, Duration, Option<String>) {
    let out = d.join("t.csv");
    let _ = std::fs::remove_file(&out);
    let out_text = out.display().to_string();
    let mut args = vec!["run"]
        .into_iter()
        .chain(args.iter().copied())
        .collect::<Vec<_>>();
    args.extend(["-o", &out_text]);
    let (output, wall) = diabolo(&args, stdin);
    (output, wall, std::fs::read_to_string(&out).ok())
}

#[test]
fn the_issue_stall_reproducers_are_refused_at_once_naming_the_field() {
    let d = temp_dir("stalls");
    let tracking = d.join("tracking.json");
    std::fs::write(&tracking, TRACKING).unwrap();
    let hanging = scenarios().join("hanging.json").display().to_string();
    let elevator = scenarios().join("elevator.json").display().to_string();
    let cases: [(Vec<&str>, Option<&str>, &str); 5] = [
        (vec!["-"], Some(ISSUE_REPRODUCER), "params.diabolo_mass"),
        (
            vec![&hanging, "--set", "params.diabolo_mass=1e9"],
            None,
            "params.diabolo_mass",
        ),
        (
            vec![&elevator, "--set", "initial.diabolos[0].vel=[1e6,1e6]"],
            None,
            "initial.diabolos[0].vel",
        ),
        (
            vec![
                &hanging,
                "--set",
                "params.friction_law=tanh",
                "--set",
                "params.friction_width=1e-300",
            ],
            None,
            "params.friction_width",
        ),
        (
            vec![tracking.to_str().unwrap()],
            None,
            "drive.left.tracking.stiffness",
        ),
    ];
    for (args, stdin, field) in cases {
        let (output, wall, written) = run_to(&d, &args, stdin);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(field),
            "{args:?}: {field} not named in {stderr}"
        );
        assert!(written.is_none(), "{args:?}: a refused run writes nothing");
        assert!(wall < HANG_GUARD, "{args:?}: {wall:?}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_stall_within_the_accepted_ranges_ends_with_exit_1_naming_time_step_and_cause() {
    // The narrowest tanh law the ranges accept, with a high friction: a time scale of 20 ns.
    let d = temp_dir("stall-in-range");
    let hanging = scenarios().join("hanging.json").display().to_string();
    let args = [
        hanging.as_str(),
        "--set",
        "params.friction_law=tanh",
        "--set",
        "params.friction_width=1e-6",
        "--set",
        "params.friction=5",
    ];
    let (output, wall, written) = run_to(&d, &args, None);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    for part in [
        "t = ",
        "integration steps within",
        "steps are down to",
        "likely cause",
        "narrow tanh friction law",
    ] {
        assert!(stderr.contains(part), "missing {part:?} in {stderr}");
    }
    assert!(wall < HANG_GUARD, "{wall:?}");
    // The trajectory up to the stall is kept.
    assert!(written.unwrap().lines().count() >= 2);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn sim_max_wall_fails_a_long_run_with_exit_1_naming_the_time_reached() {
    let whip = scenarios().join("whip.json").display().to_string();
    let d = temp_dir("max-wall");
    let out = d.join("t.csv").display().to_string();
    let (output, wall) = diabolo(
        &[
            "run",
            &whip,
            "--set",
            "sim.duration=10000",
            "--set",
            "sim.max_wall=0.3",
            "-o",
            &out,
        ],
        None,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("sim.max_wall = 0.3 s"), "{stderr}");
    assert!(stderr.contains("of 10000 s"), "{stderr}");
    assert!(wall < Duration::from_secs(20), "{wall:?}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn sim_max_wall_outside_its_range_is_refused_with_exit_2() {
    let hanging = scenarios().join("hanging.json").display().to_string();
    let d = temp_dir("max-wall-range");
    let out = d.join("t.csv");
    for value in ["0", "-1", "1e999"] {
        let set = format!("sim.max_wall={value}");
        let out_text = out.display().to_string();
        let (output, _) = diabolo(&["run", &hanging, "--set", &set, "-o", &out_text], None);
        assert!(!out.exists(), "{value}: an output file on bad input");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{value}: {stderr}");
        assert!(stderr.contains("sim.max_wall"), "{value}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

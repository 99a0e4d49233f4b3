//! `diabolo plan` (docs/plan.md): the shipped tasks planned from a cold start, each plan checked
//! by running it with `diabolo run` and evaluating its targets and limits here from the run's
//! own outputs (the trajectory CSV and the event log), by code that shares nothing with the
//! planner's evaluation; the same plan at any --jobs; bad tasks refused with the field named.

use crate::common::command::{diabolo, scratch, text};
use std::path::Path;

/// The trajectory's rows as (header, rows of numbers; text cells NaN).
fn table(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let rows = reader
        .records()
        .map(|r| {
            r.unwrap()
                .iter()
                .map(|c| c.parse().unwrap_or(f64::NAN))
                .collect()
        })
        .collect();
    (header, rows)
}

/// A planned run's outputs: its trajectory, its events (kinds) and the task's plan object.
struct PlannedRun {
    header: Vec<String>,
    rows: Vec<Vec<f64>>,
    events: Vec<serde_json::Value>,
    plan: serde_json::Value,
}

impl PlannedRun {
    fn column(&self, name: &str) -> Vec<f64> {
        let at = self.header.iter().position(|h| h == name).unwrap();
        self.rows.iter().map(|r| r[at]).collect()
    }

    /// The row at time t (on the output grid).
    fn at(&self, name: &str, t: f64) -> f64 {
        let times = self.column("t");
        let i = times.iter().position(|&s| (s - t).abs() < 1e-9).unwrap();
        self.column(name)[i]
    }
}

/// Plans the shipped task `name` (`diabolo plan`, exit 0), then runs the planned scenario
/// (`diabolo run`, exit 0, every 1 ms).
fn plan_and_run(name: &str, jobs: &str, tag: &str) -> (PlannedRun, String) {
    let dir = scratch("plan", &format!("{name}-{jobs}-{tag}"));
    let task = format!("scenarios/plans/{name}.json");
    let planned = dir.join("planned.json");
    let out = diabolo(&[
        "plan",
        &task,
        "-o",
        planned.to_str().unwrap(),
        "--jobs",
        jobs,
        "--quiet",
    ]);
    assert!(out.status.success(), "{name}: {}", text(&out.stderr));
    let planned_text = std::fs::read_to_string(&planned).unwrap();
    assert!(
        !planned_text.contains("\"plan\""),
        "the plan object is left out"
    );
    let task: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&task).unwrap()).unwrap();
    (run_planned(&planned, task["plan"].clone()), planned_text)
}

/// Runs a planned scenario (`diabolo run`, exit 0, every 1 ms) beside it, with its task's
/// `plan` object.
fn run_planned(planned: &Path, plan: serde_json::Value) -> PlannedRun {
    let csv = planned.with_file_name("run.csv");
    let events = planned.with_file_name("run.jsonl");
    let out = diabolo(&[
        "run",
        planned.to_str().unwrap(),
        "--set",
        "sim.output_interval=0.001",
        "-o",
        csv.to_str().unwrap(),
        "--events",
        events.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (header, rows) = table(&csv);
    let events = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    PlannedRun {
        header,
        rows,
        events,
        plan,
    }
}

/// Every limit of the plan on each planned stick, from the trajectory: inside its box, its
/// speed (the velocity columns) and its acceleration (differences of them over 1 ms) within the
/// limits.
fn check_limits(run: &PlannedRun) {
    let limits = &run.plan["limits"];
    let (speed, accel) = (
        limits["speed"].as_f64().unwrap(),
        limits["accel"].as_f64().unwrap(),
    );
    for side in ["left", "right"] {
        let Some(hand) = run.plan["hands"].get(side) else {
            continue;
        };
        let b = &hand["box"];
        let (x, y) = (
            run.column(&format!("{side}_x")),
            run.column(&format!("{side}_y")),
        );
        let (vx, vy) = (
            run.column(&format!("{side}_vx")),
            run.column(&format!("{side}_vy")),
        );
        for i in 0..x.len() {
            assert!(x[i] >= b[0][0].as_f64().unwrap() && x[i] <= b[1][0].as_f64().unwrap());
            assert!(y[i] >= b[0][1].as_f64().unwrap() && y[i] <= b[1][1].as_f64().unwrap());
            assert!(
                vx[i].hypot(vy[i]) <= speed,
                "{side} speed {}",
                vx[i].hypot(vy[i])
            );
            if i > 0 {
                let a = (vx[i] - vx[i - 1]).hypot(vy[i] - vy[i - 1]) / 0.001;
                assert!(a <= accel, "{side} acceleration {a}");
            }
        }
    }
}

/// No `leave` of diabolo K in the event log.
fn stays_on(run: &PlannedRun, k: u64) -> bool {
    !run.events
        .iter()
        .any(|e| e["kind"] == "leave" && e["object"].as_u64() == Some(k))
}

// The shipped `carry` task: the right hand carries the hanging diabolo 15 cm right and stops it
// there at 1.5 s. The planned run, evaluated from its own CSV: diabolo 1 within 1 cm of
// (0.15, 0.69) and 5 cm/s of rest at 1.5 s, never off the string, the right stick in its box
// and within 3 m/s and 40 m/s^2 at every 1 ms row.
#[test]
fn the_carry_task_is_planned_and_its_run_meets_every_target() {
    let (run, _) = plan_and_run("carry", "2", "targets");
    let (x, y) = (run.at("d1_x", 1.5), run.at("d1_y", 1.5));
    let error = (x - 0.15).hypot(y - 0.69);
    assert!(error <= 0.01, "{error} m from the target");
    let speed = run.at("d1_vx", 1.5).hypot(run.at("d1_vy", 1.5));
    assert!(speed <= 0.05, "{speed} m/s at the end");
    assert!(stays_on(&run, 1));
    check_limits(&run);
}

// The shipped `spin_up` task: the right hand whips the nearly still diabolo (-0.03 m/s) to
// 0.09 m/s of spin by 2.4 s without throwing it off. Evaluated from the run's CSV and events.
#[test]
fn the_spin_up_task_is_planned_and_its_run_meets_every_target() {
    let (run, _) = plan_and_run("spin_up", "2", "targets");
    let spin = run.at("d1_w", 2.4).abs();
    assert!(spin >= 0.09, "spin {spin} m/s");
    assert!(stays_on(&run, 1));
    check_limits(&run);
}

/// The times of diabolo K's events of `kind`, in order.
fn times_of(run: &PlannedRun, kind: &str, k: u64) -> Vec<f64> {
    run.events
        .iter()
        .filter(|e| e["kind"] == kind && e["object"].as_u64() == Some(k))
        .map(|e| e["t"].as_f64().unwrap())
        .collect()
}

/// Diabolo K lands at some time and is on the string from its last landing to the end: no
/// leave after it, no drop. Returns the first landing's time.
fn caught(run: &PlannedRun, k: u64) -> f64 {
    let lands = times_of(run, "land", k);
    assert!(!lands.is_empty(), "diabolo {k} never lands");
    let last = lands[lands.len() - 1];
    assert!(
        times_of(run, "leave", k).iter().all(|&t| t < last),
        "it leaves after its last landing"
    );
    assert!(times_of(run, "drop", k).is_empty(), "it is dropped");
    lands[0]
}

/// No stick strikes a diabolo: no contact event with a stick.
fn never_struck(run: &PlannedRun) -> bool {
    !run.events
        .iter()
        .any(|e| e["kind"] == "contact" && (e["other"] == "left" || e["other"] == "right"))
}

// The shipped `toss` task: both hands toss the hanging diabolo to 2.0 m and catch it again
// before 1.8 s. From the run's own outputs: it leaves, its highest 1 ms row between leaving and
// landing is within 5 cm of 2.0 m (the rows miss the true apex by at most g dt^2 / 8 = 1.2e-6
// m), it lands before 1.8 s and stays on to the end, no stick strikes it, and both sticks keep
// their boxes and limits.
#[test]
fn the_toss_task_is_planned_and_its_run_throws_to_the_height_and_catches() {
    let (run, _) = plan_and_run("toss", "2", "targets");
    let leave = times_of(&run, "leave", 1)[0];
    let land = caught(&run, 1);
    assert!(land < 1.8, "lands at {land} s");
    let (t, y) = (run.column("t"), run.column("d1_y"));
    let apex = t
        .iter()
        .zip(&y)
        .filter(|(&t, _)| t > leave && t < land)
        .fold(f64::NEG_INFINITY, |m, (_, &y)| m.max(y));
    assert!((apex - 2.0).abs() <= 0.05, "apex {apex} m");
    assert!(never_struck(&run));
    check_limits(&run);
}

// The shipped `side_catch` task: a diabolo thrown in from the left that still hands would let
// fall is caught before 1.2 s, softly. From the run: it lands before 1.2 s and stays on, every
// segment's tension at every 1 ms row is at most 30 N and every tensing impulse at most
// 0.3 N s, no stick strikes it, and both sticks keep their boxes and limits.
#[test]
fn the_side_catch_task_is_planned_and_its_run_catches_softly() {
    let (run, _) = plan_and_run("side_catch", "2", "targets");
    let land = caught(&run, 1);
    assert!(land < 1.2, "lands at {land} s");
    for name in ["T0", "T1"] {
        let top = run.column(name).into_iter().fold(0.0f64, f64::max);
        assert!(top <= 30.0, "{name} reaches {top} N");
    }
    for e in run.events.iter().filter(|e| e["kind"] == "tense") {
        let impulse = e["impulse"].as_f64().unwrap();
        assert!(impulse <= 0.3, "a tensing impulse of {impulse} N s");
    }
    assert!(never_struck(&run));
    check_limits(&run);
}

// `"times": "free"`: the planner moves the keyframes in time too. The carry task so planned
// meets its targets in its run, and its keyframes stay at least 0.05 s apart, the last at the
// run's end.
#[test]
fn free_keyframe_times_are_planned_and_kept_apart() {
    let task = edited_task(|t| t["plan"]["hands"]["right"]["times"] = "free".into());
    let (out, planned) = plan_task(&task, "free-times", &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let scenario: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&planned).unwrap()).unwrap();
    let keyframes = scenario["drive"]["right"]["keyframes"].as_array().unwrap();
    assert_eq!(keyframes.len(), 5);
    let times: Vec<f64> = keyframes.iter().map(|k| k[0].as_f64().unwrap()).collect();
    for w in times.windows(2) {
        assert!(w[1] - w[0] >= 0.05 - 1e-12, "{times:?}");
    }
    assert_eq!(times[4], 1.5);
    assert!(
        times.windows(2).any(|w| (w[1] - w[0] - 0.375).abs() > 1e-3),
        "the times moved: {times:?}"
    );
}

// A planned stick that moves at the start (a replan while the hand moves): the carry task with
// the right stick starting at 0.6 m/s right and 0.2 m/s down. The planned drive leaves the
// start with that velocity (`start_velocity`), so the planned run's first row has the stick
// moving so, with no jump, and the target is met in it.
#[test]
fn a_moving_start_is_planned_from_the_sticks_velocity() {
    let task = edited_task(|t| {
        t["initial"]["right"] = serde_json::json!({"pos": [0.5, 1.2], "vel": [0.6, -0.2]});
        t["drive"]["right"] = serde_json::json!({"type": "accel", "value": [0.0, 0.0]});
    });
    let (out, planned) = plan_task(&task, "moving-start", &["--quiet"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let scenario: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&planned).unwrap()).unwrap();
    assert_eq!(
        scenario["drive"]["right"]["start_velocity"],
        serde_json::json!([0.6, -0.2])
    );
    let run = run_planned(&planned, serde_json::Value::Null);
    assert_eq!(run.at("right_vx", 0.0), 0.6);
    assert_eq!(run.at("right_vy", 0.0), -0.2);
    // No jump: the first millisecond's velocity change is an acceleration within the limit.
    let a = (run.at("right_vx", 0.001) - 0.6).hypot(run.at("right_vy", 0.001) + 0.2) / 0.001;
    assert!(a <= 40.0, "{a} m/s^2 in the first millisecond");
    let error = (run.at("d1_x", 1.5) - 0.15).hypot(run.at("d1_y", 1.5) - 0.69);
    assert!(error <= 0.01, "{error} m from the target");
}

// The same task and seed give the same planned scenario, byte for byte, on one thread or two.
#[test]
fn a_plan_is_the_same_whatever_jobs_is() {
    let (_, one) = plan_and_run("carry", "1", "jobs");
    let (_, two) = plan_and_run("carry", "2", "jobs");
    assert_eq!(one, two);
}

/// The carry task with `edit` applied to its JSON.
fn edited_task(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut task: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("scenarios/plans/carry.json").unwrap())
            .unwrap();
    edit(&mut task);
    task.to_string()
}

/// Writes `task` into a scratch folder `tag` and plans it with `extra` flags: the command's
/// output and the planned file's path.
fn plan_task(task: &str, tag: &str, extra: &[&str]) -> (std::process::Output, std::path::PathBuf) {
    let dir = scratch("plan", tag);
    let path = dir.join("task.json");
    std::fs::write(&path, task).unwrap();
    let planned = dir.join("planned.json");
    let mut args = vec![
        "plan",
        path.to_str().unwrap(),
        "-o",
        planned.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    (diabolo(&args), planned)
}

// Bad tasks are refused before anything runs: exit 2, the field, its value and the fix on
// standard error, no planned file.
#[test]
fn bad_tasks_are_refused_with_the_field_named() {
    let cases: Vec<(String, &str)> = vec![
        (
            edited_task(|t| t["plan"]["targets"][0]["state"]["diabolo"] = 3.into()),
            "plan.targets[0].state.diabolo = 3",
        ),
        (
            edited_task(|t| {
                t["plan"]["hands"]["right"]["box"] = serde_json::json!([[0.6, 0.9], [0.9, 1.8]])
            }),
            "outside the box",
        ),
        (
            edited_task(|t| t["plan"]["limits"]["speed"] = (-1.0).into()),
            "plan.limits.speed = -1",
        ),
        (
            edited_task(|t| {
                t["plan"]["targets"] = serde_json::json!([
                    {"apex": {"diabolo": 1, "height": 2.0, "tolerance": 0.1}},
                    {"stay_on": {"diabolo": 1}}
                ])
            }),
            "stay_on forbids",
        ),
        (
            edited_task(|t| {
                t.as_object_mut().unwrap().remove("plan");
            }),
            "add one",
        ),
        (
            edited_task(|t| t["plan"]["hands"]["right"]["keyframes"] = 0.into()),
            "plan.hands.right.keyframes = 0",
        ),
        (
            edited_task(|t| t["plan"]["hands"]["right"]["times"] = "sometimes".into()),
            "plan.hands.right.times",
        ),
    ];
    let dir = scratch("plan", "bad");
    for (i, (task, expected)) in cases.iter().enumerate() {
        let path = dir.join(format!("task{i}.json"));
        std::fs::write(&path, task).unwrap();
        let planned = dir.join(format!("planned{i}.json"));
        let out = diabolo(&[
            "plan",
            path.to_str().unwrap(),
            "-o",
            planned.to_str().unwrap(),
        ]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{expected}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains(expected),
            "{}",
            text(&out.stderr)
        );
        assert!(!planned.exists());
    }
}

// A target the search cannot meet within its budget: exit 1, the best plan still written, the
// missed target named with its value and margin.
#[test]
fn an_unmet_target_exits_1_with_the_best_plan_written() {
    let task = edited_task(|t| {
        t["plan"]["targets"] =
            serde_json::json!([{"spin": {"diabolo": 1, "time": 1.5, "at_least": 5.0}}])
    });
    let (out, planned) = plan_task(&task, "unmet", &["--max-simulations", "60"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("misses spin (value"));
    assert!(planned.exists());
}

// Ctrl-C during a long search ends it with the best plan so far, written as usual (the report
// says `interrupted`), instead of removing everything: a spin the search cannot reach, a budget
// it would take minutes to spend, SIGINT after 1.5 s.
#[test]
fn ctrl_c_writes_the_best_plan_so_far() {
    let task = edited_task(|t| {
        t["plan"]["targets"] =
            serde_json::json!([{"spin": {"diabolo": 1, "time": 1.5, "at_least": 5.0}}])
    });
    let dir = scratch("plan", "interrupt");
    let path = dir.join("task.json");
    std::fs::write(&path, task).unwrap();
    let (planned, report) = (dir.join("planned.json"), dir.join("report.json"));
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .args([
            "plan",
            path.to_str().unwrap(),
            "-o",
            planned.to_str().unwrap(),
        ])
        .args([
            "--report",
            report.to_str().unwrap(),
            "--max-simulations",
            "10000000",
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(planned.exists());
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(report["stopped"], "interrupted");
}

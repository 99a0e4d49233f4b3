//! The `diabolo` command end to end: every subcommand and flag, standard input and output,
//! exit codes, the CSV / JSON-lines / summary formats, atomic files, the partial trajectory of a
//! run-time failure, and byte-identical repeated runs. The CSV numbers are checked to round-trip
//! exactly to the library's own rows.

use crate::common;
use common::command::{diabolo_fed as diabolo, text};

use approx::abs_diff_eq;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("diabolo-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// One spinning diabolo on a waving string, 0.5 s.
fn swing() -> Value {
    json!({
        "name": "cli-swing",
        "params": {"string_length": 1.46, "spin_drag": 0.05},
        "initial": {"diabolos": [{"x": 0.1, "spin": 0.65}]},
        "drive": {
            "left": {"type": "path", "keyframes": [[0.0, -0.4, 1.5]]},
            "right": {"type": "path", "sine": {"center": [0.4, 1.5], "amplitude": [0.0, 0.05], "frequency": 1.5}}
        },
        "sim": {"duration": 0.5, "output_interval": 0.01}
    })
}

fn write_scenario(d: &std::path::Path, doc: &Value) -> String {
    let path = d.join("scenario.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    path.display().to_string()
}

fn parse_csv(s: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut lines = s.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    (header, rows)
}

#[test]
fn run_writes_the_trajectory_to_stdout_and_the_summary_to_stderr() {
    let d = dir("stdout");
    let scenario = write_scenario(&d, &swing());
    let out = diabolo(&["run", &scenario], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (header, rows) = parse_csv(&text(&out.stdout));
    let expected_start = "t,phase,left_x,left_y,left_vx,left_vy,right_x,right_y,right_vx,right_vy,d1_x,d1_y,d1_vx,d1_vy,d1_w,d1_theta,d1_knot,T0,T1,G,FC,left_fx,left_fy,right_fx,right_fy,energy,slack";
    assert!(header.join(",").starts_with(expected_start), "{header:?}");
    assert_eq!(rows.len(), 51);
    assert!(rows.iter().all(|r| r.len() == header.len()));
    assert_eq!(rows[50][0], "0.5");
    let summary: Value = serde_json::from_str(text(&out.stderr).trim()).unwrap();
    for key in [
        "steps",
        "derivative_evaluations",
        "events",
        "max_tension",
        "min_t0",
        "final_spin",
        "energy_change",
        "grip_needed",
        "wall_time",
    ] {
        assert!(summary.get(key).is_some(), "summary lacks {key}: {summary}");
    }
    assert_eq!(summary["status"], "ok");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn csv_numbers_round_trip_to_the_library_rows() {
    let d = dir("roundtrip");
    let doc = swing();
    let scenario = write_scenario(&d, &doc);
    let out = diabolo(&["run", &scenario, "--quiet"], None);
    let (_, rows) = parse_csv(&text(&out.stdout));
    let sim = diabolo::scenario::Scenario::parse(&doc.to_string(), &[])
        .unwrap()
        .build(&d)
        .unwrap();
    let mut ours = Vec::new();
    sim.run(&mut |row| ours.push(row.clone()));
    assert_eq!(ours.len(), rows.len());
    for (row, csv) in ours.iter().zip(&rows) {
        let back = |i: usize| csv[i].parse::<f64>().unwrap();
        assert_eq!(back(0).to_bits(), row.t.to_bits());
        assert_eq!(back(10).to_bits(), row.state.diabolos[0].pos.x.to_bits());
        assert_eq!(back(14).to_bits(), row.state.diabolos[0].spin.to_bits());
        assert_eq!(back(17).to_bits(), row.tensions[0].to_bits());
        assert_eq!(back(25).to_bits(), row.energy.to_bits());
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn run_reads_stdin_and_writes_every_file_asked_for() {
    let d = dir("files");
    let (traj, events, summary) = (d.join("t.csv"), d.join("e.jsonl"), d.join("s.json"));
    let out = diabolo(
        &[
            "run",
            "-",
            "-o",
            traj.to_str().unwrap(),
            "--events",
            events.to_str().unwrap(),
            "--summary",
            summary.to_str().unwrap(),
        ],
        Some(&swing().to_string()),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
    assert_eq!(std::fs::read_to_string(&traj).unwrap().lines().count(), 52);
    let log = std::fs::read_to_string(&events).unwrap();
    let first: Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    assert_eq!(
        first["kind"], "tense",
        "the waving hand starts with an impulse: {log}"
    );
    assert!(first["impulse"].as_f64().unwrap() > 0.0 && first.get("energy_lost").is_some());
    let s: Value = serde_json::from_str(std::fs::read_to_string(&summary).unwrap().trim()).unwrap();
    assert_eq!(s["scenario"], "cli-swing");
    assert_eq!(s["events"]["tense"], 1);
    // Only the three files: no temporary files left behind.
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 3);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn quiet_silences_the_summary_and_set_overrides_fields() {
    let d = dir("set");
    let scenario = write_scenario(&d, &swing());
    let out = diabolo(
        &[
            "run",
            &scenario,
            "--quiet",
            "--set",
            "sim.duration=0.2",
            "--set",
            "initial.diabolos[0].spin=5",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
    let (_, rows) = parse_csv(&text(&out.stdout));
    assert_eq!(rows.last().unwrap()[0], "0.2");
    // The spin as set (the starting impulse of the waving hand changes it by about 1e-3).
    let spin: f64 = rows[0][14].parse().unwrap();
    assert!(abs_diff_eq!(spin, 5.0, epsilon = 0.01), "{spin}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn same_scenario_gives_byte_identical_output() {
    let d = dir("determinism");
    let scenario = write_scenario(&d, &swing());
    let a = diabolo(&["run", &scenario, "--quiet"], None);
    let b = diabolo(&["run", &scenario, "--quiet"], None);
    assert_eq!(a.stdout, b.stdout);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_run_time_failure_exits_1_with_the_trajectory_so_far() {
    // The right hand walks away farther than the string reaches (the diabolo flies beside).
    let doc = json!({
        "params": {"string_length": 1.46, "friction": 0.17},
        "initial": {
            "diabolos": [{"mode": "flying", "pos": [3.0, 0.0], "vel": [0.0, 3.0], "spin": 0.5}]
        },
        "drive": {
            "left": {"type": "path", "keyframes": [[0.0, -0.5, 0.0]]},
            "right": {"type": "path", "keyframes": [[0.0, 0.5, 0.0], [2.0, 1.5, 0.0]]}
        },
        "sim": {"duration": 2.0, "output_interval": 0.01}
    });
    let d = dir("failure");
    let scenario = write_scenario(&d, &doc);
    let (traj, events) = (d.join("t.csv"), d.join("e.jsonl"));
    let out = diabolo(
        &[
            "run",
            &scenario,
            "-o",
            traj.to_str().unwrap(),
            "--events",
            events.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let message = text(&out.stderr);
    assert!(
        message.contains("the paths hold the sticks") && message.contains("t = "),
        "{message}"
    );
    let (header, rows) = parse_csv(&std::fs::read_to_string(&traj).unwrap());
    assert!(!rows.is_empty() && rows.iter().all(|r| r.len() == header.len()));
    let last_t: f64 = rows.last().unwrap()[0].parse().unwrap();
    assert!(last_t < 2.0);
    let log = std::fs::read_to_string(&events).unwrap();
    let failure: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(failure["kind"], "failure");
    assert!(failure["t"].as_f64().unwrap() >= last_t);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn validate_accepts_a_good_scenario_and_rejects_a_bad_one() {
    let d = dir("validate");
    let scenario = write_scenario(&d, &swing());
    let ok = diabolo(&["validate", &scenario], None);
    assert_eq!(ok.status.code(), Some(0));
    assert!(text(&ok.stdout).contains("ok: cli-swing (1 diabolo, 0.5 s)"));
    let bad = diabolo(
        &["validate", "-", "--set", "params.restitution=2"],
        Some(&swing().to_string()),
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("params.restitution"));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn schema_prints_the_json_schema() {
    let out = diabolo(&["schema"], None);
    assert_eq!(out.status.code(), Some(0));
    let schema: Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert!(schema["$schema"]
        .as_str()
        .unwrap()
        .contains("json-schema.org"));
    for field in ["params", "initial", "drive", "sim"] {
        assert!(schema["properties"].get(field).is_some(), "{field}");
    }
}

#[test]
fn every_subcommand_has_help_with_an_example() {
    for sub in [
        vec!["--help"],
        vec!["run", "--help"],
        vec!["validate", "--help"],
        vec!["schema", "--help"],
    ] {
        let out = diabolo(&sub, None);
        assert_eq!(out.status.code(), Some(0));
        assert!(
            text(&out.stdout).contains("Example"),
            "{sub:?}: {}",
            text(&out.stdout)
        );
    }
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    let d = dir("pipe");
    let mut doc = swing();
    doc["sim"]["duration"] = json!(2.0);
    doc["sim"]["output_interval"] = json!(0.0001);
    let scenario = write_scenario(&d, &doc);
    let mut child = Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .args(["run", &scenario, "--quiet"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let _ = std::fs::remove_dir_all(&d);
}

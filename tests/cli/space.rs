//! Scenarios in space from the command line: `scenarios/tilt.json` end to end (the CSV header,
//! every number finite, the event log and the summary, exit 0), bad input in space refused
//! (exit 2, nothing written, the message naming the field and the value), a field of the model
//! in space refused in a planar scenario, and a run that stops (exit 1, the trajectory so far
//! kept).

use crate::common;
use common::command::{diabolo_fed as diabolo, run_with_logs, scratch, text};

use serde_json::Value;
use std::path::PathBuf;

fn dir(name: &str) -> PathBuf {
    scratch("space", name)
}

fn shipped(name: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(format!("{name}.json"))
        .display()
        .to_string()
}

/// The header of a one-diabolo trajectory in space (docs/interface.md).
const TILT_HEADER: &str = "t,phase,left_x,left_y,left_z,left_vx,left_vy,left_vz,right_x,right_y,right_z,right_vx,right_vy,right_vz,d1_x,d1_y,d1_z,d1_vx,d1_vy,d1_vz,d1_w,d1_theta,d1_knot,d1_ax,d1_ay,d1_az,d1_tilt,d1_turn,T0,T1,G,FC,left_fx,left_fy,left_fz,right_fx,right_fy,right_fz,energy,slack,hand_work,friction_loss,drag_loss,impulse_loss,axle_work,d1_mode,d1_slot";

#[test]
fn tilt_runs_in_space_from_the_command_line() {
    let d = dir("tilt");
    let (csv, events, summary) = (d.join("t.csv.gz"), d.join("e.jsonl"), d.join("s.json"));
    let out = run_with_logs(&shipped("tilt"), &[], &csv, &events, &summary);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Gzip by name; the plain run gives the same bytes compressed.
    let plain = d.join("t.csv");
    let again = diabolo(
        &["run", &shipped("tilt"), "-o", plain.to_str().unwrap(), "-q"],
        None,
    );
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    let bytes = std::fs::read(&csv).unwrap();
    assert_eq!(&bytes[..2], &[0x1f, 0x8b], "gzip by name");
    let table = std::fs::read_to_string(&plain).unwrap();
    let mut lines = table.lines();
    assert_eq!(lines.next(), Some(TILT_HEADER));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 151, "rows every 0.01 s for 1.5 s");
    let columns: Vec<&str> = TILT_HEADER.split(',').collect();
    for row in &rows {
        assert_eq!(row.len(), columns.len());
        for (name, field) in columns.iter().zip(row) {
            match *name {
                "phase" => assert_eq!(*field, "taut"),
                "d1_mode" => assert_eq!(*field, "string"),
                _ => {
                    let v: f64 = field.parse().unwrap_or_else(|_| panic!("{name} = {field}"));
                    assert!(v.is_finite(), "{name} = {field}");
                }
            }
        }
    }
    // The near end of the axle goes down: d1_tilt < 0 at the end.
    let tilt = columns.iter().position(|c| *c == "d1_tilt").unwrap();
    let last: f64 = rows.last().unwrap()[tilt].parse().unwrap();
    assert!(last < -1.0, "d1_tilt at the end: {last} degrees");
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(summary["status"], "ok");
    assert_eq!(summary["space"], true);
    assert_eq!(summary["rows"], 151);
    assert!(summary["ledger_residual"].as_f64().unwrap() < 1e-8);
    // Deterministic: the same bytes twice.
    let twice = d.join("t2.csv");
    diabolo(
        &["run", &shipped("tilt"), "-o", twice.to_str().unwrap(), "-q"],
        None,
    );
    assert_eq!(std::fs::read(&twice).unwrap(), table.as_bytes());
    let validate = diabolo(&["validate", &shipped("tilt")], None);
    assert_eq!(validate.status.code(), Some(0));
    assert!(
        text(&validate.stdout).contains("in space"),
        "{}",
        text(&validate.stdout)
    );
}

/// `diabolo run tilt.json --set KEY=VALUE -o FILE`: exit 2, nothing written, and the message
/// holds every one of `words`.
fn refused(set: &[&str], base: &str, words: &[&str]) {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let d = dir(&format!("refused-{call}"));
    let csv = d.join("t.csv");
    let mut args = vec!["run", base, "-o", csv.to_str().unwrap()];
    for s in set {
        args.push("--set");
        args.push(s);
    }
    let out = diabolo(&args, None);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{set:?}: {stderr}");
    assert!(!csv.exists(), "{set:?}: no output file");
    assert_eq!(
        std::fs::read_dir(&d).unwrap().count(),
        0,
        "{set:?}: no file left"
    );
    for w in words {
        assert!(stderr.contains(w), "{set:?}: {w:?} not in {stderr}");
    }
}

#[test]
fn bad_input_in_space_is_refused_naming_the_field_and_the_value() {
    let tilt = shipped("tilt");
    refused(
        &["initial.diabolos[0].axle=[0,0,0]"],
        &tilt,
        &["initial.diabolos[0].axle", "[0, 0, 0]", "unit vector"],
    );
    refused(
        &["initial.diabolos[0].axle_rate=[1,0,0]"],
        &tilt,
        &["initial.diabolos[0].axle_rate", "rigid"],
    );
    // A compliant string stretched past 100 % at the start.
    refused(
        &[
            "params.string_stiffness=200",
            "initial.diabolos[0].x=null",
            "initial.diabolos[0].pos=[0, -0.2, 0.1]",
        ],
        &tilt,
        &["initial.diabolos", "100 %"],
    );
    refused(
        &["initial.diabolos[0].mode=flying"],
        &tilt,
        &["initial.diabolos[0].x", "flying", "\"pos\": [x, y, z]"],
    );
    // A flying start below the floor (its lowest rim point R = 6.35 cm under its centre).
    refused(
        &[
            "initial.diabolos[0].mode=flying",
            "initial.diabolos[0].x=null",
            "initial.diabolos[0].pos=[0, 0.5, 0]",
            "sim.floor=0.46",
        ],
        &tilt,
        &["sim.floor", "0.46", "below the floor"],
    );
    refused(
        &[
            "initial.diabolos[0].mode=flying",
            "initial.diabolos[0].x=null",
            "initial.diabolos[0].pos=[0, 1.3, 0]",
            "initial.diabolos[0].knot=1",
        ],
        &tilt,
        &["initial.diabolos[0].knot", "no knot"],
    );
    refused(&["params.cup_angle=90"], &tilt, &["params.cup_angle", "90"]);
    refused(&["sim.axle=\"wobbly\""], &tilt, &["sim.axle", "fast_top"]);
    refused(
        &["initial.diabolos[0].pos=[0, 0.9, 0, 1]"],
        &tilt,
        &["initial.diabolos[0].pos", "[x, y, z]"],
    );
    // The sticks apart along z: placing by x needs them in one plane.
    refused(
        &["drive.right.keyframes=[[0, 0.4, 1.5, 0.1]]"],
        &tilt,
        &["initial.diabolos[0].x", "one z"],
    );
    // An axle that is not three numbers: named as an axle, not as a keyframe.
    refused(
        &["initial.diabolos=[{\"pos\": [0, 0.9, 0], \"axle\": [1, 2]}]"],
        &tilt,
        &[
            "initial.diabolos[0].axle",
            "invalid length 2",
            "[ax, ay, az]",
        ],
    );
    // Two diabolos inside each other at the start.
    refused(
        &["initial.diabolos=[{\"pos\": [-0.03, 0.90578, 0]}, {\"pos\": [0.03, 0.90578, 0]}]"],
        &tilt,
        &["initial.diabolos[0].pos", "inside", "overlap by"],
    );
    // "space": false with a third coordinate.
    refused(
        &["sim.space=false"],
        &tilt,
        &["drive.left.keyframes[0]", "space"],
    );
}

// A compliant string in space from the command line: the trajectory gains `string_loss` after
// `impulse_loss` (never decreasing, as in the plane), the summary's ledger closes, exit 0.
#[test]
fn a_compliant_string_runs_in_space_with_its_damping_loss_column() {
    let d = dir("compliant");
    let csv = d.join("t.csv");
    let out = diabolo(
        &[
            "run",
            &shipped("tilt"),
            "--set",
            "params.string_stiffness=200",
            "--set",
            "params.string_damping=3",
            "-o",
            csv.to_str().unwrap(),
            "-q",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let table = std::fs::read_to_string(&csv).unwrap();
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let expected = TILT_HEADER.replace("impulse_loss,", "impulse_loss,string_loss,");
    assert_eq!(header, expected.split(',').collect::<Vec<_>>());
    let at = header.iter().position(|c| *c == "string_loss").unwrap();
    let losses: Vec<f64> = lines
        .map(|l| l.split(',').nth(at).unwrap().parse().unwrap())
        .collect();
    assert_eq!(losses.len(), 151);
    assert!(losses.windows(2).all(|w| w[1] >= w[0] - 1e-12));
    assert!(losses[150] > 0.0, "{losses:?}");
}

#[test]
fn a_field_of_the_model_in_space_does_not_turn_a_planar_scenario_into_one() {
    let hanging = shipped("hanging");
    refused(
        &["params.axle_radius=0.01"],
        &hanging,
        &["params.axle_radius", "0.01", "\"space\": true"],
    );
    refused(
        &["initial.diabolos[0].axle=[0,0,1]"],
        &hanging,
        &["initial.diabolos[0].axle", "planar scenario"],
    );
    refused(&["sim.axle=\"rigid\""], &hanging, &["sim.axle", "rigid"]);
    // A command that runs planar scenarios only refuses one in space, naming why.
    let out = diabolo(
        &[
            "sweep",
            &shipped("tilt"),
            "--list",
            "params.friction=0.1,0.2",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("in space"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_run_in_space_that_stops_exits_1_and_keeps_its_trajectory() {
    // A 5 degree cup: the strands pass it as the right stick moves toward the audience.
    let d = dir("stopped");
    let (csv, events, summary) = (d.join("t.csv"), d.join("e.jsonl"), d.join("s.json"));
    let out = run_with_logs(
        &shipped("tilt"),
        &["--set", "params.cup_angle=5"],
        &csv,
        &events,
        &summary,
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cup of diabolo 1"), "{stderr}");
    assert!(stderr.contains("holds the trajectory"), "{stderr}");
    let table = std::fs::read_to_string(&csv).unwrap();
    let rows = table.lines().count() - 1;
    assert!(rows > 1 && rows < 151, "{rows} rows kept");
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(summary["status"], "string_on_cup");
    let end = summary["end_time"].as_f64().unwrap();
    assert!(end > 0.0 && end < 1.5, "{end}");
    let log = std::fs::read_to_string(&events).unwrap();
    let last: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(last["kind"], "failure");
    assert_eq!(last["status"], "string_on_cup");
    assert_eq!(last["object"], 1);
}

// The wall-clock budget of a run in space, hit on purpose (a nanosecond): the run stops with
// exit 1, status `budget`, a message naming `sim.max_wall`, and the rows up to the stop
// written. The event budget is a scenario's setting in space too.
#[test]
fn a_run_in_space_past_its_budget_stops_naming_it() {
    let d = dir("budget_wall");
    let (csv, events, summary) = (d.join("t.csv"), d.join("e.jsonl"), d.join("s.json"));
    let set = ["--set", "sim.max_wall=1e-9"];
    let out = run_with_logs(&shipped("tilt"), &set, &csv, &events, &summary);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(summary["status"], "budget");
    let failure = summary["failure"].as_str().unwrap();
    assert!(failure.contains("sim.max_wall"), "{failure}");
    let rows = std::fs::read_to_string(&csv).unwrap().lines().count();
    assert!(rows >= 2, "the header and the first row ({rows})");
    let log = std::fs::read_to_string(&events).unwrap();
    assert!(log.lines().last().unwrap().contains("\"budget\""), "{log}");
    let validate = diabolo(
        &[
            "validate",
            &shipped("tilt"),
            "--set",
            "sim.max_events_per_second=50",
        ],
        None,
    );
    assert_eq!(
        validate.status.code(),
        Some(0),
        "{}",
        text(&validate.stderr)
    );
}

// `shower` run in space (`--set sim.space=true`): diabolo 1 strikes the right stick's tip at
// 2.257 s and the run goes on to its end (exit 0); the event log's `contact` line has the
// planar log's fields and values (impulse 0.9418 N s, 0.7392 J lost, 3.139 m/s).
#[test]
fn a_contact_in_space_is_logged_as_in_the_plane() {
    let d = dir("contact");
    let (csv, events, summary) = (d.join("t.csv"), d.join("e.jsonl"), d.join("s.json"));
    let out = run_with_logs(
        &shipped("shower"),
        &["--set", "sim.space=true"],
        &csv,
        &events,
        &summary,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let log = std::fs::read_to_string(&events).unwrap();
    let contact: Value = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["kind"] == "contact")
        .expect("a contact event");
    assert_eq!(contact["object"], 1);
    assert_eq!(contact["other"], "right");
    assert_eq!(contact["resting"], false);
    for (key, value) in [
        ("impulse", 0.9418),
        ("energy_lost", 0.7392),
        ("speed", 3.139),
    ] {
        let got = contact[key].as_f64().unwrap();
        assert!((got - value).abs() < 1e-3, "{key}: {got}");
    }
    assert!((contact["t"].as_f64().unwrap() - 2.2569).abs() < 1e-3);
}

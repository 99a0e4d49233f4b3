//! Bad input never runs and never writes: each of these scenarios (one mistake each, from
//! broken JSON to physically impossible starts) must exit with code 2, name the offending field
//! (its JSON path) in the message, and leave no file at all in the output folder.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A valid scenario: left stick held on a path, right stick held up by a force, one spinning
/// diabolo placed on the taut string.
fn base() -> Value {
    json!({
        "name": "base",
        "params": {"string_length": 1.46, "friction": 0.17},
        "initial": {
            "right": {"pos": [0.4, 1.5]},
            "diabolos": [{"x": 0.05, "spin": 0.5}]
        },
        "drive": {
            "left": {"type": "path", "keyframes": [[0.0, -0.4, 1.5], [1.0, -0.45, 1.6]]},
            "right": {"type": "force", "value": [0.0, 0.3924]}
        },
        "sim": {"duration": 0.2, "output_interval": 0.01}
    })
}

/// Sets a dotted path (object fields only, plus [i] list entries) in a JSON document.
fn set(doc: &mut Value, path: &str, value: Value) {
    let mut here = doc;
    let parts: Vec<&str> = path.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        let (name, index) = match part.split_once('[') {
            Some((n, rest)) => (
                n,
                Some(rest.trim_end_matches(']').parse::<usize>().unwrap()),
            ),
            None => (*part, None),
        };
        let last = i + 1 == parts.len() && index.is_none();
        if last {
            here[name] = value;
            return;
        }
        here = &mut here[name];
        if let Some(k) = index {
            if i + 1 == parts.len() {
                here[k] = value;
                return;
            }
            here = &mut here[k];
        }
    }
}

fn remove(doc: &mut Value, object: &str, field: &str) {
    let mut here = doc;
    for part in object.split('.').filter(|p| !p.is_empty()) {
        here = &mut here[part];
    }
    here.as_object_mut().unwrap().remove(field);
}

enum Input {
    /// The base scenario with one change.
    Changed(fn(&mut Value)),
    /// Raw text as the scenario.
    Text(&'static str),
    /// The base scenario, extra command-line arguments.
    Args(&'static [&'static str]),
}

struct Case {
    what: &'static str,
    input: Input,
    /// What the message must name.
    field: &'static str,
    /// Files beside the scenario (name, content).
    files: &'static [(&'static str, &'static str)],
}

fn cases() -> Vec<Case> {
    use Input::*;
    let c = |what, input, field| Case {
        what,
        input,
        field,
        files: &[],
    };
    vec![
        c("broken JSON", Text("{\"params\": {"), "line 1"),
        c(
            "unknown top-level field",
            Changed(|d| set(d, "colour", json!("red"))),
            "colour",
        ),
        c(
            "a start velocity on a monotone path",
            Changed(|d| {
                set(d, "drive.left.interpolation", json!("pchip"));
                set(d, "drive.left.start_velocity", json!([0.5, 0.0]));
            }),
            "drive.left.start_velocity",
        ),
        c(
            "a start velocity on a path of one keyframe",
            Changed(|d| {
                set(d, "drive.left.keyframes", json!([[0.0, -0.4, 1.5]]));
                set(d, "drive.left.start_velocity", json!([0.5, 0.0]));
            }),
            "drive.left.start_velocity",
        ),
        c(
            "a start velocity on a path that starts later",
            Changed(|d| {
                set(
                    d,
                    "drive.left.keyframes",
                    json!([[0.1, -0.4, 1.5], [1.0, -0.45, 1.6]]),
                );
                set(d, "drive.left.start_velocity", json!([0.5, 0.0]));
            }),
            "drive.left.start_velocity",
        ),
        c(
            "a start velocity without keyframes",
            Changed(|d| set(d, "drive.right.start_velocity", json!([0.5, 0.0]))),
            "drive.right",
        ),
        c(
            "misspelt parameter",
            Changed(|d| set(d, "params.frction", json!(0.2))),
            "params.frction",
        ),
        c(
            "missing string length",
            Changed(|d| remove(d, "params", "string_length")),
            "string_length",
        ),
        c(
            "negative string length",
            Changed(|d| set(d, "params.string_length", json!(-1.0))),
            "params.string_length",
        ),
        c(
            "zero diabolo mass",
            Changed(|d| set(d, "params.diabolo_mass", json!(0.0))),
            "params.diabolo_mass",
        ),
        c(
            "negative friction",
            Changed(|d| set(d, "params.friction", json!(-0.1))),
            "params.friction",
        ),
        c(
            "zero spin inertia",
            Changed(|d| set(d, "params.spin_inertia", json!(0.0))),
            "params.spin_inertia",
        ),
        c(
            "restitution above 1",
            Changed(|d| set(d, "params.restitution", json!(1.5))),
            "params.restitution",
        ),
        c(
            "unknown friction law",
            Changed(|d| set(d, "params.friction_law", json!("magic"))),
            "params.friction_law",
        ),
        c(
            "tanh law without width",
            Changed(|d| {
                set(d, "params.friction_law", json!("tanh"));
                set(d, "params.friction_width", json!(0.0));
            }),
            "params.friction_width",
        ),
        c(
            "text where a number goes",
            Changed(|d| set(d, "params.friction", json!("high"))),
            "params.friction",
        ),
        c(
            "sticks farther apart than L",
            Changed(|d| set(d, "initial.right.pos", json!([1.2, 1.5]))),
            "initial.right.pos",
        ),
        c(
            "a path starting the sticks farther apart than L",
            Changed(|d| {
                remove(d, "initial", "right");
                set(
                    d,
                    "drive.right",
                    json!({"type": "path", "keyframes": [[0.0, 1.2, 1.5]]}),
                );
            }),
            "drive.right (its path at t = 0)",
        ),
        c(
            "diabolo above the string",
            Changed(|d| set(d, "initial.diabolos[0]", json!({"pos": [0.0, 1.6]}))),
            "initial.diabolos[0].pos",
        ),
        c(
            "diabolo off the string",
            Changed(|d| set(d, "initial.diabolos[0]", json!({"pos": [0.0, 0.0]}))),
            "initial.diabolos",
        ),
        c(
            "both pos and x",
            Changed(|d| set(d, "initial.diabolos[0].pos", json!([0.0, 1.0]))),
            "initial.diabolos[0].x",
        ),
        c(
            "x mixed with pos among diabolos",
            Changed(|d| {
                set(
                    d,
                    "initial.diabolos",
                    json!([{"x": 0.0}, {"pos": [0.1, 1.0]}]),
                )
            }),
            "initial.diabolos[0].x",
        ),
        c(
            "diabolos out of order",
            Changed(|d| {
                set(
                    d,
                    "initial.diabolos",
                    json!([{"pos": [0.1, 1.0]}, {"pos": [-0.1, 1.0]}]),
                )
            }),
            "initial.diabolos[1].pos",
        ),
        c(
            "no diabolo",
            Changed(|d| set(d, "initial.diabolos", json!([]))),
            "initial.diabolos",
        ),
        c(
            "x beyond the string's reach",
            Changed(|d| set(d, "initial.diabolos[0].x", json!(5.0))),
            "initial.diabolos[0].x",
        ),
        c(
            "keyframe times decreasing",
            Changed(|d| {
                set(
                    d,
                    "drive.left.keyframes",
                    json!([[0.0, -0.4, 1.5], [0.8, -0.4, 1.4], [0.5, -0.4, 1.3]]),
                )
            }),
            "drive.left.keyframes[2]",
        ),
        c(
            "keyframe of two numbers",
            Changed(|d| set(d, "drive.left.keyframes[1]", json!([1.0, 2.0]))),
            "drive.left.keyframes[1]",
        ),
        c(
            "empty keyframe list",
            Changed(|d| set(d, "drive.left.keyframes", json!([]))),
            "drive.left.keyframes",
        ),
        c(
            "path with two shapes",
            Changed(|d| {
                set(
                    d,
                    "drive.left.sine",
                    json!({"center": [-0.4, 1.5], "amplitude": [0.1, 0.0], "frequency": 1.0}),
                )
            }),
            "drive.left",
        ),
        c(
            "sine of zero frequency",
            Changed(|d| {
                set(
                    d,
                    "drive.left",
                    json!({"type": "path", "sine": {"center": [-0.4, 1.5], "amplitude": [0.1, 0.0], "frequency": 0.0}}),
                )
            }),
            "drive.left.sine.frequency",
        ),
        c(
            "unknown drive type",
            Changed(|d| set(d, "drive.left.type", json!("teleport"))),
            "drive.left",
        ),
        c(
            "force with value and keyframes",
            Changed(|d| set(d, "drive.right.keyframes", json!([[0.0, 0.0, 0.4]]))),
            "drive.right",
        ),
        c(
            "tracking with negative stiffness",
            Changed(|d| {
                set(
                    d,
                    "drive.left.tracking",
                    json!({"stiffness": -1.0, "damping": 1.0, "max_force": 5.0}),
                )
            }),
            "drive.left.tracking.stiffness",
        ),
        c(
            "path stick placed off its path",
            Changed(|d| set(d, "initial.left", json!({"pos": [0.0, 0.0]}))),
            "initial.left.pos",
        ),
        c(
            "force-driven stick without a start",
            Changed(|d| remove(d, "initial", "right")),
            "initial.right",
        ),
        c(
            "zero duration",
            Changed(|d| set(d, "sim.duration", json!(0.0))),
            "sim.duration",
        ),
        c(
            "negative output interval",
            Changed(|d| set(d, "sim.output_interval", json!(-0.01))),
            "sim.output_interval",
        ),
        c(
            "rk4 without a step",
            Changed(|d| set(d, "sim.method", json!("rk4"))),
            "sim.step",
        ),
        c(
            "zero tolerance",
            Changed(|d| set(d, "sim.rtol", json!(0.0))),
            "sim.rtol",
        ),
        c(
            "unknown method",
            Changed(|d| set(d, "sim.method", json!("euler"))),
            "sim.method",
        ),
        c(
            "override of a missing list entry",
            Args(&["--set", "initial.diabolos[3].spin=1"]),
            "initial.diabolos[3].spin",
        ),
        c(
            "override without a value",
            Args(&["--set", "params.friction"]),
            "params.friction",
        ),
        c(
            "non-finite override",
            Args(&["--set", "params.friction=NaN"]),
            "params.friction",
        ),
        // Physically meaningless ranges (issue 12): refused at validation with their path.
        c(
            "friction whose capstan ratio overflows",
            Changed(|d| set(d, "params.friction", json!(999.0))),
            "params.friction",
        ),
        c(
            "spin drag of 1.7e308",
            Changed(|d| set(d, "params.spin_drag", json!(1.7e308))),
            "params.spin_drag",
        ),
        c(
            "diabolo of 1e9 kg",
            Changed(|d| set(d, "params.diabolo_mass", json!(1e9))),
            "params.diabolo_mass",
        ),
        c(
            "tanh law of width 1e-300",
            Changed(|d| {
                set(d, "params.friction_law", json!("tanh"));
                set(d, "params.friction_width", json!(1e-300));
            }),
            "params.friction_width",
        ),
        c(
            "tracking stiffness 1e12",
            Changed(|d| {
                set(
                    d,
                    "drive.left.tracking",
                    json!({"stiffness": 1e12, "damping": 1.0, "max_force": 5.0}),
                )
            }),
            "drive.left.tracking.stiffness",
        ),
        c(
            "diabolo thrown at 1e6 m/s",
            Changed(|d| set(d, "initial.diabolos[0].vel", json!([1e6, 1e6]))),
            "initial.diabolos[0].vel[0]",
        ),
        c(
            "knot of a million turns",
            Changed(|d| set(d, "initial.diabolos[0].knot", json!(1000000))),
            "initial.diabolos[0].knot",
        ),
        c(
            "spin of 1e300",
            Changed(|d| set(d, "initial.diabolos[0].spin", json!(1e300))),
            "initial.diabolos[0].spin",
        ),
        c(
            "keyframe y of -1e308 names the keyframe",
            Changed(|d| set(d, "drive.left.keyframes[0]", json!([0.0, -0.4, -1e308]))),
            "drive.left.keyframes[0][2]",
        ),
        c(
            "keyframe time of 1.7e308",
            Changed(|d| set(d, "drive.left.keyframes[1]", json!([1.7e308, -0.45, 1.6]))),
            "drive.left.keyframes[1][0]",
        ),
        c(
            "force of 1e300 N",
            Changed(|d| set(d, "drive.right.value", json!([0.0, 1e300]))),
            "drive.right.value[1]",
        ),
        c(
            "sine frequency of 1e9 Hz",
            Changed(|d| {
                set(
                    d,
                    "drive.left",
                    json!({"type": "path", "sine": {"center": [-0.4, 1.5], "amplitude": [0.1, 0.0], "frequency": 1e9}}),
                )
            }),
            "drive.left.sine.frequency",
        ),
        c(
            "sine phase of 1e300",
            Changed(|d| {
                set(
                    d,
                    "drive.left",
                    json!({"type": "path", "sine": {"center": [-0.4, 1.5], "amplitude": [0.1, 0.0], "frequency": 1.0, "phase": [1e300, 0.0]}}),
                )
            }),
            "drive.left.sine.phase[0]",
        ),
        c(
            "csv smoothing of 1e9 s",
            Changed(|d| {
                set(
                    d,
                    "drive.left",
                    json!({"type": "path", "csv": "hand.csv", "smoothing": 1e9}),
                )
            }),
            "drive.left.smoothing",
        ),
        c(
            "rk4 step of 1e-300 s",
            Changed(|d| {
                set(d, "sim.method", json!("rk4"));
                set(d, "sim.step", json!(1e-300));
            }),
            "sim.step",
        ),
        c(
            "10^12 forced rk4 steps",
            Changed(|d| {
                set(d, "sim.method", json!("rk4"));
                set(d, "sim.step", json!(1e-7));
                set(d, "sim.duration", json!(1e5));
                set(d, "sim.output_interval", json!(1.0));
            }),
            "sim.step",
        ),
        c(
            "10^14 forced adaptive steps",
            Changed(|d| {
                set(d, "sim.max_step", json!(1e-9));
                set(d, "sim.duration", json!(1e5));
                set(d, "sim.output_interval", json!(1.0));
            }),
            "sim.max_step",
        ),
        c(
            "meeting distance of 1 km",
            Changed(|d| set(d, "sim.meeting_distance", json!(1000.0))),
            "sim.meeting_distance",
        ),
        c(
            "zeno bounces 0",
            Changed(|d| set(d, "sim.zeno_bounces", json!(0))),
            "sim.zeno_bounces",
        ),
        // Limits against runaway output.
        c(
            "10^12 rows",
            Changed(|d| {
                set(d, "sim.duration", json!(1e6));
                set(d, "sim.output_interval", json!(1e-6));
            }),
            "--max-duration",
        ),
        c(
            "rows beyond --max-rows",
            Changed(|d| {
                set(d, "sim.duration", json!(1e4));
                set(d, "sim.output_interval", json!(1e-6));
            }),
            "--max-rows",
        ),
        c(
            "output interval 5e-324",
            Changed(|d| set(d, "sim.output_interval", json!(5e-324))),
            "sim.output_interval",
        ),
        c(
            "duration 1.7e308",
            Changed(|d| set(d, "sim.duration", json!(1.7e308))),
            "--max-duration",
        ),
        c(
            "rows beyond a lowered --max-rows",
            Args(&["--max-rows", "10"]),
            "--max-rows",
        ),
        c(
            "duration beyond a lowered --max-duration",
            Args(&["--max-duration", "0.1"]),
            "--max-duration",
        ),
        // The contract's gaps (issue 12).
        c(
            "released drive with an unknown field",
            Changed(|d| set(d, "drive.right", json!({"type": "released", "bogus": [1]}))),
            "drive.right.bogus",
        ),
        c(
            "repeated key",
            Text(
                r#"{"params": {"string_length": 1.46, "friction": 0.1, "friction": 0.2}, "initial": {"diabolos": [{"x": 0}]}, "sim": {"duration": 1}}"#,
            ),
            "params.friction: the key appears twice",
        ),
        c(
            "repeated key in a list entry",
            Text(
                r#"{"params": {"string_length": 1.46}, "initial": {"diabolos": [{"x": 0, "x": 0.1}]}, "sim": {"duration": 1}}"#,
            ),
            "initial.diabolos[0].x: the key appears twice",
        ),
        c(
            "scenario that is a list",
            Text("[]"),
            "must be a JSON object",
        ),
        c(
            "csv set beside keyframes",
            Args(&["--set", "drive.left.csv=/etc/passwd"]),
            "got keyframes and csv",
        ),
        Case {
            what: "CSV path file missing",
            input: Changed(|d| {
                set(
                    d,
                    "drive.left",
                    json!({"type": "path", "csv": "missing.csv"}),
                )
            }),
            field: "drive.left.csv",
            files: &[],
        },
        Case {
            what: "CSV path file empty",
            input: Changed(|d| set(d, "drive.left", json!({"type": "path", "csv": "hand.csv"}))),
            field: "drive.left.csv",
            files: &[("hand.csv", "")],
        },
        Case {
            what: "CSV path file unsorted",
            input: Changed(|d| set(d, "drive.left", json!({"type": "path", "csv": "hand.csv"}))),
            field: "drive.left.csv",
            files: &[(
                "hand.csv",
                "t,x,y\n0,-0.4,1.5\n0.02,-0.4,1.5\n0.01,-0.4,1.5\n0.03,-0.4,1.5\n0.04,-0.4,1.5\n",
            )],
        },
        Case {
            what: "CSV path file not numeric",
            input: Changed(|d| set(d, "drive.left", json!({"type": "path", "csv": "hand.csv"}))),
            field: "drive.left.csv",
            files: &[("hand.csv", "t,x,y\n0,-0.4,1.5\n0.01,left,1.5\n")],
        },
        Case {
            what: "CSV path file too short",
            input: Changed(|d| set(d, "drive.left", json!({"type": "path", "csv": "hand.csv"}))),
            field: "drive.left.csv",
            files: &[("hand.csv", "0,-0.4,1.5\n0.01,-0.4,1.5\n")],
        },
        c(
            "string stiffness below its range",
            Changed(|d| set(d, "params.string_stiffness", json!(0.5))),
            "params.string_stiffness",
        ),
        c(
            "string stiffness not a number",
            Changed(|d| set(d, "params.string_stiffness", json!("stiff"))),
            "string_stiffness",
        ),
        c(
            "negative string damping",
            Changed(|d| {
                set(d, "params.string_stiffness", json!(200.0));
                set(d, "params.string_damping", json!(-0.1));
            }),
            "params.string_damping",
        ),
        c(
            "string damping without a stiffness",
            Changed(|d| set(d, "params.string_damping", json!(0.3))),
            "params.string_damping",
        ),
        c(
            "restitution with a compliant string (the stretch sets the bounce)",
            Changed(|d| {
                set(d, "params.string_stiffness", json!(200.0));
                set(d, "params.restitution", json!(0.5));
            }),
            "params.restitution",
        ),
        c(
            "contact restitution above 1",
            Changed(|d| set(d, "params.contact_restitution", json!(1.5))),
            "params.contact_restitution",
        ),
        c(
            "contact restitution below 0",
            Changed(|d| set(d, "params.contact_restitution", json!(-0.2))),
            "params.contact_restitution",
        ),
        c(
            "diabolo radius not positive",
            Changed(|d| set(d, "params.diabolo_radius", json!(0.0))),
            "params.diabolo_radius",
        ),
        c(
            "two diabolos whose discs overlap at the start",
            Changed(|d| {
                set(
                    d,
                    "initial.diabolos",
                    json!([{"x": 0.0, "spin": 0.5}, {"x": 0.1, "spin": 0.5}]),
                )
            }),
            "diabolos 1 and 2 start",
        ),
        c(
            "a floor above a diabolo's start",
            Changed(|d| set(d, "sim.floor", json!(1.0))),
            "sim.floor",
        ),
        c(
            "a flying start below a chord, thrown up into the string",
            Changed(|d| {
                set(
                    d,
                    "initial.diabolos",
                    json!([{"mode": "flying", "pos": [0.0, 1.0], "vel": [0.0, 4.0]}]),
                )
            }),
            "initial.diabolos[0].pos",
        ),
        c(
            "a flying diabolo placed by x",
            Changed(|d| set(d, "initial.diabolos[0].mode", json!("flying"))),
            "initial.diabolos[0].x",
        ),
        c(
            "an unknown start mode",
            Changed(|d| set(d, "initial.diabolos[0].mode", json!("dropped"))),
            "initial.diabolos[0].mode",
        ),
    ]
}

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("diabolo-bad-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run_case(case: &Case, index: usize) -> Result<(), String> {
    let input = fresh_dir(&format!("{index}-in"));
    let output = fresh_dir(&format!("{index}-out"));
    for (name, content) in case.files {
        std::fs::write(input.join(name), content).unwrap();
    }
    let mut doc = base();
    let mut extra: Vec<&str> = Vec::new();
    let text = match &case.input {
        Input::Changed(change) => {
            change(&mut doc);
            doc.to_string()
        }
        Input::Text(text) => text.to_string(),
        Input::Args(args) => {
            extra.extend(args.iter());
            doc.to_string()
        }
    };
    let scenario = input.join("scenario.json");
    std::fs::write(&scenario, text).unwrap();
    let out = |name: &str| output.join(name).display().to_string();
    let result = Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .arg("run")
        .arg(&scenario)
        .args([
            "-o",
            &out("traj.csv"),
            "--events",
            &out("events.jsonl"),
            "--summary",
            &out("summary.json"),
        ])
        .args(&extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&result.stderr).to_string();
    let left: Vec<_> = std::fs::read_dir(&output)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let _ = std::fs::remove_dir_all(&input);
    let _ = std::fs::remove_dir_all(&output);
    if result.status.code() != Some(2) {
        return Err(format!(
            "{}: exit {:?}, stderr {stderr}",
            case.what,
            result.status.code()
        ));
    }
    if !stderr.contains(case.field) {
        return Err(format!(
            "{}: message does not name {}: {stderr}",
            case.what, case.field
        ));
    }
    if !left.is_empty() {
        return Err(format!("{}: files were written: {left:?}", case.what));
    }
    if !result.stdout.is_empty() {
        return Err(format!("{}: something went to stdout", case.what));
    }
    Ok(())
}

#[test]
fn the_base_scenario_is_valid() {
    let dir = fresh_dir("base");
    let scenario = dir.join("scenario.json");
    std::fs::write(&scenario, base().to_string()).unwrap();
    let result = Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .arg("validate")
        .arg(&scenario)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        result.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
}

#[test]
fn every_bad_input_exits_2_names_its_field_and_writes_nothing() {
    let cases = cases();
    assert!(cases.len() >= 25);
    let failures: Vec<String> = cases
        .iter()
        .enumerate()
        .filter_map(|(i, c)| run_case(c, i).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn an_output_folder_that_does_not_exist_is_an_input_error() {
    let dir = fresh_dir("nofolder");
    let scenario = dir.join("scenario.json");
    std::fs::write(&scenario, base().to_string()).unwrap();
    let target = Path::new("/nonexistent-diabolo-folder/traj.csv");
    let result = Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .arg("run")
        .arg(&scenario)
        .arg("-o")
        .arg(target)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(result.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&result.stderr).contains("/nonexistent-diabolo-folder/traj.csv")
    );
}

/// The forced-step budget is computing time, not a count of steps: `sim.max_step` 1e-5 over
/// 3000 s forces 3e8 steps, about 20 minutes of dopri5 (4 us a step, one diabolo) but about 55
/// of rodas (11 us): allowed for the one, refused for the other, naming the method; a fixed
/// rk4 step over as many steps is allowed too (3 us).
#[test]
fn forced_steps_are_budgeted_by_the_cost_of_the_method_s_steps() {
    let dir = fresh_dir("forced-budget");
    let scenario = dir.join("scenario.json");
    std::fs::write(&scenario, base().to_string()).unwrap();
    let validate = |method: &str, step_field: &str| {
        Command::new(env!("CARGO_BIN_EXE_diabolo"))
            .arg("validate")
            .arg(&scenario)
            .args(["--set", &format!("sim.method=\"{method}\"")])
            .args(["--set", &format!("sim.{step_field}=1e-5")])
            .args([
                "--set",
                "sim.duration=3000",
                "--set",
                "sim.output_interval=1",
            ])
            .output()
            .unwrap()
    };
    for (method, field) in [("dopri5", "max_step"), ("rk4", "step")] {
        let out = validate(method, field);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{method}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = validate("rodas", "max_step");
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(
        message.contains("sim.max_step") && message.contains("method rodas"),
        "{message}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

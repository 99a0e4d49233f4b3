//! The input contract beyond one mistake per field (issue 12): repeated JSON keys refused at
//! every level and in `replay --params` files, messages in the user's words (no Rust type name,
//! no number of 330 digits, no value echoed whole), the accepted ranges stated by the schema and
//! admitting every shipped scenario and parameter file, and the row and duration limits with
//! their flags on run, validate and sweep.

use crate::common;
use common::command::diabolo;

use std::path::{Path, PathBuf};
use std::process::Output;

use diabolo::scenario::{Limits, ParamsSpec, Scenario};
use serde_json::{json, Value};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

fn project(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn scenario(name: &str) -> String {
    project("scenarios").join(name).display().to_string()
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("diabolo-contract-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Validates scenario `text` (written to a file): the exit code and the message.
fn validate_text(name: &str, text: &str, extra: &[&str]) -> (Option<i32>, String) {
    let d = dir(name);
    let file = d.join("scenario.json");
    std::fs::write(&file, text).unwrap();
    let out = diabolo(&[&["validate", file.to_str().unwrap()], extra].concat());
    let _ = std::fs::remove_dir_all(&d);
    (out.status.code(), stderr(&out))
}

/// Sets the field at a dotted path (with [i] list entries) of a JSON document.
fn set(doc: &mut Value, path: &str, value: Value) {
    let mut here = doc;
    for part in path.split('.') {
        here = match part.split_once('[') {
            Some((name, index)) => {
                &mut here[name][index.trim_end_matches(']').parse::<usize>().unwrap()]
            }
            None => &mut here[part],
        };
    }
    *here = value;
}

fn hanging() -> Value {
    serde_json::from_str(&std::fs::read_to_string(scenario("hanging.json")).unwrap()).unwrap()
}

#[test]
fn the_released_drive_of_the_issue_with_unknown_fields_is_refused() {
    let mut doc = hanging();
    doc["drive"]["right"] = json!({"type": "released", "frequency": 5, "bogus": [1]});
    let (code, message) = validate_text("released", &doc.to_string(), &[]);
    assert_eq!(code, Some(2), "{message}");
    assert!(
        message.contains("drive.right.") && message.contains("unknown field"),
        "{message}"
    );
    // A released drive with only its type stays valid.
    doc["drive"]["right"] = json!({"type": "released"});
    doc["initial"]["right"] = json!({"pos": [0.4, 1.5]});
    let (code, message) = validate_text("released-ok", &doc.to_string(), &[]);
    assert_eq!(code, Some(0), "{message}");
}

#[test]
fn repeated_keys_are_refused_with_their_path_and_line_at_every_level() {
    let base = r#"{"params": {"string_length": 1.46},
 "initial": {"diabolos": [{"x": 0}]},
 "drive": {"left": {"type": "path", "keyframes": [[0, -0.4, 1.5]]},
           "right": {"type": "path", "keyframes": [[0, 0.4, 1.5]]}},
 "sim": {"duration": 1}}"#;
    let (code, message) = validate_text("dup-ok", base, &[]);
    assert_eq!(code, Some(0), "{message}");
    for (text, path) in [
        (
            base.replace("{\"duration\": 1}", "{\"duration\": 1, \"duration\": 2}"),
            "sim.duration",
        ),
        (base.replace("\"sim\"", "\"params\": {}, \"sim\""), "params"),
        (
            base.replace(
                "\"type\": \"path\", \"keyframes\": [[0, 0.4",
                "\"type\": \"path\", \"type\": \"path\", \"keyframes\": [[0, 0.4",
            ),
            "drive.right.type",
        ),
        (
            base.replace("{\"x\": 0}", "{\"x\": 0, \"spin\": 1, \"x\": 0}"),
            "initial.diabolos[0].x",
        ),
    ] {
        let (code, message) = validate_text("dup", &text, &[]);
        assert_eq!(code, Some(2), "{message}");
        assert!(
            message.contains(&format!("{path}: the key appears twice")),
            "{message}"
        );
        assert!(message.contains("line "), "{message}");
    }
}

#[test]
fn repeated_keys_in_a_replay_params_file_are_refused() {
    let d = dir("replay-dup");
    // A still recording of 200 frames at 120 Hz: the parameter file is read before any start.
    let recording = d.join("still.csv");
    let mut text = String::from("t,left_x,left_y,right_x,right_y,dia_x,dia_y,spin\n");
    for i in 0..200 {
        text.push_str(&format!(
            "{},-0.4,1.5,0.4,1.5,0,1,0\n",
            f64::from(i) / 120.0
        ));
    }
    std::fs::write(&recording, text).unwrap();
    let params = d.join("params.json");
    for (content, expected) in [
        (
            r#"{"params": {"friction": 0.25, "friction": 0.3, "spin_inertia": 50}}"#,
            "params.friction: the key appears twice",
        ),
        (
            r#"{"params": 3}"#,
            "params: invalid type: integer `3`, expected an object",
        ),
        (r#"{"params": [0.2, 0.04]}"#, "params: invalid type: a list"),
        (r#"{"params": {"friction": 999}}"#, "params.friction"),
    ] {
        std::fs::write(&params, content).unwrap();
        let out = diabolo(&[
            "replay",
            recording.to_str().unwrap(),
            "--params",
            params.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2), "{content}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(expected),
            "{content}: {}",
            stderr(&out)
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn messages_name_no_rust_type() {
    let cases: [(&str, Value); 11] = [
        ("params", json!(3)),
        // A list where an object goes was read as the fields in order.
        ("params", json!([1.46, 0.2])),
        ("sim", json!([2])),
        ("initial.diabolos[0]", json!([0.0, 1.0])),
        ("params.friction", json!("high")),
        ("params.friction", json!(null)),
        ("sim.zeno_bounces", json!(-1)),
        ("sim.zeno_bounces", json!(2.5)),
        ("initial.diabolos[0].knot", json!(1e10)),
        ("params.friction_law", json!(3)),
        ("sim.method", json!(3)),
    ];
    for (path, value) in cases {
        let mut doc = hanging();
        set(&mut doc, path, value.clone());
        let (code, message) = validate_text("rust-types", &doc.to_string(), &[]);
        assert_eq!(code, Some(2), "{path} = {value}: {message}");
        assert!(message.contains(path), "{path} = {value}: {message}");
        for rust in [
            "struct",
            "f64",
            "usize",
            "u64",
            "i32",
            "identifier",
            "Spec",
            "tagged",
            "sequence",
        ] {
            assert!(!message.contains(rust), "{path} = {value}: {message}");
        }
    }
}

#[test]
fn a_scenario_that_is_not_an_object_says_so() {
    for text in ["[]", "3", "\"scenario\"", "null"] {
        let (code, message) = validate_text("not-object", text, &[]);
        assert_eq!(code, Some(2), "{text}: {message}");
        assert!(
            message.contains("the scenario must be a JSON object"),
            "{text}: {message}"
        );
        assert!(!message.contains("elements"), "{message}");
    }
}

#[test]
fn a_million_character_value_is_not_echoed_whole() {
    let long = "x".repeat(1_000_000);
    for (path, value) in [
        ("params.friction", json!(long)),
        ("params.friction_law", json!(long)),
        ("drive.left.type", json!(long)),
    ] {
        let mut doc = hanging();
        set(&mut doc, path, value);
        let (code, message) = validate_text("long", &doc.to_string(), &[]);
        assert_eq!(code, Some(2), "{path}");
        assert!(message.len() < 1000, "{path}: {} bytes", message.len());
        assert!(message.contains(path), "{message}");
    }
    // A million-character key too.
    let mut doc = hanging();
    doc["params"][long.as_str()] = json!(1);
    let (code, message) = validate_text("long-key", &doc.to_string(), &[]);
    assert_eq!(code, Some(2));
    assert!(message.len() < 1000, "{} bytes", message.len());
}

#[test]
fn numbers_in_messages_are_compact() {
    // A keyframe time of 5e-324 before one at 0: the times do not increase.
    let mut doc = hanging();
    doc["drive"]["left"]["keyframes"] = json!([[5e-324, -0.4, 1.5], [0.0, -0.4, 1.5]]);
    let (code, message) = validate_text("tiny", &doc.to_string(), &[]);
    assert_eq!(code, Some(2), "{message}");
    assert!(message.contains("5e-324"), "{message}");
    assert!(message.len() < 300, "{message}");
    doc["drive"]["left"]["keyframes"] = json!([[1.7e308, -0.4, 1.5]]);
    let (code, message) = validate_text("huge", &doc.to_string(), &[]);
    assert_eq!(code, Some(2), "{message}");
    assert!(message.contains("1.7e308"), "{message}");
    assert!(!message.contains("00000000000"), "{message}");
}

#[test]
fn a_csv_set_beside_keyframes_names_both() {
    let out = diabolo(&[
        "validate",
        &scenario("hanging.json"),
        "--set",
        "drive.left.csv=/etc/passwd",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let message = stderr(&out);
    assert!(
        message.contains("drive.left") && message.contains("got keyframes and csv"),
        "{message}"
    );
}

#[test]
fn the_stalling_reproducer_of_the_issue_is_refused_at_validation() {
    let text = r#"{"params":{"string_length":1.46,"diabolo_mass":1e9},"initial":{"diabolos":[{"x":0}]},"drive":{"left":{"type":"path","keyframes":[[0,-0.4,1.5]]},"right":{"type":"path","keyframes":[[0,0.4,1.5]]}},"sim":{"duration":2,"output_interval":0.01}}"#;
    let (code, message) = validate_text("stall", text, &[]);
    assert_eq!(code, Some(2), "{message}");
    assert!(message.contains("params.diabolo_mass"), "{message}");
    let out = diabolo(&[
        "validate",
        &scenario("elevator.json"),
        "--set",
        "initial.diabolos[0].vel=[1e6, 1e6]",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn range_errors_give_the_path_the_value_the_range_and_the_reason() {
    let out = diabolo(&[
        "validate",
        &scenario("hanging.json"),
        "--set",
        "params.friction=999",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let message = stderr(&out);
    for part in ["params.friction", "999", "from 0 to 5", "exp(c theta)"] {
        assert!(message.contains(part), "{part}: {message}");
    }
}

#[test]
fn many_knots_with_high_friction_are_refused_together() {
    // Each knot is in range and so is the friction, but together exp(c theta) would overflow.
    let out = diabolo(&[
        "validate",
        &scenario("two_diabolos.json"),
        "--set",
        "params.friction=5",
        "--set",
        "initial.diabolos[0].knot=5",
        "--set",
        "initial.diabolos[1].knot=5",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("params.friction"), "{}", stderr(&out));
}

#[test]
fn the_ranges_admit_every_shipped_scenario_and_parameter_file() {
    for entry in std::fs::read_dir(project("scenarios")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(&path).unwrap();
            let built = Scenario::parse(&text, &[]).and_then(|s| {
                s.build_any(&project("scenarios"), &diabolo::scenario::Limits::default())
            });
            assert!(built.is_ok(), "{}: {:?}", path.display(), built.err());
        }
    }
    for file in [
        "validation/omron_fitted.json",
        "validation/reference_params.json",
    ] {
        let document: Value =
            serde_json::from_str(&std::fs::read_to_string(project(file)).unwrap()).unwrap();
        let mut params = document["params"].clone();
        params["string_length"] = json!(1.46);
        let checked = ParamsSpec::from_value(&params).and_then(|p| p.to_params());
        assert!(checked.is_ok(), "{file}: {:?}", checked.err());
    }
}

#[test]
fn the_schema_states_the_ranges_the_program_checks() {
    let schema = Scenario::schema().to_string();
    let schema: Value = serde_json::from_str(&schema).unwrap();
    let params = &schema["$defs"]["ParamsSpec"]["properties"];
    for (field, range) in [
        ("friction", diabolo::model::ranges::FRICTION),
        ("spin_drag", diabolo::model::ranges::SPIN_DRAG),
        ("diabolo_mass", diabolo::model::ranges::DIABOLO_MASS),
        ("friction_width", diabolo::model::ranges::FRICTION_WIDTH),
    ] {
        assert_eq!(params[field]["minimum"], json!(range.min), "{field}");
        assert_eq!(params[field]["maximum"], json!(range.max), "{field}");
    }
    let sim = &schema["$defs"]["SimSpec"]["properties"];
    assert_eq!(
        sim["output_interval"]["minimum"],
        json!(diabolo::scenario::ranges::OUTPUT_INTERVAL.min)
    );
}

#[test]
fn the_row_and_duration_limits_are_flags_of_run_validate_and_sweep() {
    let hanging = scenario("hanging.json");
    // hanging.json: 2 s every 0.01 s, 201 rows.
    for command in ["validate", "run", "sweep"] {
        let d = dir(&format!("limits-{command}"));
        let target = d.join("out.csv");
        let mut args = vec![command, hanging.as_str()];
        if command != "validate" {
            args.extend(["-o", target.to_str().unwrap()]);
        }
        if command == "sweep" {
            args.extend(["--list", "params.friction=0.1,0.2"]);
        }
        let refused = diabolo(&[&args[..], &["--max-rows", "200"]].concat());
        assert_eq!(
            refused.status.code(),
            Some(2),
            "{command}: {}",
            stderr(&refused)
        );
        assert!(
            stderr(&refused).contains("--max-rows"),
            "{}",
            stderr(&refused)
        );
        assert!(
            std::fs::read_dir(&d).unwrap().next().is_none(),
            "{command} wrote a file"
        );
        let refused = diabolo(&[&args[..], &["--max-duration", "1"]].concat());
        assert_eq!(
            refused.status.code(),
            Some(2),
            "{command}: {}",
            stderr(&refused)
        );
        assert!(
            stderr(&refused).contains("--max-duration"),
            "{}",
            stderr(&refused)
        );
        let accepted =
            diabolo(&[&args[..], &["--max-rows", "201", "--max-duration", "2"]].concat());
        assert_eq!(
            accepted.status.code(),
            Some(0),
            "{command}: {}",
            stderr(&accepted)
        );
        let _ = std::fs::remove_dir_all(&d);
    }
    // Raised limits admit a run the defaults refuse.
    let sets = [
        "--set",
        "sim.duration=1e4",
        "--set",
        "sim.output_interval=1e-3",
    ];
    let refused = diabolo(&[&["validate", hanging.as_str()], &sets[..]].concat());
    assert_eq!(refused.status.code(), Some(2));
    let raised = diabolo(
        &[
            &["validate", hanging.as_str(), "--max-rows", "20000000"],
            &sets[..],
        ]
        .concat(),
    );
    assert_eq!(raised.status.code(), Some(0), "{}", stderr(&raised));
    let bad = diabolo(&["validate", hanging.as_str(), "--max-duration=-1"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("--max-duration"), "{}", stderr(&bad));
}

#[test]
fn row_counts_never_overflow_and_library_builds_keep_the_default_limits() {
    let text = std::fs::read_to_string(scenario("hanging.json")).unwrap();
    let sets = |d: &str, i: &str| {
        vec![
            ("sim.duration".to_string(), d.to_string()),
            ("sim.output_interval".to_string(), i.to_string()),
        ]
    };
    let base = project("scenarios");
    for (duration, interval) in [("1e5", "1e-9"), ("1e5", "5e-324"), ("1.7e308", "1e-9")] {
        let built = Scenario::parse(&text, &sets(duration, interval)).and_then(|s| s.build(&base));
        assert!(built.is_err(), "{duration} / {interval}");
    }
    let scenario = Scenario::parse(&text, &sets("1e5", "1e-3")).unwrap();
    assert!(
        scenario.build(&base).is_err(),
        "10^8 rows under the default limits"
    );
    let raised = Limits {
        max_rows: 200_000_000,
        ..Limits::default()
    };
    assert!(scenario.build_within(&base, &raised).is_ok());
}

/// Numbers are read exactly (serde_json's `float_roundtrip`): 1.3333333333333335 read without
/// it was 1.3333333333333337, one ulp off. The run's end time, written shortest round-trip,
/// shows the duration digit for digit, from a scenario file and from `--set`.
#[test]
fn a_scenario_s_numbers_are_read_exactly_to_the_last_bit() {
    for duration in [
        "1.3333333333333335",
        "0.30000000000000004",
        "0.7000000000000001",
    ] {
        let d = dir(&format!("exact-{duration}"));
        let mut doc = hanging();
        set(&mut doc, "sim.output_interval", json!(0.1));
        set(&mut doc, "sim.duration", json!(1.0));
        // The duration as written in the file, digit for digit.
        let text = doc
            .to_string()
            .replace("\"duration\":1.0", &format!("\"duration\":{duration}"));
        assert!(text.contains(duration));
        let file = d.join("scenario.json");
        std::fs::write(&file, text).unwrap();
        let (csv, summary) = (d.join("t.csv"), d.join("summary.json"));
        let set_duration = format!("sim.duration={duration}");
        for extra in [&[][..], &["--set", &set_duration][..]] {
            let run = [
                "run",
                file.to_str().unwrap(),
                "-o",
                csv.to_str().unwrap(),
                "--summary",
                summary.to_str().unwrap(),
                "--quiet",
            ];
            let out = diabolo(&[&run[..], extra].concat());
            assert!(out.status.success(), "{duration}: {}", stderr(&out));
            let summary = std::fs::read_to_string(&summary).unwrap().replace(' ', "");
            let end_time = format!("\"end_time\":{duration}");
            let after = summary
                .find(&end_time)
                .map(|at| &summary[at + end_time.len()..]);
            assert!(
                after.is_some_and(|rest| rest.starts_with([',', '}'])),
                "{duration} {extra:?}: {summary}"
            );
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}

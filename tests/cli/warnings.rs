//! Plausibility warnings, the common flags of run, validate and sweep (`--quiet`, `--strict`,
//! `--set`, `--max-rows`, `--max-duration`), the messages for files that are not scenarios, and
//! the picture formats each command suggests: exit codes, messages, and outputs unchanged.

use crate::common;
use common::command::diabolo_fed as diabolo;

use std::path::{Path, PathBuf};
use std::process::Output;

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).to_string()
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("diabolo-warn-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

const SWING: &str = "scenarios/swing.json";
const SPIN_IN_RAD_PER_S: &str = "initial.diabolos[0].spin=100";
const SHORT: &str = "sim.duration=0.2";

#[test]
fn a_spin_in_rad_per_s_warns_on_validate_and_run_with_exit_0() {
    for command in ["validate", "run"] {
        let out = diabolo(
            &[command, SWING, "--set", SPIN_IN_RAD_PER_S, "--set", SHORT],
            None,
        );
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "{command}: {err}");
        assert!(
            err.contains(
                "warning: initial.diabolos[0].spin = 100: outside the plausible range -3 to 3 m/s"
            ),
            "{command}: {err}"
        );
        assert!(
            err.contains("likely a unit mistake: 100 rad/s on a 6.5 mm axle is 0.65 m/s"),
            "{command}: {err}"
        );
    }
}

#[test]
fn a_string_length_in_cm_is_refused_with_the_unit_mistake_named() {
    let out = diabolo(
        &["validate", SWING, "--set", "params.string_length=146"],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("params.string_length"), "{err}");
    assert!(err.contains("146 cm is 1.46 m"), "{err}");
}

#[test]
fn implausible_masses_and_gravity_warn_with_their_likely_units() {
    let out = diabolo(
        &[
            "validate",
            SWING,
            "--set",
            "params.diabolo_mass=0.99",
            "--set",
            "params.stick_mass=40",
            "--set",
            "params.gravity=1.62",
        ],
        None,
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("params.diabolo_mass"), "{err}");
    assert!(
        err.contains("params.stick_mass = 40") && err.contains("40 g is 0.04 kg"),
        "{err}"
    );
    assert!(err.contains("params.gravity = 1.62"), "{err}");
    assert!(err.contains("another planet"), "{err}");
}

#[test]
fn warnings_do_not_change_the_outputs_and_quiet_silences_them() {
    let d = dir("outputs");
    let run = |name: &str, extra: &[&str]| {
        let csv = d.join(format!("{name}.csv"));
        let events = d.join(format!("{name}.jsonl"));
        let mut args = vec![
            "run",
            SWING,
            "--set",
            SHORT,
            "--set",
            "params.spin_drag=2",
            "-o",
            path(&csv),
            "--events",
            path(&events),
        ];
        args.extend_from_slice(extra);
        let out = diabolo(&args, None);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        (
            stderr(&out),
            std::fs::read(csv).unwrap(),
            std::fs::read(events).unwrap(),
        )
    };
    let (warned, csv, events) = run("warned", &[]);
    assert!(warned.contains("warning: params.spin_drag = 2"), "{warned}");
    let (quiet, quiet_csv, quiet_events) = run("quiet", &["-q"]);
    assert_eq!(quiet, "", "--quiet leaves standard error empty");
    assert_eq!((csv, events), (quiet_csv, quiet_events));
}

#[test]
fn strict_turns_a_warning_into_exit_2_with_nothing_written() {
    let d = dir("strict");
    let csv = d.join("t.csv");
    let summary = d.join("sweep.csv");
    for args in [
        vec!["validate", SWING, "--set", SPIN_IN_RAD_PER_S, "--strict"],
        vec![
            "run",
            SWING,
            "--set",
            SPIN_IN_RAD_PER_S,
            "--strict",
            "-o",
            path(&csv),
        ],
        vec![
            "sweep",
            SWING,
            "--list",
            "initial.diabolos[0].spin=0.65,100",
            "--strict",
            "-o",
            path(&summary),
        ],
    ] {
        let out = diabolo(&args, None);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{err}");
        assert!(err.contains("initial.diabolos[0].spin"), "{err}");
        assert!(err.contains("leave out --strict"), "{err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    assert!(
        std::fs::read_dir(&d).unwrap().next().is_none(),
        "nothing written"
    );
    // Without a warning, --strict changes nothing.
    let out = diabolo(&["validate", SWING, "--strict"], None);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_sweep_warns_once_per_path_not_per_point() {
    let out = diabolo(
        &[
            "sweep",
            SWING,
            "--grid",
            "initial.diabolos[0].spin=50:100:4",
            "--set",
            "sim.duration=0.05",
            "--set",
            "params.gravity=1.62",
        ],
        None,
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        err.matches("warning: initial.diabolos[0].spin").count(),
        1,
        "{err}"
    );
    assert_eq!(err.matches("warning: params.gravity").count(), 1, "{err}");
    assert!(err.contains("= 50:"), "the first point's value: {err}");
}

#[test]
fn run_validate_and_sweep_accept_the_common_flags() {
    let common: [&[&str]; 6] = [
        &["--quiet"],
        &["-q"],
        &["--strict"],
        &["--set", "params.friction=0.25"],
        &["--max-rows", "1000"],
        &["--max-duration", "10"],
    ];
    for command in [
        vec!["run", SWING, "--set", SHORT],
        vec!["validate", SWING],
        vec![
            "sweep",
            SWING,
            "--set",
            SHORT,
            "--list",
            "params.spin_drag=0.01",
        ],
    ] {
        for flag in common {
            let args = [command.as_slice(), flag].concat();
            let out = diabolo(&args, None);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        }
    }
}

#[test]
fn sweep_quiet_prints_nothing_on_standard_error() {
    let out = diabolo(
        &[
            "sweep",
            SWING,
            "--list",
            "params.friction=0.2,0.3",
            "--set",
            SHORT,
            "-q",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    assert!(!out.stdout.is_empty());
}

#[test]
fn an_empty_scenario_file_is_named_and_said_to_be_empty() {
    let d = dir("empty");
    let file = d.join("empty.json");
    std::fs::write(&file, "\n").unwrap();
    let out = diabolo(&["validate", path(&file)], None);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!(
            "error: {} is empty: a scenario is a JSON object",
            file.display()
        )),
        "{err}"
    );
    let out = diabolo(&["run", "-"], Some(""));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with("error: standard input is empty"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_yaml_scenario_file_is_named_and_told_scenarios_are_json() {
    let d = dir("yaml");
    let file = d.join("s.yaml");
    std::fs::write(&file, "params:\n  string_length: 1.46\n").unwrap();
    for (args, name) in [
        (vec!["validate", path(&file)], file.display().to_string()),
        (
            vec!["sweep", "-", "--list", "params.friction=0.2"],
            "standard input".into(),
        ),
    ] {
        let out = diabolo(&args, Some("params:\n  string_length: 1.46\n"));
        assert_eq!(out.status.code(), Some(2));
        let err = stderr(&out);
        assert!(
            err.starts_with(&format!("error: {name}: not JSON (line 1, column 1): expected value; scenarios are JSON (a YAML file?")),
            "{err}"
        );
    }
}

#[test]
fn a_broken_json_scenario_names_the_file_and_the_place() {
    let out = diabolo(&["validate", "-"], Some("{\"params\": {"));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "error: standard input: not JSON (line 1, column 12): EOF while parsing an object; fix the JSON there (`diabolo schema` gives the scenario format)\n"
    );
}

#[test]
fn each_picture_command_suggests_the_formats_it_writes() {
    let d = dir("formats");
    let csv = d.join("t.csv");
    let out = diabolo(
        &["run", SWING, "--set", SHORT, "-q", "-o", path(&csv)],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for (command, file, formats) in [
        (
            "animate",
            "x.mp4",
            "`diabolo animate` writes SVG or GIF; name the file",
        ),
        (
            "animate",
            "x.png",
            "`diabolo animate` writes SVG or GIF; name the file",
        ),
        (
            "plot",
            "x.pdf",
            "`diabolo plot` writes SVG or PNG; name the file",
        ),
        (
            "plot",
            "x.gif",
            "`diabolo plot` writes SVG or PNG; name the file",
        ),
    ] {
        let target = d.join(file);
        let out = diabolo(&[command, path(&csv), "-o", path(&target)], None);
        assert_eq!(out.status.code(), Some(2), "{command} {file}");
        let err = stderr(&out);
        assert!(err.contains(formats), "{err}");
        let stem = d.join("x");
        let stem = stem.display();
        assert!(err.contains(&format!("{stem}.svg or {stem}.")), "{err}");
        assert!(!target.exists());
    }
}

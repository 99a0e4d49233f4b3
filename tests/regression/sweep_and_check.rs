//! `diabolo sweep` and `diabolo check` end to end: sweep rows in point order whatever the
//! thread count, shards that concatenate to the whole sweep byte for byte, a failing point that
//! records its error while the sweep goes on (exit 1), saved trajectories named by index,
//! reproducible random samples inside their ranges, refused ranges (exit 2); and `check`
//! passing identical trajectories, failing a moved one with the column and time named.

use crate::common;
use common::command::{diabolo, text};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scenario(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(name)
        .display()
        .to_string()
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("diabolo-sweep-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const AXES: [&str; 6] = [
    "--grid",
    "params.friction=0.05:0.25:5",
    "--list",
    "params.spin_inertia=20,50,80",
    "--set",
    "sim.duration=0.5",
];

fn rows(out: &Output) -> Vec<Vec<String>> {
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    reader
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect()
}

#[test]
fn sweep_rows_come_in_point_order_whatever_the_thread_count() {
    let swing = scenario("swing.json");
    let mut args = vec!["sweep", swing.as_str()];
    args.extend(AXES);
    let one = diabolo(&[&args[..], &["--jobs", "1"]].concat());
    let two = diabolo(&[&args[..], &["--jobs", "2"]].concat());
    assert_eq!(
        one.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&one.stderr)
    );
    assert_eq!(one.stdout, two.stdout);
    let table = rows(&one);
    assert_eq!(table.len(), 15);
    // The last axis varies fastest; grid values are start + i step, ending exactly at stop.
    assert_eq!(table[0][..3], ["0", "0.05", "20"]);
    assert_eq!(table[1][..3], ["1", "0.05", "50"]);
    assert_eq!(table[3][..3], ["3", "0.1", "20"]);
    assert_eq!(table[14][..3], ["14", "0.25", "80"]);
    assert!(table.iter().all(|r| r[3] == "ok"));
}

#[test]
fn shards_concatenate_to_the_whole_sweep_byte_for_byte() {
    let swing = scenario("swing.json");
    let mut args = vec!["sweep", swing.as_str()];
    args.extend(AXES);
    let whole = diabolo(&args).stdout;
    let mut joined = Vec::new();
    for k in 1..=4 {
        let shard = format!("{k}/4");
        let part = diabolo(&[&args[..], &["--shard", &shard]].concat()).stdout;
        let text = String::from_utf8(part).unwrap();
        let body = if k == 1 {
            text.as_str()
        } else {
            text.split_once('\n').unwrap().1
        };
        joined.extend_from_slice(body.as_bytes());
    }
    assert_eq!(
        String::from_utf8(joined).unwrap(),
        String::from_utf8(whole).unwrap()
    );
}

#[test]
fn a_failing_point_records_its_error_and_the_sweep_goes_on() {
    // A wall-clock budget of 1 ns ends the middle point at run time; the other points run on.
    let out = diabolo(&[
        "sweep",
        &scenario("swing.json"),
        "--list",
        "sim.max_wall=100,1e-9,100",
        "--set",
        "sim.duration=1",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let table = rows(&out);
    assert_eq!(table.len(), 3);
    assert_eq!(table[0][2], "ok");
    assert_eq!(table[1][2], "failed");
    assert!(table[1][3].contains("sim.max_wall"), "{:?}", table[1]);
    assert_eq!(table[2][2], "ok");
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 of 3 sweep points failed"));
}

#[test]
fn an_invalid_point_anywhere_is_refused_before_anything_runs() {
    // Point 0 invalid and a later point invalid get the same rule: exit 2, the point named
    // with its values and the error, nothing written.
    for (list, index, value) in [
        ("params.friction=a,0.1", "point 0", "params.friction=a"),
        ("params.friction=0.1,a", "point 1", "params.friction=a"),
        (
            "params.string_length=1.46,1.2,0.7",
            "point 2",
            "params.string_length=0.7",
        ),
        (
            "params.friction=0.1,0.2,999",
            "point 2",
            "params.friction=999",
        ),
    ] {
        let d = dir("invalid-point");
        let summary = d.join("s.csv");
        let save = d.join("traj");
        let out = diabolo(&[
            "sweep",
            &scenario("swing.json"),
            "--list",
            list,
            "--set",
            "sim.duration=0.2",
            "-o",
            summary.to_str().unwrap(),
            "--save-trajectories",
            save.to_str().unwrap(),
        ]);
        let message = String::from_utf8_lossy(&out.stderr).to_string();
        let left: Vec<_> = std::fs::read_dir(&d).unwrap().collect();
        let _ = std::fs::remove_dir_all(&d);
        assert_eq!(out.status.code(), Some(2), "{list}: {message}");
        assert!(
            message.contains(index) && message.contains(value),
            "{list}: {message}"
        );
        assert!(left.is_empty(), "{list}: files were written: {left:?}");
    }
}

#[test]
fn a_repeated_axis_key_is_refused() {
    for axes in [
        &[
            "--grid",
            "params.friction=0.1:0.2:2",
            "--grid",
            "params.friction=0.3:0.4:2",
        ][..],
        &[
            "--grid",
            "params.friction=0.1:0.2:2",
            "--list",
            "params.friction=0.3",
        ],
    ] {
        let out = diabolo(&[&["sweep", &scenario("hanging.json")], axes].concat());
        assert_eq!(out.status.code(), Some(2), "{axes:?}");
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(
            message.contains("params.friction") && message.contains("two axes"),
            "{message}"
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn grid_axes_with_values_that_are_not_finite_are_refused() {
    let out = diabolo(&[
        "sweep",
        &scenario("hanging.json"),
        "--grid",
        "params.friction=1e308:-1e308:3",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("--grid params.friction=1e308:-1e308:3") && message.contains("finite"),
        "{message}"
    );
    assert!(
        !message.contains("f64") && !message.contains("null"),
        "{message}"
    );
}

#[test]
fn more_jobs_than_points_or_cores_run_normally() {
    let start = std::time::Instant::now();
    let out = diabolo(&[
        "sweep",
        &scenario("hanging.json"),
        "--list",
        "params.friction=0.1,0.2,0.3",
        "--set",
        "sim.duration=0.1",
        "--jobs",
        "100000",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(rows(&out).len(), 3);
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    let zero = diabolo(&[
        "sweep",
        &scenario("hanging.json"),
        "--list",
        "params.friction=0.1",
        "--jobs",
        "0",
    ]);
    assert_eq!(zero.status.code(), Some(2));
}

#[test]
fn no_row_has_the_invalid_status() {
    let out = diabolo(&[
        "sweep",
        &scenario("hanging.json"),
        "--list",
        "params.friction=0.1,0.2",
        "--set",
        "sim.duration=0.1",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(rows(&out).iter().all(|r| r[2] != "invalid"));
}

#[test]
fn saved_trajectories_are_named_by_point_index() {
    let d = dir("save");
    let save = d.join("traj");
    let out = diabolo(&[
        "sweep",
        &scenario("hanging.json"),
        "--list",
        "params.friction=0.1,0.2",
        "--set",
        "sim.duration=0.1",
        "--save-trajectories",
        save.to_str().unwrap(),
        "-o",
        d.join("s.csv").to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names: Vec<String> = std::fs::read_dir(&save)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["point_000000.csv", "point_000001.csv"]);
    let traj = std::fs::read_to_string(save.join("point_000001.csv")).unwrap();
    assert!(traj.starts_with("t,phase,left_x"));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn random_samples_are_reproducible_and_inside_their_ranges() {
    let args = [
        "sweep",
        &scenario("hanging.json"),
        "--grid",
        "params.friction=0.1:0.3:2",
        "--list",
        "params.spin_inertia=20,50",
        "--samples",
        "12",
        "--seed",
        "42",
        "--set",
        "sim.duration=0.05",
    ];
    let a = diabolo(&args);
    let b = diabolo(&args);
    assert_eq!(a.status.code(), Some(0));
    assert_eq!(a.stdout, b.stdout);
    let table = rows(&a);
    assert_eq!(table.len(), 12);
    for r in &table {
        let c: f64 = r[1].parse().unwrap();
        assert!((0.1..0.3).contains(&c), "{r:?}");
        assert!(r[2] == "20" || r[2] == "50");
    }
    let other = diabolo(&[
        "sweep",
        &scenario("hanging.json"),
        "--grid",
        "params.friction=0.1:0.3:2",
        "--samples",
        "12",
        "--seed",
        "43",
        "--set",
        "sim.duration=0.05",
    ]);
    assert_ne!(rows(&other)[0][1], table[0][1]);
}

#[test]
fn refused_sweeps_exit_2_naming_the_problem() {
    for (args, needle) in [
        (vec!["--grid", "params.friction=0.1:0.3:0"], "empty"),
        (vec!["--grid", "params.friction=0.2:0.2:3"], "zero step"),
        (
            vec![
                "--grid",
                "params.friction=0:1:100000",
                "--grid",
                "params.spin_inertia=1:2:100000",
            ],
            "more than",
        ),
        (vec!["--grid", "params.frction=0.1:0.3:2"], "params.frction"),
        (
            vec!["--list", "params.friction=0.1", "--shard", "3/2"],
            "--shard 3/2",
        ),
    ] {
        let mut all = vec!["sweep".to_string(), scenario("hanging.json")];
        all.extend(args.iter().map(|s| s.to_string()));
        let out = Command::new(env!("CARGO_BIN_EXE_diabolo"))
            .args(&all)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(needle),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn check_passes_identical_trajectories_and_names_a_moved_column() {
    let d = dir("check");
    let (a, b) = (d.join("a.csv"), d.join("b.csv"));
    let run = diabolo(&[
        "run",
        &scenario("swing.json"),
        "--quiet",
        "--set",
        "sim.duration=0.5",
        "-o",
        a.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(0));
    let same = diabolo(&["check", a.to_str().unwrap(), a.to_str().unwrap()]);
    assert_eq!(same.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&same.stdout).contains("PASS"));
    // A slightly different friction moves the diabolo.
    diabolo(&[
        "run",
        &scenario("swing.json"),
        "--quiet",
        "--set",
        "sim.duration=0.5",
        "--set",
        "params.friction=0.171",
        "-o",
        b.to_str().unwrap(),
    ]);
    let moved = diabolo(&[
        "check",
        b.to_str().unwrap(),
        a.to_str().unwrap(),
        "--columns",
        "d1_x,d1_y",
    ]);
    assert_eq!(moved.status.code(), Some(1));
    let report = String::from_utf8_lossy(&moved.stdout).to_string();
    assert!(
        report.contains("d1_x") && report.contains("FAIL"),
        "{report}"
    );
    let missing = diabolo(&[
        "check",
        d.join("nope.csv").to_str().unwrap(),
        a.to_str().unwrap(),
    ]);
    assert_eq!(missing.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn check_on_different_grids_warns_and_the_help_example_on_the_golden_grid_passes() {
    let d = dir("check-grids");
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/whip.csv");
    let golden = golden.to_str().unwrap();
    let whip = scenario("whip.json");
    let run = |name: &str, extra: &[&str]| {
        let csv = d.join(name).display().to_string();
        let args = [&["run", &whip, "-o", &csv, "--quiet"][..], extra].concat();
        assert!(diabolo(&args).status.success());
        csv
    };
    let tolerances = [
        "--rtol",
        "1e-7",
        "--atol",
        "1e-9",
        "--columns",
        "d1_x,d1_y,d1_w",
    ];
    // The run's own 0.01 s grid: the golden 0.05 s grid is interpolated, and a warning says so.
    let fine = run("fine.csv", &[]);
    let out = diabolo(&[&["check", &fine, golden][..], &tolerances].concat());
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: the time grids differ"),
        "{stderr}"
    );
    assert!(
        stderr.contains("--set sim.output_interval=0.05"),
        "{stderr}"
    );
    // The help's example: the run written on the golden grid passes without a warning.
    let help = String::from_utf8_lossy(&diabolo(&["check", "--help"]).stdout).to_string();
    assert!(
        help.contains("--set sim.output_interval=0.05 -o new.csv"),
        "{help}"
    );
    let on_grid = run("new.csv", &["--set", "sim.output_interval=0.05"]);
    let out = diabolo(&[&["check", &on_grid, golden][..], &tolerances].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"));
}

#[test]
fn a_sweep_counts_catches_and_drops_per_point() {
    // The missed catch with and without a floor: both points leave the string once and never
    // land; only the one with a floor drops; the columns say so.
    let out = diabolo(&[
        "sweep",
        &scenario("missed_catch.json"),
        "--list",
        "sim.floor=0,-100",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let mut reader = csv::Reader::from_reader(out.stdout.as_slice());
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("{name} in {header:?}"))
    };
    let table = rows(&out);
    for (row, dropped) in table.iter().zip(["true", "false"]) {
        assert_eq!(row[column("d1_leaves")], "1");
        assert_eq!(row[column("d1_landings")], "0");
        assert_eq!(row[column("d1_dropped")], dropped);
        assert_eq!(row[column("events_leave")], "1");
        assert_eq!(row[column("contacts")], "0");
        let height: f64 = row[column("d1_max_height")].parse().unwrap();
        assert!((height - 2.4543503).abs() < 1e-6, "{height}");
        let airtime: f64 = row[column("d1_airtime")].parse().unwrap();
        assert!(airtime > 1.0);
    }
}

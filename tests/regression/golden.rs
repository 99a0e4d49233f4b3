//! Golden trajectories: a regression check of every shipped scenario against the trajectory it
//! produced when its physics was last validated.
//!
//! For every `scenarios/NAME.json` there is a `tests/golden/NAME.csv`: the trajectory CSV the
//! simulator writes for that scenario with rows every 0.05 s (`sim.output_interval` overridden;
//! everything else as shipped). The golden files were written only after each scenario's physics
//! had been validated on its own terms by `tests/runs/scenarios.rs` (energy ledger, analytic
//! tensions, free fall, ...) and the core by the independent Cartesian cross-checks
//! (`tests/physics/cartesian_cross_check.rs`): they record trusted output, they do not define it.
//!
//! The test runs each scenario the same way, writes the CSV to memory, and compares it with the
//! golden file through `diabolo::check::compare` (the comparison of `diabolo check`), column by
//! column: a value passes when |actual - expected| <= 1e-9 + 1e-7 |expected|, and the text column
//! `phase` must match row for row. A failure panics with the check report, which names each
//! scenario that moved, the worst deviation of every column and the time it occurs.
//!
//! Why rtol 1e-7, atol 1e-9: the scenarios are integrated at rtol 1e-9 (atol 1e-12), and a run is
//! bit-for-bit deterministic, so on one build the comparison is exact; the margin of 100 times
//! the integrator's tolerance is for changes that only move rounding (reordered arithmetic, another
//! compiler, CPU or libm), while a change of the model or of the event handling moves the
//! trajectory far beyond it (a change of the integration alone, such as rtol 1e-9 -> 2e-9, moves
//! whip, sun, snap_bouncy and rolling beyond it, the other six not). atol 1e-9 covers values
//! that pass through zero (velocities, tensions of a slack string). Measured when the files were written: perturbing a run at the
//! rounding level (the initial spin by 4 ulp, or the integrator rtol by 1 part in 1e7) moves nine
//! of the scenarios by at most 0.8 of the allowance (whip; the others by less than 0.2), but moves
//! `rolling` by up to 90 times it, and can flip one `phase` entry of `let_go`. Rolling's
//! integration error is some 100 times the integrator's tolerance and depends on the step
//! sequence (its sticks, which follow their paths exactly in the model, were up to 4.7e-7 m/s off
//! them in the rows from t = 1.41 s on; since steps end at the keyframes, 5.3e-9 m/s, and the
//! sensitivity was not measured again); let_go's string is loose with exactly zero slack for the
//! whole fall, so its phase sits on a knife edge. A rolling-only (or let_go-phase-only) failure
//! of that size after a change meant to keep the physics is therefore most likely that: read the
//! report, then bless.
//!
//! Regenerating the golden files on purpose (after a change that is meant to move the
//! trajectories, and only once `tests/runs/scenarios.rs` and the cross-checks pass again):
//!
//! ```sh
//! DIABOLO_BLESS=1 cargo test --release --test regression golden::
//! ```
//!
//! With `DIABOLO_BLESS` set (to anything but `0` or empty) the test writes the golden files
//! instead of comparing, says so on standard error, and deletes golden files whose scenario is
//! gone. It refuses to bless a scenario whose run fails before its duration. Review the change
//! with `git diff --stat tests/golden` before committing it. See also `tests/golden/README.md`.

use approx::abs_diff_eq;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use diabolo::check::{compare, CheckOptions, CheckReport};
use diabolo::output::table::Table;
use diabolo::output::{AtomicFile, TrajectoryWriter};
use diabolo::scenario::Scenario;

/// Rows every this many seconds (overrides each scenario's `sim.output_interval`).
const OUTPUT_INTERVAL: &str = "0.05";
/// The comparison's tolerances (see the module documentation).
const RTOL: f64 = 1e-7;
const ATOL: f64 = 1e-9;
/// The environment variable that turns comparing into rewriting.
const BLESS: &str = "DIABOLO_BLESS";
const BLESS_COMMAND: &str = "DIABOLO_BLESS=1 cargo test --release --test regression golden::";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scenario_dir() -> PathBuf {
    root().join("scenarios")
}

fn golden_dir() -> PathBuf {
    root().join("tests").join("golden")
}

fn golden_path(name: &str) -> PathBuf {
    golden_dir().join(format!("{name}.csv"))
}

/// A line on standard error that shows even though the test harness captures `eprintln!`.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn blessing() -> bool {
    std::env::var_os(BLESS).is_some_and(|v| !v.is_empty() && v != "0")
}

/// The file stems of the files with extension `ext` in `dir`, sorted.
fn stems(dir: &Path, ext: &str) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == ext))
        .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Every `scenarios/*.json`, by file stem.
fn scenario_names() -> Vec<String> {
    // The planar scenarios: those in space (`"space": true`) have no golden file yet.
    let names: Vec<String> = stems(&scenario_dir(), "json")
        .into_iter()
        .filter(|name| {
            let path = scenario_dir().join(format!("{name}.json"));
            std::fs::read_to_string(path).is_ok_and(|t| !t.contains("\"space\": true"))
        })
        .collect();
    assert!(!names.is_empty(), "no scenarios/*.json");
    names
}

/// A scenario's trajectory CSV as the golden files hold it, and why the run stopped early if
/// it did.
struct Trajectory {
    csv: String,
    failure: Option<String>,
}

fn simulate(name: &str) -> Trajectory {
    let path = scenario_dir().join(format!("{name}.json"));
    let text =
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let overrides = [(
        "sim.output_interval".to_string(),
        OUTPUT_INTERVAL.to_string(),
    )];
    let sim = Scenario::parse(&text, &overrides)
        .and_then(|scenario| scenario.build(&scenario_dir()))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut writer =
        TrajectoryWriter::new(Vec::new(), &sim).expect("writing to memory cannot fail");
    let report = sim.run(&mut |row| {
        writer
            .write_row(row)
            .expect("writing to memory cannot fail")
    });
    Trajectory {
        csv: String::from_utf8(writer.into_inner()).expect("the CSV is UTF-8"),
        failure: report.failure.map(|f| f.to_string()),
    }
}

fn options() -> CheckOptions {
    CheckOptions {
        rtol: RTOL,
        atol: ATOL,
        columns: Vec::new(),
    }
}

fn parse(csv: &str, what: &str) -> Table {
    Table::parse(csv).unwrap_or_else(|e| panic!("{what}: {e}"))
}

/// Writes every golden file (and removes those whose scenario is gone).
fn bless() {
    say(&format!(
        "{BLESS} is set: writing the golden files in {} instead of comparing",
        golden_dir().display()
    ));
    fs::create_dir_all(golden_dir()).unwrap();
    let names = scenario_names();
    for name in &names {
        let trajectory = simulate(name);
        if let Some(failure) = &trajectory.failure {
            panic!(
                "scenario {name}: the run fails ({failure}); not blessing a broken run \
                 (tests/runs/scenarios.rs should say why)"
            );
        }
        let path = golden_path(name);
        let unchanged = fs::read_to_string(&path).is_ok_and(|old| old == trajectory.csv);
        let mut file = AtomicFile::create(&path).unwrap();
        file.write_all(trajectory.csv.as_bytes()).unwrap();
        file.commit().unwrap();
        say(&format!(
            "  wrote tests/golden/{name}.csv: {} rows, {} bytes{}",
            trajectory.csv.lines().count() - 1,
            trajectory.csv.len(),
            if unchanged { " (unchanged)" } else { "" }
        ));
    }
    for stale in stems(&golden_dir(), "csv") {
        if !names.contains(&stale) {
            fs::remove_file(golden_path(&stale)).unwrap();
            say(&format!(
                "  removed tests/golden/{stale}.csv: scenarios/{stale}.json is gone"
            ));
        }
    }
}

/// Compares one scenario with its golden file: None when it passes, else why not.
fn check(name: &str) -> Option<String> {
    let path = golden_path(name);
    let Ok(golden) = fs::read_to_string(&path) else {
        return Some(format!(
            "scenario {name}: no golden file tests/golden/{name}.csv (a new scenario? \
             create it with `{BLESS_COMMAND}`)"
        ));
    };
    let expected = parse(&golden, &path.display().to_string());
    let trajectory = simulate(name);
    let actual = parse(
        &trajectory.csv,
        &format!("the trajectory of scenario {name}"),
    );
    let report: CheckReport = compare(&actual, &expected, &options());
    if report.passed() {
        return None;
    }
    let failure = trajectory
        .failure
        .map(|f| format!("\nthe run now stops early: {f}"))
        .unwrap_or_default();
    Some(format!(
        "scenario {name} (scenarios/{name}.json) no longer matches tests/golden/{name}.csv:\n\
         {report}{failure}"
    ))
}

#[test]
fn every_scenario_matches_its_golden_trajectory() {
    if blessing() {
        bless();
        return;
    }
    let names = scenario_names();
    let mut failures: Vec<String> = names.iter().filter_map(|name| check(name)).collect();
    for stale in stems(&golden_dir(), "csv") {
        if !names.contains(&stale) {
            failures.push(format!(
                "tests/golden/{stale}.csv has no scenarios/{stale}.json: delete it \
                 (or rerun `{BLESS_COMMAND}`, which does)"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} golden trajectories differ:\n\n{}\n\nIf the change is intended (and \
         tests/runs/scenarios.rs and the cross-checks still pass), regenerate them with\n    {}",
        failures.len(),
        names.len(),
        failures.join("\n\n"),
        BLESS_COMMAND
    );
}

/// The check can fail: a golden trajectory with one value moved by 1e-5 (100 times the
/// allowance) fails, in that column only and at that row's time, and the report says so; a
/// move within the allowance passes.
#[test]
fn a_moved_value_fails_the_check_naming_its_column_and_time() {
    let name = "whip";
    let golden = match fs::read_to_string(golden_path(name)) {
        Ok(text) => text,
        // Being blessed for the first time: the trajectory the file will hold.
        Err(_) if blessing() => simulate(name).csv,
        Err(e) => panic!("tests/golden/{name}.csv: {e} (create it with `{BLESS_COMMAND}`)"),
    };
    let expected = parse(&golden, "the golden whip");
    let column = expected
        .names
        .iter()
        .position(|n| n == "d1_y")
        .expect("a d1_y column");
    let row = expected.numbers[0].len() / 2;
    let (t, value) = (expected.numbers[0][row], expected.numbers[column][row]);

    // The golden CSV text with field (row, column) replaced: parsed again like any file.
    let moved = |delta: f64| {
        let lines: Vec<String> = golden
            .lines()
            .enumerate()
            .map(|(i, line)| {
                if i != row + 1 {
                    return line.to_string();
                }
                let mut fields: Vec<String> = line.split(',').map(String::from).collect();
                fields[column] = format!("{:?}", value + delta);
                fields.join(",")
            })
            .collect();
        parse(&(lines.join("\n") + "\n"), "the moved whip")
    };

    assert!(compare(&expected, &expected, &options()).passed());
    let allowance = ATOL + RTOL * value.abs();
    assert!(
        compare(&moved(0.5 * allowance), &expected, &options()).passed(),
        "a move of half the allowance passes"
    );

    let report = compare(&moved(1e-5), &expected, &options());
    let shown = report.to_string();
    assert!(!report.passed(), "a move of 1e-5 must fail:\n{shown}");
    let failing: Vec<&str> = report
        .columns
        .iter()
        .filter(|c| !c.passed())
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(failing, ["d1_y"], "{shown}");
    let d1_y = &report.columns[column - 1];
    assert_eq!(d1_y.name, "d1_y");
    assert_eq!(d1_y.at, t, "the failure is placed at the moved row's time");
    assert!(abs_diff_eq!(d1_y.worst, 1e-5, epsilon = 1e-12), "{shown}");
    assert!(d1_y.worst_ratio > 50.0, "{shown}");
    let line = shown
        .lines()
        .find(|l| l.starts_with("d1_y "))
        .unwrap_or_else(|| panic!("the report names d1_y:\n{shown}"));
    assert!(
        line.contains("FAIL") && line.contains(&format!("{t:.6}")),
        "the report's d1_y line gives FAIL and t = {t}: {line}"
    );
    assert!(
        shown.ends_with(&format!(
            "FAIL: 1 of {} columns beyond tolerance",
            report.columns.len()
        )),
        "{shown}"
    );
}

/// The golden files are reproducible: a run written twice is the same bytes.
#[test]
fn a_scenario_run_twice_writes_the_same_bytes() {
    for name in scenario_names() {
        let (first, second) = (simulate(&name), simulate(&name));
        assert!(
            first.csv == second.csv,
            "scenario {name} is not deterministic"
        );
    }
}

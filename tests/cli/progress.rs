//! Progress of the long commands besides `run` and `sweep`: `animate` counts its frames,
//! `replay` its starts, `fit` its objective evaluations with the best objective so far. A bar
//! shows only when standard error is a terminal (given here by `script`), not with --quiet, and
//! only after DIABOLO_PROGRESS_AFTER seconds (0 here).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use diabolo::output::table::Table;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("diabolo-progress-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

/// The sun run and a recording made of it (hands, diabolo, spin in rad/s), in `d`.
fn sun_files(d: &Path) -> (String, String) {
    let csv = d.join("sun.csv");
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/sun.json");
    let out = Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .args(["run", scenario.to_str().unwrap(), "--quiet", "-o"])
        .arg(&csv)
        .args(["--set", "sim.output_interval=0.005"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = Table::read(&csv).unwrap();
    let column = |name: &str| table.column(name).unwrap();
    let names = ["left_x", "left_y", "right_x", "right_y", "d1_x", "d1_y"];
    let mut recording = String::from("t,left_x,left_y,right_x,right_y,dia_x,dia_y,spin\n");
    for i in 0..table.rows() {
        let mut fields = vec![column("t")[i].to_string()];
        fields.extend(names.iter().map(|n| column(n)[i].to_string()));
        fields.push((-column("d1_w")[i] / diabolo::plot::AXLE_RADIUS).to_string());
        recording.push_str(&(fields.join(",") + "\n"));
    }
    let rec = d.join("rec.csv");
    std::fs::write(&rec, recording).unwrap();
    (csv.display().to_string(), rec.display().to_string())
}

/// What a terminal shows of `args` run with DIABOLO_PROGRESS_AFTER=0; `None` without `script`.
fn on_a_terminal(d: &Path, args: &str, log: &str) -> Option<String> {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("no `script` command: skipped");
        return None;
    }
    let command = format!(
        "DIABOLO_PROGRESS_AFTER=0 {} {args}",
        env!("CARGO_BIN_EXE_diabolo")
    );
    let out = Command::new("script")
        .current_dir(d)
        .args(["-qec", &command, log])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{args}: {}", text(&out.stderr));
    Some(text(&std::fs::read(d.join(log)).unwrap()))
}

/// The same command with standard error a pipe: its standard error.
fn off_a_terminal(args: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .env("DIABOLO_PROGRESS_AFTER", "0")
        .args(args.split_whitespace())
        .output()
        .unwrap();
    assert!(out.status.success(), "{args}: {}", text(&out.stderr));
    text(&out.stderr)
}

/// Shows a bar for `args` on a terminal (its text containing `bar`), none with --quiet, none
/// off a terminal.
fn assert_progress(d: &Path, args: &str, bar: &str) {
    let Some(shown) = on_a_terminal(d, args, "typescript") else {
        return;
    };
    assert!(
        shown.contains(bar) && shown.contains("elapsed"),
        "{args}: {shown}"
    );
    let quiet = on_a_terminal(d, &format!("{args} --quiet"), "quiet").unwrap();
    assert!(!quiet.contains("elapsed"), "--quiet shows no bar: {quiet}");
    let piped = off_a_terminal(args);
    assert!(!piped.contains("elapsed"), "no bar off a terminal: {piped}");
}

#[test]
fn animate_shows_its_frames_on_a_terminal_only() {
    let d = dir("animate");
    let (csv, _) = sun_files(&d);
    let gif = d.join("sun.gif").display().to_string();
    assert_progress(
        &d,
        &format!("animate {csv} -o {gif} --fps 10"),
        "/28 frames",
    );
}

#[test]
fn replay_shows_its_starts_on_a_terminal_only() {
    let d = dir("replay");
    let (_, rec) = sun_files(&d);
    assert_progress(
        &d,
        &format!("replay {rec} --horizons 0.2 --stride 0.1"),
        " starts, ",
    );
}

#[test]
fn fit_shows_its_evaluations_and_best_objective_on_a_terminal_only() {
    let d = dir("fit");
    let (_, rec) = sun_files(&d);
    let args = format!("fit {rec} --free friction --iterations 2 --horizons 0.2 --stride 0.5");
    assert_progress(&d, &args, "best objective so far");
}

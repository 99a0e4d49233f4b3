//! Where the output goes, and what is left when it cannot go there: a full standard output or
//! error is exit 1 naming it (never a panic), a closed pipe is a quiet success; a folder, a
//! missing folder or two outputs naming one file are refused before running (exit 2) with no
//! file left; devices, FIFOs and `/dev/stdout` are written through, never replaced; links are
//! followed; a 254-byte file name works; SIGINT, SIGTERM and SIGHUP remove every temporary file
//! and exit 128 + the signal; a long run shows a progress bar on a terminal only.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const WHIP: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/whip.json");
const SWING: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/swing.json");

fn diabolo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The command with standard output (`full_stdout`) or standard error on `/dev/full`.
fn diabolo_full(args: &[&str], full_stdout: bool) -> Output {
    let full = || Stdio::from(std::fs::File::create("/dev/full").unwrap());
    let mut command = Command::new(env!("CARGO_BIN_EXE_diabolo"));
    command.args(args).stdin(Stdio::null());
    if full_stdout {
        command.stdout(full()).stderr(Stdio::piped());
    } else {
        command.stdout(Stdio::piped()).stderr(full());
    }
    command.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("diabolo-files-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The names in a folder, sorted.
fn listing(d: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    names.sort();
    names
}

fn temporary_files(d: &Path) -> Vec<String> {
    listing(d)
        .into_iter()
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

fn assert_no_panic(out: &Output) {
    assert_ne!(out.status.code(), Some(101), "{}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("panicked"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn validate_to_a_full_standard_output_is_exit_1_naming_it() {
    let out = diabolo_full(&["validate", WHIP], true);
    assert_no_panic(&out);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("cannot write standard output"));
}

#[test]
fn schema_to_a_full_standard_output_is_exit_1_naming_it() {
    let out = diabolo_full(&["schema"], true);
    assert_no_panic(&out);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("cannot write standard output"));
}

#[test]
fn help_and_version_to_a_full_standard_output_are_exit_1_not_a_panic() {
    for args in [&["--help"][..], &["--version"], &["run", "--help"]] {
        let out = diabolo_full(args, true);
        assert_no_panic(&out);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(text(&out.stderr).contains("standard output"), "{args:?}");
    }
}

#[test]
fn a_usage_error_with_a_full_standard_error_exits_2_without_a_panic() {
    let out = diabolo_full(&["run", "--no-such-flag"], false);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn an_error_message_to_a_full_standard_error_leaves_only_the_exit_code() {
    let out = diabolo_full(&["validate", "no-such-scenario.json"], false);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn run_with_a_full_standard_error_exits_1_and_keeps_the_complete_trajectory() {
    let d = dir("stderr-full");
    let t = d.join("t.csv");
    let out = diabolo_full(&["run", WHIP, "-o", path(&t)], false);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the summary could not be written"
    );
    let reference = diabolo(&["run", WHIP, "--quiet"]);
    assert_eq!(std::fs::read(&t).unwrap(), reference.stdout);
    assert!(temporary_files(&d).is_empty());
}

/// `diabolo COMMAND | head`: the reader is gone before the command writes.
fn into_a_closed_pipe(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

#[test]
fn validate_schema_and_run_into_a_closed_pipe_are_a_quiet_success() {
    for args in [
        &["validate", WHIP][..],
        &["schema"],
        &["run", WHIP, "--quiet"],
    ] {
        let out = into_a_closed_pipe(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(text(&out.stderr), "", "{args:?}");
    }
}

#[test]
fn an_output_that_is_a_folder_is_refused_before_running_for_every_flag() {
    for flag in ["-o", "--events", "--summary"] {
        let d = dir(&format!("folder{flag}"));
        let folder = d.join("x.csv");
        std::fs::create_dir(&folder).unwrap();
        let out = diabolo(&["run", WHIP, flag, path(&folder)]);
        assert_eq!(out.status.code(), Some(2), "{flag}: {}", text(&out.stderr));
        let message = text(&out.stderr);
        assert!(
            message.contains(&format!("{flag} {}", folder.display())),
            "{message}"
        );
        assert!(message.contains("is a folder"), "{message}");
        assert!(message.contains("give a file path"), "{message}");
        assert_eq!(listing(&d), ["x.csv"], "{flag}: nothing left beside it");
        assert!(listing(&folder).is_empty(), "{flag}: nothing inside it");
    }
}

#[test]
fn an_output_in_a_missing_folder_is_refused_before_running_for_every_flag() {
    for flag in ["-o", "--events", "--summary"] {
        let d = dir(&format!("missing{flag}"));
        let target = d.join("nowhere").join("t.csv");
        let out = diabolo(&["run", WHIP, flag, path(&target)]);
        assert_eq!(out.status.code(), Some(2), "{flag}: {}", text(&out.stderr));
        let message = text(&out.stderr);
        assert!(
            message.contains(&format!("{flag} {}", target.display())),
            "{message}"
        );
        assert!(message.contains("does not exist"), "{message}");
        assert!(message.contains("mkdir -p"), "{message}");
        assert!(listing(&d).is_empty());
    }
}

#[test]
fn an_output_under_a_file_is_refused_before_running() {
    let d = dir("under-file");
    std::fs::write(d.join("plain"), "x").unwrap();
    let target = d.join("plain").join("t.csv");
    let out = diabolo(&["run", WHIP, "-o", path(&target)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("is not a folder"));
    assert_eq!(listing(&d), ["plain"]);
}

#[test]
fn two_outputs_naming_one_file_are_refused_however_spelled() {
    let d = dir("shared");
    let t = d.join("t.csv");
    std::fs::write(&t, "before").unwrap();
    std::fs::hard_link(&t, d.join("hard.csv")).unwrap();
    std::os::unix::fs::symlink(&t, d.join("soft.csv")).unwrap();
    let spelled = d.join(".").join("t.csv");
    let cases = [
        ("--events", path(&t).to_string()),
        ("--summary", path(&t).to_string()),
        ("--events", path(&spelled).to_string()),
        ("--summary", path(&d.join("hard.csv")).to_string()),
        ("--events", path(&d.join("soft.csv")).to_string()),
    ];
    for (flag, other) in &cases {
        let out = diabolo(&["run", WHIP, "-o", path(&t), flag, other]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{flag} {other}: {}",
            text(&out.stderr)
        );
        let message = text(&out.stderr);
        assert!(
            message.contains(&format!("{flag} {other}: the same file as -o")),
            "{message}"
        );
        assert_eq!(std::fs::read_to_string(&t).unwrap(), "before", "untouched");
        assert!(temporary_files(&d).is_empty());
    }
    // Two new files spelled differently are one file too.
    let new = d.join("new.csv");
    let out = diabolo(&[
        "run",
        WHIP,
        "-o",
        path(&new),
        "--events",
        path(&d.join("./new.csv")),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(!new.exists());
}

#[test]
fn two_outputs_to_the_same_character_device_are_written_through() {
    let out = diabolo(&[
        "run",
        WHIP,
        "-o",
        "/dev/null",
        "--events",
        "/dev/null",
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[cfg(unix)]
fn is_char_device(p: &str) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::symlink_metadata(p)
        .unwrap()
        .file_type()
        .is_char_device()
}

#[test]
fn a_character_device_output_is_written_through_never_replaced() {
    assert!(is_char_device("/dev/null"));
    let out = diabolo(&["run", WHIP, "-o", "/dev/null", "--summary", "/dev/null"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(is_char_device("/dev/null"), "/dev/null is still the device");
    // The device's folder gets no temporary file either.
    assert!(!listing(Path::new("/dev"))
        .iter()
        .any(|n| n.starts_with(".dbl-")));
}

#[test]
fn dev_stdout_writes_through_to_what_standard_output_is() {
    let reference = diabolo(&["run", WHIP, "--quiet"]);
    let out = diabolo(&["run", WHIP, "--quiet", "-o", "/dev/stdout"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(out.stdout, reference.stdout);
    // Standard output a file: the same bytes land in it.
    let d = dir("dev-stdout");
    let file = d.join("captured.csv");
    let status = Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .args(["run", WHIP, "--quiet", "-o", "/dev/stdout"])
        .stdout(std::fs::File::create(&file).unwrap())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(std::fs::read(&file).unwrap(), reference.stdout);
    assert_eq!(listing(&d), ["captured.csv"]);
}

#[test]
fn a_fifo_output_is_written_through_to_its_reader() {
    let d = dir("fifo");
    let fifo = d.join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let out = diabolo(&["run", WHIP, "--quiet", "-o", path(&fifo)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let received = reader.join().unwrap();
    assert_eq!(received, diabolo(&["run", WHIP, "--quiet"]).stdout);
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    assert_eq!(listing(&d), ["pipe"]);
}

#[test]
fn a_symbolic_link_output_stays_a_link_and_its_target_gets_the_content() {
    let d = dir("link");
    let target = d.join("real.csv");
    std::fs::write(&target, "old").unwrap();
    let link = d.join("link.csv");
    std::os::unix::fs::symlink("real.csv", &link).unwrap();
    let out = diabolo(&["run", WHIP, "--quiet", "-o", path(&link)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read(&target).unwrap(),
        diabolo(&["run", WHIP, "--quiet"]).stdout
    );
    // A dangling link: its target is created.
    let dangling = d.join("dangling.csv");
    std::os::unix::fs::symlink("made.csv", &dangling).unwrap();
    let out = diabolo(&["run", WHIP, "--quiet", "-o", path(&dangling)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(d.join("made.csv").is_file());
    assert!(std::fs::symlink_metadata(&dangling)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(temporary_files(&d).is_empty());
}

#[test]
fn a_254_byte_output_name_works() {
    let d = dir("long-name");
    let name = format!("{}.csv", "t".repeat(250));
    assert_eq!(name.len(), 254);
    let target = d.join(&name);
    let out = diabolo(&["run", WHIP, "--quiet", "-o", path(&target)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(listing(&d), [name]);
}

/// Starts a run (or sweep) that lasts far longer than the test, with its outputs in `d`.
fn long_command(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until `count` temporary files exist in `d`, sends `signal`; the exit code.
fn interrupt(mut child: Child, d: &Path, count: usize, signal: &str) -> Option<i32> {
    let start = Instant::now();
    while temporary_files(d).len() < count {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no temporary files in {}: {:?}",
            d.display(),
            listing(d)
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the command ended early"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let sent = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("the command did not end on SIG{signal}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn sigint_sigterm_and_sighup_remove_the_temporary_files_and_exit_128_plus_the_signal() {
    for (signal, code) in [("INT", 130), ("TERM", 143), ("HUP", 129)] {
        let d = dir(&format!("signal-{signal}"));
        let (t, e) = (d.join("t.csv"), d.join("e.jsonl"));
        let child = long_command(&[
            "run",
            SWING,
            "--set",
            "sim.duration=36000",
            "--set",
            "sim.output_interval=1",
            "-o",
            path(&t),
            "--events",
            path(&e),
        ]);
        assert_eq!(interrupt(child, &d, 2, signal), Some(code), "SIG{signal}");
        assert!(listing(&d).is_empty(), "SIG{signal}: {:?}", listing(&d));
    }
}

#[test]
fn a_sweep_interrupted_leaves_no_temporary_point_file() {
    let d = dir("signal-sweep");
    let points = d.join("points");
    let child = long_command(&[
        "sweep",
        SWING,
        "--set",
        "sim.duration=36000",
        "--set",
        "sim.output_interval=1",
        "--list",
        "params.friction=0.1,0.2",
        "--jobs",
        "2",
        "--save-trajectories",
        path(&points),
        "-o",
        path(&d.join("sweep.csv")),
    ]);
    // The summary's temporary file in d, then a point's in d/points.
    let start = Instant::now();
    while !points.exists() || temporary_files(&points).is_empty() {
        assert!(start.elapsed() < Duration::from_secs(30), "no point file");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(interrupt(child, &d, 1, "TERM"), Some(143));
    assert!(
        temporary_files(&points).is_empty(),
        "{:?}",
        listing(&points)
    );
    assert_eq!(listing(&d), ["points"]);
}

/// A run of many rows, with the bar asked for from its first row (`DIABOLO_PROGRESS_AFTER=0`),
/// so that whether a bar is drawn depends on standard error only, not on the machine's speed.
const LONG_RUN: [&str; 6] = [
    "--set",
    "sim.duration=200",
    "--set",
    "sim.output_interval=0.5",
    "-o",
    "t.csv",
];

#[test]
fn a_run_shows_no_progress_bar_when_standard_error_is_not_a_terminal() {
    let d = dir("no-bar");
    let out = Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .current_dir(&d)
        .env("DIABOLO_PROGRESS_AFTER", "0")
        .arg("run")
        .arg(SWING)
        .args(LONG_RUN)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stderr = text(&out.stderr);
    let summary: serde_json::Value = serde_json::from_str(stderr.trim()).unwrap();
    assert_eq!(summary["rows"], 401);
    assert_eq!(stderr.lines().count(), 1, "only the summary: {stderr}");
}

#[test]
fn a_run_shows_a_progress_bar_on_a_terminal_then_the_summary() {
    // `script` gives the command a terminal; without it there is nothing to check here.
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("no `script` command: skipped");
        return;
    }
    let d = dir("bar");
    let command = format!(
        "DIABOLO_PROGRESS_AFTER=0 {} run {SWING} {}",
        env!("CARGO_BIN_EXE_diabolo"),
        LONG_RUN.join(" ")
    );
    let out = Command::new("script")
        .current_dir(&d)
        .args(["-qec", &command, "typescript"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown = text(&std::fs::read(d.join("typescript")).unwrap());
    assert!(shown.contains("% of 200 s simulated"), "{shown}");
    let summary = shown.rfind("{\"scenario\"").expect("the summary");
    assert!(
        shown.rfind("s simulated").unwrap() < summary,
        "the bar comes first"
    );
    let quiet = format!("{command} --quiet");
    Command::new("script")
        .current_dir(&d)
        .args(["-qec", &quiet, "quiet"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let shown = text(&std::fs::read(d.join("quiet")).unwrap());
    assert!(
        !shown.contains("simulated"),
        "--quiet shows no bar: {shown}"
    );
}

#[test]
fn a_sweep_summary_to_a_folder_is_refused_before_running() {
    let d = dir("sweep-folder");
    let folder = d.join("out");
    std::fs::create_dir(&folder).unwrap();
    let out = diabolo(&[
        "sweep",
        WHIP,
        "--list",
        "params.friction=0.1,0.2",
        "-o",
        path(&folder),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("is a folder"));
    assert_eq!(listing(&d), ["out"], "nothing left beside it");
    assert!(listing(&folder).is_empty());
}

#[test]
fn dev_stdout_open_on_a_file_and_that_file_are_one_output() {
    let d = dir("dev-stdout-shared");
    let file = d.join("out.txt");
    let out = Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .args(["run", WHIP, "-o", "/dev/stdout", "--events", path(&file)])
        .stdout(std::fs::File::create(&file).unwrap())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("the same file as -o /dev/stdout"));
    assert_eq!(listing(&d), ["out.txt"]);
}

// `--fsync` (before or after the subcommand) writes the same files, flushed before the rename;
// standard output takes the same rows as the file.
#[test]
fn fsync_writes_the_same_files_and_standard_output_the_same_rows() {
    let d = dir("fsync");
    let (plain, synced, events) = (d.join("a.csv"), d.join("b.csv"), d.join("e.jsonl"));
    let sets = ["--set", "sim.output_interval=0.001", "-q"];
    let run = |args: &[&str]| {
        let out = diabolo(args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        out
    };
    run(&[&["run", WHIP, "-o", path(&plain)][..], &sets].concat());
    run(&[&["--fsync", "run", WHIP, "-o", path(&synced)][..], &sets].concat());
    let stdout = run(&[
        &["run", WHIP, "--fsync", "--events", path(&events)][..],
        &sets,
    ]
    .concat());
    let bytes = std::fs::read(&plain).unwrap();
    assert!(bytes.len() > 1_000_000, "{} bytes", bytes.len());
    assert!(std::fs::read(&synced).unwrap() == bytes);
    assert!(stdout.stdout == bytes);
    assert_eq!(listing(&d), ["a.csv", "b.csv", "e.jsonl"]);
}

//! Gzip-compressed outputs and inputs: every file output named `*.gz` (run -o and --events,
//! sweep -o) is gzip whose content is byte for byte the plain output, checked with the system's
//! `gzip -dc` as well as flate2; `check`, `plot` and `replay` read `.gz` files (and gzip content
//! under any name) as the plain ones; a FIFO named `*.gz` is written through, compressed.

use crate::common;
use common::command::{diabolo, text};

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use diabolo::replay::Recording;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("diabolo-gz-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn scenario(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("scenarios/{name}.json"))
        .display()
        .to_string()
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The file decompressed by the system's gzip, independent of the crate's reader.
fn gunzip(path: &Path) -> Vec<u8> {
    let out = Command::new("gzip").arg("-dc").arg(path).output().unwrap();
    assert!(
        out.status.success(),
        "gzip -dc {path:?}: {}",
        text(&out.stderr)
    );
    out.stdout
}

fn gzip_bytes(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

fn is_gzip(path: &Path) -> bool {
    std::fs::read(path).unwrap().starts_with(&[0x1f, 0x8b])
}

/// `sun` for 0.6 s, the trajectory and the events to `stem.csv` and `stem.jsonl` (each with
/// `.gz` when `gz`).
fn run_sun(dir: &Path, stem: &str, gz: bool) -> (PathBuf, PathBuf) {
    let suffix = if gz { ".gz" } else { "" };
    let csv = dir.join(format!("{stem}.csv{suffix}"));
    let events = dir.join(format!("{stem}.jsonl{suffix}"));
    let out = diabolo(&[
        "run",
        &scenario("sun"),
        "--set",
        "sim.duration=0.6",
        "-o",
        s(&csv),
        "--events",
        s(&events),
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    (csv, events)
}

#[test]
fn run_writes_gzip_by_extension_whose_content_is_the_plain_output() {
    let dir = scratch("run");
    let (csv, events) = run_sun(&dir, "plain", false);
    let (csv_gz, events_gz) = run_sun(&dir, "packed", true);
    assert!(is_gzip(&csv_gz) && is_gzip(&events_gz));
    assert!(!is_gzip(&csv) && !is_gzip(&events));
    let plain = std::fs::read(&csv).unwrap();
    assert!(plain.len() > 10_000, "a trajectory of some size");
    assert_eq!(gunzip(&csv_gz), plain);
    assert_eq!(gunzip(&events_gz), std::fs::read(&events).unwrap());
    assert!(
        std::fs::metadata(&csv_gz).unwrap().len() * 2 < plain.len() as u64,
        "compressed"
    );
    // Same content, same compressed bytes: the gzip header holds no time.
    let (again, _) = run_sun(&dir, "again", true);
    assert_eq!(
        std::fs::read(&again).unwrap(),
        std::fs::read(&csv_gz).unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_reads_a_gz_trajectory_against_the_plain_one() {
    let dir = scratch("check");
    let (csv, _) = run_sun(&dir, "plain", false);
    let (csv_gz, _) = run_sun(&dir, "packed", true);
    let out = diabolo(&["check", s(&csv_gz), s(&csv), "--rtol", "0", "--atol", "0"]);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    // And a deviation inside the gzip is found, so the content was read.
    let changed = text(&gunzip(&csv_gz)).replacen("\n0.5,", "\n0.5000001,", 1);
    let bad = dir.join("bad.csv.gz");
    std::fs::write(&bad, gzip_bytes(changed.as_bytes())).unwrap();
    let out = diabolo(&["check", s(&bad), s(&csv)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gzip_content_is_read_whatever_the_name_and_plain_content_under_a_gz_name_too() {
    let dir = scratch("magic");
    let (csv, _) = run_sun(&dir, "plain", false);
    let plain = std::fs::read(&csv).unwrap();
    let hidden = dir.join("hidden.csv");
    std::fs::write(&hidden, gzip_bytes(&plain)).unwrap();
    let misnamed = dir.join("misnamed.csv.gz");
    std::fs::write(&misnamed, &plain).unwrap();
    for file in [&hidden, &misnamed] {
        let out = diabolo(&["check", s(file), s(&csv), "--rtol", "0", "--atol", "0"]);
        assert!(out.status.success(), "{file:?}: {}", text(&out.stderr));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_truncated_gz_trajectory_is_an_input_error_naming_the_file() {
    let dir = scratch("truncated");
    let (csv, _) = run_sun(&dir, "plain", false);
    let (csv_gz, _) = run_sun(&dir, "packed", true);
    let bytes = std::fs::read(&csv_gz).unwrap();
    std::fs::write(&csv_gz, &bytes[..bytes.len() / 2]).unwrap();
    let out = diabolo(&["check", s(&csv_gz), s(&csv)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    let message = text(&out.stderr);
    assert!(message.contains("packed.csv.gz"), "{message}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn plot_draws_a_gz_trajectory_and_event_log_as_the_plain_ones() {
    let dir = scratch("plot");
    let (csv, events) = run_sun(&dir, "sun", false);
    let (csv_gz, events_gz) = run_sun(&dir, "sun", true);
    let picture = |trajectory: &Path, events: &Path, name: &str| {
        let svg = dir.join(name);
        let out = diabolo(&["plot", s(trajectory), "-o", s(&svg), "--events", s(events)]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        std::fs::read_to_string(&svg).unwrap()
    };
    let from_plain = picture(&csv, &events, "plain.svg");
    // The title is the file's name; all else is drawn from the content.
    let from_gz = picture(&csv_gz, &events_gz, "gz.svg").replace("sun.csv.gz", "sun.csv");
    assert!(from_plain.contains("sun.csv"));
    assert_eq!(from_gz, from_plain);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sweep_writes_gzip_by_extension() {
    let dir = scratch("sweep");
    let sweep = |name: &str| {
        let path = dir.join(name);
        let out = diabolo(&[
            "sweep",
            &scenario("hanging"),
            "--set",
            "sim.duration=0.2",
            "--list",
            "params.friction=0.1,0.2",
            "-o",
            s(&path),
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        path
    };
    let plain = sweep("s.csv");
    let packed = sweep("s.csv.gz");
    assert!(is_gzip(&packed));
    assert_eq!(gunzip(&packed), std::fs::read(&plain).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_fifo_named_gz_is_written_through_compressed() {
    let dir = scratch("fifo");
    let (csv, _) = run_sun(&dir, "plain", false);
    let fifo = dir.join("pipe.csv.gz");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            std::fs::File::open(&fifo)
                .unwrap()
                .read_to_end(&mut bytes)
                .unwrap();
            bytes
        })
    };
    let out = diabolo(&[
        "run",
        &scenario("sun"),
        "--set",
        "sim.duration=0.6",
        "-o",
        s(&fifo),
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let bytes = reader.join().unwrap();
    assert!(bytes.starts_with(&[0x1f, 0x8b]));
    let mut content = Vec::new();
    flate2::read::MultiGzDecoder::new(&bytes[..])
        .read_to_end(&mut content)
        .unwrap();
    assert_eq!(content, std::fs::read(&csv).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A short recording: hands still 0.6 m apart, the diabolo hanging below and spinning.
fn recording_text() -> String {
    let mut text =
        String::from("# a test recording\nt,left_x,left_y,right_x,right_y,dia_x,dia_y,spin\n");
    for i in 0..50 {
        let t = f64::from(i) * 0.005;
        text += &format!("{t},-0.3,1.2,0.3,1.2,0.0,0.6,{}\n", 10.0 - t);
    }
    text
}

#[test]
fn recordings_are_read_from_gz_files_and_listed_in_folders() {
    let dir = scratch("recording");
    let plain = dir.join("rec_a.csv");
    std::fs::write(&plain, recording_text()).unwrap();
    let packed = dir.join("rec_b.csv.gz");
    std::fs::write(&packed, gzip_bytes(recording_text().as_bytes())).unwrap();
    std::fs::write(dir.join("notes.txt.gz"), gzip_bytes(b"not a recording")).unwrap();
    let a = Recording::read(&plain).unwrap();
    let b = Recording::read(&packed).unwrap();
    assert_eq!(a.name, "rec_a");
    assert_eq!(b.name, "rec_b", "the name is the stem without .csv.gz");
    assert_eq!(a.t.len(), 50);
    assert_eq!((&a.t, &a.left, &a.right), (&b.t, &b.left, &b.right));
    assert_eq!((&a.dia, &a.spin), (&b.dia, &b.spin));
    let listed = Recording::read_dir(&dir).unwrap();
    let names: Vec<&str> = listed.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["rec_a", "rec_b"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

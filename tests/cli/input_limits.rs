//! The limits on reading input files, against gzip bombs generated here: a 0.3 MB gzip that
//! unpacks to one 300 MiB line, and one that unpacks to 300 MiB of short lines. Every command
//! that reads such a file (`check`, `plot`, `animate`, `replay`, `fit`, `plot --events`) stops
//! with exit 2 naming the limit, within a memory limit far below what reading the file whole
//! takes (before the limits `check` of the long line took 1.9 GB), and writes no output.

use crate::common;
use common::command::text;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Virtual memory a command may use (KiB for `ulimit -v`): 1 GiB, less than the unpacked
/// bombs take read whole with the buffer's doubling.
const MEMORY_LIMIT_KIB: u64 = 1024 * 1024;

/// Members of 1 MiB each in a bomb: 300 MiB unpacked, above `MAX_WHOLE_FILE_BYTES` (256 MiB).
const MEMBERS: usize = 300;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("diabolo-limits-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Writes at `path` a gzip of `head`, then [`MEMBERS`] times 1 MiB of `unit` repeated, each a
/// gzip member of its own (read as one stream, as `cat a.gz b.gz`): the test compresses 1 MiB
/// once and never holds the unpacked content.
fn gzip_bomb(path: &Path, head: &[u8], unit: &[u8]) {
    let gzip = |bytes: &[u8]| {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    };
    let member = gzip(&unit.repeat((1 << 20) / unit.len()));
    let mut file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    file.write_all(&gzip(head)).unwrap();
    for _ in 0..MEMBERS {
        file.write_all(&member).unwrap();
    }
    file.flush().unwrap();
    assert!(
        std::fs::metadata(path).unwrap().len() < 1 << 20,
        "a small file"
    );
}

/// Runs the binary with `args` in `dir` under [`MEMORY_LIMIT_KIB`].
fn run_limited(dir: &Path, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_LIMIT_KIB}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_diabolo"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// Asserts that `args` stopped with exit 2 and a message that names `file` and `limit`, and
/// that no file besides the inputs was left in `dir`.
fn assert_refused(dir: &Path, args: &[&str], file: &str, limit: &str) {
    let before = std::fs::read_dir(dir).unwrap().count();
    let out = run_limited(dir, args);
    let message = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {message}");
    assert!(
        message.starts_with(&format!("error: {file}: ")) && message.contains(limit),
        "{args:?}: {message}"
    );
    assert!(out.stdout.is_empty(), "{args:?}: no partial output");
    assert_eq!(std::fs::read_dir(dir).unwrap().count(), before, "{args:?}");
}

fn sun_trajectory(dir: &Path) -> PathBuf {
    let csv = dir.join("sun.csv");
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/sun.json");
    let out = common::command::diabolo(&[
        "run",
        s(&scenario),
        "--set",
        "sim.duration=0.3",
        "-o",
        s(&csv),
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    csv
}

#[test]
fn a_gzip_that_unpacks_to_one_long_line_is_refused_by_every_reader_naming_the_line_limit() {
    let dir = scratch("line");
    gzip_bomb(&dir.join("long.csv.gz"), b"", b"a");
    let limit = "line 1 is longer than 1048576 bytes (1 MiB)";
    for args in [
        &["check", "long.csv.gz", "long.csv.gz"][..],
        &["plot", "long.csv.gz", "-o", "long.svg"],
        &["animate", "long.csv.gz", "-o", "long.gif"],
        &["replay", "long.csv.gz"],
        &["fit", "long.csv.gz"],
    ] {
        assert_refused(&dir, args, "long.csv.gz", limit);
    }
    // The limit is on the record: a header of many lines within one quoted field.
    gzip_bomb(&dir.join("quoted.csv.gz"), b"t,\"", b"x\n");
    assert_refused(
        &dir,
        &["check", "quoted.csv.gz", "quoted.csv.gz"],
        "quoted.csv.gz",
        limit,
    );
}

#[test]
fn a_gzip_that_unpacks_beyond_the_whole_file_limit_is_refused_where_files_are_read_whole() {
    let dir = scratch("size");
    let trajectory = sun_trajectory(&dir);
    gzip_bomb(
        &dir.join("frames.csv.gz"),
        b"t,left_x,left_y,right_x,right_y,dia_x,dia_y,spin\n",
        b"0.5,-0.4,1.5,0.4,1.5,0,0.8,100\n",
    );
    gzip_bomb(
        &dir.join("events.jsonl.gz"),
        b"",
        b"{\"t\":0.1,\"kind\":\"stick\",\"object\":1}\n",
    );
    let limit = "larger than 268435456 bytes (256 MiB unpacked)";
    assert_refused(&dir, &["replay", "frames.csv.gz"], "frames.csv.gz", limit);
    assert_refused(&dir, &["fit", "frames.csv.gz"], "frames.csv.gz", limit);
    for (command, picture) in [("plot", "t.svg"), ("animate", "t.gif")] {
        let args = [
            command,
            s(&trajectory),
            "--events",
            "events.jsonl.gz",
            "-o",
            picture,
        ];
        assert_refused(&dir, &args, "events.jsonl.gz", limit);
    }
}

//! Trajectory tables as `check`, `plot` and `animate` read them: one strict reader (a cell that
//! is not a number is unreadable input, exit 2 naming the file, the row and the column; spaces
//! around a number are allowed), memory that does not grow with the file (check streams both
//! files, pictures thin long files evenly), the check contract (nothing compared is not a pass, a
//! column of the actual trajectory only fails), and the limits of the pictures' sizes.

use crate::common;
use common::command::{diabolo, text};

use approx::abs_diff_eq;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use diabolo::check::{compare, CheckOptions};
use diabolo::output::table::Table;
use diabolo::plot::{self, AnimateOptions, Format, MAX_SVG_VALUES};

/// A clean folder for one test, under the target folder (emptied at each run, not left in the
/// system's temporary folder).
fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("tables-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, content: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path.display().to_string()
}

/// The files of a folder, but for `keep`.
fn files_besides(dir: &Path, keep: &[&str]) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| {
            !keep
                .iter()
                .any(|k| dir.join(k).file_name().unwrap() == n.as_str())
        })
        .collect()
}

/// A trajectory with the columns the pictures need: one diabolo swinging, phases alternating.
fn trajectory(rows: usize) -> String {
    let mut s = String::from(
        "t,phase,left_x,left_y,d1_x,d1_y,d1_vx,d1_vy,d1_w,right_x,right_y,T0,T1,slack\n",
    );
    for i in 0..rows {
        let t = i as f64 * 1e-3;
        let phase = if (i / 1000) % 2 == 0 { "taut" } else { "loose" };
        s.push_str(&format!(
            "{t:?},{phase},-0.4,1.5,{:.6},{:.6},0.1,0.2,{:.4},0.4,1.5,1.25,2.5,0.0\n",
            0.2 * t.sin(),
            0.8 + 0.1 * t.cos(),
            t % 3.0
        ));
    }
    s
}

/// Two trajectory files of 10^5 and 10^6 rows (8 and 79 MB), written once.
fn long_files() -> &'static (PathBuf, PathBuf) {
    static FILES: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    FILES.get_or_init(|| {
        let dir = scratch("long");
        let file = |rows: usize| {
            let path = dir.join(format!("rows_{rows}.csv"));
            let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
            out.write_all(trajectory(rows).as_bytes()).unwrap();
            out.flush().unwrap();
            path
        };
        (file(100_000), file(1_000_000))
    })
}

/// Runs the command and polls its peak resident memory (VmHWM, kB) until it ends: its exit
/// code and the peak. None where /proc is not there.
fn peak_memory_kb(args: &[&str]) -> Option<(i32, u64)> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = None;
    loop {
        if let Ok(status) = std::fs::read_to_string(&status_file) {
            let hwm = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
            if let Some(hwm) = hwm {
                peak = Some(peak.unwrap_or(0).max(hwm));
            }
        }
        if let Some(status) = child.try_wait().unwrap() {
            return peak.map(|p| (status.code().unwrap_or(-1), p));
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// The growth of a command's peak memory from the short file to the long one, kB, and the
/// growth of the file, kB.
fn memory_growth(args: impl Fn(&str) -> Vec<String>) -> Option<(u64, u64)> {
    let (short, long) = long_files();
    let run = |path: &Path| {
        let args = args(path.to_str().unwrap());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, peak) = peak_memory_kb(&args)?;
        assert_eq!(code, 0, "{args:?}");
        Some(peak)
    };
    let (small, large) = (run(short)?, run(long)?);
    let size = |p: &Path| std::fs::metadata(p).unwrap().len() / 1024;
    Some((large.saturating_sub(small), size(long) - size(short)))
}

#[test]
fn check_memory_does_not_grow_with_the_files() {
    let Some((growth, file_growth)) = memory_growth(|p| vec!["check".into(), p.into(), p.into()])
    else {
        return;
    };
    // Measured: 9.2 MB for both (the whole files in memory needed > 4 GB for 10^6 rows).
    assert!(
        growth < file_growth / 8,
        "peak memory grew by {growth} kB for {file_growth} kB more file"
    );
}

#[test]
fn plot_memory_does_not_grow_with_the_file() {
    let dir = scratch("plot-memory");
    let out = dir.join("p.png").display().to_string();
    let Some((growth, file_growth)) =
        memory_growth(|p| vec!["plot".into(), p.into(), "-o".into(), out.clone()])
    else {
        return;
    };
    // Measured: 25 MB for both (2.4 GB for 10^6 rows before the rows were thinned).
    assert!(
        growth < file_growth / 8,
        "peak memory grew by {growth} kB for {file_growth} kB more file"
    );
}

#[test]
fn long_trajectories_are_thinned_evenly_for_pictures_and_a_note_says_so() {
    let (_, long) = long_files();
    let table = Table::read_thinned(long, plot::MAX_ROWS).unwrap();
    assert_eq!(table.rows_read, 1_000_000);
    assert!(table.thinned() && table.rows() <= plot::MAX_ROWS + 1);
    assert!(table.rows() > plot::MAX_ROWS / 2, "{}", table.rows());
    let t = &table.numbers[0];
    // Every stride-th row of the file, and the last one.
    let step = table.stride as f64 * 1e-3;
    for pair in t[..t.len() - 1].windows(2) {
        assert!(
            abs_diff_eq!(pair[1] - pair[0], step, epsilon = 1e-9),
            "{pair:?}"
        );
    }
    assert!(
        abs_diff_eq!(t[t.len() - 1], 999.999, epsilon = 1e-9),
        "{:?}",
        t.last()
    );
    let phase = table.names.iter().position(|n| n == "phase").unwrap();
    assert_eq!(table.text[phase].len(), table.rows());
    assert_eq!(table.text[phase][1], "taut");

    let dir = scratch("thinned");
    let out = dir.join("a.svg").display().to_string();
    let short = write(&dir, "short.csv", &trajectory(3000));
    let made = diabolo(&["plot", &short, "-o", &out]);
    assert_eq!(made.status.code(), Some(0), "{}", text(&made.stderr));
    assert!(
        !text(&made.stderr).contains("note"),
        "{}",
        text(&made.stderr)
    );
    let made = diabolo(&["plot", long.to_str().unwrap(), "-o", &out]);
    assert_eq!(made.status.code(), Some(0), "{}", text(&made.stderr));
    let note = text(&made.stderr);
    assert!(
        note.contains("1000000 rows") && note.contains("one row in 16"),
        "{note}"
    );
}

#[test]
fn nothing_compared_is_not_a_pass() {
    let dir = scratch("nothing");
    let actual = write(&dir, "a.csv", "t,x\n0,1\n1,2\n");
    let only_t = write(&dir, "t.csv", "t\n0\n1\n");
    for (args, needle) in [
        (vec![actual.as_str(), &only_t], "no column besides t"),
        (
            vec![actual.as_str(), &actual, "--columns", ","],
            "--columns",
        ),
        (
            vec![actual.as_str(), &actual, "--columns", "t"],
            "--columns t",
        ),
    ] {
        let mut all = vec!["check"];
        all.extend(args.iter().copied());
        let out = diabolo(&all);
        assert_eq!(out.status.code(), Some(2), "{all:?}");
        let error = text(&out.stderr);
        assert!(
            error.contains("nothing to compare") && error.contains(needle),
            "{error}"
        );
        assert!(!text(&out.stdout).contains("PASS"));
    }
}

#[test]
fn a_column_of_the_actual_trajectory_only_fails_unless_columns_leave_it_out() {
    let dir = scratch("extra");
    let actual = write(&dir, "a.csv", "t,x,y\n0,1,5\n1,2,6\n");
    let expected = write(&dir, "e.csv", "t,x\n0,1\n1,2\n");
    let out = diabolo(&["check", &actual, &expected]);
    assert_eq!(out.status.code(), Some(1));
    let report = text(&out.stdout);
    assert!(
        report.contains("not in the expected trajectory") && report.contains(": y"),
        "{report}"
    );
    assert!(report.contains("FAIL"), "{report}");
    let out = diabolo(&["check", &actual, &expected, "--columns", "x"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    // A column of the expected trajectory only is missing: a failure too.
    let out = diabolo(&["check", &expected, &actual]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).contains("missing from the actual trajectory: y"));
}

#[test]
fn cells_that_are_not_numbers_are_unreadable_input_naming_file_row_and_column() {
    let dir = scratch("cells");
    let good = write(&dir, "good.csv", &trajectory(5));
    let out = dir.join("out.svg").display().to_string();
    for (cell, shown) in [("abc", "`abc`"), ("", "an empty cell"), ("0x10", "`0x10`")] {
        let content = trajectory(5).replacen(",0.1,0.2,", &format!(",{cell},0.2,"), 1);
        let bad = write(&dir, "bad.csv", &content);
        for args in [
            vec!["check", &bad, &good],
            vec!["check", &good, &bad],
            vec!["plot", &bad, "-o", &out],
            vec!["plot", &bad, "--xy", "-o", &out],
            vec!["animate", &bad, "-o", &out],
        ] {
            let result = diabolo(&args);
            assert_eq!(result.status.code(), Some(2), "{cell:?} {args:?}");
            let error = text(&result.stderr);
            assert!(
                error.contains("bad.csv: row 2, column d1_vx: ") && error.contains(shown),
                "{error}"
            );
            assert_eq!(
                files_besides(&dir, &["good.csv", "bad.csv"]),
                Vec::<String>::new()
            );
        }
    }
}

#[test]
fn space_padded_numbers_are_numbers_and_a_real_disorder_is_still_named() {
    let dir = scratch("padded");
    let padded = write(&dir, "padded.csv", "t, x\n 0.0 , 1\n0.5,  2 \n");
    let plain = write(&dir, "plain.csv", "t,x\n0,1\n0.5,2\n");
    let out = diabolo(&["check", &padded, &plain]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("PASS: 1 columns"));
    let backwards = write(&dir, "backwards.csv", "t,x\n0.5,1\n 0.25 ,2\n");
    let out = diabolo(&["check", &backwards, &plain]);
    assert_eq!(out.status.code(), Some(2));
    let error = text(&out.stderr);
    assert!(
        error.contains("backwards.csv: row 3: t = 0.25 does not increase"),
        "{error}"
    );
}

#[test]
fn check_refuses_tolerances_that_are_not_numbers_of_zero_or_more() {
    let dir = scratch("tolerances");
    let a = write(&dir, "a.csv", "t,x\n0,1\n1,2\n");
    for (flag, value) in [("--rtol", "-1"), ("--atol", "NaN"), ("--atol", "inf")] {
        let out = diabolo(&["check", &a, &a, &format!("{flag}={value}")]);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
        assert!(text(&out.stderr).contains(flag), "{}", text(&out.stderr));
    }
}

#[test]
fn check_to_a_full_standard_output_is_a_write_error_not_a_panic() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return;
    };
    let dir = scratch("full");
    let a = write(&dir, "a.csv", "t,x\n0,1\n1,2\n");
    let out = Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .args(["check", &a, &a])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("standard output"));
}

#[test]
fn text_columns_are_compared_where_both_files_have_a_row() {
    let expected = Table::parse("t,phase,x\n0,taut,0\n0.5,taut,0.5\n1,loose,1\n").unwrap();
    let same = Table::parse("t,phase,x\n0,taut,0\n1,loose,1\n").unwrap();
    assert!(compare(&same, &expected, &CheckOptions::default()).passed());
    let other = Table::parse("t,phase,x\n0,taut,0\n0.25,loose,0.25\n1,taut,1\n").unwrap();
    let report = compare(&other, &expected, &CheckOptions::default());
    assert!(!report.passed());
    let phase = &report.columns[0];
    assert_eq!((phase.name.as_str(), phase.text_mismatches), ("phase", 1));
    assert_eq!(phase.at, 1.0);
    assert!(report.columns[1].passed(), "x on the line is interpolated");
}

#[test]
fn pictures_beyond_the_size_limits_exit_2_naming_the_limit() {
    let dir = scratch("sizes");
    let csv = write(&dir, "run.csv", &trajectory(2000));
    let png = dir.join("p.png").display().to_string();
    let gif = dir.join("a.gif").display().to_string();
    let svg = dir.join("a.svg").display().to_string();
    for (args, needle) in [
        (
            vec![
                "plot", &csv, "-o", &png, "--width", "100000", "--height", "100000",
            ],
            "16384",
        ),
        (
            vec!["plot", &csv, "-o", &png, "--width", "4294967295"],
            "16384",
        ),
        (
            vec![
                "plot", &csv, "--xy", "-o", &png, "--width", "9000", "--height", "9000",
            ],
            "33554432",
        ),
        (
            vec!["plot", &csv, "--xy", "-o", &png, "--instants", "1000000000"],
            "1000 instants",
        ),
        (
            vec![
                "animate", &csv, "-o", &gif, "--width", "100000", "--height", "100000",
            ],
            "16384",
        ),
        (
            vec!["animate", &csv, "-o", &gif, "--width", "70000"],
            "16384",
        ),
        (
            vec![
                "animate", &csv, "-o", &gif, "--width", "5000", "--height", "5000", "--speed",
                "0.1",
            ],
            "4294967296",
        ),
        (
            vec!["animate", &csv, "-o", &svg, "--fps", "1000000"],
            "limit of 3000",
        ),
    ] {
        let started = std::time::Instant::now();
        let out = diabolo(&args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        let error = text(&out.stderr);
        assert!(error.contains(needle), "{args:?}: {error}");
        assert!(started.elapsed().as_secs() < 10, "{args:?}");
        assert_eq!(files_besides(&dir, &["run.csv"]), Vec::<String>::new());
    }
}

#[test]
fn an_animated_svg_is_bounded_in_values() {
    // 400 diabolos for 90 s at 30 fps: 2,701 frames of 402 objects.
    let n = 400;
    let mut header = String::from("t,left_x,left_y");
    for k in 1..=n {
        header.push_str(&format!(",d{k}_x,d{k}_y,d{k}_w"));
    }
    header.push_str(",right_x,right_y\n");
    let row = |t: f64| {
        let mut r = format!("{t},-0.4,1.5");
        for k in 0..n {
            r.push_str(&format!(",{},0.5,0", -0.3 + 0.6 * k as f64 / n as f64));
        }
        r + ",0.4,1.5\n"
    };
    let table = Table::parse(&(header + &row(0.0) + &row(90.0))).unwrap();
    let error = plot::animate(
        &table,
        &AnimateOptions::default(),
        Format::Svg,
        &mut Vec::new(),
    )
    .unwrap_err();
    assert!(error.is_input(), "{error}");
    assert!(
        error.to_string().contains(&MAX_SVG_VALUES.to_string()),
        "{error}"
    );
}

//! `diabolo sweep --shard K/N -o FILE` and `diabolo sweep merge`: merged shards are byte for
//! byte the one-machine sweep for any number of shards (more shards than points too, and
//! compressed shards); a missing shard, a doubled one, and shards of another sweep or split are
//! named (exit 2, nothing written); a finished shard is skipped when run again, one cut short or
//! without its stamp is run again; a shard killed while running leaves nothing that looks
//! finished; the one-machine sweep writes no stamp.

use crate::common;
use common::command::{diabolo, scratch, text};

use std::path::{Path, PathBuf};
use std::process::Output;

/// 12 points (3 frictions x 4 spin inertias) of a short whip.
fn sweep_args() -> Vec<String> {
    let whip = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/whip.json");
    [
        whip.to_str().unwrap(),
        "--set",
        "sim.duration=0.2",
        "--grid",
        "params.friction=0.1:0.3:3",
        "--list",
        "params.spin_inertia=20,40,60,80",
        "--jobs",
        "1",
    ]
    .map(String::from)
    .to_vec()
}

/// `diabolo sweep ARGS EXTRA...`.
fn sweep(args: &[String], extra: &[&str]) -> Output {
    let mut all = vec!["sweep"];
    all.extend(args.iter().map(String::as_str));
    all.extend_from_slice(extra);
    diabolo(&all)
}

/// Runs shard `k` of `n` into `dir/shard-K.csv` (`suffix` after `.csv`); its path.
fn shard(dir: &Path, args: &[String], k: usize, n: usize, suffix: &str) -> PathBuf {
    let path = dir.join(format!("shard-{k}.csv{suffix}"));
    let out = sweep(
        args,
        &["--shard", &format!("{k}/{n}"), "-o", path.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    path
}

/// `diabolo sweep merge SHARDS... -o OUTPUT`.
fn merge(shards: &[PathBuf], output: &Path) -> Output {
    let mut all = vec!["sweep", "merge"];
    all.extend(shards.iter().map(|p| p.to_str().unwrap()));
    all.extend(["-o", output.to_str().unwrap()]);
    diabolo(&all)
}

/// The one-machine sweep's bytes.
fn whole(args: &[String]) -> Vec<u8> {
    let out = sweep(args, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    out.stdout
}

#[test]
fn merged_shards_are_the_one_machine_sweep_byte_for_byte_for_any_shard_count() {
    let args = sweep_args();
    let expected = whole(&args);
    // 13 and 20 shards: more shards than points, some of them empty (a header alone).
    for n in [1, 2, 3, 4, 5, 13, 20] {
        let dir = scratch("shards", &format!("count{n}"));
        // Given in reverse order: the merge orders them by K.
        let shards: Vec<PathBuf> = (1..=n)
            .rev()
            .map(|k| shard(&dir, &args, k, n, ""))
            .collect();
        let merged = dir.join("all.csv");
        let out = merge(&shards, &merged);
        assert_eq!(out.status.code(), Some(0), "{n}: {}", text(&out.stderr));
        assert_eq!(std::fs::read(&merged).unwrap(), expected, "{n} shards");
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn compressed_shards_merge_to_the_one_machine_sweep() {
    let args = sweep_args();
    let dir = scratch("shards", "gzip");
    let shards: Vec<PathBuf> = (1..=3).map(|k| shard(&dir, &args, k, 3, ".gz")).collect();
    assert!(dir.join("shard-1.csv.gz.json").is_file());
    let merged = dir.join("all.csv");
    let out = merge(&shards, &merged);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&merged).unwrap(), whole(&args));
}

#[test]
fn a_missing_shard_is_named_by_k_of_n_and_nothing_is_written() {
    let args = sweep_args();
    let dir = scratch("shards", "missing");
    let shards: Vec<PathBuf> = [1, 2, 4].map(|k| shard(&dir, &args, k, 4, "")).to_vec();
    let merged = dir.join("all.csv");
    let out = merge(&shards, &merged);
    assert_eq!(out.status.code(), Some(2));
    let message = text(&out.stderr);
    assert!(message.contains("missing: 3/4"), "{message}");
    assert!(!merged.exists());
}

#[test]
fn a_shard_given_twice_is_named_with_its_files() {
    let args = sweep_args();
    let dir = scratch("shards", "twice");
    let mut shards: Vec<PathBuf> = (1..=2).map(|k| shard(&dir, &args, k, 2, "")).collect();
    let copy = dir.join("copy-of-2.csv");
    std::fs::copy(&shards[1], &copy).unwrap();
    std::fs::copy(dir.join("shard-2.csv.json"), dir.join("copy-of-2.csv.json")).unwrap();
    shards.push(copy);
    let merged = dir.join("all.csv");
    let out = merge(&shards, &merged);
    assert_eq!(out.status.code(), Some(2));
    let message = text(&out.stderr);
    assert!(
        message.contains("shard 2/2 is given 2 times") && message.contains("copy-of-2.csv"),
        "{message}"
    );
    assert!(!merged.exists());
}

#[test]
fn shards_of_different_sweeps_or_splits_are_refused() {
    let args = sweep_args();
    let dir = scratch("shards", "different");
    let first = shard(&dir, &args, 1, 2, "");
    let other_dir = dir.join("other");
    std::fs::create_dir(&other_dir).unwrap();
    // Another base scenario (--set), other axes, another seed of the same samples, another split.
    let mut other_set = args.clone();
    other_set[2] = "sim.duration=0.3".into();
    let mut other_axes = args.clone();
    other_axes[6] = "params.spin_inertia=20,40,60,90".into();
    let samples = |seed: &str| {
        let mut a = args.clone();
        a.extend(["--samples", "4", "--seed", seed].map(String::from));
        a
    };
    for (name, other_args, shard_of, expected) in [
        ("set", other_set, (2, 2), "differ in: scenario"),
        ("axes", other_axes, (2, 2), "differ in: axes"),
        ("split", args.clone(), (2, 3), "split two ways"),
    ] {
        let sub = other_dir.join(name);
        std::fs::create_dir(&sub).unwrap();
        let other = shard(&sub, &other_args, shard_of.0, shard_of.1, "");
        let merged = dir.join("all.csv");
        let out = merge(&[first.clone(), other], &merged);
        assert_eq!(out.status.code(), Some(2), "{name}");
        let message = text(&out.stderr);
        assert!(message.contains(expected), "{name}: {message}");
        assert!(!merged.exists(), "{name}");
    }
    let seeds = other_dir.join("seeds");
    std::fs::create_dir(&seeds).unwrap();
    let a = shard(&seeds, &samples("1"), 1, 2, "");
    let b = shard(&other_dir, &samples("2"), 2, 2, "");
    let out = merge(&[a, b], &seeds.join("all.csv"));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("differ in: samples"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_finished_shard_is_skipped_when_run_again() {
    let args = sweep_args();
    let dir = scratch("shards", "skip");
    let path = shard(&dir, &args, 2, 4, "");
    let before = std::fs::metadata(&path).unwrap().modified().unwrap();
    let again = sweep(&args, &["--shard", "2/4", "-o", path.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(0));
    let message = text(&again.stderr);
    assert!(
        message.contains("shard 2/4") && message.contains("skipped"),
        "{message}"
    );
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        before
    );
    // Another shard into the same file is not this one: it runs.
    let other = sweep(&args, &["--shard", "3/4", "-o", path.to_str().unwrap()]);
    assert_eq!(other.status.code(), Some(0));
    assert!(
        text(&other.stderr).contains("is shard 2/4 of this sweep: running it again"),
        "{}",
        text(&other.stderr)
    );
}

#[test]
fn a_shard_cut_short_or_without_its_stamp_is_run_again_and_merges() {
    let args = sweep_args();
    let dir = scratch("shards", "redo");
    let shards: Vec<PathBuf> = (1..=3).map(|k| shard(&dir, &args, k, 3, "")).collect();
    // Cut short: the merge refuses it (naming it), and running it again mends it.
    let cut = std::fs::read(&shards[1]).unwrap();
    std::fs::write(&shards[1], &cut[..cut.len() / 2]).unwrap();
    let merged = dir.join("all.csv");
    let out = merge(&shards, &merged);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("shard-2.csv") && text(&out.stderr).contains("cut short"),
        "{}",
        text(&out.stderr)
    );
    assert!(!merged.exists());
    let again = sweep(
        &args,
        &["--shard", "2/3", "-o", shards[1].to_str().unwrap()],
    );
    assert_eq!(again.status.code(), Some(0));
    assert!(
        text(&again.stderr).contains("running it again"),
        "{}",
        text(&again.stderr)
    );
    // Without its stamp (a shard killed before it finished): refused, then run again.
    std::fs::remove_file(dir.join("shard-3.csv.json")).unwrap();
    let out = merge(&shards, &merged);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("shard-3.csv.json is missing"),
        "{}",
        text(&out.stderr)
    );
    let again = sweep(
        &args,
        &["--shard", "3/3", "-o", shards[2].to_str().unwrap()],
    );
    assert!(
        text(&again.stderr).contains("has no stamp"),
        "{}",
        text(&again.stderr)
    );
    let out = merge(&shards, &merged);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&merged).unwrap(), whole(&args));
}

#[test]
fn the_one_machine_sweep_and_a_shard_on_standard_output_write_no_stamp() {
    let args = sweep_args();
    let dir = scratch("shards", "unstamped");
    let path = dir.join("sweep.csv");
    let out = sweep(&args, &["-o", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["sweep.csv"]);
    let out = sweep(&args, &["--shard", "1/2"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.starts_with(b"index,"));
}

#[test]
fn a_shard_killed_while_running_leaves_no_file_that_looks_finished() {
    let dir = scratch("shards", "killed");
    let path = dir.join("shard-1.csv");
    let let_go = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/let_go.json");
    // 100,000 points: long enough to be killed while its rows stream out.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .args(["sweep", let_go.to_str().unwrap(), "--quiet", "--jobs", "1"])
        .args(["--grid", "params.friction=0.1:0.4:400"])
        .args(["--grid", "params.spin_inertia=20:80:500"])
        .args(["--shard", "1/2", "-o", path.to_str().unwrap()])
        .spawn()
        .unwrap();
    // Killed (SIGKILL: no clean-up) once its temporary file has rows in it.
    let writing = || {
        std::fs::read_dir(&dir).unwrap().any(|e| {
            let e = e.unwrap();
            e.file_name().to_string_lossy().ends_with(".tmp")
                && e.metadata().unwrap().len() > 100_000
        })
    };
    for _ in 0..600 {
        if writing() || child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(
        child.try_wait().unwrap().is_none(),
        "the shard ended before it was killed"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!path.exists() && !dir.join("shard-1.csv.json").exists());
    let out = merge(&[path], &dir.join("all.csv"));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("shard-1.csv: no such file"),
        "{}",
        text(&out.stderr)
    );
}

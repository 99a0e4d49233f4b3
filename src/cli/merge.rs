//! `diabolo sweep merge`: the shards of one sweep into the file the sweep writes on one
//! machine; and the shard stamps `diabolo sweep --shard K/N -o FILE` writes beside its file
//! and reads to skip a finished shard.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::args::MergeArgs;
use super::{commit, create, create_output, note, write_file, CliError};
use diabolo::input_limits::{read_failure, Records};
use diabolo::output::compress;
use diabolo::sweep::shard::{content_of, copy_shard, merge_order, MergeError, ShardStamp};
use diabolo::sweep::Sweep;

/// Merges the shards (each checked against its stamp) into `-o`: nothing is written unless every
/// shard of one sweep is there once and is the text its stamp describes.
pub fn merge(args: &MergeArgs) -> Result<(), CliError> {
    let names: Vec<String> = args
        .shards
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let stamps = args
        .shards
        .iter()
        .map(|path| read_stamp(path))
        .collect::<Result<Vec<_>, _>>()?;
    let order = merge_order(&names, &stamps)?;
    // The output must not replace a shard (its stamp would then describe another text).
    for shard in &args.shards {
        let named = [("-o", args.output.as_path()), ("a shard", shard.as_path())];
        if diabolo::output::shared_destination(&named).is_some() {
            return Err(CliError::SharedDestination {
                flag: "-o",
                path: args.output.clone(),
                other_flag: "the shard",
                other: shard.clone(),
            });
        }
    }
    // A shard cut short shows in its length before anything is written (a compressed one's
    // text is checked as it is copied).
    for &i in &order {
        let path = &args.shards[i];
        if !compress::is_gzip_name(path) {
            if let Ok(meta) = std::fs::metadata(path) {
                if meta.is_file() && meta.len() != stamps[i].bytes {
                    return Err(MergeError::Changed {
                        name: names[i].clone(),
                        label: stamps[i].label(),
                        reason: format!(
                            "{} bytes, its stamp says {}: it was cut short or changed after it was written",
                            meta.len(),
                            stamps[i].bytes
                        ),
                    }
                    .into());
                }
            }
        }
    }
    let mut file = create(&args.output)?;
    let mut header = None;
    for (position, &i) in order.iter().enumerate() {
        let mut input = compress::open(&args.shards[i]).map_err(|source| MergeError::Read {
            name: names[i].clone(),
            source,
        })?;
        copy_shard(
            &names[i],
            &stamps[i],
            &mut input,
            position == 0,
            &mut header,
            &mut file,
        )
        .map_err(|e| match e {
            MergeError::Write(source) => CliError::Output {
                what: "cannot write",
                path: args.output.clone(),
                source,
            },
            other => other.into(),
        })?;
    }
    file.flush().map_err(|source| CliError::Output {
        what: "cannot write",
        path: args.output.clone(),
        source,
    })?;
    commit(file)?;
    let first = &stamps[order[0]];
    note(format!(
        "merged {} shards ({} points) into {}",
        first.shards,
        first.description["points"],
        args.output.display()
    ))
}

/// The stamp of the shard at `path`: `PATH.json`.
pub fn stamp_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".json");
    PathBuf::from(name)
}

/// The stamp beside the shard at `path`, read and checked; its absence or damage is an error
/// naming both files.
fn read_stamp(path: &Path) -> Result<ShardStamp, MergeError> {
    let stamp = stamp_path(path);
    let unstamped = |reason: String| MergeError::Unstamped {
        name: path.display().to_string(),
        reason,
    };
    if !path.exists() {
        return Err(unstamped("no such file".into()));
    }
    load_stamp(&stamp).map_err(|(missing, why)| {
        unstamped(if missing {
            format!(
                "its stamp {} is missing: the shard did not finish, or was not written by diabolo sweep --shard K/N -o FILE",
                stamp.display()
            )
        } else {
            format!("its stamp {}: {why}", stamp.display())
        })
    })
}

/// The stamp file `stamp` read and parsed; else whether it is missing, and why it cannot be
/// used.
fn load_stamp(stamp: &Path) -> Result<ShardStamp, (bool, String)> {
    let text = compress::read_to_string(stamp, Records::Whole)
        .map_err(|e| (e.kind() == std::io::ErrorKind::NotFound, read_failure(&e)))?;
    ShardStamp::parse(&text).map_err(|e| (false, e.to_string()))
}

/// Whether the shard `k`/`n` of `sweep` is already finished in `path`: `Ok(())` when its stamp
/// is this shard's of this sweep and the file is the text the stamp describes; else why not
/// (`None`: neither the file nor its stamp is there, a first run).
pub fn finished(sweep: &Sweep, k: usize, n: usize, path: &Path) -> Result<(), Option<String>> {
    let stamp_file = stamp_path(path);
    let is_file = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file());
    match (is_file(path), is_file(&stamp_file)) {
        (false, false) => return Err(None),
        (true, false) => return Err(Some("has no stamp (a shard that did not finish)".into())),
        (false, true) => return Err(Some("is missing (its stamp is there)".into())),
        (true, true) => {}
    }
    let stamp = load_stamp(&stamp_file)
        .map_err(|(_, e)| Some(format!("has a stamp that cannot be used ({e})")))?;
    if stamp.sweep != sweep.fingerprint() {
        return Err(Some("is a shard of another sweep".into()));
    }
    if (stamp.shard, stamp.shards) != (k, n) {
        return Err(Some(format!("is shard {} of this sweep", stamp.label())));
    }
    let content = compress::open(path)
        .and_then(|mut input| content_of(&mut input))
        .map_err(|e| Some(format!("cannot be read ({})", read_failure(&e))))?;
    if !stamp.describes(&content) {
        return Err(Some(format!(
            "is not the text its stamp describes ({} bytes, the stamp says {}): cut short or changed",
            content.bytes, stamp.bytes
        )));
    }
    Ok(())
}

/// Removes the stamp beside `path` (a regular file only) before the shard is written again, so
/// that no stamp stands beside a file being replaced.
pub fn remove_stamp(path: &Path) -> Result<(), CliError> {
    let stamp = stamp_path(path);
    if std::fs::symlink_metadata(&stamp).is_ok_and(|m| m.is_file()) {
        std::fs::remove_file(&stamp).map_err(|source| CliError::Output {
            what: "cannot remove the old stamp",
            path: stamp,
            source,
        })?;
    }
    Ok(())
}

/// Writes `stamp` beside the shard at `path` (atomically, as every output).
pub fn write_stamp(path: &Path, stamp: &ShardStamp) -> Result<(), CliError> {
    let file = create_output("-o (its stamp)", &stamp_path(path))?;
    write_file(file, |f| f.write_all(stamp.to_text().as_bytes()))
}

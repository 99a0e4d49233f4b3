//! Shards of a sweep run on many machines (`diabolo sweep --shard K/N`), and their merge.
//!
//! A shard's summary CSV is the plain CSV it always was; beside it, its *stamp* (a small JSON
//! document, [`ShardStamp`]) says which sweep it belongs to (the sweep's fingerprint, from
//! [`Sweep::description`]), which shard of how many it is, and the length and SHA-256 of the
//! CSV text it describes. The stamp is written only after the CSV is complete, so a shard
//! with a stamp that matches its CSV is finished, and one without is not.
//!
//! [`merge_order`] checks a set of stamps (one sweep, one split, every shard once) and
//! [`copy_shard`] copies each shard's text in shard order, the header once, checking the text
//! against its stamp as it goes: the merged text is byte for byte the one-machine sweep's.
//! Neither opens a file: the command line reads and writes them.

use std::collections::BTreeMap;
use std::io::{self, BufRead, BufReader, Read, Write};

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::{shard_range, Axis, Sweep, MAX_POINTS};

/// The `format` of the stamps this version writes and reads.
pub const STAMP_FORMAT: &str = "diabolo-sweep-shard/1";

impl Sweep {
    /// What makes two sweeps the same sweep: the program's version, the SHA-256 of the base
    /// scenario's canonical text (the document after the `--set` overrides, keys sorted, no
    /// spaces), the axes, the random sampling and its seed, the number of points and the limits
    /// (`--max-rows`, `--max-duration`). Files the scenario names (a path's samples) are not
    /// part of it.
    pub fn description(&self) -> Value {
        let axes: Vec<Value> = self
            .axes
            .iter()
            .map(|axis| match axis {
                Axis::Grid {
                    key,
                    start,
                    stop,
                    count,
                } => json!({"grid": key, "start": start, "stop": stop, "count": count}),
                Axis::List { key, values } => json!({"list": key, "values": values}),
            })
            .collect();
        let scenario = sorted(&self.base).to_string();
        json!({
            "diabolo": env!("CARGO_PKG_VERSION"),
            "scenario": hex(&Sha256::digest(scenario.as_bytes())),
            "axes": axes,
            "samples": self.sampling.map(|s| json!({"samples": s.samples, "seed": s.seed})),
            "points": self.points,
            "max_rows": self.limits.max_rows,
            "max_duration": self.limits.max_duration,
        })
    }

    /// The sweep's fingerprint: the SHA-256 (hex) of [`Sweep::description`]'s text.
    pub fn fingerprint(&self) -> String {
        fingerprint_of(&self.description())
    }

    /// The stamp of shard `k` of `n` of this sweep, whose CSV text is `content`.
    pub fn stamp(&self, k: usize, n: usize, content: &Content) -> ShardStamp {
        let range = shard_range(k, n, self.points);
        let description = self.description();
        ShardStamp {
            format: STAMP_FORMAT.into(),
            sweep: fingerprint_of(&description),
            shard: k,
            shards: n,
            points: [range.start, range.end],
            bytes: content.bytes,
            sha256: content.sha256.clone(),
            description,
        }
    }
}

/// The fingerprint of a description: the SHA-256 (hex) of its JSON text.
fn fingerprint_of(description: &Value) -> String {
    hex(&Sha256::digest(description.to_string().as_bytes()))
}

/// `value` with every object's keys in sorted order (the canonical form of a document).
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let by_key: BTreeMap<&String, Value> =
                map.iter().map(|(k, v)| (k, sorted(v))).collect();
            Value::Object(
                by_key
                    .into_iter()
                    .map(|(k, v)| (k.clone(), v))
                    .collect::<Map<_, _>>(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// Bytes as lowercase hexadecimal.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The length and SHA-256 of a text (a shard's CSV, as `sha256sum` prints it for a plain file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Content {
    /// Its length in bytes.
    pub bytes: u64,
    /// Its SHA-256, lowercase hexadecimal.
    pub sha256: String,
}

/// A writer that passes everything to `inner` and keeps the length and SHA-256 of what it
/// passed: wraps a shard's output so that its stamp describes exactly the bytes written.
pub struct Digesting<W: Write> {
    inner: W,
    hasher: Sha256,
    bytes: u64,
}

impl<W: Write> Digesting<W> {
    /// A digesting writer into `inner`.
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            hasher: Sha256::new(),
            bytes: 0,
        }
    }

    /// The inner writer and what went through.
    pub fn finish(self) -> (W, Content) {
        let content = Content {
            bytes: self.bytes,
            sha256: hex(&self.hasher.finalize()),
        };
        (self.inner, content)
    }
}

impl<W: Write> Write for Digesting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The stamp beside a shard's CSV (`SHARD.csv.json`): which sweep, which shard of how many,
/// which points, and the CSV text it was written with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardStamp {
    /// [`STAMP_FORMAT`].
    pub format: String,
    /// The sweep's fingerprint ([`Sweep::fingerprint`]).
    pub sweep: String,
    /// K: the shard, from 1.
    pub shard: usize,
    /// N: the number of shards.
    pub shards: usize,
    /// The shard's points: indices from the first up to the second (excluded).
    pub points: [usize; 2],
    /// The length of the shard's CSV text, bytes (after decompression for `.gz`).
    pub bytes: u64,
    /// The SHA-256 of the shard's CSV text, lowercase hexadecimal.
    pub sha256: String,
    /// The sweep's [`Sweep::description`], whose fingerprint `sweep` is.
    pub description: Value,
}

/// Why a stamp cannot be read.
#[derive(Debug, Error)]
pub enum StampError {
    /// Not a stamp's JSON.
    #[error("not a shard stamp of diabolo sweep ({0}); write the shard again with diabolo sweep --shard K/N -o FILE")]
    Json(#[from] serde_json::Error),
    /// A stamp of another format (a newer or older diabolo).
    #[error("format {found:?}, this diabolo reads {STAMP_FORMAT:?}; run the shard again with this diabolo")]
    Format {
        /// The format the stamp names.
        found: String,
    },
    /// A stamp that contradicts itself (edited by hand?).
    #[error("{0}; run the shard again (diabolo sweep --shard K/N -o FILE writes a new stamp)")]
    Inconsistent(String),
}

impl ShardStamp {
    /// The stamp in `text`, checked: its format, its fingerprint against its description, its
    /// shard within its shards, and its points those of its shard.
    pub fn parse(text: &str) -> Result<Self, StampError> {
        let stamp: Self = serde_json::from_str(text)?;
        if stamp.format != STAMP_FORMAT {
            return Err(StampError::Format {
                found: stamp.format,
            });
        }
        if fingerprint_of(&stamp.description) != stamp.sweep {
            return Err(StampError::Inconsistent(
                "its fingerprint is not that of its description".into(),
            ));
        }
        let (k, n) = (stamp.shard, stamp.shards);
        if k == 0 || k > n || n > MAX_POINTS {
            return Err(StampError::Inconsistent(format!(
                "shard {k}/{n}: K must be between 1 and N, and N at most {MAX_POINTS}"
            )));
        }
        let points = stamp.description["points"].as_u64().ok_or_else(|| {
            StampError::Inconsistent("its description has no number of points".into())
        })?;
        let range = usize::try_from(points).map(|p| shard_range(k, n, p));
        if range.map(|r| [r.start, r.end]).ok() != Some(stamp.points) {
            return Err(StampError::Inconsistent(format!(
                "points {}..{} are not those of shard {k}/{n} of {points} points",
                stamp.points[0], stamp.points[1]
            )));
        }
        Ok(stamp)
    }

    /// The stamp as JSON text (pretty, with a final newline).
    pub fn to_text(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// `K/N`.
    pub fn label(&self) -> String {
        format!("{}/{}", self.shard, self.shards)
    }

    /// Whether `content` is the text this stamp was written with.
    pub fn describes(&self, content: &Content) -> bool {
        self.bytes == content.bytes && self.sha256 == content.sha256
    }
}

/// A set of shards that does not merge into one sweep.
#[derive(Debug, Error)]
pub enum MergeError {
    /// No shard given.
    #[error("no shard to merge: give every shard's CSV (e.g. shard-*.csv)")]
    Empty,
    /// A shard whose stamp is missing or cannot be used.
    #[error("{name}: {reason}; run that shard again (diabolo sweep --shard K/N -o {name})")]
    Unstamped {
        /// The shard's name.
        name: String,
        /// What is wrong with it or its stamp (naming the stamp).
        reason: String,
    },
    /// Two shards of different sweeps (scenario, axes, sampling, points or limits differ).
    #[error("{other} is a shard of another sweep than {first} (they differ in: {differences}); merge the shards of one sweep (run the missing ones with the same scenario, --set, axes and seed)")]
    DifferentSweep {
        /// The first shard's name.
        first: String,
        /// The other shard's name.
        other: String,
        /// The fields of the descriptions that differ, e.g. `axes, points`.
        differences: String,
    },
    /// Two shards of one sweep split differently (`--shard K/4` and `--shard K/3`).
    #[error("{other} is shard {other_label} and {first} is shard {first_label}: one sweep split two ways; merge the shards of one split")]
    DifferentSplit {
        /// The first shard's name.
        first: String,
        /// Its `K/N`.
        first_label: String,
        /// The other shard's name.
        other: String,
        /// Its `K/N`.
        other_label: String,
    },
    /// Shards missing or given twice.
    #[error("{0}")]
    Incomplete(String),
    /// A shard's text that is not the one its stamp describes (cut short, changed, or its
    /// header not the others').
    #[error("{name}: {reason}; run shard {label} again")]
    Changed {
        /// The shard's name.
        name: String,
        /// Its `K/N`.
        label: String,
        /// What differs.
        reason: String,
    },
    /// A shard's text that cannot be read.
    #[error("{name}: cannot read: {source}")]
    Read {
        /// The shard's name.
        name: String,
        /// The reading error.
        source: io::Error,
    },
    /// The merged output that cannot be written.
    #[error(transparent)]
    Write(io::Error),
}

impl MergeError {
    /// True for shards that do not make a sweep (exit 2); false when writing failed.
    pub fn is_input(&self) -> bool {
        !matches!(self, Self::Write(_))
    }
}

/// The order in which to copy `stamps` (named by `names`, the same length): shard 1 first.
/// Every stamp must be of the first's sweep and split, and every shard from 1 to N must be
/// there once; the error names the shards missing (by `K/N`) and those given twice (by `K/N`
/// and their names).
pub fn merge_order(names: &[String], stamps: &[ShardStamp]) -> Result<Vec<usize>, MergeError> {
    let Some(first) = stamps.first() else {
        return Err(MergeError::Empty);
    };
    for (name, stamp) in names.iter().zip(stamps).skip(1) {
        if stamp.sweep != first.sweep {
            return Err(MergeError::DifferentSweep {
                first: names[0].clone(),
                other: name.clone(),
                differences: differences(&first.description, &stamp.description),
            });
        }
        if stamp.shards != first.shards {
            return Err(MergeError::DifferentSplit {
                first: names[0].clone(),
                first_label: first.label(),
                other: name.clone(),
                other_label: stamp.label(),
            });
        }
    }
    let n = first.shards;
    let mut by_shard: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, stamp) in stamps.iter().enumerate() {
        by_shard.entry(stamp.shard).or_default().push(i);
    }
    let missing_count = n - by_shard.len();
    // The missing shards, the first MAX_LISTED of them: the gaps between the shards given.
    let mut missing = Vec::new();
    let mut previous = 0;
    for k in by_shard.keys().copied().chain([n + 1]) {
        missing.extend((previous + 1..k).take(MAX_LISTED - missing.len()));
        previous = k;
    }
    let twice: Vec<String> = by_shard
        .iter()
        .filter(|(_, given)| given.len() > 1)
        .map(|(k, given)| {
            let files: Vec<&str> = given.iter().map(|&i| names[i].as_str()).collect();
            format!(
                "shard {k}/{n} is given {} times ({})",
                given.len(),
                files.join(", ")
            )
        })
        .collect();
    if missing_count == 0 && twice.is_empty() {
        return Ok(by_shard.into_values().map(|given| given[0]).collect());
    }
    let mut problems = Vec::new();
    if missing_count > 0 {
        let more = if missing_count > missing.len() {
            format!(" and {} more", missing_count - missing.len())
        } else {
            String::new()
        };
        let listed = |f: &dyn Fn(usize) -> String| {
            missing.iter().map(|&k| f(k)).collect::<Vec<_>>().join(",")
        };
        problems.push(format!(
            "{missing_count} of {n} shards missing: {}{more} (run them, e.g. sbatch --array={}, or give their files)",
            listed(&|k| format!("{k}/{n}")).replace(',', ", "),
            listed(&|k| k.to_string()),
        ));
    }
    problems.extend(twice);
    Err(MergeError::Incomplete(format!(
        "{}; nothing was merged",
        problems.join("; ")
    )))
}

/// The most missing shards a merge error lists.
const MAX_LISTED: usize = 20;

/// The top-level fields in which two descriptions differ, comma-separated.
fn differences(a: &Value, b: &Value) -> String {
    let keys = [
        "diabolo",
        "scenario",
        "axes",
        "samples",
        "points",
        "max_rows",
        "max_duration",
    ];
    let differ: Vec<&str> = keys.into_iter().filter(|k| a.get(k) != b.get(k)).collect();
    if differ.is_empty() {
        "descriptions".into()
    } else {
        differ.join(", ")
    }
}

/// Copies the CSV text of the shard `stamp` describes, from `input`, to `out`: with its header
/// line when `with_header` (the first shard), else without. `header` holds the first shard's
/// header, which every shard's must equal (set from the first shard copied). The whole text
/// is checked against the stamp's length and SHA-256; a difference is an error naming `name`.
pub fn copy_shard(
    name: &str,
    stamp: &ShardStamp,
    input: &mut dyn Read,
    with_header: bool,
    header: &mut Option<Vec<u8>>,
    out: &mut dyn Write,
) -> Result<(), MergeError> {
    let read = |source| MergeError::Read {
        name: name.to_string(),
        source,
    };
    let changed = |reason: String| MergeError::Changed {
        name: name.to_string(),
        label: stamp.label(),
        reason,
    };
    let mut input = BufReader::with_capacity(1 << 16, input);
    let mut hasher = Sha256::new();
    let mut first_line = Vec::new();
    input.read_until(b'\n', &mut first_line).map_err(read)?;
    hasher.update(&first_line);
    let mut bytes = first_line.len() as u64;
    match header {
        Some(h) if *h != first_line => {
            return Err(changed("its header is not the other shards'".into()))
        }
        Some(_) => {}
        None => *header = Some(first_line.clone()),
    }
    if with_header {
        out.write_all(&first_line).map_err(MergeError::Write)?;
    }
    loop {
        let chunk = input.fill_buf().map_err(read)?;
        if chunk.is_empty() {
            break;
        }
        hasher.update(chunk);
        bytes += chunk.len() as u64;
        out.write_all(chunk).map_err(MergeError::Write)?;
        let n = chunk.len();
        input.consume(n);
    }
    let content = Content {
        bytes,
        sha256: hex(&hasher.finalize()),
    };
    if !stamp.describes(&content) {
        let reason = if content.bytes != stamp.bytes {
            format!(
                "{} bytes, its stamp says {}: it was cut short or changed after it was written",
                content.bytes, stamp.bytes
            )
        } else {
            "its SHA-256 is not its stamp's: it was changed after it was written".into()
        };
        return Err(changed(reason));
    }
    Ok(())
}

/// The length and SHA-256 of everything `input` holds (a shard's text, to compare with its
/// stamp before running it again).
pub fn content_of(input: &mut dyn Read) -> io::Result<Content> {
    let mut digest = Digesting::new(io::sink());
    io::copy(input, &mut digest)?;
    Ok(digest.finish().1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::Sampling;

    fn sweep(friction: &str, samples: Option<Sampling>) -> Sweep {
        let axes = vec![Axis::parse_grid(&format!("params.friction={friction}")).unwrap()];
        let base = serde_json::to_value(crate::Scenario::default()).unwrap();
        Sweep::new(base, std::path::Path::new("."), axes, samples).unwrap()
    }

    fn stamp(sweep: &Sweep, k: usize, n: usize) -> ShardStamp {
        let content = Content {
            bytes: 0,
            sha256: String::new(),
        };
        sweep.stamp(k, n, &content)
    }

    #[test]
    fn a_fingerprint_changes_with_the_axes_and_the_seed_and_not_with_key_order() {
        let a = sweep("0.1:0.3:4", None);
        assert_eq!(a.fingerprint(), sweep("0.1:0.3:4", None).fingerprint());
        assert_ne!(a.fingerprint(), sweep("0.1:0.3:5", None).fingerprint());
        let seeded = |seed| Some(Sampling { samples: 4, seed });
        assert_ne!(
            sweep("0.1:0.3:4", seeded(1)).fingerprint(),
            sweep("0.1:0.3:4", seeded(2)).fingerprint()
        );
        let document = |text: &str| {
            let value: Value = serde_json::from_str(text).unwrap();
            sorted(&value).to_string()
        };
        assert_eq!(
            document(r#"{"sim": {"duration": 1, "rtol": 1e-8}, "params": {}}"#),
            document(r#"{"params": {}, "sim": {"rtol": 1e-8, "duration": 1}}"#)
        );
    }

    #[test]
    fn merge_order_names_the_missing_and_the_doubled_shards() {
        let s = sweep("0.1:0.3:10", None);
        let stamps = vec![stamp(&s, 3, 4), stamp(&s, 1, 4), stamp(&s, 1, 4)];
        let names: Vec<String> = ["c", "a", "b"].map(String::from).to_vec();
        let e = merge_order(&names, &stamps).unwrap_err().to_string();
        assert!(e.contains("2 of 4 shards missing: 2/4, 4/4"), "{e}");
        assert!(e.contains("shard 1/4 is given 2 times (a, b)"), "{e}");
        // A hundred million shards, one given: the first 20 missing are listed, not all.
        let lone = merge_order(&["a".into()], &[stamp(&s, 1, MAX_POINTS)]);
        let e = lone.unwrap_err().to_string();
        assert!(
            e.starts_with("99999999 of 100000000 shards missing: 2/100000000, 3/100000000"),
            "{e}"
        );
        assert!(e.contains("21/100000000 and 99999979 more"), "{e}");
        assert!(e.len() < 1000, "{e}");
        let all: Vec<ShardStamp> = (1..=4).rev().map(|k| stamp(&s, k, 4)).collect();
        let names: Vec<String> = (1..=4).map(|k| k.to_string()).collect();
        assert_eq!(merge_order(&names, &all).unwrap(), vec![3, 2, 1, 0]);
    }

    #[test]
    fn a_stamp_that_contradicts_itself_is_refused() {
        let s = sweep("0.1:0.3:10", None);
        let good = stamp(&s, 2, 3);
        assert_eq!(ShardStamp::parse(&good.to_text()).unwrap(), good);
        let mut moved = good.clone();
        moved.points = [0, 3];
        let mut edited = good.clone();
        edited.description["points"] = json!(11);
        let mut newer = good.clone();
        newer.format = "diabolo-sweep-shard/2".into();
        for (bad, reason) in [
            (moved, "not those of shard 2/3"),
            (edited, "fingerprint is not that of its description"),
            (newer, "format"),
        ] {
            let e = ShardStamp::parse(&bad.to_text()).unwrap_err().to_string();
            assert!(e.contains(reason), "{e}");
        }
        assert!(ShardStamp::parse("{}").is_err());
    }
}

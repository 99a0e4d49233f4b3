//! The command fuzzed as an attacker or a careless script would use it: thousands of mutated
//! scenarios (from the shipped ones), mutated scenarios in space (the shipped ones, planar ones
//! turned to space and random ones with third coordinates, axles, axle rates, the axle's
//! parameters and models: `space.rs`), `--set` overrides, and mutated trajectory, event and
//! recording files for `check`, `plot`, `animate` and `replay`. Each case runs the real binary
//! under a memory limit and a time limit and must keep the contract:
//!
//! - the exit code is 0, 1 or 2 (never a panic's 101, never killed by a signal or the limits);
//! - `validate` and `run` agree: `run` exits 2 exactly when `validate` does, and then writes
//!   nothing;
//! - no temporary file is left behind, and a failing command leaves no partial picture;
//! - messages are bounded and speak the user's words (no Rust type names, no `None`/`Some(`,
//!   no `NaN s` times);
//! - in space, a run that exits 0 or 1 says so in its summary (`ok`, or why it stopped, the
//!   event log ending with that failure), writes the space columns, and writes the same
//!   trajectory and event log when run again.
//!
//! Switches (environment variables):
//! - `DIABOLO_FUZZ_CASES`: scenario cases (default 3000; table cases are a third of it, cases
//!   in space a tenth; `DIABOLO_FUZZ_SPACE_CASES` sets those alone).
//!   `DIABOLO_FUZZ_CASES=100000 cargo test --release --test fuzz` is a long run.
//! - `DIABOLO_FUZZ_SEED`: the seed (default fixed, so CI is reproducible).
//! - `DIABOLO_FUZZ_CASE`: run only this case number (as printed by a failure).
//! - `DIABOLO_FUZZ_VERBOSE`: print every case, its exit code and the first line of its message.
//!
//! Each failure is printed with its case number, what was mutated, the command and the
//! message, and the input is kept under `target/fuzz-failures/`.

mod common;
#[path = "fuzz/space.rs"]
mod space;

use common::contacts::Disc;
use common::SplitMix;
use serde_json::{json, Map, Value};
use space::{space_base, space_problems, SPACE_RUN_LIMITS};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Virtual memory a case may use (KiB for `ulimit -v`): 2 GiB.
const MEMORY_LIMIT_KIB: u64 = 2 * 1024 * 1024;
/// Wall time a case may take before it is killed and reported.
const TIME_LIMIT: Duration = Duration::from_secs(20);
/// Wall-clock budget given to every fuzzed run (`sim.max_wall`), s.
const RUN_WALL_BUDGET: &str = "4";
/// Longest message a command may print on standard error, bytes.
const MAX_MESSAGE_BYTES: usize = 4096;
/// Limits passed to `validate` and `run` alike, so that a fuzzed duration or row count cannot
/// fill the disk.
const RUN_LIMITS: [&str; 4] = ["--max-rows", "200000", "--max-duration", "30"];

/// Words that must never reach a user.
const FORBIDDEN: [&str; 11] = [
    "panicked",
    "RUST_BACKTRACE",
    "expected struct",
    "expected usize",
    "expected u64",
    "expected i32",
    "expected f64",
    "variant identifier",
    "Some(",
    "None",
    // A failure time that is not a number (`t = NaN s`); `t = NaN` alone may echo an input cell.
    "NaN s",
];

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

fn seed() -> u64 {
    env_number("DIABOLO_FUZZ_SEED").unwrap_or(0xD1AB_0105_EED5)
}

fn scenario_cases() -> usize {
    env_number("DIABOLO_FUZZ_CASES").map_or(3000, |n| n as usize)
}

fn space_cases() -> usize {
    env_number("DIABOLO_FUZZ_SPACE_CASES").map_or(scenario_cases() / 10, |n| n as usize)
}

fn workspace() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("diabolo-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn failures_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What a command did.
struct Outcome {
    code: Option<i32>,
    killed: bool,
    stderr: String,
}

/// Runs the binary with `args` in `dir` under the memory and time limits; standard output goes
/// to `dir/stdout`, standard error to `dir/stderr`.
fn run_binary(args: &[OsString], stdin: Option<&Path>, dir: &Path) -> Outcome {
    let stdout = std::fs::File::create(dir.join("stdout")).unwrap();
    let stderr = std::fs::File::create(dir.join("stderr")).unwrap();
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_LIMIT_KIB}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_diabolo"))
        .args(args)
        .current_dir(dir)
        .stdout(stdout)
        .stderr(stderr);
    command.stdin(match stdin {
        Some(path) => Stdio::from(std::fs::File::open(path).unwrap()),
        None => Stdio::null(),
    });
    let start = Instant::now();
    let mut child = command.spawn().expect("the binary starts");
    let mut killed = false;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > TIME_LIMIT {
            let _ = child.kill();
            killed = true;
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let bytes = std::fs::read(dir.join("stderr")).unwrap_or_default();
    Outcome {
        code: status.code(),
        killed,
        stderr: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

/// The files in `dir` (names).
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// One fuzz case's record: what it did, and what went wrong.
struct Case {
    number: usize,
    what: String,
    problems: Vec<String>,
    input: Option<(String, Vec<u8>)>,
    /// The exit code of the case's last command (`run` for a scenario).
    exit: Option<i32>,
    /// The first line of that command's message.
    message: String,
}

impl Case {
    fn new(number: usize) -> Self {
        Self {
            number,
            what: String::new(),
            problems: Vec::new(),
            input: None,
            exit: None,
            message: String::new(),
        }
    }

    /// The checks every command must pass: an allowed exit code within the limits, and a
    /// bounded message in the user's words.
    fn expect(&mut self, command: &str, outcome: &Outcome, allowed: &[i32]) {
        self.exit = outcome.code;
        self.message = outcome
            .stderr
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(200)
            .collect();
        if outcome.killed {
            self.problems.push(format!(
                "{command}: still running after {} s (killed)",
                TIME_LIMIT.as_secs()
            ));
            return;
        }
        match outcome.code {
            Some(code) if allowed.contains(&code) => {}
            Some(code) => self
                .problems
                .push(format!("{command}: exit {code} (allowed {allowed:?})")),
            None => self.problems.push(format!(
                "{command}: ended by a signal (memory limit or abort)"
            )),
        }
        if outcome.stderr.len() > MAX_MESSAGE_BYTES {
            self.problems.push(format!(
                "{command}: {} bytes on standard error",
                outcome.stderr.len()
            ));
        }
        for word in FORBIDDEN {
            if outcome.stderr.contains(word) {
                self.problems
                    .push(format!("{command}: the message contains {word:?}"));
            }
        }
        if outcome.code.is_some_and(|c| c != 0) && outcome.stderr.trim().is_empty() {
            self.problems
                .push(format!("{command}: failed without a message"));
        }
    }

    fn report(&self, stderr: &str) -> String {
        let mut text = format!("case {}: {}\n", self.number, self.what);
        for p in &self.problems {
            let _ = writeln!(text, "  - {p}");
        }
        let excerpt: String = stderr.chars().take(600).collect();
        let _ = writeln!(text, "  stderr: {excerpt}");
        text
    }
}

// ---------------------------------------------------------------------------------------------
// Scenario mutations

/// Numbers an attacker would try.
const EXTREMES: [f64; 22] = [
    0.0,
    -0.0,
    -1.0,
    1.0,
    0.5,
    3.0,
    100.0,
    1e3,
    1e6,
    1e9,
    1e12,
    -1e9,
    1e-9,
    1e-300,
    5e-324,
    1e308,
    -1e308,
    1.7976931348623157e308,
    4294967295.0,
    1e20,
    -0.001,
    2.5e-3,
];

/// Text an attacker would try where a name goes.
const WORDS: [&str; 16] = [
    "force",
    "accel",
    "path",
    "released",
    "step",
    "tanh",
    "bearing",
    "dopri5",
    "dop853",
    "rk4",
    "bogus",
    "",
    " ",
    "NaN",
    "1e400",
    "../../etc/passwd",
];

fn pick<'a, T>(rng: &mut SplitMix, items: &'a [T]) -> &'a T {
    &items[rng.int(0, items.len() as i64 - 1) as usize]
}

/// Every place in a JSON document, as JSON pointers ("" is the document).
fn places(value: &Value, here: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                places(
                    v,
                    format!("{here}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                places(v, format!("{here}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(here);
}

/// The places of `all` whose value in `doc` passes `test`.
fn places_where<'a>(doc: &Value, all: &'a [String], test: fn(&Value) -> bool) -> Vec<&'a String> {
    all.iter()
        .filter(|p| doc.pointer(p).is_some_and(test))
        .collect()
}

/// A JSON pointer as a dotted `--set` key (`/initial/diabolos/0/spin` -> `initial.diabolos[0].spin`).
fn dotted(pointer: &str) -> String {
    let mut key = String::new();
    for part in pointer.split('/').skip(1) {
        if part.chars().all(|c| c.is_ascii_digit()) && !part.is_empty() {
            let _ = write!(key, "[{part}]");
        } else {
            if !key.is_empty() {
                key.push('.');
            }
            key.push_str(part);
        }
    }
    key
}

fn random_value(rng: &mut SplitMix) -> Value {
    match rng.int(0, 9) {
        0 => Value::Null,
        1 => json!(rng.coin()),
        2 => json!(pick(rng, &WORDS)),
        3 => json!([]),
        4 => json!({}),
        5 => json!([*pick(rng, &EXTREMES), *pick(rng, &EXTREMES)]),
        6 => json!([
            [0.0, *pick(rng, &EXTREMES), 1.0],
            [*pick(rng, &EXTREMES), 0.0, 1.0]
        ]),
        7 => json!("x".repeat(100_000)),
        8 => json!(rng.int(-3, 1_000_000_000)),
        _ => json!(*pick(rng, &EXTREMES)),
    }
}

/// Applies one random mutation to the document; says what it did.
fn mutate(doc: &mut Value, rng: &mut SplitMix) -> String {
    let mut all = Vec::new();
    places(doc, String::new(), &mut all);
    let numbers = places_where(doc, &all, Value::is_number);
    let objects = places_where(doc, &all, Value::is_object);
    let arrays = places_where(doc, &all, Value::is_array);
    let strings = places_where(doc, &all, Value::is_string);
    let choice = rng.int(0, 9);
    if objects.is_empty() && numbers.is_empty() {
        return "nothing (no object or number left)".into();
    }
    if (choice <= 3 || objects.is_empty()) && !numbers.is_empty() {
        let at = (*pick(rng, &numbers)).clone();
        let x = *pick(rng, &EXTREMES);
        *doc.pointer_mut(&at).unwrap() = json!(x);
        return format!("{at} = {x:e}");
    }
    match choice {
        4 => {
            let at = (*pick(rng, &all)).clone();
            let v = random_value(rng);
            let shown: String = v.to_string().chars().take(60).collect();
            match doc.pointer_mut(&at) {
                Some(slot) => *slot = v,
                None => return "nothing".into(),
            }
            format!("{at} = {shown}")
        }
        5 => {
            let at = (*pick(rng, &objects)).clone();
            let map = doc.pointer_mut(&at).unwrap().as_object_mut().unwrap();
            if map.is_empty() {
                return "nothing".into();
            }
            let key = map
                .keys()
                .nth(rng.int(0, map.len() as i64 - 1) as usize)
                .unwrap()
                .clone();
            map.shift_remove(&key);
            format!("{at}/{key} removed")
        }
        6 => {
            let at = (*pick(rng, &objects)).clone();
            let map = doc.pointer_mut(&at).unwrap().as_object_mut().unwrap();
            map.insert("bogus".into(), random_value(rng));
            format!("{at}/bogus added")
        }
        7 if !strings.is_empty() => {
            let at = (*pick(rng, &strings)).clone();
            let w = *pick(rng, &WORDS);
            *doc.pointer_mut(&at).unwrap() = json!(w);
            format!("{at} = {w:?}")
        }
        8 if !arrays.is_empty() => {
            let at = (*pick(rng, &arrays)).clone();
            let items = doc.pointer_mut(&at).unwrap().as_array_mut().unwrap();
            match rng.int(0, 3) {
                0 if !items.is_empty() => {
                    let first = items[0].clone();
                    items.push(first);
                    format!("{at}: first item repeated at the end")
                }
                1 if !items.is_empty() => {
                    items.pop();
                    format!("{at}: last item removed")
                }
                2 => {
                    items.reverse();
                    format!("{at}: reversed")
                }
                _ => {
                    items.clear();
                    format!("{at}: emptied")
                }
            }
        }
        _ => {
            let at = (*pick(rng, &all)).clone();
            let v = json!(*pick(rng, &EXTREMES));
            match doc.pointer_mut(&at) {
                Some(slot) => *slot = v.clone(),
                None => return "nothing".into(),
            }
            format!("{at} = {v}")
        }
    }
}

/// Scales one number of the document by a factor from 1/2 to 2 (or flips its sign): values a
/// careless user or a sweep might give, mostly within the accepted ranges.
fn perturb(doc: &mut Value, rng: &mut SplitMix) -> String {
    let mut all = Vec::new();
    places(doc, String::new(), &mut all);
    let numbers = places_where(doc, &all, Value::is_number);
    if numbers.is_empty() {
        return "nothing".into();
    }
    let at = (*pick(rng, &numbers)).clone();
    let slot = doc.pointer_mut(&at).unwrap();
    let old = slot.as_f64().unwrap();
    let factor = if rng.int(0, 19) == 0 {
        -1.0
    } else {
        2f64.powf(rng.uniform(-1.0, 1.0))
    };
    let new = if old == 0.0 {
        rng.uniform(-1.0, 1.0)
    } else {
        old * factor
    };
    *slot = if slot.is_i64() || slot.is_u64() {
        json!(new.round() as i64)
    } else {
        json!(new)
    };
    format!("{at}: {old} -> {}", slot)
}

/// JSON text of `value` with the first key of the object at `duplicate_at` written twice.
fn text_with_duplicate(value: &Value, here: &str, duplicate_at: &str, out: &mut String) {
    match value {
        Value::Object(map) => {
            out.push('{');
            let mut first = true;
            for (i, (k, v)) in map.iter().enumerate() {
                let copies = if i == 0 && here == duplicate_at { 2 } else { 1 };
                for _ in 0..copies {
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    out.push_str(&Value::String(k.clone()).to_string());
                    out.push(':');
                    let path = format!("{here}/{}", k.replace('~', "~0").replace('/', "~1"));
                    text_with_duplicate(v, &path, duplicate_at, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                text_with_duplicate(v, &format!("{here}/{i}"), duplicate_at, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// The shipped planar scenarios, shortened (a fuzz case is about input handling, not long runs).
fn shipped_scenarios() -> Vec<(String, Value)> {
    let found = shipped(false);
    assert!(found.len() >= 5, "the shipped scenarios are there");
    found
}

/// The shipped scenarios in space (`"space": true`) or in the plane, shortened to 0.5 s.
fn shipped(space: bool) -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut found: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| {
            let mut doc: Value =
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            if (doc["sim"]["space"] == json!(true)) != space {
                return None;
            }
            let duration = doc["sim"]["duration"].as_f64().unwrap();
            doc["sim"]["duration"] = json!(duration.min(0.5));
            doc.as_object_mut().unwrap().remove("description");
            Some((p.file_name().unwrap().to_string_lossy().into_owned(), doc))
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

/// A scenario case drawn: the scenario's text, the `--set` arguments, and what was done.
type DrawnCase = (Vec<u8>, Vec<String>, String);

/// The scenario text of a case and the `--set` arguments; what was done.
fn scenario_case(rng: &mut SplitMix, scenarios: &[(String, Value)]) -> DrawnCase {
    let (name, base) = pick(rng, scenarios);
    mutated_case(rng, name, base.clone())
}

/// The scenario `doc` (named `name`) perturbed or mutated, maybe given `--set` overrides, maybe
/// written broken: its text and the `--set` arguments; what was done.
fn mutated_case(rng: &mut SplitMix, name: &str, mut doc: Value) -> DrawnCase {
    let mut what = vec![name.to_string()];
    let plausible = rng.coin();
    if plausible {
        // Plausible but unusual physics: most of these runs go through the simulation.
        for _ in 0..rng.int(1, 4) {
            what.push(perturb(&mut doc, rng));
        }
    } else {
        for _ in 0..rng.int(1, 3) {
            what.push(mutate(&mut doc, rng));
        }
    }
    let mut sets = Vec::new();
    if rng.int(0, 5) == 0 {
        let mut all = Vec::new();
        places(&doc, String::new(), &mut all);
        let key = match rng.int(0, 3) {
            0 => (*pick(
                rng,
                &[
                    "a..b",
                    "x[1",
                    "params.",
                    "[0]",
                    "initial.diabolos[99].x",
                    "=",
                    "drive.left.csv",
                    "sim.duration.x",
                ],
            ))
            .to_string(),
            _ => dotted(pick::<String>(rng, &all)),
        };
        let value = match rng.int(0, 3) {
            0 => (*pick(rng, &WORDS)).to_string(),
            1 => random_value(rng).to_string(),
            _ => format!("{:e}", *pick(rng, &EXTREMES)),
        };
        let shown: String = value.chars().take(40).collect();
        what.push(format!("--set {key}={shown}"));
        sets.push(format!("{key}={value}"));
    }
    let mut all = Vec::new();
    places(&doc, String::new(), &mut all);
    let objects = places_where(&doc, &all, |v| v.as_object().is_some_and(|m| !m.is_empty()));
    let text = match if plausible { 19 } else { rng.int(0, 19) } {
        0 if !objects.is_empty() => {
            let at = (*pick(rng, &objects)).clone();
            what.push(format!("first key of {at:?} written twice"));
            let mut text = String::new();
            text_with_duplicate(&doc, "", &at, &mut text);
            text.into_bytes()
        }
        1 => {
            let mut text = doc.to_string().into_bytes();
            let cut = rng.int(0, text.len() as i64) as usize;
            text.truncate(cut);
            what.push(format!("text cut at byte {cut}"));
            text
        }
        2 => {
            let text = (*pick(
                rng,
                &["[]", "null", "\"x\"", "{}", "", "1e400", "{\"params\":"],
            ))
            .to_string();
            what.push(format!("the scenario is {text:?}"));
            text.into_bytes()
        }
        3 => {
            let mut text = doc.to_string().into_bytes();
            let at = rng.int(0, text.len() as i64 - 1) as usize;
            text[at] = 0xff;
            what.push(format!("byte {at} replaced by 0xff"));
            text
        }
        _ => serde_json::to_vec_pretty(&doc).unwrap(),
    };
    (text, sets, what.join("; "))
}

/// Which scenarios a case runs.
#[derive(Clone, Copy, PartialEq)]
enum Dimension {
    /// Planar: under a wall-clock budget (`sim.max_wall`), an `ok` run's physics checked.
    Plane,
    /// In space: no wall-clock budget (the run in space refuses `sim.max_wall`), the duration
    /// kept short ([`SPACE_RUN_LIMITS`]), the summary read and the run repeated byte for byte.
    Space,
}

/// Runs one scenario case: `make` draws the scenario text, its `--set` arguments and what was
/// done.
fn run_scenario_case(
    number: usize,
    rng: &mut SplitMix,
    root: &Path,
    dimension: Dimension,
    make: &dyn Fn(&mut SplitMix) -> DrawnCase,
) -> Case {
    let mut case = Case::new(number);
    let dir = root.join(format!("s{number}"));
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let (text, sets, what) = make(rng);
    case.what = what;
    let scenario = dir.join("scenario.json");
    std::fs::write(&scenario, &text).unwrap();
    case.input = Some(("json".into(), text.clone()));
    let mut common: Vec<OsString> = Vec::new();
    for s in &sets {
        common.push("--set".into());
        common.push(s.into());
    }
    if dimension == Dimension::Plane {
        common.extend(RUN_LIMITS.iter().map(OsString::from));
        common.push("--set".into());
        common.push(format!("sim.max_wall={RUN_WALL_BUDGET}").into());
    } else {
        common.extend(SPACE_RUN_LIMITS.iter().map(OsString::from));
    }
    let mut validate: Vec<OsString> = vec!["validate".into(), scenario.clone().into()];
    validate.extend(common.iter().cloned());
    let validated = run_binary(&validate, None, &dir);
    case.expect("validate", &validated, &[0, 2]);

    let mut run: Vec<OsString> = vec!["run".into(), scenario.into()];
    run.extend(common.iter().cloned());
    // `-o`, `--events` and `--summary` into `folder`.
    let outputs = |folder: &str| {
        [
            ("-o", "t.csv"),
            ("--events", "e.jsonl"),
            ("--summary", "s.json"),
        ]
        .map(|(flag, name)| [flag.into(), format!("{folder}/{name}").into()])
        .concat()
    };
    let mut run_again = run.clone();
    run.extend(outputs("out"));
    let ran = run_binary(&run, None, &dir);
    case.expect("run", &ran, &[0, 1, 2]);
    let files = listing(&out);
    match (validated.code, ran.code) {
        (Some(0), Some(0 | 1)) if !files.iter().any(|f| f == "t.csv") => {
            case.problems.push(format!(
                "run: exit {:?} but no trajectory ({files:?})",
                ran.code
            ));
        }
        (Some(2), Some(2)) if !files.is_empty() => {
            case.problems
                .push(format!("run: exit 2 but files were written: {files:?}"));
        }
        (Some(0), Some(0 | 1)) | (Some(2), Some(2)) => {}
        (Some(v), Some(r)) if !ran.killed => case
            .problems
            .push(format!("validate exits {v} but run exits {r}")),
        _ => {}
    }
    if let Some(temp) = files.iter().find(|f| f.starts_with('.')) {
        case.problems
            .push(format!("a temporary file is left: {temp}"));
    }
    match dimension {
        Dimension::Plane if ran.code == Some(0) => {
            let problems = physical_problems(&dir, &common, &text, &sets);
            case.problems.extend(problems);
        }
        Dimension::Space if matches!(ran.code, Some(0 | 1)) && !ran.killed => {
            std::fs::create_dir_all(dir.join("again")).unwrap();
            run_again.extend(outputs("again"));
            let again = run_binary(&run_again, None, &dir);
            case.problems
                .extend(space_problems(&dir, ran.code, again.code));
        }
        _ => {}
    }
    if !case.problems.is_empty() {
        case.problems.push(format!(
            "stderr of run: {}",
            ran.stderr.chars().take(400).collect::<String>()
        ));
        case.problems.push(format!(
            "stderr of validate: {}",
            validated.stderr.chars().take(400).collect::<String>()
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    case
}

/// The physics an `ok` run must keep, checked on the case run again with rows every 1 ms:
/// no two live discs closer than 2R, no disc within R of a stick tip, none flying below the
/// floor, the loss accounts never decreasing, and the first event (not a friction change) the
/// same when the duration reaches beyond it (the step size follows the duration).
fn physical_problems(dir: &Path, common: &[OsString], text: &[u8], sets: &[String]) -> Vec<String> {
    let Ok(doc) = serde_json::from_slice::<Value>(text) else {
        return Vec::new();
    };
    let geometry_set = sets
        .iter()
        .any(|s| s.contains("radius") || s.contains("floor") || s.contains("output_interval"));
    let radius = doc["params"]["diabolo_radius"].as_f64().unwrap_or(0.0635);
    let floor = doc["sim"]["floor"].as_f64();
    let run = |extra: &[String], name: &str| -> Option<(String, String)> {
        let mut args: Vec<OsString> = vec!["run".into(), "scenario.json".into()];
        args.extend(common.iter().cloned());
        for e in extra {
            args.push("--set".into());
            args.push(e.into());
        }
        args.extend(["-q", "-o"].map(OsString::from));
        args.push(format!("out/{name}.csv").into());
        args.push("--events".into());
        args.push(format!("out/{name}.jsonl").into());
        let outcome = run_binary(&args, None, dir);
        (outcome.code == Some(0)).then(|| {
            let read = |ext: &str| {
                std::fs::read_to_string(dir.join(format!("out/{name}.{ext}"))).unwrap_or_default()
            };
            (read("csv"), read("jsonl"))
        })
    };
    let mut problems = Vec::new();
    let Some((rows, events)) = run(&["sim.output_interval=0.001".to_string()], "p") else {
        return problems;
    };
    if !geometry_set {
        problems.extend(contact_violation(&rows, radius, floor));
    }
    let tolerance_set = sets
        .iter()
        .any(|s| s.contains("tol") || s.contains("method"));
    let rk4 = doc["sim"]["method"].as_str() == Some("rk4");
    if !tolerance_set && !rk4 {
        let defaults = diabolo::Settings::default();
        let rtol = doc["sim"]["rtol"].as_f64().unwrap_or(defaults.rtol);
        let atol = doc["sim"]["atol"].as_f64().unwrap_or(defaults.atol);
        problems.extend(ledger_problem(&rows, rtol, atol));
    }
    let first = first_event(&events);
    let end = rows
        .lines()
        .last()
        .and_then(|l| l.split(',').next())
        .and_then(|t| t.parse::<f64>().ok());
    if let (Some(first), Some(end)) = (first, end) {
        let longer = format!("sim.duration={}", end * 1.5 + 0.1);
        if end * 1.5 + 0.1 < 30.0 {
            if let Some((_, again)) = run(std::slice::from_ref(&longer), "q") {
                let other = first_event(&again);
                let same = other.as_ref().is_some_and(|o| {
                    o.0 == first.0 && (o.1 - first.1).abs() <= 1e-9 * (1.0 + first.1.abs())
                });
                // A string at full length with no tension (everything falling together, as in
                // let_go) loosens or not by the round-off of T0: a knife edge, not an event.
                let knife_edge = first.0.starts_with("loosen") && tension_at_roundoff(&rows);
                if !same && !knife_edge {
                    problems.push(format!(
                        "the first event depends on the duration: {first:?} at the scenario's, {other:?} with --set {longer}"
                    ));
                }
            }
        }
    }
    problems
}

/// Whether the string's tension T0 stays within round-off (1e-9 N) over the whole trajectory.
fn tension_at_roundoff(csv: &str) -> bool {
    let (header, rows) = table(csv);
    header
        .iter()
        .position(|h| h == "T0")
        .is_some_and(|c| rows.iter().all(|r| r[c].is_nan() || r[c].abs() < 1e-9))
}

/// The first event of a JSON-lines log that is not a friction change: (kind and object, t).
fn first_event(log: &str) -> Option<(String, f64)> {
    log.lines().find_map(|line| {
        let event: Value = serde_json::from_str(line).ok()?;
        let kind = event["kind"].as_str()?;
        if matches!(kind, "stick" | "unstick" | "slip_reversal") {
            return None;
        }
        Some((format!("{kind} {}", event["object"]), event["t"].as_f64()?))
    })
}

/// The columns of a trajectory CSV by name, and its rows as numbers (NaN where not a number).
fn table(csv: &str) -> (Vec<String>, Vec<Vec<f64>>) {
    let mut lines = csv.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap_or_default()
        .split(',')
        .map(String::from)
        .collect();
    let rows = lines
        .map(|l| {
            l.split(',')
                .map(|c| c.parse().unwrap_or(f64::NAN))
                .collect()
        })
        .collect();
    (header, rows)
}

/// The first row of the trajectory `csv` that breaks the contact invariants, in words (see
/// [`common::contacts::violation`]).
fn contact_violation(csv: &str, radius: f64, floor: Option<f64>) -> Option<String> {
    let (header, rows) = table(csv);
    let col = |name: &str| header.iter().position(|h| h == name);
    let modes: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let diabolos: Vec<_> = (1..)
        .map_while(|k| {
            let (x, y) = (col(&format!("d{k}_x"))?, col(&format!("d{k}_y"))?);
            Some((k, x, y, col(&format!("d{k}_mode"))))
        })
        .collect();
    let tips = [
        (col("left_x")?, col("left_y")?),
        (col("right_x")?, col("right_y")?),
    ];
    rows.iter().enumerate().find_map(|(r, row)| {
        let discs: Vec<Disc> = diabolos
            .iter()
            .map(|&(k, x, y, mode)| Disc {
                k,
                pos: [row[x], row[y]],
                mode: mode.map_or("string", |m| modes[r][m]),
            })
            .collect();
        let tips = tips.map(|(x, y)| [row[x], row[y]]);
        common::contacts::violation(row[0], tips, &discs, radius, floor)
    })
}

/// The first row where a loss account (friction, drag, impulse, string) fell below its highest
/// value so far, or the ledger E - E(0) = W - losses opened, by more than the run's ledger
/// tolerance (`LedgerWatch`: 100 (atol + rtol S) + 1e-7 S, S the sum of the magnitudes of the
/// energies and accounts), in words.
fn ledger_problem(csv: &str, rtol: f64, atol: f64) -> Option<String> {
    use diabolo::model::energy::LedgerWatch;
    let (header, rows) = table(csv);
    let col = |name: &str| header.iter().position(|h| h == name);
    let (energy, work) = (col("energy")?, col("hand_work")?);
    let losses: Vec<(&str, usize)> = ["friction_loss", "drag_loss", "impulse_loss", "string_loss"]
        .into_iter()
        .filter_map(|a| col(a).map(|c| (a, c)))
        .collect();
    // E(0) before anything at t = 0 (an impulse there is in the first row's accounts).
    let first = rows.first()?;
    let initial = first[energy] - first[work] + losses.iter().map(|&(_, c)| first[c]).sum::<f64>();
    let mut highest = vec![f64::NEG_INFINITY; losses.len()];
    for row in &rows {
        let lost: f64 = losses.iter().map(|&(_, c)| row[c]).sum();
        let scale = initial.abs()
            + row[energy].abs()
            + row[work].abs()
            + losses.iter().map(|&(_, c)| row[c].abs()).sum::<f64>();
        let tolerance = LedgerWatch::FACTOR * (atol + rtol * scale) + LedgerWatch::ROUNDOFF * scale;
        for (i, &(account, c)) in losses.iter().enumerate() {
            if highest[i] - row[c] > tolerance {
                return Some(format!(
                    "{account} falls at t = {}: {} -> {} (tolerance {tolerance:e} J)",
                    row[0], highest[i], row[c]
                ));
            }
            highest[i] = highest[i].max(row[c]);
        }
        let residual = row[energy] - initial - (row[work] - lost);
        if residual.abs() > tolerance {
            return Some(format!(
                "the ledger is open by {residual:e} J at t = {} (tolerance {tolerance:e} J)",
                row[0]
            ));
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Table mutations (trajectories, event logs, recordings)

/// Cells an attacker would try.
const CELLS: [&str; 16] = [
    "abc",
    "",
    "0x10",
    " 0.0 ",
    "NaN",
    "inf",
    "-inf",
    "1e400",
    "1e308",
    "-1e308",
    "5e-324",
    "\"q\"",
    "1,2",
    "é",
    "1e-300",
    "4294967295",
];

/// Cells that make a numeric column unreadable (a file with one is refused, exit 2).
const UNREADABLE: [&str; 6] = ["abc", "", "0x10", "\"q\"", "1,2", "é"];

/// A mutated CSV text: its bytes, what was done, and whether a data cell of a numeric column
/// became unreadable.
struct MutatedCsv {
    bytes: Vec<u8>,
    what: String,
    unreadable: bool,
}

fn mutate_csv(text: &str, rng: &mut SplitMix) -> MutatedCsv {
    let mut unreadable = false;
    let mut lines: Vec<Vec<String>> = text
        .lines()
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    let rows = lines.len();
    let width = lines.first().map_or(0, Vec::len);
    let row = rng.int(0, rows as i64 - 1) as usize;
    let column = rng.int(0, width.max(1) as i64 - 1) as usize;
    let what = match rng.int(0, 13) {
        0..=3 => {
            let cell = *pick(rng, &CELLS);
            let numeric = lines[0].get(column).is_some_and(|name| name != "phase");
            if let Some(c) = lines[row].get_mut(column) {
                *c = cell.to_string();
                unreadable = row > 0 && numeric && UNREADABLE.contains(&cell);
            }
            format!("row {row} column {column} = {cell:?}")
        }
        4 => {
            for l in &mut lines {
                if column < l.len() {
                    l.remove(column);
                }
            }
            format!("column {column} removed")
        }
        5 => {
            lines.truncate(1);
            "header only".into()
        }
        6 => {
            lines.truncate(1.min(rows));
            for l in &mut lines {
                l.truncate(1);
            }
            lines.push(vec!["0".into()]);
            "only a t column".into()
        }
        7 => {
            let copy = lines[row].clone();
            lines.insert(row, copy);
            format!("row {row} repeated")
        }
        8 if rows > 2 => {
            lines.swap(1, rows - 1);
            "first and last rows swapped".into()
        }
        9 => {
            lines[row].push("7".into());
            format!("an extra field in row {row}")
        }
        10 => {
            if let Some(h) = lines.first_mut() {
                if let Some(c) = h.get_mut(column) {
                    *c = "t".into();
                }
            }
            format!("header of column {column} renamed t")
        }
        11 => {
            lines.remove(0);
            "header removed".into()
        }
        12 => {
            let mut text = text.as_bytes().to_vec();
            let cut = rng.int(0, text.len() as i64) as usize;
            text.truncate(cut);
            return MutatedCsv {
                bytes: text,
                what: format!("cut at byte {cut}"),
                unreadable: false,
            };
        }
        _ => {
            let mut text = text.as_bytes().to_vec();
            let at = rng.int(0, text.len() as i64 - 1) as usize;
            text[at] = 0xfe;
            return MutatedCsv {
                bytes: text,
                what: format!("byte {at} replaced by 0xfe"),
                unreadable: false,
            };
        }
    };
    let text: String = lines.iter().map(|l| l.join(",") + "\n").collect();
    MutatedCsv {
        bytes: text.into_bytes(),
        what,
        unreadable,
    }
}

/// A recording (replay's format) made from a trajectory CSV: hands and diabolo 1.
fn recording_from(trajectory: &str) -> String {
    let mut lines = trajectory.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let columns = [
        "t", "left_x", "left_y", "right_x", "right_y", "d1_x", "d1_y", "d1_w",
    ]
    .map(at);
    let mut text = String::from("t,left_x,left_y,right_x,right_y,dia_x,dia_y,spin\n");
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let row: Vec<&str> = columns.iter().map(|&i| cells[i]).collect();
        text.push_str(&row.join(","));
        text.push('\n');
    }
    text
}

struct Tables {
    trajectory: String,
    events: String,
    recording: String,
}

/// A fresh trajectory and event log from a shipped scenario, and a recording made from it.
fn tables(root: &Path) -> Tables {
    let dir = root.join("base");
    std::fs::create_dir_all(&dir).unwrap();
    let args: Vec<OsString> = ["run", "scenarios/snap.json", "-o"]
        .iter()
        .map(OsString::from)
        .chain([
            dir.join("t.csv").into(),
            "--events".into(),
            dir.join("e.jsonl").into(),
            "--quiet".into(),
        ])
        .collect();
    let status = Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .args(&args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .unwrap();
    assert!(status.success());
    let trajectory = std::fs::read_to_string(dir.join("t.csv")).unwrap();
    let events = std::fs::read_to_string(dir.join("e.jsonl")).unwrap();
    let recording = recording_from(&trajectory);
    Tables {
        trajectory,
        events,
        recording,
    }
}

fn os(x: impl AsRef<std::ffi::OsStr>) -> OsString {
    x.as_ref().to_os_string()
}

/// A picture size an attacker would try.
fn size(rng: &mut SplitMix) -> String {
    (*pick(
        rng,
        &[
            "0",
            "1",
            "2",
            "10",
            "64",
            "100000",
            "4294967295",
            "70000",
            "-1",
        ],
    ))
    .to_string()
}

fn run_table_case(number: usize, rng: &mut SplitMix, base: &Tables, root: &Path) -> Case {
    let mut case = Case::new(number);
    let dir = root.join(format!("t{number}"));
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let original = dir.join("original.csv");
    std::fs::write(&original, &base.trajectory).unwrap();
    let events = dir.join("events.jsonl");
    let (events_text, events_what) = if rng.int(0, 4) == 0 {
        let m = mutate_csv(&base.events, rng);
        (m.bytes, m.what)
    } else {
        (base.events.clone().into_bytes(), String::new())
    };
    std::fs::write(&events, &events_text).unwrap();
    let kind = rng.int(0, 19);
    let source = if kind == 0 {
        &base.recording
    } else {
        &base.trajectory
    };
    let MutatedCsv {
        bytes: text,
        what,
        unreadable,
    } = if rng.int(0, 5) == 0 {
        MutatedCsv {
            bytes: source.clone().into_bytes(),
            what: "unchanged".into(),
            unreadable: false,
        }
    } else {
        mutate_csv(source, rng)
    };
    let input = dir.join("input.csv");
    std::fs::write(&input, &text).unwrap();
    case.input = Some(("csv".into(), text));
    let (args, allowed, picture): (Vec<OsString>, &[i32], Option<&str>) = match kind {
        0 => {
            let mut a = vec![os("replay"), input.clone().into(), os("--horizons")];
            a.push(os(*pick(
                rng,
                &["0.2", "0.2,0.5", "0", "-1", "1e308", "abc"],
            )));
            a.push(os("--stride"));
            a.push(os(*pick(rng, &["1", "0.5", "1e-9", "0", "-1", "1e308"])));
            (a, &[0, 1, 2], None)
        }
        1..=6 => {
            let (a, e) = if rng.coin() {
                (&input, &original)
            } else {
                (&original, &input)
            };
            let mut a = vec![os("check"), a.clone().into(), e.clone().into()];
            if rng.coin() {
                a.push(os("--rtol"));
                a.push(os(*pick(rng, &["0", "-1", "1e308", "NaN", "1e-300"])));
            }
            if rng.int(0, 3) == 0 {
                a.push(os("--columns"));
                a.push(os(*pick(rng, &["d1_x", "nothing", "t", "d1_x,d1_x", ""])));
            }
            (a, &[0, 1, 2], None)
        }
        7..=14 => {
            let name = *pick(rng, &["out/p.svg", "out/p.png"]);
            let mut a = vec![os("plot"), input.clone().into(), os("-o"), os(name)];
            if rng.coin() {
                a.push(os("--events"));
                a.push(events.clone().into());
            }
            match rng.int(0, 3) {
                0 => {
                    a.push(os("--xy"));
                    a.push(os("--instants"));
                    a.push(os(*pick(rng, &["0", "1", "2", "5", "1000000000"])));
                }
                1 => {
                    a.push(os("--columns"));
                    a.push(os(*pick(
                        rng,
                        &["d1_y", "d1_y+T0", "nothing", "t", "phase", "d1_y,,T0"],
                    )));
                }
                _ => {}
            }
            if rng.int(0, 3) == 0 {
                a.push(os("--width"));
                a.push(os(size(rng)));
            }
            if rng.int(0, 3) == 0 {
                a.push(os("--height"));
                a.push(os(size(rng)));
            }
            (a, &[0, 1, 2], Some(name))
        }
        _ => {
            let name = *pick(rng, &["out/a.svg", "out/a.gif"]);
            let mut a = vec![os("animate"), input.clone().into(), os("-o"), os(name)];
            a.push(os("--width"));
            a.push(os(if rng.int(0, 4) == 0 {
                size(rng)
            } else {
                "64".into()
            }));
            a.push(os("--height"));
            a.push(os(if rng.int(0, 4) == 0 {
                size(rng)
            } else {
                "48".into()
            }));
            if rng.coin() {
                a.push(os("--fps"));
                a.push(os(*pick(
                    rng,
                    &["0", "-1", "1e-300", "5", "1000", "1e308", "NaN"],
                )));
            }
            if rng.coin() {
                a.push(os("--speed"));
                a.push(os(*pick(rng, &["0", "-1", "1e-300", "2", "1e308", "NaN"])));
            }
            if rng.int(0, 3) == 0 {
                a.push(os("--spin-slowdown"));
                a.push(os(*pick(rng, &["0", "-1", "1e-300", "1", "1e308", "NaN"])));
            }
            (a, &[0, 1, 2], Some(name))
        }
    };
    case.what = format!(
        "{} on a file with {what}{}",
        args.iter()
            .map(|a| a.to_string_lossy().chars().take(40).collect::<String>())
            .collect::<Vec<_>>()
            .join(" "),
        if events_what.is_empty() {
            String::new()
        } else {
            format!("; events: {events_what}")
        }
    );
    let outcome = run_binary(&args, None, &dir);
    let command = args[0].to_string_lossy().into_owned();
    case.expect(&command, &outcome, allowed);
    if unreadable && !outcome.killed && outcome.code != Some(2) {
        case.problems.push(format!(
            "{command}: a non-numeric cell in a numeric column, exit {:?} (2 expected: unreadable input)",
            outcome.code
        ));
    }
    let files = listing(&out);
    if let Some(temp) = files.iter().find(|f| f.starts_with('.')) {
        case.problems
            .push(format!("a temporary file is left: {temp}"));
    }
    if let Some(name) = picture {
        let made = files.iter().any(|f| name.ends_with(f.as_str()));
        if outcome.code == Some(0) && !made {
            case.problems.push("exit 0 but no picture".into());
        }
        if outcome.code != Some(0) && made {
            case.problems
                .push(format!("exit {:?} but a picture was written", outcome.code));
        }
    }
    if !case.problems.is_empty() {
        case.problems.push(format!(
            "stderr: {}",
            outcome.stderr.chars().take(400).collect::<String>()
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    case
}

// ---------------------------------------------------------------------------------------------

/// Runs `cases` cases on two threads; case `i` draws from its own generator, so one case can
/// be rerun alone (`DIABOLO_FUZZ_CASE`).
fn fuzz(
    label: &str,
    cases: usize,
    salt: u64,
    body: &(dyn Fn(usize, &mut SplitMix) -> Case + Sync),
) {
    let only = env_number("DIABOLO_FUZZ_CASE").map(|n| n as usize);
    let verbose = std::env::var_os("DIABOLO_FUZZ_VERBOSE").is_some();
    let next = AtomicUsize::new(0);
    let failed: Mutex<Vec<Case>> = Mutex::new(Vec::new());
    // Cases ending with exit 0, 1, 2 and anything else.
    let exits: Mutex<[usize; 4]> = Mutex::new([0; 4]);
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= cases {
                    break;
                }
                if only.is_some_and(|n| n != i) {
                    continue;
                }
                let mut rng =
                    SplitMix::new(seed() ^ salt ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let case = body(i, &mut rng);
                let slot = match case.exit {
                    Some(code @ 0..=2) => code as usize,
                    _ => 3,
                };
                exits.lock().unwrap()[slot] += 1;
                if verbose {
                    eprintln!(
                        "{label} {i}: exit {:?}: {} => {}",
                        case.exit, case.what, case.message
                    );
                }
                if !case.problems.is_empty() {
                    failed.lock().unwrap().push(case);
                }
            });
        }
    });
    let mut failed = failed.into_inner().unwrap();
    failed.sort_by_key(|c| c.number);
    let exits = exits.into_inner().unwrap();
    eprintln!(
        "fuzz {label}: {cases} cases, seed {:#x}, {} failed, {:.1} s; exit 0 / 1 / 2 / other: {exits:?}",
        seed(),
        failed.len(),
        start.elapsed().as_secs_f64()
    );
    // A harness that refuses everything (a flag renamed, a broken base file) or accepts
    // everything proves nothing: both outcomes must be common.
    if only.is_none() && cases >= 100 {
        for (code, what) in [(0, "succeeded"), (2, "were refused as bad input")] {
            assert!(
                exits[code] * 10 >= cases,
                "only {} of {cases} {label} cases {what}: the fuzzing is not exercising the command",
                exits[code]
            );
        }
    }
    if failed.is_empty() {
        return;
    }
    let keep = failures_dir();
    let mut text = String::new();
    for case in failed.iter().take(25) {
        text.push_str(&case.report(""));
        if let Some((extension, input)) = &case.input {
            let path = keep.join(format!("{label}_{}.{extension}", case.number));
            let _ = std::fs::write(&path, input);
            let _ = writeln!(text, "  input kept as {}", path.display());
        }
    }
    panic!(
        "{} of {cases} {label} cases broke the contract (rerun one with DIABOLO_FUZZ_CASE=N):\n{text}",
        failed.len()
    );
}

#[test]
fn mutated_scenarios_keep_the_exit_code_file_and_message_contract() {
    let root = workspace().join("scenarios");
    std::fs::create_dir_all(&root).unwrap();
    let scenarios = shipped_scenarios();
    fuzz("scenario", scenario_cases(), 0, &|i, rng| {
        run_scenario_case(i, rng, &root, Dimension::Plane, &|rng| {
            scenario_case(rng, &scenarios)
        })
    });
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn mutated_scenarios_in_space_keep_the_contract_and_run_the_same_twice() {
    let root = workspace().join("space");
    std::fs::create_dir_all(&root).unwrap();
    let in_space = shipped(true);
    assert!(!in_space.is_empty(), "a shipped scenario in space is there");
    let planar = shipped_scenarios();
    fuzz("space", space_cases(), 0x5FACE, &|i, rng| {
        run_scenario_case(i, rng, &root, Dimension::Space, &|rng| {
            let (name, base) = space_base(rng, &in_space, &planar);
            // A quarter as drawn: the scenarios in space run through the model as written.
            if rng.int(0, 3) == 0 {
                let text = serde_json::to_vec_pretty(&base).unwrap();
                return (text, Vec::new(), format!("{name}, as drawn"));
            }
            mutated_case(rng, &name, base)
        })
    });
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn mutated_trajectories_event_logs_and_recordings_keep_the_contract() {
    let root = workspace().join("tables");
    std::fs::create_dir_all(&root).unwrap();
    let base = tables(&root);
    fuzz("table", scenario_cases() / 3, 0x7AB1E, &|i, rng| {
        run_table_case(i, rng, &base, &root)
    });
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn the_mutator_changes_the_document_and_writes_duplicate_keys() {
    let mut rng = SplitMix::new(1);
    let scenarios = shipped_scenarios();
    let mut changed = 0;
    for _ in 0..50 {
        let (text, _, what) = scenario_case(&mut rng, &scenarios);
        if !scenarios
            .iter()
            .any(|(_, d)| serde_json::to_vec_pretty(d).unwrap() == text)
        {
            changed += 1;
        }
        assert!(!what.is_empty());
    }
    assert!(changed >= 45, "{changed} of 50 cases changed the scenario");
    let mut text = String::new();
    let doc = json!({"params": {"friction": 0.1, "gravity": 9.8}});
    text_with_duplicate(&doc, "", "/params", &mut text);
    assert_eq!(
        text,
        r#"{"params":{"friction":0.1,"friction":0.1,"gravity":9.8}}"#
    );
    let _: Map<String, Value> = serde_json::from_str(&text).unwrap();
}

//! Scenarios in space for the fuzz (docs/interface.md, "Scenarios in space"): the shipped ones,
//! planar shipped ones turned to space, and random ones with every field of the model in space
//! (third coordinates, `sim.space`, `sim.axle`, the axle, its rate, the axle's parameters, a
//! compliant string). The
//! checks an exit 0 or 1 of such a run must pass besides the planar contract.

use super::{pick, SplitMix};
use serde_json::{json, Value};
use std::path::Path;

/// Limits passed to `validate` and `run` of a scenario in space: short runs (no wall-clock
/// budget there: the run in space refuses `sim.max_wall`).
pub const SPACE_RUN_LIMITS: [&str; 4] = ["--max-rows", "20000", "--max-duration", "3"];

/// The base scenario of a case in space: a shipped one in space, a planar shipped one turned to
/// space (by `"space": true` or a third coordinate), or a random one.
pub fn space_base(
    rng: &mut SplitMix,
    shipped: &[(String, Value)],
    planar: &[(String, Value)],
) -> (String, Value) {
    match rng.int(0, 9) {
        0 | 1 => pick(rng, shipped).clone(),
        2 | 3 => {
            let (name, doc) = pick(rng, planar);
            let mut doc = doc.clone();
            let how = lift_to_space(&mut doc, rng);
            (format!("{name} in space ({how})"), doc)
        }
        _ => ("random in space".into(), random_space_scenario(rng)),
    }
}

/// Turns a planar scenario to space: `"space": true`, or a z on the first keyframe of a path.
fn lift_to_space(doc: &mut Value, rng: &mut SplitMix) -> &'static str {
    let keyframes = doc
        .pointer_mut("/drive/right/keyframes/0")
        .and_then(Value::as_array_mut);
    match keyframes {
        Some(frame) if frame.len() == 3 && rng.coin() => {
            frame.push(json!(0.0));
            "a third coordinate"
        }
        _ => {
            doc["sim"]["space"] = json!(true);
            "\"space\": true"
        }
    }
}

/// [x, y, z] rounded to 0.1 mm (as a user writes them).
fn point(x: f64, y: f64, z: f64) -> Value {
    let r = |v: f64| (v * 1e4).round() / 1e4;
    json!([r(x), r(y), r(z)])
}

/// A random hand in space starting at (x, y, z): held still, moving along keyframes, on a sine,
/// or (with its stick's start given) accelerated.
fn random_hand(rng: &mut SplitMix, x: f64, y: f64, z: f64) -> (Value, Option<Value>) {
    let small = |rng: &mut SplitMix, scale: f64| rng.uniform(-scale, scale);
    match rng.int(0, 5) {
        0 => (json!({"type": "path", "keyframes": [[0.0, x, y, z]]}), None),
        1 | 2 => {
            let t = rng.uniform(0.1, 0.5);
            let (dx, dy, dz) = (small(rng, 0.05), small(rng, 0.1), small(rng, 0.1));
            let interpolation = *pick(rng, &["linear", "pchip", "cubic"]);
            (
                json!({"type": "path", "interpolation": interpolation, "keyframes": [
                    [0.0, x, y, z], [t, x + dx, y + dy, z + dz]]}),
                None,
            )
        }
        3 | 4 => {
            let amplitude = point(small(rng, 0.05), small(rng, 0.08), small(rng, 0.08));
            (
                json!({"type": "path", "sine": {"center": point(x, y, z), "amplitude": amplitude,
                    "frequency": rng.uniform(0.5, 4.0), "phase": [0.0, 0.0, 0.0]}}),
                None,
            )
        }
        _ => (
            json!({"type": "accel", "value": point(0.0, small(rng, 1.0), small(rng, 1.0))}),
            Some(json!({"pos": point(x, y, z)})),
        ),
    }
}

/// A random scenario in space: one or two diabolos (by "x" between sticks at one z, or one by
/// "pos" inside the string's reach, a little out of the plane), axles tilted up to about 15
/// degrees, a rigid axle's rate perpendicular to it, the axle's parameters within their ranges.
pub fn random_space_scenario(rng: &mut SplitMix) -> Value {
    let (c, y) = (rng.uniform(0.3, 0.5), rng.uniform(1.0, 1.6));
    let length = 2.0 * c + rng.uniform(0.3, 0.7);
    let by_pos = rng.int(0, 2) == 0;
    let dz = if by_pos { rng.uniform(-0.1, 0.1) } else { 0.0 };
    let rigid = rng.coin();
    let n = if by_pos { 1 } else { rng.int(1, 2) as usize };
    let mut diabolos = Vec::new();
    for k in 0..n {
        // Rounded as written, so that the rate below is perpendicular to the axle read.
        let mut tilted = || (rng.uniform(-0.25, 0.25) * 1e4).round() / 1e4;
        let axle = [tilted(), tilted(), 1.0];
        let mut d = json!({
            "spin": rng.uniform(-1.0, 1.0),
            "axle": axle,
        });
        if by_pos {
            // Below the middle, inside the spheroid of the tips (a slack start) or near taut.
            let half = (c * c + dz * dz / 4.0).sqrt();
            let b = ((length / 2.0).powi(2) - half * half).sqrt();
            d["pos"] = point(0.0, y - b * rng.uniform(0.7, 0.99), dz / 2.0);
        } else {
            let x = if n == 1 {
                rng.uniform(-0.5, 0.5) * c
            } else {
                (k as f64 - 0.5) * rng.uniform(0.6, 1.2) * c
            };
            d["x"] = json!((x * 1e4).round() / 1e4);
        }
        if rigid && rng.coin() {
            // a' = a x r: perpendicular to the axle.
            let r = [rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0), 0.0];
            let rate = [
                axle[1] * r[2] - axle[2] * r[1],
                axle[2] * r[0] - axle[0] * r[2],
                axle[0] * r[1] - axle[1] * r[0],
            ];
            let size = axle.iter().map(|v| v * v).sum::<f64>().sqrt();
            d["axle_rate"] = json!(rate.map(|v| v / size));
        }
        diabolos.push(d);
    }
    let (left, left_start) = random_hand(rng, -c, y, 0.0);
    let (right, right_start) = random_hand(rng, c, y, dz);
    let mut initial = json!({"diabolos": diabolos});
    if let Some(start) = left_start {
        initial["left"] = start;
    }
    if let Some(start) = right_start {
        initial["right"] = start;
    }
    let mut params = json!({"string_length": length, "friction": rng.uniform(0.0, 0.5)});
    for (name, low, high) in [
        ("axle_radius", 0.004, 0.01),
        ("half_length", 0.03, 0.08),
        ("cup_angle", 20.0, 60.0),
        ("string_offset", -0.003, 0.003),
    ] {
        if rng.int(0, 3) == 0 {
            params[name] = json!(rng.uniform(low, high));
        }
    }
    if rigid && rng.int(0, 3) == 0 {
        params["transverse_inertia"] = json!(rng.uniform(1e-4, 1e-3));
    }
    if rng.int(0, 3) == 0 {
        params["string_stiffness"] = json!(rng.uniform(100.0, 2000.0));
        params["string_damping"] = json!(rng.uniform(0.0, 3.0));
    }
    let mut sim = json!({"duration": rng.uniform(0.1, 0.4), "output_interval": 0.01});
    // A third coordinate alone turns a scenario to space: `space` given most of the time.
    if dz == 0.0 || rng.int(0, 3) != 0 {
        sim["space"] = json!(true);
    }
    if rigid || rng.coin() {
        sim["axle"] = json!(if rigid { "rigid" } else { "fast_top" });
    }
    json!({
        "name": "random_space",
        "params": params,
        "initial": initial,
        "drive": {"left": left, "right": right},
        "sim": sim,
    })
}

/// What a run of a scenario in space (or of one a mutation turned planar) that exits 0 or 1
/// must keep (docs/interface.md, "Scenarios in space" and "Exit codes"), read in `dir/out`: the
/// summary says `ok` on exit 0 and why the run stopped on exit 1; a run in space writes the
/// space columns and a stopped one ends its event log with the failure; and the same run again
/// (`again_code`, outputs in `dir/again`) writes the same trajectory and event log byte for byte.
pub fn space_problems(dir: &Path, code: Option<i32>, again_code: Option<i32>) -> Vec<String> {
    let mut problems = Vec::new();
    let read = |folder: &str, name: &str| std::fs::read(dir.join(folder).join(name)).ok();
    let summary: Option<Value> =
        read("out", "s.json").and_then(|b| serde_json::from_slice(&b).ok());
    let csv = read("out", "t.csv").unwrap_or_default();
    let events = read("out", "e.jsonl").unwrap_or_default();
    let Some(summary) = summary else {
        problems.push(format!("run: exit {code:?} without a readable summary"));
        return problems;
    };
    let status = summary["status"].as_str().unwrap_or("");
    match code {
        Some(0) if status != "ok" => {
            problems.push(format!("run: exit 0 with the summary's status {status:?}"))
        }
        Some(1) if status == "ok" || status.is_empty() => {
            problems.push(format!("run: exit 1 with the summary's status {status:?}"))
        }
        _ => {}
    }
    let header = csv.split(|b| *b == b'\n').next().unwrap_or_default();
    let header = String::from_utf8_lossy(header);
    let space = summary["space"] == json!(true);
    if space != header.split(',').any(|c| c == "left_z") {
        problems.push(format!(
            "the summary's space is {space} but the trajectory's header is {header}"
        ));
    }
    if space && code == Some(1) {
        let last = String::from_utf8_lossy(&events)
            .lines()
            .last()
            .and_then(|l| serde_json::from_str::<Value>(l).ok());
        let failure = last
            .as_ref()
            .is_some_and(|e| e["kind"] == "failure" && e["status"].as_str() == Some(status));
        if !failure {
            problems.push(format!(
                "exit 1 in space, but the event log does not end with the failure {status:?}: {last:?}"
            ));
        }
    }
    if again_code != code {
        problems.push(format!(
            "the same run again exits {again_code:?}, not {code:?}"
        ));
    } else {
        for (name, first) in [("t.csv", &csv), ("e.jsonl", &events)] {
            if read("again", name).as_ref() != Some(first) {
                problems.push(format!("the same run again writes another {name}"));
            }
        }
    }
    problems
}

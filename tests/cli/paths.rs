//! Path interpolation of keyframes ("cubic", "pchip", "linear") and the warning when the paths
//! bring the sticks within 1 cm of the string length (issue 14).

use std::path::Path as FsPath;
use std::process::Command;
use std::time::Instant;

use nalgebra::Vector2;

use diabolo::scenario::Scenario;
use diabolo::simulation::drive::{
    reach_warning, ClampedSpline, Drive, MonotoneCubic, Path, Polyline, REACH_MARGIN,
};
use diabolo::{EventKind, Row};

fn v(x: f64, y: f64) -> Vector2<f64> {
    Vector2::new(x, y)
}

/// The issue's left-hand path: held at (-0.3, 1.2) for 0.3 s, out to (-0.7, 1.4) and back.
fn issue_keyframes() -> Vec<(f64, Vector2<f64>)> {
    vec![
        (0.0, v(-0.3, 1.2)),
        (0.3, v(-0.3, 1.2)),
        (0.42, v(-0.7, 1.4)),
        (0.6, v(-0.3, 1.2)),
        (0.9, v(-0.3, 1.2)),
    ]
}

/// Uneven keyframes with turns, a plateau and steep and shallow pieces.
fn rough_keyframes() -> Vec<(f64, Vector2<f64>)> {
    vec![
        (0.0, v(0.0, 1.0)),
        (0.1, v(0.5, 1.0)),
        (0.15, v(0.52, 1.3)),
        (0.4, v(0.1, 1.3)),
        (0.45, v(0.1, 1.31)),
        (0.9, v(-0.4, 0.7)),
        (1.0, v(0.3, 0.7)),
    ]
}

/// t from `from` to `to` in `count` equal steps (both ends included).
fn grid(from: f64, to: f64, count: usize) -> impl Iterator<Item = f64> {
    (0..=count).map(move |k| from + (to - from) * k as f64 / count as f64)
}

/// The issue's scenario: the left hand on the issue's path with `interpolation`, the right hand
/// held at x = 0.745 so that the keyframes bring the sticks 1.445 m apart (1.5 cm short of
/// L = 1.46), and the cubic spline's overshoot to 1.456 m (within 1 cm).
fn issue_scenario(interpolation: &str) -> String {
    format!(
        r#"{{"name": "reach", "params": {{"string_length": 1.46}},
        "initial": {{"diabolos": [{{"x": 0.2}}]}},
        "drive": {{
          "left": {{"type": "path", "interpolation": "{interpolation}",
                   "keyframes": [[0, -0.3, 1.2], [0.3, -0.3, 1.2], [0.42, -0.7, 1.4], [0.6, -0.3, 1.2], [0.9, -0.3, 1.2]]}},
          "right": {{"type": "path", "keyframes": [[0, 0.745, 1.4]]}}}},
        "sim": {{"duration": 1.2, "output_interval": 0.01}}}}"#
    )
}

fn build(text: &str) -> (Scenario, diabolo::Simulation) {
    let scenario = Scenario::parse(text, &[]).unwrap();
    let simulation = scenario.build(FsPath::new(".")).unwrap();
    (scenario, simulation)
}

/// Largest distance between the sticks' paths over [0, duration], on a 0.1 ms grid.
fn farthest(drives: &[Drive; 2], duration: f64) -> f64 {
    let (left, right) = (drives[0].path().unwrap(), drives[1].path().unwrap());
    grid(0.0, duration, (duration * 1e4) as usize)
        .map(|t| (right.at(t).pos - left.at(t).pos).norm())
        .fold(0.0, f64::max)
}

fn diabolo_cli(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .args(args)
        .output()
        .unwrap()
}

fn scenario_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("diabolo-paths-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    file
}

#[test]
fn pchip_holds_a_repeated_keyframe_still_where_the_cubic_spline_moves() {
    let pchip = MonotoneCubic::new(issue_keyframes()).unwrap();
    let cubic = ClampedSpline::new(issue_keyframes()).unwrap();
    let mut cubic_excursion: f64 = 0.0;
    for t in grid(0.0, 0.3, 3000) {
        let p = pchip.at(t);
        assert_eq!(p.pos, v(-0.3, 1.2), "t = {t}");
        assert_eq!(p.vel, Vector2::zeros(), "t = {t}");
        if t < 0.3 {
            // C1: the acceleration jumps at 0.3 s, where the hand sets off.
            assert_eq!(p.acc, Vector2::zeros(), "t = {t}");
        }
        cubic_excursion = cubic_excursion.max((cubic.at(t).pos - v(-0.3, 1.2)).norm());
    }
    // The issue's defect, which pchip removes: the C2 spline rings between the equal keyframes.
    assert!(cubic_excursion > 0.05, "{cubic_excursion}");
}

#[test]
fn pchip_never_overshoots_its_keyframes() {
    for keys in [issue_keyframes(), rough_keyframes()] {
        let pchip = MonotoneCubic::new(keys.clone()).unwrap();
        for w in keys.windows(2) {
            let ((t0, a), (t1, b)) = (w[0], w[1]);
            for t in grid(t0, t1, 2000) {
                let p = pchip.at(t).pos;
                for axis in 0..2 {
                    let (lo, hi) = (a[axis].min(b[axis]), a[axis].max(b[axis]));
                    assert!(
                        p[axis] >= lo - 1e-15 && p[axis] <= hi + 1e-15,
                        "t = {t} axis {axis}: {} outside [{lo}, {hi}]",
                        p[axis]
                    );
                }
            }
        }
    }
    // The cubic spline overshoots the issue's turning keyframe x = -0.7 (to about -0.72).
    let cubic = ClampedSpline::new(issue_keyframes()).unwrap();
    let leftmost = grid(0.3, 0.6, 3000)
        .map(|t| cubic.at(t).pos.x)
        .fold(0.0, f64::min);
    assert!(leftmost < -0.71, "{leftmost}");
}

#[test]
fn pchip_derivatives_match_finite_differences_and_it_is_c1_at_keyframes() {
    let keys = rough_keyframes();
    let path = Path::Monotone(MonotoneCubic::new(keys.clone()).unwrap());
    let h = 1e-6;
    for t in [0.03, 0.12, 0.2, 0.31, 0.43, 0.6, 0.95] {
        let (a, b, c) = (path.at(t - h), path.at(t), path.at(t + h));
        let vel = (c.pos - a.pos) / (2.0 * h);
        let acc = (c.vel - a.vel) / (2.0 * h);
        assert!((b.vel - vel).norm() < 1e-6 * (1.0 + vel.norm()), "t = {t}");
        assert!((b.acc - acc).norm() < 1e-4 * (1.0 + acc.norm()), "t = {t}");
    }
    for (t, p) in &keys {
        assert!((path.at(*t).pos - p).norm() < 1e-15);
        let (before, after) = (path.at(t - 1e-9), path.at(t + 1e-9));
        assert!((before.pos - after.pos).norm() < 1e-7, "t = {t}");
        assert!((before.vel - after.vel).norm() < 1e-6, "t = {t}");
    }
    // At rest at both ends, like the clamped spline.
    assert_eq!(path.at(0.0).vel, Vector2::zeros());
    assert!(path.at(1.0 - 1e-12).vel.norm() < 1e-9);
    assert_eq!(path.at(2.0).pos, v(0.3, 0.7));
}

#[test]
fn linear_path_reproduces_the_keyframes_and_its_velocity_is_the_slope() {
    let keys = rough_keyframes();
    let polyline = Polyline::new(keys.clone()).unwrap();
    for w in keys.windows(2) {
        let ((t0, a), (t1, b)) = (w[0], w[1]);
        let slope = (b - a) / (t1 - t0);
        for t in grid(t0, t1, 50).take(50) {
            let p = polyline.at(t);
            assert!((p.pos - (a + slope * (t - t0))).norm() < 1e-14, "t = {t}");
            assert_eq!((p.vel, p.acc), (slope, Vector2::zeros()), "t = {t}");
        }
        assert_eq!(polyline.at(t0).pos, a);
        assert_eq!(polyline.velocity_jump(t1).0, slope);
    }
    assert_eq!(polyline.at(5.0).pos, v(0.3, 0.7));
    assert_eq!(polyline.at(5.0).vel, Vector2::zeros());
    // Its keyframes are where the stick's velocity jumps: the run ends its steps there.
    let drive = Drive::Path(Path::Linear(polyline));
    let times: Vec<f64> = keys.iter().map(|k| k.0).collect();
    assert_eq!(drive.velocity_jumps(), times);
    assert_eq!(drive.breakpoints(), times);
}

#[test]
fn interpolation_defaults_to_the_cubic_spline() {
    let with = issue_scenario("cubic");
    let without = with.replace(r#""interpolation": "cubic","#, "");
    assert_ne!(with, without);
    assert_eq!(build(&with).1.drives, build(&without).1.drives);
    assert!(matches!(
        build(&with).1.drives[0],
        Drive::Path(Path::Keyframes(_))
    ));
    assert!(matches!(
        build(&issue_scenario("pchip")).1.drives[0],
        Drive::Path(Path::Monotone(_))
    ));
    assert!(matches!(
        build(&issue_scenario("linear")).1.drives[0],
        Drive::Path(Path::Linear(_))
    ));
}

#[test]
fn issue_path_with_cubic_is_warned_about_and_with_pchip_stays_short_of_the_string() {
    let (scenario, cubic) = build(&issue_scenario("cubic"));
    let warnings = scenario.path_warnings(&cubic);
    assert_eq!(warnings.len(), 1);
    let warning = warnings[0];
    let reach = farthest(&cubic.drives, 1.2);
    assert!(reach > 1.46 - REACH_MARGIN, "{reach}");
    // Sampled every millisecond: within (1/2 ms)^2 / 2 times ~100 m/s^2 of the peak.
    assert!(
        (warning.distance - reach).abs() < 2e-5,
        "{warning:?} {reach}"
    );
    assert!(warning.t > 0.42 && warning.t < 0.5, "{warning:?}");
    let text = warning.to_string();
    assert!(text.contains("pchip") && text.contains("1.46"), "{text}");

    let (scenario, pchip) = build(&issue_scenario("pchip"));
    assert!(scenario.path_warnings(&pchip).is_empty());
    // No overshoot: the farthest the sticks get is at the keyframe, 0.7 + 0.745 m.
    let reach = farthest(&pchip.drives, 1.2);
    assert!((reach - 1.445).abs() < 1e-12, "{reach}");
}

#[test]
fn issue_path_with_pchip_runs_or_fails_for_a_physical_reason_fast() {
    let (_, simulation) = build(&issue_scenario("pchip"));
    let start = Instant::now();
    let mut rows: Vec<Row> = Vec::new();
    let report = simulation.run(&mut |row| rows.push(row.clone()));
    assert!(start.elapsed().as_secs_f64() < 2.0, "{:?}", start.elapsed());
    assert!(report.stats.steps < 5000, "{}", report.stats.steps);
    for row in &rows {
        let apart = (row.state.right.pos - row.state.left.pos).norm();
        assert!(apart <= 1.445 + 1e-9, "t = {}: {apart}", row.t);
    }
    if let Some(failure) = &report.failure {
        // The hand's fast stroke throws the diabolo, which the model cannot re-catch yet: a
        // physical end, not a collapsed step size.
        let text = failure.to_string();
        assert!(text.contains("flying regime"), "{text}");
    }
}

#[test]
fn reach_warning_needs_both_sticks_on_paths_and_sees_a_sine() {
    let sine = |x: f64, amplitude: f64| Path::Sine {
        center: v(x, 1.0),
        amplitude: v(amplitude, 0.0),
        frequency: 2.0,
        phase: v(0.0, 0.0),
    };
    // Centres 1.2 m apart, the right hand swinging 0.255 m out: 1.455 m apart at t = 0.125 s.
    let drives = [Drive::Path(sine(-0.6, 0.0)), Drive::Path(sine(0.6, 0.255))];
    let warning = reach_warning(&drives, 1.46, 1.0).unwrap();
    assert!((warning.distance - 1.455).abs() < 1e-9, "{warning:?}");
    assert!((warning.t - 0.125).abs() < 1e-3, "{warning:?}");
    assert!(!warning.cubic && !warning.to_string().contains("pchip"));
    // 0.245 m out: 1.445 m, 1.5 cm short of the string: no warning.
    let drives = [Drive::Path(sine(-0.6, 0.0)), Drive::Path(sine(0.6, 0.245))];
    assert_eq!(reach_warning(&drives, 1.46, 1.0), None);
    // Sticks beyond the string: warned, "beyond it".
    let drives = [Drive::Path(sine(-0.6, 0.0)), Drive::Path(sine(0.6, 0.3))];
    assert!(reach_warning(&drives, 1.46, 1.0)
        .unwrap()
        .to_string()
        .contains("beyond"));
    // Only one stick on a path: its reach is not known before the run.
    let drives = [Drive::Released, Drive::Path(sine(0.6, 0.3))];
    assert_eq!(reach_warning(&drives, 1.46, 1.0), None);
}

#[test]
fn validate_warns_on_stderr_with_exit_0_run_quiet_silences_it_and_strict_refuses_it() {
    let file = scenario_file("reach_cubic.json", &issue_scenario("cubic"));
    let out = diabolo_cli(&["validate", file.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.starts_with("warning: drive: at t = 0.4"), "{stderr}");
    assert!(stderr.contains("\"interpolation\": \"pchip\""), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("ok: reach"));
    let trajectory = file.with_extension("csv");
    let run = |quiet: bool| {
        let mut args = vec![
            "run",
            file.to_str().unwrap(),
            "-o",
            trajectory.to_str().unwrap(),
        ];
        if quiet {
            args.push("--quiet");
        }
        String::from_utf8_lossy(&diabolo_cli(&args).stderr).into_owned()
    };
    assert!(run(false).contains("warning: drive: at t = 0.4"));
    assert!(!run(true).contains("warning"));
    let strict = diabolo_cli(&["validate", file.to_str().unwrap(), "--strict"]);
    let refused = String::from_utf8_lossy(&strict.stderr);
    assert_eq!(strict.status.code(), Some(2), "{refused}");
    assert!(refused.contains("drive: at t = 0.4"), "{refused}");
    let file = scenario_file("reach_pchip.json", &issue_scenario("pchip"));
    let out = diabolo_cli(&["validate", file.to_str().unwrap()]);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn interpolation_without_keyframes_is_refused_naming_the_field() {
    let text = r#"{"params": {"string_length": 1.46}, "initial": {"diabolos": [{"x": 0.0}]},
        "drive": {"left": {"type": "path", "keyframes": [[0, -0.4, 1.4]]},
                  "right": {"type": "path", "interpolation": "pchip",
                            "sine": {"center": [0.4, 1.4], "amplitude": [0.1, 0.0], "frequency": 1.0}}},
        "sim": {"duration": 1.0}}"#;
    let file = scenario_file("interpolated_sine.json", text);
    let out = diabolo_cli(&["validate", file.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("drive.right.interpolation"), "{stderr}");
    assert!(
        stderr.contains("pchip") && stderr.contains("remove"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
    let unknown = issue_scenario("akima");
    let file = scenario_file("akima.json", &unknown);
    let out = diabolo_cli(&["validate", file.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("akima"), "{stderr}");
}

/// The whip scenario with the right hand on straight strokes.
fn linear_whip() -> diabolo::Simulation {
    let dir = FsPath::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let text = std::fs::read_to_string(dir.join("whip.json")).unwrap();
    let sets = [(
        "drive.right.interpolation".to_string(),
        "\"linear\"".to_string(),
    )];
    Scenario::parse(&text, &sets).unwrap().build(&dir).unwrap()
}

#[test]
fn linear_path_stick_stays_exactly_on_its_polyline_and_the_hand_pays_for_each_jump() {
    let simulation = linear_whip();
    let right = simulation.drives[1].path().unwrap().clone();
    let mut rows: Vec<Row> = Vec::new();
    let report = simulation.run(&mut |row| rows.push(row.clone()));
    assert!(report.failure.is_none(), "{:?}", report.failure);
    assert!((report.end_time - 3.9).abs() < 1e-12);
    let balance = |r: &Row| r.energy - r.hand_work + r.friction_loss + r.drag_loss + r.impulse_loss;
    let start = balance(&rows[0]);
    for row in &rows {
        let path = right.at(row.t);
        assert!(
            (row.state.right.pos - path.pos).norm() < 1e-8,
            "t = {}",
            row.t
        );
        // The energy balance holds across the velocity jumps, the last one (3.6 s) stopping
        // the stick, the hand's work booked.
        assert!((balance(row) - start).abs() < 1e-6, "t = {}", row.t);
    }
    assert!(rows
        .iter()
        .any(|r| r.t > 3.6 && r.state.right.vel == Vector2::zeros()));
    // The strokes that start with the string taut and stretch it are caught by a tensing
    // impulse at the keyframe.
    let jerks = report
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Tense && ((e.t / 0.3).round() * 0.3 - e.t).abs() < 1e-6)
        .count();
    assert!(jerks >= 1, "{:?}", report.events);
}

#[test]
fn schema_offers_the_three_interpolations_with_a_description() {
    let schema = Scenario::schema();
    let text = serde_json::to_string(&schema).unwrap();
    for name in ["\"cubic\"", "\"pchip\"", "\"linear\""] {
        assert!(text.contains(name), "{name}");
    }
    assert!(text.contains("How `keyframes` are joined"));
    let validator = jsonschema::validator_for(&schema).unwrap();
    for (interpolation, valid) in [("pchip", true), ("linear", true), ("akima", false)] {
        let document: serde_json::Value =
            serde_json::from_str(&issue_scenario(interpolation)).unwrap();
        assert_eq!(validator.is_valid(&document), valid, "{interpolation}");
    }
}

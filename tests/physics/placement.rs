//! Placing several diabolos by "x": the lowest taut configuration of the string with the
//! diabolos held at those abscissas (docs/interface.md, initial.diabolos). Checked against the
//! one-diabolo placement, a hand-solved symmetric pair, the string length, the equilibrium
//! (one common tension) and random feasible perturbations, and through a scenario run.

use crate::common;

use common::SplitMix;
use diabolo::model::{
    lowest_taut_positions, taut_point_below, CartesianState, ParamValues, Params,
};
use diabolo::scenario::Scenario;
use diabolo::simulation::report::EventKind;
use nalgebra::Vector2;
use std::process::Command;

fn used(left: Vector2<f64>, right: Vector2<f64>, ps: &[Vector2<f64>]) -> f64 {
    let points: Vec<Vector2<f64>> = std::iter::once(left)
        .chain(ps.iter().copied())
        .chain(std::iter::once(right))
        .collect();
    points.windows(2).map(|w| (w[1] - w[0]).norm()).sum()
}

/// Random still tips, a string longer than their distance, and `n` increasing abscissas
/// strictly between the tips.
fn random_case(rng: &mut SplitMix, n: usize) -> (Vector2<f64>, Vector2<f64>, Vec<f64>, f64) {
    let left = Vector2::new(rng.uniform(-0.8, -0.3), rng.uniform(0.8, 1.8));
    let right = Vector2::new(rng.uniform(0.3, 0.8), rng.uniform(0.8, 1.8));
    let length = (right - left).norm() * rng.uniform(1.05, 2.0);
    let mut cuts: Vec<f64> = (0..n).map(|_| rng.uniform(0.05, 0.95)).collect();
    cuts.sort_by(f64::total_cmp);
    let xs = cuts
        .iter()
        .map(|c| left.x + c * (right.x - left.x))
        .collect();
    (left, right, xs, length)
}

#[test]
fn one_diabolo_lands_where_the_single_placement_puts_it() {
    let mut rng = SplitMix::new(14);
    let mut compared = 0;
    for _ in 0..200 {
        let (left, right, xs, length) = random_case(&mut rng, 1);
        let Ok(single) = taut_point_below(left, right, xs[0], length) else {
            continue; // the single placement only covers points below both tips
        };
        let lowest = lowest_taut_positions(left, right, &xs, length).unwrap();
        assert_eq!(lowest[0].x, single.x);
        assert!(
            (lowest[0].y - single.y).abs() <= 1e-12,
            "{left:?} {right:?} x = {} L = {length}: y = {} vs {}",
            xs[0],
            lowest[0].y,
            single.y
        );
        compared += 1;
    }
    assert!(compared > 100, "only {compared} cases compared");
}

#[test]
fn a_symmetric_pair_hangs_at_the_hand_solved_height() {
    // Sticks level at +-a, diabolos at +-b: by symmetry y_1 = y_2 = -h, the middle segment is
    // horizontal, and L = 2 sqrt((a - b)^2 + h^2) + 2 b.
    for (a, b, length) in [
        (0.5_f64, 0.2_f64, 1.46_f64),
        (0.4, 0.05, 1.0),
        (0.6, 0.55, 1.3),
    ] {
        let h = ((0.5 * length - b).powi(2) - (a - b).powi(2)).sqrt();
        let p = lowest_taut_positions(
            Vector2::new(-a, 0.0),
            Vector2::new(a, 0.0),
            &[-b, b],
            length,
        )
        .unwrap();
        for q in &p {
            assert!(
                (q.y + h).abs() <= 1e-12,
                "a = {a}, b = {b}: y = {}, -h = {}",
                q.y,
                -h
            );
        }
    }
}

#[test]
fn the_string_is_taut_and_every_diabolo_feels_one_common_tension() {
    let mut rng = SplitMix::new(7);
    for n in 1..=6 {
        for _ in 0..40 {
            let (left, right, xs, length) = random_case(&mut rng, n);
            let p = lowest_taut_positions(left, right, &xs, length).unwrap();
            let total = used(left, right, &p);
            assert!(
                (total - length).abs() <= 1e-12,
                "n = {n}: sum l = {total}, L = {length}"
            );
            // Vertical balance at rest: T (s_i - s_{i-1}) = m g, the same for every diabolo.
            let points: Vec<_> = std::iter::once(left)
                .chain(p.iter().copied())
                .chain(std::iter::once(right))
                .collect();
            let sines: Vec<f64> = points
                .windows(2)
                .map(|w| (w[1] - w[0]).y / (w[1] - w[0]).norm())
                .collect();
            let steps: Vec<f64> = sines.windows(2).map(|s| s[1] - s[0]).collect();
            assert!(
                steps[0] > 0.0,
                "n = {n}: the string bends upward: {steps:?}"
            );
            for s in &steps {
                assert!(
                    (s - steps[0]).abs() <= 1e-9 * steps[0].max(1e-3),
                    "n = {n}: sine steps {steps:?} are not equal"
                );
            }
        }
    }
}

/// The lowest feasible configuration reached by moving every diabolo vertically by one amount
/// c: sum l(c) is convex in c, so the smallest c with sum l(c) <= L is found by a ternary search
/// for the shortest string and a bisection below it (`None` if even that is too long).
fn projected(
    left: Vector2<f64>,
    right: Vector2<f64>,
    ps: &[Vector2<f64>],
    length: f64,
) -> Option<Vec<Vector2<f64>>> {
    let shifted =
        |c: f64| -> Vec<Vector2<f64>> { ps.iter().map(|p| p + Vector2::new(0.0, c)).collect() };
    let at = |c: f64| used(left, right, &shifted(c));
    let (mut a, mut b) = (-length, length);
    for _ in 0..300 {
        let (m1, m2) = (a + (b - a) / 3.0, b - (b - a) / 3.0);
        if at(m1) < at(m2) {
            b = m2;
        } else {
            a = m1;
        }
    }
    let shortest = 0.5 * (a + b);
    if at(shortest) > length {
        return None;
    }
    let (mut low, mut high) = (shortest - length, shortest);
    for _ in 0..200 {
        let mid = 0.5 * (low + high);
        if at(mid) > length {
            low = mid;
        } else {
            high = mid;
        }
    }
    Some(shifted(high))
}

#[test]
fn no_feasible_nearby_configuration_is_lower() {
    let mut rng = SplitMix::new(99);
    let mut tried = 0;
    for n in 2..=5 {
        for _ in 0..20 {
            let (left, right, xs, length) = random_case(&mut rng, n);
            let best = lowest_taut_positions(left, right, &xs, length).unwrap();
            let energy = |ps: &[Vector2<f64>]| ps.iter().map(|p| p.y).sum::<f64>();
            for scale in [1e-2, 1e-3] {
                for _ in 0..20 {
                    let moved: Vec<_> = best
                        .iter()
                        .map(|p| p + Vector2::new(0.0, rng.uniform(-scale, scale)))
                        .collect();
                    let Some(feasible) = projected(left, right, &moved, length) else {
                        continue; // no shift brings this shape onto the string
                    };
                    tried += 1;
                    assert!(used(left, right, &feasible) <= length);
                    assert!(
                        energy(&feasible) >= energy(&best) - 1e-13,
                        "n = {n}: a perturbation is lower by {}",
                        energy(&best) - energy(&feasible)
                    );
                }
            }
        }
    }
    assert!(tried > 3000, "only {tried} perturbations were feasible");
}

#[test]
fn hanging_lowest_puts_the_diabolos_at_rest_on_the_taut_string() {
    let params = Params::new(ParamValues {
        string_length: 1.46,
        ..ParamValues::default()
    })
    .unwrap();
    let state =
        CartesianState::hanging_lowest(&params, [-0.5, 1.5], [0.45, 1.6], &[-0.2, 0.0, 0.3], 0.4)
            .unwrap();
    assert_eq!(state.diabolo_count(), 3);
    assert!((state.string_used() - 1.46).abs() <= 1e-12);
    assert!(state
        .diabolos
        .iter()
        .all(|d| d.vel == Vector2::zeros() && d.spin == 0.4));
}

fn three_by_x(friction: f64) -> String {
    format!(
        r#"{{"params": {{"string_length": 1.46, "friction": {friction}}},
        "initial": {{"left": {{"pos": [-0.5, 1.5]}}, "right": {{"pos": [0.5, 1.5]}},
                    "diabolos": [{{"x": -0.25}}, {{"x": 0.0}}, {{"x": 0.3}}]}},
        "drive": {{"left": {{"type": "path", "keyframes": [[0, -0.5, 1.5]]}},
                  "right": {{"type": "path", "keyframes": [[0, 0.5, 1.5]]}}}},
        "sim": {{"duration": 0.05, "output_interval": 0.01}}}}"#
    )
}

#[test]
fn a_three_diabolo_x_start_is_the_lowest_placement_and_starts_taut_and_gripping() {
    let scenario = Scenario::parse(&three_by_x(2.0), &[]).unwrap();
    let sim = scenario.build(std::path::Path::new(".")).unwrap();
    let mut rows = Vec::new();
    let report = sim.run(&mut |row| rows.push(row.clone()));
    assert!(report.failure.is_none(), "{:?}", report.failure);
    let expected = lowest_taut_positions(
        Vector2::new(-0.5, 1.5),
        Vector2::new(0.5, 1.5),
        &[-0.25, 0.0, 0.3],
        1.46,
    )
    .unwrap();
    let first = &rows[0];
    for (d, p) in first.state.diabolos.iter().zip(&expected) {
        assert!((d.pos - p).norm() <= 1e-12, "{:?} vs {p:?}", d.pos);
    }
    assert!(first.slack.abs() <= 1e-12, "slack {}", first.slack);
    assert!(
        report
            .events
            .iter()
            .all(|e| !matches!(e.kind, EventKind::Loosen | EventKind::Tense)),
        "{:?}",
        report.events
    );
    assert!(rows.iter().all(|r| r.tensions.iter().all(|t| *t > 0.0)));
    // With friction 2 every axle grips from t = 0 (the grip needs far less).
    for object in 1..=3 {
        assert!(
            report
                .events
                .iter()
                .any(|e| e.t == 0.0 && e.kind == EventKind::Stick && e.object == Some(object)),
            "diabolo {object} does not grip at t = 0: {:?}",
            report.events
        );
    }
    assert!(report.grip_needed.is_some_and(|c| c < 2.0));
}

fn run_cli(scenario: &str) -> (Option<i32>, String) {
    let dir = std::env::temp_dir().join(format!("diabolo-placement-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("s{}.json", scenario.len()));
    std::fs::write(&file, scenario).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .arg("validate")
        .arg(&file)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&file);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn mixing_x_and_pos_or_disordered_x_exits_2_naming_the_diabolo() {
    let mixed = three_by_x(0.2).replace(r#"{"x": 0.0}"#, r#"{"pos": [0.0, 1.0]}"#);
    let (code, stderr) = run_cli(&mixed);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("initial.diabolos[0].x") && stderr.contains("all by"),
        "{stderr}"
    );
    let disordered = three_by_x(0.2).replace(r#"{"x": 0.3}"#, r#"{"x": -0.1}"#);
    let (code, stderr) = run_cli(&disordered);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("initial.diabolos[2].x"), "{stderr}");
    let outside = three_by_x(0.2).replace(r#"{"x": 0.3}"#, r#"{"x": 0.5}"#);
    let (code, stderr) = run_cli(&outside);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("initial.diabolos[2].x"), "{stderr}");
}

#[test]
fn extreme_shapes_are_placed_on_the_taut_string() {
    // Nearly straight strings, very long ones, and diabolos a hair from a tip or each other.
    let (left, right) = (Vector2::new(-0.4, 1.5), Vector2::new(0.4, 1.2));
    let distance = (right - left).norm();
    let abscissas: [&[f64]; 4] = [
        &[-0.4 + 1e-9, 0.0],
        &[-0.1, 0.4 - 1e-9],
        &[0.1, 0.1 + 1e-9],
        &[-0.3, -0.2, -0.1, 0.0, 0.1, 0.2, 0.3],
    ];
    for factor in [1.0 + 1e-9, 1.001, 3.0, 100.0] {
        let length = distance * factor;
        for xs in abscissas {
            let p = lowest_taut_positions(left, right, xs, length).unwrap();
            assert!(p.iter().all(|q| q.y.is_finite()), "{factor} {xs:?}: {p:?}");
            let total = used(left, right, &p);
            assert!(
                (total - length).abs() <= 1e-12 * length,
                "L/D = {factor}, xs = {xs:?}: sum l - L = {}",
                total - length
            );
        }
    }
}

//! Flight in space (docs/space.md, "Flight in space"): knots, leaving the string, free flight
//! with a torque-free axle, landing where the string passes between the cups, the floor, and
//! the stops for what the model leaves out. Each checked against a closed form or the planar
//! model, not against the code's own output.

use crate::common::space::in_space;
use diabolo::model::axle_angles::tilt;
use diabolo::model::space::lowest_rim_point;
use diabolo::scenario::{Built, Limits};
use diabolo::simulation::space::{SpaceEventKind, SpaceStatus};
use diabolo::simulation::DiaboloMode;
use diabolo::Scenario;
use nalgebra::Vector3;

/// A frictionless string between sticks at (-c, 1, 0) and (c, 1, 0) held by forces that
/// balance their weight (still while the string is slack), and a flying
/// diabolo (`diabolo`: its JSON entry after "mode": "flying"), with `sim` added.
fn flying_over_sticks(c: f64, diabolo: &str, sim: &str) -> String {
    format!(
        r#"{{
        "params": {{"string_length": 1.46, "friction": 0.0, "spin_drag": 0.0}},
        "initial": {{
            "left": {{"pos": [{l}, 1.0, 0.0]}}, "right": {{"pos": [{c}, 1.0, 0.0]}},
            "diabolos": [{{"mode": "flying", {diabolo}}}]
        }},
        "drive": {{"left": {{"type": "force", "value": [0.0, 0.3924, 0.0]}},
                   "right": {{"type": "force", "value": [0.0, 0.3924, 0.0]}}}},
        "sim": {{"space": true, "rtol": 1e-11, "atol": 1e-13, {sim}}}
    }}"#,
        l = -c
    )
}

// A stick passing over the other winds the string once more round the axle: the knot change
// in space happens where the planar model's does, and the trajectories agree within 1e-9 m.
#[test]
fn a_knot_change_in_space_is_the_planar_models() {
    let text = |space: bool| {
        format!(
            r#"{{
            "params": {{"string_length": 1.0}},
            "initial": {{"diabolos": [{{"x": 0.0, "spin": 2.0}}]}},
            "drive": {{
                "left": {{"type": "path", "interpolation": "pchip", "keyframes": [[0.0, -0.2, 0.0], [0.6, 0.1, 0.08], [1.2, 0.5, 0.06], [2.0, 0.5, 0.06]]}},
                "right": {{"type": "path", "interpolation": "pchip", "keyframes": [[0.0, 0.2, 0.0], [2.0, 0.2, 0.0]]}}
            }},
            "sim": {{"duration": 2.0, "output_interval": 0.01, "rtol": 1e-12, "atol": 1e-14, "space": {space}}}
        }}"#
        )
    };
    let planar = Scenario::parse(&text(false), &[])
        .unwrap()
        .build(std::path::Path::new("."))
        .unwrap();
    let mut rows = Vec::new();
    let planar_report = planar.run(&mut |row| rows.push((row.t, row.state.diabolos[0].pos)));
    let knots: Vec<f64> = planar_report
        .events
        .iter()
        .filter(|e| e.kind == diabolo::EventKind::KnotChange)
        .map(|e| e.t)
        .collect();
    assert_eq!(knots.len(), 1, "the planar run winds once");
    let space = in_space(&text(true), &[]);
    let mut worst: f64 = 0.0;
    let report = space.run(|row| {
        let (t, p) = rows[(row.t / 0.01).round() as usize];
        assert!((t - row.t).abs() < 1e-12);
        let d = &row.state.diabolos[0];
        worst = worst.max((d.pos.xy() - p).norm()).max(d.pos.z.abs());
        if row.t > knots[0] + 1e-6 {
            assert_eq!(d.knot, 1, "t = {}", row.t);
        }
    });
    assert_eq!(report.status, SpaceStatus::Finished);
    let winds: Vec<(f64, i32)> = report
        .events
        .iter()
        .filter_map(|e| match e.kind {
            SpaceEventKind::Knot { knot, .. } => Some((e.t, knot)),
            _ => None,
        })
        .collect();
    assert_eq!(winds.len(), 1);
    assert_eq!(winds[0].1, 1);
    assert!((winds[0].0 - knots[0]).abs() < 1e-8, "{winds:?} {knots:?}");
    assert!(worst < 1e-9, "{worst} m from the planar model");
}

// In flight no torque acts: the rigid axle's angular momentum I_p Omega a + I_t a x a' keeps
// its value (to 1e-9 relative, no spin drag) while the axle nutates about it, and the fast
// top's axle does not move at all. The centre follows the parabola p0 + v0 t - g t^2 / 2.
#[test]
fn a_flying_axle_keeps_its_angular_momentum_and_its_centre_a_parabola() {
    let start = r#""pos": [0.0, 3.0, 0.0], "vel": [0.4, 1.0, -0.3], "spin": -0.65,
        "axle": [0.0, 0.17364817766693033, 0.984807753012208]"#;
    for (axle, rate) in [
        ("rigid", r#", "axle_rate": [0.3, 0.0, 0.0]"#),
        ("fast_top", ""),
    ] {
        let text = flying_over_sticks(
            0.5,
            &format!("{start}{rate}"),
            &format!(r#""axle": "{axle}", "duration": 0.5, "output_interval": 0.005"#),
        );
        let sim = in_space(&text, &[]);
        let (ip, it) = (sim.params.polar_inertia, sim.params.transverse_inertia);
        let r = sim.params.axle_radius;
        let g = sim.params.planar.values().gravity;
        let momentum = |d: &diabolo::model::space::SpaceDiabolo| {
            let omega = -d.spin / r;
            d.axle * (ip * omega) + d.axle.cross(&d.axle_rate) * it
        };
        let mut first = None;
        let mut worst: f64 = 0.0;
        let mut moved: f64 = 0.0;
        let mut axle0 = None;
        let report = sim.run(|row| {
            let d = row.state.diabolos[0];
            assert_eq!(row.diabolo_modes[0], DiaboloMode::Flying);
            let l0 = *first.get_or_insert(momentum(&d));
            worst = worst.max((momentum(&d) - l0).norm() / l0.norm());
            moved = moved.max((d.axle - *axle0.get_or_insert(d.axle)).norm());
            let t = row.t;
            let parabola = Vector3::new(0.4 * t, 3.0 + t - 0.5 * g * t * t, -0.3 * t);
            assert!((d.pos - parabola).norm() < 1e-9, "t = {t}");
        });
        assert_eq!(report.status, SpaceStatus::Finished, "{axle}");
        match axle {
            "rigid" => {
                assert!(worst < 1e-9, "angular momentum drifts by {worst}");
                assert!(moved > 1e-3, "the rigid axle nutates ({moved})");
            }
            _ => assert_eq!(moved, 0.0, "the fast top's axle stays"),
        }
    }
}

// A diabolo falling onto a slack string lands where the chord passes between its cups: 3 cm
// behind the centre it lands with the string 3 cm off along the axle (offset -0.03 m), at the
// time the parabola meets the chord's plane; 7 cm behind, beyond the half-length (6 cm), the
// chord misses the axle and the diabolo falls past the string to the floor, where it drops
// with its kinetic energy lost at the time its lowest rim point reaches it.
#[test]
fn a_falling_diabolo_lands_only_where_the_string_passes_between_its_cups() {
    for (z, lands) in [(0.03, true), (-0.03, true), (0.07, false)] {
        let text = flying_over_sticks(
            0.6,
            &format!(r#""pos": [0.1, 1.3, {z}], "spin": 0.5"#),
            r#""duration": 1.0, "floor": 0.0"#,
        );
        let sim = in_space(&text, &[]);
        let p = sim.params.planar.values();
        let g = p.gravity;
        let report = sim.run(|_| {});
        assert_eq!(report.status, SpaceStatus::Finished, "z = {z}");
        let landing = report.events.iter().find_map(|e| match e.kind {
            SpaceEventKind::Land { offset, speed, .. } => Some((e.t, offset, speed)),
            _ => None,
        });
        let drop = report.events.iter().find_map(|e| match e.kind {
            SpaceEventKind::Drop { energy_lost, .. } => Some((e.t, energy_lost)),
            _ => None,
        });
        if lands {
            let (t, offset, speed) = landing.expect("it lands");
            // The chord is y = 1 at z = 0: the centre crosses y = 1 at sqrt(2 * 0.3 / g).
            let expected = (2.0 * 0.3 / g).sqrt();
            assert!(
                (t - expected).abs() < 1e-9,
                "landing at {t}, expected {expected}"
            );
            assert!((offset + z).abs() < 1e-12, "offset {offset}");
            assert!((speed - g * expected).abs() < 1e-8);
            assert!(drop.is_none());
        } else {
            assert!(landing.is_none(), "z = {z}: the chord misses the axle");
            let (t, lost) = drop.expect("it drops");
            // The lowest rim point of a level axle is R below the centre.
            let fall = 1.3 - p.diabolo_radius;
            let expected = (2.0 * fall / g).sqrt();
            assert!(
                (t - expected).abs() < 1e-9,
                "drop at {t}, expected {expected}"
            );
            let v = g * expected;
            assert!((lost - 0.5 * p.diabolo_mass * v * v).abs() < 1e-9);
            assert!(report.flights[0].dropped);
        }
    }
}

// A tilted diabolo drops when its lowest rim point, not its centre minus R, reaches the floor.
#[test]
fn a_tilted_diabolo_drops_when_its_lowest_rim_point_reaches_the_floor() {
    let ay: f64 = 0.5f64.sin();
    let text = flying_over_sticks(
        0.3,
        &format!(
            r#""pos": [1.0, 0.8, 0.0], "vel": [0.0, 0.5, 0.0], "spin": 0.5, "axle": [0.0, {ay}, {}]"#,
            0.5f64.cos()
        ),
        r#""duration": 1.0, "floor": 0.1"#,
    );
    let sim = in_space(&text, &[]);
    let p = sim.params.planar.values();
    let report = sim.run(|_| {});
    let t = report
        .events
        .iter()
        .find_map(|e| matches!(e.kind, SpaceEventKind::Drop { .. }).then_some(e.t))
        .expect("it drops");
    let below = lowest_rim_point(
        &Vector3::zeros(),
        &Vector3::new(0.0, ay, 0.5f64.cos()),
        p.diabolo_radius,
        sim.params.half_length,
    );
    // 0.8 + 0.5 t - g t^2 / 2 + below = 0.1.
    let (a, b, c) = (-0.5 * p.gravity, 0.5, 0.8 + below - 0.1);
    let expected = (-b - (b * b - 4.0 * a * c).sqrt()) / (2.0 * a);
    assert!((t - expected).abs() < 1e-9, "{t} against {expected}");
    assert!(below < -p.diabolo_radius * 0.5f64.cos() - 1e-3);
}

// The shipped toss in space: it leaves, flies, lands off the hands' plane and snaps taut; the
// fast top and the rigid axle agree on it, and the event times do not depend on the step.
#[test]
fn the_toss_in_space_lands_off_the_plane_whatever_the_axle_model_and_step() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let text = std::fs::read_to_string(dir.join("toss_in_space.json")).unwrap();
    let run = |sets: &[(&str, &str)]| {
        let sets: Vec<(String, String)> = sets
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let scenario = Scenario::parse(&text, &sets).unwrap();
        let Built::Space(sim) = scenario.build_any(&dir, &Limits::default()).unwrap() else {
            panic!("in space");
        };
        let mut final_tilt = 0.0;
        let report = sim.run(|row| final_tilt = tilt(&row.state.diabolos[0].axle));
        assert_eq!(report.status, SpaceStatus::Finished, "{sets:?}");
        if sets.is_empty() {
            assert!(report.ledger_residual < 1e-8, "{}", report.ledger_residual);
        }
        let kinds: Vec<&str> = report.events.iter().map(|e| e.kind.name()).collect();
        let times = |name: &str| -> f64 {
            report
                .events
                .iter()
                .find(|e| e.kind.name() == name)
                .map(|e| e.t)
                .unwrap()
        };
        let offset = report
            .events
            .iter()
            .find_map(|e| match e.kind {
                SpaceEventKind::Land { offset, .. } => Some(offset),
                _ => None,
            })
            .unwrap();
        assert!(kinds.contains(&"leave") && kinds.contains(&"tense"));
        (times("leave"), times("land"), offset, final_tilt)
    };
    let fast_top = run(&[]);
    assert!(fast_top.2 < -0.01 && fast_top.2 > -0.06, "{fast_top:?}");
    let rigid = run(&[("sim.axle", "rigid")]);
    assert!(
        (rigid.1 - fast_top.1).abs() < 1e-5,
        "{rigid:?} {fast_top:?}"
    );
    assert!(
        (rigid.3 - fast_top.3).abs() < 0.05,
        "{rigid:?} {fast_top:?}"
    );
    for (rtol, max_step) in [("1e-8", "0.01"), ("1e-10", "0.001")] {
        let other = run(&[("sim.rtol", rtol), ("sim.max_step", max_step)]);
        assert!(
            (other.0 - fast_top.0).abs() < 1e-6,
            "{other:?} {fast_top:?}"
        );
        assert!(
            (other.1 - fast_top.1).abs() < 1e-5,
            "{other:?} {fast_top:?}"
        );
    }
}

// What the model in space leaves out stops the run by name: the string reaching a diabolo from
// below, a landing whose string through the centre would need more string than the slack
// holds. A flying diabolo meeting a stick tip is an impact: it rebounds.
#[test]
fn flight_stops_name_what_the_model_leaves_out() {
    let status = |c: f64, diabolo: &str| {
        let sim = in_space(&flying_over_sticks(c, diabolo, r#""duration": 1.0"#), &[]);
        match sim.run(|_| {}).status {
            SpaceStatus::Stopped { reason, .. } => reason.to_string(),
            SpaceStatus::Finished => "finished".to_string(),
        }
    };
    // Beyond the chord's end, flying at the right stick's tip.
    let sim = in_space(
        &flying_over_sticks(
            0.5,
            r#""pos": [0.9, 1.0, 0.0], "vel": [-4.0, 0.4, 0.0], "spin": 0.5"#,
            r#""duration": 0.1"#,
        ),
        &[],
    );
    let report = sim.run(|_| {});
    let contact = report
        .events
        .iter()
        .find(|e| e.kind.name() == "contact")
        .map(|e| e.kind);
    assert!(
        matches!(contact, Some(SpaceEventKind::Contact { speed, .. }) if speed > 3.9),
        "{:?}",
        report.events
    );
    let below = status(
        0.6,
        r#""pos": [0.0, 0.9, 0.0], "vel": [0.0, 2.0, 0.0], "spin": 0.5"#,
    );
    assert!(below.contains("from below"), "{below}");
    // Sticks 1.458 m apart: 2 mm of slack; 5 cm off along the axle at the middle needs
    // 2 (sqrt(0.729^2 + 0.05^2) - 0.729) = 3.4 mm.
    let stretch = status(0.729, r#""pos": [0.0, 1.2, 0.05], "spin": 0.5"#);
    assert!(stretch.contains("longer than its length"), "{stretch}");
}

// A run in space that needs more steps than its budget stops by name (`budget`, "steps") at
// the step where it passed it, with the rows before kept; the same run within its budget ends.
#[test]
fn a_run_in_space_past_its_step_budget_stops_naming_it() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let text = std::fs::read_to_string(dir.join("tilt.json")).unwrap();
    let sets = [
        ("sim.rtol".to_string(), "1e-13".to_string()),
        ("sim.duration".to_string(), "8".to_string()),
        ("sim.max_step".to_string(), "0.1".to_string()),
    ];
    let Built::Space(mut sim) = Scenario::parse(&text, &sets)
        .unwrap()
        .build_any(&dir, &Limits::default())
        .unwrap()
    else {
        panic!("in space");
    };
    let report = sim.run(|_| {});
    assert_eq!(report.status, SpaceStatus::Finished);
    let needed = report.steps;
    // The budget: max_steps_per_second times the duration, one per max_step, and 1,000 more.
    let allowance = 1000.0 + sim.settings.duration / sim.settings.stepper.max_step;
    assert!(needed as f64 > allowance + 10.0, "{needed} steps");
    sim.settings.max_steps_per_second = 0.0;
    let mut last = 0.0;
    let report = sim.run(|row| last = row.t);
    match report.status {
        SpaceStatus::Stopped { t, reason } => {
            assert_eq!(reason.status(), "budget");
            assert!(reason.to_string().contains("steps"), "{reason}");
            assert!(t < sim.settings.duration && last <= t && last > 0.0);
        }
        other => panic!("{other:?}"),
    }
}

// Contacts are measured on the hulls (the solid cylinders the cup rims span), not on spheres
// about the centres: two flying diabolos, axles along z, 5 cm apart along them and closing at
// 2 m/s, touch rim to rim when their centres are 2R apart across the axles, at (0.4 - 2R) / 2 s
// (1e-9 s), not when 2R apart in 3D (5 ms later); and a stick tip meets a tilted diabolo where
// it reaches its cup's face. (Rigid axles: as fast tops the rim strike would turn an axle by
// 9.9 degrees at once, a `slow_spin` stop at the same instant.)
#[test]
fn flying_diabolos_touch_where_their_rims_do() {
    let radius = diabolo::model::ParamValues::default().diabolo_radius;
    let stop = |diabolos: &str| {
        let text = format!(
            r#"{{"params": {{"string_length": 1.46}},
                "initial": {{"diabolos": [{diabolos}]}},
                "drive": {{"left": {{"type": "path", "keyframes": [[0, -0.7, 1.0, 0]]}},
                          "right": {{"type": "path", "keyframes": [[0, 0.7, 1.0, 0]]}}}},
                "sim": {{"space": true, "duration": 0.5, "rtol": 1e-10, "atol": 1e-12,
                         "axle": "rigid"}}}}"#
        );
        let report = in_space(&text, &[]).run(|_| {});
        report
            .events
            .iter()
            .find_map(|e| match e.kind {
                SpaceEventKind::Contact { body, other, .. } => {
                    Some((e.t, format!("{body} and {other}")))
                }
                _ => None,
            })
            .unwrap_or((f64::NAN, format!("{:?}", report.status)))
    };
    let (t, reason) = stop(
        r#"{"mode": "flying", "pos": [-0.2, 2.0, 0.0], "vel": [1.0, 0.0, 0.0], "spin": 0.5},
           {"mode": "flying", "pos": [0.2, 2.0, 0.05], "vel": [-1.0, 0.0, 0.0], "spin": 0.5}"#,
    );
    let expected = (0.4 - 2.0 * radius) / 2.0;
    assert!(reason.contains("diabolo 2"), "{reason}");
    assert!(
        (t - expected).abs() < 1e-9,
        "{t} against {expected}: {reason}"
    );
    // Axle along x: the right stick's tip at (0.7, 1, 0) is met by the cup's face, h = 6 cm
    // from the centre along the axle, not R from the centre.
    let half_length = diabolo::model::space::AxleValues::default().half_length;
    let (t, reason) = stop(
        r#"{"mode": "flying", "pos": [0.4, 1.0, 0.0], "vel": [2.0, 0.5886, 0.0], "spin": 0.5, "axle": [1, 0, 0]}"#,
    );
    // The centre's height stays within 1.8 cm of the tip's (less than R): the face meets the
    // tip when the centre is h short of it, x(t) = 0.4 + 2 t = 0.7 - h.
    let expected = (0.3 - half_length) / 2.0;
    assert!(reason.contains("right stick tip"), "{reason}");
    assert!(
        (t - expected).abs() < 1e-9,
        "{t} against {expected}: {reason}"
    );
}

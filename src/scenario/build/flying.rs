//! The diabolos that start off the string: where they may start flying.

use nalgebra::Vector2;

use crate::display::{compact, Compact};
use crate::model::{CartesianState, DiaboloState, Params};
use crate::simulation::DiaboloMode;

use super::checks::{invalid, show, vector, SIDES};
use crate::scenario::error::ScenarioError;
use crate::scenario::spec::DiaboloSpec;

/// A diabolo that starts flying: its `pos` and `vel`, no `x` and no knot.
pub(super) fn flying_diabolo(spec: &DiaboloSpec, k: usize) -> Result<DiaboloState, ScenarioError> {
    let at = format!("initial.diabolos[{k}]");
    if let Some(x) = spec.x {
        return Err(invalid(
            format!("{at}.x"),
            compact(x),
            "a flying diabolo is not on the string, so it cannot be placed on it by x",
            "give its \"pos\": [x, y], or drop \"mode\": \"flying\"",
        ));
    }
    if spec.knot != 0 {
        return Err(invalid(
            format!("{at}.knot"),
            spec.knot.to_string(),
            "a flying diabolo has no knot degree (the string is not around it)",
            "remove \"knot\", or start it on the string",
        ));
    }
    let Some(pos) = spec.pos else {
        return Err(invalid(
            at,
            "no position",
            "a flying diabolo needs a position",
            "add \"pos\": [x, y]",
        ));
    };
    Ok(DiaboloState {
        pos: vector(pos.plane()),
        vel: vector(spec.vel.plane()),
        spin: spec.spin,
        knot: 0,
    })
}

/// The start of the diabolos off the string: above the floor, no two discs overlapping (nor a
/// disc and a stick tip), and no flying diabolo below a chord of the string that its flight
/// would cross from below (with the sticks where they start).
pub(super) fn check_flying_starts(
    params: &Params,
    state: &CartesianState,
    modes: &[DiaboloMode],
    floor: Option<f64>,
) -> Result<(), ScenarioError> {
    let radius = params.diabolo_radius;
    let n = state.diabolo_count();
    if let Some(floor) = floor {
        for (k, d) in state.diabolos.iter().enumerate() {
            if d.pos.y - radius < floor {
                return Err(invalid(
                    "sim.floor",
                    compact(floor),
                    format!(
                        "diabolo {} starts with its lowest point at y = {:.4} m, below the floor (centre y - params.diabolo_radius)",
                        k + 1,
                        d.pos.y - radius
                    ),
                    "lower the floor below every diabolo's start, or raise the diabolo",
                ));
            }
        }
    }
    for a in 0..n {
        for b in a + 1..n {
            let distance = (state.diabolos[a].pos - state.diabolos[b].pos).norm();
            if distance < 2.0 * radius * (1.0 - 1e-9) {
                return Err(invalid(
                    "params.diabolo_radius",
                    compact(radius),
                    format!(
                        "diabolos {} and {} start {distance:.4} m apart: their discs (2R = {} m) overlap",
                        a + 1,
                        b + 1,
                        Compact(2.0 * radius)
                    ),
                    "move them apart, or give a smaller params.diabolo_radius",
                ));
            }
        }
        for (side, tip) in SIDES.iter().zip([state.left.pos, state.right.pos]) {
            let distance = (state.diabolos[a].pos - tip).norm();
            if distance < radius * (1.0 - 1e-9) {
                return Err(invalid(
                    "params.diabolo_radius",
                    compact(radius),
                    format!(
                        "diabolo {} starts {distance:.4} m from the {side} stick tip, inside its disc (R = {} m)",
                        a + 1,
                        Compact(radius)
                    ),
                    "move it away from the stick, or give a smaller params.diabolo_radius",
                ));
            }
        }
    }
    let string: Vec<usize> = (0..n)
        .filter(|&k| modes[k] == DiaboloMode::String)
        .collect();
    let mut objects = vec![state.left.pos];
    objects.extend(string.iter().map(|&k| state.diabolos[k].pos));
    objects.push(state.right.pos);
    for (k, d) in state.diabolos.iter().enumerate() {
        if modes[k] != DiaboloMode::Flying {
            continue;
        }
        for (segment, ends) in objects.windows(2).enumerate() {
            if let Some(time) = rises_through_chord(d, ends[0], ends[1], params.gravity) {
                return Err(invalid(
                    format!("initial.diabolos[{k}].pos"),
                    show(d.pos),
                    format!(
                        "the flying diabolo starts below the chord of segment {segment} of the string and would meet the string from below after {time:.3} s (with the sticks where they start), which is not modelled"
                    ),
                    "start it above the string, or give it a velocity that keeps it below",
                ));
            }
        }
    }
    Ok(())
}

/// The time a diabolo flying from `d` first crosses the chord from a to b upward, strictly
/// between its ends, if it does (its height above the chord is a quadratic in time).
fn rises_through_chord(
    d: &DiaboloState,
    a: Vector2<f64>,
    b: Vector2<f64>,
    gravity: f64,
) -> Option<f64> {
    let chord = b - a;
    if chord.x == 0.0 {
        return None;
    }
    let normal = crate::model::chord_normal(a, b);
    // h(t) = h0 + h1 t + h2 t^2, the height above the chord's line.
    let h0 = normal.dot(&(d.pos - a));
    let h1 = normal.dot(&d.vel);
    let h2 = -0.5 * gravity * normal.y;
    if h0 >= 0.0 {
        return None;
    }
    let roots = if h2 == 0.0 {
        if h1 > 0.0 {
            vec![-h0 / h1]
        } else {
            vec![]
        }
    } else {
        let disc = h1 * h1 - 4.0 * h2 * h0;
        if disc < 0.0 {
            vec![]
        } else {
            let r = disc.sqrt();
            let mut roots = vec![(-h1 - r) / (2.0 * h2), (-h1 + r) / (2.0 * h2)];
            roots.sort_by(f64::total_cmp);
            roots
        }
    };
    let time = roots.into_iter().find(|&t| t > 0.0)?;
    let p = d.pos + d.vel * time + Vector2::new(0.0, -0.5 * gravity * time * time);
    let along = (p - a).dot(&chord) / chord.norm_squared();
    (along > 0.0 && along < 1.0).then_some(time)
}

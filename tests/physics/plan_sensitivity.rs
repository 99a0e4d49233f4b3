//! The planner's sensitivities (docs/plan.md, "Sensitivities"): the search differentiates whole
//! runs by central differences with a step of 1e-3 of each keyframe's box. Where a target moves
//! smoothly with a keyframe, also through the run's events (a throw's loosen and leave), the
//! differences at that step, a quarter and a sixteenth of it must converge as a central
//! difference does, O(h^2): the runs' integration noise does not spoil them.

use std::path::Path;

use diabolo::plan::{Objective, Task};

/// A shipped task.
fn task(name: &str) -> Task {
    let text = std::fs::read_to_string(format!("scenarios/plans/{name}.json")).unwrap();
    Task::from_document(
        serde_json::from_str(&text).unwrap(),
        Path::new("scenarios/plans"),
    )
    .unwrap()
}

/// The value of check `what` on the plan of `free`.
fn value(objective: &Objective, free: &[f64], what: &str) -> f64 {
    objective
        .checks(free)
        .into_iter()
        .find(|c| c.what == what)
        .and_then(|c| c.value)
        .unwrap()
}

/// d value / d free[j] by central differences with step h.
fn central(objective: &Objective, free: &[f64], j: usize, h: f64, what: &str) -> f64 {
    let at = |delta: f64| {
        let mut moved = free.to_vec();
        moved[j] += delta;
        value(objective, &moved, what)
    };
    (at(h) - at(-h)) / (2.0 * h)
}

/// The central differences at the search's step (1e-3 of the box), a quarter and a sixteenth
/// of it converge as O(h^2): the steps' differences shrink 16-fold (a truncation error, not the
/// runs' noise) or are below 1e-7 of the derivative, and the search's step is within 1e-3 of
/// the finest. Returns the three.
fn converges(objective: &Objective, free: &[f64], j: usize, box_size: f64, what: &str) -> [f64; 3] {
    let h = 1e-3 * box_size;
    let d = [1.0, 4.0, 16.0].map(|f| central(objective, free, j, h / f, what));
    let (first, second) = ((d[0] - d[1]).abs(), (d[1] - d[2]).abs());
    let scale = d[2].abs();
    eprintln!(
        "{what} / free[{j}]: {:.10} (h), {:.10} (h/4), {:.10} (h/16); ratio {:.1}",
        d[0],
        d[1],
        d[2],
        first / second
    );
    assert!(
        (8.0..=32.0).contains(&(first / second)) || first.max(second) < 1e-7 * scale,
        "{d:?}"
    );
    assert!(
        first < 1e-3 * scale,
        "the search's step is off by {}",
        first / scale
    );
    d
}

// Smooth: the carry task's distance to its target at 1.5 s against the right hand's second
// keyframe (x and y), from a plan 5 cm off the still hands. No event on the way.
#[test]
fn central_differences_of_a_smooth_target_converge() {
    let task = task("carry");
    let objective = Objective::new(&task);
    let mut free = objective.first_start();
    free[2] += 0.05;
    free[3] -= 0.05;
    for (j, box_size) in [(2, 0.7), (3, 0.9)] {
        let d = converges(&objective, &free, j, box_size, "state.pos");
        assert!(d[2].abs() > 1e-3, "the target feels the keyframe: {d:?}");
    }
}

// Across events: the toss's apex (the diabolo loosens the string, leaves it and flies) against
// the left hand's pull (its first keyframe, x and y), at the planner's first start.
#[test]
fn central_differences_through_a_throws_events_converge() {
    let task = task("toss");
    let objective = Objective::new(&task);
    let free = objective.first_start();
    for (j, box_size) in [(0, 1.5), (1, 0.9)] {
        let d = converges(&objective, &free, j, box_size, "apex");
        assert!(d[2].abs() > 1e-2, "the apex feels the pull: {d:?}");
    }
}

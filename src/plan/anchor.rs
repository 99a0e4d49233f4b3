//! The anchor the planner is measured against (docs/plan.md, "Against the anchor"): a random
//! search like the published planner for this prop (OMRON SINIC X's diabolo motion generator),
//! on the same keyframes: every keyframe perturbed at random, the perturbed plan kept where it
//! lowers the cost, until a plan meets every target or the runs' budget is spent.

use super::search::{Outcome, Problem, Stopped};
use crate::random::SplitMix64;

/// A random perturbation's size, per keyframe coordinate, as a fraction of its box.
const SPREAD: f64 = 0.05;

/// Random search from the first start (the hands held still, or a throw) within `budget` runs (seeded by `seed`): each
/// trial one iteration.
pub fn random_search(problem: &Problem, seed: u64, budget: usize) -> Outcome {
    let mut random = SplitMix64(seed);
    let mut x = problem.first.clone();
    let scales: Vec<f64> = problem.hands.iter().flat_map(|h| h.scales()).collect();
    let mut best = (problem.evaluate)(&x);
    let mut simulations = 1;
    while simulations < budget && !best.feasible() {
        let mut trial = x.clone();
        for (value, scale) in trial.iter_mut().zip(&scales) {
            *value += random.gaussian() * SPREAD * scale;
        }
        let mut at = 0;
        for hand in problem.hands {
            hand.clamp(&mut trial[at..at + hand.size()]);
            at += hand.size();
        }
        let candidate = (problem.evaluate)(&trial);
        simulations += 1;
        if candidate.cost < best.cost {
            x = trial;
            best = candidate;
        }
    }
    let stopped = if best.feasible() {
        Stopped::Met
    } else {
        Stopped::Budget
    };
    Outcome {
        best,
        iterations: simulations - 1,
        simulations,
        stopped,
        starts: 1,
    }
}

//! The search for a plan (docs/plan.md, "The search"): Levenberg-Marquardt on the checks'
//! violations (and, to minimise effort, a small effort term), its Jacobian by central
//! differences of whole runs in parallel, the keyframes kept in their boxes, from the hands held
//! still and then from seeded random starts inside the boxes until a plan meets every target
//! (and, minimising effort, the budget is spent or the search settles).

use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;

use super::hands::HandMotion;
use super::targets::{Check, Stage};
use crate::random::SplitMix64;

/// A random step's size where the linearisation fails, per keyframe coordinate, as a fraction
/// of its box.
const KICK: f64 = 0.05;

/// Minimising effort, the starts whose plans meet every target before the search settles on
/// the least effort among them.
const EFFORT_STARTS: usize = 4;

/// Random steps tried before a Jacobian where the cost is rough.
const RANDOM_TRIES: usize = 4;

/// The search's own settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchOptions {
    /// Seeds the random starts.
    pub seed: u64,
    /// At most this many runs of the scenario.
    pub max_simulations: usize,
    /// At most this many Levenberg-Marquardt iterations from one start.
    pub max_iterations: usize,
    /// At most this many starts (the first with the hands held still).
    pub max_starts: usize,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            seed: 1,
            max_simulations: 10000,
            max_iterations: 40,
            max_starts: 24,
        }
    }
}

/// One evaluated plan: its numbers, checks and effort.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The hands' free numbers, hand after hand.
    pub free: Vec<f64>,
    /// The targets' and the limits' checks.
    pub checks: Vec<Check>,
    /// The planned sticks' effort, m^2/s^3.
    pub effort: f64,
    /// The search's cost: the sum of squared violations plus the effort term.
    pub cost: f64,
}

impl Candidate {
    /// The plan of `free` with its checks and effort, its cost the whole search's (every check
    /// but the guides, and the effort if it is minimised).
    pub fn new(free: Vec<f64>, checks: Vec<Check>, effort: f64, minimize_effort: bool) -> Self {
        let mut candidate = Self {
            free,
            checks,
            effort,
            cost: 0.0,
        };
        candidate.cost = candidate.staged_cost(true, minimize_effort);
        candidate
    }

    /// Whether every check holds.
    pub fn feasible(&self) -> bool {
        self.checks.iter().all(Check::met)
    }

    /// Whether every check of the first stage is met with the search's margin (violation 0).
    fn first_stage_met(&self) -> bool {
        self.checks
            .iter()
            .all(|c| c.stage == Stage::Deferred || c.violation == 0.0)
    }

    /// The cost the search lowers in its stage: if `whole`, of every check but the guides, else
    /// of every check but the deferred ones.
    fn staged_cost(&self, whole: bool, minimize_effort: bool) -> f64 {
        residuals(self, minimize_effort, whole).norm_squared()
    }
}

/// Why the search stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// A plan meets every target (and nothing is to be minimised).
    Met,
    /// Minimising effort, [`EFFORT_STARTS`] starts met every target (the least effort kept).
    Settled,
    /// The runs' budget is spent.
    Budget,
    /// Every start was tried.
    Starts,
    /// Interrupted (Ctrl-C): the best plan so far.
    Interrupted,
}

impl Stopped {
    /// The reason in the report.
    pub fn name(self) -> &'static str {
        match self {
            Self::Met => "met",
            Self::Settled => "settled",
            Self::Budget => "budget",
            Self::Starts => "starts",
            Self::Interrupted => "interrupted",
        }
    }
}

/// What the search needs of the problem: the hands, how a plan is checked, and whether effort
/// is minimised.
pub struct Problem<'a> {
    /// The planned hands, in order.
    pub hands: &'a [HandMotion],
    /// The first start's free numbers (the hands held still, or a throw); the random starts
    /// are spread around it.
    pub first: Vec<f64>,
    /// Runs the plan of the free numbers and checks it (targets and limits).
    pub evaluate: &'a (dyn Fn(&[f64]) -> Candidate + Sync),
    /// Minimise the effort once every target is met.
    pub minimize_effort: bool,
}

/// The search's progress, for a progress line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// The start (0: the first, the hands held still or a throw).
    pub start: usize,
    /// The iteration from that start.
    pub iteration: usize,
    /// Runs so far.
    pub simulations: usize,
    /// The best cost so far.
    pub cost: f64,
    /// Whether a plan meeting every target was found.
    pub feasible: bool,
}

/// The search's result.
pub struct Outcome {
    /// The best plan: the feasible one of least effort, else the one of least cost.
    pub best: Candidate,
    /// Levenberg-Marquardt iterations, all starts.
    pub iterations: usize,
    /// Runs of the scenario.
    pub simulations: usize,
    /// Why it stopped.
    pub stopped: Stopped,
    /// The starts tried.
    pub starts: usize,
}

/// Searches from the hands held still, then from random starts, within `options`; `stop`
/// asks it to end with the best so far; `progress` hears of each iteration.
pub fn search(
    problem: &Problem,
    options: &SearchOptions,
    stop: &(dyn Fn() -> bool + Sync),
    progress: &mut dyn FnMut(&Progress),
) -> Outcome {
    let mut random = SplitMix64(options.seed);
    let scales: Vec<f64> = problem.hands.iter().flat_map(HandMotion::scales).collect();
    let clamp = |x: &mut [f64]| {
        let mut at = 0;
        for hand in problem.hands {
            hand.clamp(&mut x[at..at + hand.size()]);
            at += hand.size();
        }
    };
    // A random step around x: each number moved by KICK of its scale, kept in its box.
    let kick = |x: &[f64], random: &mut SplitMix64| {
        let mut trial = x.to_vec();
        for (value, scale) in trial.iter_mut().zip(&scales) {
            *value += random.gaussian() * KICK * scale;
        }
        clamp(&mut trial);
        trial
    };
    let mut feasible_starts = 0;
    let mut simulations = 0usize;
    let mut iterations = 0usize;
    let mut best: Option<Candidate> = None;
    let mut start = 0;
    let stopped = 'starts: loop {
        let mut x = problem.first.clone();
        if start > 0 {
            // A random start around the first, wider start by start (5 % of each
            // box at the first, the whole box by the twentieth).
            let spread = (0.05 * start as f64).min(1.0);
            for (value, scale) in x.iter_mut().zip(&scales) {
                *value += random.gaussian() * spread * scale;
            }
            clamp(&mut x);
        }
        let mut current = (problem.evaluate)(&x);
        simulations += 1;
        let mut damping = 1e-3;
        let mut quiet = 0;
        // Staged: the deferred checks (a catch after a throw) are graded once the others are
        // met, from the plan that meets them.
        let mut whole = !current.checks.iter().any(|c| c.stage != Stage::Always);
        let mut rough = false;
        let mut iteration = 0;
        while iteration < options.max_iterations {
            keep_best(&mut best, &current);
            if !whole && current.first_stage_met() {
                whole = true;
                damping = 1e-3;
                quiet = 0;
            }
            let staged = |c: &Candidate| c.staged_cost(whole, problem.minimize_effort);
            progress(&Progress {
                start,
                iteration,
                simulations,
                cost: best.as_ref().map_or(f64::INFINITY, |b| b.cost),
                feasible: best.as_ref().is_some_and(Candidate::feasible),
            });
            if stop() {
                break 'starts Stopped::Interrupted;
            }
            if current.feasible() && !problem.minimize_effort {
                break 'starts Stopped::Met;
            }
            if simulations + 2 * x.len() + 1 > options.max_simulations {
                break 'starts Stopped::Budget;
            }
            // Where the cost is rough (the last Gauss-Newton step failed or gained under 1 %:
            // a catch, an impulse, a limit's maximum) and a check is missed, a few random steps
            // first, as the anchor takes them; the Jacobian only when none of them helps. A
            // smooth cost, and the effort alone, are lowered by the Jacobian.
            let missed = current.staged_cost(whole, false) > 0.0;
            let tries = if rough && missed { RANDOM_TRIES } else { 0 };
            let tried = (0..tries).find_map(|_| {
                let trial = kick(&x, &mut random);
                let candidate = (problem.evaluate)(&trial);
                simulations += 1;
                (staged(&candidate) < staged(&current)).then_some((trial, candidate))
            });
            if let Some((trial, candidate)) = tried {
                x = trial;
                current = candidate;
                continue;
            }
            iteration += 1;
            iterations += 1;
            let residual = residuals(&current, problem.minimize_effort, whole);
            let jacobian = jacobian(problem, &x, &scales, residual.len(), whole);
            simulations += 2 * x.len();
            let gradient = jacobian.transpose() * &residual;
            let normal = jacobian.transpose() * &jacobian;
            let mut improved = false;
            // Marquardt's damping, scaled by the curvature along each number but never below
            // a part of the mean: a number the stage's checks do not feel (a keyframe after
            // the throw, while the throw is searched) is not sent flying by noise.
            let floor = 1e-2 * normal.trace() / x.len() as f64 + 1e-9;
            for _ in 0..12 {
                let mut system = normal.clone();
                for j in 0..x.len() {
                    system[(j, j)] += damping * normal[(j, j)].max(floor);
                }
                let Some(step) = system.lu().solve(&(-&gradient)) else {
                    damping *= 10.0;
                    continue;
                };
                let mut trial = x.clone();
                for (value, delta) in trial.iter_mut().zip(step.iter()) {
                    *value += delta;
                }
                clamp(&mut trial);
                let candidate = (problem.evaluate)(&trial);
                simulations += 1;
                let (now, then) = (staged(&candidate), staged(&current));
                if now < then {
                    let gain = (then - now) / then.max(1e-300);
                    x = trial;
                    current = candidate;
                    damping = (damping / 3.0).max(1e-9);
                    improved = true;
                    quiet = if gain < 1e-4 { quiet + 1 } else { 0 };
                    rough = gain < 1e-2;
                    break;
                }
                damping *= 4.0;
            }
            if !improved {
                rough = true;
                // The linearisation helps no more (an event straddled, a kink): random steps
                // around the plan, as the anchor takes them, one kept if it lowers the cost.
                for _ in 0..x.len() {
                    let trial = kick(&x, &mut random);
                    let candidate = (problem.evaluate)(&trial);
                    simulations += 1;
                    if staged(&candidate) < staged(&current) {
                        x = trial;
                        current = candidate;
                        damping = 1e-3;
                        improved = true;
                        break;
                    }
                }
            }
            if !improved || quiet >= 3 {
                break;
            }
        }
        keep_best(&mut best, &current);
        if current.feasible() && !problem.minimize_effort {
            break Stopped::Met;
        }
        if problem.minimize_effort && current.feasible() {
            feasible_starts += 1;
            if feasible_starts >= EFFORT_STARTS {
                break Stopped::Settled;
            }
        }
        if start + 1 >= options.max_starts {
            break Stopped::Starts;
        }
        start += 1;
        if simulations + 2 * x.len() + 1 > options.max_simulations {
            break Stopped::Budget;
        }
    };
    Outcome {
        best: best.expect("one plan was evaluated"),
        iterations,
        simulations,
        stopped,
        starts: start + 1,
    }
}

/// Keeps the better of `best` and `candidate`: a feasible plan over an infeasible one, of two
/// feasible ones the lower effort, of two infeasible ones the lower cost.
fn keep_best(best: &mut Option<Candidate>, candidate: &Candidate) {
    let better = match best {
        None => true,
        Some(b) => match (candidate.feasible(), b.feasible()) {
            (true, false) => true,
            (false, true) => false,
            (true, true) => candidate.effort < b.effort,
            (false, false) => candidate.cost < b.cost,
        },
    };
    if better {
        *best = Some(candidate.clone());
    }
}

/// The residuals whose squares the search sums: each check's violation (if `whole` the
/// deferred ones, else the guides), and the effort term.
pub fn residuals(candidate: &Candidate, minimize_effort: bool, whole: bool) -> DVector<f64> {
    let mut r: Vec<f64> = candidate
        .checks
        .iter()
        .filter(|c| match c.stage {
            Stage::Always => true,
            Stage::Guide => !whole,
            Stage::Deferred => whole,
        })
        .map(|c| c.violation)
        .collect();
    if minimize_effort {
        r.push(effort_residual(candidate.effort));
    }
    DVector::from_vec(r)
}

/// The effort's weight in the cost (s^3/m^2): small against a violation, so that targets come
/// first.
const EFFORT_WEIGHT: f64 = 1e-4;

/// The effort's residual, whose square is its part of the cost.
fn effort_residual(effort: f64) -> f64 {
    (EFFORT_WEIGHT * effort).sqrt()
}

/// The residuals' Jacobian by central differences (each free number moved by 1e-3 of its
/// box), the runs in parallel.
fn jacobian(
    problem: &Problem,
    x: &[f64],
    scales: &[f64],
    rows: usize,
    whole: bool,
) -> DMatrix<f64> {
    let columns: Vec<DVector<f64>> = (0..x.len())
        .into_par_iter()
        .map(|j| {
            let h = 1e-3 * scales[j];
            let at = |delta: f64| {
                let mut moved = x.to_vec();
                moved[j] += delta;
                residuals(&(problem.evaluate)(&moved), problem.minimize_effort, whole)
            };
            (at(h) - at(-h)) / (2.0 * h)
        })
        .collect();
    let mut jacobian = DMatrix::zeros(rows, x.len());
    for (j, column) in columns.iter().enumerate() {
        if column.len() == rows {
            jacobian.set_column(j, column);
        }
    }
    jacobian
}

//! Planning the hands (`diabolo plan`, docs/plan.md): what the hands must do so that the
//! diabolo does what a task asks. A task is a scenario with a `plan` object ([`task`]); each
//! planned hand moves through free keyframes on the format's cubic spline ([`hands`]); a plan
//! is checked by running it ([`targets`]) and the search ([`search`]) moves the keyframes
//! until every target holds. The planned scenario is what the planner ran: `diabolo run` on it
//! reproduces the planner's checks bit for bit.
//!
//! ```
//! use diabolo::plan::{plan, PlanOptions, Task};
//!
//! let text = r#"{
//!   "params": {"string_length": 1.46},
//!   "initial": {"diabolos": [{"x": 0.0, "spin": 1.0}]},
//!   "drive": {"left": {"type": "path", "keyframes": [[0, -0.5, 1.2]]},
//!             "right": {"type": "path", "keyframes": [[0, 0.5, 1.2]]}},
//!   "sim": {"duration": 1.0},
//!   "plan": {"hands": {"right": {"keyframes": 2, "box": [[0.3, 1.0], [0.7, 1.5]]}},
//!            "limits": {"speed": 3.0, "accel": 40.0},
//!            "targets": [{"state": {"diabolo": 1, "time": 1.0, "pos": [0.05, 0.7], "pos_tolerance": 0.02}}],
//!            "minimize": "nothing"}
//! }"#;
//! let task = Task::from_document(serde_json::from_str(text).unwrap(), std::path::Path::new("."))
//!     .unwrap();
//! let planned = plan(&task, &PlanOptions::default(), &|| false, &mut |_| {});
//! assert!(planned.met(), "{:?}", planned.checks);
//! ```

pub mod anchor;
pub mod hands;
pub mod search;
pub mod targets;
pub mod task;

use nalgebra::Vector2;
use serde::Serialize;
use serde_json::Value;

pub use hands::{Bounds, HandMotion};
pub use search::{Progress, SearchOptions, Stopped};
pub use targets::{evaluate, Check};
pub use task::{PlanError, PlanSpec, Target, Task};

use crate::scenario::{Scenario, ScenarioError};
use crate::simulation::Simulation;

/// How to plan.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PlanOptions {
    /// The search's settings.
    pub search: SearchOptions,
}

/// A plan: the planned scenario and how it stands.
#[derive(Clone, Debug, Serialize)]
pub struct Planned {
    /// The scenario to run: the task without `plan`, the planned hands' drives replaced.
    #[serde(skip)]
    pub scenario: Value,
    /// Every target's and limit's check on the planned run.
    pub checks: Vec<Check>,
    /// The planned sticks' effort, the integral of their squared acceleration, m^2/s^3.
    pub effort: f64,
    /// Levenberg-Marquardt iterations.
    pub iterations: usize,
    /// Runs of the scenario.
    pub simulations: usize,
    /// Starts tried.
    pub starts: usize,
    /// Wall-clock time, s.
    pub wall_time: f64,
    /// Why the search stopped.
    pub stopped: &'static str,
}

impl Planned {
    /// Whether every target and limit holds.
    pub fn met(&self) -> bool {
        self.checks.iter().all(Check::met)
    }

    /// The checks that do not hold.
    pub fn unmet(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| !c.met())
    }
}

/// The hands a task plans.
fn motions(task: &Task) -> Vec<HandMotion> {
    task.planned()
        .map(|(side, spec)| {
            let start = task.start(side);
            HandMotion::new(
                side,
                Vector2::new(start.pos.x, start.pos.y),
                Vector2::new(start.vel.x, start.vel.y),
                spec,
                task.duration(),
            )
        })
        .collect()
}

/// The search's first start: where a target asks for a throw (an apex), a throw whose later
/// keyframes are under where that throw comes down; else the hands held still.
fn first_start(task: &Task, hands: &[HandMotion]) -> Vec<f64> {
    let Some(thrown) = task.plan.targets.iter().find_map(|t| match *t {
        Target::Apex { diabolo, .. } => Some(diabolo),
        _ => None,
    }) else {
        return hands.iter().flat_map(HandMotion::still).collect();
    };
    let (left, right) = (task.start(0).pos, task.start(1).pos);
    let centre = Vector2::new(0.5 * (left.x + right.x), 0.5 * (left.y + right.y));
    let length = task.simulation.params.string_length;
    let throw = |catch_x: Option<f64>| -> Vec<f64> {
        hands
            .iter()
            .flat_map(|hand| hand.thrown(centre, length, catch_x))
            .collect()
    };
    let first = throw(None);
    match where_it_falls(task, hands, &first, thrown) {
        Some(x) => throw(Some(x)),
        None => first,
    }
}

/// Where diabolo `k`, thrown by the plan of `free`, first falls through the sticks' mean
/// height (m, at an output row), if it does.
fn where_it_falls(task: &Task, hands: &[HandMotion], free: &[f64], k: usize) -> Option<f64> {
    let sim = planned_simulation(task, hands, free).ok()?;
    let mut session = sim.session();
    let mut fall = None;
    let _ = session.advance(
        sim.settings.duration,
        Some(&mut |row: &crate::simulation::Row| {
            let d = &row.state.diabolos[k - 1];
            let hands_y = 0.5 * (row.state.left.pos.y + row.state.right.pos.y);
            let flying = row.modes[k - 1] == crate::simulation::DiaboloMode::Flying;
            if fall.is_none() && flying && d.vel.y < 0.0 && d.pos.y <= hands_y {
                fall = Some(d.pos.x);
            }
        }),
    );
    fall
}

/// The planned scenario's document for the hands' free numbers `free`.
fn planned_document(task: &Task, hands: &[HandMotion], free: &[f64]) -> Value {
    let mut document = task.document.clone();
    for (hand, numbers) in per_hand(hands, free) {
        document["drive"][["left", "right"][hand.side]] = hand.drive(numbers);
    }
    document
}

/// Each planned hand with its part of the free numbers.
fn per_hand<'a>(
    hands: &'a [HandMotion],
    free: &'a [f64],
) -> impl Iterator<Item = (&'a HandMotion, &'a [f64])> {
    hands.iter().scan(0, move |at, hand| {
        let numbers = &free[*at..*at + hand.size()];
        *at += hand.size();
        Some((hand, numbers))
    })
}

/// The planned scenario of `free`, built from its written text exactly as `diabolo run` builds
/// it.
fn planned_simulation(
    task: &Task,
    hands: &[HandMotion],
    free: &[f64],
) -> Result<Simulation, ScenarioError> {
    let text = planned_text(&planned_document(task, hands, free));
    Scenario::parse(&text, &[])?.build(&task.base)
}

/// The limits' checks of the planned hands' `bounds`: speed, acceleration and box, each at
/// every instant.
fn limit_checks(task: &Task, hands: &[HandMotion], bounds: &[Bounds]) -> Vec<Check> {
    let limits = &task.plan.limits;
    let mut checks = Vec::new();
    for (hand, b) in hands.iter().zip(bounds) {
        let side = ["left", "right"][hand.side];
        let check = |what: &str, value: f64, margin: f64, scale: f64| {
            targets::check(&format!("{side}.{what}"), None, Some(value), margin, scale)
        };
        checks.push(check(
            "speed",
            b.top_speed,
            limits.speed - b.top_speed,
            0.1 * limits.speed,
        ));
        checks.push(check(
            "accel",
            b.top_accel,
            limits.accel - b.top_accel,
            0.1 * limits.accel,
        ));
        checks.push(check("box", b.box_margin, b.box_margin, 0.02));
    }
    checks
}

/// Runs the plan of `free` exactly as it is written (the document's text parsed and built) and
/// checks it.
fn candidate(task: &Task, hands: &[HandMotion], free: &[f64]) -> search::Candidate {
    let bounds: Vec<Bounds> = per_hand(hands, free)
        .map(|(hand, numbers)| hand.bounds_of(numbers))
        .collect();
    let effort = bounds.iter().map(|b| b.effort).sum();
    let mut checks = match planned_simulation(task, hands, free) {
        Ok(sim) => evaluate(&sim, &task.plan.targets, task.plan.limits.span),
        Err(e) => vec![Check {
            what: format!("scenario: {e}"),
            diabolo: None,
            value: None,
            margin: -1.0,
            violation: 10.0,
            stage: targets::Stage::Always,
        }],
    };
    checks.extend(limit_checks(task, hands, &bounds));
    let minimize = task.plan.minimize == task::Minimize::Effort;
    search::Candidate::new(free.to_vec(), checks, effort, minimize)
}

/// A task's plans as the search sees them: its free numbers (the planned hands' keyframes,
/// hand after hand, x and y each, then the time weights of free times), their first start,
/// and the checks of any of them. For sensitivities, comparisons and custom searches.
pub struct Objective<'a> {
    task: &'a Task,
    hands: Vec<HandMotion>,
}

impl<'a> Objective<'a> {
    /// The problem of `task`.
    pub fn new(task: &'a Task) -> Self {
        Self {
            task,
            hands: motions(task),
        }
    }

    /// The search's first start: a throw where an apex is asked for, else the hands still.
    pub fn first_start(&self) -> Vec<f64> {
        first_start(self.task, &self.hands)
    }

    /// The targets' and the limits' checks of the plan of `free`, run as written.
    pub fn checks(&self, free: &[f64]) -> Vec<Check> {
        candidate(self.task, &self.hands, free).checks
    }
}

/// The planned scenario's text, as `diabolo plan` writes it.
pub fn planned_text(document: &Value) -> String {
    let mut text = serde_json::to_string_pretty(document).expect("a document is JSON");
    text.push('\n');
    text
}

/// Plans `task`: the search, then the best plan's scenario and checks. `stop` ends the search
/// early with the best plan so far (Ctrl-C); `progress` hears of each iteration.
pub fn plan(
    task: &Task,
    options: &PlanOptions,
    stop: &(dyn Fn() -> bool + Sync),
    progress: &mut dyn FnMut(&Progress),
) -> Planned {
    let minimize_effort = task.plan.minimize == task::Minimize::Effort;
    planned_by(task, minimize_effort, |problem| {
        search::search(problem, &options.search, stop, progress)
    })
}

/// The anchor on `task`: the random search of [`anchor`] within `budget` runs, as a plan.
pub fn plan_by_random_search(task: &Task, seed: u64, budget: usize) -> Planned {
    planned_by(task, false, |problem| {
        anchor::random_search(problem, seed, budget)
    })
}

/// The plan a search of `task`'s problem finds, timed.
fn planned_by(
    task: &Task,
    minimize_effort: bool,
    search: impl FnOnce(&search::Problem) -> search::Outcome,
) -> Planned {
    let started = crate::clock::Stopwatch::start();
    let hands = motions(task);
    let evaluate = |free: &[f64]| candidate(task, &hands, free);
    let problem = search::Problem {
        first: first_start(task, &hands),
        hands: &hands,
        evaluate: &evaluate,
        minimize_effort,
    };
    let outcome = search(&problem);
    let best = outcome.best;
    Planned {
        scenario: planned_document(task, &hands, &best.free),
        // A guide steers the search; it is not a requirement to report.
        checks: best
            .checks
            .into_iter()
            .filter(|c| c.stage != targets::Stage::Guide)
            .collect(),
        effort: best.effort,
        iterations: outcome.iterations,
        simulations: outcome.simulations,
        starts: outcome.starts,
        wall_time: started.elapsed().as_secs_f64(),
        stopped: outcome.stopped.name(),
    }
}

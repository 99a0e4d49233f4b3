//! A planning task (docs/plan.md): a scenario with a `plan` object naming the hands to plan,
//! their boxes, the limits on their motion and the targets the run must meet. Read and checked
//! here; every refusal names the field, the value and the fix.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use std::path::{Path, PathBuf};

use crate::model::Body;
use crate::scenario::{Scenario, ScenarioError};
use crate::simulation::Simulation;

/// A task that cannot be planned as given: the field, its value and the fix.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// A field of the `plan` object (or one the plan needs of the scenario).
    #[error("{field}{}: {why}", shown(.value))]
    Task {
        /// The field's JSON path.
        field: String,
        /// Its value.
        value: String,
        /// What is wrong and the fix.
        why: String,
    },
    /// The scenario itself.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
}

/// " = VALUE", or nothing where the value is not known (a field that could not be read).
fn shown(value: &str) -> String {
    if value.is_empty() {
        String::new()
    } else {
        format!(" = {value}")
    }
}

/// Most free keyframes per hand.
pub const MOST_KEYFRAMES: usize = 40;

/// Free keyframes are at least this far apart, s.
pub const SHORTEST_GAP: f64 = 0.05;

/// The `plan` object as a task file states it.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PlanSpec {
    /// The hands to plan, by side.
    pub hands: HandsSpec,
    /// Bounds on the planned motion.
    pub limits: LimitsSpec,
    /// What the run must do.
    pub targets: Vec<Target>,
    /// What to make small once every target is met.
    #[serde(default)]
    pub minimize: Minimize,
}

/// The planned hands.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HandsSpec {
    /// The left stick's plan (`None`: it keeps the scenario's drive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<HandSpec>,
    /// The right stick's plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right: Option<HandSpec>,
}

/// One planned hand.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HandSpec {
    /// Free keyframes after t = 0.
    pub keyframes: usize,
    /// [[xmin, ymin], [xmax, ymax]], m: the stick stays inside at every instant.
    #[serde(rename = "box")]
    pub bounds: [[f64; 2]; 2],
    /// Where the keyframes sit in time.
    #[serde(default)]
    pub times: Times,
}

/// Where a hand's free keyframes sit in time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Times {
    /// Spread evenly to the run's duration.
    #[default]
    Even,
    /// Moved by the planner (at least [`SHORTEST_GAP`] apart, the last at the duration).
    Free,
}

/// Bounds on each planned stick's motion at every instant.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsSpec {
    /// Largest speed, m/s.
    pub speed: f64,
    /// Largest acceleration, m/s^2.
    pub accel: f64,
    /// Largest distance between the sticks, m (default: the string's length).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<f64>,
}

/// What the planner makes small once the targets are met.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Minimize {
    /// The integral of both planned sticks' squared acceleration.
    #[default]
    Effort,
    /// Nothing: the first plan that meets every target.
    Nothing,
}

/// A target of the planned run (docs/plan.md, "Targets").
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Target {
    /// Diabolo K leaves the string and its flight's highest point is at H +- E, m.
    Apex {
        /// K.
        diabolo: usize,
        /// H, m.
        height: f64,
        /// E, m.
        tolerance: f64,
    },
    /// Diabolo K lands on the string before T (s) and is on it at the end.
    Catch {
        /// K.
        diabolo: usize,
        /// T, s.
        before: f64,
    },
    /// At time T diabolo K is within E (m) of `pos` and, if given, within V (m/s) of `vel`.
    State {
        /// K.
        diabolo: usize,
        /// T, s.
        time: f64,
        /// [x, y], m.
        pos: [f64; 2],
        /// E, m.
        pos_tolerance: f64,
        /// [vx, vy], m/s.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        vel: Option<[f64; 2]>,
        /// V, m/s.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        vel_tolerance: Option<f64>,
    },
    /// At time T diabolo K spins at least W in magnitude (axle surface speed, m/s).
    Spin {
        /// K.
        diabolo: usize,
        /// T, s.
        time: f64,
        /// W, m/s.
        at_least: f64,
    },
    /// Diabolo K never leaves the string.
    StayOn {
        /// K.
        diabolo: usize,
    },
    /// The tension never exceeds F (N), and no tensing impulse F times 0.01 s.
    MaxTension(f64),
}

impl Target {
    /// The target's name in the task.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Apex { .. } => "apex",
            Self::Catch { .. } => "catch",
            Self::State { .. } => "state",
            Self::Spin { .. } => "spin",
            Self::StayOn { .. } => "stay_on",
            Self::MaxTension(_) => "max_tension",
        }
    }

    /// The diabolo the target is about, if one.
    pub fn diabolo(&self) -> Option<usize> {
        match *self {
            Self::Apex { diabolo, .. }
            | Self::Catch { diabolo, .. }
            | Self::State { diabolo, .. }
            | Self::Spin { diabolo, .. }
            | Self::StayOn { diabolo } => Some(diabolo),
            Self::MaxTension(_) => None,
        }
    }
}

/// A task read and checked: the scenario (its document without `plan`) and the plan.
#[derive(Clone, Debug)]
pub struct Task {
    /// The scenario's JSON document, `plan` taken out.
    pub document: Value,
    /// The scenario typed.
    pub scenario: Scenario,
    /// The scenario built (its drives as the task gives them).
    pub simulation: Simulation,
    /// Where relative paths of the scenario are read from.
    pub base: PathBuf,
    /// The plan.
    pub plan: PlanSpec,
}

/// A refusal of field `field` (its JSON path) holding `value`: what is wrong and the fix.
fn refuse(field: impl Into<String>, value: impl std::fmt::Display, why: &str) -> PlanError {
    PlanError::Task {
        field: field.into(),
        value: value.to_string(),
        why: why.to_string(),
    }
}

impl Task {
    /// Reads a task from its scenario document (overrides applied): `plan` taken out and typed,
    /// the rest a scenario, both checked against each other.
    pub fn from_document(mut document: Value, base: &Path) -> Result<Self, PlanError> {
        let plan = document
            .as_object_mut()
            .and_then(|o| o.remove("plan"))
            .ok_or_else(|| {
                refuse(
                    "plan",
                    "(missing)",
                    "a task is a scenario with a \"plan\" object (hands, limits, targets); add one (docs/plan.md)",
                )
            })?;
        let plan: PlanSpec = serde_path_to_error::deserialize(&plan).map_err(|e| {
            let path = e.path().to_string();
            refuse(
                format!("plan.{path}").trim_end_matches('.').to_string(),
                "",
                &e.into_inner().to_string(),
            )
        })?;
        let scenario = Scenario::from_value(document.clone())?;
        if scenario.is_space() {
            return Err(refuse(
                "sim.space",
                "true",
                "plans are made in the plane: leave out sim.space and third coordinates",
            ));
        }
        let simulation = scenario.build(base)?;
        let task = Self {
            document,
            scenario,
            simulation,
            base: base.to_path_buf(),
            plan,
        };
        task.check()?;
        Ok(task)
    }

    /// The run's duration, s.
    pub fn duration(&self) -> f64 {
        self.scenario.sim.duration
    }

    /// How many diabolos the scenario has.
    pub fn diabolos(&self) -> usize {
        self.scenario.initial.diabolos.len()
    }

    /// Checks the plan against itself and the scenario.
    fn check(&self) -> Result<(), PlanError> {
        let plan = &self.plan;
        if plan.hands.left.is_none() && plan.hands.right.is_none() {
            return Err(refuse(
                "plan.hands",
                "{}",
                "plan at least one hand: \"left\" or \"right\" with its keyframes and box",
            ));
        }
        if plan.targets.is_empty() {
            return Err(refuse(
                "plan.targets",
                "[]",
                "give at least one target (apex, catch, state, spin, stay_on, max_tension)",
            ));
        }
        for (name, value) in [("speed", plan.limits.speed), ("accel", plan.limits.accel)] {
            positive(&format!("plan.limits.{name}"), value)?;
        }
        if let Some(span) = plan.limits.span {
            positive("plan.limits.span", span)?;
        }
        for (side, hand) in self.planned() {
            self.check_hand(side, hand)?;
        }
        let duration = self.duration();
        let n = self.diabolos();
        for (i, target) in plan.targets.iter().enumerate() {
            let at = format!("plan.targets[{i}].{}", target.name());
            if let Some(k) = target.diabolo() {
                if k == 0 || k > n {
                    return Err(refuse(
                        format!("{at}.diabolo"),
                        k,
                        &format!("the scenario has {n} diabolo(s): use 1 to {n}"),
                    ));
                }
            }
            check_target(&at, target, duration)?;
        }
        for target in &plan.targets {
            if let Target::Apex { diabolo, .. } = target {
                if plan.targets.contains(&Target::StayOn { diabolo: *diabolo }) {
                    return Err(refuse(
                        "plan.targets",
                        format!("apex and stay_on for diabolo {diabolo}"),
                        "an apex needs the diabolo to leave the string, which stay_on forbids: drop one of them",
                    ));
                }
            }
        }
        Ok(())
    }

    /// The planned hands: (side 0 left / 1 right, its plan).
    pub fn planned(&self) -> impl Iterator<Item = (usize, &HandSpec)> {
        [&self.plan.hands.left, &self.plan.hands.right]
            .into_iter()
            .enumerate()
            .filter_map(|(side, hand)| hand.as_ref().map(|h| (side, h)))
    }

    fn check_hand(&self, side: usize, hand: &HandSpec) -> Result<(), PlanError> {
        let name = ["left", "right"][side];
        let at = format!("plan.hands.{name}");
        if hand.keyframes == 0 || hand.keyframes > MOST_KEYFRAMES {
            return Err(refuse(
                format!("{at}.keyframes"),
                hand.keyframes,
                &format!("give 1 to {MOST_KEYFRAMES} free keyframes"),
            ));
        }
        let most = (self.duration() / SHORTEST_GAP).floor() as usize;
        if hand.keyframes > most {
            return Err(refuse(
                format!("{at}.keyframes"),
                hand.keyframes,
                &format!(
                    "keyframes are at least {SHORTEST_GAP} s apart: at most {most} fit in sim.duration = {} s",
                    self.duration()
                ),
            ));
        }
        let [low, high] = hand.bounds;
        for axis in 0..2 {
            if !(low[axis].is_finite() && high[axis].is_finite() && low[axis] < high[axis]) {
                return Err(refuse(
                    format!("{at}.box"),
                    format!("{:?}", hand.bounds),
                    "give [[xmin, ymin], [xmax, ymax]] with each minimum below its maximum (m)",
                ));
            }
        }
        let start = self.start(side);
        let (x, y) = (start.pos.x, start.pos.y);
        if x < low[0] || x > high[0] || y < low[1] || y > high[1] {
            return Err(refuse(
                format!("{at}.box"),
                format!("{:?}", hand.bounds),
                &format!(
                    "the {name} stick starts at ({x}, {y}), outside the box: widen the box to contain its start"
                ),
            ));
        }
        Ok(())
    }

    /// Where stick `side` starts (0 left, 1 right).
    pub fn start(&self, side: usize) -> Body {
        let initial = &self.simulation.initial;
        [initial.left, initial.right][side]
    }
}

fn positive(field: &str, value: f64) -> Result<(), PlanError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(refuse(field, value, "must be a positive number"))
    }
}

/// A time of a target: within the run, (0, duration].
fn within_run(field: &str, value: f64, duration: f64) -> Result<(), PlanError> {
    if value.is_finite() && value > 0.0 && value <= duration {
        Ok(())
    } else {
        Err(refuse(
            field,
            value,
            &format!("give a time after 0 and at most sim.duration = {duration} s"),
        ))
    }
}

fn check_target(at: &str, target: &Target, duration: f64) -> Result<(), PlanError> {
    match *target {
        Target::Apex {
            height, tolerance, ..
        } => {
            if !height.is_finite() {
                return Err(refuse(format!("{at}.height"), height, "give a height, m"));
            }
            positive(&format!("{at}.tolerance"), tolerance)
        }
        Target::Catch { before, .. } => within_run(&format!("{at}.before"), before, duration),
        Target::State {
            time,
            pos,
            pos_tolerance,
            vel,
            vel_tolerance,
            ..
        } => {
            within_run(&format!("{at}.time"), time, duration)?;
            if !pos.iter().all(|v| v.is_finite()) {
                return Err(refuse(
                    format!("{at}.pos"),
                    format!("{pos:?}"),
                    "give [x, y], m",
                ));
            }
            positive(&format!("{at}.pos_tolerance"), pos_tolerance)?;
            match (vel, vel_tolerance) {
                (None, None) => Ok(()),
                (Some(_), Some(v)) => positive(&format!("{at}.vel_tolerance"), v),
                (Some(_), None) => Err(refuse(
                    format!("{at}.vel_tolerance"),
                    "(missing)",
                    "a target velocity needs its tolerance, m/s",
                )),
                (None, Some(v)) => Err(refuse(
                    format!("{at}.vel"),
                    "(missing)",
                    &format!("vel_tolerance = {v} needs a target velocity [vx, vy]"),
                )),
            }
        }
        Target::Spin { time, at_least, .. } => {
            within_run(&format!("{at}.time"), time, duration)?;
            positive(&format!("{at}.at_least"), at_least)
        }
        Target::StayOn { .. } => Ok(()),
        Target::MaxTension(force) => positive(at, force),
    }
}

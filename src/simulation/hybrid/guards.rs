//! Typed guards: the conditions whose zero crossings end a continuous stretch of a mode.
//!
//! Each mode lays its guards out once per run ([`TautGuards::new`], [`LooseGuards::new`]): the
//! layout is the one place where a locator member is tied to a guard. The event values are
//! written by walking it, the hits are decoded by looking it up, and the locator's members are
//! armed from it. A guard that does not exist for the whole run (the capstan bounds without a
//! switching friction law, the stick margin unless both sticks follow paths) is left out of
//! the layout; one that is off in the current friction mode (the second capstan bound of a
//! slipping axle) is disarmed in the locator.

use std::f64::consts::{PI, TAU};

use crate::model::{grip, AxleMode, Params};

use crate::simulation::drive::Drive;
use crate::simulation::ode::events::{Direction, EventSpec};
use crate::simulation::phase::{direction_sign, path_margin, LooseSystem, TautSystem};

/// A guard of the taut phase. Every one fires when its value reaches 0 from above.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TautGuard {
    /// T_0, N: the string loosens.
    Loosen,
    /// The slip speed of slipping axle k (1..N) along its direction, m/s: the slip stops or
    /// reverses.
    Slip { k: usize },
    /// The margin of gripping axle k (1..N) to a capstan bound c theta' -+ ln(T_k / T_{k-1})
    /// (tension form where a tension is not positive, see [`grip::grip_margins`]): `upper` for
    /// T_k > T_{k-1}. The axle unsticks.
    GripBound { k: usize, upper: bool },
    /// theta_k - 2 pi k_k (`up` false) or 2 pi (k_k + 1) - theta_k (`up` true), rad: the knot
    /// degree of diabolo k changes.
    Knot { k: usize, up: bool },
    /// |theta_k| - pi, rad: diabolo k would leave the string (the flying regime).
    Leave { k: usize },
    /// l_segment - the meeting distance, m: the objects at the ends of the segment meet.
    Meet { segment: usize },
    /// L - |p_right - p_left| of sticks that both follow paths, m.
    SticksApart,
}

/// A slot of the taut layout: a guard, or an axle's pair of slots whose guards follow the
/// axle's friction mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TautSlot {
    Fixed(TautGuard),
    /// The first (`second` false) or second slot of axle k: slipping, the slip and nothing;
    /// gripping, the upper and the lower capstan bound.
    Axle {
        k: usize,
        second: bool,
    },
}

impl TautSlot {
    /// The guard in this slot for the axles' friction `modes`; `None` when it is off.
    fn guard(self, modes: &[AxleMode]) -> Option<TautGuard> {
        match (self, self.axle_mode(modes)) {
            (Self::Fixed(guard), _) => Some(guard),
            (Self::Axle { k, second: false }, Some(AxleMode::Slipping(_))) => {
                Some(TautGuard::Slip { k })
            }
            (Self::Axle { second: true, .. }, Some(AxleMode::Slipping(_))) => None,
            (Self::Axle { k, second }, _) => Some(TautGuard::GripBound { k, upper: !second }),
        }
    }

    fn axle_mode(self, modes: &[AxleMode]) -> Option<AxleMode> {
        match self {
            Self::Axle { k, .. } => Some(modes[k - 1]),
            Self::Fixed(_) => None,
        }
    }
}

/// The guards of the taut phase in locator-member order: the tension, the axles' slips or
/// capstan bounds (with switching friction), the knot bounds, the leaving angles, the meetings,
/// the stick margin (both sticks on paths).
#[derive(Clone, Debug)]
pub struct TautGuards {
    slots: Vec<TautSlot>,
}

impl TautGuards {
    /// The layout for `n` diabolos.
    pub fn new(params: &Params, n: usize, drives: &[Drive; 2]) -> Self {
        let mut slots = vec![TautSlot::Fixed(TautGuard::Loosen)];
        if params.has_switching_friction() {
            for k in 1..=n {
                slots.push(TautSlot::Axle { k, second: false });
                slots.push(TautSlot::Axle { k, second: true });
            }
        }
        for k in 1..=n {
            slots.push(TautSlot::Fixed(TautGuard::Knot { k, up: false }));
            slots.push(TautSlot::Fixed(TautGuard::Knot { k, up: true }));
        }
        slots.extend((1..=n).map(|k| TautSlot::Fixed(TautGuard::Leave { k })));
        slots.extend((0..=n).map(|segment| TautSlot::Fixed(TautGuard::Meet { segment })));
        if both_on_paths(drives) {
            slots.push(TautSlot::Fixed(TautGuard::SticksApart));
        }
        Self { slots }
    }

    /// Number of locator members.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// The guard of locator member `member` under the friction `modes` (`None`: disarmed).
    pub fn guard(&self, member: usize, modes: &[AxleMode]) -> Option<TautGuard> {
        self.slots[member].guard(modes)
    }

    /// The locator's members: all fall, all armed (see [`TautGuards::arm`]).
    pub fn specs(&self) -> Vec<EventSpec> {
        vec![EventSpec::new(Direction::Falling); self.len()]
    }

    /// Whether each member is armed under the friction `modes`, in member order.
    pub fn armed<'a>(&'a self, modes: &'a [AxleMode]) -> impl Iterator<Item = bool> + 'a {
        self.slots.iter().map(|slot| slot.guard(modes).is_some())
    }

    /// Writes the value of every armed guard of `sys` (last evaluated at t, s) into `out`.
    pub fn write_values(&self, sys: &TautSystem, t: f64, out: &mut [f64]) {
        for (slot, value) in self.slots.iter().zip(out.iter_mut()) {
            if let Some(guard) = slot.guard(&sys.modes) {
                *value = guard.value(sys, t);
            }
        }
    }
}

impl TautGuard {
    /// The guard's value on the last evaluation of `sys` at t (s).
    fn value(self, sys: &TautSystem, t: f64) -> f64 {
        let dynamics = &sys.dynamics;
        let params = dynamics.params();
        let theta = |k: usize| dynamics.kinematics().objects()[k].theta;
        let floor = |k: usize| TAU * f64::from(sys.knots[k - 1]);
        match self {
            Self::Loosen => dynamics.tension().base_tension,
            Self::Slip { k } => {
                let contact = &dynamics.axles().contacts()[k - 1];
                match sys.modes[k - 1] {
                    AxleMode::Slipping(direction) => direction_sign(direction) * contact.slip_speed,
                    AxleMode::Stuck => contact.slip_speed,
                }
            }
            Self::GripBound { k, upper } => {
                let contact = &dynamics.axles().contacts()[k - 1];
                let ratios = dynamics.axles().tension_ratios();
                let (upper_margin, lower_margin) = grip::grip_margins(
                    params.friction_law,
                    params.friction,
                    contact.contact_angle,
                    dynamics.tension().base_tension,
                    ratios[k - 1],
                    ratios[k],
                );
                if upper {
                    upper_margin
                } else {
                    lower_margin
                }
            }
            Self::Knot { k, up: false } => theta(k) - floor(k),
            Self::Knot { k, up: true } => floor(k) + TAU - theta(k),
            Self::Leave { k } => theta(k).abs() - PI,
            Self::Meet { segment } => {
                dynamics.kinematics().segments()[segment].length - sys.meeting_distance
            }
            Self::SticksApart => path_margin(&sys.drives, params.string_length, t),
        }
    }

    /// What the guard watches, in words (for a failure of its value), with its object.
    pub fn words(self) -> (String, Option<usize>) {
        let diabolo = |k: usize| format!("diabolo {k}");
        match self {
            Self::Loosen => ("the string's tension".to_string(), None),
            Self::Slip { k } => (format!("the slip of {}", diabolo(k)), Some(k)),
            Self::GripBound { k, upper } => (
                format!(
                    "the grip margin of {} to its {} capstan bound",
                    diabolo(k),
                    if upper { "upper" } else { "lower" }
                ),
                Some(k),
            ),
            Self::Knot { k, .. } => (format!("the knot bound of {}", diabolo(k)), Some(k)),
            Self::Leave { k } => (format!("the string angle of {}", diabolo(k)), Some(k)),
            Self::Meet { segment } => (format!("the length of segment {segment}"), None),
            Self::SticksApart => ("the distance of the sticks".to_string(), None),
        }
    }
}

/// A guard of the loose phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LooseGuard {
    /// The slack L - sum l_i, m: the string snaps taut (falling).
    Tense,
    /// cross(e_{k-1}, e_k) at diabolo k: zero when the string folds back through diabolo k (a
    /// knot change, when the segments point opposite ways) or runs straight (either way).
    Fold { k: usize },
    /// l_segment - the meeting distance, m (falling).
    Meet { segment: usize },
    /// L - |p_right - p_left| of sticks that both follow paths, m (falling).
    SticksApart,
}

/// The guards of the loose phase in locator-member order: the slack, the folds, the meetings,
/// the stick margin (both sticks on paths).
#[derive(Clone, Debug)]
pub struct LooseGuards {
    guards: Vec<LooseGuard>,
}

impl LooseGuards {
    /// The layout for `n` diabolos.
    pub fn new(n: usize, drives: &[Drive; 2]) -> Self {
        let mut guards = vec![LooseGuard::Tense];
        guards.extend((1..=n).map(|k| LooseGuard::Fold { k }));
        guards.extend((0..=n).map(|segment| LooseGuard::Meet { segment }));
        if both_on_paths(drives) {
            guards.push(LooseGuard::SticksApart);
        }
        Self { guards }
    }

    /// Number of locator members.
    pub fn len(&self) -> usize {
        self.guards.len()
    }

    /// The guard of locator member `member`.
    pub fn guard(&self, member: usize) -> LooseGuard {
        self.guards[member]
    }

    /// The locator's members: the folds fire either way, the others falling.
    pub fn specs(&self) -> Vec<EventSpec> {
        self.guards
            .iter()
            .map(|guard| {
                EventSpec::new(match guard {
                    LooseGuard::Fold { .. } => Direction::Either,
                    _ => Direction::Falling,
                })
            })
            .collect()
    }

    /// Writes every guard's value at (t, y) into `out`; `lengths` holds the segment lengths
    /// at (t, y), `slack` the slack.
    pub fn write_values(
        &self,
        sys: &LooseSystem,
        (t, y): (f64, &[f64]),
        (lengths, slack): (&[f64], f64),
        out: &mut [f64],
    ) {
        for (guard, value) in self.guards.iter().zip(out.iter_mut()) {
            *value = match *guard {
                LooseGuard::Tense => slack,
                LooseGuard::Fold { k } => {
                    let pos = |j: usize| sys.position(t, y, j);
                    let (a, b) = (pos(k) - pos(k - 1), pos(k + 1) - pos(k));
                    (a.x * b.y - a.y * b.x) / (a.norm() * b.norm()).max(f64::MIN_POSITIVE)
                }
                LooseGuard::Meet { segment } => lengths[segment] - sys.meeting_distance,
                LooseGuard::SticksApart => path_margin(&sys.drives, sys.params.string_length, t),
            };
        }
    }

    /// What the guard watches, in words, with its object.
    pub fn words(guard: LooseGuard) -> (String, Option<usize>) {
        match guard {
            LooseGuard::Tense => ("the string's slack".to_string(), None),
            LooseGuard::Fold { k } => (format!("the turn of the string at diabolo {k}"), Some(k)),
            LooseGuard::Meet { segment } => (format!("the length of segment {segment}"), None),
            LooseGuard::SticksApart => ("the distance of the sticks".to_string(), None),
        }
    }
}

/// Whether both sticks follow paths (then they cannot be farther apart than the string is
/// long, a guard of both phases).
fn both_on_paths(drives: &[Drive; 2]) -> bool {
    matches!(drives, [Drive::Path(_), Drive::Path(_)])
}

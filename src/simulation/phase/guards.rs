//! Typed guards: the conditions whose zero crossings end a continuous stretch of a phase.
//!
//! One type runs end to end: a phase's layout holds [`Guard`]s, its locator's hits come back as
//! [`Fired`] guards in a [`Hit`], and the hybrid run dispatches on the [`Guard`] with one
//! `match`. A guard is the taut phase's own ([`TautGuard`]), the loose phase's own
//! ([`LooseGuard`]), one both phases carry ([`SharedGuard`]: contact, landing, the floor, the
//! sticks' distance), or the loose phase's overstretch check.
//!
//! Each phase lays its guards out once per run ([`TautGuards::new`], [`LooseGuards::new`]): the
//! layout is the one place where a locator member is tied to a guard. The event values are
//! written by walking it, the hits are decoded by looking it up, and the locator's members are
//! armed from it. A guard that does not exist for the whole run (the capstan bounds without a
//! switching friction law, the stick margin unless both sticks follow paths) is left out of
//! the layout; one that is off in the current friction mode (the second capstan bound of a
//! slipping axle) is disarmed in the locator.

use std::f64::consts::{PI, TAU};

use nalgebra::Vector2;

use crate::model::{grip, AxleMode, Kinematics, TautDynamics};
use crate::simulation::ode::events::{Direction, EventSpec};
use crate::simulation::tolerances::PULLED_STRAIGHT;

use super::shared::{FlightView, Object, SharedGuard};

/// A guard of either phase: the one type the run's event path carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    /// A guard of the taut phase only.
    Taut(TautGuard),
    /// A guard of the loose phase only.
    Loose(LooseGuard),
    /// A guard both phases carry.
    Shared(SharedGuard),
    /// A loose step ended with the string longer than L (the slack left zero on the wrong
    /// side): taut from where it reached full length. Found by the loose phase after its
    /// locator, not a locator member.
    Overstretched,
}

impl Guard {
    /// What the guard watches, in words (for a failure of its value), with its object (the
    /// run's numbering: slots are named by their diabolo).
    pub fn words(self, view: &FlightView) -> (String, Option<usize>) {
        match self {
            Self::Taut(guard) => guard.words(view),
            Self::Loose(guard) => guard.words(view),
            Self::Shared(guard) => guard.words(view),
            Self::Overstretched => ("the string's slack".to_string(), None),
        }
    }
}

/// A guard that fired, and whether its value rose through zero (else it fell).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fired {
    pub guard: Guard,
    pub rising: bool,
}

/// The guards that fired at one instant, in member order.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    /// Time, s.
    pub t: f64,
    pub fired: Vec<Fired>,
}

/// A guard of the taut phase. Every one fires when its value reaches 0 from above.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TautGuard {
    /// T_0, N: the string loosens.
    Loosen,
    /// sum_i sin^2 psi_i - [`PULLED_STRAIGHT`] (dimensionless) while both hands impose their
    /// sticks' acceleration on an inextensible string, else 1: the hands pull the string
    /// straight, where the force to go on diverges, and the run stops.
    Straighten,
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
    /// lambda, N: the force of the contact resting across `segment` (the `index`-th resting
    /// contact) would pull: the pair separates.
    Separate { segment: usize, index: usize },
}

/// The [`TautGuard::Straighten`] value: sum_i sin^2 psi_i less [`PULLED_STRAIGHT`] while both
/// hands impose their sticks' acceleration on an inextensible string (the one case where a
/// straight string is singular: docs/model.md, "Pulled straight"), else 1.
pub fn straightness(watch: &TautWatch) -> f64 {
    let dynamics = watch.dynamics;
    let imposed = watch.flight.drives.iter().all(|d| d.imposes_acceleration());
    if !imposed || dynamics.elastic_string().is_some() {
        return 1.0;
    }
    let objects = dynamics.kinematics().objects();
    let bend: f64 = (1..=dynamics.layout().diabolos())
        .map(|i| objects[i].sin_psi * objects[i].sin_psi)
        .sum();
    bend - PULLED_STRAIGHT
}

/// A slot of the taut layout: a guard of its own, a shared one, or an axle's pair of slots
/// whose guards follow the axle's friction mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TautSlot {
    Own(TautGuard),
    Shared(SharedGuard),
    /// The first (`second` false) or second slot of axle k: slipping, the slip and nothing;
    /// gripping, the upper and the lower capstan bound.
    Axle {
        k: usize,
        second: bool,
    },
}

impl TautSlot {
    /// The guard in this slot for the axles' friction `axle_modes`; `None` when it is off.
    fn guard(self, axle_modes: &[AxleMode]) -> Option<Guard> {
        match self {
            Self::Own(guard) => Some(Guard::Taut(guard)),
            Self::Shared(guard) => Some(Guard::Shared(guard)),
            Self::Axle { k, second } => axle_guard(k, second, axle_modes).map(Guard::Taut),
        }
    }
}

/// The guard of axle k's first (`second` false) or second slot under the friction
/// `axle_modes`: slipping, the slip and nothing; gripping, the upper and the lower capstan
/// bound.
fn axle_guard(k: usize, second: bool, axle_modes: &[AxleMode]) -> Option<TautGuard> {
    match (axle_modes[k - 1], second) {
        (AxleMode::Slipping(_), false) => Some(TautGuard::Slip { k }),
        (AxleMode::Slipping(_), true) => None,
        (AxleMode::Stuck, _) => Some(TautGuard::GripBound { k, upper: !second }),
    }
}

/// What the taut guards read: the dynamics last evaluated, the axles' friction modes and the
/// knot degrees of the current stretch.
#[derive(Clone, Copy, Debug)]
pub struct TautWatch<'a> {
    pub dynamics: &'a TautDynamics,
    /// Friction mode of each axle (1..n).
    pub axle_modes: &'a [AxleMode],
    /// Knot degree k_i of each diabolo at the start of the stretch.
    pub knots: &'a [i32],
    /// What the shared guards watch besides the string.
    pub flight: &'a FlightView,
}

/// The guards of the taut phase in locator-member order: the tension, the axles' slips or
/// capstan bounds (with switching friction), the knot bounds, the leaving angles, the resting
/// contacts' forces, the shared guards.
#[derive(Clone, Debug)]
pub struct TautGuards {
    slots: Vec<TautSlot>,
}

impl TautGuards {
    /// The layout for `n` diabolos on the string, with switching friction or not, the resting
    /// contacts across the segments `resting`, and the `shared` guards (see
    /// [`super::shared::shared_guards`]).
    pub fn new(
        switching_friction: bool,
        n: usize,
        resting: &[usize],
        shared: &[SharedGuard],
    ) -> Self {
        let mut slots = vec![
            TautSlot::Own(TautGuard::Loosen),
            TautSlot::Own(TautGuard::Straighten),
        ];
        if switching_friction {
            for k in 1..=n {
                slots.push(TautSlot::Axle { k, second: false });
                slots.push(TautSlot::Axle { k, second: true });
            }
        }
        for k in 1..=n {
            slots.push(TautSlot::Own(TautGuard::Knot { k, up: false }));
            slots.push(TautSlot::Own(TautGuard::Knot { k, up: true }));
        }
        slots.extend((1..=n).map(|k| TautSlot::Own(TautGuard::Leave { k })));
        slots.extend(
            resting
                .iter()
                .enumerate()
                .map(|(index, &segment)| TautSlot::Own(TautGuard::Separate { segment, index })),
        );
        slots.extend(shared.iter().map(|&guard| TautSlot::Shared(guard)));
        Self { slots }
    }

    /// Number of locator members.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// The guard of locator member `member` under the friction `axle_modes` (`None`:
    /// disarmed).
    pub fn guard(&self, member: usize, axle_modes: &[AxleMode]) -> Option<Guard> {
        self.slots[member].guard(axle_modes)
    }

    /// The locator's members: all fall but the landings (either way), all armed (see
    /// [`TautGuards::armed`]).
    pub fn specs(&self) -> Vec<EventSpec> {
        self.slots
            .iter()
            .map(|slot| match slot {
                TautSlot::Shared(shared) => shared.spec(),
                _ => EventSpec::new(Direction::Falling),
            })
            .collect()
    }

    /// Whether each member is armed under the friction `axle_modes`, in member order.
    pub fn armed<'a>(&'a self, axle_modes: &'a [AxleMode]) -> impl Iterator<Item = bool> + 'a {
        self.slots
            .iter()
            .map(|slot| slot.guard(axle_modes).is_some())
    }

    /// Writes the relative velocity of every gap guard (see [`SharedGuard::gap_velocity`]) on
    /// the `kinematics` last evaluated, at t (s), into `out`.
    pub fn write_gap_velocities(
        &self,
        kinematics: &Kinematics,
        flight: &FlightView,
        t: f64,
        positions: &[Vector2<f64>],
        out: &mut [crate::simulation::ode::events::GapMotion],
    ) {
        let objects = kinematics.objects();
        let segments = kinematics.segments();
        for (slot, velocity) in self.slots.iter().zip(out.iter_mut()) {
            if let TautSlot::Shared(guard) = slot {
                *velocity = guard.gap_velocity(
                    flight,
                    t,
                    positions,
                    |o| objects[o].velocity(),
                    |s| segments[s].length_rate,
                );
            }
        }
    }

    /// Writes the value of every armed guard (on what `watch` reads, last evaluated at t, s)
    /// into `out`; `positions` holds the string's objects' positions when the shared guards
    /// need them.
    pub fn write_values(
        &self,
        watch: &TautWatch,
        t: f64,
        positions: &[Vector2<f64>],
        out: &mut [f64],
    ) {
        let lengths = |segment: usize| watch.dynamics.kinematics().segments()[segment].length;
        for (slot, value) in self.slots.iter().zip(out.iter_mut()) {
            match *slot {
                TautSlot::Own(guard) => *value = guard.value(watch),
                TautSlot::Shared(guard) => {
                    *value = guard.value(watch.flight, t, positions, lengths)
                }
                TautSlot::Axle { k, second } => {
                    if let Some(guard) = axle_guard(k, second, watch.axle_modes) {
                        *value = guard.value(watch);
                    }
                }
            }
        }
    }
}

impl TautGuard {
    /// The guard's value on what `watch` reads.
    fn value(self, watch: &TautWatch) -> f64 {
        let dynamics = watch.dynamics;
        let params = dynamics.params();
        let theta = |k: usize| dynamics.kinematics().objects()[k].theta;
        let floor = |k: usize| TAU * f64::from(watch.knots[k - 1]);
        match self {
            Self::Loosen => dynamics.tension().base_tension,
            Self::Straighten => straightness(watch),
            Self::Slip { k } => {
                let contact = &dynamics.axles().contacts()[k - 1];
                match watch.axle_modes[k - 1] {
                    AxleMode::Slipping(direction) => direction.sign() * contact.slip_speed,
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
            Self::Separate { index, .. } => dynamics.contact_forces()[index],
        }
    }

    /// What the guard watches, in words, with its object (the run's numbering).
    fn words(self, view: &FlightView) -> (String, Option<usize>) {
        let diabolo = |slot: usize| format!("diabolo {}", view.slots[slot - 1]);
        let k = |slot: usize| view.slots[slot - 1];
        match self {
            Self::Loosen => ("the string's tension".to_string(), None),
            Self::Straighten => ("the bend of the string".to_string(), None),
            Self::Slip { k: slot } => (format!("the slip of {}", diabolo(slot)), Some(k(slot))),
            Self::GripBound { k: slot, upper } => (
                format!(
                    "the grip margin of {} to its {} capstan bound",
                    diabolo(slot),
                    if upper { "upper" } else { "lower" }
                ),
                Some(k(slot)),
            ),
            Self::Knot { k: slot, .. } => (
                format!("the knot bound of {}", diabolo(slot)),
                Some(k(slot)),
            ),
            Self::Leave { k: slot } => (
                format!("the string angle of {}", diabolo(slot)),
                Some(k(slot)),
            ),
            Self::Separate { segment, .. } => (
                format!(
                    "the contact force between {} and {}",
                    view.name(Object::OnString(segment)),
                    view.name(Object::OnString(segment + 1))
                ),
                None,
            ),
        }
    }
}

/// A guard of the loose phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LooseGuard {
    /// The slack L - sum l_i, m: the string snaps taut (falling).
    Tense,
    /// cross(e_{k-1}, e_k) at diabolo k: zero when the string folds back through diabolo k (a
    /// knot change, when the segments point opposite ways) or runs straight (either way: the
    /// diabolo leaves the string when its string angle falls through pi).
    Fold { k: usize },
}

impl LooseGuard {
    /// What the guard watches, in words, with its object (the run's numbering).
    fn words(self, view: &FlightView) -> (String, Option<usize>) {
        match self {
            Self::Tense => ("the string's slack".to_string(), None),
            Self::Fold { k: slot } => {
                let k = view.slots[slot - 1];
                (format!("the turn of the string at diabolo {k}"), Some(k))
            }
        }
    }
}

/// A slot of the loose layout: a guard of its own or a shared one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LooseSlot {
    Own(LooseGuard),
    Shared(SharedGuard),
}

/// The guards of the loose phase in locator-member order: the slack, the folds, the shared
/// guards.
#[derive(Clone, Debug)]
pub struct LooseGuards {
    slots: Vec<LooseSlot>,
    /// The slack below zero (m) at which the string is at full length: the slack's round-off
    /// is not an arrival.
    slack_band: f64,
}

impl LooseGuards {
    /// The layout for `n` diabolos on the string, with the `shared` guards (see
    /// [`super::shared::shared_guards`]); the string tenses when its slack falls through
    /// -`slack_band` (m).
    pub fn new(n: usize, shared: &[SharedGuard], slack_band: f64) -> Self {
        let mut slots = vec![LooseSlot::Own(LooseGuard::Tense)];
        slots.extend((1..=n).map(|k| LooseSlot::Own(LooseGuard::Fold { k })));
        slots.extend(shared.iter().map(|&guard| LooseSlot::Shared(guard)));
        Self { slots, slack_band }
    }

    /// Number of locator members.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// The guard of locator member `member`.
    pub fn guard(&self, member: usize) -> Guard {
        match self.slots[member] {
            LooseSlot::Own(guard) => Guard::Loose(guard),
            LooseSlot::Shared(guard) => Guard::Shared(guard),
        }
    }

    /// The locator's members: the folds fire either way, the others falling.
    pub fn specs(&self) -> Vec<EventSpec> {
        self.slots
            .iter()
            .map(|slot| match slot {
                LooseSlot::Own(LooseGuard::Fold { .. }) => EventSpec::new(Direction::Either),
                LooseSlot::Shared(shared) => shared.spec(),
                LooseSlot::Own(LooseGuard::Tense) => EventSpec::new(Direction::Falling),
            })
            .collect()
    }

    /// Writes every guard's value at time t into `out`; `positions` and `lengths` hold the
    /// string's objects' positions and segment lengths then, `slack` the slack.
    pub fn write_values(
        &self,
        flight: &FlightView,
        t: f64,
        (positions, lengths, slack): (&[Vector2<f64>], &[f64], f64),
        out: &mut [f64],
    ) {
        for (slot, value) in self.slots.iter().zip(out.iter_mut()) {
            *value = match *slot {
                LooseSlot::Own(LooseGuard::Tense) => slack + self.slack_band,
                LooseSlot::Own(LooseGuard::Fold { k }) => {
                    let pos = |j: usize| positions[j];
                    let (a, b) = (pos(k) - pos(k - 1), pos(k + 1) - pos(k));
                    (a.x * b.y - a.y * b.x) / (a.norm() * b.norm()).max(f64::MIN_POSITIVE)
                }
                LooseSlot::Shared(guard) => {
                    guard.value(flight, t, positions, |segment| lengths[segment])
                }
            };
        }
    }

    /// Writes the relative velocity of every gap guard (see [`SharedGuard::gap_velocity`]) at
    /// t (s) into `out`; `velocities` holds the string's objects' velocities then.
    pub fn write_gap_velocities(
        &self,
        view: &FlightView,
        t: f64,
        (positions, velocities): (&[Vector2<f64>], &[Vector2<f64>]),
        out: &mut [crate::simulation::ode::events::GapMotion],
    ) {
        let length_rate = |s: usize| {
            let d = positions[s + 1] - positions[s];
            d.dot(&(velocities[s + 1] - velocities[s])) / d.norm().max(f64::MIN_POSITIVE)
        };
        for (slot, velocity) in self.slots.iter().zip(out.iter_mut()) {
            if let LooseSlot::Shared(guard) = slot {
                *velocity = guard.gap_velocity(view, t, positions, |o| velocities[o], length_rate);
            }
        }
    }
}

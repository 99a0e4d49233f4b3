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

use nalgebra::Vector2;

use crate::model::{grip, AxleMode, FreeMotion, Params};

use super::flight::TOUCH_GAP;
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
    /// lambda, N: the force of the contact resting across `segment` (the `index`-th resting
    /// contact) would pull: the pair separates.
    Separate { segment: usize, index: usize },
    /// A guard both phases share: contact, landing, the floor, the sticks' distance.
    Shared(SharedGuard),
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
    /// The layout for `n` diabolos on the string, with the `shared` guards (see
    /// [`shared_guards`]).
    pub fn new(params: &Params, n: usize, resting: &[usize], shared: &[SharedGuard]) -> Self {
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
        slots.extend(
            resting
                .iter()
                .enumerate()
                .map(|(index, &segment)| TautSlot::Fixed(TautGuard::Separate { segment, index })),
        );
        slots.extend(
            shared
                .iter()
                .map(|&guard| TautSlot::Fixed(TautGuard::Shared(guard))),
        );
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

    /// The locator's members: all fall but the landings (either way), all armed (see
    /// [`TautGuards::armed`]).
    pub fn specs(&self) -> Vec<EventSpec> {
        self.slots
            .iter()
            .map(|slot| match slot {
                TautSlot::Fixed(TautGuard::Shared(shared)) => shared.spec(),
                _ => EventSpec::new(Direction::Falling),
            })
            .collect()
    }

    /// Whether each member is armed under the friction `modes`, in member order.
    pub fn armed<'a>(&'a self, modes: &'a [AxleMode]) -> impl Iterator<Item = bool> + 'a {
        self.slots.iter().map(|slot| slot.guard(modes).is_some())
    }

    /// Writes the relative velocity of every gap guard (see [`SharedGuard::gap_velocity`]) on
    /// the last evaluation of `sys`, at t (s), into `out`.
    pub fn write_gap_velocities(
        &self,
        sys: &TautSystem,
        t: f64,
        positions: &[Vector2<f64>],
        out: &mut [[f64; 3]],
    ) {
        let kinematics = sys.dynamics.kinematics();
        let objects = kinematics.objects();
        let segments = kinematics.segments();
        for (slot, velocity) in self.slots.iter().zip(out.iter_mut()) {
            if let TautSlot::Fixed(TautGuard::Shared(guard)) = slot {
                *velocity = guard.gap_velocity(
                    &sys.flight,
                    t,
                    positions,
                    |o| objects[o].velocity(),
                    |s| segments[s].length_rate,
                );
            }
        }
    }

    /// Writes the value of every armed guard of `sys` (last evaluated at t, s) into `out`;
    /// `positions` holds the string's objects' positions when the shared guards need them.
    pub fn write_values(
        &self,
        sys: &TautSystem,
        t: f64,
        positions: &[Vector2<f64>],
        out: &mut [f64],
    ) {
        let lengths = |segment: usize| sys.dynamics.kinematics().segments()[segment].length;
        for (slot, value) in self.slots.iter().zip(out.iter_mut()) {
            match slot.guard(&sys.modes) {
                Some(TautGuard::Shared(guard)) => {
                    *value = guard.value(&sys.flight, t, positions, lengths)
                }
                Some(guard) => *value = guard.value(sys),
                None => {}
            }
        }
    }
}

impl TautGuard {
    /// The guard's value on the last evaluation of `sys` at t (s).
    fn value(self, sys: &TautSystem) -> f64 {
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
            Self::Separate { index, .. } => dynamics.contact_forces()[index],
            Self::Shared(_) => unreachable!("shared guards are valued by SharedGuard::value"),
        }
    }

    /// What the guard watches, in words (for a failure of its value), with its object (the
    /// run's numbering: slots are named by their diabolo).
    pub fn words(self, view: &FlightView) -> (String, Option<usize>) {
        let diabolo = |slot: usize| format!("diabolo {}", view.slots[slot - 1]);
        let k = |slot: usize| view.slots[slot - 1];
        match self {
            Self::Loosen => ("the string's tension".to_string(), None),
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
                    view.name(Body::String(segment)),
                    view.name(Body::String(segment + 1))
                ),
                None,
            ),
            Self::Shared(guard) => guard.words(view),
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
    /// A guard both phases share: contact, landing, the floor, the sticks' distance.
    Shared(SharedGuard),
}

/// The guards of the loose phase in locator-member order: the slack, the folds, the meetings,
/// the stick margin (both sticks on paths).
#[derive(Clone, Debug)]
pub struct LooseGuards {
    guards: Vec<LooseGuard>,
    /// The slack below zero (m) at which the string is at full length: the slack's round-off
    /// is not an arrival.
    slack_band: f64,
}

impl LooseGuards {
    /// The layout for `n` diabolos on the string, with the `shared` guards (see
    /// [`shared_guards`]); the string tenses when its slack falls through -`slack_band` (m).
    pub fn new(n: usize, shared: &[SharedGuard], slack_band: f64) -> Self {
        let mut guards = vec![LooseGuard::Tense];
        guards.extend((1..=n).map(|k| LooseGuard::Fold { k }));
        guards.extend(shared.iter().map(|&guard| LooseGuard::Shared(guard)));
        Self { guards, slack_band }
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
            .map(|guard| match guard {
                LooseGuard::Fold { .. } => EventSpec::new(Direction::Either),
                LooseGuard::Shared(shared) => shared.spec(),
                LooseGuard::Tense => EventSpec::new(Direction::Falling),
            })
            .collect()
    }

    /// Writes every guard's value at time t into `out`; `positions` and `lengths` hold the
    /// string's objects' positions and segment lengths then, `slack` the slack.
    pub fn write_values(
        &self,
        sys: &LooseSystem,
        t: f64,
        (positions, lengths, slack): (&[Vector2<f64>], &[f64], f64),
        out: &mut [f64],
    ) {
        for (guard, value) in self.guards.iter().zip(out.iter_mut()) {
            *value = match *guard {
                LooseGuard::Tense => slack + self.slack_band,
                LooseGuard::Fold { k } => {
                    let pos = |j: usize| positions[j];
                    let (a, b) = (pos(k) - pos(k - 1), pos(k + 1) - pos(k));
                    (a.x * b.y - a.y * b.x) / (a.norm() * b.norm()).max(f64::MIN_POSITIVE)
                }
                LooseGuard::Shared(guard) => {
                    guard.value(&sys.flight, t, positions, |segment| lengths[segment])
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
        out: &mut [[f64; 3]],
    ) {
        let length_rate = |s: usize| {
            let d = positions[s + 1] - positions[s];
            d.dot(&(velocities[s + 1] - velocities[s])) / d.norm().max(f64::MIN_POSITIVE)
        };
        for (guard, velocity) in self.guards.iter().zip(out.iter_mut()) {
            if let LooseGuard::Shared(guard) = guard {
                *velocity = guard.gap_velocity(view, t, positions, |o| velocities[o], length_rate);
            }
        }
    }

    /// What the guard watches, in words, with its object (the run's numbering).
    pub fn words(guard: LooseGuard, view: &FlightView) -> (String, Option<usize>) {
        match guard {
            LooseGuard::Tense => ("the string's slack".to_string(), None),
            LooseGuard::Fold { k: slot } => {
                let k = view.slots[slot - 1];
                (format!("the turn of the string at diabolo {k}"), Some(k))
            }
            LooseGuard::Shared(guard) => guard.words(view),
        }
    }
}

/// What the shared guards watch besides the string: the diabolos off it, the disc radius, the
/// floor, the hands. Built anew whenever a diabolo leaves, lands or drops.
#[derive(Clone, Debug)]
pub struct FlightView {
    /// The run's parameters (radius R, gravity, string length).
    pub params: Params,
    /// The hands.
    pub drives: [Drive; 2],
    /// The floor's height, m, if any.
    pub floor: Option<f64>,
    /// The diabolo K in each slot (1..n), left to right.
    pub slots: Vec<usize>,
    /// N: diabolos in the run.
    pub diabolos: usize,
    /// The flying diabolos: K and free motion.
    pub flying: Vec<(usize, FreeMotion)>,
    /// Two sticks joined directly (n = 0) closer than this have met, m.
    pub meeting_distance: f64,
    /// The segments across which a contact rests (their objects' distance is held).
    pub resting: Vec<usize>,
}

impl FlightView {
    /// Every diabolo on the string (`n` of them, index order), none flying.
    pub fn all_on_string(params: &Params, n: usize, drives: &[Drive; 2]) -> Self {
        Self {
            params: *params,
            drives: drives.clone(),
            floor: None,
            slots: (1..=n).collect(),
            diabolos: n,
            flying: Vec::new(),
            meeting_distance: 1e-3,
            resting: Vec::new(),
        }
    }

    /// n: diabolos on the string.
    pub fn on_string(&self) -> usize {
        self.slots.len()
    }

    /// Whether the shared guards need the string's objects' positions (not only the segment
    /// lengths): a pair that is not a segment, or something flying.
    pub fn needs_positions(&self) -> bool {
        self.on_string() >= 2 || !self.flying.is_empty()
    }

    /// The object in words ("the left stick", "diabolo 2").
    pub fn name(&self, body: Body) -> String {
        match body {
            Body::String(0) => "the left stick".to_string(),
            Body::String(o) if o == self.on_string() + 1 => "the right stick".to_string(),
            Body::String(slot) => format!("diabolo {}", self.slots[slot - 1]),
            Body::Free(j) => format!("diabolo {}", self.flying[j].0),
        }
    }

    /// The run's object number (0 the left stick, 1..N a diabolo K, N + 1 the right stick).
    pub fn object(&self, body: Body) -> usize {
        match body {
            Body::String(0) => 0,
            Body::String(o) if o == self.on_string() + 1 => self.diabolos + 1,
            Body::String(slot) => self.slots[slot - 1],
            Body::Free(j) => self.flying[j].0,
        }
    }

    /// Whether `body` is a stick tip (a point for contact) rather than a diabolo (a disc).
    pub fn is_stick(&self, body: Body) -> bool {
        matches!(body, Body::String(o) if o == 0 || o == self.on_string() + 1)
    }

    /// The centre distance at which two bodies touch: 2R for two diabolos, R for a diabolo and
    /// a stick tip, m.
    pub fn contact_distance(&self, a: Body, b: Body) -> f64 {
        let discs = [a, b].iter().filter(|&&x| !self.is_stick(x)).count();
        self.params.diabolo_radius * discs as f64
    }

    /// The position of `body` at t, m; string objects from `positions`.
    pub fn position(&self, body: Body, t: f64, positions: &[Vector2<f64>]) -> Vector2<f64> {
        match body {
            Body::String(o) => positions[o],
            Body::Free(j) => self.flying[j].1.position(&self.params, t),
        }
    }
}

/// An object the shared guards watch: one of the string's objects (0 the left stick, 1..n the
/// slots, n + 1 the right stick) or a flying diabolo (its index among [`FlightView::flying`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body {
    /// The string's object o.
    String(usize),
    /// The j-th flying diabolo.
    Free(usize),
}

/// A guard that both string phases carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharedGuard {
    /// |p_a - p_b| - the contact distance (2R, or R with a stick tip), m (falling): an impact.
    Touch {
        /// One body.
        a: Body,
        /// The other.
        b: Body,
        /// Whether they are neighbours on the string (their distance is a segment's length).
        neighbours: bool,
        /// How many of the two are diabolos (discs): the contact distance is `discs` R.
        discs: u8,
    },
    /// The distance of flying diabolo `free` from the line of the chord of `segment`, on the
    /// chord's left (positive) or right, m (either way): crossing it between the chord's ends
    /// coming down, the diabolo lands; coming up, it meets the string from below.
    Land {
        /// Index among the flying diabolos.
        free: usize,
        /// The segment (0 from the left stick).
        segment: usize,
    },
    /// y - R - floor of flying diabolo `free`, m (falling): it is dropped.
    Drop {
        /// Index among the flying diabolos.
        free: usize,
    },
    /// |p_right - p_left| - the meeting distance with no diabolo on the string, m (falling).
    Meet,
    /// L - |p_right - p_left| of sticks that both follow paths, m (falling).
    SticksApart,
}

/// The contact guard of bodies a and b.
fn touch(view: &FlightView, a: Body, b: Body) -> SharedGuard {
    let neighbours = matches!((a, b), (Body::String(x), Body::String(y)) if y == x + 1);
    let discs = [a, b].iter().filter(|&&x| !view.is_stick(x)).count() as u8;
    SharedGuard::Touch {
        a,
        b,
        neighbours,
        discs,
    }
}

/// The shared guards of a string with the view's diabolos: every pair of bodies that can touch
/// (the string's neighbours, the string's other pairs, each flying diabolo with everything),
/// the chords each flying diabolo can land on, the floor, the sticks' distance.
pub fn shared_guards(view: &FlightView) -> Vec<SharedGuard> {
    let n = view.on_string();
    let mut guards = Vec::new();
    if n == 0 {
        guards.push(SharedGuard::Meet);
    }
    for a in 0..=n + 1 {
        for b in a + 1..=n + 1 {
            let sticks = a == 0 && b == n + 1;
            let resting = b == a + 1 && view.resting.contains(&a);
            if !sticks && !resting {
                guards.push(touch(view, Body::String(a), Body::String(b)));
            }
        }
    }
    for free in 0..view.flying.len() {
        for o in 0..=n + 1 {
            guards.push(touch(view, Body::String(o), Body::Free(free)));
        }
        for other in free + 1..view.flying.len() {
            guards.push(touch(view, Body::Free(free), Body::Free(other)));
        }
        guards.extend((0..=n).map(|segment| SharedGuard::Land { free, segment }));
        if view.floor.is_some() {
            guards.push(SharedGuard::Drop { free });
        }
    }
    // A compliant string stretches between sticks held farther apart than its length.
    if both_on_paths(&view.drives) && view.params.string_stiffness.is_none() {
        guards.push(SharedGuard::SticksApart);
    }
    guards
}

impl SharedGuard {
    /// Its locator member's spec: a landing fires either way (falling: it lands, rising: it
    /// meets the string from below), the others falling. A contact and the floor are gaps
    /// ([`EventSpec::gap`]): searched between samples from the bodies' relative speed, so that
    /// no contact closes unseen whatever the step (a diabolo flying past a stick tip between
    /// two samples of a string at rest still touches it), and one pressed into from a touching
    /// start fires there. A contact's gap within [`TOUCH_GAP`] when the run is entered again
    /// counts as touching (the hybrid's rule: such a pair approaching took its impact at once),
    /// its sign taken from just after: a pair rebounding by less than the locator samples still
    /// comes back to it.
    pub fn spec(self) -> EventSpec {
        match self {
            Self::Land { .. } => EventSpec::new(Direction::Either),
            Self::Touch { .. } => EventSpec::new(Direction::Falling)
                .with_start_band(TOUCH_GAP)
                .as_gap(),
            Self::Drop { .. } => EventSpec::new(Direction::Falling).as_gap(),
            _ => EventSpec::new(Direction::Falling),
        }
    }

    /// The gap's rate and the velocity of its two ends relative to each other at t,
    /// `[dg/dt, vx, vy]` in m/s (see [`EventSpec::gap`]): for a contact b's velocity relative
    /// to a's, for the floor the flying diabolo's vertical velocity; zero for the guards that
    /// are not gaps. `positions` holds the string's objects' positions (as for
    /// [`SharedGuard::value`]), `velocity` gives a string object's velocity and
    /// `length_rate` a segment's length rate (a neighbours' contact).
    pub fn gap_velocity(
        self,
        view: &FlightView,
        t: f64,
        positions: &[Vector2<f64>],
        velocity: impl Fn(usize) -> Vector2<f64>,
        length_rate: impl Fn(usize) -> f64,
    ) -> [f64; 3] {
        let of = |body: Body| match body {
            Body::String(o) => velocity(o),
            Body::Free(j) => view.flying[j].1.velocity(&view.params, t),
        };
        match self {
            Self::Touch {
                a, b, neighbours, ..
            } => {
                let v = of(b) - of(a);
                let rate = match a {
                    Body::String(segment) if neighbours => length_rate(segment),
                    _ => {
                        let d = view.position(b, t, positions) - view.position(a, t, positions);
                        d.dot(&v) / d.norm().max(f64::MIN_POSITIVE)
                    }
                };
                [rate, v.x, v.y]
            }
            Self::Drop { free } => {
                let vy = of(Body::Free(free)).y;
                [vy, 0.0, vy]
            }
            _ => [0.0; 3],
        }
    }

    /// The guard's value at t; `positions` holds the string's objects' positions (when
    /// [`FlightView::needs_positions`]), `length` gives a segment's length.
    #[inline]
    pub fn value(
        self,
        view: &FlightView,
        t: f64,
        positions: &[Vector2<f64>],
        length: impl Fn(usize) -> f64,
    ) -> f64 {
        let params = &view.params;
        match self {
            Self::Touch {
                a: Body::String(a),
                neighbours: true,
                discs,
                ..
            } => length(a) - f64::from(discs) * params.diabolo_radius,
            Self::Touch { a, b, discs, .. } => {
                (view.position(a, t, positions) - view.position(b, t, positions)).norm()
                    - f64::from(discs) * params.diabolo_radius
            }
            Self::Land { free, segment } => {
                // Along the chord's left normal (continuous where the chord turns past
                // vertical, unlike its upward normal); the transition judges up and down.
                let (a, b) = (positions[segment], positions[segment + 1]);
                let p = view.flying[free].1.position(params, t);
                let d = b - a;
                (d.x * (p.y - a.y) - d.y * (p.x - a.x)) / d.norm().max(f64::MIN_POSITIVE)
            }
            Self::Drop { free } => {
                view.flying[free].1.position(params, t).y
                    - params.diabolo_radius
                    - view.floor.unwrap_or(f64::NEG_INFINITY)
            }
            Self::Meet => length(0) - view.meeting_distance,
            Self::SticksApart => path_margin(&view.drives, params.string_length, t),
        }
    }

    /// What the guard watches, in words (for a failure of its value), with its object.
    pub fn words(self, view: &FlightView) -> (String, Option<usize>) {
        match self {
            Self::Touch { a, b, .. } => (
                format!("the distance between {} and {}", view.name(a), view.name(b)),
                Some(view.object(b)),
            ),
            Self::Land { free, segment } => (
                format!(
                    "the height of {} above the chord of segment {segment}",
                    view.name(Body::Free(free))
                ),
                Some(view.object(Body::Free(free))),
            ),
            Self::Drop { free } => (
                format!(
                    "the height of {} above the floor",
                    view.name(Body::Free(free))
                ),
                Some(view.object(Body::Free(free))),
            ),
            Self::Meet => ("the distance of the sticks".to_string(), None),
            Self::SticksApart => ("the distance of the sticks".to_string(), None),
        }
    }
}

/// Whether both sticks follow paths (then they cannot be farther apart than the string is
/// long, a guard of both phases).
fn both_on_paths(drives: &[Drive; 2]) -> bool {
    matches!(drives, [Drive::Path(_), Drive::Path(_)])
}

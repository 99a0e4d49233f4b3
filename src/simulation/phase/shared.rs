//! The guards both string phases carry (contact, landing, the floor, the sticks' distance), and
//! what they watch besides the string: the diabolos off it.

use nalgebra::Vector2;

use crate::model::{FreeMotion, Params};
use crate::simulation::drive::{path_margin, Drive};
use crate::simulation::ode::events::{Direction, EventSpec};
use crate::simulation::tolerances::TOUCH_GAP;

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
    pub fn name(&self, body: Object) -> String {
        match body {
            Object::OnString(0) => "the left stick".to_string(),
            Object::OnString(o) if o == self.on_string() + 1 => "the right stick".to_string(),
            Object::OnString(slot) => format!("diabolo {}", self.slots[slot - 1]),
            Object::Flying(j) => format!("diabolo {}", self.flying[j].0),
        }
    }

    /// The run's object number (0 the left stick, 1..N a diabolo K, N + 1 the right stick).
    pub fn object(&self, body: Object) -> usize {
        match body {
            Object::OnString(0) => 0,
            Object::OnString(o) if o == self.on_string() + 1 => self.diabolos + 1,
            Object::OnString(slot) => self.slots[slot - 1],
            Object::Flying(j) => self.flying[j].0,
        }
    }

    /// Whether `body` is a stick tip (a point for contact) rather than a diabolo (a disc).
    pub fn is_stick(&self, body: Object) -> bool {
        matches!(body, Object::OnString(o) if o == 0 || o == self.on_string() + 1)
    }

    /// The centre distance at which two bodies touch: 2R for two diabolos, R for a diabolo and
    /// a stick tip, m.
    pub fn contact_distance(&self, a: Object, b: Object) -> f64 {
        let discs = [a, b].iter().filter(|&&x| !self.is_stick(x)).count();
        self.params.diabolo_radius * discs as f64
    }

    /// The position of `body` at t, m; string objects from `positions`.
    pub fn position(&self, body: Object, t: f64, positions: &[Vector2<f64>]) -> Vector2<f64> {
        match body {
            Object::OnString(o) => positions[o],
            Object::Flying(j) => self.flying[j].1.position(&self.params, t),
        }
    }
}

/// An object the shared guards watch: one of the string's objects (0 the left stick, 1..n the
/// slots, n + 1 the right stick) or a flying diabolo (its index among [`FlightView::flying`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Object {
    /// The string's object o.
    OnString(usize),
    /// The j-th flying diabolo.
    Flying(usize),
}

/// A guard that both string phases carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharedGuard {
    /// |p_a - p_b| - the contact distance (2R, or R with a stick tip), m (falling): an impact.
    Touch {
        /// One body.
        a: Object,
        /// The other.
        b: Object,
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
fn touch(view: &FlightView, a: Object, b: Object) -> SharedGuard {
    let neighbours = matches!((a, b), (Object::OnString(x), Object::OnString(y)) if y == x + 1);
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
                guards.push(touch(view, Object::OnString(a), Object::OnString(b)));
            }
        }
    }
    for free in 0..view.flying.len() {
        for o in 0..=n + 1 {
            guards.push(touch(view, Object::OnString(o), Object::Flying(free)));
        }
        for other in free + 1..view.flying.len() {
            guards.push(touch(view, Object::Flying(free), Object::Flying(other)));
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
    /// `[dg/dt, vx, vy, 0]` in m/s (see [`EventSpec::gap`]): for a contact b's velocity relative
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
    ) -> crate::simulation::ode::events::GapMotion {
        let of = |body: Object| match body {
            Object::OnString(o) => velocity(o),
            Object::Flying(j) => view.flying[j].1.velocity(&view.params, t),
        };
        match self {
            Self::Touch {
                a, b, neighbours, ..
            } => {
                let v = of(b) - of(a);
                let rate = match a {
                    Object::OnString(segment) if neighbours => length_rate(segment),
                    _ => {
                        let d = view.position(b, t, positions) - view.position(a, t, positions);
                        d.dot(&v) / d.norm().max(f64::MIN_POSITIVE)
                    }
                };
                [rate, v.x, v.y, 0.0]
            }
            Self::Drop { free } => {
                let vy = of(Object::Flying(free)).y;
                [vy, 0.0, vy, 0.0]
            }
            _ => [0.0; 4],
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
                a: Object::OnString(a),
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
                    view.name(Object::Flying(free))
                ),
                Some(view.object(Object::Flying(free))),
            ),
            Self::Drop { free } => (
                format!(
                    "the height of {} above the floor",
                    view.name(Object::Flying(free))
                ),
                Some(view.object(Object::Flying(free))),
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

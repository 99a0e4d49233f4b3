//! Resting contacts in space (docs/space.md, "Resting contact"), as in the plane: neighbours on
//! the taut string that a plastic impact left touching, or that touch at rest and are pressed
//! together, are held at their centres' distance by a force lambda >= 0 along their segment (one
//! more unknown of the tension solve, [`crate::model::space::SpaceTension::set_resting`]). The
//! pair separates when lambda falls through zero, when an impact leaves it parting, when the
//! string goes slack, or when the two are no longer neighbours; where the axles turn the hulls
//! apart by more than [`RESTING_DRIFT`](crate::simulation::tolerances::RESTING_DRIFT) it separates, into each other the run stops.

use super::report::{SpaceEventKind, SpaceStop};
use super::run::{failed, Run, Stop};
use super::system::{Body, SpacePhase};
use super::SpaceHand;
use crate::simulation::tolerances::RESTING_FORCE;

/// A pair as an event names it: the diabolo first (of two diabolos, the first given), the other
/// body second.
pub(super) fn diabolo_first(pair: [Body; 2]) -> (Body, Body) {
    match pair[0] {
        Body::Stick(_) => (pair[1], pair[0]),
        Body::Diabolo(_) => (pair[0], pair[1]),
    }
}

/// A pair in a fixed order (sticks first, then diabolos by K).
pub(super) fn sorted(pair: [Body; 2]) -> [Body; 2] {
    let key = |b: &Body| match *b {
        Body::Stick(s) => s,
        Body::Diabolo(k) => 1 + k,
    };
    let mut pair = pair;
    pair.sort_by_key(key);
    pair
}

impl<H: SpaceHand + Clone> Run<H> {
    /// The string's segment between the two bodies of `pair` (0 starts at the left stick), if
    /// they are neighbours on the string.
    pub(super) fn segment_between(&self, pair: [Body; 2]) -> Option<usize> {
        let n = self.system.on_string();
        let slots = self.system.roster.slot_numbers();
        let object = |body: Body| match body {
            Body::Stick(0) => Some(0),
            Body::Stick(_) => Some(n + 1),
            Body::Diabolo(k) => Some(slots[k - 1]).filter(|&slot| slot > 0),
        };
        let (a, b) = (object(pair[0])?, object(pair[1])?);
        (a.abs_diff(b) == 1).then(|| a.min(b))
    }

    /// Holds every resting pair that is still a pair of neighbours on the string in the
    /// tension solve; the others separate (logged), and in the loose phase every one does.
    pub(super) fn hold_resting(&mut self, t: f64, phase: SpacePhase) {
        let pairs = std::mem::take(&mut self.resting);
        let mut segments = Vec::with_capacity(pairs.len());
        for pair in pairs {
            match self
                .segment_between(pair)
                .filter(|_| phase == SpacePhase::Taut)
            {
                Some(s) => {
                    segments.push(s);
                    self.resting.push(pair);
                }
                None => self.log_separate(t, pair),
            }
        }
        if self.system.tension.resting() != segments.as_slice() {
            self.system.tension.set_resting(&segments);
        }
    }

    /// Whether `pair` is resting.
    pub(super) fn is_resting(&self, pair: [Body; 2]) -> bool {
        self.resting.contains(&sorted(pair))
    }

    /// Logs the separation of `pair` at t.
    fn log_separate(&mut self, t: f64, pair: [Body; 2]) {
        let (body, other) = diabolo_first(pair);
        self.event(t, SpaceEventKind::Separate { body, other });
    }

    /// Ends the resting of `pair` (unlogged); true if it rested.
    fn forget(&mut self, pair: [Body; 2]) -> bool {
        let pair = sorted(pair);
        let before = self.resting.len();
        self.resting.retain(|&p| p != pair);
        self.resting.len() < before
    }

    /// `pair` separates at t (logged), if it rests.
    pub(super) fn release(&mut self, t: f64, pair: [Body; 2]) {
        if self.forget(pair) {
            self.log_separate(t, sorted(pair));
        }
    }

    /// Each pair of `pairs` that rests and whose gap's rate after an impact (in `rates`, the same
    /// order) exceeds `parting` (m/s) separates: held across a gap that opens, its force would do
    /// work that no account holds.
    pub(super) fn release_parting(
        &mut self,
        t: f64,
        pairs: &[[Body; 2]],
        rates: &[f64],
        parting: f64,
    ) {
        for (&pair, &rate) in pairs.iter().zip(rates) {
            if rate > parting {
                self.release(t, pair);
            }
        }
    }

    /// Neighbours `pair` on the taut string, touching at rest relative to each other at t, come
    /// to rest in contact where the string presses them together (the contact's force above
    /// [`RESTING_FORCE`]); otherwise they drift with zero normal rate. The string's phase is
    /// entered anew from t either way; true if the pair rests.
    pub(super) fn come_to_rest(&mut self, t: f64, pair: [Body; 2]) -> Result<bool, Stop> {
        let pair = sorted(pair);
        if !self.resting.contains(&pair) {
            self.resting.push(pair);
        }
        self.start_phase(t)?;
        if self.pressed(t, pair)? {
            return Ok(true);
        }
        if self.forget(pair) {
            self.start_phase(t)?;
        }
        Ok(false)
    }

    /// Whether the contact resting between `pair` pushes (its force above [`RESTING_FORCE`]) in
    /// the taut phase at t.
    fn pressed(&mut self, t: f64, pair: [Body; 2]) -> Result<bool, Stop> {
        if self.system.phase != SpacePhase::Taut || !self.is_resting(pair) {
            return Ok(false);
        }
        let Some(s) = self.segment_between(pair) else {
            return Ok(false);
        };
        self.system.load(t, &self.y).map_err(|e| failed(t, e))?;
        Ok(self.system.tension.contact_force_across(s) > RESTING_FORCE)
    }

    /// The force of the contact resting across segment s fell through zero at t: the pair
    /// separates and the taut string goes on without it.
    pub(super) fn separate(&mut self, t: f64, s: usize) -> Result<(), Stop> {
        let pair = [self.system.string_body(s), self.system.string_body(s + 1)];
        self.release(t, pair);
        self.enter(t, self.system.phase)
    }

    /// The hulls of the pair resting across segment s left the band of [`RESTING_DRIFT`](crate::simulation::tolerances::RESTING_DRIFT) at t:
    /// opening, the pair separates; closing, the run stops (the model holds the pair along its
    /// centres and cannot push a turning axle aside).
    pub(super) fn seat(&mut self, t: f64, s: usize) -> Result<(), Stop> {
        let (a, b) = (self.system.string_body(s), self.system.string_body(s + 1));
        self.system.load(t, &self.y).map_err(|e| failed(t, e))?;
        let (gap, _) = self.system.contact_gap(&self.y, a, b);
        if gap < 0.0 {
            return Err((t, SpaceStop::RestingTurn { a, b, depth: -gap }));
        }
        self.release(t, [a, b]);
        self.enter(t, self.system.phase)
    }
}

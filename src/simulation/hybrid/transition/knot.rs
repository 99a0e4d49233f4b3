//! The knot family: the string wraps round an axle once more or once less.

use super::*;

impl Hybrid<'_> {
    /// Taut: the string angle of the diabolo in `slot` passed its lower or (`up`) its upper knot
    /// bound: its knot degree changes by one.
    pub(super) fn wind(&mut self, at: At, slot: usize, up: bool) -> Outcome {
        let knots = &mut self.phases.taut.system.knots;
        knots[slot - 1] += if up { 1 } else { -1 };
        let knot = knots[slot - 1];
        self.log_knot(at.t, slot, knot);
        Outcome::Stays
    }

    /// Loose: the turn of the string at the diabolo in `slot` passed zero, rising or falling.
    /// Folded back through the diabolo, the string wraps (the cross product falls through zero)
    /// or unwraps; running straight with its angle falling through pi (or rising through -pi
    /// at knot -1), the diabolo leaves the string.
    pub(super) fn fold(&mut self, at: At, slot: usize, rising: bool) -> Result<Outcome, RunError> {
        let loose = &mut self.phases.loose.system;
        let knot = loose.knots[slot - 1];
        if loose.folded(at.y, slot) {
            loose.knots[slot - 1] += if rising { -1 } else { 1 };
            let knot = loose.knots[slot - 1];
            self.log_knot(at.t, slot, knot);
            Ok(Outcome::Stays)
        } else if knot == 0 && !rising {
            self.leave(slot, PI, at.t, at.y, at.accounts)?;
            Ok(Outcome::Entered)
        } else if knot == -1 && rising {
            self.leave(slot, -PI, at.t, at.y, at.accounts)?;
            Ok(Outcome::Entered)
        } else {
            Ok(Outcome::Stays)
        }
    }

    /// Logs the knot change of the diabolo in `slot`.
    pub(super) fn log_knot(&mut self, t: f64, slot: usize, knot: i32) {
        let k = self.roster.diabolo_in(slot);
        let mut event = Event::new(t, EventKind::KnotChange, Some(k));
        event.knot = Some(knot);
        self.log(event);
    }
}

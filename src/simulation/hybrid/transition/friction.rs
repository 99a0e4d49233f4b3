//! The friction family: each axle's friction mode decided on entering the taut phase (the
//! Filippov rule where a slip is zero) and decided again when a slip reaches zero or a grip a
//! capstan bound (slip reversal, stick, unstick).

use super::*;
use crate::simulation::tolerances::MODE_PASSES;

impl Hybrid<'_> {
    /// Friction modes on entering the taut phase at (t, y): the way each axle slips; the
    /// Filippov rule where a slip is zero (a grip is logged).
    ///
    /// Several axles at zero slip are decided together: the rule is applied to each in turn,
    /// the others' modes as decided so far, and again until no mode changes, so that every
    /// axle's mode is the rule's given the others' (decided one by one against provisional
    /// neighbours, a slipping axle could end up driven against its own friction once its
    /// neighbours grip: friction would make energy). A decision that does not settle within
    /// [`MODE_PASSES`] passes keeps the last pass's modes; the energy ledger watches them.
    pub(crate) fn decide_modes(&mut self, t: f64, y: &[f64]) -> Result<(), RunError> {
        let n = self.n;
        self.phases.taut.system.axle_modes = vec![AxleMode::from_slip(0.0); n];
        self.phases.evaluate_taut(t, y)?;
        let contacts = self.phases.taut.system.dynamics.axles().contacts();
        let slips: Vec<f64> = contacts.iter().map(|c| c.slip_speed).collect();
        for (k, slip) in slips.iter().enumerate() {
            self.phases.taut.system.axle_modes[k] = AxleMode::from_slip(*slip);
        }
        let at_zero: Vec<usize> = (1..=n)
            .filter(|k| slips[k - 1].abs() <= self.tolerances.slip_at_zero)
            .collect();
        for _ in 0..MODE_PASSES {
            let mut changed = false;
            for &k in &at_zero {
                let mode = self.decide_axle(t, y, k)?;
                changed |= mode != self.phases.taut.system.axle_modes[k - 1];
                self.phases.taut.system.axle_modes[k - 1] = mode;
            }
            // One axle's decision depends on the others' modes only: a second pass would repeat it.
            if !changed || at_zero.len() == 1 {
                break;
            }
        }
        for &k in &at_zero {
            let diabolo = self.roster.diabolo_in(k);
            let stuck = self.phases.taut.system.axle_modes[k - 1] == AxleMode::Stuck;
            if stuck && !self.gripping_before.contains(&diabolo) {
                self.log(Event::new(t, EventKind::Stick, Some(diabolo)));
            }
        }
        Ok(())
    }

    /// The Filippov rule at axle k (1..N) with its slip at zero, from the slip accelerations
    /// of both trial directions.
    pub(super) fn decide_axle(
        &mut self,
        t: f64,
        y: &[f64],
        k: usize,
    ) -> Result<AxleMode, RunError> {
        if !self.sim.params.has_switching_friction() {
            return Ok(AxleMode::from_slip(0.0));
        }
        let saved = self.phases.taut.system.axle_modes[k - 1];
        let mut trend = |direction: SlipDirection| -> Result<f64, RunError> {
            self.phases.taut.system.axle_modes[k - 1] = AxleMode::Slipping(direction);
            self.phases.evaluate_taut(t, y)?;
            self.ledger.extra_evaluations += 1;
            Ok(self.phases.taut.system.dynamics.slip_accelerations()[k - 1])
        };
        let up = trend(SlipDirection::Positive)?;
        let down = trend(SlipDirection::Negative)?;
        self.phases.taut.system.axle_modes[k - 1] = saved;
        let at_zero = self.tolerances.slip_rate_at_zero;
        if up.abs() <= at_zero && down.abs() <= at_zero {
            // Neither way of slipping is driven: round-off would pick one whose own friction
            // then drives the slip the other way.
            return Ok(AxleMode::Stuck);
        }
        Ok(filippov_mode(up, down))
    }

    /// Axle k's slip reached zero, or its grip reached a capstan bound (`upper` for the upper
    /// one): decide its new mode and log what changed.
    pub(super) fn redecide_axle(
        &mut self,
        at: At,
        k: usize,
        upper: bool,
    ) -> Result<Outcome, RunError> {
        let (t, y) = (at.t, at.y);
        let before = self.phases.taut.system.axle_modes[k - 1];
        let mut after = self.decide_axle(t, y, k)?;

        if before == AxleMode::Stuck && after == AxleMode::Stuck {
            after = slip_at_capstan_bound(upper);
        }
        if matches!(before, AxleMode::Slipping(_)) && after == before {
            // The slip came back to zero under this direction's own friction, yet the rule's
            // trends at this instant say slip on the same way: they are those of a tension
            // rising from zero (a landing on a stiff string), where friction is about to drive
            // the slip back whichever way it slips. Slipping on, the slip crosses zero against
            // the friction unseen (its guard restarts at zero and is read by its sign) and
            // friction makes energy (0.1 J in a stretchy catch); the axle grips instead.
            after = AxleMode::Stuck;
        }
        self.phases.taut.system.axle_modes[k - 1] = after;
        self.phases.evaluate_taut(t, y)?;
        let kind = match (before, after) {
            (AxleMode::Stuck, AxleMode::Slipping(_)) => Some(EventKind::Unstick),
            (AxleMode::Slipping(_), AxleMode::Stuck) => Some(EventKind::Stick),
            (AxleMode::Slipping(a), AxleMode::Slipping(b)) if a != b => {
                Some(EventKind::SlipReversal)
            }
            _ => None,
        };
        if let Some(kind) = kind {
            let k = self.roster.diabolo_in(k);
            self.log(Event::new(t, kind, Some(k)));
        }
        Ok(Outcome::Stays)
    }

    /// The friction modes of the taut axles by diabolo K, to keep across a rebuild.
    pub(crate) fn friction_modes(&self) -> Vec<(usize, AxleMode)> {
        if self.phases.phase != Phase::Taut {
            return Vec::new();
        }
        self.phases
            .taut
            .system
            .axle_modes
            .iter()
            .enumerate()
            .map(|(i, m)| (self.roster.diabolo_in(i + 1), *m))
            .collect()
    }
}

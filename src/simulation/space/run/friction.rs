//! The friction modes of the axles in space: decided on entering the taut phase (the Filippov
//! rule where a slip is zero, the axles at zero slip together) and settled together when
//! several axles' slips or grips change at one instant.

use super::{failed, Run, Stop};
use crate::model::friction::{filippov_mode, AxleMode, SlipDirection};
use crate::simulation::space::system::SpacePhase;
use crate::simulation::space::{SpaceEventKind, SpaceHand};
use crate::simulation::tolerances::{MODE_PASSES, SLIP_RATE_AT_ZERO};

impl<H: SpaceHand + Clone> Run<H> {
    /// Each axle's mode at t: the way its slip points, the Filippov rule at zero slip; the
    /// axles at zero slip decided together, pass after pass until none changes (as in the
    /// plane: `Hybrid::decide_modes`).
    pub(super) fn decide_modes(&mut self, t: f64) -> Result<(), Stop> {
        let n = self.system.on_string();
        self.system.phase = SpacePhase::Taut;
        for k in 1..=n {
            self.system.modes[k - 1] = AxleMode::Slipping(SlipDirection::Positive);
        }
        self.system.load(t, &self.y).map_err(|e| failed(t, e))?;
        let mut at_zero = Vec::new();
        for k in 1..=n {
            let slip = self.system.tension.contact(k).slip_speed;
            self.system.modes[k - 1] = AxleMode::from_slip(slip);
            if slip == 0.0 && self.system.switching {
                at_zero.push(k);
            }
        }
        for _ in 0..MODE_PASSES {
            let mut changed = false;
            for &k in &at_zero {
                let before = self.system.modes[k - 1];
                let mode = self.system.decide_mode(k).map_err(|e| failed(t, e))?;
                self.system.modes[k - 1] = mode;
                changed |= mode != before;
            }
            // One axle's decision depends on the others' modes only: a second pass would repeat it.
            if !changed || at_zero.len() == 1 {
                break;
            }
        }
        Ok(())
    }

    /// Several axles whose slip reached zero or whose grip reached a capstan bound at one
    /// instant, decided together: each was decided given the others' modes from before the
    /// instant, so one could slip against its own friction once the others changed (three
    /// axles of a resting chain letting go together, one driven backward: friction made
    /// energy). Pass after pass, an axle whose mode its slip trends now contradict takes the
    /// Filippov rule's mode, until none changes; the change is logged (a grip, or a grip let
    /// go).
    pub(super) fn settle_friction(&mut self, t: f64, axles: &[usize]) -> Result<(), Stop> {
        if axles.len() < 2 || !self.system.switching || self.system.phase != SpacePhase::Taut {
            return Ok(());
        }
        self.system.read(&self.y);
        self.system.load(t, &self.y).map_err(|e| failed(t, e))?;
        for _ in 0..MODE_PASSES {
            let mut changed = false;
            for &k in axles {
                let before = self.system.modes[k - 1];
                let (up, down) = self.system.slip_trends(k).map_err(|e| failed(t, e))?;
                let contradicted = match before {
                    AxleMode::Slipping(SlipDirection::Positive) => up < -SLIP_RATE_AT_ZERO,
                    AxleMode::Slipping(SlipDirection::Negative) => down > SLIP_RATE_AT_ZERO,
                    AxleMode::Stuck => up > SLIP_RATE_AT_ZERO || down < -SLIP_RATE_AT_ZERO,
                };
                if !contradicted {
                    continue;
                }
                let after = filippov_mode(up, down);
                self.system.modes[k - 1] = after;
                changed |= after != before;
                let diabolo = self.system.roster.diabolo_in(k);
                match (before, after) {
                    (_, AxleMode::Stuck) => self.event(t, SpaceEventKind::Stick(diabolo)),
                    (AxleMode::Stuck, _) => self.event(t, SpaceEventKind::Unstick(diabolo)),
                    _ => {}
                }
            }
            if !changed {
                break;
            }
        }
        Ok(())
    }
}

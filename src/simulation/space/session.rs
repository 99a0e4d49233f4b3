//! A run in space taken in steps: advance to a time, read the state, change a hand, go on (the
//! Python package's `Simulation.step` and its Gymnasium environment drive this).

use super::run::{Run, SpaceEvent, SpaceReport, SpaceRow, SpaceStatus, SpaceStop};
use super::{SpaceHand, SpaceSimulation};
use crate::model::space::SpaceState;

/// A run in space advanced piece by piece; its hands can be replaced between pieces. A clone
/// is an independent snapshot.
#[derive(Clone)]
pub struct SpaceSession<H: SpaceHand + Clone> {
    run: Run<H>,
    started: bool,
    stop: Option<(f64, SpaceStop)>,
}

impl<H: SpaceHand + Clone> SpaceSession<H> {
    /// A session at t = 0 of `sim`.
    pub fn new(sim: &SpaceSimulation<H>) -> Self {
        Self {
            run: Run::new(sim),
            started: false,
            stop: None,
        }
    }

    /// Integrates to `until` (s; at most the duration), handing the rows on the way to `sink`.
    /// A run that stops (now or before) returns its stop.
    pub fn advance(
        &mut self,
        until: f64,
        mut sink: impl FnMut(&SpaceRow),
    ) -> Result<(), (f64, SpaceStop)> {
        if let Some(stop) = &self.stop {
            return Err(stop.clone());
        }
        let result = if self.started {
            self.run.advance(until, &mut sink)
        } else {
            self.started = true;
            self.run
                .start(&mut sink)
                .and_then(|()| self.run.advance(until, &mut sink))
        };
        result.inspect_err(|stop| self.stop = Some(stop.clone()))
    }

    /// The events so far, in time order.
    pub fn events(&self) -> &[SpaceEvent] {
        self.run.events()
    }

    /// The stop that ended the run, if it stopped.
    pub fn stop(&self) -> Option<&(f64, SpaceStop)> {
        self.stop.as_ref()
    }

    /// The time reached, s.
    pub fn time(&self) -> f64 {
        self.run.time()
    }

    /// The string's phase at the time reached.
    pub fn phase(&self) -> super::SpacePhase {
        self.run.phase()
    }

    /// Whether the run reached its duration or stopped.
    pub fn finished(&self) -> bool {
        self.stop.is_some() || self.run.time() >= self.run.duration()
    }

    /// The state at the time reached: every diabolo in index order.
    pub fn state(&mut self) -> SpaceState {
        self.run.state()
    }

    /// Each diabolo's mode at the time reached (on the string, flying, dropped), index K - 1.
    pub fn diabolo_modes(&self) -> &[crate::simulation::DiaboloMode] {
        self.run.system.roster.modes()
    }

    /// Each diabolo's slot on the string (0 off it), index K - 1.
    pub fn slots(&self) -> &[usize] {
        self.run.system.roster.slot_numbers()
    }

    /// Replaces hand `side` (0 left, 1 right) from the time reached on.
    pub fn set_hand(&mut self, side: usize, hand: H) -> Result<(), (f64, SpaceStop)> {
        if let Some(stop) = &self.stop {
            return Err(stop.clone());
        }
        if !self.started {
            self.run.replace_hand(side, hand);
            return Ok(());
        }
        self.run
            .set_hand(side, hand)
            .inspect_err(|stop| self.stop = Some(stop.clone()))
    }

    /// The report so far: `Stopped` if the run stopped, else `Finished` (up to [`Self::time`]).
    pub fn report(&self) -> SpaceReport {
        let status = match &self.stop {
            Some((t, reason)) => SpaceStatus::Stopped {
                t: *t,
                reason: reason.clone(),
            },
            None => SpaceStatus::Finished,
        };
        self.run.report(status)
    }
}

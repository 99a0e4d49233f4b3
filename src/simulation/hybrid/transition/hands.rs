//! What the hands do between steps: a path stick's velocity jump at a keyframe, and a drive
//! replaced in a session.

use super::*;

impl Hybrid<'_> {
    /// A path stick's velocity jumps at `knot` (a keyframe of a linear path; the run is at t,
    /// within round-off of it): each such stick takes its path's velocity after the knot (its
    /// position stays, on the path up to the drift the path drive pulls back), and the hand does
    /// the work of the change, 1/2 M (v_after^2 - v_before^2).
    /// With the string taut, a jump that stretches it is caught as a tensing impulse (the
    /// stick, infinitely heavy, keeps its velocity; the diabolos take the impulse), one that
    /// shortens it slackens it; with the string loose only the sticks change.
    pub fn jump_velocities(&mut self, t: f64, knot: f64) -> Result<(), RunError> {
        let d = self.phases.dimension();
        let y = self.phases.stepper().y()[..d].to_vec();
        let mut accounts = self.phases.accounts(&y);
        let mut state = match self.phases.phase {
            Phase::Taut => self.taut_state(t, &y)?,
            Phase::Loose => self.phases.state(t, &y),
        };
        let mut work = 0.0;
        for (stick, drive) in [&mut state.left, &mut state.right]
            .into_iter()
            .zip(&self.sim.drives)
        {
            if let Drive::Path(Path::Linear(polyline)) = drive {
                let (before, after) = polyline.velocity_jump(knot);
                work += 0.5
                    * self.sim.params.stick_mass
                    * (after.norm_squared() - before.norm_squared());
                stick.vel = after;
            }
        }
        accounts[0] += work;
        match self.phases.phase {
            Phase::Taut => self.tense(state, &accounts, t, Arrival::Start),
            Phase::Loose => self.enter_loose(state, &accounts, t),
        }
    }

    /// The hands' drives replaced at t (a session between steps), with the active mode's state y
    /// at t: the string is entered again in its phase from the state now, as at a velocity
    /// jump ([`Hybrid::jump_velocities`]), and axles that grip go on gripping without a new event. The
    /// phases are built anew when the drive changes whether the stick's motion is prescribed
    /// (which components are imposed, which guards exist); otherwise the new drive is written
    /// into them. A taut inextensible string with no path-driven stick keeps y as it is (no
    /// velocity can jump): its friction is decided again and it stays taut or loosens.
    /// `None` keeps a hand's drive: both hands change with one re-entry.
    pub(crate) fn change_drives(
        &mut self,
        drives: [Option<Drive>; 2],
        t: f64,
        y: &[f64],
    ) -> Result<(), RunError> {
        let accounts = self.phases.accounts(y);
        let phase = self.phases.phase;
        let kept = self.friction_modes();
        let mut rebuild = false;
        for (side, drive) in drives.into_iter().enumerate() {
            if let Some(drive) = drive {
                rebuild |= drive.prescribes_motion() != self.sim.drives[side].prescribes_motion();
                self.sim.to_mut().drives[side] = drive;
            }
        }
        let smooth = phase == Phase::Taut
            && self.sim.params.string_stiffness.is_none()
            && !self.sim.drives.iter().any(Drive::prescribes_motion);
        if smooth && !rebuild {
            // Forces and accelerations change, the state does not: the taut string is held
            // from y as it is, its friction decided again, without the round trip through the
            // Cartesian state that a velocity jump needs.
            self.phases.set_drives(&self.sim.drives);
            self.keeping_grip(&kept, |hybrid| hybrid.hold_taut(t, y, &accounts))?;
        } else {
            // The state (kinematic: the drives' change does not enter it) from the phase's
            // system as it is, then the string entered again from it.
            let state = match phase {
                Phase::Taut => self.taut_state(t, y)?,
                Phase::Loose => self.phases.state(t, y),
            };
            if rebuild {
                self.reenter(phase, state, &accounts, t, kept)?;
            } else {
                self.phases.set_drives(&self.sim.drives);
                self.enter_again(phase, state, &accounts, t, kept)?;
            }
        }
        self.settle_contacts()
    }
}

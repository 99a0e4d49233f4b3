//! The rows of the run in space: every multiple of the output interval, each with the whole
//! state (every diabolo in index order), the tensions, the string's G and F_C, the hands'
//! forces and the energy ledger, checked as it goes.

use nalgebra::Vector3;

use super::run::{failed, Run, Stop};
use super::system::SpacePhase;
use super::{SpaceHand, SpaceStop};
use crate::model::energy::LedgerAccounts;
use crate::model::friction::AxleMode;
use crate::model::space::{space_energy, AxleModel, SpaceState};

/// A slack string found longer than L by this (m) at a row passed its length unseen.
const OVERSTRETCH: f64 = 1e-6;

/// One row of the run in space.
#[derive(Clone, Debug)]
pub struct SpaceRow<'a> {
    /// t, s.
    pub t: f64,
    /// The phase.
    pub phase: SpacePhase,
    /// The state (axle rates of the fast top filled in).
    pub state: &'a SpaceState,
    /// T_0..T_N, N (0 on a slack string).
    pub tensions: &'a [f64],
    /// G.
    pub gear_ratio: f64,
    /// F_C, m/s^2.
    pub centrifugal_term: f64,
    /// The hands' forces (left, right), N.
    pub hand_forces: [Vector3<f64>; 2],
    /// The axles' modes.
    pub modes: &'a [AxleMode],
    /// The ledger: E, W, the losses (friction, drag, impulse) and the rigid axle's torque work,
    /// J.
    pub energy: f64,
    /// W, J.
    pub hand_work: f64,
    /// J.
    pub friction_loss: f64,
    /// J.
    pub drag_loss: f64,
    /// J.
    pub impulse_loss: f64,
    /// The compliant string's damping loss, J (None: an inextensible string).
    pub string_loss: Option<f64>,
    /// The work of the string's torque on a rigid axle's transverse rotation, J (0 for the fast
    /// top).
    pub axle_work: f64,
    /// L - sum l, m.
    pub slack: f64,
    /// Each diabolo's mode, index K - 1.
    pub diabolo_modes: &'a [crate::simulation::DiaboloMode],
    /// Each diabolo's slot on the string (0 off it), index K - 1.
    pub slots: &'a [usize],
    /// Each diabolo's theta = pi + its contact angle, rad (NaN off the string), index K - 1.
    pub thetas: &'a [f64],
}

impl<H: SpaceHand + Clone> Run<H> {
    /// Rows at every multiple of the interval up to t (from the stepper's last step).
    pub(super) fn emit_rows_until(
        &mut self,
        t: f64,
        sink: &mut impl FnMut(&SpaceRow),
    ) -> Result<(), Stop> {
        self.emit_rows(t, sink, false)
    }

    pub(super) fn emit_rows(
        &mut self,
        t: f64,
        sink: &mut impl FnMut(&SpaceRow),
        at_end: bool,
    ) -> Result<(), Stop> {
        let interval = self.settings.output_interval;
        loop {
            let row_t = self.next_row as f64 * interval;
            let last = at_end && row_t > t && (t - (row_t - interval)) > 1e-12 * interval.max(t);
            if row_t > t * (1.0 + 1e-15) + 1e-15 && !last {
                return Ok(());
            }
            let row_t = if last { t } else { row_t };
            if row_t > self.settings.duration * (1.0 + 1e-15) {
                return Ok(());
            }
            if row_t == self.stepper.t() || !self.stepper.has_step() || row_t < self.stepper.t_old()
            {
                self.row_y.copy_from_slice(
                    if row_t == self.stepper.t() && self.stepper.has_step() {
                        self.stepper.y()
                    } else {
                        &self.y
                    },
                );
            } else {
                // A row time rounded past the step's end by the multiple of the interval.
                let at = row_t.min(self.stepper.t());
                self.stepper
                    .interpolate(at, &mut self.row_y)
                    .map_err(|e| failed(row_t, e))?;
            }
            self.row(row_t, sink)?;
            if last {
                return Ok(());
            }
            self.next_row += 1;
        }
    }

    /// The row's state of every diabolo in index order (the string's from the loaded string
    /// state, with the fast top's axle rates; the others from the row's state vector), and
    /// each one's theta. Field by field: no allocation per row.
    pub(super) fn fill_row_state(&mut self) {
        let system = &self.system;
        self.row_state.left = system.state.left;
        self.row_state.right = system.state.right;
        let slots = system.roster.slot_numbers();
        for (k, (d, theta)) in self
            .row_state
            .diabolos
            .iter_mut()
            .zip(&mut self.row_thetas)
            .enumerate()
        {
            match slots[k] {
                0 => {
                    system.layout.unpack_diabolo(&self.row_y, k + 1, d);
                    d.knot = 0;
                    if system.params.model == AxleModel::FastTop {
                        d.axle_rate = Vector3::zeros();
                    }
                    *theta = f64::NAN;
                }
                slot => {
                    *d = system.state.diabolos[slot - 1];
                    d.axle_rate = system.axle_rate(slot);
                    *theta =
                        std::f64::consts::PI + system.string.contact_angle(slot, d.knot, &d.axle);
                }
            }
        }
    }

    fn row(&mut self, t: f64, sink: &mut impl FnMut(&SpaceRow)) -> Result<(), Stop> {
        let row_y = std::mem::take(&mut self.row_y);
        let loaded = self.system.load(t, &row_y);
        self.row_y = row_y;
        loaded.map_err(|e| failed(t, e))?;
        self.fill_row_state();
        let params = &self.system.params;
        let taut = self.system.phase == SpacePhase::Taut;
        // Within the capacity of N + 1: no allocation.
        self.row_tensions.resize(self.system.on_string() + 1, 0.0);
        if taut {
            self.row_tensions
                .copy_from_slice(self.system.tension.tensions());
        } else {
            self.row_tensions.iter_mut().for_each(|x| *x = 0.0);
            self.system.tension.update_contacts(
                params,
                &self.system.state,
                &self.system.string,
                None,
                crate::model::space::SpaceSlipReference::LeftSide,
            );
        }
        let accounts_at = self.system.layout.accounts();
        let a = &self.row_y[accounts_at..accounts_at + self.system.layout.account_count()];
        let stored = self.system.stored_energy();
        // While slack, the stretch given up since the phase began is the damping's loss.
        let string_loss = self
            .system
            .layout
            .string_loss()
            .map(|at| self.row_y[at] + self.relaxing.map_or(0.0, |at_start| at_start - stored));
        let energy = space_energy(params, &self.row_state) + stored;
        let hand_forces = if taut {
            self.system.tension.hand_forces()
        } else {
            let p = params.planar.values();
            let gravity = Vector3::new(0.0, -p.gravity, 0.0);
            let force = |input: crate::model::StickInput<3>| match input {
                crate::model::StickInput::Force(f) => f,
                crate::model::StickInput::Accel(acc) => p.stick_mass * (acc - gravity),
            };
            [force(self.system.inputs[0]), force(self.system.inputs[1])]
        };
        let ledger = LedgerAccounts {
            energy,
            hand_work: a[0] + a[3],
            losses: [a[1], a[2], self.impulse_loss, string_loss.unwrap_or(0.0)],
        };
        if !taut
            && self.system.elastic.is_none()
            && -(self.system.string.total_length() - params.planar.values().string_length)
                < -OVERSTRETCH
        {
            let over = self.system.string.total_length() - params.planar.values().string_length;
            return Err((t, SpaceStop::Overstretched(over)));
        }
        let residual = ledger.residual(self.initial_energy);
        self.worst_residual = self.worst_residual.max(residual.abs());
        let row = SpaceRow {
            t,
            phase: self.system.phase,
            state: &self.row_state,
            tensions: &self.row_tensions,
            gear_ratio: self.system.tension.gear_ratio(params, &self.system.string),
            centrifugal_term: self.system.string.centrifugal_term(),
            hand_forces,
            modes: &self.system.modes,
            energy,
            hand_work: a[0],
            friction_loss: a[1],
            drag_loss: a[2],
            impulse_loss: self.impulse_loss,
            string_loss,
            axle_work: a[3],
            slack: params.planar.values().string_length - self.system.string.total_length(),
            diabolo_modes: self.system.roster.modes(),
            slots: self.system.roster.slot_numbers(),
            thetas: &self.row_thetas,
        };
        sink(&row);
        self.watch
            .check(&ledger)
            .map_err(|(breach, tolerance)| (t, SpaceStop::LedgerOpen { breach, tolerance }))
    }
}

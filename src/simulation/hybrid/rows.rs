//! The rows of a run: one [`Row`] from the active phase's state at a time, and the rows at the
//! multiples of the output interval between events, with the ledger's run-time check.

use crate::model::friction::Axles;
use crate::model::{
    energy::mechanical_energy, tension, CartesianState, Kinematics, LedgerAccounts, LedgerWatch,
    TautFormulas,
};
use crate::simulation::ode::integrate::Method;
use crate::simulation::phase::{hand_inputs, imposed, Phase};
use crate::simulation::report::RunError;
use crate::simulation::row::Row;

use super::Hybrid;

/// The rows of a run: the grid cursor, the row being filled and its state buffer.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rows {
    /// The row handed out last.
    pub row: Row,
    /// Index of the next grid time.
    next: u64,
    /// Rows handed out.
    pub count: usize,
    /// The energy ledger's run-time invariant, checked at every row (set at the first; `None`
    /// before it and for the fixed-step `rk4`, which has no tolerance to tie it to).
    watch: Option<LedgerWatch>,
}

impl Rows {
    /// Rows at the grid times before `until` (and at `until` itself when `last`, the run's
    /// end), from the active mode's last step; `check` (given the time reached) runs before
    /// each row is handed out.
    pub fn emit_until(
        &mut self,
        hybrid: &mut Hybrid,
        (until, last): (f64, bool),
        check: &dyn Fn(f64) -> Result<(), RunError>,
        on_row: &mut dyn FnMut(&Row),
    ) -> Result<(), RunError> {
        let dt = hybrid.sim.settings.output_interval;
        let duration = hybrid.sim.settings.duration;
        loop {
            let grid = self.next as f64 * dt;
            // The final row lands exactly on the duration, even off the grid.
            let t = if grid > duration && grid - duration < 0.5 * dt && self.next > 0 {
                duration
            } else {
                grid
            };
            if t > duration || !(t < until || (last && t <= until)) {
                return Ok(());
            }
            // Keep the event state intact: rows use their own buffer.
            let mut y = std::mem::take(&mut hybrid.phases.scratch);
            let d = hybrid.phases.dimension();
            let filled = hybrid
                .phases
                .interpolate_into(t, &mut y[..d])
                .and_then(|()| fill_row(&mut self.row, hybrid, t, &y[..d]));
            hybrid.phases.scratch = y;
            filled?;
            self.watch_ledger(hybrid, t)?;
            check(hybrid.t)?;
            on_row(&self.row);
            self.count += 1;
            self.next += 1;
            if t >= duration {
                self.next = u64::MAX / 4;
                return Ok(());
            }
        }
    }
}

impl Rows {
    /// The energy ledger of the row just filled at t (s), against the run's invariant
    /// ([`LedgerWatch`]): a loss that fell or a ledger open beyond its tolerance ends the run
    /// before the row is handed out.
    fn watch_ledger(&mut self, hybrid: &Hybrid, t: f64) -> Result<(), RunError> {
        let settings = &hybrid.sim.settings;
        if matches!(settings.method, Method::Rk4 { .. }) {
            return Ok(());
        }
        let watch = self.watch.get_or_insert_with(|| {
            LedgerWatch::new(hybrid.initial_energy, settings.rtol, settings.atol)
        });
        let row = &self.row;
        let accounts = LedgerAccounts {
            energy: row.energy,
            hand_work: row.hand_work,
            losses: [
                row.friction_loss,
                row.drag_loss,
                row.impulse_loss,
                row.string_loss.unwrap_or(0.0),
            ],
        };
        watch
            .check(&accounts)
            .map_err(|(breach, tolerance)| RunError::LedgerOpen {
                t,
                breach,
                tolerance,
            })
    }
}

/// Storage a row is filled through, reused from row to row: the string's Cartesian state and,
/// while loose, the kinematics its thetas and formulas are read from, with the axles' friction
/// and the spins the formulas take.
#[derive(Clone, Debug, Default)]
pub(crate) struct RowScratch {
    string: CartesianState,
    loose: Option<(Kinematics, Axles)>,
    spins: Vec<f64>,
}

/// Fills `row` for the active mode's state y at time t (allocation-free once the row and the
/// run's [`RowScratch`] have their sizes).
pub(crate) fn fill_row(
    row: &mut Row,
    hybrid: &mut Hybrid,
    t: f64,
    y: &[f64],
) -> Result<(), RunError> {
    let mut scratch = std::mem::take(&mut hybrid.row_scratch);
    let filled = fill_row_through(row, hybrid, t, y, &mut scratch);
    hybrid.row_scratch = scratch;
    filled
}

fn fill_row_through(
    row: &mut Row,
    hybrid: &mut Hybrid,
    t: f64,
    y: &[f64],
    scratch: &mut RowScratch,
) -> Result<(), RunError> {
    let params = hybrid.sim.params;
    let n = hybrid.n;
    let accounts = hybrid.phases.accounts(y);
    hybrid.ledger.extra_evaluations += 1;
    row.t = t;
    row.phase = Some(hybrid.phases.phase);
    // theta of each diabolo K: set by slot below, None off the string.
    let count = hybrid.roster.diabolos();
    row.thetas.clear();
    row.thetas.resize(count, None);
    let slack;
    let string = &mut scratch.string;
    match hybrid.phases.phase {
        Phase::Taut => {
            hybrid.phases.evaluate_taut(t, y)?;
            let dynamics = &hybrid.phases.taut.system.dynamics;
            dynamics.cartesian_into(&y[..dynamics.layout().len()], string);
            // The string's own length, then the path-driven sticks exactly on their paths (the
            // chain's end is on its path at every step's end, within the tolerance between).
            slack = params.string_length - string.string_used();
            let drives = &hybrid.phases.taut.system.drives;
            imposed::pin(&drives[0], t, &mut string.left);
            imposed::pin(&drives[1], t, &mut string.right);
            for slot in 1..=n {
                let theta = dynamics.kinematics().objects()[slot].theta;
                row.thetas[hybrid.roster.diabolo_in(slot) - 1] = Some(theta);
            }
            row.tensions.clear();
            row.tensions
                .extend((0..=n).map(|j| dynamics.segment_tension(j)));
            row.resting.clear();
            row.resting.extend(
                hybrid
                    .roster
                    .resting()
                    .iter()
                    .copied()
                    .zip(dynamics.contact_forces().iter().copied()),
            );
            let tension = dynamics.tension();
            row.gear_ratio = Some(tension.gear_ratio);
            row.centrifugal_term = Some(tension.centrifugal_term);
            row.formulas = TautFormulas::of(tension);
            row.hand_forces = tension.hand_forces;
        }
        Phase::Loose => {
            hybrid.phases.loose.system.state_into(t, y, string);
            let drives = &hybrid.sim.drives;
            let inputs = hand_inputs(drives, t, &[string.left, string.right]);
            let motion = crate::model::loose_accelerations(&params, &inputs);
            row.hand_forces = [motion[0].1, motion[1].1];
            let (kin, axles) = match &mut scratch.loose {
                Some((k, a)) if k.diabolos() == n => (k, a),
                slot => {
                    let (k, a) = slot.insert((Kinematics::new(n), Axles::new(n)));
                    (k, a)
                }
            };
            let loaded = kin.load_cartesian(string).is_ok();
            for slot in 1..=n {
                let theta = if loaded {
                    kin.objects()[slot].theta
                } else {
                    f64::NAN
                };
                row.thetas[hybrid.roster.diabolo_in(slot) - 1] = Some(theta);
            }
            row.formulas = if loaded {
                scratch.spins.clear();
                scratch.spins.extend(string.diabolos.iter().map(|d| d.spin));
                tension::formulas_on(&params, kin, axles, &scratch.spins, row.hand_forces)
            } else {
                TautFormulas::UNDEFINED
            };
            row.tensions.clear();
            row.tensions.resize(n + 1, 0.0);
            row.resting.clear();
            row.gear_ratio = None;
            row.centrifugal_term = None;
            slack = params.string_length - string.string_used();
        }
    }
    let string = &scratch.string;
    let roster = &hybrid.roster;
    roster.fill_state(&params, t, string, &mut row.state);
    row.modes.clear();
    row.modes.extend((1..=count).map(|k| roster.mode(k)));
    row.slots.clear();
    row.slots
        .extend((1..=count).map(|k| roster.slot_of(k).unwrap_or(0)));
    let [hand_work, friction_loss, drag_loss, string_loss] = accounts;
    row.energy = mechanical_energy(&params, &row.state);
    row.slack = slack;
    row.string_loss = params.elastic().map(|string| {
        row.energy += string.energy(-row.slack);
        string_loss
    });
    row.hand_work = hand_work;
    row.friction_loss = friction_loss;
    row.drag_loss = drag_loss + roster.drag_loss(&params, t);
    row.impulse_loss = hybrid.ledger.impulse_loss;
    Ok(())
}

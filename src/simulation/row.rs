//! An output row: the whole state of a run at one time, as the trajectory shows it (filled by
//! the hybrid run, [`crate::simulation::hybrid`]).

use nalgebra::Vector2;

use crate::model::{CartesianState, TautFormulas};

use super::phase::Phase;
use super::roster::DiaboloMode;

/// One output row (docs/interface.md, "Trajectory CSV").
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    /// Time, s.
    pub t: f64,
    /// The phase of the string (`None` only in a default row, before any is filled).
    pub phase: Option<Phase>,
    /// Positions, velocities, spins and knot degrees of all objects: the sticks and every
    /// diabolo in index order K = 1..N (on the string or not; knot 0 off it).
    pub state: CartesianState,
    /// Where each diabolo is (index order).
    pub modes: Vec<DiaboloMode>,
    /// The slot of each diabolo on the string (1..n from the left stick), 0 off it (index
    /// order).
    pub slots: Vec<usize>,
    /// theta of each diabolo on the string, rad; `None` off it (index order).
    pub thetas: Vec<Option<f64>>,
    /// T_0..T_n, N: the tensions of the string's segments in slot order (0 while loose).
    pub tensions: Vec<f64>,
    /// The contacts resting now: the pair (the run's numbering: 0 the left stick, 1..N a
    /// diabolo, N + 1 the right stick) and lambda, the force holding them apart, N.
    pub resting: Vec<([usize; 2], f64)>,
    /// G: the gear ratio of the taut string (dimensionless); `None` while loose, where no
    /// tension acts (the trajectory CSV shows the taut formulas on the loose state there).
    pub gear_ratio: Option<f64>,
    /// F^_C: the centrifugal term of the taut string, m/s^2; `None` while loose.
    pub centrifugal_term: Option<f64>,
    /// G and F^_C as the taut string's formulas give them on this row's state, with
    /// `hand_forces` as the sticks' inputs: `gear_ratio` and `centrifugal_term` themselves while
    /// taut; while loose, what a taut string would do from here (NaN where the configuration
    /// has no string angles). The trajectory's G and FC columns.
    pub formulas: TautFormulas,
    /// Hand forces applied to the left and the right stick (x-y), N.
    pub hand_forces: [Vector2<f64>; 2],
    /// Energy, J: mechanical (kinetic, spin, gravitational) plus a compliant string's elastic
    /// energy EA max(delta, 0)^2 / (2 L).
    pub energy: f64,
    /// L - sum l, m.
    pub slack: f64,
    /// Work done by the hands since the start, J.
    pub hand_work: f64,
    /// Energy lost to friction at the axles since the start, J.
    pub friction_loss: f64,
    /// Energy lost to spin drag since the start, J.
    pub drag_loss: f64,
    /// Energy lost in tensing impulses since the start, J.
    pub impulse_loss: f64,
    /// Energy lost in a compliant string's damping since the start, J (`None` for the
    /// inextensible string).
    pub string_loss: Option<f64>,
}

impl Row {
    /// The string's objects: the sticks and the diabolos on the string in slot order.
    pub fn string_state(&self) -> CartesianState {
        let mut state = CartesianState::default();
        self.string_state_into(&mut state);
        state
    }

    /// [`Row::string_state`] into `out`, reusing its storage.
    pub fn string_state_into(&self, out: &mut CartesianState) {
        out.left = self.state.left;
        out.right = self.state.right;
        out.diabolos.clear();
        let on_string = self.slots.iter().filter(|&&slot| slot > 0).count();
        for slot in 1..=on_string {
            if let Some(k) = self.slots.iter().position(|&s| s == slot) {
                out.diabolos.push(self.state.diabolos[k]);
            }
        }
    }
}

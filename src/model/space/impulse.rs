//! The tensing impulse in space (docs/space.md; the planar one is docs/model.md, "Loose phase
//! and tensing").
//!
//! When the slack string reaches its length with L' > 0, segment i takes the impulse Pi_i
//! along its direction u_i: every object's velocity jumps by mu_j (Pi_j u_j - Pi_{j-1} u_{j-1})
//! and every spin by (Pi_{K-1} - Pi_K) / (m J), the same linear structure as the tensions. The
//! impact is the planar model's, in vector form ([`crate::model::impulse`]): followed piece by
//! piece in the decrease of L', each axle slipping with its capstan ratio the way its symmetric
//! slip points until that slip reaches zero, where the Filippov rule decides (grip, or slip on
//! either way), with the energetic restitution e. A prescribed stick is infinitely heavy
//! (mu = 0): its hand absorbs the impulse. In the plane it is the planar impulse, to round-off.

use nalgebra::Vector3;

use super::energy::space_energy;
use super::params::SpaceParams;
use super::state::SpaceState;
use super::string::SpaceString;
use super::tension::{SpaceSlipReference, SpaceTension};
use crate::model::impulse::{chain_tensing_impulse, ImpulseError, StringObjects};

/// What a tensing impulse did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpaceImpulse {
    /// Lambda: the impulse of segment 0, N s.
    pub impulse: f64,
    /// L' before, m/s.
    pub rate_before: f64,
    /// L' after, m/s (-e times the rate before where no axle changed its friction mode).
    pub rate_after: f64,
    /// The energy the impulse dissipated: the kinetic energy lost plus the hands' work during
    /// it, J (>= 0).
    pub energy_lost: f64,
    /// The work the hands of prescribed sticks did during the impulse, J.
    pub hand_work: f64,
    /// How many times an axle changed its friction mode during the impulse.
    pub mode_changes: usize,
}

/// A tensing impulse the model in space cannot apply.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SpaceImpulseError {
    /// Two neighbours on the string at one point.
    #[error(transparent)]
    Collapsed(#[from] super::string::CollapsedSegment),
    /// The impact itself (no consistent friction modes, nothing to take it, ...).
    #[error(transparent)]
    Impact(#[from] ImpulseError),
}

impl StringObjects for SpaceState {
    fn velocity(&self, j: usize) -> Vector3<f64> {
        SpaceState::velocity(self, j)
    }
    fn push(&mut self, j: usize, dv: &Vector3<f64>) {
        let n = self.diabolos.len();
        match j {
            0 => self.left.vel += dv,
            j if j == n + 1 => self.right.vel += dv,
            j => self.diabolos[j - 1].vel += dv,
        }
    }
    fn spin(&self, k: usize) -> f64 {
        self.diabolos[k - 1].spin
    }
    fn turn(&mut self, k: usize, dw: f64) {
        self.diabolos[k - 1].spin += dw;
    }
}

/// Applies the tensing impulse with restitution `restitution` (e; a bouncing string that
/// settles takes 0) to `state` (on `string`'s geometry, filled from it; `work` holds the
/// axles' contact angles after); `prescribed` says which sticks are infinitely heavy (left,
/// right).
pub fn space_tensing_impulse(
    params: &SpaceParams,
    restitution: f64,
    state: &mut SpaceState,
    string: &mut SpaceString,
    work: &mut SpaceTension,
    prescribed: [bool; 2],
) -> Result<SpaceImpulse, SpaceImpulseError> {
    let n = state.diabolos.len();
    string.update(state)?;
    work.update_contacts(params, state, string, None, SpaceSlipReference::Symmetric);
    let directions = string.segments().iter().map(|s| s.direction).collect();
    let contacts = (1..=n)
        .map(|k| (1.0, work.contact(k).contact_angle))
        .collect();
    let impulse = chain_tensing_impulse(
        &params.planar,
        restitution,
        state,
        (directions, contacts),
        prescribed,
        |s| space_energy(params, s),
    )?;
    string.update(state)?;
    Ok(SpaceImpulse {
        impulse: impulse.magnitude,
        rate_before: impulse.length_rate_before,
        rate_after: string.total_length_rate(),
        energy_lost: impulse.energy_lost,
        hand_work: impulse.hand_work,
        mode_changes: impulse.mode_changes,
    })
}

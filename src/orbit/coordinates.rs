//! The free coordinates z of a simulation: the diabolos' positions, velocities and spins and
//! the position and velocity of each stick that no path prescribes.

use nalgebra::DVector;

use crate::model::CartesianState;
use crate::simulation::drive::Drive;
use crate::simulation::Simulation;

/// The free coordinates of a simulation: which objects' which fields.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Coordinates {
    pub(super) diabolos: usize,
    /// The sticks no path prescribes (0 left, 1 right).
    pub(super) sticks: Vec<usize>,
}

const DIABOLO_FIELDS: [&str; 5] = ["x", "y", "vx", "vy", "w"];
const STICK_FIELDS: [&str; 4] = ["x", "y", "vx", "vy"];
pub(super) const SIDES: [&str; 2] = ["left", "right"];

impl Coordinates {
    pub(super) fn of(sim: &Simulation) -> Self {
        Self {
            diabolos: sim.initial.diabolo_count(),
            sticks: (0..2)
                .filter(|&s| !matches!(sim.drives[s], Drive::Path(_)))
                .collect(),
        }
    }

    pub(super) fn len(&self) -> usize {
        5 * self.diabolos + 4 * self.sticks.len()
    }

    pub(super) fn names(&self) -> Vec<String> {
        let mut names = Vec::new();
        for k in 1..=self.diabolos {
            names.extend(DIABOLO_FIELDS.iter().map(|f| format!("d{k}_{f}")));
        }
        for &s in &self.sticks {
            names.extend(STICK_FIELDS.iter().map(|f| format!("{}_{f}", SIDES[s])));
        }
        names
    }

    pub(super) fn pack(&self, state: &CartesianState) -> DVector<f64> {
        let mut z = Vec::with_capacity(self.len());
        for d in &state.diabolos {
            z.extend([d.pos.x, d.pos.y, d.vel.x, d.vel.y, d.spin]);
        }
        for &s in &self.sticks {
            let b = if s == 0 { &state.left } else { &state.right };
            z.extend([b.pos.x, b.pos.y, b.vel.x, b.vel.y]);
        }
        DVector::from_vec(z)
    }

    pub(super) fn unpack(&self, z: &DVector<f64>, state: &mut CartesianState) {
        for (k, d) in state.diabolos.iter_mut().enumerate() {
            let v = &z.as_slice()[5 * k..5 * k + 5];
            d.pos = [v[0], v[1]].into();
            d.vel = [v[2], v[3]].into();
            d.spin = v[4];
        }
        for (i, &s) in self.sticks.iter().enumerate() {
            let v = &z.as_slice()[5 * self.diabolos + 4 * i..5 * self.diabolos + 4 * i + 4];
            let b = if s == 0 {
                &mut state.left
            } else {
                &mut state.right
            };
            b.pos = [v[0], v[1]].into();
            b.vel = [v[2], v[3]].into();
        }
    }
}

//! The state vector of the run in space: left stick position and velocity (6), right stick (6),
//! then per diabolo its centre (3), velocity (3), spin w (1), axle a (3) and axle rate a' (3),
//! then the accounts: the hands' work, the friction loss, the drag loss, the work of the
//! string's torque on a rigid axle's transverse rotation and (a compliant string only) the
//! string's damping loss (J).

use nalgebra::Vector3;

use crate::model::space::{SpaceDiabolo, SpaceState};

/// Numbers per stick in the state vector.
pub(super) const STICK: usize = 6;
/// Numbers per diabolo.
pub(super) const DIABOLO: usize = 13;
/// Accounts at the end of the state vector (one more with a compliant string).
pub(super) const ACCOUNTS: usize = 4;

/// Where a diabolo's or an account's numbers sit in the state vector.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    pub(super) diabolos: usize,
    /// Whether the string's damping loss is an account (a compliant string).
    compliant: bool,
}

impl Layout {
    /// The layout of N diabolos (`compliant`: the string's damping loss is an account).
    pub(super) fn new(diabolos: usize, compliant: bool) -> Self {
        Self {
            diabolos,
            compliant,
        }
    }

    pub(super) fn dimension(self) -> usize {
        self.accounts() + self.account_count()
    }

    /// How many accounts end the state vector.
    pub(super) fn account_count(self) -> usize {
        ACCOUNTS + usize::from(self.compliant)
    }

    /// Where the compliant string's damping loss sits (None for an inextensible string).
    pub(super) fn string_loss(self) -> Option<usize> {
        self.compliant.then(|| self.accounts() + ACCOUNTS)
    }

    pub(super) fn diabolo(self, k: usize) -> usize {
        2 * STICK + DIABOLO * (k - 1)
    }

    pub(super) fn accounts(self) -> usize {
        2 * STICK + DIABOLO * self.diabolos
    }

    /// Writes the sticks and the string's diabolos of `state` (diabolo K = `slots[j - 1]` in
    /// slot j) into the state vector; the other diabolos and the accounts are left as they are.
    pub(super) fn pack(self, state: &SpaceState, slots: &[usize], y: &mut [f64]) {
        for (side, body) in [&state.left, &state.right].into_iter().enumerate() {
            put(y, side * STICK, &body.pos);
            put(y, side * STICK + 3, &body.vel);
        }
        for (d, &k) in state.diabolos.iter().zip(slots) {
            self.pack_diabolo(d, k, y);
        }
    }

    /// Writes diabolo K's numbers into the state vector.
    pub(super) fn pack_diabolo(self, d: &SpaceDiabolo, k: usize, y: &mut [f64]) {
        let at = self.diabolo(k);
        put(y, at, &d.pos);
        put(y, at + 3, &d.vel);
        y[at + 6] = d.spin;
        put(y, at + 7, &d.axle);
        put(y, at + 10, &d.axle_rate);
    }

    /// The sticks and the string's diabolos (diabolo K = `slots[j - 1]` in slot j) of a state
    /// vector into `state` (knots kept from `state`, which holds one diabolo per slot).
    pub(super) fn unpack(self, y: &[f64], slots: &[usize], state: &mut SpaceState) {
        for (side, body) in [&mut state.left, &mut state.right].into_iter().enumerate() {
            body.pos = get(y, side * STICK);
            body.vel = get(y, side * STICK + 3);
        }
        for (d, &k) in state.diabolos.iter_mut().zip(slots) {
            self.unpack_diabolo(y, k, d);
        }
    }

    /// Diabolo K's numbers of a state vector into `d` (its knot kept).
    pub(super) fn unpack_diabolo(self, y: &[f64], k: usize, d: &mut SpaceDiabolo) {
        let at = self.diabolo(k);
        d.pos = get(y, at);
        d.vel = get(y, at + 3);
        d.spin = y[at + 6];
        d.axle = get(y, at + 7);
        d.axle_rate = get(y, at + 10);
    }
}

pub(super) fn put(y: &mut [f64], at: usize, v: &Vector3<f64>) {
    y[at..at + 3].copy_from_slice(v.as_slice())
}

pub(super) fn get(y: &[f64], at: usize) -> Vector3<f64> {
    Vector3::new(y[at], y[at + 1], y[at + 2])
}

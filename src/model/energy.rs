//! Mechanical energy and the terms of its balance.

use super::params::Params;
use super::state::CartesianState;

/// E: kinetic energy of translation (1/2 M v^2 per stick, 1/2 m v^2 per diabolo), spin energy
/// (1/2 m J w^2 per diabolo) and gravitational potential (mass g y), J.
pub fn mechanical_energy(params: &Params, state: &CartesianState) -> f64 {
    kinetic_energy(params, state) + potential_energy(params, state)
}

/// V: the elastic energy of a compliant string through the objects of `string` (the sticks and
/// the diabolos on it), EA max(delta, 0)^2 / (2 L), J; 0 for the inextensible string.
pub fn string_energy(params: &Params, string: &CartesianState) -> f64 {
    params
        .elastic()
        .map_or(0.0, |s| s.energy(string.string_used() - s.length))
}

/// Translational plus spin kinetic energy, J.
pub fn kinetic_energy(params: &Params, state: &CartesianState) -> f64 {
    let m = params.diabolo_mass;
    let sticks =
        0.5 * params.stick_mass * (state.left.vel.norm_squared() + state.right.vel.norm_squared());
    let diabolos: f64 = state
        .diabolos
        .iter()
        .map(|d| 0.5 * m * (d.vel.norm_squared() + params.spin_inertia * d.spin * d.spin))
        .sum();
    sticks + diabolos
}

/// Gravitational potential energy relative to y = 0, J.
pub fn potential_energy(params: &Params, state: &CartesianState) -> f64 {
    let g = params.gravity;
    g * (params.stick_mass * (state.left.pos.y + state.right.pos.y)
        + params.diabolo_mass * state.diabolos.iter().map(|d| d.pos.y).sum::<f64>())
}

/// The power terms of dE/dt = hand_power - friction_dissipation - drag_loss - string_loss, W
/// (E with a compliant string's elastic energy).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PowerBalance {
    /// sum over sticks of F . v: power the hands put in.
    pub hand_power: f64,
    /// sum_i (T_i - T_{i-1}) w'_i: power lost to friction between string and axles (>= 0).
    pub friction_dissipation: f64,
    /// sum_i m J D w_i^2: power lost to spin drag (>= 0).
    pub drag_loss: f64,
    /// A compliant string's damping loss (docs/elastic.md, >= 0); `None` for the inextensible
    /// string.
    pub string_loss: Option<f64>,
}

impl PowerBalance {
    /// dE/dt predicted by the balance.
    pub fn energy_rate(&self) -> f64 {
        self.hand_power
            - self.friction_dissipation
            - self.drag_loss
            - self.string_loss.unwrap_or(0.0)
    }
}

/// A loss account of the energy ledger (docs/model.md, "Energy ledger").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossAccount {
    /// `friction_loss`: the integral of sum_i (T_i - T_{i-1}) w'_i.
    Friction,
    /// `drag_loss`: the integral of sum_i m J D w_i^2.
    Drag,
    /// `impulse_loss`: the energy lost in impacts, contacts and drops.
    Impulse,
    /// `string_loss`: a compliant string's damping loss.
    String,
}

impl LossAccount {
    /// The account's column name in the trajectory.
    pub fn name(self) -> &'static str {
        match self {
            Self::Friction => "friction_loss",
            Self::Drag => "drag_loss",
            Self::Impulse => "impulse_loss",
            Self::String => "string_loss",
        }
    }
}

/// The ledger's accounts at one instant, J: E, the hand work W and the losses (the string's
/// damping loss 0 for an inextensible string).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LedgerAccounts {
    /// E: mechanical energy (with a compliant string's elastic energy), J.
    pub energy: f64,
    /// W: the hands' work since the start, J.
    pub hand_work: f64,
    /// The losses since the start, J, in the order of [`LossAccount`]: friction, drag,
    /// impulse, string.
    pub losses: [f64; 4],
}

const LOSS_ACCOUNTS: [LossAccount; 4] = [
    LossAccount::Friction,
    LossAccount::Drag,
    LossAccount::Impulse,
    LossAccount::String,
];

impl LedgerAccounts {
    /// E - E(0) - (W - losses), J: zero when the ledger closes.
    pub fn residual(&self, initial_energy: f64) -> f64 {
        (self.energy - initial_energy) - (self.hand_work - self.losses.iter().sum::<f64>())
    }

    /// S = |E(0)| + |E| + |W| + sum |losses|, J: the energy the ledger has turned over, the
    /// scale its error is measured against.
    pub fn scale(&self, initial_energy: f64) -> f64 {
        initial_energy.abs()
            + self.energy.abs()
            + self.hand_work.abs()
            + self.losses.iter().map(|l| l.abs()).sum::<f64>()
    }
}

/// How the energy ledger opened.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum LedgerBreach {
    /// A loss account fell (energy created where it can only be lost).
    #[error("{} fell from {from:.6e} J to {to:.6e} J (a loss never decreases)", account.name())]
    LossFell {
        /// The account.
        account: LossAccount,
        /// Its highest value so far, J.
        from: f64,
        /// Its value now, J.
        to: f64,
    },
    /// E - E(0) differs from W - losses.
    #[error("E - E(0) - (hand_work - losses) = {residual:.6e} J")]
    Residual {
        /// E - E(0) - (W - losses), J.
        residual: f64,
    },
}

/// The run-time invariant of the energy ledger: no loss account decreases and the ledger
/// closes, each within the tolerance `FACTOR (atol + rtol S) + ROUNDOFF S` (S from
/// [`LedgerAccounts::scale`]): the error control holds each step's error to atol + rtol |y|,
/// so a closed ledger stays within a modest multiple of it over a run (the shipped scenarios
/// within 14 times, random tolerances within 7 times); `ROUNDOFF S` is the floor of round-off
/// and events where rtol is tiny.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LedgerWatch {
    /// E(0), J.
    initial_energy: f64,
    /// The run's relative and absolute tolerances.
    rtol: f64,
    atol: f64,
    /// The highest value of each loss account so far, J.
    highest: [f64; 4],
}

impl LedgerWatch {
    /// The multiple of atol + rtol S the ledger may open by.
    pub const FACTOR: f64 = 100.0;
    /// The relative floor of the tolerance: round-off, event location and the impulses solved at
    /// events, which rtol does not control (a whip on straight strokes, whose velocity jumps add some
    /// 1e-7 J each: 5e-7 J of S = 45 J by the fifth).
    pub const ROUNDOFF: f64 = 1e-7;

    /// A watch over a run starting with energy `initial_energy` (J) at tolerances `rtol`,
    /// `atol`.
    pub fn new(initial_energy: f64, rtol: f64, atol: f64) -> Self {
        Self {
            initial_energy,
            rtol,
            atol,
            highest: [0.0; 4],
        }
    }

    /// The ledger's tolerance for `accounts`, J.
    pub fn tolerance(&self, accounts: &LedgerAccounts) -> f64 {
        let scale = accounts.scale(self.initial_energy);
        Self::FACTOR * (self.atol + self.rtol * scale) + Self::ROUNDOFF * scale
    }

    /// Checks `accounts` (the next instant of the run): a loss below its highest value so
    /// far, or a residual, beyond the tolerance is a breach; the tolerance is returned with it.
    pub fn check(&mut self, accounts: &LedgerAccounts) -> Result<(), (LedgerBreach, f64)> {
        let tolerance = self.tolerance(accounts);
        for ((highest, &now), account) in self
            .highest
            .iter_mut()
            .zip(&accounts.losses)
            .zip(LOSS_ACCOUNTS)
        {
            if *highest - now > tolerance {
                return Err((
                    LedgerBreach::LossFell {
                        account,
                        from: *highest,
                        to: now,
                    },
                    tolerance,
                ));
            }
            *highest = highest.max(now);
        }
        let residual = accounts.residual(self.initial_energy);
        // A NaN residual (a NaN account) is a breach too.
        if residual.is_nan() || residual.abs() > tolerance {
            return Err((LedgerBreach::Residual { residual }, tolerance));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accounts(energy: f64, hand_work: f64, losses: [f64; 4]) -> LedgerAccounts {
        LedgerAccounts {
            energy,
            hand_work,
            losses,
        }
    }

    // A closed ledger passes; one opened by more than its tolerance, or a loss that falls,
    // does not; a loss falling by less than the tolerance (an account's integration error)
    // passes.
    #[test]
    fn the_watch_flags_an_open_ledger_and_a_falling_loss() {
        let mut watch = LedgerWatch::new(10.0, 1e-9, 1e-12);
        assert!(watch.check(&accounts(10.0, 0.0, [0.0; 4])).is_ok());
        // E - E(0) = W - losses: 8 - 10 = 1 - 3.
        assert!(watch
            .check(&accounts(8.0, 1.0, [1.5, 0.5, 0.0, 1.0]))
            .is_ok());
        let tolerance = watch.tolerance(&accounts(8.0, 1.0, [1.5, 0.5, 0.0, 1.0]));
        assert!(tolerance > 1e-6 && tolerance < 1e-5, "{tolerance}");
        let small_dip = [1.5 - 0.1 * tolerance, 0.5, 0.0, 1.0];
        assert!(watch
            .check(&accounts(8.0 + 0.1 * tolerance, 1.0, small_dip))
            .is_ok());
        // Friction making 0.1 J: the ledger closes, the account falls.
        let fell = watch.check(&accounts(8.1, 1.0, [1.4, 0.5, 0.0, 1.0]));
        assert!(matches!(
            fell,
            Err((
                LedgerBreach::LossFell {
                    account: LossAccount::Friction,
                    from: 1.5,
                    ..
                },
                _
            ))
        ));
        let mut watch = LedgerWatch::new(10.0, 1e-9, 1e-12);
        let open = watch.check(&accounts(10.01, 0.0, [0.0; 4]));
        assert!(matches!(open, Err((LedgerBreach::Residual { .. }, _))));
        let nan = watch.check(&accounts(f64::NAN, 0.0, [0.0; 4]));
        assert!(nan.is_err());
    }
}

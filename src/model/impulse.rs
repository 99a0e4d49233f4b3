//! The tensing impulse (note section 3-1, docs/model.md "Loose phase and tensing").
//!
//! When a slack string snaps taut with L' > 0, impulsive tensions J_i act along the segments
//! over an instant. A plastic impact (e = 0, the note's) ends when L' = 0. With restitution
//! e > 0 the impact goes on until the normal part of the impulse has returned e^2 of the work it
//! absorbed while compressing (the energetic coefficient): that is L'+ = -e L'- (seed 003,
//! eq. 6) whenever no axle changes friction mode during the impact, always without friction.
//! Newton's kinematic rule L'+ = -e L'- applied through a mode change can create energy; the
//! energetic rule cannot. Positions do not move during the impact, so velocities and spins
//! change linearly with the impulses; the process is followed in the decrease of L' (a
//! Darboux-Keller parameter), in pieces within which every axle keeps its friction mode:
//! - a slipping axle k carries J_k = J_{k-1} exp(c'_k theta'_k), c' with the sign of its
//!   symmetric slip speed w'_k = sigma_k w_k - (sum_{j<k} l_j' - sum_{j>=k} l_j') / 2;
//! - a piece ends when a slip speed reaches zero; there the Filippov rule decides: the axle
//!   slips on in whichever direction is consistent, or grips the string (w'_k held at zero, its
//!   impulse ratio solved) when both directions would drive the slip back to zero.
//!   The decision uses the steep limit of each law (c' = +-c; the bearing's 0 on its free
//!   side); under the tanh law a slipping axle carries c tanh(|w'|/width) taken at the start of
//!   each piece, pieces being at most 1/64 of L'-. Within a piece the friction always opposes
//!   the slip, so the impact never creates energy.
//!
//! With no slip reaching zero this is the note's closed form in one piece:
//! J_0 = (1 + e) L'- / (1/M_0 + d_N / M_{N+1} + (2/m) S). Following the slip is what keeps the
//! friction dissipative through the whole impact: with the friction direction frozen at its
//! pre-impact value, an impact that reverses a slip can add energy.
//! A path-driven stick is infinitely heavy (1/M = 0): the hand absorbs the impulse.

use nalgebra::{DMatrix, DVector, Vector2};

use super::energy::kinetic_energy;
use super::friction::{contact, AxleMode, SlipDirection};
use super::params::{FrictionLaw, Params};
use super::state::{CartesianState, StateError};

/// The most axles at zero slip whose friction modes are searched together (3^8 = 6561
/// combinations); beyond, they all grip.
pub const MAX_COUPLED_AXLES: usize = 8;

/// What a tensing impulse did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TensingImpulse {
    /// J_0: impulse carried by segment 0 (integral of T_0 over the impact), N s.
    pub magnitude: f64,
    /// J_N: impulse carried by the last segment, N s.
    pub last_magnitude: f64,
    /// L' just before, m/s.
    pub length_rate_before: f64,
    /// L' just after (= -e L'-), m/s.
    pub length_rate_after: f64,
    /// Number of pieces the impact took (compression and restitution, split where a slip
    /// reached zero).
    pub pieces: usize,
    /// How many times an axle changed its friction mode during the impact.
    pub mode_changes: usize,
    /// Work the hands did on path-driven (infinitely heavy) sticks during the impact, J.
    pub hand_work: f64,
    /// Energy dissipated: kinetic energy lost plus the hands' work, J (>= 0).
    pub energy_lost: f64,
}

/// Applies the tensing impulse to `state` (a string at full length, L' > 0) and reports it.
/// `heavy[s]` marks a path-driven stick (s = 0 left, 1 right). With L' <= 0 nothing happens.
pub fn tensing_impulse(
    params: &Params,
    state: &mut CartesianState,
    heavy: [bool; 2],
) -> Result<TensingImpulse, StateError> {
    tensing_impulse_with_restitution(params, params.restitution, state, heavy)
}

/// [`tensing_impulse`] with the restitution `e` in [0, 1] given instead of the parameters' (a
/// bounce sequence settles with e = 0).
pub fn tensing_impulse_with_restitution(
    params: &Params,
    e: f64,
    state: &mut CartesianState,
    heavy: [bool; 2],
) -> Result<TensingImpulse, StateError> {
    let mut impact = Impact::new(params, state, heavy)?;
    let length_rate_before = impact.length_rate(state);
    if length_rate_before <= 0.0 {
        return Ok(TensingImpulse {
            length_rate_before,
            length_rate_after: length_rate_before,
            ..TensingImpulse::default()
        });
    }
    let kinetic_before = kinetic_energy(params, state);
    let mut length_rate = length_rate_before;
    // Work absorbed by the normal (length) part of the impulse while L' > 0, and returned
    // while L' < 0: the impact ends when e^2 of the absorbed work has been returned.
    let (mut absorbed, mut returned) = (0.0, 0.0);
    let mut impulses = vec![0.0; impact.n + 1];
    let mut pieces = 0;
    let mut mode_changes = 0;
    let mut hand_work = 0.0;
    let initial = impact.slip_speeds(state);
    for (k, &slip) in initial.iter().enumerate() {
        impact.modes[k] = AxleMode::from_slip(slip);
        impact.pinned[k] = slip == 0.0;
    }
    let smooth = matches!(params.friction_law, FrictionLaw::Tanh { .. });
    // Each piece ends a phase or brings one more slip to zero; the bound guards against a cycle
    // of mode changes that round-off could cause.
    while pieces < 64 + 16 * (impact.n + 1) {
        let slips = impact.slip_speeds(state);
        let phase_limit = |rates: &[f64]| {
            if length_rate > 0.0 {
                return Some(length_rate);
            }
            // Returned work over a piece lambda: normal_rate (|L'| lambda + lambda^2 / 2).
            let normal_rate = 0.5 * (rates[0] + rates[rates.len() - 1]);
            let remaining = e * e * absorbed - returned;
            (remaining > 0.0 && normal_rate > 0.0).then(|| {
                -length_rate.abs()
                    + (length_rate * length_rate + 2.0 * remaining / normal_rate).sqrt()
            })
        };
        mode_changes += impact.decide_modes(&slips);
        let rates = impact.impulse_rates(&impact.modes, &slips);
        let mut piece = phase_limit(&rates);
        let mut reaching_zero = None;
        if smooth {
            // c' = c tanh(w'/width) follows the slip: keep pieces short so it is refreshed.
            piece = piece.map(|p| p.min(length_rate_before / 64.0));
        }
        let response = impact.response(&rates);
        let axles = impact.modes.iter().zip(slips.iter().zip(&response.slips));
        for (k, (mode, (&slip, &trend))) in axles.enumerate() {
            if let (AxleMode::Slipping(direction), Some(p)) = (mode, piece) {
                let sign = direction_sign(*direction);
                // Distance to zero along the slip's own direction, and its approach rate.
                let (s, ds) = (sign * slip, sign * trend);
                if ds < 0.0 && s.max(0.0) / -ds < p {
                    piece = Some(s.max(0.0) / -ds);
                    reaching_zero = Some(k);
                }
            }
        }
        pieces += 1;
        let piece = match (piece, reaching_zero) {
            (None, _) => break,
            // An axle at zero whose decided direction a neighbour's decision has since made
            // inconsistent: decide it again.
            (Some(p), Some(k)) if p <= 0.0 => {
                impact.pinned[k] = true;
                continue;
            }
            (Some(p), _) if p > 0.0 => p,
            _ => break,
        };
        // dq/d(lambda), q = (J_0 + J_N) / 2: the normal impulse per unit decrease of L'.
        let normal_rate = 0.5 * (rates[0] + rates[impact.n]);
        // The hand holding a path-driven stick cancels the string's pull on it.
        for (s, k, j) in [(0, 0, 0), (1, impact.n + 1, impact.n)] {
            if heavy[s] {
                hand_work -= piece * rates[j] * impact.pull(k).dot(&state.velocity(k));
            }
        }
        impact.apply(state, &rates, piece);
        for (total, rate) in impulses.iter_mut().zip(&rates) {
            *total += piece * rate;
        }
        let work = normal_rate * piece * (length_rate - 0.5 * piece);
        if length_rate > 0.0 {
            absorbed += work;
        } else {
            returned -= work;
        }
        length_rate = if reaching_zero.is_none() && length_rate > 0.0 && piece == length_rate {
            0.0
        } else {
            length_rate - piece
        };
        if let Some(k) = reaching_zero {
            impact.pinned[k] = true;
        }
    }
    let kinetic_after = kinetic_energy(params, state);
    Ok(TensingImpulse {
        magnitude: impulses[0],
        last_magnitude: impulses[impact.n],
        length_rate_before,
        length_rate_after: impact.length_rate(state),
        pieces,
        mode_changes,
        hand_work,
        energy_lost: kinetic_before + hand_work - kinetic_after,
    })
}

/// +1 for a positive slip direction, -1 for a negative one.
fn direction_sign(direction: SlipDirection) -> f64 {
    match direction {
        SlipDirection::Positive => 1.0,
        SlipDirection::Negative => -1.0,
    }
}

/// Velocity and slip changes per unit impulse.
struct Response {
    /// d(L')/d(lambda).
    length_rate: f64,
    /// d(w'_k)/d(lambda) for each axle.
    slips: Vec<f64>,
}

/// The fixed geometry of an impact and the axles' current modes.
struct Impact<'a> {
    params: &'a Params,
    n: usize,
    /// e_j, unit vectors of the segments.
    directions: Vec<Vector2<f64>>,
    /// 1/M, 1/m, ...: inverse masses of objects 0..=N+1 (0 for a path-driven stick).
    inverse_mass: Vec<f64>,
    /// sigma_k and theta'_k of each axle.
    contacts: Vec<(f64, f64)>,
    modes: Vec<AxleMode>,
    /// Axles whose slip just reached zero: their mode is decided afresh (Filippov).
    pinned: Vec<bool>,
}

impl<'a> Impact<'a> {
    fn new(
        params: &'a Params,
        state: &CartesianState,
        heavy: [bool; 2],
    ) -> Result<Self, StateError> {
        let n = state.diabolo_count();
        if n == 0 {
            return Err(StateError::NoDiabolo);
        }
        let mut kin = super::geometry::Kinematics::new(n);
        kin.load_cartesian(state)?;
        let directions = (0..=n)
            .map(|j| (state.position(j + 1) - state.position(j)) / kin.segments()[j].length)
            .collect();
        let stick = |h: bool| if h { 0.0 } else { 1.0 / params.stick_mass };
        let mut inverse_mass = vec![1.0 / params.diabolo_mass; n + 2];
        inverse_mass[0] = stick(heavy[0]);
        inverse_mass[n + 1] = stick(heavy[1]);
        let contacts = (1..=n).map(|i| contact(kin.objects()[i].theta)).collect();
        Ok(Self {
            params,
            n,
            directions,
            inverse_mass,
            contacts,
            modes: vec![AxleMode::Slipping(SlipDirection::Positive); n],
            pinned: vec![false; n],
        })
    }

    /// The pull of the string on stick k per unit impulse of its segment: +e_0 on the left
    /// stick, -e_N on the right.
    fn pull(&self, k: usize) -> Vector2<f64> {
        if k == 0 {
            self.directions[0]
        } else {
            -self.directions[self.n]
        }
    }

    fn length_rates(&self, state: &CartesianState) -> Vec<f64> {
        (0..=self.n)
            .map(|j| self.directions[j].dot(&(state.velocity(j + 1) - state.velocity(j))))
            .collect()
    }

    fn length_rate(&self, state: &CartesianState) -> f64 {
        self.length_rates(state).iter().sum()
    }

    /// Symmetric slip speeds w'_k = sigma_k w_k - (sum_{j<k} l_j' - sum_{j>=k} l_j') / 2.
    fn slip_speeds(&self, state: &CartesianState) -> Vec<f64> {
        let spins: Vec<f64> = state.diabolos.iter().map(|d| d.spin).collect();
        self.symmetric_slips(&self.length_rates(state), &spins)
    }

    fn symmetric_slips(&self, length_rates: &[f64], spins: &[f64]) -> Vec<f64> {
        let total: f64 = length_rates.iter().sum();
        let mut feed = 0.0;
        (0..self.n)
            .map(|k| {
                feed += length_rates[k];
                self.contacts[k].0 * spins[k] - (feed - 0.5 * total)
            })
            .collect()
    }

    /// Changes of every segment length rate and spin for segment impulses `impulses`.
    fn changes(&self, impulses: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let n = self.n;
        let mut dv = vec![Vector2::zeros(); n + 2];
        for (j, &imp) in impulses.iter().enumerate() {
            dv[j] += self.inverse_mass[j] * imp * self.directions[j];
            dv[j + 1] -= self.inverse_mass[j + 1] * imp * self.directions[j];
        }
        let length_rates = (0..=n)
            .map(|j| self.directions[j].dot(&(dv[j + 1] - dv[j])))
            .collect();
        let spin_mass = self.params.diabolo_mass * self.params.spin_inertia;
        let spins = (1..=n)
            .map(|k| self.contacts[k - 1].0 * (impulses[k - 1] - impulses[k]) / spin_mass)
            .collect();
        (length_rates, spins)
    }

    fn response(&self, impulses: &[f64]) -> Response {
        let (length_rates, spins) = self.changes(impulses);
        Response {
            length_rate: length_rates.iter().sum(),
            slips: self.symmetric_slips(&length_rates, &spins),
        }
    }

    /// Segment impulses per unit decrease of L' for axle `modes` at slip speeds `slips`: one
    /// equation for the length rate, one per axle (capstan ratio while slipping, no change of
    /// the slip while stuck).
    fn impulse_rates(&self, modes: &[AxleMode], slips: &[f64]) -> Vec<f64> {
        let size = self.n + 1;
        let unit: Vec<Response> = (0..size)
            .map(|j| {
                let mut e = vec![0.0; size];
                e[j] = 1.0;
                self.response(&e)
            })
            .collect();
        let mut a = DMatrix::zeros(size, size);
        let mut b = DVector::zeros(size);
        for j in 0..size {
            a[(0, j)] = unit[j].length_rate;
        }
        b[0] = -1.0;
        for k in 1..=self.n {
            match modes[k - 1] {
                AxleMode::Stuck => {
                    for j in 0..size {
                        a[(k, j)] = unit[j].slips[k - 1];
                    }
                }
                AxleMode::Slipping(direction) => {
                    let c_eff = self.capstan_coefficient(direction, slips[k - 1]);
                    a[(k, k)] = 1.0;
                    a[(k, k - 1)] = -(c_eff * self.contacts[k - 1].1).exp();
                }
            }
        }
        a.lu()
            .solve(&b)
            .map(|x| x.as_slice().to_vec())
            .unwrap_or_else(|| vec![0.0; size])
    }

    /// c' of an axle slipping in `direction` at slip speed `slip`: the law's coefficient with the
    /// sign of the direction (the tanh law's magnitude c tanh(|w'|/width); an infinite `slip`
    /// gives the steep limit c, used to decide grip at zero slip for every law).
    fn capstan_coefficient(&self, direction: SlipDirection, slip: f64) -> f64 {
        let c = self.params.friction;
        let magnitude = match self.params.friction_law {
            FrictionLaw::Tanh { width } => c * (slip.abs() / width).tanh(),
            FrictionLaw::Step => c,
            FrictionLaw::Bearing => match direction {
                SlipDirection::Positive => 0.0,
                SlipDirection::Negative => c,
            },
        };
        direction_sign(direction) * magnitude
    }

    /// Modes for the next piece: a slipping axle keeps its direction; an axle whose slip is at
    /// zero (just reached, or held by grip) is decided by the Filippov rule. Returns how many
    /// axles changed mode.
    ///
    /// The decisions at several axles are coupled. Deciding them one at a time until they agree
    /// settles most cases, but it can cycle (three axles at zero at once can take turns
    /// overturning each other's decision, which left an impact stretching at the piece cap):
    /// then every combination of the axles' modes is tried and the first consistent one taken
    /// (each slipping axle's slip moving its own way, each gripping axle's slip driven back to
    /// zero from either side with the others held); with none, all of them grip, which does no
    /// friction work and so never creates energy.
    fn decide_modes(&mut self, slips: &[f64]) -> usize {
        let before = self.modes.clone();
        let at_zero: Vec<usize> = (0..self.n)
            .filter(|&k| self.pinned[k] || self.modes[k] == AxleMode::Stuck)
            .collect();
        let mut settled = at_zero.is_empty();
        for _ in 0..=at_zero.len() {
            let mut changed = false;
            for &k in &at_zero {
                let decided = self.filippov(k, slips);
                if decided != self.modes[k] {
                    self.modes[k] = decided;
                    changed = true;
                }
            }
            if !changed {
                settled = true;
                break;
            }
        }
        if !settled {
            self.consistent_modes(&at_zero, slips);
        }
        for &k in &at_zero {
            self.pinned[k] = false;
        }
        self.modes
            .iter()
            .zip(&before)
            .filter(|(a, b)| a != b)
            .count()
    }

    /// The slip acceleration of axle k (per unit decrease of L') if it slipped in `direction`,
    /// the other axles in their current modes (the law's steep limit at k).
    fn trend(&self, k: usize, direction: SlipDirection, slips: &[f64]) -> f64 {
        let mut modes = self.modes.clone();
        modes[k] = AxleMode::Slipping(direction);
        let mut steep = slips.to_vec();
        steep[k] = f64::INFINITY;
        self.response(&self.impulse_rates(&modes, &steep)).slips[k]
    }

    /// The Filippov rule at axle k with the others in their current modes.
    fn filippov(&self, k: usize, slips: &[f64]) -> AxleMode {
        if self.trend(k, SlipDirection::Positive, slips) > 0.0 {
            AxleMode::Slipping(SlipDirection::Positive)
        } else if self.trend(k, SlipDirection::Negative, slips) < 0.0 {
            AxleMode::Slipping(SlipDirection::Negative)
        } else {
            AxleMode::Stuck
        }
    }

    /// The first combination of modes of the axles `at_zero` (slipping positive, negative,
    /// gripping, in that order of preference per axle) that is consistent at every one of them;
    /// all gripping if none is (or if more than [`MAX_COUPLED_AXLES`] are coupled).
    fn consistent_modes(&mut self, at_zero: &[usize], slips: &[f64]) {
        const CHOICES: [AxleMode; 3] = [
            AxleMode::Slipping(SlipDirection::Positive),
            AxleMode::Slipping(SlipDirection::Negative),
            AxleMode::Stuck,
        ];
        let m = at_zero.len();
        if m <= MAX_COUPLED_AXLES {
            for combination in 0..3usize.pow(m as u32) {
                let mut code = combination;
                for &k in at_zero {
                    self.modes[k] = CHOICES[code % 3];
                    code /= 3;
                }
                if at_zero
                    .iter()
                    .all(|&k| self.filippov(k, slips) == self.modes[k])
                {
                    return;
                }
            }
        }
        for &k in at_zero {
            self.modes[k] = AxleMode::Stuck;
        }
    }

    /// Applies `rates * piece` of impulse to velocities and spins.
    fn apply(&self, state: &mut CartesianState, rates: &[f64], piece: f64) {
        let n = self.n;
        let spin_mass = self.params.diabolo_mass * self.params.spin_inertia;
        for (j, &rate) in rates.iter().enumerate() {
            let imp = piece * rate;
            *state.velocity_mut(j) += self.inverse_mass[j] * imp * self.directions[j];
            *state.velocity_mut(j + 1) -= self.inverse_mass[j + 1] * imp * self.directions[j];
        }
        for k in 1..=n {
            let (side, _) = self.contacts[k - 1];
            state.diabolos[k - 1].spin += side * piece * (rates[k - 1] - rates[k]) / spin_mass;
        }
    }
}

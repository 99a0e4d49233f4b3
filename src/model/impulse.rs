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
//!   side) at every axle at zero, and so does the piece that follows it; elsewhere under the
//!   tanh law a slipping axle carries c tanh(|w'|/width) taken at the start of each piece,
//!   pieces being at most 1/64 of L'-. Within a piece the friction always opposes the slip, so
//!   the impact never creates energy;
//! - several axles at zero at once decide together: their modes must be consistent at every
//!   one of them (each the Filippov rule's with the others in theirs), every segment pulling
//!   and every grip within its capstan bounds (see `Impact::decide_modes`).
//!
//! An impact that cannot be completed (no consistent modes, or its budget of pieces spent) is
//! an [`ImpulseError`], never a partial impulse.
//!
//! With no slip reaching zero this is the note's closed form in one piece:
//! J_0 = (1 + e) L'- / (1/M_0 + d_N / M_{N+1} + (2/m) S). Following the slip is what keeps the
//! friction dissipative through the whole impact: with the friction direction frozen at its
//! pre-impact value, an impact that reverses a slip can add energy.
//! A path-driven stick is infinitely heavy (1/M = 0): the hand absorbs the impulse.

use nalgebra::{DMatrix, DVector, Vector3};
use thiserror::Error;

use super::energy::kinetic_energy;
use super::friction::{contact, AxleMode, SlipDirection};
use super::params::{FrictionLaw, Params};
use super::state::{CartesianState, StateError};

/// The most axles at zero slip whose friction modes are searched together (3^8 = 6561
/// combinations); an impact that needs more fails with [`ImpulseError::TooManyCoupledAxles`].
pub const MAX_COUPLED_AXLES: usize = 8;

/// Pieces per L'- under the tanh law: a piece is at most L'-/64 long, so that c' = c
/// tanh(|w'|/width) is refreshed along the slip.
const SMOOTH_PIECES: f64 = 64.0;

/// The most slip events (a slip reaching zero, or an axle at zero decided afresh) one impact on
/// `n` diabolos may take: 64 + 16 (N + 1). The events of an impact are few (at most 7 in
/// 200,000 random impacts, 17 in 20,000 with up to 16 diabolos all at zero slip at the start);
/// more means the mode decisions cycle, and the impact fails instead of returning with the
/// string still stretching.
fn max_slip_events(n: usize) -> usize {
    64 + 16 * (n + 1)
}

/// The most pieces one impact on `n` diabolos may take: its slip events, the ends of the two
/// phases, and the tanh law's short pieces ([`SMOOTH_PIECES`] per L'- of compression or
/// rebound; the rebound is allowed up to 15 L'-, where 200,000 random impacts reach 4 L'-).
fn max_pieces(n: usize) -> usize {
    max_slip_events(n) + 2 + 16 * SMOOTH_PIECES as usize
}

/// A tensing impulse that cannot be completed: the impact is not applied in part silently.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum ImpulseError {
    /// The state is not a string of diabolos (no diabolo, two objects at one point, ...).
    #[error(transparent)]
    State(#[from] StateError),
    /// Deciding in turns found no consistent friction modes for the axles at zero slip, and
    /// there are too many of them to search every combination.
    #[error(
        "{axles} axles at zero slip found no consistent friction modes by deciding in turns, \
         and more than {MAX_COUPLED_AXLES} are not searched together"
    )]
    TooManyCoupledAxles {
        /// Axles at zero slip at that instant of the impact.
        axles: usize,
    },
    /// No combination of friction modes of the axles at zero slip is consistent.
    #[error(
        "no friction modes of the {axles} axles at zero slip are consistent together (the \
         Filippov rule at each, every segment pulling, every grip within its capstan bounds)"
    )]
    NoConsistentModes {
        /// Axles at zero slip at that instant of the impact.
        axles: usize,
    },
    /// The segment impulses have no unique solution with the axles' friction modes.
    #[error("the segment impulses have no unique solution with the axles' friction modes")]
    Singular,
    /// The impact did not end within its budget of pieces, or ended with the string still
    /// stretching.
    #[error(
        "the impact did not complete: after {pieces} pieces ({slip_events} slip events) \
         L' = {length_rate:.3e} m/s (before: {length_rate_before:.3e} m/s)"
    )]
    Incomplete {
        /// Pieces taken.
        pieces: usize,
        /// Slips that reached zero, and axles decided afresh at zero, during the impact.
        slip_events: usize,
        /// L' when the impact stopped, m/s.
        length_rate: f64,
        /// L' just before the impact, m/s.
        length_rate_before: f64,
    },
}

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

/// The objects a tensing impulse acts on, in the plane (z = 0) or in space: object j's
/// velocity (0 the left stick, N + 1 the right, the diabolos in slot order between) and the
/// spin of the diabolo in slot k (1..N).
pub trait StringObjects {
    /// v_j, m/s.
    fn velocity(&self, j: usize) -> Vector3<f64>;
    /// v_j += dv.
    fn push(&mut self, j: usize, dv: &Vector3<f64>);
    /// w_k, m/s.
    fn spin(&self, k: usize) -> f64;
    /// w_k += dw.
    fn turn(&mut self, k: usize, dw: f64);
}

impl StringObjects for CartesianState {
    fn velocity(&self, j: usize) -> Vector3<f64> {
        let v = self.velocity(j);
        Vector3::new(v.x, v.y, 0.0)
    }
    fn push(&mut self, j: usize, dv: &Vector3<f64>) {
        *self.velocity_mut(j) += dv.xy();
    }
    fn spin(&self, k: usize) -> f64 {
        self.diabolos[k - 1].spin
    }
    fn turn(&mut self, k: usize, dw: f64) {
        self.diabolos[k - 1].spin += dw;
    }
}

/// Applies the tensing impulse to `state` (a string at full length, L' > 0) and reports it.
/// `heavy[s]` marks a path-driven stick (s = 0 left, 1 right). With L' <= 0 nothing happens.
pub fn tensing_impulse(
    params: &Params,
    state: &mut CartesianState,
    heavy: [bool; 2],
) -> Result<TensingImpulse, ImpulseError> {
    tensing_impulse_with_restitution(params, params.restitution, state, heavy)
}

/// [`tensing_impulse`] with the restitution `e` in [0, 1] given instead of the parameters' (a
/// bounce sequence settles with e = 0).
pub fn tensing_impulse_with_restitution(
    params: &Params,
    e: f64,
    state: &mut CartesianState,
    heavy: [bool; 2],
) -> Result<TensingImpulse, ImpulseError> {
    let impact = Impact::new(params, state, heavy)?;
    follow_impulse(impact, e, state, heavy, |s| kinetic_energy(params, s))
}

/// The tensing impulse with restitution `e` on the string of `geometry`: the segments' unit
/// directions e_0..e_N and each axle's (sigma_k, theta'_k); `heavy[s]` a path-driven stick; the
/// objects' kinetic energy by `energy`. The planar model's and the model in space's.
pub fn chain_tensing_impulse<S: StringObjects>(
    params: &Params,
    e: f64,
    state: &mut S,
    geometry: (Vec<Vector3<f64>>, Vec<(f64, f64)>),
    heavy: [bool; 2],
    energy: impl Fn(&S) -> f64,
) -> Result<TensingImpulse, ImpulseError> {
    let (directions, contacts) = geometry;
    let impact = Impact::from_geometry(params, directions, contacts, heavy);
    follow_impulse(impact, e, state, heavy, energy)
}

/// The impact followed piece by piece (the module's head).
fn follow_impulse<S: StringObjects>(
    mut impact: Impact,
    e: f64,
    state: &mut S,
    heavy: [bool; 2],
    energy: impl Fn(&S) -> f64,
) -> Result<TensingImpulse, ImpulseError> {
    let length_rate_before = impact.length_rate(state);
    if length_rate_before <= 0.0 {
        return Ok(TensingImpulse {
            length_rate_before,
            length_rate_after: length_rate_before,
            ..TensingImpulse::default()
        });
    }
    let kinetic_before = energy(state);
    let mut length_rate = length_rate_before;
    // Work absorbed by the normal (length) part of the impulse while L' > 0, and returned
    // while L' < 0: the impact ends when e^2 of the absorbed work has been returned.
    let (mut absorbed, mut returned) = (0.0, 0.0);
    let mut impulses = vec![0.0; impact.n + 1];
    let mut pieces = 0;
    let mut slip_events = 0;
    let mut mode_changes = 0;
    let mut hand_work = 0.0;
    let initial = impact.slip_speeds(state);
    for (k, &slip) in initial.iter().enumerate() {
        impact.modes[k] = AxleMode::from_slip(slip);
        impact.pinned[k] = slip == 0.0;
    }
    let smooth = matches!(impact.params.friction_law, FrictionLaw::Tanh { .. });
    let incomplete = |pieces, slip_events, state: &S, impact: &Impact| ImpulseError::Incomplete {
        pieces,
        slip_events,
        length_rate: impact.length_rate(state),
        length_rate_before,
    };
    // Each piece ends a phase, brings one more slip to zero, or (tanh law) refreshes c'. The
    // budgets catch mode decisions that cycle: the impact then fails rather than stopping with
    // the string still stretching.
    loop {
        if slip_events > max_slip_events(impact.n) || pieces >= max_pieces(impact.n) {
            return Err(incomplete(pieces, slip_events, state, &impact));
        }
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
        // The piece takes c' where the modes were decided: in the steep limit at the axles at
        // zero (the tanh law's c tanh(|w'|/width) elsewhere).
        let (changes, decided_at) = impact.decide_modes(&slips)?;
        mode_changes += changes;
        let rates = impact
            .impulse_rates(&impact.modes, &decided_at)
            .ok_or(ImpulseError::Singular)?;
        let mut piece = phase_limit(&rates);
        let mut reaching_zero = None;
        if smooth {
            // c' = c tanh(w'/width) follows the slip: keep pieces short so it is refreshed.
            piece = piece.map(|p| p.min(length_rate_before / SMOOTH_PIECES));
        }
        let response = impact.response(&rates);
        let axles = impact.modes.iter().zip(slips.iter().zip(&response.slips));
        for (k, (mode, (&slip, &trend))) in axles.enumerate() {
            if let (AxleMode::Slipping(direction), Some(p)) = (mode, piece) {
                let sign = direction.sign();
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
                slip_events += 1;
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
            slip_events += 1;
        }
    }
    let length_rate_after = impact.length_rate(state);
    // The compression phase ends at L' = 0 exactly, up to round-off.
    if length_rate_after > 1e-9 * length_rate_before {
        return Err(incomplete(pieces, slip_events, state, &impact));
    }
    let kinetic_after = energy(state);
    Ok(TensingImpulse {
        magnitude: impulses[0],
        last_magnitude: impulses[impact.n],
        length_rate_before,
        length_rate_after,
        pieces,
        mode_changes,
        hand_work,
        energy_lost: kinetic_before + hand_work - kinetic_after,
    })
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
    /// e_j, unit vectors of the segments (z = 0 in the plane).
    directions: Vec<Vector3<f64>>,
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
            .map(|j| {
                let e = (state.position(j + 1) - state.position(j)) / kin.segments()[j].length;
                Vector3::new(e.x, e.y, 0.0)
            })
            .collect();
        let contacts = (1..=n).map(|i| contact(kin.objects()[i].theta)).collect();
        Ok(Self::from_geometry(params, directions, contacts, heavy))
    }

    /// The impact on a string of segments `directions` over axles `contacts` (sigma_k,
    /// theta'_k), `heavy[s]` a path-driven stick.
    fn from_geometry(
        params: &'a Params,
        directions: Vec<Vector3<f64>>,
        contacts: Vec<(f64, f64)>,
        heavy: [bool; 2],
    ) -> Self {
        let n = contacts.len();
        let stick = |h: bool| if h { 0.0 } else { 1.0 / params.stick_mass };
        let mut inverse_mass = vec![1.0 / params.diabolo_mass; n + 2];
        inverse_mass[0] = stick(heavy[0]);
        inverse_mass[n + 1] = stick(heavy[1]);
        Self {
            params,
            n,
            directions,
            inverse_mass,
            contacts,
            modes: vec![AxleMode::Slipping(SlipDirection::Positive); n],
            pinned: vec![false; n],
        }
    }

    /// The pull of the string on stick k per unit impulse of its segment: +e_0 on the left
    /// stick, -e_N on the right.
    fn pull(&self, k: usize) -> Vector3<f64> {
        if k == 0 {
            self.directions[0]
        } else {
            -self.directions[self.n]
        }
    }

    fn length_rates(&self, state: &impl StringObjects) -> Vec<f64> {
        (0..=self.n)
            .map(|j| self.directions[j].dot(&(state.velocity(j + 1) - state.velocity(j))))
            .collect()
    }

    fn length_rate(&self, state: &impl StringObjects) -> f64 {
        self.length_rates(state).iter().sum()
    }

    /// Symmetric slip speeds w'_k = sigma_k w_k - (sum_{j<k} l_j' - sum_{j>=k} l_j') / 2.
    fn slip_speeds(&self, state: &impl StringObjects) -> Vec<f64> {
        let spins: Vec<f64> = (1..=self.n).map(|k| state.spin(k)).collect();
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
        let mut dv = vec![Vector3::zeros(); n + 2];
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
    /// the slip while stuck). None if they have no unique solution.
    fn impulse_rates(&self, modes: &[AxleMode], slips: &[f64]) -> Option<Vec<f64>> {
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
            .filter(|x| x.iter().all(|r| r.is_finite()))
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
        direction.sign() * magnitude
    }

    /// Modes for the next piece: a slipping axle keeps its direction; an axle whose slip is at
    /// zero (just reached, or held by grip) is decided by the Filippov rule, in the law's steep
    /// limit at every axle at zero. Returns how many axles changed mode, and the slip speeds at
    /// which the piece takes c' (the given ones, infinite at the axles at zero: the steep limit
    /// the decision was made in, so that the piece's grips are the ones checked).
    ///
    /// The decisions at several axles at zero are coupled: each one's slip acceleration depends
    /// on the others' modes, and the modes wanted are a combination consistent at every axle
    /// (each axle's mode the one the Filippov rule gives with the others in theirs), with every
    /// segment pulling and every grip within its capstan bounds. Deciding the axles one at a
    /// time in a fixed order until they agree finds one almost always, but it can cycle although
    /// a consistent combination exists (three axles at zero overturning each other's decisions
    /// with period 6 while exactly one of the 27 combinations is consistent: the impact used to
    /// re-decide that state until its piece cap and stop with the string still stretching). So
    /// when the sweeps do not settle, the decision goes on by least-index pivoting (Murty's
    /// rule: change only the first axle whose mode is inconsistent, then look again from the
    /// first), which has not cycled on any of these problems; failing that, every combination
    /// is tried ([`MAX_COUPLED_AXLES`] axles at most), and with none the impact fails.
    fn decide_modes(&mut self, slips: &[f64]) -> Result<(usize, Vec<f64>), ImpulseError> {
        let at_zero: Vec<usize> = (0..self.n)
            .filter(|&k| self.pinned[k] || self.modes[k] == AxleMode::Stuck)
            .collect();
        let mut steep = slips.to_vec();
        if at_zero.is_empty() {
            return Ok((0, steep));
        }
        let before = self.modes.clone();
        for &k in &at_zero {
            steep[k] = f64::INFINITY;
        }
        let mut settled = false;
        for _ in 0..=at_zero.len() {
            let mut changed = false;
            for &k in &at_zero {
                let decided = self.filippov(k, &steep);
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
        let consistent = (settled || self.pivot_modes(&at_zero, &steep)) && self.admissible(&steep);
        if !consistent {
            self.search_modes(&at_zero, &steep)?;
        }
        for &k in &at_zero {
            self.pinned[k] = false;
        }
        let changes = self
            .modes
            .iter()
            .zip(&before)
            .filter(|(a, b)| a != b)
            .count();
        Ok((changes, steep))
    }

    /// Least-index pivoting on the modes of the axles `at_zero`: the first axle whose mode is
    /// not the Filippov rule's takes it, and the look starts again from the first axle. True
    /// when every axle is consistent within 4 m^2 + 16 pivots (m axles at zero; 90,000 random
    /// impacts with every slip at zero at the start, up to 16 diabolos, needed at most 34).
    fn pivot_modes(&mut self, at_zero: &[usize], slips: &[f64]) -> bool {
        let m = at_zero.len();
        for _ in 0..4 * m * m + 16 {
            let first = at_zero
                .iter()
                .map(|&k| (k, self.filippov(k, slips)))
                .find(|&(k, decided)| decided != self.modes[k]);
            match first {
                None => return true,
                Some((k, decided)) => self.modes[k] = decided,
            }
        }
        false
    }

    /// The slip acceleration of axle k (per unit decrease of L') if it slipped in `direction`,
    /// the other axles in their current modes at slip speeds `slips` (the law's steep limit at
    /// k); NaN if the segment impulses have no unique solution.
    fn trend(&self, k: usize, direction: SlipDirection, slips: &[f64]) -> f64 {
        let mut modes = self.modes.clone();
        modes[k] = AxleMode::Slipping(direction);
        let mut steep = slips.to_vec();
        steep[k] = f64::INFINITY;
        self.impulse_rates(&modes, &steep)
            .map_or(f64::NAN, |rates| self.response(&rates).slips[k])
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

    /// Whether the current modes at slip speeds `slips` give segment impulses that a string
    /// with capstan friction can carry: every one pulling (>= 0), and the ratio J_k / J_{k-1}
    /// of every gripping axle within its capstan bounds (the law's steep limit).
    fn admissible(&self, slips: &[f64]) -> bool {
        let Some(rates) = self.impulse_rates(&self.modes, slips) else {
            return false;
        };
        let within = |k: usize| {
            let bound = |direction| {
                (self.capstan_coefficient(direction, f64::INFINITY) * self.contacts[k].1).exp()
            };
            let (lower, upper) = (
                bound(SlipDirection::Negative),
                bound(SlipDirection::Positive),
            );
            let (below, above) = (rates[k], rates[k + 1]);
            let slack = 1e-12 * below.max(above);
            above >= lower * below - slack && above <= upper * below + slack
        };
        rates.iter().all(|&r| r >= 0.0)
            && (0..self.n).all(|k| self.modes[k] != AxleMode::Stuck || within(k))
    }

    /// Sets the axles `at_zero` to the first combination of modes (slipping positive, negative,
    /// gripping, in that order of preference per axle, the first axle varying fastest) that is
    /// consistent at every one of them and admissible (every segment pulling, every grip within
    /// its capstan bounds).
    fn search_modes(&mut self, at_zero: &[usize], slips: &[f64]) -> Result<(), ImpulseError> {
        const CHOICES: [AxleMode; 3] = [
            AxleMode::Slipping(SlipDirection::Positive),
            AxleMode::Slipping(SlipDirection::Negative),
            AxleMode::Stuck,
        ];
        let axles = at_zero.len();
        if axles > MAX_COUPLED_AXLES {
            return Err(ImpulseError::TooManyCoupledAxles { axles });
        }
        for combination in 0..3usize.pow(axles as u32) {
            let mut code = combination;
            for &k in at_zero {
                self.modes[k] = CHOICES[code % 3];
                code /= 3;
            }
            let consistent = at_zero
                .iter()
                .all(|&k| self.filippov(k, slips) == self.modes[k]);
            if consistent && self.admissible(slips) {
                return Ok(());
            }
        }
        Err(ImpulseError::NoConsistentModes { axles })
    }

    /// Applies `rates * piece` of impulse to velocities and spins.
    fn apply(&self, state: &mut impl StringObjects, rates: &[f64], piece: f64) {
        let n = self.n;
        let spin_mass = self.params.diabolo_mass * self.params.spin_inertia;
        for (j, &rate) in rates.iter().enumerate() {
            let imp = piece * rate;
            state.push(j, &(self.inverse_mass[j] * imp * self.directions[j]));
            state.push(
                j + 1,
                &-(self.inverse_mass[j + 1] * imp * self.directions[j]),
            );
        }
        for k in 1..=n {
            let (side, _) = self.contacts[k - 1];
            state.turn(k, side * piece * (rates[k - 1] - rates[k]) / spin_mass);
        }
    }
}

//! An impact with several unilateral constraints at once (docs/flight.md, "Contact between
//! objects"): disc-disc and disc-stick-tip contacts, and the string when it is taut, solved
//! together as one linear complementarity problem (seed 004's LCP form).
//!
//! Positions do not move during an impact, so every gap rate is linear in the impulses:
//! g'+ = g'- + A P, with A_jk = J_j W^-1 D_k, J_j the gradient of gap j (its rate is J_j v), D_k
//! the direction impulse k acts along, W the mass matrix (a path-driven stick is infinitely
//! heavy, inverse mass 0; spins have inertia m J). A contact is frictionless: D = J, along the
//! line of centres, spins untouched. The string's gap is the slack L - sum l (rate -L'); its
//! impulse pulls object i of the string with P0 (d_i e_i - d_{i-1} e_{i-1}) and turns the spin of
//! the diabolo in slot i by sigma_i (d_{i-1} - d_i) P0 / (m J), the capstan ratios d from the
//! friction direction of each axle's symmetric slip speed before the impact (the first piece of
//! the tensing impulse, [`super::impulse`]), so A is not symmetric with friction.
//!
//! Newton's law per constraint: g_j'+ + e_j min(g_j'-, 0) >= 0, complementary to P_j >= 0
//! (e_j: the contact restitution of a colliding pair, 0 for a resting pair, the string's
//! restitution). The LCP is solved exactly by trying the active sets in order of size (the
//! first complementary solution is taken, so the result is deterministic). Energy is never
//! gained: when Newton's law gains some (several constraints with different coefficients
//! approaching at once), the plastic solution (all e_j = 0) scaled by (1 + e_min) is taken, e_min
//! the smallest coefficient of the approaching constraints; if even that gains energy (the frozen
//! friction direction of a slip the impact reverses), the string's impulse is taken without
//! friction (d = 1), which can only dissipate.

use nalgebra::{DMatrix, DVector, Vector2};
use thiserror::Error;

use super::energy::kinetic_energy;
use super::friction::{contact, effective_friction, AxleMode};
use super::params::Params;
use super::state::CartesianState;

/// The most constraints one impact may hold (the active sets tried grow as 2^m).
pub const MAX_CONSTRAINTS: usize = 12;

/// An object of an impact: a stick tip or diabolo K.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImpactBody {
    /// The left stick's tip.
    Left,
    /// The right stick's tip.
    Right,
    /// Diabolo K (1..N), `state.diabolos[K - 1]`.
    Diabolo(usize),
}

/// One constraint of an impact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Constraint {
    /// Two bodies touching (centres 2R apart, or R from a stick tip), with restitution e.
    Pair {
        /// One body.
        a: ImpactBody,
        /// The other.
        b: ImpactBody,
        /// e: 0 (plastic, or a resting pair) to 1.
        restitution: f64,
    },
    /// The string at full length, with restitution e.
    String {
        /// e: 0 (plastic) to 1.
        restitution: f64,
    },
}

/// Which rule gave the impulses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImpactRule {
    /// Newton's law per constraint.
    Newton,
    /// The plastic solution scaled by (1 + e_min): Newton's law would have gained energy.
    ScaledPlastic,
    /// As `ScaledPlastic`, with the string's impulse without friction (the frozen friction
    /// direction would have gained energy).
    Frictionless,
}

/// What an impact did.
#[derive(Clone, Debug, PartialEq)]
pub struct ImpactOutcome {
    /// P_j of each constraint, N s (in the order given).
    pub impulses: Vec<f64>,
    /// g_j' before, m/s (negative: approaching).
    pub rates_before: Vec<f64>,
    /// g_j' after, m/s.
    pub rates_after: Vec<f64>,
    /// Work the hands did on path-driven sticks during the impact, J.
    pub hand_work: f64,
    /// Energy dissipated: kinetic energy lost plus the hands' work, J (>= 0).
    pub energy_lost: f64,
    /// The rule that gave the impulses.
    pub rule: ImpactRule,
}

/// An impact that cannot be solved.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum ImpactError {
    /// More constraints than [`MAX_CONSTRAINTS`].
    #[error("{count} constraints act at once in one impact (at most {MAX_CONSTRAINTS})")]
    TooManyConstraints {
        /// Constraints given.
        count: usize,
    },
    /// Two bodies of a pair at the same point, or a string segment of zero length.
    #[error("the impact's geometry is degenerate: {what}")]
    Degenerate {
        /// What, in words.
        what: String,
    },
    /// No active set satisfies the complementarity conditions.
    #[error("the impact has no solution with non-negative impulses")]
    NoSolution,
}

/// The generalised velocity of an impact: the sticks, every diabolo (x-y), every spin.
struct Velocities {
    n: usize,
}

impl Velocities {
    fn len(&self) -> usize {
        2 * (self.n + 2) + self.n
    }
    fn body(&self, body: ImpactBody) -> usize {
        match body {
            ImpactBody::Left => 0,
            ImpactBody::Right => 2,
            ImpactBody::Diabolo(k) => 2 * (k + 1),
        }
    }
    fn spin(&self, k: usize) -> usize {
        2 * (self.n + 2) + k - 1
    }
    fn read(&self, state: &CartesianState) -> DVector<f64> {
        let mut v = DVector::zeros(self.len());
        let put = |v: &mut DVector<f64>, i: usize, u: Vector2<f64>| {
            v[i] = u.x;
            v[i + 1] = u.y;
        };
        put(&mut v, 0, state.left.vel);
        put(&mut v, 2, state.right.vel);
        for (k, d) in state.diabolos.iter().enumerate() {
            put(&mut v, self.body(ImpactBody::Diabolo(k + 1)), d.vel);
            v[self.spin(k + 1)] = d.spin;
        }
        v
    }
    fn write(&self, v: &DVector<f64>, state: &mut CartesianState) {
        let get = |i: usize| Vector2::new(v[i], v[i + 1]);
        state.left.vel = get(0);
        state.right.vel = get(2);
        for k in 1..=self.n {
            let d = &mut state.diabolos[k - 1];
            d.vel = get(self.body(ImpactBody::Diabolo(k)));
            d.spin = v[self.spin(k)];
        }
    }
}

/// Position of a body.
fn position(state: &CartesianState, body: ImpactBody) -> Vector2<f64> {
    match body {
        ImpactBody::Left => state.left.pos,
        ImpactBody::Right => state.right.pos,
        ImpactBody::Diabolo(k) => state.diabolos[k - 1].pos,
    }
}

/// The gradient J and the impulse direction D of each constraint, as rows over the
/// generalised velocity.
fn rows(
    params: &Params,
    state: &CartesianState,
    on_string: &[usize],
    constraints: &[Constraint],
    frictionless: bool,
) -> Result<(DMatrix<f64>, DMatrix<f64>), ImpactError> {
    let layout = Velocities {
        n: state.diabolo_count(),
    };
    let m = constraints.len();
    let mut gradient = DMatrix::zeros(m, layout.len());
    let mut direction = DMatrix::zeros(m, layout.len());
    for (j, constraint) in constraints.iter().enumerate() {
        match *constraint {
            Constraint::Pair { a, b, .. } => {
                let d = position(state, b) - position(state, a);
                let norm = d.norm();
                if norm.is_nan() || norm <= 0.0 {
                    return Err(ImpactError::Degenerate {
                        what: format!("{a:?} and {b:?} at one point"),
                    });
                }
                let n = d / norm;
                for (body, sign) in [(a, -1.0), (b, 1.0)] {
                    let i = layout.body(body);
                    for (r, value) in [(0, n.x), (1, n.y)] {
                        gradient[(j, i + r)] += sign * value;
                        direction[(j, i + r)] += sign * value;
                    }
                }
            }
            Constraint::String { .. } => {
                let (g, d) = string_rows(params, state, on_string, frictionless, &layout)?;
                gradient.set_row(j, &g.transpose());
                direction.set_row(j, &d.transpose());
            }
        }
    }
    Ok((gradient, direction))
}

/// The string's gradient (of the slack, rate -L') and impulse direction per unit P0.
fn string_rows(
    params: &Params,
    state: &CartesianState,
    on_string: &[usize],
    frictionless: bool,
    layout: &Velocities,
) -> Result<(DVector<f64>, DVector<f64>), ImpactError> {
    let n = on_string.len();
    let body = |o: usize| match o {
        0 => ImpactBody::Left,
        o if o == n + 1 => ImpactBody::Right,
        slot => ImpactBody::Diabolo(on_string[slot - 1]),
    };
    let mut e = Vec::with_capacity(n + 1);
    let mut rates = Vec::with_capacity(n + 1);
    let velocity = |b: ImpactBody| match b {
        ImpactBody::Left => state.left.vel,
        ImpactBody::Right => state.right.vel,
        ImpactBody::Diabolo(k) => state.diabolos[k - 1].vel,
    };
    for s in 0..=n {
        let d = position(state, body(s + 1)) - position(state, body(s));
        let norm = d.norm();
        if norm.is_nan() || norm <= 0.0 {
            return Err(ImpactError::Degenerate {
                what: format!("string segment {s} of zero length"),
            });
        }
        e.push(d / norm);
        rates.push(e[s].dot(&(velocity(body(s + 1)) - velocity(body(s)))));
    }
    // Capstan ratios from each axle's symmetric slip speed before the impact.
    let total: f64 = rates.iter().sum();
    let mut ratios = vec![1.0; n + 1];
    let mut sides = vec![0.0; n + 1];
    let mut feed = 0.0;
    for slot in 1..=n {
        let k = on_string[slot - 1];
        let cross = e[slot - 1].x * e[slot].y - e[slot - 1].y * e[slot].x;
        let turn = cross.atan2(e[slot - 1].dot(&e[slot]));
        let knot = state.diabolos[k - 1].knot;
        let theta = std::f64::consts::PI + turn + std::f64::consts::TAU * f64::from(knot);
        let (side, angle) = contact(theta);
        sides[slot] = side;
        feed += rates[slot - 1];
        let slip = side * state.diabolos[k - 1].spin - (feed - 0.5 * total);
        let c = if frictionless || slip == 0.0 {
            0.0
        } else {
            effective_friction(
                params.friction_law,
                params.friction,
                slip,
                AxleMode::from_slip(slip),
            )
        };
        ratios[slot] = ratios[slot - 1] * (c * angle).exp();
    }
    let mut gradient = DVector::zeros(layout.len());
    let mut direction = DVector::zeros(layout.len());
    for o in 0..=n + 1 {
        let ahead = if o <= n { e[o] } else { Vector2::zeros() };
        let behind = if o >= 1 { e[o - 1] } else { Vector2::zeros() };
        let d_ahead = if o <= n { ratios[o] } else { 0.0 };
        let d_behind = if o >= 1 { ratios[o - 1] } else { 0.0 };
        let g = ahead - behind;
        let p = ahead * d_ahead - behind * d_behind;
        let i = layout.body(body(o));
        for (r, (gv, pv)) in [(0, (g.x, p.x)), (1, (g.y, p.y))] {
            gradient[i + r] = gv;
            direction[i + r] = pv;
        }
        if (1..=n).contains(&o) {
            // The spin is turned by the tension step over the axle (its inertia is in W).
            // Generalised impulse on the spin per unit P0: the tension step over the axle, so
            // that W^-1 turns it into sigma (d_{i-1} - d_i) P0 / (m J).
            direction[layout.spin(on_string[o - 1])] = sides[o] * (d_behind - d_ahead);
        }
    }
    Ok((gradient, direction))
}

/// A system an impact acts on: its generalised velocity v, the constraints' rows over it, how
/// an impulse moves it (W^-1) and its kinetic energy. The planar objects are one; the objects in
/// space ([`super::space::impact`]) another: the rules below are shared.
pub(crate) trait ImpactSystem {
    /// v before the impact.
    fn velocities(&self) -> DVector<f64>;
    /// The gradient J and the impulse direction D of each constraint, as rows over v (the
    /// string's capstan ratios from the slips before the impact, or all 1 when `frictionless`).
    fn rows(
        &self,
        constraints: &[Constraint],
        frictionless: bool,
    ) -> Result<(DMatrix<f64>, DMatrix<f64>), ImpactError>;
    /// W^-1 D^T: the change of v per unit impulse of each constraint (one column each).
    fn mobility(&self, direction: &DMatrix<f64>) -> DMatrix<f64>;
    /// The kinetic energy at v, J.
    fn kinetic_energy(&self, v: &DVector<f64>) -> f64;
    /// The components of v that hands hold (a path-driven stick's velocity: W^-1 is 0 there).
    fn held(&self) -> Vec<usize>;
}

/// One set of an impact's rows with what follows from them.
struct Prepared {
    /// J: each constraint's gradient over v.
    gradient: DMatrix<f64>,
    /// D: each constraint's impulse direction over v.
    direction: DMatrix<f64>,
    /// W^-1 D^T.
    mobility: DMatrix<f64>,
    /// A = J W^-1 D^T: the change of each gap rate per unit impulse.
    a: DMatrix<f64>,
    /// The gap rates before the impact, m/s.
    before: DVector<f64>,
}

/// Solves one impact of `system` under `constraints` by the rules of the module's head: the
/// velocity after it, and what it did.
pub(crate) fn solve_impact(
    system: &impl ImpactSystem,
    constraints: &[Constraint],
) -> Result<(DVector<f64>, ImpactOutcome), ImpactError> {
    if constraints.len() > MAX_CONSTRAINTS {
        return Err(ImpactError::TooManyConstraints {
            count: constraints.len(),
        });
    }
    let v0 = system.velocities();
    let held = system.held();
    let restitution: Vec<f64> = constraints
        .iter()
        .map(|c| match *c {
            Constraint::Pair { restitution, .. } | Constraint::String { restitution } => {
                restitution
            }
        })
        .collect();
    let kinetic_before = system.kinetic_energy(&v0);
    // The rows, the mobility and the rates before, once with the string's friction and once
    // without: the rules below try them with different restitutions.
    let prepare = |frictionless: bool| -> Result<Prepared, ImpactError> {
        let (gradient, direction) = system.rows(constraints, frictionless)?;
        let mobility = system.mobility(&direction);
        let a = &gradient * &mobility;
        let before = &gradient * &v0;
        Ok(Prepared {
            gradient,
            direction,
            mobility,
            a,
            before,
        })
    };
    let frictionless = prepare(true)?;
    let with_friction = prepare(false);
    let attempt = |prepared: &Prepared, e: &[f64], scale: f64| -> Result<_, ImpactError> {
        let before = &prepared.before;
        let target = DVector::from_fn(constraints.len(), |j, _| -e[j] * before[j].min(0.0));
        let impulses =
            solve_lcp(&prepared.a, &(before - &target)).ok_or(ImpactError::NoSolution)? * scale;
        let v1 = &v0 + &prepared.mobility * &impulses;
        let after = &prepared.gradient * &v1;
        Ok((impulses, v1, after))
    };
    let hand_work = |direction: &DMatrix<f64>, impulses: &DVector<f64>| -> f64 {
        // The hand holds a path-driven stick on its path: its impulse is minus the
        // constraints' impulse on the stick, working against the stick's velocity.
        let mut work = 0.0;
        for &i in &held {
            let on_stick: f64 = (0..impulses.len())
                .map(|j| direction[(j, i)] * impulses[j])
                .sum();
            work -= on_stick * v0[i];
        }
        work
    };
    let tolerance = 1e-12 * (1.0 + kinetic_before.abs());
    // e_min: the smallest coefficient among the approaching constraints.
    let approach = &frictionless.before;
    let e_min = (0..constraints.len())
        .filter(|&j| approach[j] < 0.0)
        .map(|j| restitution[j])
        .fold(f64::INFINITY, f64::min);
    let e_min = if e_min.is_finite() { e_min } else { 0.0 };
    let plastic = vec![0.0; constraints.len()];
    for (rule, prepared, e, scale) in [
        (
            ImpactRule::Newton,
            with_friction.as_ref(),
            restitution.as_slice(),
            1.0,
        ),
        (
            ImpactRule::ScaledPlastic,
            with_friction.as_ref(),
            plastic.as_slice(),
            1.0 + e_min,
        ),
        (
            ImpactRule::Frictionless,
            Ok(&frictionless),
            plastic.as_slice(),
            1.0 + e_min,
        ),
    ] {
        let Ok(prepared) = prepared else {
            continue;
        };
        let Ok((impulses, v1, after)) = attempt(prepared, e, scale) else {
            continue;
        };
        let work = hand_work(&prepared.direction, &impulses);
        let lost = kinetic_before + work - system.kinetic_energy(&v1);
        if lost >= -tolerance {
            return Ok((
                v1,
                ImpactOutcome {
                    impulses: impulses.iter().copied().collect(),
                    rates_before: prepared.before.iter().copied().collect(),
                    rates_after: after.iter().copied().collect(),
                    hand_work: work,
                    energy_lost: lost.max(0.0),
                    rule,
                },
            ));
        }
    }
    Err(ImpactError::NoSolution)
}

/// The planar objects of an impact.
struct PlanarImpact<'a> {
    params: &'a Params,
    state: &'a CartesianState,
    on_string: &'a [usize],
    heavy: [bool; 2],
    layout: Velocities,
}

impl ImpactSystem for PlanarImpact<'_> {
    fn velocities(&self) -> DVector<f64> {
        self.layout.read(self.state)
    }
    fn rows(
        &self,
        constraints: &[Constraint],
        frictionless: bool,
    ) -> Result<(DMatrix<f64>, DMatrix<f64>), ImpactError> {
        rows(
            self.params,
            self.state,
            self.on_string,
            constraints,
            frictionless,
        )
    }
    fn mobility(&self, direction: &DMatrix<f64>) -> DMatrix<f64> {
        let params = self.params;
        let layout = &self.layout;
        let mut inverse_mass = DVector::from_element(layout.len(), 1.0 / params.diabolo_mass);
        for (s, i) in [0, 2].into_iter().enumerate() {
            let w = if self.heavy[s] {
                0.0
            } else {
                1.0 / params.stick_mass
            };
            inverse_mass[i] = w;
            inverse_mass[i + 1] = w;
        }
        for k in 1..=layout.n {
            inverse_mass[layout.spin(k)] = 1.0 / (params.diabolo_mass * params.spin_inertia);
        }
        direction.transpose().component_mul(&DMatrix::from_fn(
            layout.len(),
            direction.nrows(),
            |r, _| inverse_mass[r],
        ))
    }
    fn kinetic_energy(&self, v: &DVector<f64>) -> f64 {
        let mut trial = self.state.clone();
        self.layout.write(v, &mut trial);
        kinetic_energy(self.params, &trial)
    }
    fn held(&self) -> Vec<usize> {
        [0usize, 2]
            .into_iter()
            .enumerate()
            .filter(|&(s, _)| self.heavy[s])
            .flat_map(|(_, i)| [i, i + 1])
            .collect()
    }
}

/// Applies one impact to `state` (every diabolo of the run, index order; `on_string` the
/// diabolos K on the string in slot order; `heavy[s]` a path-driven stick) and reports it.
pub fn apply_impact(
    params: &Params,
    state: &mut CartesianState,
    on_string: &[usize],
    heavy: [bool; 2],
    constraints: &[Constraint],
) -> Result<ImpactOutcome, ImpactError> {
    let layout = Velocities {
        n: state.diabolo_count(),
    };
    let system = PlanarImpact {
        params,
        state,
        on_string,
        heavy,
        layout,
    };
    let (v1, outcome) = solve_impact(&system, constraints)?;
    let layout = system.layout;
    layout.write(&v1, state);
    Ok(outcome)
}

/// The LCP w = q + A z, w >= 0, z >= 0, w . z = 0, by its active sets in order of size (the
/// empty set first): the first complementary solution, or `None`.
pub(crate) fn solve_lcp(a: &DMatrix<f64>, q: &DVector<f64>) -> Option<DVector<f64>> {
    let m = q.len();
    let scale = 1e-12 * (1.0 + q.amax());
    let mut sets: Vec<u32> = (0..1u32 << m).collect();
    sets.sort_by_key(|s| (s.count_ones(), *s));
    for set in sets {
        let active: Vec<usize> = (0..m).filter(|j| set & (1 << j) != 0).collect();
        let mut z = DVector::zeros(m);
        if !active.is_empty() {
            let sub =
                DMatrix::from_fn(active.len(), active.len(), |r, c| a[(active[r], active[c])]);
            let rhs = DVector::from_fn(active.len(), |r, _| -q[active[r]]);
            let Some(solution) = sub.lu().solve(&rhs) else {
                continue;
            };
            if solution.iter().any(|&p| p.is_nan() || p < -scale) {
                continue;
            }
            for (r, &j) in active.iter().enumerate() {
                z[j] = solution[r].max(0.0);
            }
        }
        let w = q + a * &z;
        if (0..m).all(|j| active.contains(&j) || w[j] >= -scale) {
            return Some(z);
        }
    }
    None
}

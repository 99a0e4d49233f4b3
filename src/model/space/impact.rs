//! An impact in space (docs/space.md, "Contacts in space"): diabolo-diabolo and diabolo-stick-tip
//! contacts on the hulls, and the taut string, solved together as one linear complementarity
//! problem by the planar model's rules ([`crate::model::contact`]: Newton's law per constraint,
//! the scaled plastic solution where that would gain energy, the frictionless string where even
//! that would).
//!
//! The generalised velocity holds each stick's velocity, and per diabolo its centre's velocity
//! v, its spin w and its transverse angular velocity omega = a x a' (rad/s). A contact is
//! frictionless: its impulse P n acts along the hull normal n at the contact point p of each
//! body, pushing the centre (P n / m) and turning the axle by the lever arm:
//! omega += (I - a a^T) ((p - c) x P n) / I_t. On a hull (a body of revolution) (p - c) x n is
//! across the axle, so a contact never changes the spin. Where two hulls touch along a segment
//! or a patch (parallel sides, parallel faces), p is its middle, so that a symmetric contact
//! turns neither axle (the planar limit). The string's impulse is the planar one in vector form
//! (its capstan ratios from each axle's symmetric slip before the impact, as the tensing
//! impulse, [`super::impulse`]); it acts at the centres, as the tensing impulse does.
//!
//! The rigid axle takes omega after the impact as its a' = omega x a. The fast top carries no
//! transverse rotation: its axle jumps to the direction of its angular momentum
//! I_p Omega a + I_t omega (the contact's angular impulse across the axle, turning the spin's
//! angular momentum), and the transverse energy 1/2 I_t |omega|^2 the impact put there (the
//! nutation the limit averages out) is booked as lost.

use nalgebra::{DMatrix, DVector, Vector3};

use super::energy::space_energy;
use super::hull::{any_perpendicular, hull_gap, Gap, Hull};
use super::params::{AxleModel, SpaceParams};
use super::spin_rate_about_axle;
use super::state::SpaceState;
use super::string::SpaceString;
use super::tension::{SpaceSlipReference, SpaceTension};
use crate::model::contact::{
    solve_impact, Constraint, ImpactBody, ImpactError, ImpactOutcome, ImpactSystem,
};

/// Numbers per stick in the generalised velocity.
const STICK: usize = 3;
/// Numbers per diabolo: velocity (3), spin (1), transverse angular velocity (3).
const DIABOLO: usize = 7;

/// A hull faces a direction with a face or a side when the direction is within this angle
/// (rad) of its axle or of square to it: the separation's normal is found to about 1e-8 rad
/// (its maximum is flat), the features' own normals then refine it.
const FACING: f64 = 1e-6;

/// The contact's torque on a hull may point along its axle by at most this fraction (the
/// contact point found to about 1e-10 m); beyond it the impact is refused, not applied wrong.
const AXIAL: f64 = 1e-8;

/// Newton steps of a contact point on a rim.
const NEWTON: usize = 30;

/// Two axles closer to parallel than this (|a x b|) touch along a segment or a patch.
const PARALLEL: f64 = 1e-9;

/// The objects of an impact in space.
struct SpaceImpact<'a> {
    params: &'a SpaceParams,
    /// Every diabolo of the run, index order.
    state: &'a SpaceState,
    /// The diabolos K on the string, slot order.
    on_string: &'a [usize],
    prescribed: [bool; 2],
}

/// Where diabolo K's velocity sits in the generalised velocity (its spin at + 3, its
/// transverse angular velocity at + 4).
fn diabolo_at(k: usize) -> usize {
    2 * STICK + DIABOLO * (k - 1)
}

/// Where a body's velocity sits.
fn body_at(body: ImpactBody) -> usize {
    match body {
        ImpactBody::Left => 0,
        ImpactBody::Right => STICK,
        ImpactBody::Diabolo(k) => diabolo_at(k),
    }
}

fn put(v: &mut DVector<f64>, at: usize, u: &Vector3<f64>) {
    for r in 0..3 {
        v[at + r] = u[r];
    }
}

fn get(v: &DVector<f64>, at: usize) -> Vector3<f64> {
    Vector3::new(v[at], v[at + 1], v[at + 2])
}

/// A body as a contact measures it: a stick tip (a point) or a diabolo's hull.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Solid {
    /// A stick tip at this point.
    Tip(Vector3<f64>),
    /// A diabolo's hull.
    Hull(Hull),
}

/// The signed gap between two solids, the normal from `a` toward `b`, and where it is measured:
/// between two hulls their contact point (one for both, [`hull_contact`]), from a hull to a tip
/// the hull's nearest point and the tip.
pub fn solid_gap(a: &Solid, b: &Solid) -> Gap {
    match (a, b) {
        (Solid::Hull(ha), Solid::Hull(hb)) => hull_contact(ha, hb),
        (Solid::Hull(hull), Solid::Tip(p)) => hull.point_gap(p),
        (Solid::Tip(p), Solid::Hull(hull)) => hull.point_gap(p).reversed(),
        (Solid::Tip(p), Solid::Tip(q)) => {
            let span = q - p;
            Gap {
                gap: span.norm(),
                normal: span / span.norm().max(f64::MIN_POSITIVE),
                on_first: *p,
                on_second: *q,
            }
        }
    }
}

/// The signed gap between two bodies of `state` ([`solid_gap`]).
pub fn body_gap(params: &SpaceParams, state: &SpaceState, a: ImpactBody, b: ImpactBody) -> Gap {
    let solid = |body: ImpactBody| match body {
        ImpactBody::Left => Solid::Tip(state.left.pos),
        ImpactBody::Right => Solid::Tip(state.right.pos),
        ImpactBody::Diabolo(k) => Solid::Hull(params.hull(&state.diabolos[k - 1])),
    };
    solid_gap(&solid(a), &solid(b))
}

/// The signed gap between two hulls ([`hull_gap`]) with their contact: the point where they
/// touch (one for both, `on_first` = `on_second`) and the common normal there, each kind of
/// contact solved on its features (see [`contact`]).
pub fn hull_contact(a: &Hull, b: &Hull) -> Gap {
    let gap = hull_gap(a, b);
    let (point, normal) = contact(a, b, &gap.normal);
    Gap {
        gap: gap.gap,
        normal,
        on_first: point,
        on_second: point,
    }
}

/// The part of a hull facing the unit direction m: a cup's face (m along the axle), its side
/// (m across it), or a rim (the rim on m's side).
#[derive(Clone, Copy)]
enum Feature {
    Face,
    Side,
    Rim,
}

fn feature(hull: &Hull, m: &Vector3<f64>) -> Feature {
    if hull.axle.cross(m).norm() < FACING {
        Feature::Face
    } else if hull.axle.dot(m).abs() < FACING {
        Feature::Side
    } else {
        Feature::Rim
    }
}

/// A rim of a hull: the circle of radius R at h along the axle's `side` (+-1) from the centre,
/// as a point and its first two derivatives in its angle.
struct Rim {
    centre: Vector3<f64>,
    e1: Vector3<f64>,
    e2: Vector3<f64>,
    radius: f64,
}

impl Rim {
    fn of(hull: &Hull, side: f64) -> Self {
        let e1 = any_perpendicular(&hull.axle);
        Self {
            centre: hull.centre + hull.axle * (hull.half_length * side),
            e1,
            e2: hull.axle.cross(&e1),
            radius: hull.radius,
        }
    }
    /// The point at angle phi and its first and second derivatives.
    fn at(&self, phi: f64) -> [Vector3<f64>; 3] {
        let (s, c) = phi.sin_cos();
        let r = self.radius;
        [
            self.centre + (self.e1 * c + self.e2 * s) * r,
            (self.e2 * c - self.e1 * s) * r,
            -(self.e1 * c + self.e2 * s) * r,
        ]
    }
    /// The angle of the rim point nearest the direction `toward` (across the axle).
    fn angle_toward(&self, toward: &Vector3<f64>) -> f64 {
        toward.dot(&self.e2).atan2(toward.dot(&self.e1))
    }
}

/// Where two touching hulls touch and their common normal there (from `a` toward `b`), from
/// the features the separation's normal `n` meets (found to about 1e-8 rad only: the
/// separation's maximum is flat), each solved exactly: two rims at their nearest points (Newton
/// on both angles), a rim against a side at its point nearest the other's axle (Newton on its
/// angle), a rim, a side or a face against a face along the face's axle, two sides across their
/// axles' nearest points (the middle of their overlap when parallel), two faces at the middle
/// of their centres.
fn contact(a: &Hull, b: &Hull, n: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    let orient = |m: Vector3<f64>| {
        let m = m.normalize();
        if m.dot(n) < 0.0 {
            -m
        } else {
            m
        }
    };
    let rim = |h: &Hull, m: &Vector3<f64>| Rim::of(h, h.axle.dot(m).signum());
    match (feature(a, n), feature(b, &-n)) {
        (Feature::Face, Feature::Face) => {
            let m = orient(a.axle);
            let across = |p: Vector3<f64>| p - m * m.dot(&p);
            let middle = 0.5 * (across(a.centre) + across(b.centre));
            (middle + m * m.dot(&a.support(&m)), m)
        }
        (Feature::Face, other) => {
            let m = orient(a.axle);
            (against_face(b, other, a, &m), m)
        }
        (other, Feature::Face) => {
            let m = orient(b.axle);
            (against_face(a, other, b, &-m), m)
        }
        (Feature::Side, Feature::Side) => sides(a, b, n),
        (Feature::Rim, Feature::Side) => rim_against_side(&rim(a, n), b, n),
        (Feature::Side, Feature::Rim) => {
            let (p, m) = rim_against_side(&rim(b, &-n), a, &-n);
            (p, -m)
        }
        (Feature::Rim, Feature::Rim) => rims(&rim(a, n), &rim(b, &-n), n),
    }
}

/// The contact point of hull `h` (its `feature` facing the face) against the face of `face`,
/// whose outward normal is `m` (pointing into h).
fn against_face(h: &Hull, feature: Feature, face: &Hull, m: &Vector3<f64>) -> Vector3<f64> {
    let toward = -m;
    match feature {
        // Its side lies on the face: the middle of the chord the face's disc cuts from it.
        Feature::Side => {
            let q = h.support(&toward);
            let f = face.centre + face.axle * (face.half_length * face.axle.dot(m).signum());
            let across = |x: Vector3<f64>| x - m * m.dot(&x);
            let (w, d) = (across(q - f), across(h.axle));
            let (aa, bb, cc) = (
                d.norm_squared(),
                w.dot(&d),
                w.norm_squared() - face.radius * face.radius,
            );
            let disc = bb * bb - aa * cc;
            if aa <= 0.0 || disc < 0.0 {
                return q;
            }
            let root = disc.sqrt();
            let low = ((-bb - root) / aa).max(-h.half_length);
            let high = ((-bb + root) / aa).min(h.half_length);
            if low > high {
                return q;
            }
            q + h.axle * (0.5 * (low + high))
        }
        // A rim point: the farthest toward the face.
        _ => h.support(&toward),
    }
}

/// Two sides touching: across the nearest points of their axles (segments of half-length h),
/// or the middle of their overlap when parallel.
fn sides(a: &Hull, b: &Hull, n: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    let (u, v) = (a.axle, b.axle);
    let w = a.centre - b.centre;
    let uv = u.dot(&v);
    let denominator = 1.0 - uv * uv;
    let (s, t) = if denominator < PARALLEL {
        let offset = u.dot(&(b.centre - a.centre));
        let low = (offset - b.half_length).max(-a.half_length);
        let high = (offset + b.half_length).min(a.half_length);
        let s = 0.5 * (low + high);
        (s, v.dot(&(a.centre + u * s - b.centre)))
    } else {
        let (d, e) = (u.dot(&w), v.dot(&w));
        let s = ((uv * e - d) / denominator).clamp(-a.half_length, a.half_length);
        let t = (e + uv * s).clamp(-b.half_length, b.half_length);
        let s = (uv * t - d).clamp(-a.half_length, a.half_length);
        (s, t)
    };
    let (on_a, on_b) = (a.centre + u * s, b.centre + v * t);
    let span = on_b - on_a;
    let m = if span.norm() > 0.0 {
        span.normalize()
    } else {
        *n
    };
    let m = if m.dot(n) < 0.0 { -m } else { m };
    (
        on_a + m * (0.5 * (span.norm() - a.radius - b.radius) + a.radius),
        m,
    )
}

/// A rim against another hull's side: the rim's point nearest the side's axle (Newton on its
/// angle, from the point facing `n`); the normal is the side's, from the axle out through it.
fn rim_against_side(rim: &Rim, side: &Hull, n: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    let off_axle = |x: Vector3<f64>| {
        let r = x - side.centre;
        r - side.axle * side.axle.dot(&r)
    };
    let mut phi = rim.angle_toward(n);
    for _ in 0..NEWTON {
        let [p, dp, ddp] = rim.at(phi);
        let r = off_axle(p);
        let (dr, ddr) = (off_axle(dp + side.centre), off_axle(ddp + side.centre));
        // d/dphi (|r|^2 / 2) = r . r', and its derivative r' . r' + r . r''.
        let slope = r.dot(&dr);
        let curve = dr.norm_squared() + r.dot(&ddr);
        if curve <= 0.0 {
            break;
        }
        let step = slope / curve;
        phi -= step;
        if step.abs() < 1e-15 {
            break;
        }
    }
    let p = rim.at(phi)[0];
    let r = off_axle(p);
    let m = if r.dot(n) > 0.0 { -r } else { r };
    // The side's normal points out of it; seen from the rim's body it points in: oriented by n.
    let m = m.normalize();
    (p, if m.dot(n) < 0.0 { -m } else { m })
}

/// Two rims touching: their nearest points (Newton on both angles, from the points facing n);
/// the normal across both rims' tangents there.
fn rims(a: &Rim, b: &Rim, n: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    let (mut phi, mut psi) = (a.angle_toward(n), b.angle_toward(&-n));
    for _ in 0..NEWTON {
        let [p, dp, ddp] = a.at(phi);
        let [q, dq, ddq] = b.at(psi);
        let d = p - q;
        let g = [d.dot(&dp), -d.dot(&dq)];
        let h11 = dp.norm_squared() + d.dot(&ddp);
        let h22 = dq.norm_squared() - d.dot(&ddq);
        let h12 = -dp.dot(&dq);
        let det = h11 * h22 - h12 * h12;
        if !(det > 0.0 && h11 > 0.0) {
            break;
        }
        let (step_phi, step_psi) = (
            (h22 * g[0] - h12 * g[1]) / det,
            (h11 * g[1] - h12 * g[0]) / det,
        );
        phi -= step_phi;
        psi -= step_psi;
        if step_phi.abs().max(step_psi.abs()) < 1e-15 {
            break;
        }
    }
    let ([p, dp, _], [q, dq, _]) = (a.at(phi), b.at(psi));
    let across = dp.cross(&dq);
    let m = if across.norm() > 0.0 {
        across.normalize()
    } else {
        *n
    };
    (0.5 * (p + q), if m.dot(n) < 0.0 { -m } else { m })
}

impl SpaceImpact<'_> {
    fn diabolo_count(&self) -> usize {
        self.state.diabolos.len()
    }

    fn len(&self) -> usize {
        2 * STICK + DIABOLO * self.diabolo_count()
    }

    /// The string's gradient (of its slack, rate -L') and impulse direction per unit P0.
    fn string_rows(&self, frictionless: bool) -> Result<(DVector<f64>, DVector<f64>), ImpactError> {
        let n = self.on_string.len();
        let mut on = self.state.clone();
        on.diabolos = self
            .on_string
            .iter()
            .map(|&k| self.state.diabolos[k - 1])
            .collect();
        let mut string = SpaceString::new(n);
        string.update(&on).map_err(|e| ImpactError::Degenerate {
            what: e.to_string(),
        })?;
        let mut tension = SpaceTension::new(n);
        tension.update_contacts(
            self.params,
            &on,
            &string,
            None,
            SpaceSlipReference::Symmetric,
        );
        let ratios: Vec<f64> = (0..=n)
            .map(|s| {
                if frictionless || s == 0 {
                    1.0
                } else {
                    tension.ratios()[s]
                }
            })
            .collect();
        let e: Vec<Vector3<f64>> = string.segments().iter().map(|s| s.direction).collect();
        let body = |o: usize| match o {
            0 => ImpactBody::Left,
            o if o == n + 1 => ImpactBody::Right,
            slot => ImpactBody::Diabolo(self.on_string[slot - 1]),
        };
        let mut gradient = DVector::zeros(self.len());
        let mut direction = DVector::zeros(self.len());
        for o in 0..=n + 1 {
            let (ahead, d_ahead) = if o <= n {
                (e[o], ratios[o])
            } else {
                (Vector3::zeros(), 0.0)
            };
            let (behind, d_behind) = if o >= 1 {
                (e[o - 1], ratios[o - 1])
            } else {
                (Vector3::zeros(), 0.0)
            };
            let at = body_at(body(o));
            put(&mut gradient, at, &(ahead - behind));
            put(&mut direction, at, &(ahead * d_ahead - behind * d_behind));
            if (1..=n).contains(&o) {
                // The tension step over the axle turns the spin (its inertia m J is in W).
                direction[at + 3] = d_behind - d_ahead;
            }
        }
        Ok((gradient, direction))
    }
}

impl ImpactSystem for SpaceImpact<'_> {
    fn velocities(&self) -> DVector<f64> {
        let mut v = DVector::zeros(self.len());
        put(&mut v, 0, &self.state.left.vel);
        put(&mut v, STICK, &self.state.right.vel);
        for (i, d) in self.state.diabolos.iter().enumerate() {
            let at = diabolo_at(i + 1);
            put(&mut v, at, &d.vel);
            v[at + 3] = d.spin;
            // The fast top carries no transverse rotation (its a' follows the torque).
            if self.params.model == AxleModel::Rigid {
                put(&mut v, at + 4, &d.axle.cross(&d.axle_rate));
            }
        }
        v
    }

    fn rows(
        &self,
        constraints: &[Constraint],
        frictionless: bool,
    ) -> Result<(DMatrix<f64>, DMatrix<f64>), ImpactError> {
        let m = constraints.len();
        let mut gradient = DMatrix::zeros(m, self.len());
        let mut direction = DMatrix::zeros(m, self.len());
        for (j, constraint) in constraints.iter().enumerate() {
            match *constraint {
                Constraint::Pair { a, b, .. } => {
                    let gap = body_gap(self.params, self.state, a, b);
                    if !gap.normal.iter().all(|x| x.is_finite()) || gap.normal == Vector3::zeros() {
                        return Err(ImpactError::Degenerate {
                            what: format!("{a:?} and {b:?} at one point"),
                        });
                    }
                    let mut row = DVector::zeros(self.len());
                    for (body, sign, point) in [(a, -1.0, gap.on_first), (b, 1.0, gap.on_second)] {
                        let at = body_at(body);
                        put(&mut row, at, &(gap.normal * sign));
                        if let ImpactBody::Diabolo(k) = body {
                            let d = &self.state.diabolos[k - 1];
                            let torque = (point - d.pos).cross(&gap.normal);
                            // On a body of revolution the contact's torque is across the axle;
                            // a part along it (a contact point off the hull) would be lost.
                            let lever = (point - d.pos).norm();
                            if torque.dot(&d.axle).abs() > AXIAL * lever {
                                return Err(ImpactError::Degenerate {
                                    what: format!(
                                        "the contact point of {a:?} and {b:?} was not found on both hulls"
                                    ),
                                });
                            }
                            put(&mut row, at + 4, &(torque * sign));
                        }
                    }
                    gradient.set_row(j, &row.transpose());
                    direction.set_row(j, &row.transpose());
                }
                Constraint::String { .. } => {
                    let (g, d) = self.string_rows(frictionless)?;
                    gradient.set_row(j, &g.transpose());
                    direction.set_row(j, &d.transpose());
                }
            }
        }
        Ok((gradient, direction))
    }

    fn mobility(&self, direction: &DMatrix<f64>) -> DMatrix<f64> {
        let p = self.params.planar.values();
        let mut inverse = DMatrix::zeros(self.len(), self.len());
        for (side, at) in [(0, 0), (1, STICK)] {
            if !self.prescribed[side] {
                for r in 0..3 {
                    inverse[(at + r, at + r)] = 1.0 / p.stick_mass;
                }
            }
        }
        for (i, d) in self.state.diabolos.iter().enumerate() {
            let at = diabolo_at(i + 1);
            for r in 0..3 {
                inverse[(at + r, at + r)] = 1.0 / p.diabolo_mass;
            }
            inverse[(at + 3, at + 3)] = 1.0 / (p.diabolo_mass * p.spin_inertia);
            // Across the axle only: (I - a a^T) / I_t.
            let across = (nalgebra::Matrix3::identity() - d.axle * d.axle.transpose())
                / self.params.transverse_inertia;
            inverse
                .view_mut((at + 4, at + 4), (3, 3))
                .copy_from(&across);
        }
        inverse * direction.transpose()
    }

    fn kinetic_energy(&self, v: &DVector<f64>) -> f64 {
        let p = self.params.planar.values();
        let sticks = 0.5 * p.stick_mass * (get(v, 0).norm_squared() + get(v, STICK).norm_squared());
        let diabolos: f64 = (1..=self.diabolo_count())
            .map(|k| {
                let at = diabolo_at(k);
                0.5 * p.diabolo_mass
                    * (get(v, at).norm_squared() + p.spin_inertia * v[at + 3] * v[at + 3])
                    + 0.5 * self.params.transverse_inertia * get(v, at + 4).norm_squared()
            })
            .sum();
        sticks + diabolos
    }

    fn held(&self) -> Vec<usize> {
        [(0usize, 0usize), (1, STICK)]
            .into_iter()
            .filter(|&(side, _)| self.prescribed[side])
            .flat_map(|(_, at)| at..at + 3)
            .collect()
    }
}

/// Applies one impact to `state` (every diabolo of the run, index order; `on_string` the
/// diabolos K on the string in slot order; `prescribed` the path-driven sticks, left and
/// right) and reports it. Its `energy_lost` is the drop of [`space_energy`] plus the hands'
/// work: for the fast top it includes the transverse energy the limit does not carry.
pub fn apply_space_impact(
    params: &SpaceParams,
    state: &mut SpaceState,
    on_string: &[usize],
    prescribed: [bool; 2],
    constraints: &[Constraint],
) -> Result<ImpactOutcome, ImpactError> {
    let energy_before = space_energy(params, state);
    let system = SpaceImpact {
        params,
        state,
        on_string,
        prescribed,
    };
    let (v1, mut outcome) = solve_impact(&system, constraints)?;
    for (side, at) in [(0, 0), (1, STICK)] {
        if !prescribed[side] {
            let stick = if side == 0 {
                &mut state.left
            } else {
                &mut state.right
            };
            stick.vel = get(&v1, at);
        }
    }
    for (i, d) in state.diabolos.iter_mut().enumerate() {
        let at = diabolo_at(i + 1);
        d.vel = get(&v1, at);
        d.spin = v1[at + 3];
        let omega = get(&v1, at + 4);
        match params.model {
            AxleModel::Rigid => d.axle_rate = omega.cross(&d.axle),
            AxleModel::FastTop => {
                let spin = params.polar_inertia * spin_rate_about_axle(d.spin, params.axle_radius);
                let momentum = d.axle * spin + omega * params.transverse_inertia;
                if omega != Vector3::zeros() && spin != 0.0 {
                    let turned = momentum.normalize() * spin.signum();
                    d.axle = turned;
                }
            }
        }
    }
    outcome.energy_lost =
        (energy_before - space_energy(params, state) + outcome.hand_work).max(0.0);
    Ok(outcome)
}

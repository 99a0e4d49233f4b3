//! An independent reference for throws, catches and contact (frictionless string, c = 0):
//! Newton in Cartesian coordinates for every object (the taut string's tension from
//! d^2/dt^2 sum l = 0 over the diabolos on it, [`super::cartesian_solve_with`]), flying diabolos
//! in free fall, classical RK4 with a small fixed step, every event found by bisection on
//! re-integrated steps of its own guard: the string slackening (T_0 < 0) or reaching full length,
//! a diabolo on the string passing the straight line through its neighbours (leave), a flying
//! one crossing a segment's chord downward between its ends (land), two bodies reaching their
//! contact distance (an impact solved here as a small linear complementarity problem by
//! enumeration, the string one of its constraints when taut). It shares nothing with the
//! product's rotating-frame solution, roster, guards, dense output or impact solver.

use diabolo::model::{Body, CartesianState, DiaboloState, Params, StickInput};
use diabolo::simulation::drive::Drive;
use nalgebra::{DMatrix, DVector, Vector2};

use super::cartesian_solve_with;

/// Every object of the run and who is on the string.
#[derive(Clone, Debug)]
pub struct World {
    pub left: Body,
    pub right: Body,
    /// Every diabolo, index order.
    pub diabolos: Vec<DiaboloState>,
    /// The diabolos on the string (0-based indices) in slot order.
    pub on: Vec<usize>,
    /// Whether the string is taut.
    pub taut: bool,
}

impl World {
    fn string(&self) -> CartesianState {
        CartesianState {
            left: self.left,
            right: self.right,
            diabolos: self.on.iter().map(|&k| self.diabolos[k]).collect(),
        }
    }

    fn flying(&self) -> Vec<usize> {
        (0..self.diabolos.len())
            .filter(|k| !self.on.contains(k))
            .collect()
    }
}

/// A reference run's record: (t, every diabolo and the sticks) at the output times, and the
/// events (t, kind).
pub struct FlightRun {
    pub samples: Vec<(f64, CartesianState)>,
    pub events: Vec<(f64, &'static str)>,
}

struct Reference<'a> {
    params: &'a Params,
    drives: &'a [Drive; 2],
}

/// Accelerations of the sticks and of every diabolo, spin rates.
struct Rates {
    acc: [Vector2<f64>; 2],
    diabolos: Vec<Vector2<f64>>,
    spins: Vec<f64>,
}

impl Reference<'_> {
    fn rates(&self, t: f64, w: &World) -> Rates {
        let g = Vector2::new(0.0, -self.params.gravity);
        let inputs = [
            self.drives[0].input(t, &w.left),
            self.drives[1].input(t, &w.right),
        ];
        let mut diabolos = vec![g; w.diabolos.len()];
        let mut spins: Vec<f64> = w
            .diabolos
            .iter()
            .map(|d| -self.params.spin_drag * d.spin)
            .collect();
        let stick = |input: StickInput| match input {
            StickInput::Force(f) => g + f / self.params.stick_mass,
            StickInput::Accel(a) => a,
        };
        let mut acc = [stick(inputs[0]), stick(inputs[1])];
        if w.taut {
            let string = w.string();
            let n = w.on.len();
            let signs = vec![1.0; n];
            let sol = cartesian_solve_with(self.params, &string, &signs, &inputs, None);
            acc = [sol.accelerations[0], sol.accelerations[n + 1]];
            for (slot, &k) in w.on.iter().enumerate() {
                diabolos[k] = sol.accelerations[slot + 1];
                spins[k] = sol.spin_rates[slot];
            }
        }
        Rates {
            acc,
            diabolos,
            spins,
        }
    }

    /// T_0 of the taut string at (t, w).
    fn tension(&self, t: f64, w: &World) -> f64 {
        let inputs = [
            self.drives[0].input(t, &w.left),
            self.drives[1].input(t, &w.right),
        ];
        let signs = vec![1.0; w.on.len()];
        cartesian_solve_with(self.params, &w.string(), &signs, &inputs, None).base_tension
    }

    fn advance(w: &World, h: f64, r: &Rates, v: &World) -> World {
        let mut out = w.clone();
        out.left.pos += h * v.left.vel;
        out.left.vel += h * r.acc[0];
        out.right.pos += h * v.right.vel;
        out.right.vel += h * r.acc[1];
        for (k, d) in out.diabolos.iter_mut().enumerate() {
            d.pos += h * v.diabolos[k].vel;
            d.vel += h * r.diabolos[k];
            d.spin += h * r.spins[k];
        }
        out
    }

    fn rk4(&self, t: f64, w: &World, h: f64) -> World {
        let k1 = self.rates(t, w);
        let w2 = Self::advance(w, h / 2.0, &k1, w);
        let k2 = self.rates(t + h / 2.0, &w2);
        let w3 = Self::advance(w, h / 2.0, &k2, &w2);
        let k3 = self.rates(t + h / 2.0, &w3);
        let w4 = Self::advance(w, h, &k3, &w3);
        let k4 = self.rates(t + h, &w4);
        let mut out = w.clone();
        let mix = |a: Vector2<f64>, b: Vector2<f64>, c: Vector2<f64>, d: Vector2<f64>| {
            (a + 2.0 * b + 2.0 * c + d) / 6.0
        };
        out.left.pos += h * mix(w.left.vel, w2.left.vel, w3.left.vel, w4.left.vel);
        out.left.vel += h * mix(k1.acc[0], k2.acc[0], k3.acc[0], k4.acc[0]);
        out.right.pos += h * mix(w.right.vel, w2.right.vel, w3.right.vel, w4.right.vel);
        out.right.vel += h * mix(k1.acc[1], k2.acc[1], k3.acc[1], k4.acc[1]);
        for k in 0..w.diabolos.len() {
            let d = &mut out.diabolos[k];
            d.pos += h * mix(
                w.diabolos[k].vel,
                w2.diabolos[k].vel,
                w3.diabolos[k].vel,
                w4.diabolos[k].vel,
            );
            d.vel += h * mix(
                k1.diabolos[k],
                k2.diabolos[k],
                k3.diabolos[k],
                k4.diabolos[k],
            );
            d.spin += h * (k1.spins[k] + 2.0 * k2.spins[k] + 2.0 * k3.spins[k] + k4.spins[k]) / 6.0;
        }
        out
    }

    /// Every guard of the world's mode, each positive until its event: (value, kind, what).
    fn guards(&self, t: f64, w: &World) -> Vec<(f64, Event)> {
        let radius = self.params.diabolo_radius;
        let string = w.string();
        let n = w.on.len();
        let mut guards = Vec::new();
        if w.taut {
            guards.push((self.tension(t, w), Event::Loosen));
        } else {
            guards.push((
                self.params.string_length - string.string_used(),
                Event::Tense,
            ));
        }
        // Leave: the turn at a diabolo on the string, positive while it hangs in a V.
        for slot in 1..=n {
            let a = string.position(slot) - string.position(slot - 1);
            let b = string.position(slot + 1) - string.position(slot);
            guards.push((
                (a.x * b.y - a.y * b.x) / (a.norm() * b.norm()),
                Event::Leave(slot),
            ));
        }
        // Land: a flying diabolo's height above each chord (only between its ends).
        for k in w.flying() {
            for s in 0..=n {
                let (a, b) = (string.position(s), string.position(s + 1));
                let d = b - a;
                let normal = if d.x >= 0.0 {
                    Vector2::new(-d.y, d.x)
                } else {
                    Vector2::new(d.y, -d.x)
                } / d.norm();
                let p = w.diabolos[k].pos;
                let along = (p - a).dot(&d) / d.norm();
                let margin = |o: usize| {
                    if o == 0 || o == n + 1 {
                        radius
                    } else {
                        2.0 * radius
                    }
                };
                if along > margin(s) && along < d.norm() - margin(s + 1) {
                    guards.push((normal.dot(&(p - a)), Event::Land(k, s)));
                }
            }
        }
        // Contact: every pair of diabolos, every diabolo and each stick tip.
        let count = w.diabolos.len();
        for a in 0..count {
            for b in a + 1..count {
                let gap = (w.diabolos[b].pos - w.diabolos[a].pos).norm() - 2.0 * radius;
                guards.push((gap, Event::Contact(Obj::D(a), Obj::D(b))));
            }
            for (tip, obj) in [(w.left.pos, Obj::L), (w.right.pos, Obj::R)] {
                let gap = (w.diabolos[a].pos - tip).norm() - radius;
                guards.push((gap, Event::Contact(obj, Obj::D(a))));
            }
        }
        guards
    }

    /// The first guard positive in `before` that is non-positive in `after` (guards matched by
    /// what they watch: a chord's guard exists only while the diabolo is within its span).
    fn crossed(before: &[(f64, Event)], after: &[(f64, Event)]) -> Option<Event> {
        after.iter().find_map(|(a, e)| {
            let b = before.iter().find(|(_, e0)| e0 == e)?.0;
            (b > 0.0 && *a <= 0.0).then_some(*e)
        })
    }
}

/// A body of a contact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Obj {
    L,
    R,
    D(usize),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Event {
    Loosen,
    Tense,
    Leave(usize),
    Land(usize, usize),
    Contact(Obj, Obj),
}

/// The impact of the constraints `pairs` (and the string when `string`), frictionless, each
/// constraint with its restitution: Newton's law per constraint, the impulses from the active
/// set (enumerated) whose impulses are non-negative and whose other constraints separate.
fn impact(
    params: &Params,
    heavy: [bool; 2],
    w: &mut World,
    pairs: &[(Obj, Obj)],
    string: Option<f64>,
) {
    let count = w.diabolos.len();
    let dim = 2 * (count + 2);
    let index = |o: Obj| match o {
        Obj::L => 0,
        Obj::R => 2,
        Obj::D(k) => 4 + 2 * k,
    };
    let pos = |o: Obj| match o {
        Obj::L => w.left.pos,
        Obj::R => w.right.pos,
        Obj::D(k) => w.diabolos[k].pos,
    };
    let mut v = DVector::zeros(dim);
    for o in [Obj::L, Obj::R].into_iter().chain((0..count).map(Obj::D)) {
        let vel = match o {
            Obj::L => w.left.vel,
            Obj::R => w.right.vel,
            Obj::D(k) => w.diabolos[k].vel,
        };
        v[index(o)] = vel.x;
        v[index(o) + 1] = vel.y;
    }
    let mut inv = DVector::from_element(dim, 1.0 / params.diabolo_mass);
    for (s, i) in [0usize, 2].into_iter().enumerate() {
        let m = if heavy[s] {
            0.0
        } else {
            1.0 / params.stick_mass
        };
        inv[i] = m;
        inv[i + 1] = m;
    }
    let mut rows: Vec<(DVector<f64>, f64)> = Vec::new();
    for &(a, b) in pairs {
        let n = (pos(b) - pos(a)).normalize();
        let mut g = DVector::zeros(dim);
        g[index(a)] = -n.x;
        g[index(a) + 1] = -n.y;
        g[index(b)] += n.x;
        g[index(b) + 1] += n.y;
        rows.push((g, params.contact_restitution));
    }
    if let Some(e) = string {
        let mut objects = vec![Obj::L];
        objects.extend(w.on.iter().map(|&k| Obj::D(k)));
        objects.push(Obj::R);
        let mut g = DVector::zeros(dim);
        for s in 0..objects.len() - 1 {
            let dir = (pos(objects[s + 1]) - pos(objects[s])).normalize();
            // Slack's rate -L': + e_s on the near end, - e_s on the far end.
            g[index(objects[s])] += dir.x;
            g[index(objects[s]) + 1] += dir.y;
            g[index(objects[s + 1])] -= dir.x;
            g[index(objects[s + 1]) + 1] -= dir.y;
        }
        rows.push((g, e));
    }
    let m = rows.len();
    let a = DMatrix::from_fn(m, m, |i, j| {
        (0..dim)
            .map(|r| rows[i].0[r] * inv[r] * rows[j].0[r])
            .sum::<f64>()
    });
    let before: Vec<f64> = rows.iter().map(|(g, _)| g.dot(&v)).collect();
    let target: Vec<f64> = rows
        .iter()
        .zip(&before)
        .map(|((_, e), b)| -e * b.min(0.0))
        .collect();
    for set in 1..(1u32 << m) {
        let active: Vec<usize> = (0..m).filter(|j| set & (1 << j) != 0).collect();
        let sub = DMatrix::from_fn(active.len(), active.len(), |i, j| a[(active[i], active[j])]);
        let rhs = DVector::from_fn(active.len(), |i, _| target[active[i]] - before[active[i]]);
        let Some(p) = sub.lu().solve(&rhs) else {
            continue;
        };
        if p.iter().any(|&x| x < -1e-14) {
            continue;
        }
        let mut impulses = vec![0.0; m];
        for (i, &j) in active.iter().enumerate() {
            impulses[j] = p[i];
        }
        let after: Vec<f64> = (0..m)
            .map(|j| before[j] + (0..m).map(|k| a[(j, k)] * impulses[k]).sum::<f64>())
            .collect();
        if (0..m).all(|j| active.contains(&j) || after[j] >= target[j] - 1e-14) {
            for (j, (g, _)) in rows.iter().enumerate() {
                for r in 0..dim {
                    v[r] += inv[r] * g[r] * impulses[j];
                }
            }
            break;
        }
    }
    w.left.vel = Vector2::new(v[0], v[1]);
    w.right.vel = Vector2::new(v[2], v[3]);
    for k in 0..count {
        w.diabolos[k].vel = Vector2::new(v[4 + 2 * k], v[5 + 2 * k]);
    }
}

/// Runs the reference from `world` to `duration` with RK4 steps of `h`, recording every
/// object at multiples of `output_interval`.
pub fn flight_run(
    params: &Params,
    drives: &[Drive; 2],
    mut w: World,
    duration: f64,
    h: f64,
    output_interval: f64,
) -> FlightRun {
    assert_eq!(params.friction, 0.0, "the flight reference is frictionless");
    let r = Reference { params, drives };
    let heavy = [drives[0].prescribes_motion(), drives[1].prescribes_motion()];
    let record = |w: &World| CartesianState {
        left: w.left,
        right: w.right,
        diabolos: w.diabolos.clone(),
    };
    let (mut t, mut next) = (0.0, 1usize);
    let mut samples = vec![(0.0, record(&w))];
    let mut events = Vec::new();
    while t < duration - 1e-12 {
        let step = h.min(duration - t);
        let before = r.guards(t, &w);
        let mut candidate = r.rk4(t, &w, step);
        let mut hit = Reference::crossed(&before, &r.guards(t + step, &candidate));
        let mut taken = step;
        if hit.is_some() {
            let (mut lo, mut hi) = (0.0, step);
            while hi - lo > 1e-14 {
                let mid = 0.5 * (lo + hi);
                let trial = r.rk4(t, &w, mid);
                match Reference::crossed(&before, &r.guards(t + mid, &trial)) {
                    Some(e) => {
                        hi = mid;
                        hit = Some(e);
                    }
                    None => lo = mid,
                }
            }
            taken = hi;
            candidate = r.rk4(t, &w, hi);
        }
        while next as f64 * output_interval <= t + taken + 1e-12
            && next as f64 * output_interval <= duration + 1e-12
        {
            let to = next as f64 * output_interval;
            samples.push((to, record(&r.rk4(t, &w, to - t))));
            next += 1;
        }
        w = candidate;
        t += taken;
        match hit {
            None => {}
            Some(Event::Loosen) => {
                events.push((t, "loosen"));
                w.taut = false;
            }
            Some(Event::Tense) => {
                events.push((t, "tense"));
                impact(params, heavy, &mut w, &[], Some(params.restitution));
                let slack_rate = -super::length_rate(&w.string());
                w.taut = slack_rate <= 1e-12;
            }
            Some(Event::Leave(slot)) => {
                events.push((t, "leave"));
                w.on.remove(slot - 1);
            }
            Some(Event::Land(k, segment)) => {
                events.push((t, "land"));
                w.on.insert(segment, k);
            }
            Some(Event::Contact(a, b)) => {
                events.push((t, "contact"));
                let string = w.taut.then_some(params.restitution);
                impact(params, heavy, &mut w, &[(a, b)], string);
                if w.taut && super::length_rate(&w.string()) < -1e-12 {
                    w.taut = false;
                }
            }
        }
    }
    FlightRun { samples, events }
}

//! An independent reference simulator for whole-run cross-checks: Newton in Cartesian
//! coordinates (the tension from d^2/dt^2 sum l = 0, as in [`super::cartesian_solve`]),
//! classical RK4 with a small fixed step, events located by bisection on re-integrated steps,
//! and the tensing impulse computed in Cartesian form. It shares nothing with the product's
//! rotating-frame solution, dense output or event location. Friction directions are fixed per
//! run (the scenarios that use it keep every slip on one side; `slip_reversed` reports if not).

use diabolo::model::{CartesianState, Params, StickInput};
use diabolo::simulation::drive::Drive;
use nalgebra::Vector2;

use super::{cartesian_solve_with, length_rate};

/// A reference run's record.
pub struct ReferenceRun {
    /// (t, state) at the requested output times.
    pub samples: Vec<(f64, CartesianState)>,
    /// (t, "loosen" | "tense") events.
    pub events: Vec<(f64, &'static str)>,
    /// Whether any slip speed changed sign while taut (the reference would then be invalid).
    pub slip_reversed: bool,
}

/// Velocities, accelerations, spin rates and T_0 of a state.
struct Rates(Vec<Vector2<f64>>, Vec<Vector2<f64>>, Vec<f64>, f64);

struct Reference<'a> {
    params: &'a Params,
    drives: &'a [Drive; 2],
    signs: Vec<f64>,
}

impl Reference<'_> {
    fn inputs(&self, t: f64, s: &CartesianState) -> [StickInput; 2] {
        [
            self.drives[0].input(t, &s.left),
            self.drives[1].input(t, &s.right),
        ]
    }

    /// (velocities, accelerations, spin rates, T_0) of a state.
    fn derivative(&self, t: f64, s: &CartesianState, taut: bool) -> Rates {
        let n = s.diabolo_count();
        let inputs = self.inputs(t, s);
        let v = (0..n + 2).map(|k| s.velocity(k)).collect();
        if taut {
            let sol = cartesian_solve_with(self.params, s, &self.signs, &inputs, None);
            return Rates(v, sol.accelerations, sol.spin_rates, sol.base_tension);
        }
        let g = Vector2::new(0.0, -self.params.gravity);
        let stick = |input: StickInput| match input {
            StickInput::Force(f) => g + f / self.params.stick_mass,
            StickInput::Accel(a) => a,
        };
        let mut a = vec![g; n + 2];
        a[0] = stick(inputs[0]);
        a[n + 1] = stick(inputs[1]);
        let spins = s
            .diabolos
            .iter()
            .map(|d| -self.params.spin_drag * d.spin)
            .collect();
        Rates(v, a, spins, 0.0)
    }

    fn advance(s: &CartesianState, h: f64, d: &Rates) -> CartesianState {
        let mut out = s.clone();
        let n = s.diabolo_count();
        for k in 0..n + 2 {
            let (p, v) = (s.position(k), s.velocity(k));
            let (np, nv) = (p + h * d.0[k], v + h * d.1[k]);
            match k {
                0 => out.left = diabolo::model::Body { pos: np, vel: nv },
                k if k == n + 1 => out.right = diabolo::model::Body { pos: np, vel: nv },
                k => {
                    out.diabolos[k - 1].pos = np;
                    out.diabolos[k - 1].vel = nv;
                }
            }
        }
        for (i, dia) in out.diabolos.iter_mut().enumerate() {
            dia.spin = s.diabolos[i].spin + h * d.2[i];
        }
        out
    }

    /// One classical RK4 step.
    fn rk4(&self, t: f64, s: &CartesianState, h: f64, taut: bool) -> CartesianState {
        let k1 = self.derivative(t, s, taut);
        let k2 = self.derivative(t + h / 2.0, &Self::advance(s, h / 2.0, &k1), taut);
        let k3 = self.derivative(t + h / 2.0, &Self::advance(s, h / 2.0, &k2), taut);
        let k4 = self.derivative(t + h, &Self::advance(s, h, &k3), taut);
        let n = s.diabolo_count();
        let weighted = Rates(
            (0..n + 2)
                .map(|k| (k1.0[k] + 2.0 * k2.0[k] + 2.0 * k3.0[k] + k4.0[k]) / 6.0)
                .collect(),
            (0..n + 2)
                .map(|k| (k1.1[k] + 2.0 * k2.1[k] + 2.0 * k3.1[k] + k4.1[k]) / 6.0)
                .collect(),
            (0..n)
                .map(|k| (k1.2[k] + 2.0 * k2.2[k] + 2.0 * k3.2[k] + k4.2[k]) / 6.0)
                .collect(),
            0.0,
        );
        Self::advance(s, h, &weighted)
    }

    /// The event function of a phase: T_0 while taut, the slack while loose.
    fn guard(&self, t: f64, s: &CartesianState, taut: bool) -> f64 {
        if taut {
            self.derivative(t, s, true).3
        } else {
            self.params.string_length - s.string_used()
        }
    }

    /// The plastic or restitutive tensing impulse in Cartesian form, friction ratios from the
    /// symmetric slip speeds.
    fn tense(&self, s: &mut CartesianState) {
        let n = s.diabolo_count();
        let e: Vec<Vector2<f64>> = (0..=n)
            .map(|j| (s.position(j + 1) - s.position(j)).normalize())
            .collect();
        let rates: Vec<f64> = (0..=n)
            .map(|j| e[j].dot(&(s.velocity(j + 1) - s.velocity(j))))
            .collect();
        let total: f64 = rates.iter().sum();
        let mut d = vec![1.0];
        let mut feed = 0.0;
        for i in 1..=n {
            feed += rates[i - 1];
            let theta = super::cartesian_theta(s, i);
            let (side, angle) = if theta > std::f64::consts::PI {
                (1.0, theta - std::f64::consts::PI)
            } else {
                (-1.0, -(theta + std::f64::consts::PI))
            };
            let slip = side * s.diabolos[i - 1].spin - (feed - 0.5 * total);
            let c = self.params.friction * slip.signum();
            let last = d[i - 1];
            d.push(last * (c * angle).exp());
        }
        let inverse: Vec<f64> = (0..n + 2)
            .map(|k| {
                let heavy = (k == 0 && self.drives[0].prescribes_motion())
                    || (k == n + 1 && self.drives[1].prescribes_motion());
                if heavy {
                    0.0
                } else if k == 0 || k == n + 1 {
                    1.0 / self.params.stick_mass
                } else {
                    1.0 / self.params.diabolo_mass
                }
            })
            .collect();
        // L' change per unit J_0: sum_j d_j e_j . (dv_{j+1} - dv_j) with dv_j += w_j d_j e_j, dv_{j+1} -= w_{j+1} d_j e_j.
        let mut dv = vec![Vector2::zeros(); n + 2];
        for j in 0..=n {
            dv[j] += inverse[j] * d[j] * e[j];
            dv[j + 1] -= inverse[j + 1] * d[j] * e[j];
        }
        let per_unit: f64 = (0..=n).map(|j| e[j].dot(&(dv[j + 1] - dv[j]))).sum();
        let j0 = -(1.0 + self.params.restitution) * total / per_unit;
        for k in 0..n + 2 {
            *s.velocity_mut(k) += j0 * dv[k];
        }
        let spin_mass = self.params.diabolo_mass * self.params.spin_inertia;
        for i in 1..=n {
            let theta = super::cartesian_theta(s, i);
            let side = if theta > std::f64::consts::PI {
                1.0
            } else {
                -1.0
            };
            s.diabolos[i - 1].spin += side * j0 * (d[i - 1] - d[i]) / spin_mass;
        }
    }
}

/// Runs the reference from `initial` (taut when its slack is below 1e-12 m) to `duration`
/// with RK4 steps of `h`, recording the state at multiples of `output_interval`.
pub fn reference_run(
    params: &Params,
    drives: &[Drive; 2],
    initial: &CartesianState,
    slip_signs: &[f64],
    duration: f64,
    h: f64,
    output_interval: f64,
) -> ReferenceRun {
    let r = Reference {
        params,
        drives,
        signs: slip_signs.to_vec(),
    };
    let mut s = initial.clone();
    let mut taut = params.string_length - s.string_used() < 1e-12;
    let mut t = 0.0;
    let mut samples = vec![(0.0, s.clone())];
    let mut events = Vec::new();
    let mut next = 1usize;
    let mut slip_reversed = false;
    if taut && length_rate(&s) > 1e-12 {
        // A start that stretches the string: the tensing impulse at t = 0.
        events.push((0.0, "tense"));
        r.tense(&mut s);
        samples[0].1 = s.clone();
    }
    while t < duration - 1e-12 {
        let step = h.min(duration - t);
        let mut candidate = r.rk4(t, &s, step, taut);
        let (before, after) = (r.guard(t, &s, taut), r.guard(t + step, &candidate, taut));
        let crossed = if taut {
            before >= 0.0 && after < 0.0
        } else {
            before > 0.0 && after <= 0.0
        };
        let mut taken = step;
        if crossed {
            // Bisection on the step length, re-integrating from the step's start.
            let (mut lo, mut hi) = (0.0, step);
            while hi - lo > 1e-13 {
                let mid = 0.5 * (lo + hi);
                let g = r.guard(t + mid, &r.rk4(t, &s, mid, taut), taut);
                if (taut && g < 0.0) || (!taut && g <= 0.0) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            taken = hi;
            candidate = r.rk4(t, &s, hi, taut);
        }
        // Output samples inside the step, from re-integration to the exact times.
        while next as f64 * output_interval <= t + taken + 1e-12
            && (next as f64 * output_interval) <= duration + 1e-12
        {
            let to = next as f64 * output_interval;
            samples.push((to, r.rk4(t, &s, to - t, taut)));
            next += 1;
        }
        if taut {
            let signs_now: Vec<f64> = cartesian_solve_with(
                params,
                &candidate,
                slip_signs,
                &r.inputs(t + taken, &candidate),
                None,
            )
            .slip_speeds;
            slip_reversed |= signs_now
                .iter()
                .zip(slip_signs)
                .any(|(s, sign)| s * sign < 0.0);
        }
        s = candidate;
        t += taken;
        if crossed {
            if taut {
                events.push((t, "loosen"));
                taut = false;
            } else {
                events.push((t, "tense"));
                r.tense(&mut s);
                taut = length_rate(&s) >= -1e-12;
            }
        }
    }
    ReferenceRun {
        samples,
        events,
        slip_reversed,
    }
}

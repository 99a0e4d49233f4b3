//! A diabolo off the string (docs/flight.md): free flight, x'' = (0, -g) and w' = -D w, or at
//! rest on the floor with its spin still decaying. Both are closed forms of time, exact at any
//! instant, so the integrator never steps them.

use nalgebra::Vector2;

use super::params::Params;
use super::state::DiaboloState;

/// How a diabolo off the string moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FreeKind {
    /// Flying: a parabola under gravity.
    Flying,
    /// Dropped: at rest on the floor (the start velocity is zero and gravity is held by it).
    Resting,
}

/// The motion of a diabolo off the string from its state at `t0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FreeMotion {
    /// Flying or resting on the floor.
    pub kind: FreeKind,
    /// The time the motion started, s.
    pub t0: f64,
    /// The diabolo's state at `t0` (its knot degree is 0 off the string).
    pub start: DiaboloState,
}

impl FreeMotion {
    /// A flight from `state` at `t0`.
    pub fn flying(t0: f64, state: DiaboloState) -> Self {
        Self {
            kind: FreeKind::Flying,
            t0,
            start: DiaboloState { knot: 0, ..state },
        }
    }

    /// At rest at `pos` from `t0`, spinning at `spin` (m/s).
    pub fn resting(t0: f64, pos: Vector2<f64>, spin: f64) -> Self {
        Self {
            kind: FreeKind::Resting,
            t0,
            start: DiaboloState {
                pos,
                vel: Vector2::zeros(),
                spin,
                knot: 0,
            },
        }
    }

    /// The acceleration of the centre, m/s^2.
    pub fn acceleration(&self, params: &Params) -> Vector2<f64> {
        match self.kind {
            FreeKind::Flying => Vector2::new(0.0, -params.gravity),
            FreeKind::Resting => Vector2::zeros(),
        }
    }

    /// The state at time t (s): p0 + v0 tau + a tau^2 / 2, v0 + a tau, w0 exp(-D tau) with
    /// tau = t - t0.
    pub fn at(&self, params: &Params, t: f64) -> DiaboloState {
        let tau = t - self.t0;
        let a = self.acceleration(params);
        DiaboloState {
            pos: self.start.pos + self.start.vel * tau + a * (0.5 * tau * tau),
            vel: self.start.vel + a * tau,
            spin: self.spin_at(params, t),
            knot: 0,
        }
    }

    /// The centre's position at time t, m.
    pub fn position(&self, params: &Params, t: f64) -> Vector2<f64> {
        let tau = t - self.t0;
        self.start.pos + self.start.vel * tau + self.acceleration(params) * (0.5 * tau * tau)
    }

    /// The centre's velocity at time t, m/s.
    pub fn velocity(&self, params: &Params, t: f64) -> Vector2<f64> {
        self.start.vel + self.acceleration(params) * (t - self.t0)
    }

    /// w(t) = w0 exp(-D (t - t0)), m/s.
    pub fn spin_at(&self, params: &Params, t: f64) -> f64 {
        self.start.spin * (-params.spin_drag * (t - self.t0)).exp()
    }

    /// The energy the spin drag took from t0 to t: m J (w0^2 - w(t)^2) / 2, J.
    pub fn drag_loss(&self, params: &Params, t: f64) -> f64 {
        let w = self.spin_at(params, t);
        0.5 * params.diabolo_mass * params.spin_inertia * (self.start.spin.powi(2) - w * w)
    }

    /// The highest centre height reached between t0 and t, m (the apex if it lies within).
    pub fn highest(&self, params: &Params, t: f64) -> f64 {
        let a = self.acceleration(params).y;
        let end = self.position(params, t).y;
        let start = self.start.pos.y;
        let apex_time = if a < 0.0 { -self.start.vel.y / a } else { -1.0 };
        let mut best = start.max(end);
        if apex_time > 0.0 && apex_time < t - self.t0 {
            best = best.max(self.position(params, self.t0 + apex_time).y);
        }
        best
    }
}

/// The upward unit normal of the chord from a to b (n.y >= 0; zero for a point chord).
pub fn chord_normal(a: Vector2<f64>, b: Vector2<f64>) -> Vector2<f64> {
    let d = b - a;
    let normal = if d.x >= 0.0 {
        Vector2::new(-d.y, d.x)
    } else {
        Vector2::new(d.y, -d.x)
    };
    normal / d.norm().max(f64::MIN_POSITIVE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ParamValues;

    fn params(drag: f64) -> Params {
        Params::new(ParamValues {
            spin_drag: drag,
            ..ParamValues::default()
        })
        .unwrap()
    }

    // The closed form satisfies x'' = (0, -g) (central differences) and w' = -D w.
    #[test]
    fn a_flight_is_a_parabola_with_an_exponentially_decaying_spin() {
        let p = params(0.3);
        let start = DiaboloState {
            pos: Vector2::new(0.1, 0.4),
            vel: Vector2::new(1.5, 3.0),
            spin: 40.0,
            knot: 0,
        };
        let flight = FreeMotion::flying(2.0, start);
        let h = 1e-3;
        for t in [2.1, 2.5, 3.0] {
            let acc = (flight.position(&p, t + h) - 2.0 * flight.position(&p, t)
                + flight.position(&p, t - h))
                / (h * h);
            assert!((acc - Vector2::new(0.0, -p.gravity)).norm() < 1e-6);
            let w = flight.spin_at(&p, t);
            assert!((w - 40.0 * (-0.3 * (t - 2.0)).exp()).abs() < 1e-12);
        }
        // The apex of vy0 = 3 m/s: 3^2 / (2 g) above the start.
        let apex = 0.4 + 9.0 / (2.0 * p.gravity);
        assert!((flight.highest(&p, 3.0) - apex).abs() < 1e-12);
        assert_eq!(flight.highest(&p, 2.1), flight.position(&p, 2.1).y);
        // The drag loss is the spin energy lost.
        let lost = flight.drag_loss(&p, 3.0);
        let w = flight.spin_at(&p, 3.0);
        let expected = 0.5 * p.diabolo_mass * p.spin_inertia * (40.0f64.powi(2) - w * w);
        assert!((lost - expected).abs() < 1e-12);
    }

    #[test]
    fn a_resting_diabolo_stays_put_while_its_spin_decays() {
        let p = params(0.5);
        let rest = FreeMotion::resting(1.0, Vector2::new(0.3, 0.0635), 10.0);
        let s = rest.at(&p, 5.0);
        assert_eq!(s.pos, Vector2::new(0.3, 0.0635));
        assert_eq!(s.vel, Vector2::zeros());
        assert!((s.spin - 10.0 * (-2.0f64).exp()).abs() < 1e-12);
    }
}

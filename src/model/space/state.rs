//! The state of the system in space: stick tips and diabolo centres in R^3, spins, knots and
//! each diabolo's axle direction (docs/space.md, "Axes and state").

use nalgebra::Vector3;

/// A stick tip in space: position (m) and velocity (m/s), [x, y, z].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SpaceBody {
    /// Position, m.
    pub pos: Vector3<f64>,
    /// Velocity, m/s.
    pub vel: Vector3<f64>,
}

/// One diabolo in space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpaceDiabolo {
    /// Centre position, m.
    pub pos: Vector3<f64>,
    /// Centre velocity, m/s.
    pub vel: Vector3<f64>,
    /// w = r Omega: axle surface speed, m/s. Positive is a clockwise spin seen from the tip of
    /// the axle direction `axle` (with the axle along +z, seen from the audience: the planar
    /// model's convention), the string running under the axle from left to right; the spin's
    /// angular velocity is -(w / r) a.
    pub spin: f64,
    /// k: knot degree (whole wraps of the string around the axle).
    pub knot: i32,
    /// a: the axle's direction, a unit vector (along +z in the plane).
    pub axle: Vector3<f64>,
    /// a': the rate of the axle's direction, 1/s (perpendicular to a).
    pub axle_rate: Vector3<f64>,
}

impl Default for SpaceDiabolo {
    fn default() -> Self {
        Self {
            pos: Vector3::zeros(),
            vel: Vector3::zeros(),
            spin: 0.0,
            knot: 0,
            axle: Vector3::z(),
            axle_rate: Vector3::zeros(),
        }
    }
}

/// Positions, velocities, spins, knots and axles of all objects in space.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpaceState {
    /// The left stick tip (object 0).
    pub left: SpaceBody,
    /// The right stick tip (object N + 1).
    pub right: SpaceBody,
    /// Diabolos 1..N, in their order along the string.
    pub diabolos: Vec<SpaceDiabolo>,
}

impl SpaceState {
    /// Number of objects on the string, N + 2.
    pub fn objects(&self) -> usize {
        self.diabolos.len() + 2
    }

    /// Position of object j (0 the left stick, N + 1 the right), m.
    pub fn position(&self, j: usize) -> Vector3<f64> {
        match j {
            0 => self.left.pos,
            j if j == self.diabolos.len() + 1 => self.right.pos,
            j => self.diabolos[j - 1].pos,
        }
    }

    /// Velocity of object j, m/s.
    pub fn velocity(&self, j: usize) -> Vector3<f64> {
        match j {
            0 => self.left.vel,
            j if j == self.diabolos.len() + 1 => self.right.vel,
            j => self.diabolos[j - 1].vel,
        }
    }

    /// The sum of the segments' lengths, m.
    pub fn string_used(&self) -> f64 {
        (0..self.objects() - 1)
            .map(|i| (self.position(i + 1) - self.position(i)).norm())
            .sum()
    }

    /// A planar state lifted into space: z = 0 everywhere, every axle along +z.
    pub fn from_planar(planar: &crate::model::CartesianState) -> Self {
        let lift = |v: nalgebra::Vector2<f64>| Vector3::new(v.x, v.y, 0.0);
        let body = |b: &crate::model::Body| SpaceBody {
            pos: lift(b.pos),
            vel: lift(b.vel),
        };
        Self {
            left: body(&planar.left),
            right: body(&planar.right),
            diabolos: planar
                .diabolos
                .iter()
                .map(|d| SpaceDiabolo {
                    pos: lift(d.pos),
                    vel: lift(d.vel),
                    spin: d.spin,
                    knot: d.knot,
                    ..SpaceDiabolo::default()
                })
                .collect(),
        }
    }
}

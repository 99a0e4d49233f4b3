//! Contacts of the run in space measured on the diabolos' hulls (docs/space.md, "Contacts in
//! space"): the signed gap between two bodies (a stick tip, a diabolo on the string or off it)
//! and its motion for the event locator (the gap's rate and the relative velocity of the
//! nearest points, each moving with its body's centre and its axle's turn a x a').

use nalgebra::Vector3;

use super::system::{Body, SpaceSystem};
use super::SpaceHand;
use crate::model::space::{hull_gap, AxleModel, Gap, Hull};
use crate::simulation::ode::events::GapMotion;

/// A body as a contact sees it.
enum Shape {
    /// A stick tip: its point and velocity.
    Tip(Vector3<f64>, Vector3<f64>),
    /// A diabolo: its hull, its centre's velocity and its axle's angular velocity a x a'.
    Diabolo(Hull, Vector3<f64>, Vector3<f64>),
}

impl Shape {
    /// The velocity of the body's material point at `p`.
    fn velocity_at(&self, p: &Vector3<f64>) -> Vector3<f64> {
        match self {
            Self::Tip(_, v) => *v,
            Self::Diabolo(hull, v, omega) => v + omega.cross(&(p - hull.centre)),
        }
    }
}

impl<H: SpaceHand> SpaceSystem<H> {
    /// The body as a contact sees it, from the loaded string state and the state vector `y`.
    fn shape(&self, y: &[f64], body: Body) -> Shape {
        match body {
            Body::Stick(0) => Shape::Tip(self.state.left.pos, self.state.left.vel),
            Body::Stick(_) => Shape::Tip(self.state.right.pos, self.state.right.vel),
            Body::Diabolo(k) => {
                let slot = self.roster.slot_numbers()[k - 1];
                let (d, rate) = if slot > 0 {
                    let d = self.state.diabolos[slot - 1];
                    (d, self.axle_rate(slot))
                } else {
                    let d = self.free_diabolo(y, k);
                    let rate = match self.params.model {
                        AxleModel::FastTop => Vector3::zeros(),
                        AxleModel::Rigid => d.axle_rate,
                    };
                    (d, rate)
                };
                Shape::Diabolo(self.params.hull(&d), d.vel, d.axle.cross(&rate))
            }
        }
    }

    /// The signed gap between bodies `a` and `b` (their hulls; a stick tip is a point) and its
    /// motion: the gap's rate and the relative velocity of the nearest points.
    pub(super) fn contact_gap(&self, y: &[f64], a: Body, b: Body) -> (f64, GapMotion) {
        let (first, second) = (self.shape(y, a), self.shape(y, b));
        let gap = match (&first, &second) {
            (Shape::Diabolo(ha, ..), Shape::Diabolo(hb, ..)) => hull_gap(ha, hb),
            (Shape::Diabolo(hull, ..), Shape::Tip(p, _)) => hull.point_gap(p),
            (Shape::Tip(p, _), Shape::Diabolo(hull, ..)) => {
                let g = hull.point_gap(p);
                Gap {
                    gap: g.gap,
                    normal: -g.normal,
                    on_first: g.on_second,
                    on_second: g.on_first,
                }
            }
            (Shape::Tip(p, _), Shape::Tip(q, _)) => {
                let span = q - p;
                Gap {
                    gap: span.norm(),
                    normal: span / span.norm().max(f64::MIN_POSITIVE),
                    on_first: *p,
                    on_second: *q,
                }
            }
        };
        let relative = second.velocity_at(&gap.on_second) - first.velocity_at(&gap.on_first);
        (
            gap.gap,
            [
                gap.normal.dot(&relative),
                relative.x,
                relative.y,
                relative.z,
            ],
        )
    }
}

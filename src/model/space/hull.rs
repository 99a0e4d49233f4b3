//! A diabolo's hull in space: the solid cylinder its two cup rims span (circles of radius R at
//! +-h along the axle from the centre), and the signed gaps between hulls and from a hull to a
//! point (a stick tip). Every contact of the model in space is measured on the hulls: two
//! diabolos touch where their hulls do (rim against rim, rim against a cup's side, cup face
//! against cup face), a stick tip touches a diabolo where it reaches its hull. In the plane
//! (axles along z, centres at one z) the gap between two hulls is the planar model's |c_B - c_A|
//! - 2R and the tip's |p - c| - R (docs/space.md, "Contacts in space").
//!
//! The gap is signed: the distance between the bodies while apart, minus the depth of the
//! overlap (the shortest move that parts them) while they overlap. Apart, the nearest points are
//! found by alternating projections onto the two cylinders (each projection is closed form; the
//! distance they bracket with the separating plane's certificate is exact to round-off);
//! overlapping, the depth is the smallest overlap of the two bodies' extents along a direction,
//! minimised over directions from the centres' line, the axles and their cross product, refined
//! by a pattern search on the sphere.

use nalgebra::Vector3;

/// Bodies nearer than this fraction of their size overlap (or touch): their depth is measured.
const CONVERGED: f64 = 1e-13;

/// The nearest points are taken when the separating plane through them certifies their distance
/// to this fraction of the bodies' size.
const CERTIFIED: f64 = 1e-13;

/// At most this many rounds of alternating projections.
const MOST_ROUNDS: usize = 500;

/// Directions sampled over the sphere before the best separation is refined.
const SPHERE_SAMPLES: usize = 512;

/// Directions sampled along each ridge (the great circle across an axle).
const RIDGE_SAMPLES: usize = 256;

/// Directions of the pattern search across n: where the best direction sits on a kink of the
/// separation (across an axle, or along one: a cone), the way up can be a narrow wedge that
/// four or eight directions miss at every step.
const PATTERN: usize = 32;

/// A diabolo's hull: the solid cylinder of radius R and half-length h about its axle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hull {
    /// c: the centre, m.
    pub centre: Vector3<f64>,
    /// a: the axle's unit direction.
    pub axle: Vector3<f64>,
    /// R: the cups' rim radius, m.
    pub radius: f64,
    /// h: the rims' distance from the centre along the axle, m.
    pub half_length: f64,
}

/// The signed gap between two bodies and where it is measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gap {
    /// g: the distance while apart, minus the overlap's depth while overlapping, m.
    pub gap: f64,
    /// n: the unit direction from the first body toward the second along which g is measured
    /// (the contact normal at g = 0).
    pub normal: Vector3<f64>,
    /// The first body's point nearest the second (apart), or its deepest point along n.
    pub on_first: Vector3<f64>,
    /// The second body's point nearest the first, or its deepest point along -n.
    pub on_second: Vector3<f64>,
}

impl Gap {
    /// The same gap seen from the other body: the normal turned round, the points swapped.
    pub fn reversed(self) -> Self {
        Self {
            gap: self.gap,
            normal: -self.normal,
            on_first: self.on_second,
            on_second: self.on_first,
        }
    }
}

impl Hull {
    /// The hull's extent along the unit direction n from its centre: h |a . n| + R sqrt(1 -
    /// (a . n)^2), m (its support function less c . n).
    pub fn reach(&self, n: &Vector3<f64>) -> f64 {
        // |a x n| = sqrt(1 - (a . n)^2) without the cancellation near the axle.
        self.half_length * self.axle.dot(n).abs() + self.radius * self.axle.cross(n).norm()
    }

    /// The hull's farthest point along the unit direction n (a rim point; the rim's centre when
    /// n is along the axle, the middle of the side's segment when n is across it).
    pub fn support(&self, n: &Vector3<f64>) -> Vector3<f64> {
        let along = self.axle.dot(n);
        let across = n - self.axle * along;
        let size = across.norm();
        // Along the axle (to round-off) the farthest points are a whole face: its centre.
        let radial = if size > 1e-12 {
            across * (self.radius / size)
        } else {
            Vector3::zeros()
        };
        let end = if along > 0.0 {
            self.half_length
        } else if along < 0.0 {
            -self.half_length
        } else {
            0.0
        };
        self.centre + self.axle * end + radial
    }

    /// The hull's point nearest p (p itself inside the hull).
    pub fn nearest(&self, p: &Vector3<f64>) -> Vector3<f64> {
        let q = p - self.centre;
        let s = q.dot(&self.axle);
        let radial = q - self.axle * s;
        let rho = radial.norm();
        let radial = if rho > self.radius {
            radial * (self.radius / rho)
        } else {
            radial
        };
        self.centre + self.axle * s.clamp(-self.half_length, self.half_length) + radial
    }

    /// The signed gap from the hull to the point p: its distance outside, minus the depth to
    /// the nearest face inside; the normal points from the hull toward p.
    pub fn point_gap(&self, p: &Vector3<f64>) -> Gap {
        let q = p - self.centre;
        let s = q.dot(&self.axle);
        let radial = q - self.axle * s;
        let rho = radial.norm();
        let outward = if rho > 0.0 {
            radial / rho
        } else {
            any_perpendicular(&self.axle)
        };
        let inside = s.abs() <= self.half_length && rho <= self.radius;
        let nearest = self.nearest(p);
        let span = p - nearest;
        let distance = span.norm();
        // (On the surface to round-off, the face's or side's normal below.)
        if !inside && distance > 0.0 {
            // The normal lies in the plane of the axle and the radial direction (face, side or
            // rim edge alike); near touching, the span's own direction is round-off across it.
            let across = span.dot(&self.axle.cross(&outward));
            let normal = span - self.axle.cross(&outward) * across;
            let size = normal.norm();
            let normal = if size > 0.0 {
                normal / size
            } else {
                span / distance
            };
            return Gap {
                gap: distance,
                normal,
                on_first: nearest,
                on_second: *p,
            };
        }
        let (to_side, to_face) = (self.radius - rho, self.half_length - s.abs());
        let (depth, normal) = if to_side <= to_face {
            (to_side, outward)
        } else {
            (to_face, if s >= 0.0 { self.axle } else { -self.axle })
        };
        Gap {
            gap: -depth,
            normal,
            on_first: p + normal * depth,
            on_second: *p,
        }
    }
}

/// A unit vector perpendicular to the unit vector a.
pub(crate) fn any_perpendicular(a: &Vector3<f64>) -> Vector3<f64> {
    let other = if a.x.abs() < 0.9 {
        Vector3::x()
    } else {
        Vector3::y()
    };
    a.cross(&other).normalize()
}

/// The separation of hulls a and b along the unit direction n (from a toward b): the gap
/// between a's extent along n and b's along -n, m. The signed gap is its largest value over n.
fn separation(a: &Hull, b: &Hull, n: &Vector3<f64>) -> f64 {
    n.dot(&(b.centre - a.centre)) - a.reach(n) - b.reach(n)
}

/// The signed gap between hulls a and b (a's normal toward b).
pub fn hull_gap(a: &Hull, b: &Hull) -> Gap {
    if a.axle.cross(&b.axle) == Vector3::zeros() {
        return parallel_gap(a, b);
    }
    let scale = a.radius.max(b.radius).max(a.half_length).max(b.half_length);
    // Apart: the nearest points by alternating projections, from b's point nearest a's centre,
    // until the separating plane through them certifies their distance (the separation along
    // their line is at most the distance between the bodies, which is at most theirs).
    let mut on_b = b.nearest(&a.centre);
    let mut on_a = a.nearest(&on_b);
    for _ in 0..MOST_ROUNDS {
        let distance = (on_b - on_a).norm();
        if distance <= CONVERGED * scale {
            break;
        }
        let normal = (on_b - on_a) / distance;
        if distance - separation(a, b, &normal) <= CERTIFIED * scale {
            return Gap {
                gap: distance,
                normal,
                on_first: on_a,
                on_second: on_b,
            };
        }
        on_b = b.nearest(&on_a);
        on_a = a.nearest(&on_b);
    }
    // Not certified within the rounds: alternating projections crawl where the bodies overlap
    // thinly or approach each other along nearly parallel surfaces; the best separation over
    // directions decides (a lower bound of the gap, exact at its maximum), searched from the
    // projections' last direction too.
    let last = on_b - on_a;
    best_separation(a, b, (last.norm() > 0.0).then(|| last.normalize()))
}

/// The signed gap between hulls with parallel axles (either way), in closed form: the set of
/// b's centres where b meets a is a's cylinder widened by b's (radius R_a + R_b, half-length
/// h_a + h_b; the Minkowski sum of two parallel cylinders), so the gap is the signed distance
/// of b's centre from it. The planar limit's two diabolos side by side, touching, take this
/// path instead of the search over directions that a touching pair needs otherwise.
fn parallel_gap(a: &Hull, b: &Hull) -> Gap {
    let widened = Hull {
        centre: a.centre,
        axle: a.axle,
        radius: a.radius + b.radius,
        half_length: a.half_length + b.half_length,
    };
    let Gap { gap, normal, .. } = widened.point_gap(&b.centre);
    Gap {
        gap,
        normal,
        on_first: a.support(&normal),
        on_second: b.support(&-normal),
    }
}

/// The largest separation over directions (minus the least overlap, for overlapping hulls),
/// from candidates (`start`, the centres' line, the axles, their cross product) refined by a
/// pattern search on the sphere.
fn best_separation(a: &Hull, b: &Hull, start: Option<Vector3<f64>>) -> Gap {
    let d = b.centre - a.centre;
    let toward = |v: Vector3<f64>| -> Option<Vector3<f64>> {
        let size = v.norm();
        (size > 1e-12).then(|| {
            let u = v / size;
            if u.dot(&d) < 0.0 {
                -u
            } else {
                u
            }
        })
    };
    let candidates = [
        toward(d),
        toward(d - a.axle * a.axle.dot(&d)),
        toward(d - b.axle * b.axle.dot(&d)),
        toward(a.axle),
        toward(b.axle),
        toward(a.axle.cross(&b.axle)),
        toward(a.axle.cross(&b.axle)).map(|n| -n),
        Some(any_perpendicular(&a.axle)),
        start,
    ];
    let mut best = Vector3::x();
    let mut best_value = f64::NEG_INFINITY;
    for n in candidates.into_iter().flatten() {
        let value = separation(a, b, &n);
        if value > best_value {
            (best, best_value) = (n, value);
        }
    }
    // Over the sphere: the best of SPHERE_SAMPLES directions spread evenly (the separation may
    // have several local maxima).
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    for i in 0..SPHERE_SAMPLES {
        let y = 1.0 - 2.0 * (i as f64 + 0.5) / SPHERE_SAMPLES as f64;
        let r = (1.0 - y * y).sqrt();
        let angle = golden * i as f64;
        let n = Vector3::new(r * angle.cos(), y, r * angle.sin());
        let value = separation(a, b, &n);
        if value > best_value {
            (best, best_value) = (n, value);
        }
    }
    // Along each ridge (the great circle across an axle, where the separation has a kink and a
    // search over the sphere stalls): a search in its angle, from the best of RIDGE_SAMPLES.
    for axle in [a.axle, b.axle] {
        let u = any_perpendicular(&axle);
        let v = axle.cross(&u);
        let on = |phi: f64| u * phi.cos() + v * phi.sin();
        let (mut at, mut ridge) = (0.0, f64::NEG_INFINITY);
        for k in 0..RIDGE_SAMPLES {
            let phi = std::f64::consts::TAU * k as f64 / RIDGE_SAMPLES as f64;
            let value = separation(a, b, &on(phi));
            if value > ridge {
                (at, ridge) = (phi, value);
            }
        }
        let mut step = std::f64::consts::TAU / (2 * RIDGE_SAMPLES) as f64;
        while step > 1e-15 {
            let mut improved = false;
            for phi in [at - step, at + step] {
                let value = separation(a, b, &on(phi));
                if value > ridge {
                    (at, ridge) = (phi, value);
                    improved = true;
                }
            }
            if !improved {
                step *= 0.5;
            }
        }
        if ridge > best_value {
            (best, best_value) = (on(at), ridge);
        }
    }
    // Pattern search: steps along PATTERN directions across n, halving.
    let mut step = 0.25;
    while step > 1e-15 {
        let u = any_perpendicular(&best);
        let v = best.cross(&u);
        let mut improved = false;
        for k in 0..PATTERN {
            let phi = std::f64::consts::TAU * k as f64 / PATTERN as f64;
            let n = (best + (u * phi.cos() + v * phi.sin()) * step).normalize();
            let value = separation(a, b, &n);
            if value > best_value {
                (best, best_value) = (n, value);
                improved = true;
            }
        }
        if !improved {
            step *= 0.5;
        }
    }
    Gap {
        gap: best_value,
        normal: best,
        on_first: a.support(&best),
        on_second: b.support(&-best),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(x: f64, y: f64, z: f64) -> Hull {
        Hull {
            centre: Vector3::new(x, y, z),
            axle: Vector3::z(),
            radius: 0.0635,
            half_length: 0.06,
        }
    }

    // In the plane the hulls are the planar model's discs: |c_B - c_A| - 2R between two
    // diabolos, |p - c| - R from a stick tip.
    #[test]
    fn in_the_plane_the_gaps_are_the_discs() {
        let (a, b) = (level(0.0, 0.0, 0.0), level(0.2, 0.05, 0.0));
        let expected = (0.2f64.hypot(0.05)) - 2.0 * 0.0635;
        assert!((hull_gap(&a, &b).gap - expected).abs() < 1e-14);
        let tip = Vector3::new(-0.1, 0.07, 0.0);
        let expected = 0.1f64.hypot(0.07) - 0.0635;
        assert!((a.point_gap(&tip).gap - expected).abs() < 1e-15);
    }
}

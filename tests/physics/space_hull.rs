//! The diabolos' hulls in space (src/model/space/hull.rs): their extent against the rims
//! sampled point by point, the signed gap between two hulls against an independent search for
//! the best separating direction over the whole sphere, the nearest points it reports, and the
//! gap from a stick tip against the hull's boundary sampled.

use crate::common::SplitMix;
use diabolo::model::space::{hull_gap, Hull};
use nalgebra::Vector3;
use std::f64::consts::TAU;

fn unit(rng: &mut SplitMix) -> Vector3<f64> {
    loop {
        let v = Vector3::new(
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
        );
        let size = v.norm();
        if size > 0.1 && size <= 1.0 {
            return v / size;
        }
    }
}

fn random_hull(rng: &mut SplitMix, spread: f64) -> Hull {
    Hull {
        centre: Vector3::new(
            rng.uniform(-spread, spread),
            rng.uniform(-spread, spread),
            rng.uniform(-spread, spread),
        ),
        axle: unit(rng),
        radius: rng.uniform(0.04, 0.08),
        half_length: rng.uniform(0.02, 0.08),
    }
}

/// Points of the hull's two rims, `count` per rim.
fn rim_points(hull: &Hull, count: usize) -> Vec<Vector3<f64>> {
    let u = hull.axle.cross(&Vector3::new(0.3, 0.5, 0.7)).normalize();
    let v = hull.axle.cross(&u);
    let mut points = Vec::with_capacity(2 * count);
    for side in [-1.0, 1.0] {
        for i in 0..count {
            let phi = TAU * i as f64 / count as f64;
            points.push(
                hull.centre
                    + hull.axle * (side * hull.half_length)
                    + (u * phi.cos() + v * phi.sin()) * hull.radius,
            );
        }
    }
    points
}

// A hull's extent along any direction is that of its farthest rim point (the hull is the rims'
// convex hull): against 2 x 20,000 rim points, within the sampling's 1e-9 m.
#[test]
fn a_hull_reaches_as_far_as_its_rims() {
    let mut rng = SplitMix::new(71);
    for _ in 0..50 {
        let hull = random_hull(&mut rng, 0.1);
        let rims = rim_points(&hull, 20_000);
        for _ in 0..20 {
            let n = unit(&mut rng);
            let sampled = rims
                .iter()
                .map(|p| n.dot(&(p - hull.centre)))
                .fold(f64::NEG_INFINITY, f64::max);
            let reach = hull.reach(&n);
            assert!(
                reach >= sampled - 1e-15 && reach - sampled < 1e-9,
                "{reach} {sampled}"
            );
            assert!((n.dot(&(hull.support(&n) - hull.centre)) - reach).abs() < 1e-15);
        }
    }
}

/// The largest separation of a and b over unit directions (from a toward b), by a dense
/// Fibonacci sampling of the sphere refined by coordinate steps: the signed gap of two convex
/// bodies (their distance apart, minus the overlap's depth), found without the product's
/// projections or candidates.
fn best_separation(a: &Hull, b: &Hull) -> f64 {
    let separation = |n: &Vector3<f64>| n.dot(&(b.centre - a.centre)) - a.reach(n) - b.reach(n);
    let count = 20_000;
    let golden = std::f64::consts::PI * (3.0 - 5f64.sqrt());
    let mut best = Vector3::x();
    let mut value = f64::NEG_INFINITY;
    for i in 0..count {
        let y = 1.0 - 2.0 * (i as f64 + 0.5) / count as f64;
        let r = (1.0 - y * y).sqrt();
        let n = Vector3::new(
            r * (golden * i as f64).cos(),
            y,
            r * (golden * i as f64).sin(),
        );
        let s = separation(&n);
        if s > value {
            (best, value) = (n, s);
        }
    }
    // Refined by steps along 64 directions across n, halving (a ridge of the separation,
    // where n is across an axle, is followed along the diagonals).
    let mut step = 0.05;
    while step > 1e-13 {
        let u = best.cross(&Vector3::new(0.3, 0.5, 0.7)).normalize();
        let v = best.cross(&u);
        let mut improved = false;
        for k in 0..64 {
            let phi = TAU * k as f64 / 64.0;
            let n = (best + (u * phi.cos() + v * phi.sin()) * step).normalize();
            let s = separation(&n);
            if s > value {
                (best, value) = (n, s);
                improved = true;
            }
        }
        if !improved {
            step *= 0.5;
        }
    }
    // The separation is not smooth where n is across an axle (a ridge, where the support point
    // jumps from one rim to the other) nor where it is across both (a corner, n along a x b): its
    // largest value may lie there, where a search over the sphere stalls. Each ridge is a
    // great circle, searched densely and refined; the corners are two points.
    for axle in [a.axle, b.axle] {
        let u = axle.cross(&Vector3::new(0.3, 0.5, 0.7)).normalize();
        let v = axle.cross(&u);
        let on = |phi: f64| u * phi.cos() + v * phi.sin();
        let samples = 20_000;
        let mut at = 0.0;
        let mut ridge = f64::NEG_INFINITY;
        for i in 0..samples {
            let phi = TAU * i as f64 / samples as f64;
            let s = separation(&on(phi));
            if s > ridge {
                (at, ridge) = (phi, s);
            }
        }
        let (mut lo, mut hi) = (at - TAU / samples as f64, at + TAU / samples as f64);
        for _ in 0..200 {
            let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
            if separation(&on(m1)) < separation(&on(m2)) {
                lo = m1;
            } else {
                hi = m2;
            }
        }
        value = value.max(separation(&on(0.5 * (lo + hi))));
    }
    let corner = a.axle.cross(&b.axle);
    if corner.norm() > 1e-9 {
        let corner = corner.normalize();
        value = value.max(separation(&corner)).max(separation(&-corner));
    }
    value
}

// The signed gap of two hulls in any position: apart, the distance between the nearest points
// it reports (each on its hull) and the largest separation over the sphere, within 1e-9 m;
// overlapping, minus the overlap's depth, within 1e-7 m. Pairs from far apart to deep inside
// each other, axles anywhere; every fourth pair with parallel axles (either way), which the gap
// takes in closed form.
#[test]
fn the_gap_between_two_hulls_is_their_best_separation() {
    let mut rng = SplitMix::new(72);
    let (mut apart, mut overlapping) = (0, 0);
    let (mut worst_apart, mut worst_overlap) = (0.0f64, 0.0f64);
    for case in 0..400 {
        let a = random_hull(&mut rng, 0.0);
        let mut b = random_hull(&mut rng, 0.16);
        if case % 4 == 3 {
            b.axle = if rng.coin() { a.axle } else { -a.axle };
        }
        let gap = hull_gap(&a, &b);
        let expected = best_separation(&a, &b);
        if gap.gap > 0.0 {
            apart += 1;
            worst_apart = worst_apart.max((gap.gap - expected).abs());
            assert!(
                (gap.gap - expected).abs() < 1e-9,
                "case {case}: {} against {expected}",
                gap.gap
            );
            // The points span the gap along the normal (the separating planes touch them).
            assert!(
                ((gap.on_second - gap.on_first).dot(&gap.normal) - gap.gap).abs() < 1e-9,
                "case {case}: {gap:?} a {a:?} b {b:?}"
            );
            assert!((a.nearest(&gap.on_first) - gap.on_first).norm() < 1e-12);
            assert!((b.nearest(&gap.on_second) - gap.on_second).norm() < 1e-12);
        } else {
            overlapping += 1;
            worst_overlap = worst_overlap.max((gap.gap - expected).abs());
            assert!(
                (gap.gap - expected).abs() < 1e-7,
                "case {case}: {} against {expected}; {gap:?}; a {a:?} b {b:?}",
                gap.gap
            );
        }
    }
    eprintln!("{apart} pairs apart (worst {worst_apart:e} m), {overlapping} overlapping (worst {worst_overlap:e} m)");
    assert!(apart > 100 && overlapping > 50, "{apart} {overlapping}");
}

// The gap from a stick tip: the distance to the hull outside and minus the depth to its
// nearest face inside, against the classic formula (to round-off) and no nearer than any point
// of the hull's boundary sampled (sides and faces).
#[test]
fn the_gap_from_a_tip_is_its_distance_to_the_hull() {
    let mut rng = SplitMix::new(73);
    for _ in 0..200 {
        let hull = random_hull(&mut rng, 0.0);
        let tip = Vector3::new(
            rng.uniform(-0.15, 0.15),
            rng.uniform(-0.15, 0.15),
            rng.uniform(-0.15, 0.15),
        );
        // The classic formula: outside, the distance past the side and past the face
        // combined; inside, the nearer of the side and the face.
        let q = tip - hull.centre;
        let s = q.dot(&hull.axle);
        let rho = (q - hull.axle * s).norm();
        let (past_side, past_face) = (rho - hull.radius, s.abs() - hull.half_length);
        let expected = if past_side <= 0.0 && past_face <= 0.0 {
            past_side.max(past_face)
        } else {
            past_side.max(0.0).hypot(past_face.max(0.0))
        };
        let gap = hull.point_gap(&tip);
        assert!(
            (gap.gap - expected).abs() < 1e-15,
            "{} against {expected}",
            gap.gap
        );
        // Outside, the nearest point is on the hull and p - nearest along the normal.
        if expected > 0.0 {
            let nearest = gap.on_first;
            assert!((hull.nearest(&nearest) - nearest).norm() < 1e-15);
            assert!(((tip - nearest) - gap.normal * gap.gap).norm() < 1e-15);
        }
        // And no boundary point sampled is nearer than the distance outside.
        let u = hull.axle.cross(&Vector3::new(0.3, 0.5, 0.7)).normalize();
        let v = hull.axle.cross(&u);
        let steps = 60;
        for i in 0..steps {
            let phi = TAU * i as f64 / steps as f64;
            let w = u * phi.cos() + v * phi.sin();
            for j in 0..=steps {
                let f = j as f64 / steps as f64;
                let side = hull.centre
                    + hull.axle * (hull.half_length * (2.0 * f - 1.0))
                    + w * hull.radius;
                assert!((tip - side).norm() >= expected.abs() - 1e-15);
                for end in [-1.0, 1.0] {
                    let face =
                        hull.centre + hull.axle * (end * hull.half_length) + w * (hull.radius * f);
                    assert!((tip - face).norm() >= expected.abs() - 1e-15);
                }
            }
        }
    }
}

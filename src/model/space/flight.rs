//! A diabolo off the string in space (docs/space.md, "Flight in space"): where the string can
//! pass between its cups (a landing) and where its rims meet the floor.
//!
//! The string can pass between the cups of a diabolo whose axle a crosses a chord: the chord
//! from a to b and the axle span a plane through the chord (unit normal n along d x a, d the
//! chord's direction, turned upward); the centre c crosses that plane downward, and at the
//! crossing the chord passes the axle's line at `offset` s = (c - p) . a' from the centre
//! (p the chord's point nearest to the axle's line), within the axle's half-length h. In the
//! plane (a = +z, everything at z = 0) the plane's trace is the chord itself and s = 0: the
//! planar model's landing.

use nalgebra::Vector3;

/// Where a diabolo's axle line stands against a chord.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChordCrossing {
    /// (c - a) . n: the centre's signed distance from the plane of the chord and the axle, m,
    /// with n the plane's upward unit normal (n.y >= 0); `None` when the chord runs along the
    /// axle (no such plane).
    pub height: Option<f64>,
    /// The upward unit normal n (zero when there is no plane).
    pub normal: Vector3<f64>,
    /// How far along the chord, from a, the axle's line passes, m.
    pub along: f64,
    /// s: how far from the centre along the axle the chord passes, m.
    pub offset: f64,
    /// |b - a|: the chord's length, m.
    pub length: f64,
}

/// Below this |d x a| the chord runs along the axle: no plane.
const PARALLEL: f64 = 1e-12;

/// The crossing of the chord from `a` to `b` with the axle `axle` (a unit vector) of the
/// diabolo centred at `c`.
pub fn chord_crossing(
    a: &Vector3<f64>,
    b: &Vector3<f64>,
    c: &Vector3<f64>,
    axle: &Vector3<f64>,
) -> ChordCrossing {
    let span = b - a;
    let length = span.norm();
    let d = if length > 0.0 { span / length } else { span };
    let cross = d.cross(axle);
    let size = cross.norm();
    if size <= PARALLEL || length == 0.0 {
        return ChordCrossing {
            height: None,
            normal: Vector3::zeros(),
            along: 0.0,
            offset: 0.0,
            length,
        };
    }
    let mut normal = cross / size;
    if normal.y < 0.0 || (normal.y == 0.0 && normal.x < 0.0) {
        normal = -normal;
    }
    let r = c - a;
    // The closest points of the chord's line a + u d and the axle's line c + s a: with
    // k = d . a, u - s k = r . d and u k - s = r . a.
    let k = d.dot(axle);
    let (rd, ra) = (r.dot(&d), r.dot(axle));
    let det = 1.0 - k * k;
    let along = (rd - k * ra) / det;
    let offset = (k * rd - ra) / det;
    ChordCrossing {
        height: Some(r.dot(&normal)),
        normal,
        along,
        offset,
        length,
    }
}

/// The height of a diabolo's lowest rim point above y = 0, m: the rims are circles of radius R
/// (`rim_radius`) about the axle at +-h (`half_length`) from the centre, so the lowest lies
/// h |a_y| + R sqrt(1 - a_y^2) below the centre.
pub fn lowest_rim_point(
    centre: &Vector3<f64>,
    axle: &Vector3<f64>,
    rim_radius: f64,
    half_length: f64,
) -> f64 {
    let ay = axle.y.clamp(-1.0, 1.0);
    centre.y - half_length * ay.abs() - rim_radius * (1.0 - ay * ay).max(0.0).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_the_plane_the_crossing_is_the_planar_chord_with_no_offset() {
        let (a, b) = (Vector3::new(-0.3, 0.1, 0.0), Vector3::new(0.4, 0.3, 0.0));
        let c = Vector3::new(0.1, 0.5, 0.0);
        let x = chord_crossing(&a, &b, &c, &Vector3::z());
        let d = (b - a).normalize();
        let planar_normal = Vector3::new(-d.y, d.x, 0.0);
        assert!((x.normal - planar_normal).norm() < 1e-15);
        assert!((x.height.unwrap() - (c - a).dot(&planar_normal)).abs() < 1e-15);
        assert!((x.along - (c - a).dot(&d)).abs() < 1e-15);
        assert_eq!(x.offset, 0.0);
    }

    #[test]
    fn the_offset_is_where_the_chord_passes_the_axle() {
        // A level chord along x at z = 0; the axle along z through (0.1, 0, 0.02): the chord
        // passes the axle's line 2 cm behind the centre, at x = 0.1.
        let (a, b) = (Vector3::new(-0.3, 0.0, 0.0), Vector3::new(0.3, 0.0, 0.0));
        let c = Vector3::new(0.1, 0.0, 0.02);
        let x = chord_crossing(&a, &b, &c, &Vector3::z());
        assert!((x.offset + 0.02).abs() < 1e-15);
        assert!((x.along - 0.4).abs() < 1e-15);
        assert_eq!(x.height, Some(0.0));
        // A tilted axle: the chord still meets the axle's line where c + s a lies on it.
        let axle = Vector3::new(0.0, 0.3, 1.0).normalize();
        let c = Vector3::new(0.1, 0.0, 0.0) - axle * 0.03;
        let x = chord_crossing(&a, &b, &c, &axle);
        let meet = c + axle * x.offset;
        assert!((meet - (a + Vector3::x() * x.along)).norm() < 1e-15);
        assert!(x.height.unwrap().abs() < 1e-15);
    }

    #[test]
    fn the_lowest_rim_point_of_a_level_axle_is_one_rim_radius_down() {
        let c = Vector3::new(0.0, 1.0, 0.0);
        assert_eq!(lowest_rim_point(&c, &Vector3::z(), 0.06, 0.05), 0.94);
        // Axle vertical: the lower rim's plane, h below.
        assert!((lowest_rim_point(&c, &Vector3::y(), 0.06, 0.05) - 0.95).abs() < 1e-15);
        // In between it is the lowest of the rim circles' points, found by sampling.
        let axle = Vector3::new(0.0, 0.5f64.sin(), 0.5f64.cos());
        let (u, v) = (Vector3::x(), axle.cross(&Vector3::x()));
        let sampled = (0..100_000)
            .map(|i| {
                let phi = i as f64 * std::f64::consts::TAU / 100_000.0;
                [-1.0, 1.0]
                    .map(|side| {
                        (c + axle * (side * 0.05) + (u * phi.cos() + v * phi.sin()) * 0.06).y
                    })
                    .into_iter()
                    .fold(f64::INFINITY, f64::min)
            })
            .fold(f64::INFINITY, f64::min);
        assert!((lowest_rim_point(&c, &axle, 0.06, 0.05) - sampled).abs() < 1e-9);
    }
}

//! The axle's direction as two angles, the one convention the model, replay and the reports
//! share.
//!
//! Axes: x right in the hands' plane, y up, z out of that plane toward the audience. An axle
//! direction a (any length but zero; it is normalised here) has
//!
//! - **tilt** = asin(a_y / |a|): its elevation above the horizontal, degrees, positive when a
//!   points upward (the end a points to is the higher one);
//! - **turn** = atan2(a_x, a_z): its azimuth about the vertical, degrees, measured from +z
//!   toward +x: a positive turn is a right-handed rotation about +y, counter-clockwise as seen
//!   from above. A level axle straight out of the plane, (0, 0, 1), has tilt 0 and turn 0.
//!
//! An axle is a line: a and -a are the same axle, with the spin's sign flipped. The recordings
//! give the direction with a_z >= 0 ([`facing_audience`]), the spin about that direction; both
//! angles are then of the end toward the audience (the near end): tilt > 0 is the near end up,
//! turn > 0 the near end swung toward +x. Compare angles of directions in that form (or use
//! [`turn_difference`], which treats the turn of a line modulo 180 degrees).

use nalgebra::Vector3;

/// The axle's elevation above the horizontal, degrees: asin(a_y / |a|), in [-90, 90].
pub fn tilt(a: &Vector3<f64>) -> f64 {
    (a.y / a.norm()).clamp(-1.0, 1.0).asin().to_degrees()
}

/// The axle's azimuth about the vertical, degrees: atan2(a_x, a_z), from +z toward +x, in
/// (-180, 180]; in (-90, 90] for a direction with a_z >= 0 (0 when a is vertical).
pub fn turn(a: &Vector3<f64>) -> f64 {
    a.x.atan2(a.z).to_degrees()
}

/// The direction of the axle line `a` whose z is not negative (a, or -a), as the recordings
/// give it; a direction in the plane (a_z = 0) is kept as it is.
pub fn facing_audience(a: &Vector3<f64>) -> Vector3<f64> {
    if a.z < 0.0 {
        -a
    } else {
        *a
    }
}

/// The axle direction of `tilt` and `turn` (degrees), unit length: the inverse of [`tilt`] and
/// [`turn`].
pub fn direction(tilt: f64, turn: f64) -> Vector3<f64> {
    let (e, z) = (tilt.to_radians(), turn.to_radians());
    Vector3::new(e.cos() * z.sin(), e.sin(), e.cos() * z.cos())
}

/// The turn of axle line `a` minus that of `b`, degrees, wrapped into (-90, 90]: the smallest
/// rotation about the vertical between the two lines (a line's turn is defined modulo 180).
pub fn turn_difference(a: &Vector3<f64>, b: &Vector3<f64>) -> f64 {
    let d = (turn(a) - turn(b)).rem_euclid(180.0);
    if d > 90.0 {
        d - 180.0
    } else {
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angles_of_the_axes_and_their_inverse() {
        let out = Vector3::new(0.0, 0.0, 1.0);
        assert_eq!((tilt(&out), turn(&out)), (0.0, 0.0));
        assert!((turn(&Vector3::new(1.0, 0.0, 0.0)) - 90.0).abs() < 1e-12);
        assert!((tilt(&Vector3::new(0.0, 2.0, 0.0)) - 90.0).abs() < 1e-12);
        // Near end up 10 degrees and swung 30 degrees toward +x.
        let a = direction(10.0, 30.0);
        assert!((a.norm() - 1.0).abs() < 1e-12);
        assert!(a.x > 0.0 && a.y > 0.0 && a.z > 0.0);
        assert!((tilt(&(3.0 * a)) - 10.0).abs() < 1e-12);
        assert!((turn(&a) - 30.0).abs() < 1e-12);
    }

    #[test]
    fn an_axle_line_has_one_direction_toward_the_audience() {
        let a = direction(-5.0, 20.0);
        let flipped = facing_audience(&-a);
        assert_eq!(flipped, a);
        assert!((tilt(&-a) + tilt(&a)).abs() < 1e-12);
        assert!(turn_difference(&-a, &a).abs() < 1e-12);
        let (b, c) = (direction(0.0, 89.0), direction(0.0, -89.0));
        assert!((turn_difference(&b, &c) + 2.0).abs() < 1e-9);
    }
}

//! What the hands do to the sticks over time (docs/interface.md, `drive`): a force, nothing
//! (released), an acceleration, a prescribed path, or a hand that pulls the stick toward a path
//! with a stiffness, a damping and a force limit.
//!
//! Every drive is generic over the dimension `D` of the sticks' motion: 2 (the default, x-y in
//! the hands' plane, what the planar simulator uses under the plain names) or 3 (x, y and z
//! toward the audience). One implementation serves both: the drives work on each component
//! alone (and on norms), so a 3D drive's x-y components are the planar drive's to the last bit.

use nalgebra::SVector;
use thiserror::Error;

use crate::display::Compact;
use crate::model::{Body, StickInput};

mod path;

pub use path::{ClampedSpline, MonotoneCubic, Path, PathPoint, Polyline, SampledPath, Side};

/// A drive that cannot be built from its description.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum DriveError {
    /// Too few keyframes or samples.
    #[error("{what} needs at least {needed} points, got {got}")]
    TooFewPoints {
        /// The list, in words ("path samples").
        what: &'static str,
        /// Points the drive needs.
        needed: usize,
        /// Points given.
        got: usize,
    },
    #[error("{what}: times must increase ({} after {} at index {index})", Compact(*later), Compact(*earlier))]
    /// A point's time is not after the previous one's.
    TimesNotIncreasing {
        /// The list, in words.
        what: &'static str,
        /// Index of the offending point.
        index: usize,
        /// Time of the previous point, s.
        earlier: f64,
        /// Time of the offending point, s.
        later: f64,
    },
    /// A point's time or value is NaN or infinite.
    #[error("{what}: value at index {index} is not finite")]
    NonFinite {
        /// The list, in words.
        what: &'static str,
        /// Index of the offending point.
        index: usize,
    },
    #[error("{what} must be a finite number greater than 0, got {}", Compact(*value))]
    /// A parameter that must be finite and positive is not.
    NotPositive {
        /// The parameter, in words ("smoothing window").
        what: &'static str,
        /// The value given, in the parameter's unit.
        value: f64,
    },
}

/// A `D`-vector over time (x-y by default): constant, or linear between keyframes (held at the
/// end values outside them).
#[derive(Clone, Debug, PartialEq)]
pub enum Schedule<const D: usize = 2> {
    /// The same value at every time.
    Constant(SVector<f64, D>),
    /// Keyframes (t, value), t in s and increasing.
    Keyframes(Vec<(f64, SVector<f64, D>)>),
}

impl<const D: usize> Schedule<D> {
    /// Times where the schedule is not smooth (its keyframes), s.
    fn knots(&self) -> Vec<f64> {
        match self {
            Self::Constant(_) => Vec::new(),
            Self::Keyframes(points) => points.iter().map(|p| p.0).collect(),
        }
    }

    /// Keyframes (t, value), checked: at least one, times increasing, all finite.
    pub fn keyframes(points: Vec<(f64, SVector<f64, D>)>) -> Result<Self, DriveError> {
        check_points("keyframes", &points, 1)?;
        Ok(Self::Keyframes(points))
    }

    /// The value at time t.
    pub fn at(&self, t: f64) -> SVector<f64, D> {
        match self {
            Self::Constant(v) => *v,
            Self::Keyframes(points) => {
                let i = points.partition_point(|(ti, _)| *ti <= t);
                if i == 0 {
                    return points[0].1;
                }
                if i == points.len() {
                    return points[i - 1].1;
                }
                let ((t0, v0), (t1, v1)) = (points[i - 1], points[i]);
                v0 + (v1 - v0) * ((t - t0) / (t1 - t0))
            }
        }
    }
}

/// At least `needed` points, each time and every component of each value finite, times
/// increasing.
fn check_points<const D: usize>(
    what: &'static str,
    points: &[(f64, SVector<f64, D>)],
    needed: usize,
) -> Result<(), DriveError> {
    if points.len() < needed {
        return Err(DriveError::TooFewPoints {
            what,
            needed,
            got: points.len(),
        });
    }
    for (index, (t, v)) in points.iter().enumerate() {
        if !(t.is_finite() && v.iter().all(|c| c.is_finite())) {
            return Err(DriveError::NonFinite { what, index });
        }
        if index > 0 && *t <= points[index - 1].0 {
            return Err(DriveError::TimesNotIncreasing {
                what,
                index,
                earlier: points[index - 1].0,
                later: *t,
            });
        }
    }
    Ok(())
}

/// How close (m) the sticks on their paths may come to the string length before
/// [`reach_warning`] warns: nearer, the string is almost straight and its tension huge.
pub const REACH_MARGIN: f64 = 0.01;

/// Most samples [`reach_warning`] takes over a run (a long run is sampled more coarsely).
const REACH_SAMPLES: f64 = 1e6;

/// Sticks whose paths bring them within [`REACH_MARGIN`] of the string length, or beyond.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
#[error(
    "at t = {} s the sticks' paths are {:.4} m apart, {} the string length {} m: the string is nearly straight there and the run may crawl or stop; {}",
    Compact(*t), distance,
    if distance > length { "beyond".to_string() } else { format!("within {} m of", Compact(REACH_MARGIN)) },
    Compact(*length),
    if *cubic {
        "use \"interpolation\": \"pchip\" on the keyframe paths (the cubic spline overshoots its keyframes) or keep the sticks closer together"
    } else {
        "keep the sticks closer together or lengthen params.string_length"
    }
)]
pub struct ReachWarning {
    /// When the sticks are farthest apart, s.
    pub t: f64,
    /// Their distance then, m.
    pub distance: f64,
    /// The string length, m.
    pub length: f64,
    /// Whether a stick follows a cubic spline through keyframes (`pchip` would not overshoot).
    pub cubic: bool,
}

/// A warning when both sticks follow (or track) paths that bring them within [`REACH_MARGIN`]
/// of `length` (m) at some time of the run, from 0 to `duration` s: the paths are sampled
/// every millisecond or every twentieth of the shortest keyframe spacing (at most
/// 10^6 samples), and at every keyframe.
pub fn reach_warning<const D: usize>(
    drives: &[Drive<D>; 2],
    length: f64,
    duration: f64,
) -> Option<ReachWarning> {
    let (Some(left), Some(right)) = (drives[0].path(), drives[1].path()) else {
        return None;
    };
    let mut times: Vec<f64> = left.knots();
    times.extend(right.knots());
    times.sort_by(f64::total_cmp);
    let spacing = times
        .iter()
        .zip(times.iter().skip(1))
        .map(|(a, b)| (b - a).abs())
        .filter(|h| *h > 0.0)
        .fold(f64::INFINITY, f64::min);
    let step = (1e-3_f64).min(spacing / 20.0).max(duration / REACH_SAMPLES);
    let samples = (duration / step).ceil() as usize;
    times.retain(|t| (0.0..=duration).contains(t));
    times.extend((0..=samples).map(|k| (k as f64 * step).min(duration)));
    let distance = |t: f64| (right.at(t).pos - left.at(t).pos).norm();
    let (t, farthest) =
        times
            .into_iter()
            .map(|t| (t, distance(t)))
            .fold((0.0, f64::NEG_INFINITY), |best, s| {
                if s.1 > best.1 {
                    s
                } else {
                    best
                }
            });
    (farthest > length - REACH_MARGIN).then_some(ReachWarning {
        t,
        distance: farthest,
        length,
        cubic: [left, right]
            .iter()
            .any(|p| matches!(p, Path::Keyframes(_))),
    })
}

/// A hand that pulls its stick toward a path: F = k (p - x) + b (p' - v), at most `max_force`
/// in norm (in every dimension: the force keeps its direction).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tracking {
    /// k, N/m.
    pub stiffness: f64,
    /// b, N s/m.
    pub damping: f64,
    /// Largest force the hand applies, N.
    pub max_force: f64,
}

/// Rate (1/s) at which a path-driven stick's integration drift is pulled back onto its path
/// (critically damped): small enough not to limit the step size, large enough that round-off
/// never accumulates.
pub const PATH_CORRECTION_RATE: f64 = 5.0;

/// What one hand does, in `D` dimensions (x-y by default; `Drive<3>` in space).
#[derive(Clone, Debug, PartialEq)]
pub enum Drive<const D: usize = 2> {
    /// The hand lets go: no force on the stick.
    Released,
    /// The hand applies this force to the stick, N.
    Force(Schedule<D>),
    /// The stick has this acceleration, m/s^2.
    Accel(Schedule<D>),
    /// The stick follows the path exactly (infinitely heavy for the tension and the impulse).
    Path(Path<D>),
    /// The stick is pulled toward the path by a hand with its own stiffness and limit.
    Tracking(Path<D>, Tracking),
}

impl<const D: usize> Drive<D> {
    /// Whether the stick's motion is prescribed (path drive): it is infinitely heavy.
    pub fn prescribes_motion(&self) -> bool {
        matches!(self, Self::Path(_))
    }

    /// Whether the hand imposes the stick's acceleration (an `accel` or `path` drive): it has
    /// no force limit, and with both sticks so driven the force to hold a straight string
    /// diverges (docs/model.md, "Both sticks acceleration-driven").
    pub fn imposes_acceleration(&self) -> bool {
        matches!(self, Self::Accel(_) | Self::Path(_))
    }

    /// Times where the drive's input is not smooth (keyframes, samples), s, unsorted: the
    /// integrator ends its steps there instead of stepping over a jump in a derivative.
    pub fn breakpoints(&self) -> Vec<f64> {
        match self {
            Self::Released => Vec::new(),
            Self::Force(schedule) | Self::Accel(schedule) => schedule.knots(),
            Self::Path(path) | Self::Tracking(path, _) => path.knots(),
        }
    }

    /// Times where the stick's velocity jumps (the keyframes of a followed linear path), s:
    /// the run ends its steps there and gives the stick its path's new velocity.
    pub fn velocity_jumps(&self) -> Vec<f64> {
        match self {
            Self::Path(path @ Path::Linear(_)) => path.knots(),
            _ => Vec::new(),
        }
    }

    /// The path a stick follows or tracks, if any.
    pub fn path(&self) -> Option<&Path<D>> {
        match self {
            Self::Path(p) | Self::Tracking(p, _) => Some(p),
            _ => None,
        }
    }

    /// The model input at time t for a stick in state `stick`.
    pub fn input(&self, t: f64, stick: &Body<D>) -> StickInput<D> {
        self.input_on_path(t, stick).0
    }

    /// [`Drive::input`], with the path's point at t when the stick follows a path.
    pub fn input_on_path(&self, t: f64, stick: &Body<D>) -> (StickInput<D>, Option<PathPoint<D>>) {
        self.input_on_side(t, stick, Side::After)
    }

    /// [`Drive::input_on_path`], a path's knot at t read on `side` of it (`Side::Before`: the
    /// limit from before, for the last stage of a step that lands on the knot).
    pub fn input_on_side(
        &self,
        t: f64,
        stick: &Body<D>,
        side: Side,
    ) -> (StickInput<D>, Option<PathPoint<D>>) {
        let input = match self {
            Self::Released => StickInput::RELEASED,
            Self::Force(schedule) => StickInput::Force(schedule.at(t)),
            Self::Accel(schedule) => StickInput::Accel(schedule.at(t)),
            Self::Path(path) => {
                // The path's acceleration, with a critically damped pull-back of any drift.
                let p = path.at_side(t, side);
                let w = PATH_CORRECTION_RATE;
                let pull = p.acc + 2.0 * w * (p.vel - stick.vel) + w * w * (p.pos - stick.pos);
                return (StickInput::Accel(pull), Some(p));
            }
            Self::Tracking(path, hand) => {
                let p = path.at_side(t, side);
                let force =
                    hand.stiffness * (p.pos - stick.pos) + hand.damping * (p.vel - stick.vel);
                let size = force.norm();
                StickInput::Force(if size > hand.max_force {
                    force * (hand.max_force / size)
                } else {
                    force
                })
            }
        };
        (input, None)
    }
}

/// L - |p_right(t) - p_left(t)| when both sticks follow paths (they cannot be farther apart than
/// the string is long), m; 1 otherwise.
pub fn path_margin<const D: usize>(drives: &[Drive<D>; 2], string_length: f64, t: f64) -> f64 {
    match (&drives[0], &drives[1]) {
        (Drive::Path(a), Drive::Path(b)) => string_length - (b.at(t).pos - a.at(t).pos).norm(),
        _ => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use nalgebra::{Vector2, Vector3};

    use super::*;

    fn v(x: f64, y: f64) -> Vector2<f64> {
        Vector2::new(x, y)
    }

    fn finite_difference<const D: usize>(
        path: &Path<D>,
        t: f64,
    ) -> (SVector<f64, D>, SVector<f64, D>) {
        let h = 1e-5;
        let (a, b, c) = (path.at(t - h).pos, path.at(t).pos, path.at(t + h).pos);
        ((c - a) / (2.0 * h), (c - 2.0 * b + a) / (h * h))
    }

    /// The keyframes of the clamped spline tests.
    fn spline_keys() -> Vec<(f64, Vector2<f64>)> {
        vec![
            (0.0, v(0.0, 0.0)),
            (0.4, v(0.3, 0.1)),
            (1.0, v(-0.2, 0.5)),
            (1.3, v(0.0, 0.2)),
        ]
    }

    /// The spline leaving `spline_keys` at `start`: through every keyframe, leaving the first at
    /// `start` and at rest at the last, C2 at the interior keyframes, its derivatives those of
    /// its positions (central differences), held at its ends outside them.
    fn check_clamped_spline(start: Vector2<f64>) {
        let keys = spline_keys();
        let spline = ClampedSpline::leaving(keys.clone(), start).unwrap();
        for (t, p) in &keys {
            assert!((spline.at(*t).pos - p).norm() < 1e-14);
        }
        assert!((spline.at(0.0).vel - start).norm() < 1e-13);
        assert!(spline.at(1.3 - 1e-12).vel.norm() < 1e-9);
        for t in [0.4, 1.0] {
            let (before, after) = (spline.at(t - 1e-9), spline.at(t + 1e-9));
            assert!((before.vel - after.vel).norm() < 1e-6);
            assert!((before.acc - after.acc).norm() < 1e-6);
        }
        let path = Path::Keyframes(spline);
        for t in [0.1, 0.5, 0.77, 1.2] {
            let (vel, acc) = finite_difference(&path, t);
            assert!((path.at(t).vel - vel).norm() < 1e-7);
            assert!((path.at(t).acc - acc).norm() < 1e-3);
        }
        assert_eq!(path.at(-1.0).pos, keys[0].1);
        assert_eq!(path.at(5.0).pos, keys[3].1);
    }

    #[test]
    fn clamped_spline_passes_through_keyframes_starts_and_ends_at_rest_and_is_c2() {
        check_clamped_spline(v(0.0, 0.0));
        assert_eq!(
            ClampedSpline::new(spline_keys()).unwrap(),
            ClampedSpline::leaving(spline_keys(), v(0.0, 0.0)).unwrap()
        );
    }

    // `"start_velocity"`: the spline leaves its first keyframe at the given velocity, is at rest
    // at its last, passes through every keyframe and stays C2.
    #[test]
    fn a_clamped_spline_leaving_at_a_velocity_starts_with_it_and_stays_c2() {
        check_clamped_spline(v(1.5, -0.7));
    }

    #[test]
    fn sine_path_derivatives_match_finite_differences() {
        let path = Path::Sine {
            center: v(0.1, 0.2),
            amplitude: v(0.3, 0.05),
            frequency: 1.7,
            phase: v(0.0, 1.0),
        };
        for t in [0.0, 0.3, 1.1] {
            let (vel, acc) = finite_difference(&path, t);
            assert!((path.at(t).vel - vel).norm() < 1e-7);
            assert!((path.at(t).acc - acc).norm() < 1e-3);
        }
    }

    #[test]
    fn sampled_path_reproduces_cubic_motion_exactly() {
        let motion = |t: f64| {
            v(
                0.2 + 0.5 * t - 0.3 * t * t + 0.7 * t * t * t,
                -0.1 * t + 0.4 * t * t * t,
            )
        };
        let velocity = |t: f64| v(0.5 - 0.6 * t + 2.1 * t * t, -0.1 + 1.2 * t * t);
        let accel = |t: f64| v(-0.6 + 4.2 * t, 2.4 * t);
        // Uneven sampling, as in a recording with dropped frames.
        let times: Vec<f64> = (0..60)
            .map(|i| i as f64 / 120.0 + if i % 7 == 3 { 1.0 / 240.0 } else { 0.0 })
            .collect();
        let samples = times.iter().map(|&t| (t, motion(t))).collect();
        let path = SampledPath::new(samples, 0.03).unwrap();
        for t in [0.05, 0.101, 0.2, 0.33, 0.45] {
            let p = path.at(t);
            assert!((p.pos - motion(t)).norm() < 1e-10, "{t}");
            assert!((p.vel - velocity(t)).norm() < 1e-8, "{t}");
            assert!((p.acc - accel(t)).norm() < 1e-6, "{t}");
        }
    }

    #[test]
    fn sampled_path_smooths_noise() {
        // Millimetre noise on a still hand: the smoothed velocity stays small.
        let samples = (0..240).map(|i| {
            let noise = if i % 2 == 0 { 0.001 } else { -0.001 };
            (i as f64 / 120.0, v(noise, -noise))
        });
        let path = SampledPath::new(samples.collect(), 0.05).unwrap();
        let raw_speed = 0.002 * 120.0;
        assert!(
            path.at(1.0).vel.norm() < 0.1 * raw_speed,
            "{}",
            path.at(1.0).vel.norm()
        );
    }

    #[test]
    fn bad_keyframes_are_rejected_with_the_reason() {
        assert!(matches!(
            Schedule::<2>::keyframes(vec![]),
            Err(DriveError::TooFewPoints { .. })
        ));
        let unsorted = vec![(0.0, v(0.0, 0.0)), (0.8, v(0.0, 0.0)), (0.5, v(0.0, 0.0))];
        assert_eq!(
            ClampedSpline::new(unsorted).unwrap_err(),
            DriveError::TimesNotIncreasing {
                what: "path keyframes",
                index: 2,
                earlier: 0.8,
                later: 0.5
            }
        );
        assert!(matches!(
            SampledPath::new(vec![(0.0, v(f64::NAN, 0.0)); 5], 0.1),
            Err(DriveError::NonFinite { .. })
        ));
    }

    #[test]
    fn tracking_hand_force_is_capped() {
        let path = Path::Sine {
            center: v(1.0, 0.0),
            amplitude: v(0.0, 0.0),
            frequency: 1.0,
            phase: v(0.0, 0.0),
        };
        let drive = Drive::Tracking(
            path,
            Tracking {
                stiffness: 100.0,
                damping: 5.0,
                max_force: 2.0,
            },
        );
        let StickInput::Force(f) = drive.input(0.0, &Body::default()) else {
            panic!("force expected")
        };
        assert!((f.norm() - 2.0).abs() < 1e-12 && f.x > 0.0);
    }

    #[test]
    fn linear_schedule_interpolates_and_holds() {
        let s = Schedule::keyframes(vec![(1.0, v(0.0, 2.0)), (3.0, v(4.0, 0.0))]).unwrap();
        assert_eq!(s.at(0.0), v(0.0, 2.0));
        assert_eq!(s.at(2.0), v(2.0, 1.0));
        assert_eq!(s.at(9.0), v(4.0, 0.0));
    }

    // 3D drives: one implementation for every dimension. The x-y components of a 3D path are the
    // planar path's to the last bit, and z follows its own keyframes.

    /// Keyframes (t, x, y) with a z per keyframe: the planar keyframes and the 3D ones.
    type Keys2 = Vec<(f64, Vector2<f64>)>;
    type Keys3 = Vec<(f64, Vector3<f64>)>;

    fn lift(planar: &[(f64, Vector2<f64>)], z: impl Fn(f64) -> f64) -> Keys3 {
        planar
            .iter()
            .map(|(t, p)| (*t, Vector3::new(p.x, p.y, z(*t))))
            .collect()
    }

    /// Times to read paths at: before, at and between the keyframes, and after them.
    fn reading_times(knots: &[f64]) -> Vec<f64> {
        let (first, last) = (knots[0], knots[knots.len() - 1]);
        let mut times: Vec<f64> = (0..=400)
            .map(|k| first - 0.2 + (last - first + 0.4) * k as f64 / 400.0)
            .collect();
        times.extend(knots);
        times
    }

    /// Every component bit for bit (0.0 and -0.0 differ; NaN would fail).
    fn same_bits<const A: usize, const B: usize>(a: &SVector<f64, A>, b: &SVector<f64, B>) -> bool {
        a.iter()
            .zip(b.iter())
            .all(|(u, w)| u.to_bits() == w.to_bits())
    }

    fn assert_xy_is_planar(planar: &Path, space: &Path<3>, t: f64) {
        let (p2, p3) = (planar.at(t), space.at(t));
        assert!(
            same_bits(&p3.pos.xy(), &p2.pos)
                && same_bits(&p3.vel.xy(), &p2.vel)
                && same_bits(&p3.acc.xy(), &p2.acc),
            "t = {t}: {p3:?} against {p2:?}"
        );
    }

    fn keyframes_2() -> Keys2 {
        vec![
            (0.0, v(0.0, 0.0)),
            (0.25, v(0.3, 0.1)),
            (0.6, v(-0.2, 0.5)),
            (1.0, v(0.0, 0.2)),
        ]
    }

    /// z = 0.4 t^2 (3 - 2 t) + 1: a cubic at rest at t = 0 and t = 1, so a clamped spline through
    /// any keyframes on it from 0 to 1 is the cubic itself.
    fn cubic_z(t: f64) -> (f64, f64, f64) {
        (
            0.4 * t * t * (3.0 - 2.0 * t) + 1.0,
            0.4 * (6.0 * t - 6.0 * t * t),
            0.4 * (6.0 - 12.0 * t),
        )
    }

    #[test]
    fn a_3d_spline_is_the_planar_spline_in_x_y_and_reproduces_a_cubic_in_z() {
        let planar_keys = keyframes_2();
        let keys = lift(&planar_keys, |t| cubic_z(t).0);
        let planar = Path::Keyframes(ClampedSpline::new(planar_keys).unwrap());
        let space = Path::Keyframes(ClampedSpline::new(keys).unwrap());
        assert_eq!(space.knots(), planar.knots());
        for t in reading_times(&planar.knots()) {
            assert_xy_is_planar(&planar, &space, t);
            let p = space.at(t);
            let (z, vz, az) = cubic_z(t.clamp(0.0, 1.0));
            let az = if (0.0..1.0).contains(&t) { az } else { 0.0 };
            assert!(
                (p.pos.z - z).abs() < 1e-14,
                "t = {t}: z {} against {z}",
                p.pos.z
            );
            assert!(
                (p.vel.z - vz).abs() < 1e-13,
                "t = {t}: z' {} against {vz}",
                p.vel.z
            );
            assert!(
                (p.acc.z - az).abs() < 1e-12,
                "t = {t}: z'' {} against {az}",
                p.acc.z
            );
        }
        for t in [0.1, 0.4, 0.77, 0.95] {
            let (vel, acc) = finite_difference(&space, t);
            assert!((space.at(t).vel - vel).norm() < 1e-7, "t = {t}");
            assert!((space.at(t).acc - acc).norm() < 1e-3, "t = {t}");
        }
    }

    #[test]
    fn a_3d_pchip_and_polyline_are_the_planar_ones_in_x_y_and_follow_their_z_keyframes() {
        let planar_keys = keyframes_2();
        // z rises, holds, falls: each piece of the monotone cubic stays within its keyframes.
        let z_keys = [0.9, 1.2, 1.2, 1.0];
        let keys: Keys3 = planar_keys
            .iter()
            .zip(z_keys)
            .map(|((t, p), z)| (*t, Vector3::new(p.x, p.y, z)))
            .collect();
        let pairs = [
            (
                Path::Monotone(MonotoneCubic::new(planar_keys.clone()).unwrap()),
                Path::Monotone(MonotoneCubic::new(keys.clone()).unwrap()),
            ),
            (
                Path::Linear(Polyline::new(planar_keys.clone()).unwrap()),
                Path::Linear(Polyline::new(keys.clone()).unwrap()),
            ),
        ];
        for (planar, space) in &pairs {
            assert_eq!(space.knots(), planar.knots());
            for t in reading_times(&planar.knots()) {
                assert_xy_is_planar(planar, space, t);
            }
            for (i, (t, key)) in keys.iter().enumerate() {
                assert_eq!(space.at(*t).pos, *key, "keyframe {i}");
                if let Some((next, after)) = keys.get(i + 1) {
                    let (low, high) = (key.z.min(after.z), key.z.max(after.z));
                    for k in 1..20 {
                        let z = space.at(t + (next - t) * k as f64 / 20.0).pos.z;
                        assert!((low..=high).contains(&z), "piece {i}: z = {z}");
                    }
                }
            }
        }
        // The polyline's z is straight between its keyframes, its velocity the piece's slope.
        let Path::Linear(polyline) = &pairs[1].1 else {
            unreachable!()
        };
        let p = polyline.at(0.8);
        assert!((p.pos.z - 1.1).abs() < 1e-15 && (p.vel.z + 0.5).abs() < 1e-14);
        let (before, after) = polyline.velocity_jump(0.6);
        assert!(
            before.z == 0.0 && (after.z + 0.5).abs() < 1e-15,
            "{before} {after}"
        );
    }

    #[test]
    fn a_3d_recording_is_the_planar_one_in_x_y_and_reproduces_cubic_motion_in_z() {
        let times: Vec<f64> = (0..60)
            .map(|i| i as f64 / 120.0 + if i % 7 == 3 { 1.0 / 240.0 } else { 0.0 })
            .collect();
        // Noisy x-y (the smoothing is not exact there), a cubic in z (exact).
        let planar_samples: Keys2 = times
            .iter()
            .enumerate()
            .map(|(i, &t)| (t, v(0.3 * t + 0.001 * (i % 3) as f64, (5.0 * t).sin())))
            .collect();
        let z = |t: f64| 1.0 - 0.2 * t + 0.5 * t * t - 0.9 * t * t * t;
        let samples = lift(&planar_samples, z);
        let planar = Path::Samples(SampledPath::new(planar_samples, 0.03).unwrap());
        let space = Path::Samples(SampledPath::new(samples, 0.03).unwrap());
        assert_eq!(space.knots(), planar.knots());
        for t in reading_times(&planar.knots()) {
            assert_xy_is_planar(&planar, &space, t);
        }
        for t in [0.05, 0.101, 0.2, 0.33, 0.45] {
            let p = space.at(t);
            assert!((p.pos.z - z(t)).abs() < 1e-10, "{t}");
            assert!((p.vel.z - (-0.2 + t - 2.7 * t * t)).abs() < 1e-8, "{t}");
            assert!((p.acc.z - (1.0 - 5.4 * t)).abs() < 1e-6, "{t}");
        }
    }

    #[test]
    fn a_3d_sine_and_schedule_are_the_planar_ones_in_x_y() {
        let planar = Path::Sine {
            center: v(0.1, 0.2),
            amplitude: v(0.3, 0.05),
            frequency: 1.7,
            phase: v(0.0, 1.0),
        };
        let space = Path::Sine {
            center: Vector3::new(0.1, 0.2, 1.5),
            amplitude: Vector3::new(0.3, 0.05, 0.02),
            frequency: 1.7,
            phase: Vector3::new(0.0, 1.0, -0.4),
        };
        for t in reading_times(&[0.0, 2.0]) {
            assert_xy_is_planar(&planar, &space, t);
            let w = std::f64::consts::TAU * 1.7;
            assert_eq!(space.at(t).pos.z, 1.5 + 0.02 * (w * t - 0.4).sin());
        }
        let (vel, acc) = finite_difference(&space, 0.3);
        assert!((space.at(0.3).vel - vel).norm() < 1e-7 && (space.at(0.3).acc - acc).norm() < 1e-3);
        let planar_keys = vec![(1.0, v(0.0, 2.0)), (3.0, v(4.0, 0.0))];
        let planar = Schedule::keyframes(planar_keys.clone()).unwrap();
        let space = Schedule::keyframes(lift(&planar_keys, |t| t * t)).unwrap();
        for t in reading_times(&[1.0, 3.0]) {
            assert!(same_bits(&space.at(t).xy(), &planar.at(t)), "t = {t}");
        }
        assert_eq!(space.at(2.0).z, 5.0);
    }

    #[test]
    fn every_component_of_a_keyframe_must_be_finite() {
        for bad in [f64::NAN, f64::INFINITY] {
            let keys = vec![
                (0.0, Vector3::new(0.0, 0.0, 0.0)),
                (1.0, Vector3::new(0.0, 0.0, bad)),
            ];
            let expected = DriveError::NonFinite {
                what: "path keyframes",
                index: 1,
            };
            assert_eq!(ClampedSpline::new(keys.clone()).unwrap_err(), expected);
            assert_eq!(MonotoneCubic::new(keys.clone()).unwrap_err(), expected);
            assert_eq!(Polyline::new(keys.clone()).unwrap_err(), expected);
            assert!(matches!(
                Schedule::keyframes(keys.clone()),
                Err(DriveError::NonFinite { index: 1, .. })
            ));
            let samples = vec![(0.0, Vector3::new(bad, 0.0, 0.0)); 5];
            assert!(matches!(
                SampledPath::new(samples, 0.1),
                Err(DriveError::NonFinite { index: 0, .. })
            ));
        }
    }

    #[test]
    fn a_3d_tracking_hand_force_is_capped_by_its_norm_in_space() {
        // The path's point is (1, 0, 2) at rest; the stick at the origin, moving in z.
        let path = Path::Sine {
            center: Vector3::new(1.0, 0.0, 2.0),
            amplitude: Vector3::zeros(),
            frequency: 1.0,
            phase: Vector3::zeros(),
        };
        let hand = Tracking {
            stiffness: 100.0,
            damping: 5.0,
            max_force: 2.0,
        };
        let stick = Body {
            pos: Vector3::zeros(),
            vel: Vector3::new(0.0, 0.0, -1.0),
        };
        let drive = Drive::Tracking(path.clone(), hand);
        let StickInput::Force(f) = drive.input(0.0, &stick) else {
            panic!("force expected")
        };
        let uncapped = Vector3::<f64>::new(100.0, 0.0, 205.0);
        assert!((f.norm() - 2.0).abs() < 1e-12, "{f}");
        assert!(
            (f - uncapped * (2.0 / uncapped.norm())).norm() < 1e-15,
            "{f}"
        );
        // Within the cap, the force is the spring and the damper's, z included.
        let near = Body {
            pos: Vector3::new(0.99, 0.0, 1.995),
            vel: Vector3::zeros(),
        };
        let StickInput::Force(f) = drive.input(0.0, &near) else {
            panic!("force expected")
        };
        assert!((f - Vector3::new(1.0, 0.0, 0.5)).norm() < 1e-12, "{f}");
        // A followed path pulls a drifted stick back in z as in x-y.
        let (StickInput::Accel(a), Some(point)) = Drive::Path(path).input_on_path(0.0, &near)
        else {
            panic!("acceleration and point expected")
        };
        let w = PATH_CORRECTION_RATE;
        assert_eq!(point.pos, Vector3::new(1.0, 0.0, 2.0));
        assert!(
            (a - w * w * Vector3::new(0.01, 0.0, 0.005)).norm() < 1e-12,
            "{a}"
        );
        assert_eq!(
            Drive::<3>::Released.input(0.0, &near),
            StickInput::Force(Vector3::zeros())
        );
    }
}

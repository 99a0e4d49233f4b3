//! What the hands do to the sticks over time (docs/interface.md, `drive`): a force, nothing
//! (released), an acceleration, a prescribed path, or a hand that pulls the stick toward a path
//! with a stiffness, a damping and a force limit.

use nalgebra::Vector2;
use thiserror::Error;

use crate::display::Compact;
use crate::model::{Body, StickInput};

mod path;

pub use path::{ClampedSpline, MonotoneCubic, Path, PathPoint, Polyline, SampledPath};

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

/// A 2-vector over time: constant, or linear between keyframes (held at the end values
/// outside them).
#[derive(Clone, Debug, PartialEq)]
pub enum Schedule {
    /// The same value at every time.
    Constant(Vector2<f64>),
    /// Keyframes (t, value), t in s and increasing.
    Keyframes(Vec<(f64, Vector2<f64>)>),
}

impl Schedule {
    /// Times where the schedule is not smooth (its keyframes), s.
    fn knots(&self) -> Vec<f64> {
        match self {
            Self::Constant(_) => Vec::new(),
            Self::Keyframes(points) => points.iter().map(|p| p.0).collect(),
        }
    }

    /// Keyframes (t, value), checked: at least one, times increasing, all finite.
    pub fn keyframes(points: Vec<(f64, Vector2<f64>)>) -> Result<Self, DriveError> {
        check_points("keyframes", &points, 1)?;
        Ok(Self::Keyframes(points))
    }

    /// The value at time t.
    pub fn at(&self, t: f64) -> Vector2<f64> {
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

fn check_points(
    what: &'static str,
    points: &[(f64, Vector2<f64>)],
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
        if !(t.is_finite() && v.x.is_finite() && v.y.is_finite()) {
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
pub fn reach_warning(drives: &[Drive; 2], length: f64, duration: f64) -> Option<ReachWarning> {
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

/// A hand that pulls its stick toward a path: F = k (p - x) + b (p' - v), at most `max_force`.
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

/// What one hand does.
#[derive(Clone, Debug, PartialEq)]
pub enum Drive {
    /// The hand lets go: no force on the stick.
    Released,
    /// The hand applies this force to the stick (x-y), N.
    Force(Schedule),
    /// The stick has this acceleration (x-y), m/s^2.
    Accel(Schedule),
    /// The stick follows the path exactly (infinitely heavy for the tension and the impulse).
    Path(Path),
    /// The stick is pulled toward the path by a hand with its own stiffness and limit.
    Tracking(Path, Tracking),
}

impl Drive {
    /// Whether the stick's motion is prescribed (path drive): it is infinitely heavy.
    pub fn prescribes_motion(&self) -> bool {
        matches!(self, Self::Path(_))
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
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::Path(p) | Self::Tracking(p, _) => Some(p),
            _ => None,
        }
    }

    /// The model input at time t for a stick in state `stick`.
    pub fn input(&self, t: f64, stick: &Body) -> StickInput {
        self.input_on_path(t, stick).0
    }

    /// [`Drive::input`], with the path's point at t when the stick follows a path.
    pub fn input_on_path(&self, t: f64, stick: &Body) -> (StickInput, Option<PathPoint>) {
        let input = match self {
            Self::Released => StickInput::RELEASED,
            Self::Force(schedule) => StickInput::Force(schedule.at(t)),
            Self::Accel(schedule) => StickInput::Accel(schedule.at(t)),
            Self::Path(path) => {
                // The path's acceleration, with a critically damped pull-back of any drift.
                let p = path.at(t);
                let w = PATH_CORRECTION_RATE;
                let pull = p.acc + 2.0 * w * (p.vel - stick.vel) + w * w * (p.pos - stick.pos);
                return (StickInput::Accel(pull), Some(p));
            }
            Self::Tracking(path, hand) => {
                let p = path.at(t);
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
pub fn path_margin(drives: &[Drive; 2], string_length: f64, t: f64) -> f64 {
    match (&drives[0], &drives[1]) {
        (Drive::Path(a), Drive::Path(b)) => string_length - (b.at(t).pos - a.at(t).pos).norm(),
        _ => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64) -> Vector2<f64> {
        Vector2::new(x, y)
    }

    fn finite_difference(path: &Path, t: f64) -> (Vector2<f64>, Vector2<f64>) {
        let h = 1e-5;
        let (a, b, c) = (path.at(t - h).pos, path.at(t).pos, path.at(t + h).pos);
        ((c - a) / (2.0 * h), (c - 2.0 * b + a) / (h * h))
    }

    #[test]
    fn clamped_spline_passes_through_keyframes_starts_and_ends_at_rest_and_is_c2() {
        let keys = vec![
            (0.0, v(0.0, 0.0)),
            (0.4, v(0.3, 0.1)),
            (1.0, v(-0.2, 0.5)),
            (1.3, v(0.0, 0.2)),
        ];
        let spline = ClampedSpline::new(keys.clone()).unwrap();
        for (t, p) in &keys {
            assert!((spline.at(*t).pos - p).norm() < 1e-14);
        }
        assert!(spline.at(0.0).vel.norm() < 1e-13 && spline.at(1.3 - 1e-12).vel.norm() < 1e-9);
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
            Schedule::keyframes(vec![]),
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
}

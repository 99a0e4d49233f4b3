//! Prescribed stick paths: a clamped spline or a monotone cubic through keyframes, a polyline,
//! or sampled positions smoothed into a path, each with its position, velocity and
//! acceleration at any time. Every path is generic over the dimension `D` of its points (2, the
//! default: x-y in the hands' plane; 3: x, y and z toward the audience) and works on each
//! component alone, so the x-y components of a 3D path are the planar path's to the last bit.

use std::sync::atomic::{AtomicUsize, Ordering};

use nalgebra::{SMatrix, SVector};

use super::{check_points, DriveError};

/// Position, velocity and acceleration of a path at one time, in `D` dimensions (x-y by
/// default; x, y, z in 3D).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathPoint<const D: usize = 2> {
    /// Position, m.
    pub pos: SVector<f64, D>,
    /// Velocity, m/s.
    pub vel: SVector<f64, D>,
    /// Acceleration, m/s^2.
    pub acc: SVector<f64, D>,
}

impl<const D: usize> Default for PathPoint<D> {
    /// At rest at the origin.
    fn default() -> Self {
        Self {
            pos: SVector::zeros(),
            vel: SVector::zeros(),
            acc: SVector::zeros(),
        }
    }
}

/// The piece a path was last read on: time runs forward within a step and from step to step,
/// so the next reading is almost always on the same piece or the next one. Only a shortcut:
/// the piece found is the one a binary search finds (equal whatever the hint, and whichever
/// thread reads).
#[derive(Debug, Default)]
pub(super) struct PieceHint(AtomicUsize);

impl Clone for PieceHint {
    fn clone(&self) -> Self {
        Self(AtomicUsize::new(self.0.load(Ordering::Relaxed)))
    }
}

impl PartialEq for PieceHint {
    /// A hint is not part of a path's value.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Which side of a knot a reading at the knot's own time takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The piece that starts at the knot (the path's value from t on).
    After,
    /// The piece that ends at the knot (the limit from before t): for the last stage of a step
    /// that lands on a knot, whose acceleration may jump there.
    Before,
}

impl PieceHint {
    /// How many of the `len` knots (times `time(k)`, increasing) t has passed: those at or
    /// before t (`Side::After`), or strictly before it (`Side::Before`); a partition point,
    /// tried first where the last reading was.
    fn knots_passed(&self, len: usize, time: impl Fn(usize) -> f64, t: f64, side: Side) -> usize {
        let passed = |k: usize| match side {
            Side::After => time(k) <= t,
            Side::Before => time(k) < t,
        };
        let fits = |i: usize| (i == 0 || passed(i - 1)) && (i == len || !passed(i));
        let last = self.0.load(Ordering::Relaxed);
        let i = if last <= len && fits(last) {
            last
        } else if last < len && fits(last + 1) {
            last + 1
        } else {
            let (mut low, mut high) = (0, len);
            while low < high {
                let mid = low + (high - low) / 2;
                if passed(mid) {
                    low = mid + 1;
                } else {
                    high = mid;
                }
            }
            low
        };
        self.0.store(i, Ordering::Relaxed);
        i
    }
}

/// A C2 cubic spline through keyframes with zero velocity at the first and last one (a hand
/// that starts and ends at rest), held at the first point before and the last point after.
#[derive(Clone, Debug, PartialEq)]
pub struct ClampedSpline<const D: usize = 2> {
    points: Vec<(f64, SVector<f64, D>)>,
    /// Per piece i (from keyframe i to i + 1), the polynomial in s = t - t_i:
    /// y_i + c1 s + c2 s^2 + c3 s^3 (no division at evaluation).
    coefficients: Vec<[SVector<f64, D>; 3]>,
    hint: PieceHint,
}

impl<const D: usize> ClampedSpline<D> {
    /// The spline through keyframes (t, position), t in s and increasing, position in m, at rest
    /// at its first and last keyframe; checked: at least one, all finite.
    pub fn new(points: Vec<(f64, SVector<f64, D>)>) -> Result<Self, DriveError> {
        Self::leaving(points, SVector::zeros())
    }

    /// The spline through keyframes (t, position) leaving the first at velocity `start` (m/s)
    /// and at rest at the last (`"start_velocity"`: a moving hand continued without a jump).
    /// With one keyframe `start` is not used (the hand holds still there).
    pub fn leaving(
        points: Vec<(f64, SVector<f64, D>)>,
        start: SVector<f64, D>,
    ) -> Result<Self, DriveError> {
        check_points("path keyframes", &points, 1)?;
        let n = points.len();
        let mut curvature = vec![SVector::zeros(); n];
        if n >= 2 {
            // Tridiagonal system for the second derivatives M_i with clamped ends (s' = v0 at
            // the first, 0 at the last): 2 h_0 M_0 + h_0 M_1 = 6 (d_0 - v0),
            // h_{i-1} M_{i-1} + 2 (h_{i-1} + h_i) M_i + h_i M_{i+1} = 6 (d_i - d_{i-1}),
            // h_{n-2} M_{n-2} + 2 h_{n-2} M_{n-1} = 6 (0 - d_{n-2}), d_i the slopes.
            let h: Vec<f64> = points.windows(2).map(|w| w[1].0 - w[0].0).collect();
            let slope = slopes(&points);
            let mut diag = vec![0.0; n];
            let mut upper = vec![0.0; n];
            let mut lower = vec![0.0; n];
            let mut rhs = vec![SVector::zeros(); n];
            for i in 0..n {
                let left = if i > 0 { h[i - 1] } else { 0.0 };
                let right = if i + 1 < n { h[i] } else { 0.0 };
                diag[i] = 2.0 * (left + right);
                lower[i] = left;
                upper[i] = right;
                let s_right = if i + 1 < n {
                    slope[i]
                } else {
                    SVector::zeros()
                };
                let s_left = if i > 0 { slope[i - 1] } else { start };
                rhs[i] = 6.0 * (s_right - s_left);
            }
            // Thomas algorithm.
            for i in 1..n {
                let w = lower[i] / diag[i - 1];
                diag[i] -= w * upper[i - 1];
                let previous = rhs[i - 1];
                rhs[i] -= w * previous;
            }
            curvature[n - 1] = rhs[n - 1] / diag[n - 1];
            for i in (0..n - 1).rev() {
                curvature[i] = (rhs[i] - upper[i] * curvature[i + 1]) / diag[i];
            }
        }
        // S(s) = y0 + (slope - h (2 M0 + M1) / 6) s + M0 / 2 s^2 + (M1 - M0) / (6 h) s^3.
        let coefficients = points
            .windows(2)
            .zip(curvature.windows(2))
            .map(|(w, m)| {
                let h = w[1].0 - w[0].0;
                let slope = (w[1].1 - w[0].1) / h;
                [
                    slope - (2.0 * m[0] + m[1]) * (h / 6.0),
                    0.5 * m[0],
                    (m[1] - m[0]) / (6.0 * h),
                ]
            })
            .collect();
        Ok(Self {
            points,
            coefficients,
            hint: PieceHint::default(),
        })
    }

    /// Position, velocity and acceleration at time t (s); at rest outside the keyframes.
    pub fn at(&self, t: f64) -> PathPoint<D> {
        self.at_side(t, Side::After)
    }

    /// Each piece as its start time t_i (s), its length h (s) and its polynomial in
    /// s = t - t_i (0 <= s <= h): [y_i, c1, c2, c3] for y_i + c1 s + c2 s^2 + c3 s^3 (m, m/s,
    /// m/s^2, m/s^3): what a bound on the path at every instant is checked on.
    pub fn pieces(&self) -> impl Iterator<Item = (f64, f64, [SVector<f64, D>; 4])> + '_ {
        self.points
            .windows(2)
            .zip(&self.coefficients)
            .map(|(w, [c1, c2, c3])| (w[0].0, w[1].0 - w[0].0, [w[0].1, *c1, *c2, *c3]))
    }

    /// [`Self::at`], a keyframe's own time read on `side` of it.
    pub fn at_side(&self, t: f64, side: Side) -> PathPoint<D> {
        let p = &self.points;
        let i = match piece(p, t, side, &self.hint) {
            Ok(i) => i,
            Err(rest) => return rest,
        };
        let s = t - p[i - 1].0;
        let [c1, c2, c3] = self.coefficients[i - 1];
        PathPoint {
            pos: p[i - 1].1 + (c1 + (c2 + c3 * s) * s) * s,
            vel: c1 + (2.0 * c2 + 3.0 * c3 * s) * s,
            acc: 2.0 * c2 + 6.0 * c3 * s,
        }
    }
}

/// The piece of keyframes `points` that holds time t: `Ok(i)` for the one from keyframe i - 1
/// to keyframe i (a keyframe's own time belongs to the piece that starts there, or with
/// `Side::Before` to the one that ends there), or the hand at rest at the first keyframe before
/// them and at the last one from its time on.
fn piece<const D: usize>(
    points: &[(f64, SVector<f64, D>)],
    t: f64,
    side: Side,
    hint: &PieceHint,
) -> Result<usize, PathPoint<D>> {
    let i = hint.knots_passed(points.len(), |k| points[k].0, t, side);
    let rest = |pos| PathPoint {
        pos,
        ..PathPoint::default()
    };
    if i == 0 {
        Err(rest(points[0].1))
    } else if i == points.len() {
        Err(rest(points[i - 1].1))
    } else {
        Ok(i)
    }
}

/// Slopes (change of position over time) of the pieces between keyframes, m/s.
fn slopes<const D: usize>(points: &[(f64, SVector<f64, D>)]) -> Vec<SVector<f64, D>> {
    points
        .windows(2)
        .map(|w| (w[1].1 - w[0].1) / (w[1].0 - w[0].0))
        .collect()
}

/// A monotone cubic Hermite interpolant through keyframes (Fritsch-Carlson, "pchip"), per
/// axis: C1, never beyond the range of two neighbouring keyframes (no overshoot), still between
/// two equal keyframes, at rest at the first and last keyframe and outside them.
#[derive(Clone, Debug, PartialEq)]
pub struct MonotoneCubic<const D: usize = 2> {
    points: Vec<(f64, SVector<f64, D>)>,
    /// Velocities at the keyframes, m/s.
    velocity: Vec<SVector<f64, D>>,
    hint: PieceHint,
}

impl<const D: usize> MonotoneCubic<D> {
    /// The interpolant through keyframes (t, position), t in s and increasing, position in m;
    /// checked: at least one, all finite.
    pub fn new(points: Vec<(f64, SVector<f64, D>)>) -> Result<Self, DriveError> {
        check_points("path keyframes", &points, 1)?;
        let n = points.len();
        let slope = slopes(&points);
        let mut velocity = vec![SVector::zeros(); n];
        for i in 1..n.saturating_sub(1) {
            let (before, after) = (points[i].0 - points[i - 1].0, points[i + 1].0 - points[i].0);
            for axis in 0..D {
                velocity[i][axis] =
                    harmonic_velocity(slope[i - 1][axis], slope[i][axis], before, after);
            }
        }
        Ok(Self {
            points,
            velocity,
            hint: PieceHint::default(),
        })
    }

    /// Position, velocity and acceleration at time t (s); at rest outside the keyframes.
    pub fn at(&self, t: f64) -> PathPoint<D> {
        self.at_side(t, Side::After)
    }

    /// [`Self::at`], a keyframe's own time read on `side` of it.
    pub fn at_side(&self, t: f64, side: Side) -> PathPoint<D> {
        let p = &self.points;
        let i = match piece(p, t, side, &self.hint) {
            Ok(i) => i,
            Err(rest) => return rest,
        };
        let ((t0, y0), (t1, y1)) = (p[i - 1], p[i]);
        let (v0, v1) = (self.velocity[i - 1], self.velocity[i]);
        let h = t1 - t0;
        let s = (t - t0) / h;
        let (s2, s3) = (s * s, s * s * s);
        // Cubic Hermite basis (the rise from y0 to y1, velocity at 0, velocity at 1) and its
        // first and second derivatives in s; written on y1 - y0 so that a piece between equal
        // keyframes with zero velocities is exactly still.
        let basis = [
            [-2.0 * s3 + 3.0 * s2, s3 - 2.0 * s2 + s, s3 - s2],
            [
                -6.0 * s2 + 6.0 * s,
                3.0 * s2 - 4.0 * s + 1.0,
                3.0 * s2 - 2.0 * s,
            ],
            [-12.0 * s + 6.0, 6.0 * s - 4.0, 6.0 * s - 2.0],
        ];
        let combine = |b: [f64; 3]| (y1 - y0) * b[0] + v0 * (h * b[1]) + v1 * (h * b[2]);
        PathPoint {
            pos: y0 + combine(basis[0]),
            vel: combine(basis[1]) / h,
            acc: combine(basis[2]) / (h * h),
        }
    }
}

/// Velocity at an interior keyframe of a monotone cubic from the slopes of the pieces before
/// and after it (durations `before` and `after`): 0 where the slopes differ in sign or either
/// is 0 (a turning point or a held point), else their weighted harmonic mean (Fritsch-Butland),
/// which is at most 3 times the smaller slope and so never overshoots.
fn harmonic_velocity(slope_before: f64, slope_after: f64, before: f64, after: f64) -> f64 {
    if slope_before * slope_after <= 0.0 {
        return 0.0;
    }
    let (w_before, w_after) = (2.0 * after + before, after + 2.0 * before);
    (w_before + w_after) / (w_before / slope_before + w_after / slope_after)
}

/// Straight pieces between keyframes at constant velocity: position-exact, the velocity jumps at
/// each keyframe (an impulsive hand) and the acceleration is 0 within the pieces; at rest
/// outside the keyframes.
#[derive(Clone, Debug, PartialEq)]
pub struct Polyline<const D: usize = 2> {
    points: Vec<(f64, SVector<f64, D>)>,
    /// Velocity of each piece, m/s.
    velocity: Vec<SVector<f64, D>>,
    hint: PieceHint,
}

impl<const D: usize> Polyline<D> {
    /// The polyline through keyframes (t, position), t in s and increasing, position in m;
    /// checked: at least one, all finite.
    pub fn new(points: Vec<(f64, SVector<f64, D>)>) -> Result<Self, DriveError> {
        check_points("path keyframes", &points, 1)?;
        let velocity = slopes(&points);
        Ok(Self {
            points,
            velocity,
            hint: PieceHint::default(),
        })
    }

    /// Position, velocity (of the piece that starts at t at a keyframe) and acceleration (0)
    /// at time t (s); at rest outside the keyframes.
    pub fn at(&self, t: f64) -> PathPoint<D> {
        self.at_side(t, Side::After)
    }

    /// [`Self::at`], a keyframe's own time read on `side` of it.
    pub fn at_side(&self, t: f64, side: Side) -> PathPoint<D> {
        let i = match piece(&self.points, t, side, &self.hint) {
            Ok(i) => i,
            Err(rest) => return rest,
        };
        let (t0, y0) = self.points[i - 1];
        let vel = self.velocity[i - 1];
        PathPoint {
            pos: y0 + vel * (t - t0),
            vel,
            acc: SVector::zeros(),
        }
    }

    /// The velocity just before and just after time t (s), m/s: different only at a keyframe
    /// (at rest before the first keyframe and from the last one on).
    pub fn velocity_jump(&self, t: f64) -> (SVector<f64, D>, SVector<f64, D>) {
        let before = match self.points.partition_point(|(ti, _)| *ti < t) {
            0 => SVector::zeros(),
            i => self
                .velocity
                .get(i - 1)
                .copied()
                .unwrap_or_else(SVector::zeros),
        };
        (before, self.at(t).vel)
    }
}

/// A recorded path (samples t, x, y) smoothed by local cubic least squares over a window and
/// interpolated by quintic Hermite pieces through the smoothed position, velocity and
/// acceleration at each sample: C2, and exact for cubic motion.
#[derive(Clone, Debug, PartialEq)]
pub struct SampledPath<const D: usize = 2> {
    times: Vec<f64>,
    points: Vec<PathPoint<D>>,
    hint: PieceHint,
}

impl<const D: usize> SampledPath<D> {
    /// Smooths `samples` with a window of half-width `half_window` seconds (at least the two
    /// nearest samples on each side are always used).
    pub fn new(samples: Vec<(f64, SVector<f64, D>)>, half_window: f64) -> Result<Self, DriveError> {
        check_points("path samples", &samples, 4)?;
        if !(half_window.is_finite() && half_window > 0.0) {
            return Err(DriveError::NotPositive {
                what: "smoothing window",
                value: half_window,
            });
        }
        let times: Vec<f64> = samples.iter().map(|s| s.0).collect();
        let points = (0..samples.len())
            .map(|i| local_cubic(&samples, i, half_window))
            .collect();
        Ok(Self {
            times,
            points,
            hint: PieceHint::default(),
        })
    }

    /// Position, velocity and acceleration at time t (s); at rest outside the samples.
    pub fn at(&self, t: f64) -> PathPoint<D> {
        self.at_side(t, Side::After)
    }

    /// [`Self::at`], a sample's own time read on `side` of it.
    pub fn at_side(&self, t: f64, side: Side) -> PathPoint<D> {
        let i = self
            .hint
            .knots_passed(self.times.len(), |k| self.times[k], t, side);
        if i == 0 {
            return PathPoint {
                pos: self.points[0].pos,
                ..PathPoint::default()
            };
        }
        if i == self.times.len() {
            return PathPoint {
                pos: self.points[i - 1].pos,
                ..PathPoint::default()
            };
        }
        quintic_hermite(
            self.times[i - 1],
            self.points[i - 1],
            self.times[i],
            self.points[i],
            t,
        )
    }
}

/// Weighted least-squares cubic through the samples within `half_window` of sample `center`
/// (tricube weights), evaluated at the sample: position, velocity, acceleration.
fn local_cubic<const D: usize>(
    samples: &[(f64, SVector<f64, D>)],
    center: usize,
    half_window: f64,
) -> PathPoint<D> {
    let tc = samples[center].0;
    let mut lo = center;
    let mut hi = center;
    while lo > 0 && (tc - samples[lo - 1].0 <= half_window || center - lo < 2) {
        lo -= 1;
    }
    while hi + 1 < samples.len() && (samples[hi + 1].0 - tc <= half_window || hi - center < 2) {
        hi += 1;
    }
    // Keep at least 5 points for a cubic fit (4 unknowns).
    while hi - lo < 4 {
        if lo > 0 {
            lo -= 1;
        } else if hi + 1 < samples.len() {
            hi += 1;
        } else {
            break;
        }
    }
    let reach = (tc - samples[lo].0).max(samples[hi].0 - tc) * 1.0001;
    let mut normal = nalgebra::Matrix4::<f64>::zeros();
    let mut rhs = SMatrix::<f64, 4, D>::zeros();
    for (t, p) in &samples[lo..=hi] {
        let u = (t - tc) / reach;
        let w = (1.0 - u.abs().powi(3)).powi(3);
        let basis = nalgebra::Vector4::new(1.0, u, u * u, u * u * u);
        normal += w * basis * basis.transpose();
        rhs += w * basis * p.transpose();
    }
    let coefficients = normal.lu().solve(&rhs).unwrap_or_else(|| {
        let mut c = SMatrix::<f64, 4, D>::zeros();
        c.set_row(0, &samples[center].1.transpose());
        c
    });
    let row = |k: usize| SVector::<f64, D>::from_fn(|axis, _| coefficients[(k, axis)]);
    PathPoint {
        pos: row(0),
        vel: row(1) / reach,
        acc: 2.0 * row(2) / (reach * reach),
    }
}

/// The quintic through (p, v, a) at t0 and t1, evaluated at t.
fn quintic_hermite<const D: usize>(
    t0: f64,
    start: PathPoint<D>,
    t1: f64,
    end: PathPoint<D>,
    t: f64,
) -> PathPoint<D> {
    let h = t1 - t0;
    let s = (t - t0) / h;
    let (s2, s3, s4, s5) = (s * s, s * s * s, s.powi(4), s.powi(5));
    // Basis functions of position and their first and second derivatives in s.
    let h0 = [
        1.0 - 10.0 * s3 + 15.0 * s4 - 6.0 * s5,
        -30.0 * s2 + 60.0 * s3 - 30.0 * s4,
        -60.0 * s + 180.0 * s2 - 120.0 * s3,
    ];
    let h1 = [
        s - 6.0 * s3 + 8.0 * s4 - 3.0 * s5,
        1.0 - 18.0 * s2 + 32.0 * s3 - 15.0 * s4,
        -36.0 * s + 96.0 * s2 - 60.0 * s3,
    ];
    let h2 = [
        0.5 * s2 - 1.5 * s3 + 1.5 * s4 - 0.5 * s5,
        s - 4.5 * s2 + 6.0 * s3 - 2.5 * s4,
        1.0 - 9.0 * s + 18.0 * s2 - 10.0 * s3,
    ];
    let h3 = [
        10.0 * s3 - 15.0 * s4 + 6.0 * s5,
        30.0 * s2 - 60.0 * s3 + 30.0 * s4,
        60.0 * s - 180.0 * s2 + 120.0 * s3,
    ];
    let h4 = [
        -4.0 * s3 + 7.0 * s4 - 3.0 * s5,
        -12.0 * s2 + 28.0 * s3 - 15.0 * s4,
        -24.0 * s + 84.0 * s2 - 60.0 * s3,
    ];
    let h5 = [
        0.5 * s3 - s4 + 0.5 * s5,
        1.5 * s2 - 4.0 * s3 + 2.5 * s4,
        3.0 * s - 12.0 * s2 + 10.0 * s3,
    ];
    let combine = |d: usize| {
        start.pos * h0[d]
            + start.vel * (h * h1[d])
            + start.acc * (h * h * h2[d])
            + end.pos * h3[d]
            + end.vel * (h * h4[d])
            + end.acc * (h * h * h5[d])
    };
    PathPoint {
        pos: combine(0),
        vel: combine(1) / h,
        acc: combine(2) / (h * h),
    }
}

/// A prescribed stick path, in `D` dimensions (x-y by default).
#[derive(Clone, Debug, PartialEq)]
pub enum Path<const D: usize = 2> {
    /// A clamped spline through keyframes (`"interpolation": "cubic"`).
    Keyframes(ClampedSpline<D>),
    /// A monotone cubic through keyframes (`"interpolation": "pchip"`).
    Monotone(MonotoneCubic<D>),
    /// Straight pieces between keyframes (`"interpolation": "linear"`).
    Linear(Polyline<D>),
    /// center + amplitude * sin(2 pi frequency t + phase), per component.
    Sine {
        /// Centre of the oscillation, m.
        center: SVector<f64, D>,
        /// Amplitude, m.
        amplitude: SVector<f64, D>,
        /// Frequency, Hz.
        frequency: f64,
        /// Phase at t = 0 (one per component), rad.
        phase: SVector<f64, D>,
    },
    /// A smoothed recording.
    Samples(SampledPath<D>),
}

impl<const D: usize> Path<D> {
    /// Times where the path is not smooth (keyframes of the spline, samples of a recording:
    /// a derivative of the position jumps there), s.
    pub fn knots(&self) -> Vec<f64> {
        match self {
            Self::Keyframes(ClampedSpline { points, .. })
            | Self::Monotone(MonotoneCubic { points, .. })
            | Self::Linear(Polyline { points, .. }) => points.iter().map(|p| p.0).collect(),
            Self::Samples(samples) => samples.times.clone(),
            Self::Sine { .. } => Vec::new(),
        }
    }

    /// Position, velocity and acceleration at time t (s).
    pub fn at(&self, t: f64) -> PathPoint<D> {
        self.at_side(t, Side::After)
    }

    /// [`Path::at`], a knot's own time read on `side` of it: `Side::Before` gives the limit
    /// from before the knot, where the acceleration of a monotone cubic (and of every path at
    /// its first and last keyframe) jumps.
    pub fn at_side(&self, t: f64, side: Side) -> PathPoint<D> {
        match self {
            Self::Keyframes(spline) => spline.at_side(t, side),
            Self::Monotone(cubic) => cubic.at_side(t, side),
            Self::Linear(polyline) => polyline.at_side(t, side),
            Self::Samples(samples) => samples.at_side(t, side),
            Self::Sine {
                center,
                amplitude,
                frequency,
                phase,
            } => {
                let w = std::f64::consts::TAU * frequency;
                let angle: [(f64, f64); D] = std::array::from_fn(|i| (w * t + phase[i]).sin_cos());
                let sin = SVector::<f64, D>::from_fn(|i, _| amplitude[i] * angle[i].0);
                let cos = SVector::<f64, D>::from_fn(|i, _| amplitude[i] * angle[i].1);
                PathPoint {
                    pos: center + sin,
                    vel: w * cos,
                    acc: -w * w * sin,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The hint is a shortcut only: whatever order the times are read in (forward as in a run,
    // backward, jumping, at the knots, outside them, NaN), the answer is the binary search's.
    #[test]
    fn a_piece_hint_finds_what_a_binary_search_finds_in_any_reading_order() {
        let knots = [0.0, 0.1, 0.25, 0.5, 0.55, 1.0, 2.0];
        let hint = PieceHint::default();
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut times: Vec<f64> = (0..400).map(|k| -0.5 + 3.0 * k as f64 / 400.0).collect();
        times.extend(knots);
        times.extend((0..400).map(|_| -0.5 + 3.0 * next()));
        times.extend((0..400).rev().map(|k| -0.5 + 3.0 * k as f64 / 400.0));
        times.push(f64::NAN);
        for t in times {
            let after = knots.partition_point(|k| *k <= t);
            let before = knots.partition_point(|k| *k < t);
            for (side, expected) in [(Side::After, after), (Side::Before, before)] {
                assert_eq!(
                    hint.knots_passed(knots.len(), |k| knots[k], t, side),
                    expected,
                    "t = {t}, {side:?}"
                );
            }
        }
    }

    // A monotone cubic's acceleration jumps at its keyframes: read at a keyframe from before,
    // it is the limit of the piece that ends there (within 1e-6 of it read 1e-9 s earlier);
    // from after, the piece that starts there. At the last keyframe, from before, the last
    // piece's end; from after, at rest.
    #[test]
    fn a_path_read_at_a_knot_from_before_is_the_limit_of_the_piece_that_ends_there() {
        let points: Vec<(f64, SVector<f64, 2>)> = [
            (0.0, [0.0, 1.0]),
            (0.3, [0.4, 1.3]),
            (0.5, [0.45, 0.9]),
            (0.9, [0.1, 1.0]),
        ]
        .iter()
        .map(|(t, p)| (*t, SVector::from(*p)))
        .collect();
        let path = Path::Monotone(MonotoneCubic::new(points).unwrap());
        for knot in [0.3, 0.5, 0.9] {
            let before = path.at_side(knot, Side::Before);
            let just_before = path.at(knot - 1e-9);
            assert!((before.acc - just_before.acc).norm() < 1e-6, "{knot}");
            assert!((before.pos - just_before.pos).norm() < 1e-8, "{knot}");
            assert_eq!(path.at_side(knot, Side::After), path.at(knot));
        }
        let jump = path.at_side(0.3, Side::Before).acc - path.at(0.3).acc;
        assert!(jump.norm() > 1.0, "a pchip's acceleration jumps: {jump}");
        assert_eq!(path.at(0.9).acc, SVector::<f64, 2>::zeros());
        assert!(path.at_side(0.9, Side::Before).acc.norm() > 1.0);
    }
}

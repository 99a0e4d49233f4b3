//! A planned hand's motion (docs/plan.md): its free keyframes after the start, joined by the
//! scenario format's cubic spline (C2, at rest at both ends), and the bounds on it checked at
//! every instant, exactly, on the spline's pieces: the box where each coordinate's cubic turns,
//! the acceleration (linear on a piece) at the pieces' ends, the speed where |v|^2 turns (the
//! real roots of a cubic), and the effort, the integral of |a|^2, in closed form.

use nalgebra::{SVector, Vector2};
use serde_json::{json, Value};

use super::task::{HandSpec, Times, SHORTEST_GAP};
use crate::simulation::drive::ClampedSpline;

/// How far inside its box's walls the search keeps a keyframe, m: the box check's aim (30 %
/// of its 2 cm scale) and a little more.
pub const CLAMP_INSET: f64 = 0.01;

/// A planned hand: where it starts and when its free keyframes are.
#[derive(Clone, Debug, PartialEq)]
pub struct HandMotion {
    /// 0 left, 1 right.
    pub side: usize,
    /// The stick's start, m.
    pub start: Vector2<f64>,
    /// The stick's velocity at the start, m/s: the spline leaves its start with it.
    pub start_vel: Vector2<f64>,
    /// t_1..t_K of the free keyframes spread evenly, s.
    pub times: Vec<f64>,
    /// [[xmin, ymin], [xmax, ymax]], m.
    pub bounds: [[f64; 2]; 2],
    /// The keyframes' times are free too (`"times": "free"`): K more numbers u_k, the gaps
    /// SHORTEST_GAP + (T - K SHORTEST_GAP) softmax(u)_k, the last keyframe at T.
    pub free_times: bool,
}

/// How a planned motion stands against its bounds, each a margin (positive inside).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bounds {
    /// The least distance inside the box at any instant, m (negative: outside by as much).
    pub box_margin: f64,
    /// The largest speed at any instant, m/s.
    pub top_speed: f64,
    /// The largest acceleration at any instant, m/s^2.
    pub top_accel: f64,
    /// The integral of |a|^2 over the motion, m^2/s^3.
    pub effort: f64,
}

impl HandMotion {
    /// The motion of hand `side` starting at `start` (m) with velocity `start_vel` (m/s) over
    /// `duration` (s), its keyframes spread evenly.
    pub fn new(
        side: usize,
        start: Vector2<f64>,
        start_vel: Vector2<f64>,
        spec: &HandSpec,
        duration: f64,
    ) -> Self {
        let k = spec.keyframes;
        Self {
            side,
            start,
            start_vel,
            times: (1..=k).map(|i| duration * i as f64 / k as f64).collect(),
            bounds: spec.bounds,
            free_times: spec.times == Times::Free,
        }
    }

    /// How many numbers the motion takes: x and y per free keyframe, and its u_k with free
    /// times.
    pub fn size(&self) -> usize {
        let k = self.times.len();
        2 * k + if self.free_times { k } else { 0 }
    }

    /// The keyframes' times t_1..t_K from the free numbers `free`, s.
    pub fn times_of(&self, free: &[f64]) -> Vec<f64> {
        if !self.free_times {
            return self.times.clone();
        }
        let k = self.times.len();
        let duration = self.times[k - 1];
        let weights = &free[2 * k..];
        let top = weights.iter().fold(f64::NEG_INFINITY, |m, &w| m.max(w));
        let shares: Vec<f64> = weights.iter().map(|w| (w - top).exp()).collect();
        let total: f64 = shares.iter().sum();
        let spare = duration - k as f64 * SHORTEST_GAP;
        let mut t = 0.0;
        let mut times: Vec<f64> = shares
            .iter()
            .map(|share| {
                t += SHORTEST_GAP + spare * share / total;
                t
            })
            .collect();
        times[k - 1] = duration;
        times
    }

    /// The keyframes [t, x, y] (s, m, m), the start first, from the free numbers `free`.
    pub fn keyframes(&self, free: &[f64]) -> Vec<[f64; 3]> {
        std::iter::once([0.0, self.start.x, self.start.y])
            .chain(
                self.times_of(free)
                    .into_iter()
                    .zip(free.chunks(2))
                    .map(|(t, p)| [t, p[0], p[1]]),
            )
            .collect()
    }

    /// The free numbers of a hand held still at its start (free times spread evenly).
    pub fn still(&self) -> Vec<f64> {
        let k = self.times.len();
        let mut free: Vec<f64> = (0..k).flat_map(|_| [self.start.x, self.start.y]).collect();
        free.resize(self.size(), 0.0);
        free
    }

    /// The free numbers of a throw (the first start of a task with an apex): the stick pulled
    /// out from the sticks' midpoint `centre` to half of 0.9 `string_length` (m) and 0.1 m up
    /// at its first keyframe, back in to half of 0.4 `string_length` at its second, and from
    /// its third on there moved to under `catch_x` (m; where the thrown diabolo comes down, if
    /// known); with
    /// free times the pull and the return take 0.15 s each. A toss as players make it
    /// (scenarios/high_toss.json): the string snaps the diabolo up, slackens under it, and the
    /// hands walk under its fall. Held still where the hand has fewer than 3 keyframes.
    pub fn thrown(
        &self,
        centre: Vector2<f64>,
        string_length: f64,
        catch_x: Option<f64>,
    ) -> Vec<f64> {
        let k = self.times.len();
        let mut free = self.still();
        if k < 3 {
            return free;
        }
        let outward = if self.start.x >= centre.x { 1.0 } else { -1.0 };
        let pulled = centre + Vector2::new(outward * 0.45 * string_length, 0.1);
        let back = centre + Vector2::new(outward * 0.2 * string_length, 0.1);
        let under = back + Vector2::new(catch_x.map_or(0.0, |x| x - centre.x), 0.0);
        free[..2].copy_from_slice(pulled.as_slice());
        free[2..4].copy_from_slice(back.as_slice());
        for point in free[4..2 * k].chunks_mut(2) {
            point.copy_from_slice(under.as_slice());
        }
        self.clamp(&mut free);
        let spare = self.times[k - 1] - k as f64 * SHORTEST_GAP;
        if self.free_times && spare > 0.4 {
            // Gaps of 0.15 s, 0.15 s, then the rest evenly: softmax shares of the spare time.
            let quick = (0.15 - SHORTEST_GAP) / spare;
            let rest = (1.0 - 2.0 * quick) / (k - 2) as f64;
            let weights = &mut free[2 * k..];
            weights[0] = quick.ln();
            weights[1] = quick.ln();
            weights[2..].fill(rest.ln());
        }
        free
    }

    /// Puts each free keyframe inside the box, [`CLAMP_INSET`] from its walls where it is wide
    /// enough (a keyframe on a wall would leave the search no margin).
    pub fn clamp(&self, free: &mut [f64]) {
        let k = self.times.len();
        for point in free[..2 * k].chunks_mut(2) {
            for axis in 0..2 {
                let (low, high) = (self.bounds[0][axis], self.bounds[1][axis]);
                let inset = CLAMP_INSET.min(0.25 * (high - low));
                point[axis] = point[axis].clamp(low + inset, high - inset);
            }
        }
    }

    /// The scale of a step along each free number: the box's size (m), 1 for a u_k.
    pub fn scales(&self) -> Vec<f64> {
        let [low, high] = self.bounds;
        let k = self.times.len();
        let mut scales: Vec<f64> = (0..k)
            .flat_map(|_| [high[0] - low[0], high[1] - low[1]])
            .collect();
        scales.resize(self.size(), 1.0);
        scales
    }

    /// The drive of the scenario format for the keyframes of `free` (with the start velocity
    /// where the stick moves at the start).
    pub fn drive(&self, free: &[f64]) -> Value {
        let mut drive = json!({
            "type": "path",
            "interpolation": "cubic",
            "keyframes": self.keyframes(free),
        });
        if self.start_vel != Vector2::zeros() {
            drive["start_velocity"] = json!([self.start_vel.x, self.start_vel.y]);
        }
        drive
    }

    /// The planned spline through the keyframes of `free`, as the scenario builds it.
    pub fn spline(&self, free: &[f64]) -> Option<ClampedSpline> {
        let points = self
            .keyframes(free)
            .into_iter()
            .map(|[t, x, y]| (t, SVector::<f64, 2>::new(x, y)))
            .collect();
        ClampedSpline::leaving(points, self.start_vel).ok()
    }

    /// The motion's bounds at every instant.
    pub fn bounds_of(&self, free: &[f64]) -> Bounds {
        let Some(spline) = self.spline(free) else {
            return Bounds {
                box_margin: f64::NEG_INFINITY,
                top_speed: f64::INFINITY,
                top_accel: f64::INFINITY,
                effort: f64::INFINITY,
            };
        };
        let [low, high] = self.bounds;
        let mut bounds = Bounds {
            box_margin: f64::INFINITY,
            ..Bounds::default()
        };
        for (_, h, [y0, c1, c2, c3]) in spline.pieces() {
            for axis in 0..2 {
                // The coordinate's cubic turns where its velocity c1 + 2 c2 s + 3 c3 s^2 is 0.
                let position = [y0[axis], c1[axis], c2[axis], c3[axis]];
                let turns = real_roots(&[c1[axis], 2.0 * c2[axis], 3.0 * c3[axis]], 0.0, h);
                for s in turns.into_iter().chain([0.0, h]) {
                    let p = horner(&position, s);
                    bounds.box_margin = bounds.box_margin.min(p - low[axis]).min(high[axis] - p);
                }
            }
            // a(s) = B + 2 C s with B = 2 c2, C = 3 c3: |a|^2 is convex, largest at an end.
            let (b, c) = (2.0 * c2, 3.0 * c3);
            bounds.top_accel = bounds.top_accel.max(b.norm()).max((b + 2.0 * c * h).norm());
            // |v|^2 with v = A + B s + C s^2 turns where v . a = A.B + (2 A.C + B.B) s +
            // 3 B.C s^2 + 2 C.C s^3 is 0.
            let a = c1;
            let rate = [
                a.dot(&b),
                2.0 * a.dot(&c) + b.dot(&b),
                3.0 * b.dot(&c),
                2.0 * c.dot(&c),
            ];
            for s in real_roots(&rate, 0.0, h).into_iter().chain([0.0, h]) {
                bounds.top_speed = bounds.top_speed.max((a + b * s + c * s * s).norm());
            }
            // The integral of |B + 2 C s|^2 over the piece.
            bounds.effort +=
                b.dot(&b) * h + 2.0 * b.dot(&c) * h * h + 4.0 * c.dot(&c) * h.powi(3) / 3.0;
        }
        bounds
    }
}

/// sum_i p_i s^i.
fn horner(p: &[f64], s: f64) -> f64 {
    p.iter().rev().fold(0.0, |acc, c| acc * s + c)
}

/// The real roots in (lo, hi) of the polynomial sum_i p_i s^i (degree at most 3), found on its
/// monotone pieces (between the roots of its derivative) by bisection to round-off.
pub fn real_roots(p: &[f64], lo: f64, hi: f64) -> Vec<f64> {
    let degree = p.iter().rposition(|&c| c != 0.0).unwrap_or(0);
    if degree == 0 {
        return Vec::new();
    }
    let derivative: Vec<f64> = (1..=degree).map(|i| i as f64 * p[i]).collect();
    let mut cuts = vec![lo];
    cuts.extend(real_roots(&derivative, lo, hi));
    cuts.push(hi);
    let f = |s: f64| horner(&p[..=degree], s);
    let mut roots = Vec::new();
    for w in cuts.windows(2) {
        let (mut a, mut b) = (w[0], w[1]);
        let (fa, fb) = (f(a), f(b));
        if fa == 0.0 && a > lo {
            roots.push(a);
            continue;
        }
        if fa.signum() == fb.signum() || fb == 0.0 {
            continue;
        }
        for _ in 0..200 {
            let m = 0.5 * (a + b);
            if m <= a || m >= b {
                break;
            }
            if f(m).signum() == fa.signum() {
                a = m;
            } else {
                b = m;
            }
        }
        roots.push(0.5 * (a + b));
    }
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    // Free times: u = 0 spreads the keyframes evenly; any u keeps them at least SHORTEST_GAP
    // apart, increasing, the last at the duration.
    #[test]
    fn free_times_keep_their_gaps_and_end_at_the_duration() {
        let spec = HandSpec {
            keyframes: 4,
            bounds: [[0.0, 0.0], [1.0, 2.0]],
            times: Times::Free,
        };
        let hand = HandMotion::new(0, Vector2::new(0.5, 1.0), Vector2::zeros(), &spec, 1.0);
        assert_eq!(hand.size(), 12);
        let still = hand.still();
        let even = hand.times_of(&still);
        for (t, e) in even.iter().zip([0.25, 0.5, 0.75, 1.0]) {
            assert!((t - e).abs() < 1e-15, "{t} against {e}");
        }
        let mut free = still.clone();
        free[8..].copy_from_slice(&[30.0, -30.0, 0.0, -30.0]);
        let times = hand.times_of(&free);
        let mut last = 0.0;
        for &t in &times {
            assert!(t - last >= SHORTEST_GAP - 1e-12, "{times:?}");
            last = t;
        }
        assert_eq!(times[3], 1.0);
        assert!(
            times[0] > 0.7,
            "the first gap takes the spare time: {times:?}"
        );
    }

    #[test]
    fn roots_of_cubics_are_found_on_each_monotone_piece() {
        // (s - 0.2)(s - 0.5)(s - 0.9) = s^3 - 1.6 s^2 + 0.73 s - 0.09.
        let roots = real_roots(&[-0.09, 0.73, -1.6, 1.0], 0.0, 1.0);
        assert_eq!(roots.len(), 3, "{roots:?}");
        for (r, e) in roots.iter().zip([0.2, 0.5, 0.9]) {
            assert!((r - e).abs() < 1e-12, "{r} against {e}");
        }
        assert_eq!(real_roots(&[1.0, 0.0, 1.0], -2.0, 2.0), Vec::<f64>::new());
        let line = real_roots(&[-0.25, 1.0], 0.0, 1.0);
        assert!((line[0] - 0.25).abs() < 1e-15);
    }

    /// A hand through one keyframe, checked against the spline sampled every 10 us.
    #[test]
    fn bounds_at_every_instant_match_a_dense_sampling() {
        let hand = HandMotion {
            side: 1,
            start: Vector2::new(0.5, 1.2),
            start_vel: Vector2::new(0.8, -0.3),
            times: vec![0.4, 0.7, 1.0],
            bounds: [[0.0, 1.0], [1.0, 1.6]],
            free_times: false,
        };
        let free = [0.7, 1.5, 0.3, 1.1, 0.6, 1.3];
        let bounds = hand.bounds_of(&free);
        let spline = hand.spline(&free).unwrap();
        let (mut margin, mut speed, mut accel, mut effort) = (f64::INFINITY, 0.0f64, 0.0f64, 0.0);
        let dt = 1e-5;
        for i in 0..=100_000 {
            let p = spline.at(i as f64 * dt);
            for axis in 0..2 {
                margin = margin
                    .min(p.pos[axis] - hand.bounds[0][axis])
                    .min(hand.bounds[1][axis] - p.pos[axis]);
            }
            speed = speed.max(p.vel.norm());
            accel = accel.max(p.acc.norm());
            if i < 100_000 {
                let q = spline.at((i as f64 + 0.5) * dt);
                effort += q.acc.norm_squared() * dt;
            }
        }
        assert!(bounds.box_margin <= margin && margin - bounds.box_margin < 1e-9);
        assert!(bounds.top_speed >= speed && bounds.top_speed - speed < 1e-8);
        assert!(bounds.top_accel >= accel && bounds.top_accel - accel < 1e-6);
        assert!(
            (bounds.effort - effort).abs() < 1e-6 * effort,
            "{} {effort}",
            bounds.effort
        );
    }
}

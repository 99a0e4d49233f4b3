//! The search between samples for gaps (contacts, the floor: [`super::EventSpec::gap`]) and for
//! dips (a member that touches zero and comes back between two samples): conservative reach
//! bounds from the relative motion, halving, and a golden-section search for a minimum.

use super::locator::Buffer;
use super::{Crossing, EventError, EventLocator, EventSystem, GapMotion};
use crate::simulation::ode::integrate::Stepper;

/// A sample of a gap member: time (s), value (m), and `[dg/dt, vx, vy]`: its rate and the
/// relative velocity of its ends (m/s).
#[derive(Clone, Copy, Debug)]
pub(super) struct GapSample {
    pub(super) t: f64,
    pub(super) g: f64,
    pub(super) motion: GapMotion,
}

impl GapSample {
    /// Whether a gap positive at both samples `a` and `b` can reach zero between them. Its
    /// second derivative is at least -A, A = 2 |v(b) - v(a)| / (b - a) (twice the mean
    /// relative acceleration; exact for bodies in free flight, whose relative acceleration is
    /// constant), so it stays positive for s_a after a (the first root of
    /// g(a) + g'(a) s - A s^2 / 2) and for s_b before b; it can close only if s_a + s_b does
    /// not exceed b - a.
    pub(super) fn may_close(a: Self, b: Self) -> bool {
        if !(a.g > 0.0 && b.g > 0.0) {
            return false;
        }
        let dt = b.t - a.t;
        let accel = 2.0
            * (b.motion[1] - a.motion[1])
                .hypot(b.motion[2] - a.motion[2])
                .hypot(b.motion[3] - a.motion[3])
            / dt.max(f64::MIN_POSITIVE);
        // The first root of g + rate s - accel s^2 / 2 = 0 for s > 0 (rate < 0 closes).
        let reach = |g: f64, rate: f64| {
            if accel > 0.0 {
                (rate + (rate * rate + 2.0 * accel * g).sqrt()) / accel
            } else if rate < 0.0 {
                -g / rate
            } else {
                f64::INFINITY
            }
        };
        // Backward from b the gap's rate changes sign.
        reach(a.g, a.motion[0]) + reach(b.g, -b.motion[0]) <= dt
    }
}

/// The most halvings pending at once in a gap's search (its depth is bounded by the root
/// tolerance, 100 eps of the step: about 46 levels).
pub(super) const GAP_DEPTH: usize = 64;

/// The most evaluations of one gap search (a pair sliding along each other within round-off of
/// touching would otherwise be halved to the root tolerance everywhere).
pub const GAP_EVALUATIONS: usize = 256;

/// Golden-section iterations of a dip search (the bracket shrinks by 0.618 each: 5e-7 of it).
pub(super) const DIP_ITERATIONS: usize = 30;

/// Whether three positive samples around a minimum may hide a dip below zero between them: the
/// parabola through them reaches zero, or the middle one is under half of both outer ones (a
/// minimum sharper than the samples resolve). A smooth, shallow minimum far above zero (a
/// swinging diabolo's distance to a stick) is not searched.
pub(super) fn dip_possible(samples: [(f64, f64); 3]) -> bool {
    let [(ta, ga), (tb, gb), (tc, gc)] = samples;
    if gb <= 0.5 * ga.min(gc) {
        return true;
    }
    // The parabola's minimum from its divided differences.
    let d1 = (gb - ga) / (tb - ta);
    let d2 = ((gc - gb) / (tc - tb) - d1) / (tc - ta);
    if d2 <= 0.0 {
        return false;
    }
    let slope_b = d1 + d2 * (tb - ta);
    // g(t) = gb + slope_b (t - tb) + d2 (t - tb)^2 near tb: its minimum value.
    gb - slope_b * slope_b / (4.0 * d2) <= 0.0
}

impl EventLocator {
    /// For the gap members (see [`EventSpec::gap`]): a gap positive at its last two samples
    /// that could close between them is searched by halving the interval; one that started at
    /// or below zero and is still there is judged against its start: if it rose above zero in
    /// between (a rebound shorter than the samples), the fall after its maximum is bracketed;
    /// if it closed further, it fires at the start. True if one is bracketed.
    pub(super) fn find_gap<S: EventSystem>(
        &mut self,
        sys: &mut S,
        stepper: &Stepper,
        tol: f64,
    ) -> Result<bool, EventError<S::Error>> {
        if !self.set.gaps {
            return Ok(false);
        }
        let mut found = false;
        for i in 0..self.set.active {
            let spec = self.set.specs[i];
            if !(spec.armed && spec.gap) {
                continue;
            }
            let track = self.tracks[i];
            let last = GapSample {
                t: track.t_last,
                g: track.g_last,
                motion: track.motion_last,
            };
            if let (Some((t0, g0)), true) = (track.closing_from, track.sign < 0) {
                let (t_max, g_max) =
                    self.golden_extremum(sys, stepper, i, (t0, last.t), -1.0, |g| g > 0.0)?;
                // Closed further than round-off: by more than the start band (a contact's
                // touching tolerance), or than 1e-12 m where there is none (the floor).
                let pressed = last.g < g0 - spec.start_band.max(1e-12);
                let bracket = if g_max > 0.0 {
                    Some(((t_max, g_max), (last.t, last.g)))
                } else if pressed {
                    // Pressed into each other from the start: fires there.
                    Some(((t0, g0), (t0, 0.0)))
                } else {
                    None
                };
                if let Some(((lo, g_lo), (hi, g_hi))) = bracket {
                    self.tracks[i].closing_from = None;
                    self.bracket_falling(i, (lo, g_lo), (hi, g_hi));
                    found = true;
                }
                continue;
            }
            let Some(prev) = track.gap_prev else {
                continue;
            };
            self.tracks[i].gap_prev = None;
            if track.sign > 0 && GapSample::may_close(prev, last) {
                if let Some((lo, hi)) = self.first_closing(sys, stepper, i, (prev, last), tol)? {
                    self.bracket_falling(i, (lo.t, lo.g), (hi.t, hi.g));
                    found = true;
                }
            }
        }
        Ok(found)
    }
    /// Marks member i bracketed falling between (lo, g_lo), positive, and (hi, g_hi), not.
    pub(super) fn bracket_falling(
        &mut self,
        i: usize,
        (lo, g_lo): (f64, f64),
        (hi, g_hi): (f64, f64),
    ) {
        let track = &mut self.tracks[i];
        track.bracketed = true;
        track.crossing = Crossing::Falling;
        (track.t_last, track.g_last) = (lo, g_lo);
        track.lo = lo;
        track.hi = hi;
        track.g_hi = g_hi;
    }
    /// The first interval of gap member i within (a, b), both positive, where it is not
    /// positive at the later end: halved depth-first, earliest first, while it may close (see
    /// [`GapSample::may_close`]) and is longer than `tol`.
    pub(super) fn first_closing<S: EventSystem>(
        &mut self,
        sys: &mut S,
        stepper: &Stepper,
        i: usize,
        (a, b): (GapSample, GapSample),
        tol: f64,
    ) -> Result<Option<(GapSample, GapSample)>, EventError<S::Error>> {
        let mut pending = [(a, b); GAP_DEPTH];
        let mut len = 1;
        let mut evaluations = 0;
        while len > 0 && evaluations < GAP_EVALUATIONS {
            evaluations += 1;
            len -= 1;
            let (l, r) = pending[len];
            if !GapSample::may_close(l, r) || r.t - l.t <= tol || len + 2 > GAP_DEPTH {
                continue;
            }
            let t = 0.5 * (l.t + r.t);
            self.sample(sys, stepper, t, Buffer::Hit)?;
            let mid = GapSample {
                t,
                g: self.hit_values[i],
                motion: self.motion_hit[i],
            };
            if mid.g <= 0.0 {
                return Ok(Some((l, mid)));
            }
            pending[len] = (mid, r);
            pending[len + 1] = (l, mid);
            len += 2;
        }
        Ok(None)
    }
    /// The extremum of member i on [lo, hi] on the interpolant by golden section: its minimum
    /// for `toward` 1, its maximum for -1 (the minimum of `toward` g), as (time, value); it
    /// stops early at a value that is `done`.
    pub(super) fn golden_extremum<S: EventSystem>(
        &mut self,
        sys: &mut S,
        stepper: &Stepper,
        i: usize,
        (mut lo, mut hi): (f64, f64),
        toward: f64,
        done: fn(f64) -> bool,
    ) -> Result<(f64, f64), EventError<S::Error>> {
        let ratio = 0.5 * (5f64.sqrt() - 1.0);
        let mut x1 = hi - ratio * (hi - lo);
        let mut x2 = lo + ratio * (hi - lo);
        let mut f1 = self.member_at(sys, stepper, i, x1)?;
        let mut f2 = self.member_at(sys, stepper, i, x2)?;
        for _ in 0..DIP_ITERATIONS {
            if done(f1) || done(f2) {
                break;
            }
            if toward * f1 < toward * f2 {
                (hi, x2, f2) = (x2, x1, f1);
                x1 = hi - ratio * (hi - lo);
                f1 = self.member_at(sys, stepper, i, x1)?;
            } else {
                (lo, x1, f1) = (x1, x2, f2);
                x2 = lo + ratio * (hi - lo);
                f2 = self.member_at(sys, stepper, i, x2)?;
            }
        }
        Ok(if toward * f1 <= toward * f2 {
            (x1, f1)
        } else {
            (x2, f2)
        })
    }
    /// For the members whose dips are searched: where the last three samples of a positive
    /// member pass a minimum, finds the minimum on the interpolant (golden section); below zero,
    /// the member is bracketed falling between the first of the three samples and the minimum.
    /// True if one is. The samples are restored afterwards.
    pub(super) fn find_dip<S: EventSystem>(
        &mut self,
        sys: &mut S,
        stepper: &Stepper,
    ) -> Result<bool, EventError<S::Error>> {
        let mut found = false;
        if !self.set.dips {
            return Ok(false);
        }
        for i in 0..self.set.active {
            let spec = self.set.specs[i];
            let track = self.tracks[i];
            let searched = spec.armed
                && spec.dips
                && track.sign > 0
                && track.history == 2
                && spec.direction.accepts(Crossing::Falling);
            if !searched {
                continue;
            }
            let [(ta, ga), (tb, gb)] = track.earlier;
            let (tc, gc) = (track.t_last, track.g_last);
            let minimum = gb < ga && gb < gc;
            if !(minimum && dip_possible([(ta, ga), (tb, gb), (tc, gc)])) {
                continue;
            }
            let (t_min, g_min) =
                self.golden_extremum(sys, stepper, i, (ta, tc), 1.0, |g| g <= 0.0)?;
            if g_min <= 0.0 {
                self.bracket_falling(i, (ta, ga), (t_min, g_min));
                found = true;
            }
        }
        Ok(found)
    }
}

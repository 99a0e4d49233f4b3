//! The event locator: samples the event functions on a step's interpolant, brackets sign
//! changes and solves them by the Illinois method (the rules are in [`super`]).

use super::gaps::GapSample;
use super::GapMotion;
use super::{
    Crossing, EventConfigError, EventError, EventHit, EventOptions, EventSet, EventSystem,
};
use crate::simulation::ode::integrate::Stepper;

/// What the locator remembers of the samples it already has.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Cached {
    segment: u64,
    t: f64,
    generation: u64,
    active: usize,
}

/// Per-member scan state.
#[derive(Clone, Copy, Debug)]
pub(super) struct Track {
    /// Sign of the member (0: not yet resolved at this step's start).
    pub(super) sign: i8,
    /// Last sample with a non-zero value: time (s) and value.
    pub(super) t_last: f64,
    pub(super) g_last: f64,
    /// Bracket [lo, hi] of a firing crossing found in the current interval.
    pub(super) bracketed: bool,
    pub(super) lo: f64,
    pub(super) hi: f64,
    pub(super) g_hi: f64,
    pub(super) crossing: Crossing,
    /// Whether the member fired at the time the next step starts from.
    pub(super) at_root: bool,
    /// The two samples before the last one in this step (time, value), oldest first, and how
    /// many of them are set (for the dip search).
    pub(super) earlier: [(f64, f64); 2],
    pub(super) history: u8,
    /// For a gap: `[dg/dt, vx, vy]` at the last sample (m/s), and the sample before the
    /// last one in this step while the gap is positive (the interval between them is searched
    /// once, see [`EventSpec::gap`]).
    pub(super) motion_last: GapMotion,
    pub(super) gap_prev: Option<GapSample>,
    /// For a gap at or below zero at the step's start (or within its start band): the start
    /// (time, value), until its sign is known (see [`EventSpec::gap`]).
    pub(super) closing_from: Option<(f64, f64)>,
}

impl Default for Track {
    fn default() -> Self {
        Self {
            sign: 0,
            t_last: 0.0,
            g_last: 0.0,
            bracketed: false,
            lo: 0.0,
            hi: 0.0,
            g_hi: 0.0,
            crossing: Crossing::Rising,
            at_root: false,
            earlier: [(0.0, 0.0); 2],
            history: 0,
            motion_last: [0.0; 4],
            gap_prev: None,
            closing_from: None,
        }
    }
}

impl Track {
    /// Moves the last sample into the history and records (t, g) as the last one.
    pub(super) fn push(&mut self, t: f64, g: f64) {
        self.earlier = [self.earlier[1], (self.t_last, self.g_last)];
        self.history = (self.history + 1).min(2);
        self.t_last = t;
        self.g_last = g;
    }
}

/// Where the rate at a step's end (or start) is measured, as a fraction of the step before
/// (after) it.
pub(super) const NEAR_END: f64 = 1e-3;

/// Each member's rate dg/dt between its values `a` at `ta` and `b` at `tb`, into `out`.
fn secant(a: &[f64], ta: f64, b: &[f64], tb: f64, out: &mut [f64]) {
    for ((rate, a), b) in out.iter_mut().zip(a).zip(b) {
        *rate = (b - a) / (tb - ta);
    }
}

/// Iteration cap of the root solver (bisection every few iterations keeps it far below).
pub(super) const MAX_ROOT_ITERATIONS: usize = 400;
/// Root tolerance in units of eps (|t| + |h|).
pub(super) const ROOT_TOLERANCE: f64 = 100.0 * f64::EPSILON;

/// Locates events on the dense output of a [`Stepper`]. All buffers are allocated in
/// [`EventLocator::new`]; locating allocates nothing.
#[derive(Clone, Debug)]
pub struct EventLocator {
    pub(super) set: EventSet,
    pub(super) options: EventOptions,
    pub(super) n: usize,
    pub(super) y: Vec<f64>,
    /// g at the start of the next step (the end of the last scanned step).
    pub(super) g_start: Vec<f64>,
    pub(super) cached: Option<Cached>,
    /// dg/dt at the start of the next step, valid with `cached` when `rates_known`.
    pub(super) rate_start: Vec<f64>,
    pub(super) rates_known: bool,
    /// g and dg/dt at the end of the step being scanned (buffers).
    pub(super) g_end: Vec<f64>,
    pub(super) rate_end: Vec<f64>,
    /// Steps scanned, and those whose interior samples were skipped.
    pub(super) scanned: (u64, u64),
    pub(super) g_sample: Vec<f64>,
    /// The gap members' `[dg/dt, vx, vy]` at the start, end, sample and hit (m/s).
    pub(super) motion_start: Vec<GapMotion>,
    pub(super) motion_end: Vec<GapMotion>,
    pub(super) motion_sample: Vec<GapMotion>,
    pub(super) motion_hit: Vec<GapMotion>,
    pub(super) tracks: Vec<Track>,
    /// Time and set generation of the last hit, for its members' `at_root`.
    pub(super) last_hit: Option<(f64, u64)>,
    pub(super) hit_t: f64,
    pub(super) members: Vec<usize>,
    pub(super) crossings: Vec<Crossing>,
    pub(super) hit_values: Vec<f64>,
}

impl EventLocator {
    /// A locator for up to `capacity` event members of a system with `dimension` state
    /// components. No member is active until [`EventSet::configure`].
    pub fn new(
        capacity: usize,
        dimension: usize,
        options: EventOptions,
    ) -> Result<Self, EventConfigError> {
        options.validate()?;
        Ok(Self {
            set: EventSet::with_capacity(capacity),
            options,
            n: dimension,
            y: vec![0.0; dimension],
            g_start: vec![0.0; capacity],
            cached: None,
            rate_start: vec![0.0; capacity],
            rates_known: false,
            g_end: vec![0.0; capacity],
            rate_end: vec![0.0; capacity],
            scanned: (0, 0),
            g_sample: vec![0.0; capacity],
            motion_start: vec![[0.0; 4]; capacity],
            motion_end: vec![[0.0; 4]; capacity],
            motion_sample: vec![[0.0; 4]; capacity],
            motion_hit: vec![[0.0; 4]; capacity],
            tracks: vec![Track::default(); capacity],
            last_hit: None,
            hit_t: f64::NAN,
            members: Vec::with_capacity(capacity),
            crossings: Vec::with_capacity(capacity),
            hit_values: vec![0.0; capacity],
        })
    }

    /// The active members and their filters.
    pub fn set(&self) -> &EventSet {
        &self.set
    }

    /// The active members, to configure, arm or disarm them.
    pub fn set_mut(&mut self) -> &mut EventSet {
        &mut self.set
    }

    /// Steps scanned so far, and how many of them had their interior samples skipped (no zero
    /// fitted, see [`EventOptions::rate_margin`]).
    pub fn scanned(&self) -> (u64, u64) {
        self.scanned
    }

    /// Sampling options.
    pub fn options(&self) -> &EventOptions {
        &self.options
    }

    /// Forgets the cached event values: call it when the event functions change without a
    /// stepper reset (a reset or [`EventSet::configure`] already does).
    pub fn invalidate(&mut self) {
        self.cached = None;
        self.last_hit = None;
    }

    /// Event values at the end of the last step scanned without a hit (for re-arming
    /// decisions), with that time (s).
    pub fn end_values(&self) -> Option<(f64, &[f64])> {
        self.cached
            .filter(|c| c.generation == self.set.generation && c.active == self.set.active)
            .map(|c| (c.t, &self.g_start[..c.active]))
    }

    /// Scans the last accepted step of `stepper` for events. On a hit, writes the interpolated
    /// state at the event time into `state` and returns the event; the caller then restarts the
    /// stepper there (with the post-event state) with [`Stepper::reset`].
    pub fn locate<S: EventSystem>(
        &mut self,
        sys: &mut S,
        stepper: &Stepper,
        state: &mut [f64],
    ) -> Result<Option<EventHit<'_>>, EventError<S::Error>> {
        Ok(if self.scan(sys, stepper, state)? {
            Some(self.hit())
        } else {
            None
        })
    }

    /// The last hit, as returned by `locate`.
    pub(super) fn hit(&self) -> EventHit<'_> {
        EventHit {
            t: self.hit_t,
            members: &self.members,
            crossings: &self.crossings,
            values: &self.hit_values[..self.set.active],
        }
    }

    /// Locates the earliest event of the last step; true on a hit (then in `hit_*`).
    pub(super) fn scan<S: EventSystem>(
        &mut self,
        sys: &mut S,
        stepper: &Stepper,
        state: &mut [f64],
    ) -> Result<bool, EventError<S::Error>> {
        let (t0, t1) = (stepper.t_old(), stepper.t());
        for found in [stepper.dimension(), state.len()] {
            if found != self.n {
                let expected = self.n;
                return Err(EventError::DimensionMismatch {
                    t: t1,
                    expected,
                    found,
                });
            }
        }
        let m = self.set.active;
        if m == 0 || !stepper.has_step() {
            return Ok(false);
        }
        let key = Cached {
            segment: stepper.segment(),
            t: t0,
            generation: self.set.generation,
            active: m,
        };
        let continuing = self.cached == Some(key);
        if !continuing {
            self.sample(sys, stepper, t0, Buffer::Start)?;
        }
        let need_probe = self.start_tracks(t0, key.generation, !continuing);
        let h = t1 - t0;
        // A start without a scanned step before it (a reset: an event, a hand changed) has no
        // rates from that step: one sample just after the start gives them, so that the
        // interior samples are skipped where no zero fits, as in a continuing step.
        let rates_known = if continuing {
            self.rates_known
        } else if !need_probe && !self.set.dips {
            let near = t0 + NEAR_END * h;
            self.sample(sys, stepper, near, Buffer::Hit)?;
            secant(
                &self.g_start[..m],
                t0,
                &self.hit_values[..m],
                near,
                &mut self.rate_start,
            );
            true
        } else {
            false
        };
        self.cached = None;
        self.rates_known = false;
        self.scanned.0 += 1;
        let tol = ROOT_TOLERANCE * (t0.abs().max(t1.abs()) + h);
        // The end first, and the rate there from a sample just before it.
        self.sample(sys, stepper, t1, Buffer::Sample)?;
        self.g_end[..m].copy_from_slice(&self.g_sample[..m]);
        self.motion_end[..m].copy_from_slice(&self.motion_sample[..m]);
        let near = t1 - NEAR_END * h;
        self.sample(sys, stepper, near, Buffer::Hit)?;
        secant(
            &self.hit_values[..m],
            near,
            &self.g_end[..m],
            t1,
            &mut self.rate_end,
        );
        let skip = rates_known && !need_probe && !self.set.dips && self.no_zero_fits(t0, h);
        let interior = if skip {
            0
        } else {
            self.options.interior_samples
        };
        self.scanned.1 += u64::from(skip);
        let probe = need_probe.then_some(t0 + self.options.probe_fraction * h);
        let grid = (1..=interior).map(|k| t0 + h * (k as f64 / (interior + 1) as f64));
        for ts in probe.into_iter().chain(grid).chain(std::iter::once(t1)) {
            if ts == t1 {
                self.g_sample[..m].copy_from_slice(&self.g_end[..m]);
                self.motion_sample[..m].copy_from_slice(&self.motion_end[..m]);
            } else {
                self.sample(sys, stepper, ts, Buffer::Sample)?;
            }
            // Every kind of search looks at the interval: the earliest bracket wins in `solve`.
            let crossed = self.compare(ts);
            let dipped = self.find_dip(sys, stepper)?;
            let closed = self.find_gap(sys, stepper, tol)?;
            if crossed || dipped || closed {
                self.solve(sys, stepper, tol)?;
                self.finish_hit(sys, stepper, state)?;
                return Ok(true);
            }
        }
        self.g_start[..m].copy_from_slice(&self.g_sample[..m]);
        self.motion_start[..m].copy_from_slice(&self.motion_sample[..m]);
        self.rate_start[..m].copy_from_slice(&self.rate_end[..m]);
        self.rates_known = true;
        self.cached = Some(Cached { t: t1, ..key });
        Ok(false)
    }

    /// Whether no armed member can reach zero inside a step of `h` (s) from the start values
    /// and rates to the end ones (see [`EventOptions::rate_margin`]).
    pub(super) fn no_zero_fits(&self, t0: f64, h: f64) -> bool {
        let margin = self.options.rate_margin;
        margin > 0.0
            && (0..self.set.active).all(|i| {
                let spec = self.set.specs[i];
                let (g0, g1) = (self.g_start[i], self.g_end[i]);
                if spec.gap {
                    // Conservative: a gap that cannot close over the whole step.
                    let start = GapSample {
                        t: t0,
                        g: g0,
                        motion: self.motion_start[i],
                    };
                    let end = GapSample {
                        t: t0 + h,
                        g: g1,
                        motion: self.motion_end[i],
                    };
                    return !spec.armed
                        || (g0 > 0.0 && g1 > 0.0 && !GapSample::may_close(start, end));
                }
                let rate = self.rate_start[i].abs().max(self.rate_end[i].abs());
                !spec.armed
                    || (sign(g0) == sign(g1)
                        && g0 != 0.0
                        && g0.abs() + g1.abs() > margin * rate * h)
            })
    }

    /// Sets up each member's sign at the step's start (`fresh`: a start without a step scanned
    /// before it); true if some member needs the probe.
    pub(super) fn start_tracks(&mut self, t0: f64, generation: u64, fresh: bool) -> bool {
        let m = self.set.active;
        let after_hit = self.last_hit == Some((t0, generation));
        self.last_hit = None;
        let mut need_probe = false;
        for i in 0..m {
            let track = &mut self.tracks[i];
            let g = self.g_start[i];
            let spec = self.set.specs[i];
            let unresolved =
                g == 0.0 || (after_hit && track.at_root) || (fresh && g.abs() <= spec.start_band);
            let closing = spec.gap && (unresolved || g < 0.0);
            *track = Track {
                sign: if unresolved { 0 } else { sign(g) },
                t_last: t0,
                g_last: g,
                motion_last: self.motion_start[i],
                closing_from: closing.then_some((t0, g)),
                ..Track::default()
            };
            need_probe |= unresolved && spec.armed;
        }
        need_probe
    }

    /// Compares the sample at `ts` with each armed member's sign; marks the firing crossings
    /// and returns whether there is one.
    pub(super) fn compare(&mut self, ts: f64) -> bool {
        let mut found = false;
        for i in 0..self.set.active {
            let spec = self.set.specs[i];
            let g = self.g_sample[i];
            let track = &mut self.tracks[i];
            let now = sign(g);
            let v = self.motion_sample[i];
            if !spec.armed || now == track.sign {
                if now > 0 && spec.gap {
                    let last = GapSample {
                        t: track.t_last,
                        g: track.g_last,
                        motion: track.motion_last,
                    };
                    track.gap_prev = Some(last);
                }
                if now != 0 && spec.dips {
                    track.push(ts, g);
                } else if now != 0 {
                    (track.t_last, track.g_last) = (ts, g);
                }
                track.motion_last = v;
                continue;
            }
            if track.sign == 0 {
                // Resolved just after a zero start: no crossing (a gap resolved below zero is
                // judged by `find_gap`).
                track.sign = now;
                track.t_last = ts;
                track.g_last = g;
                track.motion_last = v;
                if now > 0 {
                    track.closing_from = None;
                }
                continue;
            }
            let crossing = if track.sign < 0 {
                Crossing::Rising
            } else {
                Crossing::Falling
            };
            if spec.direction.accepts(crossing) {
                track.bracketed = true;
                track.crossing = crossing;
                track.lo = track.t_last;
                track.hi = ts;
                track.g_hi = g;
                found = true;
            } else if now != 0 {
                track.sign = now;
                track.t_last = ts;
                track.g_last = g;
                track.motion_last = v;
                track.closing_from = None;
            }
        }
        found
    }

    /// Member i's value at t on the interpolant (every member is evaluated).
    pub(super) fn member_at<S: EventSystem>(
        &mut self,
        sys: &mut S,
        stepper: &Stepper,
        i: usize,
        t: f64,
    ) -> Result<f64, EventError<S::Error>> {
        self.sample(sys, stepper, t, Buffer::Hit)?;
        Ok(self.hit_values[i])
    }

    /// Narrows every bracket to the tolerance on the interpolant.
    pub(super) fn solve<S: EventSystem>(
        &mut self,
        sys: &mut S,
        stepper: &Stepper,
        tol: f64,
    ) -> Result<(), EventError<S::Error>> {
        for i in 0..self.set.active {
            let track = self.tracks[i];
            if !track.bracketed {
                continue;
            }
            let (lo, hi) = if track.g_hi == 0.0 {
                (track.hi, track.hi)
            } else {
                let bracket = Bracket {
                    a: track.t_last,
                    fa: track.g_last,
                    b: track.hi,
                    fb: track.g_hi,
                };
                self.illinois(sys, stepper, i, bracket, tol)?
            };
            self.tracks[i].lo = lo;
            self.tracks[i].hi = hi;
        }
        Ok(())
    }

    /// Illinois (modified regula falsi) on member `i` of g along the interpolant, from a
    /// bracket with `fa` on the pre-crossing side; returns the final (pre, post) ends.
    pub(super) fn illinois<S: EventSystem>(
        &mut self,
        sys: &mut S,
        stepper: &Stepper,
        i: usize,
        bracket: Bracket,
        tol: f64,
    ) -> Result<(f64, f64), EventError<S::Error>> {
        let Bracket {
            mut a,
            mut fa,
            mut b,
            mut fb,
        } = bracket;
        let mut retained = 0i8;
        let mut reference = b - a;
        let mut slow = 0u32;
        for _ in 0..MAX_ROOT_ITERATIONS {
            if b - a <= tol {
                break;
            }
            let secant = b - fb * (b - a) / (fb - fa);
            let c = if slow < 3 && secant > a && secant < b {
                secant
            } else {
                0.5 * (a + b)
            };
            self.sample(sys, stepper, c, Buffer::Sample)?;
            let fc = self.g_sample[i];
            if fc == 0.0 {
                return Ok((c, c));
            }
            if sign(fc) == sign(fb) {
                (b, fb) = (c, fc);
                if retained == 1 {
                    fa *= 0.5;
                }
                retained = 1;
            } else {
                (a, fa) = (c, fc);
                if retained == -1 {
                    fb *= 0.5;
                }
                retained = -1;
            }
            if b - a <= 0.5 * reference {
                reference = b - a;
                slow = 0;
            } else {
                slow += 1;
            }
        }
        Ok((a, b))
    }

    /// Groups the members firing at the earliest root, writes the state there and the event
    /// values, and remembers the hit.
    pub(super) fn finish_hit<S: EventSystem>(
        &mut self,
        sys: &mut S,
        stepper: &Stepper,
        state: &mut [f64],
    ) -> Result<(), EventError<S::Error>> {
        let m = self.set.active;
        let tracks = &mut self.tracks[..m];
        let mut t = tracks
            .iter()
            .filter(|tr| tr.bracketed)
            .map(|tr| tr.hi)
            .fold(f64::INFINITY, f64::min);
        // A member fires with the group when its bracket starts by the group's time; the
        // group's time is the latest post-crossing end, so every member is past its root.
        for track in tracks.iter_mut() {
            track.at_root = false;
        }
        loop {
            let mut grown = false;
            for track in tracks.iter_mut() {
                if track.bracketed && !track.at_root && track.lo <= t {
                    track.at_root = true;
                    t = t.max(track.hi);
                    grown = true;
                }
            }
            if !grown {
                break;
            }
        }
        self.members.clear();
        self.crossings.clear();
        for (i, track) in tracks.iter().enumerate() {
            if track.at_root {
                self.members.push(i);
                self.crossings.push(track.crossing);
            }
        }
        self.sample(sys, stepper, t, Buffer::Hit)?;
        state.copy_from_slice(&self.y);
        self.hit_t = t;
        self.last_hit = Some((t, self.set.generation));
        self.cached = None;
        Ok(())
    }

    /// Interpolates the state at `t` into `y` and evaluates the event functions into `buffer`.
    pub(super) fn sample<S: EventSystem>(
        &mut self,
        sys: &mut S,
        stepper: &Stepper,
        t: f64,
        buffer: Buffer,
    ) -> Result<(), EventError<S::Error>> {
        let m = self.set.active;
        stepper.interpolate(t, &mut self.y)?;
        let out = match buffer {
            Buffer::Start => &mut self.g_start[..m],
            Buffer::Sample => &mut self.g_sample[..m],
            Buffer::Hit => &mut self.hit_values[..m],
        };
        sys.events(t, &self.y, out)
            .map_err(|source| EventError::Events { t, source })?;
        // A disarmed member is ignored: its value is not looked at.
        let specs = &self.set.specs[..m];
        if let Some(member) = (0..m).position(|i| specs[i].armed && !out[i].is_finite()) {
            return Err(EventError::NonFiniteEvent { t, member });
        }
        if self.set.gaps {
            let velocities = match buffer {
                Buffer::Start => &mut self.motion_start[..m],
                Buffer::Sample => &mut self.motion_sample[..m],
                Buffer::Hit => &mut self.motion_hit[..m],
            };
            sys.gap_velocities(velocities);
        }
        Ok(())
    }
}

/// Which buffer a sample of the event functions goes to.
#[derive(Clone, Copy)]
pub(super) enum Buffer {
    Start,
    Sample,
    Hit,
}

/// A root bracket: `fa` and `fb` of opposite signs.
#[derive(Clone, Copy)]
pub(super) struct Bracket {
    a: f64,
    fa: f64,
    b: f64,
    fb: f64,
}

/// Sign of `x`: -1, 0 or 1.
pub(super) fn sign(x: f64) -> i8 {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

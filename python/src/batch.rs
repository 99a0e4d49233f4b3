//! `diabolo.Batch` (docs/batch.md): N simulations of one scenario, each with parameters of its
//! own, stepped together by a pool of threads with the interpreter released. Each member is a
//! [`Stepper`], the `Simulation` object's own native half, so a member takes the same steps as the
//! same simulation stepped alone, bit for bit, whatever the thread count. The hands' inputs come
//! in as one array and the observations (the Gymnasium environments' definition, written here
//! once, [`observe`]) go out as arrays, one copy each way.

use std::panic::{catch_unwind, AssertUnwindSafe};

use diabolo::model::axle_angles::tilt;
use diabolo::simulation::space::{SpaceEventKind, SpacePhase};
use diabolo::simulation::{DiaboloMode, EventKind, Phase};
use diabolo::sweep::thread_count;
use nalgebra::Vector2;
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArrayDyn};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::{hand_drive, invalid, load, warn_all, Stepped, Stepper};

/// The numbers a step gives per member besides its observation (float64): the time (s), the
/// first diabolo's x and y (m), the sticks' mean x (m), the diabolo's speed (m/s), its spin
/// (m/s), its axle's tilt (degrees; NaN in the plane), the sticks' mean height (m).
pub const VALUES: usize = 8;
/// The whole numbers a step gives per member: the status (0 running, 1 failed, 2 at its
/// duration), the first diabolo's mode (0 on the string, 1 flying, 2 dropped), and the `land`
/// and `drop` events of the step.
pub const FLAGS: usize = 4;

/// The most members a batch takes: about 4 GB of members (a member takes about 40 KB).
const MAX_MEMBERS: usize = 100_000;

/// Failed: the member's run stopped (its message in `failure`).
const FAILED: i32 = 1;
/// Finished: the member reached its duration.
const FINISHED: i32 = 2;

/// One member: its stepped run, how many of its events the steps have counted, and whether
/// an internal error (a panic in the core: a bug) stopped it.
#[derive(Clone)]
struct Member {
    stepper: Stepper,
    counted: usize,
    panicked: bool,
}

/// What the hands get: a kind (as `Simulation.set_hand`'s) and, per member and hand, a value.
#[derive(Clone, Copy, PartialEq)]
enum Input {
    Accel,
    Force,
    Target([f64; 3]),
}

/// N simulations of one scenario stepped together (`diabolo.Batch`'s native half).
#[pyclass(module = "diabolo._diabolo")]
pub struct Batch {
    members: Vec<Member>,
    /// The built runs members are reset to.
    starts: Vec<Stepped>,
    /// Observations (`size` each), values ([`VALUES`] each), flags ([`FLAGS`] each).
    observations: Vec<f32>,
    values: Vec<f64>,
    flags: Vec<i32>,
    /// The hands' values of the step, `2 * dim` per member.
    inputs: Vec<f64>,
    size: usize,
    dim: usize,
    pool: Option<rayon::ThreadPool>,
}

/// The observation of the Gymnasium environments (`diabolo/gym.py` documents it) and the
/// member's values and mode, from its state now; `Err` with the failure's message.
fn observe(stepped: &mut Stepped, obs: &mut [f32], values: &mut [f64]) -> Result<i32, String> {
    let mut put =
        |k: usize, d: &[f64], l: &[f64], r: &[f64], dv: &[f64], lv: &[f64], rv: &[f64]| {
            for i in 0..k {
                obs[i] = (d[i] - l[i]) as f32;
                obs[k + i] = (d[i] - r[i]) as f32;
                obs[2 * k + i] = (dv[i] - (lv[i] + rv[i]) / 2.0) as f32;
                obs[3 * k + 1 + i] = lv[i] as f32;
                obs[4 * k + 1 + i] = rv[i] as f32;
            }
            values[1] = d[0];
            values[2] = d[1];
            values[3] = (l[0] + r[0]) / 2.0;
            values[4] = dv.iter().map(|v| v * v).sum::<f64>().sqrt();
            values[7] = (l[1] + r[1]) / 2.0;
        };
    let mode = |m: Option<&DiaboloMode>| match m {
        Some(DiaboloMode::String) => 0,
        Some(DiaboloMode::Flying) => 1,
        _ => 2,
    };
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    match stepped {
        Stepped::Plane { session, .. } => {
            let row = session.state().map_err(|e| e.to_string())?;
            let s = &row.state;
            let d = s.diabolos.first().ok_or("the scenario has no diabolo")?;
            put(
                2,
                d.pos.as_slice(),
                s.left.pos.as_slice(),
                s.right.pos.as_slice(),
                d.vel.as_slice(),
                s.left.vel.as_slice(),
                s.right.vel.as_slice(),
            );
            obs[6] = d.spin as f32;
            obs[11] = flag(row.phase == Some(Phase::Taut));
            obs[12] = flag(row.modes.first() == Some(&DiaboloMode::String));
            values[0] = row.t;
            values[5] = d.spin;
            values[6] = f64::NAN;
            Ok(mode(row.modes.first()))
        }
        Stepped::Space { session, .. } => {
            let s = session.state();
            let d = s.diabolos.first().ok_or("the scenario has no diabolo")?;
            put(
                3,
                d.pos.as_slice(),
                s.left.pos.as_slice(),
                s.right.pos.as_slice(),
                d.vel.as_slice(),
                s.left.vel.as_slice(),
                s.right.vel.as_slice(),
            );
            let degrees = tilt(&d.axle);
            obs[9] = d.spin as f32;
            obs[16] = flag(session.phase() == SpacePhase::Taut);
            let first = session.diabolo_modes().first();
            obs[17] = flag(first == Some(&DiaboloMode::String));
            obs[18] = degrees.to_radians() as f32;
            obs[19] = diabolo::model::axle_angles::turn(&d.axle).to_radians() as f32;
            values[0] = session.time();
            values[5] = d.spin;
            values[6] = degrees;
            Ok(mode(first))
        }
    }
}

impl Member {
    fn new(stepped: Stepped) -> Self {
        Self {
            stepper: Stepper { stepped, seen: 0 },
            counted: 0,
            panicked: false,
        }
    }

    /// Sets both hands (when `input` is given), advances by `dt` (when given), and writes the
    /// observation, values and flags; a failure marks the member failed and leaves its last
    /// observation.
    fn play(
        &mut self,
        input: Option<(Input, &[f64])>,
        dt: Option<f64>,
        obs: &mut [f32],
        values: &mut [f64],
        flags: &mut [i32],
    ) {
        flags[2] = 0;
        flags[3] = 0;
        if flags[0] == FAILED {
            return;
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<i32, String> {
            if let Some((input, hands)) = input {
                self.set_hands(input, hands)?;
            }
            if let Some(dt) = dt {
                self.advance(dt)?;
            }
            observe(&mut self.stepper.stepped, obs, values)
        }));
        self.count_events(flags);
        match outcome {
            Ok(Ok(mode)) => {
                flags[0] = if self.stepper.finished() { FINISHED } else { 0 };
                flags[1] = mode;
            }
            Ok(Err(_)) => flags[0] = FAILED,
            Err(_) => {
                flags[0] = FAILED;
                self.panicked = true;
            }
        }
    }

    /// Sets both hands as `Simulation.set_hands` does (in the plane with one re-entry of the
    /// string, in space one after the other). A failure is the member's (`Batch.failure`).
    fn set_hands(&mut self, input: Input, hands: &[f64]) -> Result<(), String> {
        let dim = hands.len() / 2;
        let (kind, gains) = input.kind();
        let values = [0, 1].map(|side| Some(Some(&hands[side * dim..(side + 1) * dim])));
        self.stepper
            .set_hands_of(kind, values, gains)
            .map_err(|_| "the hands could not be set".to_string())
    }

    fn advance(&mut self, dt: f64) -> Result<(), String> {
        match &mut self.stepper.stepped {
            Stepped::Plane { session, .. } => {
                let until = session.time() + dt;
                session.advance(until, None).map_err(|e| e.to_string())
            }
            Stepped::Space { session, .. } => {
                let until = session.time() + dt;
                session
                    .advance(until, |_| {})
                    .map_err(|(t, r)| crate::space_stop_message(t, &r))
            }
        }
    }

    /// Counts the `land` and `drop` events since the last count into `flags[2..4]`.
    fn count_events(&mut self, flags: &mut [i32]) {
        let mut count = |land: bool, drop: bool| {
            flags[2] += i32::from(land);
            flags[3] += i32::from(drop);
        };
        let from = self.counted;
        self.counted = match &self.stepper.stepped {
            Stepped::Plane { session, .. } => {
                let events = session.events();
                for e in events.get(from..).unwrap_or_default() {
                    count(e.kind == EventKind::Land, e.kind == EventKind::Drop);
                }
                events.len()
            }
            Stepped::Space { session, .. } => {
                let events = session.events();
                for e in events.get(from..).unwrap_or_default() {
                    count(
                        matches!(e.kind, SpaceEventKind::Land { .. }),
                        matches!(e.kind, SpaceEventKind::Drop { .. }),
                    );
                }
                events.len()
            }
        };
    }
}

impl Input {
    /// The kind of hand input (`Simulation.set_hand`'s words) and a target's gains.
    fn kind(self) -> (&'static str, Option<[f64; 3]>) {
        match self {
            Input::Accel => ("accel", None),
            Input::Force => ("force", None),
            Input::Target(gains) => ("target", Some(gains)),
        }
    }
}

impl Batch {
    /// Runs `play` on the members marked in `chosen` (all when `None`), on the pool when there
    /// is one and more than one member to play, with the interpreter released.
    fn play(
        &mut self,
        py: Python<'_>,
        chosen: Option<&[bool]>,
        input: Option<Input>,
        dt: Option<f64>,
        reset: bool,
    ) {
        let (size, hands) = (self.size, 2 * self.dim);
        let starts = &self.starts;
        let inputs = &self.inputs;
        let task = |(i, (((member, obs), values), flags)): Slot<'_>| {
            if chosen.is_some_and(|c| !c[i]) {
                flags[2] = 0;
                flags[3] = 0;
                return;
            }
            if reset {
                *member = Member::new(starts[i].clone());
                flags[0] = 0;
            }
            let input = input.map(|kind| (kind, &inputs[i * hands..(i + 1) * hands]));
            member.play(input, dt, obs, values, flags);
        };
        let members = &mut self.members;
        let (observations, values, flags) =
            (&mut self.observations, &mut self.values, &mut self.flags);
        // The interpreter is released whatever the threads (0.1 us; a member's step is
        // microseconds): other Python threads run while the members step.
        let pool = &self.pool;
        py.detach(|| match pool {
            Some(pool) if members.len() > 1 => pool.install(|| {
                members
                    .par_iter_mut()
                    .zip(observations.par_chunks_mut(size))
                    .zip(values.par_chunks_mut(VALUES))
                    .zip(flags.par_chunks_mut(FLAGS))
                    .enumerate()
                    // Member by member: a member's step costs from 2 us to some 400 us (the
                    // hands pulling the string straight), and the call waits for the slowest
                    // piece (160,690-167,513 env steps/s against 155,890 in larger pieces).
                    .with_max_len(1)
                    .for_each(task)
            }),
            _ => members
                .iter_mut()
                .zip(observations.chunks_mut(size))
                .zip(values.chunks_mut(VALUES))
                .zip(flags.chunks_mut(FLAGS))
                .enumerate()
                .for_each(task),
        })
    }

    /// The hands' input of a call: `kind` and `values` (`2 * dim` numbers per chosen member,
    /// member by member) copied into `inputs`.
    fn read_input(
        &mut self,
        kind: Option<&str>,
        values: Option<PyReadonlyArrayDyn<'_, f64>>,
        gains: Option<[f64; 3]>,
        chosen: Option<&[bool]>,
    ) -> PyResult<Option<Input>> {
        let (kind, values) = match (kind, values) {
            (None, None) => return Ok(None),
            (Some(kind), Some(values)) => (kind, values),
            _ => {
                return Err(PyValueError::new_err(
                    "a hand input needs both its kind and its values",
                ))
            }
        };
        let input = match kind {
            "accel" => Input::Accel,
            "force" => Input::Force,
            "target" => {
                let gains = gains.ok_or_else(|| {
                    PyValueError::new_err(
                        "a target needs its gains (stiffness, damping, max_force)",
                    )
                })?;
                // The gains checked once, with set_hand's messages.
                hand_drive("target", Some(Vector2::zeros()), Some(gains), 0.0)?;
                Input::Target(gains)
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown hand input {other:?}; give accel, force or target"
                )))
            }
        };
        let hands = 2 * self.dim;
        let n = self.members.len();
        let given = chosen.map_or(n, |c| c.iter().filter(|&&b| b).count());
        let slice = values.as_slice().map_err(|_| {
            PyValueError::new_err(format!("{kind}: give a C-contiguous float64 array"))
        })?;
        if slice.len() != given * hands {
            return Err(PyValueError::new_err(format!(
                "{kind}: {} numbers for {given} members; give {given} x 2 hands x {} numbers \
                 (shape ({given}, 2, {}))",
                slice.len(),
                self.dim,
                self.dim
            )));
        }
        if let Some(k) = slice.iter().position(|v| !v.is_finite()) {
            let (member, rest) = (k / hands, k % hands);
            return Err(PyValueError::new_err(format!(
                "{kind}[{member}, {}, {}] = {}: give finite numbers",
                rest / self.dim,
                rest % self.dim,
                slice[k]
            )));
        }
        let mut next = slice.chunks(hands);
        for i in 0..n {
            if chosen.is_none_or(|c| c[i]) {
                if let Some(chunk) = next.next() {
                    self.inputs[i * hands..(i + 1) * hands].copy_from_slice(chunk);
                }
            }
        }
        Ok(Some(input))
    }

    /// The arrays of the members now: observations (N, size) float32, values (N, VALUES)
    /// float64, flags (N, FLAGS) int32; one copy each.
    fn arrays<'py>(&self, py: Python<'py>) -> PyResult<Arrays<'py>> {
        let n = self.members.len();
        Ok((
            PyArray1::from_slice(py, &self.observations)
                .reshape([n, self.size])?
                .into_any(),
            PyArray1::from_slice(py, &self.values)
                .reshape([n, VALUES])?
                .into_any(),
            PyArray1::from_slice(py, &self.flags)
                .reshape([n, FLAGS])?
                .into_any(),
        ))
    }

    fn member(&self, i: usize) -> PyResult<&Member> {
        self.members.get(i).ok_or_else(|| {
            PyValueError::new_err(format!(
                "member {i}: the batch has members 0..{}",
                self.members.len()
            ))
        })
    }
}

/// A member, its index and its pieces of the output buffers.
type Slot<'a> = (
    usize,
    (
        ((&'a mut Member, &'a mut [f32]), &'a mut [f64]),
        &'a mut [i32],
    ),
);

/// Observations, values and flags.
type Arrays<'py> = (Bound<'py, PyAny>, Bound<'py, PyAny>, Bound<'py, PyAny>);

/// A mask of `n` members from a list of bools (`None`: all).
fn mask(chosen: &Option<Vec<bool>>, n: usize) -> PyResult<Option<&[bool]>> {
    match chosen {
        Some(c) if c.len() != n => Err(PyValueError::new_err(format!(
            "members: a mask of {} for {n} members; give one bool per member",
            c.len()
        ))),
        other => Ok(other.as_deref()),
    }
}

#[pymethods]
impl Batch {
    /// `count` members of the scenario (`text` or the file `label`, with the `--set` pairs
    /// `sets`); `members[k] = (key, values)` gives member i the `--set key=values[i]` too.
    /// Raises InvalidScenario naming the member, the field and the value.
    #[new]
    #[pyo3(signature = (text, label, sets, count, members, jobs = None))]
    fn new(
        py: Python<'_>,
        text: Option<String>,
        label: &str,
        sets: Vec<(String, String)>,
        count: usize,
        members: Vec<(String, Vec<String>)>,
        jobs: Option<usize>,
    ) -> PyResult<Self> {
        if count == 0 || count > MAX_MEMBERS {
            return Err(PyValueError::new_err(format!(
                "a batch of {count} members: give 1 to {MAX_MEMBERS} (a member takes about 40 KB)"
            )));
        }
        if let Some((key, values)) = members.iter().find(|(_, v)| v.len() != count) {
            return Err(PyValueError::new_err(format!(
                "{key}: {} values for {count} members; give one value per member",
                values.len()
            )));
        }
        let mut starts: Vec<Stepped> = Vec::with_capacity(count);
        let mut warnings: Vec<String> = Vec::new();
        for i in 0..count {
            if i > 0 && members.is_empty() {
                starts.push(starts[0].clone());
                continue;
            }
            let mut all = sets.clone();
            all.extend(members.iter().map(|(k, v)| (k.clone(), v[i].clone())));
            let (_, built, found) = load(text.clone(), label, &all).map_err(|e| {
                let given: Vec<String> = members
                    .iter()
                    .map(|(k, v)| format!("{k}={}", v[i]))
                    .collect();
                invalid(format!("member {i} ({}): {e}", given.join(", ")))
            })?;
            for w in found {
                if !warnings.contains(&w) {
                    warnings.push(w);
                }
            }
            starts.push(Stepper::start(built).stepped);
        }
        warn_all(py, &warnings)?;
        let dim = if matches!(starts[0], Stepped::Space { .. }) {
            3
        } else {
            2
        };
        let size = if dim == 3 { 20 } else { 13 };
        let jobs = match jobs {
            Some(0) => return Err(PyValueError::new_err("jobs: at least one thread is needed")),
            Some(j) => j,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let threads = thread_count(jobs, count);
        let pool = if threads > 1 {
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .map_err(|e| {
                        PyValueError::new_err(format!("cannot start {threads} threads: {e}"))
                    })?,
            )
        } else {
            None
        };
        let members: Vec<Member> = starts.iter().map(|s| Member::new(s.clone())).collect();
        if members[0].stepper.diabolos() == 0 {
            return Err(invalid(
                "initial.diabolos: the batch observes the first diabolo and the scenario has none; give one",
            ));
        }
        let mut batch = Self {
            members,
            starts,
            observations: vec![0.0; count * size],
            values: vec![0.0; count * VALUES],
            flags: vec![0; count * FLAGS],
            inputs: vec![0.0; count * 2 * dim],
            size,
            dim,
            pool,
        };
        batch.play(py, None, None, None, false);
        Ok(batch)
    }

    /// Sets the hands of every member (or of those `chosen`) when `kind` ("accel", "force",
    /// "target" with `gains`) and `values` (`(chosen, 2, dim)` float64) are given, advances
    /// them by `dt` seconds, and returns (observations, values, flags) of all members.
    #[pyo3(signature = (dt, kind = None, values = None, gains = None, chosen = None))]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        dt: f64,
        kind: Option<&str>,
        values: Option<PyReadonlyArrayDyn<'py, f64>>,
        gains: Option<[f64; 3]>,
        chosen: Option<Vec<bool>>,
    ) -> PyResult<Arrays<'py>> {
        if !(dt.is_finite() && dt >= 0.0) {
            return Err(PyValueError::new_err(format!(
                "dt must be a finite number of seconds >= 0, got {dt}"
            )));
        }
        let chosen_mask = mask(&chosen, self.members.len())?;
        let input = self.read_input(kind, values, gains, chosen_mask)?;
        self.play(py, chosen_mask, input, Some(dt), false);
        self.arrays(py)
    }

    /// Starts the members `chosen` (all when `None`) over at t = 0, sets their hands when
    /// `kind` and `values` are given (one row per chosen member), and returns the arrays of all
    /// members (the others unchanged, their event counts zero).
    #[pyo3(signature = (chosen = None, kind = None, values = None, gains = None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        chosen: Option<Vec<bool>>,
        kind: Option<&str>,
        values: Option<PyReadonlyArrayDyn<'py, f64>>,
        gains: Option<[f64; 3]>,
    ) -> PyResult<Arrays<'py>> {
        let chosen_mask = mask(&chosen, self.members.len())?;
        let input = self.read_input(kind, values, gains, chosen_mask)?;
        self.play(py, chosen_mask, input, None, true);
        self.arrays(py)
    }

    /// The arrays of all members now (event counts of the last call).
    fn observe<'py>(&self, py: Python<'py>) -> PyResult<Arrays<'py>> {
        self.arrays(py)
    }

    /// The number of members.
    fn __len__(&self) -> usize {
        self.members.len()
    }

    /// Whether the scenario runs in space.
    #[getter]
    fn space(&self) -> bool {
        self.dim == 3
    }

    /// The length of an observation (13 in the plane, 20 in space).
    #[getter]
    fn size(&self) -> usize {
        self.size
    }

    /// The threads stepping the members.
    #[getter]
    fn threads(&self) -> usize {
        self.pool.as_ref().map_or(1, |p| p.current_num_threads())
    }

    /// Member i's events not handed out yet, as a JSON array text ("" when none).
    fn events(&mut self, i: usize) -> PyResult<String> {
        self.member(i)?;
        Ok(self.members[i].stepper.new_events())
    }

    /// Why member i's run stopped, or None.
    fn failure(&self, i: usize) -> PyResult<Option<String>> {
        let member = self.member(i)?;
        if member.panicked {
            return Ok(Some(
                "an internal error stopped this member (a bug: please report it)".into(),
            ));
        }
        Ok(member.stepper.failure())
    }

    /// An independent copy of member i, as a `Simulation`'s native half.
    fn member_copy(&self, i: usize) -> PyResult<Stepper> {
        Ok(self.member(i)?.stepper.clone())
    }

    /// The number of diabolos of the members' scenario.
    #[getter]
    fn diabolos(&self) -> usize {
        self.members[0].stepper.diabolos()
    }

    /// The stick mass M, kg (the first member's).
    #[getter]
    fn stick_mass(&self) -> f64 {
        self.members[0].stepper.stick_mass()
    }
}

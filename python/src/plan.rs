//! `diabolo.plan` (docs/plan.md, docs/plan_python.md): a task planned as `diabolo plan` plans
//! it, and a stepped hand driven along a planned path (`Simulation.set_hand(path=...)`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use diabolo::plan::{plan as search_plan, planned_text, PlanOptions, SearchOptions, Task};
use diabolo::simulation::drive::{ClampedSpline, Drive, Path as HandPath};
use nalgebra::Vector2;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::{document, invalid, run_failed, Stepped, Stepper};

/// How often the interpreter looks for Ctrl-C while a plan is searched.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// Plans a task as `diabolo plan` does: `(planned scenario text, report JSON text, whether
/// each of the report's checks holds)`, the
/// text byte for byte the command line's `-o` file and the report its `--report` file. The
/// search runs on `jobs` threads with the interpreter released; Ctrl-C stops it and raises
/// `KeyboardInterrupt` (the plan so far is dropped).
#[pyfunction]
#[pyo3(signature = (text, label, sets, seed, jobs, max_simulations))]
pub fn plan(
    py: Python<'_>,
    text: Option<String>,
    label: &str,
    sets: Vec<(String, String)>,
    seed: u64,
    jobs: Option<usize>,
    max_simulations: usize,
) -> PyResult<(String, String, Vec<bool>)> {
    let (document, base) = document(text, label, &sets).map_err(invalid)?;
    let task = Task::from_document(document, &base).map_err(invalid)?;
    let jobs = match jobs {
        Some(0) => return Err(PyValueError::new_err("jobs: at least one thread is needed")),
        Some(j) => j,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    if max_simulations == 0 {
        return Err(PyValueError::new_err(
            "max_simulations: at least one run is needed",
        ));
    }
    let options = PlanOptions {
        search: SearchOptions {
            seed,
            max_simulations,
            ..SearchOptions::default()
        },
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| PyValueError::new_err(format!("cannot start {jobs} threads: {e}")))?;
    let stop = AtomicBool::new(false);
    let mut interrupted = None;
    let planned = std::thread::scope(|scope| -> PyResult<_> {
        let (done, finished) = mpsc::channel();
        let (task, options, stop, pool) = (&task, &options, &stop, &pool);
        scope.spawn(move || {
            let stopped = || stop.load(Ordering::Relaxed);
            let planned = pool.install(|| search_plan(task, options, &stopped, &mut |_| {}));
            let _ = done.send(planned);
        });
        // The interpreter waits released and looks for signals between waits; the search sees
        // the flag at its next check.
        let mut finished = finished;
        loop {
            let (received, receiver) = py.detach(move || {
                let received = finished.recv_timeout(SIGNAL_POLL);
                (received, finished)
            });
            finished = receiver;
            match received {
                Ok(planned) => return Ok(planned),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if interrupted.is_none() {
                        if let Err(e) = py.check_signals() {
                            stop.store(true, Ordering::Relaxed);
                            interrupted = Some(e);
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(PyValueError::new_err("the planner's thread ended early"))
                }
            }
        }
    })?;
    if let Some(e) = interrupted {
        return Err(e);
    }
    let report = serde_json::to_string_pretty(&planned).expect("a report is JSON");
    let met = planned.checks.iter().map(|c| c.met()).collect();
    Ok((planned_text(&planned.scenario), report, met))
}

/// Drives stick `side` (0 left, 1 right) of a planar stepped run along a C2 cubic spline
/// through `keyframes` (t, x, y) from now on, t counted from the time reached, at rest at the
/// last keyframe: the format's `"type": "path"` drive with `"interpolation": "cubic"`, the stick
/// following it exactly. Without `velocity` the spline is at rest at the first keyframe too;
/// with `velocity` (m/s) it leaves the first keyframe at that velocity (the format's
/// `"start_velocity"`: a moving hand continued without a jump when it is given the stick's own
/// velocity).
#[pyfunction]
#[pyo3(signature = (stepper, side, keyframes, velocity = None))]
pub fn set_path(
    stepper: &mut Stepper,
    side: usize,
    keyframes: Vec<(f64, f64, f64)>,
    velocity: Option<(f64, f64)>,
) -> PyResult<()> {
    if side > 1 {
        return Err(PyValueError::new_err("side must be 0 (left) or 1 (right)"));
    }
    let Stepped::Plane { session, .. } = &mut stepper.stepped else {
        return Err(PyValueError::new_err(
            "set_hand: path is for scenarios in the plane",
        ));
    };
    let now = session.time();
    let points: Vec<(f64, Vector2<f64>)> = keyframes
        .iter()
        .map(|&(t, x, y)| (now + t, Vector2::new(x, y)))
        .collect();
    let bad = |e: String| PyValueError::new_err(format!("set_hand: {e}"));
    let start = match velocity {
        None => Vector2::zeros(),
        Some((vx, vy)) => {
            if !(vx.is_finite() && vy.is_finite()) {
                return Err(bad(format!(
                    "path_velocity must be finite, got ({vx}, {vy})"
                )));
            }
            if points.len() < 2 {
                return Err(bad(
                    "a path with a start velocity needs at least two keyframes".into(),
                ));
            }
            Vector2::new(vx, vy)
        }
    };
    // The clamped spline checks the keyframes (finite, times increasing).
    let spline = ClampedSpline::leaving(points, start).map_err(|e| bad(e.to_string()))?;
    let drive = Drive::Path(HandPath::Keyframes(spline));
    session.set_drive(side, drive).map_err(|e| run_failed(&e))
}

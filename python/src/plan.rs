//! `diabolo.plan` (docs/plan.md, docs/plan_python.md): a task planned as `diabolo plan` plans
//! it, and a stepped hand driven along a planned path (`Simulation.set_hand(path=...)`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use diabolo::plan::{plan as search_plan, planned_text, PlanOptions, SearchOptions, Task};
use diabolo::simulation::drive::{ClampedSpline, Drive, Path as HandPath, Schedule};
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
/// last keyframe. Without `velocity` the spline is at rest at the first keyframe too: the
/// format's `"type": "path"` drive with `"interpolation": "cubic"`, the stick following it
/// exactly. With `velocity` (m/s) the spline leaves the first keyframe at that velocity and the
/// stick is driven by the spline's acceleration (piecewise linear) from its own state: it
/// follows the spline when it is at the first keyframe with that velocity (the stick's own
/// velocity: a moving hand continued without a jump).
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
    // The clamped spline checks the keyframes (finite, times increasing) either way.
    let spline = ClampedSpline::new(points.clone()).map_err(|e| bad(e.to_string()))?;
    let drive = match velocity {
        None => Drive::Path(HandPath::Keyframes(spline)),
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
            let mut accels = accelerations(&points, Vector2::new(vx, vy));
            // At rest after the last keyframe (within a microsecond).
            let end = points[points.len() - 1].0;
            accels.push((end + 1e-6, Vector2::zeros()));
            Drive::Accel(Schedule::keyframes(accels).map_err(|e| bad(e.to_string()))?)
        }
    };
    session.set_drive(side, drive).map_err(|e| run_failed(&e))
}

/// The accelerations at the keyframes of the C2 cubic spline through `points` leaving the first
/// at velocity `start` and at rest at the last (linear in between): the clamped spline's
/// tridiagonal system for its second derivatives, solved by elimination.
fn accelerations(points: &[(f64, Vector2<f64>)], start: Vector2<f64>) -> Vec<(f64, Vector2<f64>)> {
    let n = points.len();
    let h: Vec<f64> = points.windows(2).map(|w| w[1].0 - w[0].0).collect();
    let slope: Vec<Vector2<f64>> = points
        .windows(2)
        .zip(&h)
        .map(|(w, h)| (w[1].1 - w[0].1) / *h)
        .collect();
    let (mut diag, mut upper, mut lower) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut rhs = vec![Vector2::zeros(); n];
    for i in 0..n {
        let left = if i > 0 { h[i - 1] } else { 0.0 };
        let right = if i + 1 < n { h[i] } else { 0.0 };
        diag[i] = 2.0 * (left + right);
        lower[i] = left;
        upper[i] = right;
        let before = if i > 0 { slope[i - 1] } else { start };
        let after = if i + 1 < n {
            slope[i]
        } else {
            Vector2::zeros()
        };
        rhs[i] = 6.0 * (after - before);
    }
    for i in 1..n {
        let m = lower[i] / diag[i - 1];
        diag[i] -= m * upper[i - 1];
        let carried = rhs[i - 1] * m;
        rhs[i] -= carried;
    }
    let mut second = vec![Vector2::zeros(); n];
    second[n - 1] = rhs[n - 1] / diag[n - 1];
    for i in (0..n - 1).rev() {
        second[i] = (rhs[i] - second[i + 1] * upper[i]) / diag[i];
    }
    points.iter().map(|p| p.0).zip(second).collect()
}

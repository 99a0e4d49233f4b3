//! `diabolo._diabolo`: the native half of the `diabolo` Python package. It reads scenarios as
//! the command line does (same errors, same warnings), runs them with the interpreter released,
//! hands the trajectory out as columns of numbers, and keeps a [`Session`] for step-by-step
//! control. The Python half (`diabolo/__init__.py`) gives these their user-facing shape.

mod batch;
mod plan;
mod sweep;

use std::path::PathBuf;
use std::time::Instant;

use diabolo::model::axle_angles::{tilt, turn};
use diabolo::model::space::SpaceState;
use diabolo::output::{
    event_json, space_event_json, space_stop_message, ColumnValues, SpaceSummary, Summary,
    TrajectoryColumns,
};
use diabolo::scenario::{Built, Limits, Scenario, ScenarioError, Source};
use diabolo::simulation::drive::{Drive, Path as HandPath, Polyline, Schedule, Tracking};
use diabolo::simulation::space::{SpaceEvent, SpaceSession, SpaceSimulation};
use diabolo::{Event, Row, RunError, Session, Simulation};
use nalgebra::{SVector, Vector2, Vector3};
use numpy::{IntoPyArray, PyArray1, PyArrayMethods};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

create_exception!(
    _diabolo,
    DiaboloError,
    PyException,
    "Base class of the errors of diabolo."
);
create_exception!(
    _diabolo,
    InvalidScenario,
    DiaboloError,
    "The scenario cannot be run: the message names the JSON path, the value and the fix (the command line's message, exit code 2 there)."
);
create_exception!(
    _diabolo,
    RunFailed,
    DiaboloError,
    "The run stopped before its end (numerical trouble, a budget): the message gives the time and the object; `run` holds the partial run (exit code 1 on the command line)."
);

fn invalid(error: impl std::fmt::Display) -> PyErr {
    InvalidScenario::new_err(error.to_string())
}

/// Where a scenario comes from: the file `label` when `text` is `None`, else the text itself,
/// named `label` in messages (relative paths from the working folder).
fn source<'a>(text: &'a Option<String>, label: &'a str) -> Source<'a> {
    match text {
        Some(text) => Source::Text { text, label },
        None => Source::File(label),
    }
}

/// A scenario's document as `diabolo run` reads it ([`Scenario::read_document`]), with the
/// folder its relative paths are read from; `sets` are the `--set` overrides.
fn document(
    text: Option<String>,
    label: &str,
    sets: &[(String, String)],
) -> Result<(serde_json::Value, PathBuf), ScenarioError> {
    Scenario::read_document(&source(&text, label), sets)
}

/// A scenario read and built as `diabolo run` does ([`Scenario::load`]), with the
/// plausibility warnings the command line prints.
fn load(
    text: Option<String>,
    label: &str,
    sets: &[(String, String)],
) -> Result<(Scenario, Built, Vec<String>), ScenarioError> {
    let (scenario, built, warnings) =
        Scenario::load_any(&source(&text, label), sets, &Limits::default())?;
    let warnings = warnings.iter().map(|w| w.to_string()).collect();
    Ok((scenario, built, warnings))
}

/// The events of a run in space as one JSON array text.
fn space_events_json(events: &[SpaceEvent], n: usize) -> String {
    serde_json::Value::Array(events.iter().map(|e| space_event_json(e, n)).collect()).to_string()
}

/// What `run` hands back: columns, events JSON, summary JSON, failure, warnings.
type RunOutput<'py> = (
    Bound<'py, PyDict>,
    String,
    String,
    Option<String>,
    Vec<String>,
);

/// [`run`] of a scenario in space.
fn run_space<'py>(
    py: Python<'py>,
    scenario: &Scenario,
    simulation: SpaceSimulation<Drive<3>>,
    rows: bool,
    warnings: Vec<String>,
) -> PyResult<RunOutput<'py>> {
    let n = simulation.initial.diabolos.len();
    let (columns, report, summary, wall) = py.detach(|| {
        let compliant = simulation.params.planar.elastic().is_some();
        let mut columns = TrajectoryColumns::for_space(n, compliant);
        let mut summary = SpaceSummary::default();
        let start = Instant::now();
        let report = simulation.run(|row| {
            summary.observe(row);
            if rows {
                columns.push_space_row(row);
            }
        });
        (columns, report, summary, start.elapsed())
    });
    let summary = summary
        .to_json(scenario.name.as_deref(), &report, wall)
        .to_string();
    let failure = match &report.status {
        diabolo::simulation::space::SpaceStatus::Stopped { t, reason } => {
            Some(space_stop_message(*t, reason))
        }
        diabolo::simulation::space::SpaceStatus::Finished => None,
    };
    Ok((
        columns_dict(py, columns.into_columns())?,
        space_events_json(&report.events, n),
        summary,
        failure,
        warnings,
    ))
}

/// Raises the scenario's plausibility warnings as Python warnings (`UserWarning`).
fn warn_all(py: Python<'_>, warnings: &[String]) -> PyResult<()> {
    if warnings.is_empty() {
        return Ok(());
    }
    let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
    for warning in warnings {
        let message = std::ffi::CString::new(warning.as_str()).unwrap_or_default();
        PyErr::warn(py, &category, &message, 2)?;
    }
    Ok(())
}

/// The events as JSON lines' objects (the `--events` log), as one JSON array text.
fn events_json(events: &[Event]) -> String {
    serde_json::Value::Array(events.iter().map(event_json).collect()).to_string()
}

/// The trajectory columns as a dict of numpy arrays: numbers as float64 (NaN where the CSV is
/// empty), slots as int64, names as (codes, names) pairs for the Python side to turn into
/// string arrays.
fn columns_dict<'py>(
    py: Python<'py>,
    columns: Vec<(String, ColumnValues)>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (name, values) in columns {
        match values {
            ColumnValues::Numbers(v) => dict.set_item(name, v.into_pyarray(py))?,
            ColumnValues::Integers(v) => dict.set_item(name, v.into_pyarray(py))?,
            ColumnValues::Words { codes, names } => {
                dict.set_item(name, (codes.into_pyarray(py), names))?
            }
        }
    }
    Ok(dict)
}

/// Runs a scenario (its JSON text) to its end with the interpreter released: `(columns,
/// events JSON, summary JSON, failure message or None, warnings)`.
#[pyfunction]
#[pyo3(signature = (text, label, sets, rows = true))]
#[allow(clippy::type_complexity)]
fn run<'py>(
    py: Python<'py>,
    text: Option<String>,
    label: &str,
    sets: Vec<(String, String)>,
    rows: bool,
) -> PyResult<(
    Bound<'py, PyDict>,
    String,
    String,
    Option<String>,
    Vec<String>,
)> {
    let (scenario, built, warnings) = load(text, label, &sets).map_err(invalid)?;
    warn_all(py, &warnings)?;
    let simulation = match built {
        Built::Plane(simulation) => simulation,
        Built::Space(simulation) => return run_space(py, &scenario, simulation, rows, warnings),
    };
    let (columns, report, summary, wall) = py.detach(|| {
        let mut columns = TrajectoryColumns::new(&simulation);
        let mut summary = Summary::default();
        let start = Instant::now();
        let report = simulation.run(&mut |row| {
            summary.observe(row);
            if rows {
                columns.push_row(row);
            }
        });
        (columns, report, summary, start.elapsed())
    });
    let summary = summary
        .to_json(scenario.name.as_deref(), &report, wall)
        .to_string();
    let failure = report.failure.as_ref().map(|f| f.to_string());
    Ok((
        columns_dict(py, columns.into_columns())?,
        events_json(&report.events),
        summary,
        failure,
        warnings,
    ))
}

/// Checks a scenario as `diabolo validate` does: its warnings, or `InvalidScenario`.
#[pyfunction]
fn validate(
    text: Option<String>,
    label: &str,
    sets: Vec<(String, String)>,
) -> PyResult<Vec<String>> {
    let (_, _, warnings) = load(text, label, &sets).map_err(invalid)?;
    Ok(warnings)
}

/// The JSON Schema of the scenario format, as text.
#[pyfunction]
fn schema() -> String {
    serde_json::to_string_pretty(&Scenario::schema()).unwrap_or_default()
}

/// The run a [`Stepper`] advances: in the plane or in space. (One per `Simulation` object: the
/// variants' sizes do not matter.)
#[derive(Clone)]
#[allow(clippy::large_enum_variant)]
enum Stepped {
    /// A planar scenario and its [`Session`].
    Plane {
        simulation: Simulation,
        session: Session<'static>,
    },
    /// A scenario in space and its [`SpaceSession`].
    Space {
        simulation: SpaceSimulation<Drive<3>>,
        session: SpaceSession<Drive<3>>,
    },
}

/// A simulation advanced step by step: the scenario's run, with the hands' inputs changed
/// between steps (a [`Session`], or a [`SpaceSession`] for a scenario in space).
#[pyclass(module = "diabolo._diabolo")]
#[derive(Clone)]
struct Stepper {
    stepped: Stepped,
    /// Events already handed out.
    seen: usize,
}

fn run_failed(error: &RunError) -> PyErr {
    RunFailed::new_err(error.to_string())
}

fn space_failed(stop: &(f64, diabolo::simulation::space::SpaceStop)) -> PyErr {
    RunFailed::new_err(space_stop_message(stop.0, &stop.1))
}

/// A hand's drive from `set_hand`'s arguments, in D dimensions; `t` the time reached (a target
/// is held from there).
fn hand_drive<const D: usize>(
    kind: &str,
    value: Option<SVector<f64, D>>,
    gains: Option<[f64; 3]>,
    t: f64,
) -> PyResult<Drive<D>> {
    let need = |what: &str| {
        value.ok_or_else(|| PyValueError::new_err(format!("set_hand: {kind} needs {what}")))
    };
    Ok(match kind {
        "force" => Drive::Force(Schedule::Constant(need("a force in N")?)),
        "accel" => Drive::Accel(Schedule::Constant(need("an acceleration in m/s^2")?)),
        "released" => Drive::Released,
        "target" => {
            let point = need("a target point in m")?;
            let [stiffness, damping, max_force] =
                gains.ok_or_else(|| PyValueError::new_err("set_hand: target needs its gains"))?;
            for (name, v) in [
                ("stiffness", stiffness),
                ("damping", damping),
                ("max_force", max_force),
            ] {
                if !(v.is_finite() && v >= 0.0) {
                    return Err(PyValueError::new_err(format!(
                        "set_hand: {name} must be a finite number >= 0, got {v}"
                    )));
                }
            }
            let still = Polyline::new(vec![(t, point), (t + 1.0, point)])
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            Drive::Tracking(
                HandPath::Linear(still),
                Tracking {
                    stiffness,
                    damping,
                    max_force,
                },
            )
        }
        other => {
            return Err(PyValueError::new_err(format!(
                "set_hand: unknown input {other:?}; give force, accel, target or released"
            )))
        }
    })
}

impl Stepper {
    /// Sets the hands given in `values` (`None`: kept; `Some(None)`: the input without a
    /// value) to inputs of `kind`: in the plane with one re-entry of the string, in space one
    /// hand after the other (`Simulation.set_hand`, `set_hands` and a `Batch` member's step).
    pub(crate) fn set_hands_of(
        &mut self,
        kind: &str,
        values: [Option<Option<&[f64]>>; 2],
        gains: Option<[f64; 3]>,
    ) -> PyResult<()> {
        for v in values.iter().flatten().flatten() {
            if !v.iter().all(|x| x.is_finite()) {
                return Err(PyValueError::new_err(format!(
                    "set_hand: {kind} must be finite, got {v:?}"
                )));
            }
        }
        match &mut self.stepped {
            Stepped::Plane { session, .. } => {
                let t = session.time();
                let mut drives = [None, None];
                for (drive, value) in drives.iter_mut().zip(values) {
                    if let Some(value) = value {
                        *drive = Some(hand_drive(kind, plane_value(kind, value)?, gains, t)?);
                    }
                }
                session.set_drives(drives).map_err(|e| run_failed(&e))
            }
            Stepped::Space { session, .. } => {
                for (side, value) in values.into_iter().enumerate() {
                    if let Some(value) = value {
                        let drive =
                            hand_drive(kind, space_value(kind, value)?, gains, session.time())?;
                        session
                            .set_hand(side, drive)
                            .map_err(|stop| space_failed(&stop))?;
                    }
                }
                Ok(())
            }
        }
    }
}

/// A hand's value (x, y) in the plane.
fn plane_value(kind: &str, value: Option<&[f64]>) -> PyResult<Option<Vector2<f64>>> {
    match value {
        None => Ok(None),
        Some([x, y]) => Ok(Some(Vector2::new(*x, *y))),
        Some(other) => Err(PyValueError::new_err(format!(
            "set_hand: {kind} needs (x, y) in the plane, got {} numbers; a scenario in space takes (x, y, z)",
            other.len()
        ))),
    }
}

/// A hand's value (x, y, z) in space ((x, y) meaning z = 0).
fn space_value(kind: &str, value: Option<&[f64]>) -> PyResult<Option<Vector3<f64>>> {
    match value {
        None => Ok(None),
        Some([x, y]) => Ok(Some(Vector3::new(*x, *y, 0.0))),
        Some([x, y, z]) => Ok(Some(Vector3::new(*x, *y, *z))),
        Some(other) => Err(PyValueError::new_err(format!(
            "set_hand: {kind} needs (x, y, z), got {} numbers",
            other.len()
        ))),
    }
}

impl Stepper {
    fn start(built: Built) -> Self {
        let stepped = match built {
            Built::Plane(simulation) => {
                let session = simulation.session();
                Stepped::Plane {
                    simulation,
                    session,
                }
            }
            Built::Space(simulation) => {
                let session = SpaceSession::new(&simulation);
                Stepped::Space {
                    simulation,
                    session,
                }
            }
        };
        Self { stepped, seen: 0 }
    }
}

#[pymethods]
impl Stepper {
    #[new]
    fn new(
        py: Python<'_>,
        text: Option<String>,
        label: &str,
        sets: Vec<(String, String)>,
    ) -> PyResult<Self> {
        let (_, built, warnings) = load(text, label, &sets).map_err(invalid)?;
        warn_all(py, &warnings)?;
        Ok(Self::start(built))
    }

    /// Advances by dt (s) with the current hand inputs, the interpreter released; the events
    /// on the way as a JSON array text ("" when there were none).
    fn step(&mut self, py: Python<'_>, dt: f64) -> PyResult<String> {
        if !(dt.is_finite() && dt >= 0.0) {
            return Err(PyValueError::new_err(format!(
                "dt must be a finite number of seconds >= 0, got {dt}"
            )));
        }
        // A short step is cheaper than releasing the interpreter; a long one lets other
        // threads run.
        let release = dt > 0.01;
        let advanced = match &mut self.stepped {
            Stepped::Plane { session, .. } => {
                let until = session.time() + dt;
                let result = if release {
                    py.detach(|| session.advance(until, None))
                } else {
                    session.advance(until, None)
                };
                result.map_err(|e| run_failed(&e))
            }
            Stepped::Space { session, .. } => {
                let until = session.time() + dt;
                let result = if release {
                    py.detach(|| session.advance(until, |_| {}))
                } else {
                    session.advance(until, |_| {})
                };
                result.map_err(|stop| space_failed(&stop))
            }
        };
        let events = self.new_events();
        advanced?;
        Ok(events)
    }

    /// The events since the last call, as a JSON array text ("" when none).
    fn new_events(&mut self) -> String {
        let (count, text) = match &self.stepped {
            Stepped::Plane { session, .. } => {
                let events = session.events();
                (
                    events.len(),
                    events_json(&events[self.seen.min(events.len())..]),
                )
            }
            Stepped::Space {
                session,
                simulation,
            } => {
                let events = session.events();
                let n = simulation.initial.diabolos.len();
                (
                    events.len(),
                    space_events_json(&events[self.seen.min(events.len())..], n),
                )
            }
        };
        if count == self.seen {
            return String::new();
        }
        self.seen = count;
        text
    }

    /// Replaces a hand's input (`side` 0 left, 1 right) from now on: `kind` is "force"
    /// (N), "accel" (m/s^2), "target" (a hand pulling the stick toward the point with
    /// `gains` = (stiffness N/m, damping N s/m, max force N)) or "released". `value` has two
    /// components (x, y), or three (x, y, z) in space (two mean z = 0 there).
    #[pyo3(signature = (side, kind, value = None, gains = None))]
    fn set_hand(
        &mut self,
        side: usize,
        kind: &str,
        value: Option<Vec<f64>>,
        gains: Option<[f64; 3]>,
    ) -> PyResult<()> {
        if side > 1 {
            return Err(PyValueError::new_err("side must be 0 (left) or 1 (right)"));
        }
        let mut values = [None, None];
        values[side] = Some(value.as_deref());
        self.set_hands_of(kind, values, gains)
    }

    /// Replaces both hands' inputs from now on with one re-entry of the string: `kind` and
    /// `gains` as `set_hand`'s, `values` the left and the right hand's value.
    #[pyo3(signature = (kind, values = None, gains = None))]
    fn set_hands(
        &mut self,
        kind: &str,
        values: Option<[Vec<f64>; 2]>,
        gains: Option<[f64; 3]>,
    ) -> PyResult<()> {
        let values = match &values {
            Some([left, right]) => [Some(Some(left.as_slice())), Some(Some(right.as_slice()))],
            None => [Some(None), Some(None)],
        };
        self.set_hands_of(kind, values, gains)
    }

    /// Whether the scenario runs in space.
    #[getter]
    fn space(&self) -> bool {
        matches!(self.stepped, Stepped::Space { .. })
    }

    /// The time reached, s.
    #[getter]
    fn time(&self) -> f64 {
        match &self.stepped {
            Stepped::Plane { session, .. } => session.time(),
            Stepped::Space { session, .. } => session.time(),
        }
    }

    /// Whether the run has reached its duration or failed.
    #[getter]
    fn finished(&self) -> bool {
        match &self.stepped {
            Stepped::Plane { session, .. } => session.finished(),
            Stepped::Space { session, .. } => session.finished(),
        }
    }

    /// The scenario's duration, s.
    #[getter]
    fn duration(&self) -> f64 {
        match &self.stepped {
            Stepped::Plane { simulation, .. } => simulation.settings.duration,
            Stepped::Space { simulation, .. } => simulation.settings.duration,
        }
    }

    /// The number of diabolos.
    #[getter]
    fn diabolos(&self) -> usize {
        match &self.stepped {
            Stepped::Plane { simulation, .. } => simulation.initial.diabolo_count(),
            Stepped::Space { simulation, .. } => simulation.initial.diabolos.len(),
        }
    }

    /// The stick mass M, kg.
    #[getter]
    fn stick_mass(&self) -> f64 {
        match &self.stepped {
            Stepped::Plane { simulation, .. } => simulation.params.stick_mass,
            Stepped::Space { simulation, .. } => simulation.params.planar.stick_mass,
        }
    }

    /// The failure that ended the run, if any.
    #[getter]
    fn failure(&self) -> Option<String> {
        match &self.stepped {
            Stepped::Plane { session, .. } => session.failure().map(|f| f.to_string()),
            Stepped::Space { session, .. } => {
                session.stop().map(|(t, r)| space_stop_message(*t, r))
            }
        }
    }

    /// The state at the time reached as a dict of numbers and numpy arrays.
    fn state<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        match &mut self.stepped {
            Stepped::Plane { session, .. } => {
                let row = session.state().map_err(|e| run_failed(&e))?;
                state_dict(py, row)
            }
            Stepped::Space { session, .. } => {
                let t = session.time();
                let phase = session.phase().name();
                let state = session.state();
                let modes: Vec<&str> = session.diabolo_modes().iter().map(|m| m.name()).collect();
                let slots: Vec<i64> = session.slots().iter().map(|&s| s as i64).collect();
                space_state_dict(py, t, phase, &state, modes, slots)
            }
        }
    }

    /// The report so far: (events JSON, summary-like statistics JSON).
    fn report(&self) -> String {
        match &self.stepped {
            Stepped::Plane { session, .. } => {
                let report = session.report();
                serde_json::json!({
                    "end_time": report.end_time,
                    "steps": report.stats.steps,
                    "rejected_steps": report.stats.rejected_steps,
                    "derivative_evaluations": report.stats.derivative_evaluations,
                    "failure": report.failure.as_ref().map(|f| f.to_string()),
                    "events": serde_json::from_str::<serde_json::Value>(&events_json(&report.events)).unwrap_or_default(),
                })
                .to_string()
            }
            Stepped::Space {
                session,
                simulation,
            } => {
                let report = session.report();
                let n = simulation.initial.diabolos.len();
                serde_json::json!({
                    "end_time": session.time(),
                    "steps": report.steps,
                    "failure": session.stop().map(|(t, r)| space_stop_message(*t, r)),
                    "events": serde_json::from_str::<serde_json::Value>(&space_events_json(&report.events, n)).unwrap_or_default(),
                })
                .to_string()
            }
        }
    }

    /// Back to t = 0 with the scenario's own hand inputs.
    fn reset(&mut self) {
        match &mut self.stepped {
            Stepped::Plane {
                simulation,
                session,
            } => *session = simulation.session(),
            Stepped::Space {
                simulation,
                session,
            } => *session = SpaceSession::new(simulation),
        }
        self.seen = 0;
    }

    /// An independent copy (a snapshot to plan from by rollouts).
    fn copy(&self) -> Self {
        self.clone()
    }
}

/// The state of a run in space as a dict: vectors with three components (x, y, z), each
/// diabolo's axle, its tilt and turn (degrees).
fn space_state_dict<'py>(
    py: Python<'py>,
    t: f64,
    phase: &str,
    s: &SpaceState,
    modes: Vec<&str>,
    slots: Vec<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    let n = s.diabolos.len();
    let reshape = |v: Vec<f64>, rows: usize| -> PyResult<Bound<'py, PyAny>> {
        Ok(v.into_pyarray(py).reshape([rows, 3])?.into_any())
    };
    let flat =
        |vs: Vec<Vector3<f64>>| -> Vec<f64> { vs.iter().flat_map(|v| [v.x, v.y, v.z]).collect() };
    dict.set_item("t", t)?;
    dict.set_item("phase", phase)?;
    dict.set_item(
        "stick_positions",
        reshape(flat(vec![s.left.pos, s.right.pos]), 2)?,
    )?;
    dict.set_item(
        "stick_velocities",
        reshape(flat(vec![s.left.vel, s.right.vel]), 2)?,
    )?;
    dict.set_item(
        "positions",
        reshape(flat(s.diabolos.iter().map(|d| d.pos).collect()), n)?,
    )?;
    dict.set_item(
        "velocities",
        reshape(flat(s.diabolos.iter().map(|d| d.vel).collect()), n)?,
    )?;
    dict.set_item(
        "axles",
        reshape(flat(s.diabolos.iter().map(|d| d.axle).collect()), n)?,
    )?;
    dict.set_item(
        "axle_rates",
        reshape(flat(s.diabolos.iter().map(|d| d.axle_rate).collect()), n)?,
    )?;
    let spins: Vec<f64> = s.diabolos.iter().map(|d| d.spin).collect();
    dict.set_item("spins", spins.into_pyarray(py))?;
    let tilts: Vec<f64> = s.diabolos.iter().map(|d| tilt(&d.axle)).collect();
    dict.set_item("tilts", tilts.into_pyarray(py))?;
    let turns: Vec<f64> = s.diabolos.iter().map(|d| turn(&d.axle)).collect();
    dict.set_item("turns", turns.into_pyarray(py))?;
    let knots: Vec<i64> = s.diabolos.iter().map(|d| i64::from(d.knot)).collect();
    dict.set_item("knots", knots.into_pyarray(py))?;
    dict.set_item("modes", PyList::new(py, modes)?)?;
    dict.set_item("slots", slots.into_pyarray(py))?;
    Ok(dict)
}

/// The state of a row as a dict.
fn state_dict<'py>(py: Python<'py>, row: &Row) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    let s = &row.state;
    let pairs = |v: [Vector2<f64>; 2]| vec![v[0].x, v[0].y, v[1].x, v[1].y];
    let sticks = |f: fn(&diabolo::model::Body) -> Vector2<f64>| pairs([f(&s.left), f(&s.right)]);
    let reshape = |v: Vec<f64>, rows: usize| -> PyResult<Bound<'py, PyAny>> {
        let array = v.into_pyarray(py);
        Ok(array.reshape([rows, 2])?.into_any())
    };
    let n = s.diabolos.len();
    dict.set_item("t", row.t)?;
    dict.set_item("phase", row.phase.map_or("", |p| p.name()))?;
    dict.set_item("stick_positions", reshape(sticks(|b| b.pos), 2)?)?;
    dict.set_item("stick_velocities", reshape(sticks(|b| b.vel), 2)?)?;
    let flat = |f: fn(&diabolo::model::DiaboloState) -> Vector2<f64>| -> Vec<f64> {
        s.diabolos.iter().flat_map(|d| [f(d).x, f(d).y]).collect()
    };
    dict.set_item("positions", reshape(flat(|d| d.pos), n)?)?;
    dict.set_item("velocities", reshape(flat(|d| d.vel), n)?)?;
    let spins: Vec<f64> = s.diabolos.iter().map(|d| d.spin).collect();
    dict.set_item("spins", spins.into_pyarray(py))?;
    let thetas: Vec<f64> = row.thetas.iter().map(|t| t.unwrap_or(f64::NAN)).collect();
    dict.set_item("thetas", thetas.into_pyarray(py))?;
    let knots: Vec<i64> = s.diabolos.iter().map(|d| i64::from(d.knot)).collect();
    dict.set_item("knots", knots.into_pyarray(py))?;
    let modes: Vec<&str> = row.modes.iter().map(|m| m.name()).collect();
    dict.set_item("modes", PyList::new(py, modes)?)?;
    let slots: Vec<i64> = row.slots.iter().map(|&s| s as i64).collect();
    dict.set_item("slots", slots.into_pyarray(py))?;
    dict.set_item("tensions", PyArray1::from_slice(py, &row.tensions))?;
    dict.set_item("hand_forces", reshape(pairs(row.hand_forces), 2)?)?;
    dict.set_item("gear_ratio", row.gear_ratio)?;
    dict.set_item("centrifugal_term", row.centrifugal_term)?;
    dict.set_item("energy", row.energy)?;
    dict.set_item("slack", row.slack)?;
    dict.set_item("hand_work", row.hand_work)?;
    dict.set_item("friction_loss", row.friction_loss)?;
    dict.set_item("drag_loss", row.drag_loss)?;
    dict.set_item("impulse_loss", row.impulse_loss)?;
    Ok(dict)
}

/// The native module of the `diabolo` Python package.
#[pymodule]
fn _diabolo(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep, m)?)?;
    m.add_function(wrap_pyfunction!(plan::plan, m)?)?;
    m.add_function(wrap_pyfunction!(plan::set_path, m)?)?;
    m.add_class::<Stepper>()?;
    m.add_class::<batch::Batch>()?;
    m.add("DiaboloError", py.get_type::<DiaboloError>())?;
    m.add("InvalidScenario", py.get_type::<InvalidScenario>())?;
    m.add("RunFailed", py.get_type::<RunFailed>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

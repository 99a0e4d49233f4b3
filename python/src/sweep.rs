//! `diabolo.sweep` (its native half): a sweep run as `diabolo sweep` runs it, whole or a range
//! of its points (the chunks `diabolo.sweep(executor=...)` hands to an executor or Dask).

use diabolo::scenario::plausible::with_likely_mistake;
use diabolo::sweep::{Axis, Sampling, Sweep, SweepError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::{document, invalid, DiaboloError};

/// Runs a sweep as `diabolo sweep` does, with the interpreter released: the summary CSV text
/// (header and one row per point in point order), the number of failed points and the number
/// of points of the whole sweep. `grid`: `(key, start, stop, count)`; `lists`: `(key, JSON
/// array of values)`; `points`: `(start, end)`, the points run (default all; each row keeps
/// its index in the whole sweep), as `diabolo.sweep(executor=...)` spreads them.
#[pyfunction]
#[pyo3(signature = (text, label, sets, grid, lists, samples, seed, jobs, points = None))]
#[allow(clippy::too_many_arguments)]
pub fn sweep(
    py: Python<'_>,
    text: Option<String>,
    label: &str,
    sets: Vec<(String, String)>,
    grid: Vec<(String, f64, f64, usize)>,
    lists: Vec<(String, String)>,
    samples: Option<usize>,
    seed: u64,
    jobs: Option<usize>,
    points: Option<(usize, usize)>,
) -> PyResult<(String, usize, usize)> {
    let (document, base) = document(text, label, &sets).map_err(invalid)?;
    let mut axes = Vec::new();
    for (key, start, stop, count) in grid {
        let spec = format!("{key}={start:?}:{stop:?}:{count}");
        axes.push(Axis::parse_grid(&spec).map_err(invalid)?);
    }
    for (key, values) in lists {
        let values: Vec<serde_json::Value> =
            serde_json::from_str(&values).map_err(|e| invalid(format!("lists[{key:?}]: {e}")))?;
        if values.is_empty() {
            return Err(invalid(format!(
                "lists[{key:?}]: no values; give at least one"
            )));
        }
        axes.push(Axis::List { key, values });
    }
    let sampling = samples.map(|samples| Sampling { samples, seed });
    let point_error = |e: SweepError| match e {
        SweepError::Point {
            index,
            values,
            error,
        } => invalid(SweepError::Point {
            index,
            values,
            error: Box::new(with_likely_mistake(*error)),
        }),
        other => invalid(other),
    };
    let sweep = Sweep::new(document, &base, axes, sampling).map_err(point_error)?;
    let jobs = match jobs {
        Some(0) => return Err(PyValueError::new_err("jobs: at least one thread is needed")),
        Some(j) => j,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let total = sweep.len();
    let range = match points {
        None => 0..total,
        Some((start, end)) if start <= end && end <= total => start..end,
        Some((start, end)) => {
            return Err(PyValueError::new_err(format!(
                "points: {start}..{end} is not a range of the sweep's {total} points; give \
                 start <= end <= {total}"
            )))
        }
    };
    py.detach(|| -> PyResult<(String, usize, usize)> {
        sweep.check(range.clone(), jobs).map_err(point_error)?;
        let mut out = Vec::new();
        let outcome = sweep
            .run(range, jobs, &mut out, None, &mut |_, _| {})
            .map_err(|e| DiaboloError::new_err(e.to_string()))?;
        let text = String::from_utf8(out).map_err(|e| DiaboloError::new_err(e.to_string()))?;
        Ok((text, outcome.failed, total))
    })
}

//! Parameter identification (`diabolo fit`): the free parameters minimise the replay error over
//! all the given recordings together, by Nelder-Mead (argmin). The objective is the mean
//! position error over every start and horizon (m) plus `spin_weight` times the mean spin error
//! (rad/s), so that the spin identifies tanh(c theta'/2) / J and the drag while positions carry
//! the friction.

use argmin::core::{CostFunction, Error as ArgminError, Executor, State};
use argmin::solver::neldermead::NelderMead;
use rayon::prelude::*;
use thiserror::Error;

use crate::replay::{replay, statistics, Recording, ReplayError, ReplayOptions};

/// A parameter `fit` may move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FreeParameter {
    /// c.
    Friction,
    /// J.
    SpinInertia,
    /// D, 1/s.
    SpinDrag,
    /// A correction (m) added to every recording's estimated string length.
    StringLength,
}

impl FreeParameter {
    pub fn parse(name: &str) -> Result<Self, FitError> {
        Ok(match name.trim() {
            "friction" => Self::Friction,
            "spin_inertia" => Self::SpinInertia,
            "spin_drag" => Self::SpinDrag,
            "string_length" => Self::StringLength,
            other => {
                return Err(FitError::Parameter(format!(
                    "--free {other}: not a parameter fit can move; use friction, spin_inertia, spin_drag, string_length"
                )))
            }
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Friction => "friction",
            Self::SpinInertia => "spin_inertia",
            Self::SpinDrag => "spin_drag",
            Self::StringLength => "string_length",
        }
    }

    fn get(self, o: &ReplayOptions) -> f64 {
        match self {
            Self::Friction => o.params.friction,
            Self::SpinInertia => o.params.spin_inertia,
            Self::SpinDrag => o.params.spin_drag,
            Self::StringLength => o.length_offset,
        }
    }

    /// Sets the value, kept in its physical range.
    fn set(self, o: &mut ReplayOptions, v: f64) {
        match self {
            Self::Friction => o.params.friction = v.max(0.0),
            Self::SpinInertia => o.params.spin_inertia = v.max(0.5),
            Self::SpinDrag => o.params.spin_drag = v.max(0.0),
            Self::StringLength => o.length_offset = v.clamp(-0.1, 0.1),
        }
    }

    /// The first simplex step.
    fn step(self, v: f64) -> f64 {
        match self {
            Self::Friction => 0.05,
            Self::SpinInertia => 0.3 * v.abs().max(5.0),
            Self::SpinDrag => 0.02,
            Self::StringLength => 0.005,
        }
    }
}

#[derive(Debug, Error)]
pub enum FitError {
    #[error("{0}")]
    Parameter(String),
    #[error("{0}")]
    Replay(#[from] ReplayError),
    #[error("the optimiser failed: {0}")]
    Optimiser(String),
}

/// How the error of a parameter set is measured.
#[derive(Clone, Debug, PartialEq)]
pub struct FitOptions {
    /// The replay (horizons, stride, starting parameter values).
    pub replay: ReplayOptions,
    pub free: Vec<FreeParameter>,
    /// m of objective per rad/s of mean spin error.
    pub spin_weight: f64,
    pub max_iterations: u64,
}

/// The outcome of a fit.
#[derive(Clone, Debug, PartialEq)]
pub struct FitReport {
    /// The replay options with the fitted values.
    pub fitted: ReplayOptions,
    pub objective_before: f64,
    pub objective_after: f64,
    /// Mean position error over all starts and horizons, m, before and after.
    pub position_before: f64,
    pub position_after: f64,
    /// Mean spin error, rad/s, before and after.
    pub spin_before: f64,
    pub spin_after: f64,
    pub evaluations: u64,
}

/// (objective, mean position error m, mean spin error rad/s) of `options` on the recordings.
pub fn objective(
    recordings: &[Recording],
    options: &ReplayOptions,
    spin_weight: f64,
) -> Result<(f64, f64, f64), ReplayError> {
    let per_recording: Vec<Result<(f64, f64, usize), ReplayError>> = recordings
        .par_iter()
        .map(|rec| {
            let results = replay(rec, options)?;
            let stats = statistics(&results, &options.horizons);
            let mut sums = (0.0, 0.0, 0usize);
            for s in stats.iter().filter(|s| s.n > 0) {
                sums.0 += s.mean * s.n as f64;
                sums.1 += s.spin_mean * s.n as f64;
                sums.2 += s.n;
            }
            // A start whose run failed counts with a large error, so failures are not rewarded.
            let dropped: usize = stats.iter().map(|s| s.dropped).sum();
            sums.0 += 1.0 * dropped as f64;
            sums.2 += dropped;
            Ok(sums)
        })
        .collect();
    let (mut position, mut spin, mut n) = (0.0, 0.0, 0usize);
    for r in per_recording {
        let (p, s, k) = r?;
        position += p;
        spin += s;
        n += k;
    }
    let n = n.max(1) as f64;
    let (position, spin) = (position / n, spin / n);
    Ok((position + spin_weight * spin, position, spin))
}

struct Problem<'a> {
    recordings: &'a [Recording],
    options: &'a FitOptions,
}

impl Problem<'_> {
    fn with(&self, x: &[f64]) -> ReplayOptions {
        let mut o = self.options.replay.clone();
        for (p, v) in self.options.free.iter().zip(x) {
            p.set(&mut o, *v);
        }
        o
    }
}

impl CostFunction for Problem<'_> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, x: &Self::Param) -> Result<f64, ArgminError> {
        let (value, _, _) = objective(self.recordings, &self.with(x), self.options.spin_weight)?;
        Ok(value)
    }
}

/// The most Nelder-Mead iterations of one fit: each replays every recording (seconds), so 1,000
/// is already an hour or more.
pub const MAX_ITERATIONS: u64 = 1000;

/// Fits the free parameters on all the recordings together.
pub fn fit(recordings: &[Recording], options: &FitOptions) -> Result<FitReport, FitError> {
    if options.free.is_empty() {
        return Err(FitError::Parameter(
            "--free: name at least one parameter".into(),
        ));
    }
    if options.max_iterations > MAX_ITERATIONS {
        return Err(FitError::Parameter(format!(
            "--iterations {}: at most {MAX_ITERATIONS} (each iteration replays every recording)",
            options.max_iterations
        )));
    }
    if !(options.spin_weight.is_finite() && options.spin_weight >= 0.0) {
        return Err(FitError::Parameter(format!(
            "--spin-weight {}: give a weight of 0 or more, m per rad/s",
            crate::display::Compact(options.spin_weight)
        )));
    }
    let start: Vec<f64> = options
        .free
        .iter()
        .map(|p| p.get(&options.replay))
        .collect();
    let mut simplex = vec![start.clone()];
    for (i, p) in options.free.iter().enumerate() {
        let mut vertex = start.clone();
        vertex[i] += p.step(start[i]);
        simplex.push(vertex);
    }
    let (objective_before, position_before, spin_before) =
        objective(recordings, &options.replay, options.spin_weight)?;
    let problem = Problem {
        recordings,
        options,
    };
    let solver = NelderMead::new(simplex)
        .with_sd_tolerance(1e-5)
        .map_err(|e| FitError::Optimiser(e.to_string()))?;
    let result = Executor::new(problem, solver)
        .configure(|state| state.max_iters(options.max_iterations))
        .run()
        .map_err(|e| FitError::Optimiser(e.to_string()))?;
    let best = result.state().get_best_param().cloned().unwrap_or(start);
    let evaluations = result
        .state()
        .get_func_counts()
        .get("cost_count")
        .copied()
        .unwrap_or(0);
    let problem = Problem {
        recordings,
        options,
    };
    let fitted = problem.with(&best);
    let (objective_after, position_after, spin_after) =
        objective(recordings, &fitted, options.spin_weight)?;
    Ok(FitReport {
        fitted,
        objective_before,
        objective_after,
        position_before,
        position_after,
        spin_before,
        spin_after,
        evaluations,
    })
}

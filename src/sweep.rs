//! Parameter sweeps (`diabolo sweep`): a base scenario, axes of values over dotted paths (grids
//! `KEY=START:STOP:COUNT`, lists `KEY=V1,V2,...`), their cartesian product (the last axis
//! varies fastest) or `samples` random points within the axes, run in parallel and written one
//! summary row per point, in point order whatever the number of threads. Points are computed
//! from their index, never stored, and rows stream out in blocks: memory stays flat in the
//! number of points.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde_json::Value;

use crate::random::SplitMix64;
use thiserror::Error;

use crate::display::{compact, echoed};
use crate::output::table::CsvLine;
use crate::output::{AtomicFile, Summary, TrajectoryWriter};
use crate::scenario::{overrides, Limits, Scenario, ScenarioError, Warning};
use crate::simulation::Simulation;

mod row;
pub mod shard;

use row::show_value;

/// The largest number of points a sweep may have.
pub const MAX_POINTS: usize = 100_000_000;

/// Points run between two writes of their rows.
const BLOCK: usize = 256;

/// One axis of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub enum Axis {
    /// COUNT values from START to STOP inclusive: START + i (STOP - START) / (COUNT - 1).
    Grid {
        /// The dotted path of the swept scenario field (e.g. `params.friction`).
        key: String,
        /// START: the first value, in the field's unit.
        start: f64,
        /// STOP: the last value, in the field's unit.
        stop: f64,
        /// COUNT: the number of values.
        count: usize,
    },
    /// The listed values (JSON, else text).
    List {
        /// The dotted path of the swept scenario field (e.g. `params.spin_inertia`).
        key: String,
        /// The values, in order, in the field's unit.
        values: Vec<Value>,
    },
}

/// Random points instead of the grid: each grid axis uniform in [START, STOP], each list axis
/// one of its values, reproducible from the seed (point i uses its own stream).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampling {
    /// The number of random points.
    pub samples: usize,
    /// The seed of the random streams.
    pub seed: u64,
}

/// A bad sweep description.
#[derive(Debug, Error)]
pub enum SweepError {
    /// An axis (`--grid`, `--list`) or `--samples` that cannot be read or is not allowed.
    #[error("{spec}: {reason}")]
    Axis {
        /// The option as given (e.g. `--grid KEY=START:STOP:COUNT`).
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A `--shard K/N` that cannot be read, or whose K is not between 1 and N.
    #[error("--shard {spec}: {reason}")]
    Shard {
        /// The `K/N` as given.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
    /// More points than [`MAX_POINTS`].
    #[error("the sweep has {points} points, more than {MAX_POINTS}; use fewer or coarser axes")]
    TooLarge {
        /// The number of points the axes (or `--samples`) give.
        points: u128,
    },
    /// The base scenario is invalid.
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    /// A point whose scenario is invalid: nothing runs.
    #[error("point {index} ({values}) is invalid: {error}; change the axes so that every point is valid (nothing was run)")]
    Point {
        /// The point's index (0-based, the `index` column).
        index: usize,
        /// The point's axis values, `KEY=VALUE, ...`.
        values: String,
        /// What is wrong with the point's scenario.
        error: Box<ScenarioError>,
    },
}

/// Why running the points stopped.
#[derive(Debug, Error)]
pub enum SweepRunError {
    /// The thread pool could not be started (the system refused the threads).
    #[error("cannot start {jobs} threads for the sweep: {reason}")]
    Threads {
        /// The number of threads asked for.
        jobs: usize,
        /// The system's reason.
        reason: String,
    },
    /// Writing the summary rows failed.
    #[error(transparent)]
    Write(#[from] io::Error),
}

/// Threads for `points` points: the request, at most one per point and one per core.
pub fn thread_count(requested: usize, points: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    requested.min(cores).min(points).max(1)
}

fn thread_pool(jobs: usize) -> Result<rayon::ThreadPool, SweepRunError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| SweepRunError::Threads {
            jobs,
            reason: e.to_string(),
        })
}

impl Axis {
    /// The dotted path of the swept scenario field.
    pub fn key(&self) -> &str {
        match self {
            Self::Grid { key, .. } | Self::List { key, .. } => key,
        }
    }

    fn len(&self) -> usize {
        match self {
            Self::Grid { count, .. } => *count,
            Self::List { values, .. } => values.len(),
        }
    }

    fn value(&self, i: usize) -> Value {
        match self {
            Self::Grid {
                start, stop, count, ..
            } => Value::from(grid_value(*start, *stop, *count, i)),
            Self::List { values, .. } => values[i].clone(),
        }
    }

    fn sample(&self, rng: &mut SplitMix64) -> Value {
        match self {
            Self::Grid { start, stop, .. } => Value::from(start + (stop - start) * rng.unit()),
            Self::List { values, .. } => {
                values[(rng.next_u64() % values.len() as u64) as usize].clone()
            }
        }
    }

    /// `KEY=START:STOP:COUNT` of `--grid`.
    pub fn parse_grid(spec: &str) -> Result<Self, SweepError> {
        Self::parse_grid_of("--grid", spec)
    }

    /// `KEY=START:STOP:COUNT` given with `flag` (`--grid`, or `diabolo orbit --continue`), which
    /// its errors name.
    pub fn parse_grid_of(flag: &str, spec: &str) -> Result<Self, SweepError> {
        let fail = |reason: &str| SweepError::Axis {
            spec: format!("{flag} {}", echoed(spec)),
            reason: reason.to_string(),
        };
        let (key, range) = spec
            .split_once('=')
            .ok_or_else(|| fail("expected KEY=START:STOP:COUNT, e.g. params.friction=0.1:0.3:5"))?;
        let parts: Vec<&str> = range.split(':').collect();
        let [start, stop, count] = parts[..] else {
            return Err(fail("expected START:STOP:COUNT, e.g. 0.1:0.3:5"));
        };
        let number = |s: &str, what: &str| {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| fail(&format!("{what} {:?} is not a finite number", echoed(s))))
        };
        let (start, stop) = (number(start, "START")?, number(stop, "STOP")?);
        if !(stop - start).is_finite() {
            return Err(fail(&format!(
                "the values from {} to {} are not all finite numbers (their span overflows); give a narrower range",
                compact(start),
                compact(stop)
            )));
        }
        let count: usize = count
            .trim()
            .parse()
            .map_err(|_| fail(&format!("COUNT {:?} is not a whole number", echoed(count))))?;
        if count == 0 {
            return Err(fail("COUNT is 0: the grid would be empty; give at least 1"));
        }
        if count > 1 && start == stop {
            return Err(fail(
                "START equals STOP with COUNT > 1: a zero step repeats one value; use COUNT 1",
            ));
        }
        if count == 1 && start != stop {
            return Err(fail(
                "COUNT 1 takes a single value: make START and STOP equal, or raise COUNT",
            ));
        }
        if count > MAX_POINTS {
            return Err(fail(&format!(
                "COUNT {count} is too large (at most {MAX_POINTS})"
            )));
        }
        Ok(Self::Grid {
            key: checked_key(key).map_err(fail)?,
            start,
            stop,
            count,
        })
    }

    /// `KEY=V1,V2,...`.
    pub fn parse_list(spec: &str) -> Result<Self, SweepError> {
        let fail = |reason: &str| SweepError::Axis {
            spec: format!("--list {spec}"),
            reason: reason.to_string(),
        };
        let (key, values) = spec
            .split_once('=')
            .ok_or_else(|| fail("expected KEY=V1,V2,..., e.g. params.restitution=0,0.3,0.6"))?;
        if values.trim().is_empty() {
            return Err(fail("the list is empty"));
        }
        let values: Vec<Value> = values
            .split(',')
            .map(|v| overrides::parse_value(v.trim()))
            .collect();
        Ok(Self::List {
            key: checked_key(key).map_err(fail)?,
            values,
        })
    }
}

fn checked_key(key: &str) -> Result<String, &'static str> {
    let key = key.trim();
    if key.is_empty() {
        return Err("the KEY before = is empty");
    }
    Ok(key.to_string())
}

/// Each key has one axis: a second `--grid`/`--list` of the same key is refused.
fn check_distinct_keys(axes: &[Axis]) -> Result<(), SweepError> {
    for (i, axis) in axes.iter().enumerate() {
        if axes[..i].iter().any(|a| a.key() == axis.key()) {
            return Err(SweepError::Axis {
                spec: format!("--grid/--list {}", echoed(axis.key())),
                reason: "this key has two axes (--grid or --list); give each key one axis".into(),
            });
        }
    }
    Ok(())
}

/// start + i step, with the last value exactly `stop`.
fn grid_value(start: f64, stop: f64, count: usize, i: usize) -> f64 {
    if count == 1 {
        start
    } else if i + 1 == count {
        stop
    } else {
        start + i as f64 * ((stop - start) / (count - 1) as f64)
    }
}

/// `K/N`: the K-th (1-based) of N contiguous blocks of `points`, sizes differing by at most one.
pub fn parse_shard(spec: &str, points: usize) -> Result<std::ops::Range<usize>, SweepError> {
    let (k, n) = parse_shard_numbers(spec)?;
    Ok(shard_range(k, n, points))
}

/// `K/N` as the numbers K and N, K between 1 and N.
pub fn parse_shard_numbers(spec: &str) -> Result<(usize, usize), SweepError> {
    let fail = |reason: &str| SweepError::Shard {
        spec: spec.to_string(),
        reason: reason.to_string(),
    };
    let (k, n) = spec
        .split_once('/')
        .ok_or_else(|| fail("expected K/N, e.g. 2/8"))?;
    let k: usize = k
        .trim()
        .parse()
        .map_err(|_| fail("K is not a whole number"))?;
    let n: usize = n
        .trim()
        .parse()
        .map_err(|_| fail("N is not a whole number"))?;
    if n == 0 || k == 0 || k > n {
        return Err(fail("K must be between 1 and N, and N at least 1"));
    }
    if n > MAX_POINTS {
        return Err(fail(&format!(
            "N is more than {MAX_POINTS}, the most points a sweep has; give fewer shards"
        )));
    }
    Ok((k, n))
}

/// Points [floor((k-1) P / N), floor(k P / N)).
pub fn shard_range(k: usize, n: usize, points: usize) -> std::ops::Range<usize> {
    let edge = |j: usize| ((j as u128 * points as u128) / n as u128) as usize;
    edge(k - 1)..edge(k)
}

/// A sweep ready to run.
#[derive(Clone, Debug)]
pub struct Sweep {
    base: Value,
    base_dir: PathBuf,
    axes: Vec<Axis>,
    sampling: Option<Sampling>,
    points: usize,
    diabolos: usize,
    limits: Limits,
}

/// The outcome of running points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SweepOutcome {
    /// The number of points run.
    pub points: usize,
    /// Those whose run failed or whose trajectory could not be saved.
    pub failed: usize,
}

impl Sweep {
    /// `base`: the scenario document with the fixed `--set` overrides applied; `base_dir`: its
    /// folder (for relative CSV paths). The first point is built to check every key.
    pub fn new(
        base: Value,
        base_dir: &Path,
        axes: Vec<Axis>,
        sampling: Option<Sampling>,
    ) -> Result<Self, SweepError> {
        let product: u128 = axes.iter().map(|a| a.len() as u128).product();
        let points = match sampling {
            Some(s) => s.samples as u128,
            None => product,
        };
        if points > MAX_POINTS as u128 {
            return Err(SweepError::TooLarge { points });
        }
        if let Some(s) = sampling {
            if s.samples == 0 {
                return Err(SweepError::Axis {
                    spec: "--samples 0".into(),
                    reason: "no points to run; give at least 1".into(),
                });
            }
        }
        check_distinct_keys(&axes)?;
        let diabolos = Scenario::from_value(base.clone())?.initial.diabolos.len();
        let sweep = Self {
            base,
            base_dir: base_dir.to_path_buf(),
            axes,
            sampling,
            points: points as usize,
            diabolos,
            limits: Limits::default(),
        };
        // Every key must name a field the scenario format knows: type the first point.
        if sweep.points > 0 {
            if let Err(error) = sweep.scenario(0) {
                return Err(sweep.invalid_point(0, error));
            }
        }
        Ok(sweep)
    }

    /// The sweep with every point built under `limits` (rows, simulated time).
    pub fn within(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Builds every point of `range` (on `jobs` threads) without running any: the first invalid
    /// one, by index, is an error naming it, its axis values and what is wrong. Otherwise the
    /// points' plausibility warnings, one per JSON path (the first point's that has it). Call
    /// it before [`Sweep::run`], which reports a point that cannot be built as failed.
    pub fn check(
        &self,
        range: std::ops::Range<usize>,
        jobs: usize,
    ) -> Result<Vec<Warning>, SweepError> {
        let checked = |i: usize| match self.checked_point(i) {
            Ok(warnings) => Checked {
                invalid: None,
                warnings,
            },
            Err(error) => Checked {
                invalid: Some((i, error)),
                warnings: Vec::new(),
            },
        };
        // Without threads the check runs here; `run` then reports the thread failure.
        let all = match thread_pool(thread_count(jobs, range.len())) {
            Ok(pool) => pool.install(|| {
                range
                    .into_par_iter()
                    .map(checked)
                    .reduce(Checked::default, Checked::then)
            }),
            Err(_) => range.map(checked).fold(Checked::default(), Checked::then),
        };
        match all.invalid {
            None => Ok(all.warnings),
            Some((index, error)) => Err(self.invalid_point(index, error)),
        }
    }

    /// Point `i` typed and built: its plausibility warnings, or why it cannot be built.
    fn checked_point(&self, i: usize) -> Result<Vec<Warning>, ScenarioError> {
        let scenario = self.scenario(i)?;
        scenario.build_within(&self.base_dir, &self.limits)?;
        Ok(scenario.warnings())
    }

    /// The error of point `index`, named with its axis values.
    fn invalid_point(&self, index: usize, error: ScenarioError) -> SweepError {
        SweepError::Point {
            index,
            values: self
                .axes
                .iter()
                .zip(self.point(index))
                .map(|(a, v)| format!("{}={}", a.key(), echoed(&show_value(&v))))
                .collect::<Vec<_>>()
                .join(", "),
            error: Box::new(error),
        }
    }

    /// The checked simulation of point `i`.
    fn simulation(&self, i: usize) -> Result<Simulation, ScenarioError> {
        self.scenario(i)?.build_within(&self.base_dir, &self.limits)
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.points
    }

    /// True when the sweep has no point.
    pub fn is_empty(&self) -> bool {
        self.points == 0
    }

    /// The values of point `i`, one per axis.
    pub fn point(&self, i: usize) -> Vec<Value> {
        match self.sampling {
            Some(s) => {
                let mut rng = SplitMix64(s.seed ^ (i as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93));
                rng.next_u64();
                self.axes.iter().map(|a| a.sample(&mut rng)).collect()
            }
            None => {
                let mut rest = i;
                let mut values = vec![Value::Null; self.axes.len()];
                for (slot, axis) in values.iter_mut().zip(&self.axes).rev() {
                    *slot = axis.value(rest % axis.len());
                    rest /= axis.len();
                }
                values
            }
        }
    }

    /// The scenario of point `i`.
    pub fn scenario(&self, i: usize) -> Result<Scenario, ScenarioError> {
        let mut document = self.base.clone();
        for (axis, value) in self.axes.iter().zip(self.point(i)) {
            overrides::apply(&mut document, axis.key(), value)?;
        }
        Scenario::from_value(document)
    }

    /// Runs point `i`: its summary row, and whether it succeeded. With `save`, its trajectory
    /// goes to `save/point_IIIIII.csv`.
    pub fn run_point(&self, i: usize, save: Option<&Path>) -> (Vec<String>, bool) {
        let mut row = vec![i.to_string()];
        row.extend(self.point(i).iter().map(show_value));
        let simulation = match self.simulation(i) {
            Ok(s) => s,
            Err(e) => {
                // Only when the points were not checked first (Sweep::check).
                row.push("failed".into());
                row.push(e.to_string());
                // Rare (an invalid point): the header is built only here.
                row.resize(self.header().len(), String::new());
                return (row, false);
            }
        };
        let mut summary = Summary::default();
        let mut trajectory = save.map(|dir| {
            let file = AtomicFile::create(&dir.join(format!("point_{i:06}.csv")))
                .and_then(|f| TrajectoryWriter::new(f, &simulation));
            file
        });
        let mut save_error: Option<io::Error> = None;
        let report = simulation.run(&mut |r| {
            summary.observe(r);
            if let Some(Ok(writer)) = trajectory.as_mut() {
                if save_error.is_none() {
                    save_error = writer.write_row(r).err();
                }
            }
        });
        let saved = match trajectory {
            None => Ok(()),
            Some(Err(e)) => Err(e),
            Some(Ok(writer)) => match save_error {
                Some(e) => Err(e),
                None => writer.into_inner().commit(),
            },
        };
        let ok = report.failure.is_none() && saved.is_ok();
        row.push(
            if let Some(failure) = &report.failure {
                failure.status()
            } else if saved.is_err() {
                "unsaved"
            } else {
                "ok"
            }
            .into(),
        );
        row.push(match (&report.failure, &saved) {
            (Some(f), _) => f.to_string(),
            (None, Err(e)) => format!("cannot save the trajectory: {e}"),
            _ => String::new(),
        });
        self.metrics(&report, &summary, &mut row);
        (row, ok)
    }

    /// Runs the points of `range` on `jobs` threads (at most one per point and per core),
    /// writing the header and one row per point in index order to `out`; `progress(done,
    /// total)` after each block.
    pub fn run(
        &self,
        range: std::ops::Range<usize>,
        jobs: usize,
        out: &mut dyn Write,
        save: Option<&Path>,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<SweepOutcome, SweepRunError> {
        let jobs = thread_count(jobs, range.len());
        let pool = thread_pool(jobs)?;
        let mut line = CsvLine::with_capacity(1024);
        line.texts(self.header()).end(out)?;
        let mut outcome = SweepOutcome::default();
        let total = range.len();
        let mut start = range.start;
        while start < range.end {
            let end = (start + BLOCK.max(8 * jobs)).min(range.end);
            let rows: Vec<(Vec<String>, bool)> = pool.install(|| {
                (start..end)
                    .into_par_iter()
                    .map(|i| self.run_point(i, save))
                    .collect()
            });
            for (row, ok) in rows {
                line.texts(&row).end(out)?;
                outcome.points += 1;
                outcome.failed += usize::from(!ok);
            }
            out.flush()?;
            start = end;
            progress(outcome.points, total);
        }
        out.flush()?;
        Ok(outcome)
    }
}

/// What checking a stretch of points found, in point order: the first invalid point, and the
/// warnings by JSON path.
#[derive(Default)]
struct Checked {
    invalid: Option<(usize, ScenarioError)>,
    warnings: Vec<Warning>,
}

impl Checked {
    /// This stretch followed by the `later` one: the earlier invalid point, the warnings of
    /// paths not warned yet.
    fn then(mut self, later: Self) -> Self {
        self.invalid = self.invalid.or(later.invalid);
        for warning in later.warnings {
            if self.warnings.iter().all(|w| w.path() != warning.path()) {
                self.warnings.push(warning);
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_are_start_plus_i_step_and_end_exactly_at_stop() {
        let Axis::Grid {
            start, stop, count, ..
        } = Axis::parse_grid("params.friction=0.1:0.3:3").unwrap()
        else {
            panic!()
        };
        let values: Vec<f64> = (0..count)
            .map(|i| grid_value(start, stop, count, i))
            .collect();
        assert_eq!(values, vec![0.1, 0.1 + 0.1, 0.3]);
    }

    #[test]
    fn bad_ranges_are_refused_with_their_reason() {
        for (spec, reason) in [
            ("params.friction=0.1:0.3:0", "empty"),
            ("params.friction=0.2:0.2:4", "zero step"),
            ("params.friction=0.1:0.3", "START:STOP:COUNT"),
            ("params.friction=a:0.3:2", "not a finite number"),
            ("params.friction=0.1:0.3:1000000000", "too large"),
            ("=0.1:0.3:2", "KEY"),
        ] {
            let e = Axis::parse_grid(spec).unwrap_err().to_string();
            assert!(e.contains(reason), "{spec}: {e}");
        }
        assert!(Axis::parse_list("params.restitution=").is_err());
    }

    #[test]
    fn threads_are_capped_at_the_points_and_the_cores() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(thread_count(100_000, 3), cores.min(3));
        assert_eq!(thread_count(100_000, 1_000_000), cores);
        assert_eq!(thread_count(1, 1_000), 1);
        assert_eq!(thread_count(4, 0), 1);
    }

    #[test]
    fn a_thread_pool_failure_names_the_threads() {
        let e = SweepRunError::Threads {
            jobs: 8,
            reason: "Resource temporarily unavailable".into(),
        };
        assert!(e
            .to_string()
            .starts_with("cannot start 8 threads for the sweep"));
    }

    #[test]
    fn shards_cover_every_point_once_in_blocks_differing_by_at_most_one() {
        for points in [0, 1, 7, 100, 1001] {
            for n in 1..=9 {
                let ranges: Vec<_> = (1..=n).map(|k| shard_range(k, n, points)).collect();
                assert_eq!(ranges[0].start, 0);
                assert_eq!(ranges[n - 1].end, points);
                for w in ranges.windows(2) {
                    assert_eq!(w[0].end, w[1].start);
                }
                let sizes: Vec<usize> = ranges.iter().map(|r| r.len()).collect();
                assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
            }
        }
        assert!(
            parse_shard("0/3", 10).is_err()
                && parse_shard("4/3", 10).is_err()
                && parse_shard("x", 10).is_err()
        );
    }

    #[test]
    fn samples_are_reproducible_and_within_the_ranges() {
        let axes = [
            Axis::parse_grid("a=1:2:2").unwrap(),
            Axis::parse_list("b=x,y,z").unwrap(),
        ];
        let draw = |seed: u64, i: u64| {
            let mut rng = SplitMix64(seed ^ i.wrapping_mul(0xD6E8_FEB8_6659_FD93));
            rng.next_u64();
            axes.iter().map(|a| a.sample(&mut rng)).collect::<Vec<_>>()
        };
        for i in 0..200 {
            let p = draw(7, i);
            assert_eq!(p, draw(7, i));
            let a = p[0].as_f64().unwrap();
            assert!((1.0..2.0).contains(&a));
            assert!(["x", "y", "z"].contains(&p[1].as_str().unwrap()));
        }
        assert_ne!(draw(7, 0), draw(8, 0));
    }
}

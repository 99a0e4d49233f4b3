//! Holding a periodic trick by feedback (`diabolo orbit --stabilize KEY[,KEY...]`): an
//! impulse-controlled Poincare map.
//!
//! # The controlled map
//!
//! A correction u (one number per KEY, in that field's unit) is what the player changes once
//! per period: during period k the scenario's KEY fields are their values plus u(k), from the
//! section (t = 0 of the orbit, the drives' phase 0) to the next. Each period is run as its own
//! run from the state z(k) with the drives so changed, so the drives' phase is the same at every
//! section: z(k+1) = P(z(k), u(k)). A path-driven hand whose start the correction moves (a sine
//! amplitude at a phase where the hand is away from its centre, a centre) starts the period
//! where the changed drive puts it, and the diabolo is placed on the string from there (the
//! shooting's own start, `Shooting::start`): the correction acts at the section at once.
//!
//! # The linear map and the gain
//!
//! Near the fixed point z(k+1) - z* = A (z(k) - z*) + B u(k): A is the monodromy matrix of the
//! orbit, B = dP/du by central differences at z* with the monodromy's step h (in each KEY's
//! unit). The gain K of u = -K (z - z*) is the discrete linear-quadratic regulator's with
//! Q = I (every coordinate alike, in m, m/s and rad/s) and R = r I (`--lqr-r`, default 1): the
//! one that minimises sum_k |z(k) - z*|^2 + r |u(k)|^2. The closed loop's multipliers are the
//! eigenvalues of A - B K, and its deviation shrinks per period by the largest modulus (the
//! predicted rate).
//!
//! # The controlled trick
//!
//! From perturbed starts z* + delta (|delta| = `perturbation`, random directions, seeded) each
//! period measures z(k) - z*, applies u(k) = -K (z(k) - z*) (each correction held within half
//! its field's value, so that an amplitude does not change sign) and runs one period; the same
//! start without corrections is the open loop. The deviations per period give the observed rate
//! over the second half of the periods (past the faster modes' transient).

use nalgebra::{Complex, DMatrix, DVector};
use rayon::prelude::*;
use thiserror::Error;

use crate::random::SplitMix64;
use crate::simulation::Simulation;

use super::lqr::{eigenvalues, reach, regulator};
use super::shooting::Shooting;
use super::{Multiplier, Orbit, OrbitError};

/// Builds the scenario with each named field at its value plus the correction u (one entry per
/// KEY).
pub type Corrected<'a> = dyn Fn(&[f64]) -> Result<Simulation, OrbitError> + Sync + 'a;

/// Options of `--stabilize`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StabilizeOptions {
    /// r, the weight of the corrections in the regulator's cost (R = r I, Q = I).
    pub correction_weight: f64,
    /// Periods each perturbed start is run.
    pub periods: usize,
    /// Perturbed starts.
    pub starts: usize,
    /// |delta|, the size of the starting deviation (m, m/s, rad/s alike).
    pub perturbation: f64,
    /// Seeds the starts' directions.
    pub seed: u64,
    /// h, the step of B's central differences (each KEY's unit).
    pub step: f64,
    /// Threads for B's columns and the runs.
    pub jobs: usize,
    /// The closed loop holds the orbit when every multiplier's modulus is below 1 - margin.
    pub stability_margin: f64,
}

impl Default for StabilizeOptions {
    fn default() -> Self {
        Self {
            correction_weight: 1.0,
            periods: 12,
            starts: 3,
            perturbation: 1e-3,
            seed: 1,
            step: 1e-5,
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            stability_margin: 1e-6,
        }
    }
}

/// Why an orbit cannot be stabilized, or the stabilization's runs failed.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum StabilizeError {
    /// An autonomous orbit (a section): its period moves with the correction.
    #[error("--stabilize holds a forced orbit (periodic drives, --period or sim.period): an autonomous orbit's (--section) period and phase move with a correction, which this map does not follow; give the orbit a period instead of a section")]
    Autonomous,
    /// No KEY.
    #[error("--stabilize: no correction named; give one or more numeric scenario fields, e.g. --stabilize drive.right.sine.amplitude[0]")]
    NoKeys,
    /// A KEY named twice.
    #[error("--stabilize: {key} is named twice; name each correction once")]
    Repeated {
        /// The KEY.
        key: String,
    },
    /// A run of the map failed (B's differences or the fixed point's check).
    #[error("the run {stage} failed: {error}")]
    Run {
        /// Which run, in words.
        stage: &'static str,
        /// The failure.
        error: OrbitError,
    },
}

impl StabilizeError {
    /// 2 for what the input decides, 1 for a run that failed.
    pub fn exit_code(&self) -> u8 {
        match self {
            Self::Run { .. } => 1,
            _ => 2,
        }
    }
}

/// One perturbed start run with and without the corrections.
#[derive(Clone, Debug, PartialEq)]
pub struct ControlledRun {
    /// The starting deviation z(0) - z* (after placing on the string).
    pub start: Vec<f64>,
    /// |z(k) - z*| at each section k = 0..=periods, with the corrections.
    pub controlled: Vec<f64>,
    /// The corrections u(k) applied, per period.
    pub corrections: Vec<Vec<f64>>,
    /// Periods where a correction was held at half its field's value.
    pub clamped: usize,
    /// |z(k) - z*| at each section without corrections.
    pub open_loop: Vec<f64>,
    /// The controlled deviation's shrink per period over the second half of the periods,
    /// (d(N) / d(N/2))^(1 / (N - N/2)).
    pub observed_rate: f64,
    /// The open loop's growth per period over the same periods.
    pub open_loop_rate: f64,
    /// Why a run stopped before the last period, if it did.
    pub failure: Option<String>,
}

/// The stabilization of an orbit.
#[derive(Clone, Debug, PartialEq)]
pub struct Stabilization {
    /// The corrections' fields.
    pub keys: Vec<String>,
    /// Their values in the scenario (u = 0).
    pub base: Vec<f64>,
    /// B = dP/du (coordinates x corrections).
    pub sensitivity: DMatrix<f64>,
    /// K (corrections x coordinates).
    pub gain: DMatrix<f64>,
    /// Riccati iterations, and whether they converged.
    pub riccati_iterations: usize,
    /// Whether the Riccati iteration reached its fixed point.
    pub riccati_converged: bool,
    /// r.
    pub correction_weight: f64,
    /// The open loop's multipliers (the orbit's).
    pub open_loop: Vec<Multiplier>,
    /// Per non-trivial open-loop multiplier on or outside the unit circle: it and how well the
    /// corrections reach it ([`reach`]; zero: no gain moves it).
    pub reach: Vec<(Complex<f64>, f64)>,
    /// The eigenvalues of A - B K, largest modulus first.
    pub closed_loop: Vec<Complex<f64>>,
    /// The largest closed-loop modulus: the predicted shrink per period.
    pub predicted_rate: f64,
    /// Every closed-loop multiplier inside the unit circle by the margin.
    pub stable: bool,
    /// max |P(z*, 0) - z*|: the map rebuilt for the corrections returns to the orbit.
    pub fixed_point_residual: f64,
    /// The perturbed starts.
    pub runs: Vec<ControlledRun>,
}

/// The controlled map P(z, u) of an orbit.
struct ControlledMap<'a> {
    orbit: &'a Orbit,
    corrected: &'a Corrected<'a>,
}

impl ControlledMap<'_> {
    /// P(z, u): one period from z with the corrections u.
    fn step(&self, z: &DVector<f64>, u: &[f64]) -> Result<DVector<f64>, OrbitError> {
        let sim = (self.corrected)(u)?;
        let shooting = Shooting::for_orbit(&sim, self.orbit);
        Ok(shooting.flow(z, self.orbit.period)?.end)
    }

    /// z made a start of the uncorrected map (placed on the string).
    fn placed(&self, z: &DVector<f64>, corrections: usize) -> Result<DVector<f64>, OrbitError> {
        let sim = (self.corrected)(&vec![0.0; corrections])?;
        let shooting = Shooting::for_orbit(&sim, self.orbit);
        Ok(shooting.coordinates.pack(&shooting.start(z)))
    }
}

/// Stabilizes `orbit` with the corrections of the fields `keys` (values `base` in the
/// scenario), `corrected` building the scenario with them applied.
pub fn stabilize(
    orbit: &Orbit,
    keys: &[String],
    base: &[f64],
    corrected: &Corrected,
    options: &StabilizeOptions,
) -> Result<Stabilization, StabilizeError> {
    check_keys(keys, orbit.autonomous)?;
    let map = ControlledMap { orbit, corrected };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs.max(1))
        .build()
        .map_err(|e| run_failed("threads", OrbitError::Setup(format!("cannot start: {e}"))))?;
    let z_star = DVector::from_column_slice(&orbit.point);
    let p = keys.len();
    let fixed_point_residual = (map
        .step(&z_star, &vec![0.0; p])
        .map_err(|e| run_failed("from the orbit's point", e))?
        - &z_star)
        .amax();
    let sensitivity = sensitivity(&map, &z_star, p, options.step, &pool)?;
    let a = &orbit.monodromy;
    let found = regulator(a, &sensitivity, 1.0, options.correction_weight);
    let closed_loop = eigenvalues(&(a - &sensitivity * &found.gain));
    let predicted_rate = closed_loop.first().map_or(0.0, |mu| mu.norm());
    let reach = orbit
        .multipliers
        .iter()
        .filter(|m| m.trivial.is_none() && m.modulus() >= 1.0 - options.stability_margin)
        .map(|m| (m.value, reach(a, &sensitivity, m.value)))
        .collect();
    let runs = perturbed_runs(&map, &z_star, &found.gain, base, options, &pool)?;
    Ok(Stabilization {
        keys: keys.to_vec(),
        base: base.to_vec(),
        sensitivity,
        gain: found.gain,
        riccati_iterations: found.iterations,
        riccati_converged: found.converged,
        correction_weight: options.correction_weight,
        open_loop: orbit.multipliers.clone(),
        reach,
        stable: predicted_rate < 1.0 - options.stability_margin,
        closed_loop,
        predicted_rate,
        fixed_point_residual,
        runs,
    })
}

/// What the input decides: a forced orbit, one or more keys, each once.
pub fn check_keys(keys: &[String], autonomous: bool) -> Result<(), StabilizeError> {
    if autonomous {
        return Err(StabilizeError::Autonomous);
    }
    if keys.is_empty() {
        return Err(StabilizeError::NoKeys);
    }
    for (i, key) in keys.iter().enumerate() {
        if keys[..i].contains(key) {
            return Err(StabilizeError::Repeated { key: key.clone() });
        }
    }
    Ok(())
}

fn run_failed(stage: &'static str, error: OrbitError) -> StabilizeError {
    StabilizeError::Run { stage, error }
}

/// B = dP/du at (z*, 0) by central differences with step h, columns in parallel.
fn sensitivity(
    map: &ControlledMap,
    z_star: &DVector<f64>,
    corrections: usize,
    h: f64,
    pool: &rayon::ThreadPool,
) -> Result<DMatrix<f64>, StabilizeError> {
    let columns: Vec<Result<DVector<f64>, OrbitError>> = pool.install(|| {
        (0..corrections)
            .into_par_iter()
            .map(|j| {
                let mut u = vec![0.0; corrections];
                u[j] = h;
                let plus = map.step(z_star, &u)?;
                u[j] = -h;
                let minus = map.step(z_star, &u)?;
                Ok((plus - minus) / (2.0 * h))
            })
            .collect()
    });
    let mut b = DMatrix::zeros(z_star.len(), corrections);
    for (j, column) in columns.into_iter().enumerate() {
        b.set_column(
            j,
            &column.map_err(|e| run_failed("with a correction (B's differences)", e))?,
        );
    }
    Ok(b)
}

/// Periods of the map [`stabilize`] runs: the fixed point's check, two per correction for B,
/// and each start's periods with and without the corrections.
pub fn stabilization_periods(corrections: usize, options: &StabilizeOptions) -> usize {
    1 + 2 * corrections + 2 * options.starts * options.periods
}

/// The perturbed starts, each run with and without the corrections.
fn perturbed_runs(
    map: &ControlledMap,
    z_star: &DVector<f64>,
    gain: &DMatrix<f64>,
    base: &[f64],
    options: &StabilizeOptions,
    pool: &rayon::ThreadPool,
) -> Result<Vec<ControlledRun>, StabilizeError> {
    let mut random = SplitMix64(options.seed);
    let mut starts = Vec::with_capacity(options.starts);
    for _ in 0..options.starts {
        let direction = DVector::from_fn(z_star.len(), |_, _| random.gaussian());
        let delta = direction.normalize() * options.perturbation;
        let start = map
            .placed(&(z_star + delta), base.len())
            .map_err(|e| run_failed("from a perturbed start", e))?;
        starts.push(start);
    }
    let none = DMatrix::zeros(gain.nrows(), gain.ncols());
    let sequences: Vec<Sequence> = pool.install(|| {
        (0..2 * starts.len())
            .into_par_iter()
            .map(|i| {
                let k = if i % 2 == 0 { gain } else { &none };
                sequence(map, z_star, &starts[i / 2], k, base, options.periods)
            })
            .collect()
    });
    Ok(sequences
        .chunks(2)
        .zip(&starts)
        .map(|(pair, start)| {
            let (controlled, open) = (&pair[0], &pair[1]);
            ControlledRun {
                start: (start - z_star).iter().copied().collect(),
                controlled: controlled.deviations.clone(),
                corrections: controlled.corrections.clone(),
                clamped: controlled.clamped,
                open_loop: open.deviations.clone(),
                observed_rate: late_rate(&controlled.deviations),
                open_loop_rate: late_rate(&open.deviations),
                failure: controlled
                    .failure
                    .clone()
                    .or_else(|| open.failure.as_ref().map(|f| format!("open loop: {f}"))),
            }
        })
        .collect())
}

/// The deviations and corrections of one start.
struct Sequence {
    deviations: Vec<f64>,
    corrections: Vec<Vec<f64>>,
    clamped: usize,
    failure: Option<String>,
}

/// `periods` periods of the map from `start`, the correction -K (z - z*) applied at each
/// section, each held within half its field's value.
fn sequence(
    map: &ControlledMap,
    z_star: &DVector<f64>,
    start: &DVector<f64>,
    gain: &DMatrix<f64>,
    base: &[f64],
    periods: usize,
) -> Sequence {
    let mut z = start.clone();
    let mut out = Sequence {
        deviations: vec![(&z - z_star).norm()],
        corrections: Vec::new(),
        clamped: 0,
        failure: None,
    };
    for period in 1..=periods {
        let wanted = -(gain * (&z - z_star));
        let mut held = false;
        let u: Vec<f64> = wanted
            .iter()
            .zip(base)
            .map(|(&u, &b)| {
                let limit = if b == 0.0 {
                    f64::INFINITY
                } else {
                    0.5 * b.abs()
                };
                held |= u.abs() > limit;
                u.clamp(-limit, limit)
            })
            .collect();
        out.clamped += usize::from(held);
        match map.step(&z, &u) {
            Ok(next) => z = next,
            Err(e) => {
                out.failure = Some(format!("period {period}: {e}"));
                break;
            }
        }
        out.corrections.push(u);
        out.deviations.push((&z - z_star).norm());
    }
    out
}

/// The shrink (or growth) per period over the second half of the periods:
/// (d(N) / d(N/2))^(1 / (N - N/2)); NaN with fewer than two periods.
pub fn late_rate(deviations: &[f64]) -> f64 {
    let n = deviations.len().saturating_sub(1);
    let from = n / 2;
    if n < 2 {
        return f64::NAN;
    }
    (deviations[n] / deviations[from]).powf(1.0 / (n - from) as f64)
}

/// The stabilization as the `stabilization` object of the orbit's JSON.
pub fn stabilization_json(s: &Stabilization) -> serde_json::Value {
    let complex = |mu: &Complex<f64>| serde_json::json!({"re": mu.re, "im": mu.im, "modulus": mu.norm(), "argument": mu.arg()});
    let rows = |m: &DMatrix<f64>| {
        m.row_iter()
            .map(|r| r.iter().copied().collect::<Vec<f64>>())
            .collect::<Vec<_>>()
    };
    let open: Vec<serde_json::Value> = s
        .open_loop
        .iter()
        .map(|m| {
            let mut v = complex(&m.value);
            v["trivial"] = serde_json::json!(m.trivial);
            v
        })
        .collect();
    let runs: Vec<serde_json::Value> = s
        .runs
        .iter()
        .map(|r| {
            serde_json::json!({
                "start": r.start,
                "controlled": r.controlled,
                "corrections": r.corrections,
                "clamped": r.clamped,
                "open_loop": r.open_loop,
                "observed_rate": r.observed_rate,
                "open_loop_rate": r.open_loop_rate,
                "failure": r.failure,
            })
        })
        .collect();
    serde_json::json!({
        "keys": s.keys,
        "base": s.base,
        "B": rows(&s.sensitivity),
        "K": rows(&s.gain),
        "correction_weight": s.correction_weight,
        "riccati_iterations": s.riccati_iterations,
        "riccati_converged": s.riccati_converged,
        "open_loop": open,
        "reach": s.reach.iter().map(|(mu, r)| serde_json::json!({"multiplier": complex(mu), "reach": r})).collect::<Vec<_>>(),
        "closed_loop": s.closed_loop.iter().map(complex).collect::<Vec<_>>(),
        "predicted_rate": s.predicted_rate,
        "stable": s.stable,
        "fixed_point_residual": s.fixed_point_residual,
        "runs": runs,
    })
}

/// The stabilization in a few lines of text.
pub fn summary(s: &Stabilization) -> String {
    let open = s
        .open_loop
        .iter()
        .filter(|m| m.trivial.is_none())
        .map(|m| format!("{:.4}", m.modulus()))
        .collect::<Vec<_>>()
        .join(", ");
    let closed = s
        .closed_loop
        .iter()
        .filter(|mu| mu.norm() > 1e-9)
        .map(|mu| format!("{:.4}", mu.norm()))
        .collect::<Vec<_>>()
        .join(", ");
    let mut text = format!(
        "stabilize {}: open-loop |mu| {open}; closed-loop |mu| {closed} (Riccati {} in {} iterations); predicted rate {:.4} per period\n",
        s.keys.join(","),
        if s.riccati_converged { "converged" } else { "did not converge" },
        s.riccati_iterations,
        s.predicted_rate,
    );
    for (i, r) in s.runs.iter().enumerate() {
        let list = |d: &[f64]| {
            d.iter()
                .map(|v| format!("{v:.2e}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        text += &format!(
            "start {}: |z - z*| controlled {} (observed rate {:.4}); open loop {} (rate {:.4}){}\n",
            i + 1,
            list(&r.controlled),
            r.observed_rate,
            list(&r.open_loop),
            r.open_loop_rate,
            r.failure
                .as_ref()
                .map_or(String::new(), |f| format!("; stopped: {f}")),
        );
    }
    text
}

//! `diabolo orbit --stabilize KEY[,KEY...]`: the corrections' fields read and checked before
//! anything runs, the scenario rebuilt with a correction applied, and the outcome's exit code.

use super::args::OrbitArgs;
use super::input::read_document;
use super::{CliError, ScenarioError};
use diabolo::display::compact;
use diabolo::orbit::{
    check_keys, stabilization_periods, OrbitError, OrbitOptions, Stabilization, StabilizeOptions,
    Timing,
};
use diabolo::scenario::{overrides, Scenario};
use diabolo::simulation::Simulation;

/// The corrections: their fields, their values in the scenario, the document they are applied
/// to and the options, all checked.
pub struct Corrections {
    pub keys: Vec<String>,
    pub base: Vec<f64>,
    document: serde_json::Value,
    folder: std::path::PathBuf,
    limits: diabolo::scenario::Limits,
    pub options: StabilizeOptions,
}

impl Corrections {
    /// `--stabilize`'s fields and options from the flags (None without `--stabilize`), checked
    /// against the orbit's timing and `--max-duration` (one period of the map per correction
    /// pair, the fixed point's check and every start's periods twice).
    pub fn read(
        args: &OrbitArgs,
        timing: Timing,
        orbit: &OrbitOptions,
    ) -> Result<Option<Self>, CliError> {
        let Some(keys) = &args.stabilize else {
            return Ok(None);
        };
        check_keys(keys, matches!(timing, Timing::Autonomous(_)))?;
        let options = options(args, orbit)?;
        let (document, folder) = read_document(&args.input)?;
        let base = keys
            .iter()
            .map(|key| {
                overrides::number(&document, key).map_err(|e| match e {
                    ScenarioError::Override { key, reason } => {
                        flag("--stabilize", format!("{key}: {reason}"))
                    }
                    other => CliError::Input(other),
                })
            })
            .collect::<Result<Vec<f64>, CliError>>()?;
        let corrections = Self {
            keys: keys.clone(),
            base,
            document,
            folder,
            limits: args.input.limits()?,
            options,
        };
        corrections.corrected(&vec![0.0; keys.len()])?;
        if let Timing::Forced { period } = timing {
            corrections.fits(period)?;
        }
        Ok(Some(corrections))
    }

    /// The scenario with each field at its value plus the correction `u`.
    pub fn corrected(&self, u: &[f64]) -> Result<Simulation, OrbitError> {
        let mut doc = self.document.clone();
        for ((key, base), du) in self.keys.iter().zip(&self.base).zip(u) {
            overrides::apply(&mut doc, key, serde_json::json!(base + du))
                .map_err(|e| OrbitError::Setup(e.to_string()))?;
        }
        Scenario::from_value(doc)
            .and_then(|s| s.build_within(&self.folder, &self.limits))
            .map_err(|e| OrbitError::Setup(e.to_string()))
    }

    /// The stabilization's periods of `period` s within `--max-duration`.
    pub fn fits(&self, period: f64) -> Result<(), CliError> {
        let periods = stabilization_periods(self.keys.len(), &self.options);
        let total = periods as f64 * period;
        if total <= self.limits.max_duration {
            return Ok(());
        }
        Err(flag(
            "--stabilize",
            format!(
                "{periods} periods of {} s ({} s: B's differences, and --starts x --periods with and without the corrections) are more than the limit of {} s (--max-duration); give fewer --starts or --periods, or raise the limit with --max-duration SECONDS",
                compact(period),
                compact(total),
                compact(self.limits.max_duration)
            ),
        ))
    }
}

/// The options from the flags, checked.
fn options(args: &OrbitArgs, orbit: &OrbitOptions) -> Result<StabilizeOptions, CliError> {
    if !(args.lqr_r.is_finite() && args.lqr_r > 0.0) {
        return Err(flag(
            "--lqr-r",
            format!(
                "must be a finite number greater than 0, got {}",
                compact(args.lqr_r)
            ),
        ));
    }
    if !(args.perturb.is_finite() && args.perturb > 0.0) {
        return Err(flag(
            "--perturb",
            format!(
                "must be a finite number greater than 0, got {}",
                compact(args.perturb)
            ),
        ));
    }
    if args.periods < 2 {
        return Err(flag(
            "--periods",
            "at least 2 periods are needed to see a rate".into(),
        ));
    }
    Ok(StabilizeOptions {
        correction_weight: args.lqr_r,
        periods: args.periods,
        starts: args.starts,
        perturbation: args.perturb,
        seed: args.seed,
        step: orbit.jacobian_step,
        jobs: orbit.jobs,
        stability_margin: orbit.stability_margin,
    })
}

/// Exit 1 (after the result is written) when the closed loop does not hold the orbit or a run
/// failed.
pub fn outcome(s: &Stabilization) -> Result<(), CliError> {
    let failed = s.runs.iter().filter(|r| r.failure.is_some()).count();
    if !s.riccati_converged {
        return Err(CliError::Run(format!("--stabilize: the Riccati iteration did not converge in {} iterations: the corrections {} cannot hold every growing mode (see stabilization.reach: a multiplier the corrections do not reach)", s.riccati_iterations, s.keys.join(","))));
    }
    if !s.stable {
        return Err(CliError::Run(format!(
            "--stabilize: the closed loop is not stable (largest multiplier {:.6} in modulus)",
            s.predicted_rate
        )));
    }
    if failed > 0 {
        return Err(CliError::Run(format!(
            "--stabilize: {failed} of {} perturbed runs stopped (see stabilization.runs' failure)",
            s.runs.len()
        )));
    }
    Ok(())
}

fn flag(flag: &str, reason: String) -> CliError {
    CliError::Input(ScenarioError::Flag {
        flag: flag.into(),
        reason,
    })
}

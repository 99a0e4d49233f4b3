//! From a parsed scenario to a [`Simulation`]: every value checked, every physical
//! impossibility reported with its JSON path, the value, the reason and the fix.
//!
//! - `params`: the parameters.
//! - `settings`: the `sim` section, checked against the limits.
//! - `drive` and `samples`: the hands' drives, a path's CSV samples.
//! - `initial` and `flying`: the initial state, on the string and off it.
//! - `space`: a scenario in space, its parameters and its initial state.
//! - `start`: what the planar and the space initial states share (the sticks, the diabolos'
//!   order, the string within reach and put taut), in `D` dimensions.

mod checks;
mod drive;
mod flying;
mod initial;
mod params;
mod samples;
mod settings;
mod space;
mod start;

use std::path::Path as FsPath;

use crate::display::{compact, Compact};
use crate::simulation::drive::{reach_warning, ReachWarning};
use crate::simulation::DiaboloMode;
use crate::simulation::{SetupError, Simulation};

use super::error::ScenarioError;
use super::limits::Limits;
use super::ranges;
use super::spec::{Scenario, StartMode};
use checks::{each_within, invalid, within, SIDES};
use drive::build_drive;
use params::build_params;
use settings::build_settings;

pub use drive::DEFAULT_SMOOTHING;
pub use initial::TAUT_SNAP_TOLERANCE;
pub use space::Built;
pub use start::PATH_AGREEMENT;

/// Largest capstan exponent sum_i c 2 pi (|k_i| + 1) over the diabolos: the tension ratios
/// d_i = exp(sum c' theta') stay below e^300 (1e130), so that products of two still fit a double.
const MAX_CAPSTAN_EXPONENT: f64 = 300.0;

impl Scenario {
    /// Checks everything and builds the simulation, under the default [`Limits`]. Relative
    /// file names (a `csv` path) are read relative to `base`, the scenario file's folder.
    pub fn build(&self, base: &FsPath) -> Result<Simulation, ScenarioError> {
        self.build_within(base, &Limits::default())
    }

    /// [`Scenario::build`] under the given limits (rows, simulated time).
    pub fn build_within(
        &self,
        base: &FsPath,
        limits: &Limits,
    ) -> Result<Simulation, ScenarioError> {
        if self.check_dimension()? {
            let (path, value) = match (self.sim.space, self.third_coordinate()) {
                (None, Some(path)) => (path, "a third coordinate"),
                _ => ("sim.space".to_string(), "true"),
            };
            return Err(invalid(
                path,
                value,
                "a scenario in space: this builds the planar model, and only `diabolo run` and `diabolo validate` run scenarios in space yet",
                "run it with `diabolo run` (in Rust, Scenario::build_any), or drop \"space\" and the third coordinates",
            ));
        }
        let params = build_params(&self.params)?;
        let drives = [
            build_drive(self.drive.left.as_ref(), SIDES[0], base)?,
            build_drive(self.drive.right.as_ref(), SIDES[1], base)?,
        ];
        let settings = build_settings(&self.sim, limits, self.initial.diabolos.len())?;
        self.check_initial_ranges()?;
        self.check_capstan()?;
        let initial = self.build_initial(&params, &drives)?;
        let modes = self.start_modes();
        Simulation::with_modes(params, drives, initial, modes, settings).map_err(|e| match e {
            SetupError::Settings { field, reason } => invalid(
                format!("sim.{field}"),
                "",
                reason,
                "see the sim section of the scenario format (`diabolo schema`)",
            ),
            other => invalid(
                "initial",
                "",
                other.to_string(),
                "check the initial positions",
            ),
        })
    }

    /// Warnings about the hands' paths in `simulation` (built from this scenario): the sticks
    /// come within [`crate::simulation::drive::REACH_MARGIN`] of the string length, or beyond.
    /// A compliant string stretches instead: no warning for it.
    pub fn path_warnings(&self, simulation: &Simulation) -> Vec<ReachWarning> {
        if simulation.params.string_stiffness.is_some() {
            return Vec::new();
        }
        reach_warning(
            &simulation.drives,
            simulation.params.string_length,
            self.sim.duration,
        )
        .into_iter()
        .collect()
    }

    /// Every number of `initial` within its range.
    fn check_initial_ranges(&self) -> Result<(), ScenarioError> {
        for (side, body) in SIDES.iter().zip([&self.initial.left, &self.initial.right]) {
            if let Some(b) = body {
                each_within(
                    &format!("initial.{side}.pos"),
                    b.pos.as_slice(),
                    &ranges::COORDINATE,
                )?;
                each_within(
                    &format!("initial.{side}.vel"),
                    b.vel.as_slice(),
                    &ranges::VELOCITY,
                )?;
            }
        }
        for (k, d) in self.initial.diabolos.iter().enumerate() {
            let at = format!("initial.diabolos[{k}]");
            if let Some(pos) = d.pos {
                each_within(&format!("{at}.pos"), pos.as_slice(), &ranges::COORDINATE)?;
            }
            if let Some(x) = d.x {
                within(|| format!("{at}.x"), x, &ranges::COORDINATE)?;
            }
            each_within(&format!("{at}.vel"), d.vel.as_slice(), &ranges::VELOCITY)?;
            within(|| format!("{at}.spin"), d.spin, &ranges::SPIN)?;
            within(|| format!("{at}.knot"), f64::from(d.knot), &ranges::KNOT)?;
        }
        Ok(())
    }

    /// The capstan ratios exp(sum c' theta') of all the diabolos together stay finite.
    fn check_capstan(&self) -> Result<(), ScenarioError> {
        let c = self.params.friction;
        let angle: f64 = self
            .initial
            .diabolos
            .iter()
            .map(|d| std::f64::consts::TAU * (f64::from(d.knot).abs() + 1.0))
            .sum();
        if c * angle <= MAX_CAPSTAN_EXPONENT {
            return Ok(());
        }
        Err(invalid(
            "params.friction",
            compact(c),
            format!(
                "with these diabolos and knots the string can wrap {} rad in all, and the capstan ratio exp(c theta) reaches e^{} (at most e^{} keeps the tensions finite)",
                Compact(angle),
                Compact(c * angle),
                Compact(MAX_CAPSTAN_EXPONENT)
            ),
            format!(
                "lower the friction to at most {} or use fewer knots",
                Compact(MAX_CAPSTAN_EXPONENT / angle)
            ),
        ))
    }

    /// Where each diabolo starts, in index order.
    pub fn start_modes(&self) -> Vec<DiaboloMode> {
        self.initial
            .diabolos
            .iter()
            .map(|d| match d.mode {
                StartMode::String => DiaboloMode::String,
                StartMode::Flying => DiaboloMode::Flying,
            })
            .collect()
    }
}

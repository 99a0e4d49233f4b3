//! A scenario ready to run: parameters, drives, initial state and settings, checked.

use thiserror::Error;

use crate::display::Compact;
use crate::model::{CartesianState, Params, StateError};

use super::drive::Drive;
use super::ode::integrate::{Method, OptionsError};
use super::report::Settings;
use super::roster::{DiaboloMode, Roster};

/// A scenario ready to run: parameters, drives, initial state, settings.
#[derive(Clone, Debug)]
pub struct Simulation {
    /// The physical parameters.
    pub params: Params,
    /// What the left and the right hand do.
    pub drives: [Drive; 2],
    /// The state at t = 0 (a path-driven stick starts on its path): every diabolo of the run,
    /// in index order K = 1..N (the on-string ones left to right among themselves).
    pub initial: CartesianState,
    /// Where each diabolo starts, in index order: on the string or flying (never dropped).
    pub modes: Vec<DiaboloMode>,
    /// How the run is integrated and reported.
    pub settings: Settings,
}

/// A problem with the simulation setup itself.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum SetupError {
    /// The initial state is not a valid state of diabolos on a string.
    #[error("initial state: {0}")]
    State(#[from] StateError),
    /// A diabolo cannot start dropped.
    #[error(
        "initial state: diabolo {diabolo} cannot start dropped (start it flying above the floor)"
    )]
    StartsDropped {
        /// The diabolo, 1..N.
        diabolo: usize,
    },
    /// The start modes do not match the diabolos.
    #[error("initial state: {modes} start modes for {diabolos} diabolos")]
    ModeCount {
        /// Phases given.
        modes: usize,
        /// Diabolos in the state.
        diabolos: usize,
    },
    /// The initial positions need more string than there is (for a compliant string: more
    /// than twice its length).
    #[error("initial state: the string is {excess:.6} m too short for the positions (sum l > L)")]
    StringTooShort {
        /// sum l - L, m.
        excess: f64,
    },
    /// A setting is out of its range.
    #[error("sim.{field}: {reason}")]
    Settings {
        /// The setting, as named under `sim.` ("max_step").
        field: &'static str,
        /// What is wrong with its value.
        reason: String,
    },
}

impl Simulation {
    /// Checks the setup: a string long enough for the positions, and valid settings.
    /// A stick whose drive is a path starts where its path is at t = 0, with its velocity.
    pub fn new(
        params: Params,
        drives: [Drive; 2],
        initial: CartesianState,
        settings: Settings,
    ) -> Result<Self, SetupError> {
        let modes = vec![DiaboloMode::String; initial.diabolo_count()];
        Self::with_modes(params, drives, initial, modes, settings)
    }

    /// As [`Simulation::new`], with each diabolo's start mode given (index order): a flying
    /// diabolo is off the string from the start, and the string runs through the others only.
    pub fn with_modes(
        params: Params,
        drives: [Drive; 2],
        mut initial: CartesianState,
        modes: Vec<DiaboloMode>,
        settings: Settings,
    ) -> Result<Self, SetupError> {
        for (drive, stick) in drives.iter().zip([&mut initial.left, &mut initial.right]) {
            if let Drive::Path(path) = drive {
                let start = path.at(0.0);
                stick.pos = start.pos;
                stick.vel = start.vel;
            }
        }
        if initial.diabolo_count() == 0 {
            return Err(StateError::NoDiabolo.into());
        }
        if modes.len() != initial.diabolo_count() {
            return Err(SetupError::ModeCount {
                modes: modes.len(),
                diabolos: initial.diabolo_count(),
            });
        }
        if let Some(k) = modes.iter().position(|m| *m == DiaboloMode::Dropped) {
            return Err(SetupError::StartsDropped { diabolo: k + 1 });
        }
        let excess =
            Roster::new(&modes).string_state(&initial).string_used() - params.string_length;
        // A compliant string may start stretched (by at most its length).
        let reach = if params.string_stiffness.is_some() {
            params.string_length
        } else {
            1e-9 * params.string_length
        };
        if excess > reach {
            return Err(SetupError::StringTooShort { excess });
        }
        let positive = |field: &'static str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(SetupError::Settings {
                    field,
                    reason: format!("{} must be a finite number greater than 0", Compact(v)),
                })
            }
        };
        positive("duration", settings.duration)?;
        positive("output_interval", settings.output_interval)?;
        positive("zeno_speed", settings.zeno_speed)?;
        positive("meeting_distance", settings.meeting_distance)?;
        positive("max_events_per_second", settings.max_events_per_second)?;
        positive("max_steps_per_second", settings.max_steps_per_second)?;
        if let Some(limit) = settings.max_wall {
            positive("max_wall", limit)?;
        }
        settings.stepper_options().validate().map_err(|e| {
            let field = match e {
                OptionsError::Rtol(_) => "rtol",
                OptionsError::Atol(_) => "atol",
                OptionsError::FixedStep(_) => "step",
                _ => "max_step",
            };
            SetupError::Settings {
                field,
                reason: e.to_string(),
            }
        })?;
        if let Method::Rk4 { step } = settings.method {
            positive("step", step)?;
        }
        Ok(Self {
            params,
            drives,
            initial,
            modes,
            settings,
        })
    }
}

//! Time integration of the model: the ODE layer (steppers with dense output, event location on
//! the interpolant), hand drives, the taut and loose phases as ODE systems, and the hybrid run
//! (phases, one guard type, transitions by event family, the loop), with what a run reports and
//! the rows it emits.

pub mod drive;
pub(crate) mod failures;
pub(crate) mod hybrid;
pub mod ode;
pub(crate) mod phase;
pub mod report;
pub mod roster;
pub mod row;
pub mod setup;
pub mod space;
pub mod tolerances;

pub use crate::model::TautFormulas;
pub use hybrid::run::Session;
pub use ode::events::{
    Crossing, Direction, EventConfigError, EventError, EventHit, EventLocator, EventOptions,
    EventSet, EventSpec, EventSystem,
};
pub use ode::integrate::{
    DenseError, ErrorWeights, IntegrateError, Method, OdeSystem, OptionsError, StepOutcome,
    StepStats, Stepper, StepperOptions, Tableau,
};
pub use phase::{Measure, Phase, Quantity, TautSystem};
pub use report::{
    object_name, Event, EventKind, RunError, RunReport, RunStats, Settings,
    DEFAULT_MAX_STEPS_PER_SECOND,
};
pub use roster::DiaboloMode;
pub use row::Row;
pub use setup::{SetupError, Simulation};

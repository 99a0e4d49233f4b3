//! Time integration of the model: steppers with dense output, event location on the
//! interpolant, hand drives, the taut and loose phases as ODE systems, and the hybrid run.

pub mod drive;
pub mod events;
pub mod integrate;
pub mod phase;
pub mod run;

pub use events::{
    integrate_with_events, Control, Crossing, Direction, EventConfigError, EventContext,
    EventError, EventHit, EventLocator, EventOptions, EventRateGuard, EventRateLimit, EventSet,
    EventSpec, EventSystem, OutputGrid, RateExceeded, RunSettings, RunSummary,
};
pub use integrate::{
    DenseError, ErrorWeights, IntegrateError, Method, OdeSystem, OptionsError, StepOutcome,
    StepStats, Stepper, StepperOptions, Tableau,
};

//! Time integration of the model: steppers with dense output, event location on the
//! interpolant, and (later) the hybrid taut/loose simulation.

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

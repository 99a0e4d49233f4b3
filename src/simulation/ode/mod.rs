//! The ODE layer: Runge-Kutta steppers with dense output ([`integrate`], the explicit tableaus
//! in [`tableau`], the Rosenbrock stages in `rosenbrock`) and the event locator on the dense output ([`events`]).

pub mod events;
pub mod integrate;
mod rosenbrock;
mod scale;
pub mod tableau;

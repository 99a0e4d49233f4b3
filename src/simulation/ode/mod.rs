//! The ODE layer: explicit Runge-Kutta steppers with dense output ([`integrate`], their
//! tableaus in [`tableau`]) and the event locator on the dense output ([`events`]).

pub mod events;
pub mod integrate;
pub mod tableau;

//! Time integration of the model: steppers with dense output, event location on the
//! interpolant, and (later) the hybrid taut/loose simulation.

pub mod drive;
pub mod phase;

//! `diabolo`: a batch simulator of diabolo string dynamics.
//!
//! The physics is the generalized N-diabolo model of the DiaMech notes (point-mass sticks and
//! diabolos on one string, capstan friction at each axle, spin, a rotating-frame solution for the
//! tension, and the tensing impulse when a slack string snaps taut). See `../shared/spec/model.md`
//! for the formulas and their verification.
//!
//! The crate is layered; dependencies point one way:
//! - [`model`]: the physics of one instant (geometry, friction, tension, impulse, energy). It knows
//!   nothing of files, JSON or time stepping.
//! - [`simulation`]: time integration over the model: Runge-Kutta steppers with dense output,
//!   event location on the interpolant, hand drives, the taut and loose phases, and the hybrid
//!   run through loosening, tensing, slip reversals, grip and knot changes.
//!
//! ```
//! use diabolo::model::{Params, ParamValues, CartesianState, StickInput, TautDynamics, AxleMode};
//! let params = Params::new(ParamValues { string_length: 1.46, ..ParamValues::default() }).unwrap();
//! // One diabolo hanging at rest below two still sticks 0.8 m apart.
//! let state = CartesianState::hanging(&params, [-0.4, 0.0], [0.4, 0.0], 0.1, 0.0).unwrap();
//! let mut dynamics = TautDynamics::new(&params, 1);
//! let reduced = dynamics.layout().reduce(&state, params.string_length, 1e-9).unwrap();
//! let hold = [StickInput::Accel([0.0, 0.0].into()), StickInput::Accel([0.0, 0.0].into())];
//! let modes = [AxleMode::from_slip(0.0)];
//! dynamics.evaluate(reduced.values(), &hold, &modes).unwrap();
//! assert!(dynamics.tension().base_tension > 0.0);
//! ```

pub mod check;
pub mod display;
pub mod fit;
pub mod model;
pub mod output;
pub mod plot;
pub mod replay;
pub mod scenario;
pub mod simulation;
pub mod sweep;

//! `diabolo`: a batch simulator of diabolo string dynamics.
//!
//! The physics is the generalized N-diabolo model of the DiaMech notes: point-mass sticks and
//! diabolos on one string, capstan friction at each axle, spin, a rotating-frame solution for the
//! tension (gear ratio G, centrifugal term F_C, tension ratios d_i, the 4x4 stick matrix B), and
//! the tensing impulse when a slack string snaps taut. docs/model.md's "Physics notes" say what
//! this implementation decided, and its "How each part is checked" how each formula is checked.
//!
//! # A run
//!
//! A [`Scenario`] (the JSON format of `diabolo run`, or built in code from its defaults) is
//! checked and built into a [`Simulation`]; [`Simulation::run`] hands every output [`Row`] to
//! a closure and returns a [`RunReport`] (events, statistics, and the failure if the run
//! stopped early).
//!
//! ```
//! use diabolo::scenario::{DriveSpec, SimSpec};
//! use diabolo::{EventKind, Scenario};
//!
//! // One diabolo hanging 0.61 m below two still hands (y = 1.5 m, 0.8 m apart, L = 1.46 m);
//! // then the right hand rises 0.1 m in 1 s.
//! let mut scenario = Scenario::default();
//! scenario.drive.right = Some(DriveSpec::keyframes(vec![[0.0, 0.4, 1.5], [1.0, 0.4, 1.6]]));
//! scenario.sim = SimSpec { output_interval: 0.01, ..SimSpec::for_duration(2.0) };
//! let simulation = scenario.build(std::path::Path::new(".")).expect("a valid scenario");
//!
//! let mut highest: f64 = 0.0;
//! let report = simulation.run(&mut |row| highest = highest.max(row.state.diabolos[0].pos.y));
//! assert!(report.failure.is_none());
//! assert_eq!(report.stats.rows, 201);
//! // The bottom of the string rises by about half the hand's rise, and a hand this slow never
//! // lets the string go slack.
//! let bottom = 1.5 - (0.73_f64.powi(2) - 0.4_f64.powi(2)).sqrt();
//! assert!(highest > bottom + 0.04, "{highest}");
//! assert!(report.events.iter().all(|e| e.kind != EventKind::Loosen));
//! ```
//!
//! A [`Session`] is the run advanced piece by piece, with a hand's drive replaced between
//! pieces (a control loop; what the Python package's `Simulation` is):
//!
//! ```
//! use diabolo::simulation::drive::{Drive, Schedule};
//! use diabolo::Scenario;
//! use nalgebra::Vector2;
//!
//! let simulation = Scenario::default().build(std::path::Path::new(".")).unwrap();
//! let mut session = simulation.session();
//! session.advance(0.5, None).unwrap();
//! // From t = 0.5 s the right hand lifts its stick at 1 m/s^2.
//! let lift = Drive::Accel(Schedule::Constant(Vector2::new(0.0, 1.0)));
//! session.set_drive(1, lift).unwrap();
//! session.advance(0.7, None).unwrap();
//! let state = session.state().unwrap();
//! assert_eq!(state.t, 0.7);
//! // 0.5 a t^2 = 0.02 m above where the still hand held it.
//! assert!((state.state.right.pos.y - 1.52).abs() < 1e-9, "{}", state.state.right.pos.y);
//! ```
//!
//! The same from a JSON text: `Scenario::parse(text, &[("sim.duration".into(), "2".into())])`
//! (the second argument holds `--set` style overrides); errors name the JSON path, the value,
//! the reason and the fix.
//!
//! # Layers
//!
//! Dependencies point one way: `scenario`, `output`, `sweep`, `check`, `plot`, `replay` and
//! `fit` use `simulation`, which uses `model`.
//! - [`model`]: the physics of one instant (geometry, friction, tension, impulse, energy). It
//!   knows nothing of files, JSON or time stepping.
//! - [`simulation`]: time integration over the model: Runge-Kutta steppers with dense output,
//!   event location on the interpolant, hand drives, and the hybrid run (modes, typed guards,
//!   transitions) through loosening, tensing, slip reversals, grip and knot changes.
//! - [`scenario`]: the scenario format, its schema, overrides and the checked build.
//! - [`output`]: the trajectory CSV, the event log, the summary, files written atomically, the
//!   one CSV table reader.
//! - [`sweep`], [`check`], [`plot`], [`replay`], [`fit`]: the commands' library halves.
//!
//! The physics of one instant, without a run:
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

#![warn(missing_docs)]

pub mod check;
pub mod clock;
pub mod display;
pub mod fit;
pub mod input_limits;
pub mod model;
pub mod orbit;
pub mod output;
pub mod plan;
#[cfg(feature = "plot")]
pub mod plot;
pub mod random;
pub mod replay;
pub mod scenario;
pub mod simulation;
pub mod sweep;

pub use scenario::{Scenario, ScenarioError};
pub use simulation::{
    DiaboloMode, Event, EventKind, Row, RunError, RunReport, Session, Settings, Simulation,
};

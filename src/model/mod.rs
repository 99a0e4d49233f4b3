//! The physics of one instant: geometry of the string, capstan friction, the rotating-frame
//! tension solution, loose-phase accelerations, the tensing impulse and the energy budget.
//!
//! Objects are numbered left to right: left stick 0, diabolos 1..N, right stick N+1.
//! Segment i joins object i and i+1. Everything is SI (m, kg, s, N) and angles are radians,
//! but for the axle's tilt and turn ([`axle_angles`]), which are degrees as the reports give them.

pub mod axle_angles;
pub mod contact;
pub mod dynamics;
pub mod elastic;
pub mod energy;
pub mod flight;
pub mod friction;
pub mod geometry;
pub mod grip;
pub mod impulse;
pub mod params;
pub mod placement;
pub mod space;
pub mod state;
pub mod tension;

pub use contact::{apply_impact, Constraint, ImpactBody, ImpactError, ImpactOutcome, ImpactRule};
pub use dynamics::{DynamicsError, TautDynamics};
pub use elastic::ElasticString;
pub use energy::{
    mechanical_energy, LedgerAccounts, LedgerBreach, LedgerWatch, LossAccount, PowerBalance,
};
pub use flight::{chord_normal, FreeKind, FreeMotion};
pub use friction::{filippov_mode, slip_at_capstan_bound, AxleContact, AxleMode, SlipDirection};
pub use geometry::Kinematics;
pub use impulse::{
    tensing_impulse, tensing_impulse_with_restitution, ImpulseError, TensingImpulse,
};
pub use params::{ranges, FrictionLaw, ParamError, ParamValues, Params, Range};
pub use placement::{lowest_taut_positions, taut_point_below, PlacementError};
pub use state::{
    close_onto_string, close_onto_string_with, Body, CartesianState, DiaboloState, ReducedLayout,
    ReducedState, StateError,
};
pub use tension::{
    loose_accelerations, Regularisation, StickInput, StickMatrix, TautFormulas, TensionSolution,
};

/// Number of objects (two sticks and N diabolos) for N diabolos.
pub const fn object_count(n_diabolos: usize) -> usize {
    n_diabolos + 2
}

//! The model in space (docs/space.md): the string, its tensions and the tensing impulse in
//! three dimensions, and each diabolo's axle as an axisymmetric gyroscope driven by the string.
//!
//! Axes: x right in the hands' plane, y up, z toward the audience. The planar model is the
//! case z = 0 everywhere with every axle along +z; the model in space reproduces it there. The
//! axle's tilt and turn are measured as [`crate::model::axle_angles`] says.

pub mod axle;
pub mod energy;
pub mod flight;
pub mod hull;
pub mod impact;
pub mod impulse;
pub mod params;
pub mod state;
pub mod string;
pub mod tension;

pub use axle::{
    fast_top_rate, offset_torque, rigid_axle_acceleration, spin_rate_about_axle, string_torque,
};
pub use energy::space_energy;
pub use flight::{chord_crossing, lowest_rim_point, ChordCrossing};
pub use hull::{hull_gap, Gap, Hull};
pub use impact::{apply_space_impact, body_gap, hull_contact, solid_gap, Solid};
pub use impulse::{space_tensing_impulse, SpaceImpulse, SpaceImpulseError};
pub use params::{AxleModel, AxleValues, SpaceParams};
pub use state::{SpaceBody, SpaceDiabolo, SpaceState};
pub use string::{CollapsedSegment, SpaceSegment, SpaceString};
pub use tension::{SingularTension, SpaceAxleContact, SpaceSlipReference, SpaceTension};

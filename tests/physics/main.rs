//! The physics, one test binary: the model's formulas against independent references
//! (Cartesian Newton solves, closed forms, finite differences), the tensing impulse and contact,
//! gripping axles, energy and its ledger, throws and catches, the compliant string, and the
//! placement of several diabolos. Each module was a test file of its own.

#[path = "../common/mod.rs"]
mod common;

mod cartesian_cross_check;
mod contact;
mod elastic;
mod energy_balance;
mod flight;
mod grip;
mod high_friction_grip;
mod impulse;
mod kinematics;
mod ledger;
mod no_pass_through;
mod placement;
mod plan_sensitivity;
mod space_elastic;
mod space_flight;
mod space_hull;
mod space_impact;
mod space_resting;
mod space_run;
mod space_tension;
mod stick_matrix;
mod tension_cartesian;

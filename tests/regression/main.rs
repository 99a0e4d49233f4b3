//! Regression and whole-product checks, one test binary: the golden trajectories of the shipped
//! scenarios (blessed with `DIABOLO_BLESS=1 cargo test --release --test regression golden::`),
//! `sweep` and `check`, replay and parameter identification, periodic orbits, and the pictures.
//! Each module was a test file of its own.

#[path = "../common/mod.rs"]
mod common;

mod golden;
mod orbit;
mod plot;
mod replay;
mod sweep_and_check;

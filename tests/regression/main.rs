//! Regression and whole-product checks, one test binary: the golden trajectories of the shipped
//! scenarios (blessed with `DIABOLO_BLESS=1 cargo test --release --test regression golden::`),
//! `sweep` and `check`, replay and parameter identification, periodic orbits, the pictures, and
//! the house rules of the repository's layout (`layout`, read from the files at test time). Each
//! module but `layout` was a test file of its own.

#[path = "../common/mod.rs"]
mod common;

mod golden;
mod layout;
mod orbit;
mod plot;
mod plot_space;
mod replay;
mod space;
mod space_replay;
mod stabilize;
mod sweep_and_check;

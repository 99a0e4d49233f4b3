//! The integration, one test binary: the Runge-Kutta and Rosenbrock steppers against exact
//! solutions, event location on the dense output, work against precision on whole runs, and the
//! property tests of the invariants (their stored regressions in
//! `tests/proptest-regressions/invariants.txt`, where proptest looks for them). Each module was a
//! test file of its own.

#[path = "../common/mod.rs"]
mod common;

#[path = "../common/counting_allocator.rs"]
mod counting_allocator;

/// Counts each thread's allocations (`integrator_accuracy`: stepping allocates nothing).
#[global_allocator]
static GLOBAL: counting_allocator::Counting = counting_allocator::Counting;

mod event_location;
mod integrator_accuracy;
mod invariants;
mod work_precision;

//! Whole runs, one test binary: the hybrid simulation against known physics, run events and
//! failures, run-time budgets, sessions, the shipped scenarios end to end, and the trajectory's
//! writers (columns, rows on two threads). Each module was a test file of its own.

#[path = "../common/mod.rs"]
mod common;

#[path = "../common/counting_allocator.rs"]
mod counting_allocator;

/// Counts each thread's allocations (`run_budget`: the budget checks allocate nothing per step).
#[global_allocator]
static GLOBAL: counting_allocator::Counting = counting_allocator::Counting;

mod columns;
mod hybrid_runs;
mod parallel_rows;
mod pulled_straight;
mod run_budget;
mod run_events;
mod scenarios;
mod session;
mod simulation_smoke;

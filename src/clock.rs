//! Wall-clock time for the runs' budgets (`max_wall`) and the reports' `wall_time`. The
//! standard library has no clock on `wasm32-unknown-unknown` (a browser's clock is JavaScript's):
//! there a stopwatch reads zero, so a wall-clock budget never ends a run and the page that
//! embeds the simulator budgets its frames itself.

use std::time::Duration;

/// A stopwatch started when made.
#[derive(Clone, Copy, Debug)]
pub struct Stopwatch {
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    started: std::time::Instant,
}

impl Stopwatch {
    /// Started now.
    pub fn start() -> Self {
        Self {
            #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
            started: std::time::Instant::now(),
        }
    }

    /// The time since it started (zero where there is no clock).
    pub fn elapsed(&self) -> Duration {
        #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
        return self.started.elapsed();
        #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
        return Duration::ZERO;
    }
}

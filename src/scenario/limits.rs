//! Limits against runaway output: a run may not ask for more rows, or more simulated time, than
//! these. They are checked at validation (nothing runs, nothing is written) and can be raised
//! with `--max-rows` and `--max-duration` by a user who truly wants a bigger run. A fixed step
//! (`sim.step`, `sim.max_step`) may not force more computing time than [`MAX_FORCED_SECONDS`].

use super::spec::MethodName;

/// The limits a scenario is built under.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Most trajectory rows (floor(duration / output_interval) + 1). A row is about 480 bytes
    /// of CSV with one diabolo, so the default 10^7 is about 4.8 GB.
    pub max_rows: u64,
    /// Longest simulated time, s. The default 10^5 s (more than a day) is far beyond any
    /// diabolo routine; past it a run only streams rows until the disk fills.
    pub max_duration: f64,
}

impl Limits {
    /// Default of `--max-rows`.
    pub const DEFAULT_MAX_ROWS: u64 = 10_000_000;
    /// Default of `--max-duration`, s.
    pub const DEFAULT_MAX_DURATION: f64 = 1e5;
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_rows: Self::DEFAULT_MAX_ROWS,
            max_duration: Self::DEFAULT_MAX_DURATION,
        }
    }
}

/// Rows of a run: floor(duration / output_interval) + 1, saturating (never overflows, whatever
/// the values: a 5e-324 s interval over 1.7e308 s gives u64::MAX).
pub fn row_count(duration: f64, output_interval: f64) -> u64 {
    let intervals = (duration / output_interval).floor();
    if intervals.is_nan() {
        return u64::MAX;
    }
    // `as` saturates at u64::MAX for huge and infinite quotients.
    (intervals as u64).saturating_add(1)
}

/// Computing time a run may be forced to take by `sim.step` (rk4) or `sim.max_step`, s: 40
/// minutes. The steps it allows depend on the method and the diabolos ([`max_forced_steps`]).
pub const MAX_FORCED_SECONDS: f64 = 2400.0;

/// The time one step of `method` takes with `diabolos` diabolos, s: c0 + c2 N^2, c0 and c2
/// (microseconds) measured (user time of a release build on a shared 2-core machine,
/// `hanging` with 1, 4 and 8 diabolos, max_step 1e-5) and rounded up: rk4 2.7, 5.7, 13.3 us;
/// dopri5 4.0, 6.0, 15.6; dop853 7.0, 10.7, 28.6; rodas 10.7, 23, 75 (its implicit stages
/// solve a linear system of the whole state).
pub fn step_cost(method: MethodName, diabolos: usize) -> f64 {
    let (c0, c2) = match method {
        MethodName::Rk4 => (3.0, 0.2),
        MethodName::Dopri5 => (4.0, 0.2),
        MethodName::Dop853 => (7.0, 0.35),
        MethodName::Rodas => (11.0, 1.0),
    };
    let n = diabolos.max(1) as f64;
    (c0 + c2 * n * n) * 1e-6
}

/// Most steps a run of `method` with `diabolos` diabolos may be forced to take by `sim.step`
/// or `sim.max_step` (duration / step): as many as take [`MAX_FORCED_SECONDS`] by
/// [`step_cost`] (7.5e8 for rk4 with one diabolo, 2e8 for rodas, 3.2e7 for rodas with 8).
pub fn max_forced_steps(method: MethodName, diabolos: usize) -> f64 {
    (MAX_FORCED_SECONDS / step_cost(method, diabolos)).floor()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_counts_saturate_instead_of_overflowing() {
        assert_eq!(row_count(1.0, 0.01), 101);
        assert_eq!(row_count(2.0, 0.5), 5);
        assert_eq!(row_count(1.7e308, 5e-324), u64::MAX);
        assert_eq!(row_count(1e6, 1e-6), 1_000_000_000_001);
    }

    #[test]
    fn the_forced_steps_of_every_method_take_at_most_forty_minutes_at_their_cost() {
        let methods = [
            MethodName::Rk4,
            MethodName::Dopri5,
            MethodName::Dop853,
            MethodName::Rodas,
        ];
        for method in methods {
            for diabolos in [1, 2, 8, 100] {
                let most = max_forced_steps(method, diabolos);
                assert!(most * step_cost(method, diabolos) <= MAX_FORCED_SECONDS);
                assert!(most >= 1.0, "{method:?} with {diabolos}");
                assert!(most <= max_forced_steps(method, diabolos.saturating_sub(1)));
            }
        }
        // Rodas's implicit steps cost the most, rk4's the least.
        let steps = |m| max_forced_steps(m, 1);
        assert!(steps(MethodName::Rodas) < steps(MethodName::Dop853));
        assert!(steps(MethodName::Dop853) < steps(MethodName::Dopri5));
        assert!(steps(MethodName::Dopri5) < steps(MethodName::Rk4));
    }
}

//! Limits against runaway output: a run may not ask for more rows, or more simulated time, than
//! these. They are checked at validation (nothing runs, nothing is written) and can be raised
//! with `--max-rows` and `--max-duration` by a user who truly wants a bigger run.

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
}

//! How numbers and user-supplied text appear in messages: compact and bounded, whatever the
//! input. `5e-324` is shown as `5e-324`, not as 330 digits; a million-character value is cut.

use std::fmt;

/// A number as a person would write it: plain decimal between 1e-4 and 1e7 (shortest round-trip
/// digits), scientific notation outside that range, `inf`/`-inf`/`NaN` as such.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Compact(pub f64);

impl fmt::Display for Compact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        let magnitude = x.abs();
        if x == 0.0 || !x.is_finite() || (1e-4..1e7).contains(&magnitude) {
            write!(f, "{x}")
        } else {
            write!(f, "{x:e}")
        }
    }
}

/// `x` as [`Compact`] text.
pub fn compact(x: f64) -> String {
    Compact(x).to_string()
}

/// Longest user text echoed in a message, in characters.
pub const MAX_ECHOED_CHARS: usize = 80;

/// `text` as it may appear in a message: whole when short, else its first
/// [`MAX_ECHOED_CHARS`] characters and how many there were in all.
pub fn echoed(text: &str) -> String {
    let count = text.chars().count();
    if count <= MAX_ECHOED_CHARS {
        text.to_string()
    } else {
        let head: String = text.chars().take(MAX_ECHOED_CHARS).collect();
        format!("{head}... ({count} characters)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_the_readable_range_are_plain_and_the_rest_scientific() {
        assert_eq!(compact(0.25), "0.25");
        assert_eq!(compact(-3.0), "-3");
        assert_eq!(compact(0.0), "0");
        assert_eq!(compact(1234567.0), "1234567");
        assert_eq!(compact(5e-324), "5e-324");
        assert_eq!(compact(1.7e308), "1.7e308");
        assert_eq!(compact(-1e-5), "-1e-5");
        assert_eq!(compact(f64::INFINITY), "inf");
        assert!(compact(f64::MAX).len() < 30);
    }

    #[test]
    fn long_text_is_cut_and_counted() {
        assert_eq!(echoed("abc"), "abc");
        let long = "x".repeat(1_000_000);
        let shown = echoed(&long);
        assert!(shown.len() < 120, "{}", shown.len());
        assert!(shown.ends_with("(1000000 characters)"));
    }
}

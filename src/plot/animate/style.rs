//! Colours, the scale bar and numbers as the animation writes them.

use plotters::style::RGBColor;

/// The colour of a diabolo lying dropped on the floor.
pub(super) const DROPPED: RGBColor = RGBColor(153, 153, 153);

pub(super) fn phase_colour(phase: &str) -> RGBColor {
    if phase == "loose" {
        RGBColor(204, 102, 0)
    } else {
        RGBColor(0, 153, 51)
    }
}

pub(super) fn phase_colour_hex(phase: &str) -> &'static str {
    if phase == "loose" {
        "#cc6600"
    } else {
        "#009933"
    }
}

/// Halfway to white (a cube colour again when the channels are multiples of 102).
pub(super) fn lighten(c: RGBColor) -> RGBColor {
    let l = |v: u8| ((v as u16 + 255) / 2 / 51 * 51) as u8;
    RGBColor(l(c.0), l(c.1), l(c.2))
}

pub(super) fn hex(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// The smallest of 1, 2, 5, 10, 20, 50, ... at least `x`.
pub(super) fn nice_at_least(x: f64) -> f64 {
    if x.is_nan() || x <= 1.0 {
        return 1.0;
    }
    let mut decade = 1.0;
    loop {
        for m in [1.0, 2.0, 5.0] {
            if m * decade >= x {
                return m * decade;
            }
        }
        decade *= 10.0;
    }
}

/// A scale bar of a round length about a fifth of the view: its length in px and label.
pub(super) fn scale_bar(scale: f64, view: f64) -> (f64, String) {
    let target = view / 5.0 / scale;
    let mut length = 1e-3;
    for candidate in [
        1e-3, 2e-3, 5e-3, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0,
    ] {
        if candidate <= target {
            length = candidate;
        }
    }
    let label = if length < 1.0 {
        format!("{} cm", trim(length * 100.0))
    } else {
        format!("{} m", trim(length))
    };
    (length * scale, label)
}

/// A number without trailing zeros.
pub(super) fn trim(v: f64) -> String {
    trim_to(v, 3)
}

/// A number with at most `digits` decimals, without trailing zeros.
pub(super) fn trim_to(v: f64, digits: usize) -> String {
    let s = format!("{v:.digits$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

pub(super) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_factors() {
        assert_eq!(nice_at_least(0.3), 1.0);
        assert_eq!(nice_at_least(1.0), 1.0);
        assert_eq!(nice_at_least(1.5), 2.0);
        assert_eq!(nice_at_least(7.0), 10.0);
        assert_eq!(nice_at_least(101.0), 200.0);
    }

    #[test]
    fn numbers_are_written_short() {
        assert_eq!(trim_to(12.0, 1), "12");
        assert_eq!(trim_to(12.25, 1), "12.2");
        assert_eq!(trim_to(-0.01, 1), "0");
        assert_eq!(trim_to(0.5, 6), "0.5");
    }

    #[test]
    fn scale_bar_is_a_round_length() {
        let (px, label) = scale_bar(200.0, 600.0);
        assert_eq!(label, "50 cm");
        assert_eq!(px, 100.0);
    }
}

//! Placing diabolos on the taut string by their abscissas alone: one below the sticks
//! ([`taut_point_below`]), several in their lowest configuration, and the hanging starts
//! built from them ([`CartesianState::hanging`], [`CartesianState::hanging_lowest`]).
//!
//! With the diabolos held at abscissas x_1 < ... < x_N between still stick tips p_0 and
//! p_{N+1}, the heights are not determined by the string length alone. The rule that makes them
//! unique is the **lowest configuration**: the heights y_1..y_N that minimise the potential
//! energy m g sum y_i subject to sum_i |p_{i+1} - p_i| <= L. The objective is linear and the
//! constraint set convex (a sum of norms), strictly so in y because every segment has a
//! horizontal extent dx_i > 0: the minimiser is unique, and the string is taut there.
//!
//! **Equilibrium (KKT).** With the multiplier T (the string tension), stationarity in y_i reads
//! m g + T (s_{i-1} - s_i) = 0, where s_i = (y_{i+1} - y_i) / l_i is the sine of segment i's
//! slope: each diabolo is at rest under gravity and one common tension on both sides, the
//! horizontal balance being taken by the holding at x_i. So the sines grow linearly along the
//! string, s_i = s_0 + i u with u = m g / T in (0, 2 / N) (all |s_i| < 1), and
//! - the rise: sum_i dx_i tan(asin s_i) = y_{N+1} - y_0 fixes s_0 for each u (strictly increasing
//!   in s_0 from -inf to +inf on (-1, 1 - N u): one root, found by bisection);
//! - the length: Lambda(u) = sum_i dx_i / cos(asin s_i) = L fixes u.
//!
//! **Convergence.** Lambda(u) is the string length of the minimiser of the Lagrangian
//! m g sum y + T (sum l - L) at T = m g / u. For T_1 < T_2 the two optimality inequalities add to
//! (T_2 - T_1)(Lambda_2 - Lambda_1) <= 0, so Lambda decreases with T, i.e. grows with u; it tends
//! to the tips' distance D < L as u -> 0 (a straight string) and to infinity as u -> 2 / N (the
//! end segments turn vertical). Bisection on u therefore brackets the one root and converges
//! to round-off; a last Newton step on a common vertical shift of the diabolos puts the string
//! length at L to round-off. The sines are held as their distances to +-1 (1 + s_0 and
//! 1 - s_N, each bisected from whichever end it is near), so a nearly vertical end segment, a
//! diabolo a hair from a stick on a long string, keeps its cosine to full precision.

use std::cmp::Ordering;

use nalgebra::Vector2;
use thiserror::Error;

use super::params::Params;
use super::state::{Body, CartesianState, DiaboloState, StateError};

/// Halvings of a bracket (0, h], h <= 2: enough to reach adjacent doubles even for a root among
/// the subnormals (2^-1074); a root of size 2^-e takes about e + 53.
const BISECTIONS: usize = 1100;

/// Newton steps of the final common vertical shift (each doubles the digits; 4 reach round-off
/// from the bisection's result).
const LENGTH_POLISH_STEPS: usize = 4;

/// Why a set of abscissas cannot be placed on the taut string.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum PlacementError {
    /// The stick tips do not leave room between them.
    #[error("the left stick tip (x = {left}) must be to the left of the right one (x = {right}) to place diabolos between them by x")]
    SticksNotApart {
        /// The left tip's x, m.
        left: f64,
        /// The right tip's x, m.
        right: f64,
    },
    /// An abscissa not strictly between its neighbours (the previous diabolo or the left tip,
    /// the right tip).
    #[error("diabolo {index}: x = {x} is not strictly between {lower} and {upper}")]
    OutOfOrder {
        /// The diabolo, 0 for the leftmost.
        index: usize,
        /// Its abscissa, m.
        x: f64,
        /// The abscissa it must exceed (the left tip's or the previous diabolo's), m.
        lower: f64,
        /// The right tip's abscissa, m.
        upper: f64,
    },
    /// The string cannot reach from tip to tip.
    #[error("the sticks are {distance} m apart, not closer than the string length {length} m")]
    SticksTooFarApart {
        /// Distance between the tips, m.
        distance: f64,
        /// L, m.
        length: f64,
    },
}

/// The lowest configuration of the string between still tips `left` and `right` (length
/// `length`) with the diabolos held at `xs`: the positions of the diabolos, left to right.
/// The string is taut, each diabolo at rest under gravity and one common tension.
pub fn lowest_taut_positions(
    left: Vector2<f64>,
    right: Vector2<f64>,
    xs: &[f64],
    length: f64,
) -> Result<Vec<Vector2<f64>>, PlacementError> {
    let spans = horizontal_spans(left, right, xs)?;
    let distance = (right - left).norm();
    if distance.partial_cmp(&length) != Some(Ordering::Less) {
        return Err(PlacementError::SticksTooFarApart { distance, length });
    }
    let sines = equilibrium_sines(&spans, right.y - left.y, length);
    let mut y = left.y;
    let mut positions: Vec<Vector2<f64>> = xs
        .iter()
        .zip(&spans)
        .enumerate()
        .map(|(i, (&x, &dx))| {
            y += dx * sines.tangent(i);
            Vector2::new(x, y)
        })
        .collect();
    close_length(left, right, &mut positions, length);
    Ok(positions)
}

/// dx_0..dx_N, each > 0, or which abscissa is out of order.
fn horizontal_spans(
    left: Vector2<f64>,
    right: Vector2<f64>,
    xs: &[f64],
) -> Result<Vec<f64>, PlacementError> {
    if left.x.partial_cmp(&right.x) != Some(Ordering::Less) {
        return Err(PlacementError::SticksNotApart {
            left: left.x,
            right: right.x,
        });
    }
    let mut lower = left.x;
    for (index, &x) in xs.iter().enumerate() {
        if !(lower < x && x < right.x) {
            return Err(PlacementError::OutOfOrder {
                index,
                x,
                lower,
                upper: right.x,
            });
        }
        lower = x;
    }
    let edges: Vec<f64> = std::iter::once(left.x)
        .chain(xs.iter().copied())
        .chain(std::iter::once(right.x))
        .collect();
    Ok(edges.windows(2).map(|w| w[1] - w[0]).collect())
}

/// The segments' sines s_i = s_0 + i u, held as the distances to vertical, 1 + s_i = q + i u
/// and 1 - s_i = r + (N - i) u with q + r + N u = 2: sums of positive numbers, so that a
/// nearly vertical segment (cos s_i ~ 1e-9) keeps its cosine to full relative precision.
#[derive(Clone, Copy, Debug)]
struct Sines {
    /// 1 + s_0.
    q: f64,
    /// 1 - s_N.
    r: f64,
    /// The step u = m g / T.
    u: f64,
    /// N, the index of the last segment.
    last: usize,
}

impl Sines {
    /// (sin, cos) of segment i's slope.
    fn slope(&self, i: usize) -> (f64, f64) {
        let up = self.q + i as f64 * self.u;
        let down = self.r + (self.last - i) as f64 * self.u;
        (0.5 * (up - down), (up * down).sqrt())
    }

    /// tan of segment i's slope.
    fn tangent(&self, i: usize) -> f64 {
        let (sin, cos) = self.slope(i);
        sin / cos
    }

    /// Sum of the segments' rises dx_i tan s_i.
    fn total_rise(&self, spans: &[f64]) -> f64 {
        spans
            .iter()
            .enumerate()
            .map(|(i, dx)| dx * self.tangent(i))
            .sum()
    }

    /// Sum of the segments' lengths dx_i / cos s_i.
    fn string_length(&self, spans: &[f64]) -> f64 {
        spans
            .iter()
            .enumerate()
            .map(|(i, dx)| dx / self.slope(i).1)
            .sum()
    }
}

/// The sines of the lowest configuration: N u (with the free width w = 2 - N u) by the length
/// (increasing in u), and for each u, q (with r = w - q) by the rise (increasing in q).
fn equilibrium_sines(spans: &[f64], rise: f64, length: f64) -> Sines {
    let last = spans.len() - 1;
    let with_step = |steps: f64, width: f64| {
        let u = steps / last as f64;
        let (q, r) = split_root(width, |q, r| {
            Sines { q, r, u, last }.total_rise(spans) - rise
        });
        Sines { q, r, u, last }
    };
    let (steps, width) = split_root(2.0, |steps, width| {
        with_step(steps, width).string_length(spans) - length
    });
    with_step(steps, width)
}

/// The root of f(a, b) on a + b = `total`, a, b > 0, f increasing in a: the smaller part at
/// the root is bisected, the other taken as the rest, so that both keep full relative
/// precision however close the root is to either end.
fn split_root(total: f64, f: impl Fn(f64, f64) -> f64) -> (f64, f64) {
    let half = 0.5 * total;
    if f(half, total - half) > 0.0 {
        let a = bisect(0.0, half, |a| f(a, total - a));
        (a, total - a)
    } else {
        let b = bisect(0.0, total - half, |b| -f(total - b, b));
        (total - b, b)
    }
}

/// The root of `f`, non-decreasing on (lo, hi), negative near lo and positive near hi: the
/// bracket halved until it holds no double between its ends.
pub(crate) fn bisect(mut lo: f64, mut hi: f64, mut f: impl FnMut(f64) -> f64) -> f64 {
    for _ in 0..BISECTIONS {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Moves every diabolo vertically by one amount so that the string length is `length` to
/// round-off (Newton: d(sum l)/d(shift) = s_0 - s_N, the end segments' sines).
fn close_length(
    left: Vector2<f64>,
    right: Vector2<f64>,
    positions: &mut [Vector2<f64>],
    length: f64,
) {
    for _ in 0..LENGTH_POLISH_STEPS {
        let (first, last) = (positions[0], positions[positions.len() - 1]);
        let (start, end) = (first - left, right - last);
        let used = start.norm()
            + positions
                .windows(2)
                .map(|w| (w[1] - w[0]).norm())
                .sum::<f64>()
            + end.norm();
        let slope = start.y / start.norm() - end.y / end.norm();
        let shift = (length - used) / slope;
        if !shift.is_finite() || shift == 0.0 {
            return;
        }
        for p in positions.iter_mut() {
            p.y += shift;
        }
    }
}

/// The diabolos hanging at rest on the taut string below two still sticks.
impl CartesianState {
    /// One diabolo at rest on the taut string below two still sticks, at horizontal position `x`
    /// (the lower branch of the ellipse whose foci are the stick tips), with spin `spin` (m/s).
    pub fn hanging(
        params: &Params,
        left: [f64; 2],
        right: [f64; 2],
        x: f64,
        spin: f64,
    ) -> Result<Self, StateError> {
        let pos = taut_point_below(left.into(), right.into(), x, params.string_length)?;
        Ok(Self {
            left: Body {
                pos: left.into(),
                vel: Vector2::zeros(),
            },
            right: Body {
                pos: right.into(),
                vel: Vector2::zeros(),
            },
            diabolos: vec![DiaboloState {
                pos,
                vel: Vector2::zeros(),
                spin,
                knot: 0,
            }],
        })
    }

    /// Diabolos at rest at abscissas `xs` (left to right, strictly between the stick tips' x) on
    /// the taut string below two still sticks, in the lowest configuration (least potential
    /// energy, see [`lowest_taut_positions`]), each spinning at `spin` (m/s).
    pub fn hanging_lowest(
        params: &Params,
        left: [f64; 2],
        right: [f64; 2],
        xs: &[f64],
        spin: f64,
    ) -> Result<Self, PlacementError> {
        let still = |p: [f64; 2]| Body {
            pos: p.into(),
            vel: Vector2::zeros(),
        };
        let positions = lowest_taut_positions(left.into(), right.into(), xs, params.string_length)?;
        Ok(Self {
            left: still(left),
            right: still(right),
            diabolos: positions
                .into_iter()
                .map(|pos| DiaboloState {
                    pos,
                    vel: Vector2::zeros(),
                    spin,
                    knot: 0,
                })
                .collect(),
        })
    }
}

/// The point at horizontal position `x` below the sticks where a single diabolo sits on a taut
/// string of length `length`: |p - a| + |p - b| = length, p.y below both tips.
pub fn taut_point_below(
    a: Vector2<f64>,
    b: Vector2<f64>,
    x: f64,
    length: f64,
) -> Result<Vector2<f64>, StateError> {
    let distance = (b - a).norm();
    if distance >= length {
        return Err(StateError::SticksTooFarApart { distance, length });
    }
    let used = |y: f64| {
        let p = Vector2::new(x, y);
        (p - a).norm() + (p - b).norm()
    };
    let mut high = a.y.min(b.y);
    if used(high) > length {
        return Err(StateError::OffString { x, length });
    }
    let mut low = high - length;
    // used() decreases monotonically as y rises toward the tips: bisect to round-off.
    for _ in 0..200 {
        let mid = 0.5 * (low + high);
        if mid == low || mid == high {
            break;
        }
        if used(mid) > length {
            low = mid;
        } else {
            high = mid;
        }
    }
    Ok(Vector2::new(x, 0.5 * (low + high)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_order_abscissas_name_the_diabolo() {
        let (a, b) = (Vector2::new(-0.5, 0.0), Vector2::new(0.5, 0.0));
        let e = lowest_taut_positions(a, b, &[-0.1, -0.2], 1.2).unwrap_err();
        assert!(
            matches!(e, PlacementError::OutOfOrder { index: 1, .. }),
            "{e}"
        );
        let e = lowest_taut_positions(a, b, &[-0.6, 0.2], 1.2).unwrap_err();
        assert!(
            matches!(e, PlacementError::OutOfOrder { index: 0, .. }),
            "{e}"
        );
        let e = lowest_taut_positions(a, b, &[0.1, 0.5], 1.2).unwrap_err();
        assert!(
            matches!(e, PlacementError::OutOfOrder { index: 1, .. }),
            "{e}"
        );
    }

    #[test]
    fn sticks_too_far_apart_or_crossed_are_refused() {
        let (a, b) = (Vector2::new(-0.5, 0.0), Vector2::new(0.5, 0.0));
        assert!(matches!(
            lowest_taut_positions(a, b, &[0.0, 0.1], 1.0),
            Err(PlacementError::SticksTooFarApart { .. })
        ));
        assert!(matches!(
            lowest_taut_positions(b, a, &[0.0, 0.1], 1.5),
            Err(PlacementError::SticksNotApart { .. })
        ));
    }
}

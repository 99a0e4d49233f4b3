//! Trajectories in space (issue 33) as pictures: the views (front, from above, from the side),
//! the z and axle columns a 3D trajectory has, and the drawn diabolo (its disc seen at a slant,
//! its axle as a segment).
//!
//! A trajectory is in space when it has a `left_z`, `right_z` or `dK_z` column; it then needs
//! `left_z`, `right_z` and, per diabolo, `dK_z` and the axle's unit direction `dK_ax, dK_ay,
//! dK_az` (a missing one is an error naming it). Axes: x right in the hands' plane, y up, z
//! toward the audience. A view maps a point (x, y, z) to the picture's (across, up):
//!
//! - front (x-y), seen by the audience: (x, y), the planar picture;
//! - from above (x-z): (x, -z), so that z grows toward the bottom of the picture, toward the
//!   audience (the audience sits below the view); a turn (counter-clockwise seen from above, see
//!   `model::axle_angles`) turns the axle counter-clockwise in this view;
//! - from the side (z-y), seen from the left end of the hands' line (from -x): (z, y), the
//!   audience to the right.
//!
//! The CSV holds no size: the axle is drawn [`AXLE_DRAWN`] long, centred on the diabolo, and
//! the disc is the circle of the drawn radius perpendicular to the axle through the centre.

use nalgebra::Vector3;

use super::{Columns, PlotError};
use crate::display::echoed;

/// The drawn length of an axle segment, m (a 127 mm diabolo is about 12 cm wide): the CSV has
/// no size.
pub const AXLE_DRAWN: f64 = 0.12;

/// A view of a trajectory in space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// x-y, as the audience sees it (the planar picture).
    Front,
    /// x-z from above, z (toward the audience) down the picture.
    Top,
    /// z-y from the left (from -x), z (toward the audience) to the right.
    Side,
}

impl View {
    /// Every view, in the order of their names.
    pub const ALL: [View; 3] = [View::Front, View::Top, View::Side];

    /// The view's name on the command line (`front`, `top`, `side`).
    pub fn name(self) -> &'static str {
        match self {
            View::Front => "front",
            View::Top => "top",
            View::Side => "side",
        }
    }

    /// The view named `name` (`front`, `top`, `side`).
    pub fn from_name(name: &str) -> Result<View, PlotError> {
        Self::ALL
            .into_iter()
            .find(|v| v.name() == name.trim())
            .ok_or_else(|| {
                PlotError::Options(format!(
                    "--view {}: the views are front (x-y), top (x-z, from above) and side \
                     (z-y, from the left); give one or more, separated by commas",
                    echoed(name)
                ))
            })
    }

    /// The point `p` (x, y, z) as (across, up) in this view.
    pub fn project(self, p: [f64; 3]) -> (f64, f64) {
        match self {
            View::Front => (p[0], p[1]),
            View::Top => (p[0], -p[2]),
            View::Side => (p[2], p[1]),
        }
    }

    /// The labels of the across and up axes (the top view's up axis shows z, the negative of
    /// its coordinate).
    pub fn axis_labels(self) -> (&'static str, &'static str) {
        match self {
            View::Front => ("x (m)", "y (m)"),
            View::Top => ("x (m)", "z (m): down = toward the audience"),
            View::Side => ("z (m): right = toward the audience", "y (m)"),
        }
    }

    /// The view's caption.
    pub fn caption(self) -> &'static str {
        match self {
            View::Front => "front (x-y)",
            View::Top => "from above (x-z)",
            View::Side => "from the left (z-y)",
        }
    }

    /// Whether the up axis shows the negative of the view's coordinate (the top view's z).
    pub(crate) fn up_is_negated(self) -> bool {
        self == View::Top
    }
}

/// The views to draw: `requested`, or by default the front view, and for a trajectory in space
/// (`spatial`) the front view and the view from above side by side. A planar trajectory has
/// only the front view; each view is drawn once.
pub fn views_to_draw(requested: &[View], spatial: bool) -> Result<Vec<View>, PlotError> {
    let names = || {
        requested
            .iter()
            .map(|v| v.name())
            .collect::<Vec<_>>()
            .join(",")
    };
    if requested.is_empty() {
        return Ok(if spatial {
            vec![View::Front, View::Top]
        } else {
            vec![View::Front]
        });
    }
    if !spatial && requested.iter().any(|&v| v != View::Front) {
        return Err(PlotError::Options(format!(
            "--view {}: the trajectory is planar (it has no z columns: left_z, d1_z, ...), so it \
             has only the front view; the top and side views are for a trajectory in space",
            names()
        )));
    }
    for (i, v) in requested.iter().enumerate() {
        if requested[..i].contains(v) {
            return Err(PlotError::Options(format!(
                "--view {}: the view {} is named twice; name each view once",
                names(),
                v.name()
            )));
        }
    }
    Ok(requested.to_vec())
}

/// The columns of a trajectory in space beyond the planar ones: the z of every object (left
/// stick, diabolos, right stick) and each diabolo's axle direction.
pub(super) struct Space<'a> {
    /// z of the left stick, the diabolos, the right stick.
    pub z: Vec<&'a [f64]>,
    /// Each diabolo's axle direction (ax, ay, az).
    pub axles: Vec<[&'a [f64]; 3]>,
}

impl<'a> Space<'a> {
    /// The space columns of `columns`, `None` for a planar trajectory (no z column at all).
    pub fn read(columns: &Columns<'a>) -> Result<Option<Self>, PlotError> {
        let n = columns.diabolos;
        let mut objects = vec!["left".to_string()];
        objects.extend((1..=n).map(|k| format!("d{k}")));
        objects.push("right".into());
        let Some(found) = objects
            .iter()
            .map(|o| format!("{o}_z"))
            .find(|name| columns.get(name).is_some())
        else {
            return Ok(None);
        };
        let require = |name: String, what: &str| {
            columns.get(&name).ok_or_else(|| {
                PlotError::Options(format!(
                    "the trajectory is in space (it has the column {found}) but has no column \
                     {name} ({what}); a trajectory in space has left_z, right_z and, for each \
                     diabolo K, dK_z and the axle's direction dK_ax, dK_ay, dK_az"
                ))
            })
        };
        let z = objects
            .iter()
            .map(|o| require(format!("{o}_z"), "the depth, toward the audience"))
            .collect::<Result<Vec<_>, _>>()?;
        let axles = (1..=n)
            .map(|k| {
                let axle = |c: &str| require(format!("d{k}_a{c}"), "the axle's direction");
                Ok([axle("x")?, axle("y")?, axle("z")?])
            })
            .collect::<Result<Vec<_>, PlotError>>()?;
        Ok(Some(Self { z, axles }))
    }

    /// Diabolo `k`'s (1..N) axle direction at `row`, of unit length; `None` when it is not a
    /// finite non-zero vector.
    pub fn axle(&self, k: usize, row: usize) -> Option<Vector3<f64>> {
        let [ax, ay, az] = self.axles[k - 1];
        unit(Vector3::new(ax[row], ay[row], az[row]))
    }
}

/// `a` normalised, `None` unless finite and non-zero.
pub(crate) fn unit(a: Vector3<f64>) -> Option<Vector3<f64>> {
    let norm = a.norm();
    (norm.is_finite() && norm > 1e-12).then(|| a / norm)
}

/// Two unit vectors (u, w) spanning the disc perpendicular to the unit axle `a`, with (u, w, a)
/// right-handed: for the planar axle (0, 0, 1), u = x (right) and w = y (up).
pub(crate) fn disc_basis(a: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    let u = unit(Vector3::y().cross(a)).unwrap_or_else(Vector3::x);
    (u, a.cross(&u))
}

/// The rim of the disc of `radius` about the unit axle `a`, as `points` offsets (across, up)
/// from the centre in `view`.
pub(crate) fn disc_outline(
    a: &Vector3<f64>,
    radius: f64,
    view: View,
    points: usize,
) -> Vec<(f64, f64)> {
    let (u, w) = disc_basis(a);
    (0..points)
        .map(|i| {
            let phi = std::f64::consts::TAU * i as f64 / points as f64;
            let p = radius * (phi.cos() * u + phi.sin() * w);
            view.project([p.x, p.y, p.z])
        })
        .collect()
}

/// The ends of the axle segment ([`AXLE_DRAWN`] long, centred) as offsets (across, up) from the
/// centre in `view`, `length` the drawn length in the view's units.
pub(crate) fn axle_ends(a: &Vector3<f64>, length: f64, view: View) -> [(f64, f64); 2] {
    let h = 0.5 * length * a;
    let (x, y) = view.project([h.x, h.y, h.z]);
    [(-x, -y), (x, y)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_project_with_z_toward_the_audience_down_and_right() {
        let p = [1.0, 2.0, 3.0];
        assert_eq!(View::Front.project(p), (1.0, 2.0));
        assert_eq!(View::Top.project(p), (1.0, -3.0));
        assert_eq!(View::Side.project(p), (3.0, 2.0));
        assert_eq!(View::from_name(" top").unwrap(), View::Top);
        assert!(View::from_name("back").is_err());
    }

    #[test]
    fn default_views_and_refusals() {
        assert_eq!(views_to_draw(&[], false).unwrap(), vec![View::Front]);
        assert_eq!(
            views_to_draw(&[], true).unwrap(),
            vec![View::Front, View::Top]
        );
        assert!(views_to_draw(&[View::Top], false).is_err());
        assert!(views_to_draw(&[View::Top, View::Top], true).is_err());
        assert_eq!(
            views_to_draw(&[View::Side], true).unwrap(),
            vec![View::Side]
        );
    }

    #[test]
    fn the_planar_axle_shows_a_circle_in_front_and_a_line_from_above() {
        let a = Vector3::z();
        let (u, w) = disc_basis(&a);
        assert_eq!((u, w), (Vector3::x(), Vector3::y()));
        for (x, y) in disc_outline(&a, 1.0, View::Front, 12) {
            assert!((x.hypot(y) - 1.0).abs() < 1e-12);
        }
        for (_, z) in disc_outline(&a, 1.0, View::Top, 12) {
            assert!(z.abs() < 1e-12);
        }
        // The near end of the axle is toward the bottom of the view from above.
        assert_eq!(axle_ends(&a, 2.0, View::Top), [(0.0, 1.0), (0.0, -1.0)]);
        // A vertical axle has a disc too.
        let (u, w) = disc_basis(&Vector3::y());
        assert!((u.dot(&w)).abs() < 1e-12 && (u.norm() - 1.0).abs() < 1e-12);
    }
}

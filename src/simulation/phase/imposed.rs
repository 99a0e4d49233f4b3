//! Path-driven sticks imposed on the phase states instead of integrated.
//!
//! A stick on a path moves exactly as its path says. Its state components are still carried in
//! the phase state (the taut phase's reduced coordinates start at the left stick and end at the
//! right one), but they are not integrated to the tolerance:
//!
//! - they are left out of the stepper's error norm, so that a still hand (velocity 0, an error
//!   scale of atol alone) does not set the step size, and rtol alone sets the cost;
//! - after every accepted step the state is put back on the paths: in the taut phase the left
//!   stick's position and velocity are written from its path (as the step arrives: at a
//!   linear path's keyframe the velocity from before it, the jump then taken by the run with
//!   its work and its tensing, not as a silent move of the diabolos along the string), and a path-driven right stick
//!   (the end of the chain of segments) is put on its path by moving the diabolos along the
//!   gradient of the string length (the smallest move that keeps the string at length L and
//!   not stretching), then the reduced coordinates are written anew. The move is the drift of
//!   one step, of the order of the local error.
//!
//! The loose phase reads a path stick from its path wherever it needs it, so its integrated copy
//! is never read and only leaves the error norm.

use nalgebra::Vector2;
use std::f64::consts::TAU;

use crate::model::{
    close_onto_string_with, geometry::wrap_angle, Body, CartesianState, DiaboloState, Kinematics,
    ReducedLayout,
};

use crate::simulation::drive::{Drive, Path, PathPoint, Side};

/// The path of each stick that follows one (left, right).
pub fn paths(drives: &[Drive; 2]) -> [Option<&Path>; 2] {
    drives.each_ref().map(|d| match d {
        Drive::Path(path) => Some(path),
        _ => None,
    })
}

/// The path's point at t as a step that ends at t meets it: its position, and its velocity
/// from before t (where a linear path's velocity jumps at a keyframe; elsewhere the same).
fn arriving(path: &Path, t: f64) -> PathPoint {
    let mut p = path.at(t);
    if let Path::Linear(_) = path {
        p.vel = path.at_side(t, Side::Before).vel;
    }
    p
}

/// Puts `body` on its stick's path at t if the stick follows one.
pub fn pin(drive: &Drive, t: f64, body: &mut Body) {
    pin_with(drive, body, |path| path.at(t));
}

/// Puts `body` on its stick's path at the point `point` reads, if the stick follows one.
fn pin_with(drive: &Drive, body: &mut Body, point: impl Fn(&Path) -> PathPoint) {
    if let Drive::Path(path) = drive {
        let p = point(path);
        body.pos = p.pos;
        body.vel = p.vel;
    }
}

/// The taut state's components that path-driven sticks impose: x_0 and u_0 for the left stick,
/// u_{N+1}^alpha (and u_{N+1}^beta with a compliant string) for the right one.
pub fn taut_components(layout: &ReducedLayout, drives: &[Drive; 2]) -> Vec<usize> {
    let [left, right] = paths(drives);
    let mut components = Vec::new();
    if left.is_some() {
        components.extend([0, 1, layout.u_alpha(0), layout.u_beta(0)]);
    }
    if right.is_some() && !layout.is_elastic() {
        components.push(layout.u_alpha_right());
    }
    components
}

/// The loose state's components that path-driven sticks impose: the stick's position and
/// velocity (4k..4k + 4 for object k).
pub fn loose_components(diabolos: usize, drives: &[Drive; 2]) -> Vec<usize> {
    let objects = [0, diabolos + 1];
    paths(drives)
        .iter()
        .zip(objects)
        .filter(|(path, _)| path.is_some())
        .flat_map(|(_, k)| 4 * k..4 * k + 4)
        .collect()
}

/// Workspace that puts a taut state back on its sticks' paths (allocation-free after the
/// first use).
#[derive(Clone, Debug)]
pub struct TautPaths {
    kin: Kinematics,
    state: CartesianState,
    gradient: Vec<Vector2<f64>>,
}

impl TautPaths {
    /// The workspace for N diabolos.
    pub fn new(n: usize) -> Self {
        Self {
            kin: Kinematics::new(n),
            state: CartesianState {
                diabolos: vec![DiaboloState::default(); n],
                ..CartesianState::default()
            },
            gradient: Vec::with_capacity(n),
        }
    }

    /// Puts the reduced state `x` (the layout's length) on the sticks' paths at t; false when
    /// no stick follows a path, or the string is straight or collapsed (no move along the
    /// string closes it: `x` is then left as it was).
    pub fn impose(
        &mut self,
        layout: &ReducedLayout,
        string_length: f64,
        drives: &[Drive; 2],
        t: f64,
        x: &mut [f64],
    ) -> bool {
        match paths(drives) {
            [None, None] => false,
            [Some(left), None] => {
                // The chain starts at the left stick: its own coordinates, in the frame phi_0.
                let p = arriving(left, t);
                let (sin, cos) = x[layout.phi0()].sin_cos();
                x[0] = p.pos.x;
                x[1] = p.pos.y;
                x[layout.u_alpha(0)] = p.vel.x * cos + p.vel.y * sin;
                x[layout.u_beta(0)] = -p.vel.x * sin + p.vel.y * cos;
                true
            }
            [_, Some(_)] => self.impose_chain(layout, string_length, drives, t, x),
        }
    }

    /// Loads the corrected Cartesian state with each theta_i on the branch of its value in `x`:
    /// at a fold (theta_i a multiple of 2 pi) the drift can carry the string's turn across
    /// +-pi, and the knot degree of the old theta would then put theta_i a whole turn away,
    /// its frame (psi_i = (theta_i - pi) / 2) flipped.
    fn load_near(&mut self, layout: &ReducedLayout, x: &[f64]) -> bool {
        if self.kin.load_cartesian(&self.state).is_err() {
            return false;
        }
        let mut shifted = false;
        for (i, d) in (1..=layout.diabolos()).zip(self.state.diabolos.iter_mut()) {
            let turns = ((x[layout.theta(i)] - self.kin.objects()[i].theta) / TAU).round();
            if turns != 0.0 {
                d.knot += turns as i32;
                shifted = true;
            }
        }
        !shifted || self.kin.load_cartesian(&self.state).is_ok()
    }

    /// A path-driven right stick: through the Cartesian state, closing the string again.
    fn impose_chain(
        &mut self,
        layout: &ReducedLayout,
        string_length: f64,
        drives: &[Drive; 2],
        t: f64,
        x: &mut [f64],
    ) -> bool {
        self.kin.load_reduced(layout, x, string_length);
        let left = Vector2::new(x[0], x[1]);
        self.kin
            .write_cartesian(left, |i| x[layout.spin(i)], &mut self.state);
        pin_with(&drives[0], &mut self.state.left, |path| arriving(path, t));
        pin_with(&drives[1], &mut self.state.right, |path| arriving(path, t));
        let closed = layout.is_elastic()
            || close_onto_string_with(&mut self.state, string_length, &mut self.gradient);
        if !closed || !self.load_near(layout, x) {
            return false;
        }
        let phi0 = x[layout.phi0()];
        layout.write(&self.kin, &self.state, x);
        // phi_0 is written in [0, 2 pi): keep it on its old branch (the frames are the same).
        x[layout.phi0()] = phi0 + wrap_angle(x[layout.phi0()] - phi0);
        true
    }
}

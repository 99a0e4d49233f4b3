//! What the planar start (`initial`) and the start in space (`space`) share, in `D` dimensions:
//! the sticks from their paths or `initial`, the sticks within the string's reach, at least one
//! diabolo, the diabolos listed left to right, the string within reach of them, and the string
//! put exactly taut.

use nalgebra::SVector;

use crate::display::Compact;
use crate::model::Body;
use crate::simulation::drive::Drive;

use super::checks::{invalid, show, SIDES};
use super::drive::lifted;
use crate::scenario::error::ScenarioError;
use crate::scenario::spec::{BodySpec, Scenario};

/// A path stick's `initial` entry must agree with its path at t = 0 to this (m, m/s).
pub const PATH_AGREEMENT: f64 = 1e-9;

impl Scenario {
    /// The sticks' starts (from their drives' paths or `initial`), checked to be within the
    /// string's reach (`compliant`: twice its `length`), and at least one diabolo.
    pub(super) fn start_sticks<const D: usize>(
        &self,
        drives: &[Drive<D>; 2],
        length: f64,
        compliant: bool,
    ) -> Result<[Body<D>; 2], ScenarioError> {
        let sticks = [
            stick(self.initial.left.as_ref(), &drives[0], SIDES[0])?,
            stick(self.initial.right.as_ref(), &drives[1], SIDES[1])?,
        ];
        check_sticks_apart(
            [&sticks[0].pos, &sticks[1].pos],
            (self.initial.right.as_ref(), &drives[1]),
            length,
            compliant,
        )?;
        if self.initial.diabolos.is_empty() {
            return Err(invalid(
                "initial.diabolos",
                "[]",
                "a scenario needs at least one diabolo",
                "add one, e.g. {\"x\": 0.0}",
            ));
        }
        Ok(sticks)
    }
}

/// A position as the scenario's fixes write it: `[x, y]` or `[x, y, z]`.
fn coordinates(dimensions: usize) -> &'static str {
    if dimensions == 3 {
        "[x, y, z]"
    } else {
        "[x, y]"
    }
}

/// The stick's start: from its path when it follows one, else from `initial`.
fn stick<const D: usize>(
    given: Option<&BodySpec>,
    drive: &Drive<D>,
    side: &str,
) -> Result<Body<D>, ScenarioError> {
    let given = given
        .map(|b| -> Result<Body<D>, ScenarioError> {
            let body = Body {
                pos: lifted::<D, 2>(&b.pos, 0),
                vel: lifted::<D, 2>(&b.vel, 0),
            };
            if !body
                .pos
                .iter()
                .chain(body.vel.iter())
                .all(|v| v.is_finite())
            {
                return Err(invalid(
                    format!("initial.{side}"),
                    show(body.pos),
                    "not finite",
                    "give finite numbers",
                ));
            }
            Ok(body)
        })
        .transpose()?;
    match (drive, given) {
        (Drive::Path(path), Some(body)) => {
            let start = path.at(0.0);
            for (what, ours, theirs) in [("pos", body.pos, start.pos), ("vel", body.vel, start.vel)] {
                if (ours - theirs).norm() > PATH_AGREEMENT {
                    return Err(invalid(
                        format!("initial.{side}.{what}"),
                        show(ours),
                        format!("the {side} stick follows a path, which at t = 0 has {what} {}", show(theirs)),
                        format!("omit initial.{side} (a path stick starts on its path) or set {what} to {}", show(theirs)),
                    ));
                }
            }
            Ok(body)
        }
        (Drive::Path(path) | Drive::Tracking(path, _), None) => {
            let start = path.at(0.0);
            Ok(Body {
                pos: start.pos,
                vel: start.vel,
            })
        }
        (_, Some(body)) => Ok(body),
        (_, None) => Err(invalid(
            format!("initial.{side}"),
            "missing",
            format!("the {side} stick needs a start position"),
            format!(
                "add \"{side}\": {{\"pos\": {}}} to initial, or drive the {side} stick along a path",
                coordinates(D)
            ),
        )),
    }
}

/// The sticks must be closer than the string reaches: its length, or twice it for a compliant
/// string (100 % strain). `right` is the right stick's start as given (`initial.right`, else its
/// drive's path at t = 0), named where it was given.
fn check_sticks_apart<const D: usize>(
    sticks: [&SVector<f64, D>; 2],
    right: (Option<&BodySpec>, &Drive<D>),
    length: f64,
    compliant: bool,
) -> Result<(), ScenarioError> {
    let distance = (sticks[1] - sticks[0]).norm();
    let reach = if compliant { 2.0 * length } else { length };
    if distance < reach {
        return Ok(());
    }
    // Name where the right stick's start was given: its `initial` entry, or its path.
    let at = match right {
        (None, Drive::Path(_) | Drive::Tracking(..)) => "drive.right (its path at t = 0)",
        _ => "initial.right.pos",
    };
    Err(invalid(
        at,
        show(*sticks[1]),
        if compliant {
            format!(
                "the sticks are {} m apart: a compliant string of length {} m would be stretched by more than 100 %",
                Compact(distance),
                Compact(length)
            )
        } else {
            format!(
                "the sticks are {} m apart, not closer than the string length {} m",
                Compact(distance),
                Compact(length)
            )
        },
        "bring the sticks closer together or lengthen params.string_length",
    ))
}

/// The diabolos on the string are listed left to right: `placed(i)` is the i-th one's index
/// in the scenario's list and its centre, for i < `count`.
pub(super) fn check_left_to_right<const D: usize>(
    count: usize,
    placed: impl Fn(usize) -> (usize, SVector<f64, D>),
) -> Result<(), ScenarioError> {
    for i in 1..count {
        let (a, (k, pos)) = (placed(i - 1).1[0], placed(i));
        let b = pos[0];
        if b < a {
            return Err(invalid(
                format!("initial.diabolos[{k}].pos"),
                show(pos),
                format!(
                    "diabolos on the string are listed left to right: x = {} comes after x = {}",
                    Compact(b),
                    Compact(a)
                ),
                "list the diabolos in the order they sit on the string, left to right",
            ));
        }
    }
    Ok(())
}

/// Diabolos whose segments `used` m take more than the string's `length`: off the string.
/// A compliant string's start stretched by more than its length (100 % strain) is refused.
pub(super) fn check_strain(used: f64, length: f64) -> Result<(), ScenarioError> {
    let excess = used - length;
    if excess > length {
        return Err(invalid(
            "initial.diabolos",
            format!("sum l = {} m", Compact(used)),
            format!("the diabolos stretch the compliant string by {} m, more than its length L = {} m (100 % strain)", Compact(excess), Compact(length)),
            "move the diabolos closer to the sticks",
        ));
    }
    Ok(())
}

pub(super) fn off_string(used: f64, length: f64, fix: &str) -> ScenarioError {
    invalid(
        "initial.diabolos",
        format!("sum l = {} m", Compact(used)),
        format!(
            "the diabolos are off the string: reaching them takes {} m more string than L = {} m",
            Compact(used - length),
            Compact(length)
        ),
        fix,
    )
}

/// Moves every diabolo vertically by one amount (`lift`) so that the string used (`used`) is
/// its `length` exactly (Newton).
pub(super) fn snap_taut<S>(
    state: &mut S,
    length: f64,
    used: impl Fn(&S) -> f64,
    lift: impl Fn(&mut S, f64),
) {
    for _ in 0..50 {
        let excess = used(state) - length;
        if excess.abs() <= 1e-14 * length {
            return;
        }
        let h = 1e-7;
        lift(state, h);
        let slope = (used(state) - length - excess) / h;
        lift(state, -h);
        if slope == 0.0 || !slope.is_finite() {
            return;
        }
        lift(state, -excess / slope);
    }
}

//! The initial state: the sticks from their paths or `initial`, the diabolos on the string
//! placed (by "x" or "pos") and checked to hang in it.

use nalgebra::Vector2;

use crate::display::{compact, Compact};
use crate::model::placement;
use crate::model::{
    lowest_taut_positions, taut_point_below, Body, CartesianState, DiaboloState, Kinematics,
    Params, PlacementError, StateError,
};
use crate::simulation::drive::Drive;

use super::checks::{invalid, show, vector};
use super::flying::{check_flying_starts, flying_diabolo};
use super::start::{check_left_to_right, check_strain, off_string, snap_taut};
use crate::scenario::error::ScenarioError;
use crate::scenario::spec::{DiaboloSpec, Scenario, StartMode};

/// A start whose string is within this of taut (m) is put exactly on the taut string, by
/// moving every diabolo vertically by the same amount.
pub const TAUT_SNAP_TOLERANCE: f64 = 1e-4;

impl Scenario {
    /// The initial state: the sticks, the diabolos on the string placed and checked, the flying
    /// ones as given, in index order.
    pub(super) fn build_initial(
        &self,
        params: &Params,
        drives: &[Drive; 2],
    ) -> Result<CartesianState, ScenarioError> {
        let length = params.string_length;
        // A compliant string may start stretched, up to twice its length (100 % strain).
        let compliant = params.string_stiffness.is_some();
        let sticks = self.start_sticks(drives, length, compliant)?;
        let diabolos = &self.initial.diabolos;
        // The diabolos on the string, with their index in the list.
        let on_string: Vec<(usize, &DiaboloSpec)> = diabolos
            .iter()
            .enumerate()
            .filter(|(_, d)| d.mode.is_string())
            .collect();
        let string_specs: Vec<DiaboloSpec> = on_string.iter().map(|(_, d)| (*d).clone()).collect();
        let lowest = lowest_placement(&string_specs, &sticks, length)?;
        let mut state = CartesianState {
            left: sticks[0],
            right: sticks[1],
            diabolos: on_string
                .iter()
                .enumerate()
                .map(|(i, &(k, d))| diabolo(d, k, lowest.as_ref().map(|p| p[i]), &sticks, length))
                .collect::<Result<_, _>>()?,
        };
        check_left_to_right(state.diabolos.len(), |i| {
            (on_string[i].0, state.diabolos[i].pos)
        })?;
        let excess = state.string_used() - length;
        if compliant {
            check_strain(state.string_used(), length)?;
        }
        if !compliant && excess > TAUT_SNAP_TOLERANCE {
            return Err(off_string(
                state.string_used(),
                length,
                "move the diabolos within reach of the string (sum of the segment lengths at most L), give the diabolos by \"x\", or give the string a params.string_stiffness",
            ));
        }
        if !compliant && excess.abs() <= TAUT_SNAP_TOLERANCE && !state.diabolos.is_empty() {
            snap_taut(
                &mut state,
                length,
                CartesianState::string_used,
                |state, dy| {
                    for d in &mut state.diabolos {
                        d.pos.y += dy;
                    }
                },
            );
        }
        let by_x = !string_specs.is_empty() && string_specs.iter().all(|d| d.x.is_some());
        if compliant && by_x {
            hang_stretched(&mut state, params);
        }
        check_below_string(&state, &on_string)?;
        // Every diabolo in index order: the on-string ones placed, the flying ones as given.
        let mut string_placed = state.diabolos.into_iter();
        let all = diabolos
            .iter()
            .enumerate()
            .map(|(k, d)| match d.mode {
                StartMode::String => Ok(string_placed.next().expect("one per on-string entry")),
                StartMode::Flying => flying_diabolo(d, k),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let full = CartesianState {
            left: state.left,
            right: state.right,
            diabolos: all,
        };
        let modes = self.start_modes();
        check_flying_starts(params, &full, &modes, self.sim.floor)?;
        Ok(full)
    }
}

/// Several diabolos all given by "x": their lowest taut configuration (None for a single
/// diabolo, placed by [`taut_point_below`], or for diabolos given by "pos"). A mix of "x" and
/// "pos" is refused.
fn lowest_placement(
    diabolos: &[DiaboloSpec],
    sticks: &[Body; 2],
    length: f64,
) -> Result<Option<Vec<Vector2<f64>>>, ScenarioError> {
    if diabolos.len() < 2 {
        return Ok(None);
    }
    let by_x = diabolos
        .iter()
        .position(|d| d.x.is_some() && d.pos.is_none());
    let by_pos = diabolos
        .iter()
        .position(|d| d.pos.is_some() && d.x.is_none());
    match (by_x, by_pos) {
        (Some(k), Some(j)) => Err(mixed_placement(diabolos, k, j)),
        (Some(_), None) if diabolos.iter().all(|d| d.x.is_some() && d.pos.is_none()) => {
            let xs: Vec<f64> = diabolos.iter().filter_map(|d| d.x).collect();
            lowest_taut_positions(sticks[0].pos, sticks[1].pos, &xs, length)
                .map(Some)
                .map_err(placement_error)
        }
        // None placed by x, or one with both or neither (reported with that diabolo).
        _ => Ok(None),
    }
}

/// Diabolo `k` placed by "x" and diabolo `j` by "pos": refused at `k`'s x.
fn mixed_placement(diabolos: &[DiaboloSpec], k: usize, j: usize) -> ScenarioError {
    invalid(
        format!("initial.diabolos[{k}].x"),
        compact(diabolos[k].x.unwrap_or_default()),
        format!(
            "diabolo {k} is placed by x and diabolo {j} by pos: several diabolos are placed all by \"x\" (together, on the taut string) or all by \"pos\""
        ),
        "give every diabolo an \"x\" (the lowest taut string through those abscissas) or every diabolo its \"pos\": [x, y]",
    )
}

/// A placement by "x" that cannot be made, named by the diabolo or the stick at fault.
fn placement_error(e: PlacementError) -> ScenarioError {
    match e {
        PlacementError::OutOfOrder { index, x, lower, upper } => invalid(
            format!("initial.diabolos[{index}].x"),
            compact(x),
            format!(
                "several diabolos placed by x sit strictly between the stick tips, left to right: this x must lie strictly between {} and {}",
                Compact(lower),
                Compact(upper)
            ),
            "list the diabolos left to right with increasing x, all strictly between the sticks' x",
        ),
        PlacementError::SticksNotApart { left, right } => invalid(
            "initial.right.pos",
            compact(right),
            format!(
                "several diabolos placed by x need the right stick tip to the right of the left one (x = {})",
                Compact(left)
            ),
            "put the right stick to the right of the left one, or give each diabolo its \"pos\"",
        ),
        PlacementError::SticksTooFarApart { distance, length } => invalid(
            "initial.right.pos",
            compact(distance),
            format!(
                "the sticks are {} m apart, not closer than the string length {} m",
                Compact(distance),
                Compact(length)
            ),
            "bring the sticks closer together or lengthen params.string_length",
        ),
    }
}

fn diabolo(
    spec: &DiaboloSpec,
    k: usize,
    placed: Option<Vector2<f64>>,
    sticks: &[Body; 2],
    length: f64,
) -> Result<DiaboloState, ScenarioError> {
    let at = format!("initial.diabolos[{k}]");
    let pos = match (spec.pos, spec.x, placed) {
        (Some(p), None, _) => vector(p.plane()),
        (None, Some(_), Some(p)) => p,
        (None, Some(x), None) => taut_point_below(sticks[0].pos, sticks[1].pos, x, length)
            .map_err(|e| match e {
                StateError::OffString { .. } => invalid(
                    format!("{at}.x"),
                    compact(x),
                    "no point of the taut string below the sticks has this x",
                    "choose x between the reach of the string on either side of the sticks",
                ),
                other => invalid(
                    format!("{at}.x"),
                    compact(x),
                    other.to_string(),
                    "check the stick positions",
                ),
            })?,
        (Some(_), Some(x), _) => {
            return Err(invalid(
                format!("{at}.x"),
                compact(x),
                "both pos and x given",
                "give either pos or x",
            ))
        }
        (None, None, _) => {
            return Err(invalid(
                at,
                "no position",
                "a diabolo needs a position",
                "add \"pos\": [x, y], or \"x\" to place it on the taut string",
            ))
        }
    };
    let vel = vector(spec.vel.plane());
    if !(pos.iter().chain(vel.iter()).all(|v| v.is_finite()) && spec.spin.is_finite()) {
        return Err(invalid(at, show(pos), "not finite", "give finite numbers"));
    }
    Ok(DiaboloState {
        pos,
        vel,
        spin: spec.spin,
        knot: spec.knot,
    })
}

/// Diabolos placed by "x" on a compliant string: moved down together until the string's mean
/// tension EA delta / L is the tension an inextensible string would carry there at that instant
/// (below), by bisection. Started at the unstretched length, the diabolos would drop onto the
/// stretch and set the string's fast mode ringing, which an explicit integrator must then follow.
pub(super) fn hang_stretched(state: &mut CartesianState, params: &Params) {
    let Some(string) = params.elastic() else {
        return;
    };
    let placed: Vec<f64> = state.diabolos.iter().map(|d| d.pos.y).collect();
    let mut excess = |shift: f64| {
        for (d, y) in state.diabolos.iter_mut().zip(&placed) {
            d.pos.y = y - shift;
        }
        let stretch = state.string_used() - string.length;
        string.mean_tension(stretch, 0.0) - inextensible_tension(state, params)
    };
    let (mut low, mut high) = (0.0, 1e-6);
    while excess(high) < 0.0 {
        if high > string.length {
            excess(0.0);
            return;
        }
        low = high;
        high *= 2.0;
    }
    let shift = placement::bisect(low, high, &mut excess);
    excess(shift);
}

/// The uniform tension T (N) that keeps sum l constant at this instant, sticks unaccelerated and
/// friction left out: with the diabolos' accelerations a_k = g - (T / m) grad_k, where
/// grad_k = e_(k-1) - e_k is the gradient of sum l at diabolo k, sum l'' = 0 gives
/// T = m (sum_k g . grad_k + sum_i |v_i, perp|^2 / l_i) / sum_k |grad_k|^2, with v_i, perp the
/// relative velocity across segment i normal to it. For one diabolo at rest in a symmetric V it
/// is m g / (2 sin alpha).
fn inextensible_tension(state: &CartesianState, params: &Params) -> f64 {
    let n = state.diabolo_count();
    let unit = |i: usize| (state.position(i + 1) - state.position(i)).normalize();
    let gravity = Vector2::new(0.0, -params.gravity);
    let (mut pull, mut weight) = (0.0, 0.0);
    for k in 1..=n {
        let grad = unit(k - 1) - unit(k);
        pull += grad.norm_squared();
        weight += gravity.dot(&grad);
    }
    let centripetal: f64 = (0..=n)
        .map(|i| {
            let chord = state.position(i + 1) - state.position(i);
            let relative = state.velocity(i + 1) - state.velocity(i);
            let e = chord.normalize();
            (relative - e * relative.dot(&e)).norm_squared() / chord.norm()
        })
        .sum();
    params.diabolo_mass * (weight + centripetal) / pull
}

/// Each diabolo on the string must hang in it (|theta| > pi): not above the line of its
/// neighbours. `entries` gives each one's index in the scenario's list.
fn check_below_string(
    state: &CartesianState,
    entries: &[(usize, &DiaboloSpec)],
) -> Result<(), ScenarioError> {
    let n = state.diabolo_count();
    let mut kin = Kinematics::new(n);
    kin.load_cartesian(state).map_err(|e| match e {
        StateError::SegmentCollapsed { segment } => invalid(
            "initial.diabolos",
            "",
            format!("two neighbours on the string (segment {segment}) are at the same place"),
            "give every diabolo its own position, away from the sticks",
        ),
        other => invalid(
            "initial",
            "",
            other.to_string(),
            "check the initial positions",
        ),
    })?;
    for i in 1..=n {
        let theta = kin.objects()[i].theta;
        if theta.abs() <= std::f64::consts::PI {
            return Err(invalid(
                format!("initial.diabolos[{}].pos", entries[i - 1].0),
                show(state.diabolos[i - 1].pos),
                format!("the diabolo is above the string (the string would bend the wrong way over it: theta = {} rad)", Compact(theta)),
                "place it below the line joining its neighbours on the string",
            ));
        }
    }
    Ok(())
}

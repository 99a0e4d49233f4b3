//! A scenario in space (docs/interface.md, "Scenarios in space"): `"sim": {"space": true}` or a
//! third coordinate anywhere. Built into a [`SpaceSimulation`] with the hands as `Drive<3>`;
//! whatever the model in space does not follow yet is refused here, naming the field, the value
//! and the fix. The space-only fields in a planar scenario are refused too: a scenario turns to
//! space only by `space` or a third coordinate, never by a field it gives.

use std::path::Path as FsPath;

use nalgebra::{Vector2, Vector3};

use crate::display::{compact, Compact};
use crate::model::space::{
    body_gap, lowest_rim_point, AxleModel, AxleValues, SpaceBody, SpaceDiabolo, SpaceParams,
    SpaceState, SpaceString,
};
use crate::model::{lowest_taut_positions, taut_point_below, ImpactBody, Params};
use crate::simulation::drive::{reach_warning, Drive, ReachWarning};
use crate::simulation::space::{SpaceSettings, SpaceSimulation};
use crate::simulation::tolerances::TOUCH_GAP;
use crate::simulation::{DiaboloMode, Simulation};

use super::checks::{invalid, show, within, SIDES};
use super::drive::{build_drive, lifted};
use super::initial::TAUT_SNAP_TOLERANCE;
use super::params::build_params;
use super::settings::build_settings;
use super::start::{check_left_to_right, check_strain, off_string, snap_taut, PATH_AGREEMENT};
use crate::scenario::error::ScenarioError;
use crate::scenario::limits::Limits;
use crate::scenario::ranges;
use crate::scenario::spec::{AxleName, DiaboloSpec, DriveSpec, Scenario, StartMode};

/// An axle rate whose component along the axle exceeds this (1/s, relative to 1 + |a'|) is
/// refused: a' is perpendicular to a unit axle.
const PERPENDICULAR: f64 = 1e-9;

/// A scenario built: a run in the hands' plane, or a run in space.
#[derive(Clone, Debug)]
pub enum Built {
    /// The planar model ([`Simulation`]).
    Plane(Simulation),
    /// The model in space, the hands' drives in three dimensions.
    Space(SpaceSimulation<Drive<3>>),
}

impl Scenario {
    /// Whether the scenario is a run in space: `sim.space` true, or a third coordinate in any
    /// position, velocity, keyframe, sine or force.
    pub fn is_space(&self) -> bool {
        self.sim.space.unwrap_or(false) || self.third_coordinate().is_some()
    }

    /// The JSON path of the first value with a third coordinate, if any.
    pub fn third_coordinate(&self) -> Option<String> {
        let mut found = Vec::new();
        for (side, body) in SIDES.iter().zip([&self.initial.left, &self.initial.right]) {
            if let Some(b) = body {
                found.push((format!("initial.{side}.pos"), b.pos.is_space()));
                found.push((format!("initial.{side}.vel"), b.vel.is_space()));
            }
        }
        for (k, d) in self.initial.diabolos.iter().enumerate() {
            let at = format!("initial.diabolos[{k}]");
            found.push((format!("{at}.pos"), d.pos.is_some_and(|p| p.is_space())));
            found.push((format!("{at}.vel"), d.vel.is_space()));
        }
        for (side, drive) in SIDES.iter().zip([&self.drive.left, &self.drive.right]) {
            let at = format!("drive.{side}");
            let (value, keyframes, sine) = match drive {
                Some(DriveSpec::Force(s) | DriveSpec::Accel(s)) => {
                    (s.value, s.keyframes.as_ref(), None)
                }
                Some(DriveSpec::Path(p)) => (None, p.keyframes.as_ref(), p.sine.as_ref()),
                _ => (None, None, None),
            };
            found.push((format!("{at}.value"), value.is_some_and(|v| v.is_space())));
            if let Some(i) = keyframes.and_then(|k| k.iter().position(|p| p.is_space())) {
                found.push((format!("{at}.keyframes[{i}]"), true));
            }
            if let Some(s) = sine {
                for (name, v) in [
                    ("center", s.center),
                    ("amplitude", s.amplitude),
                    ("phase", s.phase),
                ] {
                    found.push((format!("{at}.sine.{name}"), v.is_space()));
                }
            }
        }
        found
            .into_iter()
            .find_map(|(path, space)| space.then_some(path))
    }

    /// Checks how the scenario states its dimension: `"space": false` with a third coordinate,
    /// or a field of the model in space in a planar scenario, is refused. True for a scenario
    /// in space.
    pub(super) fn check_dimension(&self) -> Result<bool, ScenarioError> {
        let third = self.third_coordinate();
        if let (Some(false), Some(path)) = (self.sim.space, &third) {
            return Err(invalid(
                path.clone(),
                "a third coordinate",
                "sim.space is false, and a third coordinate (z) is for a run in space",
                "drop the third coordinate, or set \"space\": true in sim",
            ));
        }
        let space = self.sim.space.unwrap_or(false) || third.is_some();
        if !space {
            if let Some((path, value)) = self.space_only_fields().into_iter().next() {
                return Err(invalid(
                    path,
                    value,
                    "a field of the model in space, in a planar scenario",
                    "add \"space\": true to sim (or give a third coordinate) to run in space, or remove it",
                ));
            }
        }
        Ok(space)
    }

    /// The fields given that only the model in space reads: (path, value).
    fn space_only_fields(&self) -> Vec<(String, String)> {
        let p = &self.params;
        let mut found: Vec<(String, String)> = [
            ("axle_radius", p.axle_radius),
            ("transverse_inertia", p.transverse_inertia),
            ("half_length", p.half_length),
            ("cup_angle", p.cup_angle),
            ("string_offset", p.string_offset),
        ]
        .into_iter()
        .filter_map(|(name, v)| v.map(|v| (format!("params.{name}"), compact(v))))
        .collect();
        if let Some(axle) = self.sim.axle {
            found.push(("sim.axle".into(), axle_name(axle).into()));
        }
        for (k, d) in self.initial.diabolos.iter().enumerate() {
            if let Some(a) = d.axle {
                found.push((format!("initial.diabolos[{k}].axle"), show3(&a.into())));
            }
            if let Some(a) = d.axle_rate {
                found.push((format!("initial.diabolos[{k}].axle_rate"), show3(&a.into())));
            }
        }
        found
    }

    /// Checks everything and builds the scenario in the plane or in space, as it says
    /// ([`Scenario::is_space`]).
    pub fn build_any(&self, base: &FsPath, limits: &Limits) -> Result<Built, ScenarioError> {
        if self.check_dimension()? {
            self.build_space(base, limits).map(Built::Space)
        } else {
            self.build_within(base, limits).map(Built::Plane)
        }
    }

    /// Warnings about the hands' paths of a run in space (as [`Scenario::path_warnings`]; none
    /// for a compliant string, which stretches instead).
    pub fn space_path_warnings(&self, simulation: &SpaceSimulation<Drive<3>>) -> Vec<ReachWarning> {
        if simulation.params.planar.elastic().is_some() {
            return Vec::new();
        }
        reach_warning(
            &simulation.hands,
            simulation.params.planar.values().string_length,
            self.sim.duration,
        )
        .into_iter()
        .collect()
    }

    /// Checks everything and builds the scenario as a run in space (whether or not it says it
    /// is one), under `limits`.
    pub fn build_space(
        &self,
        base: &FsPath,
        limits: &Limits,
    ) -> Result<SpaceSimulation<Drive<3>>, ScenarioError> {
        let planar = build_params(&self.params)?;
        self.refuse_unsupported()?;
        let hands = [
            build_drive::<3>(self.drive.left.as_ref(), SIDES[0], base)?,
            build_drive::<3>(self.drive.right.as_ref(), SIDES[1], base)?,
        ];
        let s = build_settings(&self.sim, limits, self.initial.diabolos.len())?;
        self.check_initial_ranges()?;
        self.check_capstan()?;
        let params = self.space_params(planar)?;
        let (initial, modes) = self.space_initial(&params, &hands)?;
        let settings = SpaceSettings::from_planar(&s);
        Ok(SpaceSimulation {
            params,
            hands,
            modes,
            initial,
            settings,
        })
    }

    /// What the model in space does not follow yet, refused with the field and the fix.
    fn refuse_unsupported(&self) -> Result<(), ScenarioError> {
        let plane = "or run the planar model (no third coordinate, no \"space\")";
        let sim = &self.sim;
        let defaults = crate::simulation::Settings::default();
        let unused: [(&str, Option<f64>, &str); 2] = [
            (
                "period",
                sim.period,
                "diabolo orbit does not run scenarios in space yet",
            ),
            (
                "meeting_distance",
                (sim.meeting_distance != defaults.meeting_distance)
                    .then_some(sim.meeting_distance),
                "in space, bodies meet where their hulls touch (params.diabolo_radius, params.half_length): an impact, or a resting contact",
            ),
        ];
        for (field, value, why) in unused {
            if let Some(v) = value {
                return Err(invalid(
                    format!("sim.{field}"),
                    compact(v),
                    format!("not used by the model in space: {why}"),
                    format!("remove it, {plane}"),
                ));
            }
        }
        Ok(())
    }

    /// The axle's parameters (the cup angle given in degrees), checked.
    fn space_params(&self, planar: Params) -> Result<SpaceParams, ScenarioError> {
        let p = &self.params;
        let defaults = AxleValues::default();
        let checked = |name: &str, value: Option<f64>, range| -> Result<(), ScenarioError> {
            match value {
                Some(v) => within(|| format!("params.{name}"), v, range),
                None => Ok(()),
            }
        };
        checked("axle_radius", p.axle_radius, &ranges::AXLE_RADIUS)?;
        checked(
            "transverse_inertia",
            p.transverse_inertia,
            &ranges::TRANSVERSE_INERTIA,
        )?;
        checked("half_length", p.half_length, &ranges::HALF_LENGTH)?;
        checked("cup_angle", p.cup_angle, &ranges::CUP_ANGLE)?;
        checked("string_offset", p.string_offset, &ranges::STRING_OFFSET)?;
        let axle = AxleValues {
            axle_radius: p.axle_radius.unwrap_or(defaults.axle_radius),
            transverse_inertia: p.transverse_inertia,
            half_length: p.half_length.unwrap_or(defaults.half_length),
            cup_angle: p
                .cup_angle
                .map_or(defaults.cup_angle, |degrees| degrees.to_radians()),
            string_offset: p.string_offset.unwrap_or(defaults.string_offset),
            model: match self.sim.axle.unwrap_or_default() {
                AxleName::FastTop => AxleModel::FastTop,
                AxleName::Rigid => AxleModel::Rigid,
            },
        };
        SpaceParams::new(planar, axle).map_err(|e| {
            let value = if e.field == "cup_angle" {
                e.value.to_degrees()
            } else {
                e.value
            };
            invalid(
                format!("params.{}", e.field),
                compact(value),
                e.requirement,
                format!("give params.{} as it says", e.field),
            )
        })
    }

    /// The state at t = 0 in space: the sticks from their paths or `initial`, the diabolos
    /// placed by "x" (sticks at one z: the planar placement in that plane) or by "pos" (as
    /// given, a string within 0.1 mm of taut put on it by moving the diabolos vertically
    /// together), each with its axle; a start the model in space would stop at is refused.
    fn space_initial(
        &self,
        params: &SpaceParams,
        hands: &[Drive<3>; 2],
    ) -> Result<(SpaceState, Vec<DiaboloMode>), ScenarioError> {
        let length = params.planar.values().string_length;
        // A compliant string may start stretched, up to twice its length (100 % strain).
        let compliant = params.planar.elastic().is_some();
        let [left, right] = self
            .start_sticks(hands, length, compliant)?
            .map(|b| SpaceBody {
                pos: b.pos,
                vel: b.vel,
            });
        let specs = &self.initial.diabolos;
        let positions = self.space_positions(&left, &right, length)?;
        let mut state = SpaceState {
            left,
            right,
            diabolos: Vec::with_capacity(specs.len()),
        };
        for (k, (d, pos)) in specs.iter().zip(positions).enumerate() {
            let at = format!("initial.diabolos[{k}]");
            let vel = lifted::<3, 2>(&d.vel, 0);
            if !(pos.iter().chain(vel.iter()).all(|v| v.is_finite()) && d.spin.is_finite()) {
                return Err(invalid(
                    at,
                    show3(&pos),
                    "not finite",
                    "give finite numbers",
                ));
            }
            let axle = match d.axle {
                None => Vector3::z(),
                Some(a) => {
                    let a = Vector3::from(a);
                    let size = a.norm();
                    if !(size.is_finite() && size > 0.0) {
                        return Err(invalid(
                            format!("{at}.axle"),
                            show3(&a),
                            "the axle's direction must be a finite vector other than zero",
                            "give a unit vector [ax, ay, az], e.g. [0, 0, 1] (toward the audience)",
                        ));
                    }
                    a / size
                }
            };
            let axle_rate = match d.axle_rate {
                None => Vector3::zeros(),
                Some(r) => {
                    let r = Vector3::from(r);
                    if params.model == AxleModel::FastTop {
                        return Err(invalid(
                            format!("{at}.axle_rate"),
                            show3(&r),
                            "the fast top's axle rate follows from the string's torque; only the rigid axle starts with its own",
                            "remove axle_rate, or set \"axle\": \"rigid\" in sim",
                        ));
                    }
                    if !r.iter().all(|v| v.is_finite())
                        || r.dot(&axle).abs() > PERPENDICULAR * (1.0 + r.norm())
                    {
                        return Err(invalid(
                            format!("{at}.axle_rate"),
                            show3(&r),
                            format!(
                                "the axle's rate must be finite and perpendicular to the axle {} (a' . a = 0)",
                                show3(&axle)
                            ),
                            "remove its component along the axle",
                        ));
                    }
                    r
                }
            };
            if d.mode == StartMode::Flying && d.knot != 0 {
                return Err(invalid(
                    format!("{at}.knot"),
                    d.knot.to_string(),
                    "a flying diabolo has no knot degree (the string is not around it)",
                    "remove \"knot\", or start it on the string",
                ));
            }
            state.diabolos.push(SpaceDiabolo {
                pos,
                vel,
                spin: d.spin,
                knot: d.knot,
                axle,
                axle_rate,
            });
        }
        let modes = self.start_modes();
        let full = state;
        let string_index = |j: usize| {
            (0..specs.len())
                .filter(|&k| modes[k] == DiaboloMode::String)
                .nth(j)
                .unwrap_or(j)
        };
        let mut state = SpaceState {
            left: full.left,
            right: full.right,
            diabolos: (0..specs.len())
                .filter(|&k| modes[k] == DiaboloMode::String)
                .map(|k| full.diabolos[k])
                .collect(),
        };
        check_left_to_right(state.diabolos.len(), |k| {
            (string_index(k), state.diabolos[k].pos)
        })?;
        let excess = state.string_used() - length;
        if compliant {
            check_strain(state.string_used(), length)?;
        }
        if !compliant && excess > TAUT_SNAP_TOLERANCE {
            return Err(off_string(
                state.string_used(),
                length,
                "move the diabolos within reach of the string (sum of the segment lengths at most L), or give them by \"x\"",
            ));
        }
        let by_x = !state.diabolos.is_empty()
            && (0..specs.len())
                .filter(|&k| modes[k] == DiaboloMode::String)
                .all(|k| specs[k].x.is_some());
        if compliant && by_x {
            hang_stretched_in_space(&mut state, &params.planar);
        } else if !compliant && excess.abs() <= TAUT_SNAP_TOLERANCE {
            snap_taut(&mut state, length, SpaceState::string_used, |state, dy| {
                for d in &mut state.diabolos {
                    d.pos.y += dy;
                }
            });
        }
        if !state.diabolos.is_empty() {
            check_start(&state, params, string_index)?;
        }
        let mut on_string = state.diabolos.into_iter();
        let diabolos: Vec<SpaceDiabolo> = full
            .diabolos
            .iter()
            .zip(&modes)
            .map(|(d, mode)| match mode {
                DiaboloMode::String => on_string.next().unwrap_or(*d),
                _ => *d,
            })
            .collect();
        let full = SpaceState {
            left: state.left,
            right: state.right,
            diabolos,
        };
        self.check_flying_starts(&full, &modes, params)?;
        Ok((full, modes))
    }

    /// Each diabolo's centre: by "pos" (z = 0 when not given) or by "x" on the taut string in
    /// the sticks' plane z = const.
    fn space_positions(
        &self,
        left: &SpaceBody,
        right: &SpaceBody,
        length: f64,
    ) -> Result<Vec<Vector3<f64>>, ScenarioError> {
        let specs = &self.initial.diabolos;
        for (k, d) in specs.iter().enumerate() {
            let at = format!("initial.diabolos[{k}]");
            match (d.pos, d.x) {
                (Some(_), Some(x)) => {
                    return Err(invalid(
                        format!("{at}.x"),
                        compact(x),
                        "both pos and x given",
                        "give either pos or x",
                    ))
                }
                (None, None) => {
                    return Err(invalid(
                        at,
                        "no position",
                        "a diabolo needs a position",
                        "add \"pos\": [x, y, z], or \"x\" to place it on the taut string",
                    ))
                }
                _ => {}
            }
        }
        let flying = |k: usize| specs[k].mode == StartMode::Flying;
        if let Some(k) = (0..specs.len()).find(|&k| flying(k) && specs[k].x.is_some()) {
            return Err(invalid(
                format!("initial.diabolos[{k}].x"),
                compact(specs[k].x.unwrap_or_default()),
                "a flying diabolo is not on the string, so it cannot be placed on it by x",
                "give its \"pos\": [x, y, z], or drop \"mode\": \"flying\"",
            ));
        }
        let by_x: Vec<usize> = (0..specs.len()).filter(|&k| specs[k].x.is_some()).collect();
        let by_pos = |d: &DiaboloSpec| lifted(&d.pos.unwrap_or_default(), 0);
        if by_x.is_empty() {
            return Ok(specs.iter().map(by_pos).collect());
        }
        let on_string: Vec<usize> = (0..specs.len()).filter(|&k| !flying(k)).collect();
        if by_x.len() < on_string.len() {
            let j = on_string
                .iter()
                .copied()
                .find(|k| !by_x.contains(k))
                .unwrap_or(0);
            let k = by_x[0];
            return Err(invalid(
                format!("initial.diabolos[{k}].x"),
                compact(specs[k].x.unwrap_or_default()),
                format!("diabolo {k} is placed by x and diabolo {j} by pos: several diabolos are placed all by \"x\" or all by \"pos\""),
                "give every diabolo an \"x\" or every diabolo its \"pos\": [x, y, z]",
            ));
        }
        let z = left.pos.z;
        if (right.pos.z - z).abs() > PATH_AGREEMENT {
            return Err(invalid(
                format!("initial.diabolos[{}].x", by_x[0]),
                compact(specs[by_x[0]].x.unwrap_or_default()),
                format!(
                    "placing by x needs both sticks at one z (the string's plane); they start at z = {} and {}",
                    Compact(z),
                    Compact(right.pos.z)
                ),
                "give each diabolo its \"pos\": [x, y, z] on the string",
            ));
        }
        let (a, b) = (left.pos.xy(), right.pos.xy());
        let xs: Vec<f64> = specs.iter().filter_map(|d| d.x).collect();
        let placed: Vec<Vector2<f64>> = if xs.len() == 1 {
            vec![taut_point_below(a, b, xs[0], length).map_err(|e| {
                invalid(
                    format!("initial.diabolos[{}].x", by_x[0]),
                    compact(xs[0]),
                    format!("no point of the taut string below the sticks has this x ({e})"),
                    "choose x between the reach of the string on either side of the sticks",
                )
            })?]
        } else {
            lowest_taut_positions(a, b, &xs, length).map_err(|e| {
                invalid(
                    "initial.diabolos",
                    format!("x = {xs:?}"),
                    e.to_string(),
                    "list the diabolos left to right with increasing x, all strictly between the sticks' x",
                )
            })?
        };
        let mut placed = placed.into_iter().map(|p| Vector3::new(p.x, p.y, z));
        Ok(specs
            .iter()
            .map(|d| match d.mode {
                StartMode::Flying => by_pos(d),
                _ => placed.next().unwrap_or_default(),
            })
            .collect())
    }
}

impl Scenario {
    /// A flying start the run in space would stop at at once is refused: below the floor, or
    /// inside another diabolo or a stick tip (touching, within round-off, is allowed: the run
    /// decides whether they collide, part or press).
    fn check_flying_starts(
        &self,
        state: &SpaceState,
        modes: &[DiaboloMode],
        params: &SpaceParams,
    ) -> Result<(), ScenarioError> {
        let radius = params.planar.values().diabolo_radius;
        for (k, d) in state.diabolos.iter().enumerate() {
            if modes[k] != DiaboloMode::Flying {
                continue;
            }
            if let Some(floor) = self.sim.floor {
                let lowest = lowest_rim_point(&d.pos, &d.axle, radius, params.half_length);
                if lowest < floor {
                    return Err(invalid(
                        "sim.floor",
                        compact(floor),
                        format!(
                            "diabolo {} starts with its lowest rim point at y = {:.4} m, below the floor",
                            k + 1,
                            lowest
                        ),
                        "lower the floor below every diabolo's start, or raise the diabolo",
                    ));
                }
            }
            let gap =
                |other: ImpactBody| body_gap(params, state, ImpactBody::Diabolo(k + 1), other).gap;
            let others = (1..=state.diabolos.len())
                .filter(|&j| j != k + 1)
                .map(|j| (format!("diabolo {j}"), gap(ImpactBody::Diabolo(j))))
                .chain([
                    ("the left stick tip".to_string(), gap(ImpactBody::Left)),
                    ("the right stick tip".to_string(), gap(ImpactBody::Right)),
                ]);
            for (name, gap) in others {
                if gap < -TOUCH_GAP {
                    return Err(invalid(
                        format!("initial.diabolos[{k}].pos"),
                        show3(&d.pos),
                        format!(
                            "the flying diabolo starts inside {name} (its hull, the cylinder its rims span, {:.4} m into it; params.diabolo_radius {} m)",
                            -gap,
                            Compact(radius)
                        ),
                        "move it away",
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The name of an axle model in a scenario.
fn axle_name(name: AxleName) -> &'static str {
    match name {
        AxleName::FastTop => "fast_top",
        AxleName::Rigid => "rigid",
    }
}

/// A vector in space as the scenario writes it.
fn show3(v: &Vector3<f64>) -> String {
    show(*v)
}

/// A start the run in space would stop at: two neighbours inside each other, a diabolo above the string
/// (off its side), a strand beyond the cup angle, the string doubled back.
/// `index` gives the scenario's index of the diabolo in each slot (0-based both).
fn check_start(
    state: &SpaceState,
    params: &SpaceParams,
    index: impl Fn(usize) -> usize,
) -> Result<(), ScenarioError> {
    let n = state.diabolos.len();
    let mut string = SpaceString::new(n);
    string.update(state).map_err(|e| {
        invalid(
            "initial.diabolos",
            "",
            format!("{e}"),
            "give every diabolo its own position, away from the sticks",
        )
    })?;
    let radius = params.planar.values().diabolo_radius;
    let object = |j: usize| match j {
        0 => ImpactBody::Left,
        j if j == n + 1 => ImpactBody::Right,
        j => ImpactBody::Diabolo(j),
    };
    let gap = |j: usize| body_gap(params, state, object(j), object(j + 1)).gap;
    for j in 0..=n {
        let gap = gap(j);
        if gap < -TOUCH_GAP {
            let k = if j == 0 { 1 } else { j };
            let other = match j + 1 {
                m if m == n + 1 => "the right stick tip".to_string(),
                m if j == 0 => format!("the left stick tip and diabolo {m}"),
                m => format!("diabolo {m}"),
            };
            return Err(invalid(
                format!("initial.diabolos[{}].pos", index(k - 1)),
                show3(&state.diabolos[k - 1].pos),
                format!(
                    "it is inside {other} at the start (their hulls, the cylinders the cup rims span, overlap by {} m; params.diabolo_radius {} m)",
                    Compact(-gap),
                    Compact(radius)
                ),
                "move the diabolos apart (and away from the stick tips)",
            ));
        }
    }
    let sin_cup = params.cup_angle.sin();
    for k in 1..=n {
        let d = &state.diabolos[k - 1];
        let at = format!("initial.diabolos[{}]", index(k - 1));
        let turn = string.turn_about(k, &d.axle);
        if d.knot == 0 && turn <= 0.0 {
            return Err(invalid(
                format!("{at}.pos"),
                show3(&d.pos),
                format!(
                    "the diabolo is not in a V of the string about its axle (the string's turn about the axle is {} rad): it would leave the string at once",
                    Compact(turn)
                ),
                "place it below the line joining its neighbours on the string",
            ));
        }
        let s = string.segments();
        let slope = s[k - 1]
            .direction
            .dot(&d.axle)
            .abs()
            .max(s[k].direction.dot(&d.axle).abs());
        if slope >= sin_cup {
            return Err(invalid(
                format!("{at}.axle"),
                show3(&d.axle),
                format!(
                    "a strand makes {} degrees with the plane perpendicular to the axle, beyond the cup angle {} degrees: the string would run on a cup",
                    Compact(slope.asin().to_degrees()),
                    Compact(params.cup_angle.to_degrees())
                ),
                "turn the axle closer to perpendicular to the string, or raise params.cup_angle",
            ));
        }
        if turn.abs() >= std::f64::consts::PI {
            return Err(invalid(
                format!("{at}.pos"),
                show3(&d.pos),
                "the string doubles back at the diabolo; wraps are not followed in space yet",
                "open the string's V at the diabolo",
            ));
        }
    }
    Ok(())
}

/// Diabolos placed by "x" on a compliant string, in the sticks' plane (placing by x needs both
/// sticks at one z): hung where the stretched string holds them, as in the plane
/// ([`super::initial::hang_stretched`]).
fn hang_stretched_in_space(state: &mut SpaceState, params: &crate::model::Params) {
    use crate::model::{Body, CartesianState, DiaboloState};
    let planar = |b: &SpaceBody| Body {
        pos: b.pos.xy(),
        vel: b.vel.xy(),
    };
    let mut plane = CartesianState {
        left: planar(&state.left),
        right: planar(&state.right),
        diabolos: state
            .diabolos
            .iter()
            .map(|d| DiaboloState {
                pos: d.pos.xy(),
                vel: d.vel.xy(),
                spin: d.spin,
                knot: d.knot,
            })
            .collect(),
    };
    super::initial::hang_stretched(&mut plane, params);
    for (d, p) in state.diabolos.iter_mut().zip(&plane.diabolos) {
        d.pos.y = p.pos.y;
    }
}

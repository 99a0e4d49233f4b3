//! The run in space (docs/space.md): the planar limit on the shipped scenarios, the spheroid's
//! small swings, the energy ledger in 3D, the tensing impulse, and the axle's gyroscope.

use crate::common;

use common::space::{held_still, test_settings};
use common::*;
use diabolo::model::axle_angles::tilt;
use diabolo::model::space::{
    fast_top_rate, string_torque, AxleModel, AxleValues, SpaceBody, SpaceDiabolo, SpaceParams,
    SpaceState,
};
use diabolo::model::{ParamValues, Params, StickInput};
use diabolo::simulation::space::{SpaceHand, SpaceSimulation, SpaceStatus};
use diabolo::simulation::Row;
use nalgebra::Vector3;

/// The largest distance between any object's planar and spatial positions at the rows both
/// runs have (the same times), with the spatial z, m; the number of rows compared; and how the
/// run in space ended.
fn planar_gap(name: &str, sets: &[(&str, &str)]) -> (f64, usize, SpaceStatus, f64) {
    let planar = shipped(name, sets);
    let mut rows: Vec<Row> = Vec::new();
    planar.run(&mut |row| rows.push(row.clone()));
    let space = SpaceSimulation::from_planar(&planar, AxleValues::default()).unwrap();
    let mut worst: f64 = 0.0;
    let mut compared = 0;
    let mut last_t = 0.0;
    let report = space.run(|row| {
        let Some(p) = rows.iter().find(|r| (r.t - row.t).abs() < 1e-12) else {
            return;
        };
        let state: &SpaceState = row.state;
        for j in 0..state.objects() {
            let a = state.position(j);
            let b = p.state.position(j);
            worst = worst.max((a.xy() - b).norm()).max(a.z.abs());
        }
        compared += 1;
        last_t = row.t;
    });
    (worst, compared, report.status, last_t)
}

// The run in space, on the shipped planar scenarios (z = 0, axles along z), follows the planar
// model's trajectories within 1e-9 m at tight tolerances: every object at every common row,
// through taut and slack phases, tensing impulses, grip, knots, two diabolos, throws (leave,
// flight, landing), a missed catch onto the floor, a compliant string (stretchy_catch), two
// diabolos resting against each other until the hands part them (two_side_by_side), and the
// shower (a contact with a stick tip, a tensing whose impulse reverses a slip, pchip keyframes
// whose acceleration jumps; at atol 1e-14 its step collapsed at the 1.38 s keyframe before the
// step landing on a keyframe read the hands from before it).
#[test]
fn space_run_reproduces_the_planar_model_in_the_plane() {
    let tight = [("sim.rtol", "1e-12"), ("sim.atol", "1e-14")];
    for name in [
        "hanging",
        "swing",
        "rolling",
        "sun",
        "two_diabolos",
        "elevator",
        "snap",
        "let_go",
        "driven_swing",
        "high_toss",
        "missed_catch",
        "stretchy_catch",
        "two_side_by_side",
        "shower",
    ] {
        let (worst, rows, status, _) = planar_gap(name, &tight);
        assert_eq!(status, SpaceStatus::Finished, "{name}");
        assert!(rows > 40, "{name}: {rows} rows");
        assert!(worst < 1e-9, "{name}: {worst} m from the planar model");
    }
}

/// A still string between tips at (-c, 0, 0) and (c, 0, 0), one frictionless diabolo spinning
/// at w = 0.65 m/s started at rest at `start` on the spheroid; rows every ms.
fn spheroid_run(
    start: Vector3<f64>,
    length: f64,
    duration: f64,
    model: AxleModel,
) -> (Vec<(f64, Vector3<f64>)>, SpaceStatus) {
    let planar = Params::new(ParamValues {
        string_length: length,
        friction: 0.0,
        ..ParamValues::default()
    })
    .unwrap();
    let c = 0.4;
    let sim = held_still(
        SpaceParams::new(
            planar,
            AxleValues {
                model,
                ..AxleValues::default()
            },
        )
        .unwrap(),
        [Vector3::new(-c, 0.0, 0.0), Vector3::new(c, 0.0, 0.0)],
        SpaceDiabolo {
            pos: start,
            spin: 0.65,
            ..SpaceDiabolo::default()
        },
        test_settings(duration, 1e-3, (1e-12, 1e-14)),
    );
    let mut rows = Vec::new();
    let report = sim.run(|row| rows.push((row.t, row.state.diabolos[0].pos)));
    (rows, report.status)
}

/// The mean period of a coordinate's oscillation from its upward zero crossings (linear
/// interpolation between rows), s.
fn period(rows: &[(f64, f64)]) -> f64 {
    let crossings: Vec<f64> = rows
        .windows(2)
        .filter(|w| w[0].1 < 0.0 && w[1].1 >= 0.0)
        .map(|w| w[0].0 + (w[1].0 - w[0].0) * (-w[0].1) / (w[1].1 - w[0].1))
        .collect();
    (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64
}

// One diabolo on a still string lies on a prolate spheroid with the tips as foci (a = L / 2,
// b = sqrt(a^2 - c^2)); its small swings at the lowest point have the periods
// 2 pi sqrt(a^2 / (b g)) in the hands' plane and 2 pi sqrt(b / g) across it. Both to 1e-6.
#[test]
fn small_swings_on_the_spheroid_have_its_two_periods() {
    let (length, c, g) = (1.46, 0.4, 9.81);
    let a: f64 = length / 2.0;
    let b = (a * a - c * c).sqrt();
    let tau = std::f64::consts::TAU;
    // In the plane: x = 1e-4 a on the ellipse, released at rest.
    let x = 1e-4 * a;
    let start = Vector3::new(x, -b * (1.0 - x * x / (a * a)).sqrt(), 0.0);
    let (rows, status) = spheroid_run(start, length, 6.0, AxleModel::FastTop);
    assert_eq!(status, SpaceStatus::Finished);
    let xs: Vec<(f64, f64)> = rows.iter().map(|(t, p)| (*t, p.x)).collect();
    let expected = tau * (a * a / (b * g)).sqrt();
    let found = period(&xs);
    assert!(
        ((found - expected) / expected).abs() < 1e-6,
        "in the plane: {found} s against {expected} s"
    );
    // Across: z = 1e-4 b on the circle of radius b, released at rest.
    let z = 1e-4 * b;
    let start = Vector3::new(0.0, -(b * b - z * z).sqrt(), z);
    let (rows, status) = spheroid_run(start, length, 6.0, AxleModel::FastTop);
    assert_eq!(status, SpaceStatus::Finished);
    let zs: Vec<(f64, f64)> = rows.iter().map(|(t, p)| (*t, p.z)).collect();
    let expected = tau * (b / g).sqrt();
    let found = period(&zs);
    assert!(
        ((found - expected) / expected).abs() < 1e-6,
        "across the plane: {found} s against {expected} s"
    );
}

/// A hand moving its stick on an ellipse in x-z around `centre` (prescribed, m, rad/s).
#[derive(Clone)]
struct Circling {
    centre: Vector3<f64>,
    amplitude: Vector3<f64>,
    omega: f64,
}

impl Circling {
    fn at(&self, t: f64) -> (Vector3<f64>, Vector3<f64>, Vector3<f64>) {
        let (s, c) = (self.omega * t).sin_cos();
        let a = self.amplitude;
        let w = self.omega;
        (
            self.centre + Vector3::new(a.x * s, a.y * s, a.z * (c - 1.0)),
            Vector3::new(a.x * w * c, a.y * w * c, -a.z * w * s),
            Vector3::new(-a.x * w * w * s, -a.y * w * w * s, -a.z * w * w * c),
        )
    }
}

impl SpaceHand for Circling {
    fn input(&self, t: f64, _stick: &SpaceBody) -> StickInput<3> {
        StickInput::Accel(self.at(t).2)
    }
    fn prescribes_motion(&self) -> bool {
        true
    }
    fn breakpoints(&self) -> Vec<f64> {
        Vec::new()
    }
}

// With the hands moving in all three directions, friction, spin drag, slack phases and tensing
// impulses, the energy ledger E - E(0) = W - losses closes to 1e-8 J at every row, with the fast
// top and with the rigid axle (whose string torque's work is its own account).
#[test]
fn the_energy_ledger_closes_in_space() {
    for model in [AxleModel::FastTop, AxleModel::Rigid] {
        let planar = Params::new(ParamValues {
            spin_drag: 0.05,
            ..ParamValues::default()
        })
        .unwrap();
        let hands = [
            Circling {
                centre: Vector3::new(-0.4, 0.0, 0.0),
                amplitude: Vector3::new(0.05, 0.1, 0.08),
                omega: 9.0,
            },
            Circling {
                centre: Vector3::new(0.4, 0.0, 0.0),
                amplitude: Vector3::new(-0.04, -0.12, 0.05),
                omega: 7.0,
            },
        ];
        let mut initial = SpaceState {
            left: SpaceBody {
                pos: hands[0].at(0.0).0,
                vel: hands[0].at(0.0).1,
            },
            right: SpaceBody {
                pos: hands[1].at(0.0).0,
                vel: hands[1].at(0.0).1,
            },
            diabolos: vec![SpaceDiabolo {
                spin: 0.65,
                ..SpaceDiabolo::default()
            }],
        };
        // Hanging below the middle, 2 cm slack.
        let c: f64 = 0.4;
        let a = 0.71;
        initial.diabolos[0].pos = Vector3::new(0.0, -(a * a - c * c).sqrt(), 0.0);
        let sim = SpaceSimulation {
            params: SpaceParams::new(
                planar,
                AxleValues {
                    model,
                    ..AxleValues::default()
                },
            )
            .unwrap(),
            hands,
            modes: vec![diabolo::simulation::DiaboloMode::String; initial.diabolos.len()],
            initial,
            settings: test_settings(2.0, 1e-3, (1e-11, 1e-13)),
        };
        let mut most_tilt: f64 = 0.0;
        let mut depth: f64 = 0.0;
        let report = sim.run(|row| {
            most_tilt = most_tilt.max(tilt(&row.state.diabolos[0].axle).abs());
            depth = depth.max(row.state.diabolos[0].pos.z.abs());
        });
        assert_eq!(report.status, SpaceStatus::Finished, "{model:?}");
        let tenses = report
            .events
            .iter()
            .filter(|e| e.kind.name() == "tense")
            .count();
        assert!(tenses >= 1, "{model:?}: no tensing in {:?}", report.events);
        assert!(
            most_tilt > 1.0 && depth > 0.01,
            "{model:?}: tilt {most_tilt} degrees, depth {depth} m"
        );
        assert!(
            report.ledger_residual < 1e-8,
            "{model:?}: the ledger opened by {} J",
            report.ledger_residual
        );
    }
}

// The gyroscope, on a diabolo hanging from tips 0.8 m apart with the right tip 10 cm toward the
// audience (+z), spinning at 100 rad/s about its axle (toward the audience, as in the
// recordings): the fast top's tilt rate equals the closed form
// a'_y = -(T / m) cos(alpha) ((u_L + u_R) . a) / (J r Omega) of docs/space.md, the near end going
// down; and the rigid body, started on the slow precession, follows the fast top's tilt over
// 0.5 s within 2 % while it nutates around it.
#[test]
fn the_axle_tilts_as_the_gyroscope_says_with_both_equations() {
    let length: f64 = 1.46;
    let left: Vector3<f64> = Vector3::new(-0.4, 0.0, 0.0);
    let right: Vector3<f64> = Vector3::new(0.4, 0.0, 0.1);
    // The lowest point of the spheroid: below the midpoint.
    let mid = 0.5 * (left + right);
    let half: f64 = 0.5 * (right - left).norm();
    let b = ((0.5 * length) * (0.5 * length) - half * half).sqrt();
    let start = mid - Vector3::new(0.0, b, 0.0);
    let r = 0.0065;
    let omega = 100.0;
    let planar = Params::new(ParamValues {
        friction: 0.0,
        ..ParamValues::default()
    })
    .unwrap();
    let p = *planar.values();
    let mut tilts = Vec::new();
    for model in [AxleModel::FastTop, AxleModel::Rigid] {
        let params = SpaceParams::new(
            planar,
            AxleValues {
                model,
                ..AxleValues::default()
            },
        )
        .unwrap();
        let u_l = (start - left).normalize();
        let u_r = (right - start).normalize();
        let axle = Vector3::z();
        // The tension holding the diabolo still: m g = T (u_L - u_R) . (-y) (frictionless).
        let tension = p.diabolo_mass * p.gravity / (u_l.y - u_r.y).abs();
        let alpha: f64 = 0.5 * u_l.angle(&-u_r);
        let closed = -(tension / p.diabolo_mass) * alpha.cos() * (u_l + u_r).dot(&axle)
            / (p.spin_inertia * r * omega);
        let torque = string_torque(&axle, &u_l, &u_r, (tension, tension), r);
        let fast = fast_top_rate(&torque, params.polar_inertia, omega);
        // The closed form takes the strands as perpendicular to the axle: it is first order in
        // their slope u . a along it, off by at most (u . a)^2 relative.
        let slope = u_l.dot(&axle).powi(2).max(u_r.dot(&axle).powi(2));
        assert!(
            (fast.y - closed).abs() < slope * closed.abs(),
            "fast top {} against the closed form {closed}",
            fast.y
        );
        assert!(closed < 0.0, "the near end goes down");
        let sim = held_still(
            params,
            [left, right],
            SpaceDiabolo {
                pos: start,
                spin: -r * omega,
                axle,
                axle_rate: fast,
                ..SpaceDiabolo::default()
            },
            test_settings(0.5, 1e-3, (1e-10, 1e-12)),
        );
        let mut last = 0.0;
        let mut first_rate = None;
        let report = sim.run(|row| {
            last = tilt(&row.state.diabolos[0].axle);
            if row.t > 0.0 && first_rate.is_none() {
                first_rate = Some(last.to_radians() / row.t);
            }
        });
        assert_eq!(report.status, SpaceStatus::Finished, "{model:?}");
        let rate = first_rate.unwrap();
        assert!(
            (rate - fast.y).abs() < 1e-2 * closed.abs(),
            "{model:?}: first tilt rate {rate} against {}",
            fast.y
        );
        tilts.push(last);
    }
    assert!(tilts[0] < -0.5, "tilt after 0.5 s: {} degrees", tilts[0]);
    assert!(
        (tilts[1] - tilts[0]).abs() < 0.02 * tilts[0].abs(),
        "rigid {} against fast top {} degrees",
        tilts[1],
        tilts[0]
    );
}

// The prop designer's table: over axle radii, spin inertias and transverse inertias, the rigid
// body's mean tilt rate over a second follows the fast top's (within 1 %), the fast top's rate
// scales as 1 / (J r) at a given spin (the string's torque r T over I_p Omega = J m r^2 Omega),
// and the transverse inertia changes only the nutation (its period 2 pi I_t / (I_p Omega)).
#[test]
fn a_prop_tilts_as_one_over_j_r_whatever_its_transverse_inertia() {
    let response = |radius: f64, spin_inertia: f64, ratio: f64| {
        let planar = Params::new(ParamValues {
            spin_inertia,
            ..ParamValues::default()
        })
        .unwrap();
        let polar = spin_inertia * planar.values().diabolo_mass * radius * radius;
        let params = SpaceParams::new(
            planar,
            AxleValues {
                axle_radius: radius,
                transverse_inertia: Some(ratio * polar),
                model: AxleModel::Rigid,
                ..AxleValues::default()
            },
        )
        .unwrap();
        diabolo::simulation::space::tilt_response(&params, 0.8, 0.1, 100.0, 1.0).unwrap()
    };
    let base = response(0.0065, 50.0, 1.0);
    assert!(base.initial_rate < -0.5, "{base:?}");
    for (radius, j, ratio) in [
        (0.005, 50.0, 0.6),
        (0.0065, 30.0, 2.0),
        (0.008, 80.0, 1.0),
        (0.0065, 50.0, 0.6),
    ] {
        let r = response(radius, j, ratio);
        let scaled = base.initial_rate * (0.0065 * 50.0) / (radius * j);
        assert!(
            (r.initial_rate - scaled).abs() < 1e-9 * scaled.abs(),
            "fast top {} against {scaled}",
            r.initial_rate
        );
        assert!(
            (r.rigid_mean - r.fast_top_mean).abs() < 0.01 * r.fast_top_mean.abs(),
            "r {radius} J {j} I_t/I_p {ratio}: rigid {} against fast top {}",
            r.rigid_mean,
            r.fast_top_mean
        );
    }
}

// The turn: a diabolo hanging still (sticks 0.8 m apart) with its axle tilted 10 degrees, near
// end down (far end up), spinning at 116 rad/s, turns counter-clockwise seen from above at the
// rate the recordings show, 0.187 deg/s per degree of tilt (the string offset's default was
// fitted to it); without the offset, at the tangent points' rate g sin(alpha) sin(tau) /
// (J r Omega) alone; without the tilt, not at all.
#[test]
fn a_tilted_diabolo_turns_as_the_recordings_do() {
    let turn_rate = |tilt_degrees: f64, offset: Option<f64>| {
        let mut axle = AxleValues::default();
        if let Some(offset) = offset {
            axle.string_offset = offset;
        }
        let params = SpaceParams::new(
            Params::new(ParamValues {
                friction: 0.0,
                ..ParamValues::default()
            })
            .unwrap(),
            axle,
        )
        .unwrap();
        let (left, right) = (Vector3::new(-0.4, 0.0, 0.0), Vector3::new(0.4, 0.0, 0.0));
        let b: f64 = (0.73f64 * 0.73 - 0.4 * 0.4).sqrt();
        let angle = tilt_degrees.to_radians();
        let sim = held_still(
            params,
            [left, right],
            SpaceDiabolo {
                pos: Vector3::new(0.0, -b, 0.0),
                spin: -0.0065 * 116.0,
                axle: Vector3::new(0.0, angle.sin(), angle.cos()),
                ..SpaceDiabolo::default()
            },
            test_settings(0.2, 0.01, (1e-10, 1e-12)),
        );
        let mut last = (0.0, 0.0);
        let report = sim.run(|row| {
            last = (
                row.t,
                diabolo::model::axle_angles::turn(&row.state.diabolos[0].axle),
            )
        });
        assert_eq!(report.status, SpaceStatus::Finished);
        last.1 / last.0
    };
    let rate = turn_rate(-10.0, None);
    assert!(
        (rate - 1.87).abs() < 0.05 * 1.87,
        "far end up: {rate} deg/s"
    );
    assert!(
        (turn_rate(10.0, None) + rate).abs() < 1e-6 * rate.abs(),
        "mirror"
    );
    let tangent =
        (9.81f64 * 0.548 * 10f64.to_radians().sin() / (50.0 * 0.0065 * 116.0)).to_degrees();
    let alone = turn_rate(-10.0, Some(0.0));
    assert!(
        (alone - tangent).abs() < 0.05 * tangent,
        "tangent points alone: {alone} against {tangent} deg/s"
    );
    assert!(turn_rate(0.0, None).abs() < 1e-9, "no tilt");
}

// Random runs in space (one or two diabolos placed on a random string in space, slack or taut,
// random spins, axles tilted up to 20 degrees, friction laws and coefficients, both axle models,
// hands circling in x, y and z) never say `Finished` over broken physics: a taut row holds the
// string's length to 1e-7 m, a slack row is never longer than the string, every number is
// finite, and the same run gives the same rows bit for bit. Whatever stops says what.
#[test]
fn random_runs_in_space_keep_their_invariants_or_say_why() {
    use diabolo::model::FrictionLaw;
    use diabolo::simulation::space::SpacePhase;
    let mut rng = SplitMix::new(3303);
    let mut finished = 0;
    let mut stops: std::collections::BTreeMap<String, usize> = Default::default();
    let cases = 120;
    for case in 0..cases {
        let n = 1 + case % 2;
        let law = match rng.int(0, 2) {
            0 => FrictionLaw::Step,
            1 => FrictionLaw::Bearing,
            _ => FrictionLaw::Tanh { width: 0.05 },
        };
        let hands = [
            Circling {
                centre: Vector3::new(-0.4, 0.0, 0.0),
                amplitude: Vector3::new(
                    rng.uniform(-0.1, 0.1),
                    rng.uniform(-0.15, 0.15),
                    rng.uniform(-0.1, 0.1),
                ),
                omega: rng.uniform(2.0, 10.0),
            },
            Circling {
                centre: Vector3::new(0.4, 0.0, 0.0),
                amplitude: Vector3::new(
                    rng.uniform(-0.1, 0.1),
                    rng.uniform(-0.15, 0.15),
                    rng.uniform(-0.1, 0.1),
                ),
                omega: rng.uniform(2.0, 10.0),
            },
        ];
        let left = SpaceBody {
            pos: hands[0].at(0.0).0,
            vel: hands[0].at(0.0).1,
        };
        let right = SpaceBody {
            pos: hands[1].at(0.0).0,
            vel: hands[1].at(0.0).1,
        };
        let mut diabolos = Vec::new();
        for k in 0..n {
            let x = -0.25 + 0.5 * (k as f64 + 0.5) / n as f64 + rng.uniform(-0.05, 0.05);
            let tilt_angle: f64 = rng.uniform(-20.0, 20.0).to_radians();
            let turn_angle: f64 = rng.uniform(-20.0, 20.0).to_radians();
            diabolos.push(SpaceDiabolo {
                pos: Vector3::new(x, rng.uniform(-0.7, -0.5), rng.uniform(-0.05, 0.05)),
                vel: Vector3::new(
                    rng.uniform(-0.5, 0.5),
                    rng.uniform(-0.5, 0.5),
                    rng.uniform(-0.3, 0.3),
                ),
                spin: -rng.uniform(0.3, 1.0),
                axle: Vector3::new(
                    tilt_angle.cos() * turn_angle.sin(),
                    tilt_angle.sin(),
                    tilt_angle.cos() * turn_angle.cos(),
                ),
                ..SpaceDiabolo::default()
            });
        }
        let mut initial = SpaceState {
            left,
            right,
            diabolos,
        };
        let used = initial.string_used();
        let slack = if rng.coin() {
            0.0
        } else {
            rng.uniform(0.0, 0.05)
        };
        if slack == 0.0 {
            // On a taut string: no length rate (the diabolos' velocities along the string
            // removed by a correction of the last one's).
            let n_last = initial.diabolos.len();
            let rate: f64 = (0..=n_last)
                .map(|i| {
                    let d = initial.position(i + 1) - initial.position(i);
                    d.normalize()
                        .dot(&(initial.velocity(i + 1) - initial.velocity(i)))
                })
                .sum();
            let g_last = (initial.position(n_last) - initial.position(n_last - 1)).normalize()
                - (initial.position(n_last + 1) - initial.position(n_last)).normalize();
            initial.diabolos[n_last - 1].vel -= g_last * (rate / g_last.norm_squared());
        }
        let model = if rng.coin() {
            AxleModel::FastTop
        } else {
            AxleModel::Rigid
        };
        let params = SpaceParams::new(
            Params::new(ParamValues {
                string_length: used + slack,
                friction: rng.uniform(0.0, 0.3),
                friction_law: law,
                restitution: if rng.coin() {
                    0.0
                } else {
                    rng.uniform(0.0, 0.6)
                },
                spin_drag: rng.uniform(0.0, 0.1),
                ..ParamValues::default()
            })
            .unwrap(),
            AxleValues {
                model,
                ..AxleValues::default()
            },
        )
        .unwrap();
        let sim = SpaceSimulation {
            params,
            hands,
            modes: vec![diabolo::simulation::DiaboloMode::String; initial.diabolos.len()],
            initial,
            settings: test_settings(1.5, 0.005, (1e-9, 1e-11)),
        };
        let run = || {
            let mut rows: Vec<Vec<f64>> = Vec::new();
            let report = sim.run(|row| {
                let mut values = vec![
                    row.t,
                    row.slack,
                    row.energy,
                    row.hand_work,
                    row.friction_loss,
                ];
                for d in &row.state.diabolos {
                    values.extend(d.pos.iter().chain(d.vel.iter()).chain(d.axle.iter()));
                    values.push(d.spin);
                }
                assert!(
                    values.iter().all(|v| v.is_finite()),
                    "case {case}: {values:?}"
                );
                match row.phase {
                    SpacePhase::Taut => assert!(
                        row.slack.abs() < 1e-7,
                        "case {case}: taut row at t = {} with slack {}",
                        row.t,
                        row.slack
                    ),
                    SpacePhase::Loose => assert!(
                        row.slack > -1e-6,
                        "case {case}: slack row at t = {} longer than the string: {}",
                        row.t,
                        row.slack
                    ),
                }
                rows.push(values);
            });
            (rows, report)
        };
        let (rows, report) = run();
        let (again, _) = run();
        assert!(
            rows.iter()
                .flatten()
                .map(|v| v.to_bits())
                .eq(again.iter().flatten().map(|v| v.to_bits())),
            "case {case}: not deterministic"
        );
        match report.status {
            SpaceStatus::Finished => finished += 1,
            SpaceStatus::Stopped { reason, .. } => {
                assert!(!reason.to_string().is_empty());
                *stops.entry(reason.status().to_string()).or_default() += 1;
            }
        }
    }
    assert!(
        finished * 3 > cases,
        "only {finished} of {cases} finished: {stops:?}"
    );
}

// A session in space advanced in 20 pieces follows the whole run (within the integrator's
// tolerance: its steps end where the pieces do), and a hand replaced halfway (the right stick
// accelerated toward the audience) tilts the axle where the unchanged run does not.
#[test]
fn a_session_in_space_follows_the_run_and_takes_new_hands() {
    use diabolo::simulation::drive::{ClampedSpline, Drive, Path, Schedule};
    use diabolo::simulation::space::SpaceSession;
    let planar = shipped("swing", &[("sim.duration", "1.0")]);
    let lifted = SpaceSimulation::from_planar(&planar, AxleValues::default()).unwrap();
    let held = |x: f64| {
        Drive::<3>::Path(Path::Keyframes(
            ClampedSpline::new(vec![(0.0, Vector3::new(x, 1.5, 0.0))]).unwrap(),
        ))
    };
    let space = SpaceSimulation {
        params: lifted.params,
        hands: [held(-0.4), held(0.4)],
        modes: vec![diabolo::simulation::DiaboloMode::String; lifted.initial.diabolos.len()],
        initial: lifted.initial.clone(),
        settings: lifted.settings,
    };
    let mut whole = Vec::new();
    space.run(|row| whole.push((row.t, row.state.diabolos[0].pos)));
    let mut session = SpaceSession::new(&space);
    let mut pieces = Vec::new();
    for i in 1..=20 {
        session
            .advance(0.05 * i as f64, |row| {
                pieces.push((row.t, row.state.diabolos[0].pos))
            })
            .unwrap();
    }
    assert!(session.finished());
    assert_eq!(whole.len(), pieces.len());
    for (a, b) in whole.iter().zip(&pieces) {
        assert!(
            (a.0 - b.0).abs() < 1e-12 && (a.1 - b.1).norm() < 1e-6,
            "{a:?} against {b:?}"
        );
    }
    // The right hand pushes its stick toward the audience from 0.5 s on.
    let tilt_at_end = |push: bool| {
        let mut session = SpaceSession::new(&space);
        session.advance(0.5, |_| {}).unwrap();
        if push {
            let hand = Drive::<3>::Accel(Schedule::Constant(Vector3::new(0.0, 0.0, 0.8)));
            session.set_hand(1, hand).unwrap();
        }
        session.advance(1.0, |_| {}).unwrap();
        let state = session.state();
        (tilt(&state.diabolos[0].axle), state.right.pos.z)
    };
    let (still, _) = tilt_at_end(false);
    let (pushed, z) = tilt_at_end(true);
    assert!(still.abs() < 1e-9, "no push, tilt {still}");
    assert!(
        (z - 0.5 * 0.8 * 0.25).abs() < 1e-9,
        "the stick moved {z} m toward the audience"
    );
    // The swing spins w > 0 (clockwise seen from the audience, the opposite of the recordings'
    // sense): pushing the right stick toward the audience raises the near end.
    assert!(pushed > 0.01, "pushed: tilt {pushed} degrees (near end up)");
}

// A linear path's keyframes jump the stick's velocity: the hand does the work of the change,
// 1/2 M (v_after^2 - v_before^2), booked with the hands' work (before, the run in space stopped
// `ledger_open` 0.01 s after the first jump, 5e-3 J out). One diabolo on a taut string, the
// right hand still, then up at 0.5 m/s, down, still: four jumps (the string snapping taut at
// two of them), the ledger closed within 1e-8 J, rigid and fast top.
#[test]
fn a_velocity_jump_in_space_books_the_hands_work() {
    for axle in ["fast_top", "rigid"] {
        let text = format!(
            r#"{{"params": {{"string_length": 1.46}},
              "initial": {{"diabolos": [{{"x": 0.0}}]}},
              "drive": {{"left": {{"type": "path", "keyframes": [[0.0, -0.5, 1.2]]}},
                        "right": {{"type": "path", "interpolation": "linear",
                                   "keyframes": [[0.0, 0.5, 1.2], [0.2, 0.5, 1.2], [0.5, 0.5, 1.35],
                                                 [0.8, 0.5, 1.2], [1.5, 0.5, 1.2]]}}}},
              "sim": {{"space": true, "axle": "{axle}", "duration": 1.5, "rtol": 1e-10}}}}"#
        );
        let report = common::space::in_space(&text, &[]).run(|_| {});
        assert_eq!(report.status, SpaceStatus::Finished, "{axle}");
        let jumps = report
            .events
            .iter()
            .filter(|e| e.kind.name() == "velocity_jump")
            .count();
        assert_eq!(jumps, 4, "{:?}", report.events);
        assert!(
            report.ledger_residual < 1e-8,
            "{axle}: {}",
            report.ledger_residual
        );
    }
}

/// The impacts of a run as (time, impulse), the planar log's `tense` and `contact` events.
fn planar_impacts(report: &diabolo::RunReport) -> Vec<(f64, f64)> {
    use diabolo::simulation::EventKind;
    report
        .events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Tense | EventKind::Contact))
        .filter_map(|e| Some((e.t, e.impulse?)))
        .filter(|(_, impulse)| *impulse > 0.0)
        .collect()
}

/// The impacts of a run in space as (time, impulse).
fn space_impacts(report: &diabolo::simulation::space::SpaceReport) -> Vec<(f64, f64)> {
    use diabolo::simulation::space::SpaceEventKind;
    report
        .events
        .iter()
        .filter_map(|e| match e.kind {
            SpaceEventKind::Tense { impulse, .. } | SpaceEventKind::Contact { impulse, .. } => {
                Some((e.t, impulse))
            }
            _ => None,
        })
        .filter(|(_, impulse)| *impulse > 0.0)
        .collect()
}

// The planar model takes a linear path's velocity jump as the model in space does: a step that
// ends on the keyframe leaves the stick with its velocity from before it, and the run then gives
// it the new one, booking the hand's work, with a tensing where the jump stretches the taut
// string and the string going slack (a resting pair separating) where it shortens it. Before,
// the taut phase wrote the velocity from after the keyframe at the step's end, which moved the
// diabolos along the string silently, and a hand stopping after a move ended the run
// `ledger_open` by 1/2 M v^2. One diabolo, and the resting pair of `two_side_by_side`, lifted at
// 0.5 m/s and lowered again (rtol 1e-12): the planar run ends `ok`, and every tensing and
// contact is the model in space's (two independent implementations) within 1e-9 s, its impulse
// within 1e-9 of the run's largest (measured: 3 impacts within 4e-15 s and 3.4e-14 N s; 15,
// the pair's decaying bounces among them, within 1.6e-11 s and 5.2e-12 N s).
#[test]
fn a_linear_paths_velocity_jumps_keep_the_ledger_and_match_the_model_in_space() {
    let keyframes =
        r#"[[0.0, 0.5, 1.2], [0.2, 0.5, 1.2], [0.5, 0.5, 1.35], [0.8, 0.5, 1.2], [1.5, 0.5, 1.2]]"#;
    let one = format!(
        r#"{{"params": {{"string_length": 1.46}},
          "initial": {{"diabolos": [{{"x": 0.0}}]}},
          "drive": {{"left": {{"type": "path", "keyframes": [[0.0, -0.5, 1.2]]}},
                    "right": {{"type": "path", "interpolation": "linear", "keyframes": {keyframes}}}}},
          "sim": {{"duration": 1.5, "rtol": 1e-12, "atol": 1e-14}}}}"#
    );
    let mut pair: serde_json::Value =
        serde_json::from_str(&common::space::shipped_text("two_side_by_side")).unwrap();
    pair["drive"]["right"] = serde_json::json!({"type": "path", "interpolation": "linear",
        "keyframes": serde_json::from_str::<serde_json::Value>(keyframes).unwrap()});
    pair["sim"]["duration"] = serde_json::json!(1.5);
    pair["sim"]["rtol"] = serde_json::json!(1e-12);
    pair["sim"]["atol"] = serde_json::json!(1e-14);
    for (text, impacts) in [(one, 2), (pair.to_string(), 12)] {
        let (_, planar) = run_text(&text);
        assert!(planar.failure.is_none(), "{:?}", planar.failure);
        assert!((planar.end_time - 1.5).abs() < 1e-12);
        let space = common::space::in_space(&text, &[("sim.space", "true")]).run(|_| {});
        assert_eq!(space.status, SpaceStatus::Finished);
        let (a, b) = (planar_impacts(&planar), space_impacts(&space));
        assert!(a.len() >= impacts, "{a:?}");
        assert_eq!(a.len(), b.len(), "{a:?}\n{b:?}");
        let largest = b.iter().fold(0.0f64, |m, (_, p)| m.max(*p));
        let (mut dt, mut dp) = (0.0f64, 0.0f64);
        for ((ta, pa), (tb, pb)) in a.iter().zip(&b) {
            (dt, dp) = (dt.max((ta - tb).abs()), dp.max((pa - pb).abs()));
        }
        eprintln!(
            "{} impacts: times within {dt:.1e} s, impulses within {dp:.1e} N s",
            a.len()
        );
        assert!(dt < 1e-9, "{a:?}\n{b:?}");
        assert!(dp < 1e-9 * largest, "{a:?}\n{b:?}");
    }
}

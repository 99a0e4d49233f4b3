//! The model in space at one instant (docs/space.md): its vector-form tension solution against
//! the planar rotating-frame solution on planar states, and against an independent Newton solve
//! in 3D; the string's torque on the axle against the exact tangent points of a finite axle.

use crate::common;

use common::space::test_settings;
use common::*;
use diabolo::model::grip::LengthLaw;
use diabolo::model::space::{
    string_torque, AxleValues, SpaceBody, SpaceDiabolo, SpaceParams, SpaceState, SpaceString,
    SpaceTension,
};
use diabolo::model::{AxleMode, FrictionLaw, Params, SlipDirection, StickInput, TautDynamics};
use nalgebra::{DMatrix, DVector, Vector3};

const REL: f64 = 1e-9;

fn lift(v: nalgebra::Vector2<f64>) -> Vector3<f64> {
    Vector3::new(v.x, v.y, 0.0)
}

/// The friction law of a random trial: step, bearing and tanh (random width) in turn.
fn law_of_trial(rng: &mut SplitMix, trial: usize) -> FrictionLaw {
    match trial % 3 {
        0 => FrictionLaw::Step,
        1 => FrictionLaw::Bearing,
        _ => FrictionLaw::Tanh {
            width: rng.uniform(0.05, 1.0),
        },
    }
}

fn space_params(params: &Params) -> SpaceParams {
    SpaceParams::new(*params, AxleValues::default()).unwrap()
}

// On planar states (z = 0, axles along z) the vector form gives the planar model's tensions,
// accelerations, spin rates, hand forces, G and F_C: N = 1..4, knots 0..1, all three friction
// laws, random slip directions, forces and prescribed accelerations.
#[test]
fn space_tension_reduces_to_the_planar_solution_in_the_plane() {
    let mut rng = SplitMix::new(33);
    for trial in 0..800 {
        let n = 1 + trial % 4;
        let (state, length) = random_taut_state(&mut rng, n, (0, 1));
        let law = law_of_trial(&mut rng, trial);
        let params = random_params(&mut rng, law, length);
        let signs = random_signs(&mut rng, n);
        let modes = modes_from_signs(&signs);
        let inputs = if trial % 5 == 4 {
            [
                StickInput::Accel(rng.vector(4.0)),
                StickInput::Force(rng.vector(3.0)),
            ]
        } else {
            [
                StickInput::Force(rng.vector(3.0)),
                StickInput::Force(rng.vector(3.0)),
            ]
        };
        let mut dynamics = TautDynamics::new(&params, n);
        let reduced = dynamics.layout().reduce(&state, length, 1e-9).unwrap();
        dynamics
            .evaluate(reduced.values(), &inputs, &modes)
            .unwrap();

        let space = space_params(&params);
        let lifted = SpaceState::from_planar(&state);
        let mut string = SpaceString::new(n);
        string.update(&lifted).unwrap();
        let mut tension = SpaceTension::new(n);
        let inputs3 = inputs.map(|i| match i {
            StickInput::Force(f) => StickInput::Force(lift(f)),
            StickInput::Accel(a) => StickInput::Accel(lift(a)),
        });
        tension
            .solve(
                &space,
                &lifted,
                &string,
                &inputs3,
                Some(&modes),
                LengthLaw::Inextensible,
            )
            .unwrap();
        let planar = dynamics.tension();
        let t_scale = planar
            .base_tension
            .abs()
            .max(params.diabolo_mass * params.gravity);
        for k in 0..=n {
            assert_close(
                tension.tensions()[k],
                dynamics.segment_tension(k),
                REL,
                t_scale * 10.0,
                &format!("T_{k} (trial {trial})"),
            );
        }
        let a_scale = (0..n + 2)
            .map(|k| dynamics.acceleration(k).norm())
            .fold(params.gravity, f64::max);
        for k in 0..n + 2 {
            assert_close(
                tension.acceleration(k),
                lift(dynamics.acceleration(k)),
                REL,
                a_scale,
                &format!("a_{k} (trial {trial})"),
            );
        }
        for k in 1..=n {
            assert_close(
                tension.spin_rate(k),
                dynamics.spin_rate(k),
                REL,
                t_scale * 10.0 / (params.diabolo_mass * params.spin_inertia) + params.spin_drag,
                &format!("w_{k}' (trial {trial})"),
            );
        }
        assert_close(
            tension.gear_ratio(&space, &string),
            planar.gear_ratio,
            REL,
            1.0,
            "G",
        );
        assert_close(
            string.centrifugal_term(),
            planar.centrifugal_term,
            REL,
            planar.centrifugal_term.abs() + 1.0,
            "F_C",
        );
        if matches!(inputs[0], StickInput::Force(_)) {
            for s in 0..2 {
                assert_close(
                    tension.hand_forces()[s],
                    lift(planar.hand_forces[s]),
                    REL,
                    t_scale * 10.0 + params.stick_mass * a_scale,
                    &format!("F_{s}"),
                );
            }
        }
    }
}

/// A random state in space: N diabolos, segments of 0.1-0.6 m in random directions turning
/// by 0.3-2.5 rad, random velocities (the right stick's corrected so that L' = 0), spins and
/// axles near the normal of each turn (so that the string passes under them). Returns the state
/// and L.
fn random_space_state(rng: &mut SplitMix, n: usize) -> (SpaceState, f64) {
    let unit = |rng: &mut SplitMix| {
        let v = Vector3::new(
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
        );
        v.normalize()
    };
    let mut pos = Vector3::new(rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5), 0.0);
    let mut direction = unit(rng);
    let left = SpaceBody {
        pos,
        vel: Vector3::zeros(),
    };
    let mut diabolos = Vec::new();
    for i in 0..=n {
        pos += rng.uniform(0.1, 0.6) * direction;
        if i < n {
            // Turn by an angle about an axis perpendicular to the direction.
            let axis = direction.cross(&unit(rng)).normalize();
            let angle = rng.uniform(0.3, 2.5);
            let next =
                nalgebra::Rotation3::from_axis_angle(&nalgebra::Unit::new_normalize(axis), angle)
                    * direction;
            let tilt = Vector3::new(
                rng.uniform(-0.3, 0.3),
                rng.uniform(-0.3, 0.3),
                rng.uniform(-0.3, 0.3),
            );
            diabolos.push(SpaceDiabolo {
                pos,
                vel: Vector3::zeros(),
                spin: rng.uniform(-1.0, 1.0),
                knot: 0,
                axle: (axis + tilt).normalize(),
                axle_rate: Vector3::zeros(),
            });
            direction = next;
        }
    }
    let mut state = SpaceState {
        left,
        right: SpaceBody {
            pos,
            vel: Vector3::zeros(),
        },
        diabolos,
    };
    let vel = |rng: &mut SplitMix| {
        2.0 * Vector3::new(
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
        )
    };
    state.left.vel = vel(rng);
    state.right.vel = vel(rng);
    for d in &mut state.diabolos {
        d.vel = vel(rng);
    }
    let length = state.string_used();
    let rate: f64 = (0..=n)
        .map(|i| {
            let d = state.position(i + 1) - state.position(i);
            d.normalize()
                .dot(&(state.velocity(i + 1) - state.velocity(i)))
        })
        .sum();
    let last = (state.right.pos - state.position(n)).normalize();
    state.right.vel -= rate * last;
    (state, length)
}

/// The independent reference: Newton's law for every object with the segment tensions T (less
/// the force lambda of a contact resting across a segment of `resting`, pushing its two objects
/// apart), l_i'' from the second derivative of |x_{i+1} - x_i| along the motion, and the rows
/// the unknowns must satisfy (the string's length held, T_K = d'_K T_{K-1} at a slipping axle,
/// the slip acceleration zero at a gripping one, l_s'' = 0 across a resting contact), solved as a
/// dense linear system by evaluating the residuals on the unit unknowns. Returns T_0..T_N, then
/// each lambda.
fn newton_tensions(
    params: &Params,
    state: &SpaceState,
    inputs: &[StickInput<3>; 2],
    ratios: &[Option<f64>],
    resting: &[usize],
) -> Vec<f64> {
    let n = state.diabolos.len();
    let size = n + 1 + resting.len();
    let g = Vector3::new(0.0, -params.gravity, 0.0);
    let residuals = |t: &[f64]| -> Vec<f64> {
        let dir = |i: usize| (state.position(i + 1) - state.position(i)).normalize();
        let pull = |i: usize| {
            t[i] - resting
                .iter()
                .zip(&t[n + 1..])
                .filter(|(&s, _)| s == i)
                .map(|(_, lambda)| lambda)
                .sum::<f64>()
        };
        let mut acc = vec![Vector3::zeros(); n + 2];
        for j in 0..n + 2 {
            let mut force = Vector3::zeros();
            if j <= n {
                force += pull(j) * dir(j);
            }
            if j > 0 {
                force -= pull(j - 1) * dir(j - 1);
            }
            acc[j] = if j == 0 || j == n + 1 {
                match inputs[usize::from(j != 0)] {
                    StickInput::Accel(a) => a,
                    StickInput::Force(f) => (f + force) / params.stick_mass + g,
                }
            } else {
                force / params.diabolo_mass + g
            };
        }
        // d^2/dt^2 |d| = (d . d'' + |d'|^2) / |d| - (d . d')^2 / |d|^3.
        let second = |i: usize| {
            let d = state.position(i + 1) - state.position(i);
            let dv = state.velocity(i + 1) - state.velocity(i);
            let da = acc[i + 1] - acc[i];
            let l = d.norm();
            (d.dot(&da) + dv.norm_squared()) / l - d.dot(&dv).powi(2) / l.powi(3)
        };
        let mut out = vec![(0..=n).map(second).sum::<f64>()];
        for k in 1..=n {
            out.push(match ratios[k - 1] {
                Some(d) => t[k] - d * t[k - 1],
                None => {
                    let spin_rate = (t[k - 1] - t[k]) / (params.diabolo_mass * params.spin_inertia)
                        - params.spin_drag * state.diabolos[k - 1].spin;
                    spin_rate - (0..k).map(second).sum::<f64>()
                }
            });
        }
        out.extend(resting.iter().map(|&s| second(s)));
        out
    };
    let zero = residuals(&vec![0.0; size]);
    let mut matrix = DMatrix::zeros(size, size);
    for col in 0..size {
        let mut unit = vec![0.0; size];
        unit[col] = 1.0;
        let r = residuals(&unit);
        for row in 0..size {
            matrix[(row, col)] = r[row] - zero[row];
        }
    }
    let rhs = -DVector::from_vec(zero);
    matrix.lu().solve(&rhs).unwrap().iter().copied().collect()
}

// In space, on random states (N = 1..4, random axles, slip directions and gripping axles, force
// and acceleration inputs), the tensions and accelerations equal an independent Newton solve;
// every third state with one or two contacts resting across random segments, their forces too.
#[test]
fn space_tension_and_resting_contacts_match_an_independent_newton_solve_in_3d() {
    let mut rng = SplitMix::new(2033);
    let mut gripping = 0;
    let mut held = 0;
    for trial in 0..600 {
        let n = 1 + trial % 4;
        let (state, length) = random_space_state(&mut rng, n);
        let params = random_params(&mut rng, FrictionLaw::Step, length);
        let space = space_params(&params);
        let mut string = SpaceString::new(n);
        string.update(&state).unwrap();
        let modes: Vec<AxleMode> = (0..n)
            .map(|_| match rng.int(0, 2) {
                0 => AxleMode::Slipping(SlipDirection::Positive),
                1 => AxleMode::Slipping(SlipDirection::Negative),
                _ => AxleMode::Stuck,
            })
            .collect();
        gripping += modes.iter().filter(|m| **m == AxleMode::Stuck).count();
        let inputs = [
            StickInput::Force(
                3.0 * Vector3::new(
                    rng.uniform(-1.0, 1.0),
                    rng.uniform(-1.0, 1.0),
                    rng.uniform(-1.0, 1.0),
                ),
            ),
            if trial % 2 == 0 {
                StickInput::Accel(
                    4.0 * Vector3::new(
                        rng.uniform(-1.0, 1.0),
                        rng.uniform(-1.0, 1.0),
                        rng.uniform(-1.0, 1.0),
                    ),
                )
            } else {
                StickInput::RELEASED
            },
        ];
        let mut resting = Vec::new();
        if trial % 3 == 2 {
            for _ in 0..1 + trial % 2 {
                let s = rng.int(0, n as i64) as usize;
                if !resting.contains(&s) {
                    resting.push(s);
                }
            }
        }
        let mut tension = SpaceTension::new(n);
        tension.set_resting(&resting);
        if tension
            .solve(
                &space,
                &state,
                &string,
                &inputs,
                Some(&modes),
                LengthLaw::Inextensible,
            )
            .is_err()
        {
            continue;
        }
        held += resting.len();
        // The ratios of the slipping axles, from the contact angle about each axle.
        let ratios: Vec<Option<f64>> = (1..=n)
            .map(|k| match modes[k - 1] {
                AxleMode::Stuck => None,
                AxleMode::Slipping(direction) => {
                    let d = &state.diabolos[k - 1];
                    let u = (state.position(k) - state.position(k - 1)).normalize();
                    let v = (state.position(k + 1) - state.position(k)).normalize();
                    let (u, v) = (u - d.axle * d.axle.dot(&u), v - d.axle * d.axle.dot(&v));
                    let angle = u.cross(&v).dot(&d.axle).atan2(u.dot(&v)).max(0.0);
                    Some((direction.sign() * params.friction * angle).exp())
                }
            })
            .collect();
        let expected = newton_tensions(&params, &state, &inputs, &ratios, &resting);
        let scale = expected
            .iter()
            .fold(params.diabolo_mass * params.gravity, |a, t| a.max(t.abs()));
        for k in 0..=n {
            assert_close(
                tension.tensions()[k],
                expected[k],
                1e-8,
                scale,
                &format!("T_{k} (trial {trial})"),
            );
        }
        for (c, &s) in resting.iter().enumerate() {
            assert_close(
                tension.contact_forces()[c],
                expected[n + 1 + c],
                1e-8,
                scale,
                &format!("lambda across segment {s} (trial {trial})"),
            );
        }
        for k in 1..=n {
            if modes[k - 1] == AxleMode::Stuck {
                assert!(
                    tension.slip_acceleration(k, &string).abs()
                        < 1e-7 * (1.0 + scale / params.diabolo_mass),
                    "gripping axle {k} accelerates its slip"
                );
            }
        }
    }
    assert!(gripping > 300, "only {gripping} gripping axles compared");
    assert!(held > 200, "only {held} resting contacts compared");
}

/// The torque of a strand leaving an axle of radius r exactly at its tangent point: the point P
/// on the circle (centre c, plane perpendicular to a) where the strand to the far end S is
/// tangent, on the side the string wraps (`sign`), found by bisection; torque (P - c) x T (S - P).
fn exact_strand_torque(
    c: Vector3<f64>,
    a: Vector3<f64>,
    far: Vector3<f64>,
    tension: f64,
    r: f64,
    sign: f64,
) -> Vector3<f64> {
    let e1 = (far - c - a * a.dot(&(far - c))).normalize();
    let e2 = a.cross(&e1);
    let point = |phi: f64| c + r * (phi.cos() * e1 + phi.sin() * e2);
    // Tangency: (S - P) . (P - c) = 0; on the wrap side sign * phi in (0, pi).
    let f = |phi: f64| (far - point(phi)).dot(&(point(phi) - c));
    let (mut lo, mut hi) = (sign * 1e-9, sign * (std::f64::consts::PI - 1e-9));
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(lo) * f(mid) <= 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let p = point(0.5 * (lo + hi));
    (p - c).cross(&(tension * (far - p).normalize()))
}

// The string's torque on the axle (each strand at its tangent point, radius r) against the
// exact tangent points of a finite axle: equal to first order in r / l (within 3 r / l here),
// and its part along the axle is the spin torque r (T_R - T_L).
#[test]
fn string_torque_matches_exact_tangent_points() {
    let mut rng = SplitMix::new(5);
    for _ in 0..200 {
        let r = 0.0065;
        let c = Vector3::new(0.0, 0.0, 0.0);
        let left = Vector3::new(
            rng.uniform(-0.6, -0.2),
            rng.uniform(0.2, 0.8),
            rng.uniform(-0.2, 0.2),
        );
        let right = Vector3::new(
            rng.uniform(0.2, 0.6),
            rng.uniform(0.2, 0.8),
            rng.uniform(-0.2, 0.2),
        );
        let a = Vector3::new(rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2), 1.0).normalize();
        let (tl, tr) = (rng.uniform(0.5, 3.0), rng.uniform(0.5, 3.0));
        let u_l = (c - left).normalize();
        let u_r = (right - c).normalize();
        let model = string_torque(&a, &u_l, &u_r, (tl, tr), r);
        // Seen from the tip of a (+z), the string runs under the axle from left to right: the
        // left strand leaves at the lower left (counter-clockwise from its far end's direction
        // by a negative angle), the right strand at the lower right.
        let exact = exact_strand_torque(c, a, left, tl, r, 1.0)
            + exact_strand_torque(c, a, right, tr, r, -1.0);
        let perp = exact - a * a.dot(&exact);
        let l = (left - c).norm().min((right - c).norm());
        assert!(
            (model - perp).norm() <= 3.0 * r / l * (tl + tr) * r,
            "model {model} exact {perp}"
        );
        let axial = a.dot(&exact);
        let expected_axial =
            r * (tr * (u_r - a * a.dot(&u_r)).norm() - tl * (u_l - a * a.dot(&u_l)).norm());
        assert!(
            (axial - expected_axial).abs() <= 3.0 * r / l * (tl + tr) * r,
            "axial {axial} expected {expected_axial}"
        );
    }
}

// On planar states (z = 0, axles along z) the tensing impulse in space is the planar one, piece
// by piece through slip reversals and grips: every velocity and spin after it within 1e-12
// (relative), its impulse and loss too; N = 1..4, knots 0..1, all three friction laws, random
// restitution, free and prescribed sticks.
#[test]
fn the_tensing_impulse_in_space_is_the_planar_one_in_the_plane() {
    use diabolo::model::space::space_tensing_impulse;
    use diabolo::model::tensing_impulse_with_restitution;
    let mut rng = SplitMix::new(9090);
    let mut reversed = 0;
    let mut compared = 0;
    for trial in 0..600 {
        let n = 1 + trial % 4;
        let (mut planar, length) = random_taut_state(&mut rng, n, (0, 1));
        let last = (planar.right.pos - planar.diabolos[n - 1].pos).normalize();
        planar.right.vel += rng.uniform(0.1, 3.0) * last;
        let law = law_of_trial(&mut rng, trial);
        let params = random_params(&mut rng, law, length);
        let e = if trial % 2 == 0 {
            0.0
        } else {
            rng.uniform(0.0, 1.0)
        };
        let heavy = [trial % 4 == 0, trial % 5 == 0];
        let mut space_state = SpaceState::from_planar(&planar);
        let space = space_params(&params);
        let Ok(expected) = tensing_impulse_with_restitution(&params, e, &mut planar, heavy) else {
            continue;
        };
        let mut string = SpaceString::new(n);
        let mut work = SpaceTension::new(n);
        let got = space_tensing_impulse(&space, e, &mut space_state, &mut string, &mut work, heavy)
            .unwrap_or_else(|err| panic!("trial {trial}: {err}"));
        compared += 1;
        if expected.mode_changes > 0 {
            reversed += 1;
        }
        let scale = expected.magnitude.abs().max(1e-3);
        assert!(
            (got.impulse - expected.magnitude).abs() < 1e-12 * scale,
            "trial {trial}: {} against {}",
            got.impulse,
            expected.magnitude
        );
        assert!(
            (got.energy_lost - expected.energy_lost).abs() < 1e-10 * (1.0 + expected.energy_lost),
            "trial {trial}: lost {} against {}",
            got.energy_lost,
            expected.energy_lost
        );
        common::space::assert_lifted(&space_state, &planar, 1e-12, &format!("trial {trial}"));
    }
    assert_eq!(compared, 600, "planar impulses that failed");
    assert!(
        reversed > 100,
        "only {reversed} impulses changed a friction mode"
    );
}

// The tensing impulse in space on random states (N = 1..4, free and prescribed sticks): it
// leaves the string not stretching, at L' = -e L'- where no axle changed its friction mode;
// without friction it is the kinetic-metric projection onto L' = 0 of seed 004 (Delta v =
// -M^-1 g (g . v) / (g M^-1 g), g the gradient of sum l); with friction it never creates
// energy, and some axles end gripping (their slip brought to zero).
#[test]
fn the_tensing_impulse_in_space_projects_and_dissipates() {
    use diabolo::model::space::space_tensing_impulse;
    let mut rng = SplitMix::new(4242);
    let mut gripped = 0;
    for trial in 0..600 {
        let n = 1 + trial % 4;
        let (mut state, length) = random_space_state(&mut rng, n);
        // Stretch the string: a random velocity of the right stick along its segment.
        let last = (state.right.pos - state.position(n)).normalize();
        state.right.vel += rng.uniform(0.1, 2.0) * last;
        let frictionless = trial % 3 == 0;
        let law = FrictionLaw::Step;
        let mut params = random_params(&mut rng, law, length);
        if frictionless {
            params = Params::new(diabolo::model::ParamValues {
                friction: 0.0,
                restitution: 0.0,
                ..*params.values()
            })
            .unwrap();
        }
        let space = space_params(&params);
        let prescribed = [trial % 2 == 0, trial % 5 == 0];
        let mut string = SpaceString::new(n);
        string.update(&state).unwrap();
        let before_rate = string.total_length_rate();
        let mut work = SpaceTension::new(n);
        work.update_contacts(
            &space,
            &state,
            &string,
            None,
            diabolo::model::space::SpaceSlipReference::Symmetric,
        );
        let slips_before: Vec<f64> = (1..=n).map(|k| work.contact(k).slip_speed).collect();
        let before = state.clone();
        let Ok(impulse) = space_tensing_impulse(
            &space,
            params.restitution,
            &mut state,
            &mut string,
            &mut work,
            prescribed,
        ) else {
            continue;
        };
        let e = params.restitution;
        let expected_after = if impulse.mode_changes == 0 || e == 0.0 {
            -e * before_rate
        } else {
            impulse.rate_after.min(0.0)
        };
        assert!(
            (impulse.rate_after - expected_after).abs() < 1e-10 * before_rate.abs().max(1.0),
            "trial {trial}: L' after {}",
            impulse.rate_after
        );
        assert!(
            impulse.energy_lost >= -1e-12,
            "trial {trial}: energy created {}",
            impulse.energy_lost
        );
        work.update_contacts(
            &space,
            &state,
            &string,
            None,
            diabolo::model::space::SpaceSlipReference::Symmetric,
        );
        for k in 1..=n {
            let after = work.contact(k).slip_speed;
            if after.abs() < 1e-12 && slips_before[k - 1].abs() > 1e-9 {
                gripped += 1;
            }
        }
        if frictionless {
            // The projection: inverse masses (0 for a prescribed stick), gradient of sum l.
            let mu = |j: usize| {
                if j == 0 || j == n + 1 {
                    if prescribed[usize::from(j != 0)] {
                        0.0
                    } else {
                        1.0 / params.stick_mass
                    }
                } else {
                    1.0 / params.diabolo_mass
                }
            };
            let dir = |i: usize| (before.position(i + 1) - before.position(i)).normalize();
            let grad = |j: usize| {
                (if j > 0 { dir(j - 1) } else { Vector3::zeros() })
                    - (if j <= n { dir(j) } else { Vector3::zeros() })
            };
            let gv: f64 = (0..n + 2).map(|j| grad(j).dot(&before.velocity(j))).sum();
            let gmg: f64 = (0..n + 2).map(|j| mu(j) * grad(j).norm_squared()).sum();
            for j in 0..n + 2 {
                let expected = before.velocity(j) - grad(j) * (mu(j) * gv / gmg);
                assert_close(
                    state.velocity(j),
                    expected,
                    1e-10,
                    before.velocity(j).norm() + 1.0,
                    &format!("v_{j} (trial {trial})"),
                );
            }
        }
    }
    // (Followed piece by piece, most slips brought to zero slip on the other way: 10 of the
    // 600 impulses end gripping.)
    assert!(gripped > 5, "only {gripped} axles gripped at an impulse");
}

// A whole run in space against an independent Cartesian reference: the test's own Newton solve
// (above) integrated by fixed-step RK4 (1e-4 s) with the slip directions of the step law and the
// fast top's axle (the torque of `string_torque`, itself checked against exact tangent points),
// the left hand swinging in x, y and z. The model's diabolo stays within 1e-6 m of the
// reference over 0.6 s, its spin within 1e-6 m/s and its axle within 1e-6.
#[test]
fn a_run_in_space_follows_an_independent_cartesian_reference() {
    use diabolo::model::space::{fast_top_rate, spin_rate_about_axle, AxleValues};
    use diabolo::simulation::space::{SpaceHand, SpaceSimulation, SpaceStatus};
    #[derive(Clone)]
    struct Hand(Vector3<f64>, f64);
    impl Hand {
        fn at(&self, t: f64) -> [Vector3<f64>; 3] {
            let w = self.1;
            let (s, c) = (w * t).sin_cos();
            let amp = Vector3::new(0.05, 0.08, 0.06);
            // At rest at t = 0 (the string taut and not stretching).
            [self.0 + amp * (1.0 - c), amp * (w * s), amp * (w * w * c)]
        }
    }
    impl SpaceHand for Hand {
        fn input(&self, t: f64, _: &SpaceBody) -> StickInput<3> {
            StickInput::Accel(self.at(t)[2])
        }
        fn prescribes_motion(&self) -> bool {
            true
        }
        fn breakpoints(&self) -> Vec<f64> {
            Vec::new()
        }
    }
    let hands = [
        Hand(Vector3::new(-0.4, 0.0, 0.0), 6.0),
        Hand(Vector3::new(0.4, 0.0, 0.0), 0.0),
    ];
    let params = Params::new(diabolo::model::ParamValues {
        spin_drag: 0.05,
        ..Default::default()
    })
    .unwrap();
    let space = SpaceParams::new(
        params,
        AxleValues {
            string_offset: 0.0,
            ..AxleValues::default()
        },
    )
    .unwrap();
    // Hanging at the bottom, spinning fast enough that its slip keeps its sign.
    let b = (0.73f64 * 0.73 - 0.4 * 0.4).sqrt();
    let start = SpaceState {
        left: SpaceBody {
            pos: hands[0].at(0.0)[0],
            vel: hands[0].at(0.0)[1],
        },
        right: SpaceBody {
            pos: hands[1].at(0.0)[0],
            vel: Vector3::zeros(),
        },
        diabolos: vec![SpaceDiabolo {
            pos: Vector3::new(0.0, -b, 0.0),
            spin: -2.0,
            ..SpaceDiabolo::default()
        }],
    };
    let params = Params::new(diabolo::model::ParamValues {
        string_length: start.string_used(),
        spin_drag: 0.05,
        ..Default::default()
    })
    .unwrap();
    let space = SpaceParams {
        planar: params,
        ..space
    };
    let duration = 0.6;
    let sim = SpaceSimulation {
        params: space,
        hands: hands.clone(),
        modes: vec![diabolo::simulation::DiaboloMode::String; start.diabolos.len()],
        initial: start.clone(),
        settings: test_settings(duration, 0.1, (1e-12, 1e-14)),
    };
    let mut rows = Vec::new();
    let report = sim.run(|row| rows.push((row.t, row.state.diabolos[0])));
    assert_eq!(report.status, SpaceStatus::Finished, "{:?}", report.events);
    // The reference: y = (p, v, w, a) of the diabolo; the sticks on their closed-form paths.
    let derivative = |t: f64, p: Vector3<f64>, v: Vector3<f64>, w: f64, a: Vector3<f64>| {
        let mut state = start.clone();
        let [lp, lv, la] = hands[0].at(t);
        state.left = SpaceBody { pos: lp, vel: lv };
        state.diabolos[0] = SpaceDiabolo {
            pos: p,
            vel: v,
            spin: w,
            axle: a,
            ..SpaceDiabolo::default()
        };
        let u_l = (p - lp).normalize();
        let u_r = (state.right.pos - p).normalize();
        let slip = w - u_l.dot(&(v - lv));
        let (pl, pr) = (u_l - a * a.dot(&u_l), u_r - a * a.dot(&u_r));
        let angle = pl.cross(&pr).dot(&a).atan2(pl.dot(&pr)).max(0.0);
        let ratio = (slip.signum() * params.friction * angle).exp();
        let inputs = [StickInput::Accel(la), StickInput::Accel(Vector3::zeros())];
        let t_all = newton_tensions(&params, &state, &inputs, &[Some(ratio)], &[]);
        let g = Vector3::new(0.0, -params.gravity, 0.0);
        let acc = (t_all[1] * u_r - t_all[0] * u_l) / params.diabolo_mass + g;
        let spin_rate = (t_all[0] - t_all[1]) / (params.diabolo_mass * params.spin_inertia)
            - params.spin_drag * w;
        let torque = string_torque(&a, &u_l, &u_r, (t_all[0], t_all[1]), space.axle_radius);
        let rate = fast_top_rate(
            &torque,
            space.polar_inertia,
            spin_rate_about_axle(w, space.axle_radius),
        );
        (v, acc, spin_rate, rate)
    };
    let d0 = start.diabolos[0];
    let (mut p, mut v, mut w, mut a) = (d0.pos, d0.vel, d0.spin, d0.axle);
    let h = 1e-4;
    let mut t = 0.0;
    let mut next = 1;
    for _ in 0..(duration / h).round() as usize {
        let k1 = derivative(t, p, v, w, a);
        let k2 = derivative(
            t + h / 2.0,
            p + k1.0 * h / 2.0,
            v + k1.1 * h / 2.0,
            w + k1.2 * h / 2.0,
            a + k1.3 * h / 2.0,
        );
        let k3 = derivative(
            t + h / 2.0,
            p + k2.0 * h / 2.0,
            v + k2.1 * h / 2.0,
            w + k2.2 * h / 2.0,
            a + k2.3 * h / 2.0,
        );
        let k4 = derivative(
            t + h,
            p + k3.0 * h,
            v + k3.1 * h,
            w + k3.2 * h,
            a + k3.3 * h,
        );
        p += (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0) * h / 6.0;
        v += (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1) * h / 6.0;
        w += (k1.2 + 2.0 * k2.2 + 2.0 * k3.2 + k4.2) * h / 6.0;
        a += (k1.3 + 2.0 * k2.3 + 2.0 * k3.3 + k4.3) * h / 6.0;
        t += h;
        if next < rows.len() && (t - rows[next].0).abs() < h / 2.0 {
            let d = rows[next].1;
            assert!(
                (d.pos - p).norm() < 1e-6,
                "t = {t}: {} against {}",
                d.pos,
                p
            );
            assert!(
                (d.spin - w).abs() < 1e-6,
                "t = {t}: spin {} against {w}",
                d.spin
            );
            assert!(
                (d.axle - a).norm() < 1e-6,
                "t = {t}: axle {} against {a}",
                d.axle
            );
            next += 1;
        }
    }
    assert_eq!(next, rows.len(), "every row compared");
    assert!(
        (p - d0.pos).norm() > 0.01 && (a - d0.axle).norm() > 1e-4,
        "the reference moved: {p} {a}"
    );
}

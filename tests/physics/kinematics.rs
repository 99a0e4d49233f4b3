//! Geometry and kinematics of the rotating frames: the note's closed-form rates (l', phi',
//! theta', L') agree with central finite differences of the geometry moved along the velocity
//! field; the lemma cos phi_0 + cos phi_{N+1} = 2 sum cos phi_i sin psi_i holds; Cartesian and
//! reduced states convert both ways (wrapped and recaptured diabolos included) with the knot
//! degree kept; and the reduced derivative, mapped back to x-y, is the Cartesian velocity and
//! Newton acceleration.

use crate::common;

use approx::{abs_diff_eq, assert_abs_diff_eq};
use common::*;
use diabolo::model::{
    CartesianState, FrictionLaw, Kinematics, ReducedLayout, StickInput, TautDynamics,
};
use proptest::prelude::*;
use std::f64::consts::{FRAC_PI_2, PI, TAU};

/// Moves every position by `h` times its velocity.
fn advanced(state: &CartesianState, h: f64) -> CartesianState {
    let mut s = state.clone();
    s.left.pos += h * s.left.vel;
    s.right.pos += h * s.right.vel;
    for d in &mut s.diabolos {
        d.pos += h * d.vel;
    }
    s
}

fn kinematics(state: &CartesianState) -> Kinematics {
    let mut kin = Kinematics::new(state.diabolo_count());
    kin.load_cartesian(state).unwrap();
    kin
}

/// Difference of two angles that may differ by whole turns (phi_0 is taken in [0, 2 pi)).
fn angle_difference(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(TAU);
    if d > PI {
        d - TAU
    } else {
        d
    }
}

#[test]
fn kinematic_rates_match_finite_differences_of_the_geometry() {
    let mut rng = SplitMix::new(3);
    let h = 1e-6;
    for trial in 0..600 {
        let n = 1 + trial % 6;
        // Any slack: the rates are pure kinematics.
        let mut state = random_positions(&mut rng, n, (-2, 2));
        for k in 0..n + 2 {
            *state.velocity_mut(k) = rng.vector(2.0);
        }
        let kin = kinematics(&state);
        let (plus, minus) = (
            kinematics(&advanced(&state, h)),
            kinematics(&advanced(&state, -h)),
        );
        // Central differences have error O(h^2 |x'''|); with rates of order 10 / s that is ~1e-9.
        let tol = 1e-6;
        for i in 0..=n {
            let fd = (plus.segments()[i].length - minus.segments()[i].length) / (2.0 * h);
            assert_close(
                kin.segments()[i].length_rate,
                fd,
                tol,
                1.0 + fd.abs(),
                &format!("l_{i}'"),
            );
        }
        for k in 0..n + 2 {
            let o = |kin: &Kinematics| kin.objects()[k].phi;
            let fd = angle_difference(o(&plus), o(&minus)) / (2.0 * h);
            assert_close(
                kin.objects()[k].phi_rate,
                fd,
                tol,
                1.0 + fd.abs(),
                &format!("phi_{k}'"),
            );
        }
        for i in 1..=n {
            let fd = (plus.objects()[i].theta - minus.objects()[i].theta) / (2.0 * h);
            assert_close(
                kin.theta_rate(i),
                fd,
                tol,
                1.0 + fd.abs(),
                &format!("theta_{i}'"),
            );
        }
        let fd = (plus.total_length() - minus.total_length()) / (2.0 * h);
        assert_close(kin.total_length_rate(), fd, tol, 1.0 + fd.abs(), "L'");
        assert_close(
            kin.total_length_rate_closed_form(),
            kin.total_length_rate(),
            1e-12,
            10.0,
            "L' closed form",
        );
    }
}

#[test]
fn lemma_cos_phi_sum_holds_on_random_angles() {
    let mut rng = SplitMix::new(11);
    for trial in 0..1000 {
        let n = 1 + trial % 8;
        // phi_0 and psi_i arbitrary reals; psi_0 = psi_{N+1} = -pi/2.
        let mut psi = vec![-FRAC_PI_2];
        psi.extend((0..n).map(|_| rng.uniform(-10.0, 10.0)));
        psi.push(-FRAC_PI_2);
        let mut phi = vec![rng.uniform(-10.0, 10.0)];
        for k in 1..n + 2 {
            phi.push(phi[k - 1] + psi[k - 1] + psi[k]);
        }
        let left = phi[0].cos() + phi[n + 1].cos();
        let right: f64 = 2.0 * (1..=n).map(|i| phi[i].cos() * psi[i].sin()).sum::<f64>();
        assert_close(left, right, 1e-12, 1.0 + 2.0 * n as f64, "lemma");
    }
}

#[test]
fn reduced_state_frames_satisfy_the_lemma() {
    let mut rng = SplitMix::new(12);
    for trial in 0..300 {
        let n = 1 + trial % 6;
        let kin = kinematics(&random_positions(&mut rng, n, (-2, 2)));
        let o = kin.objects();
        let right: f64 = 2.0 * (1..=n).map(|i| o[i].cos_phi * o[i].sin_psi).sum::<f64>();
        assert_close(
            o[0].cos_phi + o[n + 1].cos_phi,
            right,
            1e-12,
            1.0 + n as f64,
            "lemma",
        );
    }
}

#[test]
fn frames_point_as_the_note_defines() {
    // beta_0 = -e_0, beta_{N+1} = +e_N, and each diabolo's beta bisects -e_{i-1} and e_i.
    let mut rng = SplitMix::new(13);
    for trial in 0..300 {
        let n = 1 + trial % 5;
        let state = random_positions(&mut rng, n, (-2, 2));
        let kin = kinematics(&state);
        let o = kin.objects();
        let e = |i: usize| (state.position(i + 1) - state.position(i)).normalize();
        assert!((o[0].beta() + e(0)).norm() < 1e-12);
        assert!((o[n + 1].beta() - e(n)).norm() < 1e-12);
        for i in 1..=n {
            assert!((kin.segment_direction(i) - e(i)).norm() < 1e-12);
            let bisector = e(i) - e(i - 1);
            assert_abs_diff_eq!(
                o[i].beta().perp(&bisector),
                0.0,
                epsilon = 1e-12 * (1.0 + bisector.norm())
            );
        }
        assert!(o[0].phi >= 0.0 && o[0].phi < TAU);
    }
}

#[test]
fn reduced_derivative_maps_to_cartesian_velocity_and_newton_acceleration() {
    // d/dt of the Cartesian state along the reduced rates: central differences of
    // expand(x +- h dX/dt) must give the velocities, the Cartesian Newton accelerations and
    // the spin rates. This checks every rate written by the derivative, including
    // u^a' = a^a + u^b phi' and u^b' = a^b - u^a phi'.
    let mut rng = SplitMix::new(17);
    let h = 1e-5;
    for trial in 0..400 {
        let n = 1 + trial % 5;
        let (state, length) = random_taut_state(&mut rng, n, (-1, 2));
        let params = random_params(&mut rng, FrictionLaw::Step, length);
        let signs = random_signs(&mut rng, n);
        let inputs = [
            StickInput::Force(rng.vector(3.0)),
            StickInput::Force(rng.vector(3.0)),
        ];
        let mut dynamics = TautDynamics::new(&params, n);
        let layout = dynamics.layout();
        let x = layout.reduce(&state, length, 1e-9).unwrap().into_values();
        let mut rates = vec![0.0; layout.len()];
        dynamics
            .rates(&x, &inputs, &modes_from_signs(&signs), &mut rates)
            .unwrap();
        let step = |sign: f64| -> CartesianState {
            let y: Vec<f64> = x
                .iter()
                .zip(&rates)
                .map(|(a, b)| a + sign * h * b)
                .collect();
            layout.expand(&y, length).unwrap()
        };
        let (plus, minus) = (step(1.0), step(-1.0));
        let expected = cartesian_solve(&params, &state, &signs, &inputs);
        let scale = expected
            .accelerations
            .iter()
            .map(|a| a.norm())
            .fold(10.0, f64::max);
        for k in 0..n + 2 {
            let v = (plus.position(k) - minus.position(k)) / (2.0 * h);
            assert!(
                (v - state.velocity(k)).norm() < 1e-6 * (1.0 + scale),
                "v_{k}: {v} vs {}",
                state.velocity(k)
            );
            let a = (plus.velocity(k) - minus.velocity(k)) / (2.0 * h);
            assert!(
                (a - expected.accelerations[k]).norm() < 1e-6 * scale,
                "a_{k}: {a} vs {}",
                expected.accelerations[k]
            );
        }
        for i in 1..=n {
            let fd = (plus.diabolos[i - 1].spin - minus.diabolos[i - 1].spin) / (2.0 * h);
            assert_close(
                fd,
                expected.spin_rates[i - 1],
                1e-6,
                scale,
                &format!("w_{i}'"),
            );
        }
    }
}

fn arbitrary_taut_state() -> impl Strategy<Value = (CartesianState, f64)> {
    (1usize..=6, any::<u64>())
        .prop_map(|(n, seed)| random_taut_state(&mut SplitMix::new(seed), n, (-3, 3)))
}

proptest! {
    #[test]
    fn cartesian_to_reduced_and_back_is_the_identity((state, length) in arbitrary_taut_state()) {
        let layout = ReducedLayout::new(state.diabolo_count());
        let reduced = layout.reduce(&state, length, 1e-9).unwrap();
        let back = layout.expand(reduced.values(), length).unwrap();
        for k in 0..state.diabolo_count() + 2 {
            prop_assert!((back.position(k) - state.position(k)).norm() < 1e-12);
            prop_assert!((back.velocity(k) - state.velocity(k)).norm() < 1e-12);
        }
        for (a, b) in back.diabolos.iter().zip(&state.diabolos) {
            prop_assert_eq!(a.knot, b.knot);
            prop_assert_eq!(a.spin, b.spin);
        }
    }

    #[test]
    fn reduced_to_cartesian_and_back_keeps_theta_and_knot((state, length) in arbitrary_taut_state()) {
        let layout = ReducedLayout::new(state.diabolo_count());
        let x = layout.reduce(&state, length, 1e-9).unwrap().into_values();
        let again = layout.reduce(&layout.expand(&x, length).unwrap(), length, 1e-9).unwrap();
        for (a, b) in again.values().iter().zip(&x) {
            prop_assert!(abs_diff_eq!(a, b, epsilon = 1e-11 * (1.0 + b.abs())), "{} vs {}", a, b);
        }
        for i in 1..=state.diabolo_count() {
            let theta = x[layout.theta(i)];
            prop_assert_eq!((theta / TAU).floor() as i32, state.diabolos[i - 1].knot);
        }
    }
}

#[test]
fn stick_states_of_the_reduced_state_match_the_cartesian_ones() {
    let mut rng = SplitMix::new(19);
    for trial in 0..300 {
        let n = 1 + trial % 6;
        let (state, length) = random_taut_state(&mut rng, n, (-2, 2));
        let params = random_params(&mut rng, FrictionLaw::Step, length);
        let mut dynamics = TautDynamics::new(&params, n);
        let x = dynamics
            .layout()
            .reduce(&state, length, 1e-9)
            .unwrap()
            .into_values();
        dynamics
            .evaluate(
                &x,
                &[StickInput::RELEASED; 2],
                &modes_from_signs(&vec![1.0; n]),
            )
            .unwrap();
        let [left, right] = dynamics.sticks(&x);
        assert!(
            (left.pos - state.left.pos).norm() < 1e-12
                && (left.vel - state.left.vel).norm() < 1e-12
        );
        assert!(
            (right.pos - state.right.pos).norm() < 1e-12
                && (right.vel - state.right.vel).norm() < 1e-12
        );
    }
}

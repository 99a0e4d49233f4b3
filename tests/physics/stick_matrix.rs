//! The stick matrix B of the note (section 2-1): stick accelerations from normalised hand
//! forces, a = B F^ + C in the sticks' frames and a = B' F^ + C' in x-y with B' = R2 B R2^-1.
//! Checked: det B = 1 - (1 + d_N) G / 2, the closed-form B^-1 is the inverse, B' reproduces the
//! forward solution, the inverse problem (accelerations in, forces out; both sticks driven, or
//! one driven and the other released or forced) reproduces the requested accelerations when fed
//! back, and the straight string (det B = 0) is regularised and reported, never a panic.

use crate::common;

use common::*;
use diabolo::model::tension::block_rotation;
use diabolo::model::{
    CartesianState, FrictionLaw, ParamValues, Params, Regularisation, StickInput, StickMatrix,
    TautDynamics,
};
use nalgebra::{Matrix4, Vector2, Vector4};

fn evaluated(
    params: &Params,
    state: &CartesianState,
    signs: &[f64],
    inputs: &[StickInput; 2],
) -> TautDynamics {
    let n = state.diabolo_count();
    let mut dynamics = TautDynamics::new(params, n);
    let x = dynamics
        .layout()
        .reduce(state, params.string_length, 1e-9)
        .unwrap()
        .into_values();
    dynamics
        .evaluate(&x, inputs, &modes_from_signs(signs))
        .unwrap();
    dynamics
}

#[test]
fn determinant_and_closed_form_inverse_of_b() {
    let mut rng = SplitMix::new(61);
    for _ in 0..2000 {
        let matrix = StickMatrix {
            gear_ratio: rng.uniform(0.01, 1.9),
            last_ratio: rng.uniform(0.05, 5.0),
        };
        let b = matrix.matrix();
        assert_close(b.determinant(), matrix.determinant(), 1e-12, 1.0, "det B");
        if matrix.determinant().abs() > 1e-3 {
            let product = matrix.inverse() * b;
            assert!(
                approx::abs_diff_eq!(
                    product,
                    Matrix4::identity(),
                    epsilon = 1e-9 / matrix.determinant().abs()
                ),
                "{product}"
            );
        }
    }
}

#[test]
fn world_stick_matrix_reproduces_the_forward_solution() {
    let mut rng = SplitMix::new(67);
    for trial in 0..800 {
        let n = 1 + trial % 5;
        let (state, length) = random_taut_state(&mut rng, n, (0, 2));
        let params = random_params(&mut rng, FrictionLaw::Step, length);
        let signs = random_signs(&mut rng, n);
        let forces = [rng.vector(3.0), rng.vector(3.0)];
        let dynamics = evaluated(&params, &state, &signs, &forces.map(StickInput::Force));
        let t = dynamics.tension();
        let d_n = dynamics.axles().last_ratio();
        let o = dynamics.kinematics().objects();
        let (left, right) = (&o[0], &o[n + 1]);
        let g = params.gravity;
        let c = Vector4::new(
            -g * left.sin_phi,
            -g * left.cos_phi - t.gear_ratio * t.centrifugal_term,
            -g * right.sin_phi,
            -g * right.cos_phi - d_n * t.gear_ratio * t.centrifugal_term,
        );
        let matrix = StickMatrix {
            gear_ratio: t.gear_ratio,
            last_ratio: d_n,
        };
        let f =
            Vector4::new(forces[0].x, forces[0].y, forces[1].x, forces[1].y) / params.stick_mass;
        let a =
            matrix.world_matrix(left.phi, right.phi) * f + block_rotation(left.phi, right.phi) * c;
        let (a0, a1) = (dynamics.acceleration(0), dynamics.acceleration(n + 1));
        let scale = a.amax() + g;
        let got = Vector4::new(a0.x, a0.y, a1.x, a1.y);
        assert_close(got, a, 1e-12, scale, "B' F + C'");
    }
}

#[test]
fn solved_hand_forces_reproduce_the_requested_stick_accelerations() {
    let mut rng = SplitMix::new(71);
    for trial in 0..1500 {
        let n = 1 + trial % 6;
        let (state, length) = random_taut_state(&mut rng, n, (-1, 2));
        let params = random_params(&mut rng, FrictionLaw::Step, length);
        let signs = random_signs(&mut rng, n);
        let wanted = [rng.vector(6.0), rng.vector(6.0)];
        let other = StickInput::Force(rng.vector(2.0));
        let inputs = match trial % 4 {
            0 => [StickInput::Accel(wanted[0]), StickInput::Accel(wanted[1])],
            1 => [StickInput::Accel(wanted[0]), StickInput::RELEASED],
            2 => [StickInput::RELEASED, StickInput::Accel(wanted[1])],
            _ => [other, StickInput::Accel(wanted[1])],
        };
        let driven = evaluated(&params, &state, &signs, &inputs);
        if driven.tension().regularised {
            continue;
        }
        let forces = driven.tension().hand_forces.map(StickInput::Force);
        let fed_back = evaluated(&params, &state, &signs, &forces);
        // The force solve divides by 2 det B (both driven) or by 1 - G/2, 1 - d_N G/2 (one
        // driven, bounded below by 1/(1 + d_N) and d_N/(1 + d_N)): round-off grows with 1/det.
        let det = StickMatrix {
            gear_ratio: driven.tension().gear_ratio,
            last_ratio: driven.axles().last_ratio(),
        }
        .determinant();
        let amplification = if trial % 4 == 0 {
            1.0 / det
        } else {
            1.0 + driven
                .axles()
                .last_ratio()
                .max(1.0 / driven.axles().last_ratio())
        };
        for (s, k) in [(0, 0), (1, n + 1)] {
            if let StickInput::Accel(a) = inputs[s] {
                let got = fed_back.acceleration(k);
                let scale = (a.norm()
                    + params.gravity
                    + fed_back.tension().base_tension.abs() / params.stick_mass)
                    * amplification;
                assert!(
                    (got - a).norm() < 1e-12 * scale,
                    "trial {trial}: stick {s} got {got}, wanted {a}"
                );
            }
        }
        assert_close(
            fed_back.tension().base_tension,
            driven.tension().base_tension,
            1e-12 * amplification,
            1.0 + driven.tension().base_tension.abs(),
            "T_0",
        );
    }
}

/// One diabolo exactly on the straight line between the sticks: sin psi = 0, S = 0, det B = 0.
fn straight_string() -> (Params, CartesianState) {
    let params = Params::new(ParamValues {
        string_length: 1.0,
        ..Default::default()
    })
    .unwrap();
    let mut state = CartesianState::default();
    state.left.pos = Vector2::new(-0.5, 0.0);
    state.right.pos = Vector2::new(0.5, 0.0);
    state.diabolos = vec![diabolo::model::DiaboloState {
        pos: Vector2::new(0.1, 0.0),
        ..Default::default()
    }];
    (params, state)
}

#[test]
fn straight_string_with_both_sticks_driven_is_regularised_and_reported() {
    let (params, state) = straight_string();
    let inputs = [
        StickInput::Accel(Vector2::new(0.0, 1.0)),
        StickInput::Accel(Vector2::new(0.3, -2.0)),
    ];
    for regularisation in [
        Regularisation::DenominatorFloor(1e-6),
        Regularisation::ForceCap(50.0),
    ] {
        let mut dynamics = TautDynamics::new(&params, 1).with_regularisation(regularisation);
        let x = dynamics
            .layout()
            .reduce(&state, 1.0, 1e-12)
            .unwrap()
            .into_values();
        dynamics
            .evaluate(&x, &inputs, &modes_from_signs(&[1.0]))
            .unwrap();
        let t = dynamics.tension();
        assert!(t.regularised, "{regularisation:?} not reported");
        assert!(t.base_tension.is_finite());
        for f in t.hand_forces {
            assert!(f.norm().is_finite());
            if let Regularisation::ForceCap(cap) = regularisation {
                assert!(
                    f.norm() <= cap * (1.0 + 1e-12),
                    "|F| = {} above the cap",
                    f.norm()
                );
            }
        }
    }
    // One stick driven, the other released: never singular, never regularised.
    let mut dynamics = TautDynamics::new(&params, 1);
    let x = dynamics
        .layout()
        .reduce(&state, 1.0, 1e-12)
        .unwrap()
        .into_values();
    dynamics
        .evaluate(
            &x,
            &[inputs[0], StickInput::RELEASED],
            &modes_from_signs(&[1.0]),
        )
        .unwrap();
    assert!(!dynamics.tension().regularised);
    assert!((dynamics.acceleration(0) - Vector2::new(0.0, 1.0)).norm() < 1e-12);
}

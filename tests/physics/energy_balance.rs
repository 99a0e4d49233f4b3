//! Energy: along the taut-phase flow, dE/dt (central differences of E along the reduced rates)
//! equals the hands' power minus the friction dissipation sum_i (T_i - T_{i-1}) w'_i minus the
//! drag loss sum_i m J D w_i^2, on random states with all friction laws, wrapped and recaptured
//! diabolos; and the friction dissipation is never negative.

use crate::common;

use common::*;
use diabolo::model::{mechanical_energy, AxleMode, FrictionLaw, StickInput, TautDynamics};

#[test]
fn power_balance_matches_energy_rate_along_the_flow() {
    let mut rng = SplitMix::new(23);
    let h = 1e-6;
    for trial in 0..800 {
        let n = 1 + trial % 5;
        let (state, length) = random_taut_state(&mut rng, n, (-2, 2));
        let law = match trial % 3 {
            0 => FrictionLaw::Step,
            1 => FrictionLaw::Bearing,
            _ => FrictionLaw::Tanh {
                width: rng.uniform(0.01, 0.5),
            },
        };
        let params = random_params(&mut rng, law, length);
        let inputs = match trial % 2 {
            0 => [
                StickInput::Force(rng.vector(3.0)),
                StickInput::Force(rng.vector(3.0)),
            ],
            _ => [StickInput::Accel(rng.vector(3.0)), StickInput::RELEASED],
        };
        let mut dynamics = TautDynamics::new(&params, n);
        let layout = dynamics.layout();
        let x = layout.reduce(&state, length, 1e-9).unwrap().into_values();
        // Modes follow the slip: friction opposes the actual slip, as the physics requires.
        let probe = vec![AxleMode::from_slip(0.0); n];
        dynamics.evaluate(&x, &inputs, &probe).unwrap();
        let modes: Vec<AxleMode> = dynamics
            .axles()
            .contacts()
            .iter()
            .map(|c| AxleMode::from_slip(c.slip_speed))
            .collect();
        let mut rates = vec![0.0; layout.len()];
        dynamics.rates(&x, &inputs, &modes, &mut rates).unwrap();
        let balance = dynamics.power_balance();
        let energy = |sign: f64| {
            let y: Vec<f64> = x
                .iter()
                .zip(&rates)
                .map(|(a, b)| a + sign * h * b)
                .collect();
            mechanical_energy(&params, &layout.expand(&y, length).unwrap())
        };
        let fd = (energy(1.0) - energy(-1.0)) / (2.0 * h);
        let scale =
            balance.hand_power.abs() + balance.friction_dissipation.abs() + balance.drag_loss + 1.0;
        assert_close(balance.energy_rate(), fd, 1e-6, scale, "dE/dt");
        if dynamics.tension().base_tension >= 0.0 {
            assert!(
                balance.friction_dissipation >= 0.0,
                "dissipation {} < 0",
                balance.friction_dissipation
            );
        }
        assert!(balance.drag_loss >= 0.0);
    }
}

#[test]
fn friction_dissipation_is_never_negative_when_modes_follow_the_slip() {
    // For every law, c'_i has the sign of w'_i (or is 0), so each axle's
    // (T_i - T_{i-1}) w'_i = T_0 d_{i-1} (exp(c' theta') - 1) w'_i >= 0 while T_0 >= 0.
    let mut rng = SplitMix::new(29);
    let mut positive = 0;
    for trial in 0..3000 {
        let n = 1 + trial % 6;
        let (state, length) = random_taut_state(&mut rng, n, (-2, 2));
        let law = [
            FrictionLaw::Step,
            FrictionLaw::Bearing,
            FrictionLaw::Tanh { width: 0.05 },
        ][trial % 3];
        let params = random_params(&mut rng, law, length);
        let mut dynamics = TautDynamics::new(&params, n);
        let x = dynamics
            .layout()
            .reduce(&state, length, 1e-9)
            .unwrap()
            .into_values();
        let inputs = [
            StickInput::Force(rng.vector(3.0)),
            StickInput::Force(rng.vector(3.0)),
        ];
        dynamics
            .evaluate(&x, &inputs, &vec![AxleMode::from_slip(0.0); n])
            .unwrap();
        let modes: Vec<AxleMode> = dynamics
            .axles()
            .contacts()
            .iter()
            .map(|c| AxleMode::from_slip(c.slip_speed))
            .collect();
        dynamics.evaluate(&x, &inputs, &modes).unwrap();
        let dissipation = dynamics.power_balance().friction_dissipation;
        let taut = dynamics.tension().base_tension >= 0.0;
        if taut {
            assert!(
                dissipation >= 0.0,
                "trial {trial}: dissipation {dissipation}"
            );
            positive += usize::from(dissipation > 0.0);
        } else {
            // A negative T_0 is a loosening string: the sign flips with it.
            assert!(dissipation <= 0.0);
        }
    }
    assert!(positive > 1000, "only {positive} states dissipated");
}

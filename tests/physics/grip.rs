//! Gripping axles: when an axle grips the string (w' = 0 held), its tension ratio is solved
//! with T_0 from L'' = 0 and d(w')/dt = 0. Checked: with no axle gripping the general solve
//! reproduces the note's closed form; a gripping axle's slip speed stays put along the flow
//! (finite differences) while the slip accelerations of the slipping ones match; the solved
//! tensions satisfy Newton in Cartesian form; and the energy balance closes with no friction
//! loss at a gripping axle.

use crate::common;

use approx::{abs_diff_eq, assert_abs_diff_eq};
use common::*;
use diabolo::model::grip::{FrameInput, GripSolver, LengthLaw};
use diabolo::model::{mechanical_energy, AxleMode, FrictionLaw, StickInput, TautDynamics};

/// Modes with each axle stuck with probability 1/2 (at least one), otherwise slipping randomly.
fn mixed_modes(rng: &mut SplitMix, n: usize) -> (Vec<AxleMode>, Vec<f64>) {
    let signs = random_signs(rng, n);
    let mut modes = modes_from_signs(&signs);
    for mode in modes.iter_mut() {
        if rng.coin() {
            *mode = AxleMode::Stuck;
        }
    }
    let pick = rng.int(0, n as i64 - 1) as usize;
    modes[pick] = AxleMode::Stuck;
    (modes, signs)
}

#[test]
fn general_solve_without_grip_reproduces_the_closed_form() {
    let mut rng = SplitMix::new(201);
    for trial in 0..500 {
        let n = 1 + trial % 6;
        let (state, length) = random_taut_state(&mut rng, n, (-1, 2));
        let params = random_params(&mut rng, FrictionLaw::Step, length);
        let signs = random_signs(&mut rng, n);
        let modes = modes_from_signs(&signs);
        let forces = [rng.vector(3.0), rng.vector(3.0)];
        let mut dynamics = TautDynamics::new(&params, n);
        let x = dynamics
            .layout()
            .reduce(&state, length, 1e-9)
            .unwrap()
            .into_values();
        dynamics
            .evaluate(&x, &forces.map(StickInput::Force), &modes)
            .unwrap();
        let o = dynamics.kinematics().objects();
        let sticks = [(0usize, 0usize), (1, n + 1)].map(|(s, k)| {
            FrameInput::in_frame(StickInput::Force(forces[s]), &o[k], params.stick_mass)
        });
        let spins: Vec<f64> = (1..=n).map(|i| dynamics.spin(i)).collect();
        let contacts = dynamics.axles().contacts();
        let mut solver = GripSolver::new(n);
        let tensions = solver
            .solve(
                &params,
                dynamics.kinematics(),
                &sticks,
                dynamics.axles().tension_ratios(),
                &modes,
                &[],
                &spins,
                |k| contacts[k - 1].side,
                LengthLaw::Inextensible,
            )
            .unwrap();
        for j in 0..=n {
            let expected = dynamics.segment_tension(j);
            let scale = dynamics
                .tension()
                .base_tension
                .abs()
                .max(params.diabolo_mass * params.gravity)
                * dynamics
                    .axles()
                    .tension_ratios()
                    .iter()
                    .fold(1.0_f64, |a, &b| a.max(b));
            assert_close(tensions[j], expected, 1e-10, scale, &format!("T_{j}"));
        }
    }
}

#[test]
fn gripping_axle_holds_its_slip_and_newton_holds() {
    let mut rng = SplitMix::new(203);
    let h = 1e-6;
    let mut checked = 0;
    for trial in 0..600 {
        let n = 1 + trial % 5;
        let (state, length) = random_taut_state(&mut rng, n, (0, 2));
        let params = random_params(&mut rng, FrictionLaw::Step, length);
        let (modes, signs) = mixed_modes(&mut rng, n);
        let inputs = match trial % 3 {
            0 => [
                StickInput::Force(rng.vector(3.0)),
                StickInput::Force(rng.vector(3.0)),
            ],
            1 => [StickInput::Accel(rng.vector(3.0)), StickInput::RELEASED],
            _ => [
                StickInput::Accel(rng.vector(3.0)),
                StickInput::Accel(rng.vector(3.0)),
            ],
        };
        let mut dynamics = TautDynamics::new(&params, n);
        let layout = dynamics.layout();
        let x = layout.reduce(&state, length, 1e-9).unwrap().into_values();
        let mut rates = vec![0.0; layout.len()];
        if dynamics.rates(&x, &inputs, &modes, &mut rates).is_err() {
            continue; // a singular grip system (straight string between driven sticks)
        }
        checked += 1;
        let ratios = dynamics.axles().tension_ratios().to_vec();
        // Newton in Cartesian form with the solved ratios: same T_0 and accelerations.
        let expected = cartesian_solve_with(&params, &state, &signs, &inputs, Some(&ratios));
        let scale = expected
            .accelerations
            .iter()
            .map(|a| a.norm())
            .fold(params.gravity, f64::max);
        assert_close(
            dynamics.tension().base_tension,
            expected.base_tension,
            1e-8,
            params.diabolo_mass * scale * ratios.iter().fold(1.0_f64, |a, &b| a.max(b)),
            "T_0",
        );
        for k in 0..n + 2 {
            assert!(
                (dynamics.acceleration(k) - expected.accelerations[k]).norm() < 1e-8 * scale,
                "a_{k}"
            );
        }
        // Slip speeds along the flow: zero rate at gripping axles.
        let slip_at = |sign: f64| -> Vec<f64> {
            let y: Vec<f64> = x
                .iter()
                .zip(&rates)
                .map(|(a, b)| a + sign * h * b)
                .collect();
            let mut probe = TautDynamics::new(&params, n);
            probe
                .evaluate(&y, &inputs, &modes_from_signs(&signs))
                .unwrap();
            probe
                .axles()
                .contacts()
                .iter()
                .map(|c| c.slip_speed)
                .collect()
        };
        let (plus, minus) = (slip_at(1.0), slip_at(-1.0));
        let predicted = dynamics.slip_accelerations().to_vec();
        for k in 0..n {
            let rate = (plus[k] - minus[k]) / (2.0 * h);
            // The model's slip acceleration (what the Filippov rule reads) matches the flow...
            assert_close(
                predicted[k],
                rate,
                1e-5,
                1.0 + scale,
                &format!("slip acceleration {}", k + 1),
            );
            // ...and is zero where the axle grips.
            if modes[k] == AxleMode::Stuck {
                assert!(
                    abs_diff_eq!(rate, 0.0, epsilon = 1e-5 * (1.0 + scale)),
                    "trial {trial}: axle {} slip rate {rate}",
                    k + 1
                );
                assert_abs_diff_eq!(predicted[k], 0.0, epsilon = 1e-9 * (1.0 + scale));
            }
        }
    }
    assert!(checked > 500, "only {checked} grip states solved");
}

#[test]
fn energy_balance_closes_with_gripping_axles() {
    let mut rng = SplitMix::new(207);
    let h = 1e-6;
    for trial in 0..400 {
        let n = 1 + trial % 4;
        let (state, length) = random_taut_state(&mut rng, n, (-1, 2));
        let params = random_params(&mut rng, FrictionLaw::Step, length);
        let (mut modes, _) = mixed_modes(&mut rng, n);
        let inputs = [
            StickInput::Force(rng.vector(3.0)),
            StickInput::Accel(rng.vector(3.0)),
        ];
        let mut dynamics = TautDynamics::new(&params, n);
        let layout = dynamics.layout();
        let x = layout.reduce(&state, length, 1e-9).unwrap().into_values();
        // Slipping axles follow their slip (so friction dissipates).
        dynamics.evaluate(&x, &inputs, &modes).unwrap();
        for (mode, contact) in modes.iter_mut().zip(dynamics.axles().contacts()) {
            if *mode != AxleMode::Stuck {
                *mode = AxleMode::from_slip(contact.slip_speed);
            }
        }
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
        // A gripping axle whose slip is not exactly zero in this random state would do work at
        // rate (T_k - T_{k-1}) w'_k; the balance accounts for it all the same.
        let scale =
            balance.hand_power.abs() + balance.friction_dissipation.abs() + balance.drag_loss + 1.0;
        assert_close(balance.energy_rate(), fd, 1e-6, scale, "dE/dt");
    }
}

// The banded solve of a long gripping chain (linear in N) finds the tensions the dense solve
// finds, for random taut chains of 4 to 24 diabolos, random gripping patterns (at least four
// axles gripping, runs of them and isolated ones), both stick inputs and both friction laws;
// and its tensions zero the gripping axles' slip accelerations and L'' on their own.
#[test]
fn a_long_gripping_chain_solves_banded_as_the_dense_solve_does() {
    let mut rng = SplitMix::new(717);
    let solved = (0..600)
        .filter(|&trial| {
            let n = 4 + trial % 21;
            let (mut modes, _) = mixed_modes(&mut rng, n);
            // At least four grips: the banded solve's range.
            for k in (0..n).step_by(n / 4) {
                modes[k] = AxleMode::Stuck;
            }
            banded_equals_dense(&mut rng, trial, &modes)
        })
        .count();
    assert!(solved > 500, "{solved} of 600 chains solved");
}

// The same with every axle gripping on chains of 32 to 256 diabolos: the substitution along
// the band (whose rows are not diagonally dominant) keeps its accuracy over long chains.
#[test]
fn every_axle_gripping_on_chains_up_to_256_solves_as_the_dense_solve_does() {
    let mut rng = SplitMix::new(719);
    let solved = (0..40)
        .filter(|&trial| {
            let n = [32, 64, 128, 256][trial % 4];
            banded_equals_dense(&mut rng, trial, &vec![AxleMode::Stuck; n])
        })
        .count();
    assert!(solved > 30, "{solved} of 40 chains solved");
}

/// Solves a random taut chain with the axles in `modes` by the banded and the dense solves;
/// asserts they agree (1e-9 of the largest tension) and that the banded tensions zero L'' and
/// the gripping axles' slip accelerations. False when the chain has no solution to compare.
fn banded_equals_dense(rng: &mut SplitMix, trial: usize, modes: &[AxleMode]) -> bool {
    let n = modes.len();
    let (state, length) = random_taut_state(rng, n, (0, 1));
    let law = if trial % 3 == 0 {
        FrictionLaw::Bearing
    } else {
        FrictionLaw::Step
    };
    let params = random_params(rng, law, length);
    let inputs = if trial % 2 == 0 {
        [rng.vector(3.0), rng.vector(3.0)].map(StickInput::Force)
    } else {
        [rng.vector(3.0), rng.vector(3.0)].map(StickInput::Accel)
    };
    let mut dynamics = TautDynamics::new(&params, n);
    let x = dynamics
        .layout()
        .reduce(&state, length, 1e-9)
        .unwrap()
        .into_values();
    if dynamics.evaluate(&x, &inputs, modes).is_err() {
        return false;
    }
    let o = dynamics.kinematics().objects();
    let sticks = [(0usize, 0usize), (1, n + 1)]
        .map(|(s, k)| FrameInput::in_frame(inputs[s], &o[k], params.stick_mass));
    let spins: Vec<f64> = (1..=n).map(|i| dynamics.spin(i)).collect();
    let contacts = dynamics.axles().contacts();
    let ratios = dynamics.axles().tension_ratios();
    let solve = |chain_blocks: usize| {
        let mut solver = GripSolver::new(n);
        solver.set_chain_blocks(chain_blocks);
        solver
            .solve(
                &params,
                dynamics.kinematics(),
                &sticks,
                ratios,
                modes,
                &[],
                &spins,
                |k| contacts[k - 1].side,
                LengthLaw::Inextensible,
            )
            .map(|t| t.to_vec())
    };
    let (Ok(banded), Ok(dense)) = (solve(2), solve(usize::MAX)) else {
        return false;
    };
    let scale = dense.iter().fold(1.0_f64, |a, t| a.max(t.abs()));
    for j in 0..=n {
        assert!(
            (banded[j] - dense[j]).abs() <= 1e-9 * scale,
            "trial {trial}, n = {n}, T_{j}: banded {} dense {} (modes {modes:?})",
            banded[j],
            dense[j]
        );
    }
    // On its own: the gripping axles do not start slipping and the string keeps its length.
    let mut acc = vec![(0.0, 0.0); n + 2];
    diabolo::model::grip::frame_accelerations(
        &params,
        dynamics.kinematics(),
        &sticks,
        &banded,
        &mut acc,
    );
    let length = diabolo::model::grip::length_acceleration(dynamics.kinematics(), &acc);
    let mut slips = vec![0.0; n];
    diabolo::model::grip::slip_accelerations(
        &params,
        dynamics.kinematics(),
        &acc,
        &banded,
        &spins,
        |k| contacts[k - 1].side,
        LengthLaw::Inextensible,
        &mut slips,
    );
    let acceleration_scale = scale / params.diabolo_mass.min(params.stick_mass) + 10.0;
    assert!(
        length.abs() <= 1e-9 * acceleration_scale,
        "trial {trial}: L'' = {length}"
    );
    for k in 1..=n {
        if modes[k - 1] == AxleMode::Stuck {
            let slip = slips[k - 1];
            let bound = 1e-9 * acceleration_scale / params.spin_inertia.min(1.0);
            assert!(
                slip.abs() <= bound,
                "trial {trial}: axle {k} slips at {slip}"
            );
        }
    }
    true
}

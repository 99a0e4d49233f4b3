//! Invariants over random states, as property tests (proptest shrinks a failure to a small
//! case): the frame lemma, non-negative friction dissipation on a taut string, an impact never
//! creating energy, an impact with every axle at zero slip completing, and the loose phase
//! being free fall plus the hands' forces.

use crate::common;

use approx::abs_diff_eq;
use common::*;
use diabolo::model::energy::kinetic_energy;
use diabolo::model::{
    loose_accelerations, tensing_impulse, AxleMode, FrictionLaw, StickInput, TautDynamics,
};
use nalgebra::Vector2;
use proptest::prelude::*;

fn law(index: u8) -> FrictionLaw {
    match index % 3 {
        0 => FrictionLaw::Step,
        1 => FrictionLaw::Bearing,
        _ => FrictionLaw::Tanh { width: 0.05 },
    }
}

proptest! {
    #[test]
    fn frame_lemma_holds(n in 1usize..=6, seed in any::<u64>()) {
        let (state, length) = random_taut_state(&mut SplitMix::new(seed), n, (-2, 2));
        let params = random_params(&mut SplitMix::new(seed ^ 1), FrictionLaw::Step, length);
        let mut dynamics = TautDynamics::new(&params, n);
        let x = dynamics.layout().reduce(&state, length, 1e-9).unwrap().into_values();
        dynamics.evaluate(&x, &[StickInput::RELEASED; 2], &vec![AxleMode::from_slip(1.0); n]).unwrap();
        let o = dynamics.kinematics().objects();
        let right: f64 = 2.0 * (1..=n).map(|i| o[i].cos_phi * o[i].sin_psi).sum::<f64>();
        prop_assert!(abs_diff_eq!(o[0].cos_phi + o[n + 1].cos_phi, right, epsilon = 1e-12 * (1.0 + n as f64)));
    }

    #[test]
    fn friction_never_adds_energy_on_a_taut_string(n in 1usize..=6, seed in any::<u64>(), law_index in 0u8..3) {
        let mut rng = SplitMix::new(seed);
        let (state, length) = random_taut_state(&mut rng, n, (-2, 2));
        let params = random_params(&mut rng, law(law_index), length);
        let mut dynamics = TautDynamics::new(&params, n);
        let x = dynamics.layout().reduce(&state, length, 1e-9).unwrap().into_values();
        let inputs = [StickInput::Force(rng.vector(3.0)), StickInput::Accel(rng.vector(3.0))];
        dynamics.evaluate(&x, &inputs, &vec![AxleMode::from_slip(0.0); n]).unwrap();
        let modes: Vec<AxleMode> = dynamics.axles().contacts().iter().map(|c| AxleMode::from_slip(c.slip_speed)).collect();
        dynamics.evaluate(&x, &inputs, &modes).unwrap();
        prop_assume!(dynamics.tension().base_tension >= 0.0);
        prop_assert!(dynamics.power_balance().friction_dissipation >= 0.0);
    }

    #[test]
    fn an_impact_never_creates_energy(n in 1usize..=5, seed in any::<u64>(), law_index in 0u8..3, heavy in any::<[bool; 2]>()) {
        let mut rng = SplitMix::new(seed);
        let (mut state, length) = random_taut_state(&mut rng, n, (-1, 2));
        let e_n = (state.right.pos - state.diabolos[n - 1].pos).normalize();
        state.right.vel += rng.uniform(0.05, 3.0) * e_n;
        let params = random_params(&mut rng, law(law_index), length);
        let kinetic = kinetic_energy(&params, &state);
        let before = state.clone();
        let record = tensing_impulse(&params, &mut state, heavy).unwrap();
        prop_assert!(record.energy_lost >= -1e-12 * kinetic, "{:?}", record);
        prop_assert!(record.length_rate_after <= 1e-12 * record.length_rate_before, "{:?} {:?}", record, params);
        assert_string_impact(&params, &before, &state);
    }

    // Every axle at zero slip when the string snaps taut: all of them decide their friction
    // modes together at once, the case where one-at-a-time decisions can cycle. The impact
    // completes (no error, the string no longer stretching), creates no energy, and is one a
    // string with capstan friction can give (checked from the Cartesian velocities and spins).
    #[test]
    fn an_impact_with_every_axle_at_zero_slip_completes(n in 2usize..=10, seed in any::<u64>(), law_index in 0u8..3, heavy in any::<[bool; 2]>()) {
        let mut rng = SplitMix::new(seed);
        let (mut state, length) = random_taut_state(&mut rng, n, (-1, 2));
        let e_n = (state.right.pos - state.diabolos[n - 1].pos).normalize();
        state.right.vel += rng.uniform(0.05, 3.0) * e_n;
        zero_slips(&mut state);
        let params = random_params(&mut rng, law(law_index), length);
        let kinetic = kinetic_energy(&params, &state);
        let before = state.clone();
        let record = tensing_impulse(&params, &mut state, heavy);
        prop_assert!(record.is_ok(), "{:?}", record);
        let record = record.unwrap();
        prop_assert!(record.energy_lost >= -1e-12 * kinetic, "{:?}", record);
        prop_assert!(record.length_rate_after <= 1e-12 * record.length_rate_before, "{:?}", record);
        assert_string_impact(&params, &before, &state);
    }

    #[test]
    fn loose_sticks_fall_freely_under_the_hands(seed in any::<u64>()) {
        let mut rng = SplitMix::new(seed);
        let params = random_params(&mut rng, FrictionLaw::Step, 1.0);
        let (force, accel) = (rng.vector(5.0), rng.vector(5.0));
        let [(a_forced, f_forced), (a_driven, f_driven)] =
            loose_accelerations(&params, &[StickInput::Force(force), StickInput::Accel(accel)]);
        let gravity = Vector2::new(0.0, -params.gravity);
        // M a = M g + F for both: given the force, or solved from the acceleration.
        prop_assert!((params.stick_mass * a_forced - params.stick_mass * gravity - force).norm() < 1e-12 * (1.0 + force.norm()));
        prop_assert_eq!(f_forced, force);
        prop_assert_eq!(a_driven, accel);
        prop_assert!((params.stick_mass * (accel - gravity) - f_driven).norm() < 1e-12 * (1.0 + f_driven.norm()));
    }
}

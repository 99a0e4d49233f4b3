//! The derivative evaluation is the hot path of every run: once its workspace is built it must
//! not allocate. A counting global allocator measures the test thread's allocations across many
//! evaluations.

use diabolo::model::{AxleMode, ParamValues, Params, StickInput, TautDynamics};
use nalgebra::Vector2;
#[path = "common/counting_allocator.rs"]
mod counting_allocator;
use counting_allocator::thread_allocations;

// Each thread counts its own allocations: the test harness's main thread may allocate while
// the test runs (a process-wide count saw 4 such allocations in one CI run).
#[global_allocator]
static GLOBAL: counting_allocator::Counting = counting_allocator::Counting;

#[test]
fn derivative_evaluation_allocates_nothing() {
    for n in [1usize, 3, 16] {
        let params = Params::new(ParamValues {
            string_length: 1.46,
            ..Default::default()
        })
        .unwrap();
        let mut dynamics = TautDynamics::new(&params, n);
        let layout = dynamics.layout();
        let mut x = vec![0.0; layout.len()];
        for i in 0..n {
            x[layout.segment_length(i)] = 1.46 / (n + 1) as f64;
        }
        x[layout.phi0()] = 0.6;
        for i in 1..=n {
            x[layout.theta(i)] = 3.6;
            x[layout.spin(i)] = 0.4;
        }
        for k in 0..=n {
            x[layout.u_alpha(k)] = 0.1 * k as f64;
            x[layout.u_beta(k)] = -0.05;
        }
        let mut out = vec![0.0; layout.len()];
        let modes = vec![AxleMode::from_slip(1.0); n];
        let inputs = [
            StickInput::Force(Vector2::new(0.1, 0.4)),
            StickInput::Accel(Vector2::new(0.0, 1.0)),
        ];
        dynamics.rates(&x, &inputs, &modes, &mut out).unwrap();
        let before = thread_allocations();
        for step in 0..1000 {
            x[0] = 1e-6 * step as f64;
            dynamics.rates(&x, &inputs, &modes, &mut out).unwrap();
            let _ = dynamics.power_balance();
        }
        assert_eq!(thread_allocations() - before, 0, "N = {n}");
    }
}

// The run in space allocates nothing per step or row: a swing on held sticks (no events) of
// 2 s allocates as much as one of 0.5 s (the buffers are built at the start).
#[test]
fn a_run_in_space_allocates_nothing_per_step() {
    use diabolo::model::space::{AxleValues, SpaceBody, SpaceDiabolo, SpaceParams, SpaceState};
    use diabolo::simulation::space::{HeldStill, SpaceSettings, SpaceSimulation};
    use nalgebra::Vector3;
    let count = |duration: f64| {
        let params = SpaceParams::new(
            Params::new(ParamValues::default()).unwrap(),
            AxleValues::default(),
        )
        .unwrap();
        let body = |x: f64| SpaceBody {
            pos: Vector3::new(x, 0.0, 0.0),
            vel: Vector3::zeros(),
        };
        // Hanging 0.1 m right of the bottom, on the spheroid, and 2 cm out of the plane.
        let (a, c) = (0.73f64, 0.4f64);
        let b = (a * a - c * c).sqrt();
        let (x, z) = (0.1f64, 0.02f64);
        let y = -b * (1.0 - x * x / (a * a) - z * z / (b * b)).sqrt();
        let sim = SpaceSimulation {
            params,
            hands: [HeldStill, HeldStill],
            modes: vec![diabolo::simulation::DiaboloMode::String; 1],
            initial: SpaceState {
                left: body(-c),
                right: body(c),
                diabolos: vec![SpaceDiabolo {
                    pos: Vector3::new(x, y, z),
                    spin: -0.65,
                    ..SpaceDiabolo::default()
                }],
            },
            settings: SpaceSettings {
                duration,
                ..SpaceSettings::default()
            },
        };
        let before = thread_allocations();
        let report = sim.run(|_| {});
        assert!(report.events.is_empty(), "{:?}", report.events);
        assert!(report.steps >= 10, "{} steps", report.steps);
        thread_allocations() - before
    };
    assert_eq!(count(2.0), count(0.5));
}

// A pair resting in contact in space allocates nothing per step either: two diabolos side by
// side at the bottom of the V on held sticks, held against each other from t = 0 (the contact's
// force in the tension solve, its guards on the hulls), allocate as much over 0.5 s as over
// 0.2 s (an axle grips at 0.506 s: an event may allocate).
#[test]
fn a_resting_pair_in_space_allocates_nothing_per_step() {
    use diabolo::model::space::{AxleValues, SpaceBody, SpaceDiabolo, SpaceParams, SpaceState};
    use diabolo::simulation::space::{HeldStill, SpaceSettings, SpaceSimulation};
    use nalgebra::Vector3;
    let count = |duration: f64| {
        let params = SpaceParams::new(
            Params::new(ParamValues::default()).unwrap(),
            AxleValues::default(),
        )
        .unwrap();
        let length = params.planar.values().string_length;
        let r = params.planar.values().diabolo_radius;
        let body = |x: f64| SpaceBody {
            pos: Vector3::new(x, 0.0, 0.0),
            vel: Vector3::zeros(),
        };
        // Centres 2R apart, the string taut through both: 2 sqrt((0.5 - R)^2 + y^2) + 2R = L.
        let half = 0.5 * (length - 2.0 * r);
        let y = -(half * half - (0.5 - r) * (0.5 - r)).sqrt();
        let diabolo = |x: f64| SpaceDiabolo {
            pos: Vector3::new(x, y, 0.0),
            spin: 0.3,
            ..SpaceDiabolo::default()
        };
        let sim = SpaceSimulation {
            params,
            hands: [HeldStill, HeldStill],
            modes: vec![diabolo::simulation::DiaboloMode::String; 2],
            initial: SpaceState {
                left: body(-0.5),
                right: body(0.5),
                diabolos: vec![diabolo(-r), diabolo(r)],
            },
            settings: SpaceSettings {
                duration,
                ..SpaceSettings::default()
            },
        };
        let before = thread_allocations();
        let mut drift: f64 = 0.0;
        let report = sim.run(|row| {
            let d = row.state.diabolos[1].pos - row.state.diabolos[0].pos;
            drift = drift.max((d.norm() - 2.0 * r).abs());
        });
        let allocations = thread_allocations() - before;
        assert!(report.events.is_empty(), "{:?}", report.events);
        // Held against each other, to the integration's tolerance (measured 1.2e-9 m at 0.5 s).
        assert!(drift < 1e-8, "{drift}");
        assert!(report.steps >= 10, "{} steps", report.steps);
        allocations
    };
    assert_eq!(count(0.5), count(0.2));
}

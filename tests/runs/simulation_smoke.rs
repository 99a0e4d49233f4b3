//! First whole runs: a frictionless swing conserves energy and keeps the string length.

use diabolo::model::{CartesianState, ParamValues, Params};
use diabolo::simulation::drive::Drive;
use diabolo::simulation::{Settings, Simulation};

#[test]
fn frictionless_swing_conserves_energy() {
    let params = Params::new(ParamValues {
        friction: 0.0,
        spin_drag: 0.0,
        ..Default::default()
    })
    .unwrap();
    let mut state = CartesianState::hanging(&params, [-0.4, 0.0], [0.4, 0.0], 0.25, 0.3).unwrap();
    state.diabolos[0].vel = nalgebra::Vector2::new(0.0, 0.0);
    let settings = Settings {
        duration: 2.0,
        output_interval: 0.01,
        rtol: 1e-10,
        atol: 1e-12,
        ..Default::default()
    };
    let hold = Drive::Accel(diabolo::simulation::drive::Schedule::Constant(
        nalgebra::Vector2::zeros(),
    ));
    let sim = Simulation::new(params, [hold.clone(), hold], state, settings).unwrap();
    let mut rows = Vec::new();
    let report = sim.run(&mut |row| rows.push(row.clone()));
    assert!(report.failure.is_none(), "{:?}", report.failure);
    eprintln!("{:?} rows {}", report.stats, rows.len());
    for e in &report.events {
        eprintln!("{e:?}");
    }
    let e0 = rows[0].energy;
    let worst = rows
        .iter()
        .map(|r| (r.energy - e0).abs())
        .fold(0.0, f64::max);
    let slack = rows.iter().map(|r| r.slack.abs()).fold(0.0, f64::max);
    eprintln!(
        "energy drift {worst:e}, slack {slack:e}, last t {}",
        rows.last().unwrap().t
    );
    assert!(worst < 1e-8 * e0.abs().max(1.0));
    assert_eq!(rows.len(), 201);
}

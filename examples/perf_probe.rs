use diabolo::model::{CartesianState, ParamValues, Params};
use diabolo::simulation::drive::{ClampedSpline, Drive, Path};
use diabolo::simulation::run::{Settings, Simulation};
use nalgebra::Vector2;
use std::time::Instant;

fn main() {
    let scen = std::env::var("SCEN").unwrap_or_default();
    let friction = if scen.contains("nofric") { 0.0 } else { 0.17 };
    let p = Params::new(ParamValues { spin_drag: 0.05, friction, ..Default::default() }).unwrap();
    let state = CartesianState::hanging(&p, [-0.4, 1.5], [0.4, 1.5], 0.05, 0.6).unwrap();
    let left = Drive::Path(Path::Keyframes(ClampedSpline::new(vec![(0.0, Vector2::new(-0.4, 1.5))]).unwrap()));
    let amp = if scen.contains("still") { 0.0 } else { 1.0 };
    let right = Drive::Path(Path::Sine { center: Vector2::new(0.4, 1.5), amplitude: Vector2::new(0.05, 0.1) * amp, frequency: 1.5, phase: Vector2::zeros() });
    let method = if scen.contains("853") { diabolo::simulation::Method::Dop853 } else { diabolo::simulation::Method::Dopri5 };
    let settings = Settings { duration: 10.0, output_interval: std::env::var("DT").map(|v| v.parse().unwrap()).unwrap_or(0.001), rtol: 1e-9, atol: std::env::var("ATOL").map(|v| v.parse().unwrap()).unwrap_or(1e-12), method, ..Default::default() };
    let right_path = right.path().cloned().unwrap();
    let sim = Simulation::new(p, [left, right], state, settings).unwrap();
    let mut worst = 0.0f64;
    sim.run(&mut |r| worst = worst.max((r.state.right.pos - right_path.at(r.t).pos).norm()).max((r.state.left.pos - Vector2::new(-0.4, 1.5)).norm()));
    println!("worst path deviation {worst:e}");
    for _ in 0..3 {
        let start = Instant::now();
        let mut rows = 0;
        let report = sim.run(&mut |_r| rows += 1);
        println!("{:?} {:?} rows {rows} events {} failure {:?}", start.elapsed(), report.stats, report.events.len(), report.failure);
        let mut kinds = std::collections::BTreeMap::new();
        for e in &report.events { *kinds.entry(e.kind.name()).or_insert(0) += 1; }
        println!("{kinds:?}");
        if std::env::var("EV").is_ok() { for e in &report.events { println!("{e:?}"); } }
    }
}

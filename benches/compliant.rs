//! What the compliant string costs: `scenarios/swing.json` (a free swing with capstan friction on
//! still hands) run for 10 s with rows every 0.01 s, inextensible and with a realistic string
//! (EA = 200 N, eta = 0), with each adaptive method. The ratio of the compliant run's time to the
//! inextensible run's with the same method is printed to standard error after each pair (the
//! requirement: at most 2).
//!
//! Run: `cargo bench --bench compliant`.

use criterion::{criterion_group, criterion_main, Criterion};
use diabolo::Scenario;
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

fn swing(method: &str, stiffness: Option<f64>) -> diabolo::simulation::Simulation {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let text = std::fs::read_to_string(dir.join("swing.json")).expect("shipped scenario");
    let mut overrides = vec![
        ("sim.duration".to_string(), "10".to_string()),
        ("sim.method".to_string(), format!("\"{method}\"")),
    ];
    if let Some(ea) = stiffness {
        overrides.push(("params.string_stiffness".to_string(), ea.to_string()));
    }
    Scenario::parse(&text, &overrides)
        .and_then(|s| s.build(&dir))
        .expect("the swing builds")
}

/// Median wall time of `runs` runs, s.
fn median_time(sim: &diabolo::simulation::Simulation, runs: usize) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            black_box(sim.run(&mut |_| {}).end_time);
            started.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[runs / 2]
}

fn compliant(c: &mut Criterion) {
    let mut group = c.benchmark_group("swing_10s");
    group.sample_size(30);
    for method in ["dopri5", "dop853"] {
        let rigid = swing(method, None);
        let stretchy = swing(method, Some(200.0));
        for (name, sim) in [("inextensible", &rigid), ("ea_200", &stretchy)] {
            group.bench_function(format!("{method}_{name}"), |b| {
                b.iter(|| black_box(sim.run(&mut |_| {}).end_time))
            });
        }
        let ratio = median_time(&stretchy, 31) / median_time(&rigid, 31);
        eprintln!("swing_10s {method}: EA 200 N costs {ratio:.2} x the inextensible run");
    }
    group.finish();
}

criterion_group!(benches, compliant);
criterion_main!(benches);

//! A 1,000-point sweep of 1 s single-diabolo runs (the swing scenario, friction gridded from
//! 0.05 to 0.4, rtol 1e-8), its summary rows written to a sink, on 1 and on 2 threads. The ratio
//! of the two gives the parallel efficiency t1 / (2 t2) (target: at least 0.9 on 2 cores; the
//! target for the wall time is under 2 s on 2 cores).
//!
//! Run: `cargo bench --bench sweep`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use diabolo::scenario::Scenario;
use diabolo::sweep::{Axis, Sweep};
use std::path::Path;

fn sweep_1000() -> Sweep {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let text = std::fs::read_to_string(dir.join("swing.json")).unwrap();
    let sets =
        [("sim.duration", "1"), ("sim.rtol", "1e-8")].map(|(k, v)| (k.to_string(), v.to_string()));
    let document = Scenario::document(&text, &sets).unwrap();
    let axes = vec![Axis::parse_grid("params.friction=0.05:0.4:1000").unwrap()];
    Sweep::new(document, &dir, axes, None).unwrap()
}

fn sweep(c: &mut Criterion) {
    let sweep = sweep_1000();
    let mut group = c.benchmark_group("sweep_1000_points");
    group.sample_size(10);
    for jobs in [1, 2] {
        group.bench_with_input(
            BenchmarkId::from_parameter(format!("{jobs}_threads")),
            &jobs,
            |b, &jobs| {
                b.iter(|| {
                    let outcome = sweep
                        .run(
                            0..sweep.len(),
                            jobs,
                            &mut std::io::sink(),
                            None,
                            &mut |_, _| {},
                        )
                        .unwrap();
                    assert_eq!(outcome.failed, 0);
                    outcome
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, sweep);
criterion_main!(benches);

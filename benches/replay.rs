//! Cost of one replay start (`diabolo replay`), by initial-state estimator: the start at 2.0 s
//! of `data/omron/y_swing_1_seg1.csv`, predicted for 2 s with c = 0.25, J = 50. The
//! assimilation (Levenberg-Marquardt over 0.2 s of past frames, about 30 short simulations) is
//! compared with the past cubic (one least-squares fit); their ratio is the price of the better
//! initial state.
//!
//! Run: `cargo bench --bench replay`.

use criterion::{criterion_group, criterion_main, Criterion};
use diabolo::replay::{
    recording_params, start_simulation, InitialEstimate, Recording, ReplayOptions,
};
use std::hint::black_box;
use std::path::Path;

fn replay_start(c: &mut Criterion) {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/omron/y_swing_1_seg1.csv");
    let rec = Recording::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut group = c.benchmark_group("replay_start");
    for (name, initial) in [
        ("assimilated", InitialEstimate::Assimilated { window: 0.2 }),
        ("past_cubic", InitialEstimate::PastCubic),
    ] {
        let mut options = ReplayOptions {
            initial,
            ..ReplayOptions::default()
        };
        options.params.friction = 0.25;
        options.params.spin_inertia = 50.0;
        let params = recording_params(&rec, &options).unwrap();
        group.bench_function(name, |b| {
            b.iter(|| {
                let run = start_simulation(&rec, &options, &params, 2.0, 2.0).unwrap();
                let mut last = 0.0;
                let report = run
                    .simulation
                    .run(&mut |row| last = row.state.diabolos[0].pos.y);
                assert!(report.failure.is_none());
                black_box(last)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, replay_start);
criterion_main!(benches);

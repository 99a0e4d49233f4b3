//! Throughput of the trajectory CSV writer (`TrajectoryWriter::write_row`, shortest-round-trip
//! numbers) into a reused in-memory buffer, in rows/s and MB/s. The rows come from real runs of
//! shipped scenarios at 1 ms output: `whip` (one diabolo, 30 columns, 3,901 rows over 3.9 s) and
//! `two_diabolos` (two diabolos, 38 columns, 3,001 rows over 3 s). The simulation is not timed,
//! only the formatting and the copying into the `Vec<u8>`.
//!
//! Run: `cargo bench --bench csv_writer`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use diabolo::output::{TrajectoryColumns, TrajectoryWriter};
use diabolo::scenario::Scenario;
use diabolo::simulation::{Row, Simulation};
use std::hint::black_box;
use std::path::Path;

/// The rows of a shipped scenario run with rows every millisecond, and its simulation.
fn rows(name: &str) -> (Vec<Row>, Simulation) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let text = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
    let sets = [("sim.output_interval".to_string(), "0.001".to_string())];
    let sim = Scenario::parse(&text, &sets).unwrap().build(&dir).unwrap();
    let mut rows = Vec::new();
    let report = sim.run(&mut |row| rows.push(row.clone()));
    assert!(report.failure.is_none(), "{name}: {:?}", report.failure);
    (rows, sim)
}

fn csv_writer(c: &mut Criterion) {
    let mut group = c.benchmark_group("csv_writer");
    for name in ["whip", "two_diabolos"] {
        let (rows, sim) = rows(name);
        let mut writer = TrajectoryWriter::new(Vec::with_capacity(1 << 22), &sim).unwrap();
        let write_all = |writer: &mut TrajectoryWriter<Vec<u8>>| {
            writer.get_mut().clear();
            for row in &rows {
                writer.write_row(row).unwrap();
            }
        };
        write_all(&mut writer);
        let bytes = writer.get_mut().len();
        eprintln!(
            "csv_writer/{name}: {} rows, {bytes} bytes ({:.0} bytes a row)",
            rows.len(),
            bytes as f64 / rows.len() as f64
        );
        group.throughput(Throughput::ElementsAndBytes {
            elements: rows.len() as u64,
            bytes: bytes as u64,
        });
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                write_all(&mut writer);
                black_box(writer.get_mut().len())
            })
        });
        // The same rows gathered as columns (what the Python package hands out).
        group.bench_function(BenchmarkId::new("columns", name), |b| {
            b.iter(|| {
                let mut columns = TrajectoryColumns::new(&sim);
                for row in &rows {
                    columns.push_row(row);
                }
                black_box(columns.rows())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, csv_writer);
criterion_main!(benches);

//! The trajectory formatted on two threads (`ParallelTrajectoryWriter`, what `diabolo run`
//! writes with) gives the bytes of the one-thread writer on every shipped scenario, with rows
//! every millisecond (dozens of blocks, formatted by either thread and written in order), on
//! one thread too; a sink that fails is reported, once, and the run goes on.

use std::io::{self, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use diabolo::output::{ParallelTrajectoryWriter, TrajectoryWriter};
use diabolo::Simulation;

use crate::common;

/// Every shipped scenario, with rows every `interval` s when given.
fn every_shipped(interval: Option<&str>) -> Vec<(String, Simulation)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter(|p| std::fs::read_to_string(p).is_ok_and(|t| !t.contains("\"space\": true")))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let sets: Vec<(&str, &str)> = interval
        .map(|i| ("sim.output_interval", i))
        .into_iter()
        .collect();
    names
        .into_iter()
        .map(|name| {
            let sim = common::shipped(&name, &sets);
            (name, sim)
        })
        .collect()
}

/// The whip with rows every millisecond (3,001 rows, 25 blocks).
fn whip_at_1ms() -> Simulation {
    common::shipped("whip", &[("sim.output_interval", "0.001")])
}

/// A sink that other threads write to and the test reads afterwards; each write takes `delay`,
/// and fails ("disk full") once the bytes would pass `good`.
#[derive(Clone)]
struct Shared {
    bytes: Arc<Mutex<Vec<u8>>>,
    delay: Duration,
    good: usize,
}

impl Default for Shared {
    fn default() -> Self {
        Self {
            bytes: Arc::default(),
            delay: Duration::ZERO,
            good: usize::MAX,
        }
    }
}

impl Shared {
    fn bytes(&self) -> Vec<u8> {
        self.bytes.lock().unwrap().clone()
    }
}

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        std::thread::sleep(self.delay);
        let mut bytes = self.bytes.lock().unwrap();
        if bytes.len() + buf.len() > self.good {
            return Err(io::Error::other("disk full"));
        }
        bytes.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn one_thread(sim: &Simulation) -> Vec<u8> {
    let mut writer = TrajectoryWriter::new(Vec::new(), sim).unwrap();
    sim.run(&mut |row| writer.write_row(row).unwrap());
    writer.into_inner()
}

fn two_threads(sim: &Simulation, single: bool) -> Vec<u8> {
    let sink = Shared::default();
    let mut writer = ParallelTrajectoryWriter::new(sink.clone(), sim).unwrap();
    if single {
        writer = writer.single_threaded();
    }
    sim.run(&mut |row| writer.write_row(row).unwrap());
    writer.finish().unwrap();
    sink.bytes()
}

#[test]
fn rows_formatted_on_two_threads_are_the_bytes_of_one_thread_on_every_shipped_scenario() {
    let mut rows = 0;
    for interval in [None, Some("0.001")] {
        for (name, sim) in every_shipped(interval) {
            let expected = one_thread(&sim);
            rows += expected.iter().filter(|&&b| b == b'\n').count();
            assert!(
                two_threads(&sim, false) == expected,
                "{name} (rows every {interval:?}): two threads differ from one"
            );
            assert!(
                two_threads(&sim, true) == expected,
                "{name} (rows every {interval:?}): the block writer on one thread differs"
            );
        }
    }
    // Many blocks per run: the order of the writes is exercised.
    assert!(rows > 50_000, "{rows} rows");
}

#[test]
fn a_failed_write_is_reported_once_and_the_run_goes_on() {
    let sim = whip_at_1ms();
    let sink = Shared {
        good: 200_000,
        ..Shared::default()
    };
    let mut writer = ParallelTrajectoryWriter::new(sink, &sim).unwrap();
    let mut errors = Vec::new();
    let report = sim.run(&mut |row| {
        if let Err(e) = writer.write_row(row) {
            errors.push(e.to_string());
        }
    });
    let finished = writer.finish();
    assert!(report.failure.is_none());
    // The error comes back once: from a row handed over after it, or from finish.
    match finished {
        Ok(sink) => {
            assert_eq!(errors, ["disk full"]);
            assert!(sink.bytes().len() <= 200_000);
        }
        Err(e) => {
            assert!(errors.is_empty(), "{errors:?}");
            assert_eq!(e.to_string(), "disk full");
        }
    }
}

#[test]
fn a_writer_dropped_unfinished_writes_its_rows_and_stops_its_helper() {
    let sim = whip_at_1ms();
    let sink = Shared::default();
    {
        let mut writer = ParallelTrajectoryWriter::new(sink.clone(), &sim).unwrap();
        sim.run(&mut |row| writer.write_row(row).unwrap());
    }
    assert!(sink.bytes() == one_thread(&sim));
}

#[test]
fn rows_that_come_slowly_or_a_slow_sink_still_give_the_bytes_of_one_thread() {
    let sim = whip_at_1ms();
    let expected = one_thread(&sim);
    // Rows slower than the helper's watch before it sleeps (the helper sleeps and is woken
    // for each block); then a sink slower than the rows (the run's thread, with every block in
    // flight, watches and sleeps until a write is done).
    for (row_pause, write_delay) in [
        (Duration::from_micros(20), Duration::ZERO),
        (Duration::ZERO, Duration::from_millis(2)),
    ] {
        let sink = Shared {
            delay: write_delay,
            ..Shared::default()
        };
        let mut writer = ParallelTrajectoryWriter::new(sink.clone(), &sim).unwrap();
        sim.run(&mut |row| {
            if !row_pause.is_zero() {
                std::thread::sleep(row_pause);
            }
            writer.write_row(row).unwrap();
        });
        writer.finish().unwrap();
        assert!(
            sink.bytes() == expected,
            "rows every {row_pause:?}, writes taking {write_delay:?}"
        );
    }
}

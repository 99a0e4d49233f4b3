//! The trajectory formatted on two threads (`ParallelTrajectoryWriter`, what `diabolo run`
//! writes with) gives the bytes of the one-thread writer on every shipped scenario, with rows
//! every millisecond (dozens of blocks, formatted by either thread and written in order), on
//! one thread too; a sink that fails is reported, once, and the run goes on.

use std::io::{self, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

use diabolo::output::{ParallelTrajectoryWriter, TrajectoryWriter};
use diabolo::{Scenario, Simulation};

/// Every shipped scenario, with rows every `interval` s when given.
fn shipped(interval: Option<&str>) -> Vec<(String, Simulation)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    let sets: Vec<(String, String)> = interval
        .map(|i| ("sim.output_interval".to_string(), i.to_string()))
        .into_iter()
        .collect();
    names
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let sim = Scenario::parse(&text, &sets).unwrap().build(&dir).unwrap();
            (path.display().to_string(), sim)
        })
        .collect()
}

/// A sink that other threads write to and the test reads afterwards.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
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
    let bytes = sink.0.lock().unwrap().clone();
    bytes
}

#[test]
fn rows_formatted_on_two_threads_are_the_bytes_of_one_thread_on_every_shipped_scenario() {
    let mut rows = 0;
    for interval in [None, Some("0.001")] {
        for (name, sim) in shipped(interval) {
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

/// Fails every write after the first `good` bytes.
struct Failing {
    written: usize,
    good: usize,
}

impl Write for Failing {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.written + buf.len() > self.good {
            return Err(io::Error::other("disk full"));
        }
        self.written += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failed_write_is_reported_once_and_the_run_goes_on() {
    let (_, sim) = shipped(Some("0.001"))
        .into_iter()
        .find(|(name, _)| name.ends_with("whip.json"))
        .unwrap();
    let sink = Failing {
        written: 0,
        good: 200_000,
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
            assert!(sink.written <= 200_000);
        }
        Err(e) => {
            assert!(errors.is_empty(), "{errors:?}");
            assert_eq!(e.to_string(), "disk full");
        }
    }
}

#[test]
fn a_writer_dropped_unfinished_writes_its_rows_and_stops_its_helper() {
    let (_, sim) = shipped(Some("0.001"))
        .into_iter()
        .find(|(name, _)| name.ends_with("whip.json"))
        .unwrap();
    let sink = Shared::default();
    {
        let mut writer = ParallelTrajectoryWriter::new(sink.clone(), &sim).unwrap();
        sim.run(&mut |row| writer.write_row(row).unwrap());
    }
    let bytes = sink.0.lock().unwrap().clone();
    assert!(bytes == one_thread(&sim));
}

/// A sink that takes `delay` over each write.
#[derive(Clone, Default)]
struct Slow {
    bytes: Shared,
    delay: std::time::Duration,
}

impl Write for Slow {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        std::thread::sleep(self.delay);
        self.bytes.write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn rows_that_come_slowly_or_a_slow_sink_still_give_the_bytes_of_one_thread() {
    use std::time::Duration;
    let (_, sim) = shipped(Some("0.001"))
        .into_iter()
        .find(|(name, _)| name.ends_with("whip.json"))
        .unwrap();
    let expected = one_thread(&sim);
    // Rows slower than the helper's watch before it sleeps (the helper sleeps and is woken
    // for each block); then a sink slower than the rows (the run's thread, with every block in
    // flight, watches and sleeps until a write is done).
    for (row_pause, write_delay) in [
        (Duration::from_micros(20), Duration::ZERO),
        (Duration::ZERO, Duration::from_millis(2)),
    ] {
        let sink = Slow {
            bytes: Shared::default(),
            delay: write_delay,
        };
        let mut writer = ParallelTrajectoryWriter::new(sink.clone(), &sim).unwrap();
        sim.run(&mut |row| {
            if !row_pause.is_zero() {
                std::thread::sleep(row_pause);
            }
            writer.write_row(row).unwrap();
        });
        writer.finish().unwrap();
        let bytes = sink.bytes.0.lock().unwrap().clone();
        assert!(
            bytes == expected,
            "rows every {row_pause:?}, writes taking {write_delay:?}"
        );
    }
}

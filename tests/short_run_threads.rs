//! A run whose rows fill less than one block (`ParallelTrajectoryWriter`) formats them on its
//! own thread and starts no helper: a new thread would cost more than these rows take. Alone in
//! its test binary, so that the process's threads are the test's own.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use diabolo::output::{ParallelTrajectoryWriter, TrajectoryWriter};

mod common;

/// The threads of this process now (Linux), or `None`.
fn threads() -> Option<usize> {
    std::fs::read_dir("/proc/self/task")
        .ok()
        .map(Iterator::count)
}

/// A sink that notes, at each write, how many threads the process has.
#[derive(Clone, Default)]
struct Counting {
    bytes: Arc<Mutex<Vec<u8>>>,
    threads: Arc<Mutex<Vec<usize>>>,
}

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.threads.lock().unwrap().extend(threads());
        self.bytes.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn rows_that_fill_less_than_a_block_start_no_helper_thread() {
    let Some(before) = threads() else {
        return;
    };
    // The whip with rows every 0.1 s: 40 rows of 43 fields, less than one block.
    let sim = common::shipped("whip", &[("sim.output_interval", "0.1")]);
    let sink = Counting::default();
    let mut writer = ParallelTrajectoryWriter::new(sink.clone(), &sim).unwrap();
    sim.run(&mut |row| writer.write_row(row).unwrap());
    writer.finish().unwrap();

    let mut expected = TrajectoryWriter::new(Vec::new(), &sim).unwrap();
    sim.run(&mut |row| expected.write_row(row).unwrap());
    assert!(*sink.bytes.lock().unwrap() == expected.into_inner());
    let during = sink.threads.lock().unwrap();
    assert!(during.len() >= 2, "the header and the rows");
    assert!(
        during.iter().all(|&n| n == before),
        "threads at each write {during:?}, {before} before the run"
    );
}

//! The trajectory CSV formatted on two threads while the run goes on: the run's thread records
//! each row's fields (numbers, integers, names: no formatting) into blocks, and the blocks are
//! formatted into CSV text by a helper thread, and by the run's thread too when [`IN_FLIGHT`]
//! blocks are waiting and once the run has ended; the formatted blocks are written in their
//! order by whichever thread finished the next one. The bytes are those of
//! [`TrajectoryWriter`](super::TrajectoryWriter): each row is formatted by the same
//! [`CsvLine`], whichever thread does it.
//!
//! Formatting (shortest round-trip numbers, 0.5 us a row of one diabolo) costs more than
//! producing the rows (about 0.2 us a row) and integrating the run between them, so the rows of
//! a run with rows every millisecond cost about 0.6 of what they cost on one thread (bench
//! `whip_3s_rows_1ms`). A run of fewer rows than a block never starts the helper; a longer one
//! starts it with its first row, on another core than the run's ([`super::placement`]), and a
//! thread out of work watches for more for up to [`SPIN`] before it sleeps. Memory is
//! bounded: at most [`IN_FLIGHT`] blocks are recorded and not yet written (about 100 kB each).

use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::placement::Placement;
use super::table::CsvLine;
use super::trajectory::{header_line, header_of, row_fields, RowFields};
use crate::simulation::{Row, Simulation};

/// Fields recorded per block before it is handed over (about 120 rows of one diabolo). A block
/// and its text stay under the allocator's threshold for fresh mappings and few are alive, so
/// a run touches little fresh memory (each new page is a page fault).
const BLOCK_FIELDS: usize = 4_096;

/// Blocks recorded and not yet written, at most.
const IN_FLIGHT: usize = 4;

/// How long a thread with nothing to do watches for a change before it sleeps. A block is
/// recorded or formatted in about 50-150 us; a thread that sleeps instead can take milliseconds
/// to run again once woken where its core went idle (a virtual machine's core is handed back to
/// the host), and the rows then wait for it.
const SPIN: Duration = Duration::from_micros(300);

/// Room for a block's text (about 10 bytes a field). The text, about 50 KB, is more than the
/// output's buffer ([`super::compress::WRITE_BUFFER`]), so it is written without a copy.
const TEXT_CAPACITY: usize = 16 * BLOCK_FIELDS;

/// What a recorded field is.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// A number (in `values`).
    Number,
    /// An integer (its bits in `values`).
    Integer,
    /// A name (in `words`).
    Word,
    /// No value.
    Missing,
    /// The row's end.
    End,
}

/// The recorded fields of consecutive rows: their kinds in order, the numbers and integers in
/// `values`, the names in `words` (a field is 9 bytes, not the 24 of an enum holding a name).
#[derive(Debug)]
struct Block {
    kinds: Vec<Kind>,
    values: Vec<f64>,
    words: Vec<&'static str>,
}

impl Block {
    fn new() -> Self {
        Self {
            kinds: Vec::with_capacity(BLOCK_FIELDS + 512),
            values: Vec::with_capacity(BLOCK_FIELDS + 512),
            words: Vec::with_capacity(BLOCK_FIELDS / 8),
        }
    }

    fn clear(&mut self) {
        self.kinds.clear();
        self.values.clear();
        self.words.clear();
    }

    /// The rows as CSV lines appended to `out`, through `line` (the bytes [`CsvLine`] writes).
    fn format(&self, line: &mut CsvLine, out: &mut String) {
        line.swap_buffer(out);
        let (mut values, mut words) = (self.values.iter(), self.words.iter());
        for kind in &self.kinds {
            // Through `RowFields for CsvLine`, as `TrajectoryWriter` writes a row.
            match kind {
                Kind::Number => {
                    RowFields::number(line, *values.next().expect("a value per number"));
                }
                Kind::Integer => {
                    let bits = values.next().expect("a value per integer").to_bits();
                    RowFields::integer(line, bits as i64);
                }
                Kind::Word => RowFields::word(line, words.next().expect("a name per word")),
                Kind::Missing => RowFields::missing(line),
                Kind::End => line.end_kept(),
            }
        }
        line.swap_buffer(out);
    }
}

impl RowFields for Block {
    fn number(&mut self, value: f64) {
        self.kinds.push(Kind::Number);
        self.values.push(value);
    }
    fn integer(&mut self, value: i64) {
        self.kinds.push(Kind::Integer);
        self.values.push(f64::from_bits(value as u64));
    }
    fn word(&mut self, value: &'static str) {
        self.kinds.push(Kind::Word);
        self.words.push(value);
    }
    fn missing(&mut self) {
        self.kinds.push(Kind::Missing);
    }
}

/// What the threads share, under one lock.
#[derive(Debug)]
struct State {
    /// Recorded blocks waiting to be formatted, with their sequence numbers.
    queue: VecDeque<(u64, Block)>,
    /// Formatted blocks waiting for their turn to be written.
    formatted: Vec<(u64, String)>,
    /// The sequence number of the next block to write.
    next_write: u64,
    /// A thread is writing (the others leave their blocks in `formatted`).
    writing: bool,
    /// Blocks handed over and not yet written.
    in_flight: usize,
    /// Emptied blocks and buffers, reused.
    spare_blocks: Vec<Block>,
    spare_buffers: Vec<String>,
    /// No more blocks will come: the helper stops when the queue is empty.
    closed: bool,
    /// Threads waiting on `changed` (a notification is a system call: made only for them).
    waiting: usize,
    /// A write failed: later blocks are not written.
    failed: bool,
    /// The failed write's error, until it is returned.
    error: Option<io::Error>,
}

#[derive(Debug)]
struct Shared<W> {
    state: Mutex<State>,
    /// Signalled when a block is queued, written, or the queue closed.
    changed: Condvar,
    /// Counts those changes (raised under the lock), for the threads watching before they sleep.
    changes: AtomicU64,
    /// The helper's cores are set (it may take the whole set back).
    placed: AtomicBool,
    /// The output, until [`ParallelTrajectoryWriter::finish`] takes it back.
    sink: Mutex<Option<W>>,
}

impl<W: Write> Shared<W> {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Waits for a change (a block queued or written, the queue closed): watches for it for up to
    /// [`SPIN`] without the lock, then sleeps. Returns the lock (the caller checks again what it
    /// waits for).
    fn wait<'a>(&'a self, state: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        let seen = self.changes.load(Ordering::Relaxed);
        drop(state);
        let start = Instant::now();
        while start.elapsed() < SPIN {
            for _ in 0..64 {
                if self.changes.load(Ordering::Relaxed) != seen {
                    return self.lock();
                }
                std::hint::spin_loop();
            }
        }
        let mut state = self.lock();
        if self.changes.load(Ordering::Relaxed) != seen {
            return state;
        }
        state.waiting += 1;
        let mut state = (self.changed.wait(state)).unwrap_or_else(|poisoned| poisoned.into_inner());
        state.waiting -= 1;
        state
    }

    /// Announces a change made under the lock (`state`) and wakes the sleeping threads, if any.
    fn notify(&self, state: &State) {
        self.changes.fetch_add(1, Ordering::Relaxed);
        if state.waiting > 0 {
            self.changed.notify_all();
        }
    }

    /// Formats block `seq`, then writes every block whose turn has come if no other thread is
    /// writing. Returns the lock.
    fn process<'a>(
        &'a self,
        mut state: MutexGuard<'a, State>,
        (seq, mut block): (u64, Block),
        line: &mut CsvLine,
    ) -> MutexGuard<'a, State> {
        let mut text =
            (state.spare_buffers.pop()).unwrap_or_else(|| String::with_capacity(TEXT_CAPACITY));
        drop(state);
        block.format(line, &mut text);
        let mut state = self.lock();
        block.clear();
        state.spare_blocks.push(block);
        state.formatted.push((seq, text));
        if state.writing {
            return state;
        }
        state.writing = true;
        while let Some(at) = state
            .formatted
            .iter()
            .position(|(s, _)| *s == state.next_write)
        {
            let (_, mut text) = state.formatted.swap_remove(at);
            let failed = state.failed;
            drop(state);
            let mut sink = self.sink.lock().unwrap_or_else(|p| p.into_inner());
            let written = match sink.as_mut() {
                Some(sink) if !failed => sink.write_all(text.as_bytes()),
                _ => Ok(()),
            };
            drop(sink);
            state = self.lock();
            if let Err(e) = written {
                state.failed = true;
                state.error.get_or_insert(e);
            }
            text.clear();
            state.spare_buffers.push(text);
            state.next_write += 1;
            state.in_flight -= 1;
            self.notify(&state);
        }
        state.writing = false;
        state
    }

    /// Formats (and writes) queued blocks, or waits for the other thread, while `busy`.
    fn work_while<'a>(
        &'a self,
        mut state: MutexGuard<'a, State>,
        line: &mut CsvLine,
        busy: impl Fn(&State) -> bool,
    ) -> MutexGuard<'a, State> {
        while busy(&state) {
            state = match state.queue.pop_front() {
                Some(job) => self.process(state, job, line),
                None => self.wait(state),
            };
        }
        state
    }

    /// The helper thread: formats and writes queued blocks until the queue is closed and empty.
    fn help(&self) {
        let state = self.lock();
        drop(self.work_while(state, &mut CsvLine::default(), |s| {
            !s.closed || !s.queue.is_empty()
        }));
    }
}

/// Writes the rows of one simulation as the trajectory CSV, formatting them on a second thread
/// (see the module documentation); the same bytes as [`TrajectoryWriter`](super::TrajectoryWriter).
/// [`ParallelTrajectoryWriter::finish`] writes what is left and gives the sink back.
#[derive(Debug)]
pub struct ParallelTrajectoryWriter<W: Write + Send + 'static> {
    shared: Arc<Shared<W>>,
    /// The block being recorded.
    block: Block,
    /// Its sequence number.
    seq: u64,
    /// The run's thread's line, when it formats a block itself.
    line: CsvLine,
    /// The helper, once started (never on one core).
    helper: Option<JoinHandle<()>>,
    /// Whether a helper may be started or runs (not on one core, nor when it cannot start).
    parallel: bool,
    /// The run's rows fill more than a block: the helper starts with the first row, so that
    /// it is running when the first block is handed over (a new thread takes 0.1-0.3 ms to
    /// start).
    start_early: bool,
}

impl<W: Write + Send + 'static> ParallelTrajectoryWriter<W> {
    /// Writes the header for the diabolos of `simulation`.
    pub fn new(mut out: W, simulation: &Simulation) -> io::Result<Self> {
        let columns = header_of(simulation);
        let width = columns.len() + 1;
        header_line(columns).end(&mut out)?;
        let settings = &simulation.settings;
        let fields = (settings.duration / settings.output_interval + 1.0) * width as f64;
        let state = State {
            queue: VecDeque::with_capacity(IN_FLIGHT),
            formatted: Vec::with_capacity(IN_FLIGHT),
            next_write: 0,
            writing: false,
            in_flight: 0,
            spare_blocks: Vec::new(),
            spare_buffers: Vec::new(),
            closed: false,
            waiting: 0,
            failed: false,
            error: None,
        };
        Ok(Self {
            shared: Arc::new(Shared {
                state: Mutex::new(state),
                changed: Condvar::new(),
                changes: AtomicU64::new(0),
                placed: AtomicBool::new(false),
                sink: Mutex::new(Some(out)),
            }),
            block: Block::new(),
            seq: 0,
            line: CsvLine::default(),
            helper: None,
            parallel: true,
            start_early: fields > BLOCK_FIELDS as f64,
        })
    }

    /// Formats every block on the calling thread (no helper), as on one core.
    pub fn single_threaded(mut self) -> Self {
        self.parallel = false;
        self
    }

    /// Records one row; a failed write of an earlier block is returned.
    pub fn write_row(&mut self, row: &Row) -> io::Result<()> {
        if std::mem::take(&mut self.start_early) {
            self.start_helper();
        }
        row_fields(row, &mut self.block);
        self.block.kinds.push(Kind::End);
        if self.block.kinds.len() >= BLOCK_FIELDS {
            self.start_helper();
            self.hand_over()?;
        }
        Ok(())
    }

    /// Starts the helper (at the first row or the first full block), where there is more than
    /// one core. The rows of a run that fill less than a block are formatted at its end on the
    /// run's thread: starting a thread for them would cost more than it saves.
    fn start_helper(&mut self) {
        if self.helper.is_some() || !self.parallel {
            return;
        }
        self.parallel = std::thread::available_parallelism().is_ok_and(|n| n.get() > 1);
        if !self.parallel {
            return;
        }
        // The texts allocated here: the helper then never allocates (a thread's first
        // allocation sets up an arena of its own, fresh memory).
        let mut state = self.shared.lock();
        while state.spare_buffers.len() <= IN_FLIGHT {
            state
                .spare_buffers
                .push(String::with_capacity(TEXT_CAPACITY));
        }
        drop(state);
        let shared = Arc::clone(&self.shared);
        // Created off this thread's core, then free (see `placement`): the helper frees itself
        // once the restriction is in place (a few microseconds), whenever it starts.
        let placement = Placement::of_current_thread();
        self.helper = std::thread::Builder::new()
            .name("rows".into())
            .spawn(move || {
                if let Some(placement) = placement {
                    while !shared.placed.load(Ordering::Acquire) {
                        std::hint::spin_loop();
                    }
                    placement.allow_everywhere();
                }
                shared.help();
            })
            .ok();
        if let (Some(placement), Some(helper)) = (placement, &self.helper) {
            placement.start_elsewhere(helper);
        }
        self.shared.placed.store(true, Ordering::Release);
        self.parallel = self.helper.is_some();
    }

    /// Queues the recorded block; beyond [`IN_FLIGHT`] blocks, formats queued blocks here (or
    /// waits for the writes).
    fn hand_over(&mut self) -> io::Result<()> {
        let shared = &*self.shared;
        let mut state = shared.lock();
        let next = state.spare_blocks.pop().unwrap_or_else(Block::new);
        let block = std::mem::replace(&mut self.block, next);
        state.queue.push_back((self.seq, block));
        self.seq += 1;
        state.in_flight += 1;
        shared.notify(&state);
        let parallel = self.parallel;
        let mut state = shared.work_while(state, &mut self.line, |s| {
            s.in_flight >= IN_FLIGHT || (!parallel && !s.queue.is_empty())
        });
        state.error.take().map_or(Ok(()), Err)
    }

    /// Writes every recorded row and gives the sink back (not flushed); the first failed write
    /// not yet returned by [`ParallelTrajectoryWriter::write_row`], if any.
    pub fn finish(mut self) -> io::Result<W> {
        self.end()?;
        let mut sink = self.shared.sink.lock().unwrap_or_else(|p| p.into_inner());
        Ok(sink.take().expect("the sink is taken only here"))
    }

    /// Hands over the last block, closes the queue, helps format what is queued, waits for
    /// every write and joins the helper.
    fn end(&mut self) -> io::Result<()> {
        let result = if self.block.kinds.is_empty() {
            Ok(())
        } else {
            self.hand_over()
        };
        let shared = &*self.shared;
        let mut state = shared.lock();
        state.closed = true;
        shared.notify(&state);
        let mut state = shared.work_while(state, &mut self.line, |s| s.in_flight > 0);
        let error = state.error.take();
        drop(state);
        if let Some(helper) = self.helper.take() {
            let _ = helper.join();
        }
        result.and(error.map_or(Ok(()), Err))
    }
}

impl<W: Write + Send + 'static> Drop for ParallelTrajectoryWriter<W> {
    /// Stops the helper (the rows recorded are written, as by `finish`).
    fn drop(&mut self) {
        let _ = self.end();
    }
}

//! Where the row helper of [`ParallelTrajectoryWriter`](super::ParallelTrajectoryWriter) starts.
//!
//! Linux often queues a new thread on its parent's core, behind the parent, and moves it to an
//! idle core only at the next load balancing, milliseconds later: of 24 runs of the 3 s whip
//! with rows every millisecond (in one process, rows formatted to a sink), the helper started
//! within 0.1 ms on the other core in 13, and in 11 it ran on the run's core or started 1.7-2.8
//! ms late; those runs took 2.4-5.7 ms instead of 1.5-1.8 ms, slower than one thread (2.6 ms).
//! So the helper is created allowed only on the process's other cores and, once it runs, takes
//! the process's whole set back (the scheduler is then free to move either thread). The same
//! runs then took 1.5-1.7 ms, but for the first one in a fresh process (1.7-2.2 ms).
//!
//! Elsewhere than on Linux, and where the process may use a single core, nothing is changed.

use std::thread::JoinHandle;

/// The cores the process may use, the one the run's thread is on and the others, read before
/// the helper is created.
#[derive(Clone, Copy)]
pub(super) struct Placement {
    #[cfg(target_os = "linux")]
    allowed: libc::cpu_set_t,
    #[cfg(target_os = "linux")]
    current: usize,
    /// `allowed` but `current`: where the helper starts.
    #[cfg(target_os = "linux")]
    others: libc::cpu_set_t,
}

impl std::fmt::Debug for Placement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut debug = f.debug_struct("Placement");
        #[cfg(target_os = "linux")]
        debug.field("current", &self.current);
        debug.finish_non_exhaustive()
    }
}

/// The cores the calling thread may use, or `None` where they cannot be read.
#[cfg(target_os = "linux")]
fn affinity() -> Option<libc::cpu_set_t> {
    // SAFETY: `cpu_set_t` is plain data (an array of integers), valid when zeroed;
    // `sched_getaffinity` writes at most `size_of::<cpu_set_t>()` bytes into it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        let size = std::mem::size_of::<libc::cpu_set_t>();
        (libc::sched_getaffinity(0, size, &mut set) == 0).then_some(set)
    }
}

#[cfg(target_os = "linux")]
impl Placement {
    /// The calling thread's cores and current core; `None` where they cannot be read or there is
    /// no other core to start on.
    pub(super) fn of_current_thread() -> Option<Self> {
        let allowed = affinity()?;
        // SAFETY: `sched_getcpu` takes no argument.
        let current = usize::try_from(unsafe { libc::sched_getcpu() }).ok()?;
        // The largest core number a cpu_set_t holds.
        if current >= 8 * std::mem::size_of::<libc::cpu_set_t>() {
            return None;
        }
        let mut others = allowed;
        // SAFETY: `current` is below the set's capacity (checked above).
        unsafe { libc::CPU_CLR(current, &mut others) };
        (count(&others) > 0).then_some(Self {
            allowed,
            current,
            others,
        })
    }

    /// Allows `thread` (just created, not yet running) only on the other cores.
    pub(super) fn start_elsewhere<T>(&self, thread: &JoinHandle<T>) {
        use std::os::unix::thread::JoinHandleExt;
        // SAFETY: the handle's thread has not been joined (we hold its JoinHandle), so its
        // pthread_t is valid; the set is passed with its own size. A failure leaves the
        // thread where the scheduler put it.
        unsafe {
            libc::pthread_setaffinity_np(
                thread.as_pthread_t(),
                std::mem::size_of::<libc::cpu_set_t>(),
                &self.others,
            );
        }
    }

    /// Gives the calling thread (the helper, once it runs) every core the process may use.
    pub(super) fn allow_everywhere(&self) {
        // SAFETY: the set is passed with its own size; 0 is the calling thread.
        unsafe {
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &self.allowed);
        }
    }
}

/// How many cores `set` holds.
#[cfg(target_os = "linux")]
fn count(set: &libc::cpu_set_t) -> i32 {
    // SAFETY: reads the set only.
    unsafe { libc::CPU_COUNT(set) }
}

#[cfg(not(target_os = "linux"))]
impl Placement {
    pub(super) fn of_current_thread() -> Option<Self> {
        None
    }
    pub(super) fn start_elsewhere<T>(&self, _thread: &JoinHandle<T>) {}
    pub(super) fn allow_everywhere(&self) {}
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::{affinity, Placement};

    fn allowed_now() -> libc::cpu_set_t {
        affinity().expect("the calling thread's cores")
    }

    #[test]
    fn a_helper_starts_off_the_current_core_and_then_may_run_on_every_core() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let Some(placement) = Placement::of_current_thread() else {
            // With one core there is nothing to place; with more, the set must have been read.
            assert_eq!(cores, 1, "the cores could not be read");
            return;
        };
        let (seen_tx, seen_rx) = std::sync::mpsc::channel();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            go_rx.recv().unwrap();
            let before = allowed_now();
            placement.allow_everywhere();
            seen_tx.send((before, allowed_now())).unwrap();
        });
        placement.start_elsewhere(&thread);
        go_tx.send(()).unwrap();
        let (before, after) = seen_rx.recv().unwrap();
        thread.join().unwrap();
        // SAFETY: reading sets.
        unsafe {
            assert!(!libc::CPU_ISSET(placement.current, &before));
            assert_eq!(
                libc::CPU_COUNT(&before),
                libc::CPU_COUNT(&placement.allowed) - 1
            );
            assert_eq!(libc::CPU_COUNT(&after), libc::CPU_COUNT(&placement.allowed));
            assert!(libc::CPU_ISSET(placement.current, &after));
        }
    }
}

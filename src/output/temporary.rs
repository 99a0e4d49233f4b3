//! The process-wide registry of live temporary files: every temporary file of an
//! [`AtomicFile`](super::AtomicFile) is listed here from its creation to its rename or removal,
//! so that an interrupted process (SIGINT, SIGTERM, SIGHUP) removes them all before it exits.
//!
//! The registry's lock is held while a temporary file is created and registered, while it is
//! renamed into place and unregistered, and while it is removed: a signal never finds a file
//! half-way (created but unlisted, or renamed but still listed).

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

/// The temporary files that exist now.
static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Numbers the temporary files of this process.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// The registry, whatever a panicking holder left (the list stays valid).
pub(super) fn live() -> MutexGuard<'static, Vec<PathBuf>> {
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Creates a new temporary file `.dbl-PID-N.tmp` in `folder` and registers it. The name is short
/// whatever the target's, so that any legal target name works.
pub(super) fn create_in(folder: &Path) -> io::Result<(File, PathBuf)> {
    let name = format!(
        ".dbl-{}-{}.tmp",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let path = folder.join(name);
    #[cfg(feature = "cli")]
    signals::start_if_wanted();
    let mut live = live();
    let file = File::options().write(true).create_new(true).open(&path)?;
    live.push(path.clone());
    Ok((file, path))
}

/// Removes a temporary file and unregisters it.
pub(super) fn remove(path: &Path) {
    let mut live = live();
    let _ = std::fs::remove_file(path);
    unregister(&mut live, path);
}

/// Takes `path` off the list (after its rename into place, or its removal).
pub(super) fn unregister(live: &mut Vec<PathBuf>, path: &Path) {
    live.retain(|p| p != path);
}

/// Removes every live temporary file and ends the process with `code`. The registry stays
/// locked until the end: no other thread creates or renames a file meanwhile.
pub fn exit_removing_temporary_files(code: i32) -> ! {
    let live = live();
    for path in live.iter() {
        let _ = std::fs::remove_file(path);
    }
    std::process::exit(code)
}

/// On SIGINT, SIGTERM or SIGHUP: every temporary file is removed and the process exits with
/// 128 + the signal's number (130, 143, 129), as a shell reports a process killed by it. A
/// signal the process was started ignoring stays ignored (`nohup` keeps working).
///
/// The handlers and the thread that acts on them start with the first temporary file (before
/// it is created): until then a signal has nothing to remove and stops the process as it
/// would anyway, and a command that writes no file (`--version`, `validate`, a run to standard
/// output) starts no thread. Without a thread (it could not start) a signal still stops the
/// process, only leaving its temporary files.
#[cfg(feature = "cli")]
pub fn remove_temporary_files_on_signals() {
    signals::WANTED.store(true, Ordering::Relaxed);
}

/// From now on the first SIGINT (Ctrl-C) only asks the command to finish early
/// ([`interrupted`] turns true): a search then writes its best result so far. A second SIGINT,
/// and SIGTERM or SIGHUP, end the process as [`remove_temporary_files_on_signals`] says.
#[cfg(feature = "cli")]
pub fn defer_first_interrupt() {
    signals::DEFER.store(true, Ordering::Relaxed);
}

/// Whether a deferred SIGINT arrived ([`defer_first_interrupt`]).
#[cfg(feature = "cli")]
pub fn interrupted() -> bool {
    signals::INTERRUPTED.load(Ordering::Relaxed)
}

#[cfg(feature = "cli")]
mod signals {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Once;

    /// [`super::remove_temporary_files_on_signals`] was called.
    pub(super) static WANTED: AtomicBool = AtomicBool::new(false);

    /// [`super::defer_first_interrupt`] was called.
    pub(super) static DEFER: AtomicBool = AtomicBool::new(false);

    /// A deferred SIGINT arrived.
    pub(super) static INTERRUPTED: AtomicBool = AtomicBool::new(false);

    static STARTED: Once = Once::new();

    /// Starts the signal thread once, if wanted.
    pub(super) fn start_if_wanted() {
        if WANTED.load(Ordering::Relaxed) {
            STARTED.call_once(|| {
                let _ = start();
            });
        }
    }

    fn start() -> std::io::Result<()> {
        use signal_hook::consts::signal::{SIGHUP, SIGINT, SIGTERM};
        let ignored = super::ignored_signals();
        let caught: Vec<i32> = [SIGINT, SIGTERM, SIGHUP]
            .into_iter()
            .filter(|&s| ignored & (1 << (s - 1)) == 0)
            .collect();
        let mut signals = signal_hook::iterator::Signals::new(caught)?;
        std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                for signal in signals.forever() {
                    let deferred = signal == SIGINT
                        && DEFER.load(Ordering::Relaxed)
                        && !INTERRUPTED.swap(true, Ordering::Relaxed);
                    if !deferred {
                        super::exit_removing_temporary_files(128 + signal);
                    }
                }
            })?;
        Ok(())
    }
}

/// The signals this process ignores, bit `s - 1` for signal `s` (the `SigIgn` mask of
/// `/proc/self/status`; none where there is no such file).
#[cfg(feature = "cli")]
fn ignored_signals() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("SigIgn:"))
                .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "cli")]
    fn the_ignored_signals_are_read_from_the_process_status() {
        // The test harness ignores SIGPIPE (13), as every Rust program does.
        if Path::new("/proc/self/status").exists() {
            assert_ne!(ignored_signals() & (1 << 12), 0);
        }
    }
}

//! Output files. A regular file (or a path that does not exist yet) is written under a temporary
//! name in its folder and renamed into place on commit: readers never see half a file, and a
//! file never committed never appears. Anything else (a character device such as `/dev/null` or
//! a terminal, a FIFO, an open descriptor `/dev/stdout`) is written through as it goes: a rename
//! would replace the device itself. Symbolic links are followed to their final target, which
//! gets the content (the link stays a link). A target named `*.gz` gets its content
//! gzip-compressed, renamed or written through alike (see [`super::compress`]).

use std::fs::{File, Metadata};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use thiserror::Error;

use super::compress::{is_gzip_name, Encoded};
use super::temporary;

/// Longest chain of symbolic links followed (as the kernel's ELOOP limit).
const MAX_LINKS: usize = 40;

/// Whether a commit makes the file durable (see [`set_durable_commits`]).
static DURABLE: AtomicBool = AtomicBool::new(false);

/// Makes every later [`AtomicFile::commit`] durable (`true`) or not (`false`, the default). A
/// durable commit flushes the file to the disk before renaming it into place and the folder
/// after, so that the new file (and never an empty one in its place) is there after a power
/// cut or a system crash; it costs a disk flush per file (1-2 ms on a local SSD, more on a
/// network file system). Without it a commit is still atomic for every reader of a running
/// system (the rename), as `cp`, `sort -o` or a compiler's outputs are.
pub fn set_durable_commits(durable: bool) {
    DURABLE.store(durable, Ordering::Relaxed);
}

/// Why a path cannot take an output file.
#[derive(Debug, Error)]
pub enum DestinationError {
    /// The path is a folder; holds it with `NAME` appended, as an example of a file path.
    #[error("is a folder, not a file: give a file path, e.g. {}", .0.display())]
    Folder(PathBuf),
    /// The folder the file would be in (this one) does not exist.
    #[error(
        "the folder {} does not exist: create it first (mkdir -p {}) or write elsewhere",
        .0.display(),
        .0.display()
    )]
    NoFolder(PathBuf),
    /// The folder the file would be in (this path) is not a folder, or lies under a file.
    #[error("{} is not a folder: give a path in an existing folder", .0.display())]
    NotAFolder(PathBuf),
    /// More than 40 symbolic links in a row were followed (a loop?).
    #[error("more than {MAX_LINKS} symbolic links in a row (a loop?): give the file itself")]
    LinkLoop,
    /// The path does not end with a file name (e.g. it ends with `..`).
    #[error("not a file name: give a path ending with a file name")]
    NoFileName,
    /// The file system refused a look-up (metadata, link, canonical path) or the open.
    #[error("{0}")]
    Io(#[from] io::Error),
}

impl From<DestinationError> for io::Error {
    fn from(e: DestinationError) -> Self {
        match e {
            DestinationError::Io(e) => e,
            other => io::Error::new(io::ErrorKind::InvalidInput, other),
        }
    }
}

/// Where an output's bytes go.
#[derive(Debug)]
enum Destination {
    /// A regular file (`Some` identity) or a new one: renamed into place.
    Renamed { path: PathBuf, identity: Identity },
    /// A device, FIFO or open descriptor: written through, opened by this path. A descriptor
    /// open on a regular file has that file's identity.
    Through {
        path: PathBuf,
        identity: Option<Identity>,
    },
}

/// What makes two paths the same renamed file: the device and inode of an existing file, the
/// canonical folder and name of a new one.
#[derive(Debug, PartialEq, Eq)]
enum Identity {
    #[cfg_attr(not(unix), allow(dead_code))]
    Inode(u64, u64),
    New(PathBuf),
}

/// A file that appears under its name only when [`AtomicFile::commit`] succeeds (or, for a
/// device, FIFO or descriptor, is written through as it goes).
#[derive(Debug)]
pub struct AtomicFile {
    target: PathBuf,
    /// Where the temporary file is renamed to (the target with its links followed).
    destination: PathBuf,
    /// The temporary file, until it is committed or removed; `None` when writing through.
    temp: Option<PathBuf>,
    writer: Encoded,
}

impl AtomicFile {
    /// Opens an output: the temporary file `.dbl-PID-N.tmp` in the target's folder, or the
    /// target itself when it is written through. The target's folder must exist and the target
    /// must not be a folder. A target named `*.gz` is written gzip-compressed.
    pub fn open(target: &Path) -> Result<Self, DestinationError> {
        let (destination, temp, file) = match resolve(target)? {
            Destination::Renamed { path, .. } => {
                let (file, temp) = temporary::create_in(folder_of(&path))?;
                (path, Some(temp), file)
            }
            Destination::Through { path, .. } => {
                let file = File::options().append(true).open(&path)?;
                (path, None, file)
            }
        };
        Ok(Self {
            target: target.to_path_buf(),
            destination,
            temp,
            writer: Encoded::new(file, is_gzip_name(target)),
        })
    }

    /// [`AtomicFile::open`] with the reason as an `io::Error`.
    pub fn create(target: &Path) -> io::Result<Self> {
        Ok(Self::open(target)?)
    }

    /// True when the bytes go straight to the target (a device, FIFO or open descriptor), which
    /// is then never renamed: there is no moment at which it becomes complete.
    pub fn writes_through(&self) -> bool {
        self.temp.is_none()
    }

    /// The target's name.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Ends a compressed stream and flushes; a renamed file is then renamed into place (the
    /// temporary file is removed when that fails), flushed to the disk before and its folder
    /// after when commits are durable ([`set_durable_commits`]).
    pub fn commit(mut self) -> io::Result<()> {
        let file = self.writer.finish()?;
        let Some(temp) = self.temp.clone() else {
            return Ok(());
        };
        let durable = DURABLE.load(Ordering::Relaxed);
        if durable {
            file.sync_all()?;
        }
        let mut live = temporary::live();
        std::fs::rename(&temp, &self.destination)?;
        temporary::unregister(&mut live, &temp);
        self.temp = None;
        drop(live);
        // The rename itself made durable (a folder opens as a file on Unix only).
        #[cfg(unix)]
        if durable {
            File::open(folder_of(&self.destination))?.sync_all()?;
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            temporary::remove(&temp);
        }
    }
}

/// The first two outputs, by their labels, that name the same regular file (spelled differently,
/// a hard link, a symbolic link to it, `/dev/stdout` open on it): writing both would lose one.
/// Devices and FIFOs written through may be shared. Paths that cannot be resolved are left to
/// [`AtomicFile::open`].
pub fn shared_destination<'a>(outputs: &[(&'a str, &Path)]) -> Option<(&'a str, &'a str)> {
    let identities: Vec<(&str, Identity)> = outputs
        .iter()
        .filter_map(|&(label, path)| match resolve(path) {
            Ok(Destination::Renamed { identity, .. }) => Some((label, identity)),
            Ok(Destination::Through { identity, .. }) => identity.map(|i| (label, i)),
            Err(_) => None,
        })
        .collect();
    identities.iter().enumerate().find_map(|(i, (first, a))| {
        identities[i + 1..]
            .iter()
            .find(|(_, b)| a == b)
            .map(|(second, _)| (*first, *second))
    })
}

/// Follows `target`'s symbolic links and says how it is written.
fn resolve(target: &Path) -> Result<Destination, DestinationError> {
    let mut path = target.to_path_buf();
    for _ in 0..MAX_LINKS {
        let metadata = match std::fs::symlink_metadata(&path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return new_file(path),
            Err(e) if e.kind() == io::ErrorKind::NotADirectory => {
                return Err(DestinationError::NotAFolder(folder_of(&path).to_path_buf()))
            }
            Err(e) => return Err(e.into()),
        };
        if metadata.file_type().is_symlink() {
            if is_open_descriptor(&path) {
                let identity = std::fs::metadata(&path)
                    .ok()
                    .filter(Metadata::is_file)
                    .and_then(|m| inode(&m));
                return Ok(Destination::Through { path, identity });
            }
            let link = std::fs::read_link(&path)?;
            path = folder_of(&path).join(link);
        } else if metadata.is_dir() {
            return Err(DestinationError::Folder(path.join("NAME")));
        } else if metadata.is_file() {
            let identity = inode(&metadata).map_or_else(|| new_identity(&path), Ok)?;
            return Ok(Destination::Renamed { path, identity });
        } else {
            return Ok(Destination::Through {
                path,
                identity: None,
            });
        }
    }
    Err(DestinationError::LinkLoop)
}

/// A path that does not exist yet: its folder must.
fn new_file(path: PathBuf) -> Result<Destination, DestinationError> {
    let folder = folder_of(&path);
    match std::fs::metadata(folder) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(DestinationError::NotAFolder(folder.to_path_buf())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(DestinationError::NoFolder(folder.to_path_buf()))
        }
        Err(e) if e.kind() == io::ErrorKind::NotADirectory => {
            return Err(DestinationError::NotAFolder(folder.to_path_buf()))
        }
        Err(e) => return Err(e.into()),
    }
    let identity = new_identity(&path)?;
    Ok(Destination::Renamed { path, identity })
}

/// The canonical folder and the name.
fn new_identity(path: &Path) -> Result<Identity, DestinationError> {
    let name = path.file_name().ok_or(DestinationError::NoFileName)?;
    Ok(Identity::New(
        std::fs::canonicalize(folder_of(path))?.join(name),
    ))
}

#[cfg(unix)]
fn inode(metadata: &Metadata) -> Option<Identity> {
    use std::os::unix::fs::MetadataExt;
    Some(Identity::Inode(metadata.dev(), metadata.ino()))
}

#[cfg(not(unix))]
fn inode(_: &Metadata) -> Option<Identity> {
    None
}

/// The folder a path's file is in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// `/proc/PID/fd/N` (and `/dev/stdout`, `/dev/fd/N` that lead there): a link to an open
/// descriptor, which may be a pipe with no path at all. Opening it opens what it is open on.
fn is_open_descriptor(path: &Path) -> bool {
    path.parent()
        .and_then(|folder| std::fs::canonicalize(folder).ok())
        .is_some_and(|folder| folder.starts_with("/proc") && folder.ends_with("fd"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("diabolo-atomic-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn appears_only_when_committed() {
        let dir = folder("commit");
        let target = dir.join("out.csv");
        let mut file = AtomicFile::create(&target).unwrap();
        file.write_all(b"a,b\n").unwrap();
        assert!(!target.exists());
        drop(file);
        assert!(!target.exists());
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "the temporary file is gone"
        );
        let mut file = AtomicFile::create(&target).unwrap();
        file.write_all(b"a,b\n").unwrap();
        file.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "a,b\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_rename_removes_the_temporary_file_and_unregisters_it() {
        let dir = folder("rename");
        let target = dir.join("out.csv");
        let file = AtomicFile::create(&target).unwrap();
        let temp = file.temp.clone().unwrap();
        assert!(temporary::live().contains(&temp));
        // The target becomes a folder after the file was opened: the rename fails.
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("keep"), "x").unwrap();
        assert!(file.commit().is_err());
        assert!(!temp.exists(), "the temporary file is removed");
        assert!(!temporary::live().contains(&temp), "and unregistered");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_temporary_name_is_short_whatever_the_target_name() {
        let dir = folder("long");
        let target = dir.join("x".repeat(254));
        let file = AtomicFile::create(&target).unwrap();
        let temp = file.temp.clone().unwrap();
        assert!(temp.file_name().unwrap().len() <= 40, "{temp:?}");
        file.commit().unwrap();
        assert!(target.is_file());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

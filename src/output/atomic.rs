//! A file written under a temporary name beside its target and renamed into place on commit:
//! readers never see half a file, and a file never committed never appears.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file that appears under its name only when [`AtomicFile::commit`] succeeds.
#[derive(Debug)]
pub struct AtomicFile {
    target: PathBuf,
    temp: PathBuf,
    writer: Option<BufWriter<File>>,
}

impl AtomicFile {
    /// Creates the temporary file `.NAME.PID.tmp` in the target's folder.
    pub fn create(target: &Path) -> io::Result<Self> {
        let name = target
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
        let temp = target.with_file_name(format!(
            ".{}.{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        let file = File::create(&temp)?;
        Ok(Self {
            target: target.to_path_buf(),
            temp,
            writer: Some(BufWriter::with_capacity(1 << 16, file)),
        })
    }

    /// The target's name.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flushes, syncs and renames the file into place.
    pub fn commit(mut self) -> io::Result<()> {
        let writer = self.writer.take().expect("a file is committed once");
        let file = writer.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&self.temp, &self.target)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer.as_mut().expect("open").write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer.as_mut().expect("open").write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.as_mut().expect("open").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.writer.take().is_some() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appears_only_when_committed() {
        let dir = std::env::temp_dir().join(format!("diabolo-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
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
}

//! Gzip, by name on writing and by content on reading. An output whose name ends in `.gz`
//! (`t.csv.gz`, `events.jsonl.gz`) is written gzip-compressed; any other name is written as is.
//! An input is decompressed when it starts with the gzip magic bytes `1f 8b`, whatever its name
//! (a plain file under a `.gz` name is read as it is). Several gzip members one after another
//! (`cat a.gz b.gz`) read as one stream, as `gunzip` reads them.
//!
//! Every input is read through [`Bounded`], so that a small file cannot take the memory (a
//! 2.6 MB gzip unpacks to a 2.6 GB line): see [`crate::input_limits`].

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use flate2::bufread::MultiGzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;

use crate::input_limits::{read_text, Bounded, Records};

/// The first two bytes of every gzip stream (RFC 1952).
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// True when `path`'s name ends in `.gz` (any case): the output is written gzip-compressed.
pub fn is_gzip_name(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
}

/// `path` without its `.gz` (`t.csv.gz` -> `t.csv`), the name of the content; other paths as
/// they are.
pub fn content_name(path: &Path) -> PathBuf {
    if is_gzip_name(path) {
        path.with_extension("")
    } else {
        path.to_path_buf()
    }
}

/// Bytes an output file or standard output gathers before a write (32 KiB): less than a block
/// of formatted rows (about 50 KB, `pipeline`), which then goes out without being copied into
/// the buffer first.
pub const WRITE_BUFFER: usize = 1 << 15;

/// The file's bytes as they go out: as given, or through a gzip encoder.
#[derive(Debug)]
pub(crate) enum Encoded {
    /// Written as given.
    Plain(BufWriter<File>),
    /// Compressed with gzip (default level; the header's time is 0, so a given content always
    /// compresses to the same bytes).
    Gzip(GzEncoder<BufWriter<File>>),
}

impl Encoded {
    /// A writer of `file`, gzip-compressed when `gzip`.
    pub(crate) fn new(file: File, gzip: bool) -> Self {
        let buffered = BufWriter::with_capacity(WRITE_BUFFER, file);
        if gzip {
            Self::Gzip(GzEncoder::new(buffered, Compression::default()))
        } else {
            Self::Plain(buffered)
        }
    }

    /// Ends the stream (the gzip trailer) and flushes every buffer down to the file; the file.
    pub(crate) fn finish(&mut self) -> io::Result<&File> {
        let buffered = match self {
            Self::Plain(buffered) => buffered,
            Self::Gzip(encoder) => {
                encoder.try_finish()?;
                encoder.get_mut()
            }
        };
        buffered.flush()?;
        Ok(buffered.get_ref())
    }

    fn inner(&mut self) -> &mut dyn Write {
        match self {
            Self::Plain(buffered) => buffered,
            Self::Gzip(encoder) => encoder,
        }
    }
}

impl Write for Encoded {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner().flush()
    }
}

/// A buffered reader of `input`'s content: decompressed when it starts with [`GZIP_MAGIC`].
pub fn decoded<R: Read + Send + 'static>(input: R) -> io::Result<Box<dyn BufRead + Send>> {
    let mut buffered = BufReader::with_capacity(1 << 16, input);
    let start = buffered.fill_buf()?;
    if start.starts_with(&GZIP_MAGIC) {
        Ok(Box::new(BufReader::with_capacity(
            1 << 16,
            MultiGzDecoder::new(buffered),
        )))
    } else {
        Ok(Box::new(buffered))
    }
}

/// Opens the file at `path` for streaming its content (see [`decoded`]), CSV records at most
/// [`crate::input_limits::MAX_LINE_BYTES`] long.
pub fn open(path: &Path) -> io::Result<Bounded<Box<dyn BufRead + Send>>> {
    Ok(Bounded::new(
        decoded(File::open(path)?)?,
        Records::Csv,
        u64::MAX,
    ))
}

/// The file's content as text, decompressed when it is gzip (see [`decoded`]): at most
/// [`crate::input_limits::MAX_WHOLE_FILE_BYTES`], its records (ending as `records` say) at
/// most [`crate::input_limits::MAX_LINE_BYTES`].
pub fn read_to_string(path: &Path, records: Records) -> io::Result<String> {
    read_text(decoded(File::open(path)?)?, records)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    fn read_all(bytes: Vec<u8>) -> Vec<u8> {
        let mut out = Vec::new();
        decoded(io::Cursor::new(bytes))
            .unwrap()
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    #[test]
    fn a_gzip_name_ends_in_gz_in_any_case() {
        assert!(is_gzip_name(Path::new("t.csv.gz")));
        assert!(is_gzip_name(Path::new("dir/T.CSV.GZ")));
        assert!(!is_gzip_name(Path::new("t.csv")));
        assert!(!is_gzip_name(Path::new("t.gzip")));
        assert!(!is_gzip_name(Path::new("gz")));
        assert_eq!(content_name(Path::new("d/t.csv.gz")), Path::new("d/t.csv"));
        assert_eq!(content_name(Path::new("d/t.csv")), Path::new("d/t.csv"));
    }

    #[test]
    fn gzip_content_is_decompressed_and_plain_content_passes_through() {
        let text = b"t,x\n0.0,1.5\n".to_vec();
        assert_eq!(gzip(&text)[..2], GZIP_MAGIC);
        assert_eq!(read_all(gzip(&text)), text);
        assert_eq!(read_all(text.clone()), text);
        assert_eq!(read_all(Vec::new()), b"");
    }

    #[test]
    fn concatenated_gzip_members_read_as_one_stream() {
        let mut both = gzip(b"t,x\n");
        both.extend(gzip(b"0.0,1.5\n"));
        assert_eq!(read_all(both), b"t,x\n0.0,1.5\n");
    }

    #[test]
    fn a_truncated_gzip_stream_is_an_error_not_a_short_file() {
        let mut bytes = gzip(&b"0.125,2.5\n".repeat(1000));
        bytes.truncate(bytes.len() / 2);
        let mut out = Vec::new();
        let result = decoded(io::Cursor::new(bytes))
            .unwrap()
            .read_to_end(&mut out);
        assert!(result.is_err());
    }
}

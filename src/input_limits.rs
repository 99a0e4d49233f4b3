//! The limits on reading any input file, so that a small file cannot take the memory (a
//! 2.6 MB gzip unpacks to one 2.6 GB line): no line (no CSV record) longer than
//! [`MAX_LINE_BYTES`], and no file read whole (a recording, an event log, a continuation, a
//! scenario, a path's samples, a parameter file) larger than [`MAX_WHOLE_FILE_BYTES`]. Every
//! reader of a file goes through [`Bounded`]; gzip inputs are decompressed before it
//! ([`crate::output::compress`]), so the limits are on the content.

use std::io::{self, BufRead, Read};

use thiserror::Error;

/// The longest line of a file `diabolo` reads (a CSV record, quoted line breaks included),
/// bytes: 1 MiB. A trajectory's row of 100 diabolos is about 6 KB.
pub const MAX_LINE_BYTES: u64 = 1 << 20;

/// The largest content of a file read whole (a recording, an event log, a continuation, a
/// scenario, a path's samples), bytes after decompression: 256 MiB (a recording of 3 million
/// frames). Trajectories are streamed and have no such limit.
pub const MAX_WHOLE_FILE_BYTES: u64 = 1 << 28;

/// Bytes [`Bounded`] takes from its input at a time: less than [`MAX_LINE_BYTES`], so a line
/// that starts and ends within one chunk is within the limit.
const CHUNK_BYTES: usize = 1 << 16;

/// A limit of [`Bounded`] reached; carried in the `io::Error` (kind `InvalidData`) of the read.
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
pub enum InputLimit {
    /// A line (a CSV record) longer than [`MAX_LINE_BYTES`].
    #[error(
        "line {line} is longer than {MAX_LINE_BYTES} bytes (1 MiB), the longest line diabolo \
         reads (MAX_LINE_BYTES); is it the right file? (a file of diabolo's has short lines)"
    )]
    Line {
        /// The line where the long line (or quoted CSV record) starts, the first being 1.
        line: u64,
    },
    /// Content larger than [`MAX_WHOLE_FILE_BYTES`].
    #[error(
        "the content is larger than {MAX_WHOLE_FILE_BYTES} bytes (256 MiB unpacked), the most \
         diabolo reads whole (MAX_WHOLE_FILE_BYTES); give a shorter file (split the recording, \
         or the events of a shorter run)"
    )]
    Size,
}

impl InputLimit {
    /// The limit carried by a read's error, if it is one.
    pub fn of(e: &io::Error) -> Option<Self> {
        e.get_ref()?.downcast_ref::<Self>().copied()
    }
}

/// Why a file could not be read: the limit it reached, or `cannot read: ` and the error.
pub fn read_failure(e: &io::Error) -> String {
    InputLimit::of(e).map_or_else(|| format!("cannot read: {e}"), |limit| limit.to_string())
}

/// How a record of the input ends, for the line limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Records {
    /// At each line break (JSON lines, and files whose lines only count as lines).
    Lines,
    /// At a line break outside double quotes, as the CSV reader of
    /// [`crate::output::table::csv_reader`] reads (a quoted field may hold line breaks; lines
    /// starting with `#` are comments whose quotes do not count).
    Csv,
    /// Not at all: the whole content is one record, bounded by the size limit alone (a JSON
    /// document, whose one line may be the whole file: `json.dumps` writes no line breaks).
    Whole,
}

/// A reader that refuses a line (record) longer than [`MAX_LINE_BYTES`] and a content larger
/// than its size limit, with an [`InputLimit`] error, before the bytes reach the caller.
pub struct Bounded<R> {
    inner: R,
    records: Records,
    /// The most bytes the whole content may have.
    max_total: u64,
    /// Bytes passed on so far.
    total: u64,
    /// Line breaks passed on so far.
    line_breaks: u64,
    /// The line the current record starts on (1 = the first).
    record_line: u64,
    /// Bytes of the current record so far.
    record_bytes: u64,
    /// Within a double-quoted CSV field.
    in_quotes: bool,
    /// Within a `#` comment line (CSV).
    in_comment: bool,
}

impl<R: BufRead> Bounded<R> {
    /// A reader of `inner` whose records end as `records` say and whose content is at most
    /// `max_total` bytes (`u64::MAX`: a stream of any length).
    pub fn new(inner: R, records: Records, max_total: u64) -> Self {
        Self {
            inner,
            records,
            max_total,
            total: 0,
            line_breaks: 0,
            record_line: 1,
            record_bytes: 0,
            in_quotes: false,
            in_comment: false,
        }
    }

    /// Counts `chunk` (at most [`CHUNK_BYTES`]) into the record and the total; the limit it
    /// passes, if any.
    fn advance(&mut self, chunk: &[u8]) -> Result<(), InputLimit> {
        self.total += chunk.len() as u64;
        if self.total > self.max_total {
            return Err(InputLimit::Size);
        }
        match self.records {
            Records::Whole => Ok(()),
            Records::Csv if self.in_quotes || chunk.contains(&b'"') => self.advance_quoted(chunk),
            Records::Csv | Records::Lines => self.advance_lines(chunk),
        }
    }

    /// Refuses the current record when it holds more than [`MAX_LINE_BYTES`].
    fn check_record(&self) -> Result<(), InputLimit> {
        if self.record_bytes > MAX_LINE_BYTES {
            return Err(InputLimit::Line {
                line: self.record_line,
            });
        }
        Ok(())
    }

    /// A chunk without quotes outside a quoted field: records end at each line break. Only
    /// the record the chunk continues can pass the limit (a whole line within a chunk is
    /// shorter than [`CHUNK_BYTES`]).
    fn advance_lines(&mut self, chunk: &[u8]) -> Result<(), InputLimit> {
        let Some(first) = chunk.iter().position(|&b| b == b'\n') else {
            self.in_comment |= self.record_bytes == 0 && chunk.first() == Some(&b'#');
            self.record_bytes += chunk.len() as u64;
            return self.check_record();
        };
        self.record_bytes += first as u64;
        self.check_record()?;
        let last = chunk.iter().rposition(|&b| b == b'\n').unwrap_or(first);
        self.line_breaks += chunk.iter().filter(|&&b| b == b'\n').count() as u64;
        self.record_line = self.line_breaks + 1;
        let rest = &chunk[last + 1..];
        self.record_bytes = rest.len() as u64;
        self.in_comment = rest.first() == Some(&b'#');
        Ok(())
    }

    /// A chunk with quotes, or within a quoted field: byte by byte.
    fn advance_quoted(&mut self, chunk: &[u8]) -> Result<(), InputLimit> {
        for &b in chunk {
            match b {
                b'\n' => {
                    self.line_breaks += 1;
                    if !self.in_quotes {
                        self.check_record()?;
                        self.record_line = self.line_breaks + 1;
                        self.record_bytes = 0;
                        self.in_comment = false;
                        continue;
                    }
                }
                b'#' if self.record_bytes == 0 && !self.in_quotes => self.in_comment = true,
                b'"' if !self.in_comment => self.in_quotes = !self.in_quotes,
                _ => {}
            }
            self.record_bytes += 1;
        }
        self.check_record()
    }
}

impl<R: BufRead> Read for Bounded<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.inner.fill_buf()?;
        let n = available.len().min(out.len()).min(CHUNK_BYTES);
        let chunk = &available[..n];
        out[..n].copy_from_slice(chunk);
        // `chunk` borrows `inner`: count a copy's worth through `out`.
        self.advance(&out[..n])
            .map_err(|limit| io::Error::new(io::ErrorKind::InvalidData, limit))?;
        self.inner.consume(n);
        Ok(n)
    }
}

/// `input`'s text (not decompressed), within the limits of [`read_to_string`].
pub fn read_text(input: impl BufRead, records: Records) -> io::Result<String> {
    let mut text = String::new();
    Bounded::new(input, records, MAX_WHOLE_FILE_BYTES).read_to_string(&mut text)?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `input` reads whole and unchanged through a [`Bounded`] of `records` and
    /// `max_total`, or the limit it reaches.
    fn read_all(input: &[u8], records: Records, max_total: u64) -> Result<bool, InputLimit> {
        let mut out = Vec::new();
        Bounded::new(input, records, max_total)
            .read_to_end(&mut out)
            .map(|_| out == input)
            .map_err(|e| InputLimit::of(&e).expect("a limit, not another error"))
    }

    fn line_of(bytes: usize) -> Vec<u8> {
        let mut line = vec![b'1'; bytes];
        line.push(b'\n');
        line
    }

    #[test]
    fn lines_up_to_the_limit_pass_whole_and_a_longer_one_is_refused_with_its_line() {
        let limit = MAX_LINE_BYTES as usize;
        let mut input = b"t,x\n".to_vec();
        input.extend(line_of(limit));
        input.extend(line_of(limit));
        assert_eq!(read_all(&input, Records::Csv, u64::MAX), Ok(true));
        input.extend(line_of(limit + 1));
        for records in [Records::Csv, Records::Lines] {
            assert_eq!(
                read_all(&input, records, u64::MAX),
                Err(InputLimit::Line { line: 4 })
            );
        }
        assert_eq!(read_all(&input, Records::Whole, u64::MAX), Ok(true));
    }

    #[test]
    fn a_quoted_csv_field_over_many_short_lines_counts_as_one_record() {
        let mut input = b"t,phase\n0,\"".to_vec();
        for _ in 0..MAX_LINE_BYTES / 4 + 1 {
            input.extend(b"abc\n");
        }
        input.extend(b"\"\n");
        assert_eq!(
            read_all(&input, Records::Csv, u64::MAX),
            Err(InputLimit::Line { line: 2 })
        );
        // As lines (JSON lines), each is short.
        assert_eq!(read_all(&input, Records::Lines, u64::MAX), Ok(true));
    }

    #[test]
    fn quotes_in_csv_comments_and_closed_quotes_do_not_join_lines() {
        let mut input = b"# a \"comment\nt,phase\n0,\"a,b\"\n".to_vec();
        for _ in 0..MAX_LINE_BYTES / 8 + 1 {
            input.extend(b"1,taut\n");
        }
        assert_eq!(read_all(&input, Records::Csv, u64::MAX), Ok(true));
    }

    #[test]
    fn content_beyond_the_size_limit_is_refused_and_up_to_it_passes() {
        let input = b"0,1\n".repeat(1000);
        assert_eq!(read_all(&input, Records::Csv, 4000), Ok(true));
        assert_eq!(read_all(&input, Records::Csv, 3999), Err(InputLimit::Size));
        assert_eq!(
            read_all(&input, Records::Whole, 3999),
            Err(InputLimit::Size)
        );
    }

    #[test]
    fn a_limit_reads_as_its_message_and_other_errors_as_cannot_read() {
        let limit = io::Error::new(io::ErrorKind::InvalidData, InputLimit::Size);
        assert!(read_failure(&limit).contains("MAX_WHOLE_FILE_BYTES"));
        let other = io::Error::new(io::ErrorKind::NotFound, "no such file");
        assert_eq!(read_failure(&other), "cannot read: no such file");
    }
}

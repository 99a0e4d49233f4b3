//! Bitmap files from RGB buffers: PNG, and animated GIF with a fixed palette and only the pixels
//! that changed since the previous frame stored.

use std::borrow::Cow;
use std::io::Write;

use super::PlotError;

fn encoding_error(e: impl std::fmt::Display) -> PlotError {
    PlotError::Draw(format!("encoding: {e}"))
}

/// Writes an 8-bit RGB image as PNG.
pub(super) fn write_png(
    out: &mut dyn Write,
    width: u32,
    height: u32,
    rgb: &[u8],
) -> Result<(), PlotError> {
    let mut encoder = png::Encoder::new(out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::High);
    let mut writer = encoder.write_header().map_err(png_error)?;
    writer.write_image_data(rgb).map_err(png_error)?;
    writer.finish().map_err(png_error)
}

fn png_error(e: png::EncodingError) -> PlotError {
    match e {
        png::EncodingError::IoError(e) => PlotError::Write(e),
        e => encoding_error(e),
    }
}

fn gif_error(e: gif::EncodingError) -> PlotError {
    match e {
        gif::EncodingError::Io(e) => PlotError::Write(e),
        e => encoding_error(e),
    }
}

/// The palette index that means "unchanged since the previous frame".
const TRANSPARENT: u8 = 255;
/// Grey levels after the 216 colours of the 6x6x6 cube.
const GREYS: usize = 39;

/// The global palette: the 6x6x6 colour cube (0, 51, ..., 255 per channel), 39 greys, and the
/// transparent entry.
fn palette() -> Vec<u8> {
    let mut palette = Vec::with_capacity(256 * 3);
    for r in 0..6u8 {
        for g in 0..6u8 {
            for b in 0..6u8 {
                palette.extend([r * 51, g * 51, b * 51]);
            }
        }
    }
    for i in 0..GREYS {
        let v = (i * 255 / (GREYS - 1)) as u8;
        palette.extend([v, v, v]);
    }
    palette.extend([255, 255, 255]);
    palette
}

/// The palette index nearest (near enough) to a colour.
fn index(r: u8, g: u8, b: u8) -> u8 {
    let (hi, lo) = (r.max(g).max(b), r.min(g).min(b));
    if hi - lo <= 12 {
        let v = (r as usize + g as usize + b as usize) / 3;
        (216 + (v * (GREYS - 1) + 127) / 255) as u8
    } else {
        let q = |c: u8| (c as usize * 5 + 127) / 255;
        (36 * q(r) + 6 * q(g) + q(b)) as u8
    }
}

/// An animated GIF being written frame by frame.
pub(super) struct GifWriter<W: Write> {
    encoder: gif::Encoder<W>,
    width: usize,
    height: usize,
    /// The palette indices on screen after the frames so far.
    screen: Option<Vec<u8>>,
    /// Frames written, and the centiseconds elapsed at their end.
    frames: usize,
    fps: f64,
    elapsed_cs: u64,
}

impl<W: Write> GifWriter<W> {
    /// Starts a GIF that loops forever, showing `fps` frames a second.
    pub(super) fn new(out: W, width: u32, height: u32, fps: f64) -> Result<Self, PlotError> {
        let mut encoder =
            gif::Encoder::new(out, width as u16, height as u16, &palette()).map_err(gif_error)?;
        encoder
            .set_repeat(gif::Repeat::Infinite)
            .map_err(gif_error)?;
        Ok(Self {
            encoder,
            width: width as usize,
            height: height as usize,
            screen: None,
            frames: 0,
            fps,
            elapsed_cs: 0,
        })
    }

    /// Adds a frame from an RGB buffer. Delays are whole centiseconds, rounded so that the total
    /// stays at frames / fps.
    pub(super) fn frame(&mut self, rgb: &[u8]) -> Result<(), PlotError> {
        let indices: Vec<u8> = rgb
            .chunks_exact(3)
            .map(|p| index(p[0], p[1], p[2]))
            .collect();
        self.frames += 1;
        let end_cs = (self.frames as f64 * 100.0 / self.fps).round() as u64;
        let delay = (end_cs - self.elapsed_cs).max(1);
        self.elapsed_cs += delay;
        let mut frame = gif::Frame {
            delay: delay as u16,
            dispose: gif::DisposalMethod::Keep,
            ..gif::Frame::default()
        };
        match &self.screen {
            None => {
                frame.width = self.width as u16;
                frame.height = self.height as u16;
                frame.buffer = Cow::Borrowed(&indices);
                self.encoder.write_frame(&frame).map_err(gif_error)?;
            }
            Some(screen) => {
                // The smallest rectangle holding the changed pixels; unchanged ones inside it are
                // transparent (long runs of one index, which LZW stores in a few bits).
                let w = self.width;
                let changed = |i: usize| indices[i] != screen[i];
                let rows: Vec<usize> = (0..self.height)
                    .filter(|&y| (y * w..(y + 1) * w).any(changed))
                    .collect();
                let (top, bottom, left, right) = match (rows.first(), rows.last()) {
                    (Some(&top), Some(&bottom)) => {
                        let mut left = w;
                        let mut right = 0;
                        for &y in &rows {
                            for x in 0..w {
                                if changed(y * w + x) {
                                    left = left.min(x);
                                    right = right.max(x);
                                }
                            }
                        }
                        (top, bottom, left, right)
                    }
                    // Nothing changed: one transparent pixel carries the delay.
                    _ => (0, 0, 0, 0),
                };
                let mut buffer = Vec::with_capacity((bottom - top + 1) * (right - left + 1));
                for y in top..=bottom {
                    for x in left..=right {
                        let i = y * w + x;
                        buffer.push(if changed(i) { indices[i] } else { TRANSPARENT });
                    }
                }
                frame.left = left as u16;
                frame.top = top as u16;
                frame.width = (right - left + 1) as u16;
                frame.height = (bottom - top + 1) as u16;
                frame.transparent = Some(TRANSPARENT);
                frame.buffer = Cow::Owned(buffer);
                self.encoder.write_frame(&frame).map_err(gif_error)?;
            }
        }
        self.screen = Some(indices);
        Ok(())
    }

    /// Ends the file.
    pub(super) fn finish(self) -> Result<W, PlotError> {
        let mut out = self.encoder.into_inner().map_err(gif_error)?;
        out.flush().map_err(PlotError::Write)?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palette_holds_the_cube_colours_exactly() {
        let palette = palette();
        assert_eq!(palette.len(), 256 * 3);
        for rgb in [[0, 102, 204], [204, 51, 0], [255, 255, 255], [0, 0, 0]] {
            let i = index(rgb[0], rgb[1], rgb[2]) as usize;
            assert_eq!(&palette[3 * i..3 * i + 3], &rgb, "{rgb:?}");
        }
        assert_ne!(index(255, 255, 255), TRANSPARENT);
    }

    #[test]
    fn unchanged_frames_are_stored_in_a_few_bytes() -> Result<(), PlotError> {
        let rgb = vec![255u8; 64 * 48 * 3];
        let size = |frames: usize| -> Result<usize, PlotError> {
            let mut out = Vec::new();
            let mut gif = GifWriter::new(&mut out, 64, 48, 30.0)?;
            for _ in 0..frames {
                gif.frame(&rgb)?;
            }
            gif.finish()?;
            Ok(out.len())
        };
        let (one, ten) = (size(1)?, size(10)?);
        assert!(
            ten - one < 9 * 40,
            "{one} bytes for one frame, {ten} for ten"
        );
        Ok(())
    }
}

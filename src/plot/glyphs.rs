//! Text on bitmaps. plotters' own ab_glyph text drawing places each glyph's bitmap without its
//! left side bearing, so letters sit unevenly ("ta ut"); bitmap backends are wrapped in
//! [`GlyphText`], which lays out and rasterises text itself with ab_glyph and the bundled DejaVu
//! Sans, at plotters' size convention (a font of size s has an em of s / 1.24 px, as in its SVG).

use std::sync::OnceLock;

use ab_glyph::{point, Font, FontRef, PxScale, PxScaleFont, ScaleFont};
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontStyle,
};

fn font(style: FontStyle) -> &'static FontRef<'static> {
    static REGULAR: OnceLock<FontRef<'static>> = OnceLock::new();
    static BOLD: OnceLock<FontRef<'static>> = OnceLock::new();
    let (cell, bytes) = match style {
        FontStyle::Bold => (&BOLD, dejavu::sans::bold()),
        _ => (&REGULAR, dejavu::sans::regular()),
    };
    cell.get_or_init(|| FontRef::try_from_slice(bytes).expect("the bundled DejaVu Sans is valid"))
}

fn scaled(style: FontStyle, size: f64) -> PxScaleFont<&'static FontRef<'static>> {
    let font = font(style);
    let em = size as f32 / 1.24;
    let per_em = font.units_per_em().unwrap_or(2048.0);
    font.as_scaled(PxScale::from(em * font.height_unscaled() / per_em))
}

/// Width, ascent and descent (negative) of a line of text, px.
fn measure(font: &PxScaleFont<&FontRef>, text: &str) -> (f32, f32, f32) {
    let mut caret = 0.0;
    let mut previous = None;
    for c in text.chars() {
        let id = font.glyph_id(c);
        if let Some(p) = previous {
            caret += font.kern(p, id);
        }
        caret += font.h_advance(id);
        previous = Some(id);
    }
    (caret, font.ascent(), font.descent())
}

/// A backend whose text is drawn by ab_glyph with correct glyph placement; with the second
/// field true, paths (curves, event lines) are drawn anti-aliased (see [`smooth_path`]).
pub(super) struct GlyphText<B>(pub B, pub bool);

impl<B: DrawingBackend> DrawingBackend for GlyphText<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.0.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if self.1 {
            smooth_path(&mut self.0, path, style)
        } else {
            self.0.draw_path(path, style)
        }
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.fill_polygon(vert, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.0.blit_bitmap(pos, size, src)
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        let (width, ascent, descent) = measure(&scaled(style.style(), style.size()), text);
        Ok((width.ceil() as u32, (ascent - descent).ceil() as u32))
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let font = scaled(style.style(), style.size());
        let (width, ascent, descent) = measure(&font, text);
        let anchor = style.anchor();
        let left = match anchor.h_pos {
            HPos::Left => 0.0,
            HPos::Center => -0.5 * width,
            HPos::Right => -width,
        };
        let top = match anchor.v_pos {
            VPos::Top => 0.0,
            VPos::Center => -0.5 * (ascent - descent),
            VPos::Bottom => descent - ascent,
        };
        let baseline = top + ascent;
        let mut coverage = Vec::new();
        let mut caret = left;
        let mut previous = None;
        for c in text.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = previous {
                caret += font.kern(p, id);
            }
            previous = Some(id);
            let glyph = id.with_scale_and_position(font.scale(), point(caret, baseline));
            if let Some(outline) = font.outline_glyph(glyph) {
                let bounds = outline.px_bounds();
                let (x0, y0) = (bounds.min.x as i32, bounds.min.y as i32);
                outline.draw(|x, y, c| coverage.push((x0 + x as i32, y0 + y as i32, c)));
            }
            caret += font.h_advance(id);
        }
        let transform = style.transform();
        for (x, y, c) in coverage {
            if c <= 0.004 {
                continue;
            }
            let (x, y) = transform.transform(x, y);
            let pixel = BackendColor {
                alpha: color.alpha * c.min(1.0) as f64,
                rgb: color.rgb,
            };
            self.0.draw_pixel((pos.0 + x, pos.1 + y), pixel)?;
        }
        Ok(())
    }
}

/// The share of pixel `p` (its centre) covered by a stroke of half-width `half` along the
/// segment a-b: 1 within the stroke, falling linearly to 0 over the pixel at its edge, so the
/// ink across the stroke adds up to its width.
pub(super) fn coverage(p: (f64, f64), a: (f64, f64), b: (f64, f64), half: f64) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let length2 = dx * dx + dy * dy;
    let s = if length2 > 0.0 {
        (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / length2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let distance = (p.0 - a.0 - s * dx).hypot(p.1 - a.1 - s * dy);
    (half + 0.5 - distance).clamp(0.0, 1.0)
}

/// Draws a polyline anti-aliased: each pixel near it gets the stroke's colour with its alpha
/// times the pixel's [`coverage`] (the largest over the segments, so joints are not darker).
fn smooth_path<B: DrawingBackend, S: BackendStyle>(
    backend: &mut B,
    path: impl IntoIterator<Item = BackendCoord>,
    style: &S,
) -> Result<(), DrawingErrorKind<B::ErrorType>> {
    let colour = style.color();
    if colour.alpha == 0.0 {
        return Ok(());
    }
    let points: Vec<(f64, f64)> = path
        .into_iter()
        .map(|(x, y)| (f64::from(x), f64::from(y)))
        .collect();
    let half = f64::from(style.stroke_width().max(1)) / 2.0;
    let reach = half + 1.0;
    let (w, h) = backend.get_size();
    let mut mask: std::collections::HashMap<(i32, i32), f64> = std::collections::HashMap::new();
    let segments: Vec<((f64, f64), (f64, f64))> = match points.len() {
        0 => return Ok(()),
        1 => vec![(points[0], points[0])],
        _ => points.windows(2).map(|p| (p[0], p[1])).collect(),
    };
    for (a, b) in segments {
        let x0 = (a.0.min(b.0) - reach).floor().max(0.0) as i32;
        let x1 = (a.0.max(b.0) + reach).ceil().min(f64::from(w) - 1.0) as i32;
        let y0 = (a.1.min(b.1) - reach).floor().max(0.0) as i32;
        let y1 = (a.1.max(b.1) + reach).ceil().min(f64::from(h) - 1.0) as i32;
        for x in x0..=x1 {
            for y in y0..=y1 {
                let c = coverage((f64::from(x), f64::from(y)), a, b, half);
                if c > 0.0 {
                    let kept = mask.entry((x, y)).or_insert(0.0);
                    *kept = kept.max(c);
                }
            }
        }
    }
    for ((x, y), c) in mask {
        let pixel = BackendColor {
            alpha: colour.alpha * c,
            rgb: colour.rgb,
        };
        backend.draw_pixel((x, y), pixel)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::coverage;

    #[test]
    fn a_smooth_stroke_puts_its_width_in_ink_across_it() {
        // Across a diagonal stroke, at any offset of the pixel grid, the ink along a column
        // adds up to the stroke's width over cos(angle), as the stroke's area requires.
        for width in [1.0, 2.0, 3.0] {
            for offset in [0.0, 0.25, 0.5] {
                let (a, b) = ((-100.0, -50.0 + offset), (100.0, 50.0 + offset));
                let ink: f64 = (-20..=20)
                    .map(|y| coverage((0.0, f64::from(y)), a, b, width / 2.0))
                    .sum();
                let expected = width * (1.0f64 + 0.25).sqrt();
                assert!(
                    (ink - expected).abs() < 0.1 * expected,
                    "{width} {offset}: {ink}"
                );
            }
        }
        // On the stroke's axis full cover; a pixel beyond half the width and a half, none.
        assert_eq!(coverage((0.0, 0.0), (-5.0, 0.0), (5.0, 0.0), 1.0), 1.0);
        assert_eq!(coverage((0.0, 1.5), (-5.0, 0.0), (5.0, 0.0), 1.0), 0.0);
        assert_eq!(coverage((0.0, 1.0), (-5.0, 0.0), (5.0, 0.0), 1.0), 0.5);
    }
}

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

/// A backend whose text is drawn by ab_glyph with correct glyph placement.
pub(super) struct GlyphText<B>(pub B);

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
        self.0.draw_path(path, style)
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

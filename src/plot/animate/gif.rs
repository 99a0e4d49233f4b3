//! The GIF: each frame drawn with plotters and appended.

use std::io::Write;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor;

use super::style::{lighten, phase_colour, DROPPED};
use super::{Frame, Scene};
use crate::plot::glyphs::GlyphText;
use crate::plot::raster::GifWriter;
use crate::plot::xy::object_colour;
use crate::plot::{draw_error, event_colour, register_fonts, PlotError};

impl Scene<'_> {
    /// Every frame into the GIF written to `out`, calling `progress(drawn, frames)`.
    pub(super) fn gif(
        &self,
        out: &mut dyn Write,
        fps: f64,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<(), PlotError> {
        register_fonts();
        let (w, h) = (self.width, self.height);
        let mut gif = GifWriter::new(out, w, h, fps)?;
        let mut buffer = vec![255u8; w as usize * h as usize * 3];
        for (i, frame) in self.frames.iter().enumerate() {
            {
                let root = GlyphText(BitMapBackend::with_buffer(&mut buffer, (w, h)), false)
                    .into_drawing_area();
                root.fill(&WHITE).map_err(draw_error)?;
                self.draw_frame(&root, i, frame)?;
                root.present().map_err(draw_error)?;
            }
            gif.frame(&buffer)?;
            progress(i + 1, self.frames.len());
        }
        gif.finish()?;
        Ok(())
    }

    /// One frame with plotters (the GIF's frames).
    fn draw_frame<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        index: usize,
        frame: &Frame,
    ) -> Result<(), PlotError> {
        let ip = |(x, y): (f64, f64)| (x.round() as i32, y.round() as i32);
        // plotters' font size s has an em of s / 1.24 px: the same letters as the SVG's.
        let text = |em: f64, colour: RGBColor, h: text_anchor::HPos| {
            ("sans-serif", em * 1.24)
                .into_font()
                .color(&colour)
                .pos(text_anchor::Pos::new(h, text_anchor::VPos::Center))
        };
        let left = text_anchor::HPos::Left;
        let (w, h) = (self.width as i32, self.height as i32);
        let bold = TextStyle::from(("sans-serif", 15.0 * 1.24, FontStyle::Bold).into_font())
            .color(&BLACK)
            .pos(text_anchor::Pos::new(left, text_anchor::VPos::Center));
        root.draw(&Text::new(self.title.clone(), (12, 21), bold))
            .map_err(draw_error)?;
        root.draw(&Text::new(
            format!("t = {:.2} s", frame.t),
            (w - 150, 21),
            text(15.0, BLACK, left),
        ))
        .map_err(draw_error)?;
        let phase_colour = phase_colour(frame.phase);
        root.draw(&Text::new(
            frame.phase.to_string(),
            (w - 60, 21),
            text(15.0, phase_colour, left),
        ))
        .map_err(draw_error)?;
        let (bar, label) = &self.bar;
        let y = h - 12;
        let x1 = 12 + bar.round() as i32;
        root.draw(&PathElement::new(
            vec![(12, y - 5), (12, y), (x1, y), (x1, y - 5)],
            BLACK.stroke_width(1),
        ))
        .map_err(draw_error)?;
        root.draw(&Text::new(
            label.clone(),
            (x1 + 6, y - 3),
            text(12.0, BLACK, left),
        ))
        .map_err(draw_error)?;
        root.draw(&Text::new(
            self.note(),
            (w - 12, y - 3),
            text(12.0, RGBColor(85, 85, 85), text_anchor::HPos::Right),
        ))
        .map_err(draw_error)?;

        if self.layout.is_some() {
            self.draw_views(root, frame)?;
        } else {
            self.draw_plane(root, frame)?;
        }
        for label in self.labels.iter().filter(|l| l.frames.contains(&index)) {
            let baseline = text_anchor::Pos::new(left, text_anchor::VPos::Bottom);
            root.draw(&Text::new(
                label.kind.clone(),
                ip(label.at),
                text(12.0, event_colour(&label.kind), left).pos(baseline),
            ))
            .map_err(draw_error)?;
        }
        Ok(())
    }

    /// The string, the sticks and the diabolos of a planar trajectory into one frame.
    fn draw_plane<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        frame: &Frame,
    ) -> Result<(), PlotError> {
        let ip = |(x, y): (f64, f64)| (x.round() as i32, y.round() as i32);
        let points: Vec<(i32, i32)> = frame.points.iter().map(|&p| ip(p)).collect();
        let on_string: Vec<(i32, i32)> = frame.string.iter().map(|&i| points[i]).collect();
        let string = RGBColor(51, 51, 51).stroke_width(2);
        if frame.phase == "loose" {
            root.draw(&DashedPathElement::new(on_string.clone(), 6, 4, string))
                .map_err(draw_error)?;
        } else {
            // Segment by segment: plotters' wide polylines come out with uneven widths.
            for pair in on_string.windows(2) {
                root.draw(&PathElement::new(pair.to_vec(), string))
                    .map_err(draw_error)?;
            }
        }
        let n = self.diabolos();
        for (i, is_left) in [(0, true), (n + 1, false)] {
            let (hx, hy) = self.handle(is_left);
            let (x, y) = frame.points[i];
            root.draw(&PathElement::new(
                vec![points[i], ip((x + hx, y + hy))],
                object_colour(i, n).stroke_width(5),
            ))
            .map_err(draw_error)?;
            root.draw(&Circle::new(points[i], 4, BLACK.filled()))
                .map_err(draw_error)?;
        }
        let r = self.radius();
        for k in 1..=n {
            let colour = if frame.dropped[k - 1] {
                DROPPED
            } else {
                object_colour(k, n)
            };
            let (cx, cy) = frame.points[k];
            root.draw(&Circle::new(points[k], r.round() as i32, WHITE.filled()))
                .map_err(draw_error)?;
            root.draw(&Circle::new(
                points[k],
                r.round() as i32,
                colour.stroke_width(2),
            ))
            .map_err(draw_error)?;
            let (sin, cos) = frame.angles[k - 1].to_radians().sin_cos();
            let turn = |&(x, y): &(f64, f64)| ip((cx + x * cos - y * sin, cy + x * sin + y * cos));
            let [dark, light] = self.bow_tie();
            root.draw(&Polygon::new(
                dark.iter().map(turn).collect::<Vec<_>>(),
                colour.filled(),
            ))
            .map_err(draw_error)?;
            root.draw(&Polygon::new(
                light.iter().map(turn).collect::<Vec<_>>(),
                lighten(colour).filled(),
            ))
            .map_err(draw_error)?;
            root.draw(&Circle::new(points[k], 2, BLACK.filled()))
                .map_err(draw_error)?;
        }
        Ok(())
    }
}

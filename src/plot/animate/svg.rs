//! The animated SVG: SMIL `<animate>` / `<animateTransform>` elements with one value per frame.

use std::fmt::Write as _;

use plotters::style::RGBColor;

use super::style::{escape, hex, lighten, phase_colour_hex, trim_to, DROPPED};
use super::{Frame, Linear, Scene};
use crate::plot::event_colour;
use crate::plot::xy::object_colour;

impl Scene<'_> {
    /// The whole animation as one SVG document.
    pub(super) fn svg(&self) -> String {
        let (w, h) = (self.width, self.height);
        let (dur, key_times) = (self.dur(), self.key_times());
        let animated = self.frames.len() > 1;
        let linear = |values: Vec<String>, attribute: &str, transform: Option<&str>| -> String {
            if !animated {
                return String::new();
            }
            let mut values = values;
            values.push(values[values.len() - 1].clone());
            let (element, kind) = match transform {
                Some(kind) => ("animateTransform", format!(" type=\"{kind}\"")),
                None => ("animate", String::new()),
            };
            format!(
                "<{element} attributeName=\"{attribute}\"{kind} dur=\"{dur}\" \
                 repeatCount=\"indefinite\" calcMode=\"linear\" keyTimes=\"{key_times}\" \
                 values=\"{}\"/>",
                values.join(";")
            )
        };
        let px = |v: f64| trim_to(v, 1);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
             viewBox=\"0 0 {w} {h}\" font-family=\"DejaVu Sans, Verdana, sans-serif\">"
        );
        let _ = writeln!(
            s,
            "<title>{}</title>\n<rect width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>",
            escape(&format!("diabolo animation {}", self.title))
        );
        let _ = writeln!(
            s,
            "<text x=\"12\" y=\"26\" font-size=\"15\" font-weight=\"bold\">{}</text>",
            escape(&self.title)
        );
        // Scale bar and note.
        let (bar, label) = &self.bar;
        let y = h as f64 - 12.0;
        let _ = writeln!(
            s,
            "<path d=\"M12 {y0} V{y} H{x1} V{y0}\" fill=\"none\" stroke=\"#000000\" \
             stroke-width=\"1.5\"/>\n<text x=\"{tx}\" y=\"{ty}\" font-size=\"12\">{label}</text>",
            y0 = px(y - 5.0),
            y = px(y),
            x1 = px(12.0 + bar),
            tx = px(18.0 + bar),
            ty = px(y + 1.0),
        );
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"end\" fill=\"#555555\">{}</text>",
            w - 12,
            px(y + 1.0),
            escape(&self.note())
        );

        // A trajectory in space: its views; a planar one below.
        if self.layout.is_some() {
            self.svg_views(&mut s, &linear);
        } else {
            self.svg_plane(&mut s, &linear);
        }

        // Time and phase, one text per value shown while it holds.
        self.texts(
            &mut s,
            |f| format!("t = {:.2} s", f.t),
            w as f64 - 150.0,
            |_| "#000000",
        );
        self.texts(
            &mut s,
            |f| f.phase.to_string(),
            w as f64 - 60.0,
            |f| phase_colour_hex(f.phase),
        );
        for label in &self.labels {
            let (first, animation) = self.visibility(|i| label.frames.contains(&i));
            let _ = writeln!(
                s,
                "<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"{}\" visibility=\"{}\">{}{animation}</text>",
                trim_to(label.at.0, 1),
                trim_to(label.at.1, 1),
                hex(event_colour(&label.kind)),
                if first { "visible" } else { "hidden" },
                escape(&label.kind)
            );
        }
        s.push_str("</svg>\n");
        s
    }

    /// The string, the sticks and the diabolos of a planar trajectory into the SVG `s`;
    /// `linear` animates an attribute through one value per frame.
    fn svg_plane(&self, s: &mut String, linear: &Linear) {
        let px = |v: f64| trim_to(v, 1);
        // The string, through the objects on it.
        let points_of = |f: &Frame| {
            f.string_points()
                .iter()
                .map(|&(x, y)| format!("{},{}", px(x), px(y)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        // Solid while taut, dashed while loose (two polylines, each shown in its phase).
        let points = linear(self.frames.iter().map(points_of).collect(), "points", None);
        let loose = |i: usize| self.frames[i].phase == "loose";
        for (dashes, shown) in [("", !loose(0)), (" stroke-dasharray=\"6 4\"", loose(0))] {
            let (first, visibility) = self.visibility(|i| loose(i) != dashes.is_empty());
            if !first && visibility.is_empty() {
                continue;
            }
            debug_assert_eq!(first, shown);
            let _ = writeln!(
                s,
                "<polyline points=\"{}\" fill=\"none\" stroke=\"#333333\" stroke-width=\"2\" \
                 stroke-linejoin=\"round\"{dashes} visibility=\"{}\">{points}{visibility}</polyline>",
                points_of(&self.frames[0]),
                if first { "visible" } else { "hidden" },
            );
        }

        // The sticks: a handle and the tip.
        let n = self.diabolos();
        for (i, left) in [(0, true), (n + 1, false)] {
            let at = |f: &Frame| format!("{} {}", px(f.points[i].0), px(f.points[i].1));
            self.svg_stick(s, linear, i, &at, self.handle(left));
        }

        // The diabolos: rim, turning bow-tie, axle.
        let r = self.radius();
        let [dark, light] = self.bow_tie();
        let polygon = |p: &[(f64, f64); 3]| {
            p.iter()
                .map(|&(x, y)| format!("{},{}", px(x), px(y)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        for k in 1..=n {
            let colour = object_colour(k, n);
            let at = |f: &Frame| format!("{} {}", px(f.points[k].0), px(f.points[k].1));
            let angle = |f: &Frame| trim_to(f.angles[k - 1], 1);
            let rim = |f: &Frame| Self::rim_colour(f, k, colour);
            let rim_change = self.rim_change(k, colour);
            let _ = writeln!(
                s,
                "<g transform=\"translate({})\">{}\
                 <circle r=\"{}\" fill=\"#ffffff\" fill-opacity=\"0.7\" stroke=\"{}\" stroke-width=\"2\">{rim_change}</circle>\
                 <g transform=\"rotate({})\">{}\
                 <polygon points=\"{}\" fill=\"{}\"/><polygon points=\"{}\" fill=\"{}\"/></g>\
                 <circle r=\"2.5\" fill=\"#000000\"/></g>",
                at(&self.frames[0]),
                linear(self.frames.iter().map(at).collect(), "transform", Some("translate")),
                px(r),
                rim(&self.frames[0]),
                angle(&self.frames[0]),
                linear(self.frames.iter().map(angle).collect(), "transform", Some("rotate")),
                polygon(&dark),
                hex(colour),
                polygon(&light),
                hex(lighten(colour)),
            );
        }
    }

    /// Runs of frames showing the same value: (first frame, end frame, value).
    fn runs(&self, value: impl Fn(&Frame) -> String) -> Vec<(usize, usize, String)> {
        let mut runs: Vec<(usize, usize, String)> = Vec::new();
        for (i, f) in self.frames.iter().enumerate() {
            let v = value(f);
            match runs.last_mut() {
                Some(run) if run.2 == v => run.1 = i + 1,
                _ => runs.push((i, i + 1, v)),
            }
        }
        runs
    }

    pub(super) fn key_time(&self, frame: usize) -> String {
        trim_to(frame as f64 / self.frames.len() as f64, 6)
    }

    /// The animation's duration, as SMIL writes it (`2.5s`).
    fn dur(&self) -> String {
        format!("{}s", trim_to(self.frames.len() as f64 / self.fps, 4))
    }

    /// keyTimes i / count for the frames, and 1 for the last frame held to the end.
    fn key_times(&self) -> String {
        (0..self.frames.len())
            .map(|i| self.key_time(i))
            .chain(std::iter::once("1".to_string()))
            .collect::<Vec<_>>()
            .join(";")
    }

    /// A stick (object `i`) into the SVG `s`: its tip at `at` of each frame, its handle drawn
    /// to `handle` from the tip (px).
    pub(super) fn svg_stick(
        &self,
        s: &mut String,
        linear: &Linear,
        i: usize,
        at: &dyn Fn(&Frame) -> String,
        handle: (f64, f64),
    ) {
        let colour = hex(object_colour(i, self.diabolos()));
        let _ = writeln!(
            s,
            "<g transform=\"translate({})\">{}<line x1=\"0\" y1=\"0\" x2=\"{}\" y2=\"{}\" \
             stroke=\"{colour}\" stroke-width=\"5\" stroke-linecap=\"round\"/>\
             <circle r=\"4.5\" fill=\"#000000\"/></g>",
            at(&self.frames[0]),
            linear(
                self.frames.iter().map(at).collect(),
                "transform",
                Some("translate")
            ),
            trim_to(handle.0, 1),
            trim_to(handle.1, 1),
        );
    }

    /// Diabolo `k`'s rim colour in frame `f`: grey while it lies dropped, else `colour`.
    pub(super) fn rim_colour(f: &Frame, k: usize, colour: RGBColor) -> String {
        if f.dropped[k - 1] {
            hex(DROPPED)
        } else {
            hex(colour)
        }
    }

    /// The discrete animation turning diabolo `k`'s rim grey when it drops (empty when it
    /// never does); `colour` is its colour.
    pub(super) fn rim_change(&self, k: usize, colour: RGBColor) -> String {
        if !self.frames.iter().any(|f| f.dropped[k - 1]) {
            return String::new();
        }
        let mut values: Vec<String> = self
            .frames
            .iter()
            .map(|f| Self::rim_colour(f, k, colour))
            .collect();
        values.push(values[values.len() - 1].clone());
        format!(
            "<animate attributeName=\"stroke\" dur=\"{}\" repeatCount=\"indefinite\" \
             calcMode=\"discrete\" keyTimes=\"{}\" values=\"{}\"/>",
            self.dur(),
            self.key_times(),
            values.join(";")
        )
    }

    /// Whether an element shows at the first frame, and the discrete animation of its
    /// visibility that shows it on exactly the frames where `visible` holds (empty when that
    /// never changes).
    pub(super) fn visibility(&self, visible: impl Fn(usize) -> bool) -> (bool, String) {
        let first = visible(0);
        let mut values = vec![first];
        let mut times = vec!["0".to_string()];
        for i in 1..self.frames.len() {
            let shown = visible(i);
            if values.last() != Some(&shown) {
                values.push(shown);
                times.push(self.key_time(i));
            }
        }
        if values.len() == 1 {
            return (first, String::new());
        }
        let values: Vec<&str> = values
            .iter()
            .map(|&v| if v { "visible" } else { "hidden" })
            .collect();
        let animation = format!(
            "<animate attributeName=\"visibility\" dur=\"{}\" repeatCount=\"indefinite\" \
             calcMode=\"discrete\" keyTimes=\"{}\" values=\"{}\"/>",
            self.dur(),
            times.join(";"),
            values.join(";")
        );
        (first, animation)
    }

    /// Texts shown one at a time: each visible during its run of frames.
    fn texts(
        &self,
        s: &mut String,
        value: impl Fn(&Frame) -> String,
        x: f64,
        colour: impl Fn(&Frame) -> &'static str,
    ) {
        for (start, end, text) in self.runs(value) {
            let (first, animation) = self.visibility(|i| (start..end).contains(&i));
            let _ = writeln!(
                s,
                "<text x=\"{}\" y=\"26\" font-size=\"15\" fill=\"{}\" visibility=\"{}\">{}{animation}</text>",
                trim_to(x, 1),
                colour(&self.frames[start]),
                if first { "visible" } else { "hidden" },
                escape(&text)
            );
        }
    }
}

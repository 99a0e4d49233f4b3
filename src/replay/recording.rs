//! A recording: its CSV read, and what it measures (frame interval, string sums, the value of
//! a series at any time).

use std::path::Path;

use nalgebra::Vector2;

use super::error::ReplayError;
use super::space::Space;
use crate::display::{echoed, Compact};
use crate::input_limits::{read_failure, Records};
use crate::output::compress;
use crate::output::table::{csv_reader, csv_reason, interpolate, locate};

/// The columns of a recording, in order.
pub const RECORDING_COLUMNS: [&str; 8] = [
    "t", "left_x", "left_y", "right_x", "right_y", "dia_x", "dia_y", "spin",
];

/// The columns of a recording in three dimensions, in order: the planar columns with each
/// point's z after its y, then the axle's direction (a unit vector with `axle_z >= 0`) before
/// the spin.
pub const SPACE_COLUMNS: [&str; 14] = [
    "t", "left_x", "left_y", "left_z", "right_x", "right_y", "right_z", "dia_x", "dia_y", "dia_z",
    "axle_x", "axle_y", "axle_z", "spin",
];

/// Axle radius r of the recorded diabolo, m: the model's spin w = -r * (recorded rad/s).
pub const AXLE_RADIUS: f64 = 0.0065;

/// A recording: stick tips, diabolo centre (m) and spin (rad/s, counter-clockwise > 0) in the
/// hands' plane, and for a recording with the 3D columns ([`SPACE_COLUMNS`]) what lies outside
/// it ([`Space`]: the z of each point and the axle's direction).
#[derive(Clone, Debug, PartialEq)]
pub struct Recording {
    /// The recording's name (its file name without the extension).
    pub name: String,
    /// t: time of each frame, s (increasing).
    pub t: Vec<f64>,
    /// Left stick tip of each frame, m.
    pub left: Vec<Vector2<f64>>,
    /// Right stick tip of each frame, m.
    pub right: Vec<Vector2<f64>>,
    /// Diabolo centre of each frame, m.
    pub dia: Vec<Vector2<f64>>,
    /// Diabolo spin of each frame, rad/s (counter-clockwise > 0; in a 3D recording about the
    /// axle direction, which points toward +z).
    pub spin: Vec<f64>,
    /// The third dimension, when the file has the 3D columns (`None` for a planar file).
    pub space: Option<Space>,
}

impl Recording {
    /// Reads a recording file, gzip-compressed or not (see [`Recording::parse`]); its name is
    /// the file stem (`.gz` removed first).
    pub fn read(path: &Path) -> Result<Self, ReplayError> {
        let file = path.display().to_string();
        let text =
            compress::read_to_string(path, Records::Csv).map_err(|e| ReplayError::Recording {
                file: file.clone(),
                reason: read_failure(&e),
            })?;
        let name = compress::content_name(path)
            .file_stem()
            .map_or(file.clone(), |s| s.to_string_lossy().to_string());
        Self::parse(&name, &text).map_err(|reason| ReplayError::Recording { file, reason })
    }

    /// The recording at `path`, or every recording of the folder at `path`
    /// ([`Recording::read_dir`]); a folder without one is an error naming it.
    pub fn read_path(path: &Path) -> Result<Vec<Self>, ReplayError> {
        if !path.is_dir() {
            return Ok(vec![Self::read(path)?]);
        }
        let recordings = Self::read_dir(path)?;
        if recordings.is_empty() {
            return Err(ReplayError::Recording {
                file: path.display().to_string(),
                reason: "the folder holds no recording (*.csv or *.csv.gz)".into(),
            });
        }
        Ok(recordings)
    }

    /// Every `*.csv` (or `*.csv.gz`) recording in `dir`, sorted by name.
    pub fn read_dir(dir: &Path) -> Result<Vec<Self>, ReplayError> {
        let failure = |e: std::io::Error| ReplayError::Recording {
            file: dir.display().to_string(),
            reason: format!("cannot list: {e}"),
        };
        let mut paths = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(failure)? {
            let path = entry.map_err(failure)?.path();
            let content = compress::content_name(&path);
            if content.extension().is_some_and(|e| e == "csv") {
                paths.push(path);
            }
        }
        paths.sort();
        paths.iter().map(|p| Self::read(p)).collect()
    }

    /// Columns t,left_x,left_y,right_x,right_y,dia_x,dia_y,spin ([`RECORDING_COLUMNS`]), or the
    /// 3D columns ([`SPACE_COLUMNS`]: then [`Recording::space`] holds the z series and the
    /// axle); `#` lines are comments. A cell that is not a finite number is an error naming its
    /// line and column. Read through the one CSV reader of [`crate::output::table`].
    pub fn parse(name: &str, text: &str) -> Result<Self, String> {
        let mut rec = Self {
            name: name.to_string(),
            t: Vec::new(),
            left: Vec::new(),
            right: Vec::new(),
            dia: Vec::new(),
            spin: Vec::new(),
            space: None,
        };
        let mut columns: &[&str] = &RECORDING_COLUMNS;
        let mut csv = csv_reader(text.as_bytes());
        let mut record = csv::StringRecord::new();
        let mut header_seen = false;
        let mut v = [0.0; SPACE_COLUMNS.len()];
        loop {
            let line_number = csv.position().line() + 1;
            let more = csv
                .read_record(&mut record)
                .map_err(|e| format!("line {line_number}: {}", csv_reason(&e)))?;
            if !more {
                break;
            }
            let line_number = record.position().map_or(line_number, |p| p.line());
            let blank = record.len() == 1 && record[0].is_empty();
            if blank || record[0].starts_with('#') {
                continue;
            }
            if !header_seen {
                header_seen = true;
                if record.iter().eq(SPACE_COLUMNS) {
                    columns = &SPACE_COLUMNS;
                    rec.space = Some(Space::default());
                } else if record.iter().ne(RECORDING_COLUMNS) {
                    return Err(format!(
                        "line {line_number}: expected the header {} (or, in three dimensions, \
                         {})",
                        RECORDING_COLUMNS.join(","),
                        SPACE_COLUMNS.join(",")
                    ));
                }
                continue;
            }
            if record.len() != columns.len() {
                return Err(format!(
                    "line {line_number} has {} fields, the header {}",
                    record.len(),
                    columns.len()
                ));
            }
            for ((value, field), column) in v.iter_mut().zip(&record).zip(columns) {
                *value = field
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| {
                        format!(
                            "line {line_number}, column {column}: `{}` is not a finite number",
                            echoed(field)
                        )
                    })?;
            }
            if let Some(&last) = rec.t.last() {
                if v[0] <= last {
                    return Err(format!(
                        "line {line_number}: t = {} does not increase (the frame before has t = \
                         {}); frames must be in time order",
                        Compact(v[0]),
                        Compact(last)
                    ));
                }
            }
            rec.t.push(v[0]);
            match rec.space.as_mut() {
                None => {
                    rec.left.push(Vector2::new(v[1], v[2]));
                    rec.right.push(Vector2::new(v[3], v[4]));
                    rec.dia.push(Vector2::new(v[5], v[6]));
                    rec.spin.push(v[7]);
                }
                Some(space) => {
                    rec.left.push(Vector2::new(v[1], v[2]));
                    rec.right.push(Vector2::new(v[4], v[5]));
                    rec.dia.push(Vector2::new(v[7], v[8]));
                    rec.spin.push(v[13]);
                    space
                        .push(v[3], v[6], v[9], [v[10], v[11], v[12]])
                        .map_err(|reason| format!("line {line_number}: {reason}"))?;
                }
            }
        }
        if rec.t.len() < 8 {
            return Err("fewer than 8 frames".into());
        }
        Ok(rec)
    }

    /// The mean time between frames, s.
    pub fn frame_interval(&self) -> f64 {
        (self.t[self.t.len() - 1] - self.t[0]) / (self.t.len() - 1) as f64
    }

    /// |tipL - dia| + |tipR - dia| of every frame, m.
    pub fn string_sums(&self) -> Vec<f64> {
        (0..self.t.len()).map(|i| self.string_sum(i)).collect()
    }

    /// |tipL - dia| + |tipR - dia| of the frames where the diabolo is below the line from the
    /// left tip to the right one, where it can be on the string, m. (Above the line it has left
    /// the string: its sum measures the flight, not the string.)
    pub fn sums_below_the_tips(&self) -> Vec<f64> {
        (0..self.t.len())
            .filter(|&i| (self.right[i] - self.left[i]).perp(&(self.dia[i] - self.left[i])) < 0.0)
            .map(|i| self.string_sum(i))
            .collect()
    }

    fn string_sum(&self, i: usize) -> f64 {
        (self.left[i] - self.dia[i]).norm() + (self.right[i] - self.dia[i]).norm()
    }

    /// The farthest the recorded tips get apart, m: an inextensible string is at least this
    /// long.
    pub fn tips_span(&self) -> f64 {
        self.left
            .iter()
            .zip(&self.right)
            .map(|(l, r)| (r - l).norm())
            .fold(0.0, f64::max)
    }

    /// The recording's duration from its first frame to its last, s.
    pub fn duration(&self) -> f64 {
        self.t[self.t.len() - 1] - self.t[0]
    }

    /// The frames covering [t0 - margin, t1 + margin], shifted to start at t0.
    pub(super) fn window(
        &self,
        series: &[Vector2<f64>],
        t0: f64,
        t1: f64,
        margin: f64,
    ) -> Vec<(f64, Vector2<f64>)> {
        self.t
            .iter()
            .zip(series)
            .filter(|(t, _)| **t >= t0 - margin && **t <= t1 + margin)
            .map(|(t, p)| (t - t0, *p))
            .collect()
    }

    /// The measured value of `series` (one of the recording's columns) at t, linear between
    /// frames (held at the ends).
    pub fn at(&self, series: &[Vector2<f64>], t: f64) -> Vector2<f64> {
        let (i, f) = locate(&self.t, t);
        if f == 0.0 {
            series[i]
        } else {
            series[i] + (series[i + 1] - series[i]) * f
        }
    }

    pub(super) fn spin_at(&self, t: f64) -> f64 {
        interpolate(&self.t, &self.spin, t)
    }
}

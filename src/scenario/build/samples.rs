//! The t,x,y samples of a path's CSV file.

use std::path::Path as FsPath;

use nalgebra::Vector2;

use crate::display::{echoed, Compact};
use crate::input_limits::{read_text, InputLimit, Records};

use super::checks::invalid;
use crate::scenario::error::ScenarioError;
use crate::scenario::ranges;

/// t,x,y samples of a CSV file (an optional header row of names).
pub(super) fn read_samples(
    at: &str,
    file: &FsPath,
) -> Result<Vec<(f64, Vector2<f64>)>, ScenarioError> {
    let shown = echoed(&file.display().to_string());
    let text = std::fs::File::open(file)
        .and_then(|f| read_text(std::io::BufReader::new(f), Records::Csv))
        .map_err(|e| {
            invalid(
                at,
                &shown,
                InputLimit::of(&e).map_or_else(
                    || format!("cannot read the file: {e}"),
                    |limit| limit.to_string(),
                ),
                "give the path of a t,x,y CSV file, relative to the scenario file",
            )
        })?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let mut samples = Vec::new();
    for (row, record) in reader.records().enumerate() {
        let record = record.map_err(|e| {
            invalid(
                at,
                &shown,
                format!("row {}: {e}", row + 1),
                "write three columns t,x,y per row",
            )
        })?;
        if record.len() != 3 {
            return Err(invalid(
                at,
                &shown,
                format!("row {} has {} columns", row + 1, record.len()),
                "write three columns t,x,y per row",
            ));
        }
        let numbers: Result<Vec<f64>, _> = record.iter().map(str::parse::<f64>).collect();
        match numbers {
            Ok(v) if v.iter().all(|x| x.is_finite()) => {
                for (value, range) in v.iter().zip([
                    &ranges::KEYFRAME_TIME,
                    &ranges::COORDINATE,
                    &ranges::COORDINATE,
                ]) {
                    if !range.contains(*value) {
                        return Err(invalid(
                            at,
                            &shown,
                            format!(
                                "row {}: {} is outside the accepted range {} ({})",
                                row + 1,
                                Compact(*value),
                                range.span(),
                                range.why
                            ),
                            "give times and positions within the ranges",
                        ));
                    }
                }
                samples.push((v[0], Vector2::new(v[1], v[2])))
            }
            _ if row == 0 => {} // a header
            _ => {
                return Err(invalid(
                    at,
                    &shown,
                    format!(
                        "row {}: {} is not three finite numbers",
                        row + 1,
                        echoed(&record.iter().collect::<Vec<_>>().join(","))
                    ),
                    "write numbers only (t,x,y), one sample per row",
                ))
            }
        }
    }
    if samples.is_empty() {
        return Err(invalid(
            at,
            &shown,
            "the file has no samples",
            "write one t,x,y row per sample",
        ));
    }
    if let Some(i) = (1..samples.len()).find(|&i| samples[i].0 <= samples[i - 1].0) {
        return Err(invalid(
            at,
            &shown,
            format!(
                "times must increase ({} after {} in sample {})",
                Compact(samples[i].0),
                Compact(samples[i - 1].0),
                i + 1
            ),
            "sort the samples by time, without repeated times",
        ));
    }
    Ok(samples)
}

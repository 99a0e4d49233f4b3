//! The hands' drives: schedules of forces or accelerations, and paths (keyframes, a sine, CSV
//! samples), each checked within its ranges.

use std::path::Path as FsPath;

use nalgebra::Vector2;

use crate::display::{compact, Compact};
use crate::model::Range;
use crate::simulation::drive::{
    ClampedSpline, Drive, DriveError, MonotoneCubic, Path, Polyline, SampledPath, Schedule,
    Tracking,
};

use super::checks::{each_within, invalid, vector, within};
use super::samples::read_samples;
use crate::scenario::error::ScenarioError;
use crate::scenario::ranges;
use crate::scenario::spec::{DriveSpec, InterpolationName, PathSpec, ScheduleSpec};

/// Half-width of the smoothing window of CSV path samples when not given, s.
pub const DEFAULT_SMOOTHING: f64 = 0.02;

pub(super) fn build_drive(
    spec: Option<&DriveSpec>,
    side: &str,
    base: &FsPath,
) -> Result<Drive, ScenarioError> {
    let at = format!("drive.{side}");
    Ok(match spec {
        None | Some(DriveSpec::Released(_)) => Drive::Released,
        Some(DriveSpec::Force(s)) => Drive::Force(schedule(&at, s, &ranges::FORCE)?),
        Some(DriveSpec::Accel(s)) => Drive::Accel(schedule(&at, s, &ranges::ACCELERATION)?),
        Some(DriveSpec::Path(spec)) => {
            let path = build_path(&at, spec, base)?;
            match &spec.tracking {
                None => Drive::Path(path),
                Some(t) => {
                    let at = format!("{at}.tracking");
                    within(
                        || format!("{at}.stiffness"),
                        t.stiffness,
                        &ranges::STIFFNESS,
                    )?;
                    within(|| format!("{at}.damping"), t.damping, &ranges::DAMPING)?;
                    within(
                        || format!("{at}.max_force"),
                        t.max_force,
                        &ranges::MAX_FORCE,
                    )?;
                    Drive::Tracking(
                        path,
                        Tracking {
                            stiffness: t.stiffness,
                            damping: t.damping,
                            max_force: t.max_force,
                        },
                    )
                }
            }
        }
    })
}

/// The path of a `path` drive: exactly one of keyframes, sine and csv.
fn build_path(at: &str, spec: &PathSpec, base: &FsPath) -> Result<Path, ScenarioError> {
    let given: Vec<&str> = [
        ("keyframes", spec.keyframes.is_some()),
        ("sine", spec.sine.is_some()),
        ("csv", spec.csv.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, present)| present.then_some(name))
    .collect();
    if let (None, Some(name)) = (&spec.keyframes, spec.interpolation) {
        return Err(invalid(
            format!("{at}.interpolation"),
            format!("{name:?}").to_lowercase(),
            "interpolation joins keyframes, and this path has none",
            "remove \"interpolation\", or give the path as \"keyframes\"",
        ));
    }
    Ok(match (&spec.keyframes, &spec.sine, &spec.csv) {
        (Some(points), None, None) => {
            check_keyframes(&format!("{at}.keyframes"), points, &ranges::COORDINATE)?;
            keyframe_path(triples(points), spec.interpolation.unwrap_or_default())
                .map_err(|e| drive_error(at, "keyframes", e))?
        }
        (None, Some(s), None) => {
            let at = format!("{at}.sine");
            each_within(&format!("{at}.center"), &s.center, &ranges::COORDINATE)?;
            each_within(&format!("{at}.amplitude"), &s.amplitude, &ranges::AMPLITUDE)?;
            within(
                || format!("{at}.frequency"),
                s.frequency,
                &ranges::FREQUENCY,
            )?;
            each_within(&format!("{at}.phase"), &s.phase, &ranges::PHASE)?;
            Path::Sine {
                center: vector(s.center),
                amplitude: vector(s.amplitude),
                frequency: s.frequency,
                phase: vector(s.phase),
            }
        }
        (None, None, Some(file)) => {
            let half_window = spec.smoothing.unwrap_or(DEFAULT_SMOOTHING);
            within(
                || format!("{at}.smoothing"),
                half_window,
                &ranges::SMOOTHING,
            )?;
            let samples = read_samples(&format!("{at}.csv"), &base.join(file))?;
            Path::Samples(
                SampledPath::new(samples, half_window).map_err(|e| drive_error(at, "csv", e))?,
            )
        }
        _ => {
            let got = if given.is_empty() {
                "none of them".to_string()
            } else {
                given.join(" and ")
            };
            return Err(invalid(
                at,
                got,
                "a path is exactly one of keyframes, sine or csv",
                "keep one of \"keyframes\", \"sine\", \"csv\"",
            ));
        }
    })
}

/// The path through keyframes joined as `interpolation` says.
fn keyframe_path(
    points: Vec<(f64, Vector2<f64>)>,
    interpolation: InterpolationName,
) -> Result<Path, DriveError> {
    Ok(match interpolation {
        InterpolationName::Cubic => Path::Keyframes(ClampedSpline::new(points)?),
        InterpolationName::Pchip => Path::Monotone(MonotoneCubic::new(points)?),
        InterpolationName::Linear => Path::Linear(Polyline::new(points)?),
    })
}

/// Keyframes [t, x, y]: each time and each value within its range, named by its index.
fn check_keyframes(at: &str, points: &[[f64; 3]], values: &Range) -> Result<(), ScenarioError> {
    for (i, p) in points.iter().enumerate() {
        within(|| format!("{at}[{i}][0]"), p[0], &ranges::KEYFRAME_TIME)?;
        within(|| format!("{at}[{i}][1]"), p[1], values)?;
        within(|| format!("{at}[{i}][2]"), p[2], values)?;
    }
    Ok(())
}

fn triples(points: &[[f64; 3]]) -> Vec<(f64, Vector2<f64>)> {
    points
        .iter()
        .map(|p| (p[0], Vector2::new(p[1], p[2])))
        .collect()
}

/// A force or acceleration schedule, its values within `values`.
fn schedule(at: &str, spec: &ScheduleSpec, values: &Range) -> Result<Schedule, ScenarioError> {
    match (spec.value, spec.keyframes.as_deref()) {
        (Some(v), None) => {
            each_within(&format!("{at}.value"), &v, values)?;
            Ok(Schedule::Constant(vector(v)))
        }
        (None, Some(points)) => {
            check_keyframes(&format!("{at}.keyframes"), points, values)?;
            Schedule::keyframes(triples(points)).map_err(|e| drive_error(at, "keyframes", e))
        }
        (value, keyframes) => Err(invalid(
            at,
            if value.is_some() && keyframes.is_some() {
                "value and keyframes"
            } else {
                "neither"
            },
            "give exactly one of value and keyframes",
            "\"value\": [x, y] for a constant, or \"keyframes\": [[t, x, y], ...]",
        )),
    }
}

fn drive_error(at: &str, field: &str, e: DriveError) -> ScenarioError {
    match e {
        DriveError::TooFewPoints { needed, got, .. } => invalid(
            format!("{at}.{field}"),
            format!("{got} points"),
            format!("needs at least {needed} points"),
            format!("give {needed} or more"),
        ),
        DriveError::TimesNotIncreasing {
            index,
            earlier,
            later,
            ..
        } => invalid(
            format!("{at}.{field}[{index}]"),
            "",
            format!(
                "times must increase ({} after {})",
                Compact(later),
                Compact(earlier)
            ),
            "sort the points by time, without repeated times",
        ),
        DriveError::NonFinite { index, .. } => invalid(
            format!("{at}.{field}[{index}]"),
            "",
            "not finite",
            "give finite numbers",
        ),
        DriveError::NotPositive { what, value } => invalid(
            format!("{at}.{field}"),
            compact(value),
            format!("{what} must be greater than 0"),
            "give a positive value",
        ),
    }
}

//! The hands' drives: schedules of forces or accelerations, and paths (keyframes, a sine, CSV
//! samples), each checked within its ranges.

use std::path::Path as FsPath;

use nalgebra::SVector;

use crate::display::{compact, Compact};
use crate::model::Range;
use crate::simulation::drive::{
    ClampedSpline, Drive, DriveError, MonotoneCubic, Path, Polyline, SampledPath, Schedule,
    Tracking,
};

use super::checks::{each_within, invalid, within};
use super::samples::read_samples;
use crate::scenario::coords::{Coords, Keyframe};
use crate::scenario::error::ScenarioError;
use crate::scenario::ranges;
use crate::scenario::spec::{DriveSpec, InterpolationName, PathSpec, ScheduleSpec};

/// Half-width of the smoothing window of CSV path samples when not given, s.
pub const DEFAULT_SMOOTHING: f64 = 0.02;

/// The drive of one hand in D dimensions (2 in the plane, 3 in space: a planar value gets
/// z = 0).
pub(super) fn build_drive<const D: usize>(
    spec: Option<&DriveSpec>,
    side: &str,
    base: &FsPath,
) -> Result<Drive<D>, ScenarioError> {
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
fn build_path<const D: usize>(
    at: &str,
    spec: &PathSpec,
    base: &FsPath,
) -> Result<Path<D>, ScenarioError> {
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
    if let (None, Some(v)) = (&spec.keyframes, &spec.start_velocity) {
        return Err(invalid(
            format!("{at}.start_velocity"),
            format!("{:?}", v.as_slice()),
            "a start velocity is the velocity a path leaves its first keyframe with, and this path has none",
            "remove \"start_velocity\", or give the path as \"keyframes\"",
        ));
    }
    Ok(match (&spec.keyframes, &spec.sine, &spec.csv) {
        (Some(points), None, None) => {
            check_keyframes(&format!("{at}.keyframes"), points, &ranges::COORDINATE)?;
            let interpolation = spec.interpolation.unwrap_or_default();
            let start = start_velocity(at, spec, points, interpolation)?;
            keyframe_path(triples(points), interpolation, start)
                .map_err(|e| drive_error(at, "keyframes", e))?
        }
        (None, Some(s), None) => {
            let at = format!("{at}.sine");
            each_within(
                &format!("{at}.center"),
                s.center.as_slice(),
                &ranges::COORDINATE,
            )?;
            each_within(
                &format!("{at}.amplitude"),
                s.amplitude.as_slice(),
                &ranges::AMPLITUDE,
            )?;
            within(
                || format!("{at}.frequency"),
                s.frequency,
                &ranges::FREQUENCY,
            )?;
            each_within(&format!("{at}.phase"), s.phase.as_slice(), &ranges::PHASE)?;
            Path::Sine {
                center: lifted(&s.center, 0),
                amplitude: lifted(&s.amplitude, 0),
                frequency: s.frequency,
                phase: lifted(&s.phase, 0),
            }
        }
        (None, None, Some(file)) => {
            let half_window = spec.smoothing.unwrap_or(DEFAULT_SMOOTHING);
            within(
                || format!("{at}.smoothing"),
                half_window,
                &ranges::SMOOTHING,
            )?;
            let samples = read_samples(&format!("{at}.csv"), &base.join(file))?
                .into_iter()
                .map(|(t, p)| (t, SVector::from_fn(|i, _| if i < 2 { p[i] } else { 0.0 })))
                .collect();
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

/// A keyframe path's `start_velocity` (zero if not given), checked: within the velocities'
/// range, on a cubic spline of at least two keyframes whose first is at t <= 0 (so that the run
/// starts on the moving spline: before its first keyframe a path holds still).
fn start_velocity<const D: usize>(
    at: &str,
    spec: &PathSpec,
    points: &[Keyframe],
    interpolation: InterpolationName,
) -> Result<SVector<f64, D>, ScenarioError> {
    let Some(v) = &spec.start_velocity else {
        return Ok(SVector::zeros());
    };
    let field = format!("{at}.start_velocity");
    each_within(&field, v.as_slice(), &ranges::VELOCITY)?;
    let refuse = |why: &str, fix: &str| {
        Err(invalid(
            field.clone(),
            format!("{:?}", v.as_slice()),
            why,
            fix,
        ))
    };
    if interpolation != InterpolationName::Cubic {
        return refuse(
            "a start velocity is the cubic spline's, and this path is not one",
            "remove \"interpolation\" (or set it to \"cubic\"), or remove \"start_velocity\"",
        );
    }
    if points.len() < 2 {
        return refuse(
            "a path of one keyframe holds the hand still there",
            "add a keyframe the hand moves to, or remove \"start_velocity\"",
        );
    }
    if points[0].as_slice()[0] > 0.0 {
        return refuse(
            "before its first keyframe a path holds the hand still, so the velocity would jump there",
            "put the first keyframe at t = 0, or remove \"start_velocity\"",
        );
    }
    Ok(lifted(v, 0))
}

/// The path through keyframes joined as `interpolation` says, leaving the first at `start`
/// (a cubic spline's; zero for the others).
fn keyframe_path<const D: usize>(
    points: Vec<(f64, SVector<f64, D>)>,
    interpolation: InterpolationName,
    start: SVector<f64, D>,
) -> Result<Path<D>, DriveError> {
    Ok(match interpolation {
        InterpolationName::Cubic => Path::Keyframes(ClampedSpline::leaving(points, start)?),
        InterpolationName::Pchip => Path::Monotone(MonotoneCubic::new(points)?),
        InterpolationName::Linear => Path::Linear(Polyline::new(points)?),
    })
}

/// Keyframes [t, x, y] (or [t, x, y, z]): each time and each value within its range, named
/// by its index.
fn check_keyframes(at: &str, points: &[Keyframe], values: &Range) -> Result<(), ScenarioError> {
    for (i, p) in points.iter().enumerate() {
        let p = p.as_slice();
        within(|| format!("{at}[{i}][0]"), p[0], &ranges::KEYFRAME_TIME)?;
        for (axis, &v) in p.iter().enumerate().skip(1) {
            within(|| format!("{at}[{i}][{axis}]"), v, values)?;
        }
    }
    Ok(())
}

/// Keyframes as (t, point) in D dimensions (z = 0 where not given).
fn triples<const D: usize>(points: &[Keyframe]) -> Vec<(f64, SVector<f64, D>)> {
    points.iter().map(|p| (p.get(0), lifted(p, 1))).collect()
}

/// The D components of `c` from `skip` on (0 past its end).
pub(super) fn lifted<const D: usize, const N: usize>(
    c: &Coords<N>,
    skip: usize,
) -> SVector<f64, D> {
    SVector::from_fn(|i, _| c.get(i + skip))
}

/// A force or acceleration schedule, its values within `values`.
fn schedule<const D: usize>(
    at: &str,
    spec: &ScheduleSpec,
    values: &Range,
) -> Result<Schedule<D>, ScenarioError> {
    match (spec.value, spec.keyframes.as_deref()) {
        (Some(v), None) => {
            each_within(&format!("{at}.value"), v.as_slice(), values)?;
            Ok(Schedule::Constant(lifted(&v, 0)))
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

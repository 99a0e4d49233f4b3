//! The orbit's period: the drives' own, or one given (`--period`, `sim.period`) and checked
//! against them; and the Poincare section of an autonomous orbit.

use crate::display::{echoed, Compact};
use crate::simulation::drive::{Drive, Path, Schedule};
use crate::simulation::Simulation;

use super::coordinates::{Coordinates, SIDES};
use super::{OrbitError, Section};

/// The period of a drive: `Ok(None)` for a constant one, `Ok(Some(T))` for a sine, an error
/// for a moving drive with no period.
fn drive_period(drive: &Drive, side: &'static str) -> Result<Option<f64>, OrbitError> {
    let constant_path = |path: &Path| {
        let knots = path.knots();
        let first = path.at(knots.first().copied().unwrap_or(0.0));
        knots.iter().all(|&t| {
            let p = path.at(t);
            p.pos == first.pos && p.vel == first.vel
        })
    };
    match drive {
        Drive::Released => Ok(None),
        Drive::Force(s) | Drive::Accel(s) => match s {
            Schedule::Constant(_) => Ok(None),
            Schedule::Keyframes(points) if points.iter().all(|p| p.1 == points[0].1) => Ok(None),
            Schedule::Keyframes(_) => Err(OrbitError::Aperiodic { side }),
        },
        Drive::Path(path) | Drive::Tracking(path, _) => match path {
            Path::Sine {
                amplitude,
                frequency,
                ..
            } if *amplitude != nalgebra::Vector2::zeros() => Ok(Some(1.0 / frequency)),
            Path::Sine { .. } => Ok(None),
            other if constant_path(other) => Ok(None),
            _ => Err(OrbitError::Aperiodic { side }),
        },
    }
}

/// The shortest period an orbit may have, s: the period of the fastest sine drive a scenario
/// accepts (100 Hz). A trick's stroke lasts 0.2 to 2 s; below this no hand repeats its motion,
/// and the Jacobian's difference step in the period ([`OrbitOptions::jacobian_step`], 1e-5 s)
/// would no longer be small against it.
pub const MIN_PERIOD: f64 = 0.01;

/// How far from a whole number the ratio of a forced period to a sine drive's own may be
/// (relative): the round-off of a period typed to ten digits.
const WHOLE_PERIODS: f64 = 1e-9;

/// The period the scenario sets: `sim.period` if given, else the drives' common period, if
/// any.
pub fn drives_period(sim: &Simulation) -> Result<Option<f64>, OrbitError> {
    if let Some(period) = sim.settings.period {
        return checked_period(sim, "sim.period", period).map(Some);
    }
    let periods: Vec<f64> = [("left", 0), ("right", 1)]
        .iter()
        .map(|&(side, s)| drive_period(&sim.drives[s], side))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .collect();
    match periods.as_slice() {
        [] => Ok(None),
        [t] => Ok(Some(*t)),
        [a, b] if ((a - b) / a).abs() < 1e-12 => Ok(Some(*a)),
        [a, b] => Err(OrbitError::PeriodsDisagree {
            periods: format!("{} s and {} s", Compact(*a), Compact(*b)),
        }),
        _ => unreachable!("two hands"),
    }
}

/// The forced period of `sim`: `given` (`--period`) if any, else [`drives_period`].
pub fn forced_period(sim: &Simulation, given: Option<f64>) -> Result<Option<f64>, OrbitError> {
    match given {
        Some(period) => checked_period(sim, "--period", period).map(Some),
        None => drives_period(sim),
    }
}

/// `period` given by `origin` (`--period`, `sim.period`), checked: at least [`MIN_PERIOD`], and
/// a whole number of periods of every sine drive (drives with no period of their own, a stroke
/// of keyframes, are taken to repeat with it).
pub fn checked_period(
    sim: &Simulation,
    origin: &'static str,
    period: f64,
) -> Result<f64, OrbitError> {
    if !(period.is_finite() && period >= MIN_PERIOD) {
        return Err(OrbitError::BadPeriod {
            origin,
            value: period,
        });
    }
    for (side, drive) in SIDES.into_iter().zip(&sim.drives) {
        let Ok(Some(drive_period)) = drive_period(drive, side) else {
            continue;
        };
        let whole = period / drive_period;
        if (whole - whole.round()).abs() > WHOLE_PERIODS * whole || whole.round() < 1.0 {
            return Err(OrbitError::OutOfStep {
                origin,
                period,
                side,
                drive_period,
            });
        }
    }
    Ok(period)
}

/// Parses `KEY=VALUE[,up|down]` (KEY a free coordinate of `sim`, e.g. `d1_x`) into a section.
pub fn parse_section(spec: &str, sim: &Simulation) -> Result<Section, OrbitError> {
    let bad = |reason: String| OrbitError::BadSection {
        spec: echoed(spec),
        reason,
    };
    let (key, rest) = spec
        .split_once('=')
        .ok_or_else(|| bad("expected KEY=VALUE[,up|down], e.g. d1_x=0,up".into()))?;
    let (value, direction) = match rest.split_once(',') {
        Some((v, d)) => (v, d),
        None => (rest, "up"),
    };
    let value: f64 = value
        .trim()
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite())
        .ok_or_else(|| bad(format!("VALUE {:?} is not a finite number", echoed(value))))?;
    let rising = match direction.trim() {
        "up" => true,
        "down" => false,
        other => {
            return Err(bad(format!(
                "direction {:?}: give up or down",
                echoed(other)
            )))
        }
    };
    let names = Coordinates::of(sim).names();
    let index = names.iter().position(|n| n == key.trim()).ok_or_else(|| {
        bad(format!(
            "KEY {:?} is not a free coordinate of this scenario; give one of {}",
            echoed(key.trim()),
            names.join(", ")
        ))
    })?;
    Ok(Section {
        index,
        value,
        rising,
    })
}

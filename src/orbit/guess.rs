//! Newton's first guess: the state after the transients, and (autonomous) the period between
//! two crossings of the section.

use crate::display::Compact;
use crate::model::CartesianState;
use crate::simulation::{DiaboloMode, Phase, RunError, Settings, Simulation};

use super::coordinates::Coordinates;
use super::{OrbitError, OrbitOptions, Section, Timing};

/// The time simulated before the guess is taken, at most, s: a forced orbit's whole periods
/// of the guess time; an autonomous one's guess time and then the window searched for two
/// crossings of the section (as long again, at least `sim.duration`).
pub(super) fn transient(sim: &Simulation, timing: Timing, options: &OrbitOptions) -> f64 {
    match timing {
        Timing::Forced { period } => (options.guess_time / period).floor() * period,
        Timing::Autonomous(_) => options.guess_time + guess_window(sim, options),
    }
}

/// The time an autonomous guess searches for two crossings of its section, s.
pub(super) fn guess_window(sim: &Simulation, options: &OrbitOptions) -> f64 {
    sim.settings.duration.max(options.guess_time)
}

/// Newton's first guess.
pub(super) struct Guess {
    /// The state after the transients.
    pub(super) state: CartesianState,
    /// The drives' period, or the time between two crossings of the section, s.
    pub(super) period: f64,
    /// The string's phase there.
    pub(super) phase: Phase,
}

/// The guess taken from `session` where it stands, if every diabolo is on the string there.
fn guess_at(
    session: &mut crate::simulation::Session,
    period: f64,
    failed: impl Fn(RunError) -> OrbitError,
) -> Result<Guess, OrbitError> {
    let at = session.time();
    let phase = session.phase();
    let row = session.state().map_err(failed)?;
    if let Some(k) = row.modes.iter().position(|m| *m != DiaboloMode::String) {
        return Err(OrbitError::OffTheString {
            diabolo: k + 1,
            mode: row.modes[k].name(),
            at,
        });
    }
    Ok(Guess {
        state: row.state.clone(),
        period,
        phase,
    })
}

/// The guess: the state after the transients, the period (the drives' or the time between two
/// crossings of the section) and the phase there.
pub(super) fn guess(
    sim: &Simulation,
    timing: Timing,
    options: &OrbitOptions,
    settings: &Settings,
) -> Result<Guess, OrbitError> {
    let failed = |error| OrbitError::Run {
        stage: "guess",
        error,
    };
    let mut long = sim.clone();
    long.settings = settings.clone();
    match timing {
        Timing::Forced { period } => {
            let whole = transient(sim, timing, options);
            long.settings.duration = whole.max(period);
            let mut session = long.session();
            session.advance(whole, None).map_err(failed)?;
            guess_at(&mut session, period, failed)
        }
        Timing::Autonomous(section) => {
            let duration = guess_window(sim, options);
            long.settings.duration = options.guess_time + duration;
            let coordinates = Coordinates::of(sim);
            let mut session = long.session();
            session.advance(options.guess_time, None).map_err(failed)?;
            // Crossings on a fine grid, refined by bisection on copies of the session.
            let value = |s: &mut crate::simulation::Session| -> Result<f64, OrbitError> {
                let row = s.state().map_err(failed)?;
                Ok(coordinates.pack(&row.state)[section.index] - section.value)
            };
            let dt = (duration / 20_000.0).max(1e-4);
            let mut crossings: Vec<(f64, crate::simulation::Session)> = Vec::new();
            let mut before = session.clone();
            let mut g0 = value(&mut before)?;
            while crossings.len() < 2 && !session.finished() {
                let t = session.time() + dt;
                if session.advance(t, None).is_err() {
                    break;
                }
                let g1 = value(&mut session)?;
                let crossed = if section.rising {
                    g0 < 0.0 && g1 >= 0.0
                } else {
                    g0 > 0.0 && g1 <= 0.0
                };
                if crossed {
                    let (mut lo, mut hi) = (before.time(), session.time());
                    let mut at = before.clone();
                    for _ in 0..60 {
                        let mid = 0.5 * (lo + hi);
                        let mut probe = before.clone();
                        probe.advance(mid, None).map_err(failed)?;
                        let g = value(&mut probe)?;
                        if (g < 0.0) == section.rising {
                            lo = mid;
                        } else {
                            hi = mid;
                            at = probe;
                        }
                        if hi - lo < 1e-13 {
                            break;
                        }
                    }
                    crossings.push((at.time(), at));
                }
                before = session.clone();
                g0 = g1;
            }
            if crossings.len() < 2 {
                return Err(OrbitError::NeverCrossed {
                    section: section_words(section, &coordinates),
                    crossings: crossings.len(),
                    duration,
                });
            }
            let period = crossings[1].0 - crossings[0].0;
            let (_, mut first) = crossings.swap_remove(0);
            guess_at(&mut first, period, failed)
        }
    }
}

fn section_words(section: Section, coordinates: &Coordinates) -> String {
    format!(
        "{} = {} {}",
        coordinates.names()[section.index],
        Compact(section.value),
        if section.rising { "upward" } else { "downward" }
    )
}

//! The search: what it may simulate (`--max-duration`), Newton shooting from the guess, and the
//! monodromy's multipliers.

use nalgebra::{Complex, DMatrix};

use crate::simulation::{Phase, Simulation};

use super::coordinates::Coordinates;
use super::guess::{guess, transient, Guess};
use super::period::MIN_PERIOD;
use super::shooting::{norm, precise, residual, Period, Shooting};
use super::{EnergyBudget, Multiplier, Orbit, OrbitError, OrbitOptions, Timing};

/// Periods of the map one search runs at most: the first map; per Newton iteration two runs
/// per column of the Jacobian (one column more, the period's, when autonomous) and up to 11
/// trial steps; then the monodromy and its check (two runs per column each) and the
/// amplitudes' run.
pub fn most_periods(coordinates: usize, autonomous: bool, max_iterations: usize) -> usize {
    let columns = coordinates + usize::from(autonomous);
    1 + max_iterations * (2 * columns + TRIAL_STEPS) + 2 * 2 * coordinates + 1
}

/// Trial steps per Newton iteration at most (the full step and ten halvings).
const TRIAL_STEPS: usize = 11;

/// What can be checked before anything runs: a forced period of at least [`MIN_PERIOD`], and a
/// search that cannot simulate more than `options.max_duration` (the guess's transient; for a
/// forced orbit, every period Newton may run as well).
pub fn check_search(
    sim: &Simulation,
    timing: Timing,
    options: &OrbitOptions,
) -> Result<(), OrbitError> {
    if let Timing::Forced { period } = timing {
        if !(period.is_finite() && period >= MIN_PERIOD) {
            return Err(OrbitError::BadPeriod {
                origin: "--period",
                value: period,
            });
        }
    }
    let limit = options.max_duration;
    let guess = transient(sim, timing, options);
    if !(options.guess_time <= limit && guess <= limit) {
        return Err(OrbitError::GuessTooLong {
            value: options.guess_time,
            simulated: guess,
            limit,
        });
    }
    if let Timing::Forced { period } = timing {
        periods_within(sim, timing, options, "the period", period)?;
    }
    Ok(())
}

/// The longest period the search may run with `options.max_duration` (after the guess's
/// transient), s; an error naming `what` when `period` is longer.
fn periods_within(
    sim: &Simulation,
    timing: Timing,
    options: &OrbitOptions,
    what: &'static str,
    period: f64,
) -> Result<f64, OrbitError> {
    let autonomous = matches!(timing, Timing::Autonomous(_));
    let periods = most_periods(
        Coordinates::of(sim).len(),
        autonomous,
        options.max_iterations,
    );
    let guess = transient(sim, timing, options);
    let longest = (options.max_duration - guess) / periods as f64;
    if period > longest {
        return Err(OrbitError::SearchTooLong {
            what,
            period,
            guess,
            periods,
            total: guess + periods as f64 * period,
            limit: options.max_duration,
        });
    }
    Ok(longest)
}

/// Finds the periodic orbit of `sim` (its drives and parameters; its initial state, run for
/// `options.guess_time`, is the guess).
pub fn find_orbit(
    sim: &Simulation,
    timing: Timing,
    options: &OrbitOptions,
) -> Result<Orbit, OrbitError> {
    check_search(sim, timing, options)?;
    let coordinates = Coordinates::of(sim);
    let settings = precise(&sim.settings);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs.max(1))
        .build()
        .map_err(|e| OrbitError::Setup(format!("cannot start threads: {e}")))?;
    // The guess: the state after the transients (whole periods of a forced orbit).
    let Guess {
        state: guess,
        period,
        phase,
    } = guess(sim, timing, options, &settings)?;
    // Newton may not lengthen the period past what the limit allows.
    let longest = periods_within(
        sim,
        timing,
        options,
        "the section's period (its guess)",
        period,
    )?;
    let mut shooting = Shooting {
        sim,
        coordinates: coordinates.clone(),
        base: guess.clone(),
        taut: phase == Phase::Taut,
        grip: vec![false; coordinates.diabolos],
        settings,
    };
    let section = match timing {
        Timing::Autonomous(s) => Some(s),
        Timing::Forced { .. } => None,
    };
    let autonomous = section.is_some();
    let mut z = coordinates.pack(&shooting.start(&coordinates.pack(&guess)));
    let mut period = period;
    let mut current = shooting.flow(&z, period)?;
    let mut r = residual(&current.end, &z, section);
    let mut history = vec![norm(&r)];
    let m = z.len();
    let h = options.jacobian_step;
    let mut iterations = 0;
    while norm(&r) > options.tolerance {
        if iterations == options.max_iterations {
            return Err(diverged(iterations, &history, "no orbit near the guess"));
        }
        iterations += 1;
        let (jacobian, rate) = shooting.jacobian(&z, period, h, autonomous, &pool)?;
        let mut a = DMatrix::zeros(r.len(), r.len());
        a.view_mut((0, 0), (m, m))
            .copy_from(&(jacobian - DMatrix::identity(m, m)));
        if let (Some(s), Some(rate)) = (section, rate) {
            a.view_mut((0, m), (m, 1)).copy_from(&rate);
            a[(m, s.index)] = 1.0;
        }
        let svd = a.svd(true, true);
        let cutoff = 1e-10 * svd.singular_values.max();
        let step = svd
            .solve(&(-&r), cutoff)
            .map_err(|_| diverged(iterations, &history, "a singular Jacobian"))?;
        // Damped: halve a step that does not reduce the residual.
        let mut scale = 1.0;
        let mut accepted = None;
        for _ in 0..TRIAL_STEPS {
            let trial_z = &z + step.rows(0, m) * scale;
            let trial_period = if autonomous {
                period + step[m] * scale
            } else {
                period
            };
            if trial_period >= MIN_PERIOD && trial_period <= longest {
                if let Ok(trial) = shooting.flow(&trial_z, trial_period) {
                    let trial_r = residual(&trial.end, &trial_z, section);
                    if norm(&trial_r) < norm(&r) {
                        accepted = Some((trial_z, trial_period, trial, trial_r));
                        break;
                    }
                }
            }
            scale *= 0.5;
        }
        let Some((next_z, next_period, next, next_r)) = accepted else {
            history.push(norm(&r));
            return Err(diverged(
                iterations,
                &history,
                "no orbit near the guess, a bifurcation (a multiplier at +1), or an event grazing there",
            ));
        };
        z = next_z;
        period = next_period;
        current = next;
        r = next_r;
        history.push(norm(&r));
    }
    // An axle that grips at the start (a rolling orbit) has no spin of its own there: its spin
    // follows the motion, and a spin perturbed off it would slip for a moment (a kink in the
    // map that first-order errors in the differences show). The monodromy takes the spin of
    // such an axle from the motion (a zero multiplier, "grip").
    shooting.grip = gripping_at_start(&current, &coordinates);
    let (monodromy, _) = shooting.jacobian(&z, period, h, false, &pool)?;
    let (check, _) = shooting.jacobian(&z, period, 4.0 * h, false, &pool)?;
    let jacobian_agreement = (&monodromy - &check).amax();
    let multipliers = classify(&monodromy, &shooting, autonomous);
    let stable = multipliers
        .iter()
        .filter(|m| m.trivial.is_none())
        .all(|m| m.modulus() < 1.0 - options.stability_margin);
    let amplitudes = shooting.amplitudes(&z, period)?;
    let row = &current.row;
    let budget = EnergyBudget {
        hand_work: row.hand_work,
        friction_loss: row.friction_loss,
        drag_loss: row.drag_loss,
        impulse_loss: row.impulse_loss,
        string_loss: row.string_loss.unwrap_or(0.0),
        energy_change: row.energy - current.start_energy,
    };
    Ok(Orbit {
        names: coordinates.names(),
        point: z.iter().copied().collect(),
        state: shooting.start(&z),
        period,
        autonomous,
        residual: norm(&r),
        history,
        monodromy,
        multipliers,
        stable,
        jacobian_agreement,
        events: current.events,
        budget,
        amplitudes,
        taut: shooting.taut,
        grip: shooting.grip.clone(),
    })
}

/// Per diabolo: whether its axle gripped from the orbit's start (a `stick` at t = 0).
fn gripping_at_start(period: &Period, coordinates: &Coordinates) -> Vec<bool> {
    (1..=coordinates.diabolos)
        .map(|k| period.gripped_at_start.contains(&k))
        .collect()
}

fn diverged(iterations: usize, history: &[f64], reason: &'static str) -> OrbitError {
    OrbitError::Diverged {
        iterations,
        history: history
            .iter()
            .map(|r| format!("{r:.3e}"))
            .collect::<Vec<_>>()
            .join(", "),
        reason,
    }
}

/// The multipliers of the monodromy matrix, the trivial ones named: two zeros per taut string
/// (the start is placed on it), the one nearest 1 of an autonomous orbit (the flow), and the
/// spin's own where a spin's row and column of the matrix are decoupled from the rest.
fn classify(monodromy: &DMatrix<f64>, shooting: &Shooting, autonomous: bool) -> Vec<Multiplier> {
    let values: Vec<Complex<f64>> = monodromy
        .clone()
        .complex_eigenvalues()
        .iter()
        .copied()
        .collect();
    let mut multipliers: Vec<Multiplier> = values
        .into_iter()
        .map(|value| Multiplier {
            value,
            trivial: None,
        })
        .collect();
    multipliers.sort_by(|a, b| b.modulus().total_cmp(&a.modulus()));
    let mut name = |target: Complex<f64>, label: &'static str| {
        if let Some(m) = multipliers
            .iter_mut()
            .filter(|m| m.trivial.is_none())
            .min_by(|a, b| {
                (a.value - target)
                    .norm()
                    .total_cmp(&(b.value - target).norm())
            })
        {
            m.trivial = Some(label);
        }
    };
    if shooting.taut {
        name(Complex::new(0.0, 0.0), "constraint");
        name(Complex::new(0.0, 0.0), "constraint");
    }
    for _ in shooting.grip.iter().filter(|&&g| g) {
        name(Complex::new(0.0, 0.0), "grip");
    }
    let m = monodromy.nrows();
    for k in 0..shooting.coordinates.diabolos {
        let s = 5 * k + 4;
        let scale = monodromy.amax().max(1.0);
        let coupled = (0..m).filter(|&j| j != s).any(|j| {
            monodromy[(s, j)].abs() > 1e-7 * scale || monodromy[(j, s)].abs() > 1e-7 * scale
        });
        if !coupled {
            name(Complex::new(monodromy[(s, s)], 0.0), "spin");
        }
    }
    if autonomous {
        name(Complex::new(1.0, 0.0), "flow");
    }
    multipliers
}

//! Natural-parameter continuation of an orbit, and the multipliers crossing the unit circle
//! along the branch.

use nalgebra::Complex;

use crate::simulation::Simulation;

use super::search::find_orbit;
use super::{Multiplier, Orbit, OrbitError, OrbitOptions, Timing};

/// One point of a continuation: the parameter's value, the orbit (or why none was found), and
/// where a non-trivial multiplier crossed the unit circle since the previous point.
#[derive(Clone, Debug)]
pub struct ContinuationPoint {
    /// The parameter's value.
    pub value: f64,
    /// The orbit there.
    pub orbit: Result<Orbit, OrbitError>,
    /// Newton searches run for this value (halved steps and the crossing's bisection included).
    pub attempts: usize,
    /// The crossing since the previous point, located by bisection, if a multiplier crossed.
    pub crossing: Option<Crossing>,
    /// The non-trivial multiplier nearest the unit circle at this point.
    pub nearest: Option<Complex<f64>>,
}

/// A multiplier crossing the unit circle between two points of a branch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Crossing {
    /// "fold" (a real multiplier through +1), "period_doubling" (through -1) or
    /// "neimark_sacker" (a complex pair).
    pub kind: &'static str,
    /// The parameter where it crosses (the bisection's last bracket's middle).
    pub at: f64,
    /// The multiplier there (the one nearest the circle at the bracket's ends).
    pub multiplier: Complex<f64>,
}

/// How a crossing multiplier is named from where it meets the circle: within 0.1 rad of the
/// real axis it is a fold (+1) or a period doubling (-1), otherwise a Neimark-Sacker pair.
fn crossing_kind(mu: Complex<f64>) -> &'static str {
    let angle = mu.arg().abs();
    if angle < 0.1 {
        "fold"
    } else if angle > std::f64::consts::PI - 0.1 {
        "period_doubling"
    } else {
        "neimark_sacker"
    }
}

/// Follows an orbit through the parameter values `values` (natural-parameter continuation):
/// `simulation(v)` builds the scenario at value v and `timing` says how its period is found;
/// each orbit starts from the previous one, and a value whose orbit is not found is approached
/// in halved steps (down to 1/16 of the step) before it is given up. Where the number of
/// non-trivial multipliers outside the unit circle changes between two points, the crossing is
/// located by bisection of the parameter (20 halvings at most, to 1e-9 of the step).
pub fn continue_orbit(
    simulation: &dyn Fn(f64) -> Result<Simulation, OrbitError>,
    timing: &dyn Fn(&Simulation) -> Result<Timing, OrbitError>,
    values: &[f64],
    options: &OrbitOptions,
) -> Vec<ContinuationPoint> {
    let branch = Branch {
        simulation,
        timing,
        options,
    };
    let mut points: Vec<ContinuationPoint> = Vec::with_capacity(values.len());
    let mut last: Option<(f64, Orbit)> = None;
    for &value in values {
        let mut attempts = 0;
        let orbit = match &last {
            None => simulation(value).and_then(|sim| {
                attempts += 1;
                find_orbit(&sim, timing(&sim)?, options)
            }),
            Some((from, orbit)) => branch.approach((*from, orbit), value, 4, &mut attempts),
        };
        let previous = points
            .last()
            .and_then(|p| p.orbit.as_ref().ok().map(|o| (p.value, o)));
        let crossing = match (&orbit, previous) {
            (Ok(now), Some((before_value, before))) if outside(before) != outside(now) => {
                Some(branch.locate((before_value, before), (value, now), &mut attempts))
            }
            _ => None,
        };
        let nearest = orbit.as_ref().ok().and_then(nearest_to_circle);
        if let Ok(found) = &orbit {
            last = Some((value, found.clone()));
        }
        points.push(ContinuationPoint {
            value,
            orbit,
            attempts,
            crossing,
            nearest,
        });
    }
    points
}

/// What a continuation solves with.
struct Branch<'a> {
    simulation: &'a dyn Fn(f64) -> Result<Simulation, OrbitError>,
    timing: &'a dyn Fn(&Simulation) -> Result<Timing, OrbitError>,
    options: &'a OrbitOptions,
}

impl Branch<'_> {
    /// The orbit at `at` from the one `guess`.
    fn solve(&self, at: f64, guess: &Orbit, attempts: &mut usize) -> Result<Orbit, OrbitError> {
        let mut sim = (self.simulation)(at)?;
        sim.initial = guess.state.clone();
        *attempts += 1;
        let start = OrbitOptions {
            guess_time: 0.0,
            ..*self.options
        };
        find_orbit(&sim, (self.timing)(&sim)?, &start)
    }

    /// The orbit at `target` from the one at `from`, halving the step on failure `depth` times.
    fn approach(
        &self,
        from: (f64, &Orbit),
        target: f64,
        depth: usize,
        attempts: &mut usize,
    ) -> Result<Orbit, OrbitError> {
        match self.solve(target, from.1, attempts) {
            Ok(orbit) => Ok(orbit),
            Err(error) if depth == 0 => Err(error),
            Err(_) => {
                let mid = 0.5 * (from.0 + target);
                let halfway = self.approach(from, mid, depth - 1, attempts)?;
                self.approach((mid, &halfway), target, depth - 1, attempts)
            }
        }
    }

    /// The crossing between two orbits whose multipliers outside the circle differ in number,
    /// by bisection of the parameter.
    fn locate(&self, low: (f64, &Orbit), high: (f64, &Orbit), attempts: &mut usize) -> Crossing {
        let (mut a, mut b) = ((low.0, low.1.clone()), (high.0, high.1.clone()));
        let step = (high.0 - low.0).abs();
        for _ in 0..20 {
            if (b.0 - a.0).abs() <= 1e-9 * step {
                break;
            }
            let mid = 0.5 * (a.0 + b.0);
            match self.solve(mid, &a.1, attempts) {
                Ok(orbit) if outside(&orbit) == outside(&a.1) => a = (mid, orbit),
                Ok(orbit) => b = (mid, orbit),
                Err(_) => break,
            }
        }
        let multiplier = own(&a.1)
            .chain(own(&b.1))
            .min_by(|x, y| {
                (x.modulus() - 1.0)
                    .abs()
                    .total_cmp(&(y.modulus() - 1.0).abs())
            })
            .map_or(Complex::new(f64::NAN, 0.0), |m| m.value);
        Crossing {
            kind: crossing_kind(multiplier),
            at: 0.5 * (a.0 + b.0),
            multiplier,
        }
    }
}

/// The non-trivial multipliers.
fn own(orbit: &Orbit) -> impl Iterator<Item = &Multiplier> {
    orbit.multipliers.iter().filter(|m| m.trivial.is_none())
}

/// How many non-trivial multipliers lie outside the unit circle.
fn outside(orbit: &Orbit) -> usize {
    own(orbit).filter(|m| m.modulus() > 1.0).count()
}

fn nearest_to_circle(orbit: &Orbit) -> Option<Complex<f64>> {
    own(orbit)
        .min_by(|a, b| {
            (a.modulus() - 1.0)
                .abs()
                .total_cmp(&(b.modulus() - 1.0).abs())
        })
        .map(|m| m.value)
}

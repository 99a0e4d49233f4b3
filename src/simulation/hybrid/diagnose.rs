//! Failures explained: objects in words, a non-finite quantity named, and the likely cause of
//! a stall or an overflow from the parameters and the state.

use crate::display::Compact;
use crate::model::FrictionLaw;

use super::Hybrid;
use crate::simulation::drive::{Drive, Tracking};
use crate::simulation::phase::{Measure, Phase, Quantity};
use crate::simulation::report::{object_name, rounded, RunError};

/// A time scale shorter than this (s) names a parameter or the state as the likely cause of a
/// stall or an overflow.
const FAST_TIME_SCALE: f64 = 1e-3;

/// The cause of a stall when none is recognised.
pub(super) const STALL_UNRECOGNISED: &str =
    "no cause recognised in the parameters or the state: perhaps a \
    near-straight string between driven sticks, a near collision, or tolerances (sim.rtol, \
    sim.atol) too tight for the scales of the scenario";

/// A diabolo-to-stick mass ratio beyond this (or below its inverse) is named as a likely cause.
const EXTREME_MASS_RATIO: f64 = 1e4;

/// A state quantity in words: "diabolo 1's spin", "the string's tension".
pub(crate) fn quantity_name(quantity: Quantity, n: usize) -> String {
    match quantity.object {
        Some(k) => format!("{}'s {}", object_name(k, n), quantity.name()),
        None if quantity.measure == Measure::Tension => "the string's tension".to_string(),
        None => format!("the {}", quantity.name()),
    }
}

impl Hybrid<'_> {
    /// The two objects at the ends of segment `segment`, in words.
    pub(super) fn segment_ends(&self, segment: usize) -> String {
        format!(
            "{} and {}",
            object_name(segment, self.n),
            object_name(segment + 1, self.n)
        )
    }

    /// A failure as the user reads it: objects in words, a non-finite quantity named with its
    /// likely cause, at the last finite time reached.
    pub fn explain(&self, failure: RunError) -> RunError {
        match failure {
            RunError::NonFinite { what, object, .. } => {
                let quantity = self.non_finite_quantity();
                // A guard's value names its object itself.
                let guarded = object.is_some();
                RunError::NonFinite {
                    // The last time reached (an error inside a trial step carries the time
                    // of a stage ahead of it, or none).
                    t: self.t,
                    phase: self.phases.phase.name(),
                    what: match quantity {
                        Some(q) => quantity_name(q, self.n),
                        None if guarded => what,
                        None => format!("the state ({what})"),
                    },
                    object: quantity.and_then(|q| q.object).or(object),
                    cause: self.likely_cause(
                        "the parameters or the state are beyond what the model can compute",
                    ),
                }
            }
            RunError::StepSizeCollapse { t, h, phase, .. } => RunError::StepSizeCollapse {
                t,
                h,
                phase,
                cause: self.likely_cause(
                    "perhaps a near-straight string with driven sticks, or a near collision",
                ),
            },
            RunError::Collision { t, segment, .. } => RunError::Collision {
                t,
                segment,
                what: self.segment_ends(segment),
                distance: self.sim.settings.meeting_distance,
            },
            other => other,
        }
    }

    /// The quantity that was not finite at the failure: an output of the last evaluation, or
    /// the component the stepper found.
    fn non_finite_quantity(&self) -> Option<Quantity> {
        let from_system = match self.phases.phase {
            Phase::Taut => self.phases.taut.system.non_finite_output(),
            Phase::Loose => self
                .phases
                .loose
                .system
                .non_finite_rate
                .map(|i| self.phases.loose.system.layout.quantity(i).rate()),
        };
        from_system.or_else(|| {
            self.phases.stepper().non_finite_component().map(|c| {
                let quantity = self.phases.quantity(c.index);
                if c.derivative {
                    quantity.rate()
                } else {
                    quantity
                }
            })
        })
    }

    /// The likely cause of a stall or an overflow: the time scales of the parameters and the
    /// state shorter than [`FAST_TIME_SCALE`] (fastest first) and an extreme mass ratio;
    /// `otherwise` when there is none.
    pub(super) fn likely_cause(&self, otherwise: &str) -> String {
        let mut scales: Vec<TimeScale> = self
            .time_scales()
            .into_iter()
            .filter(|s| s.seconds < FAST_TIME_SCALE)
            .collect();
        scales.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
        let mut causes: Vec<String> = scales
            .iter()
            .map(|s| {
                let seconds = Compact(rounded(s.seconds));
                format!("{} (a time scale of {seconds} s)", s.what)
            })
            .collect();
        let p = self.sim.params.values();
        if let Some(cause) = self.capstan_overflow() {
            causes.push(cause);
        }
        let ratio = p.diabolo_mass / p.stick_mass;
        if !(1.0 / EXTREME_MASS_RATIO..=EXTREME_MASS_RATIO).contains(&ratio) {
            causes.push(format!(
                "the huge mass ratio (diabolo_mass {} kg against stick_mass {} kg: the forces dwarf the tolerances of the lighter bodies)",
                Compact(p.diabolo_mass),
                Compact(p.stick_mass)
            ));
        }
        if causes.is_empty() {
            otherwise.to_string()
        } else {
            format!("likely cause: {}", causes.join("; "))
        }
    }

    /// In the taut phase, a capstan ratio exp(c theta') beyond the largest number: the friction
    /// over the string's wrap at the axles, in words.
    fn capstan_overflow(&self) -> Option<String> {
        let friction = self.sim.params.values().friction;
        let wrap: f64 = (self.phases.phase == Phase::Taut).then(|| {
            self.phases
                .taut
                .system
                .dynamics
                .axles()
                .contacts()
                .iter()
                .map(|c| c.contact_angle.abs())
                .sum()
        })?;
        let exponent = friction * wrap;
        (exponent > f64::MAX.ln()).then(|| {
            format!(
                "the capstan ratio exp(c theta') overflows: friction {} over {} rad of string wrapped on the axles gives exp({}), beyond the largest number exp({})",
                Compact(friction),
                Compact(rounded(wrap)),
                Compact(rounded(exponent)),
                Compact(rounded(f64::MAX.ln()))
            )
        })
    }

    /// The time scales the parameters and the current state set, s.
    fn time_scales(&self) -> Vec<TimeScale> {
        let p = self.sim.params.values();
        let mut scales = Vec::new();
        for (k, drive) in [(0, &self.sim.drives[0]), (self.n + 1, &self.sim.drives[1])] {
            if let Drive::Tracking(_, hand) = drive {
                scales.push(TimeScale {
                    seconds: tracking_time_scale(hand, p.stick_mass),
                    what: format!(
                        "the stiff hand tracking {} (stiffness {} N/m, damping {} N s/m on a {} kg stick)",
                        object_name(k, self.n),
                        Compact(hand.stiffness),
                        Compact(hand.damping),
                        Compact(p.stick_mass)
                    ),
                });
            }
        }
        if let FrictionLaw::Tanh { width } = p.friction_law {
            if p.friction > 0.0 {
                scales.push(TimeScale {
                    seconds: width / (p.friction * p.gravity.max(1.0)),
                    what: format!(
                        "the narrow tanh friction law (friction_width {} m/s with friction {})",
                        Compact(width),
                        Compact(p.friction)
                    ),
                });
            }
        }
        // Gravity swings the string in sqrt(L / g); a light axle spins up J times faster than
        // the string swings under the Earth's gravity.
        scales.push(TimeScale {
            seconds: (p.string_length / p.gravity).sqrt(),
            what: format!("the strong gravity (gravity {} m/s^2)", Compact(p.gravity)),
        });
        scales.push(TimeScale {
            seconds: p.spin_inertia * (p.string_length / 9.81).sqrt(),
            what: format!(
                "the light spin inertia (spin_inertia {})",
                Compact(p.spin_inertia)
            ),
        });
        if p.spin_drag > 0.0 {
            scales.push(TimeScale {
                seconds: 1.0 / p.spin_drag,
                what: format!(
                    "the strong spin drag (spin_drag {} 1/s)",
                    Compact(p.spin_drag)
                ),
            });
        }
        if let Some((quantity, speed)) = self.fastest() {
            let whose = match quantity.object {
                Some(k) if quantity.measure == Measure::Velocity => object_name(k, self.n),
                _ => quantity_name(quantity, self.n),
            };
            scales.push(TimeScale {
                seconds: p.string_length / speed,
                what: format!(
                    "the huge speed of {whose} ({} m/s against a {} m string)",
                    Compact(rounded(speed)),
                    Compact(p.string_length)
                ),
            });
        }
        scales
    }

    /// The fastest speed (m/s) of the current state: an object's velocity or a spin.
    fn fastest(&self) -> Option<(Quantity, f64)> {
        let y = self.phases.stepper().y();
        let mut squares = vec![0.0; self.n + 2];
        let mut fastest: Option<(Quantity, f64)> = None;
        let mut consider = |quantity: Quantity, speed: f64| {
            if fastest.is_none_or(|(_, s)| speed > s) {
                fastest = Some((quantity, speed));
            }
        };
        for (index, value) in y.iter().enumerate() {
            let quantity = self.phases.quantity(index);
            match (quantity.measure, quantity.object) {
                (Measure::Velocity, Some(k)) => squares[k] += value * value,
                (Measure::Spin, Some(_)) => consider(quantity, value.abs()),
                _ => {}
            }
        }
        for (k, square) in squares.iter().copied().enumerate() {
            consider(Quantity::of(k, Measure::Velocity), square.sqrt());
        }
        fastest.filter(|(_, speed)| *speed > 0.0)
    }
}

/// The response time of a tracking hand on a stick of `mass` (kg): sqrt(M / k) for its
/// stiffness, M / b for its damping, the shorter, s.
fn tracking_time_scale(hand: &Tracking, mass: f64) -> f64 {
    let stiffness = (hand.stiffness > 0.0).then(|| (mass / hand.stiffness).sqrt());
    let damping = (hand.damping > 0.0).then(|| mass / hand.damping);
    stiffness
        .into_iter()
        .chain(damping)
        .fold(f64::INFINITY, f64::min)
}

/// A time scale (s) of the run and what sets it, in words.
struct TimeScale {
    seconds: f64,
    what: String,
}

//! The flight family of the run in space: a diabolo leaves the string, lands on it, or drops
//! on the floor; the string wraps an axle once more or once less (docs/space.md, "Flight in
//! space").

use nalgebra::Vector3;

use super::report::{SpaceEventKind, SpaceStop};
use super::run::{failed, Run, Stop};
use super::system::SpacePhase;
use super::SpaceHand;
use crate::model::friction::{AxleMode, SlipDirection};
use crate::model::space::{chord_crossing, AxleModel, SpaceDiabolo};
use crate::simulation::ode::events::Crossing;

/// The string through a landing diabolo's centre may be longer than the chord it crossed by
/// this (m) beyond the string's slack: the projection onto the string takes it.
const LANDING_STRETCH: f64 = 1e-9;

impl<H: SpaceHand + Clone> Run<H> {
    /// The string's turn about the axle in `slot` passed zero or +-pi (`crossing`: how its
    /// sine crossed zero): folded back, the string wraps once more (the turn rising through
    /// pi) or once less; running straight with its turn falling through zero, a diabolo without
    /// a knot leaves the string. True when the diabolo left (the phase is entered anew).
    pub(super) fn fold(&mut self, t: f64, slot: usize, crossing: Crossing) -> Result<bool, Stop> {
        self.system.load(t, &self.y).map_err(|e| failed(t, e))?;
        let d = self.system.state.diabolos[slot - 1];
        let (_, cos) = self.system.string.turn_sine_cosine(slot, &d.axle);
        let k = self.system.roster.diabolo_in(slot);
        let falling = crossing == Crossing::Falling;
        match (cos < 0.0, falling, d.knot) {
            (true, true, _) => self.wind(t, slot, 1),
            (true, false, knot) if knot > 0 => self.wind(t, slot, -1),
            (false, true, 0) => {
                self.leave(t, slot)?;
                return Ok(true);
            }
            (_, _, 0) => return Err((t, SpaceStop::OtherFace(k))),
            _ => {}
        }
        Ok(false)
    }

    fn wind(&mut self, t: f64, slot: usize, by: i32) {
        let d = &mut self.system.state.diabolos[slot - 1];
        d.knot += by;
        let knot = d.knot;
        let diabolo = self.system.roster.diabolo_in(slot);
        self.event(t, SpaceEventKind::Knot { diabolo, knot });
    }

    /// The diabolo in `slot` leaves the string: every position, velocity and spin is
    /// continuous; its two segments become one, and the phase follows from the string left.
    /// Where the strands slope differently along the axle (the turn about it is zero, the 3D
    /// strands not in line), the straight string is shorter than the one through the centre: a
    /// compliant string releases the stretch energy of the difference, booked as lost.
    fn leave(&mut self, t: f64, slot: usize) -> Result<(), Stop> {
        self.system.read(&self.y);
        let before = self
            .system
            .stored_energy_at(self.system.state.string_used());
        let d = self.system.state.diabolos.remove(slot - 1);
        let after = self
            .system
            .stored_energy_at(self.system.state.string_used());
        let energy_lost = (before - after).max(0.0);
        self.impulse_loss += energy_lost;
        self.system.modes.remove(slot - 1);
        let diabolo = self.system.roster.leave(slot, t, d.pos.y, d.vel.y);
        self.system.resize_string();
        self.event(
            t,
            SpaceEventKind::Leave {
                diabolo,
                slot,
                energy_lost,
            },
        );
        self.start_phase(t)
    }

    /// Flying diabolo K crossed the plane of the chord of `segment` and its axle: it lands when
    /// it came down through it (relative to the chord), between the chord's ends (farther than
    /// R from a stick tip, 2R from a diabolo's centre) and with the chord within the axle's
    /// half-length of its centre; coming up through it there, it meets the string from below
    /// (which the model leaves out, as the plane does). True when it landed.
    pub(super) fn land(
        &mut self,
        t: f64,
        k: usize,
        segment: usize,
        crossing: Crossing,
    ) -> Result<bool, Stop> {
        self.system.read(&self.y);
        let d = self.system.free_diabolo(&self.y, k);
        let state = &self.system.state;
        let n = state.diabolos.len();
        let (a, b) = (state.position(segment), state.position(segment + 1));
        let x = chord_crossing(&a, &b, &d.pos, &d.axle);
        let p = self.system.params.planar.values();
        let reach = |j: usize| {
            if j == 0 || j == n + 1 {
                p.diabolo_radius
            } else {
                2.0 * p.diabolo_radius
            }
        };
        let between = x.along > reach(segment) && x.along < x.length - reach(segment + 1);
        let within = x.offset.abs() <= self.system.params.half_length;
        if x.height.is_none() || x.normal.y <= 0.0 || !between || !within {
            return Ok(false);
        }
        let fraction = x.along / x.length;
        let chord_velocity =
            state.velocity(segment) * (1.0 - fraction) + state.velocity(segment + 1) * fraction;
        let speed = -(d.vel - chord_velocity).dot(&x.normal);
        if crossing == Crossing::Rising {
            return Err((t, SpaceStop::FromBelow(k)));
        }
        let stretch = (d.pos - a).norm() + (b - d.pos).norm() - (b - a).norm();
        let slack = p.string_length - state.string_used();
        let taut = self.system.phase == SpacePhase::Taut;
        if taut && n == 0 && self.prescribed() == [true, true] && self.system.elastic.is_none() {
            return Err((t, SpaceStop::StraightLanding(k)));
        }
        if stretch > slack.max(0.0) + LANDING_STRETCH {
            return Err((
                t,
                SpaceStop::LandingStretch {
                    diabolo: k,
                    offset: x.offset,
                    stretch: stretch - slack.max(0.0),
                },
            ));
        }
        let slot = segment + 1;
        self.system.roster.land(k, slot, t);
        self.system
            .state
            .diabolos
            .insert(slot - 1, SpaceDiabolo { knot: 0, ..d });
        self.system
            .modes
            .insert(slot - 1, AxleMode::Slipping(SlipDirection::Positive));
        self.system.resize_string();
        self.event(
            t,
            SpaceEventKind::Land {
                diabolo: k,
                slot,
                speed,
                offset: x.offset,
            },
        );
        self.start_phase(t)?;
        Ok(true)
    }

    /// Flying diabolo K reached the floor: it stops where it is (its centre's kinetic energy,
    /// and a rigid axle's transverse rotation's, go to the impulse loss) and stays, its spin
    /// still decaying by drag.
    pub(super) fn drop_to_floor(&mut self, t: f64, k: usize) -> Result<(), Stop> {
        let mut d = self.system.free_diabolo(&self.y, k);
        let params = &self.system.params;
        let p = params.planar.values();
        let transverse = match params.model {
            AxleModel::FastTop => 0.0,
            AxleModel::Rigid => 0.5 * params.transverse_inertia * d.axle_rate.norm_squared(),
        };
        let energy_lost = 0.5 * p.diabolo_mass * d.vel.norm_squared() + transverse;
        d.vel = Vector3::zeros();
        d.axle_rate = Vector3::zeros();
        self.system.layout.pack_diabolo(&d, k, &mut self.y);
        self.impulse_loss += energy_lost;
        self.system.roster.drop(k, t);
        self.event(
            t,
            SpaceEventKind::Drop {
                diabolo: k,
                energy_lost,
            },
        );
        let phase = self.system.phase;
        self.enter(t, phase)
    }
}

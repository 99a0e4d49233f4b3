//! Capstan friction between string and axle (docs/model.md, "Friction and spin").
//!
//! At diabolo i the string wraps the axle over the contact angle theta'_i. The string slides over
//! the axle at the slip speed w'_i; the capstan law sets the tension ratio across the axle,
//! T_i / T_{i-1} = exp(c'_i theta'_i), so every segment tension is T_i = T_0 d_i with
//! d_i = exp(sum_{j<=i} c'_j theta'_j), d_0 = 1.
//!
//! Recaptured states (theta < -pi) touch the axle on its other side: the contact angle is
//! |theta + pi| and the axle surface speed enters the slip (and the spin torque) with the
//! opposite sign, the side sigma_i = -1.

use std::f64::consts::PI;

use super::geometry::Kinematics;
use super::params::{FrictionLaw, Params};

/// Direction of a slip that the step and bearing laws hold locked between events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlipDirection {
    /// w' > 0: the axle surface outruns the string; friction slows the spin, T_i > T_{i-1}.
    Positive,
    /// w' < 0: the string outruns the axle surface; friction speeds the spin up, T_i < T_{i-1}.
    Negative,
}

impl SlipDirection {
    /// +1 for `Positive`, -1 for `Negative`.
    pub fn sign(self) -> f64 {
        match self {
            Self::Positive => 1.0,
            Self::Negative => -1.0,
        }
    }
}

/// What an axle does with the string: slips one way or the other, or grips it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AxleMode {
    /// The string slides over the axle in this direction (w' != 0).
    Slipping(SlipDirection),
    /// The axle grips the string (w' = 0 held); the tension ratio is solved with T_0.
    Stuck,
}

impl AxleMode {
    /// The note's instantaneous law: slipping in the direction of the sign of w'
    /// (w' = 0 counts as positive; deciding grip there is the simulation's Filippov rule).
    pub fn from_slip(slip_speed: f64) -> Self {
        if slip_speed < 0.0 {
            Self::Slipping(SlipDirection::Negative)
        } else {
            Self::Slipping(SlipDirection::Positive)
        }
    }
}

/// Where the slip speed is measured from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlipReference {
    /// w'_i = sigma_i w_i - sum_{j<i} l_j' (the note's definition in the taut phase).
    LeftSide,
    /// w'_i = sigma_i w_i - (sum_{j<i} l_j' - sum_{j>=i} l_j') / 2 (used for the tensing impulse,
    /// where the string length is changing). Equal to `LeftSide` on a taut string.
    Symmetric,
    /// w'_i = sigma_i w_i - sum_{j<i} l_j' + rho_i L', rho_i = sum_{j<i} l_j / sum l: against the
    /// material of a compliant string stretched evenly (docs/elastic.md). Equal to `LeftSide`
    /// while the string's length does not change.
    UniformStretch,
}

/// The string at one axle.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AxleContact {
    /// sigma: +1 when the string runs under the axle (theta > pi), -1 for recaptured states
    /// (theta < -pi), 0 in the flying regime (no contact).
    pub side: f64,
    /// theta': contact angle of string on axle, rad (>= 0).
    pub contact_angle: f64,
    /// w': slip speed of the axle surface against the string, m/s.
    pub slip_speed: f64,
    /// c': effective friction coefficient (its sign is the direction of the tension step); 0 at
    /// a gripping axle, whose need is [`Axles::needed_friction`].
    pub effective_friction: f64,
}

/// (sigma, theta') for a string angle theta.
pub fn contact(theta: f64) -> (f64, f64) {
    if theta > PI {
        (1.0, theta - PI)
    } else if theta < -PI {
        (-1.0, -(theta + PI))
    } else {
        (0.0, 0.0)
    }
}

/// c'(w') of a law with capstan coefficient c for an axle in `mode`. A stuck axle has no
/// effective coefficient of its own (its ratio is solved); it returns 0 here.
pub fn effective_friction(law: FrictionLaw, c: f64, slip_speed: f64, mode: AxleMode) -> f64 {
    match (law, mode) {
        (FrictionLaw::Tanh { width }, _) => c * (slip_speed / width).tanh(),
        (_, AxleMode::Stuck) => 0.0,
        (FrictionLaw::Step, AxleMode::Slipping(SlipDirection::Positive)) => c,
        (_, AxleMode::Slipping(SlipDirection::Negative)) => -c,
        (FrictionLaw::Bearing, AxleMode::Slipping(SlipDirection::Positive)) => 0.0,
    }
}

/// Contacts and tension ratios d_0..d_N of all axles, in preallocated buffers.
#[derive(Clone, Debug)]
pub struct Axles {
    contacts: Vec<AxleContact>,
    ratios: Vec<f64>,
}

impl Axles {
    /// Buffers for N diabolos.
    pub fn new(n: usize) -> Self {
        Self {
            contacts: vec![AxleContact::default(); n],
            ratios: vec![1.0; n + 1],
        }
    }

    /// Contacts of diabolos 1..N (index i - 1).
    pub fn contacts(&self) -> &[AxleContact] {
        &self.contacts
    }

    /// d_0..d_N, with d_0 = 1.
    pub fn tension_ratios(&self) -> &[f64] {
        &self.ratios
    }

    /// d_N, the ratio of the last segment's tension to the first's.
    pub fn last_ratio(&self) -> f64 {
        self.ratios[self.ratios.len() - 1]
    }

    /// Replaces the tension ratios by those of solved segment tensions (d_j = T_j / T_0).
    pub fn set_solved_tensions(&mut self, tensions: &[f64]) {
        let base = tensions[0];
        if base == 0.0 {
            self.ratios.iter_mut().for_each(|d| *d = 1.0);
        } else if base.abs() >= f64::MIN_POSITIVE {
            // One division (a division per ratio costs more than the rest of the loop).
            let per_base = 1.0 / base;
            for (d, t) in self.ratios.iter_mut().zip(tensions) {
                *d = t * per_base;
            }
            // T_0 (1 / T_0) may round off 1.
            self.ratios[0] = 1.0;
        } else {
            // 1 / base would overflow.
            for (d, t) in self.ratios.iter_mut().zip(tensions) {
                *d = t / base;
            }
        }
    }

    /// The coefficient the string needs across axle `k` (index i - 1) to hold its tension
    /// ratio, c' = ln(d_i / d_{i-1}) / theta' (0 without a contact angle): a gripping axle's
    /// grip, whose [`AxleContact::effective_friction`] is 0.
    pub fn needed_friction(&self, k: usize) -> f64 {
        let angle = self.contacts[k].contact_angle;
        if angle > 0.0 {
            (self.ratios[k + 1] / self.ratios[k]).ln() / angle
        } else {
            0.0
        }
    }

    /// [`Axles::update`] with each axle slipping the way its slip speed points and the slip
    /// measured from the left side (the taut string's definition): the friction the taut
    /// formulas take on any state (a slack row's G and FC, an orbit's slip speeds).
    pub fn update_free(&mut self, params: &Params, kin: &Kinematics, spins: &[f64]) {
        self.update(
            params.friction_law,
            params.friction,
            kin,
            spins,
            None,
            SlipReference::LeftSide,
        );
    }

    /// Slip speeds, contact angles and tension ratios for the kinematics `kin`, spins
    /// `spins[i - 1]` = w_i and axle modes `modes[i - 1]` (`None`: each axle slips the way its
    /// slip speed points, [`AxleMode::from_slip`]).
    pub fn update(
        &mut self,
        law: FrictionLaw,
        c: f64,
        kin: &Kinematics,
        spins: &[f64],
        modes: Option<&[AxleMode]>,
        reference: SlipReference,
    ) {
        let objects = kin.objects();
        let rate = kin.total_length_rate();
        let used = kin.total_length();
        let mut feed = 0.0;
        let mut left = 0.0;
        let mut log_ratio = 0.0;
        self.ratios[0] = 1.0;
        for (i, contact_i) in self.contacts.iter_mut().enumerate() {
            feed += kin.segments()[i].length_rate;
            left += kin.segments()[i].length;
            let shift = match reference {
                SlipReference::LeftSide => 0.0,
                SlipReference::Symmetric => 0.5 * rate,
                SlipReference::UniformStretch => left / used * rate,
            };
            let (side, contact_angle) = contact(objects[i + 1].theta);
            let slip_speed = side * spins[i] - feed + shift;
            let mode = modes.map_or_else(|| AxleMode::from_slip(slip_speed), |m| m[i]);
            let effective_friction = effective_friction(law, c, slip_speed, mode);
            let step = effective_friction * contact_angle;
            // A step of 0 (a gripping axle, a bearing slipping positive) keeps the ratio.
            self.ratios[i + 1] = if step == 0.0 {
                self.ratios[i]
            } else {
                log_ratio += step;
                log_ratio.exp()
            };
            *contact_i = AxleContact {
                side,
                contact_angle,
                slip_speed,
                effective_friction,
            };
        }
    }
}

/// The Filippov rule at an axle whose slip is zero: slip on in a direction whose slip
/// acceleration (m/s^2, computed as if slipping that way) carries the slip away from zero,
/// positive first; grip when neither does.
pub fn filippov_mode(positive_trend: f64, negative_trend: f64) -> AxleMode {
    if positive_trend > 0.0 {
        AxleMode::Slipping(SlipDirection::Positive)
    } else if negative_trend < 0.0 {
        AxleMode::Slipping(SlipDirection::Negative)
    } else {
        AxleMode::Stuck
    }
}

/// The way a gripping axle slips when the tension ratio it needs reaches a capstan bound and
/// the Filippov rule would keep it gripping: toward that bound (`upper`: T_k > T_{k-1},
/// positive slip).
pub fn slip_at_capstan_bound(upper: bool) -> AxleMode {
    AxleMode::Slipping(if upper {
        SlipDirection::Positive
    } else {
        SlipDirection::Negative
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_abs_diff_eq;

    #[test]
    fn step_and_bearing_laws_follow_the_note() {
        let pos = AxleMode::Slipping(SlipDirection::Positive);
        let neg = AxleMode::Slipping(SlipDirection::Negative);
        assert_eq!(effective_friction(FrictionLaw::Step, 0.2, 1.0, pos), 0.2);
        assert_eq!(effective_friction(FrictionLaw::Step, 0.2, -1.0, neg), -0.2);
        assert_eq!(effective_friction(FrictionLaw::Bearing, 0.2, 1.0, pos), 0.0);
        assert_eq!(
            effective_friction(FrictionLaw::Bearing, 0.2, -1.0, neg),
            -0.2
        );
    }

    #[test]
    fn tanh_law_tends_to_the_step_law_for_a_narrow_width() {
        let law = FrictionLaw::Tanh { width: 1e-6 };
        let any = AxleMode::from_slip(0.0);
        assert_abs_diff_eq!(
            effective_friction(law, 0.17, 0.01, any),
            0.17,
            epsilon = 1e-12
        );
        assert_abs_diff_eq!(
            effective_friction(law, 0.17, -0.01, any),
            -0.17,
            epsilon = 1e-12
        );
        assert_eq!(effective_friction(law, 0.17, 0.0, any), 0.0);
    }

    #[test]
    fn contact_angle_is_the_wrap_beyond_pi_on_either_side() {
        assert_eq!(contact(1.5 * PI), (1.0, 0.5 * PI));
        assert_eq!(contact(-1.25 * PI), (-1.0, 0.25 * PI));
        assert_eq!(contact(0.5 * PI), (0.0, 0.0));
    }
}

//! The compliant string (docs/elastic.md): an option that replaces the inextensible string by a
//! Kelvin-Voigt one, axial stiffness EA and internal damping eta, pulling while it is stretched.
//!
//! - Stretch delta = sum_i l_i - L (m) and its rate delta' = L' (m/s).
//! - The string's mean tension over its length, T_mean = sum_i T_i l_i / sum_i l_i, follows the
//!   law T_mean = (EA delta + eta delta') / L while the string pulls; the capstan ratios
//!   T_i = T_0 d_i distribute it over the segments, so T_0 = T_mean sum l / sum d_i l_i. The
//!   strain is taken on the unstretched length L (Hooke's law), which makes the law
//!   conservative: with eta = 0 the string stores V = EA delta^2 / (2 L).
//! - The string pulls while min(EA delta, EA delta + eta delta') > 0 (stretched, and the damper
//!   not pushing); otherwise every tension is 0.
//! - Where it slides over an axle the string is measured against its material, stretched
//!   uniformly: slip speed w'_i = sigma_i w_i - sum_{j<i} l_j' + rho_i delta', with rho_i the
//!   share of the string's length left of axle i. A string stretched evenly does not slip.
//! - Energy: V(max(delta, 0)) is part of the energy; the damper dissipates
//!   T_mean delta' - EA max(delta, 0) delta' / L >= 0 (eta delta'^2 / L while pulling; the
//!   stretch relaxing while slack).

use super::geometry::Kinematics;

/// The law of a compliant string of unstretched length L.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ElasticString {
    /// EA: axial stiffness, N (the tension per unit strain).
    pub stiffness: f64,
    /// eta: damping of the stretch, N s (the tension per unit strain rate).
    pub damping: f64,
    /// L: unstretched length, m.
    pub length: f64,
}

impl ElasticString {
    /// T_mean = (EA delta + eta delta') / L: the mean tension the law asks for at stretch
    /// `stretch` (delta, m) stretching at `rate` (delta', m/s), N. Negative where the damper
    /// would push: the string is then slack.
    pub fn mean_tension(&self, stretch: f64, rate: f64) -> f64 {
        (self.stiffness * stretch + self.damping * rate) / self.length
    }

    /// min(EA delta, EA delta + eta delta') / L, N: positive exactly while the string pulls
    /// (the guard of `tense` and `loosen`); while it pulls, T_mean is never below it.
    pub fn pull_margin(&self, stretch: f64, rate: f64) -> f64 {
        (self.stiffness * stretch + self.damping * rate.min(0.0)) / self.length
    }

    /// V = EA max(delta, 0)^2 / (2 L): the elastic energy stored at stretch `stretch`, J.
    pub fn energy(&self, stretch: f64) -> f64 {
        let stretch = stretch.max(0.0);
        0.5 * self.stiffness * stretch * stretch / self.length
    }

    /// The damper's dissipation, W, when the string applies the mean tension `applied` (N;
    /// 0 while slack): applied delta' - EA max(delta, 0) delta' / L.
    pub fn loss_rate(&self, stretch: f64, rate: f64, applied: f64) -> f64 {
        (applied - self.stiffness * stretch.max(0.0) / self.length) * rate
    }

    /// The first segment's tension T_0 = T_mean sum l / sum d_i l_i for the segment lengths
    /// of `kin` and the tension ratios `ratios` (d_0 = 1), N.
    pub fn base_tension(mean_tension: f64, kin: &Kinematics, ratios: &[f64]) -> f64 {
        let (mut used, mut weighted) = (0.0, 0.0);
        for (segment, d) in kin.segments().iter().zip(ratios) {
            used += segment.length;
            weighted += d * segment.length;
        }
        mean_tension * used / weighted
    }
}

/// (delta, delta') of the string of `kin` with unstretched length `length`, m and m/s.
pub fn stretch(kin: &Kinematics, length: f64) -> (f64, f64) {
    (kin.total_length() - length, kin.total_length_rate())
}

/// rho_i = sum_{j<i} l_j / sum l: the share of the string's length left of axle i (0..=N+1),
/// and its rate rho_i' = (sum_{j<i} l_j' - rho_i delta') / sum l, 1/s.
pub fn stretch_share(kin: &Kinematics, i: usize) -> (f64, f64) {
    let segments = kin.segments();
    let used = kin.total_length();
    let left: f64 = segments[..i].iter().map(|s| s.length).sum();
    let left_rate: f64 = segments[..i].iter().map(|s| s.length_rate).sum();
    let share = left / used;
    (share, (left_rate - share * kin.total_length_rate()) / used)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string() -> ElasticString {
        ElasticString {
            stiffness: 200.0,
            damping: 0.5,
            length: 1.5,
        }
    }

    // The stored energy is the integral of the undamped mean tension over the stretch: dV/ddelta
    // = EA delta / L.
    #[test]
    fn the_stored_energy_is_the_work_of_the_undamped_tension() {
        let s = string();
        let (a, b) = (0.004, 0.006);
        let steps = 10_000;
        let h = (b - a) / steps as f64;
        let work: f64 = (0..steps)
            .map(|k| s.mean_tension(a + (k as f64 + 0.5) * h, 0.0) * h)
            .sum();
        approx::assert_relative_eq!(work, s.energy(b) - s.energy(a), max_relative = 1e-12);
    }

    // The damper never gives energy back: its loss is >= 0 whenever the string pulls, and
    // while slack with a stretch left (the stretch can only be shrinking then).
    #[test]
    fn the_damper_never_creates_energy() {
        let s = string();
        for &stretch in &[-0.01, 0.0, 0.001, 0.01] {
            for &rate in &[-5.0, -1.0, -0.01, 0.0, 0.01, 1.0, 5.0] {
                let pulls = s.pull_margin(stretch, rate) > 0.0;
                let applied = if pulls {
                    s.mean_tension(stretch, rate)
                } else {
                    0.0
                };
                assert!(
                    s.loss_rate(stretch, rate, applied) >= -1e-15,
                    "{stretch} {rate} {pulls}"
                );
                if pulls {
                    assert!(applied >= s.pull_margin(stretch, rate));
                }
            }
        }
    }
}

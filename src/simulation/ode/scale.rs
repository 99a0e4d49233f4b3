//! The scales of the error norm: how much error each component may carry in a step.
//!
//! By default component i may carry atol + rtol max(|y_i|, |y_new_i|) (Hairer's scale). A
//! system can measure some components together or not at all ([`ErrorGroups`]):
//!
//! - a group (the two components of one velocity in a rotating frame, an object's position,
//!   energies of one ledger) shares the scale atol + rtol max(|v|, |v_new|), |v| the Euclidean
//!   length of the group's values. A velocity along a string's normal is exactly zero while the
//!   hands are still, and measured alone it would be held to atol however loose rtol is;
//! - an ignored component (a value the system imposes after each step) carries no weight, and
//!   the mean of the norm is over the counted components only.

/// How a system's components are measured in the error norm (every other component alone).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ErrorGroups {
    /// Components measured together, each by the length of the group's values.
    pub groups: Vec<Vec<usize>>,
    /// Components left out of the norm.
    pub ignored: Vec<usize>,
}

/// The per-component scales of the last trial, with the grouping they follow.
#[derive(Clone, Debug)]
pub(super) struct ErrorScale {
    atol: f64,
    rtol: f64,
    /// The groups' members.
    groups: Vec<Vec<usize>>,
    /// The components left out.
    ignored: Vec<usize>,
    /// How many components count (at least 1).
    counted: f64,
    /// Each component's scale of the last update (infinite for an ignored one).
    scales: Vec<f64>,
}

impl ErrorScale {
    /// Every component of `n` alone.
    pub(super) fn new(atol: f64, rtol: f64, n: usize) -> Self {
        Self {
            atol,
            rtol,
            groups: Vec::new(),
            ignored: Vec::new(),
            counted: n as f64,
            scales: vec![atol; n],
        }
    }

    /// Measures by `groups` (components out of range are a caller's bug and are skipped).
    pub(super) fn configure(&mut self, groups: &ErrorGroups) {
        let n = self.scales.len();
        let within = |members: &Vec<usize>| -> Vec<usize> {
            let mut inside: Vec<usize> = members.iter().copied().filter(|&i| i < n).collect();
            inside.sort_unstable();
            inside.dedup();
            inside
        };
        self.groups = groups.groups.iter().map(within).collect();
        self.ignored = within(&groups.ignored);
        self.counted = ((n - self.ignored.len()) as f64).max(1.0);
    }

    /// The scales for a trial from `y` to `y_new`.
    pub(super) fn update(&mut self, y: &[f64], y_new: &[f64]) {
        let (atol, rtol) = (self.atol, self.rtol);
        for ((scale, a), b) in self.scales.iter_mut().zip(y).zip(y_new) {
            *scale = atol + rtol * a.abs().max(b.abs());
        }
        let length =
            |v: &[f64], members: &[usize]| members.iter().map(|&i| v[i] * v[i]).sum::<f64>().sqrt();
        for members in &self.groups {
            let magnitude = length(y, members).max(length(y_new, members));
            for &i in members {
                self.scales[i] = atol + rtol * magnitude;
            }
        }
        for &i in &self.ignored {
            self.scales[i] = f64::INFINITY;
        }
    }

    /// Component i's scale of the last update: an error of this size counts 1.
    pub(super) fn of(&self, i: usize) -> f64 {
        self.scales[i]
    }

    /// The root mean square over the counted components of terms summing to `sum_of_squares`.
    pub(super) fn rms(&self, sum_of_squares: f64) -> f64 {
        (sum_of_squares / self.counted).sqrt()
    }

    /// How many components count.
    pub(super) fn counted(&self) -> f64 {
        self.counted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_is_scaled_by_its_length_and_an_ignored_component_not_at_all() {
        let mut scale = ErrorScale::new(1e-12, 1e-6, 4);
        scale.configure(&ErrorGroups {
            groups: vec![vec![0, 1]],
            ignored: vec![3],
        });
        scale.update(&[3.0, 0.0, -2.0, 5.0], &[0.0, 4.0, 1.0, 5.0]);
        // |(3, 0)| = 3, |(0, 4)| = 4: both members by 4.
        assert_eq!(scale.of(0), 1e-12 + 1e-6 * 4.0);
        assert_eq!(scale.of(1), 1e-12 + 1e-6 * 4.0);
        assert_eq!(scale.of(2), 1e-12 + 1e-6 * 2.0);
        assert_eq!(scale.of(3), f64::INFINITY);
        assert_eq!(scale.counted(), 3.0);
        assert_eq!(scale.rms(12.0), 2.0);
    }
}

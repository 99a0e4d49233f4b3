//! The accelerations from given segment tensions: Newton's law in each object's frame, the
//! string length's second derivative L'' and the axles' slip accelerations.

use crate::model::elastic::stretch_share;
use crate::model::geometry::{Kinematics, ObjectFrame};
use crate::model::params::Params;
use crate::model::tension::StickInput;

/// What fixes the string's length in the tension solve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LengthLaw {
    /// The inextensible string: L'' = 0, slip speeds from the left side.
    Inextensible,
    /// A compliant string (docs/elastic.md): its mean tension sum T_j l_j / sum l is this value,
    /// N, and slip speeds are measured against its evenly stretched material.
    MeanTension(f64),
}

/// A stick input resolved in the stick's own frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FrameInput {
    /// Normalised hand force (F^a, F^b) = F / M.
    Force(f64, f64),
    /// Prescribed acceleration (a^a, a^b).
    Accel(f64, f64),
}

impl FrameInput {
    /// `input` in the frame of a stick of mass `stick_mass` (kg): a hand force normalised by
    /// the mass, an acceleration as it is.
    pub fn in_frame(input: StickInput, frame: &ObjectFrame, stick_mass: f64) -> Self {
        match input {
            StickInput::Force(f) => {
                let (fa, fb) = frame.to_frame(f / stick_mass);
                Self::Force(fa, fb)
            }
            StickInput::Accel(a) => {
                let (aa, ab) = frame.to_frame(a);
                Self::Accel(aa, ab)
            }
        }
    }
}

/// Frame accelerations (a^alpha, a^beta) of all objects for segment tensions `tensions`.
pub fn frame_accelerations(
    params: &Params,
    kin: &Kinematics,
    sticks: &[FrameInput; 2],
    tensions: &[f64],
    out: &mut [(f64, f64)],
) {
    let n = kin.diabolos();
    let o = kin.objects();
    out[0] = stick_acceleration(params, &o[0], sticks[0], tensions[0]);
    out[n + 1] = stick_acceleration(params, &o[n + 1], sticks[1], tensions[n]);
    // 1/m once: a division per component would cost more than the rest of the loop.
    let per_mass = 1.0 / params.diabolo_mass;
    for i in 1..=n {
        out[i] = diabolo_acceleration(params, per_mass, &o[i], tensions[i - 1], tensions[i]);
    }
}

/// A stick's frame acceleration: a hand force's F^b - T / M (and gravity), or the prescribed
/// acceleration; `tension` is that of the stick's segment.
pub(super) fn stick_acceleration(
    params: &Params,
    frame: &ObjectFrame,
    input: FrameInput,
    tension: f64,
) -> (f64, f64) {
    let g = params.gravity;
    match input {
        FrameInput::Force(fa, fb) => (
            fa - g * frame.sin_phi,
            fb - tension / params.stick_mass - g * frame.cos_phi,
        ),
        FrameInput::Accel(aa, ab) => (aa, ab),
    }
}

/// A diabolo's frame acceleration between segment tensions `before` and `after`:
/// ((T_i - T_{i-1}) cos psi_i, (T_i + T_{i-1}) sin psi_i) / m - g (sin phi_i, cos phi_i), with
/// `per_mass` = 1/m.
pub(super) fn diabolo_acceleration(
    params: &Params,
    per_mass: f64,
    frame: &ObjectFrame,
    before: f64,
    after: f64,
) -> (f64, f64) {
    let g = params.gravity;
    (
        (after - before) * frame.cos_psi * per_mass - g * frame.sin_phi,
        (after + before) * frame.sin_psi * per_mass - g * frame.cos_phi,
    )
}

/// L'' for frame accelerations `acc` (note section 2-1).
pub fn length_acceleration(kin: &Kinematics, acc: &[(f64, f64)]) -> f64 {
    let n = kin.diabolos();
    let diabolos: f64 = (1..=n).map(|i| length_term(kin, i, acc[i].1)).sum();
    length_from_terms(kin, acc[0].1, acc[n + 1].1, diabolos)
}

/// Diabolo i's part of L'' / (-2) for its a^beta `beta`: a_i^b sin psi_i - u_i^a phi_i'
/// sin psi_i + u_i^b (theta_i'/2) cos psi_i.
pub(super) fn length_term(kin: &Kinematics, i: usize, beta: f64) -> f64 {
    let o = &kin.objects()[i];
    beta * o.sin_psi - o.u_alpha * o.phi_rate * o.sin_psi
        + o.u_beta * 0.5 * kin.theta_rate(i) * o.cos_psi
}

/// L'' from the sticks' a^beta (`left`, `right`) and the diabolos' summed [`length_term`]s.
pub(super) fn length_from_terms(kin: &Kinematics, left: f64, right: f64, diabolos: f64) -> f64 {
    let n = kin.diabolos();
    let o = kin.objects();
    let velocity_terms = o[0].u_alpha * o[0].phi_rate + o[n + 1].u_alpha * o[n + 1].phi_rate;
    left + right - velocity_terms - 2.0 * diabolos
}

/// d(w'_k)/dt = (T_{k-1} - T_k) / (m J) - sigma_k D w_k - (a_k^a cos psi_k - a_k^b sin psi_k +
/// sum_{j<k} l_j''): from the spin's torque term `spin_torque`, the drag term `drag` and the
/// string's feed `feed` ([`SlipFeed::next`]).
pub(super) fn slip_acceleration(spin_torque: f64, drag: f64, feed: f64) -> f64 {
    spin_torque - drag - feed
}

/// The running part of the slip accelerations along the string, sum_{j<k} l_j'' =
/// a_0^b - 2 sum_{0<j<k} a_j^b sin psi_j + sum_{j<k} l_j omega_j^2, carried from axle to axle.
pub(super) struct SlipFeed {
    running: f64,
}

impl SlipFeed {
    /// Starts at the left stick's a^beta.
    pub(super) fn new(left_beta: f64) -> Self {
        Self { running: left_beta }
    }

    /// a_k^a cos psi_k - a_k^b sin psi_k + sum_{j<k} l_j'' for diabolo k's frame acceleration
    /// `a`, then moves past it.
    pub(super) fn next(&mut self, kin: &Kinematics, k: usize, a: (f64, f64)) -> f64 {
        let o = &kin.objects()[k];
        let s = &kin.segments()[k - 1];
        self.running += s.length * s.angular_rate * s.angular_rate;
        let feed = a.0 * o.cos_psi - a.1 * o.sin_psi + self.running;
        self.running -= 2.0 * a.1 * o.sin_psi;
        feed
    }
}

/// d(w'_k)/dt of every axle (k = 1..N into `out[k - 1]`), for frame accelerations `acc`,
/// segment tensions `tensions`, spins `spins` and sides `sides` (sigma_k). On a compliant
/// string the slip's reference rho_k L' adds rho_k' L' + rho_k L''.
#[allow(clippy::too_many_arguments)]
pub fn slip_accelerations(
    params: &Params,
    kin: &Kinematics,
    acc: &[(f64, f64)],
    tensions: &[f64],
    spins: &[f64],
    sides: impl Fn(usize) -> f64,
    law: LengthLaw,
    out: &mut [f64],
) {
    let n = kin.diabolos();
    let per_spin_mass = 1.0 / (params.diabolo_mass * params.spin_inertia);
    let mut feed = SlipFeed::new(acc[0].1);
    for k in 1..=n {
        let drag = sides(k) * params.spin_drag * spins[k - 1];
        let spin_torque = (tensions[k - 1] - tensions[k]) * per_spin_mass;
        out[k - 1] = slip_acceleration(spin_torque, drag, feed.next(kin, k, acc[k]));
    }
    if let LengthLaw::MeanTension(_) = law {
        let (rate, acceleration) = (kin.total_length_rate(), length_acceleration(kin, acc));
        for (k, slip) in out.iter_mut().enumerate().take(n) {
            let (share, share_rate) = stretch_share(kin, k + 1);
            *slip += share_rate * rate + share * acceleration;
        }
    }
}

/// l_s'' of segment s for frame accelerations `acc`, m/s^2: e_s . (a_{s+1} - a_s) + l_s omega_s^2.
pub fn segment_acceleration(kin: &Kinematics, acc: &[(f64, f64)], s: usize) -> f64 {
    let o = kin.objects();
    let world = |k: usize| o[k].to_world(acc[k].0, acc[k].1);
    let segment = &kin.segments()[s];
    kin.segment_direction(s).dot(&(world(s + 1) - world(s)))
        + segment.length * segment.angular_rate * segment.angular_rate
}

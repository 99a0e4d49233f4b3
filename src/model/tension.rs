//! The rotating-frame solution for the tension (note section 2-1, docs/model.md "Tension and
//! accelerations").
//!
//! Forces are normalised by the stick mass, F^ = F / M, and taken in each stick's own frame.
//! S = sum_i (d_i + d_{i-1}) sin^2 psi_i, G = 2 / ((1 + d_N) + 2 (M/m) S), P = (F^_0^b +
//! F^_{N+1}^b) / 2 + F^_C and T_0 = M G P.

use nalgebra::{ArrayStorage, Matrix2, Matrix4, SVector, Vector2};

use super::friction::Axles;
use super::geometry::{Kinematics, ObjectFrame};
use super::params::Params;

/// What a hand does to a stick at this instant, in `D` dimensions (x-y by default; x, y, z for
/// `StickInput<3>`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StickInput<const D: usize = 2> {
    /// The hand applies this force, N. `Force(zero)` is a released stick.
    Force(SVector<f64, D>),
    /// The stick has this acceleration, m/s^2; the hand force that produces it is solved
    /// through the stick matrix B. A path-driven stick is this with the path's acceleration: for
    /// the tension solve it is infinitely heavy.
    Accel(SVector<f64, D>),
}

impl<const D: usize> StickInput<D> {
    /// A released stick: no force from the hand.
    pub const RELEASED: Self =
        Self::Force(SVector::from_array_storage(ArrayStorage([[0.0; D]; 1])));
}

/// How the stick-force solve behaves near the singular straight string, where
/// 2 - (1 + d_N) G = 2 det B tends to 0 and the force needed for a prescribed acceleration of
/// both sticks diverges (note, end of section 2-1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Regularisation {
    /// Floor the denominator 2 - (1 + d_N) G at this value (dimensionless).
    DenominatorFloor(f64),
    /// Cap the magnitude of each solved hand force at this value, N.
    ForceCap(f64),
}

impl Default for Regularisation {
    fn default() -> Self {
        Self::DenominatorFloor(1e-9)
    }
}

/// The 4x4 stick matrix B of the note: stick accelerations from normalised stick forces,
/// (a_0^a, a_0^b, a_{N+1}^a, a_{N+1}^b) = B (F^_0^a, F^_0^b, F^_{N+1}^a, F^_{N+1}^b) + C,
/// in each stick's own frame. Its alpha rows are the identity; the beta block is
/// [[1 - G/2, -G/2], [-d_N G/2, 1 - d_N G/2]].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StickMatrix {
    /// G: gear ratio (dimensionless).
    pub gear_ratio: f64,
    /// d_N: tension ratio of the last segment.
    pub last_ratio: f64,
}

impl StickMatrix {
    /// The beta block [[b00, b01], [b10, b11]].
    pub fn beta_block(&self) -> Matrix2<f64> {
        let (g, d) = (self.gear_ratio, self.last_ratio);
        Matrix2::new(1.0 - 0.5 * g, -0.5 * g, -0.5 * d * g, 1.0 - 0.5 * d * g)
    }

    /// det B = 1 - (1 + d_N) G / 2.
    pub fn determinant(&self) -> f64 {
        1.0 - 0.5 * (1.0 + self.last_ratio) * self.gear_ratio
    }

    /// B in the sticks' frames, rows and columns ordered (0^a, 0^b, N+1^a, N+1^b).
    pub fn matrix(&self) -> Matrix4<f64> {
        let b = self.beta_block();
        let mut m = Matrix4::identity();
        m[(1, 1)] = b[(0, 0)];
        m[(1, 3)] = b[(0, 1)];
        m[(3, 1)] = b[(1, 0)];
        m[(3, 3)] = b[(1, 1)];
        m
    }

    /// B^-1 by the note's closed form (beta block over 2 - (1 + d_N) G).
    pub fn inverse(&self) -> Matrix4<f64> {
        let (g, d) = (self.gear_ratio, self.last_ratio);
        let denominator = 2.0 - (1.0 + d) * g;
        let mut m = Matrix4::identity();
        m[(1, 1)] = (2.0 - d * g) / denominator;
        m[(1, 3)] = g / denominator;
        m[(3, 1)] = d * g / denominator;
        m[(3, 3)] = (2.0 - g) / denominator;
        m
    }

    /// B' = R2 B R2^-1: the same map in x-y, for stick frame angles phi_0 and phi_{N+1}.
    pub fn world_matrix(&self, phi_left: f64, phi_right: f64) -> Matrix4<f64> {
        let r = block_rotation(phi_left, phi_right);
        r * self.matrix() * r.transpose()
    }
}

/// R2(a, b): block-diagonal rotation taking frame components (alpha, beta) of each stick to x-y.
pub fn block_rotation(phi_left: f64, phi_right: f64) -> Matrix4<f64> {
    let mut r = Matrix4::zeros();
    for (offset, phi) in [(0, phi_left), (2, phi_right)] {
        let (s, c) = f64::sin_cos(phi);
        r[(offset, offset)] = c;
        r[(offset, offset + 1)] = -s;
        r[(offset + 1, offset)] = s;
        r[(offset + 1, offset + 1)] = c;
    }
    r
}

/// The tension solution of one taut instant.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TensionSolution {
    /// S = sum_i (d_i + d_{i-1}) sin^2 psi_i (dimensionless).
    pub shape_sum: f64,
    /// G: gear ratio from the sticks' beta forces to the tension (dimensionless).
    pub gear_ratio: f64,
    /// F^_C: centrifugal term, the tension per unit stick mass that the motion itself sustains
    /// (m/s^2; multiply by M for N).
    pub centrifugal_term: f64,
    /// P = (F^_0^b + F^_{N+1}^b)/2 + F^_C, m/s^2.
    pub drive: f64,
    /// T_0 = M G P: tension of segment 0, N. The string stays taut while T_0 >= 0.
    pub base_tension: f64,
    /// Normalised hand forces F^ = F / M of both sticks in their own frames (alpha, beta), m/s^2.
    pub normalised_forces: [(f64, f64); 2],
    /// Hand forces actually applied (x-y, N): given, or solved for an acceleration input.
    pub hand_forces: [Vector2<f64>; 2],
    /// Whether the stick-force solve hit the [`Regularisation`] (the sticks then do not have
    /// exactly the requested acceleration).
    pub regularised: bool,
}

/// The gear ratio and the centrifugal term the taut string's formulas give on a state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TautFormulas {
    /// G (dimensionless).
    pub gear_ratio: f64,
    /// F^_C, m/s^2.
    pub centrifugal_term: f64,
}

impl TautFormulas {
    /// Where the formulas are undefined (a configuration without string angles).
    pub const UNDEFINED: Self = Self {
        gear_ratio: f64::NAN,
        centrifugal_term: f64::NAN,
    };

    /// The G and F^_C of a tension solution.
    pub fn of(solution: &TensionSolution) -> Self {
        Self {
            gear_ratio: solution.gear_ratio,
            centrifugal_term: solution.centrifugal_term,
        }
    }
}

/// The taut formulas on the state loaded in `kin`, whether or not its string is taut: the
/// axles' friction at the diabolos' `spins` ([`Axles::update_free`]), then the tension
/// solution for the hands' forces `hand_forces` (x-y, N).
pub fn formulas_on(
    params: &Params,
    kin: &Kinematics,
    axles: &mut Axles,
    spins: &[f64],
    hand_forces: [Vector2<f64>; 2],
) -> TautFormulas {
    axles.update_free(params, kin, spins);
    let inputs = hand_forces.map(StickInput::Force);
    TautFormulas::of(&solve(params, kin, axles, &inputs, Default::default()))
}

/// S = sum_{i=1}^N (d_i + d_{i-1}) sin^2 psi_i.
pub fn shape_sum(kin: &Kinematics, ratios: &[f64]) -> f64 {
    let o = kin.objects();
    (1..=kin.diabolos())
        .map(|i| (ratios[i] + ratios[i - 1]) * o[i].sin_psi * o[i].sin_psi)
        .sum()
}

/// G = 2 / ((1 + d_N) + 2 (M/m) S).
pub fn gear_ratio(shape_sum: f64, last_ratio: f64, mass_ratio: f64) -> f64 {
    2.0 / ((1.0 + last_ratio) + 2.0 * mass_ratio * shape_sum)
}

/// F^_C = 1/2 ( -(u_0^a phi_0' + u_{N+1}^a phi_{N+1}') + 2 sum_i (u_i^a phi_i' sin psi_i
/// - u_i^b (theta_i'/2) cos psi_i) ), m/s^2.
pub fn centrifugal_term(kin: &Kinematics) -> f64 {
    let n = kin.diabolos();
    let o = kin.objects();
    let sticks = o[0].u_alpha * o[0].phi_rate + o[n + 1].u_alpha * o[n + 1].phi_rate;
    let diabolos: f64 = (1..=n)
        .map(|i| {
            o[i].u_alpha * o[i].phi_rate * o[i].sin_psi
                - o[i].u_beta * 0.5 * kin.theta_rate(i) * o[i].cos_psi
        })
        .sum();
    0.5 * (-sticks + 2.0 * diabolos)
}

/// A given hand force `f` (N) in the stick's frame, per unit stick mass: (F^a, F^b), m/s^2.
fn normalised_force(frame: &ObjectFrame, f: Vector2<f64>, stick_mass: f64) -> (f64, f64) {
    let (fa, fb) = frame.to_frame(f);
    (fa / stick_mass, fb / stick_mass)
}

/// The hand forces (N, world) for normalised frame forces.
fn hand_forces(
    frames: [&ObjectFrame; 2],
    forces: &[(f64, f64); 2],
    stick_mass: f64,
) -> [Vector2<f64>; 2] {
    [0, 1].map(|s| stick_mass * frames[s].to_world(forces[s].0, forces[s].1))
}

/// Frame components of gravity's pull on an object, -g (sin phi, cos phi).
fn gravity_in_frame(o: &ObjectFrame, g: f64) -> (f64, f64) {
    (-g * o.sin_phi, -g * o.cos_phi)
}

/// Solves the tension of a taut instant for the hands' inputs: given forces are used as they
/// are; the force for a given acceleration comes from the stick matrix B (both sticks driven:
/// B^-1 with the [`Regularisation`]; one driven: the note's closed form, never singular).
pub fn solve(
    params: &Params,
    kin: &Kinematics,
    axles: &Axles,
    inputs: &[StickInput; 2],
    regularisation: Regularisation,
) -> TensionSolution {
    let n = kin.diabolos();
    let o = kin.objects();
    let ratios = axles.tension_ratios();
    let d_n = axles.last_ratio();
    let shape_sum = shape_sum(kin, ratios);
    let gear_ratio = gear_ratio(shape_sum, d_n, params.mass_ratio());
    let centrifugal_term = centrifugal_term(kin);
    let matrix = StickMatrix {
        gear_ratio,
        last_ratio: d_n,
    };
    let frames = [&o[0], &o[n + 1]];
    let g = params.gravity;
    // C, beta rows: -g cos phi - (1, d_N) G F^_C.
    let offset = [
        gravity_in_frame(frames[0], g).1 - gear_ratio * centrifugal_term,
        gravity_in_frame(frames[1], g).1 - d_n * gear_ratio * centrifugal_term,
    ];
    let mut forces = [(0.0, 0.0); 2];
    let mut wanted_beta = [None; 2];
    for s in 0..2 {
        match inputs[s] {
            StickInput::Force(f) => forces[s] = normalised_force(frames[s], f, params.stick_mass),
            StickInput::Accel(a) => {
                let (aa, ab) = frames[s].to_frame(a);
                // alpha rows of B are the identity: F^a = a^a + g sin phi.
                forces[s].0 = aa - gravity_in_frame(frames[s], g).0;
                wanted_beta[s] = Some(ab - offset[s]);
            }
        }
    }
    let block = matrix.beta_block();
    let mut regularised = false;
    match wanted_beta {
        [Some(r0), Some(r1)] => {
            // B_bb^-1 = [[2 - d_N G, G], [d_N G, 2 - G]] / (2 - (1 + d_N) G).
            // 2 det B >= 0; on the straight string it is 0 and the force diverges.
            let floor = match regularisation {
                Regularisation::DenominatorFloor(floor) => floor,
                // Keep the direction of the divergent force; the cap then bounds its size.
                Regularisation::ForceCap(_) => 1e-300,
            };
            let mut denominator = 2.0 * matrix.determinant();
            if denominator < floor {
                denominator = floor;
                regularised = true;
            }
            forces[0].1 = ((2.0 - d_n * gear_ratio) * r0 + gear_ratio * r1) / denominator;
            forces[1].1 = (d_n * gear_ratio * r0 + (2.0 - gear_ratio) * r1) / denominator;
            if let Regularisation::ForceCap(cap) = regularisation {
                for force in forces.iter_mut() {
                    let magnitude = params.stick_mass * force.0.hypot(force.1);
                    if magnitude > cap {
                        let scale = cap / magnitude;
                        *force = (force.0 * scale, force.1 * scale);
                        regularised = true;
                    }
                }
            }
        }
        [Some(r), None] => forces[0].1 = (r - block[(0, 1)] * forces[1].1) / block[(0, 0)],
        [None, Some(r)] => forces[1].1 = (r - block[(1, 0)] * forces[0].1) / block[(1, 1)],
        [None, None] => {}
    }
    let drive = 0.5 * (forces[0].1 + forces[1].1) + centrifugal_term;
    let hand_forces = hand_forces(frames, &forces, params.stick_mass);
    TensionSolution {
        shape_sum,
        gear_ratio,
        centrifugal_term,
        drive,
        base_tension: params.stick_mass * gear_ratio * drive,
        normalised_forces: forces,
        hand_forces,
        regularised,
    }
}

/// The solution of an instant whose first tension T_0 is known (a compliant string's, from its
/// stretch: docs/elastic.md): given hand forces are used as they are, and the force for a given
/// stick acceleration is what holds it against the string's pull, F^b = a^b + T/M + g cos phi
/// (T = T_0 left, T_N right). S, G and F^_C are reported as in [`solve`]; the drive is
/// P = T_0 / (M G), so that [`accelerations`] applies T_0.
pub fn with_base_tension(
    params: &Params,
    kin: &Kinematics,
    axles: &Axles,
    inputs: &[StickInput; 2],
    base_tension: f64,
) -> TensionSolution {
    let n = kin.diabolos();
    let o = kin.objects();
    let ratios = axles.tension_ratios();
    let shape_sum = shape_sum(kin, ratios);
    let gear_ratio = gear_ratio(shape_sum, axles.last_ratio(), params.mass_ratio());
    let frames = [&o[0], &o[n + 1]];
    let pulls = [base_tension, base_tension * axles.last_ratio()];
    let forces = [0, 1].map(|s| match inputs[s] {
        StickInput::Force(f) => normalised_force(frames[s], f, params.stick_mass),
        StickInput::Accel(a) => {
            let (aa, ab) = frames[s].to_frame(a);
            let (ga, gb) = gravity_in_frame(frames[s], params.gravity);
            (aa - ga, ab + pulls[s] / params.stick_mass - gb)
        }
    });
    TensionSolution {
        shape_sum,
        gear_ratio,
        centrifugal_term: centrifugal_term(kin),
        drive: base_tension / (params.stick_mass * gear_ratio),
        base_tension,
        normalised_forces: forces,
        hand_forces: hand_forces(frames, &forces, params.stick_mass),
        regularised: false,
    }
}

/// Accelerations (a^alpha, a^beta) of every object in its own frame, m/s^2:
/// sticks a^a = F^a - g sin phi, a_0^b = F^_0^b - G P - g cos phi_0,
/// a_{N+1}^b = F^_{N+1}^b - d_N G P - g cos phi_{N+1};
/// diabolos a_i = (M/m) G P ((d_i - d_{i-1}) cos psi_i, (d_i + d_{i-1}) sin psi_i) - g (sin phi_i, cos phi_i).
pub fn accelerations(
    params: &Params,
    kin: &Kinematics,
    ratios: &[f64],
    solution: &TensionSolution,
    out: &mut [(f64, f64)],
) {
    let n = kin.diabolos();
    let o = kin.objects();
    let g = params.gravity;
    let gp = solution.gear_ratio * solution.drive;
    let per_diabolo = params.mass_ratio() * gp;
    for (s, k, ratio) in [(0, 0, 1.0), (1, n + 1, ratios[n])] {
        let (fa, fb) = solution.normalised_forces[s];
        let (ga, gb) = gravity_in_frame(&o[k], g);
        out[k] = (fa + ga, fb - ratio * gp + gb);
    }
    for i in 1..=n {
        let (ga, gb) = gravity_in_frame(&o[i], g);
        out[i] = (
            per_diabolo * (ratios[i] - ratios[i - 1]) * o[i].cos_psi + ga,
            per_diabolo * (ratios[i] + ratios[i - 1]) * o[i].sin_psi + gb,
        );
    }
}

/// Loose phase (no tension): stick accelerations (x-y, m/s^2) and the hand forces (N) that go
/// with the inputs. Diabolos fall freely (a = (0, -g)) and spins decay as w' = -D w.
pub fn loose_accelerations(
    params: &Params,
    inputs: &[StickInput; 2],
) -> [(Vector2<f64>, Vector2<f64>); 2] {
    let gravity = Vector2::new(0.0, -params.gravity);
    inputs.map(|input| match input {
        StickInput::Force(f) => (f / params.stick_mass + gravity, f),
        StickInput::Accel(a) => (a, params.stick_mass * (a - gravity)),
    })
}

//! The shooting map: the start built from the free coordinates z, the flow phi_T(z) over one
//! period, its Jacobian by central differences, and the residual Newton drives to zero.

use std::collections::BTreeMap;

use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;

use crate::model::state::close_onto_string;
use crate::model::CartesianState;
use crate::simulation::drive::Drive;
use crate::simulation::{DiaboloMode, EventKind, Row, Settings, Simulation};

use super::coordinates::Coordinates;
use super::{OrbitError, Section, AMPLITUDE_SAMPLES};

/// The search: the simulation as built, its coordinates and the orbit's settings.
pub(super) struct Shooting<'a> {
    pub(super) sim: &'a Simulation,
    pub(super) coordinates: Coordinates,
    /// The state the free coordinates are written into (path sticks from their drives).
    pub(super) base: CartesianState,
    /// Whether the orbit starts taut (the start is placed on the string).
    pub(super) taut: bool,
    /// Per diabolo: whether its axle grips the string at the start (its spin is then set to
    /// the one that does not slip).
    pub(super) grip: Vec<bool>,
    pub(super) settings: Settings,
}

/// The end of one period from z: the free coordinates, the last row (its ledger) and the events.
pub(super) struct Period {
    /// The diabolos (K) whose axles gripped at t = 0.
    pub(super) gripped_at_start: Vec<usize>,
    pub(super) end: DVector<f64>,
    pub(super) row: Row,
    pub(super) start_energy: f64,
    pub(super) events: BTreeMap<&'static str, usize>,
}

/// The settings every map evaluation runs with: the scenario's, tolerances at most 1e-12
/// (relative) and 1e-14 (absolute), no wall-clock limit.
pub(super) fn precise(settings: &Settings) -> Settings {
    let mut settings = settings.clone();
    settings.rtol = settings.rtol.min(1e-12);
    settings.atol = settings.atol.min(1e-14);
    settings.max_wall = None;
    settings
}

impl<'a> Shooting<'a> {
    /// The map of a found orbit run with the drives and parameters of `sim` (the orbit's own,
    /// or with a correction applied): the orbit's start as the base state, the sticks that a
    /// path drives placed where `sim`'s drives put them at t = 0, so that a start is closed
    /// onto the string the run begins with.
    pub(super) fn for_orbit(sim: &'a Simulation, orbit: &super::Orbit) -> Self {
        let mut base = orbit.state.clone();
        for (drive, stick) in sim.drives.iter().zip([&mut base.left, &mut base.right]) {
            if let Drive::Path(path) = drive {
                let start = path.at(0.0);
                stick.pos = start.pos;
                stick.vel = start.vel;
            }
        }
        Shooting {
            sim,
            coordinates: Coordinates::of(sim),
            base,
            taut: orbit.taut,
            grip: orbit.grip.clone(),
            settings: precise(&sim.settings),
        }
    }
}

impl Shooting<'_> {
    /// The start built from z (on the string when taut).
    pub(super) fn start(&self, z: &DVector<f64>) -> CartesianState {
        let mut state = self.base.clone();
        self.coordinates.unpack(z, &mut state);
        if self.taut {
            close_onto_string(&mut state, self.sim.params.string_length);
            if self.grip.iter().any(|&g| g) {
                let slips = |s: &CartesianState| slip_speeds(&self.sim.params, s);
                let (Some(at), Some(next)) = (slips(&state), {
                    let mut faster = state.clone();
                    faster.diabolos.iter_mut().for_each(|d| d.spin += 1.0);
                    slips(&faster)
                }) else {
                    return state;
                };
                for (k, d) in state.diabolos.iter_mut().enumerate() {
                    let per_spin = next[k] - at[k];
                    if self.grip[k] && per_spin != 0.0 {
                        d.spin -= at[k] / per_spin;
                    }
                }
            }
        }
        state
    }

    fn simulation(&self, z: &DVector<f64>, duration: f64) -> Result<Simulation, OrbitError> {
        let settings = Settings {
            duration,
            output_interval: duration,
            ..self.settings.clone()
        };
        let modes = vec![DiaboloMode::String; self.base.diabolo_count()];
        Simulation::with_modes(
            self.sim.params,
            self.sim.drives.clone(),
            self.start(z),
            modes,
            settings,
        )
        .map_err(|e| OrbitError::Setup(e.to_string()))
    }

    /// phi_T(z).
    pub(super) fn flow(&self, z: &DVector<f64>, period: f64) -> Result<Period, OrbitError> {
        let failed = |error| OrbitError::Run {
            stage: "orbit's start",
            error,
        };
        let sim = self.simulation(z, period)?;
        let mut session = sim.session();
        let start_energy = session.state().map_err(failed)?.energy;
        session.advance(period, None).map_err(failed)?;
        let row = session.state().map_err(failed)?.clone();
        let mut events = BTreeMap::new();
        let gripped_at_start = session
            .events()
            .iter()
            .filter(|e| e.kind == EventKind::Stick && e.t == 0.0)
            .filter_map(|e| e.object)
            .collect();
        for e in session.events() {
            if e.kind != EventKind::Failure {
                *events.entry(e.kind.name()).or_default() += 1;
            }
        }
        Ok(Period {
            gripped_at_start,
            end: self.coordinates.pack(&row.state),
            row,
            start_energy,
            events,
        })
    }

    /// Half the range of each coordinate over one period from z.
    pub(super) fn amplitudes(&self, z: &DVector<f64>, period: f64) -> Result<Vec<f64>, OrbitError> {
        let failed = |error| OrbitError::Run {
            stage: "orbit's start",
            error,
        };
        let sim = self.simulation(z, period)?;
        let mut session = sim.session();
        let m = z.len();
        let (mut low, mut high) = (vec![f64::INFINITY; m], vec![f64::NEG_INFINITY; m]);
        for k in 0..=AMPLITUDE_SAMPLES {
            session
                .advance(period * k as f64 / AMPLITUDE_SAMPLES as f64, None)
                .map_err(failed)?;
            let at = self
                .coordinates
                .pack(&session.state().map_err(failed)?.state);
            for (i, v) in at.iter().enumerate() {
                low[i] = low[i].min(*v);
                high[i] = high[i].max(*v);
            }
        }
        Ok(low.iter().zip(&high).map(|(a, b)| 0.5 * (b - a)).collect())
    }

    /// d phi_T / dz by central differences with step h, columns in parallel, and (autonomous)
    /// d phi_T / dT.
    pub(super) fn jacobian(
        &self,
        z: &DVector<f64>,
        period: f64,
        h: f64,
        autonomous: bool,
        pool: &rayon::ThreadPool,
    ) -> Result<(DMatrix<f64>, Option<DVector<f64>>), OrbitError> {
        let m = z.len();
        let columns: Vec<Result<DVector<f64>, OrbitError>> = pool.install(|| {
            (0..m + usize::from(autonomous))
                .into_par_iter()
                .map(|j| {
                    if j == m {
                        let plus = self.flow(z, period + h)?.end;
                        let minus = self.flow(z, period - h)?.end;
                        return Ok((plus - minus) / (2.0 * h));
                    }
                    let mut zp = z.clone();
                    zp[j] += h;
                    let mut zm = z.clone();
                    zm[j] -= h;
                    let plus = self.flow(&zp, period)?.end;
                    let minus = self.flow(&zm, period)?.end;
                    Ok((plus - minus) / (2.0 * h))
                })
                .collect()
        });
        let mut jacobian = DMatrix::zeros(m, m);
        let mut rate = None;
        for (j, column) in columns.into_iter().enumerate() {
            let column = column?;
            if j == m {
                rate = Some(column);
            } else {
                jacobian.set_column(j, &column);
            }
        }
        Ok((jacobian, rate))
    }
}

/// The slip speed of each diabolo's axle on the taut string of `state` (m/s), if its
/// geometry has string angles.
fn slip_speeds(params: &crate::model::Params, state: &CartesianState) -> Option<Vec<f64>> {
    let n = state.diabolo_count();
    let mut kinematics = crate::model::Kinematics::new(n);
    kinematics.load_cartesian(state).ok()?;
    let spins: Vec<f64> = state.diabolos.iter().map(|d| d.spin).collect();
    let mut axles = crate::model::friction::Axles::new(n);
    axles.update_free(params, &kinematics, &spins);
    Some(axles.contacts().iter().map(|c| c.slip_speed).collect())
}

/// The residual of (z, T): phi_T(z) - z, and (autonomous) z_i - c.
pub(super) fn residual(
    period_end: &DVector<f64>,
    z: &DVector<f64>,
    section: Option<Section>,
) -> DVector<f64> {
    let m = z.len();
    let mut r = DVector::zeros(m + usize::from(section.is_some()));
    r.rows_mut(0, m).copy_from(&(period_end - z));
    if let Some(s) = section {
        r[m] = z[s.index] - s.value;
    }
    r
}

pub(super) fn norm(r: &DVector<f64>) -> f64 {
    r.amax()
}

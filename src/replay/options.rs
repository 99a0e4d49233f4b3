//! What to replay and how: the options, and how the string length and the initial diabolo
//! state are estimated.

use crate::model::space::AxleValues;
use crate::model::ParamValues;

/// How the effective string length of a recording is estimated. Both estimates read only the
/// frames with the diabolo below the line of the tips ([`Recording::sums_below_the_tips`]): a
/// flying diabolo above it has a sum that grows with its height.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LengthEstimate {
    /// The 98th percentile of the string sums.
    Percentile98,
    /// The median of the taut frames' sums (taut: within 2 cm of the 98th percentile).
    MedianTaut,
    /// A given length, m.
    Fixed(f64),
}

/// What to replay and how.
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayOptions {
    /// Prediction horizons, s (multiples of 0.005 s).
    pub horizons: Vec<f64>,
    /// Time between starts, s.
    pub stride: f64,
    /// The physical parameters (the string length is replaced by the estimate).
    pub params: ParamValues,
    /// How the effective string length is estimated from the recording.
    pub length: LengthEstimate,
    /// Half-width of the smoothing window of the recorded hand paths, s.
    pub smoothing: f64,
    /// Half-width of the smoothing window of the measured diabolo (its initial position and
    /// velocity), s.
    pub diabolo_smoothing: f64,
    /// How the initial diabolo state is estimated from the frames up to the start.
    pub initial: InitialEstimate,
    /// rtol: relative tolerance of the integrator (dimensionless); atol is rtol x 1e-3.
    pub rtol: f64,
    /// A start whose string sum is within this of the length (m) is taken as taut: the sum's
    /// shortfall is marker noise and stretch, not slack.
    pub taut_band: f64,
    /// Added to the estimated string length, m (a fitted correction that carries over between
    /// recordings).
    pub length_offset: f64,
    /// The axle's values, for a recording with the 3D columns replayed by the model in space
    /// (the axle radius also converts the recorded spin: w = -r spin).
    pub axle: AxleValues,
    /// Replays a recording with the 3D columns by the planar model on its x and y (as a planar
    /// recording), instead of by the model in space.
    pub planar: bool,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        Self {
            horizons: vec![0.2, 0.5, 1.0, 2.0],
            stride: 0.25,
            params: ParamValues::default(),
            length: LengthEstimate::MedianTaut,
            smoothing: 0.025,
            diabolo_smoothing: 0.1,
            initial: InitialEstimate::Assimilated { window: 0.2 },
            rtol: 1e-7,
            taut_band: 0.0,
            length_offset: 0.0,
            axle: AxleValues::default(),
            planar: false,
        }
    }
}

/// How the initial diabolo state of a start is estimated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum InitialEstimate {
    /// Assimilation over the `window` s before the start (the simulation starts `window` s
    /// early, from the state whose simulated positions and spins best fit the frames of
    /// [start - window, start]). Causal.
    Assimilated {
        /// W: the assimilation window, s.
        window: f64,
    },
    /// A cubic fitted by least squares to the frames of [start - 2 diabolo_smoothing, start],
    /// differentiated at the start. Causal.
    PastCubic,
    /// The centred smoothing window of half-width diabolo_smoothing: it sees frames after the
    /// start, so it peeks into the horizon it is scored on (for comparison only).
    Centred,
}

impl InitialEstimate {
    /// How long before the start the simulation begins, s.
    pub fn lead(self) -> f64 {
        match self {
            Self::Assimilated { window } => window,
            Self::PastCubic | Self::Centred => 0.0,
        }
    }
}

impl std::fmt::Display for InitialEstimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Assimilated { window } => write!(f, "assimilated over the past {window} s"),
            Self::PastCubic => write!(f, "cubic fitted to past frames"),
            Self::Centred => write!(f, "centred smoothing window (sees the future)"),
        }
    }
}

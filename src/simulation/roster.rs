//! Who is on the string (docs/flight.md): each diabolo K (its index in the scenario, 1..N, fixed
//! for the run) is on the string in a slot, flying, or dropped on the floor. The string's
//! objects are the left stick, the diabolos in slot order, the right stick: the string phases
//! run over those only, and a diabolo off the string follows its closed-form free motion.

use crate::model::{CartesianState, FreeKind, FreeMotion, Params};

/// Where a diabolo is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiaboloMode {
    /// On the string, in a slot.
    String,
    /// Off the string, in free flight.
    Flying,
    /// At rest on the floor, for the rest of the run.
    Dropped,
}

impl DiaboloMode {
    /// The mode's name in the output (`string`, `flying`, `dropped`).
    pub fn name(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Flying => "flying",
            Self::Dropped => "dropped",
        }
    }
}

/// What one diabolo did off the string over a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlightRecord {
    /// Times it left the string.
    pub leaves: usize,
    /// Times it landed on the string.
    pub landings: usize,
    /// Time spent flying, s.
    pub airtime: f64,
    /// The highest centre height reached while flying, m (minus infinity if it never flew).
    pub highest_flight: f64,
    /// Whether it ended on the floor.
    pub dropped: bool,
}

impl Default for FlightRecord {
    fn default() -> Self {
        Self {
            leaves: 0,
            landings: 0,
            airtime: 0.0,
            highest_flight: f64::NEG_INFINITY,
            dropped: false,
        }
    }
}

/// The diabolos' modes and slots, and the motion of those off the string.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Roster {
    /// The diabolo K (1..N) in each slot, left to right.
    slots: Vec<usize>,
    /// The free motion of each diabolo off the string (index K - 1), `None` on the string.
    free: Vec<Option<FreeMotion>>,
    /// What each diabolo did off the string (index K - 1).
    records: Vec<FlightRecord>,
    /// Spin-drag loss of the free motions that have ended, J.
    closed_drag: f64,
    /// The pairs in resting contact, in the run's numbering (0 the left stick, 1..N a diabolo,
    /// N + 1 the right stick), each sorted.
    resting: Vec<[usize; 2]>,
}

impl Roster {
    /// Every diabolo with mode `String` on the string in index order; the others off it, not
    /// yet moving (see [`Roster::start`]).
    pub fn new(modes: &[DiaboloMode]) -> Self {
        Self {
            slots: (1..=modes.len())
                .filter(|&k| modes[k - 1] == DiaboloMode::String)
                .collect(),
            free: vec![None; modes.len()],
            records: vec![FlightRecord::default(); modes.len()],
            closed_drag: 0.0,
            resting: Vec::new(),
        }
    }

    /// The string's object (0 the left stick, 1..n a slot, n + 1 the right stick) of the run's
    /// object `object`, if it is on the string.
    pub fn string_object(&self, object: usize) -> Option<usize> {
        match object {
            0 => Some(0),
            o if o == self.diabolos() + 1 => Some(self.on_string() + 1),
            k => self.slot_of(k),
        }
    }

    /// The segment joining the run's objects `pair` on the string, if they are neighbours
    /// there.
    pub fn segment_between(&self, pair: [usize; 2]) -> Option<usize> {
        let (a, b) = (self.string_object(pair[0])?, self.string_object(pair[1])?);
        (a.abs_diff(b) == 1).then(|| a.min(b))
    }

    /// The pairs in resting contact.
    pub fn resting(&self) -> &[[usize; 2]] {
        &self.resting
    }

    /// The segments of the string across which a contact rests, in the order of
    /// [`Roster::resting`] (pairs that are not string neighbours are left out).
    pub fn resting_segments(&self) -> Vec<usize> {
        self.resting
            .iter()
            .filter_map(|&pair| self.segment_between(pair))
            .collect()
    }

    /// The pair comes to rest in contact.
    pub fn rest(&mut self, mut pair: [usize; 2]) {
        pair.sort_unstable();
        if !self.resting.contains(&pair) {
            self.resting.push(pair);
        }
    }

    /// The pair separates (no longer resting).
    pub fn release(&mut self, mut pair: [usize; 2]) {
        pair.sort_unstable();
        self.resting.retain(|p| *p != pair);
    }

    /// The roster at t = 0: the flying diabolos start their flights from `initial`.
    pub fn start(modes: &[DiaboloMode], initial: &CartesianState) -> Self {
        let mut roster = Self::new(modes);
        for (k, mode) in modes.iter().enumerate() {
            if *mode == DiaboloMode::Flying {
                roster.free[k] = Some(FreeMotion::flying(0.0, initial.diabolos[k]));
            }
        }
        roster
    }

    /// Number of diabolos on the string, n.
    pub fn on_string(&self) -> usize {
        self.slots.len()
    }

    /// Number of diabolos in the run, N.
    pub fn diabolos(&self) -> usize {
        self.free.len()
    }

    /// The diabolo K in `slot` (1..n).
    pub fn diabolo_in(&self, slot: usize) -> usize {
        self.slots[slot - 1]
    }

    /// The run's object number of the string's object `object` (0 the left stick, 1..n the
    /// slots, n + 1 the right stick): 0, K, or N + 1.
    pub fn object_of(&self, object: usize) -> usize {
        match object {
            0 => 0,
            o if o == self.on_string() + 1 => self.diabolos() + 1,
            slot => self.diabolo_in(slot),
        }
    }

    /// The slot (1..n) of diabolo K, if it is on the string.
    pub fn slot_of(&self, k: usize) -> Option<usize> {
        self.slots.iter().position(|&j| j == k).map(|i| i + 1)
    }

    /// The mode of diabolo K.
    pub fn mode(&self, k: usize) -> DiaboloMode {
        match &self.free[k - 1] {
            None => DiaboloMode::String,
            Some(motion) if motion.kind == FreeKind::Flying => DiaboloMode::Flying,
            Some(_) => DiaboloMode::Dropped,
        }
    }

    /// The free motion of diabolo K, if it is off the string.
    pub fn motion(&self, k: usize) -> Option<&FreeMotion> {
        self.free[k - 1].as_ref()
    }

    /// The flying diabolos' K, in index order.
    pub fn flying(&self) -> impl Iterator<Item = usize> + '_ {
        (1..=self.diabolos()).filter(|&k| self.mode(k) == DiaboloMode::Flying)
    }

    /// The string's state from a state of every diabolo: the sticks and the on-string diabolos
    /// in slot order.
    pub fn string_state(&self, full: &CartesianState) -> CartesianState {
        CartesianState {
            left: full.left,
            right: full.right,
            diabolos: self.slots.iter().map(|&k| full.diabolos[k - 1]).collect(),
        }
    }

    /// Fills `full` with every diabolo at time t: the on-string ones from the string's state
    /// (slot order), the others from their free motion.
    pub fn fill_state(
        &self,
        params: &Params,
        t: f64,
        string: &CartesianState,
        full: &mut CartesianState,
    ) {
        full.left = string.left;
        full.right = string.right;
        full.diabolos.resize(self.diabolos(), Default::default());
        for (slot, &k) in self.slots.iter().enumerate() {
            full.diabolos[k - 1] = string.diabolos[slot];
        }
        for (k, motion) in self.free.iter().enumerate() {
            if let Some(motion) = motion {
                full.diabolos[k] = motion.at(params, t);
            }
        }
    }

    /// Diabolo K in `slot` leaves the string at t from `state` (its own state there).
    pub fn leave(&mut self, k: usize, t: f64, state: crate::model::DiaboloState) {
        if let Some(slot) = self.slot_of(k) {
            self.slots.remove(slot - 1);
        }
        self.free[k - 1] = Some(FreeMotion::flying(t, state));
        self.records[k - 1].leaves += 1;
    }

    /// Flying diabolo K lands at t and takes `slot` (1..n + 1; the diabolos from that slot on
    /// move one slot right).
    pub fn land(&mut self, params: &Params, k: usize, t: f64, slot: usize) {
        self.end_motion(params, k, t);
        self.free[k - 1] = None;
        self.slots.insert(slot - 1, k);
        self.records[k - 1].landings += 1;
    }

    /// Flying diabolo K reaches the floor at t: it rests with its centre at `rest_height`.
    pub fn drop(&mut self, params: &Params, k: usize, t: f64, rest_height: f64) {
        let state = self.free[k - 1]
            .map(|m| m.at(params, t))
            .unwrap_or_default();
        self.end_motion(params, k, t);
        let mut pos = state.pos;
        pos.y = rest_height;
        self.free[k - 1] = Some(FreeMotion::resting(t, pos, state.spin));
        self.records[k - 1].dropped = true;
    }

    /// Closes the free motion of diabolo K at t: its drag loss, airtime and apex recorded.
    fn end_motion(&mut self, params: &Params, k: usize, t: f64) {
        if let Some(motion) = self.free[k - 1] {
            self.closed_drag += motion.drag_loss(params, t);
            if motion.kind == FreeKind::Flying {
                let record = &mut self.records[k - 1];
                record.airtime += t - motion.t0;
                record.highest_flight = record.highest_flight.max(motion.highest(params, t));
            }
        }
    }

    /// Replaces the velocity of free diabolo K at t (after an impact): its flight restarts
    /// from its state there.
    pub fn kick(&mut self, params: &Params, k: usize, t: f64, state: crate::model::DiaboloState) {
        if let Some(motion) = self.free[k - 1] {
            // The flight goes on: its airtime and drag so far are counted here.
            self.end_motion(params, k, t);
            self.free[k - 1] = Some(FreeMotion {
                t0: t,
                start: crate::model::DiaboloState { knot: 0, ..state },
                ..motion
            });
        }
    }

    /// The spin-drag loss off the string from the start to t, J.
    pub fn drag_loss(&self, params: &Params, t: f64) -> f64 {
        self.closed_drag
            + self
                .free
                .iter()
                .flatten()
                .map(|m| m.drag_loss(params, t))
                .sum::<f64>()
    }

    /// What each diabolo did off the string up to t (index order).
    pub fn records(&self, params: &Params, t: f64) -> Vec<FlightRecord> {
        let mut records = self.records.clone();
        for (record, motion) in records.iter_mut().zip(&self.free) {
            if let Some(motion) = motion.filter(|m| m.kind == FreeKind::Flying) {
                record.airtime += t - motion.t0;
                record.highest_flight = record.highest_flight.max(motion.highest(params, t));
            }
        }
        records
    }
}

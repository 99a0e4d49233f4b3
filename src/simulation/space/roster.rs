//! Who is on the string in space (docs/space.md, "Flight in space"): each diabolo K (1..N, its
//! index in the scenario) is on the string in a slot, flying or dropped on the floor, as in the
//! plane (docs/flight.md). The string's objects are the left stick, the diabolos in slot order
//! and the right stick; the state vector keeps every diabolo at its index K, and a diabolo off
//! the string is integrated by its free equations.

use crate::simulation::roster::FlightRecord;
use crate::simulation::DiaboloMode;

/// Where a flight began: its centre's height climbs as y0 + vy0 tau - g tau^2 / 2 (free flight
/// is exact on a parabola), so its highest point is known in closed form.
#[derive(Clone, Copy, Debug, PartialEq)]
struct TakeOff {
    /// s.
    t0: f64,
    /// m.
    y0: f64,
    /// m/s.
    vy0: f64,
}

impl TakeOff {
    /// The highest centre height between t0 and t, m.
    fn highest(&self, gravity: f64, t: f64) -> f64 {
        let tau = (t - self.t0).max(0.0);
        let at = |s: f64| self.y0 + self.vy0 * s - 0.5 * gravity * s * s;
        let apex = if gravity > 0.0 {
            self.vy0 / gravity
        } else {
            -1.0
        };
        let mut best = self.y0.max(at(tau));
        if apex > 0.0 && apex < tau {
            best = best.max(at(apex));
        }
        best
    }
}

/// The diabolos' modes and slots, and what each did off the string.
#[derive(Clone, Debug, PartialEq)]
pub struct SpaceRoster {
    /// The diabolo K in each slot, left to right.
    slots: Vec<usize>,
    /// Each diabolo's mode (index K - 1).
    modes: Vec<DiaboloMode>,
    /// What each diabolo did off the string (index K - 1).
    records: Vec<FlightRecord>,
    /// Each flying diabolo's current flight: when it began (s), its height (m) and vertical
    /// velocity (m/s) then (index K - 1).
    took_off: Vec<Option<TakeOff>>,
    /// Each diabolo's slot (0 off the string), index K - 1: what a row shows.
    slot_of: Vec<usize>,
    /// g, m/s^2.
    gravity: f64,
}

impl SpaceRoster {
    /// The diabolos in `modes` (index order): those on the string take their slots in index
    /// order, the flying ones start their flights at t = 0 from their centres' heights and
    /// vertical velocities `starts` (m, m/s); none may start dropped (the scenario refuses it).
    pub fn new(modes: &[DiaboloMode], starts: &[(f64, f64)], gravity: f64) -> Self {
        let slots: Vec<usize> = (1..=modes.len())
            .filter(|&k| modes[k - 1] == DiaboloMode::String)
            .collect();
        let mut roster = Self {
            slots,
            modes: modes.to_vec(),
            records: vec![FlightRecord::default(); modes.len()],
            took_off: modes
                .iter()
                .zip(starts)
                .map(|(m, &(y0, vy0))| {
                    (*m == DiaboloMode::Flying).then_some(TakeOff { t0: 0.0, y0, vy0 })
                })
                .collect(),
            slot_of: vec![0; modes.len()],
            gravity,
        };
        roster.number_slots();
        roster
    }

    fn number_slots(&mut self) {
        self.slot_of.iter_mut().for_each(|s| *s = 0);
        for (i, &k) in self.slots.iter().enumerate() {
            self.slot_of[k - 1] = i + 1;
        }
    }

    /// The diabolos K in slot order.
    pub fn slots(&self) -> &[usize] {
        &self.slots
    }

    /// n: how many diabolos are on the string.
    pub fn on_string(&self) -> usize {
        self.slots.len()
    }

    /// N: how many diabolos the run has.
    pub fn diabolos(&self) -> usize {
        self.modes.len()
    }

    /// The diabolo K in slot `slot` (1..n).
    pub fn diabolo_in(&self, slot: usize) -> usize {
        self.slots[slot - 1]
    }

    /// Each diabolo's mode, index K - 1.
    pub fn modes(&self) -> &[DiaboloMode] {
        &self.modes
    }

    /// Each diabolo's slot (0 off the string), index K - 1.
    pub fn slot_numbers(&self) -> &[usize] {
        &self.slot_of
    }

    /// The diabolo in `slot` leaves the string at t with its centre at height `y` (m) rising at
    /// `vy` (m/s): it flies. Returns its K.
    pub fn leave(&mut self, slot: usize, t: f64, y: f64, vy: f64) -> usize {
        let k = self.slots.remove(slot - 1);
        self.modes[k - 1] = DiaboloMode::Flying;
        self.records[k - 1].leaves += 1;
        self.took_off[k - 1] = Some(TakeOff {
            t0: t,
            y0: y,
            vy0: vy,
        });
        self.number_slots();
        k
    }

    /// Diabolo K lands at t in slot `slot` (between the string's objects slot - 1 and slot).
    pub fn land(&mut self, k: usize, slot: usize, t: f64) {
        self.end_flight(k, t);
        self.slots.insert(slot - 1, k);
        self.modes[k - 1] = DiaboloMode::String;
        self.records[k - 1].landings += 1;
        self.number_slots();
    }

    /// Flying diabolo K reaches the floor at t and stays there.
    pub fn drop(&mut self, k: usize, t: f64) {
        self.end_flight(k, t);
        self.modes[k - 1] = DiaboloMode::Dropped;
        self.records[k - 1].dropped = true;
    }

    fn end_flight(&mut self, k: usize, t: f64) {
        if let Some(flight) = self.took_off[k - 1].take() {
            close(&mut self.records[k - 1], &flight, self.gravity, t);
        }
    }

    /// What each diabolo did off the string up to t (index K - 1; a flight under way counts
    /// to t).
    pub fn records(&self, t: f64) -> Vec<FlightRecord> {
        let mut records = self.records.clone();
        for (record, flight) in records.iter_mut().zip(&self.took_off) {
            if let Some(flight) = flight {
                close(record, flight, self.gravity, t);
            }
        }
        records
    }
}

/// Takes a flight that ends at t into its diabolo's record.
fn close(record: &mut FlightRecord, flight: &TakeOff, gravity: f64, t: f64) {
    record.airtime += t - flight.t0;
    record.highest_flight = record.highest_flight.max(flight.highest(gravity, t));
}

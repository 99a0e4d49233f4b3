//! The simulator in a browser (issue 35, first part): the core crate compiled to WebAssembly,
//! a scenario loaded from its JSON text, stepped in real time, the hands set from the pointer.
//! [`Player`] is plain Rust (tested natively); [`Diabolo`] is its JavaScript face
//! (`window.diabolo` on the page wraps it).

use std::path::Path;

use diabolo::output::{event_json, TrajectoryWriter};
use diabolo::scenario::Scenario;
use diabolo::simulation::drive::{Drive, Path as HandPath, Polyline, Tracking};
use diabolo::{Row, Session, Simulation};
use nalgebra::Vector2;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

/// The hand that follows the pointer: a spring toward it, N/m, N s/m and N (a firm hand
/// that cannot pull harder than 60 N).
const POINTER_HAND: Tracking = Tracking {
    stiffness: 800.0,
    damping: 60.0,
    max_force: 60.0,
};

/// A loaded scenario, stepped, with the trajectory CSV of what was played.
pub struct Player {
    simulation: Simulation,
    session: Session<'static>,
    /// The command line's trajectory CSV of the rows passed so far.
    trajectory: TrajectoryWriter<Vec<u8>>,
    /// The last row passed: the state shown once the run has failed (the trajectory so far
    /// ends there, as the command line's does).
    last_row: Row,
}

impl Player {
    /// Loads a scenario from its JSON text: the command line's validation, the same messages.
    pub fn load(text: &str) -> Result<Self, String> {
        let scenario = Scenario::parse(text, &[]).map_err(|e| e.to_string())?;
        if scenario.sim.space.unwrap_or(false) {
            return Err("sim.space = true: the page plays scenarios in the plane".into());
        }
        let simulation = scenario.build(Path::new(".")).map_err(|e| e.to_string())?;
        let session = simulation.session();
        let trajectory =
            TrajectoryWriter::new(Vec::new(), &simulation).map_err(|e| e.to_string())?;
        Ok(Self {
            simulation,
            session,
            trajectory,
            last_row: Row::default(),
        })
    }

    /// Advances by `seconds` (s) of simulated time, at most to the scenario's duration; a run
    /// failure is the message.
    pub fn step(&mut self, seconds: f64) -> Result<(), String> {
        let until = self.session.time() + seconds.max(0.0);
        self.advance(until, usize::MAX).map(|_| ())
    }

    /// Advances toward `until` (s) taking at most `max_steps` integration steps, and returns
    /// the time reached: the page's frame budget (a frame asks for a few steps at a time and
    /// stops when its time is spent, so nothing the pointer does can freeze it).
    pub fn advance(&mut self, until: f64, max_steps: usize) -> Result<f64, String> {
        let Self {
            session,
            trajectory,
            last_row,
            ..
        } = self;
        let mut written = Ok(());
        let mut on_row = |row: &Row| {
            last_row.clone_from(row);
            if written.is_ok() {
                written = trajectory.write_row(row);
            }
        };
        let reached = session
            .advance_steps(until, max_steps, Some(&mut on_row))
            .map_err(|e| e.to_string())?;
        written.map_err(|e| e.to_string())?;
        Ok(reached)
    }

    /// The state now: t, the phase of the string and its slack (L - sum l, m), the diabolos
    /// (x, y, vx, vy, spin, mode, slot), the sticks (x, y) and the segments' tensions; once
    /// the run has failed, the last row of its trajectory with `"failed": true`.
    pub fn state(&mut self) -> Result<Value, String> {
        let failed = self.session.failure().is_some();
        let row = if failed {
            &self.last_row
        } else {
            self.session.state().map_err(|e| e.to_string())?
        };
        let s = &row.state;
        let diabolos: Vec<Value> = s
            .diabolos
            .iter()
            .zip(&row.modes)
            .zip(&row.slots)
            .map(|((d, mode), slot)| {
                json!({"x": d.pos.x, "y": d.pos.y, "vx": d.vel.x, "vy": d.vel.y,
                       "spin": d.spin, "mode": mode.name(), "slot": slot})
            })
            .collect();
        Ok(json!({
            "t": row.t,
            "phase": row.phase.map(|p| p.name()),
            "slack": row.slack,
            "diabolos": diabolos,
            "sticks": [{"x": s.left.pos.x, "y": s.left.pos.y},
                       {"x": s.right.pos.x, "y": s.right.pos.y}],
            "tensions": row.tensions,
            "failed": failed,
        }))
    }

    /// What the drawing needs once: the string's length L and the diabolos' radius R (m),
    /// the floor's height (m; null where the scenario has no floor) and the scenario's
    /// duration (s).
    pub fn geometry(&self) -> Value {
        let p = &self.simulation.params;
        let settings = &self.simulation.settings;
        json!({
            "string_length": p.string_length,
            "diabolo_radius": p.diabolo_radius,
            "floor": settings.floor,
            "duration": settings.duration,
        })
    }

    /// Hand `side` (0 left, 1 right) pulls its stick toward (x, y), m, from now on.
    pub fn set_hand(&mut self, side: usize, x: f64, y: f64) -> Result<(), String> {
        if side > 1 || !(x.is_finite() && y.is_finite()) {
            return Err(format!(
                "setHand({side}, {x}, {y}): side 0 or 1, a finite point"
            ));
        }
        let t = self.session.time();
        let point = Vector2::new(x, y);
        let still = Polyline::new(vec![(t, point), (t + 1.0, point)]).map_err(|e| e.to_string())?;
        self.session
            .set_drive(side, Drive::Tracking(HandPath::Linear(still), POINTER_HAND))
            .map_err(|e| e.to_string())
    }

    /// The events so far, as the command line's event log writes them.
    pub fn events(&self) -> Value {
        self.events_from(0)
    }

    /// The events from the `start`-th on (0-based): what a frame shows that it has not shown
    /// yet, without the whole log each frame.
    pub fn events_from(&self, start: usize) -> Value {
        let events = self.session.events();
        let new = &events[start.min(events.len())..];
        Value::Array(new.iter().map(event_json).collect())
    }

    /// The trajectory CSV of what was played so far: the command line's columns and number
    /// format, the rows at the scenario's output interval (`diabolo plot` draws it).
    pub fn trajectory(&self) -> String {
        // The writer writes UTF-8 only.
        String::from_utf8_lossy(self.trajectory.get_ref()).into_owned()
    }

    /// Whether the run has reached its duration or failed.
    pub fn finished(&self) -> bool {
        self.session.finished()
    }

    /// The scenario's duration, s.
    pub fn duration(&self) -> f64 {
        self.simulation.settings.duration
    }
}

/// The simulator for JavaScript: `new Diabolo(jsonText)`, `step(seconds)`,
/// `advance(until, maxSteps)`, `state()` and `geometry()` and `events()` (JSON text),
/// `setHand(side, x, y)`, `trajectory()` (CSV text).
#[wasm_bindgen]
pub struct Diabolo(Player);

/// A message for JavaScript (thrown as an `Error`).
fn thrown(message: String) -> JsError {
    JsError::new(&message)
}

#[wasm_bindgen]
impl Diabolo {
    /// Loads a scenario; a bad one throws the command line's message.
    #[wasm_bindgen(constructor)]
    pub fn new(text: &str) -> Result<Diabolo, JsError> {
        Player::load(text).map(Diabolo).map_err(thrown)
    }

    /// Advances `seconds` of simulated time.
    pub fn step(&mut self, seconds: f64) -> Result<(), JsError> {
        self.0.step(seconds).map_err(thrown)
    }

    /// Advances toward `until` (s) in at most `max_steps` steps; the time reached.
    pub fn advance(&mut self, until: f64, max_steps: usize) -> Result<f64, JsError> {
        self.0.advance(until, max_steps).map_err(thrown)
    }

    /// The state now as JSON text.
    pub fn state(&mut self) -> Result<String, JsError> {
        self.0.state().map(|v| v.to_string()).map_err(thrown)
    }

    /// L, R, the floor and the duration as JSON text.
    pub fn geometry(&self) -> String {
        self.0.geometry().to_string()
    }

    /// Hand `side` (0 left, 1 right) pulls its stick toward (x, y).
    #[wasm_bindgen(js_name = setHand)]
    pub fn set_hand(&mut self, side: usize, x: f64, y: f64) -> Result<(), JsError> {
        self.0.set_hand(side, x, y).map_err(thrown)
    }

    /// The events so far as JSON text.
    pub fn events(&self) -> String {
        self.0.events().to_string()
    }

    /// The events from the `start`-th on as JSON text.
    #[wasm_bindgen(js_name = eventsFrom)]
    pub fn events_from(&self, start: usize) -> String {
        self.0.events_from(start).to_string()
    }

    /// The trajectory CSV of what was played so far.
    pub fn trajectory(&self) -> String {
        self.0.trajectory()
    }

    /// Whether the run has reached its duration or failed.
    pub fn finished(&self) -> bool {
        self.0.finished()
    }

    /// The scenario's duration, s.
    pub fn duration(&self) -> f64 {
        self.0.duration()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped(name: &str) -> String {
        std::fs::read_to_string(format!(
            "{}/../scenarios/{name}.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    // The page's player steps a shipped scenario in frames of 1/60 s to the very state the
    // library's own run reaches (the same session, the same steps).
    #[test]
    fn frames_of_a_shipped_scenario_reach_the_librarys_state() {
        let text = shipped("whip");
        let mut player = Player::load(&text).unwrap();
        for _ in 0..60 {
            player.step(1.0 / 60.0).unwrap();
        }
        let state = player.state().unwrap();
        let simulation = Scenario::parse(&text, &[])
            .unwrap()
            .build(Path::new("."))
            .unwrap();
        let mut session = simulation.session();
        session.advance(player.session.time(), None).unwrap();
        let row = session.state().unwrap();
        let d = &row.state.diabolos[0];
        assert!((state["diabolos"][0]["x"].as_f64().unwrap() - d.pos.x).abs() < 1e-9);
        assert!((state["diabolos"][0]["y"].as_f64().unwrap() - d.pos.y).abs() < 1e-9);
    }

    // A bad scenario is refused with the command line's message, the field named.
    #[test]
    fn a_bad_scenario_names_its_field() {
        let mut doc: Value = serde_json::from_str(&shipped("hanging")).unwrap();
        doc["params"]["string_length"] = json!(-1.0);
        let error = Player::load(&doc.to_string()).err().unwrap();
        assert!(error.contains("params.string_length"), "{error}");
        assert!(error.contains("string_length"), "{error}");
    }

    /// The kinds of the events so far, slips and grips left out.
    fn kinds(player: &Player) -> Vec<String> {
        let events = player.events();
        let kinds = events.as_array().unwrap().iter();
        kinds
            .map(|e| e["kind"].as_str().unwrap().to_string())
            .filter(|k| !matches!(k.as_str(), "slip_reversal" | "stick" | "unstick"))
            .collect()
    }

    // The hands, as two pointers would move them frame by frame, throw the hanging diabolo
    // (both pulled 0.3 m apart and 0.4 m up in 0.1 s), follow it while it flies and hold still
    // once it has landed: it leaves the string, rises as a body thrown from where it left
    // (y + vy^2 / 2g, to the millimetre), lands on the string and stays on it.
    #[test]
    fn the_pointers_hands_throw_the_diabolo_and_catch_it() {
        let mut doc: Value = serde_json::from_str(&shipped("hanging")).unwrap();
        doc["sim"]["duration"] = json!(4.0);
        doc["initial"]["diabolos"][0]["spin"] = json!(1.0);
        let mut player = Player::load(&doc.to_string()).unwrap();
        let (mut apex, mut left_at) = (f64::MIN, None);
        for frame in 0..240 {
            let s = player.state().unwrap();
            let d = &s["diabolos"][0];
            let (x, y) = (d["x"].as_f64().unwrap(), d["y"].as_f64().unwrap());
            let flying = d["mode"] == "flying";
            if flying && left_at.is_none() {
                left_at = Some((y, d["vy"].as_f64().unwrap()));
            }
            apex = apex.max(y);
            let landed = kinds(&player).iter().any(|k| k == "land");
            let (centre, spread, height) = match frame {
                0..30 => (0.0, 0.4, 1.5),
                30..36 => {
                    let a = (frame - 29) as f64 / 6.0;
                    (0.0, 0.4 + 0.3 * a, 1.5 + 0.4 * a)
                }
                _ if flying && !landed && frame > 56 => (x, 0.3, 1.3),
                _ => {
                    let sticks = &s["sticks"];
                    let l = sticks[0]["x"].as_f64().unwrap();
                    let r = sticks[1]["x"].as_f64().unwrap();
                    ((l + r) / 2.0, 0.3, 1.3)
                }
            };
            player.set_hand(0, centre - spread, height).unwrap();
            player.set_hand(1, centre + spread, height).unwrap();
            player.step(1.0 / 60.0).unwrap();
        }
        let kinds = kinds(&player);
        let leave = kinds.iter().position(|k| k == "leave").expect("it leaves");
        let land = kinds.iter().position(|k| k == "land").expect("it lands");
        assert!(leave < land, "{kinds:?}");
        let (y0, vy0) = left_at.unwrap();
        let ballistic = y0 + vy0 * vy0 / (2.0 * 9.81);
        // The apex is sampled at 60 Hz: within vy^2/2g of the top at 1/60 s, under 1.4 mm.
        assert!(
            apex <= ballistic + 1e-9 && ballistic - apex < 1.4e-3,
            "{apex} {ballistic}"
        );
        assert!(apex > 2.2, "thrown to {apex} m");
        assert_eq!(player.state().unwrap()["diabolos"][0]["mode"], "string");
    }

    // The trajectory of what was played is the command line's CSV: the rows of the whole
    // run, written as `diabolo run` writes them (the library's writer over the run's rows).
    #[test]
    fn the_played_trajectory_is_the_runs_csv() {
        let text = shipped("two_side_by_side");
        let mut player = Player::load(&text).unwrap();
        while !player.finished() {
            player
                .advance(player.session.time() + 1.0 / 60.0, 4)
                .unwrap();
        }
        let simulation = Scenario::parse(&text, &[])
            .unwrap()
            .build(Path::new("."))
            .unwrap();
        let mut writer = TrajectoryWriter::new(Vec::new(), &simulation).unwrap();
        simulation.run(&mut |row| writer.write_row(row).unwrap());
        let csv = String::from_utf8(writer.into_inner()).unwrap();
        assert_eq!(player.trajectory(), csv);
        assert!(csv.lines().count() > 250);
    }

    // The events a frame has not shown yet are the log's tail.
    #[test]
    fn the_events_from_a_point_are_the_logs_tail() {
        let mut player = Player::load(&shipped("whip")).unwrap();
        player.step(3.0).unwrap();
        let all = player.events();
        let all = all.as_array().unwrap();
        assert!(all.len() > 4);
        assert_eq!(player.events_from(3).as_array().unwrap()[..], all[3..]);
        assert!(player
            .events_from(all.len() + 5)
            .as_array()
            .unwrap()
            .is_empty());
    }

    // A failed run still shows where it stopped: the last row of its trajectory.
    #[test]
    fn a_failed_run_shows_the_last_row_of_its_trajectory() {
        let mut doc: Value = serde_json::from_str(&shipped("four_side_by_side")).unwrap();
        let apart: Vec<Value> = [-0.3, -0.1, 0.1, 0.3]
            .iter()
            .map(|x| json!({"x": x}))
            .collect();
        doc["initial"]["diabolos"] = json!(apart);
        let mut player = Player::load(&doc.to_string()).unwrap();
        let error = player.step(1.0).unwrap_err();
        assert!(error.contains("press into each other"), "{error}");
        let state = player.state().unwrap();
        assert_eq!(state["failed"], true);
        let last = player.trajectory().lines().last().unwrap().to_string();
        let t: f64 = last.split(',').next().unwrap().parse().unwrap();
        assert_eq!(state["t"].as_f64().unwrap(), t);
        assert!(t > 0.3 && t < 0.34, "{t}");
    }

    // The pointer's hand pulls the stick toward the pointer.
    #[test]
    fn the_pointer_moves_a_stick() {
        let mut player = Player::load(&shipped("hanging")).unwrap();
        let before = player.state().unwrap()["sticks"][1]["x"].as_f64().unwrap();
        player.set_hand(1, before + 0.1, 1.3).unwrap();
        player.step(0.5).unwrap();
        let after = player.state().unwrap()["sticks"][1]["x"].as_f64().unwrap();
        assert!(after > before + 0.05, "{before} -> {after}");
    }
}

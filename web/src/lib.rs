//! The simulator in a browser (issue 35, first part): the core crate compiled to WebAssembly,
//! a scenario loaded from its JSON text, stepped in real time, the hands set from the pointer.
//! [`Player`] is plain Rust (tested natively); [`Diabolo`] is its JavaScript face
//! (`window.diabolo` on the page wraps it).

use std::path::Path;

use diabolo::output::event_json;
use diabolo::scenario::Scenario;
use diabolo::simulation::drive::{Drive, Path as HandPath, Polyline, Tracking};
use diabolo::{Session, Simulation};
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

/// A loaded scenario, stepped.
pub struct Player {
    simulation: Simulation,
    session: Session<'static>,
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
        Ok(Self {
            simulation,
            session,
        })
    }

    /// Advances by `seconds` (s) of simulated time, at most to the scenario's duration; a run
    /// failure is the message.
    pub fn step(&mut self, seconds: f64) -> Result<(), String> {
        let until = (self.session.time() + seconds.max(0.0)).min(self.simulation.settings.duration);
        self.session
            .advance(until, None)
            .map_err(|e| e.to_string())
            .map(|_| ())
    }

    /// The state now: t, the diabolos (x, y, vx, vy, spin, mode) and the sticks (x, y).
    pub fn state(&mut self) -> Result<Value, String> {
        let row = self.session.state().map_err(|e| e.to_string())?;
        let s = &row.state;
        let diabolos: Vec<Value> = s
            .diabolos
            .iter()
            .zip(&row.modes)
            .map(|(d, mode)| {
                json!({"x": d.pos.x, "y": d.pos.y, "vx": d.vel.x, "vy": d.vel.y,
                       "spin": d.spin, "mode": mode.name()})
            })
            .collect();
        Ok(json!({
            "t": row.t,
            "diabolos": diabolos,
            "sticks": [{"x": s.left.pos.x, "y": s.left.pos.y},
                       {"x": s.right.pos.x, "y": s.right.pos.y}],
            "tensions": row.tensions,
        }))
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
        Value::Array(self.session.events().iter().map(event_json).collect())
    }

    /// The scenario's duration, s.
    pub fn duration(&self) -> f64 {
        self.simulation.settings.duration
    }
}

/// The simulator for JavaScript: `new Diabolo(jsonText)`, `step(seconds)`, `state()` (JSON
/// text), `setHand(side, x, y)`, `events()` (JSON text).
#[wasm_bindgen]
pub struct Diabolo(Player);

#[wasm_bindgen]
impl Diabolo {
    /// Loads a scenario; a bad one throws the command line's message.
    #[wasm_bindgen(constructor)]
    pub fn new(text: &str) -> Result<Diabolo, JsError> {
        Player::load(text)
            .map(Diabolo)
            .map_err(|e| JsError::new(&e))
    }

    /// Advances `seconds` of simulated time.
    pub fn step(&mut self, seconds: f64) -> Result<(), JsError> {
        self.0.step(seconds).map_err(|e| JsError::new(&e))
    }

    /// The state now as JSON text.
    pub fn state(&mut self) -> Result<String, JsError> {
        self.0
            .state()
            .map(|v| v.to_string())
            .map_err(|e| JsError::new(&e))
    }

    /// Hand `side` (0 left, 1 right) pulls its stick toward (x, y).
    #[wasm_bindgen(js_name = setHand)]
    pub fn set_hand(&mut self, side: usize, x: f64, y: f64) -> Result<(), JsError> {
        self.0.set_hand(side, x, y).map_err(|e| JsError::new(&e))
    }

    /// The events so far as JSON text.
    pub fn events(&self) -> String {
        self.0.events().to_string()
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

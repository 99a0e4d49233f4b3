//! The event log: one JSON object per line, `{"t", "kind", "object", ...}` (docs/interface.md).

use std::io::{self, Write};

use serde_json::{json, Map, Value};

use crate::simulation::report::Partner;
use crate::simulation::run::Event;

/// One event as a JSON object: `t`, `kind`, `object` (null when none), then whatever the event
/// carries (`impulse`, `energy_lost`, `length_rate_before`/`_after`, `knot`, `slot`, `other`,
/// `speed`, `resting`, `reason`).
pub fn event_json(event: &Event) -> Value {
    let mut object = Map::new();
    object.insert("t".into(), json!(event.t));
    object.insert("kind".into(), json!(event.kind.name()));
    object.insert("object".into(), json!(event.object));
    if let Some(p) = event.impulse {
        object.insert("impulse".into(), json!(p));
    }
    if let Some(e) = event.energy_lost {
        object.insert("energy_lost".into(), json!(e));
    }
    if let Some((before, after)) = event.length_rates {
        object.insert("length_rate_before".into(), json!(before));
        object.insert("length_rate_after".into(), json!(after));
    }
    if let Some(k) = event.knot {
        object.insert("knot".into(), json!(k));
    }
    if let Some(slot) = event.slot {
        object.insert("slot".into(), json!(slot));
    }
    if let Some(other) = event.other {
        let other = match other {
            Partner::Diabolo(k) => json!(k),
            Partner::Left => json!("left"),
            Partner::Right => json!("right"),
        };
        object.insert("other".into(), other);
    }
    if let Some(speed) = event.speed {
        object.insert("speed".into(), json!(speed));
    }
    if let Some(resting) = event.resting {
        object.insert("resting".into(), json!(resting));
    }
    if let Some(reason) = &event.reason {
        object.insert("reason".into(), json!(reason));
    }
    Value::Object(object)
}

/// Writes the events as JSON lines.
pub fn write_events(out: &mut dyn Write, events: &[Event]) -> io::Result<()> {
    for event in events {
        serde_json::to_writer(&mut *out, &event_json(event))?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

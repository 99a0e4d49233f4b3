//! The event log: one JSON object per line, `{"t", "kind", "object", ...}` (docs/interface.md).

use std::io::{self, Write};

use serde_json::{json, Map, Value};

use crate::simulation::report::Partner;
use crate::simulation::Event;

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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::simulation::EventKind;

    #[test]
    fn every_kind_has_its_place_in_all_and_its_name() {
        for (i, kind) in EventKind::ALL.into_iter().enumerate() {
            assert_eq!(kind.index(), i, "{kind:?}");
            assert_eq!(EventKind::ALL[kind.index()], kind);
            assert_eq!(EventKind::from_name(kind.name()), Some(kind));
        }
        assert_eq!(EventKind::from_name("slip"), None);
    }

    /// The variants of `pub enum EventKind`, read from its source (wherever under src/ it is).
    fn declared_kinds(folder: &Path) -> Option<Vec<String>> {
        for entry in std::fs::read_dir(folder).ok()?.flatten() {
            let path = entry.path();
            let found = if path.is_dir() {
                declared_kinds(&path)
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).ok()?;
                // Spelled out of two halves, so that this file does not match.
                let declaration = ["pub enum Event", "Kind {"].concat();
                text.split_once(&declaration).map(|(_, body)| {
                    body.lines()
                        .map(str::trim)
                        .take_while(|line| *line != "}")
                        .filter(|line| !line.is_empty() && !line.starts_with("//"))
                        .filter(|line| !line.starts_with("#["))
                        .map(|line| {
                            line.chars()
                                .take_while(|c| c.is_alphanumeric() || *c == '_')
                                .collect()
                        })
                        .collect()
                })
            } else {
                None
            };
            if found.is_some() {
                return found;
            }
        }
        None
    }

    #[test]
    fn all_lists_every_declared_kind() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut declared = declared_kinds(&src).expect("pub enum EventKind under src/");
        let mut listed: Vec<String> = EventKind::ALL.iter().map(|k| format!("{k:?}")).collect();
        declared.sort();
        listed.sort();
        assert_eq!(listed, declared, "EventKind::ALL lists every kind once");
    }

    #[test]
    fn the_event_log_table_of_the_docs_names_every_kind() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/interface.md");
        let text = std::fs::read_to_string(&path).expect("docs/interface.md");
        let section = text
            .split("\n## ")
            .find(|s| s.starts_with("Event log"))
            .expect("docs/interface.md has a section \"Event log\"");
        // The rows of the section's table below its header: the first cell, `name`.
        let mut documented: Vec<&str> = section
            .lines()
            .skip_while(|line| !line.starts_with("|---"))
            .skip(1)
            .take_while(|line| line.starts_with('|'))
            .filter_map(|line| line.strip_prefix("| `"))
            .filter_map(|rest| rest.split_once('`').map(|(kind, _)| kind))
            .collect();
        let mut kinds: Vec<&str> = EventKind::ALL.iter().map(|k| k.name()).collect();
        documented.sort_unstable();
        kinds.sort_unstable();
        assert_eq!(
            documented, kinds,
            "the table of kinds in docs/interface.md, \"Event log\", names exactly EventKind::ALL"
        );
    }
}

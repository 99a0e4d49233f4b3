//! The one strict reading of JSON text for every input file (scenarios, `replay --params`):
//! serde_json's syntax, plus a refusal of any key that appears twice in one object, named by
//! its JSON path (serde_json alone keeps the last one silently).

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::error::ScenarioError;
use crate::display::echoed;

/// Parses `text` as JSON into a [`Value`], refusing repeated keys. Errors name the line and
/// column (syntax) or the JSON path of the repeated key.
pub fn strict_json(text: &str) -> Result<Value, ScenarioError> {
    let repeated = RefCell::new(None);
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let parsed = ValueAt {
        path: String::new(),
        repeated: &repeated,
    }
    .deserialize(&mut deserializer)
    .and_then(|value| deserializer.end().map(|()| value));
    parsed.map_err(|e| match repeated.into_inner() {
        Some(path) => ScenarioError::Format {
            path,
            message: format!(
                "the key appears twice (line {}, column {}); keep one",
                e.line(),
                e.column()
            ),
        },
        None => ScenarioError::Syntax {
            at: format!("line {}, column {}", e.line(), e.column()),
            line: e.line(),
            column: e.column(),
            reason: super::messages::plain(&e.to_string(), ""),
        },
    })
}

/// Parses the text of the scenario file `file` as [`strict_json`] does; an empty file and text
/// that is not JSON name the file, and a text that does not start as JSON (a YAML file) is told
/// that scenarios are JSON.
pub fn scenario_json(file: &str, text: &str) -> Result<Value, ScenarioError> {
    if text.trim().is_empty() {
        return Err(ScenarioError::Empty { file: file.into() });
    }
    strict_json(text).map_err(|e| match e {
        ScenarioError::Syntax {
            line,
            column,
            reason,
            ..
        } => ScenarioError::NotJson {
            file: file.into(),
            line,
            column,
            reason: without_location(&reason).into(),
            hint: not_json_hint(text),
        },
        other => other,
    })
}

/// serde_json's message without its ` at line L column C` (the error says where already).
fn without_location(reason: &str) -> &str {
    match reason.rsplit_once(" at line ") {
        Some((message, at)) if at.split(" column ").all(|n| n.parse::<usize>().is_ok()) => message,
        _ => reason,
    }
}

/// What to do with a scenario text that is not JSON: a text that does not start with `{` is
/// likely another format (YAML, TOML); one that does has a JSON mistake.
fn not_json_hint(text: &str) -> String {
    if text.trim_start().starts_with('{') {
        "fix the JSON there (`diabolo schema` gives the scenario format)".into()
    } else {
        "scenarios are JSON (a YAML file? write it as JSON: {\"params\": {\"string_length\": 1.46}, \"initial\": {...}, \"sim\": {\"duration\": 5}})".into()
    }
}

/// A JSON value at `path`; records the path of the first repeated key in `repeated`.
struct ValueAt<'a> {
    path: String,
    repeated: &'a RefCell<Option<String>>,
}

impl ValueAt<'_> {
    fn field(&self, key: &str) -> String {
        let key = echoed(key);
        if self.path.is_empty() {
            key
        } else {
            format!("{}.{key}", self.path)
        }
    }
}

impl<'de> DeserializeSeed<'de> for ValueAt<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueAt<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(ValueAt {
            path: format!("{}[{}]", self.path, items.len()),
            repeated: self.repeated,
        })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = self.field(&key);
            if object.contains_key(&key) {
                *self.repeated.borrow_mut() = Some(path.clone());
                return Err(de::Error::custom(format!("{path}: the key appears twice")));
            }
            let value = map.next_value_seed(ValueAt {
                path,
                repeated: self.repeated,
            })?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_keys_are_refused_with_their_path_at_every_level() {
        for (text, path) in [
            (r#"{"a": 1, "a": 2}"#, "a"),
            (
                r#"{"params": {"friction": 0.1, "friction": 0.2}}"#,
                "params.friction",
            ),
            (r#"{"x": [{"y": 1}, {"y": 1, "y": 2}]}"#, "x[1].y"),
        ] {
            let e = strict_json(text).unwrap_err();
            assert_eq!(e.path(), path, "{e}");
            assert!(e.to_string().contains("the key appears twice"), "{e}");
        }
    }

    #[test]
    fn an_empty_or_yaml_scenario_file_is_named_with_what_is_wrong() {
        for text in ["", " \n\t"] {
            let e = scenario_json("a.json", text).unwrap_err();
            assert_eq!(
                e.to_string().split(':').next(),
                Some("a.json is empty"),
                "{e}"
            );
        }
        let e = scenario_json("a.yaml", "params:\n  string_length: 1.46\n").unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("a.yaml: not JSON (line 1, column 1): expected value; scenarios are JSON (a YAML file?"),
            "{text}"
        );
        let e = scenario_json("b.json", "{\"params\": {").unwrap_err();
        assert_eq!(
            e.to_string(),
            "b.json: not JSON (line 1, column 12): EOF while parsing an object; fix the JSON there (`diabolo schema` gives the scenario format)"
        );
        // A repeated key keeps its JSON path.
        let e = scenario_json("c.json", r#"{"a": 1, "a": 2}"#).unwrap_err();
        assert_eq!(e.path(), "a");
    }

    #[test]
    fn valid_json_reads_as_serde_json_reads_it() {
        let text = r#"{"b": [1, 2.5, -3, "s", null, true, {"c": {}}], "a": 1e300}"#;
        assert_eq!(
            strict_json(text).unwrap(),
            serde_json::from_str::<Value>(text).unwrap()
        );
        assert!(strict_json("{} {}").is_err());
        assert!(strict_json("{").unwrap_err().path().starts_with("line 1"));
    }
}

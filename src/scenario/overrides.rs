//! `--set KEY=VALUE`: a scalar field replaced by its dotted path (`params.friction`,
//! `drive.right.sine.frequency`, `initial.diabolos[0].spin`), before the scenario is typed.

use serde_json::Value;

use super::error::ScenarioError;
use crate::display::echoed;

/// One step of a dotted path: a field name or an array index.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Field(String),
    Index(usize),
}

fn parse_key(key: &str) -> Result<Vec<Step>, ScenarioError> {
    let bad = |reason: &str| ScenarioError::Override {
        key: echoed(key),
        reason: format!("{reason}; write it like params.friction or initial.diabolos[0].spin"),
    };
    let mut steps = Vec::new();
    for part in key.split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if name.is_empty() {
            return Err(bad("an empty field name"));
        }
        steps.push(Step::Field(name.to_string()));
        while !rest.is_empty() {
            let close = rest.find(']').ok_or_else(|| bad("an unclosed ["))?;
            let index = rest[1..close]
                .parse()
                .map_err(|_| bad("an index that is not a number"))?;
            steps.push(Step::Index(index));
            rest = &rest[close + 1..];
            if !rest.is_empty() && !rest.starts_with('[') {
                return Err(bad("text after ]"));
            }
        }
    }
    Ok(steps)
}

/// The value of `text`: JSON if it parses as JSON (a number, true/false, an array...), else the
/// text itself as a string (`--set drive.left.type=released`).
pub fn parse_value(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
}

/// Sets `key` (dotted path) to `value` in the scenario document. Missing object fields along
/// the way are created; array indices must exist.
pub fn apply(document: &mut Value, key: &str, value: Value) -> Result<(), ScenarioError> {
    let steps = parse_key(key)?;
    let fail = |reason: String| ScenarioError::Override {
        key: echoed(key),
        reason,
    };
    let mut here = document;
    for (i, step) in steps.iter().enumerate() {
        let last = i + 1 == steps.len();
        here = match step {
            Step::Field(name) => {
                let object = here
                    .as_object_mut()
                    .ok_or_else(|| fail(format!("{name} is not inside an object")))?;
                let slot = object.entry(name.clone()).or_insert(if last {
                    Value::Null
                } else {
                    Value::Object(Default::default())
                });
                if !last && slot.is_null() {
                    *slot = Value::Object(Default::default());
                }
                slot
            }
            Step::Index(index) => {
                let array = here.as_array_mut().ok_or_else(|| {
                    fail(format!("[{index}] applied to something that is not a list"))
                })?;
                let len = array.len();
                array.get_mut(*index).ok_or_else(|| {
                    fail(format!("index {index} is past the end of a list of {len}"))
                })?
            }
        };
    }
    *here = value;
    Ok(())
}

/// The number at `key` (dotted path) in the scenario document: the field must be there and be
/// a number (a field the scenario leaves to its default has no value to read; write it, or set
/// it with `--set KEY=VALUE`).
pub fn number(document: &Value, key: &str) -> Result<f64, ScenarioError> {
    let steps = parse_key(key)?;
    let fail = |reason: String| ScenarioError::Override {
        key: echoed(key),
        reason,
    };
    let mut here = document;
    for step in &steps {
        let next = match step {
            Step::Field(name) => here.get(name.as_str()),
            Step::Index(index) => here.get(*index),
        };
        here = next.ok_or_else(|| {
            fail("not in the scenario: a numeric field the scenario gives is needed (write it in the scenario, or give it with --set KEY=VALUE)".to_string())
        })?;
    }
    here.as_f64().ok_or_else(|| {
        fail(format!(
            "{here}, not a number: a numeric field is needed, e.g. drive.right.sine.amplitude[0]"
        ))
    })
}

/// Splits `KEY=VALUE`.
pub fn split(assignment: &str) -> Result<(&str, &str), ScenarioError> {
    assignment
        .split_once('=')
        .ok_or_else(|| ScenarioError::Override {
            key: echoed(assignment),
            reason: "expected KEY=VALUE, e.g. params.friction=0.2".to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sets_nested_fields_and_list_entries() {
        let mut doc =
            json!({"params": {"friction": 0.1}, "initial": {"diabolos": [{"spin": 0.0}]}});
        apply(&mut doc, "params.friction", parse_value("0.3")).unwrap();
        apply(&mut doc, "initial.diabolos[0].spin", parse_value("2")).unwrap();
        apply(&mut doc, "drive.right.sine.frequency", parse_value("1.5")).unwrap();
        assert_eq!(doc["params"]["friction"], json!(0.3));
        assert_eq!(doc["initial"]["diabolos"][0]["spin"], json!(2));
        assert_eq!(doc["drive"]["right"]["sine"]["frequency"], json!(1.5));
    }

    #[test]
    fn numbers_are_read_where_they_are_given() {
        let doc = json!({"drive": {"right": {"sine": {"amplitude": [0.05, 0.0]}}}, "name": "x"});
        assert_eq!(number(&doc, "drive.right.sine.amplitude[0]").unwrap(), 0.05);
        for key in [
            "drive.right.sine.amplitude[2]",
            "params.friction",
            "name",
            "drive.right",
        ] {
            assert_eq!(number(&doc, key).unwrap_err().path(), key);
        }
    }

    #[test]
    fn bad_keys_name_themselves() {
        let mut doc = json!({"initial": {"diabolos": []}});
        for key in ["initial.diabolos[3].spin", "a..b", "x[1"] {
            let e = apply(&mut doc, key, json!(1)).unwrap_err();
            assert_eq!(e.path(), key);
        }
    }
}

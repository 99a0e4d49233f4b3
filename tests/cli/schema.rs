//! The generated JSON Schema describes the files the program accepts: every shipped scenario
//! validates against it (checked by an independent validator, the `jsonschema` crate), and
//! mutations the program rejects (an unknown field, a wrong type, a missing required field, an
//! unknown drive type) are rejected by the schema too.

use serde_json::{json, Value};

fn shipped() -> Vec<(String, Value)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            (
                p.display().to_string(),
                serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_shipped_scenario_validates_against_the_schema() {
    let schema = diabolo::scenario::Scenario::schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let scenarios = shipped();
    assert!(!scenarios.is_empty());
    for (name, doc) in &scenarios {
        let errors: Vec<String> = validator.iter_errors(doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
}

#[test]
fn mutated_scenarios_fail_the_schema_as_they_fail_the_program() {
    let schema = diabolo::scenario::Scenario::schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let (_, base) = shipped().into_iter().next().unwrap();
    type Mutation = Box<dyn Fn(&mut Value)>;
    let mutations: Vec<(&str, Mutation)> = vec![
        (
            "unknown field",
            Box::new(|d| d["params"]["colour"] = json!("red")),
        ),
        (
            "wrong type",
            Box::new(|d| d["params"]["friction"] = json!("high")),
        ),
        (
            "missing string_length",
            Box::new(|d| {
                d["params"].as_object_mut().unwrap().remove("string_length");
            }),
        ),
        (
            "unknown drive type",
            Box::new(|d| d["drive"]["left"] = json!({"type": "teleport"})),
        ),
        (
            "keyframe of two numbers",
            Box::new(|d| d["drive"]["left"] = json!({"type": "path", "keyframes": [[0.0, 1.0]]})),
        ),
        (
            "unknown method",
            Box::new(|d| d["sim"]["method"] = json!("euler")),
        ),
    ];
    for (what, mutate) in mutations {
        let mut doc = base.clone();
        mutate(&mut doc);
        assert!(!validator.is_valid(&doc), "{what}: the schema accepts it");
        assert!(
            diabolo::scenario::Scenario::from_value(doc).is_err(),
            "{what}: the program accepts it"
        );
    }
}

//! The planner against the anchor (docs/plan.md, "Against the anchor"): on the shipped tasks and
//! on held-out variants of them (other targets, as a new user would write them), the planner
//! (`diabolo plan`'s search, stopping at the first plan that meets every target) and a random
//! search like the published planner's, on the same keyframes, each within the same budget of
//! runs: whether each meets every target, with how many runs and in how long.
//!
//!     cargo run --release --example plan_anchor [BUDGET] [SEEDS]

use std::path::Path;

use diabolo::plan::{plan, plan_by_random_search, PlanOptions, SearchOptions, Task};
use rayon::prelude::*;
use serde_json::Value;

/// A task's text with `edit` applied; `minimize` set to nothing (time to first success).
fn task(name: &str, edit: impl FnOnce(&mut Value)) -> Task {
    let text = std::fs::read_to_string(format!("scenarios/plans/{name}.json")).unwrap();
    let mut document: Value = serde_json::from_str(&text).unwrap();
    document["plan"]["minimize"] = "nothing".into();
    edit(&mut document);
    Task::from_document(document, Path::new("scenarios/plans")).unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let budget: usize = args.get(1).map_or(2000, |a| a.parse().unwrap());
    let seeds: u64 = args.get(2).map_or(3, |a| a.parse().unwrap());
    let mut tasks: Vec<(String, Task)> = vec![
        ("carry".into(), task("carry", |_| {})),
        ("spin_up".into(), task("spin_up", |_| {})),
        ("toss".into(), task("toss", |_| {})),
        ("side_catch".into(), task("side_catch", |_| {})),
    ];
    // Held-out carries: other end points around the shipped one.
    for (x, y) in [
        (0.05, 0.66),
        (0.2, 0.72),
        (0.1, 0.75),
        (0.25, 0.7),
        (0.0, 0.72),
    ] {
        let t = task("carry", |d| {
            d["plan"]["targets"][0]["state"]["pos"] = serde_json::json!([x, y]);
        });
        tasks.push((format!("carry to ({x}, {y})"), t));
    }
    // Held-out spin-ups: other spins to reach.
    for w in [0.07, 0.12] {
        let t = task("spin_up", |d| {
            d["plan"]["targets"][0]["spin"]["at_least"] = w.into();
        });
        tasks.push((format!("spin_up to {w} m/s"), t));
    }
    // Held-out tosses: other heights, an earlier catch.
    for (height, before) in [(1.8, 1.8), (2.2, 1.8), (2.0, 1.5)] {
        let t = task("toss", |d| {
            d["plan"]["targets"][0]["apex"]["height"] = height.into();
            d["plan"]["targets"][1]["catch"]["before"] = before.into();
        });
        tasks.push((format!("toss to {height} m, caught by {before} s"), t));
    }
    // Held-out side catches: thrown in at other velocities.
    for (vx, vy) in [(3.2, 2.5), (4.0, 1.5), (2.8, 3.0)] {
        let t = task("side_catch", |d| {
            d["initial"]["diabolos"][0]["vel"] = serde_json::json!([vx, vy]);
        });
        tasks.push((format!("side catch at ({vx}, {vy}) m/s"), t));
    }
    println!("| task | planner: met, runs, s | random search: met (of {seeds}), mean runs to success, mean s |");
    println!("| --- | --- | --- |");
    for (name, task) in &tasks {
        let options = PlanOptions {
            search: SearchOptions {
                max_simulations: budget,
                ..SearchOptions::default()
            },
        };
        let ours = plan(task, &options, &|| false, &mut |_| {});
        let anchor: Vec<(bool, usize, f64)> = (1..=seeds)
            .into_par_iter()
            .map(|seed| {
                let p = plan_by_random_search(task, seed, budget);
                (p.met(), p.simulations, p.wall_time)
            })
            .collect();
        let met: Vec<&(bool, usize, f64)> = anchor.iter().filter(|a| a.0).collect();
        let mean = |f: &dyn Fn(&(bool, usize, f64)) -> f64| {
            if met.is_empty() {
                f64::NAN
            } else {
                met.iter().map(|a| f(a)).sum::<f64>() / met.len() as f64
            }
        };
        println!(
            "| {name} | {}, {}, {:.2} | {}, {:.0}, {:.2} |",
            if ours.met() { "yes" } else { "no" },
            ours.simulations,
            ours.wall_time,
            met.len(),
            mean(&|a| a.1 as f64),
            mean(&|a| a.2),
        );
    }
}

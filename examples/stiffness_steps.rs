//! What a compliant string costs the explicit integrators: steps per simulated second against
//! the string's stiffness EA, on a taut swing (`swing.json`) and on a toss with slack and snaps
//! (`snap.json`), both run for 10 s, with each explicit method; the inextensible string first.
//! The string's fastest mode has omega ~ sqrt(EA |grad sum l|^2 / (m L)), and an explicit step
//! must stay within a few 1 / omega, so the steps grow like sqrt(EA) once that bound takes
//! over from the accuracy.
//!
//! Run: `cargo run --release --example stiffness_steps`

use std::path::Path;
use std::time::Instant;

use diabolo::Scenario;

fn main() -> anyhow::Result<()> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    println!("| scenario | method | EA (N) | steps / s | rejected / s | evaluations / s | wall (ms) | events |");
    println!("|---|---|---|---|---|---|---|---|");
    for scenario in ["swing", "snap"] {
        let text = std::fs::read_to_string(dir.join(format!("{scenario}.json")))?;
        for method in ["dopri5", "dop853"] {
            for stiffness in [
                None,
                Some(1e2),
                Some(1e3),
                Some(1e4),
                Some(1e5),
                Some(1e6),
                Some(1e7),
            ] {
                let mut overrides = vec![
                    ("sim.duration".to_string(), "10".to_string()),
                    ("sim.method".to_string(), format!("\"{method}\"")),
                    ("params.restitution".to_string(), "0".to_string()),
                ];
                if let Some(ea) = stiffness {
                    overrides.push(("params.string_stiffness".to_string(), ea.to_string()));
                }
                let sim = Scenario::parse(&text, &overrides)?.build(&dir)?;
                let started = Instant::now();
                let report = sim.run(&mut |_| {});
                let wall = started.elapsed().as_secs_f64() * 1e3;
                let per_second = |count: usize| count as f64 / report.end_time.max(1e-9);
                println!(
                    "| {scenario} | {method} | {} | {:.0} | {:.0} | {:.0} | {wall:.1} | {}{} |",
                    stiffness.map_or("inextensible".to_string(), |ea| format!("{ea:.0e}")),
                    per_second(report.stats.steps),
                    per_second(report.stats.rejected_steps),
                    per_second(report.stats.derivative_evaluations),
                    report.events.len(),
                    report
                        .failure
                        .as_ref()
                        .map_or(String::new(), |f| format!(" (stopped: {f})")),
                );
            }
        }
    }
    Ok(())
}

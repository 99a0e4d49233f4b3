//! What a compliant string costs the integrators: steps per simulated second against the
//! string's stiffness EA, on a taut swing (`swing.json`) and on a toss with slack and snaps
//! (`snap.json`, restitution 0), both run for 10 s, with each adaptive method at the given
//! tolerances; the inextensible string first. The last column is the worst distance of the
//! diabolo (rows every 0.01 s) from a reference run of the same string by DOP853 at rtol 1e-11.
//!
//! The string's fastest mode has omega ~ sqrt(EA |grad sum l|^2 / (m L)). An explicit step must
//! stay within a few 1 / omega, so its steps grow like sqrt(EA) once that bound takes over from
//! the accuracy; RODAS's do not, as long as the mode's ringing (undamped, eta = 0 here) is below
//! the tolerance: at the default rtol 1e-9 the ringing is resolved by every method.
//!
//! Run: `cargo run --release --example stiffness_steps -- [rtol] [atol] [damped]` (defaults 1e-9,
//! 1e-12: the scenarios' defaults; `damped`: eta = 2 sqrt(m EA L), about critical).

use std::path::Path;
use std::time::Instant;

use diabolo::Scenario;
use nalgebra::Vector2;

/// The run of `scenario` with the overrides: its report and the diabolo's positions at the rows.
fn run(
    dir: &Path,
    text: &str,
    overrides: &[(String, String)],
) -> anyhow::Result<(diabolo::simulation::RunReport, Vec<Vector2<f64>>, f64)> {
    let sim = Scenario::parse(text, overrides)?.build(dir)?;
    let mut positions = Vec::with_capacity(1001);
    let started = Instant::now();
    let report = sim.run(&mut |row| positions.push(row.state.diabolos[0].pos));
    Ok((report, positions, started.elapsed().as_secs_f64() * 1e3))
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let rtol: f64 = args.next().map_or(Ok(1e-9), |s| s.parse())?;
    let atol: f64 = args.next().map_or(Ok(1e-12), |s| s.parse())?;
    // "damped": eta = 2 sqrt(m EA L), about critical for the hanging diabolo's stretch mode.
    let damped = args.next().as_deref() == Some("damped");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    println!(
        "rtol {rtol:e}, atol {atol:e}, {}\n",
        if damped {
            "eta = 2 sqrt(m EA L)"
        } else {
            "eta = 0"
        }
    );
    println!("| scenario | EA (N) | method | steps / s | rejected / s | evaluations / s | wall (ms) | events | gap to reference (m) |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for scenario in ["swing", "snap"] {
        let text = std::fs::read_to_string(dir.join(format!("{scenario}.json")))?;
        for stiffness in [
            None,
            Some(1e2),
            Some(2e2),
            Some(1e3),
            Some(1e4),
            Some(1e5),
            Some(1e6),
            Some(1e7),
        ] {
            let overrides = |method: &str, rtol: f64, atol: f64| {
                let mut o = vec![
                    ("sim.duration".to_string(), "10".to_string()),
                    ("sim.method".to_string(), format!("\"{method}\"")),
                    ("sim.rtol".to_string(), rtol.to_string()),
                    ("sim.atol".to_string(), atol.to_string()),
                    ("params.restitution".to_string(), "0".to_string()),
                ];
                if let Some(ea) = stiffness {
                    o.push(("params.string_stiffness".to_string(), ea.to_string()));
                    if damped {
                        let eta = 2.0 * (0.2 * ea * 1.46_f64).sqrt();
                        o.push(("params.string_damping".to_string(), eta.to_string()));
                    }
                }
                o
            };
            let (_, reference, _) = run(&dir, &text, &overrides("dop853", 1e-11, 1e-13))?;
            for method in ["dopri5", "dop853", "rodas"] {
                let (report, positions, wall) = run(&dir, &text, &overrides(method, rtol, atol))?;
                let per_second = |count: usize| count as f64 / report.end_time.max(1e-9);
                let gap = positions
                    .iter()
                    .zip(&reference)
                    .map(|(a, b)| (a - b).norm())
                    .fold(0.0, f64::max);
                println!(
                    "| {scenario} | {} | {method} | {:.0} | {:.0} | {:.0} | {wall:.1} | {} | {gap:.1e}{} |",
                    stiffness.map_or("inextensible".to_string(), |ea| format!("{ea:.0e}")),
                    per_second(report.stats.steps),
                    per_second(report.stats.rejected_steps),
                    per_second(report.stats.derivative_evaluations),
                    report.events.len(),
                    report
                        .failure
                        .as_ref()
                        .map_or(String::new(), |f| format!(" (stopped: {})", f.to_string().chars().take(60).collect::<String>())),
                );
            }
        }
    }
    Ok(())
}

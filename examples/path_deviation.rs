//! How far path-driven sticks stray from their paths in a shipped scenario (max over rows).
//! Run: `cargo run --release --example path_deviation -- scenarios/rolling.json`
use diabolo::scenario::Scenario;
fn main() -> anyhow::Result<()> {
    let file = std::env::args()
        .nth(1)
        .unwrap_or("scenarios/rolling.json".into());
    let text = std::fs::read_to_string(&file)?;
    let sim = Scenario::parse(&text, &[("sim.output_interval".into(), "0.001".into())])?
        .build(std::path::Path::new("scenarios"))?;
    let paths: Vec<_> = sim.drives.iter().map(|d| d.path().cloned()).collect();
    let (mut pos, mut vel, mut at) = (0.0f64, 0.0f64, 0.0);
    let report = sim.run(&mut |row| {
        for (k, (p, s)) in paths
            .iter()
            .zip([&row.state.left, &row.state.right])
            .enumerate()
        {
            if let Some(p) = p {
                let q = p.at(row.t);
                let dp = (q.pos - s.pos).norm();
                if dp > pos {
                    pos = dp;
                    at = row.t;
                }
                vel = vel.max((q.vel - s.vel).norm());
                if std::env::var("TRACE").is_ok() && dp > 1e-9 && row.t < 1.6 {
                    println!(
                        "t={:.3} k={k} dp={dp:e} dv={:e} phase={:?}",
                        row.t,
                        (q.vel - s.vel).norm(),
                        row.phase
                    );
                }
            }
        }
    });
    if std::env::var("TRACE").is_ok() {
        for e in &report.events {
            if e.t < 1.6 {
                println!("{:.5} {}", e.t, e.kind.name());
            }
        }
    }
    println!(
        "{file}: worst position deviation {pos:e} m at t = {at}, velocity {vel:e} m/s; events {}",
        report.events.len()
    );
    Ok(())
}

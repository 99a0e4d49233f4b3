//! One replay start, simulated against measured: the diabolo every 0.025 s (position, velocity,
//! error, string sums) and the event log, with c = 0.25 (or env C), J = 50, D = 0.
//! Run: `cargo run --release --example replay_probe -- REC.csv START [DURATION]`.
use diabolo::replay::{recording_params, start_simulation, Recording, ReplayOptions, StartRun};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(file), Some(start)) = (args.get(1), args.get(2)) else {
        anyhow::bail!("usage: replay_probe REC.csv START [DURATION]");
    };
    let rec = Recording::read(std::path::Path::new(file))?;
    let start: f64 = start.parse()?;
    let duration: f64 = args.get(3).map_or(Ok(0.5), |d| d.parse())?;
    let mut options = ReplayOptions::default();
    options.params.friction = std::env::var("C").map_or(0.25, |c| c.parse().expect("C"));
    options.params.spin_inertia = 50.0;
    let params = recording_params(&rec, &options)?;
    let StartRun {
        simulation,
        paths: [left, right, dia],
        lead,
        ..
    } = start_simulation(&rec, &options, &params, start, duration).map_err(anyhow::Error::msg)?;
    println!(
        "L = {:.4} m; the simulation starts {lead} s before the start",
        params.string_length
    );
    println!("t - start, simulated (x, y) and velocity, measured (x, y) and velocity, error, string sums simulated/measured");
    let report = simulation.run(&mut |row| {
        if ((row.t / 0.005).round() as i64) % 5 != 0 {
            return;
        }
        let d = row.state.diabolos[0];
        let m = dia.at(row.t);
        let sum = |l: nalgebra::Vector2<f64>, r: nalgebra::Vector2<f64>, p: nalgebra::Vector2<f64>| {
            (l - p).norm() + (r - p).norm()
        };
        println!(
            "{:6.3} ({:.4}, {:.4}) ({:.3}, {:.3})  ({:.4}, {:.4}) ({:.3}, {:.3})  {:.4}  {:.4}/{:.4}",
            row.t - lead,
            d.pos.x,
            d.pos.y,
            d.vel.x,
            d.vel.y,
            m.pos.x,
            m.pos.y,
            m.vel.x,
            m.vel.y,
            (d.pos - m.pos).norm(),
            sum(row.state.left.pos, row.state.right.pos, d.pos),
            sum(left.at(row.t).pos, right.at(row.t).pos, m.pos)
        );
    });
    for e in report.events.iter().take(40) {
        println!("{:.6} {} {:?}", e.t - lead, e.kind.name(), e.reason);
    }
    println!("{} events; {:?}", report.events.len(), report.failure);
    Ok(())
}

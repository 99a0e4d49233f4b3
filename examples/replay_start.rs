//! One replay start, with its event log: `cargo run --release --example replay_start -- REC.csv START [DURATION]`.
use diabolo::replay::{recording_params, start_simulation, Recording, ReplayOptions};
fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let rec = Recording::read(std::path::Path::new(&args[1]))?;
    let start: f64 = args[2].parse()?;
    let duration: f64 = args.get(3).map_or(Ok(2.0), |d| d.parse())?;
    let mut options = ReplayOptions::default();
    options.params.friction = 0.25;
    let params = recording_params(&rec, &options)?;
    let (sim, _) =
        start_simulation(&rec, &options, &params, start, duration).map_err(anyhow::Error::msg)?;
    let report = sim.run(&mut |_| {});
    for e in report.events.iter().take(40) {
        println!(
            "{:.9} {} {:?} {:?}",
            e.t,
            e.kind.name(),
            e.length_rates,
            e.reason
        );
    }
    println!("{} events; {:?}", report.events.len(), report.failure);
    Ok(())
}

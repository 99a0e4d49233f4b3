//! Everything `diabolo run` does, from Rust: a scenario built in code (the same types the JSON
//! files use), checked and turned into a simulation, run with the trajectory written as CSV to
//! memory, the event log printed, and the CSV read back.
//!
//! Run: `cargo run --release --example scenario_in_code`

use diabolo::output::{event_json, TrajectoryWriter};
use diabolo::scenario::{
    DiaboloSpec, DriveSpec, DrivesSpec, InitialSpec, ParamsSpec, Scenario, SimSpec,
};

fn main() -> anyhow::Result<()> {
    // Start from the default scenario (one diabolo hanging below two still hands, 1 s) and change
    // what this run needs.
    let mut scenario = Scenario {
        name: Some("strokes in code".into()),
        params: ParamsSpec {
            spin_drag: 0.02,
            ..ParamsSpec::default()
        },
        initial: InitialSpec {
            diabolos: vec![DiaboloSpec::at_x(0.0)],
            ..InitialSpec::default()
        },
        sim: SimSpec {
            output_interval: 0.01,
            ..SimSpec::for_duration(3.0)
        },
        ..Scenario::default()
    };
    // Left hand still; the right hand strokes down and back up along the string, three times:
    // the string runs back and forth over the axle (slip reversals in the event log).
    let mut strokes = vec![[0.0, 0.4, 1.5]];
    for k in 0..3 {
        let t = 0.9 * k as f64;
        strokes.push([t + 0.45, 0.3, 1.1]);
        strokes.push([t + 0.9, 0.4, 1.5]);
    }
    scenario.drive = DrivesSpec {
        left: Some(DriveSpec::still([-0.4, 1.5])),
        right: Some(DriveSpec::keyframes(strokes)),
    };
    println!("{}", serde_json::to_string_pretty(&scenario)?);

    let simulation = scenario.build(std::path::Path::new("."))?;
    let mut writer = TrajectoryWriter::new(Vec::new(), &simulation)?;
    let report = simulation.run(&mut |row| writer.write_row(row).expect("memory"));
    for event in &report.events {
        println!("{}", event_json(event));
    }
    if let Some(failure) = &report.failure {
        println!("stopped early: {failure}");
    }

    // Read the trajectory back as any CSV consumer would.
    let csv = writer.into_inner();
    let mut reader = csv::Reader::from_reader(csv.as_slice());
    let spin_column = reader
        .headers()?
        .iter()
        .position(|h| h == "d1_w")
        .expect("d1_w");
    let mut spins = Vec::new();
    for record in reader.records() {
        let record = record?;
        spins.push((
            record[0].parse::<f64>()?,
            record[spin_column].parse::<f64>()?,
        ));
    }
    let (t_max, w_max) = spins.iter().copied().fold((0.0, 0.0), |best, (t, w)| {
        if w.abs() > f64::abs(best.1) {
            (t, w)
        } else {
            best
        }
    });
    println!(
        "{} rows; largest spin w = {w_max:.5} m/s at t = {t_max} s ({} steps, {} derivative evaluations)",
        spins.len(),
        report.stats.steps,
        report.stats.derivative_evaluations
    );
    Ok(())
}

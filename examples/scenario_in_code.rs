//! Everything `diabolo run` does, from Rust: a scenario built in code (the same types the JSON
//! files use), checked and turned into a simulation, run with the trajectory written as CSV to
//! memory, the event log printed, and the CSV read back.
//!
//! Run: `cargo run --release --example scenario_in_code`

use diabolo::output::{event_json, TrajectoryWriter};
use diabolo::scenario::{
    DiaboloSpec, DriveSpec, DrivesSpec, InitialSpec, ParamsSpec, PathSpec, Scenario, SimSpec,
};

fn main() -> anyhow::Result<()> {
    // Start from defaults by parsing the smallest valid document, then fill in code.
    let mut scenario = Scenario::parse(
        r#"{"params": {"string_length": 1.46}, "initial": {"diabolos": []}, "sim": {"duration": 3.0}}"#,
        &[],
    )?;
    scenario.name = Some("strokes in code".into());
    scenario.params = ParamsSpec {
        spin_drag: 0.02,
        ..scenario.params
    };
    scenario.initial = InitialSpec {
        left: None,
        right: None,
        diabolos: vec![DiaboloSpec {
            pos: None,
            x: Some(0.0),
            vel: [0.0, 0.0],
            spin: 0.0,
            knot: 0,
        }],
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
        left: Some(path(vec![[0.0, -0.4, 1.5]])),
        right: Some(path(strokes)),
    };
    scenario.sim = SimSpec {
        output_interval: 0.01,
        ..scenario.sim
    };
    println!("{}", serde_json::to_string_pretty(&scenario)?);

    let simulation = scenario.build(std::path::Path::new("."))?;
    let mut writer = TrajectoryWriter::new(Vec::new(), simulation.initial.diabolo_count())?;
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

fn path(keyframes: Vec<[f64; 3]>) -> DriveSpec {
    DriveSpec::Path(PathSpec {
        keyframes: Some(keyframes),
        sine: None,
        csv: None,
        smoothing: None,
        tracking: None,
    })
}

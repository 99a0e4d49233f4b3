//! A whole run through the library: a spinning diabolo tossed up inside the string's ellipse
//! while the right hand waves, so the string goes slack, snaps taut (a tensing impulse), and
//! the diabolo swings on with capstan friction and spin drag. Prints the event log, a few rows
//! and the energy balance.
//!
//! Run: `cargo run --release --example snap`

use diabolo::model::{CartesianState, ParamValues, Params};
use diabolo::simulation::drive::{ClampedSpline, Drive, Path};
use diabolo::simulation::{Settings, Simulation};
use nalgebra::Vector2;

fn main() -> anyhow::Result<()> {
    let params = Params::new(ParamValues {
        spin_drag: 0.05,
        ..Default::default()
    })?;
    // Sticks 0.8 m apart at 1.5 m; the diabolo 0.1 m right of centre, spinning (w = 1.5 m/s),
    // lifted 0.15 m off the string and moving right at 0.4 m/s.
    let mut state = CartesianState::hanging(&params, [-0.4, 1.5], [0.4, 1.5], 0.1, 1.5)?;
    state.diabolos[0].pos.y += 0.15;
    state.diabolos[0].vel = Vector2::new(0.4, 0.0);
    let left = Drive::Path(Path::Keyframes(ClampedSpline::new(vec![(
        0.0,
        Vector2::new(-0.4, 1.5),
    )])?));
    let right = Drive::Path(Path::Sine {
        center: Vector2::new(0.4, 1.5),
        amplitude: Vector2::new(0.0, 0.05),
        frequency: 1.0,
        phase: Vector2::zeros(),
    });
    let settings = Settings {
        duration: 3.0,
        output_interval: 0.01,
        ..Default::default()
    };
    let sim = Simulation::new(params, [left, right], state, settings)?;

    println!("     t   phase    x_d      y_d      spin      T_0     slack      energy");
    let report = sim.run(&mut |row| {
        if (row.t * 100.0).round() as i64 % 25 == 0 {
            let d = &row.state.diabolos[0];
            println!(
                "{:6.2} {:>6} {:8.4} {:8.4} {:8.4} {:8.4} {:9.2e} {:10.6}",
                row.t,
                row.phase.map_or("-", |p| p.name()),
                d.pos.x,
                d.pos.y,
                d.spin,
                row.tensions[0],
                row.slack,
                row.energy
            );
        }
    });
    println!("\nevents:");
    for event in &report.events {
        let impulse = event
            .impulse
            .map_or(String::new(), |p| format!(", impulse {p:.4} N s"));
        let lost = event
            .energy_lost
            .map_or(String::new(), |e| format!(", {e:.4} J lost"));
        println!(
            "  t = {:.6} s: {}{impulse}{lost}",
            event.t,
            event.kind.name()
        );
    }
    let (e0, e1) = report.energy;
    println!(
        "\n{} steps ({} rejected), {} derivative evaluations; energy {e0:.6} J -> {e1:.6} J",
        report.stats.steps, report.stats.rejected_steps, report.stats.derivative_evaluations
    );
    if let Some(failure) = report.failure {
        println!("stopped early: {failure}");
    }
    Ok(())
}

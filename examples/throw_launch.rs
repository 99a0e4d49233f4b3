//! The launch window of `data/throws/throw_1_seg1.csv` replayed (VALIDATION.md, "The compliant
//! string"): from every frame in the 0.3 s before the measured diabolo leaves the string, the
//! simulation on the recorded hand paths, scored at 0.1 and 0.2 s against the measured diabolo
//! (0.5 s runs past the end of the file, where nothing can be scored), and the simulated launch
//! (the diabolo's velocity at its `leave` event) against the measured one.
//!
//! Measured leave: the first crossing of the diabolo above the line of the stick tips (where the
//! model's `leave` fires: the string straight between the tips), interpolated between frames.
//! Measured launch velocity: the derivative at that time of a parabola fitted by least squares
//! to each coordinate over the free flight to the end of the file (0.21 s) (its curvature, the measured g, is
//! printed as a check).
//!
//! Run: `cargo run --release --example throw_launch -- validation/omron_fitted_compliant.json 1.449`
//! (the parameters file, then the string's length before the file's length offset: the median
//! string sum of `throw_1_seg2.csv`, taut throughout; the launch file is taut on 7 % of its
//! frames only, so its own median-taut estimate, 1.595 m, measures the pulled-apart tips).
use std::path::Path;

use diabolo::fit::ParamsFile;
use diabolo::replay::{recording_params, start_simulation, LengthEstimate, Recording};
use diabolo::simulation::EventKind;
use nalgebra::Vector2;

/// Signed side of the diabolo from the line left tip -> right tip (> 0 above).
fn side(rec: &Recording, k: usize) -> f64 {
    let chord = rec.right[k] - rec.left[k];
    chord.perp(&(rec.dia[k] - rec.left[k]))
}

/// Least-squares parabola a + b s + c s^2 (s = t - t0) of `values` at `times`: (b, 2c).
fn parabola_slope(times: &[f64], values: &[f64], t0: f64) -> (f64, f64) {
    let mut m = nalgebra::Matrix3::zeros();
    let mut r = nalgebra::Vector3::zeros();
    for (&t, &v) in times.iter().zip(values) {
        let s = t - t0;
        let row = nalgebra::Vector3::new(1.0, s, s * s);
        m += row * row.transpose();
        r += row * v;
    }
    let x = m.lu().solve(&r).expect("frames at distinct times");
    (x[1], 2.0 * x[2])
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let params_file = args
        .next()
        .unwrap_or("validation/omron_fitted_compliant.json".into());
    let length: f64 = args.next().map_or(Ok(1.449), |s| s.parse())?;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rec = Recording::read(&root.join("data/throws/throw_1_seg1.csv"))?;
    let mut options = ParamsFile::read(Path::new(&params_file))?.replay_options()?;
    options.length = LengthEstimate::Fixed(length);
    let params = recording_params(&rec, &options)?;

    // The measured leave and launch.
    let k = (1..rec.t.len())
        .find(|&k| side(&rec, k - 1) <= 0.0 && side(&rec, k) > 0.0)
        .ok_or_else(|| anyhow::anyhow!("the diabolo never rises above the tips"))?;
    let (a, b) = (side(&rec, k - 1), side(&rec, k));
    let t_leave = rec.t[k - 1] + (rec.t[k] - rec.t[k - 1]) * a / (a - b);
    let flight: Vec<usize> = (k..rec.t.len()).filter(|&i| rec.t[i] > t_leave).collect();
    let times: Vec<f64> = flight.iter().map(|&i| rec.t[i]).collect();
    let (vx, ax) = parabola_slope(
        &times,
        &flight.iter().map(|&i| rec.dia[i].x).collect::<Vec<_>>(),
        t_leave,
    );
    let (vy, ay) = parabola_slope(
        &times,
        &flight.iter().map(|&i| rec.dia[i].y).collect::<Vec<_>>(),
        t_leave,
    );
    let launch = Vector2::new(vx, vy);
    let angle = |v: Vector2<f64>| v.y.atan2(v.x).to_degrees();
    println!(
        "L = {:.4} m, EA = {:?} N, eta = {} N s; measured leave at t = {t_leave:.4} s, launch \
         {:.3} m/s at {:.1} deg ({} frames of flight, measured acceleration ({ax:.2}, {ay:.2}) \
         m/s^2); the file ends at {:.4} s\n",
        params.string_length,
        params.string_stiffness,
        params.string_damping,
        launch.norm(),
        angle(launch),
        flight.len(),
        rec.t[rec.t.len() - 1],
    );
    println!("| start before leave (s) | error 0.1 s (m) | error 0.2 s (m) | simulated leave - measured (s) | launch speed (m/s) | speed error | direction error (deg) |");
    println!("|---|---|---|---|---|---|---|");
    let last = rec.t[rec.t.len() - 1];
    let horizons = [0.1, 0.2];
    let mut sums = [0.0; 2];
    let mut counts = [0usize; 2];
    let (mut speed_errors, mut direction_errors, mut failures) = (Vec::new(), Vec::new(), 0);
    for &start in rec.t.iter().filter(|&&t| t >= t_leave - 0.3 && t < t_leave) {
        let duration = (last - start).min(0.5);
        let run = match start_simulation(&rec, &options, &params, start, duration) {
            Ok(run) => run,
            Err(e) => {
                failures += 1;
                println!("| {:.3} | start failed: {e} |", t_leave - start);
                continue;
            }
        };
        let lead = run.lead;
        let mut rows = Vec::new();
        let report = run.simulation.run(&mut |row| {
            rows.push((row.t - lead, row.state.diabolos[0]));
        });
        if let Some(f) = &report.failure {
            failures += 1;
            println!("| {:.3} | run failed: {f} |", t_leave - start);
            continue;
        }
        let mut cells = Vec::new();
        for (j, h) in horizons.iter().enumerate() {
            match rows.iter().find(|(t, _)| (t - h).abs() < 1e-9) {
                Some((_, d)) if start + h <= last => {
                    let e = (d.pos - rec.at(&rec.dia, start + h)).norm();
                    sums[j] += e;
                    counts[j] += 1;
                    cells.push(format!("{e:.4}"));
                }
                _ => cells.push("-".into()),
            }
        }
        let leave = report
            .events
            .iter()
            .find(|e| e.kind == EventKind::Leave && e.t >= lead);
        match leave {
            Some(event) => {
                let t_event = event.t - lead;
                // Ballistic after the leave: v(t_event) = v(row) + g (t_row - t_event) upward.
                let (t_row, d) = rows
                    .iter()
                    .find(|(t, _)| *t > t_event)
                    .copied()
                    .ok_or_else(|| anyhow::anyhow!("no row after the leave"))?;
                let v = d.vel + Vector2::new(0.0, params.gravity * (t_row - t_event));
                let speed_error = v.norm() / launch.norm() - 1.0;
                let direction_error = angle(v) - angle(launch);
                speed_errors.push(speed_error);
                direction_errors.push(direction_error);
                println!(
                    "| {:.3} | {} | {} | {:+.4} | {:.3} | {:+.1} % | {:+.1} |",
                    t_leave - start,
                    cells[0],
                    cells[1],
                    start + t_event - t_leave,
                    v.norm(),
                    100.0 * speed_error,
                    direction_error
                );
            }
            None => println!(
                "| {:.3} | {} | {} | no leave | - | - | - |",
                t_leave - start,
                cells[0],
                cells[1]
            ),
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let mean_abs = |v: &[f64]| v.iter().map(|x| x.abs()).sum::<f64>() / v.len().max(1) as f64;
    println!(
        "\nmean position error: 0.1 s {:.4} m ({} starts), 0.2 s {:.4} m ({} starts), 0.5 s: \
         past the end of the file; launch speed error mean {:+.1} % (mean |.| {:.1} %, worst \
         {:+.1} %), direction error mean {:+.1} deg (mean |.| {:.1} deg) over {} leaves; {} \
         starts failed",
        sums[0] / counts[0].max(1) as f64,
        counts[0],
        sums[1] / counts[1].max(1) as f64,
        counts[1],
        100.0 * mean(&speed_errors),
        100.0 * mean_abs(&speed_errors),
        100.0
            * speed_errors
                .iter()
                .copied()
                .max_by(|a, b| a.abs().total_cmp(&b.abs()))
                .unwrap_or(f64::NAN),
        mean(&direction_errors),
        mean_abs(&direction_errors),
        speed_errors.len(),
        failures
    );
    Ok(())
}

//! The "stays as it is" forecasts of the third dimension (the axle keeps its tilt and turn, the
//! centre its distance from the plane) on 3D recordings: for each file and for all of them
//! pooled, at 0.2 / 0.5 / 1 / 2 s (see `diabolo::replay::stay_baselines` for the rule).
//! Run: `cargo run --release --example space_baselines -- data/inclination [HALF_WIDTH]`.
use diabolo::replay::{stay_baselines, Recording, SpaceBaseline, AXLE_SMOOTHING};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        anyhow::bail!("usage: space_baselines FILE_OR_FOLDER [HALF_WIDTH_S]");
    };
    let half_width: f64 = args.get(2).map_or(Ok(AXLE_SMOOTHING), |h| h.parse())?;
    let recordings = Recording::read_path(std::path::Path::new(path))?;
    let horizons = [0.2, 0.5, 1.0, 2.0];
    println!("axle smoothed over +-{half_width} s; every frame a start");
    println!(
        "{:<32} {:>5} {:>6} {:>10} {:>10} {:>10} {:>11}",
        "recording", "h (s)", "n", "tilt (deg)", "turn (deg)", "|dz| (m)", "|z| (m)"
    );
    let print = |name: &str, rows: &[SpaceBaseline]| {
        for b in rows.iter().filter(|b| b.n > 0) {
            println!(
                "{name:<32} {:>5} {:>6} {:>10.3} {:>10.3} {:>10.4} {:>11.4}",
                b.horizon, b.n, b.tilt_mean, b.turn_mean, b.oop_mean, b.plane_mean
            );
        }
    };
    for rec in &recordings {
        print(
            &rec.name,
            &stay_baselines(std::slice::from_ref(rec), &horizons, half_width)?,
        );
    }
    print(
        "(all, pooled)",
        &stay_baselines(&recordings, &horizons, half_width)?,
    );
    Ok(())
}

//! The prop designer's table (docs/space.md, "Which diabolo is steadier"): how fast diabolos of
//! different axle radius and inertia tilt when the right stick is 10 cm toward the audience,
//! spinning at 100 rad/s on a 1.46 m string with the sticks 0.8 m apart. The fast top's rate
//! and the rigid body's mean over one second, and its nutation period.
//!
//! Run: `cargo run --release --example prop_table`

use diabolo::model::space::{AxleModel, AxleValues, SpaceParams};
use diabolo::model::{ParamValues, Params};
use diabolo::simulation::space::tilt_response;

fn main() -> anyhow::Result<()> {
    println!("| axle radius r (mm) | J | I_p (kg m^2) | I_t / I_p | tilt rate at the start (deg/s) | mean over 1 s, fast top (deg/s) | mean over 1 s, rigid (deg/s) | nutation period (ms) |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for radius_mm in [5.0, 6.5, 8.0] {
        for spin_inertia in [30.0, 50.0, 80.0] {
            for ratio in [0.6, 1.0, 2.0] {
                let planar = Params::new(ParamValues {
                    spin_inertia,
                    ..ParamValues::default()
                })?;
                let radius = radius_mm / 1000.0;
                let polar = spin_inertia * planar.values().diabolo_mass * radius * radius;
                let params = SpaceParams::new(
                    planar,
                    AxleValues {
                        axle_radius: radius,
                        transverse_inertia: Some(ratio * polar),
                        model: AxleModel::Rigid,
                        ..AxleValues::default()
                    },
                )?;
                let r = tilt_response(&params, 0.8, 0.1, 100.0, 1.0).map_err(anyhow::Error::msg)?;
                println!(
                    "| {radius_mm} | {spin_inertia} | {polar:.2e} | {ratio} | {:.2} | {:.2} | {:.2} | {:.1} |",
                    r.initial_rate,
                    r.fast_top_mean,
                    r.rigid_mean,
                    1e3 * r.nutation_period
                );
            }
        }
    }
    Ok(())
}

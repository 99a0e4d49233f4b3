//! A held-out check of the string offset (docs/space.md, "The turn"): the offset lambda = 1.1 mm
//! was fitted to the turn rate of the inclination take alone; the seven other 3D recordings
//! (`data/space/`) were not used. This replays both sets with the defaults at several offsets
//! (0 to 8 mm) and prints the pooled mean turn and tilt errors at 0.2 / 0.5 / 1 / 2 s, with the
//! axle that keeps its turn ("stays") beside them.
//!
//! Run: `cargo run --release --example turn_offset_holdout` (about a minute on two cores).
use diabolo::model::space::AxleValues;
use diabolo::replay::{replay_pooled, Recording, ReplayOptions};

fn main() -> anyhow::Result<()> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let fitted = AxleValues::default().string_offset;
    let offsets = [0.0, 0.0005, fitted, 0.002, 0.003, 0.004, 0.006, 0.008];
    println!("| recordings | string offset (mm) | h (s) | n | turn (deg) | stays: turn (deg) | tilt (deg) |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for (name, folder) in [
        ("data/space (held out)", "space"),
        ("data/inclination (fitted on)", "inclination"),
    ] {
        let recordings = Recording::read_dir(&root.join(folder))?;
        for offset in offsets {
            let options = ReplayOptions {
                horizons: vec![0.2, 0.5, 1.0, 2.0],
                axle: AxleValues {
                    string_offset: offset,
                    ..AxleValues::default()
                },
                ..ReplayOptions::default()
            };
            for s in replay_pooled(&recordings, &options)? {
                let Some(space) = s.space else { continue };
                println!(
                    "| {name} | {:.1} | {} | {} | {:.3} | {:.3} | {:.3} |",
                    offset * 1e3,
                    s.horizon,
                    s.n,
                    space.turn_mean,
                    space.stay_turn_mean,
                    space.tilt_mean
                );
            }
        }
    }
    Ok(())
}

//! The replay of the 3D recordings with the defaults (docs/space.md, "Replay of the
//! recordings"): for each file of `data/space/` and for the nine pieces of `data/inclination/`
//! pooled, the mean errors of position, distance from the plane, tilt and turn at 0.2 / 0.5 /
//! 1 / 2 s of (a) the model in space, (b) "stays as it is" at the same starts, (c) the planar
//! model on the same files (`--planar`: it keeps z = 0 and the axle along +z, so its errors out
//! of the plane are |z|, |tilt| and |turn| of the recording, and its position error in 3D is
//! sqrt(e_xy^2 + z^2) with e_xy what the planar replay reports).
//!
//! Run: `cargo run --release --example space_replay_table` (about a minute on two cores).
use diabolo::model::axle_angles::{tilt, turn_difference};
use diabolo::output::table::{interpolate, locate};
use diabolo::replay::{
    replay, HeldHorizons, Recording, ReplayOptions, StartResult, AXLE_SMOOTHING,
};
use nalgebra::Vector3;

/// Sums of one horizon: n, then the four errors of the model in space, of the stays baseline
/// and of the planar model; and the starts dropped by each model.
#[derive(Clone, Copy, Default)]
struct Sums {
    n_space: usize,
    space: [f64; 4],
    stay: [f64; 4],
    n_planar: usize,
    planar: [f64; 4],
    planar_xy: f64,
    dropped_space: usize,
    dropped_planar: usize,
}

fn add(
    sums: &mut [Sums],
    rec: &Recording,
    horizons: &[f64],
    space: &[StartResult],
    planar: &[StartResult],
) {
    let third = rec.space.as_ref().expect("a 3D recording");
    let axle = third.smoothed_axle(&rec.t, AXLE_SMOOTHING);
    let axle_at = |t: f64| {
        let (j, f) = locate(&rec.t, t);
        if f == 0.0 {
            axle[j]
        } else {
            axle[j] + (axle[j + 1] - axle[j]) * f
        }
    };
    for (k, h) in horizons.iter().enumerate() {
        let s = &mut sums[k];
        for r in space {
            match r.errors[k] {
                Some(e) => {
                    let d = e.space.expect("a replay in space");
                    s.n_space += 1;
                    for (i, v) in [e.position, d.oop, d.tilt, d.turn].into_iter().enumerate() {
                        s.space[i] += v;
                    }
                    for (i, v) in [e.stay, d.stay_oop, d.stay_tilt, d.stay_turn]
                        .into_iter()
                        .enumerate()
                    {
                        s.stay[i] += v;
                    }
                }
                None if r.failure.is_some() => s.dropped_space += 1,
                None => {}
            }
        }
        for r in planar {
            match r.errors[k] {
                Some(e) => {
                    let at = r.start + h;
                    let z = interpolate(&rec.t, &third.dia_z, at);
                    let a = axle_at(at);
                    s.n_planar += 1;
                    s.planar_xy += e.position;
                    let values = [
                        (e.position * e.position + z * z).sqrt(),
                        z.abs(),
                        tilt(&a).abs(),
                        turn_difference(&a, &Vector3::z()).abs(),
                    ];
                    for (i, v) in values.into_iter().enumerate() {
                        s.planar[i] += v;
                    }
                }
                None if r.failure.is_some() => s.dropped_planar += 1,
                None => {}
            }
        }
    }
}

fn main() -> anyhow::Result<()> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let horizons = vec![0.2, 0.5, 1.0, 2.0];
    let mut groups: Vec<(String, Vec<Recording>)> = Recording::read_dir(&root.join("space"))?
        .into_iter()
        .map(|r| (r.name.clone(), vec![r]))
        .collect();
    groups.push((
        "inclination (9 pieces pooled)".into(),
        Recording::read_dir(&root.join("inclination"))?,
    ));
    println!(
        "| recording | h (s) | n (space / planar) | dropped (space / planar) | quantity | (a) model in space | (b) stays as it is | (c) planar model |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for (name, recordings) in &groups {
        let mut sums = vec![Sums::default(); horizons.len()];
        for rec in recordings {
            let options = ReplayOptions {
                horizons: horizons.clone(),
                ..ReplayOptions::default()
            };
            let held = HeldHorizons::of(rec, &options).options;
            if held.horizons.is_empty() {
                continue;
            }
            let space = replay(rec, &held)?;
            let planar = replay(
                rec,
                &ReplayOptions {
                    planar: true,
                    ..held.clone()
                },
            )?;
            let mut held_sums = vec![Sums::default(); held.horizons.len()];
            add(&mut held_sums, rec, &held.horizons, &space, &planar);
            for (h, s) in held.horizons.iter().zip(held_sums) {
                let k = horizons
                    .iter()
                    .position(|x| x == h)
                    .expect("a held horizon");
                let t = &mut sums[k];
                t.n_space += s.n_space;
                t.n_planar += s.n_planar;
                t.dropped_space += s.dropped_space;
                t.dropped_planar += s.dropped_planar;
                t.planar_xy += s.planar_xy;
                for i in 0..4 {
                    t.space[i] += s.space[i];
                    t.stay[i] += s.stay[i];
                    t.planar[i] += s.planar[i];
                }
            }
        }
        for (h, s) in horizons.iter().zip(&sums) {
            if s.n_space == 0 && s.n_planar == 0 {
                continue;
            }
            let (ns, np) = (s.n_space as f64, s.n_planar as f64);
            let quantities = [
                ("position (m)", 4),
                ("out of plane (m)", 4),
                ("tilt (deg)", 2),
                ("turn (deg)", 2),
            ];
            for (i, (quantity, decimals)) in quantities.into_iter().enumerate() {
                let planar = if i == 0 {
                    format!(
                        "{:.d$} (x-y: {:.d$})",
                        s.planar[i] / np,
                        s.planar_xy / np,
                        d = decimals
                    )
                } else {
                    format!("{:.d$}", s.planar[i] / np, d = decimals)
                };
                println!(
                    "| {name} | {h} | {} / {} | {} / {} | {quantity} | {:.d$} | {:.d$} | {planar} |",
                    s.n_space,
                    s.n_planar,
                    s.dropped_space,
                    s.dropped_planar,
                    s.space[i] / ns,
                    s.stay[i] / ns,
                    d = decimals
                );
            }
        }
    }
    Ok(())
}

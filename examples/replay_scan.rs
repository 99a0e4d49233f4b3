//! Replay error on the shared recordings over smoothing windows (hands x diabolo; env HANDS,
//! DIAS lists, CENTRED=1 for the centred diabolo window), for
//! VALIDATION.md. Run: `cargo run --release --example replay_scan`
use diabolo::model::ParamValues;
use diabolo::replay::{replay, statistics, Recording, ReplayOptions};
fn main() {
    let mut recs: Vec<Recording> = std::fs::read_dir("../shared/data/omron")
        .unwrap()
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .map(|p| Recording::read(&p).unwrap())
        .collect();
    recs.sort_by(|a, b| a.name.cmp(&b.name));
    let hands: Vec<f64> = std::env::var("HANDS")
        .map(|v| v.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or(vec![0.015, 0.025, 0.04]);
    let dias: Vec<f64> = std::env::var("DIAS")
        .map(|v| v.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or(vec![0.025, 0.04, 0.06]);
    for &h in &hands {
        for &d in &dias {
            let opts = ReplayOptions {
                params: ParamValues {
                    friction: 0.25,
                    spin_inertia: 50.0,
                    spin_drag: 0.0,
                    ..Default::default()
                },
                smoothing: h,
                diabolo_smoothing: d,
                causal: std::env::var("CENTRED").is_err(),
                ..Default::default()
            };
            let mut all = Vec::new();
            for r in &recs {
                all.extend(replay(r, &opts).unwrap());
            }
            let s = statistics(&all, &opts.horizons);
            println!(
                "hands {h} dia {d}: {}",
                s.iter()
                    .map(|s| format!(
                        "{}s {:.4} (p90 {:.4}, n {}, dropped {})",
                        s.horizon, s.mean, s.p90, s.n, s.dropped
                    ))
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
        }
    }
}

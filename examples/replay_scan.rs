//! Replay error on the recordings in `data/omron/`, per recording and over all, for VALIDATION.md.
//! Run: `cargo run --release --example replay_scan`. Environment:
//! - INITIAL = assimilate (default), cubic or centred; W = the assimilation window, s (0.2);
//! - HANDS, DIAS = lists of smoothing half-widths, s (0.025 and 0.1);
//! - C, J, D, E = friction, spin inertia, spin drag, restitution (0.25, 50, 0, 0).
use diabolo::model::ParamValues;
use diabolo::replay::{replay, statistics, InitialEstimate, Recording, ReplayOptions};

fn number(key: &str, default: f64) -> f64 {
    std::env::var(key).map_or(default, |v| v.parse().expect(key))
}

fn list(key: &str, default: f64) -> Vec<f64> {
    std::env::var(key).map_or(vec![default], |v| {
        v.split(',').map(|x| x.parse().expect(key)).collect()
    })
}

fn main() {
    let recs =
        Recording::read_dir(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/omron"))
            .unwrap();
    let initial = match std::env::var("INITIAL").as_deref() {
        Ok("cubic") => InitialEstimate::PastCubic,
        Ok("centred") => InitialEstimate::Centred,
        _ => InitialEstimate::Assimilated {
            window: number("W", 0.2),
        },
    };
    let horizons = vec![0.05, 0.1, 0.2, 0.5, 1.0, 2.0];
    println!("horizons {horizons:?} s; mean position error, m; initial {initial:?}");
    for hands in list("HANDS", 0.025) {
        for dia in list("DIAS", 0.1) {
            let opts = ReplayOptions {
                horizons: horizons.clone(),
                params: ParamValues {
                    friction: number("C", 0.25),
                    spin_inertia: number("J", 50.0),
                    spin_drag: number("D", 0.0),
                    restitution: number("E", 0.0),
                    ..Default::default()
                },
                smoothing: hands,
                diabolo_smoothing: dia,
                initial,
                ..Default::default()
            };
            println!("hands {hands} s, diabolo {dia} s:");
            let mut all = Vec::new();
            for r in &recs {
                let results = replay(r, &opts).unwrap();
                let s = statistics(&results, &opts.horizons);
                println!("  {:28} {}", r.name, means(&s));
                all.extend(results);
            }
            let s = statistics(&all, &opts.horizons);
            let dropped: usize = s.iter().map(|s| s.dropped).max().unwrap_or(0);
            println!("  {:28} {}  (dropped {dropped})", "all", means(&s));
            let spins: Vec<String> = s.iter().map(|s| format!("{:.2}", s.spin_mean)).collect();
            println!("  {:28} {}", "spin error, rad/s", spins.join(" "));
        }
    }
}

fn means(stats: &[diabolo::replay::HorizonStats]) -> String {
    let v: Vec<String> = stats.iter().map(|s| format!("{:.4}", s.mean)).collect();
    v.join(" ")
}

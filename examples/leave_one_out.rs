//! Held-out check of `fit`: for each recording in `data/omron/`, fit c, J and D on the other four and
//! replay the held-out one with the fitted values (starting from c = 0.25, J = 50, D = 0).
//! Run: `cargo run --release --example leave_one_out` (about 5 min on 2 cores).
//! With `-- compliant`: the compliant string, fitting c, J, D, the length offset, EA and eta from
//! EA = 200 N, eta = 0 (about 15 min).
use diabolo::fit::{fit, FitOptions, FreeParameter};
use diabolo::replay::{replay, statistics, Recording, ReplayOptions};

fn main() -> anyhow::Result<()> {
    let recordings =
        Recording::read_dir(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/omron"))?;
    let mut start = ReplayOptions::default();
    start.params.friction = 0.25;
    start.params.spin_inertia = 50.0;
    start.params.spin_drag = 0.0;
    let compliant = std::env::args().nth(1).as_deref() == Some("compliant");
    let mut free = vec![
        FreeParameter::Friction,
        FreeParameter::SpinInertia,
        FreeParameter::SpinDrag,
    ];
    if compliant {
        start.params.string_stiffness = Some(200.0);
        free.extend([
            FreeParameter::StringLength,
            FreeParameter::StringStiffness,
            FreeParameter::StringDamping,
        ]);
    }
    let mut held_out = Vec::new();
    for (k, rec) in recordings.iter().enumerate() {
        let training: Vec<Recording> = recordings
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != k)
            .map(|(_, r)| r.clone())
            .collect();
        let report = fit(
            &training,
            &FitOptions {
                replay: start.clone(),
                free: free.clone(),
                spin_weight: 1e-3,
                tilt_weight: diabolo::fit::DEFAULT_TILT_WEIGHT,
                max_iterations: 60,
            },
        )?;
        let results = replay(rec, &report.fitted)?;
        let stats = statistics(&results, &report.fitted.horizons);
        let p = &report.fitted.params;
        println!(
            "{:28} c {:.3} J {:.1} D {:.4} offset {:.4} EA {:?} eta {:.2}: {}",
            rec.name,
            p.friction,
            p.spin_inertia,
            p.spin_drag,
            report.fitted.length_offset,
            p.string_stiffness.map(|ea| ea.round()),
            p.string_damping,
            stats
                .iter()
                .map(|s| format!(
                    "{}s {:.4} (p90 {:.4}, spin {:.2})",
                    s.horizon, s.mean, s.p90, s.spin_mean
                ))
                .collect::<Vec<_>>()
                .join(" | ")
        );
        held_out.extend(results);
    }
    let stats = statistics(&held_out, &start.horizons);
    println!(
        "{:28} {}",
        "all, held out",
        stats
            .iter()
            .map(|s| format!(
                "{}s {:.4} (p90 {:.4}, spin {:.2}, n {})",
                s.horizon, s.mean, s.p90, s.spin_mean, s.n
            ))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    Ok(())
}

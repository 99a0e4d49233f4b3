//! The tables of VALIDATION.md: every recording in `data/omron/` replayed with the parameters of a
//! `params` JSON file (as `diabolo fit` writes), as Markdown, all recordings together first.
//! Run: `cargo run --release --example validation_tables -- validation/omron_fitted.json`.
use diabolo::fit::ParamsFile;
use diabolo::replay::{replay, statistics, HorizonStats, Recording};

fn main() -> anyhow::Result<()> {
    let file = std::env::args()
        .nth(1)
        .unwrap_or("validation/reference_params.json".into());
    let options = ParamsFile::read(std::path::Path::new(&file))?.replay_options()?;
    let recordings =
        Recording::read_dir(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/omron"))?;
    let mut all = Vec::new();
    let mut sections = Vec::new();
    for rec in &recordings {
        let results = replay(rec, &options)?;
        let length = diabolo::replay::recording_params(rec, &options)?.string_length;
        sections.push((
            format!("`{}` (L = {length:.4} m)", rec.name),
            statistics(&results, &options.horizons),
        ));
        all.extend(results);
    }
    println!(
        "c = {}, J = {}, D = {} /s, length offset {:.4} m, initial state: {}\n",
        options.params.friction,
        options.params.spin_inertia,
        options.params.spin_drag,
        options.length_offset,
        options.initial
    );
    table("all five recordings", &statistics(&all, &options.horizons));
    for (title, stats) in &sections {
        table(title, stats);
    }
    Ok(())
}

fn table(title: &str, stats: &[HorizonStats]) {
    println!("**{title}**\n");
    let Some(first) = stats.first() else {
        return;
    };
    let headings: Vec<&str> = first.figures().iter().map(|f| f.heading).collect();
    println!("| horizon (s) | n | {} | dropped |", headings.join(" | "));
    println!("|---|---|{}---|", "---|".repeat(headings.len()));
    for s in stats {
        let figures: Vec<String> = s
            .figures()
            .iter()
            .map(|f| format!("{:.*}", f.decimals, f.value))
            .collect();
        println!(
            "| {} | {} | {} | {} |",
            s.horizon,
            s.n,
            figures.join(" | "),
            s.dropped
        );
    }
    println!();
}

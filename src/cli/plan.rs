//! `diabolo plan`: the planned scenario of a task (docs/plan.md), its report, and exit 1 when
//! the best plan found still misses a target.

use std::io::{self, IsTerminal, Write};

use super::args::PlanArgs;
use super::input::read_document;
use super::{create_output, note, write_file, CliError};
use diabolo::display::compact;
use diabolo::plan::{
    plan as search_plan, planned_text, PlanOptions, Progress, SearchOptions, Task,
};

pub fn plan(args: &PlanArgs) -> Result<(), CliError> {
    let (document, base) = read_document(&args.input)?;
    let task = Task::from_document(document, &base)?;
    let jobs = super::sweep::jobs(args.jobs)?;
    // Ctrl-C ends the search with the best plan so far, written as usual.
    diabolo::output::defer_first_interrupt();
    let output = create_output("-o", &args.output)?;
    let report = args
        .report
        .as_deref()
        .map(|p| create_output("--report", p))
        .transpose()?;
    let options = PlanOptions {
        search: SearchOptions {
            seed: args.seed,
            max_simulations: usize::try_from(args.max_simulations).unwrap_or(usize::MAX),
            ..SearchOptions::default()
        },
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| CliError::Run(format!("cannot start {jobs} threads: {e}")))?;
    let live = !args.input.quiet && io::stderr().is_terminal();
    let mut progress = |p: &Progress| {
        if live {
            let _ = write!(
                io::stderr(),
                "\rstart {} iteration {}: {} runs, cost {}{}   ",
                p.start,
                p.iteration,
                p.simulations,
                compact(p.cost),
                if p.feasible { ", targets met" } else { "" }
            );
        }
    };
    let stop = diabolo::output::interrupted;
    let planned = pool.install(|| search_plan(&task, &options, &stop, &mut progress));
    if live {
        let _ = writeln!(io::stderr());
    }
    write_file(output, |f| {
        f.write_all(planned_text(&planned.scenario).as_bytes())
    })?;
    if let Some(file) = report {
        let text = serde_json::to_string_pretty(&planned).expect("a report is JSON");
        write_file(file, |f| writeln!(f, "{text}"))?;
    }
    let unmet: Vec<String> = planned
        .unmet()
        .map(|c| {
            let value = c.value.map_or("none".to_string(), compact);
            format!("{} (value {value}, margin {})", c.what, compact(c.margin))
        })
        .collect();
    if !args.input.quiet {
        note(format!(
            "plan: {} after {} runs in {:.1} s ({} starts, {} iterations, stopped: {}); effort {}",
            if unmet.is_empty() {
                "every target met"
            } else {
                "targets missed"
            },
            planned.simulations,
            planned.wall_time,
            planned.starts,
            planned.iterations,
            planned.stopped,
            compact(planned.effort)
        ))?;
    }
    if unmet.is_empty() {
        Ok(())
    } else {
        Err(CliError::Unmet(unmet.join(", ")))
    }
}

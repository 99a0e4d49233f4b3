//! `diabolo orbit`: a periodic orbit of a scenario, its multipliers and its energy budget.

use std::io::Write;

use super::args::OrbitArgs;
use super::input::load;
use super::{create_output, say, write_file, CliError};
use diabolo::orbit::{
    drives_period, find_orbit, orbit_json, parse_section, OrbitError, OrbitOptions, Timing,
};
use diabolo::output::TrajectoryWriter;
use diabolo::scenario::ScenarioError;

pub fn orbit(args: &OrbitArgs) -> Result<(), CliError> {
    let (_, simulation) = load(&args.input)?;
    if !(args.tol.is_finite() && args.tol > 0.0) {
        return Err(flag(
            "--tol",
            format!("must be a finite number greater than 0, got {}", args.tol),
        ));
    }
    if !(args.guess_time.is_finite() && args.guess_time >= 0.0) {
        return Err(flag(
            "--guess-time",
            format!(
                "must be a finite number of seconds >= 0, got {}",
                args.guess_time
            ),
        ));
    }
    let jobs = match args.jobs {
        Some(0) => return Err(flag("--jobs", "at least one thread is needed".into())),
        Some(j) => j,
        None => OrbitOptions::default().jobs,
    };
    let timing =
        match (&args.section, args.period) {
            (Some(spec), None) => Timing::Autonomous(parse_section(spec, &simulation)?),
            (Some(_), Some(_)) => return Err(flag(
                "--section",
                "give either --section (an autonomous orbit) or --period (a forced one), not both"
                    .into(),
            )),
            (None, Some(period)) => {
                if !(period.is_finite() && period > 0.0) {
                    return Err(OrbitError::BadPeriod { value: period }.into());
                }
                Timing::Forced { period }
            }
            (None, None) => match drives_period(&simulation)? {
                Some(period) => Timing::Forced { period },
                None => return Err(OrbitError::NoPeriod.into()),
            },
        };
    let output = args
        .output
        .as_deref()
        .map(|p| create_output("-o", p))
        .transpose()?;
    let trajectory = args
        .trajectory
        .as_deref()
        .map(|p| create_output("--trajectory", p))
        .transpose()?;
    let options = OrbitOptions {
        tolerance: args.tol,
        guess_time: args.guess_time,
        jobs,
        ..OrbitOptions::default()
    };
    let orbit = find_orbit(&simulation, timing, &options)?;
    let text = serde_json::to_string_pretty(&orbit_json(&orbit)).expect("JSON of numbers");
    if let Some(file) = trajectory {
        let mut one_period = simulation.clone();
        one_period.initial = orbit.state.clone();
        one_period.settings.duration = orbit.period;
        one_period.settings.rtol = one_period.settings.rtol.min(1e-12);
        one_period.settings.atol = one_period.settings.atol.min(1e-14);
        write_file(file, |f| {
            let mut writer = TrajectoryWriter::new(f, &one_period)?;
            let mut result = Ok(());
            one_period.run(&mut |row| {
                if result.is_ok() {
                    result = writer.write_row(row);
                }
            });
            result.and_then(|()| writer.into_inner().flush())
        })?;
    }
    match output {
        Some(file) => write_file(file, |f| writeln!(f, "{text}")),
        None => say(text),
    }
}

fn flag(flag: &str, reason: String) -> CliError {
    CliError::Input(ScenarioError::Flag {
        flag: flag.into(),
        reason,
    })
}

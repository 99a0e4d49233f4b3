//! The command line's clap definitions: commands, flags, their help and defaults.

use std::path::PathBuf;

use clap::{Args, FromArgMatches, Parser, Subcommand};

use diabolo::scenario::{Limits, ScenarioError};

#[derive(Debug, Parser)]
#[command(
    name = "diabolo",
    version,
    about = "Batch simulator of diabolo string dynamics: a JSON scenario in, a CSV trajectory out",
    after_help = "Examples:\n  diabolo run scenarios/whip.json -o whip.csv --events whip.jsonl\n  diabolo validate scenarios/sun.json\n  diabolo schema > scenario.schema.json"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Flush every output file to the disk before renaming it into place (and its folder
    /// after): the file survives a power cut or a system crash. Costs a disk flush per file
    /// (1-2 ms on a local SSD). Without it a file still appears only when complete.
    #[arg(long, global = true)]
    pub fsync: bool,
}

/// The subcommands. Each one's arguments are built only when it is used (`defer`: clap's part of
/// a start, 0.74 -> 0.46 million instructions for `diabolo --version`). An `Args` struct
/// flattened into a subcommand then carries a plain comment: its doc comment would replace the
/// subcommand's own description in the manual.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Run one scenario: the trajectory CSV to -o (or stdout), the summary to stderr.
    #[command(
        after_help = "Examples:\n  diabolo run scenarios/whip.json -o whip.csv --events whip.jsonl\n  diabolo run scenarios/hanging.json --set params.friction=0.3 --set sim.duration=5 > out.csv\n  cat scenarios/snap.json | diabolo run - --quiet -o snap.csv"
    )]
    Run(RunArgs),
    /// Check a scenario and say what is wrong, with its JSON path and the fix.
    #[command(
        after_help = "Example:\n  diabolo validate scenarios/sun.json --set params.friction=-1"
    )]
    Validate(ValidateArgs),
    /// Print the JSON Schema of the scenario format.
    #[command(after_help = "Example:\n  diabolo schema > scenario.schema.json")]
    Schema,
    /// Run a scenario over a grid (or random samples) of parameter values, in parallel: one
    /// summary row per point, in point order.
    #[command(
        after_help = "Examples:\n  diabolo sweep scenarios/whip.json --grid params.friction=0.1:0.3:5 --list params.spin_inertia=20,50 -o sweep.csv\n  diabolo sweep scenarios/swing.json --grid params.friction=0.05:0.4:100 --samples 1000 --seed 7 --jobs 2 -o random.csv\n  diabolo sweep scenarios/whip.json --grid params.friction=0.1:0.3:64 --shard 2/4 -o part2.csv"
    )]
    Sweep(SweepCommand),
    /// Compare two trajectory CSVs column by column; exit 1 when any deviates beyond tolerance.
    #[command(
        after_help = "Example (the golden files are on a 0.05 s grid: write the run on it too, or the\nvalues are interpolated and a warning says how far that alone can be off):\n  diabolo run scenarios/whip.json --set sim.output_interval=0.05 -o new.csv\n  diabolo check new.csv tests/golden/whip.csv --rtol 1e-7 --atol 1e-9 --columns d1_x,d1_y,d1_w"
    )]
    Check(CheckArgs),
    /// Draw a trajectory: time series with the events marked, or (--xy) the paths in the plane.
    ///
    /// Time series of chosen columns, one panel each, with the loose phases shaded and the events
    /// as vertical lines; or with --xy the paths of the sticks and diabolos in the plane and the
    /// string at a few instants. SVG or PNG by the file's extension.
    #[command(
        after_help = "Examples:\n  diabolo run scenarios/sun.json -o sun.csv --events sun.jsonl\n  diabolo plot sun.csv -o sun.svg --events sun.jsonl\n  diabolo plot sun.csv -o sun.png --columns d1_y,d1_w,T0+T1,energy\n  diabolo plot sun.csv -o sun_xy.svg --xy --instants 6 --events sun.jsonl\n  diabolo plot long.csv -o window.png --from 20 --to 25 --events long.jsonl"
    )]
    Plot(PlotArgs),
    /// Animate a trajectory: sticks, string and spinning diabolos, as SVG or GIF.
    ///
    /// The sticks, the string and the diabolos move in real time (or --speed times faster), with
    /// the time and the phase shown; an animated SVG that plays in a browser, or a GIF, by the
    /// file's extension.
    #[command(
        after_help = "Examples:\n  diabolo animate sun.csv -o sun.svg\n  diabolo animate whip.csv -o whip.gif --fps 20 --speed 0.5 --width 480 --height 360\n  diabolo animate long.csv -o window.gif --from 20 --to 25"
    )]
    Animate(AnimateArgs),
    /// Replay a motion-capture recording: the model driven by the recorded hands predicts the
    /// recorded diabolo from starts along it; errors per prediction horizon.
    #[command(
        after_help = "Examples:\n  diabolo replay data/omron/y_swing_1_seg1.csv --params fitted.json\n  diabolo replay rec.csv --horizons 0.2,1,2 --stride 0.5 --json -o errors.csv"
    )]
    Replay(ReplayArgs),
    /// Find a periodic orbit: the fixed point of the Poincare map by Newton shooting, its
    /// period, Floquet multipliers, stability and energy budget per period.
    ///
    /// Forced (periodic drives, or --period): the map is one period of the drives. Autonomous
    /// (still or released hands): a section KEY=VALUE crossed up or down fixes the phase and the
    /// period is solved for. The orbit's JSON goes to -o (default: standard output).
    #[command(
        after_help = "Examples:\n  diabolo orbit scenarios/swing.json --section d1_x=0,up --guess-time 20 -o swing_orbit.json\n  diabolo orbit driven.json --guess-time 20 --trajectory orbit.csv\n  diabolo orbit scenarios/whip.json --period 0.6 --guess-time 2.4 --set params.spin_drag=0.5\n  diabolo orbit driven.json --guess-time 10 --continue drive.right.sine.frequency=0.25:0.3:26 -o branch.csv"
    )]
    Orbit(OrbitArgs),
    /// Fit parameters to recordings by minimising the replay error over all of them together.
    #[command(
        after_help = "Example:\n  diabolo fit data/omron/*.csv --free friction,spin_inertia,spin_drag,string_length -o fitted.json"
    )]
    Fit(FitArgs),
    /// Plan the hands: what the planned sticks must do so that the run meets the task's
    /// targets (a scenario with a "plan" object, docs/plan.md); the planned scenario to -o.
    ///
    /// Exit 0: every target met; 1: the best plan found is written and the unmet targets are
    /// named; 2: a bad task, nothing written.
    #[command(
        after_help = "Examples:\n  diabolo plan scenarios/plans/carry.json -o carry_planned.json --report carry_report.json\n  diabolo run carry_planned.json -o carry.csv --events carry.jsonl"
    )]
    Plan(PlanArgs),
    /// Print the shell completion script of bash, zsh, fish, powershell or elvish.
    #[command(
        after_help = "Examples:\n  source <(diabolo completions bash)\n  diabolo completions bash > ~/.local/share/bash-completion/completions/diabolo\n  diabolo completions zsh > ~/.zfunc/_diabolo\n  diabolo completions fish > ~/.config/fish/completions/diabolo.fish"
    )]
    Completions(CompletionsArgs),
    /// Print the manual page (roff): diabolo(1), or a subcommand's own page (diabolo-run(1)...).
    #[command(
        after_help = "Examples:\n  diabolo man > diabolo.1 && man ./diabolo.1\n  diabolo man run > diabolo-run.1"
    )]
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub struct PlanArgs {
    #[command(flatten)]
    pub input: ScenarioArgs,
    /// The planned scenario (the task without "plan", the planned hands' drives replaced).
    #[arg(short, long, value_name = "PLANNED.json")]
    pub output: PathBuf,
    /// The plan's report: each target's value and margin, the limits', the effort, the search.
    #[arg(long, value_name = "REPORT.json")]
    pub report: Option<PathBuf>,
    /// Seeds the search's random starts (the same seed, the same plan, whatever --jobs is).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Threads for the runs of the search (default: all cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// At most this many runs of the scenario (at least 1).
    #[arg(long, value_name = "RUNS", default_value_t = 10000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_simulations: u64,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The subcommand whose page to print (default: the page of diabolo itself).
    #[arg(value_name = "SUBCOMMAND")]
    pub subcommand: Option<String>,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct PlotArgs {
    /// The trajectory CSV (written by diabolo run), or a continuation's (diabolo orbit
    /// --continue): its bifurcation diagram.
    pub trajectory: PathBuf,
    /// The picture: FILE.svg or FILE.png.
    #[arg(short, long, value_name = "FILE.svg|png")]
    pub output: PathBuf,
    /// Columns, one panel each; join columns with + to share a panel (T0+T1). Default: the
    /// diabolos' heights, their spins, the tensions, the slack.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "C1,C2+C3,...",
        conflicts_with = "xy"
    )]
    pub columns: Vec<String>,
    /// The event log (JSON lines of diabolo run --events): vertical lines, or markers with --xy.
    #[arg(long, value_name = "EVENTS.jsonl")]
    pub events: Option<PathBuf>,
    /// The paths of the sticks and diabolos in the x-y plane, with the string at a few instants.
    #[arg(long)]
    pub xy: bool,
    /// With --xy: how many instants show the string (evenly spaced, both ends included).
    #[arg(long, default_value_t = 5, requires = "xy")]
    pub instants: usize,
    /// With --xy: the diabolo's radius to draw, m (the scenario's params.diabolo_radius;
    /// default 0.0635, a 127 mm diabolo).
    #[arg(long, value_name = "METRES", requires = "xy")]
    pub radius: Option<f64>,
    /// With --xy: the views side by side, comma-separated: front (x-y), top (x-z, from above,
    /// the audience down the picture), side (z-y, from the left, the audience to the right).
    /// Default: front; for a trajectory in space (z columns) front,top.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "front|top|side,...",
        requires = "xy"
    )]
    pub view: Vec<String>,
    /// The Poincare section of a long run: the trajectory sampled once per period T (s) or
    /// where a column crosses a value (KEY=VALUE[,up|down]); --columns A,B picks the two
    /// columns drawn (default d1_x,d1_vx). A continuation's CSV (diabolo orbit --continue) is
    /// drawn as its bifurcation diagram without this flag.
    #[arg(long, value_name = "T|KEY=VALUE[,up|down]", conflicts_with = "xy")]
    pub poincare: Option<String>,
    /// Width in pixels (default 900; --xy 800, or 1200 with two or three views).
    #[arg(long)]
    pub width: Option<u32>,
    /// Height in pixels (default 180 per panel and 70 more; --xy 640).
    #[arg(long)]
    pub height: Option<u32>,
    #[command(flatten)]
    pub window: WindowArgs,
}

// The progress flag of a long command that writes nothing else on standard error.
// (Not a doc comment: see `Command`.)
#[derive(Debug, Args)]
pub struct ProgressArgs {
    /// No progress bar on standard error (it shows only on a terminal, after a second).
    #[arg(short, long)]
    pub quiet: bool,
}

// `--from` and `--to`: a time window of the trajectory (shared by `plot` and `animate`).
// (Not a doc comment: see `Command`.)
#[derive(Debug, Args)]
pub struct WindowArgs {
    /// Draw from this time on, s (default: the start of the run).
    #[arg(long, value_name = "T")]
    pub from: Option<f64>,
    /// Draw up to this time, s (default: the end of the run).
    #[arg(long, value_name = "T")]
    pub to: Option<f64>,
}

#[derive(Debug, Args)]
pub struct AnimateArgs {
    /// The trajectory CSV (written by diabolo run).
    pub trajectory: PathBuf,
    /// The animation: FILE.svg (SMIL, plays in a browser) or FILE.gif.
    #[arg(short, long, value_name = "FILE.svg|gif")]
    pub output: PathBuf,
    /// Frames per second (a GIF shows at most 50).
    #[arg(long, default_value_t = 30.0)]
    pub fps: f64,
    /// Playing speed: 1 is real time, 0.25 four times slower.
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// Width in pixels.
    #[arg(long, default_value_t = 640)]
    pub width: u32,
    /// Height in pixels.
    #[arg(long, default_value_t = 480)]
    pub height: u32,
    /// How many times slower than real the spools turn (default: the smallest of 1, 2, 5, 10,
    /// 20, ... that keeps the turn between frames within 30 degrees).
    #[arg(long, value_name = "FACTOR")]
    pub spin_slowdown: Option<f64>,
    /// The diabolo's radius to draw, m (the scenario's params.diabolo_radius; default 0.0635,
    /// a 127 mm diabolo).
    #[arg(long, value_name = "METRES")]
    pub radius: Option<f64>,
    /// The event log (JSON lines of diabolo run --events): each event's kind labelled beside
    /// its object for 15 frames from its time.
    #[arg(long, value_name = "EVENTS.jsonl")]
    pub events: Option<PathBuf>,
    /// A trajectory in space: the views side by side, comma-separated: front (x-y), top (x-z,
    /// from above, the audience down the picture), side (z-y, from the left). Default: front,top.
    #[arg(long, value_delimiter = ',', value_name = "front|top|side,...")]
    pub view: Vec<String>,
    #[command(flatten)]
    pub window: WindowArgs,
    #[command(flatten)]
    pub progress: ProgressArgs,
}

// `diabolo sweep SCENARIO ...` runs a sweep; `diabolo sweep merge SHARDS... -o FILE` merges
// the shards of one: either a subcommand or the sweep's arguments (their required scenario
// then not required), read by hand below since clap's derive cannot make a flattened struct
// with flattened parts of its own optional. (Not a doc comment: see `Command`.)
#[derive(Debug)]
pub struct SweepCommand {
    pub action: Option<SweepAction>,
    pub run: Option<SweepArgs>,
}

impl FromArgMatches for SweepCommand {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        Self::from_arg_matches_mut(&mut matches.clone())
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.update_from_arg_matches_mut(&mut matches.clone())
    }

    fn from_arg_matches_mut(matches: &mut clap::ArgMatches) -> Result<Self, clap::Error> {
        if matches.subcommand_name().is_some() {
            Ok(Self {
                action: Some(SweepAction::from_arg_matches_mut(matches)?),
                run: None,
            })
        } else {
            Ok(Self {
                action: None,
                run: Some(SweepArgs::from_arg_matches_mut(matches)?),
            })
        }
    }

    fn update_from_arg_matches_mut(
        &mut self,
        matches: &mut clap::ArgMatches,
    ) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches_mut(matches)?;
        Ok(())
    }
}

impl Args for SweepCommand {
    fn augment_args(command: clap::Command) -> clap::Command {
        SweepAction::augment_subcommands(SweepArgs::augment_args(command))
            .args_conflicts_with_subcommands(true)
            .subcommand_negates_reqs(true)
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        Self::augment_args(command)
    }
}

// What `diabolo sweep` does besides running a sweep. (Not a doc comment: see `Command`.)
#[derive(Debug, Subcommand)]
pub enum SweepAction {
    /// Merge the shards of one sweep (written by diabolo sweep --shard K/N -o FILE) into the
    /// file the sweep writes on one machine, byte for byte.
    ///
    /// Every shard from 1 to N must be given once, all of one sweep (each shard's stamp
    /// FILE.json says which); the missing and the doubled ones are named, and nothing is
    /// written (exit 2).
    #[command(after_help = "Example:\n  diabolo sweep merge shard-*.csv -o sweep.csv")]
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shards' summary CSVs, in any order (each with its stamp FILE.json beside it).
    #[arg(required = true, value_name = "SHARD.csv")]
    pub shards: Vec<PathBuf>,
    /// The merged summary CSV.
    #[arg(short, long, value_name = "SWEEP.csv")]
    pub output: PathBuf,
}

#[derive(Debug, Args)]
pub struct SweepArgs {
    #[command(flatten)]
    pub input: ScenarioArgs,
    /// A grid axis: KEY=START:STOP:COUNT (COUNT values, both ends included). Repeatable.
    #[arg(long, value_name = "KEY=START:STOP:COUNT")]
    pub grid: Vec<String>,
    /// A list axis: KEY=V1,V2,... Repeatable.
    #[arg(long, value_name = "KEY=V1,V2,...")]
    pub list: Vec<String>,
    /// Instead of the grid, this many random points: grid axes uniform in [START, STOP], list
    /// axes one of their values.
    #[arg(long, value_name = "N")]
    pub samples: Option<usize>,
    /// Seed of --samples.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Summary CSV (default: standard output).
    #[arg(short, long, value_name = "SUMMARY.csv")]
    pub output: Option<PathBuf>,
    /// Threads (default: all cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Run only the K-th of N contiguous blocks of points.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Write each point's trajectory to DIR/point_IIIIII.csv (I = the point's index).
    #[arg(long, value_name = "DIR")]
    pub save_trajectories: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct OrbitArgs {
    #[command(flatten)]
    pub input: ScenarioArgs,
    /// The orbit's period, s (forced orbits; default: the drives' common period): at least
    /// 0.01, a whole number of every sine drive's period; the search (up to 652 periods for
    /// one diabolo) must fit in --max-duration.
    #[arg(long, value_name = "T")]
    pub period: Option<f64>,
    /// A Poincare section for an autonomous orbit: a free coordinate (d1_x, d1_vy, d1_w,
    /// left_x... for a stick no path drives) crossing VALUE upward (default) or downward.
    #[arg(long, value_name = "KEY=VALUE[,up|down]")]
    pub section: Option<String>,
    /// Run this long first and start from there, s (forced: whole periods; with --section, as
    /// long again to find the period): within --max-duration. Every diabolo must be on the
    /// string there.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    pub guess_time: f64,
    /// Newton stops when the largest residual entry is below this.
    #[arg(long, default_value_t = 1e-10)]
    pub tol: f64,
    /// The orbit's JSON (default: standard output).
    #[arg(short, long, value_name = "ORBIT.json")]
    pub output: Option<PathBuf>,
    /// One period of the orbit as a trajectory CSV (rows every sim.output_interval).
    #[arg(long, value_name = "ORBIT.csv")]
    pub trajectory: Option<PathBuf>,
    /// Threads for the Jacobian's columns (default: all cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Follow the orbit through a parameter (COUNT values from START to STOP, each orbit the
    /// guess of the next, a step halved on failure): one CSV row per value to -o (default:
    /// standard output) instead of the JSON.
    #[arg(long = "continue", value_name = "KEY=START:STOP:COUNT")]
    pub continuation: Option<String>,
    /// Hold the (forced) orbit by feedback: the named numeric scenario fields (any KEY --set
    /// accepts that the scenario gives) are corrected once per period by u = -K (z - z*), K
    /// the discrete LQR gain; B, K, the closed-loop multipliers and perturbed runs are added
    /// to the JSON as "stabilization" (exit 1 when the closed loop is not stable).
    #[arg(
        long,
        value_name = "KEY[,KEY...]",
        value_delimiter = ',',
        conflicts_with = "continuation"
    )]
    pub stabilize: Option<Vec<String>>,
    /// --stabilize: r, the weight of the corrections in the regulator's cost
    /// sum |z - z*|^2 + r |u|^2.
    #[arg(long, value_name = "R", default_value_t = 1.0, requires = "stabilize")]
    pub lqr_r: f64,
    /// --stabilize: periods each perturbed start is run.
    #[arg(long, value_name = "N", default_value_t = 12, requires = "stabilize")]
    pub periods: usize,
    /// --stabilize: perturbed starts.
    #[arg(long, value_name = "N", default_value_t = 3, requires = "stabilize")]
    pub starts: usize,
    /// --stabilize: the size of the starting deviation |z(0) - z*| (m, m/s, rad/s alike).
    #[arg(
        long,
        value_name = "SIZE",
        default_value_t = 1e-3,
        requires = "stabilize"
    )]
    pub perturb: f64,
    /// --stabilize: seeds the perturbed starts' directions.
    #[arg(long, default_value_t = 1, requires = "stabilize")]
    pub seed: u64,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The trajectory to check.
    pub actual: PathBuf,
    /// The reference trajectory.
    pub expected: PathBuf,
    /// Relative tolerance.
    #[arg(long, default_value_t = 1e-6)]
    pub rtol: f64,
    /// Absolute tolerance.
    #[arg(long, default_value_t = 1e-9)]
    pub atol: f64,
    /// Compare only these columns (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub columns: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ScenarioArgs {
    /// The scenario JSON file, or - for standard input.
    pub scenario: String,
    /// Override a field by its dotted path, e.g. params.friction=0.2 or initial.diabolos[0].spin=3
    /// (repeatable; VALUE is read as JSON, else as a string).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Refuse a run of more trajectory rows than this (floor(duration / output_interval) + 1;
    /// the default 10^7 rows is about 4.8 GB of CSV).
    #[arg(long, value_name = "ROWS", default_value_t = Limits::DEFAULT_MAX_ROWS)]
    pub max_rows: u64,
    /// Refuse a run of more simulated time than this, s (the default 1e5 s, more than a day,
    /// is far beyond any routine; longer runs only fill the disk).
    #[arg(long, value_name = "SECONDS", default_value_t = Limits::DEFAULT_MAX_DURATION)]
    pub max_duration: f64,
    /// Nothing on standard error but errors: no summary, no progress, no plausibility warnings.
    #[arg(short, long)]
    pub quiet: bool,
    /// Refuse values a real diabolo does not have (a string of 146 m, a spin of 100 m/s): the
    /// plausibility warnings become errors (exit 2, nothing written).
    #[arg(long)]
    pub strict: bool,
}

impl ScenarioArgs {
    /// The limits of `--max-rows` and `--max-duration`.
    pub fn limits(&self) -> Result<Limits, ScenarioError> {
        if !(self.max_duration.is_finite() && self.max_duration > 0.0) {
            return Err(ScenarioError::Flag {
                flag: "--max-duration".into(),
                reason: format!(
                    "{} is not a duration; give a positive number of seconds",
                    diabolo::display::compact(self.max_duration)
                ),
            });
        }
        Ok(Limits {
            max_rows: self.max_rows,
            max_duration: self.max_duration,
        })
    }
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub input: ScenarioArgs,
    /// Trajectory CSV file (default: standard output).
    #[arg(short, long, value_name = "TRAJ.csv")]
    pub output: Option<PathBuf>,
    /// Event log, JSON lines.
    #[arg(long, value_name = "EVENTS.jsonl")]
    pub events: Option<PathBuf>,
    /// Write the one-line JSON summary here instead of standard error.
    #[arg(long, value_name = "SUMMARY.json")]
    pub summary: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub input: ScenarioArgs,
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A recording CSV (t,left_x,left_y,right_x,right_y,dia_x,dia_y,spin), or a folder: each of
    /// its *.csv and *.csv.gz recordings, by name.
    pub recording: PathBuf,
    /// Parameters: a JSON file with a `params` object in the scenario format (as `fit` writes).
    #[arg(long, value_name = "PARAMS.json")]
    pub params: Option<PathBuf>,
    /// Prediction horizons, s (multiples of 0.005) [default: 0.2,0.5,1,2]. Each recording
    /// scores those it holds and reports the others left out; a given horizon that no recording
    /// holds is an error (of the defaults, only none held).
    #[arg(long, value_delimiter = ',')]
    pub horizons: Option<Vec<f64>>,
    /// Time between starts, s.
    #[arg(long, default_value_t = 0.25)]
    pub stride: f64,
    #[command(flatten)]
    pub settings: ReplaySettingsArgs,
    /// One JSON object instead of the table (a folder: an array of them, one per recording).
    #[arg(long)]
    pub json: bool,
    /// Per-start errors CSV.
    #[arg(short, long, value_name = "ERRORS.csv")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub progress: ProgressArgs,
}

// How a replay estimates the string length, the initial diabolo state and the hand paths
// (shared by `replay` and `fit`).
// (Not a doc comment: see `Command`.)
#[derive(Debug, Args)]
pub struct ReplaySettingsArgs {
    /// Effective string length: `median` (of the taut frames' sums, default), `p98` (98th
    /// percentile of the sums), or a length in m. The sums are read where the diabolo is below
    /// the tips' line; an estimate is no shorter than the tips' farthest span (inextensible).
    #[arg(long, default_value = "median")]
    pub length: String,
    /// Initial diabolo state: `assimilate` (the model fitted to the frames of the window before
    /// the start), `cubic` (a cubic fitted to the frames of 2 x diabolo-smoothing before the
    /// start) or `centred` (a centred smoothing window: it sees frames after the start).
    #[arg(long, value_enum, default_value_t = InitialArg::Assimilate)]
    pub initial: InitialArg,
    /// Assimilation window W, s (with --initial assimilate).
    #[arg(long, default_value_t = 0.2)]
    pub window: f64,
    /// Half-width of the diabolo smoothing window, s (the cubic uses twice it, before the
    /// start).
    #[arg(long, default_value_t = 0.1)]
    pub diabolo_smoothing: f64,
    /// Half-width of the smoothing window of the recorded hand paths, s.
    #[arg(long, default_value_t = 0.025)]
    pub hand_smoothing: f64,
    /// Replay a recording with the 3D columns by the planar model on its x and y (as a planar
    /// recording) instead of by the model in space.
    #[arg(long)]
    pub planar: bool,
}

/// `--initial`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum InitialArg {
    Assimilate,
    Cubic,
    Centred,
}

#[derive(Debug, Args)]
pub struct FitArgs {
    /// Recording CSVs, or folders of them, fitted together.
    #[arg(required = true)]
    pub recordings: Vec<PathBuf>,
    /// The parameters to move: friction, spin_inertia, spin_drag, string_length (a correction
    /// added to every recording's estimated length), string_stiffness, string_damping (the
    /// compliant string; string_stiffness starts from the --params value or 200 N), and for
    /// recordings replayed in space axle_radius and (with "axle_model": "rigid")
    /// transverse_inertia.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "friction,spin_inertia,spin_drag"
    )]
    pub free: Vec<String>,
    /// Starting values (a `params` JSON file, as for replay).
    #[arg(long, value_name = "PARAMS.json")]
    pub params: Option<PathBuf>,
    /// Horizons of the objective, s [default: 0.2,0.5,1,2] (each recording scores those it
    /// holds, as for replay).
    #[arg(long, value_delimiter = ',')]
    pub horizons: Option<Vec<f64>>,
    /// Time between starts, s.
    #[arg(long, default_value_t = 0.25)]
    pub stride: f64,
    /// Weight of the mean spin error (rad/s) in the objective, m per rad/s.
    #[arg(long, default_value_t = 1e-3)]
    pub spin_weight: f64,
    /// Weight of the mean tilt error of the axle (degrees) in the objective, m per degree (the
    /// recordings replayed in space only).
    #[arg(long, default_value_t = diabolo::fit::DEFAULT_TILT_WEIGHT)]
    pub tilt_weight: f64,
    #[command(flatten)]
    pub settings: ReplaySettingsArgs,
    /// Nelder-Mead iterations.
    #[arg(long, default_value_t = 60)]
    pub iterations: u64,
    /// Write the fitted parameters here (a `params` object in the scenario format).
    #[arg(short, long, value_name = "PARAMS.json")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub progress: ProgressArgs,
}

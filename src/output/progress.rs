//! A long run shows it is alive: a progress bar on standard error, by simulated time over the
//! duration, drawn only on a terminal and only once the run has taken about a second (short runs,
//! tests and pipes see nothing at all).

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::display::compact;

/// Wall time before the bar appears, unless `DIABOLO_PROGRESS_AFTER` (seconds) says otherwise.
const QUIET_START: Duration = Duration::from_secs(1);

/// The environment variable that sets the wall time before the bar appears, s.
pub const PROGRESS_AFTER_VARIABLE: &str = "DIABOLO_PROGRESS_AFTER";

/// Bar positions over the duration (the bar shows whole percents).
const POSITIONS: u64 = 1000;

/// A bar that appears only once the wait (`DIABOLO_PROGRESS_AFTER`, default a second) is over,
/// and never when it is not shown (not a terminal, or quiet): what both progress kinds share.
#[derive(Debug)]
struct DelayedBar {
    /// Whether a bar may ever be drawn.
    shown: bool,
    start: Instant,
    /// Wall time before the bar appears.
    quiet_start: Duration,
    bar: Option<ProgressBar>,
}

impl DelayedBar {
    fn new(shown: bool) -> Self {
        Self {
            shown,
            start: Instant::now(),
            quiet_start: quiet_start(std::env::var(PROGRESS_AFTER_VARIABLE).ok().as_deref()),
            bar: None,
        }
    }

    /// The bar, made by `make` (given the wall time so far) once the wait is over; `None`
    /// before, and always when not shown.
    fn bar(&mut self, make: impl FnOnce(Duration) -> ProgressBar) -> Option<&ProgressBar> {
        if !self.shown {
            return None;
        }
        if self.bar.is_none() {
            let elapsed = self.start.elapsed();
            if elapsed < self.quiet_start {
                return None;
            }
            self.bar = Some(make(elapsed));
        }
        self.bar.as_ref()
    }

    /// The bar, if any, is erased.
    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// Whether standard error is a terminal that may show a bar, unless `quiet`.
fn terminal_shows(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

/// The progress of one run by its simulated time.
#[derive(Debug)]
pub struct RunProgress {
    /// The run's duration, s.
    duration: f64,
    delayed: DelayedBar,
}

impl RunProgress {
    /// A bar for a run of `duration` s, shown on a terminal standard error unless `quiet`.
    pub fn new(duration: f64, quiet: bool) -> Self {
        Self::with_display(duration, terminal_shows(quiet) && duration > 0.0)
    }

    /// A bar that is drawn (`shown`) or never is, whatever standard error is.
    fn with_display(duration: f64, shown: bool) -> Self {
        Self {
            duration,
            delayed: DelayedBar::new(shown),
        }
    }

    /// The run has reached simulated time `t`, s.
    pub fn reached(&mut self, t: f64) {
        let duration = self.duration;
        if let Some(bar) = self.delayed.bar(|elapsed| bar(duration, elapsed)) {
            bar.set_position((t / duration * POSITIONS as f64).clamp(0.0, POSITIONS as f64) as u64);
        }
    }

    /// The run is over: the bar, if any, is erased.
    pub fn finish(&mut self) {
        self.delayed.finish();
    }
}

/// The wall time before the bar appears: `setting` in seconds when it is a number from 0 to
/// 10^6, else the default second.
fn quiet_start(setting: Option<&str>) -> Duration {
    setting
        .and_then(|text| text.trim().parse::<f64>().ok())
        .filter(|seconds| (0.0..=1e6).contains(seconds))
        .map_or(QUIET_START, Duration::from_secs_f64)
}

/// The bar, in the sweep's style, started `elapsed` ago.
fn bar(duration: f64, elapsed: Duration) -> ProgressBar {
    let template = format!(
        "{{bar:40}} {{percent}}% of {} s simulated, {{elapsed}} elapsed, about {{eta}} left",
        compact(duration)
    );
    let style =
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar());
    ProgressBar::new(POSITIONS)
        .with_style(style)
        .with_elapsed(elapsed)
}

/// The progress of a long command by a count (frames drawn, starts replayed, objective
/// evaluations), in the sweep's style: on a terminal standard error only, unless quiet, and only
/// once the command has taken `DIABOLO_PROGRESS_AFTER` seconds (default 1).
#[derive(Debug)]
pub struct CountProgress {
    /// What is counted ("frames").
    what: String,
    delayed: DelayedBar,
}

impl CountProgress {
    /// A bar counting `what`, shown on a terminal standard error unless `quiet`.
    pub fn new(what: &str, quiet: bool) -> Self {
        Self::with_display(what, terminal_shows(quiet))
    }

    fn with_display(what: &str, shown: bool) -> Self {
        Self {
            what: what.to_string(),
            delayed: DelayedBar::new(shown),
        }
    }

    /// `done` of `total` (`None`: not known) are counted; `status` (for example the best error
    /// so far) follows the count.
    pub fn reached(&mut self, done: u64, total: Option<u64>, status: &str) {
        let what = &self.what;
        if let Some(bar) = self.delayed.bar(|elapsed| count_bar(what, total, elapsed)) {
            bar.set_position(done);
            bar.set_message(status.to_string());
        }
    }

    /// The command is over: the bar, if any, is erased.
    pub fn finish(&mut self) {
        self.delayed.finish();
    }
}

/// A counting bar started `elapsed` ago (a spinner with the count when the total is unknown).
fn count_bar(what: &str, total: Option<u64>, elapsed: Duration) -> ProgressBar {
    let template = match total {
        Some(_) => format!(
            "{{bar:40}} {{pos}}/{{len}} {what}, {{elapsed}} elapsed, about {{eta}} left {{msg}}"
        ),
        None => format!("{{spinner}} {{pos}} {what}, {{elapsed}} elapsed {{msg}}"),
    };
    let style =
        ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_bar());
    let bar = match total {
        Some(total) => ProgressBar::new(total),
        None => ProgressBar::no_length(),
    };
    bar.with_style(style).with_elapsed(elapsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_bar_appears_only_when_shown_and_after_the_wait() {
        let mut hidden = CountProgress::with_display("frames", false);
        hidden.delayed.start -= hidden.delayed.quiet_start;
        hidden.reached(3, Some(10), "");
        assert!(hidden.delayed.bar.is_none());
        let mut early = CountProgress::with_display("frames", true);
        early.delayed.quiet_start = Duration::from_secs(3600);
        early.reached(3, Some(10), "");
        assert!(
            early.delayed.bar.is_none(),
            "no bar before the wait is over"
        );
        let mut late = CountProgress::with_display("starts", true);
        late.delayed.start -= late.delayed.quiet_start;
        late.reached(3, Some(10), "best 0.1");
        let bar = late.delayed.bar.as_ref().expect("a bar after the wait");
        assert_eq!((bar.position(), bar.length()), (3, Some(10)));
        assert_eq!(bar.message(), "best 0.1");
        late.finish();
        assert!(late.delayed.bar.is_none());
        let mut open = CountProgress::with_display("evaluations", true);
        open.delayed.start -= open.delayed.quiet_start;
        open.reached(7, None, "");
        assert_eq!(
            open.delayed.bar.as_ref().map(ProgressBar::length),
            Some(None)
        );
    }

    #[test]
    fn no_bar_before_a_second_nor_when_not_shown() {
        let mut hidden = RunProgress::with_display(10.0, false);
        hidden.reached(5.0);
        assert!(hidden.delayed.bar.is_none());
        let mut early = RunProgress::with_display(10.0, true);
        early.reached(5.0);
        assert!(early.delayed.bar.is_none(), "no bar in the first second");
    }

    #[test]
    fn the_bar_appears_after_a_second_at_the_simulated_fraction() {
        let mut progress = RunProgress::with_display(10.0, true);
        progress.delayed.start -= progress.delayed.quiet_start;
        progress.reached(2.5);
        let bar = progress.delayed.bar.as_ref().expect("a bar after a second");
        assert_eq!(bar.position(), 250);
        assert_eq!(bar.length(), Some(POSITIONS));
        progress.finish();
        assert!(progress.delayed.bar.is_none());
    }

    #[test]
    fn the_wait_before_the_bar_is_a_second_unless_set_to_a_sound_number() {
        assert_eq!(quiet_start(None), QUIET_START);
        assert_eq!(quiet_start(Some("0")), Duration::ZERO);
        assert_eq!(quiet_start(Some(" 2.5 ")), Duration::from_millis(2500));
        for unsound in ["", "soon", "-1", "NaN", "inf", "1e300"] {
            assert_eq!(quiet_start(Some(unsound)), QUIET_START, "{unsound:?}");
        }
    }
}

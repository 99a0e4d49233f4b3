//! A time window of a trajectory (`plot --from T --to T`, `animate --from T --to T`): the rows
//! and the events inside it, so a few seconds of a long run can be looked at.

use super::{Event, PlotError};
use crate::output::table::Table;

/// The closed time window [from, to], s; either end open when not given.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Window {
    /// The first instant drawn, s (none: the start of the run).
    pub from: Option<f64>,
    /// The last instant drawn, s (none: the end of the run).
    pub to: Option<f64>,
}

impl Window {
    /// True when `t` lies in the window (both ends included).
    pub fn contains(&self, t: f64) -> bool {
        self.from.is_none_or(|from| t >= from) && self.to.is_none_or(|to| t <= to)
    }

    /// True when the window is the whole run.
    pub fn is_whole(&self) -> bool {
        self.from.is_none() && self.to.is_none()
    }

    /// The rows of `table` whose time is in the window; an error naming the flags when the
    /// window is empty, reversed or not finite, or holds fewer than two rows of the run.
    pub fn rows(&self, table: &Table) -> Result<Table, PlotError> {
        self.check()?;
        let t = &table.numbers[0];
        let kept: Vec<usize> = (0..t.len()).filter(|&i| self.contains(t[i])).collect();
        if kept.len() < 2 && !self.is_whole() {
            let (first, last) = (t.first().copied(), t.last().copied());
            return Err(PlotError::Options(format!(
                "--from {} --to {} holds {} row(s) of the trajectory, which runs from {} s to {} \
                 s; choose a window inside the run that spans at least two rows",
                self.end_text(self.from),
                self.end_text(self.to),
                kept.len(),
                first.map_or("?".into(), crate::display::compact),
                last.map_or("?".into(), crate::display::compact),
            )));
        }
        let pick = |column: &Vec<f64>| kept.iter().map(|&i| column[i]).collect();
        let pick_text = |column: &Vec<String>| {
            if column.is_empty() {
                Vec::new()
            } else {
                kept.iter().map(|&i| column[i].clone()).collect()
            }
        };
        Ok(Table {
            names: table.names.clone(),
            numbers: table.numbers.iter().map(pick).collect(),
            text: table.text.iter().map(pick_text).collect(),
            rows_read: table.rows_read,
            stride: table.stride,
        })
    }

    /// The events in the window.
    pub fn events(&self, events: &[Event]) -> Vec<Event> {
        events
            .iter()
            .filter(|e| self.contains(e.t))
            .cloned()
            .collect()
    }

    fn check(&self) -> Result<(), PlotError> {
        for (flag, end) in [("--from", self.from), ("--to", self.to)] {
            if end.is_some_and(|v| !v.is_finite()) {
                return Err(PlotError::Options(format!(
                    "{flag} {} is not a time; give seconds from the start of the run",
                    self.end_text(end)
                )));
            }
        }
        if let (Some(from), Some(to)) = (self.from, self.to) {
            if from >= to {
                return Err(PlotError::Options(format!(
                    "--from {} is not before --to {}; give the earlier time first",
                    crate::display::compact(from),
                    crate::display::compact(to)
                )));
            }
        }
        Ok(())
    }

    fn end_text(&self, end: Option<f64>) -> String {
        end.map_or("(open)".into(), crate::display::compact)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        Table::parse("t,d1_y,phase\n0,0,taut\n0.5,1,loose\n1,2,taut\n1.5,3,taut\n2,4,loose\n")
            .unwrap()
    }

    #[test]
    fn a_window_keeps_exactly_the_rows_inside_it_ends_included() {
        let window = Window {
            from: Some(0.5),
            to: Some(1.5),
        };
        let rows = window.rows(&table()).unwrap();
        assert_eq!(rows.numbers[0], vec![0.5, 1.0, 1.5]);
        assert_eq!(rows.numbers[1], vec![1.0, 2.0, 3.0]);
        assert_eq!(rows.text[2], vec!["loose", "taut", "taut"]);
    }

    #[test]
    fn an_open_end_runs_to_the_end_of_the_trajectory() {
        let from = Window {
            from: Some(1.2),
            to: None,
        };
        assert_eq!(from.rows(&table()).unwrap().numbers[0], vec![1.5, 2.0]);
        let whole = Window::default().rows(&table()).unwrap();
        assert_eq!(whole.numbers[..2], table().numbers[..2]);
        assert_eq!(whole.text, table().text);
    }

    #[test]
    fn events_outside_the_window_are_left_out() {
        let event = |t: f64| Event {
            t,
            kind: "tense".into(),
            object: None,
        };
        let window = Window {
            from: Some(1.0),
            to: Some(2.0),
        };
        let kept = window.events(&[event(0.2), event(1.0), event(1.7), event(2.1)]);
        let times: Vec<f64> = kept.iter().map(|e| e.t).collect();
        assert_eq!(times, vec![1.0, 1.7]);
    }

    #[test]
    fn a_reversed_empty_or_non_finite_window_is_refused_naming_the_flags() {
        let refused = |from, to| Window { from, to }.rows(&table()).unwrap_err().to_string();
        assert!(refused(Some(2.0), Some(1.0)).contains("--from 2 is not before --to 1"));
        assert!(refused(Some(5.0), None).contains("holds 0 row(s)"));
        assert!(refused(Some(0.6), Some(0.9)).contains("runs from 0 s to 2 s"));
        assert!(refused(Some(f64::NAN), None).contains("--from NaN is not a time"));
    }
}

//! CSV tables read and written in one place ([`table`]). What a run writes: the trajectory CSV, the JSON-lines event log and the one-line JSON
//! summary of docs/interface.md, each to any `io::Write` (the trajectory also formatted on a
//! second thread while the run goes on, [`ParallelTrajectoryWriter`]); files that appear only when complete
//! (devices written through), gzip-compressed when named `*.gz` ([`compress`]), removed when the
//! process is interrupted; the run's progress bar.

mod atomic;
pub mod compress;
mod events;
mod pipeline;
mod placement;
#[cfg(feature = "cli")]
mod progress;
mod space;
mod summary;
pub mod table;
mod temporary;
mod trajectory;

pub use atomic::{set_durable_commits, shared_destination, AtomicFile, DestinationError};
pub use events::{event_json, write_events};
pub use pipeline::ParallelTrajectoryWriter;
#[cfg(feature = "cli")]
pub use progress::{CountProgress, RunProgress};
pub use space::{
    space_event_json, space_stop_message, space_trajectory_header, write_space_events,
    SpaceSummary, SpaceTrajectoryWriter,
};
pub use summary::Summary;
pub use temporary::exit_removing_temporary_files;
#[cfg(feature = "cli")]
pub use temporary::{defer_first_interrupt, interrupted, remove_temporary_files_on_signals};
pub use trajectory::{
    trajectory_header, ColumnValues, RowFields, TrajectoryColumns, TrajectoryWriter,
};

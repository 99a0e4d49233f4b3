//! What a run writes: the trajectory CSV, the JSON-lines event log and the one-line JSON
//! summary of interface.md, each to any `io::Write`; and files that appear only when complete.

mod atomic;
mod events;
mod summary;
mod trajectory;

pub use atomic::AtomicFile;
pub use events::{event_json, write_events};
pub use summary::Summary;
pub use trajectory::{trajectory_header, TrajectoryWriter};

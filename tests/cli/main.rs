//! The `diabolo` command, one test binary: every subcommand and flag end to end, bad inputs and
//! the input contract and limits, shell completions and manual pages, warnings, progress bars,
//! the JSON Schema, keyframe paths, output files (plain and gzip) and the trajectory tables the
//! commands read. Each module was a test file of its own.

#[path = "../common/mod.rs"]
mod common;

mod bad_inputs;
mod cli;
mod completions;
mod compressed_files;
mod input_contract;
mod input_limits;
mod output_files;
mod paths;
mod plan;
mod progress;
mod schema;
mod shards;
mod space;
mod tables;
mod warnings;

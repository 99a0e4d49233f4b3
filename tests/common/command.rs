//! Running the `diabolo` binary from a test.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `diabolo ARGS` with an empty standard input; its exit status and both outputs.
pub fn diabolo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .args(args)
        .output()
        .unwrap()
}

/// Runs `diabolo ARGS` with `stdin` (if any) written to its standard input.
pub fn diabolo_fed(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_diabolo"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        pipe.write_all(text.as_bytes()).unwrap();
    }
    drop(pipe);
    child.wait_with_output().unwrap()
}

/// Bytes as text (lossy), for messages.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

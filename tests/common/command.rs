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
        // A command that refuses its arguments may exit before reading its input: the pipe
        // then breaks, and that is its answer, not the test's failure.
        if let Err(e) = pipe.write_all(text.as_bytes()) {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        }
    }
    drop(pipe);
    child.wait_with_output().unwrap()
}

/// Bytes as text (lossy), for messages.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

/// A fresh, empty scratch folder `diabolo-{prefix}-{pid}-{name}` in the temporary folder.
pub fn scratch(prefix: &str, name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("diabolo-{prefix}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `diabolo run SCENARIO EXTRA... -o CSV --events EVENTS --summary SUMMARY` (standard input
/// empty).
pub fn run_with_logs(
    scenario: &str,
    extra: &[&str],
    csv: &std::path::Path,
    events: &std::path::Path,
    summary: &std::path::Path,
) -> Output {
    let mut args = vec!["run", scenario];
    args.extend_from_slice(extra);
    args.extend([
        "-o",
        csv.to_str().unwrap(),
        "--events",
        events.to_str().unwrap(),
        "--summary",
        summary.to_str().unwrap(),
    ]);
    diabolo_fed(&args, None)
}

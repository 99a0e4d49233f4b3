//! `diabolo completions SHELL` and `diabolo man`: the scripts are generated for every shell,
//! bash accepts and sources its script (and it completes the subcommands), and the manual pages
//! are roff that groff formats without a warning.

use crate::common;
use common::command::{diabolo, text};

use std::process::{Command, Output};

/// Runs `script` in `bash` with the binary's folder first on PATH.
fn bash(script: &str) -> Output {
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_diabolo"))
        .parent()
        .unwrap()
        .display()
        .to_string();
    let path = format!("{bin}:{}", std::env::var("PATH").unwrap_or_default());
    Command::new("bash")
        .args(["--norc", "--noprofile", "-c", script])
        .env("PATH", path)
        .output()
        .unwrap()
}

#[test]
fn every_shell_gets_a_completion_script_naming_the_subcommands() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = diabolo(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", text(&out.stderr));
        let script = text(&out.stdout);
        for subcommand in ["run", "sweep", "replay", "completions"] {
            assert!(script.contains(subcommand), "{shell} lacks {subcommand}");
        }
    }
}

#[test]
fn bash_accepts_and_sources_its_completion_script() {
    let out = bash("diabolo completions bash | bash -n");
    assert!(out.status.success(), "bash -n: {}", text(&out.stderr));
    let out = bash("source <(diabolo completions bash) && complete -p diabolo");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("diabolo"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn bash_completes_the_subcommands_and_the_shells() {
    let complete = |words: &str| {
        let script = format!(
            "source <(diabolo completions bash)\n\
             COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1))\n\
             COMP_LINE=\"${{COMP_WORDS[*]}}\"; COMP_POINT=${{#COMP_LINE}}\n\
             _diabolo diabolo \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"\n\
             printf '%s\\n' \"${{COMPREPLY[@]}}\""
        );
        let out = bash(&script);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let subcommands = complete("diabolo sw");
    assert_eq!(subcommands.trim(), "sweep");
    let shells = complete("diabolo completions ''");
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        assert!(shells.lines().any(|l| l == shell), "{shell} in {shells}");
    }
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let out = diabolo(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).contains("bash"), "{}", text(&out.stderr));
}

/// The page, checked to be a man page of `title`; its text formatted by groff when present.
fn man_page(args: &[&str], title: &str) -> String {
    let out = diabolo(args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let page = text(&out.stdout);
    // clap_mangen puts two lines defining the apostrophe string before the title.
    let first_macro = page.lines().find(|l| l.starts_with(".TH")).unwrap();
    assert!(
        first_macro.starts_with(&format!(".TH {title} 1 ")),
        "{first_macro}"
    );
    let title_at = page.find(".TH").unwrap();
    assert!(
        title_at < page.find(".SH").unwrap(),
        "the title comes first"
    );
    assert!(page.contains("diabolo 0.1.0") || page.contains(env!("CARGO_PKG_VERSION")));
    page
}

#[test]
fn man_prints_the_page_of_diabolo_listing_the_subcommand_pages() {
    let page = man_page(&["man"], "diabolo");
    for section in [".SH NAME", ".SH SYNOPSIS", ".SH SUBCOMMANDS"] {
        assert!(page.contains(section), "{section}");
    }
    assert!(page.contains("diabolo\\-run(1)"));
    assert!(page.contains("diabolo\\-completions(1)"));
    // Each subcommand is described by its own summary, also those built only when used whose
    // arguments are shared structs (`plot`, `animate`, `replay`, `fit`).
    for summary in [
        "Draw a trajectory: time series with the events marked",
        "Animate a trajectory: sticks, string and spinning diabolos",
        "Replay a motion\\-capture recording",
        "Fit parameters to recordings by minimising the replay error",
        "Run one scenario: the trajectory CSV",
    ] {
        assert!(page.contains(summary), "{summary} is missing from the page");
    }
    for borrowed in [
        "time window of the trajectory",
        "The progress flag",
        "How a replay estimates",
    ] {
        assert!(
            !page.contains(borrowed),
            "{borrowed} describes a subcommand"
        );
    }
}

#[test]
fn man_of_a_subcommand_prints_its_own_page_with_its_options() {
    let page = man_page(&["man", "run"], "diabolo-run");
    assert!(page.contains("\\-\\-events"), "run's options are listed");
    let out = diabolo(&["man", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).contains("nope"), "{}", text(&out.stderr));
}

#[test]
fn groff_formats_the_man_page_without_warnings() {
    if Command::new("groff").arg("--version").output().is_err() {
        // groff is what `man` uses; without it the page's structure is still checked above.
        return;
    }
    let out = bash("diabolo man | groff -man -Tascii -P-cbou -ww");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "groff: {}", text(&out.stderr));
    assert!(text(&out.stdout).contains("SUBCOMMANDS"));
}

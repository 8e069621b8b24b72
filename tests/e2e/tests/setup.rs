//! `scripts/setup.sh` on a machine it has set up: it checks, changes nothing and says so.

use std::{process::Command, time::Duration};

use e2e_tests::{repo_root, run_with_limit};

fn setup() -> (bool, String) {
    let out = run_with_limit(
        Command::new(repo_root().join("scripts/setup.sh")).current_dir(repo_root()),
        // A first run on a fresh machine builds for half an hour; here the tests' own
        // build has made it a check.
        Duration::from_secs(3600),
    );
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn a_second_setup_does_nothing_and_says_so() {
    let (ok, first) = setup();
    assert!(ok, "the first setup failed:\n{first}");
    let (ok, second) = setup();
    assert!(ok, "the second setup failed:\n{second}");
    for acted in ["installing", "fetching", "Compiling", "workspace built"] {
        assert!(
            !second.contains(acted),
            "the second setup did something ({acted}):\n{second}"
        );
    }
    assert!(
        second.contains("nothing to do"),
        "the second setup does not say it had nothing to do:\n{second}"
    );
    // Every step says what it checked.
    for step in [
        "system packages present",
        "dora-cli",
        "models present and intact",
        "workspace up to date",
    ] {
        assert!(second.contains(step), "no {step:?} in:\n{second}");
    }
}

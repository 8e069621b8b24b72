//! The scripted human in dora's integration-testing mode.

use std::{path::Path, time::Duration};

use node_kit::testing::{input, meta, run_node, stop};
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_scripted-human");

#[test]
fn barges_in_during_the_scripted_turn() {
    let dir = std::env::temp_dir().join(format!("human-script-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("script.yml");
    std::fs::write(
        &script,
        "- during_turn: 2\n  delay_ms: 100\n  speak_ms: 100\n  text: Hold on, why?\n",
    )
    .unwrap();
    let turn = |at: f64, q: u64| {
        input(
            at,
            "turn",
            json!(["tutor"]),
            meta(&[("question_id", json!(q))]),
        )
    };
    // Turns, then periodic inputs so the replayed stream lets the node look at its clock.
    let mut events = vec![turn(0.05, 1), turn(0.10, 2)];
    events.extend((0..40).map(|i| input(0.12 + i as f64 * 0.02, "tick", json!(null), json!(null))));
    events.push(stop(1.0));
    let run = run_node(
        Path::new(BIN),
        &[("HUMAN_SCRIPT", script.to_str().unwrap())],
        events,
        Duration::from_secs(30),
    );
    assert!(run.success, "{}", run.stderr);
    let ids: Vec<String> = run.texts().into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["speech_started", "transcript"], "{}", run.stderr);
    assert_eq!(run.texts_of("transcript"), ["Hold on, why?"]);
}

#[test]
fn a_broken_script_is_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("human-script-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("script.yml");
    std::fs::write(&script, "- text: no trigger\n").unwrap();
    let run = run_node(
        Path::new(BIN),
        &[("HUMAN_SCRIPT", script.to_str().unwrap())],
        vec![stop(0.1)],
        Duration::from_secs(30),
    );
    assert!(!run.success);
    assert!(
        run.stderr
            .contains("line 1: give exactly one of `during_turn` or `at_secs`"),
        "{}",
        run.stderr
    );
}

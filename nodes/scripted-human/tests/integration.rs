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

#[test]
fn speaks_its_line_as_a_microphone_would_then_gives_the_transcript() {
    let dir = std::env::temp_dir().join(format!("human-voice-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("script.yml");
    std::fs::write(&script, "- at_secs: 0.2\n  text: Hello there.\n").unwrap();
    // The testing mode lets outputs out as the input stream advances: ticks carry the
    // real-time stream, and the stop leaves the one-second line plenty of room however
    // slow the machine.
    let mut events: Vec<_> = (0..300)
        .map(|i| input(0.05 * i as f64, "tick", json!(null), json!(null)))
        .collect();
    events.push(stop(15.0));
    let run = run_node(
        Path::new(BIN),
        &[
            ("HUMAN_SCRIPT", script.to_str().unwrap()),
            ("HUMAN_OUTPUTS", "text, voice"),
        ],
        events,
        Duration::from_secs(30),
    );
    assert!(run.success, "{}", run.stderr);
    let ids: Vec<&str> = run
        .outputs
        .iter()
        .map(|o| o["id"].as_str().unwrap())
        .collect();
    let first = |id: &str| {
        ids.iter()
            .position(|i| *i == id)
            .unwrap_or_else(|| panic!("no {id}: {ids:?}"))
    };
    // Blocks of silence, the line's samples, then its transcript once it has been said.
    let loud = run
        .outputs
        .iter()
        .position(|o| {
            o["id"] == "audio"
                && o["data"]
                    .as_array()
                    .is_some_and(|a| a.iter().any(|v| v.as_f64().unwrap_or(0.0).abs() > 0.01))
        })
        .unwrap_or_else(|| {
            panic!(
                "the line is heard: {} outputs, {:?}; {}",
                ids.len(),
                ids.iter().filter(|i| **i != "audio").collect::<Vec<_>>(),
                run.stderr
            )
        });
    assert!(first("audio") < first("speech_started"));
    assert!(first("speech_started") <= loud && loud < first("transcript"));
    assert_eq!(run.texts_of("transcript"), ["Hello there."]);
    let audio = run.outputs.iter().find(|o| o["id"] == "audio").unwrap();
    // 20 ms blocks at 16 kHz (the testing mode keeps no metadata).
    assert_eq!(audio["data"].as_array().unwrap().len(), 320);
}

#[test]
fn an_unknown_output_kind_is_a_clear_error() {
    let run = run_node(
        Path::new(BIN),
        &[("HUMAN_OUTPUTS", "text, smell")],
        vec![stop(0.1)],
        Duration::from_secs(30),
    );
    assert!(!run.success);
    assert!(
        run.stderr.contains("\"smell\" is neither"),
        "{}",
        run.stderr
    );
}

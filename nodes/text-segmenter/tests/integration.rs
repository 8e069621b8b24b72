//! The segmenter node in dora's integration-testing mode.

use std::{path::Path, time::Duration};

use node_kit::testing::{input, meta, run_node, stop};
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_text-segmenter");

fn chunk(at: f64, from: &str, text: &str, status: &str, q: u64) -> node_kit::testing::TestEvent {
    input(
        at,
        from,
        json!([text]),
        meta(&[("session_status", json!(status)), ("question_id", json!(q))]),
    )
}

#[test]
fn streams_segments_and_drops_stale_turns() {
    let run = run_node(
        Path::new(BIN),
        &[("SEGMENT_MIN_CHARS", "1")],
        vec![
            chunk(
                0.01,
                "tutor",
                "[Tutor]: Derivatives measure **change**. They",
                "started",
                1,
            ),
            chunk(0.02, "tutor", " are slopes.", "ended", 1),
            chunk(0.03, "student1", "So the slope at 3.5 is", "started", 2),
            input(
                0.04,
                "interrupt",
                json!(["reset"]),
                meta(&[("question_id", json!(3))]),
            ),
            chunk(0.05, "student1", " steep. Right?", "ended", 2),
            chunk(0.06, "tutor", "你好。我们开始吧！", "ended", 4),
            input(0.07, "tutor", json!([1, 2]), json!(null)),
            stop(0.2),
        ],
        Duration::from_secs(30),
    );
    assert!(run.success, "{}", run.stderr);
    assert_eq!(
        run.texts_of("segment"),
        [
            "Derivatives measure change.",
            "They are slopes.",
            "你好。",
            "我们开始吧！"
        ]
    );
    assert!(
        run.stderr.contains("unreadable input ignored"),
        "{}",
        run.stderr
    );
}

/// A dora node-hub LLM sends its answer as bare Utf8, no metadata: one whole utterance,
/// under a question id above every id seen, spoken for the input it came on.
#[test]
fn node_hub_text_without_metadata_is_one_utterance() {
    let run = run_node(
        Path::new(BIN),
        &[("SEGMENT_MIN_CHARS", "1")],
        vec![
            chunk(0.01, "tutor", "First. Then", "started", 4),
            input(
                0.02,
                "hub_llm",
                json!(["Hello there. How are you?"]),
                json!(null),
            ),
            chunk(0.03, "tutor", " more.", "ended", 4),
            stop(0.2),
        ],
        Duration::from_secs(30),
    );
    assert!(run.success, "{}", run.stderr);
    // (The testing mode records data, not metadata: the ids are the protocol crate's
    // `hub::LocalQuestionIds`, tested there.) Whole, after the turn in progress.
    assert_eq!(
        run.texts_of("segment"),
        ["First.", "Then more.", "Hello there.", "How are you?"]
    );
}

/// Every input the segmenter decided on is in its decision log, and `replay` makes the
/// same decisions from it (a notice among them).
#[test]
fn its_decisions_are_recorded_and_replay_the_same() {
    let session = std::env::temp_dir().join(format!("segmenter-replay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&session);
    let run = run_node(
        Path::new(BIN),
        &[("SESSION_DIR", session.to_str().unwrap())],
        vec![
            chunk(
                0.01,
                "tutor",
                "Derivatives measure change. They",
                "started",
                2,
            ),
            chunk(0.02, "tutor", " are slopes.", "ended", 2),
            chunk(0.03, "student1", "An older turn, too late.", "ended", 1),
            input(
                0.04,
                "interrupt",
                json!(["reset"]),
                meta(&[("question_id", json!(4))]),
            ),
            chunk(0.05, "student1", "Stale words.", "ended", 3),
            stop(0.2),
        ],
        Duration::from_secs(30),
    );
    assert!(run.success, "{}", run.stderr);
    assert_eq!(run.texts_of("segment").len(), 2, "{:?}", run.texts());
    let replays = replay::replay_session(&session, None, &[]).expect("a decision log");
    assert_eq!(replays.len(), 1);
    assert_eq!(replays[0].format, "segmenter");
    let comparison = &replays[0].segments[0];
    assert_eq!(
        (comparison.steps, comparison.first_difference.is_none()),
        (6, true),
        "the start and five inputs: {comparison:?}"
    );
    // Two segments and the late turn's notice were decided and compared.
    assert_eq!(comparison.decisions, 3);
    std::fs::remove_dir_all(&session).unwrap();
}

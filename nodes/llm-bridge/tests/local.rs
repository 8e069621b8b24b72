//! The llm-bridge binary with the embedded model (the GGUF setup.sh installs) in dora's
//! integration-testing mode. Seeded sampling; the assertions are on properties of the
//! reply, not its words.

use std::{path::Path, time::Duration};

use node_kit::testing::{NodeRun, TestEvent, input, keepalive, meta, run_node, stop};

use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_llm-bridge");
const LIMIT: Duration = Duration::from_secs(180);

fn model() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../models/SmolLM2-135M-Instruct.Q4_1.gguf"
    )
    .to_owned()
}

fn persona() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../templates/tutor/persona.md"
    )
    .to_owned()
}

fn run(env: &[(&str, &str)], events: Vec<TestEvent>) -> NodeRun {
    let model = model();
    let persona = persona();
    let mut all = vec![
        ("PERSONA", persona.as_str()),
        ("LLM_BACKEND", "local"),
        ("LLM_MODEL_PATH", model.as_str()),
        ("LLM_SEED", "12"),
        ("TOPIC", "derivatives in first-year calculus"),
    ];
    all.extend_from_slice(env);
    run_node(Path::new(BIN), &all, events, LIMIT)
}

#[test]
fn answers_the_human_with_a_streamed_budgeted_reply_without_tags() {
    let run = run(
        &[("LLM_MAX_WORDS", "30")],
        [
            input(
                0.02,
                "utterance",
                json!(["Can you show me a derivative with actual numbers?"]),
                meta(&[
                    ("speaker", json!("human")),
                    ("question_id", json!(4)),
                    ("is_human", json!(true)),
                ]),
            ),
            input(
                0.05,
                "turn",
                json!(["tutor"]),
                meta(&[("question_id", json!(5))]),
            ),
        ]
        .into_iter()
        .chain(keepalive(0.06, 25.0))
        .chain([stop(25.5)])
        .collect(),
    );
    assert!(run.success, "{}", run.stderr);
    // The testing mode records data, not metadata: a stream is non-empty chunks, then the
    // empty `ended` chunk. The bridge streams whole sentences as they end (the word budget
    // decides at each sentence end whether the next one is said), so a one-sentence reply
    // is one chunk.
    let chunks = run.texts_of("text");
    assert!(
        chunks.len() >= 2,
        "streamed before the end: {chunks:?}\n{}",
        run.stderr
    );
    let (last, words_chunks) = chunks.split_last().unwrap();
    assert_eq!(last, "", "{chunks:?}");
    assert!(words_chunks.iter().all(|c| !c.is_empty()), "{chunks:?}");
    let reply: String = chunks.concat();
    let words = reply.split_whitespace().count();
    assert!((3..=60).contains(&words), "{words} words: {reply}");
    for tag in [
        "<|",
        "|>",
        "assistant",
        "tutor:",
        "Ms. Rivera:",
        "human:",
        "**",
        "#",
    ] {
        assert!(!reply.contains(tag), "{tag:?} in {reply:?}");
    }
    assert!(
        run.stderr.contains("embedded model loaded"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_missing_model_stops_the_bridge_at_start_naming_the_file_and_the_fix() {
    let run = run(
        &[("LLM_MODEL_PATH", "/nonexistent/dir/model.gguf")],
        vec![stop(0.5)],
    );
    assert!(!run.success);
    assert!(
        run.stderr.contains("/nonexistent/dir/model.gguf")
            && run.stderr.contains("scripts/setup.sh"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_side_request_for_json_gets_one_json_object() {
    let request = json!({
        "id": "r-1",
        "kind": "intent",
        "prompt": "Do you want to speak next? Answer as {\"intent\":\"speak|interrupt|pass\",\"urgency\":1-5}.",
        "json": true,
    });
    let run = run(
        &[],
        [input(
            0.05,
            "request",
            json!([request.to_string()]),
            meta(&[]),
        )]
        .into_iter()
        .chain(keepalive(0.06, 20.0))
        .chain([stop(20.5)])
        .collect(),
    );
    assert!(run.success, "{}", run.stderr);
    let replies = run.texts_of("reply");
    assert_eq!(replies.len(), 1, "{replies:?}\n{}", run.stderr);
    let value: serde_json::Value =
        serde_json::from_str(&replies[0]).unwrap_or_else(|e| panic!("{e}: {:?}", replies[0]));
    assert!(value.is_object(), "{value}");
}

/// A stop that arrives while the model is generating ends the bridge cleanly: the
/// generation ends at its next token and the model is let go of before the exit.
#[test]
fn a_stop_during_a_generation_exits_cleanly() {
    for stop_at in [0.6, 1.0, 1.4] {
        let run = run(
            &[("LLM_MAX_WORDS", "400"), ("LLM_MAX_TOKENS", "600")],
            vec![
                input(
                    0.02,
                    "turn",
                    json!(["tutor"]),
                    meta(&[("question_id", json!(2))]),
                ),
                stop(stop_at),
            ],
        );
        assert!(run.success, "stop at {stop_at} s: {}", run.stderr);
        assert!(
            run.stderr.contains("generating"),
            "the turn never started: {}",
            run.stderr
        );
    }
}

//! The model-host binary in dora's integration-testing mode, on the small model: requests
//! of several participants answered, bad ones refused to their sender while the others go
//! on. The testing mode records data, not metadata: each request ends with an empty
//! reply (`done`).

use std::{path::Path, time::Duration};

use agent_bridge::{
    GenerationRequest, Persona, Prompt, PromptLine,
    host::{HostJob, Priority},
};
use node_kit::testing::{NodeRun, TestEvent, input, keepalive, meta, run_node, stop};
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_model-host");
const LIMIT: Duration = Duration::from_secs(180);

fn model() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../models/SmolLM2-135M-Instruct.Q4_1.gguf"
    )
    .to_owned()
}

fn run(env: &[(&str, &str)], events: Vec<TestEvent>) -> NodeRun {
    let model = model();
    let mut all = vec![
        ("LLM_BACKEND", "host"),
        ("LLM_MODEL_PATH", model.as_str()),
        ("LLM_SEED", "11"),
        ("MODEL_PARTICIPANTS", "2"),
    ];
    all.extend_from_slice(env);
    run_node(Path::new(BIN), &all, events, LIMIT)
}

fn job(participant: &str, question_id: u64, ask: &str) -> String {
    HostJob {
        persona: Persona::fallback(participant),
        request: GenerationRequest {
            question_id,
            prompt: Prompt {
                persona: format!("You are {participant}, in a study group on derivatives."),
                lines: vec![PromptLine::new("human", ask)],
                ..Prompt::default()
            },
            max_words: Some(20),
            ..GenerationRequest::default()
        },
        // An answer to the human for the one, a turn for the other.
        priority: if question_id.is_multiple_of(2) {
            Priority::Answer
        } else {
            Priority::Turn
        },
        prefill: false,
        whole: false,
    }
    .encode()
}

fn call(at: f64, participant: &str, call_id: u64, question_id: u64, body: String) -> TestEvent {
    input(
        at,
        participant,
        json!([body]),
        meta(&[
            ("participant", json!(participant)),
            ("call_id", json!(call_id)),
            ("question_id", json!(question_id)),
            ("kind", json!("generate")),
        ]),
    )
}

#[test]
fn serves_two_participants_and_refuses_a_bad_call_without_stopping() {
    let run = run(
        &[],
        [
            call(
                0.05,
                "tutor",
                1,
                2,
                job("tutor", 2, "What is a derivative?"),
            ),
            call(
                0.06,
                "student1",
                2,
                3,
                job("student1", 3, "Can you show one with numbers?"),
            ),
            // A job that does not parse, and a call without its participant.
            call(0.07, "judge", 3, 4, "{\"persona\":".to_owned()),
            input(0.08, "judge", json!(["{}"]), meta(&[("call_id", json!(4))])),
        ]
        .into_iter()
        .chain(keepalive(0.1, 40.0))
        .chain([stop(40.5)])
        .collect(),
    );
    assert!(run.success, "{}", run.stderr);
    let replies = run.texts_of("model_reply");
    let done = replies.iter().filter(|r| r.is_empty()).count();
    assert_eq!(
        done, 3,
        "two answered, one refused: {replies:?}\n{}",
        run.stderr
    );
    let said: String = replies.concat();
    assert!(said.split_whitespace().count() >= 3, "{said:?}");
    assert!(run.stderr.contains("model call refused"), "{}", run.stderr);
    assert!(
        run.stderr.contains("unreadable model call"),
        "{}",
        run.stderr
    );
}

#[test]
fn with_another_backend_the_host_loads_nothing_and_says_so() {
    let run = run(
        &[
            ("LLM_BACKEND", "scripted"),
            ("LLM_MODEL_PATH", "/nonexistent/model.gguf"),
        ],
        vec![
            call(
                0.05,
                "tutor",
                1,
                2,
                job("tutor", 2, "What is a derivative?"),
            ),
            stop(1.0),
        ],
    );
    assert!(run.success, "{}", run.stderr);
    assert_eq!(run.texts_of("model_reply"), [""], "{}", run.stderr);
    assert!(run.stderr.contains("stays idle"), "{}", run.stderr);
}

#[test]
fn a_missing_model_stops_the_host_at_start_naming_the_file() {
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

//! The llm-bridge binary (scripted backend) in dora's integration-testing mode.

use std::{path::Path, time::Duration};

use node_kit::testing::{input, meta, run_node, stop};
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_llm-bridge");
const LIMIT: Duration = Duration::from_secs(30);

fn turn(at: f64, who: &str, q: u64) -> node_kit::testing::TestEvent {
    input(at, "turn", json!([who]), meta(&[("question_id", json!(q))]))
}

/// The testing mode serves the node's requests one at a time and blocks while it waits
/// for the next input, so a generating node needs inputs flowing to get its chunks out.
/// Stale interrupts (question 0) change nothing and keep it moving.
fn keepalive(from: f64, to: f64) -> Vec<node_kit::testing::TestEvent> {
    let steps = ((to - from) / 0.01) as usize;
    (0..steps)
        .map(|i| {
            input(
                from + i as f64 * 0.01,
                "interrupt",
                json!(["cancel"]),
                meta(&[("question_id", json!(0))]),
            )
        })
        .collect()
}

fn persona_file() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../templates/tutor/persona.md"
    )
    .to_owned()
}

#[test]
fn answers_its_own_turn_with_a_complete_stream() {
    let persona = persona_file();
    let run = run_node(
        Path::new(BIN),
        &[
            ("PERSONA", &persona),
            ("LLM_BACKEND", "scripted"),
            ("OFFLINE_WORD_DELAY_MS", "0"),
            ("TOPIC", "limits"),
        ],
        vec![
            input(
                0.02,
                "utterance",
                json!(["What is a limit, exactly?"]),
                meta(&[("speaker", json!("student1")), ("question_id", json!(1))]),
            ),
            turn(0.05, "student2", 2),
            turn(0.10, "tutor", 3),
        ]
        .into_iter()
        .chain(keepalive(0.11, 1.0))
        .chain([stop(1.5)])
        .collect(),
        LIMIT,
    );
    assert!(run.success, "{}", run.stderr);
    let chunks = run.texts_of("text");
    assert!(chunks.len() >= 3, "{chunks:?}");
    // The stream ends with the empty `ended` chunk; the words before form the reply.
    assert_eq!(chunks.last().unwrap(), "");
    let reply: String = chunks.concat();
    assert!(reply.split_whitespace().count() >= 5, "{reply}");
    assert!(
        run.stderr.contains("scripted stand-in"),
        "the scripted backend says so in the log"
    );
}

#[test]
fn an_interrupt_stops_the_stream_at_once() {
    let persona = persona_file();
    let run_with = |delay: &str, interrupt_at: Option<f64>| {
        let mut events = vec![turn(0.05, "tutor", 1)];
        if let Some(at) = interrupt_at {
            events.push(input(
                at,
                "interrupt",
                json!(["cancel"]),
                meta(&[("question_id", json!(2))]),
            ));
            // A turn older than the interrupt (delivered late) is ignored.
            events.push(turn(at + 0.01, "tutor", 1));
        }
        events.extend(keepalive(0.06, 1.5));
        events.push(stop(2.0));
        run_node(
            Path::new(BIN),
            &[
                ("PERSONA", &persona),
                ("LLM_BACKEND", "scripted"),
                ("OFFLINE_WORD_DELAY_MS", delay),
            ],
            events,
            LIMIT,
        )
    };
    // The same (deterministic) reply, once in full and once cut by an interrupt.
    let full = run_with("0", None);
    let full_chunks = full.texts_of("text");
    assert_eq!(
        full_chunks.last().map(String::as_str),
        Some(""),
        "{}",
        full.stderr
    );
    let cut = run_with("100", Some(0.3));
    assert!(cut.success, "{}", cut.stderr);
    let chunks = cut.texts_of("text");
    assert!(
        chunks.len() < full_chunks.len() - 1,
        "{chunks:?} vs {full_chunks:?}"
    );
    assert!(
        chunks.iter().all(|c| !c.is_empty()),
        "no `ended` after a cancel: {chunks:?}"
    );
    assert!(
        full_chunks.starts_with(&chunks),
        "what was sent is a prefix of the reply"
    );
    assert!(
        cut.stderr.contains("generation cancelled"),
        "{}",
        cut.stderr
    );
}

#[test]
fn bad_configuration_and_input_are_reported() {
    let run = run_node(
        Path::new(BIN),
        &[("PERSONA", "/nonexistent/persona.toml")],
        vec![stop(0.1)],
        LIMIT,
    );
    assert!(!run.success);
    assert!(
        run.stderr.contains("cannot read persona file"),
        "{}",
        run.stderr
    );

    let persona = persona_file();
    let run = run_node(
        Path::new(BIN),
        &[
            ("PERSONA", &persona),
            ("LLM_BACKEND", "scripted"),
            ("PARTICIPANT_NAME", "student1"),
        ],
        vec![stop(0.1)],
        LIMIT,
    );
    assert!(!run.success);
    assert!(run.stderr.contains("is for `tutor`"), "{}", run.stderr);

    let run = run_node(
        Path::new(BIN),
        &[("PERSONA", &persona), ("LLM_BACKEND", "magic")],
        vec![stop(0.1)],
        LIMIT,
    );
    assert!(!run.success);
    assert!(run.stderr.contains("LLM_BACKEND"), "{}", run.stderr);

    let run = run_node(
        Path::new(BIN),
        &[
            ("PERSONA", &persona),
            ("LLM_BACKEND", "scripted"),
            ("OFFLINE_WORD_DELAY_MS", "0"),
        ],
        vec![
            input(0.02, "turn", json!([1, 2]), json!(null)),
            input(0.03, "turn", json!(["tutor"]), json!(null)),
            input(0.04, "mystery", json!(["?"]), json!(null)),
            // Words to take up far past a side request's limit: said without them.
            input(
                0.05,
                "turn",
                json!(["tutor"]),
                meta(&[
                    ("question_id", json!(4)),
                    ("takes_up", json!("figure ".repeat(4_000))),
                ]),
            ),
        ]
        .into_iter()
        .chain(keepalive(0.06, 0.5))
        .chain([stop(1.0)])
        .collect(),
        LIMIT,
    );
    assert!(run.success, "{}", run.stderr);
    for expected in [
        "expected Utf8 text",
        "turn without question_id",
        "unknown input",
        "the turn goes on without it",
    ] {
        assert!(
            run.stderr.contains(expected),
            "missing {expected:?}: {}",
            run.stderr
        );
    }
    assert!(
        !run.texts_of("text").is_empty(),
        "the valid turn is still answered"
    );
}

#[test]
fn an_instruction_steers_the_offline_turn() {
    let persona = persona_file();
    let run = run_node(
        Path::new(BIN),
        &[
            ("PERSONA", &persona),
            ("LLM_BACKEND", "scripted"),
            ("OFFLINE_WORD_DELAY_MS", "0"),
        ],
        vec![input(
            0.05,
            "turn",
            json!(["tutor"]),
            meta(&[
                ("question_id", json!(4)),
                (
                    "instruction",
                    json!("Ask the group: \"who can define a tangent line?\""),
                ),
            ]),
        )]
        .into_iter()
        .chain(keepalive(0.06, 0.8))
        .chain([stop(1.0)])
        .collect(),
        LIMIT,
    );
    assert!(run.success, "{}", run.stderr);
    assert_eq!(
        run.texts_of("text").concat().trim(),
        "Who can define a tangent line?"
    );
}

#[test]
fn side_requests_are_answered_on_reply() {
    let persona = persona_file();
    let request = |at: f64, body: serde_json::Value| {
        input(at, "request", json!([body.to_string()]), meta(&[]))
    };
    let run = run_node(
        Path::new(BIN),
        &[("PERSONA", &persona), ("LLM_BACKEND", "scripted")],
        vec![
            request(
                0.05,
                json!({"id": "k1", "kind": "kicker", "prompt": "Cut in about integrals", "max_words": 6}),
            ),
            request(
                0.10,
                json!({"id": "i1", "kind": "intent", "prompt": "Do you want to speak?", "json": true}),
            ),
            input(0.15, "request", json!(["not json"]), meta(&[])),
            input(0.20, "request", json!([1, 2]), meta(&[])),
            stop(0.5),
        ],
        LIMIT,
    );
    assert!(run.success, "{}", run.stderr);
    // (The testing mode records data, not metadata: `request_id` and `error` ride there.)
    let replies = run.texts_of("reply");
    assert_eq!(replies.len(), 2, "{:?}", run.outputs);
    assert!(
        !replies[0].is_empty() && replies[0].split_whitespace().count() <= 6,
        "{replies:?}"
    );
    // JSON is left to the conductor's heuristic: an empty answer (with an error).
    assert_eq!(replies[1], "");
    assert!(
        run.stderr.contains("unreadable side request"),
        "{}",
        run.stderr
    );
}

/// Every input the bridge decided on (the turn, the model's words, an interrupt) is in
/// its decision log, and `replay` makes the same decisions from it.
#[test]
fn its_decisions_are_recorded_and_replay_the_same() {
    let persona = persona_file();
    let session = std::env::temp_dir().join(format!("bridge-replay-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&session);
    let run = run_node(
        Path::new(BIN),
        &[
            ("PERSONA", &persona),
            ("LLM_BACKEND", "scripted"),
            ("OFFLINE_WORD_DELAY_MS", "0"),
            ("TOPIC", "limits"),
            ("SESSION_DIR", session.to_str().unwrap()),
        ],
        vec![
            input(
                0.02,
                "utterance",
                json!(["What is a limit, exactly?"]),
                meta(&[("speaker", json!("student1")), ("question_id", json!(1))]),
            ),
            turn(0.05, "tutor", 2),
        ]
        .into_iter()
        .chain(keepalive(0.06, 0.6))
        .chain([
            turn(0.61, "tutor", 3),
            input(
                0.62,
                "interrupt",
                json!(["reset"]),
                meta(&[("question_id", json!(4))]),
            ),
        ])
        .chain(keepalive(0.63, 1.0))
        .chain([stop(1.2)])
        .collect(),
        LIMIT,
    );
    assert!(run.success, "{}", run.stderr);
    assert!(run.texts_of("text").len() >= 3, "{:?}", run.texts());
    let replays = replay::replay_session(&session, None, &[]).expect("a decision log");
    assert_eq!(replays.len(), 1);
    assert_eq!(replays[0].format, "bridge");
    let comparison = &replays[0].segments[0];
    assert!(comparison.first_difference.is_none(), "{comparison:?}");
    // At least the generation asked for and the chunks said were decided and compared.
    assert!(comparison.decisions >= 3, "{comparison:?}");
    std::fs::remove_dir_all(&session).unwrap();
}

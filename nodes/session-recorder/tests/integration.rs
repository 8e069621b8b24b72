//! The session recorder in dora's integration-testing mode: what it writes and prints.

use std::{path::Path, time::Duration};

use node_kit::testing::{input, make_writable, meta, run_node, stop};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_session-recorder");

#[test]
fn writes_transcript_and_events_as_they_happen() {
    let root = std::env::temp_dir().join(format!("recorder-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let events = vec![
        input(
            0.02,
            "turn",
            json!(["tutor"]),
            meta(&[("question_id", json!(1))]),
        ),
        input(
            0.05,
            "utterance",
            json!(["Limits describe approach."]),
            meta(&[
                ("question_id", json!(1)),
                ("speaker", json!("tutor")),
                ("interrupted", json!(false)),
            ]),
        ),
        input(
            0.06,
            "turn",
            json!(["student1"]),
            meta(&[("question_id", json!(2))]),
        ),
        input(
            0.08,
            "utterance",
            json!(["So"]),
            meta(&[
                ("question_id", json!(2)),
                ("speaker", json!("student1")),
                ("interrupted", json!(true)),
            ]),
        ),
        input(
            0.09,
            "interrupt",
            json!(["cancel"]),
            meta(&[("question_id", json!(3))]),
        ),
        input(
            0.10,
            "utterance",
            json!(["Example please"]),
            meta(&[
                ("question_id", json!(4)),
                ("speaker", json!("human")),
                ("is_human", json!(true)),
            ]),
        ),
        input(0.11, "utterance", json!([3.5]), json!(null)),
        stop(0.2),
    ];
    let run = run_node(
        Path::new(BIN),
        &[
            ("SESSIONS_ROOT", root.to_str().unwrap()),
            ("SESSION_ID", "test-session"),
        ],
        events,
        Duration::from_secs(30),
    );
    assert!(run.success, "{}", run.stderr);
    let lines = |name: &str| -> Vec<Value> {
        std::fs::read_to_string(root.join("latest").join(name))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let transcript = lines("transcript.jsonl");
    assert_eq!(transcript.len(), 3);
    assert_eq!(transcript[0]["speaker"], "tutor");
    assert_eq!(transcript[0]["question_id"], 1);
    assert_eq!(transcript[1]["interrupted"], true);
    assert_eq!(transcript[2]["human"], true);
    let events = lines("events.jsonl");
    assert_eq!(events.iter().filter(|e| e["event"] == "turn").count(), 2);
    assert_eq!(
        events.iter().filter(|e| e["event"] == "interrupt").count(),
        1
    );
    assert!(
        run.stderr.contains("[q1] tutor: Limits describe approach."),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("expected Utf8 text"), "{}", run.stderr);

    let run = run_node(
        Path::new(BIN),
        &[
            ("SESSIONS_ROOT", root.to_str().unwrap()),
            ("SESSION_ID", "../escape"),
        ],
        vec![stop(0.1)],
        Duration::from_secs(30),
    );
    assert!(!run.success);
    assert!(
        run.stderr.contains("not a valid folder name"),
        "{}",
        run.stderr
    );
}

#[test]
fn decisions_are_logged_as_events() {
    let dir = std::env::temp_dir().join(format!("recorder-decisions-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let record = r#"{"action":"SWITCH_PHASE","next_phase":"opening","phase":"not_started"}"#;
    let run = run_node(
        Path::new(BIN),
        &[("SESSION_DIR", dir.to_str().unwrap())],
        vec![
            input(0.02, "decision", json!([record]), json!(null)),
            input(0.03, "decision", json!([1, 2]), json!(null)),
            stop(0.1),
        ],
        Duration::from_secs(30),
    );
    assert!(run.success, "{}", run.stderr);
    let events: Vec<Value> = std::fs::read_to_string(dir.join("events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["event"], "decision");
    assert_eq!(events[0]["detail"], record);
    assert!(
        run.stderr.contains("unreadable input ignored"),
        "{}",
        run.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn auction_records_go_to_the_events_file() {
    let dir = std::env::temp_dir().join(format!("recorder-auction-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = run_node(
        Path::new(BIN),
        &[("SESSION_DIR", dir.to_str().unwrap())],
        vec![
            input(
                0.02,
                "auction",
                json!([r#"{"event":"bid","agent_id":"hawk","bid":2}"#]),
                json!(null),
            ),
            input(0.04, "auction", json!(["[1, 2]"]), json!(null)),
            input(0.06, "auction", json!(["not json"]), json!(null)),
            stop(0.2),
        ],
        Duration::from_secs(20),
    );
    assert!(run.success, "{}", run.stderr);
    let events: Vec<Value> = std::fs::read_to_string(dir.join("events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["event"], "bid");
    assert_eq!(events[0]["agent_id"], "hawk");
    assert!(events[0]["t_ms"].is_u64());
    assert!(run.stderr.contains("not a JSON object"), "{}", run.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

fn repo_root() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .to_str()
        .unwrap()
        .to_owned()
}

/// With `AGENTS` and `AGENTS_ROOT` the folder holds the conversation's agent-context
/// session: created for those agents, filled with what was said, frozen at the end.
#[test]
fn keeps_a_frozen_context_session_for_the_named_agents() {
    let dir = std::env::temp_dir().join(format!("recorder-context-{}", std::process::id()));
    if dir.exists() {
        make_writable(&dir);
        let _ = std::fs::remove_dir_all(&dir);
    }
    let utterance = |at: f64, q: u64, speaker: &str, text: &str, human: bool| {
        input(
            at,
            "utterance",
            json!([text]),
            meta(&[
                ("question_id", json!(q)),
                ("speaker", json!(speaker)),
                ("is_human", json!(human)),
            ]),
        )
    };
    let events = vec![
        utterance(0.02, 1, "tutor", "Limits describe approach.", false),
        utterance(0.04, 2, "human", "Show me numbers", true),
        utterance(0.06, 3, "student1", "Like one over n?", false),
        stop(0.2),
    ];
    let root = repo_root();
    let run = run_node(
        Path::new(BIN),
        &[
            ("SESSION_DIR", dir.to_str().unwrap()),
            ("AGENTS_ROOT", root.as_str()),
            ("AGENTS", "tutor, student1, student2"),
        ],
        events,
        Duration::from_secs(30),
    );
    assert!(run.success, "{}", run.stderr);
    let context = dir.join("context");
    let read = |rel: &str| std::fs::read_to_string(context.join(rel)).unwrap();
    let history = read("shared/exchange-history.md");
    assert!(
        history.contains("**tutor**: Limits describe approach."),
        "{history}"
    );
    assert!(history.contains("**human**: Show me numbers"), "{history}");
    assert!(read("shared/presenter-transcript.md").contains("Show me numbers"));
    assert!(read("student1/exchange-notes.md").contains("(q3): Like one over n?"));
    assert!(read("shared/session-config.md").contains("Ms. Rivera (tutor"));
    assert!(!context.join("judge").exists(), "only the named agents");
    let manifest = read("MANIFEST.sha256");
    assert!(
        manifest.contains("shared/exchange-history.md"),
        "{manifest}"
    );
    assert!(
        std::fs::metadata(context.join("shared/exchange-history.md"))
            .unwrap()
            .permissions()
            .readonly()
    );
    make_writable(&dir);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unknown_agent_or_a_missing_root_is_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("recorder-bad-{}", std::process::id()));
    let root = repo_root();
    let run = run_node(
        Path::new(BIN),
        &[
            ("SESSION_DIR", dir.to_str().unwrap()),
            ("AGENTS_ROOT", root.as_str()),
            ("AGENTS", "tutor, nobody"),
        ],
        vec![stop(0.1)],
        Duration::from_secs(30),
    );
    assert!(!run.success);
    assert!(
        run.stderr.contains("unknown agent `nobody`"),
        "{}",
        run.stderr
    );
    let run = run_node(
        Path::new(BIN),
        &[("SESSION_DIR", dir.to_str().unwrap()), ("AGENTS", "tutor")],
        vec![stop(0.1)],
        Duration::from_secs(30),
    );
    assert!(!run.success);
    assert!(run.stderr.contains("AGENTS_ROOT is not"), "{}", run.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

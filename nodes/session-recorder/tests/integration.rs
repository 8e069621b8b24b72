//! The session recorder in dora's integration-testing mode: what it writes and prints.

use std::{path::Path, time::Duration};

use node_kit::testing::{input, make_writable, meta, run_node, run_node_in, stop};
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
    // Every observation is in the recorder's decision log, and replays to the same lines
    // (the end of the session, which wrote the waiting ones, among them).
    let replays = replay::replay_session(&root.join("test-session"), None, &[]).unwrap();
    assert_eq!(replays[0].format, "session-recorder");
    let comparison = &replays[0].segments[0];
    assert!(comparison.first_difference.is_none(), "{comparison:?}");
    assert_eq!(comparison.decisions, 3 + 3, "{comparison:?}");

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

/// Every file and folder under `dir`, relative to it.
fn tree(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            found.push(
                path.strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            );
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            }
        }
    }
    found.sort();
    found
}

/// A fresh temporary root holding `work/` (the node's working folder) and `sessions/`.
fn sandbox(name: &str) -> std::path::PathBuf {
    let root = std::env::temp_dir().join(format!("recorder-{name}-{}", std::process::id()));
    if root.exists() {
        make_writable(&root);
        let _ = std::fs::remove_dir_all(&root);
    }
    std::fs::create_dir_all(root.join("work")).unwrap();
    std::fs::create_dir_all(root.join("sessions")).unwrap();
    root
}

/// `SESSION_DIR` with `..`, a 4 KB `SESSION_ID` and agent names that climb out are
/// refused at start with an error naming the variable; nothing is written outside the
/// sessions root. (A NUL byte cannot reach a process through its environment: the
/// refusal of one is a unit test of `node_kit::session`.)
#[test]
fn session_paths_and_agent_names_cannot_leave_the_sessions_root() {
    let root = sandbox("paths");
    let work = root.join("work");
    let sessions = root.join("sessions");
    let agents_root = repo_root();
    let long_id = "a".repeat(4096);
    let long_dir = format!("{}/{}", sessions.display(), "b/".repeat(2100));
    let cases: Vec<(Vec<(&str, &str)>, &str)> = vec![
        (vec![("SESSION_DIR", "../escaped")], "SESSION_DIR"),
        (
            vec![("SESSION_DIR", "sessions/../../escaped")],
            "SESSION_DIR",
        ),
        (vec![("SESSION_DIR", long_dir.as_str())], "SESSION_DIR"),
        (vec![("SESSION_ID", "../escaped")], "SESSION_ID"),
        (vec![("SESSION_ID", "a/b")], "SESSION_ID"),
        (vec![("SESSION_ID", long_id.as_str())], "SESSION_ID"),
        (
            vec![
                ("SESSION_ID", "agents"),
                ("AGENTS_ROOT", agents_root.as_str()),
                ("AGENTS", "tutor, ../evil"),
            ],
            "AGENTS",
        ),
        (
            vec![
                ("SESSION_ID", "agents-slash"),
                ("AGENTS_ROOT", agents_root.as_str()),
                ("AGENTS", "tutor /etc/evil"),
            ],
            "AGENTS",
        ),
    ];
    for (env, variable) in cases {
        let mut env = env;
        env.push(("SESSIONS_ROOT", sessions.to_str().unwrap()));
        let run = run_node_in(
            Path::new(BIN),
            Some(&work),
            &env,
            vec![stop(0.1)],
            Duration::from_secs(30),
        );
        assert!(!run.success, "{env:?} was accepted");
        let error = run
            .stderr
            .lines()
            .find(|l| l.contains(variable))
            .unwrap_or_else(|| panic!("no error naming {variable}: {}", run.stderr));
        assert!(error.len() < 1_000, "the error repeats the value: {error}");
    }
    assert_eq!(
        tree(&work),
        Vec::<String>::new(),
        "written in the working folder"
    );
    assert!(!root.join("escaped").exists() && !root.join("evil").exists());
    // Only the agent cases got as far as their own folder (the id was valid).
    for path in tree(&sessions) {
        assert!(
            path.starts_with("agents") || path == "latest",
            "unexpected {path}"
        );
        assert!(!path.contains("evil"), "{path}");
    }
    make_writable(&root);
    let _ = std::fs::remove_dir_all(&root);
}

/// A `speaker` that names a path (`../evil`, `/tmp/x`) is a name in a line, never a file:
/// the line is recorded and nothing is written outside the session folder.
#[test]
fn a_speaker_that_names_a_path_is_only_text() {
    let root = sandbox("speaker");
    let sessions = root.join("sessions");
    let agents_root = repo_root();
    let outside = root.join("outside");
    let utterance = |at: f64, q: u64, speaker: &str| {
        input(
            at,
            "utterance",
            json!(["A line from somewhere."]),
            meta(&[("question_id", json!(q)), ("speaker", json!(speaker))]),
        )
    };
    let events = vec![
        input(
            0.01,
            "turn",
            json!(["../evil"]),
            meta(&[("question_id", json!(1)), ("speaker", json!("../evil"))]),
        ),
        utterance(0.02, 1, "../evil"),
        utterance(0.03, 2, "../../outside/notes"),
        utterance(0.04, 3, outside.to_str().unwrap()),
        utterance(0.05, 4, "tutor/../../evil"),
        utterance(0.06, 5, "tutor"),
        stop(0.2),
    ];
    let run = run_node_in(
        Path::new(BIN),
        Some(&root.join("work")),
        &[
            ("SESSIONS_ROOT", sessions.to_str().unwrap()),
            ("SESSION_ID", "speakers"),
            ("AGENTS_ROOT", agents_root.as_str()),
            ("AGENTS", "tutor, student1"),
        ],
        events,
        Duration::from_secs(30),
    );
    assert!(run.success, "{}", run.stderr);
    let transcript = std::fs::read_to_string(sessions.join("speakers/transcript.jsonl")).unwrap();
    assert_eq!(transcript.lines().count(), 5, "{transcript}");
    assert!(
        transcript.contains("\"speaker\":\"../evil\""),
        "{transcript}"
    );
    assert!(!outside.exists());
    assert_eq!(tree(&root.join("work")), Vec::<String>::new());
    let mut top: Vec<String> = tree(&root)
        .into_iter()
        .filter(|p| !p.contains('/'))
        .collect();
    top.sort();
    assert_eq!(top, ["sessions", "work"]);
    for path in tree(&sessions) {
        assert!(
            path.starts_with("speakers") || path == "latest",
            "unexpected {path}"
        );
        assert!(
            !path.contains("evil") && !path.contains("outside"),
            "{path}"
        );
    }
    // The named agent's notes hold its line; nobody else got a folder.
    let context = sessions.join("speakers/context");
    assert!(
        std::fs::read_to_string(context.join("tutor/exchange-notes.md"))
            .unwrap()
            .contains("A line from somewhere.")
    );
    make_writable(&root);
    let _ = std::fs::remove_dir_all(&root);
}

/// A session folder of an earlier run is never written into again: a second run with the
/// same `SESSION_ID` (or `SESSION_DIR`) stops at start, and the first run's files stay as
/// they were.
#[test]
fn an_existing_session_folder_is_never_overwritten() {
    let root = sandbox("existing");
    let sessions = root.join("sessions");
    let line = |text: &str| {
        vec![
            input(
                0.02,
                "utterance",
                json!([text]),
                meta(&[("question_id", json!(1)), ("speaker", json!("tutor"))]),
            ),
            stop(0.1),
        ]
    };
    let env = [
        ("SESSIONS_ROOT", sessions.to_str().unwrap()),
        ("SESSION_ID", "kept"),
    ];
    let first = run_node(
        Path::new(BIN),
        &env,
        line("First run."),
        Duration::from_secs(30),
    );
    assert!(first.success, "{}", first.stderr);
    let folder = sessions.join("kept");
    let before: Vec<(String, Vec<u8>)> = tree(&folder)
        .into_iter()
        .filter(|p| folder.join(p).is_file())
        .map(|p| {
            let bytes = std::fs::read(folder.join(&p)).unwrap();
            (p, bytes)
        })
        .collect();
    assert!(
        String::from_utf8_lossy(&std::fs::read(folder.join("transcript.jsonl")).unwrap())
            .contains("First run.")
    );
    let dir = folder.to_str().unwrap().to_owned();
    for env in [env.to_vec(), vec![("SESSION_DIR", dir.as_str())]] {
        let second = run_node(
            Path::new(BIN),
            &env,
            line("Second run."),
            Duration::from_secs(30),
        );
        assert!(!second.success, "{}", second.stderr);
        assert!(
            second.stderr.contains("already holds another run"),
            "{}",
            second.stderr
        );
    }
    let after: Vec<(String, Vec<u8>)> = tree(&folder)
        .into_iter()
        .filter(|p| folder.join(p).is_file())
        .map(|p| {
            let bytes = std::fs::read(folder.join(&p)).unwrap();
            (p, bytes)
        })
        .collect();
    assert_eq!(before, after);
    make_writable(&root);
    let _ = std::fs::remove_dir_all(&root);
}

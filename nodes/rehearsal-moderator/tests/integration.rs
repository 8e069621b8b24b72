//! The moderator binary in dora's integration-testing mode: no daemon, scripted inputs.
//! Templates come from the repository (`templates/`, `session-templates/`); each test
//! writes into its own session folder. Lines count as played at once (no player).

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use node_kit::testing::{
    NodeRun, TestEvent, input, make_writable, meta, run_node, stop, typed_input,
};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_rehearsal-moderator");
const LIMIT: Duration = Duration::from_secs(40);

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn session(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rehearsal-node-{name}-{}", std::process::id()));
    if dir.exists() {
        make_writable(&dir);
        let _ = std::fs::remove_dir_all(&dir);
    }
    dir
}

fn panel_file(dir: &Path, yaml: &str) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join("panel-under-test.yml");
    std::fs::write(&path, yaml).unwrap();
    path.to_string_lossy().into_owned()
}

const PANEL: &str =
    "intensity: moderate\nthresholds:\n  answer_end_silence_ms: 0\n  exchanges_per_break: 1\n";

fn run(dir: &Path, panel: &str, agents_root: &Path, events: Vec<TestEvent>) -> NodeRun {
    let deck = repo().join("dataflows/rehearsal/deck.md");
    let root = agents_root.to_string_lossy().into_owned();
    let session = dir.to_string_lossy().into_owned();
    run_node(
        Path::new(BIN),
        &[
            ("PANEL", panel),
            ("DECK", deck.to_str().unwrap()),
            ("AGENTS_ROOT", &root),
            ("SESSION_DIR", &session),
            ("PACE_WITH_PLAYBACK", "false"),
        ],
        events,
        LIMIT,
    )
}

fn text(at: f64, id: &str, t: &str) -> TestEvent {
    input(at, id, json!([t]), json!(null))
}

fn chunk(at: f64, from: &str, t: &str, status: &str, q: u64) -> TestEvent {
    input(
        at,
        from,
        json!([t]),
        meta(&[("session_status", json!(status)), ("question_id", json!(q))]),
    )
}

fn events_log(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("rehearsal-events.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn of<'a>(log: &'a [Value], event: &str) -> Vec<&'a Value> {
    log.iter().filter(|e| e["event"] == event).collect()
}

#[test]
fn slide_change_opens_qa_with_a_transition_line_and_a_turn_with_context() {
    let dir = session("break");
    let panel = panel_file(&dir, PANEL);
    // Wire question ids: presenter 1 and 2, transition line 3, the skeptic's turn 4,
    // the answer 5, micro-phrase 6, follow-up 7.
    let run = run(
        &dir,
        &panel,
        &repo(),
        vec![
            text(0.10, "presenter", "Good morning, we are Acme Robotics."),
            text(0.20, "control", "slide 1"),
            text(
                0.30,
                "presenter",
                "Picking is more than half of labour cost.",
            ),
            text(0.50, "control", "slide 2"),
            chunk(0.70, "skeptic", "What margin do ", "started", 4),
            chunk(0.75, "skeptic", "you make on picking?", "ended", 4),
            text(
                1.00,
                "presenter",
                "About 62 percent on labour cost savings.",
            ),
            text(1.05, "control", "answered"),
            text(1.50, "control", "end"),
            stop(2.0),
        ],
    );
    assert!(run.success, "{}", run.stderr);
    let lines = run.texts_of("text");
    assert!(
        lines[0].contains("Marcus Webb") && lines[0].contains("The Problem"),
        "transition first: {lines:?}"
    );
    let turns = run.texts_of("turn");
    assert_eq!(turns, ["skeptic", "skeptic"], "question, then a follow-up");
    let utterances = run.texts_of("utterance");
    assert!(utterances.contains(&"What margin do you make on picking?".to_owned()));
    // The presenter's words are voiced too (in order, with their own question ids).
    assert_eq!(run.texts_of("presenter_text").len(), 3);
    assert_eq!(
        run.texts_of("phase").first().map(String::as_str),
        Some("qa_trigger")
    );
    assert!(
        run.texts_of("request")
            .iter()
            .all(|r| r.contains("\"prompt\""))
    );

    let log = events_log(&dir);
    let calls = of(&log, "call");
    assert_eq!(calls[0]["agent"], "skeptic");
    assert_eq!(calls[0]["instruction"], "ask_question");
    assert_eq!(calls[1]["instruction"], "follow_up");
    assert!(calls[1]["text"].as_str().unwrap().contains("62 percent"));
    // The context follows the assembly order: persona, knowledge, session files.
    let parts: Vec<&str> = calls[0]["context_parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(parts[0], "templates/skeptic/persona.md", "{parts:?}");
    assert_eq!(parts[1], "templates/skeptic/domain-knowledge.md");
    let position = |name: &str| parts.iter().position(|p| p.ends_with(name));
    assert!(position("session-config.md") < position("deck-content.md"));
    assert!(position("deck-content.md") < position("presenter-transcript.md"));
    assert!(position("presenter-transcript.md") < position("focus-brief.md"));
    assert!(calls[0]["context_bytes"].as_u64().unwrap() > 1000);

    // Files: transcript, exchange history, debrief, frozen context.
    let context = dir.join("context");
    let transcript =
        std::fs::read_to_string(context.join("shared/presenter-transcript.md")).unwrap();
    assert!(transcript.contains("Picking is more than half of labour cost."));
    let history = std::fs::read_to_string(context.join("shared/exchange-history.md")).unwrap();
    assert!(
        history.contains("What margin do you make on picking?"),
        "{history}"
    );
    let notes = std::fs::read_to_string(context.join("skeptic/exchange-notes.md")).unwrap();
    assert!(notes.contains("I asked: What margin"));
    let debrief = std::fs::read_to_string(dir.join("debrief.md")).unwrap();
    assert!(debrief.contains("# Rehearsal debrief"));
    assert!(context.join("MANIFEST.sha256").exists());
    assert!(
        std::fs::metadata(context.join("shared/exchange-history.md"))
            .unwrap()
            .permissions()
            .readonly()
    );
    make_writable(&dir);
}

#[test]
fn turn_limits_hold_at_each_intensity() {
    for (intensity, limit, outcome) in [
        ("friendly", 2usize, "friendly_close"),
        ("moderate", 3, "turn_limit"),
        ("adversarial", 4, "turn_limit"),
    ] {
        let dir = session(&format!("limit-{intensity}"));
        let panel = panel_file(
            &dir,
            &format!(
                "intensity: {intensity}\nthresholds:\n  answer_end_silence_ms: 0\n  exchanges_per_break: 1\n  circular_overlap: 1.0\n"
            ),
        );
        // Presenter 1, transition 2, turn 3; then per round: answer, micro-phrase, turn.
        let mut events = vec![
            text(0.10, "presenter", "Good morning, we are Acme Robotics."),
            text(0.15, "control", "slide 1"),
            text(0.20, "control", "slide 2"),
        ];
        let questions = [
            "What is your gross margin today?",
            "Who pays for maintenance contracts?",
            "How long is your sales cycle?",
            "Which incumbent worries you most?",
            "What happens when robots break?",
        ];
        let answers = [
            "Sixty two percent at fifty robots.",
            "Customers pay a monthly service fee.",
            "Roughly four months from pilot.",
            "Honestly the largest integrators.",
            "Technicians replace parts overnight.",
        ];
        let mut q = 3;
        let mut t = 0.3;
        for round in 0..5 {
            events.push(chunk(t, "skeptic", questions[round], "ended", q));
            events.push(text(t + 0.05, "presenter", answers[round]));
            events.push(text(t + 0.08, "control", "answered"));
            q += 3;
            t += 0.2;
        }
        events.push(text(t + 0.2, "control", "end"));
        events.push(stop(t + 0.6));
        let run = run(&dir, &panel, &repo(), events);
        assert!(run.success, "{}", run.stderr);
        let log = events_log(&dir);
        let calls = of(&log, "call");
        assert_eq!(calls.len(), limit, "{intensity}: {calls:?}");
        let exchanges = of(&log, "exchange");
        assert_eq!(exchanges[0]["outcome"], outcome, "{intensity}");
        let kinds: Vec<&str> = of(&log, "say")
            .iter()
            .map(|s| s["kind"].as_str().unwrap())
            .collect();
        assert!(kinds.contains(&"bridge-back"), "{intensity}: {kinds:?}");
        make_writable(&dir);
    }
}

#[test]
fn a_missing_or_broken_template_is_a_clear_error() {
    let dir = session("templates");
    let panel = panel_file(&dir, PANEL);
    let root = dir.join("agents");
    for sub in ["templates", "session-templates"] {
        copy_tree(&repo().join(sub), &root.join(sub));
    }
    std::fs::remove_dir_all(root.join("templates/skeptic")).unwrap();
    let run1 = run(&dir, &panel, &root, vec![stop(0.2)]);
    assert!(!run1.success);
    assert!(
        run1.stderr.contains("skeptic") && run1.stderr.contains("persona.md"),
        "{}",
        run1.stderr
    );
    // A persona without front matter names its file.
    copy_tree(
        &repo().join("templates/skeptic"),
        &root.join("templates/skeptic"),
    );
    std::fs::write(
        root.join("templates/analyst/persona.md"),
        "You are Priya, no front matter.",
    )
    .unwrap();
    let run2 = run(&dir, &panel, &root, vec![stop(0.2)]);
    assert!(!run2.success);
    assert!(
        run2.stderr.contains("analyst/persona.md") && run2.stderr.contains("front matter"),
        "{}",
        run2.stderr
    );
    // No AGENTS_ROOT at all.
    let run3 = run_node(
        Path::new(BIN),
        &[("PANEL", &panel), ("DECK", "x.md")],
        vec![stop(0.2)],
        LIMIT,
    );
    assert!(!run3.success);
    assert!(run3.stderr.contains("DECK") || run3.stderr.contains("AGENTS_ROOT"));
}

#[test]
fn bad_configuration_files_are_clear_errors() {
    let dir = session("config");
    let bad = panel_file(&dir, "intensity: furious\n");
    let run1 = run(&dir, &bad, &repo(), vec![stop(0.2)]);
    assert!(!run1.success);
    assert!(run1.stderr.contains("PANEL"), "{}", run1.stderr);
    let unknown = panel_file(
        &dir,
        "agents:\n  - name: economist\n    role: analyst\n  - name: nobody\n    role: skeptic\n",
    );
    let run2 = run(&dir, &unknown, &repo(), vec![stop(0.2)]);
    assert!(!run2.success);
    assert!(
        run2.stderr.contains("`nobody` has no template"),
        "{}",
        run2.stderr
    );
    let run3 = run_node(Path::new(BIN), &[], vec![stop(0.2)], LIMIT);
    assert!(!run3.success);
    assert!(run3.stderr.contains("PANEL is not set"), "{}", run3.stderr);
}

#[test]
fn bad_inputs_are_warned_and_skipped() {
    let dir = session("bad-inputs");
    let panel = panel_file(&dir, PANEL);
    let run = run(
        &dir,
        &panel,
        &repo(),
        vec![
            typed_input(0.05, "control", json!([255, 254, 253]), "UInt8"),
            input(0.06, "control", json!([1.5, 2.5]), json!(null)),
            text(0.07, "control", "dance"),
            text(0.08, "control", "slide 99"),
            text(0.09, "mystery", "hello"),
            text(0.10, "skeptic", "no question id"),
            chunk(0.11, "skeptic", "a stale turn", "ended", 77),
            text(0.12, "reply_skeptic", "no request id"),
            input(
                0.13,
                "presenter",
                json!(["partial"]),
                meta(&[("session_status", json!("ongoing"))]),
            ),
            input(0.14, "playback_done", json!(["heard"]), json!(null)),
            text(0.20, "presenter", "We still carry on."),
            text(0.30, "control", "end"),
            stop(0.6),
        ],
    );
    assert!(run.success, "{}", run.stderr);
    for needle in [
        "expected Utf8 text",
        "not valid UTF-8",
        "unknown control command `dance`",
        "slide 99 is not in the deck",
        "unknown input ignored",
        "text without question_id",
        "reply without request_id",
        "playback_done without question_id",
    ] {
        assert!(
            run.stderr.contains(needle),
            "missing `{needle}`:\n{}",
            run.stderr
        );
    }
    assert_eq!(
        run.texts_of("utterance").first().map(String::as_str),
        Some("We still carry on.")
    );
    assert!(dir.join("context/MANIFEST.sha256").exists());
    make_writable(&dir);
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        let target = to.join(e.file_name());
        if p.is_dir() {
            copy_tree(&p, &target);
        } else {
            std::fs::copy(&p, &target).unwrap();
        }
    }
}

//! The controller binary in dora's integration-testing mode: no daemon, scripted inputs.

use std::{path::Path, time::Duration};

use node_kit::testing::{input, meta, run_node, stop, typed_input};
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_conference-controller");
const STUDY: &str = "[(human, 0.001), (tutor, *), (student1, 1), (student2, 1)]";
const LIMIT: Duration = Duration::from_secs(30);

fn chunk(at: f64, from: &str, text: &str, status: &str, q: u64) -> node_kit::testing::TestEvent {
    input(
        at,
        from,
        json!([text]),
        meta(&[("session_status", json!(status)), ("question_id", json!(q))]),
    )
}

#[test]
fn turns_follow_the_policy_and_human_speech_resets() {
    let run = run_node(
        Path::new(BIN),
        &[("DORA_POLICY_PATTERN", STUDY)],
        vec![
            chunk(0.05, "student1", "What is ", "started", 1),
            chunk(0.06, "student1", "a limit?", "ended", 1),
            chunk(0.10, "tutor", "A limit is ", "started", 2),
            input(0.15, "speech_started", json!(null), json!(null)),
            // The held turn ends; nobody starts while the human talks.
            chunk(0.16, "tutor", "what a function", "ended", 2),
            input(
                0.20,
                "human",
                json!(["Can you give an example?"]),
                json!(null),
            ),
            input(
                0.25,
                "control",
                json!(["{\"command\": \"stats\"}"]),
                json!(null),
            ),
            stop(0.4),
        ],
        LIMIT,
    );
    assert!(run.success, "{}", run.stderr);
    let turns = run.texts_of("turn");
    assert_eq!(turns, ["student1", "tutor", "tutor"], "{}", run.stderr);
    // The human's first sound holds the voice; the question drops it (one reset).
    assert_eq!(run.texts_of("pause"), ["hold"]);
    assert_eq!(run.texts_of("interrupt"), ["reset"]);
    assert_eq!(
        run.texts_of("utterance"),
        [
            "What is a limit?",
            "A limit is what a function",
            "Can you give an example?"
        ]
    );
    let last_status: serde_json::Value =
        serde_json::from_str(run.texts_of("status").last().unwrap()).unwrap();
    assert_eq!(last_status["current_speaker"], "tutor");
    assert_eq!(last_status["word_counts"]["human"], 5);
    assert_eq!(last_status["word_counts"]["student1"], 0);
    // The order of outputs: the hold goes out before anything else of the human turn.
    let ids: Vec<String> = run.texts().into_iter().map(|(id, _)| id).collect();
    let hold = ids.iter().position(|i| i == "pause").unwrap();
    assert!(ids[..hold].iter().filter(|i| *i == "turn").count() == 2);
}

#[test]
fn a_backchannel_releases_the_held_voice() {
    let run = run_node(
        Path::new(BIN),
        &[("DORA_POLICY_PATTERN", STUDY)],
        vec![
            chunk(0.05, "student1", "What is ", "started", 1),
            input(0.10, "speech_started", json!(["human"]), json!(null)),
            chunk(0.12, "student1", "a limit?", "ended", 1),
            input(0.20, "backchannel", json!(["mm-hm"]), json!(null)),
            stop(0.4),
        ],
        LIMIT,
    );
    assert!(run.success, "{}", run.stderr);
    assert_eq!(run.texts_of("pause"), ["hold"]);
    assert_eq!(run.texts_of("resume"), ["resume"]);
    assert!(run.texts_of("interrupt").is_empty());
    // The turn that fell due during the hold goes out after it.
    assert_eq!(run.texts_of("turn"), ["student1", "tutor"]);
    let ids: Vec<String> = run.texts().into_iter().map(|(id, _)| id).collect();
    let resume = ids.iter().position(|i| i == "resume").unwrap();
    assert_eq!(ids[resume + 1..].iter().filter(|i| *i == "turn").count(), 1);
}

#[test]
fn bad_input_of_every_kind_is_survived() {
    let run = run_node(
        Path::new(BIN),
        &[("DORA_POLICY_PATTERN", "[a → b → c]")],
        vec![
            input(0.02, "stranger", json!(["hello"]), json!(null)),
            typed_input(0.03, "a", json!([255, 254, 253]), "UInt8"),
            input(0.04, "a", json!([1.5, 2.5]), json!(null)),
            input(0.05, "control", json!(["dance"]), json!(null)),
            input(0.06, "control", json!(["{\"cmd\": 1}"]), json!(null)),
            input(0.065, "c", json!(["not my turn"]), json!(null)),
            input(0.07, "human", json!(["   "]), json!(null)),
            input(
                0.08,
                "a",
                json!(["x"]),
                meta(&[("session_status", json!("sideways"))]),
            ),
            chunk(0.15, "b", &"word ".repeat(50_000), "ended", 2),
            stop(0.5),
        ],
        LIMIT,
    );
    assert!(run.success, "{}", run.stderr);
    // `a` ended its turn with the message whose status was unknown (treated as complete),
    // then b's huge ended chunk ended b's turn.
    assert_eq!(run.texts_of("turn"), ["a", "b", "c"], "{}", run.stderr);
    for expected in [
        "not a participant",
        "not valid UTF-8",
        "expected Utf8 text",
        "unknown control command",
        "no string field `command`",
        "unknown session_status",
        "while the turn belongs to",
        "empty human utterance",
    ] {
        assert!(
            run.stderr.contains(expected),
            "missing warning {expected:?}:\n{}",
            run.stderr
        );
    }
}

#[test]
fn a_silent_speaker_is_skipped() {
    let run = run_node(
        Path::new(BIN),
        &[
            ("DORA_POLICY_PATTERN", "[a → b]"),
            ("TURN_TIMEOUT_SECS", "0.2"),
        ],
        // The testing mode replays inputs synchronously, so periodic inputs give the
        // node a chance to look at its deadline (under a daemon it wakes by itself).
        (1..10)
            .map(|i| input(i as f64 * 0.1, "control", json!(["stats"]), json!(null)))
            .chain([stop(1.0)])
            .collect(),
        LIMIT,
    );
    assert!(run.success, "{}", run.stderr);
    let turns = run.texts_of("turn");
    assert!(turns.len() >= 2, "{turns:?}");
    assert_eq!(&turns[..2], ["a", "b"]);
    assert!(run.texts_of("interrupt").iter().all(|k| k == "cancel"));
    assert!(
        run.stderr.contains("did not finish its turn"),
        "{}",
        run.stderr
    );
}

#[test]
fn invalid_or_missing_pattern_stops_at_start_with_the_caret() {
    let run = run_node(
        Path::new(BIN),
        &[("DORA_POLICY_PATTERN", "[a, b, a]")],
        vec![stop(0.1)],
        LIMIT,
    );
    assert!(!run.success);
    assert!(
        run.stderr.contains("participant `a` appears twice"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("  [a, b, a]\n         ^"),
        "{}",
        run.stderr
    );
    assert!(run.outputs.is_empty());

    let run = run_node(
        Path::new(BIN),
        &[("DORA_POLICY_PATTERN", "")],
        vec![stop(0.1)],
        LIMIT,
    );
    assert!(!run.success);
    assert!(
        run.stderr.contains("the pattern is empty"),
        "{}",
        run.stderr
    );

    let run = run_node(
        Path::new(BIN),
        &[
            ("DORA_POLICY_PATTERN", "[a → b]"),
            ("TURN_TIMEOUT_SECS", "soon"),
        ],
        vec![stop(0.1)],
        LIMIT,
    );
    assert!(!run.success);
    assert!(run.stderr.contains("TURN_TIMEOUT_SECS"), "{}", run.stderr);
}

#[test]
fn control_commands_drive_the_conference() {
    let run = run_node(
        Path::new(BIN),
        &[(
            "DORA_POLICY_PATTERN",
            "[(judge, *), (defense, 1), (prosecution, 1)]",
        )],
        vec![
            input(0.05, "control", json!(["cancel"]), json!(null)),
            input(0.10, "control", json!(["ready"]), json!(null)),
            input(0.15, "control", json!(["RESET"]), json!(null)),
            stop(0.3),
        ],
        LIMIT,
    );
    assert!(run.success, "{}", run.stderr);
    // Cold start: defense; after cancel+ready: prosecution (no back-to-back for defense
    // is not required here, ratio picks the one behind); reset: cold start again.
    let turns = run.texts_of("turn");
    assert_eq!(turns.len(), 3, "{turns:?}");
    assert_eq!(turns[0], "defense");
    assert_eq!(turns[2], "defense");
    assert_eq!(run.texts_of("interrupt"), ["cancel", "reset"]);
}

#[test]
fn typed_words_on_human_text_count_as_the_human_speaking() {
    let run = run_node(
        Path::new(BIN),
        &[("DORA_POLICY_PATTERN", STUDY)],
        vec![
            chunk(0.05, "student1", "What is ", "started", 1),
            input(
                0.10,
                "human_text",
                json!(["Can you give an example?"]),
                meta(&[
                    ("speaker", json!("human")),
                    ("session_status", json!("ended")),
                ]),
            ),
            stop(0.3),
        ],
        LIMIT,
    );
    assert!(run.success, "{}", run.stderr);
    assert_eq!(run.texts_of("interrupt"), ["reset"], "{}", run.stderr);
    assert_eq!(run.texts_of("turn"), ["student1", "tutor"]);
    // The human's words are an utterance like a transcript's (the partial turn first).
    assert_eq!(
        run.texts_of("utterance"),
        ["What is ", "Can you give an example?"]
    );
}

#[test]
fn the_speech_onset_and_when_the_human_was_heard_are_in_the_decision_log() {
    let session = std::env::temp_dir().join(format!("controller-heard-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&session);
    let run = run_node(
        Path::new(BIN),
        &[
            ("DORA_POLICY_PATTERN", STUDY),
            ("SESSION_DIR", session.to_str().unwrap()),
        ],
        vec![
            chunk(0.05, "student1", "What is ", "started", 1),
            input(0.10, "speech_started", json!(null), json!(null)),
            input(
                0.20,
                "human",
                json!(["Can you give an example?"]),
                meta(&[
                    ("audio_input", json!("audio")),
                    ("speech_start_ms", json!(4_200)),
                    ("speech_end_ms", json!(5_900)),
                ]),
            ),
            stop(0.4),
        ],
        LIMIT,
    );
    assert!(run.success, "{}", run.stderr);
    // What the player is told with the hold and the human's utterance goes through the
    // core, so `replay` sees it: the onset in the input and the hold, the span in the
    // human's input and their utterance (the testing mode names the node `test-node`).
    let log = std::fs::read_to_string(session.join("decisions/test-node.jsonl"))
        .expect("the decision log");
    let steps: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let started = steps
        .iter()
        .find(|s| s["input"]["input"].get("speech_started").is_some())
        .expect("the speech start");
    let onset = started["input"]["input"]["speech_started"]["onset_us"]
        .as_i64()
        .expect("its onset");
    assert!(onset > 0);
    assert_eq!(
        started["decisions"][0],
        format!("Hold {{ onset_us: Some({onset}) }}")
    );
    let human = steps
        .iter()
        .find(|s| s["input"]["input"].get("human").is_some())
        .expect("the human's words");
    assert_eq!(
        human["input"]["input"]["human"]["heard"],
        json!({"audio_input": "audio", "start_ms": 4200, "end_ms": 5900})
    );
    let utterance = human["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d.as_str())
        .find(|d| d.starts_with("Utterance(") && d.contains("human: true"))
        .expect("the human's utterance");
    assert!(
        utterance.contains(
            "heard: Some(HeardSpan { audio_input: \"audio\", start_ms: 4200, end_ms: 5900 })"
        ),
        "{utterance}"
    );
    let _ = std::fs::remove_dir_all(&session);
}

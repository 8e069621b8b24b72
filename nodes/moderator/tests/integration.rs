//! The moderator binary in dora's integration-testing mode: no daemon, scripted inputs.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use node_kit::testing::{NodeRun, TestEvent, input, meta, run_node, stop, typed_input};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_moderator");
const LIMIT: Duration = Duration::from_secs(30);

/// Two agents, three phases: round-robin opening, a free discussion round decided by
/// intents, one closing statement.
const SCENARIO: &str = "
topic: Should cities ban cars?
agents:
  - id: a
    name: Ann
  - id: b
    name: Bob
moderator:
  name: Alex
  intent_timeout_ms: 20000
  speech_timeout_ms: 20000
phases:
  - type: opening
    max_rounds: 2
  - type: free_discussion
    max_rounds: 1
  - type: closing
    max_rounds: 1
";

fn scenario_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("moderator-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn run(scenario: &Path, extra_env: &[(&str, &str)], events: Vec<TestEvent>) -> NodeRun {
    let mut env = vec![("SCENARIO", scenario.to_str().unwrap())];
    env.extend_from_slice(extra_env);
    run_node(Path::new(BIN), &env, events, LIMIT)
}

fn said(at: f64, agent: &str, q: u64, text: &str) -> Vec<TestEvent> {
    let chunk = |at: f64, text: &str, status: &str| {
        input(
            at,
            agent,
            json!([text]),
            meta(&[
                ("session_status", json!(status)),
                ("question_id", json!(q)),
                ("speaker", json!(agent)),
            ]),
        )
    };
    let (first, rest) = text.split_at(text.len() / 2);
    vec![chunk(at, first, "started"), chunk(at + 0.02, rest, "ended")]
}

fn reply(at: f64, agent: &str, request: &str, answer: &str, error: Option<&str>) -> TestEvent {
    let mut pairs = vec![
        ("speaker", json!(agent)),
        ("request_id", json!(request)),
        ("kind", json!("intent")),
    ];
    if let Some(error) = error {
        pairs.push(("error", json!(error)));
    }
    input(at, &format!("reply_{agent}"), json!([answer]), meta(&pairs))
}

fn decisions(run: &NodeRun) -> Vec<Value> {
    run.texts_of("decision")
        .iter()
        .map(|d| serde_json::from_str(d).expect("decision records are JSON"))
        .collect()
}

#[test]
fn scripted_roundtable_turns_lines_and_decisions() {
    let scenario = scenario_file("full.yml", SCENARIO);
    // Question ids are deterministic: 1 opening line, 2 call, 3 turn a, 4 call, 5 turn b,
    // 6 transition, 7 intent round, 8 turn, then summary, transition, call, turn, closing.
    let mut events = Vec::new();
    events.extend(said(0.2, "a", 3, "Cars cost the city a fortune."));
    // b talks out of turn: dropped; a stale chunk of a: dropped.
    events.extend(said(0.3, "b", 3, "Me first!"));
    events.extend(said(0.5, "b", 5, "Bikes are cheaper than roads, Ann."));
    events.push(reply(
        0.8,
        "a",
        "intent-7",
        r#"{"intent":"speak","urgency":5}"#,
        None,
    ));
    events.push(reply(
        0.85,
        "b",
        "intent-7",
        "",
        Some("the offline model gives no structured answers"),
    ));
    events.extend(said(1.0, "a", 8, "Ann says the budget decides."));
    events.push(input(
        1.1,
        "control",
        json!(["{\"command\":\"stats\"}"]),
        json!(null),
    ));
    events.extend(said(1.3, "a", 12, "Ann closes."));
    events.extend(said(1.3, "b", 12, "Bob closes."));
    events.push(stop(3.0));
    let run = run(&scenario, &[], events);
    assert!(run.success, "{}", run.stderr);

    // (The testing mode records data, not metadata: ids and speakers are checked in the
    // conductor's unit tests; the log names them.)
    let turns = run.texts_of("turn");
    assert_eq!(&turns[..3], ["a", "b", "a"], "{}", run.stderr);
    assert!(
        run.stderr.contains("turn agent=a question_id=8"),
        "{}",
        run.stderr
    );

    // The moderator's lines, opening to closing, with a summary between.
    let lines = run.texts_of("text");
    assert!(lines[0].starts_with("Welcome to our roundtable. I'm Alex"));
    assert!(
        lines[1].starts_with("Ann, would you start us off?"),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|t| t.starts_with("Let me sum up")),
        "a summary: {lines:?}"
    );
    let closing = lines.last().unwrap();
    assert!(closing.starts_with("That brings our roundtable to a close"));

    // Utterances: every finished utterance, the moderator's included, never a dropped one.
    let utterances = run.texts_of("utterance");
    assert!(utterances.contains(&"Cars cost the city a fortune.".to_owned()));
    assert!(utterances.contains(&"Bikes are cheaper than roads, Ann.".to_owned()));
    assert!(!utterances.contains(&"Me first!".to_owned()));
    assert!(utterances.contains(closing));
    assert_eq!(
        utterances.len(),
        lines.len() + turns.len(),
        "each line and each finished turn once: {utterances:?}"
    );

    // One request per intent round, JSON, asking for the strict answer.
    let requests = run.texts_of("request");
    assert_eq!(requests.len(), 1, "{requests:?}");
    let request: Value = serde_json::from_str(&requests[0]).unwrap();
    assert_eq!(request["id"], "intent-7");
    assert_eq!(request["json"], true);
    assert!(request["prompt"].as_str().unwrap().contains("urgency"));

    // Decisions: every phase, the end, and the parsed intent won.
    let d = decisions(&run);
    let phases: Vec<&str> = d.iter().filter_map(|d| d["phase"].as_str()).collect();
    for p in ["not_started", "opening", "free_discussion", "closing"] {
        assert!(phases.contains(&p), "{p}: {d:#?}");
    }
    assert_eq!(d.last().unwrap()["action"], "END_DISCUSSION");
    assert!(
        d.iter()
            .any(|d| d["action"] == "ALLOW_SPEECH" && d["target"] == "a"),
        "{d:#?}"
    );
    let stats: Value = serde_json::from_str(&run.texts_of("status")[0]).unwrap();
    assert_eq!(stats["phase"], "closing", "{stats}");
    let counts: Vec<u64> = d.iter().map(|d| d["n"].as_u64().unwrap()).collect();
    assert_eq!(counts, (1..=counts.len() as u64).collect::<Vec<_>>());
}

#[test]
fn silent_agents_do_not_stall_the_roundtable() {
    // Nobody ever answers an intent request or says a word: intents fall back to the
    // heuristic, turns time out, and the roundtable still ends by itself.
    let scenario = scenario_file(
        "silent.yml",
        &SCENARIO
            .replace("intent_timeout_ms: 20000", "intent_timeout_ms: 200")
            .replace("speech_timeout_ms: 20000", "speech_timeout_ms: 300"),
    );
    // The testing mode replays inputs synchronously, so periodic inputs give the node a
    // chance to look at its deadlines (under a daemon it wakes by itself).
    let ticks =
        (1..100).map(|i| input(f64::from(i) * 0.1, "control", json!(["stats"]), json!(null)));
    let run = run(&scenario, &[], ticks.chain([stop(10.0)]).collect());
    assert!(run.success, "{}", run.stderr);
    let d = decisions(&run);
    assert_eq!(d.last().unwrap()["action"], "END_DISCUSSION", "{d:#?}");
    assert!(
        run.texts_of("text")
            .last()
            .unwrap()
            .starts_with("That brings our roundtable to a close")
    );
    assert!(run.stderr.contains("no intent in time"), "{}", run.stderr);
    // Nothing was said by the agents: the only utterances are the moderator's lines.
    assert_eq!(run.texts_of("utterance"), run.texts_of("text"));
}

#[test]
fn paced_by_playback_one_utterance_ahead_at_most() {
    let scenario = scenario_file("paced.yml", SCENARIO);
    let paced = [("PACE_WITH_PLAYBACK", "true")];
    let played = |at: f64, q: u64| {
        input(
            at,
            "playback_done",
            json!(["..."]),
            meta(&[("question_id", json!(q)), ("speaker", json!("moderator"))]),
        )
    };
    // a finishes while the opening and the call are still unheard: no next turn.
    let mut events = said(0.2, "a", 3, "Cars cost the city a fortune.");
    events.push(stop(0.8));
    let run1 = run(&scenario, &paced, events);
    assert!(run1.success, "{}", run1.stderr);
    assert_eq!(run1.texts_of("turn"), ["a"]);
    // Once the call was heard, b gets the floor while a's words are still playing.
    let mut events = said(0.2, "a", 3, "Cars cost the city a fortune.");
    events.push(played(0.4, 2));
    events.push(stop(0.8));
    let run2 = run(&scenario, &paced, events);
    assert!(run2.success, "{}", run2.stderr);
    assert_eq!(run2.texts_of("turn"), ["a", "b"]);
}

#[test]
fn the_closing_line_is_awaited_then_the_node_exits() {
    let scenario = scenario_file("closing.yml", SCENARIO);
    let run = run(
        &scenario,
        &[("PACE_WITH_PLAYBACK", "true")],
        vec![
            input(0.1, "control", json!(["stop"]), json!(null)),
            // The closing line is q4 (1 opening, 2 call, 3 a's turn, 4 closing).
            input(
                0.3,
                "playback_done",
                json!(["That brings..."]),
                meta(&[("question_id", json!(4))]),
            ),
            // Never reached: the node has ended by then.
            input(5.0, "control", json!(["stats"]), json!(null)),
            stop(6.0),
        ],
    );
    assert!(run.success, "{}", run.stderr);
    assert!(
        run.stderr.contains("the closing line was heard"),
        "{}",
        run.stderr
    );
    assert!(run.texts_of("status").is_empty());
    let d = decisions(&run);
    assert_eq!(d.last().unwrap()["reason"], "stopped by the operator");
}

#[test]
fn bad_input_of_every_kind_is_warned_and_survived() {
    let scenario = scenario_file("bad.yml", SCENARIO);
    let run = run(
        &scenario,
        &[],
        vec![
            input(0.02, "stranger", json!(["hello"]), json!(null)),
            typed_input(0.03, "a", json!([255, 254, 253]), "UInt8"),
            input(0.04, "a", json!([1.5, 2.5]), json!(null)),
            input(0.05, "a", json!(["no id"]), json!(null)),
            input(
                0.06,
                "a",
                json!(["odd status"]),
                meta(&[
                    ("session_status", json!("maybe")),
                    ("question_id", json!(3)),
                ]),
            ),
            input(0.07, "playback_done", json!(["x"]), json!(null)),
            input(0.08, "control", json!(["dance"]), json!(null)),
            input(
                0.09,
                "reply_zed",
                json!(["{}"]),
                meta(&[("request_id", json!("intent-1"))]),
            ),
            stop(0.5),
        ],
    );
    assert!(run.success, "{}", run.stderr);
    for warning in [
        "unknown input ignored",
        "not valid utf-8",
        "expected Utf8 text",
        "text without question_id ignored",
        "unknown session_status",
        "playback_done without question_id ignored",
        "unknown control command ignored",
        "reply from an unknown agent ignored",
    ] {
        assert!(
            run.stderr.to_lowercase().contains(&warning.to_lowercase()),
            "no warning `{warning}`:\n{}",
            run.stderr
        );
    }
    // `odd status` counted as a complete utterance of a's turn (q3): b was called next.
    assert_eq!(run.texts_of("turn"), ["a", "b"]);
}

#[test]
fn a_missing_or_invalid_scenario_stops_the_node_with_a_clear_error() {
    let run_env = |env: &[(&str, &str)]| run_node(Path::new(BIN), env, vec![stop(0.2)], LIMIT);
    let r = run_env(&[]);
    assert!(!r.success);
    assert!(r.stderr.contains("SCENARIO is not set"), "{}", r.stderr);

    let r = run_env(&[("SCENARIO", "/nonexistent/roundtable.yml")]);
    assert!(!r.success);
    assert!(
        r.stderr.contains("cannot read the scenario file")
            && r.stderr.contains("/nonexistent/roundtable.yml"),
        "{}",
        r.stderr
    );

    let bad = scenario_file("invalid.yml", "topic: Cars\nagents: []\n");
    let r = run_env(&[("SCENARIO", bad.to_str().unwrap())]);
    assert!(!r.success);
    assert!(
        r.stderr.contains("invalid scenario file")
            && r.stderr.contains("invalid.yml")
            && r.stderr.contains("no agents"),
        "{}",
        r.stderr
    );
    let bad = scenario_file(
        "typo.yml",
        "topic: Cars\nagents: [{id: a}]\nmoderater: {}\n",
    );
    let r = run_env(&[("SCENARIO", bad.to_str().unwrap())]);
    assert!(!r.success);
    assert!(r.stderr.contains("moderater"), "{}", r.stderr);
}

#[test]
fn a_phrase_library_replaces_the_lines_it_names_and_warns_about_the_rest() {
    let scenario = scenario_file("phrases.yml", SCENARIO);
    let phrases = scenario_file(
        "phrases.md",
        "# Our lines\n\n## call.first\n- {name}, kick us off, please.\n\n## warning\n- {name}, {mood}!\n\n## chit-chat\n- hi\n",
    );
    let mut events = said(0.2, "a", 3, "Cars cost the city a fortune.");
    events.push(stop(1.0));
    let run = run(&scenario, &[("PHRASES", phrases.to_str().unwrap())], events);
    assert!(run.success, "{}", run.stderr);
    let lines = run.texts_of("text");
    // The opening is the built-in one; the first call is the library's.
    assert!(
        lines[0].starts_with("Welcome to our roundtable."),
        "{lines:?}"
    );
    assert_eq!(lines[1], "Ann, kick us off, please.", "{lines:?}");
    for warned in [
        "unknown placeholder `{mood}`",
        "`chit-chat` names no phrase kind",
    ] {
        assert!(run.stderr.contains(warned), "{warned}: {}", run.stderr);
    }

    let r = run_node(
        Path::new(BIN),
        &[
            ("SCENARIO", scenario.to_str().unwrap()),
            ("PHRASES", "/nonexistent/phrases.md"),
        ],
        vec![stop(0.2)],
        LIMIT,
    );
    assert!(!r.success);
    assert!(
        r.stderr.contains("cannot read the phrase library") && r.stderr.contains("PHRASES"),
        "{}",
        r.stderr
    );
}

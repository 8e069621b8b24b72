//! The auction node in dora's integration-testing mode: scripted inputs, no daemon.

use std::{path::Path, time::Duration};

use node_kit::testing::{NodeRun, input, meta, run_node, stop, typed_input};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_auction");
const LIMIT: Duration = Duration::from_secs(30);

fn run(env: &[(&str, &str)], events: Vec<node_kit::testing::TestEvent>) -> NodeRun {
    run_node(Path::new(BIN), env, events, LIMIT)
}

fn text(at: f64, from: &str, q: u64, text: &str) -> node_kit::testing::TestEvent {
    input(
        at,
        from,
        json!([text]),
        meta(&[
            ("question_id", json!(q)),
            ("session_status", json!("ended")),
        ]),
    )
}

fn report(at: f64, id: &str, value: Value) -> node_kit::testing::TestEvent {
    input(at, id, json!([value.to_string()]), json!(null))
}

/// The first segment's clip id if `agent_index` won the cold start (seed-dependent).
fn first_clip(agent_index: usize) -> String {
    format!("clip_seg_auction_s1_0000_{agent_index}_1")
}

fn json_outputs(run: &NodeRun, id: &str) -> Vec<Value> {
    run.texts_of(id)
        .iter()
        .map(|t| serde_json::from_str(t).expect("JSON output"))
        .collect()
}

#[test]
fn a_micro_turn_from_turn_to_clip_to_utterance() {
    let mut events = vec![
        text(0.3, "a", 1, "Cars choke the old town. Walking is better!"),
        text(0.3, "b", 1, "Cars choke the old town. Walking is better!"),
    ];
    // Player reports for whichever agent won the cold start.
    for i in 0..2 {
        let clip = first_clip(i);
        events.push(report(0.6, "clip_ready", json!({"clip_id": clip, "speaker": "x", "sentence_ms": [900, 700], "duration_ms": 1600})));
        events.push(report(0.9, "clip_started", json!({"clip_id": clip, "speaker": "x", "question_id": 1, "overlay": false, "at_ms": 900})));
        events.push(report(
            1.8,
            "beat",
            json!({"clip_id": clip, "beat": 1, "at_ms": 1800}),
        ));
        events.push(report(2.5, "clip_finished", json!({
            "clip_id": clip, "speaker": "x", "question_id": 1, "start_ms": 900, "end_ms": 2500,
            "interrupted": false, "chars_played": 43, "text_played": "Cars choke the old town. Walking is better!",
            "overlay": false, "ducked": []})));
    }
    events.push(stop(3.0));
    let run = run(
        &[("AUCTION_PARTICIPANTS", "a,b"), ("AUCTION_SEED", "1")],
        events,
    );
    assert!(run.success, "{}", run.stderr);
    let turns = run.texts_of("turn");
    assert!(
        turns.len() >= 2,
        "a first segment, then the next speaker's: {turns:?}"
    );
    let clips = json_outputs(&run, "clip");
    assert_eq!(
        clips[0]["sentences"],
        json!(["Cars choke the old town.", "Walking is better!"])
    );
    let winner = clips[0]["speaker"].as_str().unwrap().to_owned();
    let commands = json_outputs(&run, "command");
    assert!(
        commands
            .iter()
            .any(|c| c["command"] == "play" && c["clip_id"] == clips[0]["clip_id"]),
        "{commands:?}"
    );
    let records = json_outputs(&run, "auction");
    let kinds: Vec<&str> = records.iter().filter_map(|r| r["event"].as_str()).collect();
    assert!(
        kinds.contains(&"auction") && kinds.contains(&"segment"),
        "{kinds:?}"
    );
    assert!(
        kinds.contains(&"timing"),
        "the beat was measured: {kinds:?}"
    );
    assert!(
        records
            .iter()
            .all(|r| r["provenance"]["policy"] == "auction/v1")
    );
    assert!(turns.contains(&winner));
    assert_eq!(
        run.texts_of("utterance"),
        ["Cars choke the old town. Walking is better!"]
    );
    assert!(
        run.stderr.contains("speaker:"),
        "the auction table is logged"
    );
}

#[test]
fn a_dead_bridge_does_not_stall_the_session() {
    let run = run(
        &[
            ("AUCTION_PARTICIPANTS", "a,b,c"),
            ("SEGMENT_TIMEOUT_SECS", "0.3"),
        ],
        // The testing mode replays inputs synchronously: periodic inputs (reports of an
        // unknown clip) let the node look at its deadlines.
        (1..20)
            .map(|i| {
                report(
                    i as f64 * 0.1,
                    "beat",
                    json!({"clip_id": "other", "beat": 1, "at_ms": 0}),
                )
            })
            .chain([stop(2.0)])
            .collect(),
    );
    assert!(run.success, "{}", run.stderr);
    let turns = run.texts_of("turn");
    assert!(turns.len() >= 2, "{turns:?} {}", run.stderr);
    assert_ne!(turns[0], turns[1], "another participant is asked");
    assert!(
        !run.texts_of("interrupt").is_empty(),
        "the stuck generation is cancelled"
    );
}

#[test]
fn bad_inputs_are_warned_and_ignored() {
    let run = run(
        &[("AUCTION_PARTICIPANTS", "a,b")],
        vec![
            typed_input(0.1, "a", json!([255, 254]), "UInt8"),
            typed_input(0.15, "clip_ready", json!([1, 2]), "Int64"),
            input(0.2, "beat", json!(["{not json"]), json!(null)),
            input(0.25, "mystery", json!(["hello"]), json!(null)),
            input(0.3, "b", json!(["no id"]), json!(null)),
            input(
                0.35,
                "clip_finished",
                json!(["{\"clip_id\": 3}"]),
                json!(null),
            ),
            input(
                0.4,
                "a_reply",
                json!(["late"]),
                meta(&[("request_id", json!("nope"))]),
            ),
            stop(0.8),
        ],
    );
    assert!(run.success, "{}", run.stderr);
    for needle in [
        "unreadable input ignored",
        "invalid JSON ignored",
        "unknown input ignored",
        "without question_id",
    ] {
        assert!(
            run.stderr.contains(needle),
            "missing {needle:?} in {}",
            run.stderr
        );
    }
    assert!(
        !run.texts_of("turn").is_empty(),
        "the session still started"
    );
}

#[test]
fn bad_configuration_stops_the_node_with_the_file_named() {
    let dir = std::env::temp_dir().join(format!("auction-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.yml");
    std::fs::write(
        &bad,
        "preset: debate_snappy\nparticipants: [a, b]\ntokens: { max_bnk: 1 }\n",
    )
    .unwrap();
    let path = bad.to_string_lossy().into_owned();
    let run1 = run(&[("AUCTION_CONFIG", &path)], vec![stop(0.2)]);
    assert!(!run1.success);
    assert!(
        run1.stderr.contains(&path) && run1.stderr.contains("max_bnk"),
        "{}",
        run1.stderr
    );
    let run2 = run(
        &[("AUCTION_CONFIG", "/nonexistent/auction.yml")],
        vec![stop(0.2)],
    );
    assert!(
        !run2.success && run2.stderr.contains("/nonexistent/auction.yml"),
        "{}",
        run2.stderr
    );
    let run3 = run(&[], vec![stop(0.2)]);
    assert!(
        !run3.success && run3.stderr.contains("AUCTION_PARTICIPANTS"),
        "{}",
        run3.stderr
    );
    let run4 = run(
        &[("AUCTION_PARTICIPANTS", "a,b"), ("AUCTION_SEED", "x")],
        vec![stop(0.2)],
    );
    assert!(
        !run4.success && run4.stderr.contains("AUCTION_SEED"),
        "{}",
        run4.stderr
    );
    let good = dir.join("good.yml");
    std::fs::write(&good, "preset: panel_civil\nparticipants: [a, b, c]\n").unwrap();
    let run5 = run(
        &[("AUCTION_CONFIG", &good.to_string_lossy())],
        vec![stop(0.3)],
    );
    assert!(run5.success, "{}", run5.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

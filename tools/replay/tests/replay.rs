//! A controller run recorded as the node records it replays to the same decisions; a
//! changed policy pattern shows the first decision that differs.

use std::{path::PathBuf, process::Command};

use conference_core::{CONTROLLER_FORMAT, ControllerSetup, Input, Output};

fn setup() -> ControllerSetup {
    ControllerSetup {
        pattern: "[(human, 0.001), (tutor, *), (student1, 1), (student2, 1)]".into(),
        humans: Vec::new(),
        turn_timeout_ms: 60_000,
        human_timeout_ms: 20_000,
        max_unplayed: None,
        absent_retry_turns: Some(8),
        turn_resend_ms: 12_000,
    }
}

/// Runs a conversation through the core, answering every turn, with a human cutting in
/// and a silent participant timing out; returns the session folder holding its log.
fn record(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("replay-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("decisions")).unwrap();
    let setup = setup();
    let mut conference = setup.build().unwrap();
    let mut log = decision_log::setup_line(CONTROLLER_FORMAT, &setup) + "\n";
    let mut step = |conference: &mut conference_core::Conference, event: Input, at_ms: u64| {
        // Logged at the nanosecond with a remainder, as controllers recorded before they
        // ran as conductors were: the replay takes the millisecond it falls in.
        let at_ns = at_ms * 1_000_000 + 123;
        let actions = conference.handle(event.clone(), at_ms);
        log.push_str(&decision_log::step_line(at_ns, &event, &actions));
        log.push('\n');
        actions
    };
    let mut actions = step(&mut conference, Input::Start, 0);
    let mut at = 0;
    for round in 0..30 {
        at += 1_000;
        let Some((speaker, question_id)) = actions.iter().rev().find_map(|a| match a {
            Output::Turn {
                speaker,
                question_id,
            } => Some((speaker.clone(), *question_id)),
            _ => None,
        }) else {
            actions = step(&mut conference, Input::Tick, at + 61_000);
            at += 61_000;
            continue;
        };
        actions = match round {
            // The human cuts in.
            7 => step(
                &mut conference,
                Input::Human {
                    speaker: "human".into(),
                    text: "wait, show me an example".into(),
                    // When it was heard goes into the log with it, and back out with
                    // the utterance, replayed as recorded.
                    heard: Some(voice_protocol::messages::HeardSpan {
                        audio_input: "audio".into(),
                        start_ms: 41_000,
                        end_ms: 42_500,
                    }),
                },
                at,
            ),
            // The speaker says nothing: the turn times out.
            12 => {
                at += 61_000;
                step(&mut conference, Input::Tick, at)
            }
            _ => step(
                &mut conference,
                Input::Text {
                    from: speaker,
                    text: format!("line {round} with a few words"),
                    status: Some(voice_protocol::StreamStatus::Ended),
                    question_id: Some(question_id),
                },
                at,
            ),
        };
    }
    std::fs::write(dir.join("decisions/conference-controller.jsonl"), log).unwrap();
    dir
}

#[test]
fn a_recorded_run_replays_to_the_same_decisions() {
    let dir = record("same");
    let replays = replay::replay_session(&dir, None, &[]).unwrap();
    assert_eq!(replays.len(), 1);
    let segment = &replays[0].segments[0];
    assert_eq!(segment.first_difference, None);
    assert_eq!(segment.steps, 31);
    assert!(segment.decisions > 40, "{segment:?}");
}

#[test]
fn another_pattern_shows_the_first_differing_decision() {
    let dir = record("other");
    let pattern = "[(human, 0.001), (tutor, *), (student2, 3), (student1, 1)]";
    let replays = replay::replay_session(
        &dir,
        None,
        &[("DORA_POLICY_PATTERN".into(), pattern.into())],
    )
    .unwrap();
    let difference = replays[0].segments[0].first_difference.clone().unwrap();
    assert!(
        difference.recorded.iter().any(|d| d.starts_with("Turn"))
            || difference.replayed.iter().any(|d| d.starts_with("Turn")),
        "{difference:?}"
    );
    // The command line says the same, with exit status 1; and 0 when nothing differs.
    let bin = env!("CARGO_BIN_EXE_replay");
    let out = Command::new(bin)
        .arg(&dir)
        .args(["--set", &format!("DORA_POLICY_PATTERN={pattern}")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("first difference at input"), "{text}");
    let out = Command::new(bin).arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 differ"));
    // A bad override is an error, not a silent replay of the recorded setup.
    let out = Command::new(bin)
        .arg(&dir)
        .args(["--set", "NO_SUCH_SETTING=1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Decisions hold JSON the nodes wrote with keys in insertion order; the replay must
/// write it the same way however it is built (alone, or with the workspace).
#[test]
fn json_objects_keep_the_order_the_nodes_write() {
    let value: serde_json::Value = serde_json::from_str(r#"{"speaker":"a","at":1}"#).unwrap();
    assert_eq!(value.to_string(), r#"{"speaker":"a","at":1}"#);
}

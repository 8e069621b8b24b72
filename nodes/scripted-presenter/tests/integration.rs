//! The presenter binary in dora's integration-testing mode (a text session: no `played`).

use std::{path::Path, time::Duration};

use node_kit::testing::{input, meta, run_node, stop, typed_input};
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_scripted-presenter");
const LIMIT: Duration = Duration::from_secs(30);

fn script(name: &str, yaml: &str) -> String {
    let path = std::env::temp_dir().join(format!("presenter-{name}-{}.yml", std::process::id()));
    std::fs::write(&path, yaml).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn presents_changes_slides_and_answers_questions_it_hears() {
    let path = script(
        "flow",
        "ms_per_word: 10\npause_ms: 10\nsettle_ms: 500\nanswer_delay_ms: 10\nsteps:\n  - say: Hello panel.\n    answers: [Sixty two percent.]\n  - slide: 1\n  - say: Back to the deck.\n  - control: end\n",
    );
    // The answers come with the first step: on a loaded machine the question may reach
    // the node before the slide step would have run (the answer is then the fallback).
    // The testing mode delivers events on schedule but wakes the node only for events:
    // the moderator's own lines (ignored) serve as a clock.
    let mut events: Vec<_> = (1..28)
        .map(|i| {
            input(
                f64::from(i) * 0.05,
                "utterance",
                json!(["Mm-hmm."]),
                meta(&[("speaker", json!("moderator"))]),
            )
        })
        .collect();
    events.extend([
        input(0.25, "phase", json!(["qa_trigger"]), json!(null)),
        // The moderator's own line is no question; the skeptic's is.
        input(
            0.3,
            "utterance",
            json!(["Marcus, over to you."]),
            meta(&[("speaker", json!("moderator"))]),
        ),
        input(
            0.4,
            "utterance",
            json!(["What is your margin?"]),
            meta(&[("speaker", json!("skeptic"))]),
        ),
        input(0.7, "phase", json!(["presenting"]), json!(null)),
        typed_input(0.75, "phase", json!([255, 254]), "UInt8"),
        input(0.8, "mystery", json!(["x"]), json!(null)),
        stop(1.5),
    ]);
    events.sort_by(|a, b| a.at_secs.total_cmp(&b.at_secs));
    let run = run_node(
        Path::new(BIN),
        &[("PRESENTER_SCRIPT", &path)],
        events,
        LIMIT,
    );
    assert!(run.success, "{}", run.stderr);
    assert_eq!(
        run.texts_of("transcript"),
        ["Hello panel.", "Sixty two percent.", "Back to the deck."],
        "{}",
        run.stderr
    );
    assert_eq!(run.texts_of("control"), ["slide 1", "end"]);
    assert_eq!(run.texts_of("speech_started").len(), 3);
    assert!(
        run.stderr.contains("unreadable phase ignored"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("unknown input ignored"),
        "{}",
        run.stderr
    );
}

#[test]
fn missing_or_bad_scripts_are_clear_errors() {
    let run = run_node(Path::new(BIN), &[], vec![stop(0.1)], LIMIT);
    assert!(!run.success);
    assert!(
        run.stderr.contains("PRESENTER_SCRIPT is not set"),
        "{}",
        run.stderr
    );
    let bad = script("bad", "steps:\n  - say: a\n    slide: 2\n");
    let run = run_node(
        Path::new(BIN),
        &[("PRESENTER_SCRIPT", &bad)],
        vec![stop(0.1)],
        LIMIT,
    );
    assert!(!run.success);
    assert!(run.stderr.contains("step 1"), "{}", run.stderr);
}

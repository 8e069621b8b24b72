//! The pitch rehearsal (dataflows/rehearsal.yml) offline through the dora CLI: a scripted
//! presenter, the moderator, three offline panelists, espeak-ng voices and the recorder.

use e2e_tests::{
    assert_manifest_verifies, assert_question_ids_increase, assert_replays_identically, dora_run,
    jsonl, make_writable, serial, session_dir, speaker,
};
use serde_json::Value;

const PANELISTS: [&str; 3] = ["skeptic", "analyst", "contrarian"];
const NAMES: [&str; 3] = ["Marcus Webb", "Priya Sharma", "James O'Brien"];

fn text(line: &Value) -> &str {
    line["text"].as_str().unwrap_or_default()
}

#[test]
fn rehearsal_questions_at_section_breaks_with_limits_and_a_debrief() {
    let _serial = serial();
    let dir = session_dir("rehearsal");
    // The presenter's history, this test's own (a second session below remembers the first).
    let presenters = session_dir("rehearsal-presenters");
    let rehearse = |dir: &std::path::Path| {
        // The rehearsal ends by itself (the presenter's script runs out, the moderator
        // closes and leaves, every other node follows); the limit only guards against a
        // hang.
        dora_run(
            "dataflows/rehearsal.yml",
            600,
            &[
                ("SESSION_DIR", dir.to_str().unwrap()),
                ("PRESENTER_HISTORY_DIR", presenters.to_str().unwrap()),
                // Under test: the conductor's decisions, with the scripted stand-in's exact
                // text and pace (with the embedded model this format takes several minutes).
                ("LLM_BACKEND", "scripted"),
                ("OFFLINE_WORD_DELAY_MS", "30"),
                ("ESPEAK_SPEED", "320"),
            ],
        )
    };
    rehearse(&dir);
    let transcript = jsonl(&dir, "transcript.jsonl");
    let last = transcript.last().expect("a transcript");
    assert_eq!(speaker(last), "moderator", "{last}");
    assert!(text(last).contains("end of the session"), "{last}");
    let moderator: Vec<&str> = transcript
        .iter()
        .filter(|l| speaker(l) == "moderator")
        .map(text)
        .collect();
    let transitions: Vec<&&str> = moderator
        .iter()
        .filter(|t| NAMES.iter().any(|n| t.contains(n)))
        .collect();
    assert!(
        transitions.len() >= 2,
        "a transition line calling a panelist at each break: {moderator:#?}"
    );
    // Panelists spoke, each right after the moderator's call or a presenter's answer.
    let panel: Vec<&Value> = transcript
        .iter()
        .filter(|l| PANELISTS.contains(&speaker(l)))
        .collect();
    assert!(panel.len() >= 2, "{transcript:#?}");
    let presenter: Vec<&str> = transcript
        .iter()
        .filter(|l| speaker(l) == "presenter")
        .map(text)
        .collect();
    assert!(
        presenter
            .iter()
            .any(|t| t.starts_with("Picking is 55 percent")),
        "the presenter answered the first question: {presenter:#?}"
    );
    assert!(presenter.iter().any(|t| t.contains("move on")));
    // Heard in question-id order, one voice at a time.
    assert_question_ids_increase(&transcript);

    // The recorder saw the moderator's turns.
    let events = jsonl(&dir, "events.jsonl");
    assert!(
        events
            .iter()
            .filter(|e| e["event"] == "turn")
            .any(|e| PANELISTS.contains(&e["speaker"].as_str().unwrap_or_default())),
        "{events:#?}"
    );

    // The moderator's log: exchanges at section breaks, within moderate's limit of 3.
    let log = jsonl(&dir, "rehearsal-events.jsonl");
    let exchanges: Vec<&Value> = log.iter().filter(|e| e["event"] == "exchange").collect();
    assert!(exchanges.len() >= 2, "{log:#?}");
    for e in &exchanges {
        assert_eq!(e["trigger"], "section_break");
        let agent_turns = e["turns"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["speaker"] != "presenter")
            .count();
        assert!((1..=3).contains(&agent_turns), "{e:#}");
    }
    assert_eq!(exchanges[0]["slide_title"], "The Problem");
    assert!(log.iter().any(|e| e["event"] == "qa_first_audio"));

    // The debrief and the frozen agent context.
    let debrief = std::fs::read_to_string(dir.join("debrief.md")).expect("debrief.md");
    assert!(debrief.contains("# Rehearsal debrief"), "{debrief}");
    assert!(debrief.contains("The Problem"));
    // How the presenter spoke, measured from what was heard: the scripted presenter's
    // lines, each after its voice's onset, in the Markdown and in its figures.
    assert!(debrief.contains("## Delivery"), "{debrief}");
    let figures: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("debrief.json")).expect("debrief.json"),
    )
    .expect("debrief.json is JSON");
    let delivery = &figures["delivery"];
    assert!(delivery["words"].as_u64().unwrap() > 20, "{delivery}");
    assert!(
        delivery["words_per_minute"].as_f64().unwrap() > 0.0,
        "{delivery}"
    );
    assert!(
        delivery["slides"].as_array().unwrap().len() >= 2,
        "{delivery}"
    );
    assert!(
        !delivery["answers"].as_array().unwrap().is_empty(),
        "{delivery}"
    );
    assert_eq!(
        figures["exchanges"].as_array().unwrap().len(),
        exchanges.len()
    );
    // Each exchange's answer rated by the panelist who asked (the scripted stand-in
    // judges by the words the answer took up), or left unrated with the reason.
    let ratings = figures["ratings"].as_array().unwrap();
    assert!(!ratings.is_empty(), "{figures}");
    assert!(
        ratings.iter().any(|r| r["rating"].is_string()),
        "a verdict arrived before the debrief: {ratings:?}"
    );
    assert!(
        debrief.contains("## Answers as the panel rated them"),
        "{debrief}"
    );
    let context = dir.join("context");
    assert_manifest_verifies(&context);
    let history = std::fs::read_to_string(context.join("shared/exchange-history.md")).unwrap();
    assert!(history.contains("## Exchange 1"), "{history}");
    let transcript_md =
        std::fs::read_to_string(context.join("shared/presenter-transcript.md")).unwrap();
    assert!(transcript_md.contains("Good morning"));
    // Generated at start: the deck's claims with the supplied research notes, and who sits
    // on the panel.
    let intel = std::fs::read_to_string(context.join("shared/external-intel.md")).unwrap();
    assert!(intel.contains("$40B"), "{intel}");
    assert!(intel.contains("per pick rather than"), "{intel}");
    let dossier = std::fs::read_to_string(context.join("shared/board-dossier.md")).unwrap();
    for name in ["Marcus Webb", "Priya Sharma", "James O'Brien"] {
        assert!(dossier.contains(name), "{dossier}");
    }
    // The moderator's decision log replays to the same decisions.
    assert_replays_identically(&dir);
    if let Some(keep) = std::env::var_os("E2E_KEEP_DECISIONS") {
        // Re-recording the replay fixture: `tools/replay/tests/recorded/rehearsal`.
        std::fs::copy(dir.join("decisions/moderator.jsonl"), keep).unwrap();
    }
    make_writable(&dir);

    // A second session of the same presenter: the panel is told what it left open, and
    // the debrief compares with the first.
    let history = presenters.join("acme-robotics.json");
    let first: Value = serde_json::from_str(&std::fs::read_to_string(&history).unwrap()).unwrap();
    assert_eq!(first["sessions"].as_array().unwrap().len(), 1, "{first}");
    let open = first["sessions"][0]["open"].as_array().unwrap().clone();
    let again = session_dir("rehearsal-again");
    rehearse(&again);
    let debrief = std::fs::read_to_string(again.join("debrief.md")).expect("debrief.md");
    assert!(debrief.contains("## Since the last session"), "{debrief}");
    if let Some(challenge) = open.first() {
        let asker = challenge["agent"].as_str().unwrap();
        let profile =
            std::fs::read_to_string(again.join(format!("context/{asker}/presenter-profile.md")))
                .unwrap();
        assert!(
            profile.contains("Left open in the last session"),
            "{profile}"
        );
        assert!(
            profile.contains(challenge["question"].as_str().unwrap()),
            "{profile}"
        );
    }
    let second: Value = serde_json::from_str(&std::fs::read_to_string(&history).unwrap()).unwrap();
    assert_eq!(second["sessions"].as_array().unwrap().len(), 2, "{second}");
    make_writable(&again);
}

//! The moderated roundtable (dataflows/roundtable.yml) with its scripted guest, offline,
//! through the dora CLI.

use std::collections::BTreeSet;

use e2e_tests::{
    assert_one_voice_in_order, assert_question_ids_increase, dora_run, jsonl, serial, session_dir,
    speaker,
};
use serde_json::Value;

#[test]
fn roundtable_moves_through_every_phase_and_ends_by_itself() {
    let _serial = serial();
    let dir = session_dir("roundtable");
    // The short scenario: every phase, fewer rounds. The roundtable ends by itself well
    // before --stop-after; if it did not, the closing line would be missing.
    dora_run(
        "dataflows/roundtable.yml",
        100,
        &[
            ("SESSION_DIR", dir.to_str().unwrap()),
            ("ROUNDTABLE_SCENARIO", "scenarios/roundtable-short.yml"),
            // Under test: the conductor's decisions, with the scripted stand-in's exact text
            // and pace (with the embedded model this format takes several minutes).
            ("LLM_BACKEND", "scripted"),
            ("OFFLINE_WORD_DELAY_MS", "30"),
            ("ESPEAK_SPEED", "320"),
        ],
    );
    let transcript = jsonl(&dir, "transcript.jsonl");
    let events = jsonl(&dir, "events.jsonl");
    let timeline = jsonl(&dir, "timeline.jsonl");

    // Every phase was reached, and the moderator ended the session itself.
    let decisions: Vec<Value> = events
        .iter()
        .filter(|e| e["event"] == "decision")
        .map(|e| serde_json::from_str(e["detail"].as_str().unwrap()).unwrap())
        .collect();
    let phases: BTreeSet<&str> = decisions
        .iter()
        .flat_map(|d| [d["phase"].as_str(), d["next_phase"].as_str()])
        .flatten()
        .collect();
    for phase in [
        "opening",
        "free_discussion",
        "focused_conflict",
        "convergence",
        "closing",
        "ended",
    ] {
        assert!(
            phases.contains(phase),
            "{phase} never reached: {decisions:#?}"
        );
    }
    let last = decisions.last().expect("decisions were logged");
    assert_eq!(last["action"], "END_DISCUSSION", "{last}");
    assert_ne!(last["reason"], "stopped by the operator");

    // The moderator's own lines: the opening first, a summary, the closing last (heard).
    let moderator: Vec<&Value> = transcript
        .iter()
        .filter(|l| speaker(l) == "moderator")
        .collect();
    let text = |l: &Value| l["text"].as_str().unwrap().to_owned();
    assert!(
        text(&transcript[0]).starts_with("Welcome to our roundtable"),
        "{transcript:#?}"
    );
    assert!(
        moderator
            .iter()
            .any(|l| text(l).starts_with("Let me sum up")),
        "no summary: {transcript:#?}"
    );
    let closing = transcript.last().unwrap();
    assert_eq!(speaker(closing), "moderator");
    assert!(
        text(closing).starts_with("That brings our roundtable to a close"),
        "{closing}"
    );
    assert_eq!(
        closing["text_played"], closing["text"],
        "the closing line was heard"
    );

    // The guest (dataflows/scripts/roundtable-human.yml) nodded once, which cut nothing,
    // then cut in and asked the engineer, who answered first. Their voice held the one
    // that sounded (the player's barge-in record); the lines it cut are marked so, and
    // nothing after their words was cut.
    let humans: Vec<usize> = (0..transcript.len())
        .filter(|&i| transcript[i]["human"] == true)
        .collect();
    assert_eq!(
        humans.len(),
        1,
        "one question, no nod taken as words: {transcript:#?}"
    );
    let asked = humans[0];
    assert!(
        text(&transcript[asked]).to_lowercase().contains("engineer"),
        "{transcript:#?}"
    );
    let answer = transcript[asked + 1..]
        .iter()
        .find(|l| speaker(l) != "moderator")
        .expect("an answer");
    assert_eq!(speaker(answer), "engineer", "{transcript:#?}");
    let cut: Vec<&Value> = transcript
        .iter()
        .filter(|l| l["interrupted"] == true)
        .collect();
    assert!(
        !cut.is_empty(),
        "the guest's words cut nothing: {transcript:#?}"
    );
    let asked_id = transcript[asked]["question_id"].as_u64().unwrap();
    assert!(
        cut.iter()
            .all(|l| l["question_id"].as_u64().unwrap() < asked_id),
        "{cut:#?}"
    );
    let barge_ins = jsonl(&dir, "barge_in.jsonl");
    assert!(
        barge_ins.iter().any(|b| b["was_playing"] == true),
        "no voice was held: {barge_ins:#?}"
    );

    // Every agent spoke; none more than twice in a row; no blank utterances.
    let agents: Vec<&str> = transcript
        .iter()
        .map(speaker)
        .filter(|s| *s != "moderator" && *s != "human")
        .collect();
    for agent in ["economist", "engineer", "ethicist"] {
        assert!(
            agents.contains(&agent),
            "{agent} never spoke: {transcript:#?}"
        );
    }
    for run in agents.windows(3) {
        assert!(
            !(run[0] == run[1] && run[1] == run[2]),
            "three in a row: {agents:?}"
        );
    }
    assert!(transcript.iter().all(|l| !text(l).trim().is_empty()));

    // Question ids only grow; voices never overlap and sound in question-id order; every
    // line is on the timeline but those cut before a word of them was heard.
    assert_question_ids_increase(&transcript);
    let unheard = transcript
        .iter()
        .filter(|l| l["interrupted"] == true && l["text_played"] == "")
        .count();
    assert_eq!(timeline.len(), transcript.len() - unheard, "{timeline:#?}");
    let (guest, voices): (Vec<Value>, Vec<Value>) =
        timeline.into_iter().partition(|r| r["human"] == true);
    assert_one_voice_in_order(&voices);
    e2e_tests::assert_human_recorded(&dir, &guest, &transcript[asked]);
    // The conductor's decision log replays to the same decisions.
    e2e_tests::assert_replays_identically(&dir);
    if let Some(keep) = std::env::var_os("E2E_KEEP_DECISIONS") {
        // Re-recording the replay fixture: `tools/replay/tests/recorded/roundtable`.
        std::fs::copy(dir.join("decisions/moderator.jsonl"), keep).unwrap();
    }
}

//! The organic-auction debate through the real dora CLI, offline: auction records in
//! the events, interjections and a hard interrupt, one voice at a time on the timeline
//! except interjections over a ducked speaker, and the scripted guest's question answered
//! first.

use e2e_tests::{dora_run, jsonl, serial, session_dir, speaker};
use serde_json::Value;

#[test]
fn auction_debate_bids_interjects_and_cuts_in_with_one_voice_at_a_time() {
    let _serial = serial();
    let dir = session_dir("auction-debate");
    // The debate ends by itself after 14 main clips; the limit only guards against a hang.
    dora_run(
        "dataflows/auction-debate.yml",
        600,
        &[
            ("SESSION_DIR", dir.to_str().unwrap()),
            ("AUCTION_MAX_SEGMENTS", "14"),
            // Under test: the conductor's decisions, with the scripted stand-in's exact text
            // and pace (with the embedded model this format takes several minutes).
            ("LLM_BACKEND", "scripted"),
            ("OFFLINE_WORD_DELAY_MS", "30"),
            ("ESPEAK_SPEED", "320"),
        ],
    );
    let events = jsonl(&dir, "events.jsonl");
    let transcript = jsonl(&dir, "transcript.jsonl");
    let timeline = jsonl(&dir, "timeline.jsonl");
    let of = |kind: &str| -> Vec<&Value> { events.iter().filter(|e| e["event"] == kind).collect() };

    // It ended by itself, after exactly that many main clips.
    let end = events.last().expect("events");
    assert_eq!(end["event"], "session_end", "{end}");
    assert_eq!(end["reason"], "max_segments", "{end}");
    let mains = events
        .iter()
        .filter(|e| e["event"] == "segment" && e["role"] != "interjection")
        .count();
    assert_eq!(mains, 14, "{events:#?}");

    // Auction records, with provenance, for every micro-turn.
    let auctions = of("auction");
    assert!(
        auctions.len() >= 5,
        "{} auctions: {events:#?}",
        auctions.len()
    );
    assert!(!of("bid").is_empty() && !of("segment").is_empty() && !of("timing").is_empty());
    assert!(
        events
            .iter()
            .filter(|e| e.get("provenance").is_some())
            .all(|e| e["provenance"]["policy"] == "auction/v1" && e["t_ms"].is_u64())
    );
    // owl's bids are asked of its model; the offline model answers none: heuristic fallback.
    assert!(of("bid_fallback").iter().any(|e| e["agent_id"] == "owl"));
    let interjections = of("interjection");
    let interrupts = of("interrupt");
    assert!(!interjections.is_empty(), "no interjection: {events:#?}");
    assert!(
        interrupts
            .iter()
            .any(|e| e["kicker_clip_id"].as_str().is_some_and(|k| !k.is_empty())),
        "no hard interrupt: {events:#?}"
    );

    // The timeline: no two voices at once, except an interjection over a ducked speaker.
    let (guest, timeline): (Vec<Value>, Vec<Value>) =
        timeline.into_iter().partition(|t| t["human"] == true);
    assert!(timeline.len() >= 5, "{timeline:#?}");
    for (i, a) in timeline.iter().enumerate() {
        for b in &timeline[i + 1..] {
            let ms = |v: &Value, k: &str| v[k].as_u64().unwrap();
            let start = ms(a, "start_ms").max(ms(b, "start_ms"));
            let end = ms(a, "end_ms").min(ms(b, "end_ms"));
            if start >= end {
                continue;
            }
            let ducked_under =
                |overlay: &Value, main: &Value| {
                    overlay["overlay"] == true
                        && main["overlay"] == false
                        && main["ducked"].as_array().unwrap().iter().any(|w| {
                            w[0].as_u64().unwrap() <= start && end <= w[1].as_u64().unwrap()
                        })
                };
            assert!(
                ducked_under(a, b) || ducked_under(b, a),
                "two voices at once: {a} and {b}"
            );
        }
    }
    assert!(timeline.iter().any(|t| t["overlay"] == true));
    let cut: Vec<&Value> = timeline
        .iter()
        .filter(|t| t["interrupted"] == true)
        .collect();
    assert!(
        !cut.is_empty(),
        "a hard interrupt cuts a clip: {timeline:#?}"
    );
    for c in &cut {
        let text = c["text_played"].as_str().unwrap();
        let clip = interrupts.iter().find(|i| i["cut_clip_id"] == c["clip_id"]);
        assert!(
            clip.is_some() || text.is_empty(),
            "cut without an interrupt record: {c}"
        );
    }

    // The transcript: the three debaters, what was heard, interrupted lines marked.
    assert!(transcript.len() >= 5, "{transcript:#?}");
    for name in ["hawk", "dove", "owl"] {
        assert!(
            transcript.iter().any(|l| speaker(l) == name),
            "{name} never spoke"
        );
    }
    assert!(transcript.iter().any(|l| l["interrupted"] == true));

    // The guest (dataflows/scripts/auction-human.yml) nodded once, which cut nothing,
    // then cut in and asked the hawk: their voice held the clip that sounded (the
    // player's barge-in record), their words cut it (an interrupt on record in their
    // name) and the next debater heard answered them.
    let humans: Vec<usize> = (0..transcript.len())
        .filter(|&i| transcript[i]["human"] == true)
        .collect();
    assert_eq!(
        humans.len(),
        1,
        "one question, no nod taken as words: {transcript:#?}"
    );
    let asked = &transcript[humans[0]];
    e2e_tests::assert_human_recorded(&dir, &guest, asked);
    assert!(
        interrupts
            .iter()
            .any(|i| i["agent_id"] == "human" && i["text"] == asked["text"]),
        "the guest's cut is not on record: {interrupts:#?}"
    );
    let answer = transcript[humans[0] + 1..]
        .iter()
        .find(|l| l["human"] == false)
        .expect("an answer");
    if asked["text"]
        .as_str()
        .unwrap()
        .to_lowercase()
        .contains("hawk")
    {
        assert_eq!(speaker(answer), "hawk", "{transcript:#?}");
    }
    let barge_ins = jsonl(&dir, "barge_in.jsonl");
    assert!(
        barge_ins.iter().any(|b| b["was_playing"] == true),
        "no clip was held: {barge_ins:#?}"
    );
    // The conductor's decision log replays to the same decisions.
    e2e_tests::assert_replays_identically(&dir);
}

use super::*;

fn meta() -> Meta {
    Meta::default()
}

fn q(id: u64, speaker: &str) -> Meta {
    Meta {
        question_id: Some(id),
        speaker: Some(speaker.to_owned()),
        ..Meta::default()
    }
}

fn broadcasts(out: &[PageOutput]) -> Vec<Value> {
    out.iter()
        .filter_map(|o| match o {
            PageOutput::Broadcast(s) => Some(serde_json::from_str(s).unwrap()),
            _ => None,
        })
        .collect()
}

fn of_type(out: &[PageOutput], kind: &str) -> Vec<Value> {
    broadcasts(out)
        .into_iter()
        .filter(|v| v["type"] == kind)
        .collect()
}

#[test]
fn an_utterance_becomes_a_line_and_the_player_report_splits_it() {
    let mut c = Console::new(Config::default());
    let out = c.input(
        "utterance",
        Data::Text("A limit is what a function approaches."),
        &q(4, "tutor"),
        10,
    );
    let line = &of_type(&out, "line")[0];
    assert_eq!(line["speaker"], "tutor");
    assert_eq!(line["kind"], "agent");
    assert_eq!(line["question_id"], 4);
    assert!(line["played"].is_null());
    let done = Meta {
        interrupted: Some(true),
        chars_played: Some(10),
        ..q(4, "tutor")
    };
    let out = c.input("playback_done", Data::Text("A limit is"), &done, 20);
    let line = &of_type(&out, "line")[0];
    assert_eq!(line["seq"], 0, "the same line, updated");
    assert_eq!(line["played"], "A limit is");
    assert_eq!(line["cut"], " what a function approaches.");
    assert_eq!(line["interrupted"], true);
}

#[test]
fn a_report_before_its_utterance_is_kept_until_the_line_exists() {
    let mut c = Console::new(Config::default());
    let done = Meta {
        chars_played: Some(5),
        ..q(2, "student1")
    };
    assert!(
        of_type(
            &c.input("playback_done", Data::Text("Hello"), &done, 1),
            "line"
        )
        .is_empty()
    );
    let out = c.input("utterance", Data::Text("Hello"), &q(2, "student1"), 2);
    let lines = of_type(&out, "line");
    assert_eq!(lines.last().unwrap()["played"], "Hello");
    assert!(lines.last().unwrap()["cut"].is_null(), "not interrupted");
}

#[test]
fn human_lines_moderator_lines_decisions_and_interrupts_in_order() {
    let mut c = Console::new(Config::default());
    let human = Meta {
        is_human: Some(true),
        ..q(7, "human")
    };
    c.input("utterance", Data::Text("Wait, why?"), &human, 1);
    c.input("interrupt", Data::Text("reset"), &q(8, ""), 2);
    c.input(
        "interrupt",
        Data::Text("cancel"),
        &Meta {
            question_id: Some(0),
            ..meta()
        },
        3,
    );
    c.input("utterance", Data::Text("Welcome."), &q(9, "moderator"), 4);
    c.input(
        "decision",
        Data::Text(r#"{"action":"call_on","target":"ana","reason":"quiet","phase":"opening","next_phase":"debate"}"#),
        &meta(),
        5,
    );
    let kinds: Vec<&str> = c.lines().map(|l| l.kind).collect();
    assert_eq!(kinds, ["human", "interrupt", "moderator", "decision"]);
    assert_eq!(
        c.policy().last_decision.as_deref(),
        Some("call_on → ana: quiet")
    );
    assert_eq!(c.policy().phase.as_deref(), Some("debate"));
    let seqs: Vec<u64> = c.lines().map(|l| l.seq).collect();
    assert_eq!(seqs, [0, 1, 2, 3]);
}

#[test]
fn status_becomes_share_bars() {
    let mut c = Console::new(Config::default());
    let out = c.input(
        "status",
        Data::Text(r#"{"mode":"ratio_priority","participants":["tutor","s1"],"weights":[{"name":"tutor","weight":"*"},{"name":"s1","weight":1.0}],"word_counts":{"tutor":5,"s1":7},"cycle":1,"current_speaker":"s1"}"#),
        &meta(),
        0,
    );
    let policy = &of_type(&out, "policy")[0];
    assert_eq!(policy["status"]["mode"], "ratio_priority");
    assert_eq!(policy["status"]["bars"][1]["share"], 1.0);
    assert_eq!(policy["status"]["bars"][1]["target"], 1.0);
    assert!(policy["status"]["bars"][0]["target"].is_null());
    // An unreadable status changes nothing on the page, with a warning.
    let out = c.input("status", Data::Text("not json"), &meta(), 1);
    assert!(
        matches!(out.as_slice(), [PageOutput::Warning(w)] if w.contains("status")),
        "{out:?}"
    );
}

#[test]
fn speaking_now_and_next() {
    let mut c = Console::new(Config::default());
    c.input("turn", Data::Text("tutor"), &q(1, "tutor"), 0);
    let out = c.input("turn", Data::Text("student1"), &q(2, "student1"), 5);
    assert_eq!(of_type(&out, "speaking")[0]["next"], "student1");
    let out = c.input("playback_started", Data::Text("tutor"), &q(1, "tutor"), 10);
    let s = &of_type(&out, "speaking")[0];
    assert_eq!(s["now"], "tutor");
    assert_eq!(s["next"], "student1");
    let out = c.input("playback_done", Data::Text("x"), &q(1, "tutor"), 20);
    assert!(of_type(&out, "speaking")[0]["now"].is_null());
}

#[test]
fn page_controls_and_typed_words_become_outputs() {
    let mut c = Console::new(Config::default());
    let out = c.page_text(1, r#"{"type":"control","command":"pause"}"#, 0);
    assert_eq!(
        out[0],
        PageOutput::Dora(DoraOutput::Control("cancel".into()))
    );
    let out = c.page_text(1, r#"{"type":"control","command":"resume"}"#, 0);
    assert_eq!(
        out[0],
        PageOutput::Dora(DoraOutput::Control("ready".into()))
    );
    let out = c.page_text(1, r#"{"type":"say","text":"Can you give an example?"}"#, 0);
    assert_eq!(
        out[0],
        PageOutput::Dora(DoraOutput::HumanText {
            speaker: "human".into(),
            text: "Can you give an example?".into()
        })
    );
    let out = c.page_text(1, "{", 0);
    assert!(matches!(&out[0], PageOutput::To(1, m) if m.contains("notice")));
}

#[test]
fn one_page_holds_the_microphone() {
    let mut c = Console::new(Config::default());
    c.connected(1);
    c.connected(2);
    c.page_text(1, r#"{"type":"mic","on":true}"#, 0);
    assert_eq!(c.mic_holder(), Some(1));
    let out = c.page_text(2, r#"{"type":"mic","on":true}"#, 0);
    assert_eq!(c.mic_holder(), Some(1));
    assert!(
        out.iter()
            .any(|o| matches!(o, PageOutput::To(2, m) if m.contains("\"busy\":true")))
    );
    let frame = page::encode_audio(16_000, &[0.1; 320]);
    let out = c.page_audio(2, &frame, 1);
    assert!(!out.iter().any(|o| matches!(o, PageOutput::Dora(_))));
    let out = c.page_audio(1, &frame, 1);
    assert!(out.iter().any(|o| matches!(o, PageOutput::Dora(DoraOutput::Audio { sample_rate: 16_000, samples }) if samples.len() == 320)));
    // Leaving releases it, with trailing silence so the recognizer ends the utterance.
    let out = c.disconnected(1);
    assert_eq!(c.mic_holder(), None);
    assert!(out.iter().any(|o| matches!(o, PageOutput::Dora(DoraOutput::Audio { samples, .. }) if samples.iter().all(|s| *s == 0.0))));
    c.page_text(2, r#"{"type":"mic","on":true}"#, 2);
    assert_eq!(c.mic_holder(), Some(2));
}

#[test]
fn voice_audio_goes_to_listeners_and_levels_are_throttled() {
    let mut c = Console::new(Config::default());
    let m = Meta {
        sample_rate: Some(22_050),
        ..q(3, "tutor")
    };
    let block = [0.5f32; 256];
    let out = c.input("audio", Data::Samples(&block), &m, 0);
    assert_eq!(of_type(&out, "level").len(), 1);
    assert!(!out.iter().any(|o| matches!(o, PageOutput::Audio { .. })));
    c.page_text(5, r#"{"type":"listen","on":true}"#, 0);
    let out = c.input("audio", Data::Samples(&block), &m, 10);
    assert!(of_type(&out, "level").is_empty(), "throttled");
    let audio: Vec<_> = out
        .iter()
        .filter_map(|o| match o {
            PageOutput::Audio { frame, to } => Some((frame.clone(), to.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(audio.len(), 1);
    assert_eq!(audio[0].1, [5]);
    assert_eq!(page::decode_audio(&audio[0].0).unwrap().0, 22_050);
    assert_eq!(
        of_type(&c.input("audio", Data::Samples(&block), &m, 60), "level").len(),
        1
    );
}

#[test]
fn a_new_page_gets_the_session_so_far() {
    let mut c = Console::new(Config::default());
    c.input("utterance", Data::Text("one"), &q(1, "a"), 0);
    c.input("utterance", Data::Text("two"), &q(2, "b"), 1);
    let out = c.connected(9);
    let texts: Vec<String> = out
        .iter()
        .filter_map(|o| match o {
            PageOutput::To(9, m) => {
                let v: Value = serde_json::from_str(m).unwrap();
                (v["type"] == "line").then(|| v["text"].as_str().unwrap().to_owned())
            }
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["one", "two"]);
    assert!(out.iter().all(|o| matches!(o, PageOutput::To(9, _))));
}

#[test]
fn heard_split_by_text_or_by_count() {
    assert_eq!(
        split_heard("Hello there", "Hello", None),
        ("Hello".into(), " there".into())
    );
    assert_eq!(
        split_heard("日本語です", "", Some(2)),
        ("日本".into(), "語です".into())
    );
    assert_eq!(split_heard("abc", "", None), (String::new(), "abc".into()));
    assert_eq!(
        split_heard("abc", "x", Some(99)),
        ("abc".into(), String::new())
    );
}

#[test]
fn auction_bids_update_the_token_table() {
    let mut c = Console::new(Config::default());
    c.input(
        "auction",
        Data::Text(r#"{"event":"bid","agent_id":"ana","bid":3,"tokens":5,"provenance":{}}"#),
        &meta(),
        0,
    );
    c.input(
        "auction",
        Data::Text(
            r#"{"event":"auction","winner":"ana","rows":[{"agent_id":"ana","tokens_left":2}]}"#,
        ),
        &meta(),
        1,
    );
    let ana = &c.policy().auction["ana"];
    assert_eq!((ana.tokens, ana.bid), (Some(2), Some(3)));
    assert_eq!(c.lines().last().unwrap().kind, "auction");
}

#[test]
fn a_rehearsal_board_reaches_every_page_and_its_controls_the_moderator() {
    let mut c = Console::new(Config::default());
    let board = r#"{"slide":1,"slides":4,"title":"Market Size","points":["TAM $40B"],"phase":"presenting","hands":[{"agent":"analyst","name":"Priya Sharma"}],"debrief":null}"#;
    let out = c.input("board", Data::Text(board), &meta(), 5);
    let shown = &of_type(&out, "board")[0];
    assert_eq!(shown["title"], "Market Size");
    assert_eq!(shown["hands"][0]["agent"], "analyst");
    // A page that connects later gets it too.
    let later = c.connected(7);
    assert!(
        later
            .iter()
            .any(|o| matches!(o, PageOutput::To(7, m) if m.contains("\"type\":\"board\"")))
    );
    // Not an object: a warning, the board kept.
    let out = c.input("board", Data::Text("[1,2]"), &meta(), 6);
    assert!(matches!(out.as_slice(), [PageOutput::Warning(_)]));
    assert_eq!(c.board().unwrap()["slide"], 1);
    // The presenter's controls become the moderator's commands.
    for (sent, wire) in [
        ("next", "next"),
        ("open_qa", "open_qa"),
        ("ack analyst", "ack analyst"),
        ("answered", "answered"),
        ("move_on", "move_on"),
        ("end", "end"),
    ] {
        let out = c.page_text(
            7,
            &serde_json::json!({"type": "control", "command": sent}).to_string(),
            10,
        );
        assert_eq!(out[0], PageOutput::Dora(DoraOutput::Control(wire.into())));
    }
}

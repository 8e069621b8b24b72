use proptest::prelude::*;
use turn_policy::Policy;

use super::*;

const STUDY: &str = "[(human, 0.001), (tutor, *), (student1, 1), (student2, 1)]";

fn conference(pattern: &str) -> Conference {
    let engine = PolicyEngine::new(Policy::parse(pattern).unwrap(), &[] as &[&str]);
    Conference::new(engine, ConferenceConfig::default())
}

/// A controller that never sends a turn again: the timeouts alone.
fn without_resend(pattern: &str) -> Conference {
    let engine = PolicyEngine::new(Policy::parse(pattern).unwrap(), &[] as &[&str]);
    Conference::new(
        engine,
        ConferenceConfig {
            turn_resend: None,
            ..ConferenceConfig::default()
        },
    )
}

/// Milliseconds of `s` seconds, the core's time unit.
fn secs(s: u64) -> u64 {
    s * 1_000
}

fn turns(actions: &[Output]) -> Vec<(String, u64)> {
    actions
        .iter()
        .filter_map(|a| match a {
            Output::Turn {
                speaker,
                question_id,
            } => Some((speaker.clone(), *question_id)),
            _ => None,
        })
        .collect()
}

fn interrupts(actions: &[Output]) -> Vec<(InterruptKind, u64)> {
    actions
        .iter()
        .filter_map(|a| match a {
            Output::Interrupt { kind, question_id } => Some((*kind, *question_id)),
            _ => None,
        })
        .collect()
}

fn utterances(actions: &[Output]) -> Vec<Utterance> {
    actions
        .iter()
        .filter_map(|a| match a {
            Output::Utterance(u) => Some(u.clone()),
            _ => None,
        })
        .collect()
}

fn text(from: &str, text: &str, status: Option<StreamStatus>, q: Option<u64>) -> Input {
    Input::Text {
        from: from.into(),
        text: text.into(),
        status,
        question_id: q,
    }
}

/// Streams one utterance in three chunks for the current speaker and returns the actions.
fn speak(c: &mut Conference, words: &str, now: u64) -> Vec<Output> {
    let (speaker, q) = c.current_turn().map(|(s, q)| (s.to_owned(), q)).unwrap();
    let mut out = c.handle(
        text(&speaker, "", Some(StreamStatus::Started), Some(q)),
        now,
    );
    out.extend(c.handle(
        text(&speaker, words, Some(StreamStatus::Ongoing), Some(q)),
        now,
    ));
    out.extend(c.handle(
        text(&speaker, " Done.", Some(StreamStatus::Ended), Some(q)),
        now,
    ));
    out
}

#[test]
fn cold_start_then_turns_follow_the_policy() {
    let mut c = conference(STUDY);
    let out = c.handle(Input::Start, secs(0));
    assert_eq!(turns(&out), [("student1".to_owned(), 1)]);
    assert!(matches!(out.last(), Some(Output::Status(_))));
    let out = speak(&mut c, "What is a derivative?", secs(1));
    let said = utterances(&out);
    assert_eq!(said.len(), 1);
    assert_eq!(said[0].speaker, "student1");
    assert_eq!(said[0].text, "What is a derivative? Done.");
    assert!(!said[0].interrupted);
    assert_eq!(turns(&out), [("tutor".to_owned(), 2)]);
    // Each chunk's words count once: 4 + 1.
    assert_eq!(c.status().word_counts.get("student1"), Some(5));
}

#[test]
fn human_speech_holds_then_a_question_resets_and_the_tutor_answers() {
    let mut c = conference(STUDY);
    c.handle(Input::Start, secs(0));
    speak(&mut c, "One two three", secs(1));
    // Tutor is mid-utterance when the human starts to talk.
    let (tutor, q) = c.current_turn().map(|(s, q)| (s.to_owned(), q)).unwrap();
    c.handle(
        text(&tutor, "Let me", Some(StreamStatus::Started), Some(q)),
        secs(2),
    );
    let out = c.handle(Input::SpeechStarted { onset_us: None }, secs(2));
    // Held, not dropped (it may be a backchannel); the tutor, who answers a question,
    // may read the conversation meanwhile.
    assert_eq!(
        out,
        [
            Output::Hold { onset_us: None },
            Output::Prepare {
                speaker: "tutor".into(),
                ahead_of: PrepareFor::Answer,
            }
        ],
    );
    assert!(c.is_held());
    // The held turn goes on generating; when it ends, nobody starts while the human talks.
    let out = c.handle(
        text(&tutor, " explain.", Some(StreamStatus::Ended), Some(q)),
        secs(2),
    );
    assert!(turns(&out).is_empty(), "{out:?}");
    assert_eq!(utterances(&out)[0].text, "Let me explain.");

    let out = c.handle(
        Input::Human {
            speaker: "human".into(),
            text: "Can you give an example?".into(),
            heard: None,
        },
        secs(3),
    );
    assert!(!c.is_held());
    let reset = interrupts(&out);
    assert_eq!(reset.len(), 1);
    assert_eq!(reset[0].0, InterruptKind::Reset);
    assert!(reset[0].1 > q);
    assert!(
        !out.contains(&Output::Resume),
        "the question drops what was held"
    );
    let said = utterances(&out);
    assert!(said[0].human);
    assert_eq!(said[0].question_id, reset[0].1);
    let next = turns(&out);
    assert_eq!(next.len(), 1);
    assert_eq!(next[0].0, "tutor");
    assert!(next[0].1 > reset[0].1);
    let stats = c.status();
    assert_eq!(stats.word_counts.get("human"), Some(5));
}

#[test]
fn a_question_cuts_the_held_turn_short() {
    let mut c = conference(STUDY);
    c.handle(Input::Start, secs(0));
    let (who, q) = c.current_turn().map(|(s, q)| (s.to_owned(), q)).unwrap();
    c.handle(
        text(&who, "Let me", Some(StreamStatus::Started), Some(q)),
        secs(1),
    );
    c.handle(Input::SpeechStarted { onset_us: None }, secs(1));
    let out = c.handle(
        Input::Human {
            speaker: "human".into(),
            text: "Wait, why?".into(),
            heard: None,
        },
        secs(2),
    );
    let cut = utterances(&out);
    assert_eq!(cut[0].text, "Let me");
    assert!(cut[0].interrupted);
    // A late chunk of the cut turn is stale.
    let out = c.handle(
        text(&who, " go", Some(StreamStatus::Ongoing), Some(q)),
        secs(2),
    );
    assert!(matches!(out[..], [Output::Notice(Notice::Stale { .. })]));
}

#[test]
fn a_backchannel_resumes_and_the_due_turn_goes_out() {
    let mut c = conference(STUDY);
    c.handle(Input::Start, secs(0));
    let (who, q) = c.current_turn().map(|(s, q)| (s.to_owned(), q)).unwrap();
    assert_eq!(
        c.handle(Input::SpeechStarted { onset_us: None }, secs(1))[0],
        Output::Hold { onset_us: None }
    );
    // Speech again within the hold: still one hold.
    assert!(
        c.handle(Input::SpeechStarted { onset_us: None }, secs(2))
            .is_empty()
    );
    let out = c.handle(
        text(&who, "Done.", Some(StreamStatus::Ended), Some(q)),
        secs(2),
    );
    assert!(turns(&out).is_empty());
    let out = c.handle(Input::Backchannel, secs(3));
    assert_eq!(out[0], Output::Resume);
    assert_eq!(turns(&out).len(), 1, "{out:?}");
    assert!(interrupts(&out).is_empty(), "nothing was dropped");
    // A backchannel without a hold does nothing.
    assert!(c.handle(Input::Backchannel, secs(4)).is_empty());
    // No words after speech: the same as a backchannel.
    c.handle(Input::SpeechStarted { onset_us: None }, secs(5));
    let out = c.handle(
        Input::Human {
            speaker: "human".into(),
            text: " ".into(),
            heard: None,
        },
        secs(6),
    );
    assert!(out.contains(&Output::Resume), "{out:?}");
}

#[test]
fn a_hold_that_ends_without_words_repeats_the_turn_in_progress() {
    let mut c = conference(STUDY);
    c.handle(Input::Start, secs(0));
    let current = c.current_turn().map(|(s, q)| (s.to_owned(), q)).unwrap();
    c.handle(Input::SpeechStarted { onset_us: None }, secs(1));
    // Its speaker may have stopped it to read the answer ahead: it is asked for again.
    let out = c.handle(Input::Backchannel, secs(2));
    assert_eq!(out[0], Output::Resume);
    assert_eq!(turns(&out), std::slice::from_ref(&current), "{out:?}");
    assert!(interrupts(&out).is_empty());
    assert_eq!(
        c.current_turn().map(|(s, q)| (s.to_owned(), q)),
        Some(current)
    );
}

#[test]
fn human_transcript_without_speech_started_also_resets() {
    let mut c = conference(STUDY);
    c.handle(Input::Start, secs(0));
    let out = c.handle(
        Input::Human {
            speaker: "human".into(),
            text: "Hello".into(),
            heard: None,
        },
        secs(1),
    );
    assert_eq!(interrupts(&out)[0].0, InterruptKind::Reset);
    assert_eq!(turns(&out)[0].0, "tutor");
}

#[test]
fn robustness_notices() {
    let mut c = conference(STUDY);
    c.handle(Input::Start, secs(0));
    let out = c.handle(text("stranger", "hi", None, None), secs(0));
    assert!(matches!(
        out[..],
        [Output::Notice(Notice::UnknownParticipant { .. })]
    ));
    let out = c.handle(text("student2", "me too", None, None), secs(0));
    assert!(matches!(
        out[..],
        [Output::Notice(Notice::NotTheirTurn { .. })]
    ));
    let out = c.handle(
        Input::Human {
            speaker: "human".into(),
            text: "  ".into(),
            heard: None,
        },
        secs(0),
    );
    assert!(matches!(
        out[..],
        [Output::Notice(Notice::EmptyHuman { .. })]
    ));
    assert_eq!(c.current_turn().unwrap().0, "student1");
}

#[test]
fn silent_speaker_is_skipped_after_the_timeout() {
    let mut c = without_resend(STUDY);
    c.handle(Input::Start, secs(0));
    assert_eq!(c.next_deadline(), Some(secs(60)));
    assert!(c.handle(Input::Tick, secs(59)).is_empty());
    let out = c.handle(Input::Tick, secs(60));
    assert!(
        out.iter()
            .any(|a| matches!(a, Output::Notice(Notice::TurnTimeout { speaker, .. }) if speaker == "student1"))
    );
    assert_eq!(interrupts(&out)[0].0, InterruptKind::Cancel);
    assert_eq!(turns(&out)[0].0, "tutor");
}

#[test]
fn a_turn_its_speaker_sends_nothing_of_is_sent_again_until_the_timeout() {
    let mut c = conference(STUDY);
    let first = turns(&c.handle(Input::Start, secs(0)));
    assert_eq!(first, [("student1".to_owned(), 1)]);
    assert_eq!(c.next_deadline(), Some(secs(12)));
    assert!(c.handle(Input::Tick, secs(11)).is_empty());
    let out = c.handle(Input::Tick, secs(12));
    // The same turn, as it was: a bridge ignores a turn it already works on.
    assert_eq!(turns(&out), first, "{out:?}");
    assert!(out.iter().any(|o| matches!(
        o,
        Output::Notice(Notice::TurnResent { speaker, question_id: 1, secs: 12 }) if speaker == "student1"
    )));
    assert!(interrupts(&out).is_empty());
    assert_eq!(c.next_deadline(), Some(secs(24)));
    assert_eq!(turns(&c.handle(Input::Tick, secs(24))), first);
    assert_eq!(turns(&c.handle(Input::Tick, secs(48))), first);
    // The timeout still counts from the turn's start.
    let out = c.handle(Input::Tick, secs(60));
    assert_eq!(absent(&out), ["student1"]);
    assert_eq!(turns(&out)[0].0, "tutor");
}

#[test]
fn a_turn_whose_speaker_answers_is_not_sent_again() {
    let mut c = conference(STUDY);
    c.handle(Input::Start, secs(0));
    let out = c.handle(
        Input::Text {
            from: "student1".into(),
            text: "Well".into(),
            status: Some(StreamStatus::Started),
            question_id: Some(1),
        },
        secs(5),
    );
    assert!(turns(&out).is_empty());
    assert_eq!(c.next_deadline(), Some(secs(60)));
    assert!(turns(&c.handle(Input::Tick, secs(30))).is_empty());
}

#[test]
fn turns_are_not_sent_again_when_resending_is_off() {
    let mut setup = ControllerSetup {
        pattern: STUDY.into(),
        humans: Vec::new(),
        turn_timeout_ms: 60_000,
        human_timeout_ms: 35_000,
        max_unplayed: None,
        absent_retry_turns: Some(8),
        turn_resend_ms: 12_000,
    };
    assert_eq!(setup.config().turn_resend, Some(TURN_RESEND));
    setup.set("TURN_RESEND_SECS", "0").unwrap();
    assert_eq!(setup.config().turn_resend, None);
    setup.set("TURN_RESEND_SECS", "2.5").unwrap();
    assert_eq!(setup.turn_resend_ms, 2_500);
    assert!(setup.set("TURN_RESEND_SECS", "-1").is_err());
    assert!(setup.set("TURN_RESEND_SECS", "soon").is_err());
    // A log recorded before the setting existed replays with the default.
    let old = r#"{"pattern":"[(a, 1), (b, 1)]","humans":[],"turn_timeout_ms":60000,"human_timeout_ms":35000,"max_unplayed":1,"absent_retry_turns":8}"#;
    let old: ControllerSetup = serde_json::from_str(old).unwrap();
    assert_eq!(old.turn_resend_ms, 12_000);
    let mut c = old.build().unwrap();
    c.handle(Input::Start, secs(0));
    assert_eq!(c.next_deadline(), Some(secs(12)));
}

#[test]
fn missing_transcript_after_speech_started_times_out() {
    let mut c = without_resend(STUDY);
    c.handle(Input::Start, secs(0));
    c.handle(Input::SpeechStarted { onset_us: None }, secs(1));
    assert_eq!(c.next_deadline(), Some(secs(36)));
    let out = c.handle(Input::Tick, secs(36));
    assert!(
        out.iter()
            .any(|a| matches!(a, Output::Notice(Notice::HumanTimeout { .. })))
    );
    assert!(out.contains(&Output::Resume), "{out:?}");
    assert!(!c.is_held());
}

#[test]
fn control_commands() {
    let mut c = conference(STUDY);
    c.handle(Input::Start, secs(0));
    speak(&mut c, "a b c", secs(0));
    let out = c.handle(Input::Control(ControlCommand::Stats), secs(0));
    assert!(matches!(out[..], [Output::Status(_)]));

    let out = c.handle(Input::Control(ControlCommand::Cancel), secs(1));
    assert_eq!(interrupts(&out)[0].0, InterruptKind::Cancel);
    assert!(turns(&out).is_empty());
    assert_eq!(c.current_turn(), None);

    let out = c.handle(Input::Control(ControlCommand::Ready), secs(2));
    assert_eq!(turns(&out).len(), 1);
    let current = c.current_turn().map(|(s, q)| (s.to_owned(), q)).unwrap();
    // `ready` during a turn repeats it unchanged.
    let out = c.handle(Input::Control(ControlCommand::Ready), secs(2));
    assert_eq!(turns(&out), std::slice::from_ref(&current));

    let out = c.handle(Input::Control(ControlCommand::Reset), secs(3));
    assert_eq!(interrupts(&out)[0].0, InterruptKind::Reset);
    // Cold start again: a student, not the tutor.
    assert_eq!(turns(&out)[0].0, "student1");
    assert!(turns(&out)[0].1 > current.1);
}

#[test]
fn complete_messages_without_status_end_the_turn() {
    let mut c = conference("[a → b → c]");
    c.handle(Input::Start, secs(0));
    let out = c.handle(text("a", "Hello there.", None, None), secs(0));
    assert_eq!(turns(&out)[0].0, "b");
}

#[test]
fn lone_assistant_waits_for_the_human() {
    let mut c = conference("[(human, 1), (assistant, *)]");
    let out = c.handle(Input::Start, secs(0));
    assert_eq!(turns(&out)[0].0, "assistant");
    let out = speak(&mut c, "Hi, how can I help?", secs(1));
    assert!(turns(&out).is_empty());
    assert!(
        out.iter()
            .any(|a| matches!(a, Output::Notice(Notice::FloorOpen)))
    );
    assert_eq!(c.next_deadline(), None);
    let out = c.handle(
        Input::Human {
            speaker: "human".into(),
            text: "Explain monads".into(),
            heard: None,
        },
        secs(5),
    );
    assert_eq!(turns(&out)[0].0, "assistant");
}

#[test]
fn huge_text_is_counted_but_capped() {
    let mut c = conference(STUDY);
    c.handle(Input::Start, secs(0));
    let q = c.current_turn().unwrap().1;
    let chunk = "word ".repeat(30_000);
    let mut notices = 0;
    for _ in 0..2 {
        let out = c.handle(
            text("student1", &chunk, Some(StreamStatus::Ongoing), Some(q)),
            secs(0),
        );
        notices += out
            .iter()
            .filter(|a| matches!(a, Output::Notice(Notice::Truncated { .. })))
            .count();
    }
    assert_eq!(notices, 1);
    assert_eq!(c.engine().word_count(2), 60_000);
    let out = c.handle(
        text("student1", "", Some(StreamStatus::Ended), Some(q)),
        secs(0),
    );
    // The chunk that crossed the limit is cut there, not dropped whole.
    assert_eq!(utterances(&out)[0].text.len(), MAX_UTTERANCE_CHARS);
}

#[test]
fn one_huge_chunk_keeps_its_first_characters_up_to_the_limit() {
    let mut c = conference(STUDY);
    c.handle(Input::Start, secs(0));
    let q = c.current_turn().unwrap().1;
    let chunk = "é".repeat(5_000_000);
    let out = c.handle(
        text("student1", &chunk, Some(StreamStatus::Ended), Some(q)),
        secs(0),
    );
    let kept = &utterances(&out)[0].text;
    // Counted in characters, as every conductor counts them.
    assert_eq!(kept.chars().count(), MAX_UTTERANCE_CHARS);
    assert!(kept.chars().all(|ch| ch == 'é'));
}

fn absent(actions: &[Output]) -> Vec<String> {
    actions
        .iter()
        .filter_map(|a| match a {
            Output::Notice(Notice::Absent { speaker, .. }) => Some(speaker.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_participant_that_timed_out_is_skipped_until_it_speaks_again() {
    let engine = PolicyEngine::new(Policy::parse(STUDY).unwrap(), &[] as &[&str]);
    let config = ConferenceConfig {
        absent_retry_turns: None,
        ..ConferenceConfig::default()
    };
    let mut c = Conference::new(engine, config);
    c.handle(Input::Start, secs(0));
    assert_eq!(c.current_turn().unwrap().0, "student1");
    let out = c.handle(Input::Tick, secs(60));
    assert_eq!(absent(&out), ["student1"]);
    let mut handed = Vec::new();
    for t in 0..10 {
        let out = speak(&mut c, "a few words here", secs(61 + t));
        handed.extend(turns(&out).into_iter().map(|(s, _)| s));
    }
    assert!(!handed.iter().any(|s| s == "student1"), "{handed:?}");
    assert_eq!(c.status().absent, ["student1"]);
    // Late text from it (stale, but alive): it takes turns again.
    let out = c.handle(
        text("student1", "sorry", Some(StreamStatus::Ended), Some(1)),
        secs(80),
    );
    assert!(out.iter().any(
        |a| matches!(a, Output::Notice(Notice::Returned { speaker }) if speaker == "student1")
    ));
    assert!(c.status().absent.is_empty());
    let mut handed = Vec::new();
    for t in 0..4 {
        let out = speak(&mut c, "a few words here", secs(81 + t));
        handed.extend(turns(&out).into_iter().map(|(s, _)| s));
    }
    assert!(handed.iter().any(|s| s == "student1"), "{handed:?}");
}

fn retried(actions: &[Output]) -> Vec<String> {
    actions
        .iter()
        .filter_map(|a| match a {
            Output::Notice(Notice::Retried { speaker, .. }) => Some(speaker.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_participant_that_timed_out_is_offered_the_turn_again_after_a_few_turns() {
    let engine = PolicyEngine::new(Policy::parse(STUDY).unwrap(), &[] as &[&str]);
    let config = ConferenceConfig {
        absent_retry_turns: Some(3),
        turn_resend: None,
        ..ConferenceConfig::default()
    };
    let mut c = Conference::new(engine, config);
    c.handle(Input::Start, secs(0));
    assert_eq!(c.current_turn().unwrap().0, "student1");
    let out = c.handle(Input::Tick, secs(60));
    assert_eq!(absent(&out), ["student1"]);
    // Three turns of the others (the one handed out at the timeout counts), then a retry.
    let mut handed: Vec<String> = turns(&out).into_iter().map(|(s, _)| s).collect();
    let mut retries = Vec::new();
    for t in 0..6 {
        let out = speak(&mut c, "a few words here", secs(61 + t));
        handed.extend(turns(&out).into_iter().map(|(s, _)| s));
        retries.extend(retried(&out));
    }
    assert_eq!(retries, ["student1"]);
    let first = handed
        .iter()
        .position(|s| s == "student1")
        .expect("retried");
    assert!(first >= 3, "{handed:?}");
    assert!(c.status().absent.is_empty());
    // Silent again: absent again, and retried again later.
    for _ in 0..8 {
        if c.current_turn().unwrap().0 == "student1" {
            break;
        }
        speak(&mut c, "a few words here", secs(70));
    }
    assert_eq!(c.current_turn().unwrap().0, "student1", "retried again");
    let out = c.handle(Input::Tick, secs(200));
    assert_eq!(absent(&out), ["student1"]);
}

#[test]
fn when_every_agent_timed_out_they_are_retried_rather_than_the_floor_left_open() {
    let mut c = conference("[(human, 0.001), (a, 1), (b, 1)]");
    c.handle(Input::Start, secs(0));
    let mut now = 0;
    let mut absent_names = Vec::new();
    let mut retries = Vec::new();
    for _ in 0..4 {
        now += 60;
        let out = c.handle(Input::Tick, secs(now));
        absent_names.extend(absent(&out));
        retries.extend(retried(&out));
        assert!(c.current_turn().is_some(), "a turn is always handed out");
    }
    assert!(absent_names.len() >= 4 && !retries.is_empty());
}

#[test]
fn a_closed_input_is_never_retried() {
    let engine = PolicyEngine::new(Policy::parse(STUDY).unwrap(), &[] as &[&str]);
    let config = ConferenceConfig {
        absent_retry_turns: Some(1),
        ..ConferenceConfig::default()
    };
    let mut c = Conference::new(engine, config);
    c.handle(Input::Start, secs(0));
    c.handle(Input::Tick, secs(60));
    c.handle(
        Input::InputClosed {
            input: "student1".into(),
        },
        secs(61),
    );
    let mut handed = Vec::new();
    for t in 0..8 {
        let out = speak(&mut c, "words", secs(62 + t));
        assert!(retried(&out).is_empty());
        handed.extend(turns(&out).into_iter().map(|(s, _)| s));
    }
    assert!(!handed.iter().any(|s| s == "student1"), "{handed:?}");
}

#[test]
fn a_participant_whose_input_closes_loses_the_turn_at_once() {
    let mut c = conference(STUDY);
    c.handle(Input::Start, secs(0));
    let (speaker, q) = c.current_turn().map(|(s, q)| (s.to_owned(), q)).unwrap();
    assert_eq!(speaker, "student1");
    let out = c.handle(
        Input::InputClosed {
            input: "student1".into(),
        },
        secs(1),
    );
    assert_eq!(absent(&out), ["student1"]);
    assert!(interrupts(&out).iter().any(|(_, id)| *id > q));
    assert_eq!(turns(&out)[0].0, "tutor");
    // Nobody else left but the tutor and student2: they alternate, no 60 s waits.
    let mut handed = Vec::new();
    for t in 0..6 {
        let out = speak(&mut c, "words", secs(2 + t));
        handed.extend(turns(&out).into_iter().map(|(s, _)| s));
    }
    assert!(!handed.iter().any(|s| s == "student1"), "{handed:?}");
    // Closing an unknown or human input changes nothing.
    assert!(
        c.handle(
            Input::InputClosed {
                input: "human".into()
            },
            secs(9)
        )
        .is_empty()
    );
    assert!(
        c.handle(
            Input::InputClosed {
                input: "control".into()
            },
            secs(9)
        )
        .is_empty()
    );
}

#[test]
fn everyone_gone_opens_the_floor_and_a_return_resumes() {
    let mut c = conference("[a, b]");
    c.handle(Input::Start, secs(0));
    c.handle(Input::InputClosed { input: "b".into() }, secs(1));
    let out = c.handle(Input::InputClosed { input: "a".into() }, secs(1));
    assert!(
        out.iter()
            .any(|a| matches!(a, Output::Notice(Notice::FloorOpen)))
    );
    assert_eq!(c.next_deadline(), None);
    // `b` comes back (restarted, it says something): the conversation goes on.
    let out = c.handle(text("b", "", Some(StreamStatus::Ended), Some(0)), secs(5));
    assert_eq!(turns(&out)[0].0, "b");
}

#[test]
fn a_gone_player_is_not_waited_for() {
    let engine = PolicyEngine::new(Policy::parse(STUDY).unwrap(), &[] as &[&str]);
    let config = ConferenceConfig {
        max_unplayed: Some(1),
        ..ConferenceConfig::default()
    };
    let mut c = Conference::new(engine, config);
    c.handle(Input::Start, secs(0));
    speak(&mut c, "One two", secs(1));
    let out = speak(&mut c, "Three four", secs(2));
    assert!(turns(&out).is_empty(), "waiting for playback");
    let out = c.handle(
        Input::InputClosed {
            input: "playback_done".into(),
        },
        secs(3),
    );
    assert_eq!(turns(&out).len(), 1, "{out:?}");
    for t in 0..4 {
        let out = speak(&mut c, "more words", secs(4 + t));
        assert_eq!(turns(&out).len(), 1, "never waits again");
    }
}

#[derive(Debug, Clone)]
enum Step {
    Speak(u8),
    Chunk(u8),
    Stale,
    SpeechStarted,
    Backchannel,
    Human(u8),
    Control(u8),
    Wait(u8),
    Close(u8),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => any::<u8>().prop_map(Step::Speak),
        3 => any::<u8>().prop_map(Step::Chunk),
        1 => Just(Step::Stale),
        1 => Just(Step::SpeechStarted),
        1 => Just(Step::Backchannel),
        1 => any::<u8>().prop_map(Step::Human),
        1 => (0u8..4).prop_map(Step::Control),
        1 => any::<u8>().prop_map(Step::Wait),
        1 => (0u8..5).prop_map(Step::Close),
    ]
}

proptest! {
    /// Whatever happens: question ids only grow, interrupts invalidate every earlier
    /// turn, humans are never handed the turn, nobody gets two turns in a row, and the
    /// controller always has a way forward (a turn, or a deadline, or an open floor).
    #[test]
    fn controller_invariants(steps in prop::collection::vec(step(), 1..120)) {
        let mut c = conference(STUDY);
        let mut now = 0u64;
        let mut last_id: u64 = 0;
        let mut last_turn: Option<String> = None;
        let mut all = c.handle(Input::Start, now);
        for s in steps {
            let current = c.current_turn().map(|(s, q)| (s.to_owned(), q));
            let event = match s {
                Step::Speak(n) | Step::Chunk(n) => {
                    let who = current.as_ref().map_or("student2".to_owned(), |c| c.0.clone());
                    let status = match s { Step::Speak(_) => Some(StreamStatus::Ended), _ => Some(StreamStatus::Ongoing) };
                    text(&who, &"w ".repeat(n as usize % 40), status, current.as_ref().map(|c| c.1))
                }
                Step::Stale => text("tutor", "old", Some(StreamStatus::Ended), Some(last_id.saturating_sub(3))),
                Step::SpeechStarted => Input::SpeechStarted { onset_us: None },
                Step::Backchannel => Input::Backchannel,
                Step::Human(n) => Input::Human { speaker: "human".into(), text: "x ".repeat(n as usize % 5), heard: None },
                Step::Control(k) => Input::Control([ControlCommand::Reset, ControlCommand::Cancel, ControlCommand::Stats, ControlCommand::Ready][k as usize]),
                Step::Wait(n) => { now += secs(n as u64); Input::Tick }
                Step::Close(k) => Input::InputClosed { input: ["tutor", "student1", "student2", "playback_done", "human"][k as usize].into() },
            };
            all.extend(c.handle(event, now));
            prop_assert!(c.current_turn().is_none() || c.next_deadline().is_some());
            // Every hold ends: by a transcript, a backchannel or its deadline.
            prop_assert!(!c.is_held() || c.next_deadline().is_some());
        }
        // While the floor is held (between a hold and its resume or a reset), no new turn
        // is handed out (a node that joined late may be told the current one again).
        let mut held = false;
        let mut newest = 0;
        for a in &all {
            match a {
                Output::Hold { .. } => held = true,
                Output::Resume => held = false,
                Output::Interrupt { kind: InterruptKind::Reset, .. } => held = false,
                Output::Turn { question_id, .. } => {
                    prop_assert!(!held || *question_id <= newest, "a new turn while the human holds the floor");
                    newest = newest.max(*question_id);
                }
                _ => {}
            }
        }
        for a in &all {
            match a {
                // Only a participant that can be handed a turn prepares one.
                Output::Prepare { speaker, .. } => {
                    prop_assert_ne!(speaker.as_str(), "human")
                }
                Output::Turn { speaker, question_id } => {
                    prop_assert_ne!(speaker.as_str(), "human");
                    // A repeated turn (ready) keeps its id; otherwise ids grow.
                    prop_assert!(*question_id >= last_id);
                    if *question_id > last_id {
                        prop_assert_ne!(Some(speaker), last_turn.as_ref());
                    }
                    last_id = *question_id;
                    last_turn = Some(speaker.clone());
                }
                Output::Interrupt { question_id, .. } => {
                    prop_assert!(*question_id > last_id);
                    last_id = *question_id;
                    last_turn = None;
                }
                _ => {}
            }
        }
    }
}

#[test]
fn while_the_human_holds_the_floor_only_the_answerer_reads_ahead() {
    let engine = PolicyEngine::new(Policy::parse(STUDY).unwrap(), &[] as &[&str]);
    let config = ConferenceConfig {
        max_unplayed: Some(1),
        ..ConferenceConfig::default()
    };
    let prepared = |out: &[Output]| -> Vec<(String, PrepareFor)> {
        out.iter()
            .filter_map(|o| match o {
                Output::Prepare { speaker, ahead_of } => Some((speaker.clone(), *ahead_of)),
                _ => None,
            })
            .collect()
    };
    let mut c = Conference::new(engine, config);
    c.handle(Input::Start, secs(0));
    speak(&mut c, "One two", secs(1));
    // The human starts while the second line is written: its answerer reads ahead.
    let out = c.handle(Input::SpeechStarted { onset_us: None }, secs(2));
    let answer = prepared(&out);
    assert_eq!(answer.len(), 1, "{out:?}");
    assert_eq!(answer[0].1, PrepareFor::Answer);
    // The line ends with the first still unplayed: no turn is foretold, which would
    // replace the answer's reading.
    let out = speak(&mut c, "Three four", secs(3));
    assert!(prepared(&out).is_empty(), "{out:?}");
    // The human only nodded: now the next turn is foretold.
    let out = c.handle(Input::Backchannel, secs(4));
    let foretold = prepared(&out);
    assert_eq!(foretold.len(), 1, "{out:?}");
    assert_eq!(foretold[0].1, PrepareFor::Turn);
}

#[test]
fn next_turns_wait_for_playback_when_configured() {
    let engine = PolicyEngine::new(Policy::parse(STUDY).unwrap(), &[] as &[&str]);
    let config = ConferenceConfig {
        max_unplayed: Some(1),
        ..ConferenceConfig::default()
    };
    let mut c = Conference::new(engine, config);
    c.handle(Input::Start, secs(0));
    let first = c.current_turn().unwrap().1;
    // The first utterance ends: the next speaker may generate while it is heard.
    let out = speak(&mut c, "One two", secs(1));
    assert_eq!(turns(&out).len(), 1);
    // The second ends while the first is still playing: wait.
    let second = c.current_turn().unwrap().1;
    let out = speak(&mut c, "Three four", secs(2));
    assert!(turns(&out).is_empty());
    assert_eq!(c.next_deadline(), Some(secs(62)));
    // Who will speak then is said now: it may read its turn ahead meanwhile.
    let upcoming: Vec<&str> = out
        .iter()
        .filter_map(|a| match a {
            Output::Prepare {
                speaker,
                ahead_of: PrepareFor::Turn,
            } => Some(speaker.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(upcoming.len(), 1, "{out:?}");
    // Reports of other utterances do not release it; the first one's does.
    assert!(turns(&c.handle(Input::Played { question_id: 99 }, secs(3))).is_empty());
    let out = c.handle(Input::Played { question_id: first }, secs(4));
    assert_eq!(turns(&out).len(), 1);
    assert_eq!(
        turns(&out)[0].0,
        upcoming[0],
        "the turn goes to who was foretold"
    );
    // A player that never reports does not stall the conference.
    let out = speak(&mut c, "Five six", secs(5));
    assert!(turns(&out).is_empty());
    let out = c.handle(Input::Tick, secs(65));
    assert!(
        out.iter()
            .any(|a| matches!(a, Output::Notice(Notice::PlaybackTimeout { .. })))
    );
    assert_eq!(turns(&out).len(), 1);
    let _ = second;
}

#[test]
fn a_restarted_participant_loses_the_turn_it_was_in_and_takes_turns_again() {
    let mut c = conference(STUDY);
    c.handle(Input::Start, secs(0));
    let (speaker, q) = c.current_turn().map(|(s, q)| (s.to_owned(), q)).unwrap();
    assert_eq!(speaker, "student1");
    // Half an utterance, then the bridge crashes and is restarted.
    c.handle(
        text("student1", "Half a", Some(StreamStatus::Started), Some(q)),
        secs(1),
    );
    let out = c.handle(
        Input::Restarted {
            input: "student1".into(),
        },
        secs(2),
    );
    assert!(out.iter().any(|a| matches!(
        a,
        Output::Notice(Notice::ParticipantRestarted { speaker }) if speaker == "student1"
    )));
    // What was said is kept as an interrupted line; the turn moves on at once.
    let said = utterances(&out);
    assert_eq!(said.len(), 1);
    assert!(said[0].interrupted && said[0].text == "Half a");
    assert!(interrupts(&out).iter().any(|(_, id)| *id > q));
    assert_ne!(turns(&out)[0].0, "student1");
    assert!(c.status().absent.is_empty());
    let mut handed = Vec::new();
    for t in 0..4 {
        let out = speak(&mut c, "a few words here", secs(3 + t));
        handed.extend(turns(&out).into_iter().map(|(s, _)| s));
    }
    assert!(handed.iter().any(|s| s == "student1"), "{handed:?}");
}

#[test]
fn a_restarted_absent_participant_is_present_again() {
    let mut c = conference(STUDY);
    c.handle(Input::Start, secs(0));
    c.handle(Input::Tick, secs(60));
    assert_eq!(c.status().absent, ["student1"]);
    c.handle(
        Input::Restarted {
            input: "student1".into(),
        },
        secs(61),
    );
    assert!(c.status().absent.is_empty());
}

#[test]
fn a_restarted_player_is_not_waited_for() {
    let engine = PolicyEngine::new(Policy::parse(STUDY).unwrap(), &[] as &[&str]);
    let config = ConferenceConfig {
        max_unplayed: Some(1),
        ..ConferenceConfig::default()
    };
    let mut c = Conference::new(engine, config);
    c.handle(Input::Start, secs(0));
    speak(&mut c, "One two", secs(1));
    speak(&mut c, "Three four", secs(2));
    // Two utterances unheard: the controller waits for the player.
    assert!(c.current_turn().is_none());
    let out = c.handle(
        Input::Restarted {
            input: "playback_done".into(),
        },
        secs(3),
    );
    assert!(
        out.iter()
            .any(|a| matches!(a, Output::Notice(Notice::PlayerRestarted)))
    );
    assert_eq!(turns(&out).len(), 1, "the next turn goes out at once");
}

#[test]
fn as_a_conductor_it_decides_what_its_own_calls_decide_and_wakes_on_the_deadline() {
    use conductor::Core as _;
    let mut direct = conference(STUDY);
    let mut conducted = conference(STUDY);
    let first = direct.handle(Input::Start, 5);
    assert_eq!(conductor::Core::start(&mut conducted, &(), 5), first);
    // The wake-up is the core's own deadline.
    let deadline = direct.next_deadline().expect("a turn is running");
    let wake = conducted.next_wake().expect("a turn is running");
    assert_eq!(wake, deadline);
    let at = wake + 1;
    let timed_out = direct.handle(Input::Tick, at);
    assert_eq!(conducted.tick(at), timed_out);
    assert!(
        !turns(&timed_out).is_empty(),
        "the silent speaker is skipped"
    );
    assert!(!conducted.finished());
}

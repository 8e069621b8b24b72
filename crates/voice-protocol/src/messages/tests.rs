use super::*;
use crate::InterruptKind;
use proptest::prelude::*;

fn round_trip<M: Message + Clone + PartialEq + std::fmt::Debug>(message: M) {
    let (fields, payload) = message.clone().encode();
    assert_eq!(M::decode(&fields, payload).unwrap(), message);
}

#[test]
fn a_turn_carries_only_what_it_has_and_reads_blank_as_none() {
    let turn = Turn {
        question_id: 4,
        speaker: "ann".into(),
        instruction: Some("Ask a question.".into()),
        ..Turn::default()
    };
    let (fields, payload) = turn.clone().encode();
    assert_eq!(payload, "ann");
    assert_eq!(fields.text(keys::CONTEXT), None);
    assert_eq!(fields.text(keys::SPEAKER), Some("ann"));
    round_trip(turn);
    let fields = Fields::new()
        .with_text(keys::QUESTION_ID, " 9 ")
        .with_text(keys::INSTRUCTION, "  ")
        .with_text(keys::CONTEXT, "\n");
    let turn = Turn::decode(&fields, " bo\n".into()).unwrap();
    assert_eq!((turn.question_id, turn.speaker.as_str()), (9, "bo"));
    assert_eq!((turn.instruction, turn.context), (None, None));
    assert_eq!(
        Turn::decode(&Fields::new(), "bo".into()),
        Err(missing("turn", keys::QUESTION_ID))
    );
}

#[test]
fn an_unknown_interrupt_kind_is_a_cancel_that_says_so() {
    round_trip(Interrupt::new(InterruptKind::Reset, 3));
    let interrupt = Interrupt::decode(&Fields::new().with_question_id(3), "stop!".into()).unwrap();
    assert_eq!(interrupt.kind, InterruptKind::Cancel);
    assert_eq!(interrupt.unknown_kind.as_deref(), Some("stop!"));
}

#[test]
fn chunks_keep_an_unreadable_text_and_an_unknown_status_apart() {
    round_trip(Chunk::line(2, "ann", "Hello."));
    let fields = Fields::new().with_text(keys::STREAM_STATUS, "finished?");
    let chunk = Chunk::decode(&fields, Err("Int32".into())).unwrap();
    assert!(chunk.ends());
    assert_eq!(chunk.unknown_status.as_deref(), Some("finished?"));
    assert_eq!(chunk.text, Err("Int32".into()));
}

#[test]
fn a_prepare_is_for_an_answer_unless_it_says_a_turn() {
    let plain = Prepare::decode(&Fields::new(), "tutor".into()).unwrap();
    assert_eq!(plain.speaker, "tutor");
    assert_eq!(plain.ahead_of, PrepareFor::Answer);
    let turn = Fields::new().with_text(keys::PREPARE_FOR, "turn");
    let turn = Prepare::decode(&turn, "tutor".into()).unwrap();
    assert_eq!(turn.ahead_of, PrepareFor::Turn);
    let odd = Fields::new().with_text(keys::PREPARE_FOR, "lunch");
    assert!(Prepare::decode(&odd, "tutor".into()).is_err());
}

#[test]
fn an_utterance_without_metadata_takes_the_node_hub_defaults() {
    let u = Utterance::decode(&Fields::new(), "hi".into()).unwrap();
    assert_eq!(
        (u.speaker.as_str(), u.human, u.question_id),
        ("unknown", false, 0)
    );
    let u = Utterance::decode(
        &Fields::new().with_text(keys::SPEAKER, "human"),
        "hi".into(),
    );
    assert!(u.unwrap().human);
}

#[test]
fn audio_at_an_impossible_rate_is_refused_and_non_finite_samples_are_silenced() {
    let fields = Fields::new().with_int(keys::SAMPLE_RATE, 1);
    assert!(Audio::decode(&fields, Ok(vec![0.0])).is_err());
    let audio = Audio::decode(&Fields::new(), Ok(vec![f32::NAN, 0.5, f32::INFINITY])).unwrap();
    assert_eq!((audio.sample_rate, audio.silenced), (16_000, 2));
    assert_eq!(audio.samples, vec![0.0, 0.5, 0.0]);
}

#[test]
fn a_rehearsal_phase_travels_as_its_name_and_an_unknown_one_is_refused() {
    for phase in RehearsalPhase::ALL {
        round_trip(phase);
        assert_eq!(phase.encode().1, phase.name());
        assert_eq!(
            serde_json::to_string(&phase).unwrap(),
            format!("\"{}\"", phase.name())
        );
    }
    assert_eq!(
        RehearsalPhase::decode(&Fields::new(), " qa_trigger\n".into()),
        Ok(RehearsalPhase::QaTrigger)
    );
    assert!(matches!(
        RehearsalPhase::decode(&Fields::new(), "qa".into()),
        Err(DecodeError::Invalid(_))
    ));
}

#[test]
fn a_control_command_is_read_in_lower_case_from_text_or_json_and_never_empty() {
    round_trip(Control::new("slide 2"));
    let read = |text: &str| Control::decode(&Fields::new(), text.into());
    assert_eq!(read(" Move_On \n"), Ok(Control::new("move_on")));
    assert_eq!(read(r#"{"command": " STATS"}"#), Ok(Control::new("stats")));
    for bad in ["", "  ", r#"{"cmd": "stats"}"#, "{not json"] {
        assert!(matches!(read(bad), Err(DecodeError::Invalid(_))), "{bad:?}");
    }
}

#[test]
fn a_segment_needs_its_id_and_index() {
    let segment = Segment {
        question_id: 1,
        speaker: "ann".into(),
        index: 0,
        last: true,
        text: "Hi.".into(),
    };
    round_trip(segment);
    let fields = Fields::new().with_question_id(1);
    assert_eq!(
        Segment::decode(&fields, "Hi.".into()),
        Err(missing("segment", keys::SEGMENT_INDEX))
    );
}

fn name() -> impl Strategy<Value = String> {
    "[a-z]{1,8}"
}

fn span() -> impl Strategy<Value = Option<HeardSpan>> {
    proptest::option::of((name(), 0u64..1 << 40, 0u64..1 << 40).prop_map(
        |(audio_input, start_ms, end_ms)| HeardSpan {
            audio_input,
            start_ms,
            end_ms,
        },
    ))
}

proptest! {
    #[test]
    fn every_message_reads_back_as_it_was_written(
        question_id in 0u64..1 << 62,
        speaker in name(),
        text in "\\PC{0,40}",
        flags in any::<(bool, bool)>(),
        index in any::<u32>(),
        extra in proptest::option::of("[a-z]{1,12}"),
        heard in span(),
        rate in 4_000u32..=384_000,
        samples in proptest::collection::vec(-1.0f32..1.0, 0..32),
    ) {
        round_trip(Turn {
            question_id,
            speaker: speaker.clone(),
            instruction: extra.clone(),
            context: extra.clone(),
            prepared: extra.clone(),
            exchange_id: Some(index.into()),
            takes_up: extra.clone(),
            asks: flags.1,
            answers_human: flags.0,
        });
        round_trip(Prepare {
            speaker: speaker.clone(),
            ahead_of: if flags.0 { PrepareFor::Turn } else { PrepareFor::Answer },
        });
        round_trip(Utterance {
            question_id,
            speaker: speaker.clone(),
            text: text.clone(),
            interrupted: flags.0,
            human: flags.1,
            heard: heard.clone(),
        });
        round_trip(Chunk {
            question_id: Some(question_id),
            speaker: Some(speaker.clone()),
            status: Some(StreamStatus::Ongoing),
            error: extra.clone(),
            kind: extra.clone(),
            line_kind: extra.clone(),
            text: Ok(text.clone()),
            ends_sentence: flags.1,
            unknown_status: None,
        });
        round_trip(Transcript {
            speaker: Some(speaker.clone()),
            status: Some(StreamStatus::Ended),
            text: text.clone(),
            heard,
            unknown_status: None,
        });
        round_trip(Segment { question_id, speaker: speaker.clone(), index, last: flags.0, text: text.clone() });
        round_trip(Played {
            question_id: Some(question_id),
            speaker: speaker.clone(),
            interrupted: flags.1,
            chars_played: Some(index.into()),
            text: text.clone(),
        });
        round_trip(Held { question_id, speaker: speaker.clone(), text: text.clone() });
        round_trip(PlaybackStarted { question_id: Some(question_id), speaker: speaker.clone() });
        round_trip(Backchannel { speaker: speaker.clone(), text: text.clone() });
        for kind in [CallKind::Generate, CallKind::Prefill, CallKind::Cancel] {
            round_trip(ModelCall {
                participant: speaker.clone(),
                call_id: question_id,
                question_id,
                kind,
                job: text.clone(),
            });
        }
        round_trip(ModelReply {
            participant: speaker.clone(),
            call_id: question_id,
            question_id,
            done: flags.0,
            error: extra.clone(),
            text: text.clone(),
            ends_sentence: flags.1,
        });
        round_trip(Reply {
            request_id: extra.clone(),
            kind: extra.clone(),
            speaker: Some(speaker.clone()),
            error: extra,
            text,
        });
        round_trip(Audio { question_id: Some(question_id), speaker: Some(speaker), ..Audio::new(rate, samples) });
    }

    #[test]
    fn decoding_any_metadata_never_panics(
        entries in proptest::collection::vec(
            (prop_oneof![
                Just(keys::QUESTION_ID), Just(keys::STREAM_STATUS), Just(keys::SPEAKER),
                Just(keys::SEGMENT_INDEX), Just(keys::SAMPLE_RATE), Just(keys::SPEECH_START_MS),
            ],
            prop_oneof![
                any::<i64>().prop_map(Value::Int),
                "\\PC{0,12}".prop_map(Value::Text),
                any::<bool>().prop_map(Value::Bool),
            ]),
            0..6,
        ),
        text in "\\PC{0,20}",
    ) {
        let mut fields = Fields::new();
        for (key, value) in entries {
            fields.set(key, value);
        }
        let _ = Turn::decode(&fields, text.clone());
        let _ = Interrupt::decode(&fields, text.clone());
        let _ = Utterance::decode(&fields, text.clone());
        let _ = Chunk::decode(&fields, Ok(text.clone()));
        let _ = Transcript::decode(&fields, text.clone());
        let _ = Segment::decode(&fields, text.clone());
        let _ = ModelCall::decode(&fields, text.clone());
        let _ = ModelReply::decode(&fields, text.clone());
        let _ = Played::decode(&fields, text.clone());
        let _ = Audio::decode(&fields, Ok(vec![0.0; 4]));
    }
}

#[test]
fn a_model_call_without_its_participant_or_kind_is_refused() {
    let fields = Fields::new().with_int(keys::CALL_ID, 3);
    assert!(ModelCall::decode(&fields, String::new()).is_err());
    let fields = fields
        .with_text(keys::PARTICIPANT, "tutor")
        .with_text(keys::KIND, "dance");
    assert!(matches!(
        ModelCall::decode(&fields, String::new()),
        Err(DecodeError::Invalid(_))
    ));
}

#[test]
fn a_side_request_reads_strictly_and_travels_as_json() {
    round_trip(SideRequest::json(
        "r-1",
        "intent",
        "Do you want the floor?",
        12,
    ));
    round_trip(SideRequest::text(
        "c-2",
        "candidate_question",
        "Ask one.",
        30,
    ));
    let addressed = SideRequest::text("rate-1", "rating", "Rate it.", 40).to("skeptic");
    round_trip(addressed.clone());
    assert!(addressed.is_for("skeptic") && !addressed.is_for("analyst"));
    assert!(SideRequest::text("c-3", "x", "y", 5).is_for("anyone"));
    let hand =
        SideRequest::decode(&Fields::new(), r#"{"id":"r1","prompt":"Speak?"}"#.into()).unwrap();
    assert_eq!(hand.kind, "");
    assert!(!hand.json);
    assert_eq!(hand.max_words(), DEFAULT_MAX_WORDS as usize);
    let held = SideRequest::text("r-2", "rating", "Rate it.", 9)
        .within(120_000)
        .opening_with(["Answered, because", "Dodged, because"]);
    assert_eq!(SideRequest::parse(&held.to_json()).unwrap(), held);
    let challenge = SideRequest::text("r-3", "candidate_question", "Ask.", 30)
        .taking_up("Gross margin of 62% at 50 robots.")
        .asking();
    assert_eq!(SideRequest::parse(&challenge.to_json()).unwrap(), challenge);
    for bad in [
        r#"{"id":"r1","prompt":"x","extra":1}"#.to_owned(),
        r#"{"id":" ","prompt":"x"}"#.to_owned(),
        r#"{"prompt":"x"}"#.to_owned(),
        "not json".to_owned(),
        format!(
            r#"{{"id":"a","prompt":"{}"}}"#,
            "x".repeat(MAX_PROMPT_BYTES + 1)
        ),
        // A wait past any conversation's patience, an empty or endless opening word.
        r#"{"id":"a","prompt":"x","within_ms":18446744073709551615}"#.to_owned(),
        r#"{"id":"a","prompt":"x","opens_with":["Yes"," "]}"#.to_owned(),
        format!(
            r#"{{"id":"a","prompt":"x","opens_with":["{}"]}}"#,
            "y".repeat(65)
        ),
        format!(
            r#"{{"id":"a","prompt":"x","takes_up":"{}"}}"#,
            "z".repeat(MAX_PROMPT_BYTES + 1)
        ),
    ] {
        let error = SideRequest::parse(&bad).unwrap_err().to_string();
        assert!(error.contains("side request"), "{error}");
    }
}

proptest! {
    #[test]
    fn a_side_request_never_panics_on_any_text(text in ".{0,200}") {
        let _ = SideRequest::parse(&text);
    }
}

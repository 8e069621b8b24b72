//! Whatever a page or an input sends, the console answers without panicking.

use console_core::{Config, Console, Data, Meta, PageOutput, auth, page, shares};
use proptest::prelude::*;

fn any_meta() -> impl Strategy<Value = Meta> {
    (
        proptest::option::of(any::<u64>()),
        proptest::option::of(".{0,12}"),
        proptest::option::of(any::<bool>()),
        proptest::option::of(any::<i64>()),
        proptest::option::of(any::<i64>()),
    )
        .prop_map(
            |(question_id, speaker, interrupted, chars_played, sample_rate)| Meta {
                question_id,
                speaker,
                interrupted,
                chars_played,
                sample_rate,
                ..Meta::default()
            },
        )
}

const IDS: &[&str] = &[
    "status",
    "utterance",
    "turn",
    "interrupt",
    "playback_started",
    "playback_done",
    "audio",
    "human_audio",
    "speech_started",
    "transcript",
    "backchannel",
    "decision",
    "auction",
    "phase",
    "text_tutor",
    "stranger",
];

proptest! {
    #[test]
    fn page_text_never_panics(frames in proptest::collection::vec(".{0,200}", 0..20)) {
        let mut c = Console::new(Config::default());
        for (i, f) in frames.iter().enumerate() {
            let _ = c.page_text(i as u64 % 3, f, i as u64);
        }
    }

    #[test]
    fn page_json_shaped_text_never_panics(
        kind in prop_oneof![Just("control".to_owned()), Just("say".to_owned()), Just("mic".to_owned()), Just("listen".to_owned()), Just("ping".to_owned()), ".{0,8}"],
        field in prop_oneof![Just("command".to_owned()), Just("text".to_owned()), Just("on".to_owned()), ".{0,6}"],
        value in prop_oneof![".{0,50}".prop_map(serde_json::Value::String), any::<bool>().prop_map(serde_json::Value::Bool), any::<f64>().prop_map(|f| serde_json::json!(f))],
    ) {
        let mut obj = serde_json::Map::new();
        obj.insert(field, value);
        obj.insert("type".to_owned(), serde_json::Value::String(kind));
        let text = serde_json::Value::Object(obj).to_string();
        let mut c = Console::new(Config::default());
        let out = c.page_text(1, &text, 0);
        // A typed message is never empty and never longer than the limit.
        for o in out {
            if let PageOutput::Dora(console_core::DoraOutput::HumanText { text, .. }) = o {
                prop_assert!(!text.is_empty());
                prop_assert!(text.chars().count() <= page::MAX_SAY_CHARS);
            }
        }
    }

    #[test]
    fn page_audio_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..2000), hold in any::<bool>()) {
        let mut c = Console::new(Config::default());
        if hold {
            c.page_text(1, r#"{"type":"mic","on":true}"#, 0);
        }
        for o in c.page_audio(1, &bytes, 1) {
            if let PageOutput::Dora(console_core::DoraOutput::Audio { samples, .. }) = o {
                prop_assert!(samples.iter().all(|s| s.is_finite() && s.abs() <= 1.0));
            }
        }
    }

    #[test]
    fn inputs_never_panic(
        events in proptest::collection::vec(
            (0..IDS.len(), ".{0,80}", any_meta(), any::<bool>(), proptest::collection::vec(any::<f32>(), 0..64)),
            0..40,
        )
    ) {
        let mut c = Console::new(Config::default());
        c.page_text(1, r#"{"type":"listen","on":true}"#, 0);
        for (i, (id, text, meta, samples_instead, samples)) in events.iter().enumerate() {
            let data = if *samples_instead { Data::Samples(samples) } else { Data::Text(text) };
            let _ = c.input(IDS[*id], data, meta, i as u64);
        }
        let _ = c.connected(2);
        let _ = c.stats_msg();
    }

    #[test]
    fn status_and_tokens_never_panic(text in ".{0,200}", token in ".{0,30}", query in ".{0,60}") {
        let _ = shares::parse_status(&text);
        let _ = auth::authorized(Some(&token), auth::Offered { query: Some(&query), authorization: Some(&text), cookie: Some(&query) });
        let _ = auth::origin_allowed(Some(&text), Some(&query));
        let _ = auth::percent_decode(&text);
        prop_assert!(auth::token_matches(&token, &token));
    }

    #[test]
    fn the_heard_split_keeps_the_text(text in ".{0,60}", played in ".{0,20}", chars in proptest::option::of(0usize..100)) {
        let (heard, cut) = console_core::split_heard(&text, &played, chars);
        prop_assert_eq!(format!("{heard}{cut}"), text);
    }
}

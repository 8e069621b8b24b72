//! The player in dora's integration-testing mode: real espeak-ng, a session folder.

use std::{path::Path, time::Duration};

use node_kit::testing::{TestEvent, float32_input, input, keepalive, meta, run_node, stop};
use serde_json::{Value, json};

mod common;

use common::{lines, segment_of};

const BIN: &str = env!("CARGO_BIN_EXE_tts-player");

/// Even turns are the tutor's, odd ones Ben's.
fn segment(at: f64, q: u64, index: u32, last: bool, text: &str) -> TestEvent {
    let speaker = if q.is_multiple_of(2) { "tutor" } else { "ben" };
    segment_of(at, q, speaker, index, last, text)
}

#[test]
fn speaks_in_order_records_and_stops_on_interrupt() {
    let dir = std::env::temp_dir().join(format!("player-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut events = vec![
        segment(0.01, 1, 0, false, "Hello there."),
        segment(0.02, 1, 1, true, "Short."),
        segment(
            0.03,
            2,
            0,
            false,
            "This second utterance is long enough to be cut off in the middle by the interrupt.",
        ),
        segment(0.04, 2, 1, true, "It never gets here."),
        input(
            2.5,
            "interrupt",
            json!(["cancel"]),
            meta(&[("question_id", json!(3))]),
        ),
        segment(2.6, 2, 2, true, "Stale."),
        input(
            2.7,
            "segment",
            json!([1.5]),
            meta(&[("question_id", json!(4))]),
        ),
    ];
    events.extend(keepalive(0.05, 3.5));
    events.push(stop(3.6));
    let run = run_node(
        Path::new(BIN),
        &[
            ("SESSION_DIR", dir.to_str().unwrap()),
            ("AUDIO_OUTPUT", "none"),
            ("TTS_BACKEND", "espeak"),
        ],
        events,
        Duration::from_secs(60),
    );
    assert!(run.success, "{}", run.stderr);
    let timeline = lines(&dir.join("timeline.jsonl"));
    assert_eq!(timeline.len(), 2, "{timeline:#?}\n{}", run.stderr);
    assert_eq!(timeline[0]["question_id"], 1);
    assert_eq!(timeline[0]["text_played"], "Hello there. Short.");
    assert_eq!(timeline[0]["interrupted"], false);
    assert_eq!(timeline[1]["question_id"], 2);
    assert_eq!(timeline[1]["interrupted"], true);
    let heard = timeline[1]["text_played"].as_str().unwrap();
    assert!(
        heard.len() < 60
            && "This second utterance is long".starts_with(heard.split(' ').next().unwrap()),
        "{heard}"
    );
    assert!(timeline[1]["start_ms"].as_u64() >= timeline[0]["end_ms"].as_u64());
    // Outputs: started/done per utterance, audio blocks while speaking.
    assert_eq!(run.texts_of("playback_started").len(), 2);
    assert_eq!(
        run.texts_of("playback_done"),
        ["Hello there. Short.", heard]
    );
    assert!(
        run.outputs
            .iter()
            .any(|o| o["id"] == "audio" && o["data_type"].to_string().contains("Float32"))
    );
    let wav = std::fs::metadata(dir.join("conversation.wav"))
        .unwrap()
        .len();
    assert!(
        wav > 44 + 22_050,
        "the recording holds the session: {wav} bytes"
    );
    assert!(
        run.stderr.contains("expected Utf8 text") || run.stderr.contains("unreadable segment"),
        "{}",
        run.stderr
    );
}

#[test]
fn bad_configuration_is_a_clear_error() {
    let run = run_node(
        Path::new(BIN),
        &[("TTS_BACKEND", "magic")],
        vec![stop(0.1)],
        Duration::from_secs(30),
    );
    assert!(!run.success);
    assert!(run.stderr.contains("TTS_BACKEND"), "{}", run.stderr);
    let run = run_node(
        Path::new(BIN),
        &[("VOICE_MAP", "tutor"), ("TTS_BACKEND", "espeak")],
        vec![stop(0.1)],
        Duration::from_secs(30),
    );
    assert!(!run.success);
    assert!(run.stderr.contains("VOICE_MAP"), "{}", run.stderr);
    let run = run_node(
        Path::new(BIN),
        &[("AUDIO_OUTPUT", "speakers"), ("TTS_BACKEND", "silent")],
        vec![stop(0.1)],
        Duration::from_secs(30),
    );
    assert!(!run.success);
    assert!(run.stderr.contains("AUDIO_OUTPUT"), "{}", run.stderr);
}

#[test]
fn an_openai_compatible_speech_service_and_a_dead_one() {
    let server = mock_model_server::MockServer::start(0).unwrap();
    let dir = std::env::temp_dir().join(format!("player-openai-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut events = vec![segment(0.01, 2, 0, true, "Hello from the service.")];
    events.extend(keepalive(0.02, 2.5));
    events.push(stop(2.6));
    let run = run_node(
        Path::new(BIN),
        &[
            ("SESSION_DIR", dir.to_str().unwrap()),
            ("AUDIO_OUTPUT", "none"),
            ("TTS_BACKEND", "openai"),
            ("TTS_BASE_URL", &server.base_url()),
            ("VOICE_MAP", "tutor=nova"),
        ],
        events,
        Duration::from_secs(60),
    );
    assert!(run.success, "{}", run.stderr);
    assert_eq!(
        run.texts_of("playback_done"),
        ["Hello from the service."],
        "{}",
        run.stderr
    );
    let body = server.requests()[0].json();
    assert_eq!(body["voice"], "nova");
    assert_eq!(body["response_format"], "wav");

    // A dead service: the segment is skipped with a warning, the utterance still ends.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut events = vec![segment(0.01, 2, 0, true, "Nobody will hear this.")];
    events.extend(keepalive(0.02, 1.5));
    events.push(stop(1.6));
    // Another run: another session folder (a folder belongs to one run).
    let dir = dir.with_extension("dead");
    let _ = std::fs::remove_dir_all(&dir);
    let run = run_node(
        Path::new(BIN),
        &[
            ("SESSION_DIR", dir.to_str().unwrap()),
            ("AUDIO_OUTPUT", "none"),
            ("TTS_BACKEND", "openai"),
            ("TTS_BASE_URL", &format!("http://127.0.0.1:{port}/v1")),
        ],
        events,
        Duration::from_secs(60),
    );
    assert!(run.success, "{}", run.stderr);
    assert!(
        run.stderr.contains("cannot reach the speech service"),
        "{}",
        run.stderr
    );
    assert_eq!(run.texts_of("playback_done"), [""]);
}

/// Clip mode: prepare, `clip_ready` with measured sentences, play with beats, an overlay
/// over a ducked main clip, a fade-out then a fade-in; bad clip input is warned.
#[test]
fn clip_mode_plays_commanded_clips_and_reports_beats() {
    let dir = std::env::temp_dir().join(format!("player-clips-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let clip = |at: f64, id: &str, who: &str, q: u64, sentences: &[&str]| {
        let spec = json!({"clip_id": id, "speaker": who, "question_id": q, "sentences": sentences});
        input(at, "clip", json!([spec.to_string()]), json!(null))
    };
    let command = |at: f64, c: Value| input(at, "command", json!([c.to_string()]), json!(null));
    let mut events = vec![
        clip(
            0.01,
            "main",
            "hawk",
            1,
            &["One two three four.", "Five six seven eight nine ten."],
        ),
        clip(0.02, "over", "owl", 2, &["Wait."]),
        clip(0.03, "kick", "dove", 3, &["Hold on."]),
        input(0.04, "clip", json!(["{not json"]), json!(null)),
        command(0.05, json!({"command": "explode", "clip_id": "main"})),
        command(0.3, json!({"command": "play", "clip_id": "main"})),
        command(
            0.5,
            json!({"command": "duck", "clip_id": "main", "gain_db": -12.0, "ramp_ms": 40}),
        ),
        command(0.5, json!({"command": "play_overlay", "clip_id": "over"})),
        command(
            2.0,
            json!({"command": "fade_out", "clip_id": "main", "fade_ms": 100}),
        ),
        command(
            2.0,
            json!({"command": "fade_in", "clip_id": "kick", "delay_ms": 100, "fade_ms": 40}),
        ),
    ];
    // The replayed stream blocks the node while it waits for input: a trickle of no-op
    // commands lets it render in real time.
    events.extend((0..200).map(|i| {
        command(
            0.06 + i as f64 * 0.02,
            json!({"command": "discard", "clip_id": "none"}),
        )
    }));
    events.push(stop(4.2));
    let run = run_node(
        Path::new(BIN),
        &[
            ("SESSION_DIR", dir.to_str().unwrap()),
            ("AUDIO_OUTPUT", "none"),
            ("TTS_BACKEND", "silent"),
        ],
        events,
        Duration::from_secs(60),
    );
    assert!(run.success, "{}", run.stderr);
    let parsed = |id: &str| -> Vec<Value> {
        run.texts_of(id)
            .iter()
            .map(|t| serde_json::from_str(t).unwrap())
            .collect()
    };
    let ready = parsed("clip_ready");
    assert_eq!(ready.len(), 3, "{ready:?}");
    assert_eq!(ready[0]["sentence_ms"].as_array().unwrap().len(), 2);
    assert!(
        parsed("clip_started")
            .iter()
            .any(|s| s["clip_id"] == "over" && s["overlay"] == true)
    );
    let beats = parsed("beat");
    assert!(
        beats
            .iter()
            .any(|b| b["clip_id"] == "main" && b["beat"] == 1),
        "{beats:?}"
    );
    let done = parsed("clip_finished");
    let get = |id: &str| {
        done.iter()
            .find(|d| d["clip_id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id} not finished: {done:?}\n{}", run.stderr))
    };
    let (main, over, kick) = (get("main"), get("over"), get("kick"));
    assert_eq!(main["interrupted"], true);
    let ducked = main["ducked"].as_array().unwrap();
    assert_eq!(ducked.len(), 1);
    assert!(
        ducked[0][0].as_u64() <= over["start_ms"].as_u64()
            && over["end_ms"].as_u64() <= ducked[0][1].as_u64()
    );
    assert!(main["end_ms"].as_u64() <= kick["start_ms"].as_u64());
    let timeline = lines(&dir.join("timeline.jsonl"));
    assert_eq!(timeline.len(), 3);
    assert!(
        run.stderr.contains("invalid clip JSON ignored"),
        "{}",
        run.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A runaway segment (1 MB) is capped and voiced piece by piece: an interrupt still ends
/// it at once and the next utterance is spoken.
#[test]
fn a_huge_segment_neither_wedges_the_player_nor_outlives_an_interrupt() {
    let dir = std::env::temp_dir().join(format!("player-huge-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let huge = "Words keep coming and coming without an end. [[h@l'oU]] ".repeat(18_000);
    let mut events = vec![
        segment(0.01, 2, 0, true, &huge),
        input(
            2.0,
            "interrupt",
            json!(["cancel"]),
            meta(&[("question_id", json!(3))]),
        ),
        segment(2.1, 4, 0, true, "After the flood."),
    ];
    events.extend(keepalive(0.02, 5.0));
    events.push(stop(5.1));
    let run = run_node(
        Path::new(BIN),
        &[
            ("SESSION_DIR", dir.to_str().unwrap()),
            ("AUDIO_OUTPUT", "none"),
            ("TTS_BACKEND", "espeak"),
        ],
        events,
        Duration::from_secs(60),
    );
    assert!(run.success, "{}", run.stderr);
    assert!(run.stderr.contains("segment too long"), "{}", run.stderr);
    let done = run.texts_of("playback_done");
    assert_eq!(
        done.last().map(String::as_str),
        Some("After the flood."),
        "{done:?}\n{}",
        run.stderr
    );
    assert!(
        done.iter().all(|d| d.len() < 10_000),
        "{:?}",
        done.iter()
            .map(|d| d.chars().take(300).collect::<String>())
            .collect::<Vec<_>>()
    );
}

/// A speech service that quotes the key back: the warning names the failure, never the key.
#[test]
fn a_key_quoted_by_the_speech_service_is_redacted() {
    const SECRET: &str = "sk-tts-secret-8080";
    let server = mock_model_server::MockServer::start(0).unwrap();
    let dir = std::env::temp_dir().join(format!("player-key-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut events = vec![segment(0.01, 2, 0, true, "Is my key safe?")];
    events.extend(keepalive(0.02, 1.5));
    events.push(stop(1.6));
    let run = run_node(
        Path::new(BIN),
        &[
            ("SESSION_DIR", dir.to_str().unwrap()),
            ("AUDIO_OUTPUT", "none"),
            ("TTS_BACKEND", "openai"),
            ("TTS_BASE_URL", &server.base_url()),
            ("TTS_MODEL", "fault-echo-key"),
            ("TTS_API_KEY_ENV", "TEST_TTS_KEY"),
            ("TEST_TTS_KEY", SECRET),
        ],
        events,
        Duration::from_secs(60),
    );
    assert!(run.success, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("Incorrect API key provided: Bearer ***"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains(SECRET), "{}", run.stderr);
    assert!(
        !serde_json::to_string(&run.outputs)
            .unwrap()
            .contains(SECRET)
    );
    assert_eq!(run.texts_of("playback_done"), [""]);
}

/// dora node-hub conventions: bare Utf8 `text_<speaker>` (a node-hub LLM's answer) is
/// voiced, Float32 `audio_<speaker>` with `sample_rate` (a node-hub TTS node's speech) is
/// played as it came; neither carries a question id.
#[test]
fn node_hub_text_and_audio_are_voiced_and_played() {
    let dir = std::env::temp_dir().join(format!("player-hub-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let tone: Vec<f32> = (0..12_000)
        .map(|i| (i as f32 * 440.0 * std::f32::consts::TAU / 24_000.0).sin() * 0.3)
        .collect();
    let spoken = float32_input(
        0.02,
        "audio_hub",
        json!(tone),
        meta(&[("sample_rate", json!(24_000))]),
    );
    let absurd = float32_input(
        0.03,
        "audio",
        json!([0.1, 0.2]),
        meta(&[("sample_rate", json!(1))]),
    );
    let mut events = vec![
        input(
            0.01,
            "text_guide",
            json!(["Welcome to the session."]),
            json!(null),
        ),
        spoken,
        absurd,
    ];
    events.extend(keepalive(0.05, 4.0));
    events.push(stop(4.1));
    let run = run_node(
        Path::new(BIN),
        &[
            ("SESSION_DIR", dir.to_str().unwrap()),
            // `auto`: the sound device when there is one, else (here, CI) record only.
            ("AUDIO_OUTPUT", "auto"),
            ("TTS_BACKEND", "espeak"),
        ],
        events,
        Duration::from_secs(60),
    );
    assert!(run.success, "{}", run.stderr);
    assert!(
        run.stderr.contains("sample_rate 1 is outside"),
        "{}",
        run.stderr
    );
    let timeline = lines(&dir.join("timeline.jsonl"));
    assert_eq!(timeline.len(), 2, "{timeline:#?}\n{}", run.stderr);
    assert_eq!(timeline[0]["speaker"], "guide");
    assert_eq!(timeline[0]["text_played"], "Welcome to the session.");
    assert_eq!(timeline[1]["speaker"], "hub");
    // Half a second at 24 kHz, heard as half a second at the player's rate.
    let heard = timeline[1]["end_ms"].as_u64().unwrap() - timeline[1]["start_ms"].as_u64().unwrap();
    assert!((490..=510).contains(&heard), "{heard} ms");
    assert!(timeline[1]["start_ms"].as_u64() >= timeline[0]["end_ms"].as_u64());
    assert_eq!(run.texts_of("playback_done").len(), 2);
}

/// A node-hub voice that sends NaN and infinite samples (JSON has no literal for them;
/// dora's testing mode reads `"NaN"`, `"Infinity"`, `"-Infinity"` in a Float32 column):
/// they are played as silence with a warning naming the input, nothing non-finite reaches
/// the `audio` output or the recording, and the next utterance plays.
#[test]
fn nan_and_infinite_samples_are_played_as_silence() {
    let dir = std::env::temp_dir().join(format!("player-nan-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let samples: Vec<Value> = (0..8_000)
        .map(|i| match i % 50 {
            0 => json!("NaN"),
            1 => json!("Infinity"),
            2 => json!("-Infinity"),
            _ => json!((i as f32 * 0.05).sin() * 0.2),
        })
        .collect();
    let spoken = float32_input(
        0.01,
        "audio_hub",
        json!(samples),
        meta(&[("sample_rate", json!(16_000))]),
    );
    let all_nan = float32_input(
        0.02,
        "audio_hub",
        json!(vec![json!("NaN"); 1_600]),
        meta(&[("sample_rate", json!(16_000))]),
    );
    let mut events = vec![
        spoken,
        all_nan,
        input(0.03, "text_guide", json!(["Still here."]), json!(null)),
    ];
    events.extend(keepalive(0.05, 2.5));
    events.push(stop(2.6));
    let run = run_node(
        Path::new(BIN),
        &[
            ("SESSION_DIR", dir.to_str().unwrap()),
            ("AUDIO_OUTPUT", "none"),
            ("TTS_BACKEND", "silent"),
        ],
        events,
        Duration::from_secs(60),
    );
    assert!(run.success, "{}", run.stderr);
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("WARN") && l.contains("non-finite samples"))
        .collect();
    assert_eq!(warnings.len(), 2, "{}", run.stderr);
    assert!(
        warnings[0].contains("audio_hub") && warnings[0].contains("replaced=480"),
        "{warnings:#?}"
    );
    assert!(warnings[1].contains("replaced=1600"), "{warnings:#?}");
    let outputs = serde_json::to_string(&run.outputs).unwrap();
    assert!(
        !outputs.contains("NaN") && !outputs.contains("Infinity"),
        "a non-finite sample reached the audio output"
    );
    let wav =
        audio_utils::decode_wav(&std::fs::read(dir.join("conversation.wav")).unwrap()).unwrap();
    assert!(wav.samples.iter().all(|s| s.is_finite()));
    let timeline = lines(&dir.join("timeline.jsonl"));
    assert_eq!(timeline.len(), 3, "{timeline:#?}\n{}", run.stderr);
    assert_eq!(timeline[2]["text_played"], "Still here.");
}

/// What an OpenAI-compatible speech service receives as `input` can only be read: no
/// markup tag (an SSML service would obey `<break>` or `<audio>`), no `[[` phoneme escape,
/// no control character; prose keeps its `<`.
#[test]
fn a_speech_service_gets_neutralised_text() {
    let server = mock_model_server::MockServer::start(0).unwrap();
    let dir = std::env::temp_dir().join(format!("player-ssml-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let hostile = [
        "<speak>Hello <break time=\"30s\"/> there.</speak>",
        "<prosody rate=\"x-slow\">Slow</prosody> and [[h@l'oU]] sounds.",
        "Bell\u{7} escape\u{1b}[31m and \u{1}80S embedded.",
        "<audio src=\"http://127.0.0.1:9/x.wav\"/>Then x < y holds.",
    ];
    let mut events: Vec<TestEvent> = hostile
        .iter()
        .enumerate()
        .map(|(i, text)| segment(0.01, 2, i as u32, i + 1 == hostile.len(), text))
        .collect();
    events.extend(keepalive(0.02, 4.0));
    events.push(stop(4.1));
    let run = run_node(
        Path::new(BIN),
        &[
            ("SESSION_DIR", dir.to_str().unwrap()),
            ("AUDIO_OUTPUT", "none"),
            ("TTS_BACKEND", "openai"),
            ("TTS_BASE_URL", &server.base_url()),
        ],
        events,
        Duration::from_secs(60),
    );
    assert!(run.success, "{}", run.stderr);
    let inputs: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.json()["input"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(inputs.len(), hostile.len(), "{}", run.stderr);
    for input in &inputs {
        assert!(!player_core::voice_text::holds_markup(input), "{input:?}");
        assert!(!input.contains("[[") && !input.contains("]]"), "{input:?}");
        assert!(
            !input.contains("<speak") && !input.contains("<break"),
            "{input:?}"
        );
        assert!(
            !input.contains("<audio") && !input.contains("<prosody"),
            "{input:?}"
        );
        assert!(
            !input
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t'),
            "{input:?}"
        );
    }
    assert_eq!(inputs[0], "Hello   there.");
    assert!(inputs[3].ends_with("Then x < y holds."), "{:?}", inputs[3]);
}

/// The human's side: a microphone streaming in real time is recorded as `human.wav` on the
/// player's clock, a human utterance is put on the timeline where it was spoken (the ASR
/// bridge's times moved onto that clock), typed words where they arrived, and `mix.wav`
/// holds both sides.
#[test]
fn records_the_human_on_the_players_clock() {
    let dir = std::env::temp_dir().join(format!("player-human-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let block = |at: f64, level: f32| {
        float32_input(
            at,
            "human_audio",
            json!(vec![level; 1_600]),
            meta(&[("sample_rate", json!(16_000))]),
        )
    };
    // One second of silence, then a second of "voice", in 100 ms blocks from 0.6 s on.
    let mut events: Vec<TestEvent> = (1..=20)
        .map(|k| block(0.5 + 0.1 * f64::from(k), if k > 10 { 0.3 } else { 0.0 }))
        .collect();
    events.push(input(
        3.0,
        "utterance",
        json!(["How do I start?"]),
        meta(&[
            ("question_id", json!(2)),
            ("speaker", json!("human")),
            ("is_human", json!(true)),
            ("audio_input", json!("audio")),
            ("speech_start_ms", json!(1_000)),
            ("speech_end_ms", json!(2_000)),
        ]),
    ));
    events.push(input(
        3.2,
        "utterance",
        json!(["Typed words."]),
        meta(&[
            ("question_id", json!(3)),
            ("speaker", json!("human")),
            ("is_human", json!(true)),
        ]),
    ));
    // An agent's utterance is the player's own line already.
    events.push(input(
        3.3,
        "utterance",
        json!(["An agent's line."]),
        meta(&[("question_id", json!(4)), ("speaker", json!("tutor"))]),
    ));
    events.extend(keepalive(0.05, 3.8));
    events.push(stop(3.9));
    let run = run_node(
        Path::new(BIN),
        &[
            ("SESSION_DIR", dir.to_str().unwrap()),
            ("AUDIO_OUTPUT", "none"),
            ("TTS_BACKEND", "espeak"),
        ],
        events,
        Duration::from_secs(60),
    );
    assert!(run.success, "{}", run.stderr);
    let timeline = lines(&dir.join("timeline.jsonl"));
    assert_eq!(timeline.len(), 2, "{timeline:#?}\n{}", run.stderr);
    let spoken = &timeline[0];
    assert_eq!(spoken["human"], true);
    assert_eq!(spoken["question_id"], 2);
    assert_eq!(spoken["text"], "How do I start?");
    assert!(spoken.get("typed").is_none(), "{spoken}");
    let (start, end) = (
        spoken["speech_start_ms"].as_u64().unwrap(),
        spoken["speech_end_ms"].as_u64().unwrap(),
    );
    assert_eq!(end - start, 1_000, "{spoken}");
    assert_eq!(timeline[1]["typed"], true);
    // human.wav (the player's rate) is loud where the line says and quiet before it.
    let mut wav = hound::WavReader::open(dir.join("human.wav")).unwrap();
    let rate = u64::from(wav.spec().sample_rate);
    let samples: Vec<i16> = wav.samples::<i16>().map(Result::unwrap).collect();
    let level = |from_ms: u64, to_ms: u64| {
        let span = &samples[(from_ms * rate / 1000) as usize..(to_ms * rate / 1000) as usize];
        span.iter()
            .map(|s| i64::from(s.unsigned_abs()))
            .sum::<i64>()
            / span.len() as i64
    };
    assert!(level(start + 100, end - 100) > 5_000, "{spoken}");
    assert!(level(start - 900, start - 100) < 100, "{spoken}");
    let mix = hound::WavReader::open(dir.join("mix.wav")).unwrap();
    let conversation = hound::WavReader::open(dir.join("conversation.wav")).unwrap();
    assert_eq!(
        mix.duration(),
        conversation.duration().max(samples.len() as u32)
    );
}

//! The ASR bridge in dora's integration-testing mode, fed real speech from espeak-ng.

use std::{path::Path, process::Command, time::Duration};

use audio_utils::{decode_wav, resample};
use mock_model_server::MockServer;
use node_kit::testing::{NodeRun, TestEvent, float32_input, input, meta, run_node, stop};
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_asr-bridge");
const RATE: u32 = 16_000;
const BLOCK: usize = 320; // 20 ms

fn speech(text: &str) -> Vec<f32> {
    let out = Command::new("espeak-ng")
        .args(["-v", "en-us", "--stdout", text])
        .output()
        .expect("espeak-ng installed");
    let pcm = decode_wav(&out.stdout).unwrap();
    resample(&pcm.samples, pcm.sample_rate, RATE)
}

/// 0.5 s of silence, the clip, then `tail_secs` of silence, as 20 ms blocks in real time.
fn microphone(clip: &[f32], tail_secs: f64) -> Vec<TestEvent> {
    let mut samples = vec![0.0; RATE as usize / 2];
    samples.extend_from_slice(clip);
    samples.extend(std::iter::repeat_n(
        0.0,
        (f64::from(RATE) * tail_secs) as usize,
    ));
    let blocks: Vec<&[f32]> = samples.chunks(BLOCK).collect();
    let mut events: Vec<TestEvent> = blocks
        .iter()
        .enumerate()
        .map(|(i, block)| {
            float32_input(
                0.01 + i as f64 * 0.02,
                "audio",
                json!(block),
                meta(&[("sample_rate", json!(RATE))]),
            )
        })
        .collect();
    events.push(stop(0.05 + blocks.len() as f64 * 0.02));
    events
}

fn ids(run: &NodeRun) -> Vec<String> {
    run.texts().into_iter().map(|(id, _)| id).collect()
}

#[test]
fn a_sentence_becomes_a_transcript_after_speech_started() {
    let clip = speech("Can you show me an example with numbers please");
    let run = run_node(
        Path::new(BIN),
        &[("ASR_BACKEND", "pocketsphinx")],
        microphone(&clip, 3.0),
        Duration::from_secs(60),
    );
    assert!(run.success, "{}", run.stderr);
    assert_eq!(
        ids(&run),
        ["speech_started", "transcript"],
        "{}",
        run.stderr
    );
    let words = run.texts_of("transcript")[0].split_whitespace().count();
    assert!(words >= 3, "{:?}", run.texts_of("transcript"));
}

/// dora node-hub's microphone sends Float32 blocks without `sample_rate`: 16 kHz.
#[test]
fn a_node_hub_microphone_without_a_sample_rate_is_heard() {
    let clip = speech("Can you show me an example with numbers please");
    let mut events = microphone(&clip, 3.0);
    for event in &mut events {
        event.value.as_object_mut().unwrap().remove("metadata");
    }
    let run = run_node(
        Path::new(BIN),
        &[("ASR_BACKEND", "pocketsphinx")],
        events,
        Duration::from_secs(60),
    );
    assert!(run.success, "{}", run.stderr);
    assert_eq!(
        ids(&run),
        ["speech_started", "transcript"],
        "{}",
        run.stderr
    );
}

#[test]
fn a_short_sound_is_a_backchannel() {
    let clip = speech("Mm-hmm.");
    let run = run_node(
        Path::new(BIN),
        &[("ASR_BACKEND", "pocketsphinx")],
        microphone(&clip, 3.0),
        Duration::from_secs(60),
    );
    assert!(run.success, "{}", run.stderr);
    assert_eq!(
        ids(&run),
        ["speech_started", "backchannel"],
        "{}",
        run.stderr
    );
}

#[test]
fn an_openai_compatible_service_transcribes() {
    let server = MockServer::start(0).unwrap();
    let clip = speech("Tell me more about limits");
    let run = run_node(
        Path::new(BIN),
        &[
            ("ASR_BACKEND", "openai"),
            ("ASR_BASE_URL", &server.base_url()),
            ("ASR_MODEL", "whisper-1"),
        ],
        microphone(&clip, 2.0),
        Duration::from_secs(60),
    );
    assert!(run.success, "{}", run.stderr);
    assert_eq!(
        run.texts_of("transcript"),
        ["can you give me an example with numbers"]
    );
    let request = &server.requests()[0];
    assert_eq!(request.path, "/v1/audio/transcriptions");
    assert!(request.headers["content-type"].starts_with("multipart/form-data"));
    let body = String::from_utf8_lossy(&request.body);
    assert!(
        body.contains("whisper-1") && body.contains("RIFF"),
        "a WAV file and the model are sent"
    );
}

#[test]
fn a_dead_service_and_bad_audio_do_not_stop_it() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let clip = speech("Is anybody there at all");
    let mut events = microphone(&clip, 2.0);
    events.insert(
        0,
        input(
            0.001,
            "audio",
            json!([0.5, 0.5]),
            meta(&[("sample_rate", json!(1))]),
        ),
    );
    events.insert(
        0,
        input(
            0.002,
            "audio",
            json!(["not audio"]),
            meta(&[("sample_rate", json!(RATE))]),
        ),
    );
    let run = run_node(
        Path::new(BIN),
        &[
            ("ASR_BACKEND", "openai"),
            ("ASR_BASE_URL", &format!("http://127.0.0.1:{port}/v1")),
        ],
        events,
        Duration::from_secs(60),
    );
    assert!(run.success, "{}", run.stderr);
    assert!(
        run.stderr.contains("sample_rate 1 is outside") && run.stderr.contains("must be Float32"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("recognition failed"), "{}", run.stderr);
    // Unrecognized speech resumes playback rather than resetting the conversation.
    assert_eq!(ids(&run), ["speech_started", "backchannel"]);
}

/// The default backend: Whisper, loaded once, hears the words that were said.
#[test]
fn whisper_hears_the_key_words_and_a_nod_stays_a_backchannel() {
    let mut clip = speech("Sorry to interrupt, can you show me a derivative with actual numbers?");
    clip.extend(std::iter::repeat_n(0.0, RATE as usize * 2));
    clip.extend(speech("Mm-hmm."));
    let run = run_node(
        Path::new(BIN),
        &[],
        microphone(&clip, 3.0),
        Duration::from_secs(120),
    );
    assert!(run.success, "{}", run.stderr);
    assert_eq!(
        ids(&run),
        [
            "speech_started",
            "transcript",
            "speech_started",
            "backchannel"
        ],
        "{}",
        run.stderr
    );
    let heard = run.texts_of("transcript")[0].to_lowercase();
    for word in ["sorry", "derivative", "numbers"] {
        assert!(heard.contains(word), "{word:?} not in {heard:?}");
    }
    assert!(
        run.stderr.contains("Whisper model loaded"),
        "{}",
        run.stderr
    );
}

/// Fillers said are written down (a coach counts them): Whisper alone drops most of them;
/// with the filler context the bridge gives it by default, most are kept.
#[test]
fn whisper_writes_down_the_fillers_said() {
    let said = [
        "Um, our revenue grew by, uh, forty percent last quarter.",
        "So, uh, the main risk is, um, that customers will not switch.",
        "Um, well, uh, we have not measured that yet.",
    ];
    let mut clip = Vec::new();
    for sentence in said {
        clip.extend(speech(sentence));
        clip.extend(std::iter::repeat_n(0.0, RATE as usize * 2));
    }
    // Counted as the rehearsal's coach counts them.
    let fillers = |text: &str| delivery::speech::count(text).0.values().sum::<usize>();
    let kept = |env: &[(&str, &str)]| {
        let run = run_node(
            Path::new(BIN),
            env,
            microphone(&clip, 3.0),
            Duration::from_secs(120),
        );
        assert!(run.success, "{}", run.stderr);
        let heard = run.texts_of("transcript");
        assert_eq!(heard.len(), said.len(), "{heard:?}\n{}", run.stderr);
        heard.iter().map(|t| fillers(t)).sum::<usize>()
    };
    let total: usize = said.iter().map(|s| fillers(s)).sum();
    let by_default = kept(&[]);
    let without = kept(&[("ASR_KEEP_FILLERS", "0")]);
    assert!(
        by_default * 4 >= total * 3 && by_default > without,
        "{by_default} of {total} fillers kept by default, {without} without the filler context"
    );
}

#[test]
fn a_missing_whisper_model_stops_the_bridge_naming_the_folder_and_the_fix() {
    let run = run_node(
        Path::new(BIN),
        &[("ASR_MODEL_PATH", "/nonexistent/whisper")],
        vec![stop(0.5)],
        Duration::from_secs(30),
    );
    assert!(!run.success);
    assert!(
        run.stderr.contains("/nonexistent/whisper") && run.stderr.contains("scripts/setup.sh"),
        "{}",
        run.stderr
    );
    let run = run_node(
        Path::new(BIN),
        &[("ASR_LANGUAGE", "klingon!")],
        vec![stop(0.5)],
        Duration::from_secs(30),
    );
    assert!(!run.success);
    assert!(run.stderr.contains("ASR_LANGUAGE"), "{}", run.stderr);
}

/// A transcription service that quotes the key back: the warning names the failure, never
/// the key.
#[test]
fn a_key_quoted_by_the_service_is_redacted() {
    const SECRET: &str = "sk-asr-secret-5150";
    let server = MockServer::start(0).unwrap();
    let clip = speech("Is my key safe here");
    let run = run_node(
        Path::new(BIN),
        &[
            ("ASR_BACKEND", "openai"),
            ("ASR_BASE_URL", &server.base_url()),
            ("ASR_MODEL", "fault-echo-key"),
            ("ASR_API_KEY_ENV", "TEST_ASR_KEY"),
            ("TEST_ASR_KEY", SECRET),
        ],
        microphone(&clip, 2.0),
        Duration::from_secs(60),
    );
    assert!(run.success, "{}", run.stderr);
    assert_eq!(
        server.requests()[0].headers["authorization"],
        format!("Bearer {SECRET}")
    );
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
}

#[test]
fn a_second_microphone_input_is_heard_on_its_own() {
    // The browser's microphone on `audio_console` speaks while the main `audio` input
    // keeps sending silence: the two never mix, and the sentence becomes a transcript.
    let clip = speech("Can you show me an example with numbers please");
    let mut events: Vec<TestEvent> = microphone(&clip, 3.0)
        .into_iter()
        .map(|mut e| {
            if e.value["id"] == "audio" {
                e.value["id"] = json!("audio_console");
            }
            e
        })
        .collect();
    let end = events.last().map_or(0.0, |e| e.at_secs);
    for i in 0..((end / 0.02) as usize) {
        let e = float32_input(
            0.015 + i as f64 * 0.02,
            "audio",
            json!(vec![0.0f32; BLOCK]),
            meta(&[("sample_rate", json!(RATE))]),
        );
        events.push(e);
    }
    events.sort_by(|a, b| a.at_secs.total_cmp(&b.at_secs));
    let run = run_node(
        Path::new(BIN),
        &[("ASR_BACKEND", "pocketsphinx")],
        events,
        Duration::from_secs(90),
    );
    assert!(run.success, "{}", run.stderr);
    assert_eq!(
        ids(&run),
        ["speech_started", "transcript"],
        "{}",
        run.stderr
    );
}

/// A sample as dora's testing mode reads a Float32 column: a number, or `"NaN"`,
/// `"Infinity"` and `"-Infinity"`, which JSON has no literal for.
fn sample_json(s: f32) -> serde_json::Value {
    if s.is_nan() {
        json!("NaN")
    } else if s == f32::INFINITY {
        json!("Infinity")
    } else if s == f32::NEG_INFINITY {
        json!("-Infinity")
    } else {
        json!(s)
    }
}

/// NaN and infinite samples (a broken driver, a bad resampler upstream) are heard as
/// silence: one warning per input naming the problem, and the speech around them is
/// still recognised.
#[test]
fn nan_and_infinite_samples_are_silence_with_one_warning_per_input() {
    let mut clip = speech("Can you show me an example with numbers please");
    for (i, s) in clip.iter_mut().enumerate() {
        match i % 97 {
            0 => *s = f32::NAN,
            1 => *s = f32::INFINITY,
            2 => *s = f32::NEG_INFINITY,
            _ => {}
        }
    }
    let mut events: Vec<TestEvent> = microphone(&clip, 3.0)
        .into_iter()
        .map(|mut e| {
            if let Some(block) = e.value.get("data").and_then(|d| d.as_array()).cloned() {
                let samples: Vec<serde_json::Value> = block
                    .iter()
                    .map(|v| sample_json(v.as_f64().map_or(f32::NAN, |f| f as f32)))
                    .collect();
                e.value["data"] = json!(samples);
            }
            e
        })
        .collect();
    // The speech's own non-finite samples must survive the JSON on the way in.
    assert!(
        events
            .iter()
            .any(|e| e.value["data"].to_string().contains("\"NaN\""))
    );
    // A second microphone that sends nothing but NaN, then silence.
    for i in 0..20 {
        let e = float32_input(
            0.013 + i as f64 * 0.02,
            "audio_console",
            json!(vec![json!("NaN"); BLOCK]),
            meta(&[("sample_rate", json!(RATE))]),
        );
        events.push(e);
    }
    events.sort_by(|a, b| a.at_secs.total_cmp(&b.at_secs));
    let run = run_node(
        Path::new(BIN),
        &[("ASR_BACKEND", "pocketsphinx")],
        events,
        Duration::from_secs(90),
    );
    assert!(run.success, "{}", run.stderr);
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("WARN") && l.contains("non-finite samples"))
        .collect();
    assert_eq!(warnings.len(), 2, "one per input:\n{}", run.stderr);
    assert!(
        warnings.iter().any(|l| l.contains("input=audio "))
            && warnings.iter().any(|l| l.contains("input=audio_console")),
        "{warnings:#?}"
    );
    assert_eq!(
        ids(&run),
        ["speech_started", "transcript"],
        "{}",
        run.stderr
    );
    let words = run.texts_of("transcript")[0].split_whitespace().count();
    assert!(words >= 3, "{:?}", run.texts_of("transcript"));
}

/// An agent's sentence played by the loudspeaker comes back through the room (80 ms
/// later, 6 dB weaker) while the human stays silent, then the human speaks over the end
/// of it. With the player's output as `reference`, only the human is heard; without it,
/// the agent's own voice reads as speech too (the room is loud enough to matter): its
/// words are written down, or they garble the human's.
#[test]
fn the_agents_voice_through_the_room_is_no_barge_in_and_the_human_over_it_is_heard() {
    let voiced = |voice: &str, text: &str| {
        let out = Command::new("espeak-ng")
            .args(["-v", voice, "--stdout", text])
            .output()
            .expect("espeak-ng installed");
        decode_wav(&out.stdout).unwrap()
    };
    let agent = voiced(
        "en-us+f3",
        "The derivative tells us how fast a function changes. For x squared, the slope at three is six, and at four it is eight, so it grows as x grows.",
    );
    // The player's blocks at the voice's own rate; the room hears them at 16 kHz.
    let played = resample(&agent.samples, agent.sample_rate, RATE);
    let human = speech("Stop, can you show me another example with numbers?");
    let start = RATE as usize / 2;
    let human_at = start + played.len() - RATE as usize * 2;
    // The player holds the agent's voice 200 ms after the human's first sound (the
    // voice detector's onset and the controller's hold).
    let played = &played[..human_at - start + RATE as usize / 5];
    let player_samples = played.len() * agent.sample_rate as usize / RATE as usize;
    let total = human_at + human.len() + RATE as usize * 3;
    let delay = RATE as usize * 80 / 1000;
    let gain = 10f32.powf(-6.0 / 20.0);
    let mic: Vec<f32> = (0..total)
        .map(|i| {
            let echo = i
                .checked_sub(start + delay)
                .and_then(|j| played.get(j))
                .map_or(0.0, |s| s * gain);
            let said = i.checked_sub(human_at).and_then(|j| human.get(j));
            echo + said.unwrap_or(&0.0)
        })
        .collect();
    let player_block = agent.sample_rate as usize / 50;
    let at = |i: usize| 0.01 + i as f64 * 0.02;
    let mut events: Vec<TestEvent> = mic
        .chunks(BLOCK)
        .enumerate()
        .map(|(i, block)| {
            float32_input(
                at(i),
                "audio",
                json!(block),
                meta(&[("sample_rate", json!(RATE))]),
            )
        })
        .collect();
    let blocks = events.len();
    let reference: Vec<TestEvent> = agent.samples[..player_samples]
        .chunks(player_block)
        .enumerate()
        .map(|(i, block)| {
            float32_input(
                at(start / BLOCK + i),
                "reference",
                json!(block),
                meta(&[("sample_rate", json!(agent.sample_rate))]),
            )
        })
        .collect();
    let with_reference = {
        let mut all = events.clone();
        all.extend(reference);
        all.push(stop(at(blocks) + 0.04));
        all.sort_by(|a, b| a.at_secs.total_cmp(&b.at_secs));
        all
    };
    events.push(stop(at(blocks) + 0.04));
    let run = run_node(
        Path::new(BIN),
        &[],
        with_reference,
        Duration::from_secs(120),
    );
    assert!(run.success, "{}", run.stderr);
    assert_eq!(
        ids(&run),
        ["speech_started", "transcript"],
        "{:?}\n{}",
        run.texts(),
        run.stderr
    );
    let heard = run.texts_of("transcript")[0].to_lowercase();
    for word in ["stop", "show", "example"] {
        assert!(heard.contains(word), "{word:?} not in {heard:?}");
    }
    assert!(!heard.contains("squared"), "the agent's words: {heard:?}");
    // The same room without the reference: the agent's voice is taken for the human's.
    let run = run_node(Path::new(BIN), &[], events, Duration::from_secs(120));
    assert!(run.success, "{}", run.stderr);
    let heard = run.texts_of("transcript").concat().to_lowercase();
    let human_heard = ["stop", "show", "example"]
        .iter()
        .all(|word| heard.contains(word));
    assert!(
        heard.contains("squared") || !human_heard,
        "{:?}",
        run.texts()
    );
}

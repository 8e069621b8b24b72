//! The Kokoro voice on known sentences (needs setup.sh's models; skipped without them).

use std::path::{Path, PathBuf};

use asr_bridge::{
    recognizer::Recognizer,
    whisper::{Whisper, WhisperConfig},
};
use audio_utils::Pcm;
use speech_synth::{Kokoro, KokoroFiles};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn files() -> KokoroFiles {
    KokoroFiles::in_dir(
        &repo().join(speech_synth::kokoro::DEFAULT_DIR),
        repo().join(speech_synth::kokoro::DEFAULT_RUNTIME),
    )
}

/// The model, or `None` (with a note) when setup.sh has not installed it.
fn kokoro() -> Option<Kokoro> {
    let files = files();
    if let Some(missing) = files.missing() {
        eprintln!(
            "{} is missing (scripts/setup.sh); skipped",
            missing.display()
        );
        return None;
    }
    Some(Kokoro::load(&files, 1, "en-us").expect("the installed model loads"))
}

#[test]
fn a_known_sentence_sounds_like_speech() {
    let Some(mut kokoro) = kokoro() else { return };
    let voice = kokoro.voice("jf_alpha").unwrap();
    let text = "The derivative of x squared is two x.";
    let pcm = kokoro.synthesize(&voice, text).unwrap();
    assert_eq!(pcm.sample_rate, 24_000);
    let secs = pcm.samples.len() as f32 / 24_000.0;
    // Eight words at a speaking pace: between one and six seconds.
    assert!((1.0..6.0).contains(&secs), "{secs} s");
    let rms = audio_utils::rms(&pcm.samples);
    assert!(rms > 0.02 && rms < 0.5, "level {rms}");
    assert!(pcm.samples.iter().all(|s| s.is_finite()));
    if let Ok(out) = std::env::var("KOKORO_TEST_WAV") {
        std::fs::write(out, audio_utils::encode_wav(&pcm)).unwrap();
    }

    // Whisper (the ASR bridge's recognizer) hears its key words.
    let whisper_dir = repo().join("models/whisper-tiny.en");
    if !whisper_dir.join("model.bin").is_file() {
        eprintln!(
            "{} is missing; the recognition check is skipped",
            whisper_dir.display()
        );
        return;
    }
    let mut whisper = Whisper::load(&WhisperConfig {
        model_dir: whisper_dir,
        threads: 1,
        beam_size: 5,
        language: Some("en".into()),
        pad_ms: Some(8_000),
        keep_fillers: false,
    })
    .unwrap();
    let heard = whisper
        .transcribe(&Pcm {
            samples: audio_utils::resample(&pcm.samples, pcm.sample_rate, 16_000),
            sample_rate: 16_000,
        })
        .unwrap()
        .to_lowercase();
    for word in ["derivative", "squared"] {
        assert!(heard.contains(word), "{word:?} not in {heard:?}");
    }
}

/// Blends and speeds change the voice: a faster voice says the same words in less time,
/// and a blend sounds unlike either of its parts' samples.
#[test]
fn blends_and_speeds_change_the_voice() {
    let Some(mut kokoro) = kokoro() else { return };
    let text = "Could you explain the chain rule one more time, please?";
    let mut say = |spec: &str| {
        let voice = kokoro.voice(spec).unwrap();
        kokoro.synthesize(&voice, text).unwrap().samples
    };
    let normal = say("jm_kumo");
    let fast = say("jm_kumo@1.4");
    assert!(
        fast.len() * 10 < normal.len() * 9,
        "{} vs {}",
        fast.len(),
        normal.len()
    );
    let alpha = say("jf_alpha");
    let blend = say("jm_kumo*0.5+jf_alpha*0.5");
    assert_ne!(blend, alpha);
    assert_ne!(blend, normal);
    // The same voice twice is the same audio: synthesis is deterministic.
    assert_eq!(say("jm_kumo"), normal);
}

/// Unknown voices and bad blends are refused with the voice named.
#[test]
fn unknown_voices_are_named() {
    let Some(mut kokoro) = kokoro() else { return };
    let error = kokoro.voice("jf_alpha+nobody").unwrap_err().to_string();
    assert!(
        error.contains("\"nobody\"") && error.contains("jf_alpha"),
        "{error}"
    );
    assert!(kokoro.voice("jf_alpha@7").is_err());
}

/// A call stopped from another thread returns an error instead of its audio (a barge-in
/// does not wait for seconds of speech nobody will hear), and the next call, rearmed,
/// speaks as before.
#[test]
fn a_call_is_cancelled_from_another_thread() {
    let Some(mut kokoro) = kokoro() else { return };
    let voice = kokoro.voice("jm_kumo").unwrap();
    // About half a minute of speech: seconds of work even for a fast machine.
    let long = "The derivative of a function tells us how quickly its value changes, \
                and the slope of the tangent line at a point is that rate of change. "
        .repeat(3);
    let cancel = kokoro.canceller();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        cancel.cancel();
    });
    let cancelled = kokoro.synthesize(&voice, &long);
    canceller.join().unwrap();
    assert!(cancelled.is_err(), "the call ran to its end");
    kokoro.rearm();
    let pcm = kokoro.synthesize(&voice, "Two x.").unwrap();
    assert!(!pcm.samples.is_empty());
}

//! The player with the embedded Kokoro voice, in dora's integration-testing mode. The
//! model comes from setup.sh; without it these tests say so and pass.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use node_kit::testing::{input, keepalive, meta, run_node, stop};
use serde_json::json;

mod common;

use common::{lines, segment_of as segment};

const BIN: &str = env!("CARGO_BIN_EXE_tts-player");

fn models() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/kokoro");
    if dir.join("kokoro-v1.0.int8.onnx").is_file() {
        Some(dir)
    } else {
        eprintln!("{} has no model (scripts/setup.sh); skipped", dir.display());
        None
    }
}

fn session_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("player-kokoro-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Two speakers with their own voices; an interrupt during the second turn's synthesis
/// stops it: nothing of it sounds after the cut, and the next turn is heard whole.
#[test]
fn speaks_with_a_voice_per_speaker_and_stops_on_interrupt() {
    if models().is_none() {
        return;
    }
    let dir = session_dir("interrupt");
    let long = "This second turn is long enough to be cut off while it is being synthesized, \
                and it goes on and on about limits, slopes and tangent lines for a while.";
    let mut events = vec![
        segment(0.01, 1, "tutor", 0, true, "Hello there, Ben."),
        segment(0.02, 2, "ben", 0, false, long),
        segment(0.03, 2, "ben", 1, true, "It never gets here."),
        // The first turn has been heard by now; the second is still being synthesized.
        input(
            5.0,
            "interrupt",
            json!(["cancel"]),
            meta(&[("question_id", json!(3))]),
        ),
        segment(5.1, 2, "ben", 2, true, "Stale words."),
        segment(5.2, 4, "tutor", 0, true, "After the cut."),
    ];
    events.extend(keepalive(0.05, 18.0));
    events.push(stop(18.1));
    let run = run_node(
        Path::new(BIN),
        &[
            ("SESSION_DIR", dir.to_str().unwrap()),
            ("AUDIO_OUTPUT", "none"),
            ("TTS_BACKEND", "kokoro"),
            ("VOICE_MAP", "tutor=jf_alpha, ben=jm_kumo@1.1"),
        ],
        events,
        Duration::from_secs(90),
    );
    assert!(run.success, "{}", run.stderr);
    assert!(run.stderr.contains("Kokoro loaded"), "{}", run.stderr);
    let timeline = lines(&dir.join("timeline.jsonl"));
    let played: Vec<(u64, String, bool)> = timeline
        .iter()
        .map(|l| {
            (
                l["question_id"].as_u64().unwrap(),
                l["text_played"].as_str().unwrap_or_default().to_owned(),
                l["interrupted"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert_eq!(played.first().map(|p| p.0), Some(1), "{played:?}");
    // Heard whole unless the machine was too slow to finish it before the cut.
    assert!(
        "Hello there, Ben.".starts_with(&played[0].1) && !played[0].1.is_empty(),
        "{played:?}"
    );
    assert_eq!(
        played.last().map(|p| (p.0, p.1.as_str())),
        Some((4, "After the cut."))
    );
    for (q, text, _) in &played {
        assert!(
            !text.contains("never gets here") && !text.contains("Stale"),
            "{q}: {text}"
        );
    }
    // The cut turn, if it started at all, was cut.
    if let Some((_, _, interrupted)) = played.iter().find(|p| p.0 == 2) {
        assert!(interrupted, "{played:?}");
    }
    // The recording holds real speech: more than the two short turns' second.
    let wav = std::fs::metadata(dir.join("conversation.wav"))
        .unwrap()
        .len();
    assert!(wav > 44 + 2 * 24_000, "{wav} bytes");
}

/// Without the model the player speaks with espeak-ng and says why, naming setup.sh.
#[test]
fn a_missing_model_falls_back_to_espeak_with_a_warning() {
    let dir = session_dir("missing");
    let mut events = vec![segment(0.01, 1, "tutor", 0, true, "Still heard.")];
    events.extend(keepalive(0.05, 2.0));
    events.push(stop(2.1));
    let run = run_node(
        Path::new(BIN),
        &[
            ("SESSION_DIR", dir.to_str().unwrap()),
            ("AUDIO_OUTPUT", "none"),
            ("TTS_BACKEND", "kokoro"),
            ("KOKORO_DIR", "/nonexistent/kokoro"),
        ],
        events,
        Duration::from_secs(60),
    );
    assert!(run.success, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("/nonexistent/kokoro/kokoro-v1.0.int8.onnx")
            && run.stderr.contains("scripts/setup.sh")
            && run.stderr.contains("espeak-ng instead"),
        "{}",
        run.stderr
    );
    assert_eq!(run.texts_of("playback_done"), ["Still heard."]);
}

/// A model file that is not a model, or a voice that is not packaged, stops the player
/// at start with the file or the voice named.
#[test]
fn a_corrupt_model_or_an_unknown_voice_is_a_clear_error() {
    let Some(models) = models() else { return };
    let broken = session_dir("corrupt");
    std::fs::create_dir_all(&broken).unwrap();
    for file in ["voices_ja.npz", "vocab.json"] {
        std::fs::copy(models.join(file), broken.join(file)).unwrap();
    }
    std::fs::write(broken.join("kokoro-v1.0.int8.onnx"), b"not a model").unwrap();
    let run = run_node(
        Path::new(BIN),
        &[
            ("AUDIO_OUTPUT", "none"),
            ("TTS_BACKEND", "kokoro"),
            ("KOKORO_DIR", broken.to_str().unwrap()),
        ],
        vec![stop(0.1)],
        Duration::from_secs(60),
    );
    assert!(!run.success);
    assert!(
        run.stderr.contains("kokoro-v1.0.int8.onnx") && run.stderr.contains("scripts/setup.sh"),
        "{}",
        run.stderr
    );

    let run = run_node(
        Path::new(BIN),
        &[
            ("AUDIO_OUTPUT", "none"),
            ("TTS_BACKEND", "kokoro"),
            ("VOICE_MAP", "tutor=jf_alpha*0.5+nobody*0.5"),
        ],
        vec![stop(0.1)],
        Duration::from_secs(60),
    );
    assert!(!run.success);
    assert!(
        run.stderr.contains("VOICE_MAP") && run.stderr.contains("\"nobody\""),
        "{}",
        run.stderr
    );
}

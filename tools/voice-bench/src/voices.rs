//! `voice-bench voices DIR [VOICE...]`: the speech-recognition corpus's sentences spoken
//! by each voice (Kokoro voices and blends, or `espeak:VOICE`), written as 16 kHz WAVs
//! with a `DIR/<voice>.tsv` list (`path<TAB>text`) for `model-bench asr`, and each
//! voice's synthesis time: real-time factor, and time to the audio of a sentence and of
//! its first clause (what a listener waits for before a turn's first words).
//! `VOICE_BENCH_SENTENCES="One.|Two."` replaces the corpus; `TTS_THREADS` sets Kokoro's
//! threads (1).

use std::{
    path::Path,
    time::{Duration, Instant},
};

use audio_utils::{Pcm, decode_wav, encode_wav, resample};
use speech_synth::{Kokoro, KokoroFiles, espeak};

use crate::percentile;

/// The sentences of `scripts/asr-corpus.sh`, said by the agents and the human alike.
pub const SENTENCES: &[&str] = &[
    "Sorry to interrupt, can you show me a derivative with actual numbers?",
    "Thanks, that helps. Why is the slope of a curve a limit?",
    "What is the slope of the tangent line at x equals two?",
    "Could you explain the chain rule one more time, please?",
    "I think the limit does not exist when the function jumps.",
    "Can we try an example with a square root instead?",
    "Wait, why did the constant disappear in that step?",
    "So the derivative tells us how fast something changes.",
    "I disagree, the evidence for that claim is rather weak.",
    "Let me finish my point before you answer, please.",
    "How much would this plan cost over the next five years?",
    "That sounds reasonable, but who pays for the cleanup?",
    "Our revenue grew by forty percent in the last quarter.",
    "The main risk is that customers will not switch.",
    "Can you give me one concrete reason to believe that?",
    "Good morning everyone, let us start with the first topic.",
    "I would like to hear what the engineer thinks about it.",
    "We should move on to the next slide now.",
    "Is there any data that supports your forecast?",
    "Thank you all, that was a very useful discussion.",
];

/// Where the first clause of a sentence ends (its first comma), if it has one.
fn first_clause(text: &str) -> Option<&str> {
    text.find(", ").map(|i| &text[..=i])
}

pub fn voices(dir: &Path, wanted: &[String]) -> eyre::Result<()> {
    std::fs::create_dir_all(dir)?;
    let files = KokoroFiles::from_env()?;
    let mut kokoro = match files.missing() {
        None => {
            // As many synthesis threads as the player would use (`TTS_THREADS`, 1).
            let threads = std::env::var("TTS_THREADS")
                .ok()
                .and_then(|t| t.parse().ok())
                .unwrap_or(1);
            Some(Kokoro::load(&files, threads, "en-us")?)
        }
        Some(missing) => {
            eprintln!(
                "{} is missing (scripts/setup.sh): espeak-ng voices only",
                missing.display()
            );
            None
        }
    };
    let voices: Vec<String> = if wanted.is_empty() {
        let mut all: Vec<String> = player_core::voices::KOKORO_VOICES
            .iter()
            .map(|v| v.to_string())
            .collect();
        all.extend(["espeak:en-us+f3".to_owned(), "espeak:en-us+m3".to_owned()]);
        all
    } else {
        wanted.to_vec()
    };
    let custom: Vec<String> = std::env::var("VOICE_BENCH_SENTENCES")
        .map(|s| s.split('|').map(str::to_owned).collect())
        .unwrap_or_default();
    let sentences: Vec<&str> = if custom.is_empty() {
        SENTENCES.to_vec()
    } else {
        custom.iter().map(String::as_str).collect()
    };
    println!(
        "| voice | real-time factor | sentence ready, ms p50 / p90 | first clause ready, ms p50 / p90 |"
    );
    println!("|---|---:|---:|---:|");
    for spec in &voices {
        let mut speak = |text: &str| -> eyre::Result<Pcm> {
            match spec.strip_prefix("espeak:") {
                Some(voice) => Ok(decode_wav(&espeak::run(
                    &["-v", voice, "--stdout"],
                    text,
                    Duration::from_secs(30),
                )?)?),
                None => {
                    let kokoro = kokoro
                        .as_mut()
                        .ok_or_else(|| eyre::eyre!("Kokoro is not installed"))?;
                    let voice = kokoro.voice(spec)?;
                    kokoro.synthesize(&voice, text)
                }
            }
        };
        let name: String = spec
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let mut list = String::new();
        let (mut busy, mut audio) = (Duration::ZERO, 0.0f64);
        let (mut whole_ms, mut clause_ms) = (Vec::new(), Vec::new());
        for (i, text) in sentences.iter().enumerate() {
            let start = Instant::now();
            let pcm = speak(text)?;
            let took = start.elapsed();
            busy += took;
            whole_ms.push(took.as_secs_f64() * 1000.0);
            audio += pcm.samples.len() as f64 / f64::from(pcm.sample_rate);
            if let Some(clause) = first_clause(text) {
                let start = Instant::now();
                speak(clause)?;
                clause_ms.push(start.elapsed().as_secs_f64() * 1000.0);
            }
            let path = dir.join(format!("{name}-{i:02}.wav"));
            let samples = resample(&pcm.samples, pcm.sample_rate, 16_000);
            std::fs::write(
                &path,
                encode_wav(&Pcm {
                    sample_rate: 16_000,
                    samples,
                }),
            )?;
            list.push_str(&format!("{}\t{text}\n", path.display()));
        }
        std::fs::write(dir.join(format!("{name}.tsv")), list)?;
        println!(
            "| {spec} | {:.2} | {:.0} / {:.0} | {:.0} / {:.0} |",
            busy.as_secs_f64() / audio,
            percentile(&mut whole_ms, 0.5),
            percentile(&mut whole_ms, 0.9),
            percentile(&mut clause_ms, 0.5),
            percentile(&mut clause_ms, 0.9),
        );
    }
    Ok(())
}

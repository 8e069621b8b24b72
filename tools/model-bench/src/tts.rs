//! `model-bench tts [VOICE]`: what one phrase costs the neural voice (Kokoro, with
//! `TTS_THREADS` threads as the player has them, one by default), by its length, and how
//! much of the clip is silence before and after it is trimmed for playback: the first
//! phrase of a turn is what its listener waits for.

use std::time::Instant;

use eyre::Context;
use speech_synth::kokoro::{Kokoro, KokoroFiles, LOUD, trim_for_playback};

/// Phrases as the segmenter sends them: an opener, first clauses, whole phrases.
const PHRASES: &[&str] = &[
    "Sure.",
    "Let me think.",
    "Let me walk you through it.",
    "In calculus,",
    "The slope of a curve",
    "The slope of a curve element refers",
    "to how quickly the value changes when you move",
    "The slope of the tangent line to a function f of x is",
];

/// Timed runs of each phrase after one to warm up; the median is reported.
const RUNS: usize = 3;

pub fn tts(voice: Option<&str>) -> eyre::Result<()> {
    let files = KokoroFiles::from_env()?;
    let threads = match std::env::var("TTS_THREADS") {
        Ok(threads) => threads
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|t| (1..=64).contains(t))
            .ok_or_else(|| eyre::eyre!("TTS_THREADS={threads:?} is not 1 to 64"))?,
        Err(_) => 1,
    };
    let mut kokoro = Kokoro::load(&files, threads, "en-us")?;
    let voice = kokoro
        .voice(voice.unwrap_or("jf_gongitsune"))
        .context("VOICE")?;
    println!(
        "| chars | synthesis ms (median of {RUNS}) | clip ms | silence before / after ms | played ms | synthesis / played | phrase |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---|");
    for phrase in PHRASES {
        let mut times = Vec::new();
        let mut clip = None;
        for run in 0..=RUNS {
            let started = Instant::now();
            let pcm = kokoro.synthesize(&voice, phrase)?;
            if run > 0 {
                times.push(started.elapsed().as_millis() as u64);
            }
            clip = Some(pcm);
        }
        let mut pcm = clip.expect("synthesized at least once");
        times.sort_unstable();
        let synthesis = times[times.len() / 2];
        let rate = u64::from(pcm.sample_rate);
        let ms = |samples: usize| samples as u64 * 1000 / rate;
        let loud = |s: &f32| s.abs() > LOUD;
        let first = pcm.samples.iter().position(loud).unwrap_or(0);
        let last = pcm.samples.iter().rposition(loud).unwrap_or(first);
        let clip_ms = ms(pcm.samples.len());
        let (before, after) = (ms(first), ms(pcm.samples.len() - last - 1));
        trim_for_playback(&mut pcm, text_segmenter::ends_sentence(phrase));
        let played = ms(pcm.samples.len());
        println!(
            "| {} | {synthesis} | {clip_ms} | {before} / {after} | {played} | {:.2} | {phrase} |",
            phrase.chars().count(),
            synthesis as f64 / played.max(1) as f64
        );
    }
    Ok(())
}

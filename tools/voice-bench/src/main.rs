//! `voice-bench micro`: segmenter cost and throughput, espeak-ng latency for a first
//! sentence, player cost per block.
//! `voice-bench session <folder>`: end of the human's speech → first agent audio and →
//! the answer's own words (after an opener, from `conversation.wav`), dead air between
//! utterances and barge-in latency from a recorded session (`timeline.jsonl`,
//! `barge_in.jsonl`).
//! `voice-bench generated LOG...`: where the model's time went, turn by turn (see
//! [`generated`]).
//! `voice-bench voices DIR [VOICE...]`: each voice on the recognition corpus (see
//! [`voices`]).

use std::{hint::black_box, path::Path, process::Command, time::Instant};

use player_core::{
    Player, PlayerConfig, PlayerInput,
    records::{BARGE_IN_FILE, BargeInRecord},
};

mod audible;
mod generated;
mod turns;
mod voices;
use text_segmenter::{SegmenterConfig, TurnSegmenter};

const PARAGRAPH: &str = "A derivative measures how fast a function changes at a point. Take f of x equals x squared: at x equals 3 the slope is 6, because the tangent rises six units per unit of run. Dr. Lee's notes, e.g. chapter 2, show the same idea with 3.5 as the input. Why does this matter? Because velocity is the derivative of position, and acceleration is the derivative of velocity! ";

fn percentile(values: &mut [f64], p: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.sort_by(f64::total_cmp);
    let i = ((values.len() - 1) as f64 * p).round() as usize;
    values[i]
}

fn micro() {
    // Segmenter: the paragraph streamed word by word, 200 times.
    let words: Vec<&str> = PARAGRAPH.split_inclusive(' ').collect();
    let mut runs = Vec::new();
    let mut segments = 0;
    for _ in 0..9 {
        let start = Instant::now();
        segments = 0;
        for _ in 0..200 {
            let mut s = TurnSegmenter::new(SegmenterConfig::default());
            for w in &words {
                segments += black_box(s.push(w)).len();
            }
            segments += s.finish().len();
        }
        runs.push(start.elapsed().as_secs_f64());
    }
    let secs = percentile(&mut runs, 0.5);
    let chunks = (words.len() * 200) as f64;
    let chars = (PARAGRAPH.len() * 200) as f64;
    println!(
        "segmenter: {:.2} µs per streamed chunk, {:.2} µs per segment, {:.1} MB/s of text",
        secs / chunks * 1e6,
        secs / segments as f64 * 1e6,
        chars / secs / 1e6
    );

    // espeak-ng: a typical first sentence to audio.
    let mut latencies = Vec::new();
    for _ in 0..7 {
        let start = Instant::now();
        let out = Command::new("espeak-ng")
            .args([
                "-v",
                "en-us",
                "--stdout",
                "A derivative measures how fast a function changes.",
            ])
            .output();
        match out {
            Ok(out) if out.status.success() => {
                let pcm = audio_utils::decode_wav(&out.stdout).expect("espeak-ng writes WAV");
                black_box(pcm);
                latencies.push(start.elapsed().as_secs_f64() * 1000.0);
            }
            _ => {
                println!("espeak-ng: not installed");
                break;
            }
        }
    }
    if !latencies.is_empty() {
        println!(
            "espeak-ng first sentence to audio: median {:.1} ms (+ at most one 20 ms block to sound)",
            percentile(&mut latencies, 0.5)
        );
    }

    // Resampling a 3 s voice clip (espeak-ng's 22,050 Hz → Whisper's 16 kHz): rubato's
    // band-limited resampler against the linear one it replaced, as a ratio of one run.
    let clip: Vec<f32> = (0..66_150).map(|i| (i as f32 * 0.05).sin() * 0.3).collect();
    let time = |f: &dyn Fn() -> Vec<f32>| {
        let mut runs: Vec<f64> = (0..15)
            .map(|_| {
                let start = Instant::now();
                black_box(f());
                start.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        percentile(&mut runs, 0.5)
    };
    let band_limited = time(&|| audio_utils::resample(&clip, 22_050, 16_000));
    let linear = time(&|| audio_utils::resample_linear(&clip, 22_050, 16_000));
    println!(
        "resampling 3 s 22,050 → 16,000 Hz: rubato {band_limited:.2} ms, linear {linear:.2} ms ({:.1}× the linear)",
        band_limited / linear
    );

    // pocketsphinx: recognition time of a short human utterance (part of the time from the
    // human's last word to the first agent audio, with the VAD's closing silence).
    let wav = std::env::temp_dir().join(format!("voice-bench-{}.wav", std::process::id()));
    let made = Command::new("espeak-ng")
        .args(["-v", "en-us+m1", "--stdout"])
        .arg("what is the derivative of x squared")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| audio_utils::decode_wav(&o.stdout).ok())
        .map(|pcm| {
            let pcm = audio_utils::Pcm {
                sample_rate: 16_000,
                samples: audio_utils::resample(&pcm.samples, pcm.sample_rate, 16_000),
            };
            std::fs::write(&wav, audio_utils::encode_wav(&pcm)).is_ok()
        })
        .unwrap_or(false);
    let mut recognition = Vec::new();
    for _ in 0..5 {
        if !made {
            break;
        }
        let start = Instant::now();
        // Debian ships 0.8 (`pocketsphinx_continuous`); 5.x is `pocketsphinx single`.
        let ok = Command::new("pocketsphinx_continuous")
            .arg("-infile")
            .arg(&wav)
            .args(["-logfn", "/dev/null"])
            .output()
            .or_else(|_| {
                Command::new("pocketsphinx")
                    .arg("single")
                    .arg(&wav)
                    .output()
            })
            .is_ok_and(|o| o.status.success());
        if !ok {
            break;
        }
        recognition.push(start.elapsed().as_secs_f64() * 1000.0);
    }
    let _ = std::fs::remove_file(&wav);
    if recognition.is_empty() {
        println!("pocketsphinx: not measured (needs espeak-ng and pocketsphinx)");
    } else {
        println!(
            "pocketsphinx, a 2 s utterance: median {:.0} ms",
            percentile(&mut recognition, 0.5)
        );
    }

    // Player: cost of rendering one 20 ms block while speaking.
    let mut player = Player::new(PlayerConfig::new(22_050));
    player.handle(PlayerInput::Segment {
        speaker: "a".into(),
        question_id: 1,
        index: 0,
        last: true,
        text: "x".into(),
    });
    player.handle(PlayerInput::Audio {
        question_id: 1,
        index: 0,
        samples: vec![0.1; 22_050 * 600],
    });
    let mut block = vec![0.0f32; 441];
    let start = Instant::now();
    for _ in 0..20_000 {
        black_box(player.render(&mut block));
    }
    println!(
        "player: {:.0} ns per 20 ms block",
        start.elapsed().as_nanos() as f64 / 20_000.0
    );
}

fn lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// End of the human's speech → the answer's first audio, per spoken human line of the
/// timeline: the first agent line of a newer question that sounded after it.
fn voice_to_voice(humans: &[serde_json::Value], agents: &[serde_json::Value]) -> Vec<f64> {
    answers(humans, agents)
        .into_iter()
        .filter_map(|(end, answer)| Some(answer["start_ms"].as_f64()? - end))
        .collect()
}

/// Each spoken human line's end of speech and the agent line that answered it.
fn answers<'a>(
    humans: &[serde_json::Value],
    agents: &'a [serde_json::Value],
) -> Vec<(f64, &'a serde_json::Value)> {
    humans
        .iter()
        .filter(|h| h.get("typed").is_none())
        .filter_map(|h| {
            let (asked, end) = (h["question_id"].as_u64()?, h["speech_end_ms"].as_f64()?);
            let answer = agents.iter().find(|a| {
                a["question_id"].as_u64().is_some_and(|q| q > asked)
                    && a["start_ms"].as_f64().is_some_and(|s| s >= end)
            })?;
            Some((end, answer))
        })
        .collect()
}

/// Where the answer's own words begin in `audio` (ms), for an answer that opened with an
/// opener ("Sure."): the first sound after the opener's, which ends at 200 ms of
/// silence (20 ms frames, RMS above 0.01 is sound). `None` when nothing sounds after it
/// before `end_ms`.
fn words_after_opener(audio: &[f32], rate: u32, start_ms: f64, end_ms: f64) -> Option<f64> {
    let frame = (rate / 50) as usize;
    let at = |ms: f64| (ms / 20.0) as usize;
    let sounds = |i: usize| {
        audio
            .get(i * frame..(i + 1) * frame)
            .is_some_and(|f| audio_utils::rms(f) > audible::SOUND_RMS)
    };
    let last = at(end_ms).min(audio.len() / frame);
    let mut i = at(start_ms);
    while i < last && !sounds(i) {
        i += 1;
    }
    let mut quiet = 0;
    while i < last && quiet < 10 {
        quiet = if sounds(i) { 0 } else { quiet + 1 };
        i += 1;
    }
    while i < last && !sounds(i) {
        i += 1;
    }
    (i < last).then_some(i as f64 * 20.0)
}

/// End of the human's speech → the answer's own words: after its opener when it opened
/// with one (found in `conversation.wav`), else its first audio.
fn voice_to_words(
    dir: &Path,
    humans: &[serde_json::Value],
    agents: &[serde_json::Value],
) -> Vec<f64> {
    let audio = std::fs::read(dir.join("conversation.wav"))
        .ok()
        .and_then(|bytes| audio_utils::decode_wav(&bytes).ok());
    answers(humans, agents)
        .into_iter()
        .filter_map(|(end, answer)| {
            let start = answer["start_ms"].as_f64()?;
            let text = answer["text_played"].as_str().unwrap_or_default();
            let opened = voice_protocol::openers::PHRASES
                .iter()
                .any(|o| text.starts_with(o));
            if !opened {
                return Some(start - end);
            }
            let pcm = audio.as_ref()?;
            let stop = answer["end_ms"].as_f64()?;
            Some(words_after_opener(&pcm.samples, pcm.sample_rate, start, stop)? - end)
        })
        .collect()
}

/// Silence as heard in `conversation.wav`, inside utterances too (see [`audible`]).
fn audible_silence(dir: &Path, humans: &[serde_json::Value]) {
    let Some(pcm) = std::fs::read(dir.join("conversation.wav"))
        .ok()
        .and_then(|bytes| audio_utils::decode_wav(&bytes).ok())
    else {
        println!(
            "silence heard: no readable conversation.wav in {}",
            dir.display()
        );
        return;
    };
    let human: Vec<(f64, f64)> = humans
        .iter()
        .filter_map(|h| Some((h["speech_start_ms"].as_f64()?, h["speech_end_ms"].as_f64()?)))
        .collect();
    let quiet = audible::silences(&pcm.samples, pcm.sample_rate, &human);
    let total_ms = pcm.samples.len() as f64 / pcm.sample_rate as f64 * 1000.0;
    let mut lengths: Vec<f64> = quiet.iter().map(|&(_, l)| l).collect();
    println!(
        "silence heard (conversation.wav, stretches of {:.0} s or more, the human's speech aside): {:.0} s in {} stretches of {:.0} s of audio; p50 {:.1} s, p90 {:.1} s, max {:.1} s",
        audible::MIN_SILENCE_MS / 1000.0,
        lengths.iter().sum::<f64>() / 1000.0,
        lengths.len(),
        total_ms / 1000.0,
        percentile(&mut lengths.clone(), 0.5) / 1000.0,
        percentile(&mut lengths.clone(), 0.9) / 1000.0,
        percentile(&mut lengths, 1.0) / 1000.0,
    );
}

fn session(dir: &Path) {
    // The player's lines and the human's (`"human": true`) share the timeline.
    let (humans, timeline): (Vec<serde_json::Value>, Vec<serde_json::Value>) =
        lines(&dir.join("timeline.jsonl"))
            .into_iter()
            .partition(|r| r["human"] == true);
    if timeline.is_empty() && humans.is_empty() {
        // A failed or empty run: figures over nothing would read as numbers.
        eprintln!(
            "no utterance in {}: nothing to measure (did the dataflow run? see its log)",
            dir.join("timeline.jsonl").display()
        );
        std::process::exit(1);
    }
    let mut voice = voice_to_voice(&humans, &timeline);
    println!(
        "end of the human's speech → first agent audio ({} answers): p50 {:.0} ms, p90 {:.0} ms, max {:.0} ms",
        voice.len(),
        percentile(&mut voice.clone(), 0.5),
        percentile(&mut voice.clone(), 0.9),
        percentile(&mut voice, 1.0)
    );
    let mut words = voice_to_words(dir, &humans, &timeline);
    // Few answers in a run: each is worth reading, in the order they came.
    let each: Vec<String> = words.iter().map(|w| format!("{w:.0}")).collect();
    println!(
        "end of the human's speech → the answer's own words, after an opener ({} answers): p50 {:.0} ms, p90 {:.0} ms, max {:.0} ms; each: {} ms",
        words.len(),
        percentile(&mut words.clone(), 0.5),
        percentile(&mut words.clone(), 0.9),
        percentile(&mut words, 1.0),
        each.join(", ")
    );
    // Each gap, and whether an agent speaks after it (not a human's stand-in voiced by
    // the player, such as the rehearsal's scripted presenter: its pause is the human's).
    let transcript = lines(&dir.join("transcript.jsonl"));
    let humans_voiced: std::collections::HashSet<&str> = transcript
        .iter()
        .filter(|r| r["human"] == true)
        .filter_map(|r| r["speaker"].as_str())
        .collect();
    let timed_gaps: Vec<(f64, bool)> = timeline
        .windows(2)
        .filter(|w| w[0]["interrupted"] == false && w[1]["chars_played"].as_u64().unwrap_or(0) > 0)
        .map(|w| {
            let gap = (w[1]["start_ms"].as_f64().unwrap_or(0.0)
                - w[0]["end_ms"].as_f64().unwrap_or(0.0))
            .max(0.0);
            let speaker = w[1]["speaker"].as_str().unwrap_or_default();
            (gap, !humans_voiced.contains(speaker))
        })
        .collect();
    let mut gaps: Vec<f64> = timed_gaps.iter().map(|(gap, _)| *gap).collect();
    // The conversation's span: from the first sound to the last, agents' and human's.
    let span = |key: &str, pick: fn(f64, f64) -> f64, init: f64| {
        timeline
            .iter()
            .chain(&humans)
            .filter_map(|r| {
                r[key]
                    .as_f64()
                    .or_else(|| r[&format!("speech_{key}")].as_f64())
            })
            .fold(init, pick)
    };
    let (first, last) = (
        span("start_ms", f64::min, f64::MAX),
        span("end_ms", f64::max, 0.0),
    );
    let minutes = ((last - first) / 60_000.0).max(1e-9);
    let agent_lines = timeline
        .iter()
        .filter(|r| r["chars_played"].as_u64().unwrap_or(0) > 0)
        .count();
    println!(
        "silence: {:.0} % of the conversation ({:.0} s of {:.0} s in gaps between utterances); {:.1} agent utterances a minute",
        gaps.iter().sum::<f64>() / (last - first).max(1.0) * 100.0,
        gaps.iter().sum::<f64>() / 1000.0,
        (last - first) / 1000.0,
        agent_lines as f64 / minutes
    );
    println!(
        "dead air between consecutive utterances ({} gaps): median {:.0} ms, p90 {:.0} ms, max {:.0} ms",
        gaps.len(),
        percentile(&mut gaps.clone(), 0.5),
        percentile(&mut gaps.clone(), 0.9),
        percentile(&mut gaps, 1.0)
    );
    let mut before_agents: Vec<f64> = timed_gaps
        .iter()
        .filter(|(_, agent)| *agent)
        .map(|(gap, _)| *gap)
        .collect();
    if before_agents.len() < timed_gaps.len() {
        println!(
            "  of which before an agent's line ({} gaps; the others before a human's voiced stand-in): median {:.0} ms, p90 {:.0} ms, max {:.0} ms",
            before_agents.len(),
            percentile(&mut before_agents.clone(), 0.5),
            percentile(&mut before_agents.clone(), 0.9),
            percentile(&mut before_agents, 1.0)
        );
    }
    audible_silence(dir, &humans);
    // A human line's start is when its transcript reached the conversation; the next
    // agent line's start is when its first sample sounded.
    let mut answers: Vec<f64> = transcript
        .windows(2)
        .filter(|w| w[0]["human"] == true && w[1]["human"] == false)
        .map(|w| {
            (w[1]["start_ms"].as_f64().unwrap_or(0.0) - w[0]["start_ms"].as_f64().unwrap_or(0.0))
                .max(0.0)
        })
        .collect();
    println!(
        "human transcript → first agent audio ({} answers): median {:.0} ms, max {:.0} ms",
        answers.len(),
        percentile(&mut answers.clone(), 0.5),
        percentile(&mut answers, 1.0)
    );
    let barge: Vec<BargeInRecord> = lines(&dir.join(BARGE_IN_FILE))
        .into_iter()
        .filter_map(|r| serde_json::from_value::<BargeInRecord>(r).ok())
        .filter(|r| r.was_playing)
        .collect();
    let mut received: Vec<f64> = barge
        .iter()
        .map(|r| r.received_after_us as f64 / 1000.0)
        .collect();
    let mut silent: Vec<f64> = barge
        .iter()
        .map(|r| r.silent_after_us as f64 / 1000.0)
        .collect();
    println!(
        "barge-in ({} while speaking): speech_started → player has it p50 {:.2} ms, p99 {:.2} ms; → silent (fade done) p50 {:.1} ms, p99 {:.1} ms",
        barge.len(),
        percentile(&mut received.clone(), 0.5),
        percentile(&mut received, 0.99),
        percentile(&mut silent.clone(), 0.5),
        percentile(&mut silent, 0.99)
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("micro") => micro(),
        Some("session") if args.len() == 2 => session(Path::new(&args[1])),
        Some("turns") => {
            let model = args
                .get(1)
                .map(std::path::PathBuf::from)
                .unwrap_or_else(|| {
                    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/whisper-tiny.en")
                });
            if let Err(e) = turns::turns(&model) {
                eprintln!("voice-bench turns: {e:#}");
                std::process::exit(1);
            }
        }
        Some("generated") if args.len() >= 2 => {
            if let Err(e) = generated::generated(&args[1..]) {
                eprintln!("voice-bench generated: {e:#}");
                std::process::exit(1);
            }
        }
        Some("voices") if args.len() >= 2 => {
            if let Err(e) = voices::voices(Path::new(&args[1]), &args[2..]) {
                eprintln!("voice-bench voices: {e:#}");
                std::process::exit(1);
            }
        }
        _ => {
            eprintln!(
                "usage: voice-bench micro | voice-bench session <session folder> | voice-bench generated LOG... | voice-bench voices DIR [VOICE...] | voice-bench turns [WHISPER_DIR]"
            );
            std::process::exit(2);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn voice_to_voice_is_measured_to_the_first_newer_answer() {
        let humans = [
            json!({"human": true, "question_id": 4, "speech_start_ms": 1000, "speech_end_ms": 3000}),
            json!({"human": true, "question_id": 9, "speech_start_ms": 9000, "speech_end_ms": 9000, "typed": true}),
        ];
        let agents = [
            json!({"question_id": 3, "start_ms": 2500, "end_ms": 3100}),
            json!({"question_id": 5, "start_ms": 4200, "end_ms": 6000}),
            json!({"question_id": 10, "start_ms": 9500, "end_ms": 9900}),
        ];
        assert_eq!(voice_to_voice(&humans, &agents), [1200.0]);
    }

    #[test]
    fn the_answers_own_words_start_after_the_openers_pause() {
        let rate = 16_000;
        let ms = |n: usize| n * 16;
        let tone = |n: usize| (0..ms(n)).map(|i| (i as f32 * 0.3).sin() * 0.3);
        // 100 ms quiet, a 500 ms opener with a 60 ms dip, 1 s of silence, the words.
        let mut audio = vec![0.0; ms(100)];
        audio.extend(tone(250));
        audio.extend(vec![0.0; ms(60)]);
        audio.extend(tone(250));
        audio.extend(vec![0.0; ms(1000)]);
        audio.extend(tone(400));
        assert_eq!(words_after_opener(&audio, rate, 0.0, 3000.0), Some(1660.0));
        // Nothing after the opener before the line ends.
        assert_eq!(words_after_opener(&audio, rate, 0.0, 1500.0), None);
    }
}

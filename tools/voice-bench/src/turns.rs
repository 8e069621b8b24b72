//! `voice-bench turns`: when the human's turn is taken, by the closing silence alone and
//! by early end of turn (the words recognized at a short pause), side by side on the same
//! speech. Each turn of `data/turns.txt` is voiced by Kokoro (` | ` is a pause of 400 to
//! 900 ms, in turn), then streamed through the ASR bridge's endpointer with the embedded
//! Whisper in 20 ms blocks; recognition takes the stream time it took on this machine (one
//! worker, as in the node). Reported per rule: end of speech → turn taken (p50 / p90),
//! turns cut off at a mid-sentence pause, and Whisper runs.
//!
//! When `models/smart-turn/` holds Smart Turn v3.2 (scripts/bench.sh fetches it), its
//! judgement at each pause is compared with the words' rules on the same audio.
//!
//! `VOICE_BENCH_TURNS` replaces the turn list (a file of the same format); `HUMAN_VOICE`
//! the Kokoro voice (`jf_tebukuro@1.2`, the scripted human's).

use std::{path::Path, time::Instant};

use asr_bridge::{
    recognizer::Recognizer,
    whisper::{Whisper, WhisperConfig},
};
use asr_core::{
    BackchannelConfig, VadConfig,
    endpoint::{EndpointInput, EndpointOutput, Endpointer, JobId},
};
use audio_utils::resample;
use speech_synth::{Kokoro, KokoroFiles};

use crate::percentile;

const RATE: u32 = 16_000;
const BLOCK: usize = 320; // 20 ms
const PAUSES_MS: [u32; 6] = [400, 500, 600, 700, 800, 900];

/// One spoken turn: its audio and where its last part begins.
struct Spoken {
    text: String,
    samples: Vec<f32>,
    /// Sample at which the last part (after the last pause) starts; 0 without a pause.
    last_part_at: usize,
    paused: bool,
}

/// What one rule did with one turn.
struct Outcome {
    /// End of speech (the voice detector's) → turn taken, ms.
    latency_ms: Option<f64>,
    cut_off: bool,
    recognitions: usize,
}

fn voice_turns(kokoro: &mut Kokoro, voice: &str, turns: &[String]) -> eyre::Result<Vec<Spoken>> {
    let voice = kokoro.voice(voice)?;
    let mut spoken = Vec::new();
    let mut pause = 0;
    for text in turns {
        let parts = human_script::spoken_parts(text);
        let mut samples = Vec::new();
        let mut last_part_at = 0;
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                let ms = PAUSES_MS[pause % PAUSES_MS.len()];
                pause += 1;
                samples.extend(std::iter::repeat_n(0.0, (RATE * ms / 1000) as usize));
                last_part_at = samples.len();
            }
            let pcm = kokoro.synthesize(&voice, part)?;
            // The voice's own silence before and after a part would lengthen the pause.
            let threshold = VadConfig::new(RATE).threshold;
            let audio = resample(&pcm.samples, pcm.sample_rate, RATE);
            samples.extend(audio_utils::trim_silence(&audio, RATE, threshold));
        }
        spoken.push(Spoken {
            text: parts.join(" "),
            samples,
            last_part_at,
            paused: parts.len() > 1,
        });
    }
    Ok(spoken)
}

/// Streams one turn (after 300 ms of silence, then 3 s of it) through an endpointer.
fn stream(
    spoken: &Spoken,
    pause_ms: u32,
    whisper: &mut Whisper,
) -> eyre::Result<(Outcome, Vec<String>)> {
    let mut endpointer = Endpointer::new(
        VadConfig {
            pause_ms,
            ..VadConfig::new(RATE)
        },
        BackchannelConfig::default(),
    );
    let lead = (RATE * 300 / 1000) as usize;
    let mut audio = vec![0.0; lead];
    audio.extend(&spoken.samples);
    audio.extend(std::iter::repeat_n(0.0, RATE as usize * 3));
    // Results in stream time: (sample at which it comes back, job, text).
    let mut results: Vec<(usize, JobId, String)> = Vec::new();
    let mut worker_free_at = 0usize;
    let mut recognitions = 0;
    let mut turns = Vec::new();
    let mut latency_ms = None;
    let mut cut_off = false;
    let mut at = 0usize;
    let mut handle = |outputs: Vec<EndpointOutput>,
                      at: usize,
                      results: &mut Vec<(usize, JobId, String)>,
                      worker_free_at: &mut usize|
     -> eyre::Result<()> {
        for output in outputs {
            match output {
                EndpointOutput::Recognize { job, audio } => {
                    let started = Instant::now();
                    let text = whisper.transcribe(&audio)?;
                    let took = (started.elapsed().as_secs_f64() * f64::from(RATE)) as usize;
                    recognitions += 1;
                    *worker_free_at = (*worker_free_at).max(at) + took;
                    results.push((*worker_free_at, job, text));
                }
                EndpointOutput::Turn {
                    text,
                    end_ms,
                    early,
                    ..
                } => {
                    let taken_ms = at as f64 * 1000.0 / f64::from(RATE);
                    // Speech that ended before the last part began: the human was cut off
                    // at the pause.
                    let last_part_ms =
                        (lead + spoken.last_part_at) as f64 * 1000.0 / f64::from(RATE);
                    if (end_ms as f64) < last_part_ms {
                        cut_off = true;
                    } else if latency_ms.is_none() {
                        latency_ms = Some(taken_ms - end_ms as f64);
                    }
                    turns.push(if early {
                        format!("{text} (at the pause)")
                    } else {
                        text
                    });
                }
                _ => {}
            }
        }
        Ok(())
    };
    while at < audio.len() {
        let end = (at + BLOCK).min(audio.len());
        let outputs = endpointer.handle(EndpointInput::Audio(&audio[at..end]));
        at = end;
        handle(outputs, at, &mut results, &mut worker_free_at)?;
        while let Some(i) = results.iter().position(|(ready, ..)| *ready <= at) {
            let (_, job, text) = results.remove(i);
            let outputs = endpointer.handle(EndpointInput::Recognized { job, text });
            handle(outputs, at, &mut results, &mut worker_free_at)?;
        }
    }
    Ok((
        Outcome {
            latency_ms,
            cut_off,
            recognitions,
        },
        turns,
    ))
}

pub fn turns(model_dir: &Path) -> eyre::Result<()> {
    let list = match std::env::var("VOICE_BENCH_TURNS") {
        Ok(path) => std::fs::read_to_string(path)?,
        Err(_) => include_str!("../data/turns.txt").to_owned(),
    };
    let turns: Vec<String> = list
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    let files = KokoroFiles::from_env()?;
    if let Some(missing) = files.missing() {
        eyre::bail!("{} is missing: run scripts/setup.sh", missing.display());
    }
    let mut kokoro = Kokoro::load(&files, 1, "en-us")?;
    let voice = std::env::var("HUMAN_VOICE").unwrap_or_else(|_| "jf_tebukuro@1.2".to_owned());
    let spoken = voice_turns(&mut kokoro, &voice, &turns)?;
    drop(kokoro);
    let mut whisper = Whisper::load(&WhisperConfig {
        model_dir: model_dir.to_owned(),
        threads: 1,
        beam_size: 5,
        language: Some("en".to_owned()),
        pad_ms: Some(8000),
        keep_fillers: false,
    })?;
    let rules = [
        ("closing silence only (700 ms)", 0u32),
        (
            "early end of turn (pause 250 ms, held pauses close at 1200 ms)",
            250,
        ),
    ];
    println!(
        "| rule | turns | end of speech → turn taken, ms p50 / p90 | cut off at a mid-sentence pause | Whisper runs |"
    );
    println!("|---|---:|---:|---:|---:|");
    for (name, pause_ms) in rules {
        let mut latencies = Vec::new();
        let mut cut_offs = Vec::new();
        let mut recognitions = 0;
        for turn in &spoken {
            let (outcome, heard) = stream(turn, pause_ms, &mut whisper)?;
            latencies.extend(outcome.latency_ms);
            recognitions += outcome.recognitions;
            if outcome.cut_off {
                cut_offs.push(format!("{:?} → {heard:?}", turn.text));
            }
        }
        let paused = spoken.iter().filter(|s| s.paused).count();
        println!(
            "| {name} | {} | {:.0} / {:.0} | {} of {paused} | {recognitions} |",
            spoken.len(),
            percentile(&mut latencies.clone(), 0.5),
            percentile(&mut latencies, 0.9),
            cut_offs.len(),
        );
        for cut in cut_offs {
            eprintln!("{name}: cut off: {cut}");
        }
    }
    let smart_turn = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../models/smart-turn/smart-turn-v3.2-cpu.onnx");
    if smart_turn.exists() {
        compare_judges(&spoken, &mut whisper, &smart_turn)?;
    } else {
        eprintln!(
            "{} is missing (scripts/bench.sh fetches it): Smart Turn not compared",
            smart_turn.display()
        );
    }
    Ok(())
}

/// Smart Turn v3.2 (an end-of-turn model on the voice alone): the probability that the
/// speaker finished, from the last 8 s of their audio.
struct SmartTurn {
    session: ort::session::Session,
    front_end: asr_core::whisper::MelFrontEnd,
}

/// The model's window: 8 s at 16 kHz, as 800 frames of 80 mel bands.
const SMART_TURN_SAMPLES: usize = 8 * RATE as usize;
const SMART_TURN_FRAMES: usize = 800;

impl SmartTurn {
    fn load(model: &Path) -> eyre::Result<Self> {
        let environment = speech_synth::kokoro::runtime(&KokoroFiles::from_env()?.runtime)?;
        let cannot =
            |e: &dyn std::fmt::Display| eyre::eyre!("cannot load {}: {e}", model.display());
        let session = ort::session::Session::builder(environment)
            .map_err(|e| cannot(&e))?
            .with_intra_threads(1)
            .map_err(|e| cannot(&e))?
            .commit_from_file(model)
            .map_err(|e| cannot(&e))?;
        Ok(Self {
            session,
            front_end: asr_core::whisper::MelFrontEnd::new(80),
        })
    }

    /// The audio's last 8 s (zeros before a shorter one), normalized to zero mean and unit
    /// variance, as Whisper's log-mel features: what the model was trained on.
    fn probability(&mut self, samples: &[f32]) -> eyre::Result<f32> {
        let tail = &samples[samples.len().saturating_sub(SMART_TURN_SAMPLES)..];
        let mut window = vec![0.0f32; SMART_TURN_SAMPLES - tail.len()];
        window.extend_from_slice(tail);
        let n = window.len() as f32;
        let mean = window.iter().sum::<f32>() / n;
        let variance = window.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / n;
        let scale = 1.0 / (variance + 1e-7).sqrt();
        for v in &mut window {
            *v = (*v - mean) * scale;
        }
        let features = self.front_end.log_mel_frames(&window, SMART_TURN_FRAMES);
        let input = ort::value::Tensor::from_array(([1usize, 80, SMART_TURN_FRAMES], features))
            .map_err(|e| eyre::eyre!("{e}"))?;
        let outputs = self
            .session
            .run(ort::inputs!["input_features" => input])
            .map_err(|e| eyre::eyre!("Smart Turn failed: {e}"))?;
        let (_, probability) = outputs[0]
            .try_extract_tensor::<f32>()
            .map_err(|e| eyre::eyre!("Smart Turn's output: {e}"))?;
        Ok(probability.first().copied().unwrap_or(0.0))
    }
}

/// The pauses of every turn judged by the words (the rules of `end_of_turn`) and by Smart
/// Turn: how many final pauses each calls finished, how many mid-sentence pauses it calls
/// finished (a cut-off), and Smart Turn's time per call.
fn compare_judges(spoken: &[Spoken], whisper: &mut Whisper, model: &Path) -> eyre::Result<()> {
    let mut smart_turn = SmartTurn::load(model)?;
    let lead = (RATE * 300 / 1000) as usize;
    // (words say finished, Smart Turn says finished, the pause was the turn's end)
    let mut judged: Vec<(bool, bool, bool)> = Vec::new();
    let mut call_ms = Vec::new();
    for turn in spoken {
        let mut endpointer = Endpointer::new(
            VadConfig {
                pause_ms: 250,
                ..VadConfig::new(RATE)
            },
            BackchannelConfig::default(),
        );
        let mut audio = vec![0.0; lead];
        audio.extend(&turn.samples);
        audio.extend(std::iter::repeat_n(0.0, RATE as usize * 2));
        let mut at = 0;
        while at < audio.len() {
            let end = (at + BLOCK).min(audio.len());
            let outputs = endpointer.handle(EndpointInput::Audio(&audio[at..end]));
            at = end;
            for output in outputs {
                // A job while the utterance is still open: the words at a pause.
                let EndpointOutput::Recognize { audio: paused, .. } = output else {
                    continue;
                };
                if !endpointer.is_speaking() {
                    continue;
                }
                let text = whisper.transcribe(&paused)?;
                let words = asr_core::end_of_turn::completion(&text)
                    == asr_core::end_of_turn::Completion::Complete;
                // The model hears what the stream holds at the pause: the silence too.
                let mut heard = paused.samples.clone();
                heard.extend(std::iter::repeat_n(0.0, (RATE * 250 / 1000) as usize));
                let started = Instant::now();
                let probability = smart_turn.probability(&heard)?;
                call_ms.push(started.elapsed().as_secs_f64() * 1000.0);
                let finished = at >= lead + turn.last_part_at;
                judged.push((words, probability > 0.5, finished));
                // `VOICE_BENCH_DUMP=DIR`: each judged pause as a WAV and its figures, to
                // check the model's input against another implementation.
                if let Ok(dir) = std::env::var("VOICE_BENCH_DUMP") {
                    let n = judged.len();
                    let wav = audio_utils::encode_wav(&audio_utils::Pcm {
                        sample_rate: RATE,
                        samples: heard.clone(),
                    });
                    std::fs::write(Path::new(&dir).join(format!("{n:03}.wav")), wav)?;
                    println!(
                        "dump {n:03}.wav p={probability:.4} finished={finished} words={text:?}"
                    );
                }
            }
        }
    }
    let count = |f: &dyn Fn(&(bool, bool, bool)) -> bool| judged.iter().filter(|j| f(j)).count();
    let ends = count(&|j| j.2);
    let mids = count(&|j| !j.2);
    println!();
    println!(
        "| judge at a 250 ms pause | finished turns called finished | mid-sentence pauses called finished (cut-offs) |"
    );
    println!("|---|---:|---:|");
    println!(
        "| the words (`end_of_turn`) | {} of {ends} | {} of {mids} |",
        count(&|j| j.0 && j.2),
        count(&|j| j.0 && !j.2)
    );
    println!(
        "| Smart Turn v3.2 (the voice) | {} of {ends} | {} of {mids} |",
        count(&|j| j.1 && j.2),
        count(&|j| j.1 && !j.2)
    );
    println!(
        "| both must agree | {} of {ends} | {} of {mids} |",
        count(&|j| j.0 && j.1 && j.2),
        count(&|j| j.0 && j.1 && !j.2)
    );
    println!(
        "Smart Turn per call: p50 {:.0} ms, p90 {:.0} ms (one thread)",
        percentile(&mut call_ms.clone(), 0.5),
        percentile(&mut call_ms, 0.9)
    );
    Ok(())
}

//! Benchmarks of the embedded models (figures for docs/BENCHMARKS.md):
//!
//! - `model-bench llm [TURNS [GGUF]]`: one participant (the tutor) through a conversation
//!   of TURNS turns, with and without reuse of the prompt cache: prompt tokens, time to
//!   the first words and the first sentence, generation speed (the default model, or GGUF).
//! - `model-bench together [ROUNDS [GGUF]]`: the answer to the human written beside two
//!   turns on one model host, against the answer alone (see [`together`]).
//! - `model-bench converse FORMAT TURNS [GGUF [OUT_DIR]]`: the model talking with itself
//!   in a dataflow's shape (`study`, `debate`, `panel`, `roundtable`,
//!   `rehearsal`, `auction`), text only (see [`converse`]).
//! - `model-bench asr WAV_LIST [RECOGNIZER]`: each recognizer (or those whose name holds
//!   RECOGNIZER) on the clips listed in WAV_LIST (lines of `path<TAB>reference text`):
//!   word error rate and time per clip.

use std::{
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use agent_bridge::{Entry, GenerationRequest, History, Persona};
use asr_bridge::{
    recognizer::{Pocketsphinx, Recognizer},
    whisper::{Whisper, WhisperConfig},
};
use eyre::{Context, bail, eyre};
use llm_bridge::{
    backend::{Backend, BackendEvent},
    local::{LocalBackend, LocalConfig},
};

mod converse;
mod together;
mod tts;

fn main() -> eyre::Result<()> {
    // The bridges' own logs (what was refused and why) with RUST_LOG, on stderr.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = repo_root()?;
    match args.first().map(String::as_str) {
        Some("llm") => {
            let turns = args.get(1).map_or(Ok(50), |t| t.parse()).context("TURNS")?;
            let model = args.get(2).map_or_else(
                || root.join(llm_bridge::local::DEFAULT_MODEL),
                PathBuf::from,
            );
            llm(&root, turns, &model)
        }
        Some("together") => {
            let rounds = args.get(1).map_or(Ok(6), |t| t.parse()).context("ROUNDS")?;
            let model = args.get(2).map_or_else(
                || root.join(llm_bridge::local::DEFAULT_MODEL),
                PathBuf::from,
            );
            together::together(rounds, &model)
        }
        Some("converse") => {
            let format = args.get(1).map_or("study", String::as_str);
            let turns = args.get(2).map_or(Ok(30), |t| t.parse()).context("TURNS")?;
            let model = args.get(3).map_or_else(
                || root.join(llm_bridge::local::DEFAULT_MODEL),
                PathBuf::from,
            );
            converse::converse(&root, format, turns, &model, args.get(4).map(PathBuf::from))
        }
        Some("asr") => {
            let list = args
                .get(1)
                .ok_or_else(|| eyre!("usage: model-bench asr WAV_LIST [RECOGNIZER]"))?;
            asr(&root, Path::new(list), args.get(2).map(String::as_str))
        }
        Some("tts") => tts::tts(args.get(1).map(String::as_str)),
        _ => bail!(
            "usage: model-bench llm [TURNS [GGUF]] | model-bench together [ROUNDS [GGUF]] | model-bench converse FORMAT [TURNS [GGUF [OUT_DIR]]] | model-bench asr WAV_LIST | model-bench tts [VOICE]"
        ),
    }
}

fn repo_root() -> eyre::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    Ok(exe
        .ancestors()
        .nth(3)
        .ok_or_else(|| eyre!("run the release binary from target/release"))?
        .to_path_buf())
}

/// Lines the other participants say, in turn with the tutor's answers.
const OTHERS: &[(&str, &str)] = &[
    ("student1", "What does a derivative actually measure?"),
    ("human", "Can you show me a derivative with actual numbers?"),
    ("student2", "So for x squared the slope at three is six?"),
    (
        "student1",
        "Why do we take a limit instead of just dividing?",
    ),
    (
        "human",
        "What happens at a sharp corner, like the absolute value?",
    ),
    ("student2", "Is the derivative of a constant always zero?"),
    (
        "student1",
        "How does the chain rule work for sine of two x?",
    ),
    ("human", "Where would I use this outside of class?"),
];

struct Turn {
    first_text_ms: f64,
    first_sentence_ms: f64,
    prompt_tokens: usize,
    reused_tokens: usize,
    prompt_ms: f64,
    tokens_per_s: f64,
    words: usize,
}

fn llm(root: &Path, turns: usize, model: &Path) -> eyre::Result<()> {
    let persona_text = std::fs::read_to_string(root.join("templates/tutor/persona.md"))?;
    let body = persona_text.rsplit("+++").next().unwrap_or_default().trim();
    let persona = Persona {
        system_prompt: body.to_owned(),
        display_name: Some("Ms. Rivera".into()),
        ..Persona::fallback("tutor")
    };
    println!(
        "one participant (tutor), {turns} turns, 1 thread, {}",
        model.file_name().unwrap_or_default().to_string_lossy()
    );
    println!(
        "| prefix reuse | prompt tokens p50 | computed p50 | first words p50 / p90 (ms) | first sentence p50 / p90 (ms) | prompt time, all turns (ms) | generation tok/s p50 | words p50 / p90 / max |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for reuse in [true, false] {
        let config = bench_config(model, reuse)?;
        let backend = LocalBackend::load(config, persona.clone())?;
        let mut history = History::new(60);
        let mut results = Vec::new();
        for turn in 0..turns {
            let (speaker, line) = OTHERS[turn % OTHERS.len()];
            history.push(Entry::new(speaker, line, (turn * 2) as u64 + 1));
            let question_id = (turn * 2) as u64 + 2;
            let request = GenerationRequest {
                question_id,
                prompt: history.prompt(
                    &persona,
                    Some("derivatives in first-year calculus"),
                    str::to_owned,
                ),
                ..GenerationRequest::default()
            };
            let (tx, rx) = crossbeam_channel::unbounded();
            let started = Instant::now();
            let _cancel = backend.start(request, history.clone(), tx);
            let mut text = String::new();
            let (mut first_text, mut first_sentence) = (None, None);
            loop {
                match rx.recv_timeout(Duration::from_secs(120))? {
                    BackendEvent::Chunk { text: chunk, .. } => {
                        let now = started.elapsed().as_secs_f64() * 1000.0;
                        first_text.get_or_insert(now);
                        text.push_str(&chunk);
                        if text.contains(['.', '!', '?']) {
                            first_sentence.get_or_insert(now);
                        }
                    }
                    BackendEvent::Finished { error: Some(e), .. } => bail!("turn {turn}: {e}"),
                    BackendEvent::Finished { error: None, .. } => break,
                }
            }
            let total = started.elapsed().as_secs_f64() * 1000.0;
            let stats = backend.last_stats().unwrap_or_default();
            if turn < 3 && reuse {
                eprintln!("[{speaker}] {line}\n[tutor] {}", text.trim());
            }
            history.push(Entry::new("tutor", text.trim(), question_id));
            results.push(Turn {
                first_text_ms: first_text.unwrap_or(total),
                first_sentence_ms: first_sentence.unwrap_or(total),
                prompt_tokens: stats.prompt_tokens,
                reused_tokens: stats.reused_tokens,
                prompt_ms: stats.prompt_ms,
                tokens_per_s: stats.generated_tokens as f64
                    / (stats.generation_ms / 1000.0).max(1e-6),
                words: text.split_whitespace().count(),
            });
        }
        let pick =
            |f: &dyn Fn(&Turn) -> f64, q: f64| percentile(results.iter().map(f).collect(), q);
        println!(
            "| {} | {:.0} | {:.0} | {:.0} / {:.0} | {:.0} / {:.0} | {:.0} | {:.0} | {:.0} / {:.0} / {} |",
            if reuse { "on" } else { "off" },
            pick(&|t| t.prompt_tokens as f64, 0.5),
            pick(&|t| (t.prompt_tokens - t.reused_tokens) as f64, 0.5),
            pick(&|t| t.first_text_ms, 0.5),
            pick(&|t| t.first_text_ms, 0.9),
            pick(&|t| t.first_sentence_ms, 0.5),
            pick(&|t| t.first_sentence_ms, 0.9),
            results.iter().map(|t| t.prompt_ms).sum::<f64>(),
            pick(&|t| t.tokens_per_s, 0.5),
            pick(&|t| t.words as f64, 0.5),
            pick(&|t| t.words as f64, 0.9),
            results.iter().map(|t| t.words).max().unwrap_or(0),
        );
    }
    Ok(())
}

/// The embedded backend as the dataflows run it (one thread, the default budget and
/// sampling), on `model`, with or without prompt-cache reuse. `LLM_SEED` (42) seeds the
/// sampling, as in the dataflows: a few seeds side by side tell a change from luck.
fn bench_config(model: &Path, reuse: bool) -> eyre::Result<LocalConfig> {
    let seed = match std::env::var("LLM_SEED") {
        Err(_) => 42,
        Ok(text) => text
            .trim()
            .parse()
            .map_err(|_| eyre!("LLM_SEED={text:?}: expected a whole number"))?,
    };
    Ok(LocalConfig {
        model_path: model.to_path_buf(),
        threads: 1,
        batch_threads: 1,
        context_tokens: 2048,
        max_tokens: 160,
        max_words: 30,
        temperature: 0.7,
        seed,
        window_lines: 12,
        prefix_reuse: reuse,
        participants: 1,
    })
}

fn percentile(mut values: Vec<f64>, q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    values[((values.len() - 1) as f64 * q).round() as usize]
}

/// Fillers in `text` as the coach counts them ("um", "uh", a "like" set off by commas).
fn filler_count(text: &str) -> usize {
    delivery::speech::count(text).0.values().sum()
}

fn asr(root: &Path, list: &Path, only: Option<&str>) -> eyre::Result<()> {
    let text = std::fs::read_to_string(list).with_context(|| format!("{}", list.display()))?;
    let clips: Vec<(audio_utils::Pcm, String)> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (path, reference) = l.split_once('\t').ok_or_else(|| eyre!("no tab in {l:?}"))?;
            let pcm =
                audio_utils::decode_wav(&std::fs::read(path)?).map_err(|e| eyre!("{path}: {e}"))?;
            // The recognizers take 16 kHz, as the ASR bridge hands them.
            let pcm = audio_utils::Pcm {
                samples: audio_utils::resample(&pcm.samples, pcm.sample_rate, 16_000),
                sample_rate: 16_000,
            };
            Ok((pcm, reference.to_owned()))
        })
        .collect::<eyre::Result<_>>()?;
    let audio_secs: f64 = clips
        .iter()
        .map(|(p, _)| p.duration_ms() as f64 / 1000.0)
        .sum();
    println!("{} clips, {audio_secs:.1} s of speech", clips.len());
    println!("CTranslate2 int8, 1 thread, greedy decoding unless noted");
    println!("| recognizer | WER | fillers kept | ms per clip p50 / p90 | real-time factor |");
    println!("|---|---:|---:|---:|---:|");
    let mut recognizers: Vec<(String, Box<dyn Recognizer>)> = Vec::new();
    let tiny = "models/whisper-tiny.en";
    for (name, dir, pad_ms, beam_size, keep_fillers) in [
        ("whisper tiny.en, 30 s window", tiny, None, 1, false),
        (
            "whisper tiny.en, audio + 8 s window, greedy",
            tiny,
            Some(8000),
            1,
            false,
        ),
        (
            "whisper tiny.en, audio + 8 s window, beam 5, no filler context (ASR_KEEP_FILLERS=0)",
            tiny,
            Some(8000),
            5,
            false,
        ),
        (
            "whisper tiny.en, audio + 8 s window, beam 5, fillers kept (default)",
            tiny,
            Some(8000),
            5,
            true,
        ),
        (
            "whisper base, 30 s window",
            "models/whisper-base",
            None,
            1,
            false,
        ),
        (
            "whisper base, audio + 8 s window",
            "models/whisper-base",
            Some(8000),
            1,
            false,
        ),
    ] {
        if only.is_some_and(|only| !name.contains(only)) {
            continue;
        }
        let model_dir = root.join(dir);
        if !model_dir.join("model.bin").exists() {
            eprintln!("{name}: {} not installed, skipped", model_dir.display());
            continue;
        }
        let config = WhisperConfig {
            model_dir,
            threads: 1,
            beam_size,
            language: Some("en".into()),
            pad_ms,
            keep_fillers,
        };
        recognizers.push((name.to_owned(), Box::new(Whisper::load(&config)?)));
    }
    match Pocketsphinx::find() {
        _ if only.is_some_and(|only| !"pocketsphinx".contains(only)) => {}
        Ok(p) => recognizers.push(("pocketsphinx (Debian, en-us)".into(), Box::new(p))),
        Err(e) => eprintln!("pocketsphinx skipped: {e}"),
    }
    for (name, mut recognizer) in recognizers {
        let (mut errors, mut words) = (0, 0);
        let (mut fillers_said, mut fillers_kept) = (0, 0);
        let mut times = Vec::new();
        for (pcm, reference) in &clips {
            let started = Instant::now();
            let heard = recognizer.transcribe(pcm)?;
            times.push(started.elapsed().as_secs_f64() * 1000.0);
            let (e, w) = asr_core::word_errors(reference, &heard);
            if e > 0 {
                eprintln!("{name}: {reference:?} heard as {heard:?}");
            }
            errors += e;
            words += w;
            let said = filler_count(reference);
            fillers_said += said;
            fillers_kept += filler_count(&heard).min(said);
        }
        let total_s: f64 = times.iter().sum::<f64>() / 1000.0;
        let kept = if fillers_said == 0 {
            "—".to_owned()
        } else {
            format!("{fillers_kept} of {fillers_said}")
        };
        println!(
            "| {name} | {:.1} % | {kept} | {:.0} / {:.0} | {:.2} |",
            100.0 * errors as f64 / words.max(1) as f64,
            percentile(times.clone(), 0.5),
            percentile(times, 0.9),
            total_s / audio_secs,
        );
    }
    Ok(())
}

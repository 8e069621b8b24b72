//! Whisper, in-process: a CTranslate2 conversion of the model (the folder setup.sh
//! installs), loaded once at start and run on each utterance by CTranslate2. Features,
//! prompt and token decoding are [`asr_core::whisper`]'s.

use std::path::{Path, PathBuf};

use asr_core::whisper::{self as features, MelFrontEnd};
use audio_utils::{Pcm, resample};
use eyre::{Context, bail, eyre};

use crate::recognizer::Recognizer;

/// The model setup.sh installs, relative to the repository.
pub const DEFAULT_MODEL_DIR: &str = "models/whisper-tiny.en";

/// Files a CTranslate2 Whisper folder must hold.
const MODEL_FILES: [&str; 3] = ["model.bin", "config.json", "vocabulary.txt"];

#[derive(Debug, Clone)]
pub struct WhisperConfig {
    pub model_dir: PathBuf,
    pub threads: usize,
    /// 1: greedy decoding; more: beam search.
    pub beam_size: usize,
    /// `en`, `zh`, ...; `None`: the model detects it (multilingual models only).
    pub language: Option<String>,
    /// Silence after the audio in the model's window; `None`: the whole 30 s window the
    /// model was trained on (slower, a little more accurate).
    pub pad_ms: Option<u64>,
    /// Write "um"s and "uh"s down as said (a verbatim transcript before each utterance,
    /// [`features::FILLER_CONTEXT`]), for a coach that counts them.
    pub keep_fillers: bool,
}

pub struct Whisper {
    model: ct2rs::sys::Whisper,
    front_end: MelFrontEnd,
    prompt: Vec<String>,
    /// The prompt without the filler context, for a window whose decoding ran away
    /// with it (`None`: the prompt has none).
    plain_prompt: Option<Vec<String>>,
    options: ct2rs::sys::WhisperOptions,
    pad_frames: Option<usize>,
}

impl Whisper {
    pub fn load(config: &WhisperConfig) -> eyre::Result<Self> {
        check_model_dir(&config.model_dir)?;
        let started = std::time::Instant::now();
        let model = ct2rs::sys::Whisper::new(
            &config.model_dir,
            ct2rs::Config {
                compute_type: ct2rs::ComputeType::INT8,
                num_threads_per_replica: config.threads,
                ..Default::default()
            },
        )
        .map_err(|e| {
            eyre!(
                "cannot load the Whisper model in {}: {e}; run `scripts/setup.sh` to install it again",
                config.model_dir.display()
            )
        })?;
        let multilingual = model.is_multilingual();
        let language = config.language.as_deref().unwrap_or("en");
        if !multilingual && language != "en" {
            bail!(
                "the Whisper model in {} understands English only (ASR_LANGUAGE={language})",
                config.model_dir.display()
            );
        }
        // The context is English: before another language it would pull the
        // transcript towards English.
        let previous = if config.keep_fillers && language == "en" {
            filler_context(&config.model_dir)
        } else {
            &[]
        };
        tracing::info!(
            model = %config.model_dir.display(),
            load_ms = started.elapsed().as_millis() as u64,
            threads = config.threads,
            beam = config.beam_size,
            multilingual,
            keep_fillers = !previous.is_empty(),
            "Whisper model loaded"
        );
        Ok(Self {
            front_end: MelFrontEnd::new(model.n_mels()),
            prompt: features::prompt(multilingual, language, previous),
            plain_prompt: (!previous.is_empty())
                .then(|| features::prompt(multilingual, language, &[])),
            pad_frames: config.pad_ms.map(|ms| (ms / 10) as usize),
            model,
            options: ct2rs::sys::WhisperOptions {
                beam_size: config.beam_size.max(1),
                // Utterances are short: a runaway decode is a hallucination.
                max_length: 224,
                return_no_speech_prob: true,
                ..Default::default()
            },
        })
    }

    /// One window of up to 30 s: decoded with the filler context, and again without it
    /// when that decoding looped on one word ([`features::is_runaway`]).
    fn window(&self, samples: &[f32]) -> eyre::Result<String> {
        let text = self.decode(samples, &self.prompt)?;
        match &self.plain_prompt {
            Some(plain) if features::is_runaway(&text) => {
                tracing::warn!(looped = %text.chars().take(60).collect::<String>(), "the recognizer looped on a word; decoding the utterance again without the filler context");
                self.decode(samples, plain)
            }
            _ => Ok(text),
        }
    }

    fn decode(&self, samples: &[f32], prompt: &[String]) -> eyre::Result<String> {
        let frames = features::window_frames(samples.len(), self.pad_frames);
        let mut mel = self.front_end.log_mel_frames(samples, frames);
        let shape = [1, self.front_end.n_mels(), frames];
        let view = ct2rs::sys::StorageView::new(&shape, &mut mel, Default::default())
            .map_err(|e| eyre!("Whisper input: {e}"))?;
        let results = self
            .model
            .generate(&view, &[prompt.to_vec()], &self.options)
            .map_err(|e| eyre!("Whisper failed: {e}"))?;
        let Some(result) = results.into_iter().next() else {
            return Ok(String::new());
        };
        // The model is sure nobody spoke: a noise, not words.
        if result.no_speech_prob > NO_SPEECH {
            return Ok(String::new());
        }
        Ok(result
            .sequences
            .first()
            .map(|tokens| features::decode_tokens(tokens))
            .unwrap_or_default())
    }
}

/// Above this probability of "no speech", a window's text is dropped.
const NO_SPEECH: f32 = 0.8;

impl Recognizer for Whisper {
    fn name(&self) -> &'static str {
        "whisper"
    }

    fn transcribe(&mut self, audio: &Pcm) -> eyre::Result<String> {
        let samples = resample(&audio.samples, audio.sample_rate, features::SAMPLE_RATE);
        let mut text = String::new();
        for window in samples.chunks(features::WINDOW_SAMPLES) {
            text.push(' ');
            text.push_str(&self.window(window)?);
        }
        Ok(asr_core::clean_transcript(&text))
    }
}

/// The filler context, if the model's vocabulary holds each of its tokens (an unknown
/// token would be read as another word); else a warning, and fillers are not asked for:
/// the recognizer works without them.
fn filler_context(dir: &Path) -> &'static [&'static str] {
    let path = dir.join("vocabulary.txt");
    let vocabulary = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            tracing::warn!(file = %path.display(), error = %e, "cannot read the model's vocabulary: fillers are transcribed as the model does by default");
            return &[];
        }
    };
    let known: std::collections::HashSet<&str> = vocabulary.lines().collect();
    match features::FILLER_CONTEXT
        .iter()
        .find(|token| !known.contains(**token))
    {
        None => features::FILLER_CONTEXT,
        Some(missing) => {
            tracing::warn!(
                model = %dir.display(),
                %missing,
                "the model's vocabulary lacks a token of the filler context: fillers are transcribed as the model does by default"
            );
            &[]
        }
    }
}

fn check_model_dir(dir: &Path) -> eyre::Result<()> {
    let hint = "install the default model with `scripts/setup.sh`, or point ASR_MODEL_PATH at a CTranslate2 Whisper folder";
    for file in MODEL_FILES {
        let path = dir.join(file);
        let meta = std::fs::metadata(&path)
            .with_context(|| format!("cannot read {}; {hint}", path.display()))?;
        if meta.len() == 0 {
            bail!("{} is empty; {hint}", path.display());
        }
    }
    Ok(())
}

//! The recognizer's settings from its environment: the backend, the voice detector, the
//! backchannels, the echo canceller and the drain at stop (see the root README's table).

use std::time::Duration;

use asr_core::{BackchannelConfig, VadConfig};
use eyre::bail;
use voice_protocol::ids;

use asr_bridge::{
    recognizer::{OpenAiTranscriber, Pocketsphinx, Recognizer},
    whisper::{Whisper, WhisperConfig},
};

/// The rate the voice detector and the recognizers hear at.
pub const VAD_RATE: u32 = 16_000;

/// The silence after which the words so far are recognized and, when they make a finished
/// sentence or question, taken as the turn (`VAD_PAUSE_MS`; 0: only the closing silence).
const DEFAULT_PAUSE_MS: u32 = 250;

pub struct Settings {
    pub recognizer: Box<dyn Recognizer>,
    /// Whose words these are (`SPEAKER`).
    pub speaker: String,
    pub vad: VadConfig,
    pub backchannels: BackchannelConfig,
    /// The microphones that hear the loudspeaker directly (`ECHO_CANCEL_INPUTS`).
    pub echo_inputs: Vec<String>,
    /// The longest echo path (`ECHO_TAIL_MS`).
    pub echo_tail_ms: u32,
    /// How long utterances still being recognised at stop are waited for.
    pub drain_timeout: Duration,
}

impl Settings {
    pub fn from_env() -> eyre::Result<Self> {
        let recognizer: Box<dyn Recognizer> = match node_kit::env_opt("ASR_BACKEND")
            .as_deref()
            .unwrap_or("whisper")
        {
            "whisper" => Box::new(Whisper::load(&whisper_config()?)?),
            "pocketsphinx" => Box::new(Pocketsphinx::find()?),
            "openai" => Box::new(OpenAiTranscriber::from_env(node_kit::env_secs(
                "ASR_TIMEOUT_SECS",
                30.0,
            )?)?),
            other => {
                bail!(
                    "ASR_BACKEND={other:?} is not supported (use whisper, openai or pocketsphinx)"
                )
            }
        };
        let mut vad = VadConfig::new(VAD_RATE);
        vad.threshold = node_kit::env_parse("VAD_THRESHOLD", vad.threshold)?;
        vad.end_ms = node_kit::env_parse("VAD_END_MS", vad.end_ms)?;
        vad.pause_ms = node_kit::env_parse("VAD_PAUSE_MS", DEFAULT_PAUSE_MS)?;
        vad.hold_ms = node_kit::env_parse("VAD_HOLD_MS", vad.hold_ms)?;
        vad.commit_ms = node_kit::env_parse("VAD_COMMIT_MS", vad.commit_ms)?;
        let (vad, problem) = vad.without_impossible_pauses();
        if let Some(problem) = problem {
            tracing::warn!(
                problem,
                "VAD_PAUSE_MS: turns end at the closing silence only"
            );
        }
        let backchannels = BackchannelConfig {
            max_words: node_kit::env_parse("BACKCHANNEL_MAX_WORDS", 2)?,
            max_ms: node_kit::env_parse("BACKCHANNEL_MAX_MS", 1200)?,
            ..BackchannelConfig::default()
        };
        let echo_tail_ms: u32 = node_kit::env_parse("ECHO_TAIL_MS", 200)?;
        if !(10..=2000).contains(&echo_tail_ms) {
            bail!("ECHO_TAIL_MS ({echo_tail_ms}) must be 10 to 2000");
        }
        let echo_inputs = node_kit::env_opt("ECHO_CANCEL_INPUTS")
            .unwrap_or_else(|| ids::AUDIO.to_owned())
            .split(',')
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect();
        Ok(Self {
            recognizer,
            speaker: node_kit::env_opt("SPEAKER").unwrap_or_else(|| "human".to_owned()),
            vad,
            backchannels,
            echo_inputs,
            echo_tail_ms,
            drain_timeout: node_kit::env_secs("ASR_DRAIN_TIMEOUT_SECS", 30.0)?,
        })
    }
}

/// The embedded Whisper's settings from env. Without `ASR_MODEL_PATH`, the model
/// setup.sh installs, found from the binary's place (`target/<profile>/asr-bridge`).
fn whisper_config() -> eyre::Result<WhisperConfig> {
    let model_dir = match node_kit::env_opt("ASR_MODEL_PATH") {
        Some(path) => std::path::PathBuf::from(path),
        None => node_kit::repo_file(asr_bridge::whisper::DEFAULT_MODEL_DIR)?,
    };
    let threads: usize = node_kit::env_parse("ASR_THREADS", 1)?;
    let beam_size: usize = node_kit::env_parse("ASR_BEAM", 5)?;
    if !(1..=64).contains(&threads) || !(1..=16).contains(&beam_size) {
        bail!("ASR_THREADS ({threads}) must be 1 to 64 and ASR_BEAM ({beam_size}) 1 to 16");
    }
    let language = node_kit::env_opt("ASR_LANGUAGE").unwrap_or_else(|| "en".to_owned());
    if !(2..=3).contains(&language.len()) || !language.chars().all(|c| c.is_ascii_lowercase()) {
        bail!("ASR_LANGUAGE={language:?} must be a language code such as en or zh");
    }
    Ok(WhisperConfig {
        model_dir,
        threads,
        beam_size,
        language: Some(language),
        pad_ms: match node_kit::env_opt("ASR_PAD_MS").as_deref() {
            None => Some(8000),
            Some("full") => None,
            Some(ms) => Some(
                ms.parse()
                    .map_err(|_| eyre::eyre!("ASR_PAD_MS={ms:?} must be milliseconds or `full`"))?,
            ),
        },
        keep_fillers: node_kit::env_flag("ASR_KEEP_FILLERS", true)?,
    })
}

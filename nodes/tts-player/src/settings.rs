//! The player's settings, read from its environment in one place (the names are those of
//! `dataflow_wiring::settings`, which warns about any other in a dataflow's `env:`).

use std::time::Duration;

use eyre::bail;

/// How the node's clock, output and voice are set up.
#[derive(Debug, Clone)]
pub struct Settings {
    /// `SAMPLE_RATE` (22 050 Hz): the rate of everything the player renders.
    pub rate: u32,
    /// `BLOCK_MS` (20): the length of one rendered block.
    pub block_ms: u64,
    /// `AUDIO_OUTPUT`: `auto`, `none` or a device.
    pub output: String,
    pub voice: VoiceSettings,
}

/// Which voice speaks, and how.
#[derive(Debug, Clone)]
pub struct VoiceSettings {
    /// `TTS_BACKEND`: `kokoro`, `espeak` (the default), `openai` or `silent`.
    pub backend: String,
    /// `VOICE_MAP`: `speaker=voice` entries, comma-separated.
    pub voice_map: String,
    /// `TTS_TIMEOUT_SECS` (20): the longest one synthesis call may take.
    pub timeout: Duration,
    /// `ESPEAK_SPEED` (175 words a minute).
    pub espeak_speed: u32,
    /// `TTS_THREADS` (1): Kokoro's threads.
    pub threads: usize,
    /// `KOKORO_LANGUAGE` (`en-us`): the espeak-ng language of Kokoro's phonemes.
    pub kokoro_language: String,
}

impl Settings {
    pub fn from_env() -> eyre::Result<Self> {
        let settings = Self {
            rate: node_kit::env_parse("SAMPLE_RATE", 22_050)?,
            block_ms: node_kit::env_parse("BLOCK_MS", 20)?,
            output: node_kit::env_opt("AUDIO_OUTPUT").unwrap_or_else(|| "auto".to_owned()),
            voice: VoiceSettings::from_env()?,
        };
        if !(8_000..=96_000).contains(&settings.rate) || !(5..=200).contains(&settings.block_ms) {
            bail!("SAMPLE_RATE must be 8000..96000 and BLOCK_MS 5..200");
        }
        Ok(settings)
    }
}

impl VoiceSettings {
    pub fn from_env() -> eyre::Result<Self> {
        Ok(Self {
            backend: node_kit::env_opt("TTS_BACKEND").unwrap_or_else(|| "espeak".to_owned()),
            voice_map: node_kit::env_opt("VOICE_MAP").unwrap_or_default(),
            timeout: node_kit::env_secs("TTS_TIMEOUT_SECS", 20.0)?,
            espeak_speed: node_kit::env_parse("ESPEAK_SPEED", 175)?,
            threads: node_kit::env_parse("TTS_THREADS", 1usize)?,
            kokoro_language: node_kit::env_opt("KOKORO_LANGUAGE")
                .unwrap_or_else(|| "en-us".to_owned()),
        })
    }
}

//! Speech synthesis backends behind one trait.

use std::time::Duration;

use audio_utils::{Pcm, decode_wav};
use eyre::{Context, bail};
use player_core::voices::{ESPEAK_VOICES, KOKORO_VOICES, OPENAI_VOICES, VoiceMap};
use service_client::{BlockingClient, ServiceSettings};
use speech_synth::{Kokoro, KokoroFiles, espeak};

use crate::settings::VoiceSettings;

/// The voice `voice.backend` names (`kokoro`; `espeak`, the default; `openai`; `silent`).
/// Kokoro without its files (setup.sh not run) falls back to espeak-ng with a warning
/// naming the missing file; files that do not load are an error.
pub fn open(voice: &VoiceSettings, rate: u32) -> eyre::Result<Box<dyn TtsBackend>> {
    let backend: Box<dyn TtsBackend> = match voice.backend.as_str() {
        "kokoro" => {
            let files = KokoroFiles::from_env()?;
            match files.missing() {
                Some(missing) => {
                    tracing::warn!(
                        missing = %missing.display(),
                        "the Kokoro voice is not installed (run scripts/setup.sh): speaking with espeak-ng instead"
                    );
                    Box::new(Espeak::open(voice, &voice.voice_map)?)
                }
                None => Box::new(KokoroVoices::open(&files, voice)?),
            }
        }
        "espeak" => Box::new(Espeak::open(voice, &voice.voice_map)?),
        "openai" => Box::new(OpenAiSpeech::open(voice)?),
        "silent" => Box::new(Silent {
            sample_rate: rate,
            ms_per_char: 60,
        }),
        other => {
            bail!("TTS_BACKEND={other:?} is not supported (use kokoro, espeak, openai or silent)")
        }
    };
    Ok(backend)
}

/// Turns text into audio for a speaker.
pub trait TtsBackend: Send {
    fn name(&self) -> &'static str;
    fn synthesize(&mut self, speaker: &str, text: &str) -> eyre::Result<Pcm>;

    /// Stops the call under way from another thread, for a voice whose calls last long
    /// enough to matter (Kokoro's run seconds; espeak-ng's milliseconds).
    fn canceller(&self) -> Option<Box<dyn Fn() + Send + Sync>> {
        None
    }

    /// Lets the next call run after a cancel.
    fn rearm(&mut self) {}

    /// The speakers whose short phrases (answers' openers) are worth voicing ahead while
    /// the voice is idle: a voice slow enough that they would otherwise wait (Kokoro).
    fn speakers_to_prepare(&self) -> Vec<String> {
        Vec::new()
    }
}

/// espeak-ng from the system: `espeak-ng -v VOICE -s SPEED --stdout`, text on stdin.
///
/// Text goes on stdin, never on the command line, so a leading `-` is not an option; no
/// `-m`, so `<...>` is read as words, not SSML. The caller sanitises the rest
/// (`player_core::voice_text`): phoneme escapes `[[...]]`, the embedded-command byte.
pub struct Espeak {
    pub voices: VoiceMap,
    pub speed: u32,
    /// Limit of one call, from spawn to exit; a late call is killed.
    pub timeout: Duration,
}

impl Espeak {
    /// espeak-ng with the voices of `voice_map` and `ESPEAK_SPEED`; fails at start when
    /// espeak-ng is missing, not at the first sentence.
    ///
    /// Entries written for Kokoro (`tutor=jf_alpha`, blends) are left to the rotation, so
    /// that a dataflow's Kokoro voices still give distinct espeak-ng voices when espeak-ng
    /// speaks instead (`TTS_BACKEND=espeak`, or the model missing); `espeak:VOICE` entries
    /// are espeak-ng's `VOICE`.
    pub fn open(voice: &VoiceSettings, voice_map: &str) -> eyre::Result<Self> {
        espeak::check_installed()?;
        let (own, kokoro) = espeak_entries(voice_map);
        if !kokoro.is_empty() {
            tracing::info!(
                entries = kokoro.join(", "),
                "VOICE_MAP names Kokoro voices: espeak-ng gives these speakers voices in turn"
            );
        }
        Ok(Self {
            voices: VoiceMap::parse(&own, ESPEAK_VOICES)?,
            speed: voice.espeak_speed,
            timeout: voice.timeout,
        })
    }
}

impl Espeak {
    /// `text` in espeak-ng's `voice`.
    pub fn speak(&self, voice: &str, text: &str) -> eyre::Result<Pcm> {
        let speed = self.speed.to_string();
        let wav = espeak::run(&["-v", voice, "-s", &speed, "--stdout"], text, self.timeout)
            .with_context(|| format!("voice {voice:?}"))?;
        decode_wav(&wav).context("espeak-ng sent no readable WAV")
    }
}

impl TtsBackend for Espeak {
    fn name(&self) -> &'static str {
        "espeak"
    }

    fn synthesize(&mut self, speaker: &str, text: &str) -> eyre::Result<Pcm> {
        let voice = self.voices.voice_for(speaker);
        self.speak(&voice, text)
    }
}

/// `VOICE_MAP` split into espeak-ng's entries (`espeak:` prefix removed) and those that
/// name Kokoro voices (their names have `_`, blends `*` and speeds `@`; espeak-ng's never).
fn espeak_entries(voice_map: &str) -> (String, Vec<String>) {
    let mut own = Vec::new();
    let mut kokoro = Vec::new();
    for entry in voice_map
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
    {
        let Some((who, voice)) = entry.split_once('=') else {
            // Left for VoiceMap::parse to refuse with its own message.
            own.push(entry.to_owned());
            continue;
        };
        let voice = voice.trim();
        match voice.strip_prefix("espeak:") {
            Some(espeak_voice) => own.push(format!("{}={espeak_voice}", who.trim())),
            None if voice.contains(['_', '*', '@']) || voice.starts_with("kokoro:") => {
                kokoro.push(entry.to_owned())
            }
            None => own.push(entry.to_owned()),
        }
    }
    (own.join(", "), kokoro)
}

/// The embedded Kokoro-82M model: a voice (or blend) per participant, `VOICE_MAP` first
/// (`tutor=jf_alpha, student1=jm_kumo@1.1`), then [`KOKORO_VOICES`] in turn. A voice
/// written `espeak:VOICE` is espeak-ng's (`moderator=espeak:cmn` speaks Mandarin, which
/// the packaged voices do not).
pub struct KokoroVoices {
    kokoro: Kokoro,
    voices: VoiceMap,
    espeak: Espeak,
}

impl KokoroVoices {
    /// The model loaded from `files` with `TTS_THREADS` threads (default 1) and phonemes
    /// in `KOKORO_LANGUAGE` (espeak-ng's `en-us` by default); every voice of `VOICE_MAP`
    /// is checked now, not when its speaker first talks.
    pub fn open(files: &KokoroFiles, voice: &VoiceSettings) -> eyre::Result<Self> {
        espeak::check_installed()?;
        let mut kokoro = Kokoro::load(files, voice.threads, &voice.kokoro_language)?;
        let voices = VoiceMap::parse(&voice.voice_map, KOKORO_VOICES)?;
        for (speaker, spec) in voices.fixed() {
            if !spec.starts_with("espeak:") {
                kokoro
                    .voice(spec)
                    .with_context(|| format!("VOICE_MAP's voice for {speaker}"))?;
            }
        }
        Ok(Self {
            kokoro,
            voices,
            espeak: Espeak::open(voice, "")?,
        })
    }
}

impl TtsBackend for KokoroVoices {
    fn name(&self) -> &'static str {
        "kokoro"
    }

    fn synthesize(&mut self, speaker: &str, text: &str) -> eyre::Result<Pcm> {
        let spec = self.voices.voice_for(speaker);
        if let Some(voice) = spec.strip_prefix("espeak:") {
            return self.espeak.speak(voice, text);
        }
        let voice = self.kokoro.voice(&spec)?;
        let mut pcm = self.kokoro.synthesize(&voice, text)?;
        speech_synth::kokoro::trim_for_playback(&mut pcm, text_segmenter::ends_sentence(text));
        Ok(pcm)
    }

    fn canceller(&self) -> Option<Box<dyn Fn() + Send + Sync>> {
        let cancel = self.kokoro.canceller();
        Some(Box::new(move || cancel.cancel()))
    }

    fn rearm(&mut self) {
        self.kokoro.rearm();
    }

    fn speakers_to_prepare(&self) -> Vec<String> {
        self.voices
            .fixed()
            .filter(|(_, spec)| !spec.starts_with("espeak:"))
            .map(|(speaker, _)| speaker.to_owned())
            .collect()
    }
}

/// Any OpenAI-compatible `/audio/speech` service, asked for WAV.
pub struct OpenAiSpeech {
    client: BlockingClient,
    model: String,
    voices: VoiceMap,
}

impl OpenAiSpeech {
    /// The service of `TTS_BASE_URL`, `TTS_MODEL` (`tts-1`) and the key in the variable
    /// `TTS_API_KEY_ENV` names, with the voices of `VOICE_MAP`; each call bounded by
    /// `timeout`.
    pub fn open(voice: &VoiceSettings) -> eyre::Result<Self> {
        let settings = ServiceSettings::from_env("TTS", "speech service");
        let model = settings.model.clone().unwrap_or_else(|| "tts-1".to_owned());
        let voices = VoiceMap::parse(&voice.voice_map, OPENAI_VOICES)?;
        Ok(Self {
            client: BlockingClient::new(settings, voice.timeout)?,
            model,
            voices,
        })
    }
}

impl TtsBackend for OpenAiSpeech {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn synthesize(&mut self, speaker: &str, text: &str) -> eyre::Result<Pcm> {
        // The client's errors come redacted; this keeps the whole chain so too.
        let result = self.call(speaker, text);
        result.map_err(|e| eyre::eyre!(self.client.redact(&format!("{e:#}"))))
    }
}

impl OpenAiSpeech {
    fn call(&mut self, speaker: &str, text: &str) -> eyre::Result<Pcm> {
        let body = serde_json::json!({
            "model": self.model,
            "input": text,
            "voice": self.voices.voice_for(speaker),
            "response_format": "wav",
        });
        let bytes = self.client.post_json("audio/speech", &body)?;
        decode_wav(&bytes).context("the speech service did not send WAV audio")
    }
}

/// Silence of a speaking-like length; for tests and machines without a synthesizer.
pub struct Silent {
    pub sample_rate: u32,
    pub ms_per_char: u32,
}

impl TtsBackend for Silent {
    fn name(&self) -> &'static str {
        "silent"
    }

    fn synthesize(&mut self, _speaker: &str, text: &str) -> eyre::Result<Pcm> {
        let ms = text.chars().count() as u64 * u64::from(self.ms_per_char);
        let len = (ms * u64::from(self.sample_rate) / 1000) as usize;
        // A faint tone rather than zeros, so a recording shows where speech was.
        let samples = (0..len).map(|i| ((i as f32) * 0.05).sin() * 0.01).collect();
        Ok(Pcm {
            sample_rate: self.sample_rate,
            samples,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn espeak(timeout: Duration) -> Espeak {
        Espeak {
            voices: VoiceMap::parse("", &["en-us"]).unwrap(),
            speed: 175,
            timeout,
        }
    }

    #[test]
    fn espeak_keeps_its_own_entries_and_leaves_kokoro_voices_to_the_rotation() {
        let (own, kokoro) = espeak_entries(
            "moderator=espeak:cmn, tutor=jf_alpha, ben=en-us+m3, mia=jm_kumo*0.5+jf_alpha*0.5@1.1, bad",
        );
        assert_eq!(own, "moderator=cmn, ben=en-us+m3, bad");
        assert_eq!(
            kokoro,
            ["tutor=jf_alpha", "mia=jm_kumo*0.5+jf_alpha*0.5@1.1"]
        );
        let mut map = VoiceMap::parse(
            &espeak_entries("tutor=jf_alpha, ben=en-us+m3").0,
            ESPEAK_VOICES,
        )
        .unwrap();
        assert_eq!(map.voice_for("ben"), "en-us+m3");
        assert_eq!(map.voice_for("tutor"), ESPEAK_VOICES[0]);
    }

    /// Text larger than a pipe buffer once made espeak-ng and the player wait on each
    /// other for good (stdin written in full before stdout was read). Now the pipes are
    /// served together and the whole call is timed: it ends, with audio or an error.
    #[test]
    fn a_text_larger_than_a_pipe_cannot_wedge_espeak() {
        if espeak::check_installed().is_err() {
            eprintln!("espeak-ng is not installed; skipped");
            return;
        }
        // 100 KB of words: far more than a pipe holds, far more than 2 s of synthesis.
        let text = "the quick brown fox jumps over the lazy dog. ".repeat(2_300);
        let error = espeak(Duration::from_secs(2))
            .synthesize("tutor", &text)
            .expect_err("minutes of speech cannot be made in 2 s");
        assert!(format!("{error:#}").contains("did not finish"), "{error:#}");

        // A few kilobytes (more than the old write-then-read order survived for its
        // audio) come back whole.
        let text = "Concurrent pipes keep espeak moving. ".repeat(40);
        let pcm = espeak(Duration::from_secs(60))
            .synthesize("tutor", &text)
            .unwrap();
        assert!(pcm.samples.len() > pcm.sample_rate as usize * 10);
    }
}

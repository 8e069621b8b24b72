//! The human's voice: every line's clip prepared up front (so a line sounds the moment it
//! is due), and a continuous stream of blocks, silent between lines.

use std::time::{Duration, Instant};

use audio_utils::room::Room;
use audio_utils::{Pcm, decode_wav, resample};
use eyre::Context;
use human_script::ScriptLine;

use crate::settings::VoiceSettings;
use speech_synth::{Kokoro, KokoroFiles, Voice as KokoroVoice, espeak};

pub struct Voice {
    rate: u32,
    block_len: usize,
    block_time: Duration,
    clips: Vec<Vec<f32>>,
    blocks_sent: u32,
    /// The line being spoken and how far.
    playing: Option<(usize, usize)>,
}

impl Voice {
    pub fn prepare(lines: &[ScriptLine], settings: VoiceSettings) -> eyre::Result<Self> {
        let VoiceSettings {
            rate,
            block_ms,
            voice,
        } = settings;
        let mut speaker = Speaker::named(voice)?;
        let mut clips = Vec::with_capacity(lines.len());
        for line in lines {
            let mut clip = Vec::new();
            for (i, part) in line.parts.iter().enumerate() {
                if i > 0 {
                    let pause = u64::from(rate) * human_script::MID_LINE_PAUSE_MS / 1000;
                    clip.extend(std::iter::repeat_n(0.0, pause as usize));
                }
                let pcm = voice_of(&mut speaker, part)?;
                let voice = resample(&pcm.samples, pcm.sample_rate, rate);
                // Between the parts of a line the pause is what the script says: not
                // lengthened by the voice's own lead-in and tail.
                if line.parts.len() > 1 {
                    clip.extend(audio_utils::trim_silence(&voice, rate, VOICE_LEVEL));
                } else {
                    clip.extend(voice);
                }
            }
            clips.push(clip);
        }
        tracing::info!(lines = clips.len(), rate, "the human's voice is ready");
        Ok(Self {
            rate,
            block_len: (u64::from(rate) * block_ms / 1000) as usize,
            block_time: Duration::from_millis(block_ms),
            clips,
            blocks_sent: 0,
            playing: None,
        })
    }

    /// The stream's sample rate.
    /// The simulated room this voice's microphone is in: what the player plays comes
    /// back `delay_ms` later, `gain_db` weaker.
    pub fn room(&self, (delay_ms, gain_db): (u32, f32)) -> Option<Room> {
        tracing::info!(
            delay_ms,
            gain_db,
            "the player's voice comes back through the room"
        );
        Some(Room::new(self.rate(), delay_ms, gain_db))
    }

    pub fn rate(&self) -> u32 {
        self.rate
    }

    /// The lines, each lasting as long as its clip.
    pub fn timed(&self, mut lines: Vec<ScriptLine>) -> Vec<ScriptLine> {
        for (line, clip) in lines.iter_mut().zip(&self.clips) {
            line.speak_ms = Some(clip.len() as u64 * 1000 / u64::from(self.rate));
        }
        lines
    }

    pub fn speak(&mut self, line: usize) {
        if line < self.clips.len() {
            self.playing = Some((line, 0));
        }
    }

    /// When the next block is due (blocks go out in real time from `start`).
    pub fn next_block_at(&self, start: Instant) -> Instant {
        start + self.block_time * self.blocks_sent
    }

    /// The next block of the stream, and its sample rate.
    pub fn next_block(&mut self) -> (u32, Vec<f32>) {
        let mut block = vec![0.0f32; self.block_len];
        if let Some((line, position)) = self.playing.as_mut() {
            let clip = &self.clips[*line];
            let n = (clip.len() - *position).min(self.block_len);
            block[..n].copy_from_slice(&clip[*position..*position + n]);
            *position += n;
            if *position >= clip.len() {
                self.playing = None;
            }
        }
        self.blocks_sent += 1;
        (self.rate, block)
    }
}

/// A stretch of a line as audio: a `.wav` path, or words in the speaker's voice.
fn voice_of(speaker: &mut Speaker, text: &str) -> eyre::Result<Pcm> {
    if text.ends_with(".wav") {
        return Ok(decode_wav(
            &std::fs::read(text).with_context(|| format!("cannot read {text}"))?,
        )?);
    }
    match speaker.speak(text) {
        Ok(pcm) => Ok(pcm),
        // A machine busy loading every model at start can starve one synthesis call past
        // its deadline: once more before the human gives up.
        Err(first) => {
            tracing::warn!(error = %first, "the human's line was not voiced; trying once more");
            speaker.speak(text)
        }
    }
}

/// The level under which a voice's lead-in and tail count as silence (the ASR bridge's
/// default speech level).
const VOICE_LEVEL: f32 = 0.02;

/// espeak-ng's voice when `HUMAN_VOICE` names none, or Kokoro is not installed.
const ESPEAK_VOICE: &str = "en-us+m7";

/// Who speaks the human's lines: `HUMAN_VOICE` = `kokoro:VOICE` (a Kokoro voice or blend,
/// `kokoro:jm_kumo*0.5+jf_nezumi*0.5`) or an espeak-ng voice (default `en-us+m7`).
enum Speaker {
    Espeak(String),
    Kokoro(Box<Kokoro>, KokoroVoice),
}

impl Speaker {
    fn named(voice: Option<String>) -> eyre::Result<Self> {
        let wanted = voice.unwrap_or_else(|| ESPEAK_VOICE.to_owned());
        let Some(spec) = wanted.strip_prefix("kokoro:") else {
            return Ok(Self::Espeak(wanted));
        };
        let files = KokoroFiles::from_env()?;
        if let Some(missing) = files.missing() {
            tracing::warn!(
                missing = %missing.display(),
                "the Kokoro voice is not installed (run scripts/setup.sh): the human speaks with espeak-ng instead"
            );
            return Ok(Self::Espeak(ESPEAK_VOICE.to_owned()));
        }
        let mut kokoro = Kokoro::load(&files, 1, "en-us")?;
        let voice = kokoro
            .voice(spec)
            .with_context(|| format!("HUMAN_VOICE={wanted:?}"))?;
        Ok(Self::Kokoro(Box::new(kokoro), voice))
    }

    fn speak(&mut self, text: &str) -> eyre::Result<Pcm> {
        match self {
            Self::Espeak(voice) => {
                let wav = espeak::run(&["-v", voice, "--stdout"], text, Duration::from_secs(30))
                    .with_context(|| format!("the human's line {text:?}"))?;
                Ok(decode_wav(&wav)?)
            }
            Self::Kokoro(kokoro, voice) => kokoro
                .synthesize(voice, text)
                .with_context(|| format!("the human's line {text:?}")),
        }
    }
}

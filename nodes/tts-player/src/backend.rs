//! Speech synthesis backends behind one trait.

use std::{
    collections::HashMap,
    io::Write,
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use audio_utils::{Pcm, decode_wav};
use eyre::{Context, bail};

/// Turns text into audio for a speaker.
pub trait TtsBackend: Send {
    fn name(&self) -> &'static str;
    fn synthesize(&mut self, speaker: &str, text: &str) -> eyre::Result<Pcm>;
}

/// Distinct voices per participant: `VOICE_MAP` entries first, then a rotation.
#[derive(Debug, Clone)]
pub struct VoiceMap {
    fixed: HashMap<String, String>,
    rotation: Vec<String>,
    assigned: HashMap<String, String>,
}

impl VoiceMap {
    /// Parses `tutor=en-us+f3, student1=en-us+m3`.
    pub fn parse(spec: &str, rotation: &[&str]) -> eyre::Result<Self> {
        let mut fixed = HashMap::new();
        for entry in spec.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let Some((who, voice)) = entry.split_once('=') else {
                bail!("VOICE_MAP entry {entry:?} is not `speaker=voice`");
            };
            fixed.insert(who.trim().to_owned(), voice.trim().to_owned());
        }
        Ok(Self {
            fixed,
            rotation: rotation.iter().map(|v| v.to_string()).collect(),
            assigned: HashMap::new(),
        })
    }

    pub fn voice_for(&mut self, speaker: &str) -> String {
        if let Some(voice) = self.fixed.get(speaker) {
            return voice.clone();
        }
        let next = self.assigned.len() % self.rotation.len().max(1);
        let voice = self.rotation.get(next).cloned().unwrap_or_default();
        self.assigned
            .entry(speaker.to_owned())
            .or_insert(voice)
            .clone()
    }
}

/// espeak-ng from the system: `espeak-ng -v VOICE -s SPEED --stdout`, text on stdin.
pub struct Espeak {
    pub voices: VoiceMap,
    pub speed: u32,
    pub timeout: Duration,
}

impl Espeak {
    /// Fails at start when espeak-ng is missing, not at the first sentence.
    pub fn check_installed() -> eyre::Result<()> {
        let status = Command::new("espeak-ng")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        match status {
            Ok(s) if s.success() => Ok(()),
            _ => bail!("espeak-ng is not installed (run scripts/setup.sh, or set TTS_BACKEND)"),
        }
    }
}

impl TtsBackend for Espeak {
    fn name(&self) -> &'static str {
        "espeak"
    }

    fn synthesize(&mut self, speaker: &str, text: &str) -> eyre::Result<Pcm> {
        let voice = self.voices.voice_for(speaker);
        let mut child = Command::new("espeak-ng")
            .args(["-v", &voice, "-s", &self.speed.to_string(), "--stdout"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("cannot run espeak-ng")?;
        child
            .stdin
            .take()
            .expect("piped stdin")
            .write_all(text.as_bytes())
            .context("cannot send text to espeak-ng")?;
        let mut stdout = child.stdout.take().expect("piped stdout");
        let reader = std::thread::spawn(move || {
            let mut buf = Vec::new();
            std::io::Read::read_to_end(&mut stdout, &mut buf).map(|_| buf)
        });
        let start = Instant::now();
        loop {
            if child.try_wait()?.is_some() {
                break;
            }
            if start.elapsed() > self.timeout {
                let _ = child.kill();
                bail!("espeak-ng did not finish within {:?}", self.timeout);
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let status = child.wait()?;
        let bytes = reader
            .join()
            .map_err(|_| eyre::eyre!("reader thread failed"))??;
        if !status.success() {
            bail!("espeak-ng failed ({status}) for voice {voice:?}");
        }
        Ok(decode_wav(&bytes)?)
    }
}

/// Any OpenAI-compatible `/audio/speech` service, asked for WAV.
pub struct OpenAiSpeech {
    pub url: String,
    pub model: String,
    pub api_key: Option<String>,
    pub voices: VoiceMap,
    pub client: reqwest::blocking::Client,
}

impl TtsBackend for OpenAiSpeech {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn synthesize(&mut self, speaker: &str, text: &str) -> eyre::Result<Pcm> {
        let body = serde_json::json!({
            "model": self.model,
            "input": text,
            "voice": self.voices.voice_for(speaker),
            "response_format": "wav",
        });
        let mut request = self
            .client
            .post(&self.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string());
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let response = request.send().map_err(|e| {
            let mut e = e.to_string();
            if let Some(i) = e.find(" for url (") {
                e.truncate(i);
            }
            eyre::eyre!("cannot reach the speech service at {}: {e}", self.url)
        })?;
        let status = response.status();
        let bytes = response
            .bytes()
            .context("the speech service's answer broke off")?;
        if !status.is_success() {
            bail!(
                "the speech service answered HTTP {status}: {}",
                voice_protocol::shorten(&String::from_utf8_lossy(&bytes))
            );
        }
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

    #[test]
    fn voice_map_is_fixed_then_rotating() {
        let mut map = VoiceMap::parse("tutor=en-us+f3", &["a", "b"]).unwrap();
        assert_eq!(map.voice_for("tutor"), "en-us+f3");
        assert_eq!(map.voice_for("ben"), "a");
        assert_eq!(map.voice_for("mia"), "b");
        assert_eq!(map.voice_for("ben"), "a");
        assert!(VoiceMap::parse("oops", &["a"]).is_err());
    }
}

//! Speech synthesis backends behind one trait.

use std::{
    io::{Read, Write},
    process::{Child, Command, ExitStatus, Stdio},
    time::{Duration, Instant},
};

use audio_utils::{Pcm, decode_wav};
use eyre::{Context, bail};
use player_core::voices::{ESPEAK_VOICES, OPENAI_VOICES, VoiceMap};

/// The voice `TTS_BACKEND` names (`espeak`, the default; `openai`; `silent`), set up from
/// its environment.
pub fn from_env(rate: u32, timeout: Duration) -> eyre::Result<Box<dyn TtsBackend>> {
    let backend: Box<dyn TtsBackend> = match node_kit::env_opt("TTS_BACKEND")
        .as_deref()
        .unwrap_or("espeak")
    {
        "espeak" => {
            Espeak::check_installed()?;
            Box::new(Espeak {
                voices: VoiceMap::parse(
                    &node_kit::env_opt("VOICE_MAP").unwrap_or_default(),
                    ESPEAK_VOICES,
                )?,
                speed: node_kit::env_parse("ESPEAK_SPEED", 175)?,
                timeout,
            })
        }
        "openai" => {
            let key_env =
                node_kit::env_opt("TTS_API_KEY_ENV").unwrap_or_else(|| "OPENAI_API_KEY".to_owned());
            let base = node_kit::env_opt("TTS_BASE_URL")
                .unwrap_or_else(|| "https://api.openai.com/v1".to_owned());
            let api_key = node_kit::env_opt(&key_env);
            Box::new(OpenAiSpeech {
                url: format!("{}/audio/speech", base.trim_end_matches('/')),
                model: node_kit::env_opt("TTS_MODEL").unwrap_or_else(|| "tts-1".to_owned()),
                redactor: voice_protocol::Redactor::new(api_key.as_deref(), &base),
                api_key,
                voices: VoiceMap::parse(
                    &node_kit::env_opt("VOICE_MAP").unwrap_or_default(),
                    OPENAI_VOICES,
                )?,
                client: reqwest::blocking::Client::builder()
                    .timeout(timeout)
                    .build()?,
            })
        }
        "silent" => Box::new(Silent {
            sample_rate: rate,
            ms_per_char: 60,
        }),
        other => bail!("TTS_BACKEND={other:?} is not supported (use espeak, openai or silent)"),
    };
    Ok(backend)
}

/// Turns text into audio for a speaker.
pub trait TtsBackend: Send {
    fn name(&self) -> &'static str;
    fn synthesize(&mut self, speaker: &str, text: &str) -> eyre::Result<Pcm>;
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

/// The most of espeak-ng's stderr kept for an error message.
const STDERR_KEPT: usize = 2_000;

/// How long a killed espeak-ng may take to be reaped before it is left behind.
const REAP_GRACE: Duration = Duration::from_secs(2);

impl Espeak {
    /// Fails at start when espeak-ng is missing, not at the first sentence.
    pub fn check_installed() -> eyre::Result<()> {
        let status = Command::new("espeak-ng")
            .arg("--version")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        match status {
            Ok(s) if s.success() => Ok(()),
            _ => bail!("espeak-ng is not installed (run scripts/setup.sh, or set TTS_BACKEND)"),
        }
    }
}

/// What the helper threads of one espeak-ng call report.
enum Piped {
    Written(std::io::Result<()>),
    Stdout(std::io::Result<Vec<u8>>),
    Stderr(String),
}

impl TtsBackend for Espeak {
    fn name(&self) -> &'static str {
        "espeak"
    }

    fn synthesize(&mut self, speaker: &str, text: &str) -> eyre::Result<Pcm> {
        let voice = self.voices.voice_for(speaker);
        let deadline = Instant::now() + self.timeout;
        let mut child = Command::new("espeak-ng")
            .args(["-v", &voice, "-s", &self.speed.to_string(), "--stdout"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("cannot run espeak-ng")?;
        // espeak-ng writes audio while it still reads text: stdin, stdout and stderr are
        // served at the same time, or a long text fills one pipe while the other waits.
        let (tx, rx) = crossbeam_channel::bounded(3);
        let mut stdin = child.stdin.take().expect("piped stdin");
        let mut stdout = child.stdout.take().expect("piped stdout");
        let mut stderr = child.stderr.take().expect("piped stderr");
        let bytes = text.as_bytes().to_vec();
        let writer = tx.clone();
        std::thread::spawn(move || {
            // Dropping stdin afterwards closes it: espeak-ng speaks once it sees the end.
            let _ = writer.send(Piped::Written(stdin.write_all(&bytes)));
        });
        let reader = tx.clone();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = reader.send(Piped::Stdout(stdout.read_to_end(&mut buf).map(|_| buf)));
        });
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let _ = (&mut stderr)
                .take(STDERR_KEPT as u64)
                .read_to_end(&mut kept);
            // Drain the rest so espeak-ng never blocks on a full stderr.
            let _ = std::io::copy(&mut stderr, &mut std::io::sink());
            let _ = tx.send(Piped::Stderr(
                String::from_utf8_lossy(&kept).trim().to_owned(),
            ));
        });

        let Some(status) = wait_until(&mut child, deadline)? else {
            let _ = child.kill();
            let _ = wait_until(&mut child, Instant::now() + REAP_GRACE);
            bail!(
                "espeak-ng did not finish within {:?} for voice {voice:?} ({} characters); killed",
                self.timeout,
                text.chars().count()
            );
        };
        // The pipes close when espeak-ng exits; still, never wait past the deadline.
        let (mut written, mut audio, mut errors) = (None, None, None);
        while written.is_none() || audio.is_none() || errors.is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(Piped::Written(r)) => written = Some(r),
                Ok(Piped::Stdout(r)) => audio = Some(r),
                Ok(Piped::Stderr(e)) => errors = Some(e),
                Err(_) => bail!(
                    "espeak-ng exited but its pipes stayed open past {:?}",
                    self.timeout
                ),
            }
        }
        let errors = errors.unwrap_or_default();
        if !status.success() {
            bail!("espeak-ng failed ({status}) for voice {voice:?}: {errors}");
        }
        written
            .expect("received above")
            .context("espeak-ng did not read all of its text")?;
        let bytes = audio
            .expect("received above")
            .context("cannot read espeak-ng's audio")?;
        decode_wav(&bytes).with_context(|| format!("espeak-ng sent no readable WAV: {errors}"))
    }
}

/// The child's exit status, or `None` when it is still running at `deadline`.
fn wait_until(child: &mut Child, deadline: Instant) -> eyre::Result<Option<ExitStatus>> {
    loop {
        if let Some(status) = child.try_wait().context("cannot wait for espeak-ng")? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Any OpenAI-compatible `/audio/speech` service, asked for WAV.
pub struct OpenAiSpeech {
    pub url: String,
    pub model: String,
    pub api_key: Option<String>,
    pub voices: VoiceMap,
    pub client: reqwest::blocking::Client,
    /// Keeps the key and the URL's credentials out of every error message.
    pub redactor: voice_protocol::Redactor,
}

impl TtsBackend for OpenAiSpeech {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn synthesize(&mut self, speaker: &str, text: &str) -> eyre::Result<Pcm> {
        // A service may quote the key back (a 401 body): never pass it on.
        let result = self.call(speaker, text);
        result.map_err(|e| eyre::eyre!(self.redactor.redact(&format!("{e:#}"))))
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

    fn espeak(timeout: Duration) -> Espeak {
        Espeak {
            voices: VoiceMap::parse("", &["en-us"]).unwrap(),
            speed: 175,
            timeout,
        }
    }

    /// Text larger than a pipe buffer once made espeak-ng and the player wait on each
    /// other for good (stdin written in full before stdout was read). Now the pipes are
    /// served together and the whole call is timed: it ends, with audio or an error.
    #[test]
    fn a_text_larger_than_a_pipe_cannot_wedge_espeak() {
        if Espeak::check_installed().is_err() {
            eprintln!("espeak-ng is not installed; skipped");
            return;
        }
        // 100 KB of words: far more than a pipe holds, far more than 2 s of synthesis.
        let text = "the quick brown fox jumps over the lazy dog. ".repeat(2_300);
        let error = espeak(Duration::from_secs(2))
            .synthesize("tutor", &text)
            .expect_err("minutes of speech cannot be made in 2 s");
        assert!(error.to_string().contains("did not finish"), "{error:#}");

        // A few kilobytes (more than the old write-then-read order survived for its
        // audio) come back whole.
        let text = "Concurrent pipes keep espeak moving. ".repeat(40);
        let pcm = espeak(Duration::from_secs(60))
            .synthesize("tutor", &text)
            .unwrap();
        assert!(pcm.samples.len() > pcm.sample_rate as usize * 10);
    }
}

//! Speech recognizers behind one trait.

use std::{
    process::{Command, Stdio},
    time::Duration,
};

use audio_utils::{Pcm, encode_wav, resample};
use eyre::{Context, bail};

pub trait Recognizer: Send {
    fn name(&self) -> &'static str;
    fn transcribe(&mut self, audio: &Pcm) -> eyre::Result<String>;
}

/// Debian's pocketsphinx with the en-us model, run on a 16 kHz WAV file.
pub struct Pocketsphinx {
    program: &'static str,
}

impl Pocketsphinx {
    /// Finds the command-line recognizer (0.8: `pocketsphinx_continuous`; 5.x: `pocketsphinx`).
    pub fn find() -> eyre::Result<Self> {
        for program in ["pocketsphinx_continuous", "pocketsphinx"] {
            let found = Command::new("sh")
                .args(["-c", &format!("command -v {program}")])
                .stdout(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if found {
                return Ok(Self { program });
            }
        }
        bail!("pocketsphinx is not installed (run scripts/setup.sh, or set ASR_BACKEND=openai)")
    }
}

impl Recognizer for Pocketsphinx {
    fn name(&self) -> &'static str {
        "pocketsphinx"
    }

    fn transcribe(&mut self, audio: &Pcm) -> eyre::Result<String> {
        let pcm = Pcm {
            sample_rate: 16_000,
            samples: resample(&audio.samples, audio.sample_rate, 16_000),
        };
        let path =
            std::env::temp_dir().join(format!("asr-{}-{}.wav", std::process::id(), unique()));
        std::fs::write(&path, encode_wav(&pcm))
            .context("cannot write the utterance for pocketsphinx")?;
        let output = if self.program == "pocketsphinx_continuous" {
            Command::new(self.program)
                .arg("-infile")
                .arg(&path)
                .args(["-logfn", "/dev/null"])
                .output()
        } else {
            Command::new(self.program).arg("single").arg(&path).output()
        };
        let _ = std::fs::remove_file(&path);
        let output = output.context("cannot run pocketsphinx")?;
        if !output.status.success() {
            bail!("pocketsphinx failed ({})", output.status);
        }
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        // 5.x prints JSON lines with a "t" field; 0.8 prints the hypothesis.
        let text = text
            .lines()
            .map(|line| {
                serde_json::from_str::<serde_json::Value>(line)
                    .ok()
                    .and_then(|v| v["t"].as_str().map(str::to_owned))
                    .unwrap_or_else(|| line.to_owned())
            })
            .collect::<Vec<_>>()
            .join(" ");
        Ok(text.trim().to_owned())
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::SeqCst)
}

/// Any OpenAI-compatible `/audio/transcriptions` service (OpenAI, faster-whisper-server,
/// whisper.cpp's server).
pub struct OpenAiTranscriber {
    pub url: String,
    pub model: String,
    pub api_key: Option<String>,
    pub client: reqwest::blocking::Client,
    /// Keeps the key and the URL's credentials out of every error message.
    pub redactor: voice_protocol::Redactor,
}

impl OpenAiTranscriber {
    pub fn new(
        base_url: &str,
        model: String,
        api_key: Option<String>,
        timeout: Duration,
    ) -> eyre::Result<Self> {
        Ok(Self {
            url: format!("{}/audio/transcriptions", base_url.trim_end_matches('/')),
            model,
            redactor: voice_protocol::Redactor::new(api_key.as_deref(), base_url),
            api_key,
            client: reqwest::blocking::Client::builder()
                .timeout(timeout)
                .build()?,
        })
    }
}

impl Recognizer for OpenAiTranscriber {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn transcribe(&mut self, audio: &Pcm) -> eyre::Result<String> {
        // A service may quote the key back (a 401 body): never pass it on.
        self.call(audio)
            .map_err(|e| eyre::eyre!(self.redactor.redact(&format!("{e:#}"))))
    }
}

impl OpenAiTranscriber {
    fn call(&self, audio: &Pcm) -> eyre::Result<String> {
        let wav = encode_wav(audio);
        let form = reqwest::blocking::multipart::Form::new()
            .text("model", self.model.clone())
            .text("response_format", "json")
            .part(
                "file",
                reqwest::blocking::multipart::Part::bytes(wav)
                    .file_name("speech.wav")
                    .mime_str("audio/wav")?,
            );
        let mut request = self.client.post(&self.url).multipart(form);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let response = request.send().map_err(|e| {
            eyre::eyre!(
                "cannot reach the transcription service at {}: {}",
                self.url,
                strip_url(&e)
            )
        })?;
        let status = response.status();
        let body = response.text().unwrap_or_default();
        if !status.is_success() {
            bail!(
                "the transcription service answered HTTP {status}: {}",
                voice_protocol::shorten(&body)
            );
        }
        let value: serde_json::Value = serde_json::from_str(&body).map_err(|_| {
            eyre::eyre!(
                "the transcription service sent no JSON: {}",
                voice_protocol::shorten(&body)
            )
        })?;
        match value["text"].as_str() {
            Some(text) => Ok(text.trim().to_owned()),
            None => bail!(
                "the transcription has no `text`: {}",
                voice_protocol::shorten(&body)
            ),
        }
    }
}

fn strip_url(e: &reqwest::Error) -> String {
    let mut e = e.to_string();
    if let Some(i) = e.find(" for url (") {
        e.truncate(i);
    }
    e
}

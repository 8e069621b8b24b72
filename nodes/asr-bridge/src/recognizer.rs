//! Speech recognizers behind one trait.

use std::{
    process::{Command, Stdio},
    time::Duration,
};

use audio_utils::{Pcm, encode_wav, resample};
use eyre::{Context, bail};
use service_client::{BlockingClient, ServiceSettings, multipart};

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
    client: BlockingClient,
    model: String,
}

impl OpenAiTranscriber {
    /// The service of `ASR_BASE_URL`, `ASR_MODEL` (`whisper-1`) and the key in the variable
    /// `ASR_API_KEY_ENV` names; each call bounded by `timeout`.
    pub fn from_env(timeout: Duration) -> eyre::Result<Self> {
        Self::new(
            ServiceSettings::from_env("ASR", "transcription service"),
            timeout,
        )
    }

    pub fn new(settings: ServiceSettings, timeout: Duration) -> eyre::Result<Self> {
        let model = settings
            .model
            .clone()
            .unwrap_or_else(|| "whisper-1".to_owned());
        Ok(Self {
            client: BlockingClient::new(settings, timeout)?,
            model,
        })
    }
}

impl Recognizer for OpenAiTranscriber {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn transcribe(&mut self, audio: &Pcm) -> eyre::Result<String> {
        // The client's errors come redacted; this keeps the answer's own quotes so too.
        self.call(audio)
            .map_err(|e| eyre::eyre!(self.client.redact(&format!("{e:#}"))))
    }
}

impl OpenAiTranscriber {
    fn call(&self, audio: &Pcm) -> eyre::Result<String> {
        let wav = encode_wav(audio);
        let form = multipart::Form::new()
            .text("model", self.model.clone())
            .text("response_format", "json")
            .part(
                "file",
                multipart::Part::bytes(wav)
                    .file_name("speech.wav")
                    .mime_str("audio/wav")?,
            );
        let body = self.client.post_multipart("audio/transcriptions", form)?;
        let body = String::from_utf8_lossy(&body);
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

//! Where rendered audio goes: the session recording (always) and the sound device (when
//! there is one).

use std::{
    fs::{File, OpenOptions},
    io::{BufWriter, Write},
    path::Path,
    process::{Child, ChildStdin, Command, Stdio},
    time::{Duration, Instant},
};

use audio_utils::to_i16;
use eyre::Context;
use player_core::TimelineRecord;

/// `conversation.wav` (what a listener heard, gaps included) and `timeline.jsonl`.
pub struct Recording {
    dir: std::path::PathBuf,
    wav: hound::WavWriter<BufWriter<File>>,
    timeline: File,
    last_flush: Instant,
}

impl Recording {
    /// Opens the session's recording. A `conversation.wav` already there (this run's
    /// player before a restart) is continued, not truncated: the samples it holds are
    /// returned, so the restarted player's clock goes on from there. What the killed
    /// player rendered after its last header update (at most a second) is written over.
    pub fn open(dir: &Path, sample_rate: u32) -> eyre::Result<(Self, u64)> {
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let wav_path = dir.join("conversation.wav");
        let (wav, resumed) = match continue_wav(&wav_path, spec) {
            Some((wav, samples)) => {
                tracing::info!(
                    samples,
                    "continuing conversation.wav (the player restarted)"
                );
                (wav, samples)
            }
            None => (
                hound::WavWriter::create(&wav_path, spec)
                    .with_context(|| format!("cannot create {}", wav_path.display()))?,
                0,
            ),
        };
        let timeline_path = dir.join("timeline.jsonl");
        let timeline = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&timeline_path)
            .with_context(|| format!("cannot open {}", timeline_path.display()))?;
        Ok((
            Self {
                dir: dir.to_path_buf(),
                wav,
                timeline,
                last_flush: Instant::now(),
            },
            resumed,
        ))
    }

    pub fn write(&mut self, block: &[f32]) -> eyre::Result<()> {
        for s in block {
            self.wav.write_sample(to_i16(*s))?;
        }
        // Keep the header current about once a second: a crash loses at most that.
        if self.last_flush.elapsed() > Duration::from_secs(1) {
            self.wav.flush()?;
            self.last_flush = Instant::now();
        }
        Ok(())
    }

    pub fn timeline(&mut self, record: &TimelineRecord) -> eyre::Result<()> {
        let line = serde_json::to_string(record)?;
        writeln!(self.timeline, "{line}")?;
        self.timeline.flush()?;
        Ok(())
    }

    /// A clip as heard (clip mode), on the same timeline.
    pub fn timeline_clip(
        &mut self,
        record: &voice_protocol::clips::ClipFinished,
    ) -> eyre::Result<()> {
        let line = serde_json::to_string(record)?;
        writeln!(self.timeline, "{line}")?;
        self.timeline.flush()?;
        Ok(())
    }

    /// Appends a JSON line to another file of the session folder (measurements).
    pub fn note(&mut self, file: &str, record: &serde_json::Value) -> eyre::Result<()> {
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join(file))?;
        writeln!(f, "{record}")?;
        Ok(())
    }

    pub fn finish(self) -> eyre::Result<()> {
        self.wav.finalize()?;
        Ok(())
    }
}

/// A recording of the same format left by this run's player: cut to the samples its
/// header counts (bytes after them were never confirmed) and opened for appending.
fn continue_wav(
    path: &Path,
    spec: hound::WavSpec,
) -> Option<(hound::WavWriter<BufWriter<File>>, u64)> {
    let found = hound::WavReader::open(path).ok()?;
    if found.spec() != spec {
        tracing::warn!(path = %path.display(), "conversation.wav has another format; starting it again");
        return None;
    }
    let samples = u64::from(found.duration());
    drop(found);
    // hound writes a 44-byte header for 16-bit mono; only then is the end of the
    // confirmed samples known, and the unconfirmed bytes after it are cut.
    let mut header = [0u8; 44];
    let plain = File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut header))
        .is_ok()
        && &header[36..40] == b"data";
    if plain {
        OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|f| f.set_len(44 + samples * 2))
            .ok()?;
    }
    let wav = hound::WavWriter::append(path).ok()?;
    Some((wav, samples))
}

/// The sound device through ALSA's `aplay`, with a short buffer so a barge-in is heard
/// at once.
pub struct Device {
    child: Child,
    stdin: ChildStdin,
    bytes: Vec<u8>,
}

impl Device {
    /// `AUDIO_OUTPUT`: `none`, `aplay`, or `auto` (aplay when a sound card exists).
    pub fn open(mode: &str, sample_rate: u32, buffer: Duration) -> eyre::Result<Option<Self>> {
        let wanted = match mode {
            "none" => false,
            "aplay" => true,
            "auto" => has_sound_card(),
            other => eyre::bail!("AUDIO_OUTPUT={other:?} is not one of auto, aplay, none"),
        };
        if !wanted {
            return Ok(None);
        }
        let mut child = Command::new("aplay")
            .args(["-q", "-t", "raw", "-f", "S16_LE", "-c", "1", "-r"])
            .arg(sample_rate.to_string())
            .arg(format!("--buffer-time={}", buffer.as_micros()))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("cannot start aplay (install alsa-utils or set AUDIO_OUTPUT=none)")?;
        let stdin = child.stdin.take().expect("piped stdin");
        Ok(Some(Self {
            child,
            stdin,
            bytes: Vec::new(),
        }))
    }

    /// Returns false once the device went away (then the caller stops using it).
    pub fn write(&mut self, block: &[f32]) -> bool {
        self.bytes.clear();
        for s in block {
            self.bytes.extend_from_slice(&to_i16(*s).to_le_bytes());
        }
        self.stdin.write_all(&self.bytes).is_ok()
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn has_sound_card() -> bool {
    Command::new("aplay")
        .arg("-l")
        .output()
        .map(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("card "))
        .unwrap_or(false)
}

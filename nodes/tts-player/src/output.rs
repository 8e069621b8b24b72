//! Where rendered audio goes: the session recording (always) and the sound device (when
//! there is one).

use std::{
    fs::{File, OpenOptions},
    io::{BufWriter, Write},
    path::Path,
    time::{Duration, Instant},
};

use audio_utils::to_i16;
use eyre::Context;
use player_core::TimelineRecord;

type WavFile = hound::WavWriter<BufWriter<File>>;

/// `conversation.wav` (what a listener heard, gaps included) and `timeline.jsonl`; with a
/// human's microphone wired, `human.wav` on the same clock and, at the end, `mix.wav`
/// (both sides, to listen to).
pub struct Recording {
    dir: std::path::PathBuf,
    spec: hound::WavSpec,
    wav: WavFile,
    timeline: File,
    last_flush: Instant,
    /// `human.wav`, opened when the first microphone sample is final, and the samples it
    /// holds.
    human: Option<(WavFile, u64)>,
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
        // A restarted player goes on with the human's recording too.
        let human = continue_wav(&dir.join(HUMAN_WAV), spec);
        let timeline_path = dir.join("timeline.jsonl");
        let timeline = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&timeline_path)
            .with_context(|| format!("cannot open {}", timeline_path.display()))?;
        Ok((
            Self {
                dir: dir.to_path_buf(),
                spec,
                wav,
                timeline,
                last_flush: Instant::now(),
                human,
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

    /// Samples `human.wav` holds (a restarted player's).
    pub fn human_samples(&self) -> u64 {
        self.human.as_ref().map_or(0, |(_, n)| *n)
    }

    /// Microphone samples made final, silence filling the time before them.
    pub fn write_human(&mut self, heard: &player_core::human::Final) -> eyre::Result<()> {
        if self.human.is_none() {
            let path = self.dir.join(HUMAN_WAV);
            let wav = hound::WavWriter::create(&path, self.spec)
                .with_context(|| format!("cannot create {}", path.display()))?;
            self.human = Some((wav, 0));
        }
        let Some((wav, written)) = self.human.as_mut() else {
            return Ok(());
        };
        while *written < heard.start {
            wav.write_sample(0i16)?;
            *written += 1;
        }
        for s in &heard.samples {
            wav.write_sample(to_i16(*s))?;
        }
        *written += heard.samples.len() as u64;
        wav.flush()?;
        Ok(())
    }

    /// A human's utterance, on the same timeline as the agents'.
    pub fn timeline_human(&mut self, line: &player_core::human::HumanLine) -> eyre::Result<()> {
        let line = serde_json::to_string(line)?;
        writeln!(self.timeline, "{line}")?;
        self.timeline.flush()?;
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
    pub fn note(&mut self, file: &str, record: &impl serde::Serialize) -> eyre::Result<()> {
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join(file))?;
        writeln!(f, "{}", serde_json::to_string(record)?)?;
        Ok(())
    }

    pub fn finish(self) -> eyre::Result<()> {
        self.wav.finalize()?;
        if let Some((human, _)) = self.human {
            human.finalize()?;
            mix(
                &self.dir.join("conversation.wav"),
                &self.dir.join(HUMAN_WAV),
                &self.dir.join(MIX_WAV),
            )?;
        }
        Ok(())
    }
}

const HUMAN_WAV: &str = "human.wav";
const MIX_WAV: &str = "mix.wav";

/// `a` and `b` (16-bit mono of one rate, on one clock) summed into `out`, as long as the
/// longer of them.
fn mix(a: &Path, b: &Path, out: &Path) -> eyre::Result<()> {
    let open = |path: &Path| {
        hound::WavReader::open(path).with_context(|| format!("cannot read {}", path.display()))
    };
    let (mut a, mut b) = (open(a)?, open(b)?);
    let mut writer = hound::WavWriter::create(out, a.spec())
        .with_context(|| format!("cannot create {}", out.display()))?;
    let mut a = a.samples::<i16>();
    let mut b = b.samples::<i16>();
    loop {
        let (x, y) = (a.next().transpose()?, b.next().transpose()?);
        if x.is_none() && y.is_none() {
            break;
        }
        let sum = i32::from(x.unwrap_or(0)) + i32::from(y.unwrap_or(0));
        writer.write_sample(sum.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16)?;
    }
    writer.finalize()?;
    Ok(())
}

/// A recording of the same format left by this run's player: cut to the samples its
/// header counts (bytes after them were never confirmed) and opened for appending.
fn continue_wav(
    path: &Path,
    spec: hound::WavSpec,
) -> Option<(hound::WavWriter<BufWriter<File>>, u64)> {
    let found = hound::WavReader::open(path).ok()?;
    if found.spec() != spec {
        tracing::warn!(path = %path.display(), "the recording there has another format; starting it again");
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

/// The sound device (cpal: ALSA, CoreAudio or WASAPI), with a short buffer so a barge-in
/// is heard at once.
pub struct Device {
    output: sound_device::Output,
}

impl Device {
    /// `AUDIO_OUTPUT`: `none`; `device` (the default output device, an error without
    /// one; `aplay` is the same, its earlier name); or `auto` (the device when there is
    /// one that opens, else record only, with a warning).
    pub fn open(mode: &str, sample_rate: u32, buffer: Duration) -> eyre::Result<Option<Self>> {
        let required = match mode {
            "none" => return Ok(None),
            "device" | "aplay" => true,
            "auto" => false,
            other => eyre::bail!("AUDIO_OUTPUT={other:?} is not one of auto, device, none"),
        };
        if !required && !sound_device::has_sound_card() {
            tracing::info!("no sound card: recording only");
            return Ok(None);
        }
        match sound_device::Output::open(sample_rate, buffer) {
            Ok(output) => Ok(Some(Self { output })),
            Err(e) if required => {
                Err(e.wrap_err("AUDIO_OUTPUT=device: cannot open the sound device"))
            }
            Err(e) => {
                tracing::warn!(error = %e, "no usable sound device: recording only");
                Ok(None)
            }
        }
    }

    /// Returns false once the device went away (then the caller stops using it).
    pub fn write(&mut self, block: &[f32]) -> bool {
        self.output.write(block)
    }
}

//! `conversation.wav` as the check reads it: 16-bit mono samples, addressed by the
//! milliseconds the player's timeline uses.

use std::path::Path;

use eyre::{Context, bail};

/// The loudest sample (16-bit amplitude, 0.8 % of full scale, -42 dBFS) that still counts
/// as silence. The player's own gaps are digital zeros, and espeak-ng's pauses between
/// words and sentences are not: the female voices (`+f3`, `+f4`) leave a residue of up
/// to about 200 there (the male ones zeros), up to about 370 in the first 10 ms as a
/// word decays; the voices' speech peaks in the thousands (18,000 to 27,000 for a
/// sentence). A voice that sounds where it must not is far above this level, and the
/// quiet inside an utterance is below it.
pub const SILENCE_LEVEL: u16 = 256;

/// A recording: its sample rate and samples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audio {
    rate: u32,
    samples: Vec<i16>,
}

impl Audio {
    pub fn new(rate: u32, samples: Vec<i16>) -> Self {
        Self {
            rate: rate.max(1),
            samples,
        }
    }

    /// Reads a 16-bit mono WAV file (the player's recording format).
    pub fn read(path: &Path) -> eyre::Result<Self> {
        let mut reader =
            hound::WavReader::open(path).with_context(|| format!("{}", path.display()))?;
        let spec = reader.spec();
        if spec.channels != 1
            || spec.bits_per_sample != 16
            || spec.sample_format != hound::SampleFormat::Int
        {
            bail!(
                "{}: {spec:?} is not the player's 16-bit mono",
                path.display()
            );
        }
        // A header a crash left behind counts fewer samples than the file holds: those
        // are the ones the player confirmed, and what is read.
        let samples = reader
            .samples::<i16>()
            .collect::<Result<Vec<_>, _>>()
            .with_context(|| format!("{}", path.display()))?;
        Ok(Self::new(spec.sample_rate, samples))
    }

    #[cfg(test)]
    pub(crate) fn samples_for_tests(self) -> Vec<i16> {
        self.samples
    }

    pub fn rate(&self) -> u32 {
        self.rate
    }

    pub fn duration_ms(&self) -> u64 {
        self.samples.len() as u64 * 1000 / u64::from(self.rate)
    }

    /// The first sample at or after `ms` (the player's milliseconds are rounded down, so
    /// a sample it placed at `ms` is never before this one).
    fn index(&self, ms: u64) -> usize {
        ((ms as u128 * u128::from(self.rate) / 1000) as usize).min(self.samples.len())
    }

    fn ms(&self, index: usize) -> u64 {
        index as u64 * 1000 / u64::from(self.rate)
    }

    /// The largest amplitude in `[from_ms, to_ms)`; 0 for an empty range.
    pub fn peak(&self, from_ms: u64, to_ms: u64) -> u16 {
        let (from, to) = (self.index(from_ms), self.index(to_ms));
        if from >= to {
            return 0;
        }
        self.samples[from..to]
            .iter()
            .map(|s| s.unsigned_abs())
            .max()
            .unwrap_or(0)
    }

    /// Whether anything above [`SILENCE_LEVEL`] sounds in `[from_ms, to_ms)`.
    pub fn audible(&self, from_ms: u64, to_ms: u64) -> bool {
        self.peak(from_ms, to_ms) > SILENCE_LEVEL
    }

    /// The first sound above [`SILENCE_LEVEL`] in `[from_ms, to_ms)`: where (ms) and the
    /// loudest sample from there to `to_ms`.
    pub fn first_sound(&self, from_ms: u64, to_ms: u64) -> Option<(u64, u16)> {
        let (from, to) = (self.index(from_ms), self.index(to_ms));
        if from >= to {
            return None;
        }
        let slice = &self.samples[from..to];
        let first = slice
            .iter()
            .position(|s| s.unsigned_abs() > SILENCE_LEVEL)?;
        let peak = slice[first..]
            .iter()
            .map(|s| s.unsigned_abs())
            .max()
            .unwrap_or(0);
        Some((self.ms(from + first), peak))
    }
}

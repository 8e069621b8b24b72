//! Pure audio helpers (mono `f32` samples in −1..1). No devices, no files: bytes in,
//! samples out.

use std::io::Cursor;

pub mod room;
mod stream;
pub use stream::StreamResampler;

/// Mono samples at a sample rate.
#[derive(Debug, Clone, PartialEq)]
pub struct Pcm {
    pub sample_rate: u32,
    pub samples: Vec<f32>,
}

impl Pcm {
    pub fn duration_ms(&self) -> u64 {
        if self.sample_rate == 0 {
            return 0;
        }
        self.samples.len() as u64 * 1000 / u64::from(self.sample_rate)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum AudioError {
    #[error("not a readable WAV file: {0}")]
    Wav(#[from] hound::Error),
    #[error("WAV sample rate 0")]
    ZeroRate,
}

/// Decodes a WAV file (8/16/24/32-bit integer or 32-bit float, any channel count) to mono.
/// A stream whose header has no length (as some tools write to a pipe) is read to its end.
pub fn decode_wav(bytes: &[u8]) -> Result<Pcm, AudioError> {
    let bytes = fix_streamed_header(bytes);
    let reader = hound::WavReader::new(Cursor::new(bytes.as_ref()))?;
    let spec = reader.spec();
    if spec.sample_rate == 0 {
        return Err(AudioError::ZeroRate);
    }
    let channels = usize::from(spec.channels.max(1));
    let interleaved: Vec<f32> = match spec.sample_format {
        hound::SampleFormat::Float => reader.into_samples::<f32>().collect::<Result<_, _>>()?,
        hound::SampleFormat::Int => {
            let scale = 1.0 / (1i64 << (spec.bits_per_sample - 1)) as f32;
            reader
                .into_samples::<i32>()
                .map(|s| s.map(|v| v as f32 * scale))
                .collect::<Result<_, _>>()?
        }
    };
    let samples = interleaved
        .chunks(channels)
        .map(|frame| frame.iter().sum::<f32>() / frame.len() as f32)
        .collect();
    Ok(Pcm {
        sample_rate: spec.sample_rate,
        samples,
    })
}

/// Tools that write WAV to a pipe leave the RIFF and data sizes at 0 or 0xFFFFFFFF;
/// patch them to the real length so the decoder reads everything.
fn fix_streamed_header(bytes: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if bytes.len() < 44 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return bytes.into();
    }
    let mut pos = 12;
    while pos + 8 <= bytes.len() {
        let id = &bytes[pos..pos + 4];
        let size = u32::from_le_bytes(bytes[pos + 4..pos + 8].try_into().expect("4 bytes"));
        if id == b"data" {
            let available = (bytes.len() - pos - 8) as u32;
            if size == 0 || size > available {
                let mut fixed = bytes.to_vec();
                let data_len = available - available % 2;
                fixed[pos + 4..pos + 8].copy_from_slice(&data_len.to_le_bytes());
                let riff = (pos as u32 + 8 + data_len) - 8;
                fixed[4..8].copy_from_slice(&riff.to_le_bytes());
                fixed.truncate(pos + 8 + data_len as usize);
                return fixed.into();
            }
            return bytes.into();
        }
        pos += 8 + size as usize + (size as usize % 2);
    }
    bytes.into()
}

/// Rates the band-limited resampler takes; outside them (a broken file's header) the
/// linear one is used, whose cost does not grow with the ratio.
const RESAMPLER_RATES: std::ops::RangeInclusive<u32> = 4_000..=384_000;

/// The FFT resampler works in blocks of `rate / gcd(from, to)` samples: common rates
/// give small blocks (22 050 → 16 000: 441 → 320); odd ones (a prime rate) would give a
/// block of a second or more, and take the linear path instead.
const MAX_RESAMPLER_BLOCK: u32 = 4_096;

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// Resamples a whole clip with rubato's FFT resampler (band-limited: no aliasing from a
/// 22 kHz voice into 16 kHz speech recognition). The output has exactly
/// `len * to / from` samples, aligned with the input (the resampler's delay removed).
pub fn resample(samples: &[f32], from: u32, to: u32) -> Vec<f32> {
    if from == to || samples.is_empty() || from == 0 || to == 0 {
        return samples.to_vec();
    }
    let common = gcd(from, to);
    if !RESAMPLER_RATES.contains(&from)
        || !RESAMPLER_RATES.contains(&to)
        || from / common > MAX_RESAMPLER_BLOCK
        || to / common > MAX_RESAMPLER_BLOCK
    {
        return resample_linear(samples, from, to);
    }
    band_limited(samples, from, to).unwrap_or_else(|| resample_linear(samples, from, to))
}

fn band_limited(samples: &[f32], from: u32, to: u32) -> Option<Vec<f32>> {
    use rubato::{FftFixedIn, Resampler};
    let out_len = (samples.len() as u64 * u64::from(to) / u64::from(from)) as usize;
    let mut resampler = FftFixedIn::<f32>::new(from as usize, to as usize, 1024, 2, 1).ok()?;
    let delay = resampler.output_delay();
    let mut out = Vec::with_capacity(out_len + delay + resampler.output_frames_max());
    let mut pos = 0;
    while pos + resampler.input_frames_next() <= samples.len() {
        let next = resampler.input_frames_next();
        let chunk = resampler.process(&[&samples[pos..pos + next]], None).ok()?;
        out.extend_from_slice(&chunk[0]);
        pos += next;
    }
    if pos < samples.len() {
        let chunk = resampler
            .process_partial(Some(&[&samples[pos..]]), None)
            .ok()?;
        out.extend_from_slice(&chunk[0]);
    }
    // Flush what the resampler still holds until the delayed output is complete.
    while out.len() < out_len + delay {
        let chunk = resampler.process_partial::<&[f32]>(None, None).ok()?;
        if chunk[0].is_empty() {
            break;
        }
        out.extend_from_slice(&chunk[0]);
    }
    out.drain(..delay.min(out.len()));
    out.resize(out_len, 0.0);
    Some(out)
}

/// Linear-interpolation resampling: cheap and stateless, for short blocks whose exact
/// spectrum does not matter (voice-activity detection) and rates outside the
/// band-limited resampler's range.
pub fn resample_linear(samples: &[f32], from: u32, to: u32) -> Vec<f32> {
    if from == to || samples.is_empty() || from == 0 || to == 0 {
        return samples.to_vec();
    }
    let out_len = (samples.len() as u64 * u64::from(to) / u64::from(from)) as usize;
    let step = f64::from(from) / f64::from(to);
    (0..out_len)
        .map(|i| {
            let pos = i as f64 * step;
            let idx = pos as usize;
            let frac = (pos - idx as f64) as f32;
            let a = samples[idx.min(samples.len() - 1)];
            let b = samples[(idx + 1).min(samples.len() - 1)];
            a + (b - a) * frac
        })
        .collect()
}

/// Ramps `samples` linearly down to silence (a click-free stop).
pub fn fade_out(samples: &mut [f32]) {
    let n = samples.len() as f32;
    for (i, s) in samples.iter_mut().enumerate() {
        *s *= 1.0 - (i as f32 + 1.0) / n;
    }
}

/// Ramps `samples` linearly up from silence.
pub fn fade_in(samples: &mut [f32]) {
    let n = samples.len() as f32;
    for (i, s) in samples.iter_mut().enumerate() {
        *s *= (i as f32 + 1.0) / n;
    }
}

/// Replaces every non-finite sample (NaN, +infinity, -infinity) by silence, in place, and
/// returns how many there were. A NaN reaching a level, a voice detector or a model
/// poisons every sum it enters; silence is what a broken sample means to a listener.
pub fn silence_non_finite(samples: &mut [f32]) -> usize {
    let mut replaced = 0;
    for s in samples.iter_mut().filter(|s| !s.is_finite()) {
        *s = 0.0;
        replaced += 1;
    }
    replaced
}

/// Clamped conversion to 16-bit PCM.
pub fn to_i16(sample: f32) -> i16 {
    (sample.clamp(-1.0, 1.0) * f32::from(i16::MAX)) as i16
}

/// `samples` without the silence at either end: 20 ms frames whose RMS level is at most
/// `threshold` (a synthesized voice's own lead-in and tail).
pub fn trim_silence(samples: &[f32], sample_rate: u32, threshold: f32) -> &[f32] {
    let frame = (sample_rate as usize / 50).max(1);
    let voiced = |chunk: &[f32]| rms(chunk) > threshold;
    let chunks: Vec<&[f32]> = samples.chunks(frame).collect();
    let Some(first) = chunks.iter().position(|c| voiced(c)) else {
        return &samples[..0];
    };
    let last = chunks.iter().rposition(|c| voiced(c)).unwrap_or(first);
    &samples[first * frame..((last + 1) * frame).min(samples.len())]
}

/// `samples` from `keep_ms` before the first sample louder than `threshold` (peak): a
/// voice's quiet lead-in shortened, its soft first sound kept. All of it when nothing is
/// that loud.
pub fn trim_lead_in(samples: &[f32], sample_rate: u32, threshold: f32, keep_ms: u32) -> &[f32] {
    let Some(loud) = samples.iter().position(|s| s.abs() > threshold) else {
        return samples;
    };
    let keep = (sample_rate as u64 * u64::from(keep_ms) / 1000) as usize;
    &samples[loud.saturating_sub(keep)..]
}

/// `samples` up to `keep_ms` after the last sample louder than `threshold` (peak): a
/// voice's quiet tail shortened, the decay of its last sound kept. All of it when nothing
/// is that loud.
pub fn trim_tail(samples: &[f32], sample_rate: u32, threshold: f32, keep_ms: u32) -> &[f32] {
    let Some(loud) = samples.iter().rposition(|s| s.abs() > threshold) else {
        return samples;
    };
    let keep = (sample_rate as u64 * u64::from(keep_ms) / 1000) as usize;
    &samples[..(loud + 1).saturating_add(keep).min(samples.len())]
}

/// Root mean square level.
pub fn rms(samples: &[f32]) -> f32 {
    if samples.is_empty() {
        return 0.0;
    }
    (samples.iter().map(|s| s * s).sum::<f32>() / samples.len() as f32).sqrt()
}

/// Encodes mono samples as a 16-bit WAV file in memory.
pub fn encode_wav(pcm: &Pcm) -> Vec<u8> {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: pcm.sample_rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut cursor = Cursor::new(Vec::new());
    {
        let mut writer = hound::WavWriter::new(&mut cursor, spec).expect("in-memory WAV");
        for s in &pcm.samples {
            writer.write_sample(to_i16(*s)).expect("in-memory WAV");
        }
        writer.finalize().expect("in-memory WAV");
    }
    cursor.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silence_is_trimmed_at_both_ends_only() {
        let rate = 16_000;
        let tone: Vec<f32> = (0..3200).map(|i| (i as f32 * 0.3).sin() * 0.5).collect();
        let mut samples = vec![0.0; 4800];
        samples.extend(&tone);
        samples.extend(vec![0.0; 1600]);
        samples.extend(&tone);
        samples.extend(vec![0.0; 8000]);
        let trimmed = trim_silence(&samples, rate, 0.02);
        assert_eq!(trimmed.len(), 3200 + 1600 + 3200, "the middle pause stays");
        assert!(trim_silence(&vec![0.0; 1000], rate, 0.02).is_empty());
    }
    #[test]
    fn a_lead_in_is_shortened_to_what_is_kept_before_the_first_loud_sample() {
        let rate = 16_000;
        let mut samples = vec![0.0; 3200];
        samples.extend(vec![0.004; 3200]);
        samples.push(0.5);
        samples.extend(vec![0.0; 100]);
        let trimmed = trim_lead_in(&samples, rate, 0.02, 100);
        assert_eq!(trimmed.len(), 1600 + 1 + 100);
        assert_eq!(trimmed[1600], 0.5);
        // Nothing loud: nothing cut; loud at once: nothing cut.
        assert_eq!(trim_lead_in(&[0.001; 50], rate, 0.02, 100).len(), 50);
        assert_eq!(trim_lead_in(&[0.5; 50], rate, 0.02, 100).len(), 50);
    }

    #[test]
    fn a_tail_is_shortened_to_what_is_kept_after_the_last_loud_sample() {
        let rate = 16_000;
        let mut samples = vec![0.0; 100];
        samples.push(-0.5);
        samples.extend(vec![0.004; 3200]);
        samples.extend(vec![0.0; 3200]);
        let trimmed = trim_tail(&samples, rate, 0.02, 100);
        assert_eq!(trimmed.len(), 100 + 1 + 1600);
        assert_eq!(trimmed[100], -0.5);
        // Nothing loud: nothing cut; loud to the end, or a tail shorter than kept: nothing cut.
        assert_eq!(trim_tail(&[0.001; 50], rate, 0.02, 100).len(), 50);
        assert_eq!(trim_tail(&[0.5; 50], rate, 0.02, 100).len(), 50);
        assert_eq!(trim_tail(&[0.5, 0.0, 0.0], rate, 0.02, 100).len(), 3);
        assert!(trim_tail(&[], rate, 0.02, 100).is_empty());
    }

    use proptest::prelude::*;

    #[test]
    fn wav_round_trip_and_streamed_headers() {
        let pcm = Pcm {
            sample_rate: 16_000,
            samples: (0..1600).map(|i| ((i as f32) / 20.0).sin() * 0.5).collect(),
        };
        let bytes = encode_wav(&pcm);
        let back = decode_wav(&bytes).unwrap();
        assert_eq!(back.sample_rate, 16_000);
        assert_eq!(back.samples.len(), 1600);
        assert!((back.samples[100] - pcm.samples[100]).abs() < 1e-3);
        // As written to a pipe: sizes unknown.
        let mut streamed = bytes.clone();
        streamed[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        streamed[40..44].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(decode_wav(&streamed).unwrap().samples.len(), 1600);
        assert!(decode_wav(b"not a wav").is_err());
        assert_eq!(back.duration_ms(), 100);
    }

    #[test]
    fn resampling_keeps_duration() {
        let s: Vec<f32> = (0..22_050).map(|i| (i as f32 / 10.0).sin()).collect();
        assert_eq!(resample(&s, 22_050, 16_000).len(), 16_000);
        assert_eq!(resample(&s, 22_050, 22_050).len(), 22_050);
        assert_eq!(resample(&s, 22_050, 44_100).len(), 44_100);
        assert_eq!(resample_linear(&s, 22_050, 16_000).len(), 16_000);
        // A broken header's rate: the linear path, not a resampler sized for it.
        assert_eq!(resample(&s[..10], 1, 16_000).len(), 160_000);
        assert_eq!(resample(&s, 383_993, 16_000).len(), 918);
    }

    /// Zero crossings of a sine: twice its frequency per second of samples.
    fn crossings(samples: &[f32]) -> usize {
        samples
            .windows(2)
            .filter(|w| (w[0] < 0.0) != (w[1] < 0.0))
            .count()
    }

    #[test]
    fn a_tone_keeps_its_pitch_and_place_and_what_cannot_be_kept_is_filtered_out() {
        let tone = |rate: u32, hz: f32, secs: f32| -> Vec<f32> {
            (0..(rate as f32 * secs) as usize)
                .map(|i| (i as f32 * hz * std::f32::consts::TAU / rate as f32).sin() * 0.5)
                .collect()
        };
        // 440 Hz for a second: 880 crossings at any rate, give or take the ends.
        let down = resample(&tone(22_050, 440.0, 1.0), 22_050, 16_000);
        assert!(
            (878..=882).contains(&crossings(&down)),
            "{}",
            crossings(&down)
        );
        // Aligned: the delay is removed, so up and down again lands within a fraction of
        // a sample of where it began (a whole sample off would differ by ~0.09 here).
        let original = tone(16_000, 440.0, 1.0);
        let up = resample(&original, 16_000, 48_000);
        let back = resample(&up, 48_000, 16_000);
        let err: f32 = original[2_000..14_000]
            .iter()
            .zip(&back[2_000..14_000])
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        assert!(err < 0.04, "round trip error {err}");
        // 10 kHz cannot exist at 16 kHz: band-limited resampling removes it, where
        // linear interpolation folds it down to an audible 6 kHz.
        let high = tone(44_100, 10_000.0, 0.5);
        assert!(rms(&resample(&high, 44_100, 16_000)[800..7_000]) < 0.05);
        assert!(rms(&resample_linear(&high, 44_100, 16_000)[800..7_000]) > 0.1);
    }

    #[test]
    fn fades_reach_silence() {
        let mut s = vec![1.0; 100];
        fade_out(&mut s);
        assert_eq!(s[99], 0.0);
        assert!(s[0] > 0.98);
        let mut s = vec![1.0; 100];
        fade_in(&mut s);
        assert_eq!(s[99], 1.0);
        assert!(rms(&[0.5, -0.5]) - 0.5 < 1e-6);
        assert_eq!(to_i16(2.0), i16::MAX);
    }

    #[test]
    fn non_finite_samples_become_silence() {
        let mut s = [0.5, f32::NAN, f32::INFINITY, -0.25, f32::NEG_INFINITY];
        assert_eq!(silence_non_finite(&mut s), 3);
        assert_eq!(s, [0.5, 0.0, 0.0, -0.25, 0.0]);
        // The levels of a cleaned block stay finite.
        assert!(rms(&s).is_finite());
    }

    proptest! {
        #[test]
        fn resampling_gives_the_length_and_finite_samples(
            samples in prop::collection::vec(-1.0f32..1.0, 0..5_000),
            from in prop::sample::select(vec![8_000u32, 16_000, 22_050, 24_000, 44_100, 48_000]),
            to in prop::sample::select(vec![8_000u32, 16_000, 22_050, 24_000, 44_100, 48_000]),
        ) {
            let out = resample(&samples, from, to);
            prop_assert_eq!(out.len(), samples.len() * to as usize / from as usize);
            prop_assert!(out.iter().all(|s| s.is_finite()));
        }

        #[test]
        fn cleaned_blocks_are_finite_and_keep_every_finite_sample(
            samples in prop::collection::vec(
                prop_oneof![
                    -1.0f32..1.0,
                    Just(f32::NAN),
                    Just(f32::INFINITY),
                    Just(f32::NEG_INFINITY),
                    any::<f32>(),
                ],
                0..500,
            ),
        ) {
            let mut clean = samples.clone();
            let replaced = silence_non_finite(&mut clean);
            prop_assert!(clean.iter().all(|s| s.is_finite()));
            let bad = samples.iter().filter(|s| !s.is_finite()).count();
            prop_assert_eq!(replaced, bad);
            for (a, b) in samples.iter().zip(clean.iter()) {
                if a.is_finite() {
                    prop_assert_eq!(a.to_bits(), b.to_bits());
                } else {
                    prop_assert_eq!(*b, 0.0);
                }
            }
        }

        #[test]
        fn decoder_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            let _ = decode_wav(&bytes);
            let mut riff = b"RIFF\0\0\0\0WAVEfmt ".to_vec();
            riff.extend(&bytes);
            let _ = decode_wav(&riff);
        }
    }
}

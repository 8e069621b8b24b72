//! Resampling a stream that arrives in blocks of any size (a capture device's callbacks,
//! a player's blocks): one resampler carries its state from block to block, so there is
//! no seam at a block's edge and no sample is lost or invented by rounding each block's
//! length. Whatever the blocks, the output is the same samples, and after `n` input
//! samples exactly `n * to / from` (rounded down) have come out once the stream is
//! finished; before that, at most [`StreamResampler::latency`] fewer.

use std::collections::VecDeque;

use rubato::{
    FftFixedIn, SincFixedIn, SincInterpolationParameters, SincInterpolationType, VecResampler,
    WindowFunction, calculate_cutoff,
};

use crate::{RESAMPLER_RATES, gcd};

/// The band-limited resampler takes the input this many times a second (20 ms): the
/// stream's delay stays a few blocks of a player or a capture device.
const CHUNKS_PER_SECOND: u32 = 50;

/// The FFT resampler's chunk must be a whole number of its blocks (`from / gcd(from,
/// to)` samples); when that would exceed 50 ms (odd rates), the sinc resampler, which
/// takes any ratio, is used instead.
const MAX_FFT_CHUNK_PER_SECOND: u32 = 20;

/// A resampler from `from` Hz to `to` Hz for one stream of mono samples.
pub struct StreamResampler {
    from: u32,
    to: u32,
    engine: Engine,
    /// Input samples taken so far.
    taken: u64,
    /// Output samples given out so far.
    given: u64,
}

enum Engine {
    Same,
    BandLimited(BandLimited),
    /// Rates outside the band-limited resamplers' range (a broken header's).
    Linear(Linear),
}

impl std::fmt::Debug for StreamResampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let engine = match &self.engine {
            Engine::Same => "same rate",
            Engine::BandLimited(b) if b.fft => "FFT",
            Engine::BandLimited(_) => "sinc",
            Engine::Linear(_) => "linear",
        };
        f.debug_struct("StreamResampler")
            .field("from", &self.from)
            .field("to", &self.to)
            .field("engine", &engine)
            .field("taken", &self.taken)
            .field("given", &self.given)
            .finish()
    }
}

impl StreamResampler {
    /// A resampler for a stream from `from` Hz to `to` Hz: rubato's FFT resampler for
    /// the usual rates, its sinc resampler for odd ones (both band-limited), linear
    /// interpolation for rates outside 4 kHz..384 kHz. A rate of 0 passes samples through.
    pub fn new(from: u32, to: u32) -> Self {
        let engine = if from == to || from == 0 || to == 0 {
            Engine::Same
        } else if RESAMPLER_RATES.contains(&from) && RESAMPLER_RATES.contains(&to) {
            match BandLimited::new(from, to) {
                Some(b) => Engine::BandLimited(b),
                None => Engine::Linear(Linear::default()),
            }
        } else {
            Engine::Linear(Linear::default())
        };
        Self {
            from,
            to,
            engine,
            taken: 0,
            given: 0,
        }
    }

    /// The input rate.
    pub fn from_rate(&self) -> u32 {
        self.from
    }

    /// The output rate.
    pub fn to_rate(&self) -> u32 {
        self.to
    }

    /// The output due for the input taken so far: `taken * to / from`, rounded down.
    fn due(&self) -> u64 {
        match self.engine {
            Engine::Same => self.taken,
            _ => (u128::from(self.taken) * u128::from(self.to) / u128::from(self.from)) as u64,
        }
    }

    /// The most output samples the stream may lag behind its input's duration before it
    /// is finished (what the resampler holds: part of a chunk and its filter's delay).
    pub fn latency(&self) -> usize {
        match &self.engine {
            Engine::Same => 0,
            Engine::BandLimited(b) => {
                (b.chunk as u64 * u64::from(self.to)).div_ceil(u64::from(self.from)) as usize
                    + b.delay_total
                    + 2
            }
            Engine::Linear(_) => u64::from(self.to).div_ceil(u64::from(self.from)) as usize + 1,
        }
    }

    /// Takes the next block of the stream and returns the output it completes (possibly
    /// none: the resampler works in chunks of 20 ms).
    pub fn process(&mut self, input: &[f32]) -> Vec<f32> {
        self.taken += input.len() as u64;
        let due = self.due();
        let out = match &mut self.engine {
            Engine::Same => input.to_vec(),
            Engine::BandLimited(b) => {
                b.push(input);
                b.give((due - self.given) as usize)
            }
            Engine::Linear(l) => l.produce(input, self.from, self.to, self.given, due, false),
        };
        self.given += out.len() as u64;
        out
    }

    /// Ends the stream: returns what the resampler still holds (its tail, the filter's
    /// delay flushed with silence), so the whole output has exactly `taken * to / from`
    /// samples.
    pub fn finish(mut self) -> Vec<f32> {
        let due = self.due();
        let wanted = (due - self.given) as usize;
        match &mut self.engine {
            Engine::Same => Vec::new(),
            Engine::BandLimited(b) => b.flush(wanted),
            Engine::Linear(l) => l.produce(&[], self.from, self.to, self.given, due, true),
        }
    }
}

/// rubato, fed whole chunks; what comes out first (the filter's delay) is dropped so the
/// output is aligned with the input.
struct BandLimited {
    resampler: Box<dyn VecResampler<f32>>,
    fft: bool,
    chunk: usize,
    /// Input waiting for a whole chunk.
    pending: Vec<f32>,
    /// Output still to drop (the filter's delay before the input's first sample).
    delay_left: usize,
    /// Output the filter holds back (its delay or its look-ahead).
    delay_total: usize,
    /// Output made but not yet due (the input's duration has not reached it yet).
    ready: VecDeque<f32>,
    input: Vec<Vec<f32>>,
    output: Vec<Vec<f32>>,
}

impl BandLimited {
    fn new(from: u32, to: u32) -> Option<Self> {
        let target = (from / CHUNKS_PER_SECOND).max(1);
        let block = from / gcd(from, to);
        let (resampler, chunk, fft): (Box<dyn VecResampler<f32>>, usize, bool) = if block
            <= from / MAX_FFT_CHUNK_PER_SECOND
        {
            let chunk = target.div_ceil(block) * block;
            let fft =
                FftFixedIn::<f32>::new(from as usize, to as usize, chunk as usize, 1, 1).ok()?;
            (Box::new(fft), chunk as usize, true)
        } else {
            let window = WindowFunction::BlackmanHarris2;
            let sinc_len = 128;
            let parameters = SincInterpolationParameters {
                sinc_len,
                f_cutoff: calculate_cutoff(sinc_len, window),
                oversampling_factor: 128,
                interpolation: SincInterpolationType::Linear,
                window,
            };
            let ratio = f64::from(to) / f64::from(from);
            let sinc = SincFixedIn::<f32>::new(ratio, 1.0, parameters, target as usize, 1).ok()?;
            (Box::new(sinc), target as usize, false)
        };
        // The FFT resampler's first output is `output_delay` samples before the input's
        // first; the sinc one starts its filter half a filter before the input, so its
        // first output is the input's first and what it reports as a delay is only held
        // back (tested: an impulse comes out where it went in).
        let delay = resampler.output_delay();
        let output = resampler.output_buffer_allocate(true);
        Some(Self {
            resampler,
            fft,
            chunk,
            pending: Vec::with_capacity(chunk),
            delay_left: if fft { delay } else { 0 },
            delay_total: delay,
            ready: VecDeque::new(),
            input: vec![vec![0.0; chunk]],
            output,
        })
    }

    /// Runs every whole chunk of the input taken so far through the resampler.
    fn push(&mut self, mut input: &[f32]) {
        while !input.is_empty() {
            let take = (self.chunk - self.pending.len()).min(input.len());
            self.pending.extend_from_slice(&input[..take]);
            input = &input[take..];
            if self.pending.len() == self.chunk {
                self.run_chunk();
            }
        }
    }

    fn run_chunk(&mut self) {
        self.input[0].copy_from_slice(&self.pending);
        self.pending.clear();
        let made = match self
            .resampler
            .process_into_buffer(&self.input, &mut self.output, None)
        {
            Ok((_, made)) => made,
            // Cannot happen with buffers the resampler sized; silence keeps the length.
            Err(_) => {
                self.output[0].fill(0.0);
                self.resampler
                    .output_frames_next()
                    .min(self.output[0].len())
            }
        };
        let made = &self.output[0][..made];
        let dropped = self.delay_left.min(made.len());
        self.delay_left -= dropped;
        self.ready.extend(&made[dropped..]);
    }

    /// Up to `due` samples of what is ready.
    fn give(&mut self, due: usize) -> Vec<f32> {
        let n = due.min(self.ready.len());
        self.ready.drain(..n).collect()
    }

    /// Exactly `wanted` more samples: the held input and the filter's delay pushed out
    /// with silence.
    fn flush(&mut self, wanted: usize) -> Vec<f32> {
        // Each chunk makes output once the delay is out; the bound only guards a
        // resampler that would make none.
        let chunks_needed = (wanted + self.delay_total) / self.chunk.max(1) + 4;
        for _ in 0..chunks_needed * 4 {
            if self.ready.len() >= wanted {
                break;
            }
            let missing = self.chunk - self.pending.len();
            self.pending.extend(std::iter::repeat_n(0.0, missing));
            self.run_chunk();
        }
        let mut out = self.give(wanted);
        out.resize(wanted, 0.0);
        out
    }
}

/// Linear interpolation across blocks: output sample `i` sits at input position
/// `i * from / to`, between the two samples around it, whichever blocks they came in.
#[derive(Default)]
struct Linear {
    /// Input from the sample the next output needs on.
    tail: Vec<f32>,
    /// The stream index of `tail[0]`.
    base: u64,
}

impl Linear {
    fn produce(
        &mut self,
        input: &[f32],
        from: u32,
        to: u32,
        mut given: u64,
        due: u64,
        end: bool,
    ) -> Vec<f32> {
        self.tail.extend_from_slice(input);
        let available = self.base + self.tail.len() as u64;
        let (from, to) = (u128::from(from), u128::from(to));
        let mut out = Vec::new();
        while given < due {
            let pos = u128::from(given) * from;
            let index = (pos / to) as u64;
            if index + 1 >= available && !end {
                break;
            }
            let frac = ((pos % to) as f64 / to as f64) as f32;
            let at = |i: u64| {
                let i = i.min(available.saturating_sub(1)).saturating_sub(self.base);
                self.tail.get(i as usize).copied().unwrap_or(0.0)
            };
            let (a, b) = (at(index), at(index + 1));
            out.push(a + (b - a) * frac);
            given += 1;
        }
        // Keep the input from the next output's first sample on.
        let next = (u128::from(given) * from / to) as u64;
        let drop = next.saturating_sub(self.base).min(self.tail.len() as u64);
        self.tail.drain(..drop as usize);
        self.base += drop;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rms;
    use proptest::prelude::*;

    fn tone(rate: u32, hz: f32, secs: f32) -> Vec<f32> {
        (0..(rate as f32 * secs) as usize)
            .map(|i| (i as f32 * hz * std::f32::consts::TAU / rate as f32).sin() * 0.5)
            .collect()
    }

    /// Zero crossings of a sine: twice its frequency per second of samples.
    fn crossings(samples: &[f32]) -> usize {
        samples
            .windows(2)
            .filter(|w| (w[0] < 0.0) != (w[1] < 0.0))
            .count()
    }

    /// `samples` through a stream in blocks of the given sizes (cycled), then finished.
    fn streamed(samples: &[f32], from: u32, to: u32, sizes: &[usize]) -> Vec<f32> {
        let mut stream = StreamResampler::new(from, to);
        let mut out = Vec::new();
        let mut rest = samples;
        for size in sizes.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (block, tail) = rest.split_at((*size).clamp(1, rest.len()));
            out.extend(stream.process(block));
            rest = tail;
        }
        out.extend(stream.finish());
        out
    }

    #[test]
    fn engines_by_rate() {
        let engine = |from, to| format!("{:?}", StreamResampler::new(from, to));
        assert!(engine(48_000, 16_000).contains("FFT"));
        assert!(engine(44_100, 16_000).contains("FFT"));
        assert!(engine(22_050, 48_000).contains("FFT"));
        assert!(engine(44_101, 16_000).contains("sinc"));
        assert!(engine(16_000, 16_000).contains("same rate"));
        assert!(engine(1, 16_000).contains("linear"));
    }

    #[test]
    fn a_tone_keeps_its_pitch_and_level_through_ragged_blocks() {
        // A capture device at 48 kHz or 44.1 kHz to the ASR's 16 kHz, a 22.05 kHz player
        // to a 48 kHz device, an odd device rate: 440 Hz stays 440 Hz (880 crossings a
        // second, give or take the ends) and keeps its level.
        for (from, to) in [
            (48_000, 16_000),
            (44_100, 16_000),
            (22_050, 48_000),
            (44_101, 16_000),
        ] {
            let out = streamed(&tone(from, 440.0, 1.0), from, to, &[441, 97, 1_000, 3]);
            assert_eq!(out.len(), to as usize, "{from} -> {to}");
            let crossings = crossings(&out);
            assert!(
                (878..=882).contains(&crossings),
                "{from} -> {to}: {crossings} crossings"
            );
            let middle = &out[out.len() / 10..out.len() * 9 / 10];
            let level = rms(middle);
            assert!((level - 0.354).abs() < 0.01, "{from} -> {to}: rms {level}");
        }
    }

    #[test]
    fn what_cannot_exist_at_the_new_rate_is_filtered_out() {
        // 10 kHz cannot exist at 16 kHz: a linear resampler folds it down to 6 kHz.
        for from in [44_100, 44_101] {
            let out = streamed(&tone(from, 10_000.0, 0.5), from, 16_000, &[512, 7]);
            assert!(rms(&out[800..7_000]) < 0.05, "{from}");
        }
    }

    #[test]
    fn the_output_is_aligned_with_the_input() {
        // Up and down again lands within a fraction of a sample of where it began.
        let original = tone(16_000, 440.0, 1.0);
        let up = streamed(&original, 16_000, 48_000, &[320]);
        let back = streamed(&up, 48_000, 16_000, &[960]);
        let err = original[2_000..14_000]
            .iter()
            .zip(&back[2_000..14_000])
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        assert!(err < 0.05, "round trip error {err}");
    }

    #[test]
    fn an_impulse_comes_out_where_it_went_in() {
        for (from, to) in [
            (44_100, 16_000),
            (22_050, 48_000),
            (44_101, 16_000),
            (16_000, 44_101),
        ] {
            let mut click = vec![0.0; from as usize];
            click[10_000] = 1.0;
            let out = streamed(&click, from, to, &[333]);
            let peak = (0..out.len())
                .max_by(|a, b| out[*a].total_cmp(&out[*b]))
                .unwrap();
            let expected = 10_000.0 * f64::from(to) / f64::from(from);
            // Within a sample and a half of the lower rate.
            let tolerance = 1.5 * (f64::from(to) / f64::from(from)).max(1.0);
            assert!(
                (peak as f64 - expected).abs() < tolerance,
                "{from} -> {to}: at {peak}, not {expected}"
            );
        }
    }

    #[test]
    fn blocks_whose_length_does_not_divide_lose_nothing() {
        // 480 samples at 48 kHz are 220.5 at 22.05 kHz: rounding each block would lose
        // half a sample a block, 25 a second.
        let input = vec![0.25; 48_000 * 10];
        let mut stream = StreamResampler::new(48_000, 22_050);
        let mut out = 0;
        for block in input.chunks(480) {
            out += stream.process(block).len();
        }
        assert!(22_050 * 10 - out <= stream.latency(), "{out}");
        out += stream.finish().len();
        assert_eq!(out, 22_050 * 10);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn any_blocks_give_the_same_samples_and_the_input_duration(
            samples in prop::collection::vec(-1.0f32..1.0, 0..6_000),
            sizes in prop::collection::vec(1usize..700, 1..8),
            (from, to) in prop::sample::select(vec![
                (48_000u32, 16_000u32),
                (44_100, 16_000),
                (16_000, 22_050),
                (22_050, 48_000),
                (44_101, 16_000),
                (16_000, 16_000),
                (1_000, 16_000),
                (16_000, 500_000),
            ]),
        ) {
            let whole = streamed(&samples, from, to, &[samples.len().max(1)]);
            prop_assert_eq!(
                whole.len() as u64,
                samples.len() as u64 * u64::from(to) / u64::from(from)
            );
            prop_assert!(whole.iter().all(|s| s.is_finite()));
            // Any other blocks: the very same samples.
            let mut stream = StreamResampler::new(from, to);
            let mut out = Vec::new();
            let mut rest = &samples[..];
            let mut taken = 0u64;
            for size in sizes.iter().cycle() {
                if rest.is_empty() {
                    break;
                }
                let (block, tail) = rest.split_at((*size).min(rest.len()));
                out.extend(stream.process(block));
                taken += block.len() as u64;
                rest = tail;
                // Never ahead of the input, never more than the latency behind it.
                let due = taken * u64::from(to) / u64::from(from);
                prop_assert!(out.len() as u64 <= due);
                prop_assert!(due - out.len() as u64 <= stream.latency() as u64);
            }
            out.extend(stream.finish());
            prop_assert_eq!(out, whole);
        }
    }
}

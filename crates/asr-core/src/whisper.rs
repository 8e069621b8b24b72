//! What a Whisper model needs around its network, without I/O: the log-mel features of
//! an utterance ([`log_mel`]), the decoder's prompt ([`prompt`]) and the text of the
//! tokens it produced ([`decode_tokens`]). The network itself runs in the node.
//!
//! The features follow the reference implementation: 16 kHz audio, a 400-point STFT
//! with a periodic Hann window every 160 samples (centred, reflected at the start),
//! power spectrum, Slaney-scale mel filters, log10 clamped to 8 below the maximum, then
//! `(x + 4) / 4`. The audio is followed by silence up to 30 s, which the model expects.

use std::sync::Arc;

use rustfft::{Fft, FftPlanner, num_complex::Complex32};

pub const SAMPLE_RATE: u32 = 16_000;
pub const N_FFT: usize = 400;
pub const HOP: usize = 160;
/// Frames of one 30 s window.
pub const FRAMES: usize = 3000;
/// Samples of one 30 s window.
pub const WINDOW_SAMPLES: usize = FRAMES * HOP;

/// Computes log-mel features for windows of up to 30 s of 16 kHz audio.
pub struct MelFrontEnd {
    n_mels: usize,
    filters: Vec<f32>,
    hann: Vec<f32>,
    fft: Arc<dyn Fft<f32>>,
}

impl MelFrontEnd {
    pub fn new(n_mels: usize) -> Self {
        let hann = (0..N_FFT)
            .map(|i| {
                let x = std::f32::consts::PI * 2.0 * i as f32 / N_FFT as f32;
                0.5 - 0.5 * x.cos()
            })
            .collect();
        Self {
            n_mels,
            filters: mel_filters(n_mels, N_FFT, SAMPLE_RATE),
            hann,
            fft: FftPlanner::new().plan_fft_forward(N_FFT),
        }
    }

    pub fn n_mels(&self) -> usize {
        self.n_mels
    }

    /// Features of `samples` (16 kHz, at most 30 s; longer input is cut): `n_mels` rows
    /// of [`FRAMES`] values, row-major.
    pub fn log_mel(&self, samples: &[f32]) -> Vec<f32> {
        self.log_mel_frames(samples, FRAMES)
    }

    /// The same for a window of `frames` frames (at most [`FRAMES`]): the audio and the
    /// silence after it up to that length. A shorter window costs the encoder less.
    pub fn log_mel_frames(&self, samples: &[f32], frames: usize) -> Vec<f32> {
        let frames = frames.clamp(1, FRAMES);
        let samples = &samples[..samples.len().min(frames * HOP)];
        let bins = N_FFT / 2 + 1;
        // Frames past the audio see only the silence that follows it: all equal.
        let audio_frames = (samples.len() + N_FFT / 2).div_ceil(HOP).min(frames);
        let mut mel = vec![0f32; self.n_mels * frames];
        let mut buffer = vec![Complex32::new(0.0, 0.0); N_FFT];
        let mut power = vec![0f32; bins];
        let at = |i: isize| -> f32 {
            // Reflection at the start (centred STFT); zeros after the audio.
            let i = if i < 0 { -i } else { i } as usize;
            samples.get(i).copied().unwrap_or(0.0)
        };
        let mut max = f32::NEG_INFINITY;
        for frame in 0..audio_frames {
            let start = (frame * HOP) as isize - (N_FFT / 2) as isize;
            for (k, slot) in buffer.iter_mut().enumerate() {
                *slot = Complex32::new(at(start + k as isize) * self.hann[k], 0.0);
            }
            self.fft.process(&mut buffer);
            for (p, c) in power.iter_mut().zip(&buffer[..bins]) {
                *p = c.norm_sqr();
            }
            for m in 0..self.n_mels {
                let row = &self.filters[m * bins..(m + 1) * bins];
                let energy: f32 = row.iter().zip(&power).map(|(w, p)| w * p).sum();
                let value = energy.max(1e-10).log10();
                max = max.max(value);
                mel[m * frames + frame] = value;
            }
        }
        // Silence: log10(1e-10) = -10 before clamping.
        let silence = -10f32;
        let max = max.max(silence);
        let floor = max - 8.0;
        for m in 0..self.n_mels {
            for frame in 0..frames {
                let value = if frame < audio_frames {
                    mel[m * frames + frame]
                } else {
                    silence
                };
                mel[m * frames + frame] = (value.max(floor) + 4.0) / 4.0;
            }
        }
        mel
    }
}

/// Frames of the window for `samples` samples of audio: the audio and `pad_frames` of
/// silence after it, in steps of 1 s, at most 30 s; `None` pads: always 30 s.
pub fn window_frames(samples: usize, pad_frames: Option<usize>) -> usize {
    match pad_frames {
        None => FRAMES,
        Some(pad) => (samples.div_ceil(HOP) + pad)
            .div_ceil(100)
            .saturating_mul(100)
            .clamp(100, FRAMES),
    }
}

/// Slaney-scale triangular mel filters with Slaney area normalisation (librosa's
/// default), `n_mels` rows of `n_fft / 2 + 1` weights.
pub fn mel_filters(n_mels: usize, n_fft: usize, sample_rate: u32) -> Vec<f32> {
    fn hz_to_mel(f: f64) -> f64 {
        let (f_sp, min_log_hz) = (200.0 / 3.0, 1000.0);
        let min_log_mel = min_log_hz / f_sp;
        let logstep = (6.4f64).ln() / 27.0;
        if f >= min_log_hz {
            min_log_mel + (f / min_log_hz).ln() / logstep
        } else {
            f / f_sp
        }
    }
    fn mel_to_hz(m: f64) -> f64 {
        let (f_sp, min_log_hz) = (200.0 / 3.0, 1000.0);
        let min_log_mel = min_log_hz / f_sp;
        let logstep = (6.4f64).ln() / 27.0;
        if m >= min_log_mel {
            min_log_hz * (logstep * (m - min_log_mel)).exp()
        } else {
            f_sp * m
        }
    }
    let bins = n_fft / 2 + 1;
    let nyquist = sample_rate as f64 / 2.0;
    let fft_freqs: Vec<f64> = (0..bins)
        .map(|k| k as f64 * nyquist / (bins - 1) as f64)
        .collect();
    let top = hz_to_mel(nyquist);
    let hz: Vec<f64> = (0..n_mels + 2)
        .map(|i| mel_to_hz(top * i as f64 / (n_mels + 1) as f64))
        .collect();
    let mut weights = vec![0f32; n_mels * bins];
    for m in 0..n_mels {
        let norm = 2.0 / (hz[m + 2] - hz[m]);
        for (k, f) in fft_freqs.iter().enumerate() {
            let lower = (f - hz[m]) / (hz[m + 1] - hz[m]);
            let upper = (hz[m + 2] - f) / (hz[m + 2] - hz[m + 1]);
            weights[m * bins + k] = (lower.min(upper).max(0.0) * norm) as f32;
        }
    }
    weights
}

/// What Whisper is shown as said before the utterance (`<|startofprev|>`) when fillers are
/// to be kept: a verbatim transcript, "um"s and "uh"s written down. Whisper was trained
/// mostly on clean transcripts and leaves fillers out unless the text before shows them;
/// a coach counting them needs them kept. Token strings of the byte-level vocabulary of
/// Whisper's models (`Ġ` is a space), each a whole word; the bridge checks its model has
/// them.
pub const FILLER_CONTEXT: &[&str] = &[
    "ĠUm", ",", "Ġso", ",", "Ġuh", ",", "ĠI", "Ġthink", "Ġit", "'s", ",", "Ġum", ",", "Ġlike", ",",
    "Ġyou", "Ġknow", ",", "Ġuh", ",", "Ġsort", "Ġof", "Ġgood", ".", "ĠHmm", ".", "ĠUh", ",",
    "Ġokay", ".",
];

/// The decoder's first tokens: `previous` (what was said before, tokens; may be empty),
/// then the start token; a multilingual model is also told the language and the task.
pub fn prompt(multilingual: bool, language: &str, previous: &[&str]) -> Vec<String> {
    let mut tokens = Vec::new();
    if !previous.is_empty() {
        tokens.push("<|startofprev|>".to_owned());
        tokens.extend(previous.iter().map(|t| (*t).to_owned()));
    }
    tokens.push("<|startoftranscript|>".to_owned());
    if multilingual {
        tokens.push(format!("<|{language}|>"));
        tokens.push("<|transcribe|>".to_owned());
    }
    tokens.push("<|notimestamps|>".to_owned());
    tokens
}

/// The text of byte-level BPE tokens (as the model's vocabulary spells them, `Ġ` for a
/// space); special tokens (`<|...|>`) are left out, invalid UTF-8 is replaced.
pub fn decode_tokens<S: AsRef<str>>(tokens: &[S]) -> String {
    let table = byte_decoder();
    let mut bytes = Vec::new();
    for token in tokens {
        let token = token.as_ref();
        if token.starts_with("<|") && token.ends_with("|>") {
            continue;
        }
        for c in token.chars() {
            match table.iter().position(|&u| u == c) {
                Some(b) => bytes.push(b as u8),
                None => bytes.extend_from_slice(c.to_string().as_bytes()),
            }
        }
    }
    String::from_utf8_lossy(&bytes).trim().to_owned()
}

/// GPT-2's map of the 256 byte values to printable characters, indexed by byte.
fn byte_decoder() -> [char; 256] {
    let mut table = ['\0'; 256];
    let mut next = 256u32;
    for (b, slot) in table.iter_mut().enumerate() {
        let printable = matches!(b, 0x21..=0x7e | 0xa1..=0xac | 0xae..=0xff);
        *slot = if printable {
            char::from_u32(b as u32).unwrap_or('\0')
        } else {
            let c = char::from_u32(next).unwrap_or('\0');
            next += 1;
            c
        };
    }
    table
}

/// How many times one word may come in a row before a transcript is taken for a
/// decoder's loop ("uh, uh, uh, uh, …" to the length limit) rather than speech.
pub const RUNAWAY_REPEATS: usize = 6;

/// Whether `text` is a decoder's loop: one word [`RUNAWAY_REPEATS`] times in a row
/// (case and punctuation aside). A context that asks for fillers ("um, uh") can start
/// such a loop on unclear audio; the window is then decoded again without it.
pub fn is_runaway(text: &str) -> bool {
    let mut last = String::new();
    let mut run = 0;
    for word in text.split_whitespace() {
        let word: String = word
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect();
        if word.is_empty() {
            continue;
        }
        run = if word == last { run + 1 } else { 1 };
        if run >= RUNAWAY_REPEATS {
            return true;
        }
        last = word;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn filters_are_triangles_over_the_spectrum() {
        let f = mel_filters(80, 400, 16_000);
        assert_eq!(f.len(), 80 * 201);
        for m in 0..80 {
            let row = &f[m * 201..(m + 1) * 201];
            assert!(row.iter().all(|w| *w >= 0.0));
            assert!(row.iter().any(|w| *w > 0.0), "filter {m} is empty");
        }
        // The reference filter bank's first weights (librosa, slaney): 0.02486 at bin 1.
        assert!((f[1] - 0.024_86).abs() < 1e-4, "{}", f[1]);
    }

    #[test]
    fn silence_and_a_tone_give_bounded_features() {
        let front = MelFrontEnd::new(80);
        let silence = front.log_mel(&[]);
        assert_eq!(silence.len(), 80 * FRAMES);
        assert!(silence.iter().all(|v| (*v - (-1.5)).abs() < 1e-6));
        let tone: Vec<f32> = (0..16_000)
            .map(|i| (i as f32 * 2.0 * std::f32::consts::PI * 440.0 / 16_000.0).sin() * 0.5)
            .collect();
        let mel = front.log_mel(&tone);
        let max = mel.iter().cloned().fold(f32::MIN, f32::max);
        let min = mel.iter().cloned().fold(f32::MAX, f32::min);
        // Clamped to 8 decades below the maximum, then scaled by 1/4.
        assert!(max - min <= 2.0 + 1e-5, "{max} {min}");
        // The 440 Hz band is the loudest in the middle of the tone.
        let frame = 50;
        let loudest = (0..80)
            .max_by(|a, b| mel[a * FRAMES + frame].total_cmp(&mel[b * FRAMES + frame]))
            .unwrap();
        assert!((5..=12).contains(&loudest), "{loudest}");
    }

    #[test]
    fn tokens_decode_to_text() {
        assert_eq!(
            decode_tokens(&[
                "<|startoftranscript|>",
                "ĠSorry",
                "Ġto",
                "Ġinterrupt",
                ",",
                "<|endoftext|>"
            ]),
            "Sorry to interrupt,"
        );
        // Multi-byte characters are spread over byte-level tokens.
        assert_eq!(decode_tokens(&["Ġä½", "ł", "å¥½"]), "你好");
        assert_eq!(
            prompt(false, "en", &[]),
            ["<|startoftranscript|>", "<|notimestamps|>"]
        );
        assert_eq!(prompt(true, "zh", &[])[1], "<|zh|>");
        // What was said before comes first, after its own start token.
        let with_fillers = prompt(false, "en", FILLER_CONTEXT);
        assert_eq!(with_fillers[0], "<|startofprev|>");
        assert_eq!(&with_fillers[1..=FILLER_CONTEXT.len()], FILLER_CONTEXT);
        assert_eq!(
            with_fillers[FILLER_CONTEXT.len() + 1..],
            ["<|startoftranscript|>", "<|notimestamps|>"]
        );
        // The context reads as a transcript with fillers in it.
        assert_eq!(
            decode_tokens(FILLER_CONTEXT),
            "Um, so, uh, I think it's, um, like, you know, uh, sort of good. Hmm. Uh, okay."
        );
    }

    proptest! {
        #[test]
        fn any_text_survives_byte_level_encoding(text in "\\PC{0,30}") {
            let table = byte_decoder();
            let token: String = text.bytes().map(|b| table[b as usize]).collect();
            prop_assert_eq!(decode_tokens(&[token]), text.trim());
        }

        #[test]
        fn features_are_finite(samples in prop::collection::vec(-1.0f32..1.0, 0..4000)) {
            let mel = MelFrontEnd::new(80).log_mel(&samples);
            prop_assert!(mel.iter().all(|v| v.is_finite()));
        }
    }

    #[test]
    fn a_word_looping_is_a_runaway_and_speech_is_not() {
        assert!(is_runaway("um, uh, uh, uh, uh, uh, uh, uh,"));
        assert!(is_runaway("Very very very very very very good."));
        assert!(!is_runaway(
            "Um, uh, can you show me a derivative, uh, with numbers?"
        ));
        assert!(!is_runaway("No, no, no, no, no."));
        assert!(!is_runaway(""));
    }
}

//! What a listener hears as silence: stretches of `conversation.wav` with no sound, from
//! its first sound to its last, outside the human's own speech. The timeline's gaps
//! between utterances miss the waits inside one (a sentence still being voiced while the
//! one before it has ended).

/// A quiet stretch this long or longer counts (a speaker's pause between sentences is
/// shorter).
pub const MIN_SILENCE_MS: f64 = 1_000.0;

/// 20 ms frames; a frame whose RMS is above this is sound (the opener measure too).
pub const SOUND_RMS: f32 = 0.01;

/// Silent stretches of at least [`MIN_SILENCE_MS`] as `(start_ms, length_ms)`, between the
/// first and the last sound, with the human's speech (`(start_ms, end_ms)` spans) taken
/// out of each.
pub fn silences(samples: &[f32], rate: u32, human: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let frame = (rate / 50).max(1) as usize;
    let sounds: Vec<bool> = samples
        .chunks(frame)
        .map(|f| audio_utils::rms(f) > SOUND_RMS)
        .collect();
    let (Some(first), Some(last)) = (
        sounds.iter().position(|&s| s),
        sounds.iter().rposition(|&s| s),
    ) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut quiet_since = None;
    for (i, &sound) in sounds.iter().enumerate().take(last + 1).skip(first) {
        match (sound, quiet_since) {
            (false, None) => quiet_since = Some(i),
            (true, Some(start)) => {
                let span = (start as f64 * 20.0, i as f64 * 20.0);
                let heard = span.1 - span.0 - overlap(span, human);
                if heard >= MIN_SILENCE_MS {
                    out.push((span.0, heard));
                }
                quiet_since = None;
            }
            _ => {}
        }
    }
    out
}

/// How much of `span` the human's speech covers (ms).
fn overlap(span: (f64, f64), human: &[(f64, f64)]) -> f64 {
    human
        .iter()
        .map(|&(s, e)| (e.min(span.1) - s.max(span.0)).max(0.0))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn audio(parts: &[(bool, u32)]) -> Vec<f32> {
        parts
            .iter()
            .flat_map(|&(sound, ms)| {
                std::iter::repeat_n(if sound { 0.3 } else { 0.0 }, ms as usize)
            })
            .collect()
    }

    #[test]
    fn quiet_stretches_between_sounds_count_and_the_humans_speech_does_not() {
        // 1 kHz: one sample per ms. Lead-in silence, words, 3 s quiet, words, 0.5 s quiet,
        // words, 4 s quiet of which the human speaks 2.5 s, words, a quiet tail.
        let samples = audio(&[
            (false, 5_000),
            (true, 1_000),
            (false, 3_000),
            (true, 1_000),
            (false, 500),
            (true, 1_000),
            (false, 4_000),
            (true, 1_000),
            (false, 2_000),
        ]);
        let human = [(12_000.0, 14_500.0)];
        assert_eq!(
            silences(&samples, 1_000, &human),
            vec![(6_000.0, 3_000.0), (11_500.0, 1_500.0)]
        );
        assert!(silences(&audio(&[(false, 3_000)]), 1_000, &[]).is_empty());
    }
}

//! The human's side of the recording: what the microphones heard, placed on the
//! player's clock (the samples of `conversation.wav`), and the human's utterances, timed
//! by the recognizer in each microphone's own clock, moved onto it.
//!
//! A microphone streams in real time, so a block is placed to end where the clock stood
//! when it arrived (its last sample was just captured). Blocks of one microphone follow
//! each other without a seam while that placement stays within [`RESYNC_MS`]; past it
//! (the stream stalled) the microphone is placed anew, never over its own earlier
//! blocks. Several
//! microphones are mixed. Samples are final once no block can land on them any more,
//! [`HOLD_BACK_MS`] behind the clock.

use std::collections::{BTreeMap, VecDeque};

use audio_utils::StreamResampler;
use serde::Serialize;

/// How far a microphone's seamless placement may drift from its arrival before it is
/// placed anew.
pub const RESYNC_MS: u64 = 250;

/// How far behind the clock mixed samples wait for a late block.
pub const HOLD_BACK_MS: u64 = 1_000;

/// Placements of one microphone kept to map the recognizer's times: a stream that runs
/// steadily is placed once, so these cover far more than a session's recent minutes.
const MAX_ANCHORS: usize = 256;

/// One human utterance: a line of `timeline.jsonl`, beside the players' lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HumanLine {
    pub speaker: String,
    pub question_id: u64,
    /// Always true: what tells this line from an agent's.
    pub human: bool,
    /// When the voice detector heard the speech begin and end, on the recording's clock;
    /// for typed words, when they reached the player.
    pub speech_start_ms: u64,
    pub speech_end_ms: u64,
    /// The words came typed, not spoken.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub typed: bool,
    pub text: String,
}

/// Mixed microphone samples that are final: they start at `start` (samples of the
/// recording's clock), after the previous ones; silence fills what lies between.
#[derive(Debug, Clone, PartialEq)]
pub struct Final {
    pub start: u64,
    pub samples: Vec<f32>,
}

#[derive(Debug)]
struct Mic {
    resampler: StreamResampler,
    /// The microphone's own clock: its samples taken so far, at its rate.
    taken: u64,
    /// Samples it gave at the recording's rate (the resampler's output so far).
    given: u64,
    /// Where its next sample goes on the recording's clock.
    end: u64,
    /// `(given, at)`: from its `given`-th sample on, the microphone was placed at `at`.
    anchors: VecDeque<(u64, u64)>,
}

/// The human's recording on the player's clock; see the module's documentation.
#[derive(Debug)]
pub struct HumanRecorder {
    rate: u32,
    mics: BTreeMap<String, Mic>,
    /// Samples handed out as final.
    flushed: u64,
    /// Mixed samples from `flushed` on.
    pending: Vec<f32>,
}

impl HumanRecorder {
    /// A recorder at the recording's `rate`, whose first `flushed` samples were already
    /// written (a restarted player continues its file).
    pub fn new(rate: u32, flushed: u64) -> Self {
        Self {
            rate,
            mics: BTreeMap::new(),
            flushed,
            pending: Vec::new(),
        }
    }

    fn samples(&self, ms: u64) -> u64 {
        ms * u64::from(self.rate) / 1000
    }

    fn ms(&self, samples: u64) -> u64 {
        samples * 1000 / u64::from(self.rate)
    }

    /// A block of microphone `mic` at `rate` Hz, received when the clock stood at `now`
    /// samples. Returns the samples this made final, if any.
    pub fn heard(&mut self, mic: &str, block: &[f32], rate: u32, now: u64) -> Option<Final> {
        let recording_rate = self.rate;
        let entry = self.mics.entry(mic.to_owned());
        let state = match entry {
            std::collections::btree_map::Entry::Occupied(o) => {
                let state = o.into_mut();
                if state.resampler.from_rate() != rate {
                    // A new rate is a new stream: placed anew from here.
                    state.resampler = StreamResampler::new(rate, recording_rate);
                    state.taken = 0;
                    state.given = 0;
                    state.anchors.clear();
                }
                state
            }
            std::collections::btree_map::Entry::Vacant(v) => v.insert(Mic {
                resampler: StreamResampler::new(rate, recording_rate),
                taken: 0,
                given: 0,
                end: 0,
                anchors: VecDeque::new(),
            }),
        };
        let out = state.resampler.process(block);
        state.taken += block.len() as u64;
        // The block's last sample is now; the resampler still holds what follows the
        // samples it gave.
        let taken_at_rate = state.taken * u64::from(recording_rate) / u64::from(rate.max(1));
        let held = taken_at_rate.saturating_sub(state.given + out.len() as u64);
        let arrival = now.saturating_sub(held + out.len() as u64);
        let tolerance = RESYNC_MS * u64::from(recording_rate) / 1000;
        let seamless = !state.anchors.is_empty() && state.end.abs_diff(arrival) <= tolerance;
        // Placed anew only forward: one microphone's blocks never overlap.
        let at = if seamless {
            state.end
        } else {
            arrival.max(state.end)
        }
        .max(self.flushed);
        if !seamless || at != state.end {
            if state.anchors.len() == MAX_ANCHORS {
                state.anchors.pop_front();
            }
            state.anchors.push_back((state.given, at));
        }
        state.given += out.len() as u64;
        state.end = at + out.len() as u64;
        if self.pending.is_empty() {
            // Nothing waits before it: the silence up to it is left to the writer.
            self.flushed = at;
        }
        let offset = (at - self.flushed) as usize;
        if self.pending.len() < offset + out.len() {
            self.pending.resize(offset + out.len(), 0.0);
        }
        for (slot, sample) in self.pending[offset..].iter_mut().zip(&out) {
            *slot = (*slot + sample).clamp(-1.0, 1.0);
        }
        let hold_back = self.samples(HOLD_BACK_MS);
        self.take_until(now.saturating_sub(hold_back))
    }

    /// Everything heard, final: the session ended.
    pub fn finish(&mut self) -> Option<Final> {
        self.take_until(u64::MAX)
    }

    fn take_until(&mut self, until: u64) -> Option<Final> {
        let n = (until.saturating_sub(self.flushed) as usize).min(self.pending.len());
        if n == 0 {
            return None;
        }
        let samples: Vec<f32> = self.pending.drain(..n).collect();
        let start = self.flushed;
        self.flushed += n as u64;
        Some(Final { start, samples })
    }

    /// A human's utterance as a timeline line. `heard`: the microphone and the span of
    /// its own clock the words were spoken in (`None`: typed words), put on the
    /// recording's clock; typed words, or a span of a microphone never heard here, are
    /// timed `now_ms`, when they arrived.
    pub fn line(
        &self,
        speaker: &str,
        question_id: u64,
        text: String,
        heard: Option<(&str, u64, u64)>,
        now_ms: u64,
    ) -> HumanLine {
        let placed = heard.and_then(|(mic, start, end)| self.place(mic, start, end));
        let (speech_start_ms, speech_end_ms) = placed.unwrap_or((now_ms, now_ms));
        HumanLine {
            speaker: speaker.to_owned(),
            question_id,
            human: true,
            speech_start_ms,
            speech_end_ms,
            typed: heard.is_none(),
            text,
        }
    }

    /// A span of microphone `mic`'s own clock (milliseconds of its stream, as the
    /// recognizer counts them) on the recording's clock, in milliseconds; `None` for a
    /// microphone never heard.
    pub fn place(&self, mic: &str, start_ms: u64, end_ms: u64) -> Option<(u64, u64)> {
        let state = self.mics.get(mic)?;
        let on_clock = |ms: u64| {
            let given = self.samples(ms);
            let (from, at) = state
                .anchors
                .iter()
                .rev()
                .find(|(from, _)| *from <= given)
                .or(state.anchors.front())
                .copied()?;
            Some(self.ms((at + given).saturating_sub(from)))
        };
        Some((on_clock(start_ms)?, on_clock(end_ms)?))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const RATE: u32 = 16_000;

    /// `blocks` blocks of 20 ms of `value` from microphone `mic`, each arriving on time
    /// from `start_ms` on; returns everything made final.
    fn stream(
        r: &mut HumanRecorder,
        mic: &str,
        start_ms: u64,
        blocks: u64,
        value: f32,
    ) -> Vec<Final> {
        (1..=blocks)
            .filter_map(|k| r.heard(mic, &[value; 320], RATE, (start_ms + 20 * k) * 16))
            .collect()
    }

    /// The samples from `from` on, silence filled in as the writer does.
    fn joined(finals: &[Final], from: u64) -> Vec<f32> {
        let mut out = Vec::new();
        let mut next = from;
        for f in finals {
            assert!(f.start >= next, "final samples never go back");
            out.resize(out.len() + (f.start - next) as usize, 0.0);
            next = f.start + f.samples.len() as u64;
            out.extend(&f.samples);
        }
        out
    }

    #[test]
    fn a_steady_microphone_lands_where_it_was_heard() {
        let mut r = HumanRecorder::new(RATE, 0);
        // Silence for a second, then a second of voice, the microphone starting 500 ms
        // into the session.
        let mut finals = stream(&mut r, "audio", 500, 50, 0.0);
        finals.extend(stream(&mut r, "audio", 1_500, 50, 0.5));
        finals.extend(r.finish());
        let samples = joined(&finals, 0);
        let first_voice = samples.iter().position(|s| *s > 0.25).unwrap() as u64;
        assert_eq!(first_voice, 1_500 * 16);
        // The recognizer's second of voice (1000..2000 ms of the microphone's own
        // stream) is at 1500..2500 ms of the recording.
        assert_eq!(r.place("audio", 1_000, 2_000), Some((1_500, 2_500)));
        assert_eq!(r.place("audio_console", 0, 10), None);
    }

    #[test]
    fn a_line_is_spoken_when_it_has_a_span_typed_when_not() {
        let mut r = HumanRecorder::new(RATE, 0);
        stream(&mut r, "audio", 500, 100, 0.5);
        let spoken = r.line("human", 3, "Why?".into(), Some(("audio", 100, 600)), 9_000);
        assert_eq!((spoken.speech_start_ms, spoken.speech_end_ms), (600, 1_100));
        assert!(!spoken.typed);
        // A microphone the player was not given: spoken, timed on arrival.
        let unplaced = r.line("human", 4, "So?".into(), Some(("audio_x", 0, 10)), 9_000);
        assert_eq!((unplaced.speech_start_ms, unplaced.typed), (9_000, false));
        let typed = r.line("human", 5, "Typed.".into(), None, 9_100);
        assert_eq!((typed.speech_end_ms, typed.typed), (9_100, true));
    }

    #[test]
    fn two_microphones_are_mixed() {
        let mut r = HumanRecorder::new(RATE, 0);
        let mut finals = Vec::new();
        for k in 1..=50u64 {
            finals.extend(r.heard("audio", &[0.25; 320], RATE, 20 * k * 16));
            finals.extend(r.heard("audio_console", &[0.25; 320], RATE, 20 * k * 16));
        }
        finals.extend(r.finish());
        let samples = joined(&finals, 0);
        assert_eq!(samples.len(), 16_000);
        assert!(samples.iter().all(|s| (*s - 0.5).abs() < 1e-6));
    }

    #[test]
    fn a_stalled_stream_is_placed_anew_and_a_restart_continues() {
        let mut r = HumanRecorder::new(RATE, 8_000);
        let mut finals = stream(&mut r, "audio", 500, 25, 0.5);
        // Two seconds without a block, then it streams on.
        finals.extend(stream(&mut r, "audio", 3_000, 25, 0.5));
        finals.extend(r.finish());
        let samples = joined(&finals, 8_000);
        assert!(samples[..8_000].iter().all(|s| *s == 0.5));
        assert!(samples[8_000..40_000].iter().all(|s| *s == 0.0));
        assert_eq!(r.place("audio", 600, 600), Some((3_100, 3_100)));
    }

    proptest! {
        /// However the blocks come (sizes, rates, jitter, bursts), final samples never go
        /// back, nothing heard is lost, and a span maps forward in time.
        #[test]
        fn final_samples_never_go_back_and_nothing_is_lost(
            blocks in prop::collection::vec((1usize..2_000, 0u64..400), 1..80),
            rate in prop::sample::select(vec![16_000u32, 24_000, 22_050]),
        ) {
            let mut r = HumanRecorder::new(22_050, 0);
            let mut now = 0u64;
            let mut finals = Vec::new();
            let mut heard = 0usize;
            for (len, ms) in &blocks {
                now += ms * 22_050 / 1000;
                heard += len;
                finals.extend(r.heard("audio", &vec![0.01; *len], rate, now));
            }
            finals.extend(r.finish());
            let samples = joined(&finals, 0);
            let expected = heard as u64 * 22_050 / u64::from(rate);
            let loud = samples.iter().filter(|s| **s > 0.001).count() as u64;
            // The resampler keeps at most its latency until the end.
            prop_assert!(loud + 2_000 >= expected, "{loud} of {expected}");
            let (a, b) = r.place("audio", 10, 1_000).unwrap();
            prop_assert!(a <= b);
        }
    }
}

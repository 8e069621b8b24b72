//! The agents' own voices taken out of a microphone before speech is detected in it.
//!
//! With a loudspeaker and an open microphone in one room, the microphone hears the agents
//! too; read as speech, their voice would hold the floor against themselves. The player's
//! output (what the loudspeaker plays) is the reference: an adaptive filter (speexdsp's
//! multi-delay echo canceller, through `aec-rs`) learns how the room delays and weakens it
//! and subtracts its estimate; what is left (the residual) is the human, and it is what
//! the voice detector and the recognizer get.
//!
//! While the loudspeaker plays, a residual frame much weaker than what it plays is taken
//! for echo the filter missed and silenced: the human must speak at least about as loud
//! as the echo to take the floor.
//!
//! Both streams arrive in real time; the reference is queued as it comes and consumed at
//! the microphone's pace, so it leads the echo by the room's delay. Time is the number of
//! samples pushed.

use std::collections::VecDeque;

use audio_utils::to_i16;

/// The canceller's frame: 10 ms at 16 kHz.
pub const FRAME: usize = 160;

/// How far the reference may run ahead of the microphone before its oldest samples are
/// dropped (a stalled microphone must not leave the reference seconds early).
const MAX_LEAD_MS: usize = 500;

/// A residual frame weaker than this share of the loudest reference frame within the
/// filter's reach is taken for what is left of the echo and silenced. The filter leaves
/// up to a third of the echo while it learns the room (the first second) and at times
/// after; an echo 6 dB down (the loudest the room may be) then stays under a fifth of the
/// reference, while a human speaking over it at least as loud as the echo passes.
const ECHO_GATE: f32 = 0.3;

/// While the filter has heard less of the loudspeaker than this, it has not learned the
/// room yet and leaves most of the echo: the gate then stands above the loudest echo the
/// room may return (6 dB down), so the session's first agent line is no barge-in either.
/// (Measured: at 0.3 the first agent line of a session, 6 dB down, was heard as the human.)
const LEARNING_MS: usize = 3000;
const LEARNING_GATE: f32 = 0.6;

/// One microphone's echo canceller.
pub struct EchoCanceller {
    aec: aec_rs::Aec,
    reference: VecDeque<f32>,
    /// Microphone samples short of a frame.
    pending: Vec<f32>,
    max_lead: usize,
    /// Reference samples dropped because they ran too far ahead.
    dropped: u64,
    /// The level of each reference frame within the filter's reach, newest last.
    recent_levels: VecDeque<f32>,
    reach_frames: usize,
    /// Reference frames with sound heard so far, up to the learning time.
    heard_frames: usize,
    learning_frames: usize,
}

impl std::fmt::Debug for EchoCanceller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EchoCanceller")
            .field("reference", &self.reference.len())
            .field("pending", &self.pending.len())
            .finish()
    }
}

impl EchoCanceller {
    /// A canceller for audio at `sample_rate` whose filter covers echoes up to `tail_ms`
    /// after the reference (the room's delay and reverberation).
    pub fn new(sample_rate: u32, tail_ms: u32) -> Self {
        let config = aec_rs::AecConfig {
            frame_size: FRAME,
            filter_length: (sample_rate as usize * tail_ms as usize / 1000).max(FRAME) as i32,
            sample_rate,
            // Its noise and residual-echo suppressor takes a steady voice for noise:
            // the human over the echo lost three quarters of their level with it.
            enable_preprocess: false,
        };
        Self {
            aec: aec_rs::Aec::new(&config),
            reference: VecDeque::new(),
            pending: Vec::new(),
            max_lead: sample_rate as usize * MAX_LEAD_MS / 1000,
            dropped: 0,
            recent_levels: VecDeque::new(),
            reach_frames: (sample_rate as usize * tail_ms as usize / 1000 / FRAME).max(1),
            heard_frames: 0,
            learning_frames: sample_rate as usize * LEARNING_MS / 1000 / FRAME,
        }
    }

    /// What the loudspeaker played (at the canceller's rate).
    pub fn push_reference(&mut self, samples: &[f32]) {
        self.reference.extend(samples);
        let over = self.reference.len().saturating_sub(self.max_lead);
        if over > 0 {
            self.reference.drain(..over);
            self.dropped += over as u64;
        }
    }

    /// Microphone samples in, the residual out: whole frames only, so the output lags the
    /// input by less than a frame (10 ms).
    pub fn process(&mut self, microphone: &[f32]) -> Vec<f32> {
        self.pending.extend_from_slice(microphone);
        let frames = self.pending.len() / FRAME;
        let mut out = Vec::with_capacity(frames * FRAME);
        let mut mic = [0i16; FRAME];
        let mut far = [0i16; FRAME];
        let mut residual = [0i16; FRAME];
        for frame in self.pending.chunks_exact(FRAME) {
            for (m, s) in mic.iter_mut().zip(frame) {
                *m = to_i16(*s);
            }
            // No reference: the loudspeaker is silent now (its echo may still ring in
            // the room: the filter still holds what it played).
            for f in far.iter_mut() {
                *f = self.reference.pop_front().map_or(0, to_i16);
            }
            self.aec.cancel_echo(&mic, &far, &mut residual);
            let far_level = level(&far);
            if far_level > 0.0 && self.heard_frames < self.learning_frames {
                self.heard_frames += 1;
            }
            self.recent_levels.push_back(far_level);
            if self.recent_levels.len() > self.reach_frames {
                self.recent_levels.pop_front();
            }
            let loudest = self.recent_levels.iter().copied().fold(0.0, f32::max);
            let gate = if self.heard_frames < self.learning_frames {
                LEARNING_GATE
            } else {
                ECHO_GATE
            };
            if loudest > 0.0 && level(&residual) < gate * loudest {
                out.extend([0.0; FRAME]);
            } else {
                out.extend(residual.iter().map(|&r| f32::from(r) / 32768.0));
            }
        }
        self.pending.drain(..frames * FRAME);
        out
    }

    /// Reference samples dropped so far for running too far ahead.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

/// The RMS level of 16-bit samples, as a fraction of full scale.
fn level(samples: &[i16]) -> f32 {
    let sum: f64 = samples.iter().map(|&s| f64::from(s) * f64::from(s)).sum();
    ((sum / samples.len().max(1) as f64).sqrt() / 32768.0) as f32
}

#[cfg(test)]
mod tests {
    use super::*;
    use audio_utils::rms;

    const RATE: u32 = 16_000;

    /// A voice-like signal: a few harmonics whose pitch and loudness wander, in syllables.
    fn voice(seconds: f32, pitch: f32, seed: u32) -> Vec<f32> {
        let n = (seconds * RATE as f32) as usize;
        (0..n)
            .map(|i| {
                let t = i as f32 / RATE as f32;
                let f0 = pitch * (1.0 + 0.1 * (t * 3.0 + seed as f32).sin());
                let syllable = (t * 4.0 + seed as f32 * 0.7).sin().abs();
                let tone: f32 = (1..6)
                    .map(|h| (std::f32::consts::TAU * f0 * h as f32 * t).sin() / h as f32)
                    .sum();
                0.15 * syllable * tone
            })
            .collect()
    }

    /// The microphone of a room: `played` back after `delay_ms`, `gain_db` weaker, plus
    /// `human`.
    fn room(played: &[f32], delay_ms: usize, gain_db: f32, human: &[f32]) -> Vec<f32> {
        let delay = RATE as usize * delay_ms / 1000;
        let gain = 10f32.powf(gain_db / 20.0);
        (0..played.len().max(human.len()))
            .map(|i| {
                let echo = i
                    .checked_sub(delay)
                    .and_then(|j| played.get(j))
                    .unwrap_or(&0.0);
                echo * gain + human.get(i).unwrap_or(&0.0)
            })
            .collect()
    }

    /// Feeds the reference and the microphone in 20 ms blocks, as the nodes do.
    fn cancel(played: &[f32], mic: &[f32], tail_ms: u32) -> Vec<f32> {
        let mut canceller = EchoCanceller::new(RATE, tail_ms);
        let block = RATE as usize / 50;
        let mut out = Vec::new();
        for (i, chunk) in mic.chunks(block).enumerate() {
            if let Some(reference) = played.get(i * block..((i + 1) * block).min(played.len())) {
                canceller.push_reference(reference);
            }
            out.extend(canceller.process(chunk));
        }
        out
    }

    #[test]
    fn the_echo_of_the_loudspeaker_leaves_the_microphone() {
        for (delay_ms, gain_db) in [(30, -6.0), (120, -6.0), (60, -20.0)] {
            let played = voice(6.0, 140.0, 1);
            let mic = room(&played, delay_ms, gain_db, &[]);
            let residual = cancel(&played, &mic, 200);
            // After the filter has learned the room (the first two seconds).
            let from = 2 * RATE as usize;
            let echo = rms(&mic[from..residual.len()]);
            let left = rms(&residual[from..]);
            assert!(
                left < echo / 4.0,
                "{delay_ms} ms, {gain_db} dB: echo {echo}, left {left}"
            );
        }
    }

    #[test]
    fn the_human_over_the_echo_stays() {
        let played = voice(8.0, 140.0, 1);
        let mut human = vec![0.0; 4 * RATE as usize];
        human.extend(voice(3.0, 210.0, 5));
        let mic = room(&played, 80, -6.0, &human);
        let residual = cancel(&played, &mic, 200);
        let speaking = 4 * RATE as usize + RATE as usize / 2..6 * RATE as usize;
        let kept = rms(&residual[speaking.clone()]);
        let said = rms(&human[speaking]);
        assert!(kept > said / 3.0, "human {said}, kept {kept}");
    }

    #[test]
    fn without_a_reference_the_microphone_passes_and_nothing_is_lost() {
        let human = voice(1.0, 200.0, 3);
        let mut canceller = EchoCanceller::new(RATE, 200);
        let mut out = Vec::new();
        for chunk in human.chunks(333) {
            out.extend(canceller.process(chunk));
        }
        // Whole frames only, the rest held for the next block.
        assert_eq!(out.len(), human.len() / FRAME * FRAME);
        assert!(rms(&out[RATE as usize / 2..]) > rms(&human) / 3.0);
    }

    #[test]
    fn a_reference_far_ahead_of_the_microphone_is_dropped_from_its_oldest() {
        let mut canceller = EchoCanceller::new(RATE, 200);
        canceller.push_reference(&vec![0.1; RATE as usize]);
        assert_eq!(canceller.dropped(), RATE as u64 / 2);
    }
}

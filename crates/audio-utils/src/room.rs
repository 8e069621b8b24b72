//! A simulated room: what a loudspeaker plays reaches a microphone some milliseconds later
//! and weaker. Lets a dataflow test the agents' voices coming back through an open
//! microphone without a sound card.
//!
//! What was played is queued behind a delay and added to the microphone's blocks at their
//! pace; when the loudspeaker has been silent (the queue ran dry), the next sound is
//! delayed again, so the delay holds whatever the blocks' sizes and timing. A room keeps
//! no sound for long: what was played while the microphone took no blocks (a node busy
//! starting up) is gone, not returned later all at once.

use std::collections::VecDeque;

/// The echo path of one room.
#[derive(Debug, Clone)]
pub struct Room {
    delay: usize,
    /// The most that may wait behind the delay: a microphone's block or two.
    slack: usize,
    gain: f32,
    queue: VecDeque<f32>,
}

impl Room {
    /// At `sample_rate`, an echo `delay_ms` late and `gain_db` (below 0) weaker.
    pub fn new(sample_rate: u32, delay_ms: u32, gain_db: f32) -> Self {
        Self {
            delay: (u64::from(sample_rate) * u64::from(delay_ms) / 1000) as usize,
            slack: sample_rate as usize / 2,
            gain: 10f32.powf(gain_db / 20.0),
            queue: VecDeque::new(),
        }
    }

    /// The loudspeaker played `samples` (at the room's rate) now.
    pub fn play(&mut self, samples: &[f32]) {
        if self.queue.is_empty() {
            self.queue.extend(std::iter::repeat_n(0.0, self.delay));
        }
        self.queue.extend(samples);
        let over = self.queue.len().saturating_sub(self.delay + self.slack);
        self.queue.drain(..over);
    }

    /// Adds the echo due now to the microphone's next block.
    pub fn mix_into(&mut self, block: &mut [f32]) {
        for sample in block.iter_mut() {
            match self.queue.pop_front() {
                Some(echo) => *sample += echo * self.gain,
                None => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_played_sound_comes_back_late_and_weaker() {
        let mut room = Room::new(1000, 3, -6.0);
        room.play(&[1.0, 1.0]);
        let mut block = [0.5f32; 6];
        room.mix_into(&mut block);
        let gain = 10f32.powf(-6.0 / 20.0);
        assert_eq!(block[..3], [0.5, 0.5, 0.5]);
        assert!((block[3] - (0.5 + gain)).abs() < 1e-6 && (block[4] - (0.5 + gain)).abs() < 1e-6);
        assert_eq!(block[5], 0.5);
        // Silent since: the next sound is delayed again.
        room.play(&[1.0]);
        let mut block = [0.0f32; 4];
        room.mix_into(&mut block);
        assert_eq!(block[..3], [0.0, 0.0, 0.0]);
        assert!(block[3] > 0.0);
    }

    #[test]
    fn sound_played_while_the_microphone_took_nothing_is_gone() {
        // A minute played while the microphone was not listening: only its last half
        // second (and the delay) comes back, never the whole minute at once.
        let mut room = Room::new(1000, 80, 0.0);
        for _ in 0..60 {
            room.play(&[1.0; 1000]);
        }
        let mut block = vec![0.0f32; 2000];
        room.mix_into(&mut block);
        let echoed = block.iter().filter(|&&s| s > 0.0).count();
        assert_eq!(echoed, 80 + 500);
    }

    #[test]
    fn sound_played_while_the_echo_rings_follows_on_without_a_new_delay() {
        let mut room = Room::new(1000, 2, 0.0);
        room.play(&[1.0]);
        room.play(&[2.0]);
        let mut block = [0.0f32; 4];
        room.mix_into(&mut block);
        assert_eq!(block, [0.0, 0.0, 1.0, 2.0]);
    }
}

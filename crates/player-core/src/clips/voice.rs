//! One held clip and the voice that sounds it: gain ramps, ducking, the text heard.

use crate::heard::{Heard, heard_part};

#[derive(Debug, Clone)]
pub(super) struct Clip {
    pub(super) speaker: String,
    pub(super) question_id: u64,
    /// What is synthesized and played one after the other: the clip's sentences, a
    /// long one of a clip played from its first sentence cut into phrases.
    pub(super) phrases: Vec<String>,
    /// Whether each phrase ends a sentence: beats fall there only.
    pub(super) ends_sentence: Vec<bool>,
    pub(super) audio: Vec<Option<Vec<f32>>>,
    pub(super) failed: Vec<bool>,
    /// Reported ready at its first sentence with sound, not when complete.
    pub(super) ready_at_first_sentence: bool,
    pub(super) ready_reported: bool,
    /// Arrival order, for dropping the oldest held clip.
    pub(super) seq: u64,
}

impl Clip {
    fn done(&self, i: usize) -> bool {
        self.audio[i].is_some() || self.failed[i]
    }

    /// How many phrases from the first are synthesized (or failed).
    pub(super) fn done_prefix(&self) -> usize {
        (0..self.phrases.len())
            .take_while(|&i| self.done(i))
            .count()
    }
}

/// A voice lowered under an overlay: the duck armed for the overlay's start, since
/// when it is lowered, the spans it was, and the ramp back up.
#[derive(Debug, Clone, Default)]
pub(super) struct Duck {
    /// Armed duck: (gain, ramp in samples).
    pub(super) armed: Option<(f32, u64)>,
    pub(super) since: Option<u64>,
    /// Sample spans lowered, for the clip's report.
    pub(super) spans: Vec<[u64; 2]>,
    /// The ramp back up after a duck, in samples.
    pub(super) unduck_ramp: u64,
}

#[derive(Debug, Clone)]
pub(super) struct Voice {
    pub(super) clip_id: String,
    pub(super) clip: Clip,
    pub(super) overlay: bool,
    /// The phrase sounding.
    pub(super) phrase: usize,
    pub(super) position: usize,
    /// Not before this sample.
    pub(super) start_at: u64,
    pub(super) started_at: Option<u64>,
    pub(super) gain: f32,
    pub(super) target: f32,
    /// Gain change per sample (positive).
    pub(super) step: f32,
    pub(super) fading_out: bool,
    /// Lowered under an overlay: armed, since when, the spans it was.
    pub(super) duck: Duck,
    pub(super) heard: Heard,
}

impl Voice {
    pub(super) fn new(clip_id: String, clip: Clip, overlay: bool, start_at: u64) -> Self {
        Self {
            clip_id,
            clip,
            overlay,
            phrase: 0,
            position: 0,
            start_at,
            started_at: None,
            gain: 1.0,
            target: 1.0,
            step: 1.0,
            fading_out: false,
            duck: Duck::default(),
            heard: Heard::default(),
        }
    }

    pub(super) fn ramp_to(&mut self, target: f32, samples: u64) {
        self.target = target;
        let distance = (self.gain - target).abs();
        self.step = if samples == 0 {
            f32::INFINITY
        } else {
            (distance / samples as f32).max(f32::EPSILON)
        };
    }

    pub(super) fn advance_gain(&mut self) {
        if self.gain < self.target {
            self.gain = (self.gain + self.step).min(self.target);
        } else if self.gain > self.target {
            self.gain = (self.gain - self.step).max(self.target);
        }
    }

    pub(super) fn is_ducked(&self) -> bool {
        self.duck.since.is_some()
    }

    /// Ducked and done ramping down: an overlay may sound.
    pub(super) fn duck_settled(&self) -> bool {
        self.is_ducked() && self.gain <= self.target
    }

    /// Audio of the current phrase, skipping failed ones; `None`: a gap (not ready).
    /// `Err(())`: no phrase left.
    pub(super) fn current(&mut self) -> Result<Option<&Vec<f32>>, ()> {
        while self.phrase < self.clip.phrases.len()
            && self.clip.failed[self.phrase]
            && self.clip.audio[self.phrase].is_none()
        {
            self.phrase += 1;
            self.position = 0;
        }
        if self.phrase >= self.clip.phrases.len() {
            return Err(());
        }
        Ok(self.clip.audio[self.phrase].as_ref())
    }

    pub(super) fn ready_to_sound(&mut self) -> bool {
        matches!(self.current(), Ok(Some(_)))
    }

    /// Credits the part of the current sentence heard so far (whole words).
    pub(super) fn credit_partial(&mut self) {
        let Some(Some(audio)) = self.clip.audio.get(self.phrase) else {
            return;
        };
        let text = &self.clip.phrases[self.phrase];
        if let Some(part) = heard_part(text, self.position, audio.len()) {
            self.heard.push(&part);
        }
    }
}

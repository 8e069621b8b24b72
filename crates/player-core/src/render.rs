//! Each audio block rendered: the playing utterance's next samples, gaps, and fades.

use crate::*;

impl Player {
    /// Fills `block` with the next samples (speech or silence) and advances the clock.
    pub fn render(&mut self, block: &mut [f32]) -> Rendered {
        block.fill(0.0);
        let mut rendered = Rendered::default();
        let mut filled = 0;
        if !self.fade.is_empty() {
            let n = self.fade.len().min(block.len());
            block[..n].copy_from_slice(&self.fade[..n]);
            self.fade.drain(..n);
            // The cut-off voice fades; nobody else starts in the same block.
            self.clock += block.len() as u64;
            return rendered;
        }
        let rate = self.config.sample_rate;
        if let Some(since) = self.held_since {
            // Held: silence, clips and queue alike, unless nobody resolved the pause in
            // time.
            if self.clock - since < u64::from(rate) * PAUSE_LIMIT_SECS {
                self.clock += block.len() as u64;
                return rendered;
            }
            self.held_since = None;
        }
        if self.clips.is_active() {
            rendered.speaker = self.clips.render(
                block,
                self.clock,
                rate,
                &mut rendered.events,
                &mut rendered.audit,
            );
            self.clock += block.len() as u64;
            return rendered;
        }
        while filled < block.len() {
            let Some(mut entry) = self.queue.first_entry() else {
                break;
            };
            let question_id = *entry.key();
            let at = self.clock + filled as u64;
            let utterance = entry.get_mut();
            if utterance.finished() {
                let utterance = entry.remove();
                self.done_through = self.done_through.max(question_id);
                // Reported even when nothing sounded (a failed generation): whoever waits
                // for playback must learn that this utterance is over.
                rendered.events.push(PlayerOutput::Played(TimelineRecord {
                    speaker: utterance.speaker,
                    question_id,
                    start_ms: samples_to_ms(utterance.started_at.unwrap_or(at), rate),
                    end_ms: samples_to_ms(at, rate),
                    interrupted: false,
                    chars_played: utterance.heard.chars(),
                    text_played: utterance.heard.into_text(),
                }));
                continue;
            }
            let index = utterance.playing_index;
            let Some(slot) = utterance.segments.get(&index) else {
                break; // the next segment has not arrived: a gap
            };
            if slot.failed {
                utterance.playing_index += 1;
                utterance.position = 0;
                continue;
            }
            let Some(audio) = &slot.audio else {
                break; // still being synthesized: a gap
            };
            if audio.is_empty() {
                utterance.playing_index += 1;
                continue;
            }
            let n = (audio.len() - utterance.position).min(block.len() - filled);
            block[filled..filled + n]
                .copy_from_slice(&audio[utterance.position..utterance.position + n]);
            let segment_done = utterance.position + n == audio.len();
            let text = segment_done.then(|| slot.text.clone());
            if utterance.started_at.is_none() {
                utterance.started_at = Some(at);
                self.started_through = self.started_through.max(question_id);
                rendered.events.push(PlayerOutput::PlaybackStarted {
                    speaker: utterance.speaker.clone(),
                    question_id,
                    at_ms: samples_to_ms(at, rate),
                });
            }
            filled += n;
            utterance.position += n;
            rendered.speaker = Some((utterance.speaker.clone(), question_id));
            if let Some(text) = text {
                utterance.heard.push(&text);
                utterance.playing_index += 1;
                utterance.position = 0;
            }
        }
        self.clock += block.len() as u64;
        rendered
    }

    /// Fades out the clips sounding now (the main voice and any overlay), which keep
    /// their places for a resume: their next samples, rendered now, are the fade.
    pub(super) fn start_fade_of_clips(&mut self, events: &mut Vec<PlayerOutput>) {
        let mut tail = vec![0.0; self.config.fade_samples];
        let mut audit = ClipAudit::default();
        self.clips.render(
            &mut tail,
            self.clock,
            self.config.sample_rate,
            events,
            &mut audit,
        );
        audio_utils::fade_out(&mut tail);
        self.fade = tail;
    }

    /// Fades out whatever is sounding now, keeping its position for a resume.
    pub(super) fn start_fade_of_current(&mut self) {
        if let Some((_, utterance)) = self.queue.first_key_value()
            && utterance.started_at.is_some()
        {
            // No clone of the utterance's audio: this runs on every barge-in.
            if let Some(tail) = fade_tail(utterance, self.config.fade_samples) {
                self.fade = tail;
            }
        }
    }

    pub(super) fn start_fade(&mut self, utterance: &Utterance) {
        if let Some(tail) = fade_tail(utterance, self.config.fade_samples) {
            self.fade = tail;
        }
    }
}

/// The next `fade_samples` of what `utterance` is playing, faded out.
pub(super) fn fade_tail(utterance: &Utterance, fade_samples: usize) -> Option<Vec<f32>> {
    let audio = utterance
        .segments
        .get(&utterance.playing_index)
        .and_then(|s| s.audio.as_ref())?;
    let end = (utterance.position + fade_samples).min(audio.len());
    let mut tail = audio[utterance.position.min(end)..end].to_vec();
    audio_utils::fade_out(&mut tail);
    Some(tail)
}

//! A segment taken into its utterance and sent for synthesis, or refused while the queue is
//! full.

use crate::*;

impl Player {
    /// A segment to play: queued in its utterance and sent for synthesis, unless it came
    /// already spoken (`audio`, from a node-hub TTS node) or holds nothing to say.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn accept_segment(
        &mut self,
        speaker: String,
        question_id: u64,
        index: u32,
        last: bool,
        text: String,
        audio: Option<Vec<f32>>,
        events: &mut Vec<PlayerOutput>,
    ) {
        // Stale, already played, or older than what is sounding now: utterances never go
        // back in question-id order.
        let behind = question_id <= self.done_through
            || (question_id < self.started_through && !self.queue.contains_key(&question_id));
        if self.stale.is_stale(question_id) || behind || self.refused.contains(&question_id) {
            return;
        }
        if !self.queue.contains_key(&question_id) && self.queue.len() >= MAX_QUEUED_UTTERANCES {
            self.refuse(speaker, question_id, index, events);
            return;
        }
        if let Some(utterance) = self.queue.get_mut(&question_id)
            && utterance.segments.len() >= MAX_SEGMENTS_PER_UTTERANCE
            && !utterance.segments.contains_key(&index)
        {
            // Ends with what it holds; the segments past the cap are not voiced.
            if utterance.last_index.is_none() {
                utterance.last_index = utterance.segments.keys().next_back().copied();
            }
            events.push(PlayerOutput::Skipped {
                question_id,
                index,
                error: format!(
                    "refused: the utterance already holds {MAX_SEGMENTS_PER_UTTERANCE} segments (MAX_SEGMENTS_PER_UTTERANCE); it ends there"
                ),
            });
            return;
        }
        // Segments of an utterance arrive in order, so one first seen past its start lost
        // its beginning to a player that died; only a restarted player plays on from it.
        let joined_late =
            !self.queue.contains_key(&question_id) && index > 0 && self.joined_mid_stream;
        if index == 0 {
            self.joined_mid_stream = false;
        }
        let utterance = self.queue.entry(question_id).or_insert_with(|| Utterance {
            speaker: speaker.clone(),
            segments: BTreeMap::new(),
            last_index: None,
            playing_index: if joined_late { index } else { 0 },
            position: 0,
            started_at: None,
            heard: Default::default(),
        });
        if utterance.segments.contains_key(&index) {
            return; // a duplicate: the first copy stands
        }
        if last {
            utterance.last_index = Some(index);
        }
        let needs_voice = audio.is_none() && !text.trim().is_empty();
        utterance.segments.insert(
            index,
            SegmentSlot {
                text: text.clone(),
                audio: if needs_voice {
                    None
                } else {
                    Some(audio.unwrap_or_default())
                },
                failed: false,
            },
        );
        if needs_voice {
            events.push(PlayerOutput::Synthesize {
                speaker,
                question_id,
                index,
                text,
            });
        }
    }

    /// Refuses a new utterance while the queue is full: reported (for the log) and done
    /// with nothing heard (for whoever waits for its playback), and remembered so that its
    /// later segments are dropped as well.
    pub(super) fn refuse(
        &mut self,
        speaker: String,
        question_id: u64,
        index: u32,
        events: &mut Vec<PlayerOutput>,
    ) {
        self.refused.insert(question_id);
        while self.refused.len() > MAX_QUEUED_UTTERANCES {
            self.refused.pop_first();
        }
        events.push(PlayerOutput::Skipped {
            question_id,
            index,
            error: format!(
                "refused: the player already holds {MAX_QUEUED_UTTERANCES} utterances (MAX_QUEUED_UTTERANCES)"
            ),
        });
        let now = self.now_ms();
        events.push(PlayerOutput::Played(TimelineRecord {
            speaker,
            question_id,
            start_ms: now,
            end_ms: now,
            interrupted: false,
            chars_played: 0,
            text_played: String::new(),
        }));
    }
}

//! Per-turn latency, dead air and barge-in, from the times inputs arrive (milliseconds
//! on the node's clock, passed in).
//!
//! - After the human: end of the human's speech → transcript → first token → first
//!   audio (the end of speech is the last loud block of the human's audio the console
//!   saw; without that audio, the transcript's arrival; a typed message ends when sent).
//! - Every turn: turn → first token → first audio.
//! - Dead air: the silence before a voice starts, from the later of the previous
//!   voice's end and the human's end of speech.
//! - Barge-in to silence: the human's first sound while a voice plays → the first quiet
//!   block of the player's audio (a held voice sends no blocks: then its last loud block
//!   before its end).

use std::collections::VecDeque;

use serde::Serialize;

/// RMS above which a block of the human's audio counts as voice.
pub const VOICE_RMS: f32 = 0.02;
/// RMS below which a block of the player's audio counts as silence.
pub const SILENCE_RMS: f32 = 0.002;
/// Turns and barge-ins kept (and shown).
pub const KEEP: usize = 30;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TurnLatency {
    pub question_id: u64,
    pub speaker: String,
    pub turn_at_ms: u64,
    /// Set when the turn answers the human.
    pub after_human: bool,
    pub speech_end_to_transcript_ms: Option<u64>,
    pub speech_end_to_first_token_ms: Option<u64>,
    pub speech_end_to_first_audio_ms: Option<u64>,
    pub turn_to_first_token_ms: Option<u64>,
    pub turn_to_first_audio_ms: Option<u64>,
    pub dead_air_ms: Option<u64>,
    #[serde(skip)]
    speech_end_at: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BargeIn {
    pub at_ms: u64,
    pub speaker: String,
    pub to_silence_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct LatencyView {
    pub turns: Vec<TurnLatency>,
    pub barge_ins: Vec<BargeIn>,
}

#[derive(Debug, Default)]
pub struct Latency {
    turns: VecDeque<TurnLatency>,
    barge_ins: VecDeque<BargeIn>,
    /// The human's last loud block.
    last_voice_ms: Option<u64>,
    /// (speech end, transcript) waiting for the next turn.
    pending_human: Option<(u64, u64)>,
    /// The voice playing now: (question id, speaker).
    playing: Option<(u64, String)>,
    last_voice_end_ms: Option<u64>,
    barge_start: Option<(u64, String)>,
    /// The last loud block of the player's audio since the barge-in began.
    barge_last_loud: Option<u64>,
}

impl Latency {
    pub fn view(&self) -> LatencyView {
        LatencyView {
            turns: self.turns.iter().cloned().collect(),
            barge_ins: self.barge_ins.iter().cloned().collect(),
        }
    }

    /// A block of the human's audio (the microphone the console sees).
    pub fn human_audio(&mut self, rms: f32, now: u64) {
        if rms >= VOICE_RMS {
            self.last_voice_ms = Some(now);
        }
    }

    /// The human's first sound (`speech_started`); starts a barge-in when a voice plays.
    pub fn speech_started(&mut self, now: u64) {
        if let Some((_, speaker)) = &self.playing
            && self.barge_start.is_none()
        {
            self.barge_start = Some((now, speaker.clone()));
            self.barge_last_loud = None;
        }
    }

    /// The human's sound was only a backchannel: a held voice resumes, so a barge-in in
    /// progress ended at the voice's last loud block.
    pub fn backchannel(&mut self) -> bool {
        self.end_barge_in(None)
    }

    /// The human's words arrived (a transcript, or a message typed on the page).
    pub fn human_words(&mut self, typed: bool, now: u64) {
        self.end_barge_in(None);
        let end = if typed {
            now
        } else {
            self.last_voice_ms.filter(|&t| t <= now).unwrap_or(now)
        };
        self.last_voice_end_ms = Some(self.last_voice_end_ms.map_or(end, |t| t.max(end)));
        self.pending_human = Some((end, now));
    }

    /// A turn was handed out. Returns true when the view changed.
    pub fn turn(&mut self, question_id: u64, speaker: &str, now: u64) -> bool {
        if self.turns.iter().any(|t| t.question_id == question_id) {
            return false; // a repeated turn (after `ready`)
        }
        let mut record = TurnLatency {
            question_id,
            speaker: speaker.to_owned(),
            turn_at_ms: now,
            after_human: false,
            speech_end_to_transcript_ms: None,
            speech_end_to_first_token_ms: None,
            speech_end_to_first_audio_ms: None,
            turn_to_first_token_ms: None,
            turn_to_first_audio_ms: None,
            dead_air_ms: None,
            speech_end_at: None,
        };
        if let Some((end, transcript)) = self.pending_human.take() {
            record.after_human = true;
            record.speech_end_at = Some(end);
            record.speech_end_to_transcript_ms = Some(transcript.saturating_sub(end));
        }
        self.turns.push_back(record);
        while self.turns.len() > KEEP {
            self.turns.pop_front();
        }
        true
    }

    /// A chunk of text from a participant.
    pub fn token(&mut self, question_id: u64, now: u64) -> bool {
        let Some(t) = self.turn_mut(question_id) else {
            return false;
        };
        if t.turn_to_first_token_ms.is_some() {
            return false;
        }
        t.turn_to_first_token_ms = Some(now.saturating_sub(t.turn_at_ms));
        t.speech_end_to_first_token_ms = t.speech_end_at.map(|e| now.saturating_sub(e));
        true
    }

    /// A voice began (`playback_started`).
    pub fn voice_started(&mut self, question_id: u64, speaker: &str, now: u64) -> bool {
        self.playing = Some((question_id, speaker.to_owned()));
        let silence_from = self.last_voice_end_ms;
        let changed = self.first_audio(question_id, now);
        if let Some(t) = self.turn_mut(question_id)
            && t.dead_air_ms.is_none()
            && let Some(from) = silence_from
        {
            t.dead_air_ms = Some(now.saturating_sub(from));
            return true;
        }
        changed
    }

    /// A block of the player's audio; returns true when the view changed.
    pub fn voice_block(&mut self, question_id: Option<u64>, rms: f32, now: u64) -> bool {
        let mut changed = question_id.is_some_and(|q| self.first_audio(q, now));
        if rms < SILENCE_RMS {
            changed |= self.end_barge_in(Some(now));
        } else if self.barge_start.is_some() {
            self.barge_last_loud = Some(now);
        }
        changed
    }

    /// A voice ended (`playback_done`).
    pub fn voice_done(&mut self, question_id: Option<u64>, now: u64) -> bool {
        if question_id.is_none() || self.playing.as_ref().map(|p| p.0) == question_id {
            self.playing = None;
        }
        self.last_voice_end_ms = Some(now);
        // A held (paused) voice sends no blocks: it fell silent after its last loud one.
        self.end_barge_in(None)
    }

    /// Ends a barge-in at a quiet block (`Some(time)`), or, when the voice ended, at its
    /// last loud block (at once if none came after the human's first sound).
    fn end_barge_in(&mut self, quiet_at: Option<u64>) -> bool {
        let Some((start, speaker)) = self.barge_start.take() else {
            return false;
        };
        let silent_at = quiet_at.or(self.barge_last_loud).unwrap_or(start);
        self.barge_last_loud = None;
        self.barge_ins.push_back(BargeIn {
            at_ms: start,
            speaker,
            to_silence_ms: silent_at.saturating_sub(start),
        });
        while self.barge_ins.len() > KEEP {
            self.barge_ins.pop_front();
        }
        true
    }

    fn first_audio(&mut self, question_id: u64, now: u64) -> bool {
        let Some(t) = self.turn_mut(question_id) else {
            return false;
        };
        if t.turn_to_first_audio_ms.is_some() {
            return false;
        }
        t.turn_to_first_audio_ms = Some(now.saturating_sub(t.turn_at_ms));
        t.speech_end_to_first_audio_ms = t.speech_end_at.map(|e| now.saturating_sub(e));
        true
    }

    fn turn_mut(&mut self, question_id: u64) -> Option<&mut TurnLatency> {
        self.turns
            .iter_mut()
            .rev()
            .find(|t| t.question_id == question_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_after_the_human_is_measured_from_the_end_of_speech() {
        let mut l = Latency::default();
        l.turn(1, "student1", 0);
        l.voice_started(1, "student1", 300);
        l.human_audio(0.2, 1000);
        l.speech_started(1000);
        l.voice_block(Some(1), 0.3, 1050);
        l.voice_block(Some(1), 0.0, 1080);
        l.voice_done(Some(1), 1100);
        l.human_audio(0.2, 2000);
        l.human_audio(0.0, 2020);
        l.human_words(false, 2400);
        l.turn(5, "tutor", 2410);
        l.token(5, 2600);
        l.token(5, 2700);
        l.voice_started(5, "tutor", 3000);
        let v = l.view();
        let first = &v.turns[0];
        assert_eq!(first.turn_to_first_audio_ms, Some(300));
        assert_eq!(first.dead_air_ms, None, "nothing was heard before");
        let t = &v.turns[1];
        assert!(t.after_human);
        assert_eq!(t.speech_end_to_transcript_ms, Some(400));
        assert_eq!(t.speech_end_to_first_token_ms, Some(600));
        assert_eq!(t.speech_end_to_first_audio_ms, Some(1000));
        assert_eq!(t.turn_to_first_token_ms, Some(190));
        assert_eq!(t.turn_to_first_audio_ms, Some(590));
        assert_eq!(t.dead_air_ms, Some(1000));
        assert_eq!(
            v.barge_ins,
            [BargeIn {
                at_ms: 1000,
                speaker: "student1".into(),
                to_silence_ms: 80
            }]
        );
    }

    #[test]
    fn a_held_voice_is_silent_after_its_last_loud_block() {
        let mut l = Latency::default();
        l.turn(1, "tutor", 0);
        l.voice_started(1, "tutor", 10);
        l.speech_started(1000);
        l.voice_block(Some(1), 0.3, 1020);
        l.voice_done(Some(1), 5000);
        assert_eq!(l.view().barge_ins[0].to_silence_ms, 20);
        l.voice_started(2, "tutor", 6000);
        l.speech_started(7000);
        l.voice_done(Some(2), 9000);
        assert_eq!(
            l.view().barge_ins[1].to_silence_ms,
            0,
            "no block after the first sound"
        );
    }

    #[test]
    fn dead_air_between_agents_and_repeated_turns() {
        let mut l = Latency::default();
        assert!(l.turn(1, "a", 0));
        l.voice_started(1, "a", 100);
        assert!(l.turn(2, "b", 150));
        assert!(!l.turn(2, "b", 170), "a repeated turn keeps its first time");
        l.voice_done(Some(1), 2000);
        l.voice_started(2, "b", 2250);
        let v = l.view();
        assert_eq!(v.turns[1].dead_air_ms, Some(250));
        assert_eq!(v.turns[1].turn_to_first_audio_ms, Some(2100));
        assert!(!v.turns[1].after_human);
        assert!(v.barge_ins.is_empty());
    }

    #[test]
    fn a_typed_message_ends_when_sent_and_keeps_a_bounded_history() {
        let mut l = Latency::default();
        l.human_words(true, 500);
        l.turn(3, "tutor", 520);
        assert_eq!(l.view().turns[0].speech_end_to_transcript_ms, Some(0));
        for q in 10..100 {
            l.turn(q, "x", q);
        }
        assert_eq!(l.view().turns.len(), KEEP);
    }
}

//! Pacing against what has been heard: a finished utterance waits while too many lines
//! are still unheard, up to the playback timeout, and always goes on before its speaker
//! would count as absent.

use super::{Notice, Output, Roundtable};
use crate::phrases::LineKind;

#[derive(Debug, Clone)]
pub(super) struct Held {
    pub(super) agent: String,
    pub(super) question_id: u64,
    pub(super) text: String,
}

/// Lines waiting to be heard (paced only), the finished utterance held behind them,
/// and the last playback report.
#[derive(Debug, Clone, Default)]
pub(super) struct Pacing {
    /// A finished utterance waiting until older lines have been heard.
    pub(super) held: Option<Held>,
    /// Question ids of spoken lines not yet reported as heard (paced only), with the
    /// moderator's lines that are said again if the human cuts them unheard.
    pub(super) unplayed: ::conductor::Unheard<Option<(LineKind, String)>>,
    /// The last playback report (or the start of the current wait).
    pub(super) last_progress_ms: u64,
}

impl Roundtable {
    /// The player's `playback_done` for `question_id`.
    pub fn on_played(&mut self, question_id: u64, now_ms: u64) -> Vec<Output> {
        let mut out = Vec::new();
        self.pacing.last_progress_ms = now_ms;
        // The player sounds lines in question-id order: older ones are done too.
        self.pacing.unplayed.heard(question_id);
        self.human_floor.voice_ended(question_id);
        if let Some(closing) = self.close.ending {
            if closing.is_none_or(|q| q <= question_id) {
                out.push(Output::Notice(Notice::ClosingHeard));
                self.close.finished = true;
            }
            return out;
        }
        if self.pacing.held.is_some() && !self.too_much_unplayed() {
            self.deliver_held(now_ms, &mut out);
        }
        out
    }

    pub(super) fn too_much_unplayed(&self) -> bool {
        self.config.paced && self.pacing.unplayed.len() > self.config.max_unplayed
    }

    pub(super) fn playback_deadline(&self) -> u64 {
        self.pacing
            .last_progress_ms
            .saturating_add(self.config.playback_timeout_ms)
    }

    /// A held utterance goes on after the playback timeout, and always before the
    /// round would count its speaker as absent.
    pub(super) fn hold_deadline(&self) -> u64 {
        let wait = self.playback_deadline();
        match self.round_deadline() {
            Some(d) => wait.min(d.saturating_sub(1)),
            None => wait,
        }
    }

    pub(super) fn deliver_held(&mut self, now_ms: u64, out: &mut Vec<Output>) {
        let Some(held) = self.pacing.held.take() else {
            return;
        };
        self.finish_turn(&held.agent, Some(held.question_id), held.text, now_ms, out);
    }
}

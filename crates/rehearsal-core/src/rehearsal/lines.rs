//! The moderator's lines on the wire: each with its question id, paced against what
//! was heard (a line finishes when played, or at once without a player), notices cut
//! when an exchange starts, the trigger → audio latency, and the wait for the closing
//! line before the node leaves.

use serde_json::json;
use voice_protocol::InterruptKind;

use super::Output;
use super::Rehearsal;
use super::decisions::Event;
use super::files::MODERATOR;
use super::phases::Phase;
use crate::phrases::PhraseKind;

/// The control command that opened Q&A, for the trigger → audio latency.
#[derive(Debug, Clone)]
pub(super) struct Opening {
    pub(super) at_ms: u64,
    pub(super) command: String,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Closing {
    /// The last line said, if it waits to be heard.
    pub(super) line: Option<u64>,
    pub(super) since_ms: u64,
}

impl Rehearsal {
    pub(super) fn line_timeout_ms(&self) -> u64 {
        self.config().thresholds.line_timeout_ms
    }

    pub(super) fn fresh_question_id(&mut self) -> u64 {
        let q = self.next_question_id;
        self.next_question_id += 1;
        q
    }

    /// Once the session has ended, the node leaves when its closing line has been heard
    /// (or after the panel's line timeout): every other node then sees its inputs close.
    pub(super) fn check_closing(&mut self, now_ms: u64) {
        if self.finished || self.phase() != Phase::Ended {
            return;
        }
        let closing = *self.closing.get_or_insert(Closing {
            line: self.lines.newest(),
            since_ms: now_ms,
        });
        if closing.line.is_none_or(|q| !self.lines.contains(q)) {
            tracing::info!("the session is over and its closing line was heard");
            self.finished = true;
        } else if now_ms >= closing.since_ms.saturating_add(self.line_timeout_ms()) {
            tracing::warn!("the closing line was not reported as played in time; leaving");
            self.finished = true;
        }
    }

    pub(super) fn send_line(
        &mut self,
        line_id: u64,
        kind: PhraseKind,
        text: String,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) -> Option<Event> {
        // The presenter took a question while notices still wait to be heard: they are
        // moot (the hand is taken), and the transition line should not wait behind them.
        // The cut has an id of its own, so every id names one decision, in order.
        if kind == PhraseKind::Transition && !self.unheard_notices.is_empty() {
            let moot = std::mem::take(&mut self.unheard_notices);
            tracing::info!(lines = ?moot, "notices not heard yet are cut: an exchange starts");
            for notice in &moot {
                self.lines.heard_exactly(*notice);
            }
            let cut = self.fresh_question_id();
            out.push(Output::Interrupt {
                question_id: cut,
                kind: InterruptKind::Cancel,
            });
        }
        let q = self.fresh_question_id();
        tracing::info!(kind = kind.slug(), question_id = q, %text, "moderator says");
        out.push(Output::Line {
            question_id: q,
            text: text.clone(),
            kind,
        });
        out.push(Output::Utterance {
            speaker: MODERATOR.to_owned(),
            question_id: q,
            text: text.clone(),
            human: false,
        });
        if kind == PhraseKind::Transition
            && let Some(opening) = self.opening.clone()
        {
            let latency = now_ms.saturating_sub(opening.at_ms) as f64;
            Self::record(
                out,
                now_ms,
                "qa_line_out",
                json!({ "command": opening.command, "question_id": q, "latency_ms": latency }),
            );
            self.awaiting_audio.insert(q, opening);
        }
        Self::record(
            out,
            now_ms,
            "say",
            json!({ "kind": kind.slug(), "question_id": q, "line_id": line_id, "text": text }),
        );
        if self.paced {
            self.lines.said(q, line_id);
            if matches!(
                kind,
                PhraseKind::HandRaiseNotice
                    | PhraseKind::EngagementPrompt
                    | PhraseKind::SuggestPause
                    | PhraseKind::EncourageAdvance
            ) {
                self.unheard_notices.insert(q);
            }
            None
        } else {
            Some(Event::ModeratorLineFinished { line_id })
        }
    }

    pub(super) fn played(&mut self, question_id: Option<u64>, now_ms: u64, out: &mut Vec<Output>) {
        let Some(q) = question_id else {
            tracing::warn!("playback_done without question_id ignored");
            return;
        };
        self.unheard_notices.remove(&q);
        self.floor.voice_ended(q);
        // A presenter's line voiced by the player (a scripted presenter): its speech ends.
        self.delivery.voice_ended(q, now_ms);
        if let Some(line_id) = self.lines.heard_exactly(q)
            && self.paced
        {
            self.feed(Event::ModeratorLineFinished { line_id }, now_ms, out);
        }
    }

    pub(super) fn playback_started(
        &mut self,
        question_id: Option<u64>,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        let Some(q) = question_id else {
            tracing::warn!("playback_started without question_id ignored");
            return;
        };
        self.delivery.voice_started(q, now_ms);
        self.floor.voice_started(q);
        if let Some(opening) = self.awaiting_audio.remove(&q) {
            let latency = now_ms.saturating_sub(opening.at_ms) as f64;
            tracing::info!(command = %opening.command, latency_ms = format!("{latency:.1}"), "Q&A trigger → first moderator audio");
            Self::record(
                out,
                now_ms,
                "qa_first_audio",
                json!({ "command": opening.command, "question_id": q, "latency_ms": latency }),
            );
        }
    }
}

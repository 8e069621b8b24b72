//! The moderator's lines on the wire: each with its question id, paced against what
//! was heard (a line finishes when played, or at once without a player), notices cut
//! when an exchange starts, the trigger → audio latency, and the wait for the closing
//! line before the node leaves.

use std::collections::{BTreeSet, HashMap};

use voice_protocol::InterruptKind;

use super::Output;
use super::Rehearsal;
use super::decisions::Event;
use super::files::{MODERATOR, RecordEvent};
use super::notice::Notice;
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

/// The moderator's lines on the wire, as their own state: the question ids handed out,
/// the lines not heard yet, the notices that an exchange makes moot, the lines whose
/// first audio closes a Q&A trigger's latency, the voices held while the presenter
/// speaks over them, and the wait for the closing line.
#[derive(Debug)]
pub(super) struct OnAir {
    /// A player reports `playback_done` (see [`super::Config::paced`]): a line finishes
    /// when heard; without one, at once.
    paced: bool,
    next_question_id: u64,
    /// Moderator lines waiting to be heard: wire question id → line id. Each report
    /// finishes exactly its own line (the rules count every line).
    lines: ::conductor::Unheard<u64>,
    /// Notices said while the presenter presents ("Priya has a question.", an engagement
    /// prompt) and not heard yet, by wire question id: moot once an exchange starts.
    unheard_notices: BTreeSet<u64>,
    /// Transition lines waiting for their first audio, by wire question id.
    awaiting_audio: HashMap<u64, Opening>,
    /// While a control command is handled: it, and when it came.
    pub(super) opening: Option<Opening>,
    /// Once the session has ended: the closing line's wait.
    closing: Option<Closing>,
    /// The closing wait is over: the node leaves.
    pub(super) finished: bool,
    /// The debrief waits for the panel's last ratings until then.
    pub(super) debrief_due: Option<u64>,
    /// The presenter's floor: a panelist's or the moderator's voice held while they
    /// speak over it.
    pub(super) floor: ::conductor::Floor,
}

impl OnAir {
    pub(super) fn new(paced: bool) -> Self {
        Self {
            paced,
            next_question_id: 1,
            lines: ::conductor::Unheard::new(),
            unheard_notices: BTreeSet::new(),
            awaiting_audio: HashMap::new(),
            opening: None,
            closing: None,
            finished: false,
            debrief_due: None,
            floor: ::conductor::Floor::new(),
        }
    }

    /// The next question id; every id names one decision, in order.
    pub(super) fn fresh_question_id(&mut self) -> u64 {
        let q = self.next_question_id;
        self.next_question_id += 1;
        q
    }

    /// The notices not heard yet, now moot: taken as heard.
    fn drop_notices(&mut self) -> BTreeSet<u64> {
        let moot = std::mem::take(&mut self.unheard_notices);
        for notice in &moot {
            self.lines.heard_exactly(*notice);
        }
        moot
    }

    /// Line `line_id` went out as `question_id`: whether it waits to be heard (paced),
    /// else it is finished at once.
    fn sent(&mut self, question_id: u64, line_id: u64, kind: PhraseKind) -> bool {
        if !self.paced {
            return false;
        }
        self.lines.said(question_id, line_id);
        if matches!(
            kind,
            PhraseKind::HandRaiseNotice
                | PhraseKind::EngagementPrompt
                | PhraseKind::SuggestPause
                | PhraseKind::EncourageAdvance
        ) {
            self.unheard_notices.insert(question_id);
        }
        true
    }

    /// `question_id` was heard: the line it finishes, when lines wait to be heard.
    fn heard(&mut self, question_id: u64) -> Option<u64> {
        self.unheard_notices.remove(&question_id);
        self.lines.heard_exactly(question_id).filter(|_| self.paced)
    }

    /// The closing wait: whether the closing line was heard, or waited for longer than
    /// `timeout_ms` (`Some(false)`); `None` while it is still waited for.
    fn closing_done(&mut self, now_ms: u64, timeout_ms: u64) -> Option<bool> {
        let closing = *self.closing.get_or_insert(Closing {
            line: self.lines.newest(),
            since_ms: now_ms,
        });
        if closing.line.is_none_or(|q| !self.lines.contains(q)) {
            Some(true)
        } else if now_ms >= closing.since_ms.saturating_add(timeout_ms) {
            Some(false)
        } else {
            None
        }
    }

    /// When the closing wait ends at the latest, once it started.
    pub(super) fn closing_deadline(&self, timeout_ms: u64) -> Option<u64> {
        self.closing.map(|c| c.since_ms.saturating_add(timeout_ms))
    }

    /// Whether the session's closing wait has started.
    pub(super) fn is_closing(&self) -> bool {
        self.closing.is_some()
    }
}

impl Rehearsal {
    pub(super) fn line_timeout_ms(&self) -> u64 {
        self.config().thresholds.line_timeout_ms
    }

    pub(super) fn fresh_question_id(&mut self) -> u64 {
        self.on_air.fresh_question_id()
    }

    /// Once the session has ended, the node leaves when its closing line has been heard
    /// (or after the panel's line timeout): every other node then sees its inputs close.
    pub(super) fn check_closing(&mut self, now_ms: u64, out: &mut Vec<Output>) {
        if self.on_air.finished || self.phase() != Phase::Ended || self.on_air.debrief_due.is_some()
        {
            return;
        }
        match self.on_air.closing_done(now_ms, self.line_timeout_ms()) {
            Some(true) => {
                out.push(Output::Notice(Notice::ClosingHeard));
                self.on_air.finished = true;
            }
            Some(false) => {
                out.push(Output::Notice(Notice::ClosingNotHeard));
                self.on_air.finished = true;
            }
            None => {}
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
        if kind == PhraseKind::Transition && !self.on_air.unheard_notices.is_empty() {
            let moot = self.on_air.drop_notices();
            out.push(Output::Notice(Notice::NoticesCut {
                lines: moot.into_iter().collect(),
            }));
            let cut = self.fresh_question_id();
            out.push(Output::Interrupt {
                question_id: cut,
                kind: InterruptKind::Cancel,
            });
        }
        let q = self.fresh_question_id();
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
            && let Some(opening) = self.on_air.opening.clone()
        {
            let latency = now_ms.saturating_sub(opening.at_ms) as f64;
            Self::record(
                out,
                now_ms,
                RecordEvent::QaLineOut {
                    command: opening.command.clone(),
                    question_id: q,
                    latency_ms: latency,
                },
            );
            self.on_air.awaiting_audio.insert(q, opening);
        }
        Self::record(
            out,
            now_ms,
            RecordEvent::Say {
                kind: kind.slug(),
                question_id: q,
                line_id,
                text,
            },
        );
        if self.on_air.sent(q, line_id, kind) {
            None
        } else {
            Some(Event::ModeratorLineFinished { line_id })
        }
    }

    pub(super) fn played(&mut self, question_id: Option<u64>, now_ms: u64, out: &mut Vec<Output>) {
        let Some(q) = question_id else {
            out.push(Output::Notice(Notice::PlayedWithoutQuestionId));
            return;
        };
        self.on_air.floor.voice_ended(q);
        // A presenter's line voiced by the player (a scripted presenter): its speech ends.
        self.results.delivery.voice_ended(q, now_ms);
        if let Some(line_id) = self.on_air.heard(q) {
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
            out.push(Output::Notice(Notice::StartedWithoutQuestionId));
            return;
        };
        self.results.delivery.voice_started(q, now_ms);
        self.on_air.floor.voice_started(q);
        if let Some(opening) = self.on_air.awaiting_audio.remove(&q) {
            let latency = now_ms.saturating_sub(opening.at_ms) as f64;
            out.push(Output::Notice(Notice::FirstAudio {
                command: opening.command.clone(),
                latency_ms: latency,
            }));
            Self::record(
                out,
                now_ms,
                RecordEvent::QaFirstAudio {
                    command: opening.command,
                    question_id: q,
                    latency_ms: latency,
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paced_line_waits_to_be_heard_and_an_unpaced_one_does_not() {
        let mut paced = OnAir::new(true);
        let q = paced.fresh_question_id();
        assert!(paced.sent(q, 7, PhraseKind::Transition));
        assert_eq!(paced.heard(q), Some(7));
        // Each report finishes its own line once.
        assert_eq!(paced.heard(q), None);

        let mut unpaced = OnAir::new(false);
        let q = unpaced.fresh_question_id();
        assert!(!unpaced.sent(q, 7, PhraseKind::Transition));
        assert_eq!(unpaced.heard(q), None);
    }

    #[test]
    fn question_ids_are_handed_out_once_each_in_order() {
        let mut on_air = OnAir::new(true);
        let ids: Vec<u64> = (0..4).map(|_| on_air.fresh_question_id()).collect();
        assert_eq!(ids, [1, 2, 3, 4]);
    }

    #[test]
    fn notices_not_heard_are_dropped_as_moot_and_finish_nothing_later() {
        let mut on_air = OnAir::new(true);
        let notice = on_air.fresh_question_id();
        on_air.sent(notice, 1, PhraseKind::HandRaiseNotice);
        let line = on_air.fresh_question_id();
        on_air.sent(line, 2, PhraseKind::Transition);
        assert_eq!(on_air.drop_notices(), BTreeSet::from([notice]));
        assert_eq!(on_air.heard(notice), None);
        assert_eq!(on_air.heard(line), Some(2));
        assert!(on_air.drop_notices().is_empty());
    }

    #[test]
    fn the_closing_wait_ends_when_its_line_is_heard_or_at_its_timeout() {
        let mut heard = OnAir::new(true);
        let q = heard.fresh_question_id();
        heard.sent(q, 1, PhraseKind::Transition);
        assert!(!heard.is_closing());
        assert_eq!(heard.closing_done(1_000, 500), None);
        assert_eq!(heard.closing_deadline(500), Some(1_500));
        heard.heard(q);
        assert_eq!(heard.closing_done(1_200, 500), Some(true));

        let mut lost = OnAir::new(true);
        let q = lost.fresh_question_id();
        lost.sent(q, 1, PhraseKind::Transition);
        assert_eq!(lost.closing_done(1_000, 500), None);
        assert_eq!(lost.closing_done(1_499, 500), None);
        assert_eq!(lost.closing_done(1_500, 500), Some(false));

        // Nothing waits to be heard: the wait is over at once.
        assert_eq!(OnAir::new(false).closing_done(0, 500), Some(true));
    }
}

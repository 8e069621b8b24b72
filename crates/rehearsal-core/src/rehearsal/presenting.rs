//! The presenter presenting: their words and silences, slide changes, what opens
//! Q&A, and the notices and prompts the moderator says at pauses.

use std::collections::{BTreeMap, BTreeSet};

use voice_protocol::{InterruptKind, ids, shorten};

use super::decisions::{Action, Event};
use super::exchange::Step;
use super::files::{ContextFile, RecordEvent, SharedFile, WriteMode};
use super::lines::Opening;
use super::notice::Notice;
use super::phases::Phase;
use super::{Output, Rehearsal};
use crate::config::{InteractionMode, Thresholds};
use crate::messages::{self, Control};
use crate::phrases::PhraseKind;
use crate::record::{Speaker, Trigger};

/// The presenting rules' timer table: when the phase began and when each rule last
/// acted. The presenting phase's deadlines but the quiet ones are read from it.
#[derive(Debug, Clone, Default)]
pub(super) struct Timers {
    /// When the phase under way began.
    pub(super) phase_since: u64,
    /// When the panel was last asked for candidate questions.
    pub(super) last_candidate_request: Option<u64>,
    /// When a panelist last asked a question.
    pub(super) last_question_ms: u64,
    /// When the moderator last invited the panel in (an engagement prompt).
    pub(super) last_engagement_prompt: Option<u64>,
    /// Since when the presenter has talked without a pause suggested.
    pub(super) monologue_since: u64,
    /// When a panelist last came in, or the presenting phase last resumed.
    pub(super) last_interjection: Option<u64>,
}

impl Timers {
    /// When the panel is to be asked for fresh candidates (`now` if never yet).
    pub(super) fn candidates_due(&self, now: u64, t: &Thresholds) -> u64 {
        self.last_candidate_request
            .map_or(now, |r| r.saturating_add(t.candidate_refresh_ms))
    }

    /// Since when the panel has been quiet: the last question or engagement prompt.
    pub(super) fn engagement_mark(&self) -> u64 {
        self.last_question_ms
            .max(self.last_engagement_prompt.unwrap_or(0))
    }

    /// In free flow, when a panelist may come in again at the earliest (`None`: now).
    pub(super) fn interjection_allowed(&self, t: &Thresholds) -> Option<u64> {
        self.last_interjection
            .map(|l| l.saturating_add(t.free_flow_gap_ms))
    }

    /// The presenting phase's deadlines that need nothing but the timers: fresh
    /// candidates, free flow's gap, an engagement prompt, a pause suggested.
    pub(super) fn presenting_deadlines(
        &self,
        now: u64,
        t: &Thresholds,
        free_flow: bool,
    ) -> Vec<u64> {
        let mut deadlines = vec![self.candidates_due(now, t)];
        if free_flow {
            deadlines.extend(self.interjection_allowed(t));
        }
        deadlines.push(
            self.engagement_mark()
                .saturating_add(t.engagement_prompt_ms),
        );
        deadlines.push(self.monologue_since.saturating_add(t.long_monologue_ms));
        deadlines
    }
}

/// What the presenting rules note per slide: where a section break was taken, who
/// asked on it, and whether the presenter was encouraged to move on from it.
#[derive(Debug, Clone, Default)]
pub(super) struct SlideNotes {
    broken: BTreeSet<usize>,
    asked: BTreeMap<usize, BTreeSet<usize>>,
    advance_encouraged: BTreeSet<usize>,
}

impl SlideNotes {
    /// A break is taken on `slide`: whether it is its first.
    pub(super) fn first_break(&mut self, slide: usize) -> bool {
        self.broken.insert(slide)
    }

    /// Panelist `agent` asked about `slide`.
    pub(super) fn asked(&mut self, slide: usize, agent: usize) {
        self.asked.entry(slide).or_default().insert(agent);
    }

    /// Whether all `panelists` have asked about `slide` and the presenter was not yet
    /// encouraged to move on from it (it is, from now on).
    pub(super) fn first_time_everyone_asked(&mut self, slide: usize, panelists: usize) -> bool {
        let everyone = self
            .asked
            .get(&slide)
            .is_some_and(|asked| asked.len() == panelists);
        everyone && self.advance_encouraged.insert(slide)
    }
}

#[derive(Debug, Clone, Default)]
pub(super) struct PresenterTrack {
    /// Speech started (voice activity) and no final segment since.
    pub(super) open: bool,
    pub(super) last_end: Option<u64>,
    /// A reported silence began here.
    pub(super) silent_since: Option<u64>,
    /// At least one segment since Presenting (re)started.
    pub(super) spoke_since_return: bool,
    /// Segments received while an answer is awaited.
    pub(super) answer: Vec<String>,
}

impl Rehearsal {
    pub(super) fn on_speech(&mut self, text: String, end_ms: u64, now: u64) {
        self.presenter.open = false;
        self.presenter.silent_since = None;
        let end = end_ms.min(now);
        self.presenter.last_end = Some(self.presenter.last_end.map_or(end, |l| l.max(end)));
        if text.trim().is_empty() {
            return;
        }
        if self.phase == Phase::Presenting {
            self.presenter.spoke_since_return = true;
        }
        if let Some(ex) = &self.qa.exchange
            && matches!(
                ex.step,
                Step::AwaitAnswer { .. } | Step::PileOnAnswer { .. }
            )
        {
            self.presenter.answer.push(text.trim().to_owned());
        }
    }

    pub(super) fn on_slide(&mut self, index: usize, now: u64, out: &mut Vec<Action>) {
        if !self.deck.is_empty() && index >= self.deck.len() {
            out.push(Action::Notice(Notice::UnknownSlide(index)));
            return;
        }
        let previous = self.slide;
        self.slide = index;
        self.results.delivery.slide_shown(index, now);
        if self.phase == Phase::Presenting {
            self.request_candidates(now, out);
        }
        let title_slide = self.deck.has_title_slide && previous == 0;
        if self.phase == Phase::Presenting
            && self.config.mode == InteractionMode::SectionBreaks
            && index > previous
            && !title_slide
            && self.panel.speaking.is_none()
            && self.slide_notes.first_break(previous)
        {
            self.start_break(previous, Trigger::SectionBreak, now, out);
        }
    }

    pub(super) fn on_open_qa(&mut self, now: u64, out: &mut Vec<Action>) {
        if self.phase != Phase::Presenting || self.panel.speaking.is_some() {
            out.push(Action::Notice(Notice::Busy));
            return;
        }
        if let Some(hand) = self.panel.hands.first() {
            let agent = hand.agent;
            self.start_exchange(agent, Trigger::HandRaise, self.slide, now, out);
            return;
        }
        self.slide_notes.first_break(self.slide);
        self.start_break(self.slide, Trigger::OpenQa, now, out);
    }

    /// Since when the presenter has been quiet (as far as is known).
    pub(super) fn quiet_anchor(&self) -> u64 {
        let anchor = self
            .presenter
            .last_end
            .unwrap_or(0)
            .max(self.timers.phase_since);
        self.presenter
            .silent_since
            .map_or(anchor, |s| s.min(anchor))
    }

    pub(super) fn quiet_for(&self, now: u64) -> u64 {
        if self.presenter.open {
            0
        } else {
            now.saturating_sub(self.quiet_anchor())
        }
    }

    pub(super) fn presenting_rules(&mut self, now: u64, t: &Thresholds, out: &mut Vec<Action>) {
        if now >= self.timers.candidates_due(now, t) {
            self.request_candidates(now, out);
        }
        if self.panel.speaking.is_some() {
            return;
        }
        let quiet = self.quiet_for(now);
        if self.config.mode == InteractionMode::FreeFlow
            && quiet >= t.silence_ms
            && self.presenter.spoke_since_return
            && self
                .timers
                .interjection_allowed(t)
                .is_none_or(|at| now >= at)
            && self.free_flow_trigger(now, out)
        {
            return;
        }
        if quiet < t.notice_quiet_ms {
            return;
        }
        for i in 0..self.panel.hands.len() {
            if !self.panel.hands[i].announced {
                self.panel.hands[i].announced = true;
                let agent = self.panel.hands[i].agent;
                self.say(PhraseKind::HandRaiseNotice, Some(agent), self.slide, out);
            }
        }
        if self
            .slide_notes
            .first_time_everyone_asked(self.slide, self.config.agents.len())
        {
            self.say(PhraseKind::EncourageAdvance, None, self.slide, out);
        }
        if now.saturating_sub(self.timers.engagement_mark()) >= t.engagement_prompt_ms
            && self.remaining_ms(now) > t.ending_window_ms
        {
            self.timers.last_engagement_prompt = Some(now);
            self.say(PhraseKind::EngagementPrompt, None, self.slide, out);
            self.request_candidates(now, out);
        }
        if self.presenter.spoke_since_return
            && now.saturating_sub(self.timers.monologue_since) >= t.long_monologue_ms
        {
            self.timers.monologue_since = now;
            self.say(PhraseKind::SuggestPause, None, self.slide, out);
        }
    }

    /// Free flow: the queued agent first, else the best agent with a good candidate; a
    /// second agent that also wants in is queued. Returns whether an exchange started.
    pub(super) fn free_flow_trigger(&mut self, now: u64, out: &mut Vec<Action>) -> bool {
        let wanting = self.ranked(self.slide, |i| self.has_good_candidate(i));
        let agent = match self.panel.queue.pop_front() {
            Some(q) => q,
            None => match wanting.first() {
                Some(&a) => a,
                None => return false,
            },
        };
        if let Some(&second) = wanting.iter().find(|&&w| w != agent)
            && !self.panel.queue.contains(&second)
        {
            self.panel.queue.push_back(second);
        }
        self.qa.brk = None;
        self.start_exchange(agent, Trigger::Silence, self.slide, now, out);
        true
    }

    /// What the presenter's words are, for the delivery measures: an answer while an
    /// exchange with a question is under way, else presenting the current slide.
    fn delivery_part(&self) -> delivery::Part {
        let slide = self.slide;
        let Some(ex) = self
            .qa
            .exchange
            .as_ref()
            .filter(|_| self.phase() != Phase::Presenting)
        else {
            return delivery::Part::Presenting { slide };
        };
        let question = ex
            .turns
            .iter()
            .rev()
            .find(|t| matches!(t.speaker, Speaker::Agent(_)))
            .map(|t| t.text.clone());
        match question {
            Some(question) => delivery::Part::Answering {
                exchange: ex.id,
                asker: self.config.agents[ex.agent].spoken_name().to_owned(),
                question,
            },
            None => delivery::Part::Presenting { slide },
        }
    }

    pub(super) fn presenter_line(
        &mut self,
        speaker: Option<String>,
        text: &str,
        ended: bool,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        if !ended {
            out.push(Output::Notice(Notice::PartialTranscript {
                text: shorten(text),
            }));
            return;
        }
        let text = text.trim().to_owned();
        if text.is_empty() {
            out.push(Output::Notice(Notice::EmptyTranscript));
            if let Some(change) = self.on_air.floor.no_words() {
                out.push(Output::Floor(change));
            }
            return;
        }
        self.write(
            out,
            ContextFile::Shared(SharedFile::PresenterTranscript),
            format!("[{}] {text}\n", messages::clock(now_ms)),
            WriteMode::Append,
        );
        if self.phase() == Phase::Ended {
            return;
        }
        let speaker = speaker.unwrap_or_else(|| ids::PRESENTER.to_owned());
        // The presenter took the floor over a held voice: it is cut (an id older than
        // their words, so that these are not), and what was heard of it stands.
        if self.on_air.floor.words() {
            let cut = self.fresh_question_id();
            out.push(Output::Notice(Notice::HeldVoiceCut { question_id: cut }));
            out.push(Output::Interrupt {
                question_id: cut,
                kind: InterruptKind::Cancel,
            });
        }
        let question_id = self.fresh_question_id();
        self.on_air.floor.own_line(question_id);
        out.push(Output::Utterance {
            speaker: speaker.clone(),
            question_id,
            text: text.clone(),
            human: true,
        });
        out.push(Output::PresenterText {
            speaker,
            question_id,
            text: text.clone(),
        });
        if self.phase() != Phase::Presenting {
            self.qa.last_answer = Some(text.clone());
            self.qa.exchange_text.push(format!("presenter: {text}"));
        }
        let part = self.delivery_part();
        self.results
            .delivery
            .heard(question_id, &text, part, now_ms);
        self.feed(
            Event::PresenterSpeech {
                text,
                start_ms: now_ms,
                end_ms: now_ms,
            },
            now_ms,
            out,
        );
    }

    pub(super) fn control(
        &mut self,
        control: Control,
        raw: &str,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        let command = raw.trim().to_owned();
        out.push(Output::Notice(Notice::Control {
            command: command.clone(),
        }));
        Self::record(
            out,
            now_ms,
            RecordEvent::Control {
                command: command.clone(),
            },
        );
        let slide = self.current_slide();
        let event = match control {
            Control::Slide(index) => Event::SlideChanged { index },
            Control::Next => Event::SlideChanged { index: slide + 1 },
            Control::Prev => Event::SlideChanged {
                index: slide.saturating_sub(1),
            },
            Control::OpenQa => Event::OpenQaRequested,
            Control::Hand { agent, urgency } => Event::HandRaised { agent, urgency },
            Control::Ack(agent) => Event::PresenterAcknowledged { agent },
            Control::Answered => Event::PresenterAnswerFinished {
                text: String::new(),
            },
            Control::MoveOn => Event::MoveOnRequested,
            Control::End => Event::EndSession,
        };
        self.on_air.opening = Some(Opening {
            at_ms: now_ms,
            command,
        });
        self.qa.break_slide = matches!(event, Event::SlideChanged { .. }).then_some(slide);
        self.feed(event, now_ms, out);
        self.on_air.opening = None;
        self.qa.break_slide = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slide_is_broken_once_and_moving_on_is_encouraged_once_everyone_asked() {
        let mut notes = SlideNotes::default();
        assert!(notes.first_break(2));
        assert!(!notes.first_break(2));
        notes.asked(2, 0);
        notes.asked(2, 0);
        assert!(!notes.first_time_everyone_asked(2, 2));
        notes.asked(2, 1);
        assert!(notes.first_time_everyone_asked(2, 2));
        assert!(!notes.first_time_everyone_asked(2, 2));
        assert!(!notes.first_time_everyone_asked(3, 2));
    }

    #[test]
    fn fresh_candidates_are_due_at_once_then_every_refresh() {
        let t = Thresholds::default();
        let mut timers = Timers::default();
        assert_eq!(timers.candidates_due(5_000, &t), 5_000);
        timers.last_candidate_request = Some(5_000);
        assert_eq!(
            timers.candidates_due(6_000, &t),
            5_000 + t.candidate_refresh_ms
        );
    }

    #[test]
    fn the_panel_is_quiet_since_its_last_question_or_prompt_whichever_is_later() {
        let mut timers = Timers {
            last_question_ms: 9_000,
            ..Timers::default()
        };
        assert_eq!(timers.engagement_mark(), 9_000);
        timers.last_engagement_prompt = Some(12_000);
        assert_eq!(timers.engagement_mark(), 12_000);
        timers.last_question_ms = 15_000;
        assert_eq!(timers.engagement_mark(), 15_000);
    }

    #[test]
    fn free_flow_adds_its_gap_only_once_a_panelist_came_in() {
        let t = Thresholds::default();
        let mut timers = Timers::default();
        let without = timers.presenting_deadlines(0, &t, true);
        assert_eq!(without, timers.presenting_deadlines(0, &t, false));
        timers.last_interjection = Some(1_000);
        let gap = 1_000 + t.free_flow_gap_ms;
        assert!(timers.presenting_deadlines(0, &t, true).contains(&gap));
        assert!(!timers.presenting_deadlines(0, &t, false).contains(&gap));
        assert!(
            timers
                .presenting_deadlines(0, &t, false)
                .contains(&t.long_monologue_ms)
        );
    }
}

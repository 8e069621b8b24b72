//! The presenter presenting: their words and silences, slide changes, what opens
//! Q&A, and the notices and prompts the moderator says at pauses.

use serde_json::json;
use voice_protocol::{InterruptKind, ids, shorten};

use super::decisions::{Action, Event, Notice};
use super::exchange::Step;
use super::files::{ContextFile, SharedFile, WriteMode};
use super::lines::Opening;
use super::phases::Phase;
use super::{Output, Rehearsal};
use crate::config::{InteractionMode, Thresholds};
use crate::messages::{self, Control};
use crate::phrases::PhraseKind;
use crate::record::{Speaker, Trigger};

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
        if let Some(ex) = &self.exchange
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
        self.delivery.slide_shown(index, now);
        if self.phase == Phase::Presenting {
            self.request_candidates(now, out);
        }
        let title_slide = self.deck.has_title_slide && previous == 0;
        if self.phase == Phase::Presenting
            && self.config.mode == InteractionMode::SectionBreaks
            && index > previous
            && !title_slide
            && self.speaking.is_none()
            && self.broken_slides.insert(previous)
        {
            self.start_break(previous, Trigger::SectionBreak, now, out);
        }
    }

    pub(super) fn on_open_qa(&mut self, now: u64, out: &mut Vec<Action>) {
        if self.phase != Phase::Presenting || self.speaking.is_some() {
            out.push(Action::Notice(Notice::Busy));
            return;
        }
        if let Some(hand) = self.hands.first() {
            let agent = hand.agent;
            self.start_exchange(agent, Trigger::HandRaise, self.slide, now, out);
            return;
        }
        self.broken_slides.insert(self.slide);
        self.start_break(self.slide, Trigger::OpenQa, now, out);
    }

    /// Since when the presenter has been quiet (as far as is known).
    pub(super) fn quiet_anchor(&self) -> u64 {
        let anchor = self.presenter.last_end.unwrap_or(0).max(self.phase_since);
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

    pub(super) fn engagement_mark(&self) -> u64 {
        self.last_question_ms
            .max(self.last_engagement_prompt.unwrap_or(0))
    }

    pub(super) fn presenting_rules(&mut self, now: u64, t: &Thresholds, out: &mut Vec<Action>) {
        if self
            .last_candidate_request
            .is_none_or(|r| now.saturating_sub(r) >= t.candidate_refresh_ms)
        {
            self.request_candidates(now, out);
        }
        if self.speaking.is_some() {
            return;
        }
        let quiet = self.quiet_for(now);
        if self.config.mode == InteractionMode::FreeFlow
            && quiet >= t.silence_ms
            && self.presenter.spoke_since_return
            && self
                .last_interjection
                .is_none_or(|l| now.saturating_sub(l) >= t.free_flow_gap_ms)
            && self.free_flow_trigger(now, out)
        {
            return;
        }
        if quiet < t.notice_quiet_ms {
            return;
        }
        for i in 0..self.hands.len() {
            if !self.hands[i].announced {
                self.hands[i].announced = true;
                let agent = self.hands[i].agent;
                self.say(PhraseKind::HandRaiseNotice, Some(agent), self.slide, out);
            }
        }
        let everyone = self
            .asked_on_slide
            .get(&self.slide)
            .is_some_and(|s| s.len() == self.config.agents.len());
        if everyone && self.advance_encouraged.insert(self.slide) {
            self.say(PhraseKind::EncourageAdvance, None, self.slide, out);
        }
        if now.saturating_sub(self.engagement_mark()) >= t.engagement_prompt_ms
            && self.remaining_ms(now) > t.ending_window_ms
        {
            self.last_engagement_prompt = Some(now);
            self.say(PhraseKind::EngagementPrompt, None, self.slide, out);
            self.request_candidates(now, out);
        }
        if self.presenter.spoke_since_return
            && now.saturating_sub(self.monologue_since) >= t.long_monologue_ms
        {
            self.monologue_since = now;
            self.say(PhraseKind::SuggestPause, None, self.slide, out);
        }
    }

    /// Free flow: the queued agent first, else the best agent with a good candidate; a
    /// second agent that also wants in is queued. Returns whether an exchange started.
    pub(super) fn free_flow_trigger(&mut self, now: u64, out: &mut Vec<Action>) -> bool {
        let wanting = self.ranked(self.slide, |i| self.has_good_candidate(i));
        let agent = match self.queue.pop_front() {
            Some(q) => q,
            None => match wanting.first() {
                Some(&a) => a,
                None => return false,
            },
        };
        if let Some(&second) = wanting.iter().find(|&&w| w != agent)
            && !self.queue.contains(&second)
        {
            self.queue.push_back(second);
        }
        self.brk = None;
        self.start_exchange(agent, Trigger::Silence, self.slide, now, out);
        true
    }

    /// What the presenter's words are, for the delivery measures: an answer while an
    /// exchange with a question is under way, else presenting the current slide.
    fn delivery_part(&self) -> delivery::Part {
        let slide = self.slide;
        let Some(ex) = self
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
            tracing::debug!(text = %shorten(text), "partial presenter transcript ignored");
            return;
        }
        let text = text.trim().to_owned();
        if text.is_empty() {
            tracing::debug!("empty presenter transcript ignored");
            if let Some(change) = self.floor.no_words() {
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
        if self.floor.words() {
            let cut = self.fresh_question_id();
            tracing::info!(
                question_id = cut,
                "the presenter took the floor: the held voice is cut"
            );
            out.push(Output::Interrupt {
                question_id: cut,
                kind: InterruptKind::Cancel,
            });
        }
        let question_id = self.fresh_question_id();
        self.floor.own_line(question_id);
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
            self.last_answer = Some(text.clone());
            self.exchange_text.push(format!("presenter: {text}"));
        }
        let part = self.delivery_part();
        self.delivery.heard(question_id, &text, part, now_ms);
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
        tracing::info!(%command, "control");
        Self::record(out, now_ms, "control", json!({ "command": command }));
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
        self.break_slide = matches!(event, Event::SlideChanged { .. }).then_some(slide);
        self.feed(event, now_ms, out);
        self.on_air.opening = None;
        self.break_slide = None;
    }
}

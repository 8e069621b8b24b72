//! The moderator's phases and the cycle they make:
//!
//! ```text
//! PRESENTING → QA_TRIGGER → EXCHANGE → RESOLVING → PRESENTING      (any → ENDED)
//! ```
//!
//! - **Presenting**: the presenter talks; candidate questions are requested on every
//!   slide change and every `candidate_refresh_ms`; the interaction mode decides when
//!   Q&A opens; engagement notices are spoken at pauses ([`super::presenting`]).
//! - **QaTrigger**: the transition phrase and the call to the agent go out *together*,
//!   so the phrase covers the question's generation. The phase ends when the phrase has
//!   played or the agent's turn is in, whichever comes first.
//! - **Exchange**: agent turn, presenter answer, micro-phrase plus follow-up, … until the
//!   intensity's intervention rule closes it ([`super::exchange`]).
//! - **Resolving**: at most one pile-on turn by another agent, then the exchange is
//!   logged and the bridge-back phrase plays (or, at a section break with room for a
//!   second exchange, the next transition follows directly through Presenting).
//!
//! Only one agent is ever called at a time: an agent holds the floor from
//! [`Action::CallAgent`] until its [`Event::AgentTurnFinished`] (or
//! [`Action::CancelAgent`] after `agent_timeout_ms`).

use super::Rehearsal;
use super::decisions::{Action, Event, Instruction};
use super::exchange::Step;
use super::exchange::{Break, Exchange};
use super::notice::Notice;
use crate::config::InteractionMode;
use crate::phrases::PhraseKind;
use crate::record::{Outcome, Trigger};
use crate::select::next_role;

/// Where the session is: the protocol's phase, sent on `phase` as it is.
pub use voice_protocol::messages::RehearsalPhase as Phase;

/// The transitions the moderator makes: the four-phase cycle, and ending from anywhere.
pub fn can_become(from: Phase, to: Phase) -> bool {
    use Phase::*;
    matches!(
        (from, to),
        (Presenting, QaTrigger)
            | (QaTrigger, Exchange)
            | (Exchange, Resolving)
            | (Resolving, Presenting)
            | (Presenting | QaTrigger | Exchange | Resolving, Ended)
    )
}

impl Rehearsal {
    /// When the rules want a [`Event::Tick`] at the latest (`None`: only on events).
    pub(crate) fn next_deadline(&self) -> Option<u64> {
        let t = &self.config.thresholds;
        let mut d: Vec<u64> = Vec::new();
        if let Some(s) = self.panel.speaking {
            d.push(s.since + t.agent_timeout_ms);
        }
        match self.phase {
            Phase::Ended => return None,
            Phase::Presenting => {
                let free_flow = self.config.mode == InteractionMode::FreeFlow;
                d.extend(self.timers.presenting_deadlines(self.now, t, free_flow));
                let anchor = self.quiet_anchor();
                d.push(anchor + t.notice_quiet_ms);
                if free_flow {
                    d.push(anchor + t.silence_ms);
                }
            }
            _ => {
                if let Some(ex) = &self.qa.exchange {
                    match ex.step {
                        Step::AwaitAnswer { since } | Step::PileOnAnswer { since } => {
                            let last = self.presenter.last_end.unwrap_or(0).max(since);
                            if t.answer_end_silence_ms > 0 && !self.presenter.answer.is_empty() {
                                d.push(last + t.answer_end_silence_ms);
                            }
                            d.push(last + t.answer_timeout_ms);
                        }
                        Step::BridgeBack { since, .. } => d.push(since + t.line_timeout_ms),
                        _ => {}
                    }
                    if self.phase == Phase::QaTrigger {
                        d.push(ex.started_ms + t.line_timeout_ms);
                    }
                }
            }
        }
        d.into_iter()
            .filter(|&x| x > self.now)
            .min()
            .or(Some(self.now + 1))
    }

    /// Processes one event at `now_ms` (milliseconds since the session started;
    /// a time earlier than the last one is taken as the last one).
    pub(crate) fn decide(&mut self, event: Event, now_ms: u64) -> Vec<Action> {
        let mut out = Vec::new();
        if self.phase == Phase::Ended {
            return out;
        }
        let now = now_ms.max(self.now);
        self.now = now;
        match event {
            Event::PresenterSpeechStarted => {
                self.presenter.open = true;
                self.presenter.silent_since = None;
            }
            Event::PresenterSpeech { text, end_ms, .. } => {
                self.on_speech(text, end_ms, now);
                self.raise_reopening_hands(&mut out);
            }
            Event::PresenterSilence { duration_ms } => {
                self.presenter.open = false;
                self.presenter.silent_since = Some(now.saturating_sub(duration_ms));
            }
            Event::SlideChanged { index } => self.on_slide(index, now, &mut out),
            Event::OpenQaRequested => self.on_open_qa(now, &mut out),
            Event::HandRaised { agent, urgency } => self.on_hand(&agent, urgency, &mut out),
            Event::PresenterAcknowledged { agent } => self.on_acknowledge(agent, now, &mut out),
            Event::CandidateReady {
                agent,
                text,
                relevance,
            } => self.on_candidate(agent, text, relevance, now, &mut out),
            Event::AgentTurnFinished {
                agent,
                question_id,
                text,
            } => self.on_agent_turn(agent, question_id, text, now, &mut out),
            Event::PresenterAnswerFinished { text } => self.on_answer_event(text, now, &mut out),
            Event::MoveOnRequested => self.on_move_on(now, &mut out),
            Event::ModeratorLineFinished { line_id } => {
                self.on_line_finished(line_id, now, &mut out)
            }
            Event::Tick => {}
            Event::EndSession => {
                self.end(now, &mut out);
                return out;
            }
        }
        self.on_time(now, &mut out);
        out
    }

    pub(super) fn transition(&mut self, to: Phase, now: u64, out: &mut Vec<Action>) {
        debug_assert!(can_become(self.phase, to), "{:?} → {to:?}", self.phase);
        out.push(Action::PhaseChanged {
            from: self.phase,
            to,
        });
        if self.phase == Phase::Presenting {
            // The panel has the floor: the presenter's silence now is no pause.
            self.results.delivery.floor_taken();
        }
        self.phase = to;
        self.timers.phase_since = now;
        self.presenter.silent_since = None;
    }

    pub(super) fn on_line_finished(&mut self, line_id: u64, now: u64, out: &mut Vec<Action>) {
        let Some(ex) = &self.qa.exchange else {
            return;
        };
        if self.phase == Phase::QaTrigger && ex.transition_line == line_id {
            self.transition(Phase::Exchange, now, out);
        } else if matches!(ex.step, Step::BridgeBack { line_id: l, .. } if l == line_id) {
            self.return_to_presenting(now, out);
        }
    }

    pub(super) fn start_break(
        &mut self,
        slide: usize,
        trigger: Trigger,
        now: u64,
        out: &mut Vec<Action>,
    ) {
        let max = if self.config.mode == InteractionMode::SectionBreaks {
            self.config.thresholds.exchanges_per_break
        } else {
            1
        };
        let Some(&agent) = self.ranked(slide, |_| true).first() else {
            return;
        };
        self.qa.brk = Some(Break {
            slide,
            trigger,
            done: 0,
            max,
            asked: Vec::new(),
        });
        self.start_exchange(agent, trigger, slide, now, out);
    }

    /// What `agent` left open with the presenter last session, the first time it is
    /// called in this one.
    fn left_open_question(&mut self, agent: usize) -> Option<String> {
        let name = &self.config.agents[agent].name;
        let question = self
            .panel
            .previous
            .as_ref()?
            .first_open_for(name)?
            .question
            .clone();
        self.panel.asked_again.insert(agent).then_some(question)
    }

    pub(super) fn start_exchange(
        &mut self,
        agent: usize,
        trigger: Trigger,
        slide: usize,
        now: u64,
        out: &mut Vec<Action>,
    ) {
        if self.phase != Phase::Presenting || self.panel.speaking.is_some() {
            return;
        }
        self.transition(Phase::QaTrigger, now, out);
        self.panel.hands.retain(|h| h.agent != agent);
        self.panel.queue.retain(|&q| q != agent);
        // A panelist's first question is the one it left open last session, asked again
        // as it was; then the questions it prepares.
        let candidate = self
            .left_open_question(agent)
            .or_else(|| self.prepared_question(agent, out));
        let transition_line = self.say(PhraseKind::Transition, Some(agent), slide, out);
        let id = self.numbers.exchange();
        self.qa.exchange = Some(Exchange {
            id,
            agent,
            slide,
            trigger,
            started_ms: now,
            transition_line,
            turns: Vec::new(),
            agent_turns: 0,
            step: Step::AwaitAgent,
            outcome: None,
            ended_ms: None,
            pile_on: None,
            logged: false,
        });
        if let Some(b) = self.qa.brk.as_mut() {
            b.done += 1;
            b.asked.push(agent);
        }
        self.panel.rotation = next_role(self.config.agents[agent].role);
        self.timers.last_interjection = Some(now);
        self.call_agent(agent, Instruction::AskQuestion, candidate, now, out);
    }

    /// The question `agent` prepared, unless the panel has asked it since, in other
    /// words: it was checked when it came, but another panelist may have asked the same
    /// while it waited for its turn.
    pub(super) fn prepared_question(
        &mut self,
        agent: usize,
        out: &mut Vec<Action>,
    ) -> Option<String> {
        let candidate = self.panel.agents[agent].candidate.take()?.text;
        match self.asked_before(&candidate) {
            Some(asked) => {
                out.push(Action::Notice(Notice::PreparedAskedSince {
                    agent: self.config.agents[agent].name.clone(),
                    asked,
                }));
                None
            }
            None => Some(candidate),
        }
    }

    pub(super) fn return_to_presenting(&mut self, now: u64, out: &mut Vec<Action>) {
        self.transition(Phase::Presenting, now, out);
        self.qa.exchange = None;
        self.presenter.spoke_since_return = false;
        self.presenter.answer.clear();
        self.timers.monologue_since = now;
        self.timers.last_interjection = Some(now);
        self.request_candidates(now, out);
    }

    pub(super) fn on_time(&mut self, now: u64, out: &mut Vec<Action>) {
        let t = self.config.thresholds.clone();
        if let Some(s) = self.panel.speaking
            && now.saturating_sub(s.since) >= t.agent_timeout_ms
        {
            self.panel.speaking = None;
            let agent = self.config.agents[s.agent].name.clone();
            out.push(Action::CancelAgent {
                agent: agent.clone(),
                question_id: s.question_id,
            });
            out.push(Action::Notice(Notice::AgentTimedOut { agent }));
            match self.qa.exchange.as_ref().map(|e| e.step) {
                Some(Step::AwaitAgent) => self.end_exchange(Outcome::AgentTimedOut, now, out),
                Some(Step::PileOnAgent) => {
                    if let Some(ex) = self.qa.exchange.as_mut() {
                        ex.pile_on = None;
                    }
                    self.after_pile_on(now, out);
                }
                _ => {}
            }
        }
        match self.phase {
            Phase::Presenting => self.presenting_rules(now, &t, out),
            Phase::Ended => {}
            _ => self.exchange_timers(now, &t, out),
        }
    }

    pub(super) fn end(&mut self, now: u64, out: &mut Vec<Action>) {
        if let Some(s) = self.panel.speaking.take() {
            out.push(Action::CancelAgent {
                agent: self.config.agents[s.agent].name.clone(),
                question_id: s.question_id,
            });
        }
        if let Some(ex) = self.qa.exchange.as_mut()
            && ex.outcome.is_none()
        {
            ex.outcome = Some(Outcome::SessionEnded);
            ex.ended_ms = Some(now);
        }
        self.log_exchange(now, out);
        self.transition(Phase::Ended, now, out);
        self.say(PhraseKind::Closing, None, self.slide, out);
        out.push(Action::WriteDebrief {
            markdown: self.debrief_markdown(),
        });
    }
}

//! What the phase rules react to ([`Event`]) and what they decide ([`Action`]); each
//! decision is carried out once the rules have taken their step, so that what it
//! writes (the session state, a turn's slide) sees the state the step left.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use voice_protocol::{InterruptKind, messages::SideRequest};

use super::files::{AgentFile, ContextFile, MODERATOR, RecordEvent, WriteMode};
use super::notice::Notice;
use super::phases::Phase;
use super::requests::Request;
use super::turns::{Call, Turn};
use super::{Output, Rehearsal};
use crate::messages;
use crate::phrases::PhraseKind;
use crate::record::ExchangeRecord;

/// Something that happened. Times inside events are on the same clock as `now_ms`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Event {
    /// Voice activity: the presenter began to speak (optional; sharpens silence detection).
    PresenterSpeechStarted,
    /// A final transcript segment of the presenter.
    PresenterSpeech {
        text: String,
        start_ms: u64,
        end_ms: u64,
    },
    /// The presenter has been silent for `duration_ms` (from the speech recogniser).
    /// Without it, silence is derived from segment end times on [`Event::Tick`].
    // No input of the node reports it yet; the rule is kept, and tested, for one that will.
    #[cfg_attr(not(test), allow(dead_code))]
    PresenterSilence { duration_ms: u64 },
    /// The presenter is now on slide `index` (0-based, see [`Deck`]). In section-breaks
    /// mode, advancing past a slide opens Q&A about *that* slide (the section just
    /// presented), once per slide; going back, or leaving the title slide, does not.
    SlideChanged { index: usize },
    /// The presenter clicked "Open Q&A" (any mode): the earliest raised hand is taken
    /// if there is one, else a panelist is selected for the current slide.
    OpenQaRequested,
    /// An agent wants to ask (hand-raise mode); `urgency` in 0..1.
    HandRaised { agent: String, urgency: f64 },
    /// The presenter takes a raised hand: the named agent's, or the earliest raised.
    PresenterAcknowledged { agent: Option<String> },
    /// An agent's pre-generated question; `relevance` in 0..1.
    CandidateReady {
        agent: String,
        text: String,
        relevance: f64,
    },
    /// The agent called with `question_id` has delivered its turn.
    AgentTurnFinished {
        agent: String,
        question_id: u64,
        text: String,
    },
    /// The presenter finished answering. Empty `text`: use the transcript segments
    /// received since the agent's turn.
    PresenterAnswerFinished { text: String },
    /// The presenter asks to move on (a button rather than the words): the answer so
    /// far closes the exchange as if it ended with "let's move on".
    MoveOnRequested,
    /// The moderator line `line_id` has been played.
    ModeratorLineFinished { line_id: u64 },
    /// Time passed.
    Tick,
    /// The session is over: closing line and debrief.
    EndSession,
}

/// What the agent is asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Instruction {
    AskQuestion,
    FollowUp,
    PileOn,
}

/// What fresh candidate questions are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CandidatePurpose {
    /// A question about the current slide, for the next Q&A.
    Question,
    /// A follow-on to the exchange under way.
    PileOn,
}

/// What the node must do.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Action {
    /// Speak a moderator line; report [`Event::ModeratorLineFinished`] with `line_id`.
    Say {
        line_id: u64,
        kind: PhraseKind,
        text: String,
    },
    /// Give the floor to an agent. `candidate` is its pre-generated question, if any.
    CallAgent {
        agent: String,
        question_id: u64,
        exchange_id: u64,
        instruction: Instruction,
        candidate: Option<String>,
    },
    /// Stop an agent's turn (timeout or end of session).
    CancelAgent {
        agent: String,
        question_id: u64,
    },
    /// Ask these agents for fresh candidate questions about `slide`.
    RequestCandidates {
        agents: Vec<String>,
        slide: usize,
        purpose: CandidatePurpose,
    },
    PhaseChanged {
        from: Phase,
        to: Phase,
    },
    LogExchange(ExchangeRecord),
    WriteDebrief {
        markdown: String,
    },
    Notice(Notice),
}

/// A pre-generated question.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Candidate {
    pub text: String,
    pub relevance: f64,
    pub received_ms: u64,
}

impl Rehearsal {
    /// Applies the rules to `event` and carries out their decisions (lines count as finished at once
    /// when no player reports them).
    pub(super) fn feed(&mut self, event: Event, now_ms: u64, out: &mut Vec<Output>) {
        let mut queue = VecDeque::from([event]);
        while let Some(event) = queue.pop_front() {
            for action in self.decide(event, now_ms) {
                if let Some(next) = self.act(action, now_ms, out) {
                    queue.push_back(next);
                }
            }
        }
        if self.phase() == Phase::Ended {
            self.finish_files(out);
        }
    }

    pub(super) fn act(
        &mut self,
        action: Action,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) -> Option<Event> {
        match action {
            Action::Say {
                line_id,
                kind,
                text,
            } => return self.send_line(line_id, kind, text, now_ms, out),
            Action::CallAgent {
                agent,
                question_id,
                exchange_id,
                instruction,
                candidate,
            } => {
                let q = self.fresh_question_id();
                let slide = self.qa.exchange_slide.unwrap_or(self.current_slide());
                let text = messages::instruction_text(
                    instruction,
                    candidate.as_deref(),
                    self.deck(),
                    slide,
                    self.qa.last_answer.as_deref(),
                );
                self.pending.calls.insert(
                    q,
                    Call {
                        agent: agent.clone(),
                        call_id: question_id,
                        text: ::conductor::Utterance::default(),
                    },
                );
                // A prepared question is said as prepared: its words were made while the
                // presenter spoke, so the panelist asks at once (the transition line
                // covers no generation).
                let prepared = candidate
                    .as_deref()
                    .filter(|_| {
                        matches!(instruction, Instruction::AskQuestion | Instruction::PileOn)
                    })
                    .and_then(messages::prepared_question);
                let takes_up = messages::turn_takes_up(
                    instruction,
                    self.deck(),
                    slide,
                    self.qa.last_answer.as_deref(),
                    &self.qa.exchange_text.join("\n"),
                );
                out.push(Output::Turn(Turn {
                    agent,
                    question_id: q,
                    exchange_id,
                    instruction: text,
                    prepared,
                    kind: instruction,
                    at_ms: now_ms,
                    takes_up,
                }));
            }
            Action::CancelAgent { agent, question_id } => {
                self.pending
                    .calls
                    .retain(|_, c| !(c.agent == agent && c.call_id == question_id));
                let q = self.fresh_question_id();
                out.push(Output::Notice(Notice::TurnCancelled {
                    agent: agent.clone(),
                    question_id: q,
                }));
                out.push(Output::Interrupt {
                    question_id: q,
                    kind: InterruptKind::Cancel,
                });
            }
            Action::RequestCandidates {
                agents,
                slide,
                purpose,
            } => {
                let exchange =
                    (purpose == CandidatePurpose::PileOn).then(|| self.qa.exchange_text.join("\n"));
                let prompt =
                    messages::request_prompt(purpose, self.deck(), slide, exchange.as_deref());
                let takes_up =
                    messages::request_takes_up(purpose, self.deck(), slide, exchange.as_deref());
                let kind = match purpose {
                    CandidatePurpose::Question => "candidate_question",
                    CandidatePurpose::PileOn => "pile_on",
                };
                // One request per panelist, and none to a panelist still working on
                // the last one: its answer would only queue behind it. Wanted until two
                // refreshes have passed: a busy model host answers it late rather than
                // throwing away the part it read.
                let within = 2 * self.config().thresholds.candidate_refresh_ms;
                for agent in agents {
                    if self.awaits_reply(&agent, now_ms) {
                        out.push(Output::Notice(Notice::StillPreparing { agent, kind }));
                        continue;
                    }
                    let id = self.pending.requests.open(
                        "r",
                        Request {
                            agents: vec![agent.clone()],
                            opened_ms: now_ms,
                            slide,
                            purpose,
                            rates: None,
                        },
                        None,
                    );
                    out.push(Output::Request(
                        SideRequest::text(id.clone(), kind, prompt.clone(), 30)
                            .to(agent)
                            .within(within)
                            .taking_up(takes_up.clone())
                            .asking(),
                    ));
                }
            }
            Action::PhaseChanged { from, to } => {
                out.push(Output::Phase(to));
                Self::record(
                    out,
                    now_ms,
                    RecordEvent::Phase {
                        from: from.name(),
                        to: to.name(),
                    },
                );
                if to == Phase::QaTrigger {
                    self.qa.exchange_text.clear();
                    self.qa.last_answer = None;
                    self.qa.exchange_slide =
                        Some(self.qa.break_slide.unwrap_or(self.current_slide()));
                }
                let state = self.session_state(now_ms);
                self.write(
                    out,
                    ContextFile::agent(MODERATOR, AgentFile::SessionState),
                    state,
                    WriteMode::Overwrite,
                );
            }
            Action::LogExchange(record) => {
                self.write_exchange(&record, now_ms, out);
                self.ask_rating(&record, now_ms, out);
            }
            Action::WriteDebrief { markdown } => {
                // The panel's ratings of the last answers are asked for as the session
                // ends: the debrief waits for them (at most `DEBRIEF_WAITS_FOR_RATINGS_MS`)
                // rather than call them unrated.
                if self.ratings_pending(now_ms) {
                    out.push(Output::Notice(Notice::DebriefWaits));
                    self.on_air.debrief_due = Some(now_ms + DEBRIEF_WAITS_FOR_RATINGS_MS);
                } else {
                    self.write_debrief(markdown, now_ms, out);
                }
            }
            Action::Notice(notice) => out.push(Output::Notice(notice)),
        }
        None
    }
}

/// How long the debrief waits for the ratings asked for as the session ended.
pub const DEBRIEF_WAITS_FOR_RATINGS_MS: u64 = 30_000;

impl Rehearsal {
    /// Writes the debrief: to the session folder (the node), the moderator's notes and
    /// the page.
    pub(super) fn write_debrief(&mut self, markdown: String, now_ms: u64, out: &mut Vec<Output>) {
        self.on_air.debrief_due = None;
        out.push(Output::Debrief {
            markdown: markdown.clone(),
            figures: self.debrief_figures_json(),
            remembered: self.remembered(),
        });
        self.write(
            out,
            ContextFile::agent(MODERATOR, AgentFile::DebriefNotes),
            format!("\n{markdown}"),
            WriteMode::Append,
        );
        self.keep_debrief(markdown);
        Self::record(out, now_ms, RecordEvent::Debrief { file: "debrief.md" });
    }

    /// Writes the debrief held for ratings once none is awaited or its wait is over.
    pub(super) fn debrief_if_due(&mut self, now_ms: u64, out: &mut Vec<Output>) {
        let Some(due) = self.on_air.debrief_due else {
            return;
        };
        if now_ms >= due || !self.ratings_pending(now_ms) {
            if now_ms >= due {
                out.push(Output::Notice(Notice::RatingsMissing));
            }
            let markdown = self.debrief_markdown();
            self.write_debrief(markdown, now_ms, out);
            self.finish_files(out);
        }
    }
}

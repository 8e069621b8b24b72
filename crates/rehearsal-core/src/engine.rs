//! The moderator state machine: events in, actions out.
//!
//! ```text
//! PRESENTING → QA_TRIGGER → EXCHANGE → RESOLVING → PRESENTING      (any → ENDED)
//! ```
//!
//! - **Presenting**: the presenter talks; candidate questions are requested on every
//!   slide change and every `candidate_refresh_ms`; the interaction mode decides when
//!   Q&A opens; engagement notices are spoken at pauses.
//! - **QaTrigger**: the transition phrase and the call to the agent go out *together*,
//!   so the phrase covers the question's generation. The phase ends when the phrase has
//!   played or the agent's turn is in, whichever comes first.
//! - **Exchange**: agent turn, presenter answer, micro-phrase plus follow-up, … until the
//!   intensity's intervention rule closes it.
//! - **Resolving**: at most one pile-on turn by another agent, then the exchange is
//!   logged and the bridge-back phrase plays (or, at a section break with room for a
//!   second exchange, the next transition follows directly through Presenting).
//!
//! Only one agent is ever called at a time: an agent holds the floor from
//! [`Action::CallAgent`] until its [`Event::AgentTurnFinished`] (or
//! [`Action::CancelAgent`] after `agent_timeout_ms`).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::{Deserialize, Serialize};

use crate::config::{ConfigError, Intensity, InteractionMode, PanelConfig, Role};
use crate::deck::Deck;
use crate::phrases::{PhraseContext, PhraseKind, PhraseLibrary, PhrasePicker, render_in};
use crate::record::{
    ExchangeRecord, Outcome, PileOnRecord, PileOnStatus, Speaker, Trigger, TurnRecord,
    render_debrief,
};
use crate::select::{AgentView, next_role, rank};
use crate::text::{asks_to_move_on, content_set, jaccard, shared};

/// Where the session is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Presenting,
    QaTrigger,
    Exchange,
    Resolving,
    Ended,
}

impl Phase {
    /// The phase as sent on `phase` and written in logs.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Presenting => "presenting",
            Phase::QaTrigger => "qa_trigger",
            Phase::Exchange => "exchange",
            Phase::Resolving => "resolving",
            Phase::Ended => "ended",
        }
    }

    /// The transitions the moderator makes: the four-phase cycle, and ending from anywhere.
    pub fn can_become(self, to: Phase) -> bool {
        use Phase::*;
        matches!(
            (self, to),
            (Presenting, QaTrigger)
                | (QaTrigger, Exchange)
                | (Exchange, Resolving)
                | (Resolving, Presenting)
                | (Presenting | QaTrigger | Exchange | Resolving, Ended)
        )
    }
}

/// Something that happened. Times inside events are on the same clock as `now_ms`.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
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
pub enum Action {
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

/// Events that were ignored or handled unusually; worth a log line.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Notice {
    #[error("no agent named `{0}` on the panel")]
    UnknownAgent(String),
    #[error("slide {0} is not in the deck")]
    UnknownSlide(usize),
    #[error("turn of `{agent}` (question {question_id}) is not the current turn; ignored")]
    StaleTurn { agent: String, question_id: u64 },
    #[error("hand of `{agent}` not raised: {reason}")]
    HandRefused { agent: String, reason: &'static str },
    #[error("no raised hand to acknowledge")]
    NoRaisedHand,
    #[error("Q&A requested while an exchange is under way; ignored")]
    Busy,
    #[error("answer received while no answer is awaited; ignored")]
    NotAwaitingAnswer,
    #[error("empty answer; still waiting")]
    EmptyAnswer,
    #[error("empty candidate from `{0}`; ignored")]
    EmptyCandidate(String),
    #[error("`{agent}` did not finish its turn in time; cancelled")]
    AgentTimedOut { agent: String },
}

/// A pre-generated question.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub text: String,
    pub relevance: f64,
    pub received_ms: u64,
}

#[derive(Debug, Clone, Default)]
struct AgentState {
    last_spoke_ms: Option<u64>,
    candidate: Option<Candidate>,
}

#[derive(Debug, Clone)]
struct Hand {
    agent: usize,
    announced: bool,
}

#[derive(Debug, Clone, Copy)]
struct Speaking {
    agent: usize,
    question_id: u64,
    since: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// The primary agent holds the floor.
    AwaitAgent,
    AwaitAnswer {
        since: u64,
    },
    PileOnAgent,
    PileOnAnswer {
        since: u64,
    },
    /// Logged; the bridge-back line is playing.
    BridgeBack {
        line_id: u64,
        since: u64,
    },
}

#[derive(Debug, Clone)]
struct Exchange {
    id: u64,
    agent: usize,
    slide: usize,
    trigger: Trigger,
    started_ms: u64,
    transition_line: u64,
    turns: Vec<TurnRecord>,
    agent_turns: u32,
    step: Step,
    outcome: Option<Outcome>,
    ended_ms: Option<u64>,
    pile_on: Option<PileOnRecord>,
    logged: bool,
}

#[derive(Debug, Clone)]
struct Break {
    slide: usize,
    trigger: Trigger,
    done: usize,
    max: usize,
    asked: Vec<usize>,
}

#[derive(Debug, Clone, Default)]
struct PresenterTrack {
    /// Speech started (voice activity) and no final segment since.
    open: bool,
    last_end: Option<u64>,
    /// A reported silence began here.
    silent_since: Option<u64>,
    /// At least one segment since Presenting (re)started.
    spoke_since_return: bool,
    /// Segments received while an answer is awaited.
    answer: Vec<String>,
}

/// The pitch-rehearsal moderator.
#[derive(Debug, Clone)]
pub struct Rehearsal {
    config: PanelConfig,
    deck: Deck,
    phrases: PhraseLibrary,
    picker: PhrasePicker,
    phase: Phase,
    phase_since: u64,
    now: u64,
    slide: usize,
    agents: Vec<AgentState>,
    hands: Vec<Hand>,
    queue: VecDeque<usize>,
    speaking: Option<Speaking>,
    exchange: Option<Exchange>,
    brk: Option<Break>,
    presenter: PresenterTrack,
    next_line: u64,
    next_question: u64,
    next_exchange: u64,
    rotation: Role,
    last_candidate_request: Option<u64>,
    last_question_ms: u64,
    last_engagement_prompt: Option<u64>,
    monologue_since: u64,
    last_interjection: Option<u64>,
    broken_slides: BTreeSet<usize>,
    asked_on_slide: BTreeMap<usize, BTreeSet<usize>>,
    advance_encouraged: BTreeSet<usize>,
    records: Vec<ExchangeRecord>,
}

impl Rehearsal {
    /// A session starting at time 0 on slide 0. The configuration is validated.
    pub fn new(
        config: PanelConfig,
        deck: Deck,
        phrases: PhraseLibrary,
    ) -> Result<Self, ConfigError> {
        config.validate()?;
        let agents = vec![AgentState::default(); config.agents.len()];
        let picker = PhrasePicker::new(config.language);
        Ok(Self {
            config,
            deck,
            phrases,
            picker,
            phase: Phase::Presenting,
            phase_since: 0,
            now: 0,
            slide: 0,
            agents,
            hands: Vec::new(),
            queue: VecDeque::new(),
            speaking: None,
            exchange: None,
            brk: None,
            presenter: PresenterTrack::default(),
            next_line: 1,
            next_question: 1,
            next_exchange: 1,
            rotation: Role::Skeptic,
            last_candidate_request: None,
            last_question_ms: 0,
            last_engagement_prompt: None,
            monologue_since: 0,
            last_interjection: None,
            broken_slides: BTreeSet::new(),
            asked_on_slide: BTreeMap::new(),
            advance_encouraged: BTreeSet::new(),
            records: Vec::new(),
        })
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn config(&self) -> &PanelConfig {
        &self.config
    }

    pub fn deck(&self) -> &Deck {
        &self.deck
    }

    /// The slide the presenter is on.
    pub fn current_slide(&self) -> usize {
        self.slide
    }

    /// The agent holding the floor and its question id.
    pub fn speaking(&self) -> Option<(&str, u64)> {
        self.speaking
            .map(|s| (self.config.agents[s.agent].name.as_str(), s.question_id))
    }

    /// Agents with a raised hand, earliest first.
    pub fn hands_raised(&self) -> Vec<&str> {
        self.hands
            .iter()
            .map(|h| self.config.agents[h.agent].name.as_str())
            .collect()
    }

    /// Agent turns so far in the exchange under way.
    pub fn exchange_agent_turns(&self) -> Option<u32> {
        self.exchange.as_ref().map(|e| e.agent_turns)
    }

    /// The exchange under way: its id, the panelist who opened it and the slide it is
    /// about.
    pub fn exchange(&self) -> Option<(u64, &str, usize)> {
        self.exchange
            .as_ref()
            .map(|e| (e.id, self.config.agents[e.agent].name.as_str(), e.slide))
    }

    /// Exchanges logged so far.
    pub fn records(&self) -> &[ExchangeRecord] {
        &self.records
    }

    /// Session time left at `now_ms` (0 once over).
    pub fn remaining_ms(&self, now_ms: u64) -> u64 {
        self.config.duration_ms().saturating_sub(now_ms)
    }

    /// The debrief as it would be written now.
    pub fn debrief_markdown(&self) -> String {
        render_debrief(&self.records, &self.deck, &self.config, self.now)
    }

    /// When the node should send [`Event::Tick`] at the latest (`None`: only on events).
    pub fn next_deadline(&self) -> Option<u64> {
        let t = &self.config.thresholds;
        let mut d: Vec<u64> = Vec::new();
        if let Some(s) = self.speaking {
            d.push(s.since + t.agent_timeout_ms);
        }
        match self.phase {
            Phase::Ended => return None,
            Phase::Presenting => {
                d.push(
                    self.last_candidate_request
                        .map_or(self.now, |r| r + t.candidate_refresh_ms),
                );
                let anchor = self.quiet_anchor();
                d.push(anchor + t.notice_quiet_ms);
                if self.config.mode == InteractionMode::FreeFlow {
                    d.push(anchor + t.silence_ms);
                    if let Some(l) = self.last_interjection {
                        d.push(l + t.free_flow_gap_ms);
                    }
                }
                d.push(self.engagement_mark() + t.engagement_prompt_ms);
                d.push(self.monologue_since + t.long_monologue_ms);
            }
            _ => {
                if let Some(ex) = &self.exchange {
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
    pub fn handle(&mut self, event: Event, now_ms: u64) -> Vec<Action> {
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
            Event::PresenterSpeech { text, end_ms, .. } => self.on_speech(text, end_ms, now),
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

    // ----- bookkeeping helpers -------------------------------------------------------

    fn transition(&mut self, to: Phase, now: u64, out: &mut Vec<Action>) {
        debug_assert!(self.phase.can_become(to), "{:?} → {to:?}", self.phase);
        out.push(Action::PhaseChanged {
            from: self.phase,
            to,
        });
        self.phase = to;
        self.phase_since = now;
        self.presenter.silent_since = None;
    }

    fn say(
        &mut self,
        kind: PhraseKind,
        agent: Option<usize>,
        slide: usize,
        out: &mut Vec<Action>,
    ) -> u64 {
        let template = self.picker.pick(&self.phrases, kind);
        let title = self.deck.title_of(slide);
        let ctx = PhraseContext {
            agent: agent.map(|a| self.config.agents[a].spoken_name()),
            slide: Some(&title),
            minutes: Some(self.remaining_ms(self.now) / 60_000),
            moderator: Some(&self.config.moderator),
        };
        let text = render_in(self.config.language, template, &ctx);
        let line_id = self.next_line;
        self.next_line += 1;
        out.push(Action::Say {
            line_id,
            kind,
            text,
        });
        line_id
    }

    fn all_agent_names(&self) -> Vec<String> {
        self.config.agents.iter().map(|a| a.name.clone()).collect()
    }

    fn request_candidates(&mut self, now: u64, out: &mut Vec<Action>) {
        self.last_candidate_request = Some(now);
        out.push(Action::RequestCandidates {
            agents: self.all_agent_names(),
            slide: self.slide,
            purpose: CandidatePurpose::Question,
        });
    }

    fn views(&self) -> Vec<AgentView<'_>> {
        self.config
            .agents
            .iter()
            .zip(&self.agents)
            .map(|(config, s)| AgentView {
                config,
                last_spoke_ms: s.last_spoke_ms,
                candidate_relevance: s.candidate.as_ref().map(|c| c.relevance),
            })
            .collect()
    }

    /// Agents satisfying `keep`, best first for `slide`.
    fn ranked(&self, slide: usize, keep: impl Fn(usize) -> bool) -> Vec<usize> {
        rank(&self.views(), self.deck.slide(slide), self.rotation)
            .into_iter()
            .filter(|&i| keep(i))
            .collect()
    }

    fn has_good_candidate(&self, agent: usize) -> bool {
        self.agents[agent]
            .candidate
            .as_ref()
            .is_some_and(|c| c.relevance >= self.config.thresholds.min_candidate_relevance)
    }

    /// Since when the presenter has been quiet (as far as is known).
    fn quiet_anchor(&self) -> u64 {
        let anchor = self.presenter.last_end.unwrap_or(0).max(self.phase_since);
        self.presenter
            .silent_since
            .map_or(anchor, |s| s.min(anchor))
    }

    fn quiet_for(&self, now: u64) -> u64 {
        if self.presenter.open {
            0
        } else {
            now.saturating_sub(self.quiet_anchor())
        }
    }

    fn engagement_mark(&self) -> u64 {
        self.last_question_ms
            .max(self.last_engagement_prompt.unwrap_or(0))
    }

    fn call_agent(
        &mut self,
        agent: usize,
        instruction: Instruction,
        candidate: Option<String>,
        now: u64,
        out: &mut Vec<Action>,
    ) {
        debug_assert!(self.speaking.is_none(), "two agents on the floor");
        if self.speaking.is_some() {
            return;
        }
        let Some(ex) = self.exchange.as_mut() else {
            return;
        };
        if matches!(
            instruction,
            Instruction::AskQuestion | Instruction::FollowUp
        ) {
            ex.agent_turns += 1;
        }
        let question_id = self.next_question;
        self.next_question += 1;
        self.speaking = Some(Speaking {
            agent,
            question_id,
            since: now,
        });
        self.agents[agent].last_spoke_ms = Some(now);
        self.last_question_ms = now;
        self.asked_on_slide
            .entry(ex.slide)
            .or_default()
            .insert(agent);
        out.push(Action::CallAgent {
            agent: self.config.agents[agent].name.clone(),
            question_id,
            exchange_id: ex.id,
            instruction,
            candidate,
        });
    }

    // ----- event handlers ------------------------------------------------------------

    fn on_speech(&mut self, text: String, end_ms: u64, now: u64) {
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

    fn on_slide(&mut self, index: usize, now: u64, out: &mut Vec<Action>) {
        if !self.deck.is_empty() && index >= self.deck.len() {
            out.push(Action::Notice(Notice::UnknownSlide(index)));
            return;
        }
        let previous = self.slide;
        self.slide = index;
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

    fn on_open_qa(&mut self, now: u64, out: &mut Vec<Action>) {
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

    fn on_hand(&mut self, agent: &str, urgency: f64, out: &mut Vec<Action>) {
        let Some(a) = self.config.agent_index(agent) else {
            out.push(Action::Notice(Notice::UnknownAgent(agent.to_owned())));
            return;
        };
        let refuse = |reason| {
            Action::Notice(Notice::HandRefused {
                agent: agent.to_owned(),
                reason,
            })
        };
        let t = &self.config.thresholds;
        if self.config.mode != InteractionMode::HandRaise {
            out.push(refuse("not in hand-raise mode"));
        } else if !(urgency.is_finite() && urgency > t.hand_raise_urgency) {
            out.push(refuse("urgency below the threshold"));
        } else if self.hands.iter().any(|h| h.agent == a) {
            // Already up: nothing changes.
        } else if self.speaking.is_some_and(|s| s.agent == a)
            || self.exchange.as_ref().is_some_and(|e| e.agent == a)
        {
            out.push(refuse("the agent is in the exchange under way"));
        } else if self.hands.len() >= t.max_hands_raised {
            out.push(refuse("too many hands raised"));
        } else {
            self.hands.push(Hand {
                agent: a,
                announced: false,
            });
        }
    }

    fn on_acknowledge(&mut self, agent: Option<String>, now: u64, out: &mut Vec<Action>) {
        if self.phase != Phase::Presenting || self.speaking.is_some() {
            out.push(Action::Notice(Notice::Busy));
            return;
        }
        let hand = match &agent {
            Some(name) => self
                .hands
                .iter()
                .find(|h| self.config.agents[h.agent].name == *name),
            None => self.hands.first(),
        };
        let Some(hand) = hand else {
            out.push(Action::Notice(Notice::NoRaisedHand));
            return;
        };
        let a = hand.agent;
        self.start_exchange(a, Trigger::HandRaise, self.slide, now, out);
    }

    fn on_candidate(
        &mut self,
        agent: String,
        text: String,
        relevance: f64,
        now: u64,
        out: &mut Vec<Action>,
    ) {
        let Some(a) = self.config.agent_index(&agent) else {
            out.push(Action::Notice(Notice::UnknownAgent(agent)));
            return;
        };
        if text.trim().is_empty() {
            out.push(Action::Notice(Notice::EmptyCandidate(agent)));
            return;
        }
        let relevance = if relevance.is_finite() {
            relevance.clamp(0.0, 1.0)
        } else {
            0.0
        };
        self.agents[a].candidate = Some(Candidate {
            text: text.trim().to_owned(),
            relevance,
            received_ms: now,
        });
        // In hand-raise mode a panelist with an urgent enough question raises its hand
        // by itself while the presenter presents, once they said something since the
        // last exchange (the presenter takes it or not).
        if self.config.mode == InteractionMode::HandRaise
            && self.phase == Phase::Presenting
            && self.exchange.is_none()
            && self.presenter.spoke_since_return
            && relevance > self.config.thresholds.hand_raise_urgency
            && self.hands.len() < self.config.thresholds.max_hands_raised
        {
            self.on_hand(&agent, relevance, out);
        }
    }

    fn on_agent_turn(
        &mut self,
        agent: String,
        question_id: u64,
        text: String,
        now: u64,
        out: &mut Vec<Action>,
    ) {
        let current = self
            .speaking
            .filter(|s| s.question_id == question_id && self.config.agents[s.agent].name == agent);
        let Some(s) = current else {
            out.push(Action::Notice(Notice::StaleTurn { agent, question_id }));
            return;
        };
        self.speaking = None;
        let Some(ex) = self.exchange.as_mut() else {
            return;
        };
        let text = text.trim().to_owned();
        self.presenter.answer.clear();
        match ex.step {
            Step::AwaitAgent => {
                ex.turns.push(TurnRecord {
                    speaker: Speaker::Agent(self.config.agents[s.agent].name.clone()),
                    text,
                    at_ms: now,
                    dodged: false,
                });
                ex.step = Step::AwaitAnswer { since: now };
                if self.phase == Phase::QaTrigger {
                    self.transition(Phase::Exchange, now, out);
                }
            }
            Step::PileOnAgent => {
                if let Some(p) = ex.pile_on.as_mut()
                    && !text.is_empty()
                {
                    p.question = text;
                }
                ex.step = Step::PileOnAnswer { since: now };
            }
            _ => {}
        }
    }

    fn on_answer_event(&mut self, text: String, now: u64, out: &mut Vec<Action>) {
        let awaiting = self.exchange.as_ref().is_some_and(|e| {
            matches!(e.step, Step::AwaitAnswer { .. } | Step::PileOnAnswer { .. })
        });
        if !awaiting {
            out.push(Action::Notice(Notice::NotAwaitingAnswer));
            return;
        }
        let text = if text.trim().is_empty() {
            self.presenter.answer.join(" ")
        } else {
            text.trim().to_owned()
        };
        if text.is_empty() {
            out.push(Action::Notice(Notice::EmptyAnswer));
            return;
        }
        self.on_answer(text, now, out);
    }

    fn on_move_on(&mut self, now: u64, out: &mut Vec<Action>) {
        let awaiting = self.exchange.as_ref().is_some_and(|e| {
            matches!(e.step, Step::AwaitAnswer { .. } | Step::PileOnAnswer { .. })
        });
        if !awaiting {
            out.push(Action::Notice(Notice::NotAwaitingAnswer));
            return;
        }
        let said = self.presenter.answer.join(" ");
        let text = if asks_to_move_on(&said) {
            said
        } else if said.trim().is_empty() {
            "Let's move on.".to_owned()
        } else {
            format!("{} Let's move on.", said.trim())
        };
        self.on_answer(text, now, out);
    }

    fn on_line_finished(&mut self, line_id: u64, now: u64, out: &mut Vec<Action>) {
        let Some(ex) = &self.exchange else {
            return;
        };
        if self.phase == Phase::QaTrigger && ex.transition_line == line_id {
            self.transition(Phase::Exchange, now, out);
        } else if matches!(ex.step, Step::BridgeBack { line_id: l, .. } if l == line_id) {
            self.return_to_presenting(now, out);
        }
    }

    // ----- the exchange cycle --------------------------------------------------------

    fn start_break(&mut self, slide: usize, trigger: Trigger, now: u64, out: &mut Vec<Action>) {
        let max = if self.config.mode == InteractionMode::SectionBreaks {
            self.config.thresholds.exchanges_per_break
        } else {
            1
        };
        let Some(&agent) = self.ranked(slide, |_| true).first() else {
            return;
        };
        self.brk = Some(Break {
            slide,
            trigger,
            done: 0,
            max,
            asked: Vec::new(),
        });
        self.start_exchange(agent, trigger, slide, now, out);
    }

    fn start_exchange(
        &mut self,
        agent: usize,
        trigger: Trigger,
        slide: usize,
        now: u64,
        out: &mut Vec<Action>,
    ) {
        if self.phase != Phase::Presenting || self.speaking.is_some() {
            return;
        }
        self.transition(Phase::QaTrigger, now, out);
        self.hands.retain(|h| h.agent != agent);
        self.queue.retain(|&q| q != agent);
        let candidate = self.agents[agent].candidate.take().map(|c| c.text);
        let transition_line = self.say(PhraseKind::Transition, Some(agent), slide, out);
        let id = self.next_exchange;
        self.next_exchange += 1;
        self.exchange = Some(Exchange {
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
        if let Some(b) = self.brk.as_mut() {
            b.done += 1;
            b.asked.push(agent);
        }
        self.rotation = next_role(self.config.agents[agent].role);
        self.last_interjection = Some(now);
        self.call_agent(agent, Instruction::AskQuestion, candidate, now, out);
    }

    /// The intervention rule after an answer: `Some` closes the exchange.
    fn intervention(&self, ex: &Exchange, answer: &str) -> Option<Outcome> {
        let n = ex.agent_turns;
        if asks_to_move_on(answer) {
            return Some(Outcome::PresenterMovedOn);
        }
        match self.config.intensity {
            Intensity::Friendly if n >= 2 => return Some(Outcome::FriendlyClose),
            Intensity::Moderate if self.is_circular(ex) => return Some(Outcome::Circular),
            _ => {}
        }
        (n >= self.config.intensity.max_agent_turns()).then_some(Outcome::TurnLimit)
    }

    /// Circular: the last two presenter answers, or the last two agent turns, overlap
    /// (Jaccard of content words) at or above `circular_overlap`.
    fn is_circular(&self, ex: &Exchange) -> bool {
        let last_two = |presenter: bool| -> Option<f64> {
            let mut it = ex
                .turns
                .iter()
                .rev()
                .filter(|t| (t.speaker == Speaker::Presenter) == presenter);
            let a = content_set(&it.next()?.text);
            let b = content_set(&it.next()?.text);
            Some(jaccard(&a, &b))
        };
        let t = self.config.thresholds.circular_overlap;
        last_two(true).is_some_and(|j| j >= t) || last_two(false).is_some_and(|j| j >= t)
    }

    fn on_answer(&mut self, text: String, now: u64, out: &mut Vec<Action>) {
        self.presenter.answer.clear();
        let Some(mut ex) = self.exchange.take() else {
            return;
        };
        match ex.step {
            Step::PileOnAnswer { .. } => {
                if let Some(p) = ex.pile_on.as_mut() {
                    p.status = PileOnStatus::Asked { answer: Some(text) };
                }
                self.exchange = Some(ex);
                self.after_pile_on(now, out);
            }
            Step::AwaitAnswer { .. } => {
                let question = ex
                    .turns
                    .iter()
                    .rev()
                    .find(|t| t.speaker != Speaker::Presenter)
                    .map(|t| content_set(&t.text))
                    .unwrap_or_default();
                let answer = content_set(&text);
                // A request to move on is no dodge: it is reported as such.
                let dodged = question.len() >= 2
                    && !answer.is_empty()
                    && shared(&question, &answer) == 0
                    && !asks_to_move_on(&text);
                ex.turns.push(TurnRecord {
                    speaker: Speaker::Presenter,
                    text: text.clone(),
                    at_ms: now,
                    dodged,
                });
                let others: Vec<String> = self
                    .config
                    .agents
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != ex.agent)
                    .map(|(_, a)| a.name.clone())
                    .collect();
                if !others.is_empty() {
                    out.push(Action::RequestCandidates {
                        agents: others,
                        slide: ex.slide,
                        purpose: CandidatePurpose::PileOn,
                    });
                }
                let verdict = self.intervention(&ex, &text);
                let agent = ex.agent;
                let slide = ex.slide;
                ex.step = Step::AwaitAgent;
                self.exchange = Some(ex);
                match verdict {
                    Some(outcome) => self.end_exchange(outcome, now, out),
                    None => {
                        self.say(PhraseKind::MicroPhrase, Some(agent), slide, out);
                        self.call_agent(agent, Instruction::FollowUp, None, now, out);
                    }
                }
            }
            _ => self.exchange = Some(ex),
        }
    }

    /// Closes the primary exchange and enters Resolving: pile-on or straight on.
    fn end_exchange(&mut self, outcome: Outcome, now: u64, out: &mut Vec<Action>) {
        if self.phase == Phase::QaTrigger {
            self.transition(Phase::Exchange, now, out);
        }
        self.transition(Phase::Resolving, now, out);
        let Some(ex) = self.exchange.as_mut() else {
            return;
        };
        ex.outcome = Some(outcome);
        ex.ended_ms = Some(now);
        let (agent, started, slide) = (ex.agent, ex.started_ms, ex.slide);
        let words: BTreeSet<String> = ex.turns.iter().flat_map(|t| content_set(&t.text)).collect();
        let allow = !matches!(
            outcome,
            Outcome::PresenterMovedOn | Outcome::AgentTimedOut | Outcome::NoAnswer
        );
        let t = &self.config.thresholds;
        let pick = (0..self.agents.len())
            .filter(|&b| b != agent && self.has_good_candidate(b))
            .filter_map(|b| {
                let c = self.agents[b].candidate.as_ref()?;
                (c.received_ms >= started
                    && shared(&content_set(&c.text), &words) >= t.pile_on_shared_words)
                    .then_some((b, c.relevance))
            })
            .fold(None::<(usize, f64)>, |best, (b, r)| match best {
                Some((_, br)) if br >= r => best,
                _ => Some((b, r)),
            });
        let Some((b, _)) = pick.filter(|_| allow) else {
            self.after_pile_on(now, out);
            return;
        };
        let remaining = self.remaining_ms(now);
        let question = self.agents[b]
            .candidate
            .take()
            .map(|c| c.text)
            .unwrap_or_default();
        let record = PileOnRecord {
            agent: self.config.agents[b].name.clone(),
            question: question.clone(),
            status: if remaining >= t.pile_on_min_remaining_ms {
                PileOnStatus::Asked { answer: None }
            } else {
                PileOnStatus::SkippedTimeTight {
                    remaining_ms: remaining,
                }
            },
        };
        let asked = matches!(record.status, PileOnStatus::Asked { .. });
        if let Some(ex) = self.exchange.as_mut() {
            ex.pile_on = Some(record);
            if asked {
                ex.step = Step::PileOnAgent;
            }
        }
        if asked {
            self.say(PhraseKind::PileOn, Some(b), slide, out);
            self.call_agent(b, Instruction::PileOn, Some(question), now, out);
        } else {
            self.after_pile_on(now, out);
        }
    }

    /// Logs the exchange; then either the next exchange of a section break or the
    /// bridge-back line.
    fn after_pile_on(&mut self, now: u64, out: &mut Vec<Action>) {
        self.log_exchange(now, out);
        if let Some(b) = self.brk.clone()
            && b.done < b.max
            && self.remaining_ms(now) > 0
        {
            let next = self
                .ranked(b.slide, |i| {
                    !b.asked.contains(&i) && self.has_good_candidate(i)
                })
                .first()
                .copied();
            if let Some(agent) = next {
                self.return_to_presenting(now, out);
                self.start_exchange(agent, b.trigger, b.slide, now, out);
                return;
            }
        }
        self.brk = None;
        let slide = self.exchange.as_ref().map_or(self.slide, |e| e.slide);
        let line_id = self.say(PhraseKind::BridgeBack, None, slide, out);
        if let Some(ex) = self.exchange.as_mut() {
            ex.step = Step::BridgeBack {
                line_id,
                since: now,
            };
        }
    }

    fn log_exchange(&mut self, now: u64, out: &mut Vec<Action>) {
        let Some(ex) = self.exchange.as_mut() else {
            return;
        };
        if ex.logged {
            return;
        }
        ex.logged = true;
        let record = ExchangeRecord {
            id: ex.id,
            slide: ex.slide,
            slide_title: self.deck.title_of(ex.slide),
            agent: self.config.agents[ex.agent].name.clone(),
            trigger: ex.trigger,
            started_ms: ex.started_ms,
            ended_ms: ex.ended_ms.unwrap_or(now),
            turns: ex.turns.clone(),
            outcome: ex.outcome.unwrap_or(Outcome::SessionEnded),
            pile_on: ex.pile_on.clone(),
        };
        self.records.push(record.clone());
        out.push(Action::LogExchange(record));
    }

    fn return_to_presenting(&mut self, now: u64, out: &mut Vec<Action>) {
        self.transition(Phase::Presenting, now, out);
        self.exchange = None;
        self.presenter.spoke_since_return = false;
        self.presenter.answer.clear();
        self.monologue_since = now;
        self.last_interjection = Some(now);
        self.request_candidates(now, out);
    }

    // ----- time-driven rules ---------------------------------------------------------

    fn on_time(&mut self, now: u64, out: &mut Vec<Action>) {
        let t = self.config.thresholds.clone();
        if let Some(s) = self.speaking
            && now.saturating_sub(s.since) >= t.agent_timeout_ms
        {
            self.speaking = None;
            let agent = self.config.agents[s.agent].name.clone();
            out.push(Action::CancelAgent {
                agent: agent.clone(),
                question_id: s.question_id,
            });
            out.push(Action::Notice(Notice::AgentTimedOut { agent }));
            match self.exchange.as_ref().map(|e| e.step) {
                Some(Step::AwaitAgent) => self.end_exchange(Outcome::AgentTimedOut, now, out),
                Some(Step::PileOnAgent) => {
                    if let Some(ex) = self.exchange.as_mut() {
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

    fn exchange_timers(&mut self, now: u64, t: &crate::config::Thresholds, out: &mut Vec<Action>) {
        let Some(ex) = &self.exchange else {
            return;
        };
        if self.phase == Phase::QaTrigger && now.saturating_sub(ex.started_ms) >= t.line_timeout_ms
        {
            self.transition(Phase::Exchange, now, out);
        }
        let Some(ex) = &self.exchange else {
            return;
        };
        match ex.step {
            Step::AwaitAnswer { since } | Step::PileOnAnswer { since } => {
                let pile = matches!(ex.step, Step::PileOnAnswer { .. });
                let last = self.presenter.last_end.unwrap_or(0).max(since);
                let quiet =
                    !self.presenter.open && now.saturating_sub(last) >= t.answer_end_silence_ms;
                let has_words = !self.presenter.answer.is_empty();
                if has_words
                    && ((t.answer_end_silence_ms > 0 && quiet)
                        || now.saturating_sub(last) >= t.answer_timeout_ms)
                {
                    let text = self.presenter.answer.join(" ");
                    self.on_answer(text, now, out);
                } else if !has_words && now.saturating_sub(last) >= t.answer_timeout_ms {
                    if pile {
                        self.after_pile_on(now, out);
                    } else {
                        self.end_exchange(Outcome::NoAnswer, now, out);
                    }
                }
            }
            Step::BridgeBack { since, .. } if now.saturating_sub(since) >= t.line_timeout_ms => {
                self.return_to_presenting(now, out);
            }
            _ => {}
        }
    }

    fn presenting_rules(&mut self, now: u64, t: &crate::config::Thresholds, out: &mut Vec<Action>) {
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
    fn free_flow_trigger(&mut self, now: u64, out: &mut Vec<Action>) -> bool {
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

    fn end(&mut self, now: u64, out: &mut Vec<Action>) {
        if let Some(s) = self.speaking.take() {
            out.push(Action::CancelAgent {
                agent: self.config.agents[s.agent].name.clone(),
                question_id: s.question_id,
            });
        }
        if let Some(ex) = self.exchange.as_mut()
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

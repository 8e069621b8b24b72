//! [`Roundtable`]: the moderated roundtable as one sans-IO state machine, the
//! [`conductor::Core`] a `moderator` node runs.
//!
//! A round goes: intents are asked of every agent (an [`Output::Request`]); each reply
//! is parsed strictly, or replaced by the heuristic on an error, an invalid answer or at
//! the reply deadline; once every agent answered, or at the round's own deadline
//! (missing intents count as `pass`), the rules decide ([`decide`], over the [`state`]
//! they keep); the moderator says its line, the floor goes to an agent
//! ([`Output::Turn`]), whose streamed text is assembled into its utterance (or it counts
//! as absent at its deadline); the next round waits until older lines have been heard.
//! Time is passed in (ms since the start); nothing here reads a clock.
//!
//! Every line and turn carries a fresh question id, strictly increasing over the
//! session, so downstream nodes can drop stale data by id alone.
//!
//! The state lives in [`Roundtable`]; each module holds one concern of it: [`decide`]
//! and [`decision`] (the spec's rules and types), [`state`] (what the rules remember),
//! `round` (the rounds and phases, their deadlines and what the moderator says),
//! `intake` (intent requests and replies), `floor` (the floor holder's text), `human`
//! (the human at the table: their voice holds the agents', their words are answered
//! first), `pacing` (what waits to be heard), `control` (operator commands and the
//! records), `setup` (what a replay rebuilds it from).

mod control;
pub mod decide;
pub mod decision;
mod floor;
mod human;
mod intake;
mod lines;
mod notice;
mod pacing;
mod round;
mod setup;
pub mod state;
#[cfg(test)]
mod tests;

pub use intake::request_id_for;
pub use notice::Notice;
pub use setup::{ROUNDTABLE_FORMAT, RoundtableSetup};

use crate::phrases::RoundtablePhrases;
use crate::scenario::{Phase, Scenario};
use decision::RecentEvent;
use state::ModeratorState;
pub use voice_protocol::messages::SideRequest;

/// The speaker name of the moderator's own lines.
pub const MODERATOR: &str = "moderator";
/// Characters of one utterance kept (a runaway stream is cut, not buffered forever).
pub use ::conductor::MAX_UTTERANCE_CHARS;
/// Characters of an utterance kept for summaries and the heuristic context.
pub const MAX_KEPT_CHARS: usize = 4_000;
/// Recent events handed to the rules.
pub const RECENT_EVENTS: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Config {
    /// A player reports `playback_done`: pace the conversation and wait for the
    /// closing line.
    pub paced: bool,
    /// Finished utterances (and moderator lines) that may wait unheard before the next
    /// decision is taken.
    pub max_unplayed: usize,
    /// Longest wait for a playback report before going on anyway.
    pub playback_timeout_ms: u64,
}

/// A message for the dataflow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// `turn`: Utf8 agent id, with `question_id`, `speaker` and `instruction`.
    Turn {
        agent: String,
        question_id: u64,
        instruction: Option<String>,
        /// The turn answers the human's words (the model serves it first).
        answers_human: bool,
    },
    /// `text`: a moderator line, complete (`session_status: ended`).
    Line {
        question_id: u64,
        text: String,
        kind: crate::LineKind,
    },
    /// `utterance`: a finished utterance, the moderator's and the human's included.
    Utterance {
        speaker: String,
        question_id: u64,
        text: String,
        human: bool,
        /// When the human's words were spoken, on their microphone's clock.
        heard: Option<voice_protocol::messages::HeardSpan>,
    },
    /// `interrupt` (a cancel): drop every line and turn older than `question_id`.
    Interrupt { question_id: u64 },
    /// `pause` / `resume`: the human's voice holds the agents' or lets it go on.
    Floor(::conductor::FloorChange),
    /// `request`: the broadcast intent request.
    Request(SideRequest),
    /// `decision`: one decision record.
    Decision(voice_protocol::messages::ModeratorDecision),
    /// `status`: the answer to a `stats` command.
    Status(voice_protocol::messages::RoundtableStatus),
    /// Something ignored, late or ending, for the log.
    Notice(Notice),
}

/// A decoded input, for the common interface ([`::conductor::Core::handle`]); each
/// variant is one of the `on_*` methods.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Input {
    /// A chunk of an agent's `text` stream (`input` is the agent id).
    Text {
        input: String,
        question_id: Option<u64>,
        ends: bool,
        text: String,
        error: Option<String>,
    },
    /// An agent bridge's `reply` (`input` is the input id, e.g. `reply_economist`).
    Reply {
        input: String,
        speaker: Option<String>,
        request_id: Option<String>,
        answer: String,
        error: Option<String>,
    },
    /// The player's `playback_done`.
    Played { question_id: u64 },
    /// The player's `playback_started`.
    PlaybackStarted { question_id: u64 },
    /// The human's voice began (`speech_started`; its first sound sent at `onset_us`).
    SpeechStarted { onset_us: Option<i64> },
    /// The human only acknowledged (`backchannel`).
    Backchannel,
    /// The human's final words (`human`: a transcript, or typed); `speaker` when named.
    Human {
        speaker: Option<String>,
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        heard: Option<voice_protocol::messages::HeardSpan>,
    },
    /// A `control` command, as received.
    Control(String),
    /// The node feeding input `input` restarted (dora's `NodeRestarted`).
    Restarted { input: String },
}

/// A moderated roundtable.
#[derive(Debug, Clone)]
pub struct Roundtable {
    scenario: Scenario,
    state: ModeratorState,
    phrases: RoundtablePhrases,
    config: Config,
    stage: round::Stage,
    /// What was said: lines, their ids, the recent events, the prompt pending.
    said: lines::Said,
    /// Decisions taken so far (numbers the records).
    decisions: u64,
    /// Of those, the floor handed to answer the human (outside the rounds' bound).
    answers_to_human: u64,
    floor: Option<floor::Floor>,
    /// Lines waiting to be heard and the utterance held behind them.
    pacing: pacing::Pacing,
    intake: Option<intake::Intake>,
    /// Intent rounds in a row in which no agent answered in time (see
    /// [`intake::SILENT_ROUNDS_BEFORE_A_SHORT_WAIT`]).
    silent_intent_rounds: u32,
    /// After the end: the closing line and the wait for it.
    close: lines::Close,
    /// The human's voice over the agents': what sounds, and whether it is held.
    human_floor: ::conductor::Floor,
}

impl Roundtable {
    pub fn new(scenario: Scenario, config: Config) -> Self {
        Self::with_phrases(scenario, config, RoundtablePhrases::default())
    }

    /// A roundtable whose moderator says the lines of `phrases`.
    pub fn with_phrases(scenario: Scenario, config: Config, phrases: RoundtablePhrases) -> Self {
        let state = state::initial_state(&scenario);
        Self {
            scenario,
            state,
            phrases,
            config,
            stage: round::Stage::NotStarted,
            said: lines::Said::default(),
            decisions: 0,
            answers_to_human: 0,
            floor: None,
            pacing: pacing::Pacing::default(),
            intake: None,
            silent_intent_rounds: 0,
            close: lines::Close::default(),
            human_floor: ::conductor::Floor::new(),
        }
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    pub fn state(&self) -> &ModeratorState {
        &self.state
    }

    pub fn phase(&self) -> Phase {
        self.state.phase
    }

    /// Decisions taken so far (never more than [`Scenario::max_decisions`], plus one
    /// for a stop and one for each time the human spoke).
    pub fn decisions(&self) -> u64 {
        self.decisions
    }

    pub fn recent_events(&self) -> &[RecentEvent] {
        &self.said.recent
    }

    /// The session is over and, when paced, the closing line was heard (or the wait for
    /// it timed out): the node may exit.
    pub fn finished(&self) -> bool {
        self.close.finished
    }

    pub fn start(&mut self, now_ms: u64) -> Vec<Output> {
        let mut out = Vec::new();
        self.begin(now_ms, &mut out);
        out
    }

    /// When [`Self::tick`] must run at the latest.
    pub fn next_wake(&self) -> Option<u64> {
        if self.close.finished {
            return None;
        }
        if self.close.ending.is_some() {
            return [Some(self.playback_deadline()), self.human_floor.next_wake()]
                .into_iter()
                .flatten()
                .min();
        }
        [
            self.pacing.held.as_ref().map(|_| self.hold_deadline()),
            self.intake.as_ref().map(|i| i.round.deadline()),
            self.round_deadline(),
            self.human_floor.next_wake(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Time passed: overdue playback reports, missing intents, the rounds' deadlines.
    pub fn tick(&mut self, now_ms: u64) -> Vec<Output> {
        let mut out = Vec::new();
        if self.close.finished {
            return out;
        }
        if let Some(change) = self.human_floor.tick(now_ms) {
            out.push(Output::Notice(Notice::FloorNotTaken));
            out.push(Output::Floor(change));
        }
        if self.close.ending.is_some() {
            if now_ms >= self.playback_deadline() {
                out.push(Output::Notice(Notice::ClosingNotHeard));
                self.close.finished = true;
            }
            return out;
        }
        if self.pacing.held.is_some() && now_ms >= self.hold_deadline() {
            out.push(Output::Notice(Notice::PlaybackLate {
                unheard: self.pacing.unplayed.ids().collect(),
            }));
            self.pacing.unplayed.clear();
            self.deliver_held(now_ms, &mut out);
        }
        self.intents_overdue(now_ms, &mut out);
        self.check_deadlines(now_ms, &mut out);
        out
    }
}

impl ::conductor::Core for Roundtable {
    type Input = Input;
    type Output = Output;
    type Opening = ();

    fn start(&mut self, _: &(), now_ms: u64) -> Vec<Output> {
        Roundtable::start(self, now_ms)
    }

    fn handle(&mut self, input: Input, now_ms: u64) -> Vec<Output> {
        match input {
            Input::Text {
                input,
                question_id,
                ends,
                text,
                error,
            } => self.on_text(&input, question_id, ends, &text, error.as_deref(), now_ms),
            Input::Reply {
                input,
                speaker,
                request_id,
                answer,
                error,
            } => self.on_reply(
                &input,
                speaker.as_deref(),
                request_id.as_deref(),
                &answer,
                error.as_deref(),
                now_ms,
            ),
            Input::Played { question_id } => self.on_played(question_id, now_ms),
            Input::PlaybackStarted { question_id } => self.on_playback_started(question_id),
            Input::SpeechStarted { onset_us } => self.on_speech_started(onset_us, now_ms),
            Input::Backchannel => self.on_backchannel(),
            Input::Human {
                speaker,
                text,
                heard,
            } => self.on_human(speaker, &text, heard, now_ms),
            Input::Control(text) => self.on_control(&text, now_ms),
            Input::Restarted { input } => self.on_restarted(&input, now_ms),
        }
    }

    fn tick(&mut self, now_ms: u64) -> Vec<Output> {
        Roundtable::tick(self, now_ms)
    }

    fn next_wake(&self) -> Option<u64> {
        Roundtable::next_wake(self)
    }

    fn finished(&self) -> bool {
        Roundtable::finished(self)
    }
}

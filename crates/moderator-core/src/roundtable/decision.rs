//! The spec's decision types: the nine moderator actions, one decision with its reason,
//! and the recent events the rules look back on.

use serde::{Deserialize, Serialize};

use crate::phrases::LineKind;
use crate::scenario::Phase;

/// The spec's `ModeratorAction`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ModeratorAction {
    /// Approves an agent's request to speak.
    AllowSpeech,
    /// Refuses the request of an agent held back by the consecutive-speech limit.
    RejectSpeech,
    /// The moderator asks everyone a guiding question.
    PromptQuestion,
    /// The moderator gives the floor to an agent by name.
    CallAgent,
    /// The moderator sums up the phase.
    ForceSummary,
    /// The session moves to `next_phase`.
    SwitchPhase,
    /// The session ends.
    EndDiscussion,
    /// Nothing to do this round.
    Wait,
    /// An agent is told it has had the floor too much.
    WarnAgent,
}

impl ModeratorAction {
    /// The spec's spelling, as the decision records carry it (`SWITCH_PHASE`).
    pub fn as_str(self) -> &'static str {
        match self {
            ModeratorAction::AllowSpeech => "ALLOW_SPEECH",
            ModeratorAction::RejectSpeech => "REJECT_SPEECH",
            ModeratorAction::PromptQuestion => "PROMPT_QUESTION",
            ModeratorAction::CallAgent => "CALL_AGENT",
            ModeratorAction::ForceSummary => "FORCE_SUMMARY",
            ModeratorAction::SwitchPhase => "SWITCH_PHASE",
            ModeratorAction::EndDiscussion => "END_DISCUSSION",
            ModeratorAction::Wait => "WAIT",
            ModeratorAction::WarnAgent => "WARN_AGENT",
        }
    }

    /// Whether the floor goes to `target`.
    pub fn grants_floor(self) -> bool {
        matches!(
            self,
            ModeratorAction::AllowSpeech | ModeratorAction::CallAgent
        )
    }
}

/// One decision, with everything the log needs to explain it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    pub action: ModeratorAction,
    /// The single agent the action is about (never more than one).
    pub target: Option<String>,
    pub reason: String,
    /// For SWITCH_PHASE (and END_DISCUSSION: `Ended`).
    pub next_phase: Option<Phase>,
    /// The floor is granted as an interruption.
    pub is_interrupt: bool,
    /// The switch is a rollback to free discussion.
    pub is_rollback: bool,
}

impl Decision {
    pub(super) fn new(action: ModeratorAction, reason: impl Into<String>) -> Self {
        Self {
            action,
            target: None,
            reason: reason.into(),
            next_phase: None,
            is_interrupt: false,
            is_rollback: false,
        }
    }

    pub(super) fn to(mut self, agent: &str) -> Self {
        self.target = Some(agent.to_owned());
        self
    }

    pub(super) fn phase(mut self, phase: Phase) -> Self {
        self.next_phase = Some(phase);
        self
    }
}

/// What recently happened, as the rounds report it (newest last). Only the tail is
/// read: whether the moderator just asked a question, and which agents were given the
/// floor and stayed silent (they are not called again until they speak).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RecentEvent {
    Spoke {
        agent: String,
        is_interrupt: bool,
    },
    /// The agent was given the floor and never spoke.
    NoShow {
        agent: String,
    },
    ModeratorLine {
        kind: LineKind,
    },
    /// A round ended without speech.
    Idle,
}

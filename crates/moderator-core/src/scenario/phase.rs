//! The phases of a roundtable, how the floor is handed out in each, and when one rolls
//! back.

use serde::{Deserialize, Serialize};

/// A configurable discussion phase, in the order of the state machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseType {
    Opening,
    FreeDiscussion,
    FocusedConflict,
    Convergence,
    Closing,
}

impl PhaseType {
    pub const ALL: [PhaseType; 5] = [
        PhaseType::Opening,
        PhaseType::FreeDiscussion,
        PhaseType::FocusedConflict,
        PhaseType::Convergence,
        PhaseType::Closing,
    ];

    /// The name used in scenario files and logs.
    pub fn as_str(self) -> &'static str {
        match self {
            PhaseType::Opening => "opening",
            PhaseType::FreeDiscussion => "free_discussion",
            PhaseType::FocusedConflict => "focused_conflict",
            PhaseType::Convergence => "convergence",
            PhaseType::Closing => "closing",
        }
    }

    /// How the moderator refers to the phase when speaking ("let me sum up ...").
    /// How the moderator names the phase in `lang` ("the open discussion", "自由讨论").
    pub fn spoken_label_in(self, lang: crate::phrases::Language) -> &'static str {
        match lang {
            crate::phrases::Language::En => self.spoken_label(),
            crate::phrases::Language::Zh => match self {
                PhaseType::Opening => "开场陈述",
                PhaseType::FreeDiscussion => "自由讨论",
                PhaseType::FocusedConflict => "主要分歧",
                PhaseType::Convergence => "寻找共识的讨论",
                PhaseType::Closing => "总结陈述",
            },
        }
    }

    pub fn spoken_label(self) -> &'static str {
        match self {
            PhaseType::Opening => "the opening statements",
            PhaseType::FreeDiscussion => "the open discussion",
            PhaseType::FocusedConflict => "the main disagreement",
            PhaseType::Convergence => "our search for common ground",
            PhaseType::Closing => "the closing statements",
        }
    }

    /// Whether a rollback to free discussion may start from this phase.
    pub fn can_roll_back(self) -> bool {
        matches!(self, PhaseType::FocusedConflict | PhaseType::Convergence)
    }

    /// Opening and closing give every agent one turn; the discussion phases have room
    /// for two to three exchanges per agent.
    pub(super) fn default_max_rounds(self, agents: usize) -> u32 {
        let n = u32::try_from(agents).unwrap_or(u32::MAX).max(1);
        match self {
            PhaseType::Opening | PhaseType::Closing => n,
            PhaseType::FreeDiscussion => n.saturating_mul(2).max(4),
            PhaseType::FocusedConflict => n.saturating_mul(2).max(4),
            PhaseType::Convergence => n.max(3),
        }
    }

    /// Statements go around the table; discussion is free; convergence is steered by the
    /// moderator so that every position is heard once more.
    pub(super) fn default_speaking_order(self) -> SpeakingOrder {
        match self {
            PhaseType::Opening | PhaseType::Closing => SpeakingOrder::RoundRobin,
            PhaseType::FreeDiscussion | PhaseType::FocusedConflict => SpeakingOrder::Free,
            PhaseType::Convergence => SpeakingOrder::ModeratorCalled,
        }
    }

    pub(super) fn default_allow_interrupt(self) -> bool {
        matches!(self, PhaseType::FreeDiscussion | PhaseType::FocusedConflict)
    }

    /// The discussion phases end with a summary; statements need none.
    pub(super) fn default_summarize(self) -> bool {
        matches!(
            self,
            PhaseType::FreeDiscussion | PhaseType::FocusedConflict | PhaseType::Convergence
        )
    }

    /// Convergence rolls back when two agents insist on interrupting (the debate
    /// reopened); a focused conflict only when three agents interrupt at the top urgency
    /// (the focus is lost).
    pub(super) fn default_rollback(self) -> Option<RollbackRule> {
        match self {
            PhaseType::FocusedConflict => Some(RollbackRule {
                enabled: true,
                min_agents: 3,
                min_urgency: 5,
            }),
            PhaseType::Convergence => Some(RollbackRule {
                enabled: true,
                min_agents: 2,
                min_urgency: 4,
            }),
            _ => None,
        }
    }
}

impl std::fmt::Display for PhaseType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where the session is: a configurable phase, or before/after the discussion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    NotStarted,
    Opening,
    FreeDiscussion,
    FocusedConflict,
    Convergence,
    Closing,
    Ended,
}

impl Phase {
    /// The configurable phase, if the session is in one.
    pub fn phase_type(self) -> Option<PhaseType> {
        match self {
            Phase::NotStarted | Phase::Ended => None,
            Phase::Opening => Some(PhaseType::Opening),
            Phase::FreeDiscussion => Some(PhaseType::FreeDiscussion),
            Phase::FocusedConflict => Some(PhaseType::FocusedConflict),
            Phase::Convergence => Some(PhaseType::Convergence),
            Phase::Closing => Some(PhaseType::Closing),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Phase::NotStarted => "not_started",
            Phase::Ended => "ended",
            other => other.phase_type().map_or("", PhaseType::as_str),
        }
    }
}

impl From<PhaseType> for Phase {
    fn from(kind: PhaseType) -> Self {
        match kind {
            PhaseType::Opening => Phase::Opening,
            PhaseType::FreeDiscussion => Phase::FreeDiscussion,
            PhaseType::FocusedConflict => Phase::FocusedConflict,
            PhaseType::Convergence => Phase::Convergence,
            PhaseType::Closing => Phase::Closing,
        }
    }
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How the floor is handed out within a phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpeakingOrder {
    /// The request with the highest urgency wins.
    Free,
    /// Agents take turns in the configured order; intents only matter for interrupts.
    RoundRobin,
    /// The moderator names the agent that has had the floor least in this phase,
    /// preferring agents that did not pass.
    ModeratorCalled,
}

/// When a phase falls back to free discussion: at least `min_agents` distinct agents
/// send an `interrupt` intent with urgency ≥ `min_urgency` in the same round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RollbackRule {
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default = "two")]
    pub min_agents: u32,
    #[serde(default = "four")]
    pub min_urgency: u8,
}

fn yes() -> bool {
    true
}
fn two() -> u32 {
    2
}
fn four() -> u8 {
    4
}

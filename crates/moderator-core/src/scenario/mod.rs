//! The scenario file: topic, agents, phases and the moderator's knobs.
//!
//! A scenario is written in YAML ([`Scenario::from_yaml`]). Every knob has a default, so
//! the smallest valid file names a topic and the agents:
//!
//! ```yaml
//! topic: Should cities ban cars from their centres?
//! agents:
//!   - id: economist
//!   - id: engineer
//! ```
//!
//! `language: zh` makes the moderator speak Mandarin (its lines, summaries and the
//! instructions it hands to the agents); give its voice a Mandarin TTS voice too.
//!
//! The file is deserialized into [`ScenarioFile`] (everything optional) and then
//! validated into a [`Scenario`] whose values are all resolved, so the rules never
//! has to think about defaults.

mod file;
mod phase;

use serde::{Deserialize, Serialize};

pub use file::{AgentFile, ModeratorFile, PhaseFile, ScenarioFile};
pub use phase::{Phase, PhaseType, RollbackRule, SpeakingOrder};

/// Most consecutive speeches one agent may make (the spec's `MAX_CONSECUTIVE_SPEAKS`).
pub const MAX_CONSECUTIVE_SPEAKS: u32 = 2;
/// Lowest urgency at which an `interrupt` intent may be granted as an interruption.
pub const MIN_INTERRUPT_URGENCY: u8 = 3;
/// Highest intervention level (3: the moderator asks guiding questions on its own).
pub const MAX_INTERVENTION_LEVEL: u8 = 3;

/// Why a scenario was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioError {
    #[error("scenario is not valid YAML for this format: {0}")]
    Yaml(String),
    #[error("the scenario has no topic")]
    EmptyTopic,
    #[error("the scenario has no agents")]
    NoAgents,
    #[error("agent #{index} has an empty id")]
    EmptyAgentId { index: usize },
    #[error("agent `{0}` is listed twice")]
    DuplicateAgent(String),
    #[error("the scenario has an empty phase list")]
    NoPhases,
    #[error("phase `{0}` has max_rounds 0; every phase needs at least one round")]
    ZeroMaxRounds(PhaseType),
    #[error("phase `{0}` is listed twice")]
    DuplicatePhase(PhaseType),
    #[error(
        "phase `{phase}` comes after `{after}`; phases must follow the order opening, free_discussion, focused_conflict, convergence, closing"
    )]
    PhaseOrder { phase: PhaseType, after: PhaseType },
    #[error("phase `{0}` has a rollback rule; only focused_conflict and convergence can roll back")]
    RollbackNotAllowed(PhaseType),
    #[error("phase `{0}`: rollback min_agents must be at least 1")]
    RollbackMinAgents(PhaseType),
    #[error("phase `{phase}`: rollback min_urgency {urgency} is outside 1..=5")]
    RollbackUrgency { phase: PhaseType, urgency: u8 },
    #[error("intervention_level {0} is outside 0..=3")]
    InterventionLevel(u8),
    #[error("`{0}` must be at least 1")]
    Zero(&'static str),
}

/// A participant of a validated scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Agent {
    pub id: String,
    /// Display name used in the moderator's lines.
    pub name: String,
}

/// A validated phase with every knob resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseConfig {
    pub kind: PhaseType,
    /// Rounds (a speech or a round without one) before the phase ends.
    pub max_rounds: u32,
    pub speaking_order: SpeakingOrder,
    pub allow_interrupt: bool,
    /// Whether the phase ends with a FORCE_SUMMARY (skipped when nobody spoke).
    pub summarize: bool,
    /// Only on focused_conflict and convergence; `None`: never rolls back.
    pub rollback: Option<RollbackRule>,
    /// Replaces the built-in instruction handed to the agent with the floor (`{topic}`
    /// is filled in).
    pub instruction: Option<String>,
    /// Replaces the built-in guiding questions (`{topic}` is filled in).
    pub questions: Vec<String>,
}

/// The moderator's resolved knobs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModeratorConfig {
    /// How the moderator introduces itself. Default "your moderator".
    pub name: String,
    /// 0: never intervenes; 1: calls on someone when the room is very cold (2 ×
    /// `cold_threshold`); 2: calls the least-heard agent when cold or when the floor is
    /// unbalanced; 3: also asks guiding questions on its own. Default 2.
    pub intervention_level: u8,
    /// Idle rounds (nobody got the floor) before the room counts as cold. Default 2.
    pub cold_threshold: u32,
    /// Default [`MAX_CONSECUTIVE_SPEAKS`].
    pub max_consecutive_speaks: u32,
    /// Rollbacks to free discussion per session. Default 1.
    pub max_rollbacks: u32,
    /// Requests refused by the consecutive-speech limit before a WARN_AGENT. Default 2.
    pub warn_after: u32,
    /// How long a round waits for the intents of a round. Default 4 s.
    pub intent_timeout_ms: u64,
    /// How long an agent holding the floor may take before it counts as absent. Default 90 s.
    pub speech_timeout_ms: u64,
    /// Pause after a round without speech before intents are asked again. Default 1.5 s.
    pub idle_pause_ms: u64,
}

/// A validated scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scenario {
    pub topic: String,
    pub language: crate::phrases::Language,
    pub agents: Vec<Agent>,
    /// In state-machine order, each type at most once.
    pub phases: Vec<PhaseConfig>,
    pub moderator: ModeratorConfig,
    /// How the moderator's instructions name the human at the table (`None`: "our
    /// guest", in the scenario's language).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub human: Option<String>,
}

/// A sample scenario: three experts discuss car-free city centres.
pub const SAMPLE_SCENARIO: &str = include_str!("../../examples/roundtable.yml");

impl Scenario {
    /// Parses and validates a YAML scenario.
    pub fn from_yaml(text: &str) -> Result<Self, ScenarioError> {
        let file: ScenarioFile =
            serde_yaml::from_str(text).map_err(|e| ScenarioError::Yaml(e.to_string()))?;
        file.validate()
    }

    /// A scenario with every default: all five phases, the given agents (ids double as
    /// display names).
    pub fn with_defaults(topic: &str, agent_ids: &[&str]) -> Result<Self, ScenarioError> {
        ScenarioFile {
            topic: topic.to_owned(),
            language: Default::default(),
            agents: agent_ids
                .iter()
                .map(|id| AgentFile {
                    id: (*id).to_owned(),
                    name: None,
                })
                .collect(),
            phases: None,
            moderator: ModeratorFile::default(),
            human: None,
        }
        .validate()
    }

    pub fn phase(&self, kind: PhaseType) -> Option<&PhaseConfig> {
        self.phases.iter().find(|p| p.kind == kind)
    }

    /// The phase configured after `kind`, if any.
    pub fn next_phase(&self, kind: PhaseType) -> Option<PhaseType> {
        let i = self.phases.iter().position(|p| p.kind == kind)?;
        self.phases.get(i + 1).map(|p| p.kind)
    }

    pub fn agent(&self, id: &str) -> Option<&Agent> {
        self.agents.iter().find(|a| a.id == id)
    }

    /// Display name of `id` (the id itself for unknown agents).
    pub fn display_name<'a>(&'a self, id: &'a str) -> &'a str {
        self.agent(id).map_or(id, |a| a.name.as_str())
    }

    /// An upper bound on the decisions of a session, whatever the agents do.
    ///
    /// Each visit of a phase takes at most `max_rounds` rounds, each ending in one
    /// granting or idle decision. Intents are collected at most `max_rounds + 1` times
    /// per visit (the extra one may end in a rollback), and each collection adds at most
    /// one refused request (only the last speaker can be held back by the consecutive
    /// limit), so a visit holds at most `max_rounds + 1` WARN_AGENT decisions. A visit
    /// adds one summary and one switch (or the end). Free discussion, focused conflict
    /// and convergence are visited at most `1 + max_rollbacks` times. One more decision
    /// opens the session.
    pub fn max_decisions(&self) -> u64 {
        let rollbacks = u64::from(self.moderator.max_rollbacks);
        let mut total: u64 = 1;
        for phase in &self.phases {
            let visits = if matches!(
                phase.kind,
                PhaseType::FreeDiscussion | PhaseType::FocusedConflict | PhaseType::Convergence
            ) {
                1 + rollbacks
            } else {
                1
            };
            let per_visit = u64::from(phase.max_rounds)
                .saturating_mul(2)
                .saturating_add(3);
            total = total.saturating_add(visits.saturating_mul(per_visit));
        }
        total
    }
}

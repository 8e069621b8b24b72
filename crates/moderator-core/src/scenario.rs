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
//! validated into a [`Scenario`] whose values are all resolved, so the controller never
//! has to think about defaults.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// Most consecutive speeches one agent may make (the spec's `MAX_CONSECUTIVE_SPEAKS`).
pub const MAX_CONSECUTIVE_SPEAKS: u32 = 2;
/// Lowest urgency at which an `interrupt` intent may be granted as an interruption.
pub const MIN_INTERRUPT_URGENCY: u8 = 3;
/// Highest intervention level (3: the moderator asks guiding questions on its own).
pub const MAX_INTERVENTION_LEVEL: u8 = 3;

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
    fn default_max_rounds(self, agents: usize) -> u32 {
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
    fn default_speaking_order(self) -> SpeakingOrder {
        match self {
            PhaseType::Opening | PhaseType::Closing => SpeakingOrder::RoundRobin,
            PhaseType::FreeDiscussion | PhaseType::FocusedConflict => SpeakingOrder::Free,
            PhaseType::Convergence => SpeakingOrder::ModeratorCalled,
        }
    }

    fn default_allow_interrupt(self) -> bool {
        matches!(self, PhaseType::FreeDiscussion | PhaseType::FocusedConflict)
    }

    /// The discussion phases end with a summary; statements need none.
    fn default_summarize(self) -> bool {
        matches!(
            self,
            PhaseType::FreeDiscussion | PhaseType::FocusedConflict | PhaseType::Convergence
        )
    }

    /// Convergence rolls back when two agents insist on interrupting (the debate
    /// reopened); a focused conflict only when three agents interrupt at the top urgency
    /// (the focus is lost).
    fn default_rollback(self) -> Option<RollbackRule> {
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

/// A participant as written in the scenario file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentFile {
    /// The node/agent id used in the dataflow.
    pub id: String,
    /// How the moderator addresses the agent; defaults to the id.
    #[serde(default)]
    pub name: Option<String>,
}

/// One phase as written in the scenario file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhaseFile {
    #[serde(rename = "type")]
    pub kind: PhaseType,
    #[serde(default)]
    pub max_rounds: Option<u32>,
    #[serde(default)]
    pub speaking_order: Option<SpeakingOrder>,
    #[serde(default)]
    pub allow_interrupt: Option<bool>,
    #[serde(default)]
    pub summarize: Option<bool>,
    #[serde(default)]
    pub rollback: Option<RollbackRule>,
    #[serde(default)]
    pub instruction: Option<String>,
    #[serde(default)]
    pub questions: Option<Vec<String>>,
}

/// The moderator's knobs as written in the scenario file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModeratorFile {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub intervention_level: Option<u8>,
    #[serde(default)]
    pub cold_threshold: Option<u32>,
    #[serde(default)]
    pub max_consecutive_speaks: Option<u32>,
    #[serde(default)]
    pub max_rollbacks: Option<u32>,
    #[serde(default)]
    pub warn_after: Option<u32>,
    #[serde(default)]
    pub intent_timeout_ms: Option<u64>,
    #[serde(default)]
    pub speech_timeout_ms: Option<u64>,
    #[serde(default)]
    pub idle_pause_ms: Option<u64>,
}

/// The scenario file as deserialized, before defaults and validation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    #[serde(default)]
    pub topic: String,
    /// Language of the moderator's lines and instructions: `en` (default) or `zh`.
    #[serde(default)]
    pub language: crate::phrases::Language,
    #[serde(default)]
    pub agents: Vec<AgentFile>,
    /// Omitted: all five phases with their defaults.
    #[serde(default)]
    pub phases: Option<Vec<PhaseFile>>,
    #[serde(default)]
    pub moderator: ModeratorFile,
}

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
    /// How long the driver waits for the intents of a round. Default 4 s.
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
}

/// A sample scenario: three experts discuss car-free city centres.
pub const SAMPLE_SCENARIO: &str = include_str!("../examples/roundtable.yml");

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

impl ScenarioFile {
    /// Applies defaults and checks the scenario.
    pub fn validate(self) -> Result<Scenario, ScenarioError> {
        let topic = self.topic.trim().to_owned();
        if topic.is_empty() {
            return Err(ScenarioError::EmptyTopic);
        }
        if self.agents.is_empty() {
            return Err(ScenarioError::NoAgents);
        }
        let mut seen = BTreeSet::new();
        let mut agents = Vec::with_capacity(self.agents.len());
        for (index, agent) in self.agents.into_iter().enumerate() {
            let id = agent.id.trim().to_owned();
            if id.is_empty() {
                return Err(ScenarioError::EmptyAgentId { index });
            }
            if !seen.insert(id.clone()) {
                return Err(ScenarioError::DuplicateAgent(id));
            }
            let name = agent
                .name
                .map(|n| n.trim().to_owned())
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| id.clone());
            agents.push(Agent { id, name });
        }

        let files = self.phases.unwrap_or_else(|| {
            PhaseType::ALL
                .iter()
                .map(|&kind| PhaseFile {
                    kind,
                    max_rounds: None,
                    speaking_order: None,
                    allow_interrupt: None,
                    summarize: None,
                    rollback: None,
                    instruction: None,
                    questions: None,
                })
                .collect()
        });
        if files.is_empty() {
            return Err(ScenarioError::NoPhases);
        }
        let mut phases: Vec<PhaseConfig> = Vec::with_capacity(files.len());
        for file in files {
            let kind = file.kind;
            if let Some(prev) = phases.last() {
                if prev.kind == kind {
                    return Err(ScenarioError::DuplicatePhase(kind));
                }
                if prev.kind > kind {
                    return Err(ScenarioError::PhaseOrder {
                        phase: kind,
                        after: prev.kind,
                    });
                }
            }
            let max_rounds = file
                .max_rounds
                .unwrap_or_else(|| kind.default_max_rounds(agents.len()));
            if max_rounds == 0 {
                return Err(ScenarioError::ZeroMaxRounds(kind));
            }
            let rollback = match file.rollback {
                Some(_) if !kind.can_roll_back() => {
                    return Err(ScenarioError::RollbackNotAllowed(kind));
                }
                Some(rule) => Some(rule),
                None => kind.default_rollback(),
            };
            if let Some(rule) = rollback {
                if rule.min_agents == 0 {
                    return Err(ScenarioError::RollbackMinAgents(kind));
                }
                if !(1..=5).contains(&rule.min_urgency) {
                    return Err(ScenarioError::RollbackUrgency {
                        phase: kind,
                        urgency: rule.min_urgency,
                    });
                }
            }
            phases.push(PhaseConfig {
                kind,
                max_rounds,
                speaking_order: file
                    .speaking_order
                    .unwrap_or_else(|| kind.default_speaking_order()),
                allow_interrupt: file
                    .allow_interrupt
                    .unwrap_or_else(|| kind.default_allow_interrupt()),
                summarize: file.summarize.unwrap_or_else(|| kind.default_summarize()),
                rollback: rollback.filter(|r| r.enabled),
                instruction: file
                    .instruction
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty()),
                questions: file
                    .questions
                    .unwrap_or_default()
                    .into_iter()
                    .map(|q| q.trim().to_owned())
                    .filter(|q| !q.is_empty())
                    .collect(),
            });
        }

        let m = self.moderator;
        let intervention_level = m.intervention_level.unwrap_or(2);
        if intervention_level > MAX_INTERVENTION_LEVEL {
            return Err(ScenarioError::InterventionLevel(intervention_level));
        }
        let nonzero_u32 = |value: Option<u32>, default: u32, name: &'static str| {
            let v = value.unwrap_or(default);
            if v == 0 {
                Err(ScenarioError::Zero(name))
            } else {
                Ok(v)
            }
        };
        let nonzero_u64 = |value: Option<u64>, default: u64, name: &'static str| {
            let v = value.unwrap_or(default);
            if v == 0 {
                Err(ScenarioError::Zero(name))
            } else {
                Ok(v)
            }
        };
        let moderator = ModeratorConfig {
            name: m
                .name
                .map(|n| n.trim().to_owned())
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| "your moderator".to_owned()),
            intervention_level,
            cold_threshold: nonzero_u32(m.cold_threshold, 2, "cold_threshold")?,
            max_consecutive_speaks: nonzero_u32(
                m.max_consecutive_speaks,
                MAX_CONSECUTIVE_SPEAKS,
                "max_consecutive_speaks",
            )?,
            max_rollbacks: m.max_rollbacks.unwrap_or(1),
            warn_after: nonzero_u32(m.warn_after, 2, "warn_after")?,
            intent_timeout_ms: nonzero_u64(m.intent_timeout_ms, 4_000, "intent_timeout_ms")?,
            speech_timeout_ms: nonzero_u64(m.speech_timeout_ms, 90_000, "speech_timeout_ms")?,
            idle_pause_ms: m.idle_pause_ms.unwrap_or(1_500),
        };

        Ok(Scenario {
            topic,
            language: self.language,
            agents,
            phases,
            moderator,
        })
    }
}

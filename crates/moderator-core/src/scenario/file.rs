//! The scenario file as written: every key optional, then [`ScenarioFile::validate`]
//! resolves the defaults and checks it into a [`Scenario`].

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::*;

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
    /// How the panelists are told who the human at the table is (default: "our guest").
    #[serde(default)]
    pub human: Option<String>,
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
            human: self
                .human
                .map(|h| h.trim().to_owned())
                .filter(|h| !h.is_empty()),
        })
    }
}

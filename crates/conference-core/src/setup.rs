//! Everything a [`Conference`] is built from, in one serialisable value: the node builds
//! its controller from it and records it at the head of the session's decision log, and
//! a replay rebuilds the same controller from the record (with overrides, to ask "what
//! would another pattern have decided?").

use std::time::Duration;

use serde::{Deserialize, Serialize};
use turn_policy::{Policy, PolicyEngine};

use crate::{Conference, ConferenceConfig};

/// The name of the controller's decision logs (their `setup` line's `format`).
pub const CONTROLLER_FORMAT: &str = "conference-controller";

/// The controller's settings as the node read them from its environment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ControllerSetup {
    /// `DORA_POLICY_PATTERN`.
    pub pattern: String,
    /// `HUMAN_PARTICIPANTS`.
    pub humans: Vec<String>,
    pub turn_timeout_ms: u64,
    pub human_timeout_ms: u64,
    pub max_unplayed: Option<usize>,
    pub absent_retry_turns: Option<u32>,
    /// `TURN_RESEND_SECS` (0: never). Absent from logs recorded before it: the default.
    #[serde(default = "default_turn_resend_ms")]
    pub turn_resend_ms: u64,
}

fn default_turn_resend_ms() -> u64 {
    crate::TURN_RESEND.as_millis() as u64
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("DORA_POLICY_PATTERN: {0}")]
    Pattern(String),
    #[error("{key}: {problem}")]
    Value { key: String, problem: String },
    #[error(
        "unknown setting `{0}` (DORA_POLICY_PATTERN, HUMAN_PARTICIPANTS, TURN_TIMEOUT_SECS, HUMAN_TIMEOUT_SECS, MAX_UNPLAYED_TURNS, ABSENT_RETRY_TURNS, TURN_RESEND_SECS)"
    )]
    Unknown(String),
}

impl ControllerSetup {
    pub fn config(&self) -> ConferenceConfig {
        ConferenceConfig {
            turn_timeout: Duration::from_millis(self.turn_timeout_ms),
            human_timeout: Duration::from_millis(self.human_timeout_ms),
            max_unplayed: self.max_unplayed,
            absent_retry_turns: self.absent_retry_turns.filter(|turns| *turns > 0),
            turn_resend: Some(Duration::from_millis(self.turn_resend_ms)).filter(|d| !d.is_zero()),
        }
    }

    /// The policy engine of this setup (the node checks its viability before starting).
    pub fn engine(&self) -> Result<PolicyEngine, SetupError> {
        let policy =
            Policy::parse(&self.pattern).map_err(|e| SetupError::Pattern(e.to_string()))?;
        Ok(PolicyEngine::new(policy, &self.humans))
    }

    pub fn build(&self) -> Result<Conference, SetupError> {
        Ok(Conference::new(self.engine()?, self.config()))
    }

    /// Changes one setting by its environment name, as the node would have read it.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), SetupError> {
        let bad = |problem: String| SetupError::Value {
            key: key.to_owned(),
            problem,
        };
        let secs_to_ms = |value: &str| -> Result<u64, SetupError> {
            let secs: f64 = value.trim().parse().map_err(|e| bad(format!("{e}")))?;
            if !secs.is_finite() || secs <= 0.0 {
                return Err(bad("must be a positive number of seconds".into()));
            }
            Ok((secs * 1000.0).round() as u64)
        };
        match key {
            "DORA_POLICY_PATTERN" => {
                Policy::parse(value).map_err(|e| SetupError::Pattern(e.to_string()))?;
                self.pattern = value.to_owned();
            }
            "HUMAN_PARTICIPANTS" => {
                self.humans = value
                    .split(',')
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                    .collect();
            }
            "TURN_TIMEOUT_SECS" => self.turn_timeout_ms = secs_to_ms(value)?,
            "HUMAN_TIMEOUT_SECS" => self.human_timeout_ms = secs_to_ms(value)?,
            "TURN_RESEND_SECS" => {
                self.turn_resend_ms = match value.trim() {
                    "0" => 0,
                    other => secs_to_ms(other)?,
                }
            }
            "MAX_UNPLAYED_TURNS" => {
                self.max_unplayed = Some(value.trim().parse().map_err(|e| bad(format!("{e}")))?)
            }
            "ABSENT_RETRY_TURNS" => {
                self.absent_retry_turns =
                    Some(value.trim().parse().map_err(|e| bad(format!("{e}")))?)
            }
            other => return Err(SetupError::Unknown(other.to_owned())),
        }
        Ok(())
    }
}

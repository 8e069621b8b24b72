//! The controller's state: plain data, updated only by the pure functions of
//! [`crate::ModeratorController`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::scenario::Phase;

/// Everything the controller remembers between decisions.
///
/// A *round* ends each time the floor was used (a speech), or could not be used (a
/// WAIT, REJECT_SPEECH or PROMPT_QUESTION decision, or an agent that was given the floor
/// and never spoke). Both count towards the phase's `max_rounds`, so a silent room ends
/// as surely as a lively one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModeratorState {
    pub phase: Phase,
    /// Rounds in the current phase visit.
    pub phase_round: u32,
    /// Consecutive rounds without a speech.
    pub idle_rounds: u32,
    /// Rounds since the session started.
    pub total_rounds: u64,
    /// The agent that spoke last, across moderator lines and phase switches.
    pub last_speaker: Option<String>,
    /// How many times in a row `last_speaker` spoke (another agent's speech resets it;
    /// moderator lines do not).
    pub consecutive_speaks: u32,
    /// Speeches per agent in the session.
    pub speak_counts: BTreeMap<String, u32>,
    /// Speeches per agent in this phase visit.
    pub phase_speak_counts: BTreeMap<String, u32>,
    /// Times each agent was given the floor in this phase visit, spoken or not (drives
    /// round robin, so an absent agent does not hold up the rotation).
    pub phase_floor_counts: BTreeMap<String, u32>,
    /// `total_rounds` right after each agent's last speech.
    pub last_spoke_at: BTreeMap<String, u64>,
    /// The current phase visit's summary was given.
    pub summary_done: bool,
    /// Rollbacks to free discussion so far.
    pub rollbacks: u32,
    /// Requests refused by the consecutive-speech limit since the agent's last warning.
    pub refused_requests: BTreeMap<String, u32>,
    /// Warnings given per agent.
    pub warnings: BTreeMap<String, u32>,
}

impl ModeratorState {
    /// The state before `startSession`: every agent known with zero counts.
    pub fn new<S: AsRef<str>>(agent_ids: &[S]) -> Self {
        let zeros: BTreeMap<String, u32> = agent_ids
            .iter()
            .map(|a| (a.as_ref().to_owned(), 0))
            .collect();
        Self {
            phase: Phase::NotStarted,
            phase_round: 0,
            idle_rounds: 0,
            total_rounds: 0,
            last_speaker: None,
            consecutive_speaks: 0,
            speak_counts: zeros.clone(),
            phase_speak_counts: zeros.clone(),
            phase_floor_counts: zeros,
            last_spoke_at: BTreeMap::new(),
            summary_done: false,
            rollbacks: 0,
            refused_requests: BTreeMap::new(),
            warnings: BTreeMap::new(),
        }
    }

    pub fn speaks(&self, agent: &str) -> u32 {
        self.speak_counts.get(agent).copied().unwrap_or(0)
    }

    pub fn phase_speaks(&self, agent: &str) -> u32 {
        self.phase_speak_counts.get(agent).copied().unwrap_or(0)
    }

    pub fn phase_floors(&self, agent: &str) -> u32 {
        self.phase_floor_counts.get(agent).copied().unwrap_or(0)
    }

    /// Rounds since `agent` last spoke; `None` if it never did.
    pub fn rounds_since_spoke(&self, agent: &str) -> Option<u64> {
        self.last_spoke_at
            .get(agent)
            .map(|at| self.total_rounds.saturating_sub(*at))
    }

    /// Whether `agent` has reached the consecutive-speech limit `max`.
    pub fn is_held_back(&self, agent: &str, max: u32) -> bool {
        self.last_speaker.as_deref() == Some(agent) && self.consecutive_speaks >= max
    }
}

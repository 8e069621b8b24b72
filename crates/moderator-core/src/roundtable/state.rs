//! What the rules remember between decisions, and the pure updates that follow each
//! decision.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::intent::Intent;
use crate::scenario::{Phase, Scenario};

use super::decide::{max_consecutive, requests};
use super::decision::{Decision, ModeratorAction};

/// Everything the rules remember between decisions.
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
    /// The agent (or `human`) that spoke last, across moderator lines and phase switches.
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

/// The spec's `createInitialState`.
pub fn initial_state(scenario: &Scenario) -> ModeratorState {
    let ids: Vec<&str> = scenario.agents.iter().map(|a| a.id.as_str()).collect();
    ModeratorState::new(&ids)
}

/// Counts requests refused by the consecutive-speech limit (toward WARN_AGENT).
pub fn update_state_after_intents(
    scenario: &Scenario,
    state: &ModeratorState,
    intents: &[Intent],
) -> ModeratorState {
    let mut next = state.clone();
    let max = max_consecutive(scenario);
    for r in requests(scenario, intents) {
        if state.is_held_back(r.agent, max) {
            *next.refused_requests.entry(r.agent.to_owned()).or_insert(0) += 1;
        }
    }
    next
}

/// The spec's `updateStateAfterSpeech`: `agent` used the floor.
pub fn update_state_after_speech(state: &ModeratorState, agent: &str) -> ModeratorState {
    let mut next = state.clone();
    next.phase_round = next.phase_round.saturating_add(1);
    next.total_rounds = next.total_rounds.saturating_add(1);
    next.idle_rounds = 0;
    if next.last_speaker.as_deref() == Some(agent) {
        next.consecutive_speaks = next.consecutive_speaks.saturating_add(1);
    } else {
        next.last_speaker = Some(agent.to_owned());
        next.consecutive_speaks = 1;
    }
    for map in [
        &mut next.speak_counts,
        &mut next.phase_speak_counts,
        &mut next.phase_floor_counts,
    ] {
        let n = map.entry(agent.to_owned()).or_insert(0);
        *n = n.saturating_add(1);
    }
    next.last_spoke_at
        .insert(agent.to_owned(), next.total_rounds);
    next
}

/// The human spoke (spec 001's reset): the next speaker's run starts afresh, and no
/// round is used up, so the phases keep their length.
pub fn update_state_after_human(state: &ModeratorState) -> ModeratorState {
    let mut next = state.clone();
    next.last_speaker = Some(voice_protocol::ids::HUMAN.to_owned());
    next.consecutive_speaks = 1;
    next
}

/// `agent` answered the human: its speech counts as its own, but the aside uses up no
/// round of the phase.
pub fn update_state_after_answer(state: &ModeratorState, agent: &str) -> ModeratorState {
    let mut next = update_state_after_speech(state, agent);
    next.phase_round = state.phase_round;
    next.total_rounds = state.total_rounds;
    next.phase_floor_counts = state.phase_floor_counts.clone();
    next.last_spoke_at = state.last_spoke_at.clone();
    next.last_spoke_at
        .insert(agent.to_owned(), state.total_rounds);
    next
}

/// `agent` was given the floor and never spoke: an idle round that still moves the
/// rotation on.
pub fn update_state_after_no_show(state: &ModeratorState, agent: &str) -> ModeratorState {
    let mut next = update_state_after_idle_round(state);
    let n = next.phase_floor_counts.entry(agent.to_owned()).or_insert(0);
    *n = n.saturating_add(1);
    next
}

/// A round ended without speech (WAIT, REJECT_SPEECH, PROMPT_QUESTION).
pub fn update_state_after_idle_round(state: &ModeratorState) -> ModeratorState {
    let mut next = state.clone();
    next.phase_round = next.phase_round.saturating_add(1);
    next.total_rounds = next.total_rounds.saturating_add(1);
    next.idle_rounds = next.idle_rounds.saturating_add(1);
    next
}

pub fn update_state_after_summary(state: &ModeratorState) -> ModeratorState {
    let mut next = state.clone();
    next.summary_done = true;
    next
}

pub fn update_state_after_warning(state: &ModeratorState, agent: &str) -> ModeratorState {
    let mut next = state.clone();
    next.refused_requests.remove(agent);
    let n = next.warnings.entry(agent.to_owned()).or_insert(0);
    *n = n.saturating_add(1);
    next
}

/// The spec's `updateStateAfterPhaseSwitch`. The streak of the last speaker is kept:
/// the consecutive-speech limit holds across phases.
pub fn update_state_after_phase_switch(
    state: &ModeratorState,
    next_phase: Phase,
    is_rollback: bool,
) -> ModeratorState {
    let mut next = state.clone();
    next.phase = next_phase;
    next.phase_round = 0;
    next.idle_rounds = 0;
    next.summary_done = false;
    for n in next
        .phase_speak_counts
        .values_mut()
        .chain(next.phase_floor_counts.values_mut())
    {
        *n = 0;
    }
    if is_rollback {
        next.rollbacks = next.rollbacks.saturating_add(1);
    }
    next
}

/// Applies the part of `decision` that does not wait for an agent: phase switches,
/// the end, summaries, warnings and idle rounds. For ALLOW_SPEECH and CALL_AGENT the
/// state is unchanged until [`update_state_after_speech`] or
/// [`update_state_after_no_show`].
pub fn apply_decision(state: &ModeratorState, decision: &Decision) -> ModeratorState {
    match decision.action {
        ModeratorAction::SwitchPhase | ModeratorAction::EndDiscussion => {
            let to = decision.next_phase.unwrap_or(Phase::Ended);
            update_state_after_phase_switch(state, to, decision.is_rollback)
        }
        ModeratorAction::ForceSummary => update_state_after_summary(state),
        ModeratorAction::WarnAgent => match &decision.target {
            Some(agent) => update_state_after_warning(state, agent),
            None => state.clone(),
        },
        ModeratorAction::Wait | ModeratorAction::RejectSpeech | ModeratorAction::PromptQuestion => {
            if state.phase == Phase::Ended {
                state.clone()
            } else {
                update_state_after_idle_round(state)
            }
        }
        ModeratorAction::AllowSpeech | ModeratorAction::CallAgent => state.clone(),
    }
}

//! The moderator's decision rules: [`decide_next_action`] and what it rests on, pure
//! functions of the scenario and the [`ModeratorState`].
//!
//! Decision flow (first match wins):
//!
//! 1. **Phase** — not started: switch into the first phase. Round limit reached:
//!    FORCE_SUMMARY (once, if the phase summarizes and somebody spoke), then
//!    SWITCH_PHASE to the next configured phase, or END_DISCUSSION after the last one.
//!    Rollback (see [`crate::RollbackRule`]): SWITCH_PHASE back to free discussion.
//! 2. **Overheating** — an agent refused `warn_after` times by the consecutive-speech
//!    limit gets a WARN_AGENT.
//! 3. **Requests** — per the phase's speaking order: ALLOW_SPEECH for an agent that
//!    asked, CALL_AGENT for one named by the moderator.
//! 4. **Cold room** — `idle_rounds ≥ cold_threshold`: by intervention level, nothing
//!    (0), CALL_AGENT only when the room is very cold (1, twice the threshold), or
//!    CALL_AGENT of the least-heard agent (2).
//! 5. **Proactive** — level 2 calls the least-heard agent when the floor is unbalanced
//!    (someone two speeches behind in this phase); level 3 asks a guiding question
//!    (PROMPT_QUESTION) after any silent round, and calls the least-heard agent when the
//!    question drew no answer.
//! 6. REJECT_SPEECH when the only requests were held back by the consecutive limit,
//!    otherwise WAIT.
//!
//! A request in hand ends a cold spell: requests (3) are served before the cold-room
//! handling (4), which the spec lists earlier, because an agent wanting to speak is
//! exactly what a cold room lacks.

mod cold_room;

use cold_room::{intervene, recent_no_shows};

use crate::intent::{Intent, IntentKind};
use crate::phrases::LineKind;
use crate::scenario::{
    MIN_INTERRUPT_URGENCY, Phase, PhaseConfig, PhaseType, Scenario, SpeakingOrder,
};

use super::decision::{Decision, ModeratorAction, RecentEvent};
use super::state::ModeratorState;

/// A request to speak, normalized.
#[derive(Debug, Clone)]
pub(super) struct Request<'a> {
    pub(super) agent: &'a str,
    pub(super) order: usize,
    pub(super) kind: IntentKind,
    pub(super) urgency: u8,
}

pub fn phase_config(scenario: &Scenario, phase: Phase) -> Option<&PhaseConfig> {
    scenario.phase(phase.phase_type()?)
}

pub(super) fn max_consecutive(scenario: &Scenario) -> u32 {
    scenario.moderator.max_consecutive_speaks
}

/// The decision due regardless of intents (start, summary, switch, end), if any.
pub fn pending_phase_decision(scenario: &Scenario, state: &ModeratorState) -> Option<Decision> {
    match state.phase {
        Phase::Ended => return None,
        Phase::NotStarted => {
            return Some(match scenario.phases.first() {
                Some(first) => Decision::new(ModeratorAction::SwitchPhase, "the session starts")
                    .phase(first.kind.into()),
                None => {
                    Decision::new(ModeratorAction::EndDiscussion, "no phases").phase(Phase::Ended)
                }
            });
        }
        _ => {}
    }
    let Some(cfg) = phase_config(scenario, state.phase) else {
        return Some(
            Decision::new(
                ModeratorAction::EndDiscussion,
                format!("phase {} is not part of the scenario", state.phase),
            )
            .phase(Phase::Ended),
        );
    };
    if state.phase_round < cfg.max_rounds {
        return None;
    }
    let anyone_spoke = state.phase_speak_counts.values().any(|n| *n > 0);
    if cfg.summarize && !state.summary_done && anyone_spoke {
        return Some(Decision::new(
            ModeratorAction::ForceSummary,
            format!(
                "{} reached its limit of {} rounds",
                cfg.kind, cfg.max_rounds
            ),
        ));
    }
    Some(match scenario.next_phase(cfg.kind) {
        Some(next) => Decision::new(
            ModeratorAction::SwitchPhase,
            format!(
                "{} reached its limit of {} rounds",
                cfg.kind, cfg.max_rounds
            ),
        )
        .phase(next.into()),
        None => Decision::new(
            ModeratorAction::EndDiscussion,
            format!("{} finished; it is the last phase", cfg.kind),
        )
        .phase(Phase::Ended),
    })
}

/// Whether the next decision depends on the agents' intents. When it does not (a
/// phase decision is due, or a round-robin phase without interrupts or rollback), a
/// round can be decided at once instead of collecting intents.
pub fn needs_intents(scenario: &Scenario, state: &ModeratorState) -> bool {
    if pending_phase_decision(scenario, state).is_some() {
        return false;
    }
    match phase_config(scenario, state.phase) {
        Some(cfg) => {
            !(cfg.speaking_order == SpeakingOrder::RoundRobin
                && !cfg.allow_interrupt
                && cfg.rollback.is_none())
        }
        None => false,
    }
}

/// The spec's `decideNextAction`. Call [`super::state::update_state_after_intents`] once per
/// round before it, so that refused requests are counted.
///
/// Intents of unknown agents are ignored; if an agent sent several, the last counts;
/// urgency is clamped to 1..=5.
pub fn decide_next_action(
    scenario: &Scenario,
    state: &ModeratorState,
    intents: &[Intent],
    recent_events: &[RecentEvent],
) -> Decision {
    if state.phase == Phase::Ended {
        return Decision::new(ModeratorAction::Wait, "the discussion has ended");
    }
    if let Some(decision) = pending_phase_decision(scenario, state) {
        return decision;
    }
    let Some(cfg) = phase_config(scenario, state.phase) else {
        return Decision::new(ModeratorAction::Wait, "no phase configuration");
    };
    let requests = requests(scenario, intents);

    if let Some(decision) = rollback(scenario, state, cfg, &requests) {
        return decision;
    }

    // 2. Overheating.
    for agent in &scenario.agents {
        let refused = state.refused_requests.get(&agent.id).copied().unwrap_or(0);
        if refused >= scenario.moderator.warn_after {
            return Decision::new(
                ModeratorAction::WarnAgent,
                format!(
                    "{} asked {refused} times beyond the limit of {} consecutive speeches",
                    agent.id,
                    max_consecutive(scenario)
                ),
            )
            .to(&agent.id);
        }
    }

    // 3. Requests.
    if let Some(decision) = grant(scenario, state, cfg, &requests, recent_events) {
        return decision;
    }

    // 4. Cold room, 5. proactive intervention.
    if let Some(decision) = intervene(scenario, state, recent_events) {
        return decision;
    }

    // 6. Nothing to grant.
    let max = max_consecutive(scenario);
    if let Some(held) = requests
        .iter()
        .filter(|r| state.is_held_back(r.agent, max))
        .max_by_key(|r| r.urgency)
    {
        return Decision::new(
            ModeratorAction::RejectSpeech,
            format!(
                "{} has spoken {} times in a row (limit {max})",
                held.agent, state.consecutive_speaks
            ),
        )
        .to(held.agent);
    }
    let reason = if requests.is_empty() {
        "nobody asked for the floor"
    } else {
        "no request can be granted"
    };
    Decision::new(ModeratorAction::Wait, reason)
}

pub(super) fn requests<'a>(scenario: &Scenario, intents: &'a [Intent]) -> Vec<Request<'a>> {
    let mut out: Vec<Request<'a>> = Vec::new();
    for intent in intents {
        let Some(order) = scenario.agents.iter().position(|a| a.id == intent.agent) else {
            continue;
        };
        out.retain(|r| r.agent != intent.agent);
        if intent.kind != IntentKind::Pass {
            out.push(Request {
                agent: &intent.agent,
                order,
                kind: intent.kind,
                urgency: intent.urgency.clamp(1, 5),
            });
        }
    }
    out
}

fn is_valid_interrupt(cfg: &PhaseConfig, r: &Request<'_>) -> bool {
    r.kind == IntentKind::Interrupt && cfg.allow_interrupt && r.urgency >= MIN_INTERRUPT_URGENCY
}

fn rollback(
    scenario: &Scenario,
    state: &ModeratorState,
    cfg: &PhaseConfig,
    requests: &[Request<'_>],
) -> Option<Decision> {
    let rule = cfg.rollback?;
    if !cfg.kind.can_roll_back()
        || state.rollbacks >= scenario.moderator.max_rollbacks
        || scenario.phase(PhaseType::FreeDiscussion).is_none()
    {
        return None;
    }
    let insisting = requests
        .iter()
        .filter(|r| r.kind == IntentKind::Interrupt && r.urgency >= rule.min_urgency)
        .count();
    if (insisting as u64) < u64::from(rule.min_agents) {
        return None;
    }
    let mut d = Decision::new(
        ModeratorAction::SwitchPhase,
        format!(
            "{insisting} agents insist on interrupting (urgency ≥ {}): back to free discussion",
            rule.min_urgency
        ),
    )
    .phase(Phase::FreeDiscussion);
    d.is_rollback = true;
    Some(d)
}

fn grant(
    scenario: &Scenario,
    state: &ModeratorState,
    cfg: &PhaseConfig,
    requests: &[Request<'_>],
    recent: &[RecentEvent],
) -> Option<Decision> {
    let max = max_consecutive(scenario);
    let eligible: Vec<&Request<'_>> = requests
        .iter()
        .filter(|r| !state.is_held_back(r.agent, max))
        .collect();
    let held_note = match requests.iter().find(|r| state.is_held_back(r.agent, max)) {
        Some(r) => format!(
            "; {} is held back after {} consecutive speeches",
            r.agent, state.consecutive_speaks
        ),
        None => String::new(),
    };

    // Where interrupts are allowed, a valid one is served before the speaking order
    // (in free order it simply competes on urgency below).
    if cfg.speaking_order != SpeakingOrder::Free
        && let Some(best) = eligible
            .iter()
            .filter(|r| is_valid_interrupt(cfg, r))
            .min_by_key(|r| (std::cmp::Reverse(r.urgency), state.speaks(r.agent), r.order))
    {
        let mut d = Decision::new(
            ModeratorAction::AllowSpeech,
            format!(
                "{} interrupts with urgency {}{held_note}",
                best.agent, best.urgency
            ),
        )
        .to(best.agent);
        d.is_interrupt = true;
        return Some(d);
    }

    match cfg.speaking_order {
        SpeakingOrder::Free => {
            let best = eligible.iter().min_by_key(|r| {
                (
                    std::cmp::Reverse(r.urgency),
                    !is_valid_interrupt(cfg, r),
                    state.phase_speaks(r.agent),
                    state.speaks(r.agent),
                    r.order,
                )
            })?;
            let is_interrupt = is_valid_interrupt(cfg, best);
            let what = if is_interrupt {
                "interrupts"
            } else {
                "asks to speak"
            };
            let mut d = Decision::new(
                ModeratorAction::AllowSpeech,
                format!(
                    "{} {what} with the highest urgency ({}){held_note}",
                    best.agent, best.urgency
                ),
            )
            .to(best.agent);
            d.is_interrupt = is_interrupt;
            Some(d)
        }
        SpeakingOrder::RoundRobin => {
            let next = scenario
                .agents
                .iter()
                .enumerate()
                .filter(|(_, a)| !state.is_held_back(&a.id, max))
                .min_by_key(|(i, a)| (state.phase_floors(&a.id), *i))?
                .1;
            Some(give_to(&next.id, requests, "round robin: next in turn"))
        }
        SpeakingOrder::ModeratorCalled => {
            let silent = recent_no_shows(recent);
            let candidates = |skip_passing: bool, skip_absent: bool| {
                scenario
                    .agents
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| !state.is_held_back(&a.id, max))
                    .filter(|(_, a)| !skip_passing || requests.iter().any(|r| r.agent == a.id))
                    .filter(|(_, a)| !skip_absent || !silent.contains(&a.id.as_str()))
                    .min_by_key(|(i, a)| (state.phase_floors(&a.id), state.speaks(&a.id), *i))
                    .map(|(_, a)| a)
            };
            let next = candidates(true, true)
                .or_else(|| candidates(false, true))
                .or_else(|| candidates(false, false))?;
            Some(give_to(
                &next.id,
                requests,
                "moderator calls the agent heard least in this phase",
            ))
        }
    }
}

/// ALLOW_SPEECH if `agent` asked for the floor, CALL_AGENT otherwise.
fn give_to(agent: &str, requests: &[Request<'_>], why: &str) -> Decision {
    if let Some(r) = requests.iter().find(|r| r.agent == agent) {
        Decision::new(
            ModeratorAction::AllowSpeech,
            format!("{why}; {agent} asked with urgency {}", r.urgency),
        )
        .to(agent)
    } else {
        Decision::new(ModeratorAction::CallAgent, format!("{why}: {agent}")).to(agent)
    }
}

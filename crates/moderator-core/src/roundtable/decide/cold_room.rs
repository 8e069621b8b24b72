//! The moderator's interventions (the rules' steps 4 and 5): a cold room warmed by
//! calling the least-heard agent or asking a guiding question, by intervention level,
//! and how an agent is picked for it.

use super::*;

pub(super) fn intervene(
    scenario: &Scenario,
    state: &ModeratorState,
    recent: &[RecentEvent],
) -> Option<Decision> {
    let m = &scenario.moderator;
    let cold = state.idle_rounds >= m.cold_threshold;
    let just_asked = matches!(
        recent.last(),
        Some(RecentEvent::ModeratorLine {
            kind: LineKind::Question
        })
    );
    let call = |why: String| {
        least_heard(scenario, state, recent).map(|agent| {
            Decision::new(
                ModeratorAction::CallAgent,
                format!("Please share your view ({why}; {agent} has spoken least)"),
            )
            .to(agent)
        })
    };
    let question = || {
        Decision::new(
            ModeratorAction::PromptQuestion,
            format!("nobody has spoken for {} rounds", state.idle_rounds),
        )
    };
    let quiet = format!("the room has been quiet for {} rounds", state.idle_rounds);
    match m.intervention_level {
        0 => None,
        1 => {
            if state.idle_rounds >= m.cold_threshold.saturating_mul(2) {
                call(quiet)
            } else {
                None
            }
        }
        2 => {
            if cold {
                return call(quiet);
            }
            // Proactive: someone is two speeches behind in this phase.
            let (lo, hi) = scenario
                .agents
                .iter()
                .map(|a| state.phase_speaks(&a.id))
                .fold((u32::MAX, 0), |(lo, hi), n| (lo.min(n), hi.max(n)));
            if hi >= lo.saturating_add(2) {
                let agent = least_heard_in_phase(scenario, state, recent)?;
                if state.phase_speaks(agent) == lo {
                    return Some(
                        Decision::new(
                            ModeratorAction::CallAgent,
                            format!(
                                "Please share your view ({agent} is behind in this phase: {lo} speeches against {hi})"
                            ),
                        )
                        .to(agent),
                    );
                }
            }
            None
        }
        _ => {
            if just_asked && state.idle_rounds >= 1 {
                // The question drew no answer: name someone.
                return call(format!("nobody answered the question; {quiet}"));
            }
            if state.idle_rounds >= 1 {
                return Some(question());
            }
            None
        }
    }
}

/// The agent with the fewest speeches in the session (ties: in this phase, then
/// scenario order), skipping agents held back by the limit and agents that were
/// recently called and stayed silent (unless nobody else is left).
pub(super) fn least_heard<'a>(
    scenario: &'a Scenario,
    state: &ModeratorState,
    recent: &[RecentEvent],
) -> Option<&'a str> {
    pick_agent(scenario, state, recent, |state, id| {
        (state.speaks(id), state.phase_speaks(id))
    })
}

pub(super) fn least_heard_in_phase<'a>(
    scenario: &'a Scenario,
    state: &ModeratorState,
    recent: &[RecentEvent],
) -> Option<&'a str> {
    pick_agent(scenario, state, recent, |state, id| {
        (state.phase_speaks(id), state.speaks(id))
    })
}

pub(super) fn pick_agent<'a>(
    scenario: &'a Scenario,
    state: &ModeratorState,
    recent: &[RecentEvent],
    key: impl Fn(&ModeratorState, &str) -> (u32, u32),
) -> Option<&'a str> {
    let max = max_consecutive(scenario);
    let silent = recent_no_shows(recent);
    let pick = |skip_absent: bool| {
        scenario
            .agents
            .iter()
            .enumerate()
            .filter(|(_, a)| !state.is_held_back(&a.id, max))
            .filter(|(_, a)| !skip_absent || !silent.contains(&a.id.as_str()))
            .min_by_key(|(i, a)| (key(state, &a.id), *i))
            .map(|(_, a)| a.id.as_str())
    };
    pick(true).or_else(|| pick(false))
}

/// Agents whose latest appearance in `recent` is a no-show.
pub(super) fn recent_no_shows(recent: &[RecentEvent]) -> Vec<&str> {
    let mut seen: Vec<&str> = Vec::new();
    let mut silent: Vec<&str> = Vec::new();
    for event in recent.iter().rev() {
        match event {
            RecentEvent::Spoke { agent, .. } if !seen.contains(&agent.as_str()) => {
                seen.push(agent);
            }
            RecentEvent::NoShow { agent } if !seen.contains(&agent.as_str()) => {
                seen.push(agent);
                silent.push(agent);
            }
            _ => {}
        }
    }
    silent
}

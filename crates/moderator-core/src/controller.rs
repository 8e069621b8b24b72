//! The deterministic moderator: [`ModeratorController::decide_next_action`] and the
//! state updates that follow each decision.
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

use serde::{Deserialize, Serialize};

use crate::intent::{Intent, IntentKind};
use crate::phrases::LineKind;
use crate::scenario::{
    MIN_INTERRUPT_URGENCY, Phase, PhaseConfig, PhaseType, Scenario, SpeakingOrder,
};
use crate::state::ModeratorState;

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
    fn new(action: ModeratorAction, reason: impl Into<String>) -> Self {
        Self {
            action,
            target: None,
            reason: reason.into(),
            next_phase: None,
            is_interrupt: false,
            is_rollback: false,
        }
    }

    fn to(mut self, agent: &str) -> Self {
        self.target = Some(agent.to_owned());
        self
    }

    fn phase(mut self, phase: Phase) -> Self {
        self.next_phase = Some(phase);
        self
    }
}

/// What recently happened, as the driver reports it (newest last). Only the tail is
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

/// A request to speak, normalized.
#[derive(Debug, Clone)]
struct Request<'a> {
    agent: &'a str,
    order: usize,
    kind: IntentKind,
    urgency: u8,
}

/// The moderator controller: a scenario and pure functions over [`ModeratorState`].
#[derive(Debug, Clone, PartialEq)]
pub struct ModeratorController {
    scenario: Scenario,
}

impl ModeratorController {
    pub fn new(scenario: Scenario) -> Self {
        Self { scenario }
    }

    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The spec's `createInitialState`.
    pub fn initial_state(&self) -> ModeratorState {
        let ids: Vec<&str> = self.scenario.agents.iter().map(|a| a.id.as_str()).collect();
        ModeratorState::new(&ids)
    }

    pub fn phase_config(&self, phase: Phase) -> Option<&PhaseConfig> {
        self.scenario.phase(phase.phase_type()?)
    }

    fn max_consecutive(&self) -> u32 {
        self.scenario.moderator.max_consecutive_speaks
    }

    /// The decision due regardless of intents (start, summary, switch, end), if any.
    pub fn pending_phase_decision(&self, state: &ModeratorState) -> Option<Decision> {
        match state.phase {
            Phase::Ended => return None,
            Phase::NotStarted => {
                return Some(match self.scenario.phases.first() {
                    Some(first) => {
                        Decision::new(ModeratorAction::SwitchPhase, "the session starts")
                            .phase(first.kind.into())
                    }
                    None => Decision::new(ModeratorAction::EndDiscussion, "no phases")
                        .phase(Phase::Ended),
                });
            }
            _ => {}
        }
        let Some(cfg) = self.phase_config(state.phase) else {
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
        Some(match self.scenario.next_phase(cfg.kind) {
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
    /// driver can decide at once instead of collecting intents.
    pub fn needs_intents(&self, state: &ModeratorState) -> bool {
        if self.pending_phase_decision(state).is_some() {
            return false;
        }
        match self.phase_config(state.phase) {
            Some(cfg) => {
                !(cfg.speaking_order == SpeakingOrder::RoundRobin
                    && !cfg.allow_interrupt
                    && cfg.rollback.is_none())
            }
            None => false,
        }
    }

    /// The spec's `decideNextAction`. Call [`Self::update_state_after_intents`] once per
    /// round before it, so that refused requests are counted.
    ///
    /// Intents of unknown agents are ignored; if an agent sent several, the last counts;
    /// urgency is clamped to 1..=5.
    pub fn decide_next_action(
        &self,
        state: &ModeratorState,
        intents: &[Intent],
        recent_events: &[RecentEvent],
    ) -> Decision {
        if state.phase == Phase::Ended {
            return Decision::new(ModeratorAction::Wait, "the discussion has ended");
        }
        if let Some(decision) = self.pending_phase_decision(state) {
            return decision;
        }
        let Some(cfg) = self.phase_config(state.phase) else {
            return Decision::new(ModeratorAction::Wait, "no phase configuration");
        };
        let requests = self.requests(intents);

        if let Some(decision) = self.rollback(state, cfg, &requests) {
            return decision;
        }

        // 2. Overheating.
        for agent in &self.scenario.agents {
            let refused = state.refused_requests.get(&agent.id).copied().unwrap_or(0);
            if refused >= self.scenario.moderator.warn_after {
                return Decision::new(
                    ModeratorAction::WarnAgent,
                    format!(
                        "{} asked {refused} times beyond the limit of {} consecutive speeches",
                        agent.id,
                        self.max_consecutive()
                    ),
                )
                .to(&agent.id);
            }
        }

        // 3. Requests.
        if let Some(decision) = self.grant(state, cfg, &requests, recent_events) {
            return decision;
        }

        // 4. Cold room, 5. proactive intervention.
        if let Some(decision) = self.intervene(state, recent_events) {
            return decision;
        }

        // 6. Nothing to grant.
        let max = self.max_consecutive();
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

    fn requests<'a>(&self, intents: &'a [Intent]) -> Vec<Request<'a>> {
        let mut out: Vec<Request<'a>> = Vec::new();
        for intent in intents {
            let Some(order) = self
                .scenario
                .agents
                .iter()
                .position(|a| a.id == intent.agent)
            else {
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
        &self,
        state: &ModeratorState,
        cfg: &PhaseConfig,
        requests: &[Request<'_>],
    ) -> Option<Decision> {
        let rule = cfg.rollback?;
        if !cfg.kind.can_roll_back()
            || state.rollbacks >= self.scenario.moderator.max_rollbacks
            || self.scenario.phase(PhaseType::FreeDiscussion).is_none()
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
        &self,
        state: &ModeratorState,
        cfg: &PhaseConfig,
        requests: &[Request<'_>],
        recent: &[RecentEvent],
    ) -> Option<Decision> {
        let max = self.max_consecutive();
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
                .filter(|r| Self::is_valid_interrupt(cfg, r))
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
                        !Self::is_valid_interrupt(cfg, r),
                        state.phase_speaks(r.agent),
                        state.speaks(r.agent),
                        r.order,
                    )
                })?;
                let is_interrupt = Self::is_valid_interrupt(cfg, best);
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
                let next = self
                    .scenario
                    .agents
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| !state.is_held_back(&a.id, max))
                    .min_by_key(|(i, a)| (state.phase_floors(&a.id), *i))?
                    .1;
                Some(self.give_to(&next.id, requests, "round robin: next in turn"))
            }
            SpeakingOrder::ModeratorCalled => {
                let silent = recent_no_shows(recent);
                let candidates = |skip_passing: bool, skip_absent: bool| {
                    self.scenario
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
                Some(self.give_to(
                    &next.id,
                    requests,
                    "moderator calls the agent heard least in this phase",
                ))
            }
        }
    }

    /// ALLOW_SPEECH if `agent` asked for the floor, CALL_AGENT otherwise.
    fn give_to(&self, agent: &str, requests: &[Request<'_>], why: &str) -> Decision {
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

    fn intervene(&self, state: &ModeratorState, recent: &[RecentEvent]) -> Option<Decision> {
        let m = &self.scenario.moderator;
        let cold = state.idle_rounds >= m.cold_threshold;
        let just_asked = matches!(
            recent.last(),
            Some(RecentEvent::ModeratorLine {
                kind: LineKind::Question
            })
        );
        let call = |why: String| {
            self.least_heard(state, recent).map(|agent| {
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
                let (lo, hi) = self
                    .scenario
                    .agents
                    .iter()
                    .map(|a| state.phase_speaks(&a.id))
                    .fold((u32::MAX, 0), |(lo, hi), n| (lo.min(n), hi.max(n)));
                if hi >= lo.saturating_add(2) {
                    let agent = self.least_heard_in_phase(state, recent)?;
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
    fn least_heard<'a>(
        &'a self,
        state: &ModeratorState,
        recent: &[RecentEvent],
    ) -> Option<&'a str> {
        self.pick_agent(state, recent, |state, id| {
            (state.speaks(id), state.phase_speaks(id))
        })
    }

    fn least_heard_in_phase<'a>(
        &'a self,
        state: &ModeratorState,
        recent: &[RecentEvent],
    ) -> Option<&'a str> {
        self.pick_agent(state, recent, |state, id| {
            (state.phase_speaks(id), state.speaks(id))
        })
    }

    fn pick_agent<'a>(
        &'a self,
        state: &ModeratorState,
        recent: &[RecentEvent],
        key: impl Fn(&ModeratorState, &str) -> (u32, u32),
    ) -> Option<&'a str> {
        let max = self.max_consecutive();
        let silent = recent_no_shows(recent);
        let pick = |skip_absent: bool| {
            self.scenario
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

    // ----- state updates -------------------------------------------------------------

    /// Counts requests refused by the consecutive-speech limit (toward WARN_AGENT).
    pub fn update_state_after_intents(
        &self,
        state: &ModeratorState,
        intents: &[Intent],
    ) -> ModeratorState {
        let mut next = state.clone();
        let max = self.max_consecutive();
        for r in self.requests(intents) {
            if state.is_held_back(r.agent, max) {
                *next.refused_requests.entry(r.agent.to_owned()).or_insert(0) += 1;
            }
        }
        next
    }

    /// The spec's `updateStateAfterSpeech`: `agent` used the floor.
    pub fn update_state_after_speech(&self, state: &ModeratorState, agent: &str) -> ModeratorState {
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

    /// `agent` was given the floor and never spoke: an idle round that still moves the
    /// rotation on.
    pub fn update_state_after_no_show(
        &self,
        state: &ModeratorState,
        agent: &str,
    ) -> ModeratorState {
        let mut next = self.update_state_after_idle_round(state);
        let n = next.phase_floor_counts.entry(agent.to_owned()).or_insert(0);
        *n = n.saturating_add(1);
        next
    }

    /// A round ended without speech (WAIT, REJECT_SPEECH, PROMPT_QUESTION).
    pub fn update_state_after_idle_round(&self, state: &ModeratorState) -> ModeratorState {
        let mut next = state.clone();
        next.phase_round = next.phase_round.saturating_add(1);
        next.total_rounds = next.total_rounds.saturating_add(1);
        next.idle_rounds = next.idle_rounds.saturating_add(1);
        next
    }

    pub fn update_state_after_summary(&self, state: &ModeratorState) -> ModeratorState {
        let mut next = state.clone();
        next.summary_done = true;
        next
    }

    pub fn update_state_after_warning(
        &self,
        state: &ModeratorState,
        agent: &str,
    ) -> ModeratorState {
        let mut next = state.clone();
        next.refused_requests.remove(agent);
        let n = next.warnings.entry(agent.to_owned()).or_insert(0);
        *n = n.saturating_add(1);
        next
    }

    /// The spec's `updateStateAfterPhaseSwitch`. The streak of the last speaker is kept:
    /// the consecutive-speech limit holds across phases.
    pub fn update_state_after_phase_switch(
        &self,
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
    /// state is unchanged until [`Self::update_state_after_speech`] or
    /// [`Self::update_state_after_no_show`].
    pub fn apply_decision(&self, state: &ModeratorState, decision: &Decision) -> ModeratorState {
        match decision.action {
            ModeratorAction::SwitchPhase | ModeratorAction::EndDiscussion => {
                let to = decision.next_phase.unwrap_or(Phase::Ended);
                self.update_state_after_phase_switch(state, to, decision.is_rollback)
            }
            ModeratorAction::ForceSummary => self.update_state_after_summary(state),
            ModeratorAction::WarnAgent => match &decision.target {
                Some(agent) => self.update_state_after_warning(state, agent),
                None => state.clone(),
            },
            ModeratorAction::Wait
            | ModeratorAction::RejectSpeech
            | ModeratorAction::PromptQuestion => {
                if state.phase == Phase::Ended {
                    state.clone()
                } else {
                    self.update_state_after_idle_round(state)
                }
            }
            ModeratorAction::AllowSpeech | ModeratorAction::CallAgent => state.clone(),
        }
    }
}

/// Agents whose latest appearance in `recent` is a no-show.
fn recent_no_shows(recent: &[RecentEvent]) -> Vec<&str> {
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

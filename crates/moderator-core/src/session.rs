//! The sans-IO session driver a `moderator` node runs: events in, actions out.
//!
//! A round goes: [`Action::CollectIntents`] → the node asks every agent for its intent
//! and feeds back [`Event::IntentReceived`] → once all agents answered, or at the
//! deadline (missing intents count as `pass`), the controller decides → the node
//! performs the resulting actions ([`Action::ModeratorSay`], [`Action::GiveFloor`], ...)
//! → the agent with the floor reports [`Event::UtteranceFinished`] (or counts as absent
//! at its deadline) → next round. [`Roundtable::next_deadline`] says when the node must
//! send [`Event::Tick`] at the latest; nothing here reads a clock.
//!
//! Every action that carries a `question_id` gets a fresh one, strictly increasing over
//! the session, so downstream nodes can drop stale data by id alone.
//!
//! Moderator lines are fire-and-forget: the driver does not wait for them to be heard.
//! A node that plays them through the same speech queue as the agents keeps the order.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::controller::{Decision, ModeratorAction, ModeratorController, RecentEvent};
use crate::intent::{HeuristicContext, Intent, heuristic_intent, is_question, mentions_name};
use crate::phrases::{self, LineKind, RoundtablePhrases};
use crate::scenario::{Phase, Scenario};
use crate::state::ModeratorState;
use crate::summary::extractive_summary;

/// Characters of an utterance kept for summaries and the heuristic context.
pub const MAX_KEPT_CHARS: usize = 4_000;
/// Recent events handed to the controller.
pub const RECENT_EVENTS: usize = 16;

/// What the node reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// Open the session.
    Start,
    /// An agent's intent for the round opened by `CollectIntents { question_id }`;
    /// intents for another round, from unknown agents, or repeated (the first counts)
    /// are ignored.
    IntentReceived { question_id: u64, intent: Intent },
    /// The agent with the floor finished. `question_id`, when known, must be the one of
    /// its `GiveFloor`; blank text counts as not having spoken.
    UtteranceFinished {
        speaker: String,
        question_id: Option<u64>,
        text: String,
    },
    /// Time passed; deadlines are checked (every event checks them first).
    Tick,
    /// End now, with the closing line (an operator's stop).
    Stop,
}

/// What the node must do, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Action {
    /// Ask every agent for its intent (use [`Roundtable::heuristic_context`] for the
    /// fallback) and report them with this `question_id`.
    CollectIntents { question_id: u64, phase: Phase },
    /// `agent` has the floor; `instruction` goes into its prompt.
    GiveFloor {
        agent: String,
        question_id: u64,
        instruction: Option<String>,
        is_interrupt: bool,
    },
    /// Speak a moderator line.
    ModeratorSay {
        question_id: u64,
        text: String,
        kind: LineKind,
    },
    PhaseChanged {
        from: Phase,
        to: Phase,
        is_rollback: bool,
    },
    /// For the events log: every decision, before the actions it causes.
    Decision(Decision),
    /// The session is over; no further actions follow.
    End,
}

#[derive(Debug, Clone, PartialEq)]
enum Stage {
    NotStarted,
    Collecting {
        question_id: u64,
        deadline_ms: u64,
        intents: BTreeMap<String, Intent>,
    },
    Speaking {
        agent: String,
        question_id: u64,
        deadline_ms: u64,
        is_interrupt: bool,
    },
    Pausing {
        until_ms: u64,
    },
    /// Transient, while a decision is being carried out.
    Deciding,
    Ended,
}

/// A moderated roundtable session.
#[derive(Debug, Clone)]
pub struct Roundtable {
    controller: ModeratorController,
    state: ModeratorState,
    stage: Stage,
    last_question_id: u64,
    recent: Vec<RecentEvent>,
    /// `(agent id, text)` of this phase visit, for the summary.
    phase_utterances: Vec<(String, String)>,
    /// The last line heard: speaker (`None`: the moderator) and text.
    last_line: Option<(Option<String>, String)>,
    lines_said: u64,
    decisions: u64,
    phrases: RoundtablePhrases,
}

impl Roundtable {
    pub fn new(scenario: Scenario) -> Self {
        Self::with_phrases(scenario, RoundtablePhrases::default())
    }

    /// A session whose moderator says the lines of `phrases`.
    pub fn with_phrases(scenario: Scenario, phrases: RoundtablePhrases) -> Self {
        let controller = ModeratorController::new(scenario);
        let state = controller.initial_state();
        Self {
            controller,
            state,
            stage: Stage::NotStarted,
            last_question_id: 0,
            recent: Vec::new(),
            phase_utterances: Vec::new(),
            last_line: None,
            lines_said: 0,
            decisions: 0,
            phrases,
        }
    }

    pub fn controller(&self) -> &ModeratorController {
        &self.controller
    }

    pub fn scenario(&self) -> &Scenario {
        self.controller.scenario()
    }

    pub fn state(&self) -> &ModeratorState {
        &self.state
    }

    pub fn phase(&self) -> Phase {
        self.state.phase
    }

    pub fn is_ended(&self) -> bool {
        self.stage == Stage::Ended
    }

    /// Decisions taken so far (never more than [`Scenario::max_decisions`], plus one
    /// for an [`Event::Stop`]).
    pub fn decisions(&self) -> u64 {
        self.decisions
    }

    pub fn recent_events(&self) -> &[RecentEvent] {
        &self.recent
    }

    /// The agent holding the floor and the `question_id` of its turn.
    pub fn current_speaker(&self) -> Option<(&str, u64)> {
        match &self.stage {
            Stage::Speaking {
                agent, question_id, ..
            } => Some((agent, *question_id)),
            _ => None,
        }
    }

    /// The round whose intents are awaited, if any.
    pub fn collecting(&self) -> Option<u64> {
        match &self.stage {
            Stage::Collecting { question_id, .. } => Some(*question_id),
            _ => None,
        }
    }

    /// When the node must send [`Event::Tick`] at the latest (ms since session start).
    pub fn next_deadline(&self) -> Option<u64> {
        match &self.stage {
            Stage::Collecting { deadline_ms, .. } | Stage::Speaking { deadline_ms, .. } => {
                Some(*deadline_ms)
            }
            Stage::Pausing { until_ms } => Some(*until_ms),
            Stage::NotStarted | Stage::Deciding | Stage::Ended => None,
        }
    }

    /// What [`heuristic_intent`] needs for `agent` (`None` for an unknown agent).
    pub fn heuristic_context(&self, agent: &str) -> Option<HeuristicContext> {
        let scenario = self.controller.scenario();
        let me = scenario.agent(agent)?;
        let (last_speaker, last_text) = self.last_line.clone().unwrap_or((None, String::new()));
        let addressed = last_speaker.as_deref() != Some(agent)
            && (mentions_name(&last_text, &me.name) || mentions_name(&last_text, &me.id));
        let others: Vec<&str> = scenario
            .agents
            .iter()
            .filter(|a| a.id != agent)
            .map(|a| a.id.as_str())
            .collect();
        Some(HeuristicContext {
            is_question: is_question(&last_text),
            addressed,
            last_speaker,
            last_text,
            own_speaks: self.state.speaks(agent),
            others_speaks: others
                .iter()
                .fold(0u32, |sum, a| sum.saturating_add(self.state.speaks(a))),
            others_count: u32::try_from(others.len()).unwrap_or(u32::MAX),
            rounds_since_spoke: self.state.rounds_since_spoke(agent),
            phase: self.state.phase,
        })
    }

    /// The heuristic intents of every agent for the current round, in scenario order.
    pub fn heuristic_intents(&self) -> Vec<Intent> {
        self.controller
            .scenario()
            .agents
            .iter()
            .filter_map(|a| {
                self.heuristic_context(&a.id)
                    .map(|ctx| heuristic_intent(&a.id, &ctx))
            })
            .collect()
    }

    /// Processes one event at `now_ms` (monotonic, since session start).
    pub fn handle(&mut self, event: Event, now_ms: u64) -> Vec<Action> {
        let mut out = Vec::new();
        self.check_deadlines(now_ms, &mut out);
        match event {
            Event::Start => {
                if self.stage == Stage::NotStarted {
                    self.run(None, now_ms, &mut out);
                }
            }
            Event::IntentReceived {
                question_id,
                intent,
            } => {
                let agents = self.controller.scenario().agents.len();
                let known = self.controller.scenario().agent(&intent.agent).is_some();
                let complete = match &mut self.stage {
                    Stage::Collecting {
                        question_id: current,
                        intents,
                        ..
                    } if *current == question_id && known => {
                        intents.entry(intent.agent.clone()).or_insert(intent);
                        intents.len() >= agents
                    }
                    _ => false,
                };
                if complete {
                    self.finish_collecting(now_ms, &mut out);
                }
            }
            Event::UtteranceFinished {
                speaker,
                question_id,
                text,
            } => {
                let matches = match &self.stage {
                    Stage::Speaking {
                        agent,
                        question_id: current,
                        ..
                    } => *agent == speaker && question_id.is_none_or(|q| q == *current),
                    _ => false,
                };
                if matches {
                    self.finish_speech(Some(text), now_ms, &mut out);
                }
            }
            Event::Tick => {}
            Event::Stop => {
                if self.stage != Stage::Ended {
                    let d = Decision {
                        action: ModeratorAction::EndDiscussion,
                        target: None,
                        reason: "stopped by the operator".to_owned(),
                        next_phase: Some(Phase::Ended),
                        is_interrupt: false,
                        is_rollback: false,
                    };
                    self.decisions += 1;
                    out.push(Action::Decision(d));
                    let speak = self.stage != Stage::NotStarted;
                    self.end(speak, &mut out);
                }
            }
        }
        out
    }

    fn check_deadlines(&mut self, now_ms: u64, out: &mut Vec<Action>) {
        match &self.stage {
            Stage::Collecting { deadline_ms, .. } if now_ms >= *deadline_ms => {
                self.finish_collecting(now_ms, out);
            }
            Stage::Speaking { deadline_ms, .. } if now_ms >= *deadline_ms => {
                self.finish_speech(None, now_ms, out);
            }
            Stage::Pausing { until_ms } if now_ms >= *until_ms => {
                self.stage = Stage::Deciding;
                self.run(None, now_ms, out);
            }
            _ => {}
        }
    }

    fn finish_collecting(&mut self, now_ms: u64, out: &mut Vec<Action>) {
        let Stage::Collecting { intents, .. } = std::mem::replace(&mut self.stage, Stage::Deciding)
        else {
            return;
        };
        let all: Vec<Intent> = self
            .controller
            .scenario()
            .agents
            .iter()
            .map(|a| {
                intents
                    .get(&a.id)
                    .cloned()
                    .unwrap_or_else(|| Intent::pass(a.id.clone()))
            })
            .collect();
        self.run(Some(all), now_ms, out);
    }

    fn finish_speech(&mut self, text: Option<String>, now_ms: u64, out: &mut Vec<Action>) {
        let Stage::Speaking {
            agent,
            is_interrupt,
            ..
        } = std::mem::replace(&mut self.stage, Stage::Deciding)
        else {
            return;
        };
        match text.filter(|t| !t.trim().is_empty()) {
            Some(text) => {
                let text: String = text.trim().chars().take(MAX_KEPT_CHARS).collect();
                self.state = self
                    .controller
                    .update_state_after_speech(&self.state, &agent);
                self.phase_utterances.push((agent.clone(), text.clone()));
                self.last_line = Some((Some(agent.clone()), text));
                self.remember(RecentEvent::Spoke {
                    agent,
                    is_interrupt,
                });
            }
            None => {
                self.state = self
                    .controller
                    .update_state_after_no_show(&self.state, &agent);
                self.remember(RecentEvent::NoShow { agent });
            }
        }
        self.run(None, now_ms, out);
    }

    fn next_question_id(&mut self) -> u64 {
        self.last_question_id += 1;
        self.last_question_id
    }

    fn remember(&mut self, event: RecentEvent) {
        self.recent.push(event);
        if self.recent.len() > RECENT_EVENTS {
            let excess = self.recent.len() - RECENT_EVENTS;
            self.recent.drain(..excess);
        }
    }

    fn say(&mut self, text: String, kind: LineKind, out: &mut Vec<Action>) {
        let text = phrases::capitalize_first(&text);
        let question_id = self.next_question_id();
        self.lines_said += 1;
        self.last_line = Some((None, text.clone()));
        self.remember(RecentEvent::ModeratorLine { kind });
        out.push(Action::ModeratorSay {
            question_id,
            text,
            kind,
        });
    }

    fn display_names(&self) -> Vec<&str> {
        self.controller
            .scenario()
            .agents
            .iter()
            .map(|a| a.name.as_str())
            .collect()
    }

    /// Decides until the session needs input: intents, an utterance, or time.
    /// `pending`: the intents of the round, when just collected.
    fn run(&mut self, pending: Option<Vec<Intent>>, now_ms: u64, out: &mut Vec<Action>) {
        let mut pending = pending;
        let mut fresh = true;
        let bound = self.controller.scenario().max_decisions();
        loop {
            if self.state.phase == Phase::Ended {
                self.stage = Stage::Ended;
                return;
            }
            let intents = match pending.take() {
                Some(intents) => intents,
                None => {
                    if self.controller.needs_intents(&self.state) {
                        let question_id = self.next_question_id();
                        let timeout = self.controller.scenario().moderator.intent_timeout_ms;
                        self.stage = Stage::Collecting {
                            question_id,
                            deadline_ms: now_ms.saturating_add(timeout),
                            intents: BTreeMap::new(),
                        };
                        out.push(Action::CollectIntents {
                            question_id,
                            phase: self.state.phase,
                        });
                        return;
                    }
                    fresh = true;
                    Vec::new()
                }
            };
            if fresh {
                self.state = self
                    .controller
                    .update_state_after_intents(&self.state, &intents);
                fresh = false;
            }
            if self.decisions > bound {
                // Unreachable by construction (see `Scenario::max_decisions`); kept so
                // that a bug can never keep a session alive forever.
                let d = Decision {
                    action: ModeratorAction::EndDiscussion,
                    target: None,
                    reason: "decision bound exceeded".to_owned(),
                    next_phase: Some(Phase::Ended),
                    is_interrupt: false,
                    is_rollback: false,
                };
                self.decisions += 1;
                out.push(Action::Decision(d));
                self.end(true, out);
                return;
            }

            let decision = self
                .controller
                .decide_next_action(&self.state, &intents, &self.recent);
            self.decisions += 1;
            out.push(Action::Decision(decision.clone()));
            let phase_type = self.state.phase.phase_type();
            match decision.action {
                ModeratorAction::ForceSummary => {
                    let text = self.summary_text();
                    self.say(text, LineKind::Summary, out);
                    self.state = self.controller.apply_decision(&self.state, &decision);
                    pending = Some(intents);
                }
                ModeratorAction::WarnAgent => {
                    let target = decision.target.clone().unwrap_or_default();
                    let name = self.controller.scenario().display_name(&target).to_owned();
                    let text = self
                        .phrases
                        .warning(self.language(), &name, self.lines_said);
                    self.say(text, LineKind::Warning, out);
                    self.state = self.controller.apply_decision(&self.state, &decision);
                    pending = Some(intents);
                }
                ModeratorAction::SwitchPhase => {
                    let from = self.state.phase;
                    let to = decision.next_phase.unwrap_or(Phase::Ended);
                    let Some(kind) = to.phase_type() else {
                        self.end(true, out);
                        return;
                    };
                    self.state = self.controller.apply_decision(&self.state, &decision);
                    self.phase_utterances.clear();
                    out.push(Action::PhaseChanged {
                        from,
                        to,
                        is_rollback: decision.is_rollback,
                    });
                    let topic = self.controller.scenario().topic.clone();
                    if from == Phase::NotStarted {
                        let moderator = self.controller.scenario().moderator.name.clone();
                        let names = self.display_names();
                        let text =
                            self.phrases
                                .opening(self.language(), &topic, &moderator, &names, kind);
                        self.say(text, LineKind::Opening, out);
                    } else {
                        let text = self.phrases.transition(
                            self.language(),
                            kind,
                            &topic,
                            decision.is_rollback,
                        );
                        self.say(text, LineKind::Transition, out);
                    }
                }
                ModeratorAction::EndDiscussion => {
                    self.end(true, out);
                    return;
                }
                ModeratorAction::AllowSpeech | ModeratorAction::CallAgent => {
                    let (Some(agent), Some(kind)) = (decision.target.clone(), phase_type) else {
                        continue;
                    };
                    let called = decision.action == ModeratorAction::CallAgent;
                    let scenario = self.controller.scenario();
                    let name = scenario.display_name(&agent).to_owned();
                    let cfg = scenario.phase(kind);
                    let previous = match &self.last_line {
                        Some((Some(prev), _)) if decision.is_interrupt => {
                            Some(scenario.display_name(prev).to_owned())
                        }
                        _ => None,
                    };
                    let instruction = self.phrases.instruction(
                        scenario.language,
                        kind,
                        &scenario.topic,
                        cfg.and_then(|c| c.instruction.as_deref()),
                        previous.as_deref(),
                        called,
                    );
                    if called {
                        let first = self.state.phase_round == 0;
                        let text =
                            self.phrases
                                .call(self.language(), kind, &name, first, self.lines_said);
                        self.say(text, LineKind::Call, out);
                    }
                    let question_id = self.next_question_id();
                    let timeout = self.controller.scenario().moderator.speech_timeout_ms;
                    self.stage = Stage::Speaking {
                        agent: agent.clone(),
                        question_id,
                        deadline_ms: now_ms.saturating_add(timeout),
                        is_interrupt: decision.is_interrupt,
                    };
                    out.push(Action::GiveFloor {
                        agent,
                        question_id,
                        instruction: Some(instruction),
                        is_interrupt: decision.is_interrupt,
                    });
                    return;
                }
                ModeratorAction::PromptQuestion => {
                    if let Some(kind) = phase_type {
                        let scenario = self.controller.scenario();
                        let custom = scenario
                            .phase(kind)
                            .map(|c| c.questions.clone())
                            .unwrap_or_default();
                        let text = self.phrases.question(
                            scenario.language,
                            kind,
                            &scenario.topic,
                            self.lines_said,
                            &custom,
                        );
                        self.say(text, LineKind::Question, out);
                    }
                    self.state = self.controller.apply_decision(&self.state, &decision);
                }
                ModeratorAction::Wait | ModeratorAction::RejectSpeech => {
                    self.state = self.controller.apply_decision(&self.state, &decision);
                    self.remember(RecentEvent::Idle);
                    let pause = self.controller.scenario().moderator.idle_pause_ms;
                    if pause > 0 {
                        self.stage = Stage::Pausing {
                            until_ms: now_ms.saturating_add(pause),
                        };
                        return;
                    }
                }
            }
        }
    }

    /// Closing line (when `speak`), the switch to `Ended`, and [`Action::End`].
    fn end(&mut self, speak: bool, out: &mut Vec<Action>) {
        if speak {
            let names = self.display_names();
            let text = self.phrases.closing(self.language(), &names);
            self.say(text, LineKind::Closing, out);
        }
        let from = self.state.phase;
        self.state =
            self.controller
                .update_state_after_phase_switch(&self.state, Phase::Ended, false);
        out.push(Action::PhaseChanged {
            from,
            to: Phase::Ended,
            is_rollback: false,
        });
        out.push(Action::End);
        self.stage = Stage::Ended;
    }

    fn language(&self) -> phrases::Language {
        self.controller.scenario().language
    }

    fn summary_text(&self) -> String {
        let scenario = self.controller.scenario();
        let label = self.state.phase.phase_type().map_or(
            match scenario.language {
                phrases::Language::En => "the discussion",
                phrases::Language::Zh => "讨论",
            },
            |p| p.spoken_label_in(scenario.language),
        );
        let mut spoken = Vec::new();
        let mut silent = Vec::new();
        for agent in &scenario.agents {
            match self
                .phase_utterances
                .iter()
                .rev()
                .find(|(a, _)| *a == agent.id)
            {
                Some((_, text)) => spoken.push((agent.name.clone(), text.clone())),
                None => silent.push(agent.name.clone()),
            }
        }
        extractive_summary(scenario.language, label, &spoken, &silent)
    }
}

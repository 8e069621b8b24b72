//! The rounds and phases: when intents are asked, whom the rules give the floor, the
//! deadlines of each stage, and the moderator's lines that go with each decision.
//!
//! Moderator lines are fire-and-forget here: a round does not wait for them to be
//! heard ([`super::pacing`] holds the next one back instead).

use std::collections::BTreeMap;

use super::decision::{Decision, ModeratorAction, RecentEvent};
use super::{MAX_KEPT_CHARS, Notice, Output, Roundtable};
use super::{decide, state};
use crate::intent::Intent;
use crate::phrases::LineKind;
use crate::scenario::Phase;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Stage {
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
        /// An answer to the human: an aside that uses up no round of the phase.
        answers_human: bool,
    },
    Pausing {
        until_ms: u64,
    },
    /// Transient, while a decision is being carried out.
    Deciding,
    Ended,
}

impl Roundtable {
    /// The discussion is over (the rules took their last decision).
    pub fn is_ended(&self) -> bool {
        self.stage == Stage::Ended
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
    pub(super) fn collecting(&self) -> Option<u64> {
        match &self.stage {
            Stage::Collecting { question_id, .. } => Some(*question_id),
            _ => None,
        }
    }

    /// When the current stage runs out: the round's intents count as `pass`, the floor
    /// holder as absent, a pause ends.
    pub(crate) fn round_deadline(&self) -> Option<u64> {
        match &self.stage {
            Stage::Collecting { deadline_ms, .. } | Stage::Speaking { deadline_ms, .. } => {
                Some(*deadline_ms)
            }
            Stage::Pausing { until_ms } => Some(*until_ms),
            Stage::NotStarted | Stage::Deciding | Stage::Ended => None,
        }
    }

    /// Opens the session (once).
    pub(super) fn begin(&mut self, now_ms: u64, out: &mut Vec<Output>) {
        self.check_deadlines(now_ms, out);
        if self.stage == Stage::NotStarted {
            self.run(None, now_ms, out);
        }
    }

    /// An agent's intent for the round `question_id`; intents for another round, from
    /// unknown agents, or repeated (the first counts) are ignored.
    pub(crate) fn take_intent(
        &mut self,
        question_id: u64,
        intent: Intent,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        self.check_deadlines(now_ms, out);
        let agents = self.scenario().agents.len();
        let known = self.scenario().agent(&intent.agent).is_some();
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
            self.finish_collecting(now_ms, out);
        }
    }

    /// The agent with the floor finished. `question_id`, when known, must be the one of
    /// its turn; blank text counts as not having spoken.
    pub(crate) fn finish_turn(
        &mut self,
        speaker: &str,
        question_id: Option<u64>,
        text: String,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        self.check_deadlines(now_ms, out);
        let matches = match &self.stage {
            Stage::Speaking {
                agent,
                question_id: current,
                ..
            } => agent == speaker && question_id.is_none_or(|q| q == *current),
            _ => false,
        };
        if matches {
            self.finish_speech(Some(text), now_ms, out);
        }
    }

    /// Ends now, with the closing line (an operator's stop).
    pub(super) fn stop_rounds(&mut self, now_ms: u64, out: &mut Vec<Output>) {
        self.check_deadlines(now_ms, out);
        if self.stage != Stage::Ended {
            let d = Decision {
                action: ModeratorAction::EndDiscussion,
                target: None,
                reason: "stopped by the operator".to_owned(),
                next_phase: Some(Phase::Ended),
                is_interrupt: false,
                is_rollback: false,
            };
            self.record(&d, now_ms, out);
            let speak = self.stage != Stage::NotStarted;
            self.end(speak, now_ms, out);
        }
    }

    /// Whatever fell due by `now_ms`: missing intents count as `pass`, an absent floor
    /// holder as silent, a pause ends.
    pub(crate) fn check_deadlines(&mut self, now_ms: u64, out: &mut Vec<Output>) {
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

    fn finish_collecting(&mut self, now_ms: u64, out: &mut Vec<Output>) {
        let Stage::Collecting { intents, .. } = std::mem::replace(&mut self.stage, Stage::Deciding)
        else {
            return;
        };
        self.close_intake(out);
        let all: Vec<Intent> = self
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

    fn finish_speech(&mut self, text: Option<String>, now_ms: u64, out: &mut Vec<Output>) {
        if self.close_speech(text).is_some() {
            self.say_cut_lines(out);
            self.run(None, now_ms, out);
        }
    }

    /// The floor holder's turn is over, with `text` said (`None` or blank: nothing);
    /// returns whose turn it was. The next decision is the caller's.
    pub(super) fn close_speech(&mut self, text: Option<String>) -> Option<String> {
        let Stage::Speaking {
            agent,
            is_interrupt,
            answers_human,
            ..
        } = std::mem::replace(&mut self.stage, Stage::Deciding)
        else {
            return None;
        };
        match text.filter(|t| !t.trim().is_empty()) {
            Some(text) => {
                let text: String = text.trim().chars().take(MAX_KEPT_CHARS).collect();
                self.state = match answers_human {
                    true => state::update_state_after_answer(&self.state, &agent),
                    false => state::update_state_after_speech(&self.state, &agent),
                };
                self.said
                    .phase_utterances
                    .push((agent.clone(), text.clone()));
                self.said.last_line = Some((Some(agent.clone()), text));
                self.remember(RecentEvent::Spoke {
                    agent: agent.clone(),
                    is_interrupt,
                });
            }
            None if answers_human => {}
            None => {
                self.state = state::update_state_after_no_show(&self.state, &agent);
                self.remember(RecentEvent::NoShow {
                    agent: agent.clone(),
                });
            }
        }
        Some(agent)
    }

    /// Decides until the session needs input: intents, an utterance, or time.
    /// `pending`: the intents of the round, when just collected.
    fn run(&mut self, pending: Option<Vec<Intent>>, now_ms: u64, out: &mut Vec<Output>) {
        let mut pending = pending;
        let mut fresh = true;
        let bound = self.scenario().max_decisions();
        loop {
            if self.state.phase == Phase::Ended {
                self.stage = Stage::Ended;
                return;
            }
            let intents = match pending.take() {
                Some(intents) => intents,
                None => {
                    if decide::needs_intents(&self.scenario, &self.state) {
                        let question_id = self.next_question_id();
                        let timeout = self.intent_window_ms();
                        self.stage = Stage::Collecting {
                            question_id,
                            deadline_ms: now_ms.saturating_add(timeout),
                            intents: BTreeMap::new(),
                        };
                        self.ask_intents(question_id, now_ms, out);
                        return;
                    }
                    fresh = true;
                    Vec::new()
                }
            };
            if fresh {
                self.state =
                    state::update_state_after_intents(&self.scenario, &self.state, &intents);
                fresh = false;
            }
            if self.decisions - self.answers_to_human > bound {
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
                self.record(&d, now_ms, out);
                self.end(true, now_ms, out);
                return;
            }

            let decision = decide::decide_next_action(
                &self.scenario,
                &self.state,
                &intents,
                &self.said.recent,
            );
            self.record(&decision, now_ms, out);
            match decision.action {
                ModeratorAction::ForceSummary => {
                    let text = self.summary_text();
                    self.say(text, LineKind::Summary, out);
                    self.state = state::apply_decision(&self.state, &decision);
                    pending = Some(intents);
                }
                ModeratorAction::WarnAgent => {
                    let target = decision.target.clone().unwrap_or_default();
                    let name = self.scenario().display_name(&target).to_owned();
                    let text = self
                        .phrases
                        .warning(self.language(), &name, self.said.lines_said);
                    self.say(text, LineKind::Warning, out);
                    self.state = state::apply_decision(&self.state, &decision);
                    pending = Some(intents);
                }
                ModeratorAction::SwitchPhase => {
                    if !self.switch_phase(&decision, out) {
                        self.end(true, now_ms, out);
                        return;
                    }
                }
                ModeratorAction::EndDiscussion => {
                    self.end(true, now_ms, out);
                    return;
                }
                ModeratorAction::AllowSpeech | ModeratorAction::CallAgent => {
                    if self.give_floor(&decision, now_ms, out) {
                        return;
                    }
                }
                ModeratorAction::PromptQuestion => {
                    if let Some(kind) = self.state.phase.phase_type() {
                        let scenario = self.scenario();
                        let custom = scenario
                            .phase(kind)
                            .map(|c| c.questions.clone())
                            .unwrap_or_default();
                        let text = self.phrases.question(
                            scenario.language,
                            kind,
                            &scenario.topic,
                            self.said.lines_said,
                            &custom,
                        );
                        self.say(text, LineKind::Question, out);
                    }
                    self.state = state::apply_decision(&self.state, &decision);
                }
                ModeratorAction::Wait | ModeratorAction::RejectSpeech => {
                    self.state = state::apply_decision(&self.state, &decision);
                    self.remember(RecentEvent::Idle);
                    let pause = self.scenario().moderator.idle_pause_ms;
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

    /// Into the decision's next phase, with the opening or transition line; `false`
    /// when there is no such phase to go to.
    fn switch_phase(&mut self, decision: &Decision, out: &mut Vec<Output>) -> bool {
        let from = self.state.phase;
        let to = decision.next_phase.unwrap_or(Phase::Ended);
        let Some(kind) = to.phase_type() else {
            return false;
        };
        self.state = state::apply_decision(&self.state, decision);
        self.said.phase_utterances.clear();
        let topic = self.scenario().topic.clone();
        if from == Phase::NotStarted {
            let moderator = self.scenario().moderator.name.clone();
            let names = self.display_names();
            let text = self
                .phrases
                .opening(self.language(), &topic, &moderator, &names, kind);
            self.say(text, LineKind::Opening, out);
        } else {
            let text = self
                .phrases
                .transition(self.language(), kind, &topic, decision.is_rollback);
            self.say(text, LineKind::Transition, out);
        }
        true
    }

    /// The floor to the decision's target, after the moderator's call when it named
    /// the agent; `false` when there is nobody to give it to in this phase.
    fn give_floor(&mut self, decision: &Decision, now_ms: u64, out: &mut Vec<Output>) -> bool {
        let (Some(agent), Some(kind)) = (decision.target.clone(), self.state.phase.phase_type())
        else {
            return false;
        };
        let called = decision.action == ModeratorAction::CallAgent;
        let scenario = self.scenario();
        let name = scenario.display_name(&agent).to_owned();
        let cfg = scenario.phase(kind);
        let previous = match &self.said.last_line {
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
            let text = self
                .phrases
                .call(self.language(), kind, &name, first, self.said.lines_said);
            self.say(text, LineKind::Call, out);
        }
        let instruction = match self.said.pending_prompt.take() {
            Some(said) => format!("The moderator said: {said}\n{instruction}"),
            None => instruction,
        };
        self.hand_turn(
            agent,
            instruction,
            decision.is_interrupt,
            false,
            now_ms,
            out,
        );
        true
    }

    /// `agent`'s turn, with `instruction`, from now until the speech timeout.
    pub(super) fn hand_turn(
        &mut self,
        agent: String,
        instruction: String,
        is_interrupt: bool,
        answers_human: bool,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        let question_id = self.next_question_id();
        let timeout = self.scenario().moderator.speech_timeout_ms;
        self.stage = Stage::Speaking {
            agent: agent.clone(),
            question_id,
            deadline_ms: now_ms.saturating_add(timeout),
            is_interrupt,
            answers_human,
        };
        self.intake = None;
        self.open_floor(&agent, question_id);
        out.push(Output::Turn {
            agent,
            question_id,
            instruction: Some(instruction),
            answers_human,
        });
    }

    /// Closing line (when `speak`), the switch to `Ended`, and the wait for the closing
    /// line to be heard (paced) or the finish.
    fn end(&mut self, speak: bool, now_ms: u64, out: &mut Vec<Output>) {
        if speak {
            let names = self.display_names();
            let text = self.phrases.closing(self.language(), &names);
            self.say(text, LineKind::Closing, out);
        }
        self.state = state::update_state_after_phase_switch(&self.state, Phase::Ended, false);
        self.stage = Stage::Ended;
        out.push(Output::Notice(Notice::Ended {
            decisions: self.decisions,
        }));
        self.floor = None;
        self.pacing.held = None;
        self.intake = None;
        self.pacing.last_progress_ms = now_ms;
        self.close.ending = Some(self.close.closing_question_id);
        if !self.config.paced || self.close.closing_question_id.is_none() {
            self.close.finished = true;
        }
    }
}

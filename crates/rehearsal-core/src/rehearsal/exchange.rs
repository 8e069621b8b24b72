//! The exchange under way: the panelist's turns and the presenter's answers, the
//! intervention rule that closes it, the pile-on and the record it leaves.

use std::collections::BTreeSet;

use super::Rehearsal;
use super::decisions::{Action, CandidatePurpose, Instruction};
use super::notice::Notice;
use super::phases::Phase;
use crate::config::{Intensity, Thresholds};
use crate::phrases::PhraseKind;
use crate::record::{
    ExchangeRecord, Outcome, PileOnRecord, PileOnStatus, Speaker, Trigger, TurnRecord,
};
use crate::text::{self, asks_to_move_on, content_set, jaccard, shared};

/// The Q&A under way: the exchange, the section break it belongs to, and what the
/// panel's next prompts are built from.
#[derive(Debug, Default)]
pub(super) struct Qa {
    pub(super) exchange: Option<Exchange>,
    pub(super) brk: Option<Break>,
    /// The presenter's last answer.
    pub(super) last_answer: Option<String>,
    /// The exchange under way, as text (for pile-on prompts).
    pub(super) exchange_text: Vec<String>,
    /// The slide the exchange under way is about.
    pub(super) exchange_slide: Option<usize>,
    /// While a slide change is handled: the slide left (a section break is about it).
    pub(super) break_slide: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// The primary agent holds the floor.
    AwaitAgent,
    AwaitAnswer {
        since: u64,
    },
    PileOnAgent,
    PileOnAnswer {
        since: u64,
    },
    /// Logged; the bridge-back line is playing.
    BridgeBack {
        line_id: u64,
        since: u64,
    },
}

#[derive(Debug, Clone)]
pub(super) struct Exchange {
    pub(super) id: u64,
    pub(super) agent: usize,
    pub(super) slide: usize,
    pub(super) trigger: Trigger,
    pub(super) started_ms: u64,
    pub(super) transition_line: u64,
    pub(super) turns: Vec<TurnRecord>,
    pub(super) agent_turns: u32,
    pub(super) step: Step,
    pub(super) outcome: Option<Outcome>,
    pub(super) ended_ms: Option<u64>,
    pub(super) pile_on: Option<PileOnRecord>,
    pub(super) logged: bool,
}

#[derive(Debug, Clone)]
pub(super) struct Break {
    pub(super) slide: usize,
    pub(super) trigger: Trigger,
    pub(super) done: usize,
    pub(super) max: usize,
    pub(super) asked: Vec<usize>,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Speaking {
    pub(super) agent: usize,
    pub(super) question_id: u64,
    pub(super) since: u64,
}

impl Rehearsal {
    /// A panelist's line of this session (the exchange under way included) that
    /// `candidate` asks again ([`text::asks_again`]).
    pub(super) fn asked_before(&self, candidate: &str) -> Option<String> {
        let words = content_set(candidate);
        let under_way = self.qa.exchange.iter().flat_map(|e| &e.turns);
        let logged = self.results.records.iter().flat_map(|r| &r.turns);
        under_way
            .chain(logged)
            .filter(|t| matches!(t.speaker, Speaker::Agent(_)))
            .find(|t| text::asks_again(&words, &content_set(&t.text)))
            .map(|t| t.text.clone())
    }

    pub(super) fn call_agent(
        &mut self,
        agent: usize,
        instruction: Instruction,
        candidate: Option<String>,
        now: u64,
        out: &mut Vec<Action>,
    ) {
        debug_assert!(self.panel.speaking.is_none(), "two agents on the floor");
        if self.panel.speaking.is_some() {
            return;
        }
        let Some(ex) = self.qa.exchange.as_mut() else {
            return;
        };
        if matches!(
            instruction,
            Instruction::AskQuestion | Instruction::FollowUp
        ) {
            ex.agent_turns += 1;
        }
        let question_id = self.numbers.call();
        self.panel.speaking = Some(Speaking {
            agent,
            question_id,
            since: now,
        });
        self.panel.agents[agent].last_spoke_ms = Some(now);
        self.timers.last_question_ms = now;
        self.slide_notes.asked(ex.slide, agent);
        out.push(Action::CallAgent {
            agent: self.config.agents[agent].name.clone(),
            question_id,
            exchange_id: ex.id,
            instruction,
            candidate,
        });
    }

    pub(super) fn on_agent_turn(
        &mut self,
        agent: String,
        question_id: u64,
        text: String,
        now: u64,
        out: &mut Vec<Action>,
    ) {
        let current = self
            .panel
            .speaking
            .filter(|s| s.question_id == question_id && self.config.agents[s.agent].name == agent);
        let Some(s) = current else {
            out.push(Action::Notice(Notice::StaleTurn { agent, question_id }));
            return;
        };
        self.panel.speaking = None;
        let Some(ex) = self.qa.exchange.as_mut() else {
            return;
        };
        let text = text.trim().to_owned();
        self.presenter.answer.clear();
        match ex.step {
            Step::AwaitAgent => {
                ex.turns.push(TurnRecord {
                    speaker: Speaker::Agent(self.config.agents[s.agent].name.clone()),
                    text,
                    at_ms: now,
                    dodged: false,
                });
                ex.step = Step::AwaitAnswer { since: now };
                if self.phase == Phase::QaTrigger {
                    self.transition(Phase::Exchange, now, out);
                }
            }
            Step::PileOnAgent => {
                if let Some(p) = ex.pile_on.as_mut()
                    && !text.is_empty()
                {
                    p.question = text;
                }
                ex.step = Step::PileOnAnswer { since: now };
            }
            _ => {}
        }
    }

    pub(super) fn on_answer_event(&mut self, text: String, now: u64, out: &mut Vec<Action>) {
        let awaiting = self.qa.exchange.as_ref().is_some_and(|e| {
            matches!(e.step, Step::AwaitAnswer { .. } | Step::PileOnAnswer { .. })
        });
        if !awaiting {
            out.push(Action::Notice(Notice::NotAwaitingAnswer));
            return;
        }
        let text = if text.trim().is_empty() {
            self.presenter.answer.join(" ")
        } else {
            text.trim().to_owned()
        };
        if text.is_empty() {
            out.push(Action::Notice(Notice::EmptyAnswer));
            return;
        }
        self.on_answer(text, now, out);
    }

    pub(super) fn on_move_on(&mut self, now: u64, out: &mut Vec<Action>) {
        let awaiting = self.qa.exchange.as_ref().is_some_and(|e| {
            matches!(e.step, Step::AwaitAnswer { .. } | Step::PileOnAnswer { .. })
        });
        if !awaiting {
            out.push(Action::Notice(Notice::NotAwaitingAnswer));
            return;
        }
        let said = self.presenter.answer.join(" ");
        let text = if asks_to_move_on(&said) {
            said
        } else if said.trim().is_empty() {
            "Let's move on.".to_owned()
        } else {
            format!("{} Let's move on.", said.trim())
        };
        self.on_answer(text, now, out);
    }

    /// The intervention rule after an answer: `Some` closes the exchange.
    pub(super) fn intervention(&self, ex: &Exchange, answer: &str) -> Option<Outcome> {
        let n = ex.agent_turns;
        if asks_to_move_on(answer) {
            return Some(Outcome::PresenterMovedOn);
        }
        match self.config.intensity {
            Intensity::Friendly if n >= 2 => return Some(Outcome::FriendlyClose),
            Intensity::Moderate if self.is_circular(ex) => return Some(Outcome::Circular),
            _ => {}
        }
        (n >= self.config.intensity.max_agent_turns()).then_some(Outcome::TurnLimit)
    }

    /// Circular: the last two presenter answers, or the last two agent turns, overlap
    /// (Jaccard of content words) at or above `circular_overlap`.
    pub(super) fn is_circular(&self, ex: &Exchange) -> bool {
        let last_two = |presenter: bool| -> Option<f64> {
            let mut it = ex
                .turns
                .iter()
                .rev()
                .filter(|t| (t.speaker == Speaker::Presenter) == presenter);
            let a = content_set(&it.next()?.text);
            let b = content_set(&it.next()?.text);
            Some(jaccard(&a, &b))
        };
        let t = self.config.thresholds.circular_overlap;
        last_two(true).is_some_and(|j| j >= t) || last_two(false).is_some_and(|j| j >= t)
    }

    pub(super) fn on_answer(&mut self, text: String, now: u64, out: &mut Vec<Action>) {
        self.presenter.answer.clear();
        let Some(mut ex) = self.qa.exchange.take() else {
            return;
        };
        match ex.step {
            Step::PileOnAnswer { .. } => {
                if let Some(p) = ex.pile_on.as_mut() {
                    p.status = PileOnStatus::Asked { answer: Some(text) };
                }
                self.qa.exchange = Some(ex);
                self.after_pile_on(now, out);
            }
            Step::AwaitAnswer { .. } => {
                let question = ex
                    .turns
                    .iter()
                    .rev()
                    .find(|t| t.speaker != Speaker::Presenter)
                    .map(|t| content_set(&t.text))
                    .unwrap_or_default();
                let answer = content_set(&text);
                // A request to move on is no dodge: it is reported as such.
                let dodged = question.len() >= 2
                    && !answer.is_empty()
                    && shared(&question, &answer) == 0
                    && !asks_to_move_on(&text);
                ex.turns.push(TurnRecord {
                    speaker: Speaker::Presenter,
                    text: text.clone(),
                    at_ms: now,
                    dodged,
                });
                let others: Vec<String> = self
                    .config
                    .agents
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| *i != ex.agent)
                    .map(|(_, a)| a.name.clone())
                    .collect();
                if !others.is_empty() {
                    out.push(Action::RequestCandidates {
                        agents: others,
                        slide: ex.slide,
                        purpose: CandidatePurpose::PileOn,
                    });
                }
                let verdict = self.intervention(&ex, &text);
                let agent = ex.agent;
                let slide = ex.slide;
                ex.step = Step::AwaitAgent;
                self.qa.exchange = Some(ex);
                match verdict {
                    Some(outcome) => self.end_exchange(outcome, now, out),
                    None => {
                        self.say(PhraseKind::MicroPhrase, Some(agent), slide, out);
                        self.call_agent(agent, Instruction::FollowUp, None, now, out);
                    }
                }
            }
            _ => self.qa.exchange = Some(ex),
        }
    }

    /// Closes the primary exchange and enters Resolving: pile-on or straight on.
    pub(super) fn end_exchange(&mut self, outcome: Outcome, now: u64, out: &mut Vec<Action>) {
        if self.phase == Phase::QaTrigger {
            self.transition(Phase::Exchange, now, out);
        }
        self.transition(Phase::Resolving, now, out);
        let Some(ex) = self.qa.exchange.as_mut() else {
            return;
        };
        ex.outcome = Some(outcome);
        ex.ended_ms = Some(now);
        let (agent, started, slide) = (ex.agent, ex.started_ms, ex.slide);
        let words: BTreeSet<String> = ex.turns.iter().flat_map(|t| content_set(&t.text)).collect();
        let allow = !matches!(
            outcome,
            Outcome::PresenterMovedOn | Outcome::AgentTimedOut | Outcome::NoAnswer
        );
        let t = &self.config.thresholds;
        let pick = (0..self.panel.agents.len())
            .filter(|&b| b != agent && self.has_good_candidate(b))
            .filter_map(|b| {
                let c = self.panel.agents[b].candidate.as_ref()?;
                (c.received_ms >= started
                    && shared(&content_set(&c.text), &words) >= t.pile_on_shared_words)
                    .then_some((b, c.relevance))
            })
            .fold(None::<(usize, f64)>, |best, (b, r)| match best {
                Some((_, br)) if br >= r => best,
                _ => Some((b, r)),
            });
        let Some((b, _)) = pick.filter(|_| allow) else {
            self.after_pile_on(now, out);
            return;
        };
        let remaining = self.remaining_ms(now);
        let question = self.panel.agents[b]
            .candidate
            .take()
            .map(|c| c.text)
            .unwrap_or_default();
        let record = PileOnRecord {
            agent: self.config.agents[b].name.clone(),
            question: question.clone(),
            status: if remaining >= t.pile_on_min_remaining_ms {
                PileOnStatus::Asked { answer: None }
            } else {
                PileOnStatus::SkippedTimeTight {
                    remaining_ms: remaining,
                }
            },
        };
        let asked = matches!(record.status, PileOnStatus::Asked { .. });
        if let Some(ex) = self.qa.exchange.as_mut() {
            ex.pile_on = Some(record);
            if asked {
                ex.step = Step::PileOnAgent;
            }
        }
        if asked {
            self.say(PhraseKind::PileOn, Some(b), slide, out);
            self.call_agent(b, Instruction::PileOn, Some(question), now, out);
        } else {
            self.after_pile_on(now, out);
        }
    }

    /// Logs the exchange; then either the next exchange of a section break or the
    /// bridge-back line.
    pub(super) fn after_pile_on(&mut self, now: u64, out: &mut Vec<Action>) {
        self.log_exchange(now, out);
        if let Some(b) = self.qa.brk.clone()
            && b.done < b.max
            && self.remaining_ms(now) > 0
        {
            let next = self
                .ranked(b.slide, |i| {
                    !b.asked.contains(&i) && self.has_good_candidate(i)
                })
                .first()
                .copied();
            if let Some(agent) = next {
                self.return_to_presenting(now, out);
                self.start_exchange(agent, b.trigger, b.slide, now, out);
                return;
            }
        }
        self.qa.brk = None;
        let slide = self.qa.exchange.as_ref().map_or(self.slide, |e| e.slide);
        let line_id = self.say(PhraseKind::BridgeBack, None, slide, out);
        if let Some(ex) = self.qa.exchange.as_mut() {
            ex.step = Step::BridgeBack {
                line_id,
                since: now,
            };
        }
    }

    pub(super) fn log_exchange(&mut self, now: u64, out: &mut Vec<Action>) {
        let Some(ex) = self.qa.exchange.as_mut() else {
            return;
        };
        if ex.logged {
            return;
        }
        ex.logged = true;
        let record = ExchangeRecord {
            id: ex.id,
            slide: ex.slide,
            slide_title: self.deck.title_of(ex.slide),
            agent: self.config.agents[ex.agent].name.clone(),
            trigger: ex.trigger,
            started_ms: ex.started_ms,
            ended_ms: ex.ended_ms.unwrap_or(now),
            turns: ex.turns.clone(),
            outcome: ex.outcome.unwrap_or(Outcome::SessionEnded),
            pile_on: ex.pile_on.clone(),
        };
        self.results.records.push(record.clone());
        out.push(Action::LogExchange(record));
    }

    pub(super) fn exchange_timers(&mut self, now: u64, t: &Thresholds, out: &mut Vec<Action>) {
        let Some(ex) = &self.qa.exchange else {
            return;
        };
        if self.phase == Phase::QaTrigger && now.saturating_sub(ex.started_ms) >= t.line_timeout_ms
        {
            self.transition(Phase::Exchange, now, out);
        }
        let Some(ex) = &self.qa.exchange else {
            return;
        };
        match ex.step {
            Step::AwaitAnswer { since } | Step::PileOnAnswer { since } => {
                let pile = matches!(ex.step, Step::PileOnAnswer { .. });
                let last = self.presenter.last_end.unwrap_or(0).max(since);
                let quiet =
                    !self.presenter.open && now.saturating_sub(last) >= t.answer_end_silence_ms;
                let has_words = !self.presenter.answer.is_empty();
                if has_words
                    && ((t.answer_end_silence_ms > 0 && quiet)
                        || now.saturating_sub(last) >= t.answer_timeout_ms)
                {
                    let text = self.presenter.answer.join(" ");
                    self.on_answer(text, now, out);
                } else if !has_words && now.saturating_sub(last) >= t.answer_timeout_ms {
                    if pile {
                        self.after_pile_on(now, out);
                    } else {
                        self.end_exchange(Outcome::NoAnswer, now, out);
                    }
                }
            }
            Step::BridgeBack { since, .. } if now.saturating_sub(since) >= t.line_timeout_ms => {
                self.return_to_presenting(now, out);
            }
            _ => {}
        }
    }
}

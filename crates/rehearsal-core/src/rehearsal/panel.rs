//! The panel as the moderator sees it: each panelist's prepared question and when it
//! last spoke, raised hands, who is asked next, and the moderator's own phrases.

use std::collections::{BTreeSet, VecDeque};

use super::Rehearsal;
use super::decisions::{Action, Candidate, CandidatePurpose};
use super::exchange::Speaking;
use super::notice::Notice;
use super::phases::Phase;
use crate::config::InteractionMode;
use crate::config::Role;
use crate::history::PastSession;
use crate::phrases::{PhraseContext, PhraseKind, render_in};
use crate::record::Trigger;
use crate::select::{AgentView, rank};

#[derive(Debug, Clone, Default)]
pub(super) struct AgentState {
    pub(super) last_spoke_ms: Option<u64>,
    pub(super) candidate: Option<Candidate>,
}

#[derive(Debug, Clone)]
pub(super) struct Hand {
    pub(super) agent: usize,
    pub(super) announced: bool,
}

/// The panelists as the moderator sees them: each one's prepared question and when it
/// last spoke, the raised hands, the free-flow queue, who holds the floor, whose role
/// is asked next, and what the panel remembers of the presenter's last session.
#[derive(Debug)]
pub(super) struct Panel {
    pub(super) agents: Vec<AgentState>,
    pub(super) hands: Vec<Hand>,
    pub(super) queue: VecDeque<usize>,
    pub(super) speaking: Option<Speaking>,
    pub(super) rotation: Role,
    /// The presenter's last session, if remembered.
    pub(super) previous: Option<PastSession>,
    /// Panelists that asked again what they left open last session (their first
    /// question of this one).
    pub(super) asked_again: BTreeSet<usize>,
}

impl Panel {
    /// A panel of `agents` panelists, none with a hand up, the skeptic asked first.
    pub(super) fn new(agents: usize) -> Self {
        Self {
            agents: vec![AgentState::default(); agents],
            hands: Vec::new(),
            queue: VecDeque::new(),
            speaking: None,
            rotation: Role::Skeptic,
            previous: None,
            asked_again: BTreeSet::new(),
        }
    }
}

impl Rehearsal {
    pub(super) fn say(
        &mut self,
        kind: PhraseKind,
        agent: Option<usize>,
        slide: usize,
        out: &mut Vec<Action>,
    ) -> u64 {
        let minutes = self.remaining_ms(self.now) / 60_000;
        let title = self.deck.title_of(slide);
        let template = self.phrasing.pick(kind);
        let ctx = PhraseContext {
            agent: agent.map(|a| self.config.agents[a].spoken_name()),
            slide: Some(&title),
            minutes: Some(minutes),
            moderator: Some(&self.config.moderator),
        };
        let text = render_in(self.config.language, template, &ctx);
        let line_id = self.numbers.line();
        out.push(Action::Say {
            line_id,
            kind,
            text,
        });
        line_id
    }

    pub(super) fn all_agent_names(&self) -> Vec<String> {
        self.config.agents.iter().map(|a| a.name.clone()).collect()
    }

    pub(super) fn request_candidates(&mut self, now: u64, out: &mut Vec<Action>) {
        self.timers.last_candidate_request = Some(now);
        out.push(Action::RequestCandidates {
            agents: self.all_agent_names(),
            slide: self.slide,
            purpose: CandidatePurpose::Question,
        });
    }

    pub(super) fn views(&self) -> Vec<AgentView<'_>> {
        self.config
            .agents
            .iter()
            .zip(&self.panel.agents)
            .enumerate()
            .map(|(i, (config, s))| AgentView {
                config,
                last_spoke_ms: s.last_spoke_ms,
                candidate_relevance: s.candidate.as_ref().map(|c| c.relevance),
                reopens: self.reopens(i),
            })
            .collect()
    }

    /// Whether `agent` left a challenge open last session and has not asked it again.
    pub(super) fn reopens(&self, agent: usize) -> bool {
        !self.panel.asked_again.contains(&agent)
            && self.panel.previous.as_ref().is_some_and(|last| {
                last.first_open_for(&self.config.agents[agent].name)
                    .is_some()
            })
    }

    /// Agents satisfying `keep`, best first for `slide`.
    pub(super) fn ranked(&self, slide: usize, keep: impl Fn(usize) -> bool) -> Vec<usize> {
        rank(&self.views(), self.deck.slide(slide), self.panel.rotation)
            .into_iter()
            .filter(|&i| keep(i))
            .collect()
    }

    pub(super) fn has_good_candidate(&self, agent: usize) -> bool {
        self.panel.agents[agent]
            .candidate
            .as_ref()
            .is_some_and(|c| c.relevance >= self.config.thresholds.min_candidate_relevance)
    }

    pub(super) fn on_hand(&mut self, agent: &str, urgency: f64, out: &mut Vec<Action>) {
        let Some(a) = self.config.agent_index(agent) else {
            out.push(Action::Notice(Notice::UnknownAgent(agent.to_owned())));
            return;
        };
        let refuse = |reason| {
            Action::Notice(Notice::HandRefused {
                agent: agent.to_owned(),
                reason,
            })
        };
        let t = &self.config.thresholds;
        if self.config.mode != InteractionMode::HandRaise {
            out.push(refuse("not in hand-raise mode"));
        } else if !(urgency.is_finite() && urgency > t.hand_raise_urgency) {
            out.push(refuse("urgency below the threshold"));
        } else if self.panel.hands.iter().any(|h| h.agent == a) {
            // Already up: nothing changes.
        } else if self.panel.speaking.is_some_and(|s| s.agent == a)
            || self.qa.exchange.as_ref().is_some_and(|e| e.agent == a)
        {
            out.push(refuse("the agent is in the exchange under way"));
        } else if self.panel.hands.len() >= t.max_hands_raised {
            out.push(refuse("too many hands raised"));
        } else {
            // What was left open last session is asked first: its hand goes before the
            // others (the presenter's "take the first hand" takes it).
            let at = if self.reopens(a) {
                0
            } else {
                self.panel.hands.len()
            };
            self.panel.hands.insert(
                at,
                Hand {
                    agent: a,
                    announced: false,
                },
            );
        }
    }

    /// In hand-raise mode, a panelist that left a challenge open last session raises its
    /// hand once the presenter has spoken: its question is ready (that challenge), and a
    /// candidate to raise it on may come late (side requests wait behind the turns).
    pub(super) fn raise_reopening_hands(&mut self, out: &mut Vec<Action>) {
        if self.config.mode != InteractionMode::HandRaise
            || self.phase != Phase::Presenting
            || self.qa.exchange.is_some()
            || !self.presenter.spoke_since_return
        {
            return;
        }
        for agent in 0..self.panel.agents.len() {
            if self.reopens(agent) && !self.panel.hands.iter().any(|h| h.agent == agent) {
                let name = self.config.agents[agent].name.clone();
                self.on_hand(&name, 1.0, out);
            }
        }
    }

    pub(super) fn on_acknowledge(
        &mut self,
        agent: Option<String>,
        now: u64,
        out: &mut Vec<Action>,
    ) {
        if self.phase != Phase::Presenting || self.panel.speaking.is_some() {
            out.push(Action::Notice(Notice::Busy));
            return;
        }
        let hand = match &agent {
            Some(name) => self
                .panel
                .hands
                .iter()
                .find(|h| self.config.agents[h.agent].name == *name),
            None => self.panel.hands.first(),
        };
        let Some(hand) = hand else {
            out.push(Action::Notice(Notice::NoRaisedHand));
            return;
        };
        let a = hand.agent;
        self.start_exchange(a, Trigger::HandRaise, self.slide, now, out);
    }

    pub(super) fn on_candidate(
        &mut self,
        agent: String,
        text: String,
        relevance: f64,
        now: u64,
        out: &mut Vec<Action>,
    ) {
        let Some(a) = self.config.agent_index(&agent) else {
            out.push(Action::Notice(Notice::UnknownAgent(agent)));
            return;
        };
        if text.trim().is_empty() {
            out.push(Action::Notice(Notice::EmptyCandidate(agent)));
            return;
        }
        let relevance = if relevance.is_finite() {
            relevance.clamp(0.0, 1.0)
        } else {
            0.0
        };
        self.panel.agents[a].candidate = Some(Candidate {
            text: text.trim().to_owned(),
            relevance,
            received_ms: now,
        });
        // In hand-raise mode a panelist with an urgent enough question raises its hand
        // by itself while the presenter presents, once they said something since the
        // last exchange (the presenter takes it or not). One that left a challenge open
        // last session raised it already ([`Rehearsal::raise_reopening_hands`]).
        if self.config.mode == InteractionMode::HandRaise
            && self.phase == Phase::Presenting
            && self.qa.exchange.is_none()
            && self.presenter.spoke_since_return
            && relevance > self.config.thresholds.hand_raise_urgency
            && self.panel.hands.len() < self.config.thresholds.max_hands_raised
        {
            self.on_hand(&agent, relevance, out);
        }
    }
}

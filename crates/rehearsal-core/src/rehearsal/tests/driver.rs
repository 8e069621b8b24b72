//! A small driver shared by the integration tests.
#![allow(dead_code)]

use crate::rehearsal::Config;
use crate::{Action, Deck, Event, Instruction, PanelConfig, PhraseKind, PhraseLibrary, Rehearsal};

pub const DECK: &str = include_str!("../../../examples/deck.md");
pub const PANEL: &str = include_str!("../../../examples/panel.yml");
pub const PHRASES: &str = include_str!("../../../examples/phrase-library.md");

pub struct Driver {
    pub core: Rehearsal,
    pub now: u64,
    pub log: Vec<(u64, Action)>,
}

impl Driver {
    pub fn new(config: PanelConfig) -> Self {
        Self::with_deck(config, DECK)
    }

    pub fn with_deck(config: PanelConfig, deck: &str) -> Self {
        let core = Rehearsal::new(
            config,
            Deck::parse(deck),
            PhraseLibrary::builtin(),
            Config { paced: true },
        )
        .unwrap();
        Self {
            core,
            now: 0,
            log: Vec::new(),
        }
    }

    pub fn yaml(yaml: &str) -> Self {
        Self::new(PanelConfig::from_yaml(yaml).unwrap())
    }

    pub fn send(&mut self, event: Event) -> Vec<Action> {
        let out = self.core.decide(event, self.now);
        self.log.extend(out.iter().cloned().map(|a| (self.now, a)));
        out
    }

    pub fn at(&mut self, now: u64, event: Event) -> Vec<Action> {
        self.now = self.now.max(now);
        self.send(event)
    }

    /// Moves time forward by `ms` and ticks.
    pub fn wait(&mut self, ms: u64) -> Vec<Action> {
        self.now += ms;
        self.send(Event::Tick)
    }

    pub fn speech(&mut self, text: &str) -> Vec<Action> {
        let start = self.now;
        self.now += 2_000;
        self.send(Event::PresenterSpeech {
            text: text.into(),
            start_ms: start,
            end_ms: self.now,
        })
    }

    /// Finishes the current agent turn with `text`.
    pub fn agent_says(&mut self, text: &str) -> Vec<Action> {
        let (agent, question_id) = self
            .core
            .speaking()
            .map(|(a, q)| (a.to_owned(), q))
            .expect("an agent holds the floor");
        self.now += 1_000;
        self.send(Event::AgentTurnFinished {
            agent,
            question_id,
            text: text.into(),
        })
    }

    pub fn answer(&mut self, text: &str) -> Vec<Action> {
        self.now += 3_000;
        self.send(Event::PresenterAnswerFinished { text: text.into() })
    }

    pub fn candidate(&mut self, agent: &str, text: &str, relevance: f64) -> Vec<Action> {
        self.send(Event::CandidateReady {
            agent: agent.into(),
            text: text.into(),
            relevance,
        })
    }

    /// Reports every line in `actions` as played.
    pub fn play_lines(&mut self, actions: &[Action]) -> Vec<Action> {
        let mut out = Vec::new();
        for id in lines(actions) {
            out.extend(self.send(Event::ModeratorLineFinished { line_id: id }));
        }
        out
    }
}

pub fn lines(actions: &[Action]) -> Vec<u64> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Say { line_id, .. } => Some(*line_id),
            _ => None,
        })
        .collect()
}

pub fn said(actions: &[Action], kind: PhraseKind) -> Option<String> {
    actions.iter().find_map(|a| match a {
        Action::Say { kind: k, text, .. } if *k == kind => Some(text.clone()),
        _ => None,
    })
}

pub fn calls(actions: &[Action]) -> Vec<(String, Instruction)> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::CallAgent {
                agent, instruction, ..
            } => Some((agent.clone(), *instruction)),
            _ => None,
        })
        .collect()
}

pub fn logged(actions: &[Action]) -> Vec<crate::ExchangeRecord> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::LogExchange(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

//! What the node, the page and the tests ask of the rehearsal between inputs.

use crate::{Deck, ExchangeRecord, PanelConfig};

use super::{Phase, Rehearsal};

impl Rehearsal {
    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn config(&self) -> &PanelConfig {
        &self.config
    }

    pub fn deck(&self) -> &Deck {
        &self.deck
    }

    /// The slide the presenter is on.
    pub fn current_slide(&self) -> usize {
        self.slide
    }

    /// The agent holding the floor and its question id.
    pub fn speaking(&self) -> Option<(&str, u64)> {
        self.panel
            .speaking
            .map(|s| (self.config.agents[s.agent].name.as_str(), s.question_id))
    }

    /// Agents with a raised hand, earliest first.
    pub fn hands_raised(&self) -> Vec<&str> {
        self.panel
            .hands
            .iter()
            .map(|h| self.config.agents[h.agent].name.as_str())
            .collect()
    }

    /// Agent turns so far in the exchange under way.
    pub fn exchange_agent_turns(&self) -> Option<u32> {
        self.qa.exchange.as_ref().map(|e| e.agent_turns)
    }

    /// The exchange under way: its id, the panelist who opened it and the slide it is
    /// about.
    pub fn exchange(&self) -> Option<(u64, &str, usize)> {
        self.qa
            .exchange
            .as_ref()
            .map(|e| (e.id, self.config.agents[e.agent].name.as_str(), e.slide))
    }

    /// Exchanges logged so far.
    pub fn records(&self) -> &[ExchangeRecord] {
        &self.results.records
    }

    /// Session time left at `now_ms` (0 once over).
    pub fn remaining_ms(&self, now_ms: u64) -> u64 {
        self.config.duration_ms().saturating_sub(now_ms)
    }
}

//! How agents bid: the desire formula's weights, per-agent styles, and the fairness
//! adjustment applied to bids.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BidSource {
    /// Bids from the desire formula (default, no model calls).
    #[default]
    Heuristic,
    /// Tiny JSON bids asked of the model, heuristic on error or timeout.
    Llm,
}

/// Weights of the desire formula; per-agent overrides leave unset fields at the session value.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AgentStyle {
    pub w_backlog: Option<f64>,
    pub w_recency: Option<f64>,
    pub w_emotion: Option<f64>,
    /// How much this persona has to say by default (0..1), the resting backlog.
    pub eagerness: Option<f64>,
    /// Bid source for this agent only.
    pub source: Option<BidSource>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BiddingConfig {
    pub source: BidSource,
    pub w_backlog: f64,
    pub w_recency: f64,
    pub w_emotion: f64,
    pub eagerness: f64,
    /// τ of the softmax mapping desire → bid.
    pub softmax_tau: f64,
    /// A desire below this is a pass.
    pub pass_below: f64,
    /// Heuristic kicker intent: frustration at or above this.
    pub kicker_frustration: f64,
    pub agents: BTreeMap<String, AgentStyle>,
}

impl Default for BiddingConfig {
    fn default() -> Self {
        Self {
            source: BidSource::Heuristic,
            w_backlog: 1.5,
            w_recency: 2.0,
            w_emotion: 1.0,
            eagerness: 0.5,
            softmax_tau: 0.3,
            pass_below: 0.6,
            kicker_frustration: 0.4,
            agents: BTreeMap::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FairnessMode {
    /// EMA pacing multiplier p ∈ (0, 1] on the bid (0.2 behaviour).
    #[default]
    Pacing,
    /// The MVP flat tax: over-target agents' bids count `1 / (1 + tax_rate)`.
    Tax,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FairnessConfig {
    pub mode: FairnessMode,
    /// Target talk-time share; `None`: `1 / number of agents`.
    pub target_share: Option<f64>,
    pub tax_rate: f64,
    /// EMA weight of the pacing update per micro-turn.
    pub pacing_alpha: f64,
    /// Lower bound of the pacing multiplier.
    pub pacing_min: f64,
}

impl Default for FairnessConfig {
    fn default() -> Self {
        Self {
            mode: FairnessMode::Pacing,
            target_share: None,
            tax_rate: 0.15,
            pacing_alpha: 0.3,
            pacing_min: 0.2,
        }
    }
}

impl super::AuctionConfig {
    /// The effective style of `agent`: session weights with its overrides applied.
    pub fn style_of(&self, agent: &str) -> ResolvedStyle {
        let b = &self.bidding;
        let o = b.agents.get(agent).cloned().unwrap_or_default();
        ResolvedStyle {
            w_backlog: o.w_backlog.unwrap_or(b.w_backlog),
            w_recency: o.w_recency.unwrap_or(b.w_recency),
            w_emotion: o.w_emotion.unwrap_or(b.w_emotion),
            eagerness: o.eagerness.unwrap_or(b.eagerness),
            source: o.source.unwrap_or(b.source),
        }
    }
}

/// Desire weights of one agent after overrides.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResolvedStyle {
    pub w_backlog: f64,
    pub w_recency: f64,
    pub w_emotion: f64,
    pub eagerness: f64,
    pub source: BidSource,
}

//! Mood and standing: emotion control and dynamics, reputation, the evidence lane,
//! and whether moods may be logged.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EmotionControl {
    /// Event-driven heuristics only; model mood reports are ignored.
    #[default]
    Heuristic,
    /// Model reports are authoritative (clamped, smoothed); heuristics are ignored.
    Llm,
    /// Model reports as the baseline, heuristic events as small nudges.
    Hybrid,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EmotionConfig {
    /// EMA weight of a model mood report.
    pub ema_alpha: f64,
    /// Largest change of one variable per report.
    pub max_step: f64,
    /// Micro-turns a variable must move one way before it may reverse.
    pub dwell_microturns: u32,
    /// Mood signal within ±deadband has no effect on bids.
    pub deadband: f64,
    /// Largest effect of mood on a bid, in tokens.
    pub influence_cap_tokens: u32,
    /// Tokens per unit of mood signal beyond the deadband.
    pub bid_gain: f64,
    /// Largest heuristic nudge in hybrid mode.
    pub hybrid_nudge: f64,
    pub frustration_decay: f64,
    pub engagement_decay: f64,
}

impl Default for EmotionConfig {
    fn default() -> Self {
        Self {
            ema_alpha: 0.4,
            max_step: 0.3,
            dwell_microturns: 2,
            deadband: 0.1,
            influence_cap_tokens: 1,
            bid_gain: 3.0,
            hybrid_nudge: 0.05,
            frustration_decay: 0.95,
            engagement_decay: 0.98,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvidenceConfig {
    pub enabled: bool,
    /// Price discount of an accepted evidence-backed bid.
    pub discount: f64,
    /// An agent gets the priority at most once per this many segments.
    pub agent_window_segments: u32,
    /// Quality gate: smallest relevance score accepted.
    pub min_relevance: f64,
}

impl Default for EvidenceConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            discount: 0.1,
            agent_window_segments: 3,
            min_relevance: 0.5,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReputationConfig {
    /// α of `reputation = (1 − α)·reputation + α·event_value`.
    pub alpha: f64,
    /// Largest price discount from reputation.
    pub discount_cap: f64,
    /// Fraction lost per micro-turn, to keep the score responsive.
    pub decay: f64,
    pub uninterrupted_segment: f64,
    pub strong_evidence: f64,
    pub interrupted: f64,
    pub low_quality: f64,
}

impl Default for ReputationConfig {
    fn default() -> Self {
        Self {
            alpha: 0.1,
            discount_cap: 0.1,
            decay: 0.02,
            uninterrupted_segment: 0.3,
            strong_evidence: 0.2,
            interrupted: -0.2,
            low_quality: -0.1,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ObservabilityConfig {
    /// Mood vectors are session-private; they enter records only when this is set.
    pub log_mood: bool,
}

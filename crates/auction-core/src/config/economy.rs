//! The token economy: accrual, prices, and the anti-hoarding rules.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Accrual {
    /// +1 to every agent when a main clip completes.
    #[default]
    PerSegment,
    /// +1 per `period_seconds` of not speaking, with the wall-clock decay.
    WallClock,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TokenConfig {
    pub accrual: Accrual,
    pub period_seconds: f64,
    pub max_bank: u32,
    /// Balance of every agent at the start of the session.
    pub initial: u32,
    /// Wall-clock mode only: `tokens = floor(tokens × (1 − decay))` per minute.
    pub wall_clock_decay: f64,
    /// An agent that has not spoken for this many segments and holds nothing gets 1 token.
    pub stipend_segments: u32,
}

impl Default for TokenConfig {
    fn default() -> Self {
        Self {
            accrual: Accrual::PerSegment,
            period_seconds: 30.0,
            max_bank: 8,
            initial: 3,
            wall_clock_decay: 0.02,
            stipend_segments: 4,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PricingConfig {
    /// Smallest bid that counts as a bid (below: pass).
    pub min_bid: u32,
    /// The softmax share of the desire is scaled to this many tokens.
    pub max_bid: u32,
    /// A hard interrupt needs a bid at least this much above the runner-up.
    pub kicker_delta: u32,
    /// Base fee paid on top of the bid for a hard interrupt.
    pub kicker_fee: u32,
    /// Extra fee per hard interrupt already made in the budget window.
    pub fee_escalation: u32,
    /// Interrupting a speaker with at least this reputation costs one token more.
    pub reputation_fee_threshold: f64,
    /// Largest rebate (fraction of the bid) for an agent far below its target share.
    pub subsidy_rate: f64,
}

impl Default for PricingConfig {
    fn default() -> Self {
        Self {
            min_bid: 1,
            max_bid: 4,
            kicker_delta: 2,
            kicker_fee: 1,
            fee_escalation: 1,
            reputation_fee_threshold: 0.5,
            subsidy_rate: 0.5,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AntiHoardingConfig {
    pub enabled: bool,
    /// Fraction of a balance above `threshold` lost per minute (at least one token).
    pub decay: f64,
    pub threshold: u32,
    /// Segments without spending after which `reserve_tokens` expire.
    pub reserve_expiry_segments: u32,
    pub reserve_tokens: u32,
}

impl Default for AntiHoardingConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            decay: 0.1,
            threshold: 6,
            reserve_expiry_segments: 6,
            reserve_tokens: 1,
        }
    }
}

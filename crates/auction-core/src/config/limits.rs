//! Limits on model requests: how many may be in flight (the spec's 9.1), how many per
//! minute (the budget governor, the spec's 16), and how long a model bid may take.
//!
//! Segment requests are never held back (the conversation needs its next segment) but
//! count toward every limit. A request that would exceed a limit is not made: a model
//! bid is replaced by the heuristic one, an interjection or a kicker is skipped.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ConcurrencyConfig {
    /// Model requests in flight at once, all agents together; unset: no limit.
    pub global_limit: Option<u32>,
    /// Model requests in flight at once for one agent; unset: no limit. With 1, the
    /// winner of an auction, busy with its next segment, is never asked for a kicker.
    pub per_agent_limit: Option<u32>,
    pub timeouts_ms: TimeoutsMs,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TimeoutsMs {
    /// Model bids not received within this are replaced by heuristic bids.
    pub bid: u64,
}

impl Default for TimeoutsMs {
    fn default() -> Self {
        Self { bid: 500 }
    }
}

/// The budget governor: when the last minute's model requests reach
/// `llm_calls_per_min`, quality drops (heuristic bids, no interjections or kickers)
/// until the window has room again.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QualityConfig {
    /// Model requests (segments, bids, kickers, interjections) per sliding minute;
    /// unset: no limit.
    pub llm_calls_per_min: Option<u32>,
}

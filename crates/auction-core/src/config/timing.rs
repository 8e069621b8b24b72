//! Timing: late beats, the resolve lead and its adaptation (the spec's A4).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TimingConfig {
    /// A beat reported more than this after its planned time is late: no interjection
    /// or interrupt lands on it; they wait for the next beat.
    pub late_beat_ms: u64,
    /// The auction must be resolved this long before the planned end of the segment;
    /// otherwise missing bids are filled heuristically and no interrupt happens this turn.
    /// The floor of the adaptive lead ([`LeadTimeConfig`]).
    pub resolve_lead_ms: u64,
    /// Speaking rate used when a segment comes without a planned duration.
    pub words_per_second: f64,
}

impl Default for TimingConfig {
    fn default() -> Self {
        Self {
            late_beat_ms: 250,
            resolve_lead_ms: 2000,
            words_per_second: 2.7,
        }
    }
}

/// Adaptation of `timing.resolve_lead_ms` to measured misses (the spec's A4, AIMD).
///
/// A *miss* is a floor handover that had to wait for the next segment. While more than
/// `miss_rate_threshold` of the last `window_segments` handovers missed, each miss adds
/// `add_increase_ms` to the lead (at most `max_ms`); once the rate is back at or under the
/// threshold, each on-time handover multiplies the extra lead by `mult_decrease` (never
/// below `timing.resolve_lead_ms`). A longer lead closes the bidding earlier before the
/// end of the clip, so the next segment is requested sooner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LeadTimeConfig {
    pub max_ms: u64,
    pub add_increase_ms: u64,
    pub mult_decrease: f64,
    pub miss_rate_threshold: f64,
    pub window_segments: u32,
}

impl Default for LeadTimeConfig {
    fn default() -> Self {
        Self {
            max_ms: 10_000,
            add_increase_ms: 250,
            mult_decrease: 0.8,
            miss_rate_threshold: 0.2,
            window_segments: 20,
        }
    }
}

//! Adaptive resolve lead (the spec's A4): how long before the planned end of a clip its
//! auction must be resolved, adapted AIMD-style to measured misses.
//!
//! A miss is a floor handover that had to wait for the next segment. Over the last
//! `window_segments` handovers, a miss rate above `miss_rate_threshold` makes every miss
//! add `add_increase_ms` (up to `max_ms`); at or under the threshold every on-time
//! handover shrinks the lead above its floor by `mult_decrease`. The floor is
//! `timing.resolve_lead_ms`, so a session without misses behaves as if fixed.

use std::collections::VecDeque;

use crate::config::LeadTimeConfig;

#[derive(Debug, Clone)]
pub struct LeadTime {
    cfg: LeadTimeConfig,
    floor_ms: u64,
    lead_ms: u64,
    /// The latest handovers, oldest first: `true` for a miss.
    window: VecDeque<bool>,
}

impl LeadTime {
    pub fn new(floor_ms: u64, cfg: &LeadTimeConfig) -> Self {
        Self {
            cfg: cfg.clone(),
            floor_ms,
            lead_ms: floor_ms,
            window: VecDeque::new(),
        }
    }

    /// The lead in force.
    pub fn lead_ms(&self) -> u64 {
        self.lead_ms
    }

    /// Misses among the handovers in the window (0 when there were none).
    pub fn miss_rate(&self) -> f64 {
        if self.window.is_empty() {
            return 0.0;
        }
        self.window.iter().filter(|&&m| m).count() as f64 / self.window.len() as f64
    }

    /// One floor handover: `missed` when the floor waited for the next segment.
    pub fn record(&mut self, missed: bool) {
        if self.window.len() == self.cfg.window_segments as usize {
            self.window.pop_front();
        }
        self.window.push_back(missed);
        let high = self.miss_rate() > self.cfg.miss_rate_threshold;
        if missed && high {
            self.lead_ms = (self.lead_ms + self.cfg.add_increase_ms).min(self.cfg.max_ms);
        } else if !missed && !high {
            let extra = (self.lead_ms - self.floor_ms) as f64 * self.cfg.mult_decrease;
            self.lead_ms = self.floor_ms + extra.floor() as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lead() -> LeadTime {
        LeadTime::new(
            2000,
            &LeadTimeConfig {
                max_ms: 3000,
                add_increase_ms: 400,
                mult_decrease: 0.5,
                miss_rate_threshold: 0.25,
                window_segments: 4,
            },
        )
    }

    #[test]
    fn starts_at_the_floor_and_ignores_a_rare_miss() {
        let mut l = lead();
        assert_eq!(l.lead_ms(), 2000);
        for missed in [false, false, false, true] {
            l.record(missed);
        }
        // 1 of 4 is not above the threshold.
        assert_eq!(l.miss_rate(), 0.25);
        assert_eq!(l.lead_ms(), 2000);
    }

    #[test]
    fn grows_additively_on_misses_up_to_the_cap() {
        let mut l = lead();
        l.record(true);
        assert_eq!(l.lead_ms(), 2400);
        l.record(true);
        assert_eq!(l.lead_ms(), 2800);
        l.record(true);
        assert_eq!(l.lead_ms(), 3000);
    }

    #[test]
    fn shrinks_multiplicatively_once_the_rate_is_low_again() {
        let mut l = lead();
        l.record(true);
        l.record(true);
        assert_eq!(l.lead_ms(), 2800);
        // The window still holds the misses: on-time handovers change nothing yet.
        l.record(false);
        l.record(false);
        assert_eq!(l.lead_ms(), 2800);
        // The misses leave the window; each hit halves the extra lead.
        l.record(false);
        assert_eq!(l.miss_rate(), 0.25);
        assert_eq!(l.lead_ms(), 2400);
        l.record(false);
        assert_eq!(l.lead_ms(), 2200);
        for _ in 0..20 {
            l.record(false);
        }
        assert_eq!(l.lead_ms(), 2000);
    }
}

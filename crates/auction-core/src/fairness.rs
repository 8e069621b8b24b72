//! Talk-time fairness: measured shares, the EMA pacing multiplier, the underspoke
//! subsidy and the recency facts used for tie-breaks.
//!
//! Pacing: after each micro-turn, `p ← (1 − α)·p + α·min(1, target / share)`, bounded
//! to `[pacing_min, 1]`; an agent over its target share bids at `p·b`, which lowers
//! its chance to win without lowering what it pays. In `tax` mode the multiplier is
//! `1 / (1 + tax_rate)` while over target.

use crate::config::{FairnessConfig, FairnessMode, PricingConfig};

#[derive(Debug, Clone)]
pub struct FairnessAdjuster {
    cfg: FairnessConfig,
    target: f64,
    talk_ms: Vec<u64>,
    pacing: Vec<f64>,
    last_spoke_turn: Vec<Option<u32>>,
}

impl FairnessAdjuster {
    pub fn new(agents: usize, cfg: &FairnessConfig) -> Self {
        let target = cfg
            .target_share
            .unwrap_or(1.0 / agents.max(1) as f64)
            .clamp(f64::MIN_POSITIVE, 1.0);
        Self {
            cfg: cfg.clone(),
            target,
            talk_ms: vec![0; agents],
            pacing: vec![1.0; agents],
            last_spoke_turn: vec![None; agents],
        }
    }

    pub fn target(&self) -> f64 {
        self.target
    }

    pub fn talk_ms(&self, agent: usize) -> u64 {
        self.talk_ms[agent]
    }

    /// Share of all measured main-clip time spoken by `agent` (0 before anyone spoke).
    pub fn share(&self, agent: usize) -> f64 {
        let total: u64 = self.talk_ms.iter().sum();
        if total == 0 {
            0.0
        } else {
            self.talk_ms[agent] as f64 / total as f64
        }
    }

    pub fn pacing(&self, agent: usize) -> f64 {
        self.pacing[agent]
    }

    pub fn last_spoke_turn(&self, agent: usize) -> Option<u32> {
        self.last_spoke_turn[agent]
    }

    /// `agent` took the floor at micro-turn `turn`.
    pub fn took_floor(&mut self, agent: usize, turn: u32) {
        self.last_spoke_turn[agent] = Some(turn);
    }

    /// A main clip of `agent` sounded for `ms`.
    pub fn add_talk(&mut self, agent: usize, ms: u64) {
        self.talk_ms[agent] = self.talk_ms[agent].saturating_add(ms);
    }

    /// End of a micro-turn: pacing multipliers follow the measured shares.
    pub fn update_pacing(&mut self) {
        let alpha = self.cfg.pacing_alpha;
        for a in 0..self.pacing.len() {
            let share = self.share(a);
            let goal = if share <= self.target {
                1.0
            } else {
                self.target / share
            };
            let p = (1.0 - alpha) * self.pacing[a] + alpha * goal;
            self.pacing[a] = p.clamp(self.cfg.pacing_min, 1.0);
        }
    }

    /// The factor applied to `agent`'s bid when ranking.
    pub fn multiplier(&self, agent: usize) -> f64 {
        match self.cfg.mode {
            FairnessMode::Pacing => self.pacing[agent],
            FairnessMode::Tax => {
                if self.share(agent) > self.target {
                    1.0 / (1.0 + self.cfg.tax_rate)
                } else {
                    1.0
                }
            }
        }
    }

    /// Rebate fraction for an underspoke agent: `subsidy_rate × (target − share) / target`.
    pub fn subsidy(&self, agent: usize, pricing: &PricingConfig) -> f64 {
        let total: u64 = self.talk_ms.iter().sum();
        if total == 0 {
            return 0.0;
        }
        let deficit = ((self.target - self.share(agent)) / self.target).clamp(0.0, 1.0);
        pricing.subsidy_rate * deficit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pacing_follows_share() {
        let mut f = FairnessAdjuster::new(2, &FairnessConfig::default());
        assert_eq!(f.target(), 0.5);
        f.add_talk(0, 3000);
        f.add_talk(1, 1000);
        for _ in 0..50 {
            f.update_pacing();
        }
        assert!((f.pacing(0) - 0.5 / 0.75).abs() < 1e-6);
        assert_eq!(f.pacing(1), 1.0);
        assert!(f.subsidy(1, &PricingConfig::default()) > 0.0);
        assert_eq!(f.subsidy(0, &PricingConfig::default()), 0.0);
    }

    #[test]
    fn tax_mode() {
        let cfg = FairnessConfig {
            mode: FairnessMode::Tax,
            ..FairnessConfig::default()
        };
        let mut f = FairnessAdjuster::new(2, &cfg);
        f.add_talk(0, 10);
        assert!((f.multiplier(0) - 1.0 / 1.15).abs() < 1e-12);
        assert_eq!(f.multiplier(1), 1.0);
    }
}

//! Hard-interrupt policy: who may cut the speaker off, and at what fee.
//!
//! A hard interrupt needs, at resolution time: cutoff mode with a kicker prebuffer;
//! the agent out of its cooldown (no interrupt in the last `interrupt_microturns`
//! micro-turns); room in the session budget (`max_per_window` per `window_segments`);
//! a bid at least `kicker_delta` above the runner-up's; and tokens for bid + fee.
//!
//! The fee escalates: `kicker_fee + fee_escalation × (interrupts in the window)`, plus
//! one token when the speaker's reputation is at or above `reputation_fee_threshold`.

use serde::{Deserialize, Serialize};

use crate::config::{CooldownConfig, InterruptConfig, InterruptMode, PricingConfig};

/// Why a kicker bid does not become a hard interrupt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterruptBlock {
    Disabled,
    Cooldown,
    Budget,
    BelowFrontier,
    Unaffordable,
    /// The kicker could not be asked for: a `concurrency` or `quality` limit.
    RequestLimit,
}

#[derive(Debug, Clone)]
pub struct InterruptPolicy {
    history: Vec<u32>,
    last_by_agent: Vec<Option<u32>>,
    made: Vec<u32>,
}

/// What the policy needs to know about one kicker bid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KickerBid {
    pub agent: usize,
    pub turn: u32,
    pub bid: u32,
    pub runner_up: u32,
    pub balance: u32,
    pub fee: u32,
}

impl InterruptPolicy {
    pub fn new(agents: usize) -> Self {
        Self {
            history: Vec::new(),
            last_by_agent: vec![None; agents],
            made: vec![0; agents],
        }
    }

    /// Hard interrupts in the window ending at `turn`.
    pub fn recent(&self, turn: u32, cfg: &InterruptConfig) -> u32 {
        self.history
            .iter()
            .filter(|&&t| t <= turn && turn - t < cfg.window_segments)
            .count() as u32
    }

    pub fn made_by(&self, agent: usize) -> u32 {
        self.made[agent]
    }

    pub fn total(&self) -> usize {
        self.history.len()
    }

    pub fn fee(
        &self,
        turn: u32,
        speaker_reputation: f64,
        cfg: &InterruptConfig,
        pricing: &PricingConfig,
    ) -> u32 {
        let escalation = pricing.fee_escalation * self.recent(turn, cfg);
        let reputation = u32::from(speaker_reputation >= pricing.reputation_fee_threshold);
        pricing.kicker_fee + escalation + reputation
    }

    pub fn check(
        &self,
        k: &KickerBid,
        cfg: &InterruptConfig,
        cooldowns: &CooldownConfig,
        pricing: &PricingConfig,
    ) -> Result<(), InterruptBlock> {
        if cfg.mode != InterruptMode::Cutoff || cfg.prebuffer_top == 0 {
            return Err(InterruptBlock::Disabled);
        }
        if let Some(last) = self.last_by_agent[k.agent]
            && k.turn <= last + cooldowns.interrupt_microturns
        {
            return Err(InterruptBlock::Cooldown);
        }
        if self.recent(k.turn, cfg) >= cfg.max_per_window {
            return Err(InterruptBlock::Budget);
        }
        if k.bid < k.runner_up + pricing.kicker_delta {
            return Err(InterruptBlock::BelowFrontier);
        }
        if k.balance < k.bid + k.fee {
            return Err(InterruptBlock::Unaffordable);
        }
        Ok(())
    }

    /// A hard interrupt by `agent` was committed during micro-turn `turn`.
    pub fn record(&mut self, agent: usize, turn: u32) {
        self.history.push(turn);
        self.last_by_agent[agent] = Some(turn);
        self.made[agent] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kb(agent: usize, turn: u32) -> KickerBid {
        KickerBid {
            agent,
            turn,
            bid: 4,
            runner_up: 2,
            balance: 8,
            fee: 1,
        }
    }

    #[test]
    fn cooldown_budget_frontier_and_fee() {
        let cfg = InterruptConfig::default();
        let cd = CooldownConfig::default();
        let pr = PricingConfig::default();
        let mut p = InterruptPolicy::new(3);
        assert_eq!(p.check(&kb(0, 3), &cfg, &cd, &pr), Ok(()));
        p.record(0, 3);
        assert_eq!(
            p.check(&kb(0, 5), &cfg, &cd, &pr),
            Err(InterruptBlock::Cooldown)
        );
        assert_eq!(p.check(&kb(0, 6), &cfg, &cd, &pr), Ok(()));
        assert_eq!(p.fee(4, 0.0, &cfg, &pr), 2);
        assert_eq!(p.fee(4, 0.9, &cfg, &pr), 3);
        p.record(1, 4);
        assert_eq!(
            p.check(&kb(2, 5), &cfg, &cd, &pr),
            Err(InterruptBlock::Budget)
        );
        assert_eq!(p.check(&kb(2, 8), &cfg, &cd, &pr), Ok(()));
        let mut low = kb(2, 9);
        low.bid = 3;
        assert_eq!(
            p.check(&low, &cfg, &cd, &pr),
            Err(InterruptBlock::BelowFrontier)
        );
        let mut poor = kb(2, 9);
        poor.balance = 4;
        assert_eq!(
            p.check(&poor, &cfg, &cd, &pr),
            Err(InterruptBlock::Unaffordable)
        );
        let beat_only = InterruptConfig {
            mode: InterruptMode::BeatOnly,
            ..cfg
        };
        assert_eq!(
            p.check(&kb(2, 9), &beat_only, &cd, &pr),
            Err(InterruptBlock::Disabled)
        );
    }
}

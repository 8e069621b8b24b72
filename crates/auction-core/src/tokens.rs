//! The token bank: accrual (one mode per session), spending, and the anti-hoarding
//! and anti-poverty rules. Every balance stays within `0..=max_bank` at all times.
//!
//! - *Per-segment accrual*: when a main clip completes, every agent gets +1 (speaker
//!   included: the income must exceed what a typical win costs, or nobody could ever
//!   afford an interjection or a kicker).
//! - *Wall-clock accrual*: +1 per `period_seconds` spent not speaking, and every full
//!   minute `tokens = floor(tokens × (1 − wall_clock_decay))`.
//! - *Anti-hoarding* (both modes): every full minute, a balance above `threshold`
//!   loses `max(1, round(balance × decay))` tokens, never dropping below `threshold`;
//!   and `reserve_tokens` expire after `reserve_expiry_segments` micro-turns in which
//!   the agent spent nothing.
//! - *Stipend*: an agent holding nothing that has not spoken for `stipend_segments`
//!   micro-turns gets one token (at most once per that many micro-turns).

use serde::Serialize;

use crate::config::{Accrual, AntiHoardingConfig, TokenConfig};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error("agent {agent} holds {balance} tokens, cannot pay {amount}")]
    Insufficient {
        agent: usize,
        balance: u32,
        amount: u32,
    },
}

/// Cumulative flows of one agent, for metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TokenStats {
    pub earned: u32,
    pub spent: u32,
    pub decayed: u32,
    pub expired: u32,
    pub stipends: u32,
}

#[derive(Debug, Clone)]
pub struct TokenManager {
    tokens: TokenConfig,
    hoarding: AntiHoardingConfig,
    balances: Vec<u32>,
    stats: Vec<TokenStats>,
    since_spend: Vec<u32>,
    since_spoke: Vec<u32>,
    since_stipend: Vec<u32>,
    listening_ms: Vec<u64>,
    last_ms: Option<u64>,
    minutes_applied: u64,
}

const MINUTE_MS: u64 = 60_000;

impl TokenManager {
    pub fn new(agents: usize, tokens: &TokenConfig, hoarding: &AntiHoardingConfig) -> Self {
        Self {
            tokens: tokens.clone(),
            hoarding: hoarding.clone(),
            balances: vec![tokens.initial.min(tokens.max_bank); agents],
            stats: vec![TokenStats::default(); agents],
            since_spend: vec![0; agents],
            since_spoke: vec![0; agents],
            since_stipend: vec![0; agents],
            listening_ms: vec![0; agents],
            last_ms: None,
            minutes_applied: 0,
        }
    }

    pub fn balance(&self, agent: usize) -> u32 {
        self.balances[agent]
    }

    pub fn balances(&self) -> &[u32] {
        &self.balances
    }

    pub fn stats(&self, agent: usize) -> TokenStats {
        self.stats[agent]
    }

    pub fn max_bank(&self) -> u32 {
        self.tokens.max_bank
    }

    /// Takes `amount` tokens, or nothing if the balance is short.
    pub fn spend(&mut self, agent: usize, amount: u32) -> Result<(), TokenError> {
        let balance = self.balances[agent];
        if amount > balance {
            return Err(TokenError::Insufficient {
                agent,
                balance,
                amount,
            });
        }
        self.balances[agent] = balance - amount;
        self.stats[agent].spent += amount;
        if amount > 0 {
            self.since_spend[agent] = 0;
        }
        Ok(())
    }

    fn credit(&mut self, agent: usize, amount: u32) -> u32 {
        let before = self.balances[agent];
        let after = before.saturating_add(amount).min(self.tokens.max_bank);
        self.balances[agent] = after;
        self.stats[agent].earned += after - before;
        after - before
    }

    /// A main clip of `speaker` completed (or was cut): per-segment accrual, reserve
    /// expiry and stipends.
    pub fn end_of_segment(&mut self, speaker: Option<usize>) {
        for a in 0..self.balances.len() {
            let spoke = Some(a) == speaker;
            if spoke {
                self.since_spoke[a] = 0;
            } else {
                self.since_spoke[a] = self.since_spoke[a].saturating_add(1);
            }
            if self.tokens.accrual == Accrual::PerSegment {
                self.credit(a, 1);
            }
            self.since_spend[a] = self.since_spend[a].saturating_add(1);
            self.since_stipend[a] = self.since_stipend[a].saturating_add(1);
            if self.hoarding.enabled
                && self.since_spend[a] >= self.hoarding.reserve_expiry_segments
                && self.balances[a] > 0
            {
                let lost = self.hoarding.reserve_tokens.min(self.balances[a]);
                self.balances[a] -= lost;
                self.stats[a].expired += lost;
                self.since_spend[a] = 0;
            }
            if self.balances[a] == 0
                && self.since_spoke[a] >= self.tokens.stipend_segments
                && self.since_stipend[a] >= self.tokens.stipend_segments
            {
                let got = self.credit(a, 1);
                self.stats[a].stipends += got;
                self.since_stipend[a] = 0;
            }
        }
    }

    /// Time passes up to `now_ms`; `speaking` holds the floor meanwhile.
    pub fn advance(&mut self, now_ms: u64, speaking: Option<usize>) {
        let last = *self.last_ms.get_or_insert(now_ms);
        if now_ms <= last {
            return;
        }
        let elapsed = now_ms - last;
        self.last_ms = Some(now_ms);
        if self.tokens.accrual == Accrual::WallClock {
            let period = (self.tokens.period_seconds * 1000.0) as u64;
            for a in 0..self.balances.len() {
                if Some(a) == speaking {
                    continue;
                }
                self.listening_ms[a] += elapsed;
                let periods = self.listening_ms[a] / period;
                if periods > 0 {
                    self.listening_ms[a] %= period;
                    self.credit(a, periods.min(u32::MAX as u64) as u32);
                }
            }
        }
        let minutes = now_ms / MINUTE_MS;
        while self.minutes_applied < minutes {
            self.minutes_applied += 1;
            self.apply_minute();
        }
    }

    fn apply_minute(&mut self) {
        for a in 0..self.balances.len() {
            let before = self.balances[a];
            let mut b = before;
            if self.tokens.accrual == Accrual::WallClock {
                b = (b as f64 * (1.0 - self.tokens.wall_clock_decay)).floor() as u32;
            }
            if self.hoarding.enabled && b > self.hoarding.threshold {
                let cut = ((b as f64 * self.hoarding.decay).round() as u32).max(1);
                b = b.saturating_sub(cut).max(self.hoarding.threshold);
            }
            self.balances[a] = b.min(before);
            self.stats[a].decayed += before - self.balances[a];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manager(accrual: Accrual) -> TokenManager {
        let tokens = TokenConfig {
            accrual,
            initial: 0,
            ..TokenConfig::default()
        };
        TokenManager::new(3, &tokens, &AntiHoardingConfig::default())
    }

    #[test]
    fn per_segment_accrual_goes_to_everyone_and_caps() {
        let mut t = manager(Accrual::PerSegment);
        t.end_of_segment(Some(0));
        assert_eq!(t.balances(), &[1, 1, 1]);
        for _ in 0..20 {
            t.end_of_segment(Some(0));
            t.spend(1, 1).unwrap();
            t.spend(2, 1).unwrap();
        }
        assert!(t.balances().iter().all(|&b| b <= 8));
        assert!(t.spend(0, 9).is_err());
        assert!(t.balances().iter().all(|&b| b <= 8));
    }

    #[test]
    fn wall_clock_accrual_skips_the_speaker_and_decays() {
        let mut t = manager(Accrual::WallClock);
        t.advance(0, Some(0));
        t.advance(59_999, Some(0));
        assert_eq!(t.balances(), &[0, 1, 1]);
        t.advance(60_000, Some(0));
        // 2 tokens earned, then floor(2 × 0.98) = 1
        assert_eq!(t.balances(), &[0, 1, 1]);
    }

    #[test]
    fn hoards_decay_to_threshold_and_reserves_expire() {
        let tokens = TokenConfig {
            initial: 8,
            ..TokenConfig::default()
        };
        let mut t = TokenManager::new(1, &tokens, &AntiHoardingConfig::default());
        t.advance(0, None);
        t.advance(60_000, None);
        assert_eq!(t.balance(0), 7);
        t.advance(120_000, None);
        assert_eq!(t.balance(0), 6);
        t.advance(600_000, None);
        assert_eq!(t.balance(0), 6);
        for _ in 0..6 {
            t.end_of_segment(Some(0));
        }
        // +6 accrued (capped at 8), then one reserve token expired.
        assert_eq!(t.balance(0), 7, "one reserve token expired");
    }

    #[test]
    fn stipend_for_silent_poor_agents() {
        let tokens = TokenConfig {
            accrual: Accrual::WallClock,
            initial: 0,
            ..TokenConfig::default()
        };
        let mut t = TokenManager::new(2, &tokens, &AntiHoardingConfig::default());
        for _ in 0..4 {
            t.end_of_segment(Some(0));
        }
        assert_eq!(t.balances(), &[0, 1]);
        assert_eq!(t.stats(1).stipends, 1);
    }
}

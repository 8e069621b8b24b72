//! Reputation: an EMA of event values (`r ← (1 − α)·r + α·v`) with a slow decay
//! toward zero, kept in `[-1, 1]`. It buys a small price discount and makes
//! interrupting its holder more expensive.

use crate::config::ReputationConfig;

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Reputation(f64);

impl Reputation {
    pub fn value(self) -> f64 {
        self.0
    }

    /// Folds in one event value.
    pub fn update(&mut self, event_value: f64, cfg: &ReputationConfig) {
        let v = if event_value.is_finite() {
            event_value.clamp(-1.0, 1.0)
        } else {
            0.0
        };
        self.0 = ((1.0 - cfg.alpha) * self.0 + cfg.alpha * v).clamp(-1.0, 1.0);
    }

    /// Per micro-turn decay toward zero.
    pub fn decay(&mut self, cfg: &ReputationConfig) {
        self.0 *= 1.0 - cfg.decay;
    }

    /// Price discount in `[0, discount_cap]`; negative reputation gives none.
    pub fn discount(self, cfg: &ReputationConfig) -> f64 {
        cfg.discount_cap * self.0.clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ema_and_bounds() {
        let cfg = ReputationConfig::default();
        let mut r = Reputation::default();
        r.update(0.3, &cfg);
        assert!((r.value() - 0.03).abs() < 1e-12);
        for _ in 0..1000 {
            r.update(f64::INFINITY, &cfg);
            r.update(5.0, &cfg);
        }
        assert!(r.value() <= 1.0);
        assert!(r.discount(&cfg) <= cfg.discount_cap);
        r.update(-1.0, &cfg);
        r.decay(&cfg);
        assert!(r.value() < 1.0);
    }
}

//! The evidence priority lane: a bid flagged as evidence-backed gets a small price
//! discount and wins ties, but only if it passes the quality gate (at least one
//! citation id and a relevance score at or above `min_relevance`) and the agent has
//! not used the lane within the last `agent_window_segments` micro-turns. A flag that
//! fails the gate is ignored and costs a little reputation; a rate-limited one is
//! ignored without penalty.

use serde::{Deserialize, Serialize};

use crate::config::EvidenceConfig;

/// What a bid claims as support.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvidenceClaim {
    pub citations: Vec<String>,
    pub relevance: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceVerdict {
    Accepted,
    RateLimited,
    /// Failed the quality gate: ignored, with a reputation penalty.
    Rejected,
    /// The lane is disabled.
    Disabled,
}

#[derive(Debug, Clone)]
pub struct EvidenceLane {
    last_used: Vec<Option<u32>>,
}

impl EvidenceLane {
    pub fn new(agents: usize) -> Self {
        Self {
            last_used: vec![None; agents],
        }
    }

    /// Judges a claim of `agent` at micro-turn `turn`, recording accepted uses.
    pub fn judge(
        &mut self,
        agent: usize,
        claim: &EvidenceClaim,
        turn: u32,
        cfg: &EvidenceConfig,
    ) -> EvidenceVerdict {
        if !cfg.enabled {
            return EvidenceVerdict::Disabled;
        }
        let cited = claim.citations.iter().any(|c| !c.trim().is_empty());
        if !cited || !claim.relevance.is_finite() || claim.relevance < cfg.min_relevance {
            return EvidenceVerdict::Rejected;
        }
        if let Some(last) = self.last_used[agent]
            && turn < last + cfg.agent_window_segments
        {
            return EvidenceVerdict::RateLimited;
        }
        self.last_used[agent] = Some(turn);
        EvidenceVerdict::Accepted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gate_and_rate_limit() {
        let cfg = EvidenceConfig::default();
        let mut lane = EvidenceLane::new(2);
        let good = EvidenceClaim {
            citations: vec!["doc-1".into()],
            relevance: 0.8,
        };
        let uncited = EvidenceClaim {
            citations: vec![" ".into()],
            relevance: 0.9,
        };
        assert_eq!(lane.judge(0, &uncited, 1, &cfg), EvidenceVerdict::Rejected);
        assert_eq!(lane.judge(0, &good, 1, &cfg), EvidenceVerdict::Accepted);
        assert_eq!(lane.judge(0, &good, 3, &cfg), EvidenceVerdict::RateLimited);
        assert_eq!(lane.judge(1, &good, 3, &cfg), EvidenceVerdict::Accepted);
        assert_eq!(lane.judge(0, &good, 4, &cfg), EvidenceVerdict::Accepted);
    }
}

//! Bids: the heuristic desire formula and its softmax mapping to tokens.
//!
//! `desire = w_backlog·B + w_recency·R + w_emotion·0.5`, where `B` is what the agent
//! has to say (its persona's eagerness plus pending replies, e.g. after being cut
//! off) and `R` how long it has been silent (micro-turns since it last held the floor
//! divided by the number of agents, capped at 1). The mood enters separately, as a
//! capped token adjustment (see [`crate::emotion`]).
//!
//! Bids: `b_i = min(tokens_i, round(softmax(τ·desire)_i · max_bid) + mood_i)`; an
//! agent whose desire is below `pass_below`, or whose bid falls under `min_bid`, passes.
//!
//! An agent that wants to interrupt but holds less than `kicker_reserve` tokens also
//! passes: it saves up for the kicker instead of spending on ordinary slots (otherwise
//! the most eager agents, who win and pay most often, could never afford one).

use serde::{Deserialize, Serialize};

use crate::evidence::EvidenceClaim;

/// What an agent wants for the next beat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BidIntent {
    Speak,
    Interject,
    Pass,
}

/// Where a bid came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BidSourceKind {
    Heuristic,
    Llm,
    /// A model bid was asked for but failed or timed out.
    Fallback,
}

/// One agent's bid in one auction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bid {
    pub agent: usize,
    /// Tokens put up for the next slot (0: no bid).
    pub amount: u32,
    /// Wants to cut the current speaker off with a kicker.
    pub kicker: bool,
    pub intent: BidIntent,
    pub source: BidSourceKind,
    pub evidence: Option<EvidenceClaim>,
    pub desire: f64,
}

/// Inputs of the desire formula for one agent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DesireInputs {
    pub w_backlog: f64,
    pub w_recency: f64,
    pub w_emotion: f64,
    pub backlog: f64,
    pub recency: f64,
}

pub fn desire(i: &DesireInputs) -> f64 {
    i.w_backlog * i.backlog + i.w_recency * i.recency + i.w_emotion * 0.5
}

/// Recency term: silent micro-turns over agent count, in `[0, 1]`; 1 for never spoken.
pub fn recency(turn: u32, last_spoke: Option<u32>, agents: usize) -> f64 {
    match last_spoke {
        None => 1.0,
        Some(t) => (turn.saturating_sub(t) as f64 / agents.max(1) as f64).min(1.0),
    }
}

/// `softmax(τ·x)`; empty input gives an empty output.
pub fn softmax(xs: &[f64], tau: f64) -> Vec<f64> {
    let scaled: Vec<f64> = xs
        .iter()
        .map(|x| if x.is_finite() { x * tau } else { 0.0 })
        .collect();
    let max = scaled.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exps: Vec<f64> = scaled.iter().map(|x| (x - max).exp()).collect();
    let sum: f64 = exps.iter().sum();
    exps.iter().map(|e| e / sum).collect()
}

/// One bidder of a heuristic round.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeuristicInput {
    pub agent: usize,
    pub desire: f64,
    pub tokens: u32,
    /// Mood adjustment in tokens (already capped).
    pub mood_tokens: i32,
    pub kicker_intent: bool,
    /// Tokens needed before a kicker intent turns into bids (0: never save).
    pub kicker_reserve: u32,
}

impl HeuristicInput {
    /// Saving up for a kicker: passes until the reserve is reached.
    pub fn saving(&self) -> bool {
        self.kicker_intent && self.tokens < self.kicker_reserve
    }
}

/// Heuristic bids for a set of bidders (softmax taken over all of them).
pub fn heuristic_bids(
    inputs: &[HeuristicInput],
    tau: f64,
    max_bid: u32,
    min_bid: u32,
    pass_below: f64,
) -> Vec<Bid> {
    let desires: Vec<f64> = inputs.iter().map(|i| i.desire).collect();
    let shares = softmax(&desires, tau);
    inputs
        .iter()
        .zip(shares)
        .map(|(i, share)| {
            let base = (share * max_bid as f64).round() as i64 + i.mood_tokens as i64;
            let amount = base.clamp(0, i.tokens as i64) as u32;
            let pass = i.desire < pass_below || amount < min_bid || i.saving();
            Bid {
                agent: i.agent,
                amount: if pass { 0 } else { amount },
                kicker: !pass && i.kicker_intent,
                intent: if pass {
                    BidIntent::Pass
                } else {
                    BidIntent::Speak
                },
                source: BidSourceKind::Heuristic,
                evidence: None,
                desire: i.desire,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softmax_sums_to_one() {
        let s = softmax(&[1.0, 2.0, f64::NAN], 0.3);
        assert!((s.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(s[1] > s[0]);
        assert!(softmax(&[], 0.3).is_empty());
    }

    #[test]
    fn bids_respect_tokens_and_pass() {
        let inputs = [
            HeuristicInput {
                agent: 0,
                desire: 4.0,
                tokens: 1,
                mood_tokens: 1,
                kicker_intent: true,
                kicker_reserve: 0,
            },
            HeuristicInput {
                agent: 1,
                desire: 0.1,
                tokens: 8,
                mood_tokens: 0,
                kicker_intent: true,
                kicker_reserve: 0,
            },
        ];
        let bids = heuristic_bids(&inputs, 0.3, 6, 1, 0.6);
        assert_eq!(bids[0].amount, 1);
        assert!(bids[0].kicker);
        assert_eq!(bids[1].amount, 0);
        assert_eq!(bids[1].intent, BidIntent::Pass);
        assert!(!bids[1].kicker);
        let saver = HeuristicInput {
            kicker_reserve: 5,
            tokens: 4,
            ..inputs[0]
        };
        assert!(saver.saving());
        assert_eq!(heuristic_bids(&[saver], 0.3, 6, 1, 0.6)[0].amount, 0);
    }

    #[test]
    fn recency_term() {
        assert_eq!(recency(5, None, 3), 1.0);
        assert_eq!(recency(5, Some(4), 2), 0.5);
        assert_eq!(recency(5, Some(0), 2), 1.0);
    }
}

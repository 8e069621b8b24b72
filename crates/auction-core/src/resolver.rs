//! First-price resolution with fairness.
//!
//! Each bidder's *effective* bid is `multiplier × amount` (pacing or tax, see
//! [`crate::fairness`]). The highest effective bid wins; ties (within 1e-9) go, in
//! order, to an accepted evidence-backed bid, to the agent who spoke least recently
//! (never spoken first), to the lower talk-time share, and finally to the lower agent
//! index, so resolution is fully deterministic.
//!
//! The winner pays its own bid (first price) minus its discounts (reputation, evidence,
//! underspoke subsidy), never less than `min_bid` and never more than the bid.

use std::cmp::Ordering;

/// One bidder as the resolver sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub agent: usize,
    pub amount: u32,
    pub multiplier: f64,
    pub evidence: bool,
    pub last_spoke_turn: Option<u32>,
    pub share: f64,
}

impl Candidate {
    pub fn effective(&self) -> f64 {
        let m = if self.multiplier.is_finite() {
            self.multiplier.clamp(0.0, 1.0)
        } else {
            1.0
        };
        self.amount as f64 * m
    }
}

const EPS: f64 = 1e-9;

/// Orders candidates best first.
pub fn compare(a: &Candidate, b: &Candidate) -> Ordering {
    let (ea, eb) = (a.effective(), b.effective());
    if (ea - eb).abs() > EPS {
        return eb.partial_cmp(&ea).unwrap_or(Ordering::Equal);
    }
    b.evidence
        .cmp(&a.evidence)
        .then_with(|| match (a.last_spoke_turn, b.last_spoke_turn) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Less,
            (Some(_), None) => Ordering::Greater,
            (Some(x), Some(y)) => x.cmp(&y),
        })
        .then_with(|| a.share.partial_cmp(&b.share).unwrap_or(Ordering::Equal))
        .then_with(|| a.agent.cmp(&b.agent))
}

/// Ranks the candidates with a positive bid, best first.
pub fn rank(candidates: &[Candidate]) -> Vec<Candidate> {
    let mut ranked: Vec<Candidate> = candidates
        .iter()
        .copied()
        .filter(|c| c.amount > 0 && c.effective() > 0.0)
        .collect();
    ranked.sort_by(compare);
    ranked
}

/// The price of a winning bid after a total discount fraction (clamped to `[0, 0.9]`).
pub fn price(amount: u32, discount: f64, min_bid: u32) -> u32 {
    let d = if discount.is_finite() {
        discount.clamp(0.0, 0.9)
    } else {
        0.0
    };
    let p = (amount as f64 * (1.0 - d)).ceil() as u32;
    p.max(min_bid).min(amount)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(agent: usize, amount: u32) -> Candidate {
        Candidate {
            agent,
            amount,
            multiplier: 1.0,
            evidence: false,
            last_spoke_turn: Some(1),
            share: 0.3,
        }
    }

    #[test]
    fn highest_effective_wins() {
        let mut a = c(0, 4);
        a.multiplier = 0.5;
        let r = rank(&[a, c(1, 3), c(2, 0)]);
        assert_eq!(r.iter().map(|x| x.agent).collect::<Vec<_>>(), vec![1, 0]);
    }

    #[test]
    fn tie_breaks() {
        let mut ev = c(2, 3);
        ev.evidence = true;
        assert_eq!(rank(&[c(0, 3), ev])[0].agent, 2);
        let mut never = c(2, 3);
        never.last_spoke_turn = None;
        assert_eq!(rank(&[c(0, 3), never])[0].agent, 2);
        let mut older = c(2, 3);
        older.last_spoke_turn = Some(0);
        assert_eq!(rank(&[c(0, 3), older])[0].agent, 2);
        let mut quiet = c(2, 3);
        quiet.share = 0.1;
        assert_eq!(rank(&[c(0, 3), quiet])[0].agent, 2);
        assert_eq!(rank(&[c(1, 3), c(0, 3)])[0].agent, 0);
    }

    #[test]
    fn pricing() {
        assert_eq!(price(4, 0.0, 1), 4);
        assert_eq!(price(4, 0.2, 1), 4); // ceil(3.2)
        assert_eq!(price(4, 0.5, 1), 2);
        assert_eq!(price(1, 0.9, 1), 1);
        assert_eq!(price(5, f64::NAN, 1), 5);
    }
}

//! Limits on the model requests the core makes: how many may be in flight at once
//! (the spec's 9.1) and how many per sliding minute (the budget governor, the spec's 16).
//!
//! Pure bookkeeping: the driver says what is in flight and when a request went out.

use std::collections::VecDeque;

use crate::config::{ConcurrencyConfig, QualityConfig};

/// The window of the per-minute budget.
const MINUTE_MS: u64 = 60_000;

/// Why an optional model request was not made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// `concurrency.global_limit` or `concurrency.per_agent_limit` reached.
    Concurrency,
    /// `quality.llm_calls_per_min` reached.
    CallBudget,
}

impl Refusal {
    /// The reason written to records.
    pub fn reason(self) -> &'static str {
        match self {
            Refusal::Concurrency => "concurrency limit",
            Refusal::CallBudget => "call budget",
        }
    }
}

/// Model requests in flight, as the driver sees them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InFlight {
    pub total: u32,
    pub per_agent: Vec<u32>,
}

impl InFlight {
    pub fn new(agents: usize) -> Self {
        Self {
            total: 0,
            per_agent: vec![0; agents],
        }
    }

    pub fn add(&mut self, agent: usize) {
        self.total += 1;
        self.per_agent[agent] += 1;
    }
}

#[derive(Debug, Clone)]
pub struct RequestGovernor {
    global_limit: Option<u32>,
    per_agent_limit: Option<u32>,
    calls_per_min: Option<u32>,
    /// Times of the requests of the last minute, oldest first.
    recent: VecDeque<u64>,
}

impl RequestGovernor {
    pub fn new(concurrency: &ConcurrencyConfig, quality: &QualityConfig) -> Self {
        Self {
            global_limit: concurrency.global_limit,
            per_agent_limit: concurrency.per_agent_limit,
            calls_per_min: quality.llm_calls_per_min,
            recent: VecDeque::new(),
        }
    }

    /// Whether an optional request to `agent` may go out at `now`, with `in_flight`
    /// already outstanding.
    pub fn check(&mut self, agent: usize, in_flight: &InFlight, now: u64) -> Result<(), Refusal> {
        if self.global_limit.is_some_and(|l| in_flight.total >= l)
            || self
                .per_agent_limit
                .is_some_and(|l| in_flight.per_agent[agent] >= l)
        {
            return Err(Refusal::Concurrency);
        }
        self.forget_before(now);
        if self
            .calls_per_min
            .is_some_and(|l| self.recent.len() as u32 >= l)
        {
            return Err(Refusal::CallBudget);
        }
        Ok(())
    }

    /// A request went out at `now` (segments too: they count, but are never refused).
    pub fn note(&mut self, now: u64) {
        if self.calls_per_min.is_some() {
            self.forget_before(now);
            self.recent.push_back(now);
        }
    }

    fn forget_before(&mut self, now: u64) {
        while self.recent.front().is_some_and(|&t| t + MINUTE_MS <= now) {
            self.recent.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn governor(
        global: Option<u32>,
        per_agent: Option<u32>,
        per_min: Option<u32>,
    ) -> RequestGovernor {
        RequestGovernor::new(
            &ConcurrencyConfig {
                global_limit: global,
                per_agent_limit: per_agent,
                ..ConcurrencyConfig::default()
            },
            &QualityConfig {
                llm_calls_per_min: per_min,
            },
        )
    }

    #[test]
    fn no_limits_by_default() {
        let mut g = RequestGovernor::new(&ConcurrencyConfig::default(), &QualityConfig::default());
        let mut busy = InFlight::new(2);
        for t in 0..100 {
            busy.add(0);
            g.note(t);
        }
        assert_eq!(g.check(0, &busy, 100), Ok(()));
    }

    #[test]
    fn concurrency_limits_count_what_is_in_flight() {
        let mut g = governor(Some(2), Some(1), None);
        let mut busy = InFlight::new(3);
        assert_eq!(g.check(0, &busy, 0), Ok(()));
        busy.add(0);
        assert_eq!(g.check(0, &busy, 0), Err(Refusal::Concurrency));
        assert_eq!(g.check(1, &busy, 0), Ok(()));
        busy.add(1);
        assert_eq!(g.check(2, &busy, 0), Err(Refusal::Concurrency));
    }

    #[test]
    fn the_call_budget_slides_over_a_minute() {
        let mut g = governor(None, None, Some(2));
        let idle = InFlight::new(2);
        g.note(1_000);
        g.note(30_000);
        assert_eq!(g.check(0, &idle, 30_000), Err(Refusal::CallBudget));
        assert_eq!(g.check(0, &idle, 60_999), Err(Refusal::CallBudget));
        // The first call leaves the window a minute after it was made.
        assert_eq!(g.check(0, &idle, 61_000), Ok(()));
    }
}

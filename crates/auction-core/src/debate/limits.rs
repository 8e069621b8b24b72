//! Model requests the auction may make: what is in flight, and whether an optional one
//! (a model bid, a kicker, an interjection) fits `concurrency` and `quality`.

use crate::governor::{InFlight, Refusal};

use super::AuctionDebate;
use super::state::Round;

impl AuctionDebate {
    /// Model requests outstanding: the next segment until its text is in, model bids
    /// not yet answered, a kicker or interjection not yet written.
    pub(super) fn in_flight(&self) -> InFlight {
        let mut flight = InFlight::new(self.agents.len());
        if let Some(n) = &self.next
            && n.ready.is_none()
        {
            flight.add(n.agent);
        }
        if let Some(round) = &self.round {
            count_round(round, &mut flight);
        }
        flight
    }

    /// Whether an optional request to `agent` fits the limits, given `flight`; if it
    /// does, it is counted as made at `now`.
    pub(super) fn admit_request(
        &mut self,
        agent: usize,
        flight: &InFlight,
        now: u64,
    ) -> Result<(), Refusal> {
        self.governor.check(agent, flight, now)?;
        self.governor.note(now);
        Ok(())
    }
}

/// Adds what `round` is still waiting for to `flight`.
pub(super) fn count_round(round: &Round, flight: &mut InFlight) {
    for (agent, &waiting) in round.awaiting.iter().enumerate() {
        if waiting {
            flight.add(agent);
        }
    }
    if let Some(k) = &round.kicker
        && k.text.is_none()
    {
        flight.add(k.agent);
    }
    if let Some(i) = &round.interjection
        && i.text.is_none()
    {
        flight.add(i.agent);
    }
}

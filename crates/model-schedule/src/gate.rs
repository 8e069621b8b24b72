//! Which request decodes next: a priority gate, granted between decode steps.

use std::collections::{BTreeMap, BTreeSet};

/// How urgent a request is; the first variant is the most urgent.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// A turn that answers the human: the listener waits for it.
    Answer,
    /// A spoken turn; among turns, the oldest question first (its voice is due first).
    Turn,
    /// A side request (an intent, a bid, a rating): a conductor waits for it to decide.
    Side,
    /// Reading the conversation into a participant's cache while nobody waits for it.
    ReadAlong,
}

impl Priority {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Answer => "answer",
            Self::Turn => "turn",
            Self::Side => "side",
            Self::ReadAlong => "read_along",
        }
    }

    /// Prompt tokens read in one step at this priority. The gate passes between steps, so
    /// a more urgent request waits at most one step: reading along, which nobody waits
    /// for, takes small steps (an answer to the human waited 0.8 s behind one of 32
    /// tokens on one core; in 8-token steps the lines were read along no slower, 44
    /// against 39 tokens/s). The rest keep the 32-token steps they were measured with.
    pub fn prompt_slice(self) -> usize {
        match self {
            Self::ReadAlong => 8,
            Self::Answer | Self::Turn | Self::Side => 32,
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Self::Answer, Self::Turn, Self::Side, Self::ReadAlong]
            .into_iter()
            .find(|p| p.as_str() == text)
    }
}

/// A request's place in the queue: its priority, then its question (older first), then
/// when it asked (first come, first served).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Ticket {
    pub priority: Priority,
    pub question_id: u64,
    /// Unique per request, in the order they were made: ties are broken by it.
    pub serial: u64,
}

/// Grants the next decode step to the most urgent waiting request. Sans-IO: the host's
/// threads call [`Gate::wait`] before a step and [`Gate::release`] after it; the gate says
/// whom it grants, and the caller wakes them.
///
/// Work nobody hears (side requests, reading along) waits for more: while a more urgent
/// request runs ([`Gate::enter`] .. [`Gate::leave`]), it gets no step, even in the moment
/// between two of that request's steps. A 32-token slice taken there delays each of the
/// turn's tokens by as much: a rehearsal panelist's question was written at 4 tokens/s
/// beside the panel's side requests, 14–24 s before its first words.
#[derive(Debug, Default, Clone)]
pub struct Gate {
    waiting: BTreeMap<Ticket, ()>,
    holder: Option<Ticket>,
    running: BTreeSet<Ticket>,
}

impl Gate {
    pub fn new() -> Self {
        Self::default()
    }

    /// `ticket` asks for the next step. Returns whether it holds the gate now (it was
    /// free and nothing more urgent waits).
    pub fn wait(&mut self, ticket: Ticket) -> bool {
        self.waiting.insert(ticket, ());
        self.grant();
        self.holder == Some(ticket)
    }

    /// A waiting ticket changed its place (a request waiting behind it lent it its
    /// priority): it waits as `lifted` now. Returns whether `lifted` holds the gate.
    /// Without it, a participant's reading that its own turn waits for stayed behind the
    /// others' readings, which gave it no way: a debate's first segment waited 5.7 s.
    pub fn requeue(&mut self, waiting: Ticket, lifted: Ticket) -> bool {
        if self.waiting.remove(&waiting).is_none() {
            return self.holder == Some(waiting);
        }
        self.wait(lifted)
    }

    /// Whether `ticket` holds the gate.
    pub fn holds(&self, ticket: Ticket) -> bool {
        self.holder == Some(ticket)
    }

    /// The holder's step is done; the most urgent waiting ticket, if any, holds the gate
    /// now and is returned.
    pub fn release(&mut self, ticket: Ticket) -> Option<Ticket> {
        if self.holder == Some(ticket) {
            self.holder = None;
        }
        self.grant()
    }

    /// A waiting ticket gives up (its request was cancelled); releases it if it held the
    /// gate. Returns the new holder, if the gate changed hands.
    pub fn withdraw(&mut self, ticket: Ticket) -> Option<Ticket> {
        self.waiting.remove(&ticket);
        self.release(ticket)
    }

    /// The ticket that holds the gate.
    pub fn holder(&self) -> Option<Ticket> {
        self.holder
    }

    /// How many tickets wait (the holder excluded).
    pub fn waiting(&self) -> usize {
        self.waiting.len()
    }

    /// `ticket`'s request runs (it has what it needs besides the gate) until
    /// [`Gate::leave`]. Returns the new holder, if the gate changed hands.
    pub fn enter(&mut self, ticket: Ticket) -> Option<Ticket> {
        self.running.insert(ticket);
        self.grant()
    }

    /// `ticket`'s request is over; reading along may go on. Returns the new holder, if
    /// the gate changed hands.
    pub fn leave(&mut self, ticket: Ticket) -> Option<Ticket> {
        self.running.remove(&ticket);
        self.grant()
    }

    /// Whether a ticket more urgent than `ticket` waits, or runs: reading along then
    /// stops.
    pub fn more_urgent_than(&self, ticket: Ticket) -> bool {
        self.waiting.keys().next().is_some_and(|t| *t < ticket)
            || self.running.first().is_some_and(|t| *t < ticket)
    }

    /// Whether `ticket` may have a step now. While the answer to the human runs, nothing
    /// else has a step: the turns being written beside it took the steps between its
    /// tokens (and prompt slices among them), and it was written at half its speed. They
    /// go on when it ends. Among turns, each has its steps.
    fn eligible(&self, ticket: Ticket) -> bool {
        match self.running.first() {
            None => true,
            Some(r) if r.priority == Priority::Answer => ticket.priority == Priority::Answer,
            Some(r) => ticket.priority < Priority::Side || *r >= ticket,
        }
    }

    fn grant(&mut self) -> Option<Ticket> {
        if self.holder.is_some() {
            return None;
        }
        let next = *self.waiting.keys().find(|t| self.eligible(**t))?;
        self.waiting.remove(&next);
        self.holder = Some(next);
        Some(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ticket(priority: Priority, question_id: u64, serial: u64) -> Ticket {
        Ticket {
            priority,
            question_id,
            serial,
        }
    }

    #[test]
    fn reading_along_takes_the_smallest_steps() {
        let along = Priority::ReadAlong.prompt_slice();
        for p in [Priority::Answer, Priority::Turn, Priority::Side] {
            assert!(along < p.prompt_slice(), "{p:?}");
        }
        assert!(along >= 1);
    }

    #[test]
    fn a_waiting_reading_lifted_to_a_turn_goes_before_readings_that_came_first() {
        let mut gate = Gate::new();
        let running = ticket(Priority::ReadAlong, 0, 1);
        let other = ticket(Priority::ReadAlong, 0, 2);
        let own = ticket(Priority::ReadAlong, 0, 3);
        assert!(gate.wait(running));
        assert!(!gate.wait(other));
        assert!(!gate.wait(own));
        // Its participant's turn now waits behind it: it waits as the turn would.
        let lifted = ticket(Priority::Turn, 0, 3);
        assert!(!gate.requeue(own, lifted));
        assert!(gate.more_urgent_than(other));
        assert_eq!(gate.release(running), Some(lifted));
        assert_eq!(gate.waiting(), 1);
        // A ticket that holds the gate already keeps it.
        assert!(gate.requeue(lifted, ticket(Priority::Answer, 0, 3)));
    }

    #[test]
    fn a_free_gate_is_held_at_once() {
        let mut gate = Gate::new();
        let t = ticket(Priority::ReadAlong, 0, 1);
        assert!(gate.wait(t));
        assert_eq!(gate.holder(), Some(t));
    }

    #[test]
    fn the_answer_to_the_human_goes_before_earlier_lower_work() {
        let mut gate = Gate::new();
        let read = ticket(Priority::ReadAlong, 0, 1);
        let side = ticket(Priority::Side, 0, 2);
        let turn = ticket(Priority::Turn, 7, 3);
        let answer = ticket(Priority::Answer, 9, 4);
        assert!(gate.wait(read));
        assert!(!gate.wait(side));
        assert!(!gate.wait(turn));
        assert!(!gate.wait(answer));
        assert!(gate.more_urgent_than(read));
        assert_eq!(gate.release(read), Some(answer));
        assert_eq!(gate.release(answer), Some(turn));
        assert_eq!(gate.release(turn), Some(side));
        assert_eq!(gate.release(side), None);
        assert_eq!(gate.holder(), None);
    }

    #[test]
    fn the_older_question_speaks_first() {
        let mut gate = Gate::new();
        let blocker = ticket(Priority::Answer, 1, 1);
        gate.wait(blocker);
        let later = ticket(Priority::Turn, 12, 2);
        let due = ticket(Priority::Turn, 11, 3);
        gate.wait(later);
        gate.wait(due);
        assert_eq!(gate.release(blocker), Some(due));
    }

    #[test]
    fn a_withdrawn_holder_hands_the_gate_on() {
        let mut gate = Gate::new();
        let a = ticket(Priority::Turn, 1, 1);
        let b = ticket(Priority::Turn, 2, 2);
        gate.wait(a);
        gate.wait(b);
        assert_eq!(gate.withdraw(a), Some(b));
        assert_eq!(gate.withdraw(b), None);
        assert_eq!(gate.waiting(), 0);
    }

    #[test]
    fn work_nobody_hears_waits_while_a_turn_runs_even_between_its_steps() {
        let mut gate = Gate::new();
        let turn = ticket(Priority::Turn, 4, 1);
        let read = ticket(Priority::ReadAlong, 0, 2);
        gate.enter(turn);
        assert!(gate.wait(turn));
        gate.release(turn);
        // Between two of the turn's steps the gate is free, yet not for reading along.
        assert!(!gate.wait(read));
        assert!(gate.more_urgent_than(read));
        assert!(gate.wait(turn));
        assert_eq!(gate.release(turn), None);
        assert_eq!(gate.leave(turn), Some(read));
        // A side request waits for a running turn too; another turn does not (both are
        // heard), and the answer to the human does not wait for a turn.
        let side = ticket(Priority::Side, 0, 3);
        gate.release(read);
        gate.enter(turn);
        assert!(!gate.wait(side));
        let later_turn = ticket(Priority::Turn, 5, 4);
        assert!(gate.wait(later_turn));
        assert_eq!(gate.release(later_turn), None);
        let answer = ticket(Priority::Answer, 6, 5);
        assert!(gate.wait(answer));
        gate.release(answer);
        // Once the turn is over, the side request has its step.
        assert_eq!(gate.leave(turn), Some(side));
    }

    #[test]
    fn while_the_answer_runs_nothing_else_has_a_step_of_its_own() {
        let mut gate = Gate::new();
        let answer = ticket(Priority::Answer, 9, 1);
        let turn = ticket(Priority::Turn, 8, 2);
        let side = ticket(Priority::Side, 0, 3);
        gate.enter(answer);
        // Between two of the answer's steps, the gate is free, yet not for the others,
        // even a turn of an older question.
        assert!(!gate.wait(turn));
        assert!(!gate.wait(side));
        assert_eq!(gate.holder(), None);
        assert!(gate.wait(answer));
        assert_eq!(gate.release(answer), None);
        // Another human's answer is heard as soon.
        let other_answer = ticket(Priority::Answer, 10, 4);
        assert!(gate.wait(other_answer));
        gate.release(other_answer);
        assert_eq!(gate.leave(answer), Some(turn));
        assert_eq!(gate.release(turn), Some(side));
    }

    #[test]
    fn priorities_have_one_spelling_each() {
        for p in [
            Priority::Answer,
            Priority::Turn,
            Priority::Side,
            Priority::ReadAlong,
        ] {
            assert_eq!(Priority::parse(p.as_str()), Some(p));
        }
        assert_eq!(Priority::parse("urgent"), None);
    }
}

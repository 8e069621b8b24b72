//! The participants' seats in the one context: a cache sequence each, the line of
//! requests waiting for it (whose priority a reading ahead borrows), and the slots that
//! hand them out.

use std::sync::{Condvar, atomic::AtomicU64};

use model_schedule::Seats;

use super::*;

/// One participant's cache sequence: the tokens it holds, in order.
pub(super) struct Sequence {
    pub(super) id: i32,
    pub(super) cached: Vec<LlamaToken>,
    pub(super) window: PromptWindow,
    pub(super) turns: u32,
    /// It served another participant before: its cache is cleared before use.
    pub(super) stale: bool,
}

impl Sequence {
    pub(super) fn new(id: i32, window_lines: usize) -> Self {
        Self {
            id,
            cached: Vec::new(),
            window: PromptWindow::of_lines(window_lines),
            turns: 0,
            stale: false,
        }
    }
}

/// A sequence and the line of requests waiting for it.
pub(super) struct Slot {
    pub(super) line: Arc<Line>,
    pub(super) sequence: Arc<Mutex<Sequence>>,
}

/// A sequence's requests in the order they were claimed: each waits for its number.
#[derive(Default)]
pub(super) struct Line {
    pub(super) issued: AtomicU64,
    pub(super) serving: Mutex<u64>,
    pub(super) next: Condvar,
    /// The priority of the most urgent request waiting in this line: the reading ahead
    /// before it runs at that priority, so that a turn never waits at reading-along
    /// priority behind the other participants' reading.
    pub(super) boost: Mutex<Option<Priority>>,
    /// The reading ahead claimed since the last turn: a newer one makes the older ones
    /// pointless (each reads the turn as predicted after one more line), so they stop.
    pub(super) ahead: Mutex<Vec<Arc<AtomicBool>>>,
    /// Requests (not readings ahead) claimed and not done: when a reading ahead begins,
    /// those before it are done, so any counted here wait behind it.
    pub(super) requests: AtomicU64,
}

impl Line {
    /// The priority reading ahead runs at now, if a more urgent request waits behind it.
    pub(super) fn boost(&self) -> Option<Priority> {
        *lock(&self.boost)
    }
}

impl Line {
    pub(super) fn take_number(&self) -> u64 {
        self.issued.fetch_add(1, Ordering::SeqCst)
    }

    /// Requests claimed and not done.
    pub(super) fn waiting(&self) -> u64 {
        self.issued.load(Ordering::SeqCst) - *lock(&self.serving)
    }

    pub(super) fn wait_for(&self, number: u64) {
        let mut serving = lock(&self.serving);
        while *serving != number {
            serving = self.next.wait(serving).unwrap_or_else(|e| e.into_inner());
        }
    }

    pub(super) fn done(&self) {
        *lock(&self.serving) += 1;
        self.next.notify_all();
    }
}

/// A request's place on its participant's sequence.
pub(super) struct Claim {
    pub(super) sequence: Arc<Mutex<Sequence>>,
    pub(super) line: Arc<Line>,
    pub(super) number: u64,
    /// A reading ahead claimed while a request of the participant was in line before it.
    pub(super) behind_a_request: bool,
}

/// The sequences and whose each is ([`Seats`] decides).
pub(super) struct Slots {
    pub(super) slots: Vec<Slot>,
    pub(super) seats: Seats,
}

impl Slots {
    pub(super) fn new(count: u32, window_lines: usize) -> Self {
        Self {
            slots: (0..count)
                .map(|id| Slot {
                    line: Arc::default(),
                    sequence: Arc::new(Mutex::new(Sequence::new(id as i32, window_lines))),
                })
                .collect(),
            seats: Seats::new(count as usize),
        }
    }

    /// `participant`'s sequence, and its place in the sequence's line. A sequence that
    /// changes hands is cleared before use. `None`: every sequence is in use.
    pub(super) fn claim(&mut self, participant: &str) -> Option<Claim> {
        let slot = self.seat(participant)?;
        Some(Claim {
            sequence: slot.sequence.clone(),
            line: slot.line.clone(),
            number: slot.line.take_number(),
            behind_a_request: false,
        })
    }

    /// `participant`'s slot: its own, else one [`Seats`] gives it (cleared before use).
    fn seat(&mut self, participant: &str) -> Option<&Slot> {
        let slots = &self.slots;
        let seated = self
            .seats
            .claim(participant, |s| slots[s].line.waiting() > 0)?;
        let slot = &self.slots[seated.seat];
        if let Some(previous) = seated.previous {
            tracing::info!(participant, previous = %previous, "a sequence changes hands; its cache is cleared");
            lock(&slot.sequence).stale = true;
        }
        Some(slot)
    }

    /// `participant`'s sequence, seating it when it has none: a side request's reading
    /// goes there even before the participant's first turn or reading along.
    pub(super) fn sequence_for(&mut self, participant: &str) -> Option<Arc<Mutex<Sequence>>> {
        Some(self.seat(participant)?.sequence.clone())
    }

    /// `participant`'s sequence, if it has one.
    pub(super) fn sequence_of(&self, participant: &str) -> Option<Arc<Mutex<Sequence>>> {
        let slot = &self.slots[self.seats.seat_of(participant)?];
        Some(slot.sequence.clone())
    }
}

/// Makes `target` a copy of `source` (its cache and the tokens it holds), or empty when
/// there is nothing to copy (no source, an empty or stale one) or the copy failed.
///
/// The window of lines goes with it: a side request on the scratch then shows the lines
/// the participant's own turns show. With the scratch's own window (left by whichever
/// participant used it last) it showed others, and from the first line that differed
/// every side request read its prompt again, and its reading, copied back, made the next
/// turn read it again too: 180 tokens each time in a rehearsal, 4-5 s of the one thread.
pub(super) fn copy_cache(
    context: &mut LlamaContext<'_>,
    source: Option<&Sequence>,
    target: &mut Sequence,
) {
    let _ = context.clear_kv_cache_seq(Some(target.id as u32), None, None);
    match source.filter(|s| !s.stale) {
        Some(s) => target.window = s.window.clone(),
        None => target.window.clear(),
    }
    let copied = source
        .filter(|s| !s.cached.is_empty() && !s.stale)
        .filter(|s| {
            context
                .copy_kv_cache_seq(s.id, target.id, None, None)
                .is_ok()
        });
    target.cached = copied.map(|s| s.cached.clone()).unwrap_or_default();
    target.stale = false;
}

//! The human's floor, for a conductor whose agents a human may talk over: their first
//! sound holds the agents' voice (the player's `pause`, a 3 ms fade with the place kept),
//! a backchannel or a transcript with no words lets it go on (`resume`), and their words
//! take the floor (the conductor cuts what was held with an interrupt before it passes
//! the words on). Without it, a presenter answering over a panelist's question heard the
//! panelist go on to the end of the question.
//!
//! Only an agent's voice is held: the human's own words voiced back (an offline demo's
//! scripted presenter) are not talked over by their next sentence.

use std::collections::BTreeSet;

/// How long a hold waits for words or a backchannel before the voice goes on (the
/// conference controller's limit; the player gives up on its own after 40 s).
pub const HOLD_LIMIT_MS: u64 = 35_000;

/// What the player is to do with the agents' voice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloorChange {
    /// `pause`: hold the voice where it is. `onset_us`: when the human's first sound was
    /// sent (µs since the epoch), passed on so that the player measures first sound →
    /// silence over both hops.
    Hold { onset_us: Option<i64> },
    /// `resume`: go on where it stopped.
    Release,
}

/// Who is sounding, and whether the human holds the floor.
#[derive(Debug, Clone, Default)]
pub struct Floor {
    /// Agents' lines that began to sound and have not ended, by question id.
    sounding: BTreeSet<u64>,
    /// The human's own lines voiced back: never held.
    own: BTreeSet<u64>,
    /// When the voice was held, while it is.
    held_since: Option<u64>,
}

impl Floor {
    pub fn new() -> Self {
        Self::default()
    }

    /// Line `question_id` is the human's own words, voiced back.
    pub fn own_line(&mut self, question_id: u64) {
        self.own.insert(question_id);
    }

    /// The player began to sound line `question_id`.
    pub fn voice_started(&mut self, question_id: u64) {
        if !self.own.contains(&question_id) {
            self.sounding.insert(question_id);
        }
    }

    /// The player ended (or cut) line `question_id`; it sounds lines in question-id
    /// order, so every older one is over too.
    pub fn voice_ended(&mut self, question_id: u64) {
        self.sounding.retain(|q| *q > question_id);
        self.own.retain(|q| *q > question_id);
    }

    /// Line `question_id` ended (or was cut), and only it: for a player whose lines
    /// may overlap (a clip over a ducked one).
    pub fn voice_stopped(&mut self, question_id: u64) {
        self.sounding.remove(&question_id);
        self.own.remove(&question_id);
    }

    /// The human's voice began (its first sound sent at `onset_us`): an agent's voice
    /// that sounds is held.
    pub fn speech_started(&mut self, onset_us: Option<i64>, now_ms: u64) -> Option<FloorChange> {
        if self.held_since.is_some() || self.sounding.is_empty() {
            return None;
        }
        self.held_since = Some(now_ms);
        Some(FloorChange::Hold { onset_us })
    }

    /// The human only acknowledged ("mm-hm"), or said nothing the recognizer kept: a
    /// held voice goes on.
    pub fn no_words(&mut self) -> Option<FloorChange> {
        self.held_since.take().map(|_| FloorChange::Release)
    }

    /// The human's words came. Returns whether a voice was held: the conductor cuts it
    /// (an interrupt older than the words), and the hold is over.
    pub fn words(&mut self) -> bool {
        self.held_since.take().is_some()
    }

    /// Time passed: a hold nobody resolved within [`HOLD_LIMIT_MS`] lets the voice go on.
    pub fn tick(&mut self, now_ms: u64) -> Option<FloorChange> {
        let since = self.held_since?;
        (now_ms.saturating_sub(since) >= HOLD_LIMIT_MS).then(|| {
            self.held_since = None;
            FloorChange::Release
        })
    }

    /// When [`Floor::tick`] has something to do.
    pub fn next_wake(&self) -> Option<u64> {
        self.held_since.map(|since| since + HOLD_LIMIT_MS)
    }

    /// Whether line `question_id` began to sound and has not ended.
    pub fn is_sounding(&self, question_id: u64) -> bool {
        self.sounding.contains(&question_id)
    }

    pub fn is_held(&self) -> bool {
        self.held_since.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn an_agents_voice_is_held_on_the_first_sound_and_cut_by_words() {
        let mut floor = Floor::new();
        // Nobody sounds: nothing to hold.
        assert_eq!(floor.speech_started(None, 0), None);
        floor.voice_started(3);
        // The hold carries when the first sound was sent.
        assert_eq!(
            floor.speech_started(Some(1_700), 10),
            Some(FloorChange::Hold {
                onset_us: Some(1_700)
            })
        );
        // Held once, however often the human starts again.
        assert_eq!(floor.speech_started(None, 20), None);
        assert!(floor.words());
        assert!(!floor.is_held());
        // Words with nothing held cut nothing.
        assert!(!floor.words());
    }

    #[test]
    fn a_backchannel_or_the_limit_lets_the_voice_go_on() {
        let mut floor = Floor::new();
        floor.voice_started(1);
        floor.speech_started(None, 100);
        assert_eq!(floor.no_words(), Some(FloorChange::Release));
        assert_eq!(floor.no_words(), None);
        floor.speech_started(None, 200);
        assert_eq!(floor.next_wake(), Some(200 + HOLD_LIMIT_MS));
        assert_eq!(floor.tick(200 + HOLD_LIMIT_MS - 1), None);
        assert_eq!(floor.tick(200 + HOLD_LIMIT_MS), Some(FloorChange::Release));
        assert_eq!(floor.next_wake(), None);
    }

    #[test]
    fn the_humans_own_words_voiced_back_are_not_held() {
        let mut floor = Floor::new();
        floor.own_line(5);
        floor.voice_started(5);
        assert_eq!(floor.speech_started(None, 0), None);
        floor.voice_ended(5);
        floor.voice_started(6);
        floor.voice_ended(6);
        assert_eq!(floor.speech_started(None, 1), None);
    }

    proptest! {
        /// Whatever happens, a hold is announced once and ended at most once, and words
        /// cut only what was held.
        #[test]
        fn holds_and_releases_alternate(ops in proptest::collection::vec(0u8..6, 0..60)) {
            let mut floor = Floor::new();
            let mut held = false;
            for (i, op) in ops.into_iter().enumerate() {
                let now = i as u64 * 1_000;
                let q = i as u64;
                let change = match op {
                    0 => { floor.voice_started(q); None }
                    1 => { floor.voice_ended(q.saturating_sub(1)); None }
                    2 => floor.speech_started(None, now),
                    3 => floor.no_words(),
                    4 => { let cut = floor.words(); prop_assert_eq!(cut, held); held = false; None }
                    _ => floor.tick(now * 10),
                };
                match change {
                    Some(FloorChange::Hold { .. }) => { prop_assert!(!held); held = true; }
                    Some(FloorChange::Release) => { prop_assert!(held); held = false; }
                    None => {}
                }
                prop_assert_eq!(floor.is_held(), held);
            }
        }
    }
}

//! Pacing against the player: the lines a conductor has said and the player has not yet
//! reported as heard, by question id. A conductor holds its next decision while too many
//! are unheard, so the conversation never runs ahead of what the room has heard.

use std::collections::BTreeMap;

/// Lines said and not yet heard, by question id, each with what the conductor keeps
/// about it (`()` when the id is enough).
#[derive(Debug, Clone)]
pub struct Unheard<T> {
    lines: BTreeMap<u64, T>,
}

impl<T> Default for Unheard<T> {
    fn default() -> Self {
        Self {
            lines: BTreeMap::new(),
        }
    }
}

impl<T> Unheard<T> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Line `question_id` was sent to be spoken.
    pub fn said(&mut self, question_id: u64, what: T) {
        self.lines.insert(question_id, what);
    }

    /// The player reported `question_id` heard. It sounds lines in question-id order, so
    /// every older line is heard too; returns how many were waiting.
    pub fn heard(&mut self, question_id: u64) -> usize {
        let before = self.lines.len();
        self.lines.retain(|q, _| *q > question_id);
        before - self.lines.len()
    }

    /// The player reported exactly `question_id` heard (a player that may skip or reorder
    /// lines): only that line is done.
    pub fn heard_exactly(&mut self, question_id: u64) -> Option<T> {
        self.lines.remove(&question_id)
    }

    pub fn contains(&self, question_id: u64) -> bool {
        self.lines.contains_key(&question_id)
    }

    /// The most recent line still unheard.
    pub fn newest(&self) -> Option<u64> {
        self.lines.keys().next_back().copied()
    }

    /// The unheard question ids, oldest first.
    pub fn ids(&self) -> impl Iterator<Item = u64> + '_ {
        self.lines.keys().copied()
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Gives up on every report (the player was silent too long).
    pub fn clear(&mut self) {
        self.lines.clear();
    }

    /// Gives up on every report (the lines were cut), returning what was kept of each,
    /// oldest first.
    pub fn take(&mut self) -> Vec<(u64, T)> {
        std::mem::take(&mut self.lines).into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_covers_older_lines_an_exact_report_only_its_own() {
        let mut unheard = Unheard::new();
        for q in [3, 5, 8] {
            unheard.said(q, q * 10);
        }
        assert_eq!((unheard.len(), unheard.newest()), (3, Some(8)));
        assert_eq!(unheard.heard_exactly(5), Some(50));
        assert_eq!(unheard.heard_exactly(5), None);
        assert!(unheard.contains(3) && unheard.contains(8));
        assert_eq!(unheard.heard(4), 1, "3 is older than 4");
        assert_eq!(unheard.ids().collect::<Vec<_>>(), [8]);
        assert_eq!(unheard.heard(4), 0);
        unheard.clear();
        assert!(unheard.is_empty() && unheard.newest().is_none());
    }

    proptest::proptest! {
        #[test]
        fn after_a_report_nothing_older_is_unheard(
            said in proptest::collection::vec(0u64..50, 0..30),
            report in 0u64..60,
        ) {
            let mut unheard = Unheard::new();
            for q in &said {
                unheard.said(*q, ());
            }
            let before = unheard.len();
            let done = unheard.heard(report);
            proptest::prop_assert_eq!(before - done, unheard.len());
            proptest::prop_assert!(unheard.ids().all(|q| q > report));
            let newer: std::collections::BTreeSet<u64> =
                said.iter().copied().filter(|q| *q > report).collect();
            proptest::prop_assert_eq!(unheard.ids().collect::<std::collections::BTreeSet<_>>(), newer);
        }
    }
}

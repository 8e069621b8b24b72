//! The nearest token still open in one direction, past any run of closed ones.

/// The nearest open index in one direction, where indices only ever close. Path halving
/// keeps crossing a long closed run cheap, so looking up a neighbour past thousands of
/// hidden tokens stays near constant time.
pub(super) struct Skip {
    parent: Vec<usize>,
    /// Looking backwards (slot `k + 1` is token `k`, slot 0 is "none") or forwards (slot
    /// `k` is token `k`, slot `n` is "none").
    backwards: bool,
}

impl Skip {
    pub(super) fn new(n: usize, backwards: bool) -> Self {
        Self {
            parent: (0..=n).collect(),
            backwards,
        }
    }

    pub(super) fn close(&mut self, k: usize) {
        if self.backwards {
            self.parent[k + 1] = k;
        } else {
            self.parent[k] = k + 1;
        }
    }

    pub(super) fn root(&mut self, mut slot: usize) -> usize {
        while self.parent[slot] != slot {
            let up = self.parent[self.parent[slot]];
            self.parent[slot] = up;
            slot = up;
        }
        slot
    }

    /// The nearest open token before `i` (backwards) or after it (forwards).
    pub(super) fn beyond(&mut self, i: usize) -> Option<usize> {
        if self.backwards {
            self.root(i).checked_sub(1)
        } else {
            let slot = self.root(i + 1);
            (slot + 1 < self.parent.len()).then_some(slot)
        }
    }
}

//! Side requests sent and not yet answered (intents, bids, kickers, candidate questions):
//! matched to their replies by id, given up on at their deadline, and never more than a
//! limit of them remembered (the oldest is forgotten first).

use std::collections::BTreeMap;

/// Requests by id, `<kind>-<n>` with `n` counting every request from 1.
#[derive(Debug, Clone)]
pub struct Requests<T> {
    sent: u64,
    limit: usize,
    open: BTreeMap<u64, Pending<T>>,
}

#[derive(Debug, Clone)]
struct Pending<T> {
    id: String,
    what: T,
    deadline: Option<u64>,
}

impl<T> Requests<T> {
    /// At most `limit` (at least 1) open requests are remembered.
    pub fn new(limit: usize) -> Self {
        Self {
            sent: 0,
            limit: limit.max(1),
            open: BTreeMap::new(),
        }
    }

    /// Opens a request of `kind` for `what`, given up at `deadline` (ms) if any; returns
    /// its id, for the request's JSON.
    pub fn open(&mut self, kind: &str, what: T, deadline: Option<u64>) -> String {
        self.sent += 1;
        let id = format!("{kind}-{}", self.sent);
        self.open.insert(
            self.sent,
            Pending {
                id: id.clone(),
                what,
                deadline,
            },
        );
        while self.open.len() > self.limit {
            self.open.pop_first();
        }
        id
    }

    fn key(&self, id: &str) -> Option<u64> {
        let n: u64 = id.rsplit_once('-')?.1.parse().ok()?;
        self.open.get(&n).filter(|p| p.id == id).map(|_| n)
    }

    /// The open request `id` (a reply may come from several of those asked).
    pub fn get(&self, id: &str) -> Option<&T> {
        self.key(id).map(|n| &self.open[&n].what)
    }

    /// Closes request `id` (its one reply came).
    pub fn take(&mut self, id: &str) -> Option<T> {
        let n = self.key(id)?;
        self.open.remove(&n).map(|p| p.what)
    }

    /// Closes and returns the requests whose deadline is `now` or earlier, oldest first.
    pub fn take_expired(&mut self, now: u64) -> Vec<(String, T)> {
        let due: Vec<u64> = self
            .open
            .iter()
            .filter(|(_, p)| p.deadline.is_some_and(|d| d <= now))
            .map(|(n, _)| *n)
            .collect();
        due.into_iter()
            .filter_map(|n| self.open.remove(&n))
            .map(|p| (p.id, p.what))
            .collect()
    }

    /// The earliest deadline of an open request.
    pub fn next_deadline(&self) -> Option<u64> {
        self.open.values().filter_map(|p| p.deadline).min()
    }

    /// Keeps the open requests for which `keep` holds.
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        self.open.retain(|_, p| keep(&p.what));
    }

    pub fn len(&self) -> usize {
        self.open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_match_by_id_and_close_once() {
        let mut r = Requests::new(8);
        let bid = r.open("bid", "ada", Some(100));
        let kicker = r.open("kicker", "bo", None);
        assert_eq!((bid.as_str(), kicker.as_str()), ("bid-1", "kicker-2"));
        assert_eq!(r.get(&kicker), Some(&"bo"));
        assert_eq!(r.take(&bid), Some("ada"));
        assert_eq!(r.take(&bid), None, "answered already");
        // Another kind with the same number, or garbage, matches nothing.
        for wrong in ["bid-2", "kicker-", "kicker-x", "", "-2"] {
            assert_eq!(r.get(wrong), None, "{wrong}");
        }
    }

    #[test]
    fn deadlines_give_up_oldest_first_and_the_limit_forgets_the_oldest() {
        let mut r = Requests::new(2);
        r.open("a", 1, Some(50));
        r.open("a", 2, Some(30));
        assert_eq!(r.next_deadline(), Some(30));
        assert!(r.take_expired(29).is_empty());
        assert_eq!(
            r.take_expired(60),
            [("a-1".to_owned(), 1), ("a-2".to_owned(), 2)]
        );
        assert!(r.is_empty() && r.next_deadline().is_none());
        r.open("a", 3, None);
        r.open("a", 4, None);
        r.open("a", 5, None);
        assert_eq!((r.len(), r.get("a-3"), r.get("a-5")), (2, None, Some(&5)));
        r.retain(|what| *what != 5);
        assert_eq!(r.len(), 1);
    }

    proptest::proptest! {
        #[test]
        fn never_more_than_the_limit(limit in 1usize..20, opened in 0usize..100) {
            let mut r = Requests::new(limit);
            let ids: Vec<String> = (0..opened).map(|i| r.open("k", i, Some(i as u64))).collect();
            proptest::prop_assert!(r.len() <= limit);
            // The newest are the ones kept.
            for (i, id) in ids.iter().enumerate().rev().take(limit) {
                proptest::prop_assert_eq!(r.get(id), Some(&i));
            }
        }
    }
}

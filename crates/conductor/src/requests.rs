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

    /// The open request `id`, to change (a reply came from one of several asked).
    pub fn get_mut(&mut self, id: &str) -> Option<&mut T> {
        let n = self.key(id)?;
        self.open.get_mut(&n).map(|p| &mut p.what)
    }

    /// The open requests, oldest first.
    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.open.values().map(|p| &p.what)
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
        *r.get_mut(&kicker).unwrap() = "cy";
        assert_eq!(r.values().collect::<Vec<_>>(), [&"ada", &"cy"]);
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

/// One request asked of several at once (the roundtable's intent round): each responder
/// counts once, replies to another request are stale, and at the deadline the silent
/// ones are named once so the caller can answer for them.
#[derive(Debug, Clone)]
pub struct Round<R> {
    id: String,
    /// Everyone asked, in the order asked, and whether they are done.
    responders: Vec<(R, bool)>,
    deadline: u64,
}

/// What a reply to a [`Round`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoundReply {
    /// The responder's first reply to this round: it counts.
    Counted,
    /// A reply to another (older) request.
    Stale,
    /// Not asked, or already replied (or already answered for at the deadline).
    NotWaited,
}

impl<R: PartialEq + Clone> Round<R> {
    /// A round `id` asked of `responders`, given up at `deadline` (ms).
    pub fn new(
        id: impl Into<String>,
        responders: impl IntoIterator<Item = R>,
        deadline: u64,
    ) -> Self {
        Self {
            id: id.into(),
            responders: responders.into_iter().map(|r| (r, false)).collect(),
            deadline,
        }
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn deadline(&self) -> u64 {
        self.deadline
    }

    /// A reply from `who` to request `request_id`; counts it if it is the first.
    pub fn reply(&mut self, request_id: Option<&str>, who: &R) -> RoundReply {
        if request_id != Some(self.id.as_str()) {
            return RoundReply::Stale;
        }
        match self.responders.iter_mut().find(|(r, _)| r == who) {
            Some((_, done)) if !*done => {
                *done = true;
                RoundReply::Counted
            }
            _ => RoundReply::NotWaited,
        }
    }

    /// At or after the deadline: the responders still silent, in the order asked, once
    /// (they count as done afterwards). Before it: nobody.
    pub fn expired(&mut self, now: u64) -> Vec<R> {
        if now < self.deadline {
            return Vec::new();
        }
        self.responders
            .iter_mut()
            .filter(|(_, done)| !*done)
            .map(|(r, done)| {
                *done = true;
                r.clone()
            })
            .collect()
    }

    /// Everyone asked has replied or was answered for.
    pub fn is_complete(&self) -> bool {
        self.responders.iter().all(|(_, done)| *done)
    }
}

#[cfg(test)]
mod round_tests {
    use super::*;

    #[test]
    fn each_responder_counts_once_stale_ids_never_and_the_silent_are_named_once() {
        let mut round = Round::new("intent-7", ["ada", "bo", "cy"], 100);
        assert_eq!(round.id(), "intent-7");
        assert_eq!(round.reply(Some("intent-7"), &"bo"), RoundReply::Counted);
        assert_eq!(round.reply(Some("intent-7"), &"bo"), RoundReply::NotWaited);
        assert_eq!(round.reply(Some("intent-6"), &"ada"), RoundReply::Stale);
        assert_eq!(round.reply(None, &"ada"), RoundReply::Stale);
        assert_eq!(round.reply(Some("intent-7"), &"zed"), RoundReply::NotWaited);
        assert!(round.expired(99).is_empty(), "not yet");
        assert!(!round.is_complete());
        assert_eq!(round.expired(100), ["ada", "cy"]);
        assert!(round.expired(200).is_empty(), "named once");
        assert!(round.is_complete());
        assert_eq!(round.reply(Some("intent-7"), &"ada"), RoundReply::NotWaited);
        assert_eq!(round.deadline(), 100);
    }
}

//! Which cache sequence serves which participant.

/// The model's cache sequences ("seats") and whose each is. A participant keeps its seat;
/// a newcomer takes a free one, else the one unused longest that nobody waits for.
#[derive(Debug, Clone)]
pub struct Seats {
    owners: Vec<Option<String>>,
    last_used: Vec<u64>,
    clock: u64,
}

/// A seat given to a participant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seated {
    pub seat: usize,
    /// The participant the seat served before: its cache must be cleared first.
    pub previous: Option<String>,
}

impl Seats {
    pub fn new(count: usize) -> Self {
        Self {
            owners: vec![None; count],
            last_used: vec![0; count],
            clock: 0,
        }
    }

    /// A seat for `participant`: its own, else a free one, else the one unused longest
    /// among those `busy` says nobody uses or waits for. `None`: every seat is busy.
    pub fn claim(&mut self, participant: &str, busy: impl Fn(usize) -> bool) -> Option<Seated> {
        self.clock += 1;
        let (seat, previous) = match self.seat_of(participant) {
            Some(seat) => (seat, None),
            None => {
                let seat = (0..self.owners.len())
                    .filter(|&s| !busy(s))
                    .min_by_key(|&s| (self.owners[s].is_some(), self.last_used[s]))?;
                let previous = self.owners[seat].replace(participant.to_owned());
                (seat, previous)
            }
        };
        self.last_used[seat] = self.clock;
        Some(Seated { seat, previous })
    }

    /// `participant`'s seat, if it has one.
    pub fn seat_of(&self, participant: &str) -> Option<usize> {
        self.owners
            .iter()
            .position(|o| o.as_deref() == Some(participant))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_newcomer_takes_a_free_seat_then_the_one_unused_longest() {
        let mut seats = Seats::new(2);
        let free = |_| false;
        assert_eq!(
            seats.claim("tutor", free),
            Some(Seated {
                seat: 0,
                previous: None
            })
        );
        assert_eq!(
            seats.claim("ben", free),
            Some(Seated {
                seat: 1,
                previous: None
            })
        );
        assert_eq!(seats.claim("tutor", free).unwrap().seat, 0);
        // Ben's seat was used longest ago.
        let mia = seats.claim("mia", free).unwrap();
        assert_eq!(
            mia,
            Seated {
                seat: 1,
                previous: Some("ben".into())
            }
        );
        // Every seat busy: none for a newcomer, its own for a participant.
        assert_eq!(seats.claim("ann", |_| true), None);
        assert_eq!(seats.claim("mia", |_| true).unwrap().seat, 1);
    }
}

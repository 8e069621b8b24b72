//! How much of a sequence's cache a new prompt keeps, and how.
//!
//! A participant's prompt is the persona, then the conversation lines, then this turn's
//! direction. From one turn to the next it grows at its end; when the window of lines
//! moves, its oldest lines leave from the middle (after the persona). Both keep most of
//! the cache: the common beginning stays where it is, and the part after the lines that
//! left moves down to close the gap (a cache shift), so only what is new is read.

/// A run of the cache that moves down by `by` positions: `cached[from..from + len]`
/// becomes `cached[from - by..from - by + len]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shift {
    pub from: usize,
    pub len: usize,
    pub by: usize,
}

/// What a new prompt keeps of the cache: its first `keep` tokens where they are, then
/// the [`Shift`]ed run, if any; the prompt is read from `read_from` on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reuse {
    pub keep: usize,
    pub shift: Option<Shift>,
    pub read_from: usize,
}

impl Reuse {
    /// Tokens of the prompt the cache already holds.
    pub fn kept(&self) -> usize {
        self.read_from
    }
}

/// Plans how `prompt` reuses `cached` (the tokens the sequence's cache holds, in order).
/// A run that moves must be at least `min_shift` tokens long (a short one saves less than
/// the shift costs). The last prompt token is always read, since its logits start the
/// reply.
pub fn plan_reuse<T: PartialEq>(cached: &[T], prompt: &[T], min_shift: usize) -> Reuse {
    let limit = prompt.len().saturating_sub(1);
    let keep = common_prefix(cached, &prompt[..limit]);
    let mut best: Option<Shift> = None;
    if keep < limit {
        let wanted = &prompt[keep..limit];
        for from in keep + 1..cached.len() {
            if cached[from] != wanted[0] {
                continue;
            }
            let len = common_prefix(&cached[from..], wanted);
            if len >= min_shift.max(1) && best.is_none_or(|b| len > b.len) {
                best = Some(Shift {
                    from,
                    len,
                    by: from - keep,
                });
                if keep + len == limit {
                    break;
                }
            }
        }
    }
    let read_from = keep + best.map_or(0, |s| s.len);
    Reuse {
        keep,
        shift: best,
        read_from,
    }
}

/// The cache after `reuse` is carried out: what the prompt's first `read_from` tokens
/// are expected to be.
pub fn apply<T: Clone>(cached: &[T], reuse: &Reuse) -> Vec<T> {
    let mut out = cached[..reuse.keep.min(cached.len())].to_vec();
    if let Some(shift) = reuse.shift {
        out.extend_from_slice(&cached[shift.from..shift.from + shift.len]);
    }
    out
}

fn common_prefix<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// Whether a copy of the tokens `other` holds may replace those `own` holds without losing
/// any (`own_stale`: `own` belongs to someone else and counts for nothing): `other` holds
/// more, and `own` is its beginning. A side request's reading, done on a copy of the
/// participant's cache, then goes back to the participant instead of being thrown away.
pub fn extends<T: PartialEq>(own: &[T], own_stale: bool, other: &[T]) -> bool {
    own.len() < other.len() && (own_stale || other.starts_with(own))
}

/// Whether the tokens `own` holds are worth less than a copy of `other`'s to a prompt that
/// begins like `other`: it would keep only their common beginning, less than half of
/// `own`. So it is when `own` was read for a prompt that began otherwise: the persona
/// alone, before a conductor's context came with the first side request, or a context
/// that has changed since. A side request's reading, in the prompt's layout of now, then
/// goes back to the participant even though some of `own` is lost.
pub fn outdated<T: PartialEq>(own: &[T], other: &[T]) -> bool {
    let shared = common_prefix(own, other);
    shared * 2 < own.len() && other.len() > shared
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grown_prompt_keeps_all_but_its_new_end() {
        let cached = [1, 2, 3, 4, 9, 9];
        let prompt = [1, 2, 3, 4, 5, 6, 7];
        let reuse = plan_reuse(&cached, &prompt, 2);
        assert_eq!(
            reuse,
            Reuse {
                keep: 4,
                shift: None,
                read_from: 4
            }
        );
    }

    #[test]
    fn lines_that_left_the_window_are_shifted_out_not_read_again() {
        // persona 1 2, lines [10 11] [20 21] [30 31], direction 8 9.
        let cached = [1, 2, 10, 11, 20, 21, 30, 31, 8, 9];
        // The first line left; a new line [40 41] came; the direction again.
        let prompt = [1, 2, 20, 21, 30, 31, 40, 41, 8, 9];
        let reuse = plan_reuse(&cached, &prompt, 2);
        assert_eq!(reuse.keep, 2);
        assert_eq!(
            reuse.shift,
            Some(Shift {
                from: 4,
                len: 4,
                by: 2
            })
        );
        assert_eq!(reuse.read_from, 6);
        assert_eq!(apply(&cached, &reuse), prompt[..6]);
    }

    #[test]
    fn the_same_prompt_reads_its_last_token_again() {
        let prompt = [1, 2, 3];
        let reuse = plan_reuse(&prompt, &prompt, 1);
        assert_eq!(reuse.read_from, 2);
    }

    #[test]
    fn a_short_match_is_not_worth_a_shift() {
        let cached = [1, 2, 3, 4, 5, 6];
        let prompt = [1, 9, 5, 7, 7, 7, 7];
        let reuse = plan_reuse(&cached, &prompt, 4);
        assert_eq!(reuse.shift, None);
        assert_eq!(reuse.read_from, 1);
    }

    #[test]
    fn an_empty_cache_or_prompt_reads_everything() {
        assert_eq!(plan_reuse::<u8>(&[], &[1, 2], 1).read_from, 0);
        assert_eq!(plan_reuse::<u8>(&[1, 2], &[], 1).read_from, 0);
    }
}

#[cfg(test)]
mod extends_tests {
    use super::{common_prefix, extends, outdated};
    use proptest::prelude::*;

    #[test]
    fn a_copy_replaces_an_empty_stale_or_shorter_beginning_only() {
        assert!(extends::<u8>(&[], false, &[1, 2]));
        assert!(extends(&[1], false, &[1, 2]));
        assert!(!extends(&[1, 3], false, &[1, 2, 4]));
        assert!(extends(&[1, 3], true, &[1, 2, 4]));
        assert!(!extends(&[1, 2], false, &[1, 2]));
    }

    #[test]
    fn a_cache_read_for_another_beginning_is_outdated_by_a_reading_of_now() {
        // The persona alone (7 7 7) and a line, against the conductor's context (5 5 5 5)
        // with the same line and a request.
        assert!(outdated(&[1, 7, 7, 7, 10, 11], &[1, 5, 5, 5, 5, 10, 11, 8]));
        // The same beginning, the direction read ahead against a request: most is kept.
        assert!(!outdated(&[1, 5, 5, 10, 11, 9], &[1, 5, 5, 10, 11, 8, 8]));
        assert!(!outdated::<u8>(&[], &[1, 2]));
        assert!(!outdated(&[1, 2, 3], &[1]));
    }

    proptest! {
        /// An outdated cache shares less than half of itself with what replaces it, and
        /// the replacement holds more than they share.
        #[test]
        fn what_is_outdated_loses_less_than_half(
            own in prop::collection::vec(0u8..3, 0..8),
            other in prop::collection::vec(0u8..3, 0..10),
        ) {
            if outdated(&own, &other) {
                let shared = common_prefix(&own, &other);
                prop_assert!(shared * 2 < own.len());
                prop_assert!(other.len() > shared);
            }
        }

        /// A copy that extends never drops a token the sequence held (but a stale one's).
        #[test]
        fn what_extends_keeps_every_token(
            own in prop::collection::vec(0u8..3, 0..8),
            other in prop::collection::vec(0u8..3, 0..10),
        ) {
            if extends(&own, false, &other) {
                prop_assert_eq!(&other[..own.len()], &own[..]);
            }
        }
    }
}

//! Offline simulation of a policy, as `policy-sim` prints it.

use crate::engine::{HUMAN, PolicyEngine};

/// Words the simulated human says each time it speaks.
pub const HUMAN_WORDS: u64 = 8;

/// The default utterance length of turn `turn` (from 1): a deterministic sequence in
/// 5..=40, `5 + (turn × 2654435761 + 12345) mod 36`.
pub fn default_words(turn: u64) -> u64 {
    5 + turn.wrapping_mul(2_654_435_761).wrapping_add(12_345) % 36
}

/// One simulated turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SimTurn {
    pub turn: u64,
    pub speaker: usize,
    pub words: u64,
}

/// Why a simulation stopped before `turns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimEnd {
    Completed,
    /// Nobody but a human could continue after this many turns.
    FloorOpen {
        after_turn: u64,
    },
}

/// How a simulation ended, and the newest question id a controller would have handed
/// out by then (one per human utterance and one per turn).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Simulated {
    pub end: SimEnd,
    pub question_id: u64,
}

/// Runs `turns` decisions; `words` fixes every utterance's length (else
/// [`default_words`]); the human speaks just before each turn listed in `human_at`.
/// Calls `on_turn` for every turn, so a caller can stream a million turns without
/// keeping them.
pub fn simulate(
    engine: &mut PolicyEngine,
    turns: u64,
    words: Option<u64>,
    human_at: &[u64],
    mut on_turn: impl FnMut(SimTurn),
) -> Simulated {
    let mut question_id = 0;
    let mut human_at: Vec<u64> = human_at.to_vec();
    human_at.sort_unstable();
    let mut next_human = human_at.into_iter().peekable();
    for turn in 1..=turns {
        while next_human.next_if(|t| *t <= turn).is_some() {
            engine.human_spoke(HUMAN, HUMAN_WORDS);
            question_id += 1;
        }
        let Some(speaker) = engine.next_turn() else {
            return Simulated {
                end: SimEnd::FloorOpen {
                    after_turn: turn - 1,
                },
                question_id,
            };
        };
        question_id += 1;
        let w = words.unwrap_or_else(|| default_words(turn));
        engine.record_words(speaker, w);
        engine.finish_turn();
        on_turn(SimTurn {
            turn,
            speaker,
            words: w,
        });
    }
    Simulated {
        end: SimEnd::Completed,
        question_id,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grammar::Policy;

    #[test]
    fn default_words_stay_in_range() {
        assert!(
            (1..10_000)
                .map(default_words)
                .all(|w| (5..=40).contains(&w))
        );
    }

    #[test]
    fn human_interjections_restart_with_the_tutor() {
        let policy = Policy::parse("[(human, 0.001), (tutor, *), (s1, 1), (s2, 1)]").unwrap();
        let mut engine = PolicyEngine::new(policy, &[] as &[&str]);
        let mut speakers = vec![];
        let end = simulate(&mut engine, 12, Some(10), &[10], |t| {
            speakers.push(engine_name(t.speaker))
        });
        assert_eq!(end.end, SimEnd::Completed);
        // Turn 10 follows the human: the tutor answers.
        assert_eq!(speakers[9], "tutor");
    }

    fn engine_name(i: usize) -> &'static str {
        ["human", "tutor", "s1", "s2"][i]
    }

    #[test]
    fn floor_open_stops_early() {
        let policy = Policy::parse("[(human, 1), (assistant, *)]").unwrap();
        let mut engine = PolicyEngine::new(policy, &[] as &[&str]);
        let end = simulate(&mut engine, 5, None, &[], |_| {});
        assert_eq!(end.end, SimEnd::FloorOpen { after_turn: 1 });
    }
}

//! What a barge-in storm must leave behind in a session folder: no voice sounding after
//! an interrupt that made it stale, never two voices at once, no turn handed out twice,
//! and a conversation that goes on after the last interrupt.
//!
//! Times: `timeline.jsonl` and `interrupts.jsonl` (the player's) are positions in
//! `conversation.wav`; `events.jsonl` (the recorder's) is session time. Each check
//! compares times of one clock only.

use std::collections::BTreeMap;

use serde_json::Value;

/// The fade a cut-off voice gets (3 ms) plus a millisecond of rounding.
pub const CUT_TOLERANCE_MS: u64 = 4;

/// One utterance as the player played it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    pub question_id: u64,
    pub start_ms: u64,
    pub end_ms: u64,
}

/// An interrupt as the player received it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cut {
    pub question_id: u64,
    pub at_ms: u64,
}

/// A recorder event (`turn`, `interrupt`, `played`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    pub t_ms: u64,
    pub event: String,
    pub question_id: Option<u64>,
}

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Report {
    pub utterances: usize,
    pub interrupts: usize,
    pub turns: usize,
    /// A voice older than an interrupt still sounding after it: (utterance, interrupt).
    pub late_voices: Vec<(Played, Cut)>,
    /// Two utterances sounding at once.
    pub overlaps: Vec<(Played, Played)>,
    /// Question ids handed out in more than one turn.
    pub repeated_turns: Vec<u64>,
    /// After the last interrupt, a turn was handed out and something was heard.
    pub went_on: bool,
}

impl Report {
    pub fn is_clean(&self) -> bool {
        self.late_voices.is_empty()
            && self.overlaps.is_empty()
            && self.repeated_turns.is_empty()
            && self.went_on
    }
}

pub fn check(played: &[Played], cuts: &[Cut], recorded: &[Recorded]) -> Report {
    let mut report = Report {
        utterances: played.len(),
        interrupts: cuts.len(),
        ..Report::default()
    };
    for cut in cuts {
        for p in played {
            if p.question_id < cut.question_id && p.end_ms > cut.at_ms + CUT_TOLERANCE_MS {
                report.late_voices.push((p.clone(), *cut));
            }
        }
    }
    let mut by_start: Vec<&Played> = played.iter().collect();
    by_start.sort_by_key(|p| (p.start_ms, p.end_ms));
    for pair in by_start.windows(2) {
        if pair[1].start_ms < pair[0].end_ms {
            report.overlaps.push((pair[0].clone(), pair[1].clone()));
        }
    }
    let mut turns: BTreeMap<u64, usize> = BTreeMap::new();
    for r in recorded.iter().filter(|r| r.event == "turn") {
        if let Some(q) = r.question_id {
            *turns.entry(q).or_default() += 1;
        }
    }
    report.turns = turns.values().sum();
    report.repeated_turns = turns
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(q, _)| q)
        .collect();
    let last_interrupt = recorded
        .iter()
        .filter(|r| r.event == "interrupt")
        .map(|r| r.t_ms)
        .max();
    report.went_on = match last_interrupt {
        None => recorded.iter().any(|r| r.event == "played"),
        Some(t) => {
            recorded.iter().any(|r| r.event == "turn" && r.t_ms > t)
                && recorded.iter().any(|r| r.event == "played" && r.t_ms > t)
        }
    };
    report
}

fn u64_of(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(Value::as_u64)
}

/// Reads a session folder's files (missing ones count as empty; unreadable lines are
/// skipped and counted).
pub fn read_session(dir: &std::path::Path) -> (Vec<Played>, Vec<Cut>, Vec<Recorded>, usize) {
    let mut bad = 0;
    let mut lines = |name: &str| -> Vec<Value> {
        let text = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .filter_map(|l| match serde_json::from_str(l) {
                Ok(v) => Some(v),
                Err(_) => {
                    bad += 1;
                    None
                }
            })
            .collect()
    };
    let played = lines("timeline.jsonl")
        .iter()
        .filter_map(|v| {
            Some(Played {
                question_id: u64_of(v, "question_id")?,
                start_ms: u64_of(v, "start_ms")?,
                end_ms: u64_of(v, "end_ms")?,
            })
        })
        .collect();
    let cuts = lines("interrupts.jsonl")
        .iter()
        .filter_map(|v| {
            Some(Cut {
                question_id: u64_of(v, "question_id")?,
                at_ms: u64_of(v, "at_ms")?,
            })
        })
        .collect();
    let recorded = lines("events.jsonl")
        .iter()
        .filter_map(|v| {
            Some(Recorded {
                t_ms: u64_of(v, "t_ms")?,
                event: v.get("event")?.as_str()?.to_owned(),
                question_id: u64_of(v, "question_id"),
            })
        })
        .collect();
    (played, cuts, recorded, bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(question_id: u64, start_ms: u64, end_ms: u64) -> Played {
        Played {
            question_id,
            start_ms,
            end_ms,
        }
    }

    fn r(t_ms: u64, event: &str, question_id: Option<u64>) -> Recorded {
        Recorded {
            t_ms,
            event: event.into(),
            question_id,
        }
    }

    #[test]
    fn a_clean_storm_passes() {
        let played = [p(1, 0, 500), p(3, 500, 900), p(5, 900, 1500)];
        let cuts = [Cut {
            question_id: 3,
            at_ms: 500,
        }];
        let recorded = [
            r(0, "turn", Some(1)),
            r(10, "interrupt", Some(3)),
            r(20, "turn", Some(3)),
            r(30, "played", Some(3)),
        ];
        let report = check(&played, &cuts, &recorded);
        assert!(report.is_clean(), "{report:?}");
    }

    #[test]
    fn a_voice_sounding_past_its_interrupt_is_caught_within_the_fade_it_is_not() {
        let cuts = [Cut {
            question_id: 4,
            at_ms: 1000,
        }];
        let fade_only = check(&[p(2, 0, 1000 + CUT_TOLERANCE_MS)], &cuts, &[]);
        assert!(fade_only.late_voices.is_empty());
        let late = check(&[p(2, 0, 1100)], &cuts, &[]);
        assert_eq!(late.late_voices.len(), 1);
        // A stale utterance starting after the interrupt is late too.
        let started_after = check(&[p(3, 1200, 1300)], &cuts, &[]);
        assert_eq!(started_after.late_voices.len(), 1);
        // Newer ones may sound.
        assert!(
            check(&[p(4, 1200, 1300)], &cuts, &[])
                .late_voices
                .is_empty()
        );
    }

    #[test]
    fn overlaps_repeats_and_a_stuck_end_are_caught() {
        let report = check(
            &[p(1, 0, 600), p(2, 500, 900)],
            &[],
            &[
                r(0, "turn", Some(1)),
                r(5, "turn", Some(1)),
                r(10, "interrupt", Some(2)),
                r(5, "played", Some(1)),
            ],
        );
        assert_eq!(report.overlaps.len(), 1);
        assert_eq!(report.repeated_turns, [1]);
        assert!(!report.went_on);
        assert!(!report.is_clean());
    }

    proptest::proptest! {
        #[test]
        fn back_to_back_utterances_never_overlap(lengths in proptest::collection::vec(1u64..5000, 1..50)) {
            let mut at = 0;
            let played: Vec<Played> = lengths.iter().enumerate().map(|(i, len)| {
                let one = p(i as u64 + 1, at, at + len);
                at += len;
                one
            }).collect();
            proptest::prop_assert!(check(&played, &[], &[]).overlaps.is_empty());
        }
    }
}

//! Each interrupt seen from afterwards: the stretch that must stay silent, the moment it
//! hit, what followed it.

use std::collections::BTreeSet;

use crate::{
    Aftermath, Audio, CUT_TOLERANCE_MS, Cut, LEVEL_WINDOW_MS, Moment, Played, Recorded, STUCK_MS,
};

/// The stretch after an interrupt in which nothing may sound: from the interrupt plus
/// the fade to the start of the first utterance the interrupt did not make stale (a
/// stale one starting there is exactly what must not be heard), or the end.
pub fn after_cut(cut: &Cut, played: &[Played], end_ms: u64) -> (u64, u64) {
    let next = played
        .iter()
        .filter(|p| p.question_id >= cut.question_id && p.end_ms > cut.at_ms)
        .map(|p| p.start_ms)
        .min()
        .unwrap_or(end_ms);
    (cut.at_ms + CUT_TOLERANCE_MS, next.min(end_ms))
}

/// For each interrupt in the recorder's file (by question id): whether a turn handed out
/// since the previous interrupt was still waiting to be played.
pub fn outstanding_turns(recorded: &[Recorded]) -> BTreeSet<u64> {
    let mut open: BTreeSet<u64> = BTreeSet::new();
    let mut outstanding = BTreeSet::new();
    for r in recorded {
        match (r.event.as_str(), r.question_id) {
            ("turn", Some(q)) => {
                open.insert(q);
            }
            ("played", Some(q)) => {
                open.remove(&q);
            }
            ("interrupt", Some(q)) => {
                if !open.is_empty() {
                    outstanding.insert(q);
                }
                open.clear();
            }
            _ => {}
        }
    }
    outstanding
}

/// The moment `cut` hit: inside an utterance's span (audible or not, in the recording
/// just before it), else by what the player held and whether a turn was outstanding.
pub fn moment_of(
    cut: &Cut,
    played: &[Played],
    audio: Option<&Audio>,
    turn_outstanding: bool,
) -> Moment {
    let at = cut.at_ms;
    let in_span = played.iter().any(|p| {
        p.question_id < cut.question_id
            && p.start_ms <= at
            && at <= p.end_ms
            && (at < p.end_ms || p.interrupted)
    });
    if in_span {
        let audible = audio.is_some_and(|a| a.audible(at.saturating_sub(LEVEL_WINDOW_MS), at));
        return if audible {
            Moment::MidWord
        } else {
            Moment::BetweenWords
        };
    }
    match (cut.busy, turn_outstanding) {
        (Some(true), _) => Moment::Synthesis,
        (_, true) => Moment::Generation,
        _ => Moment::Idle,
    }
}

/// What followed `cut`: a newer voice before `next_cut` (or the end), or not.
pub fn aftermath(
    cut: &Cut,
    next_cut: Option<u64>,
    end_ms: u64,
    played: &[Played],
    audio: Option<&Audio>,
) -> Aftermath {
    let sounded = |p: &Played| match audio {
        Some(a) => a.audible(p.start_ms, p.end_ms + CUT_TOLERANCE_MS),
        None => p.heard,
    };
    let voice = played
        .iter()
        .filter(|p| p.question_id > cut.question_id && p.start_ms >= cut.at_ms && sounded(p))
        .map(|p| p.start_ms)
        .min();
    let window_end = next_cut.unwrap_or(end_ms).max(cut.at_ms);
    match voice {
        Some(start) if start < window_end && start - cut.at_ms < STUCK_MS => Aftermath::Answered {
            wait_ms: start - cut.at_ms,
        },
        _ if window_end - cut.at_ms >= STUCK_MS => Aftermath::Stuck,
        _ if next_cut.is_some() => Aftermath::PreEmpted {
            window_ms: window_end - cut.at_ms,
        },
        _ => Aftermath::EndedFirst,
    }
}

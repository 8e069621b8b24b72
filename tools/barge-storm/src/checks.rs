//! The checks of a session folder, one concern each: the timeline, the turns, the two
//! records of one session against each other, the recording.

use std::collections::{BTreeMap, BTreeSet};

use crate::moments::after_cut;
use crate::{
    Audio, AudioReport, CUT_TOLERANCE_MS, Cut, Played, Recorded, Report, STUCK_MS, Session,
};

/// Late voices and overlaps, from the timeline alone.
pub(crate) fn timeline_checks(played: &[Played], cuts: &[Cut], report: &mut Report) {
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
}

/// Turns handed out twice, interrupts not followed by a turn, turns lost.
pub(crate) fn turn_counts(recorded: &[Recorded]) -> BTreeMap<u64, usize> {
    let mut turns: BTreeMap<u64, usize> = BTreeMap::new();
    for r in recorded.iter().filter(|r| r.event == "turn") {
        if let Some(q) = r.question_id {
            *turns.entry(q).or_default() += 1;
        }
    }
    turns
}

pub(crate) fn turn_checks(recorded: &[Recorded], report: &mut Report) {
    let turns = turn_counts(recorded);
    report.turns = turns.values().sum();
    report.repeated_turns = turns
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(q, _)| q)
        .collect();
    // After every interrupt, a turn before the next one (the controller hands it out
    // with the interrupt, for the words that caused it).
    let interrupts: Vec<usize> = (0..recorded.len())
        .filter(|&i| recorded[i].event == "interrupt")
        .collect();
    for (n, &i) in interrupts.iter().enumerate() {
        let until = interrupts.get(n + 1).copied().unwrap_or(recorded.len());
        if !recorded[i + 1..until].iter().any(|r| r.event == "turn") {
            report
                .no_turn_after
                .push(recorded[i].question_id.unwrap_or_default());
        }
    }
    // Every turn ends: played (heard, or reported as having nothing to play), or cut by
    // a later interrupt; only the last moments of the run may leave one open.
    let last_t = recorded.iter().map(|r| r.t_ms).max().unwrap_or(0);
    for (i, r) in recorded.iter().enumerate() {
        if r.event != "turn" || r.t_ms + STUCK_MS > last_t {
            continue;
        }
        let q = r.question_id;
        let ended = recorded[i + 1..].iter().any(|later| {
            later.event == "interrupt" || (later.event == "played" && later.question_id == q)
        }) || recorded[..i]
            .iter()
            .any(|earlier| earlier.event == "played" && earlier.question_id == q);
        if !ended {
            report.lost_turns.push(q.unwrap_or_default());
        }
    }
}

/// The timeline and the recorder's `played` events tell of the same utterances; the
/// player's and the recorder's interrupts are the same.
pub(crate) fn pairing_checks(session: &Session, report: &mut Report) {
    let mut from_timeline: BTreeMap<(u64, bool), isize> = BTreeMap::new();
    for p in &session.played {
        *from_timeline
            .entry((p.question_id, p.interrupted))
            .or_default() += 1;
    }
    for r in session.recorded.iter().filter(|r| r.event == "played") {
        let key = (
            r.question_id.unwrap_or_default(),
            r.detail.as_deref() == Some("interrupted"),
        );
        *from_timeline.entry(key).or_default() -= 1;
    }
    for ((q, interrupted), n) in from_timeline {
        let (which, count) = match n {
            0 => continue,
            n if n > 0 => ("timeline.jsonl", n),
            n => ("events.jsonl", -n),
        };
        for _ in 0..count {
            report.unpaired_played.push((q, interrupted, which));
        }
    }
    let at_player: BTreeSet<u64> = session.cuts.iter().map(|c| c.question_id).collect();
    let at_recorder: BTreeSet<u64> = session
        .recorded
        .iter()
        .filter(|r| r.event == "interrupt")
        .filter_map(|r| r.question_id)
        .collect();
    report.unpaired_interrupts = at_player
        .symmetric_difference(&at_recorder)
        .copied()
        .collect();
}

/// The recording against the interrupts and the timeline.
pub(crate) fn audio_checks(audio: &Audio, played: &[Played], cuts: &[Cut]) -> AudioReport {
    let end = audio.duration_ms();
    let mut report = AudioReport {
        present: true,
        duration_ms: end,
        ..AudioReport::default()
    };
    for cut in cuts {
        let (from, to) = after_cut(cut, played, end);
        if from >= to {
            continue;
        }
        report.cuts_checked += 1;
        report.loudest_after_cut = report.loudest_after_cut.max(audio.peak(from, to));
        if let Some((at, peak)) = audio.first_sound(from, to) {
            report.sound_after_cut.push((*cut, at, peak));
        }
    }
    // Every sound lies in an utterance's span (plus the fade of a cut).
    let mut spans: Vec<(u64, u64)> = played
        .iter()
        .map(|p| (p.start_ms, p.end_ms + CUT_TOLERANCE_MS))
        .collect();
    spans.sort_unstable();
    let mut covered_to = 0;
    for (start, stop) in spans {
        if start > covered_to
            && let Some(sound) = audio.first_sound(covered_to, start)
        {
            report.sound_outside_spans.push(sound);
        }
        covered_to = covered_to.max(stop);
    }
    if let Some(sound) = audio.first_sound(covered_to, end) {
        report.sound_outside_spans.push(sound);
    }
    report.silent_heard_spans = played
        .iter()
        .filter(|p| p.heard && !audio.audible(p.start_ms, p.end_ms + CUT_TOLERANCE_MS))
        .cloned()
        .collect();
    report
}

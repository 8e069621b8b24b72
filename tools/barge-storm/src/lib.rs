//! What a barge-in storm must leave behind in a session folder: no voice sounding after
//! an interrupt that made it stale (in the timeline and in the recording itself), never
//! two voices at once, no turn handed out twice, and after every interrupt a next turn
//! and, unless another interrupt or the end came first, its voice. The check also tells
//! at what moment each interrupt hit ([`Moment`]).
//!
//! Times: `timeline.jsonl`, `interrupts.jsonl` (the player's) and `conversation.wav` are
//! in the recording's time; `events.jsonl` (the recorder's) is session time. Each check
//! compares times of one clock only; the two are joined by question id (an interrupt's
//! id is in both the player's and the recorder's file) and the recorder's file is read
//! in its order.

mod audio;
mod checks;
mod moments;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use serde_json::Value;

pub use audio::{Audio, SILENCE_LEVEL};
use checks::{audio_checks, pairing_checks, timeline_checks, turn_checks, turn_counts};
pub use moments::{after_cut, aftermath, moment_of, outstanding_turns};

/// The fade a cut-off voice gets (3 ms) plus a millisecond of rounding (the player's
/// milliseconds are rounded down).
pub const CUT_TOLERANCE_MS: u64 = 4;

/// How much of the recording just before an interrupt tells whether a voice was audible
/// at that instant (a mid-word cut) or quiet (between words or sentences).
pub const LEVEL_WINDOW_MS: u64 = 10;

/// Two interrupts this close (at the player) are "two in a row".
pub const CLOSE_MS: u64 = 50;

/// How long after an interrupt the next voice may take before the conversation counts as
/// stuck: an interrupt with no new voice for this long, while neither another interrupt
/// nor the end of the run came, is a stuck state. The scripted participants answer
/// within a second and the embedded model within a few.
pub const STUCK_MS: u64 = 10_000;

/// One utterance as the player played it (a line of `timeline.jsonl`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    pub question_id: u64,
    pub start_ms: u64,
    pub end_ms: u64,
    pub interrupted: bool,
    /// Some of its words were heard (`text_played` holds a letter or digit: a voice
    /// speaks nothing for punctuation alone).
    pub heard: bool,
}

/// An interrupt as the player received it (a line of `interrupts.jsonl`).
pub use player_core::records::InterruptRecord as Cut;

/// A recorder event (`turn`, `interrupt`, `played`, ...), a line of `events.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    pub t_ms: u64,
    pub event: String,
    pub question_id: Option<u64>,
    pub detail: Option<String>,
}

/// A session folder as the check reads it.
#[derive(Debug, Clone, Default)]
pub struct Session {
    pub played: Vec<Played>,
    pub cuts: Vec<Cut>,
    /// In the recorder's order.
    pub recorded: Vec<Recorded>,
    /// The controller's own account (`decisions/conference-controller.jsonl`), in its
    /// order: the turns and interrupts it decided and the `played` reports it got; empty
    /// when the file is absent.
    pub decided: Vec<Recorded>,
    /// `conversation.wav`, or why it could not be read.
    pub audio: Option<Audio>,
    pub audio_error: Option<String>,
    /// Lines of the JSONL files that did not parse.
    pub unreadable: usize,
}

/// The moment an interrupt hit, seen from the session afterwards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Moment {
    /// A turn was handed out and not yet played, and the player held nothing of it yet:
    /// its words were being generated.
    Generation,
    /// The player held a segment but nothing sounded: it waited for its voice.
    Synthesis,
    /// Inside an utterance's span in the timeline, with its voice audible in the
    /// recording just before the interrupt.
    MidWord,
    /// Inside an utterance's span, quiet just before the interrupt: a pause between
    /// words or sentences (or a sentence still being synthesized).
    BetweenWords,
    /// Nobody was speaking or about to.
    Idle,
}

impl Moment {
    pub const ALL: [Moment; 5] = [
        Moment::Generation,
        Moment::Synthesis,
        Moment::MidWord,
        Moment::BetweenWords,
        Moment::Idle,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Moment::Generation => "during generation",
            Moment::Synthesis => "during synthesis",
            Moment::MidWord => "mid-word",
            Moment::BetweenWords => "between words or sentences",
            Moment::Idle => "idle",
        }
    }
}

/// What followed an interrupt in the recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aftermath {
    /// A newer voice was heard before the next interrupt, `wait_ms` after this one.
    Answered { wait_ms: u64 },
    /// The next interrupt came first, `window_ms` later (less than [`STUCK_MS`]).
    PreEmpted { window_ms: u64 },
    /// The recording ended first, less than [`STUCK_MS`] later.
    EndedFirst,
    /// No newer voice for [`STUCK_MS`] or more.
    Stuck,
}

/// What `conversation.wav` says.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct AudioReport {
    pub present: bool,
    pub duration_ms: u64,
    /// Interrupts whose aftermath was looked at: from the interrupt plus the fade to the
    /// next newer utterance (or the end), the recording must be silent.
    pub cuts_checked: usize,
    /// A sound in that stretch: (interrupt, where, loudest sample from there).
    pub sound_after_cut: Vec<(Cut, u64, u16)>,
    /// The loudest sample in any of those stretches (0: digital silence).
    pub loudest_after_cut: u16,
    /// Sound where the timeline has no utterance (plus fade): (where, loudest sample).
    pub sound_outside_spans: Vec<(u64, u16)>,
    /// Utterances the timeline says were heard (`text_played`) but nothing sounds in.
    pub silent_heard_spans: Vec<Played>,
    /// Where the utterance the stop cut began ([`sounding_at_end`]), if one did.
    pub sounding_at_end: Option<u64>,
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
    pub audio: AudioReport,
    /// Timeline lines and the recorder's `played` events that do not pair up (question
    /// id and whether it was interrupted): (question id, interrupted, which file has it).
    pub unpaired_played: Vec<(u64, bool, &'static str)>,
    /// Interrupts in one of the player's and the recorder's files but not the other.
    pub unpaired_interrupts: Vec<u64>,
    /// How many interrupts hit at each moment.
    pub moments: BTreeMap<Moment, usize>,
    /// Interrupts within [`CLOSE_MS`] of the previous one (at the player), and when.
    pub close: BTreeMap<Moment, usize>,
    /// Interrupts after which no turn was handed out before the next.
    pub no_turn_after: Vec<u64>,
    /// Turns in the controller's account that `events.jsonl` lacks (not counted against
    /// the storm: the recorder's record is incomplete).
    pub turns_missing_from_events: Vec<u64>,
    /// What followed each interrupt at the player.
    pub after: Aftermaths,
    /// Turns handed out that were never played nor cut by an interrupt, and not just
    /// before the end.
    pub lost_turns: Vec<u64>,
}

/// What followed the interrupts at the player, counted by kind.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Aftermaths {
    pub answered: usize,
    pub pre_empted: usize,
    pub ended_first: usize,
    pub stuck: Vec<Cut>,
    /// The longest wait from an interrupt to the next voice.
    pub longest_wait_ms: u64,
    /// The longest a turn went without a voice before an interrupt cut it.
    pub longest_pre_empted_ms: u64,
}

impl Aftermaths {
    fn count(&mut self, aftermath: Aftermath, cut: &Cut) {
        match aftermath {
            Aftermath::Answered { wait_ms } => {
                self.answered += 1;
                self.longest_wait_ms = self.longest_wait_ms.max(wait_ms);
            }
            Aftermath::PreEmpted { window_ms } => {
                self.pre_empted += 1;
                self.longest_pre_empted_ms = self.longest_pre_empted_ms.max(window_ms);
            }
            Aftermath::EndedFirst => self.ended_first += 1,
            Aftermath::Stuck => self.stuck.push(*cut),
        }
    }
}

impl Report {
    pub fn is_clean(&self) -> bool {
        self.late_voices.is_empty()
            && self.overlaps.is_empty()
            && self.repeated_turns.is_empty()
            && self.audio.present
            && self.audio.sound_after_cut.is_empty()
            && self.audio.sound_outside_spans.is_empty()
            && self.audio.silent_heard_spans.is_empty()
            && self.unpaired_played.is_empty()
            && self.unpaired_interrupts.is_empty()
            && self.no_turn_after.is_empty()
            && self.after.stuck.is_empty()
            && self.lost_turns.is_empty()
    }

    /// The conversation went on after the last interrupt (a newer voice was heard).
    pub fn went_on(&self) -> bool {
        self.after.stuck.is_empty() && (self.interrupts == 0 || self.after.answered > 0)
    }
}

pub fn check(session: &Session) -> Report {
    let played = &session.played;
    let mut cuts = session.cuts.clone();
    cuts.sort_by_key(|c| (c.at_ms, c.question_id));
    let mut report = Report {
        utterances: played.len(),
        interrupts: cuts.len(),
        ..Report::default()
    };
    timeline_checks(played, &cuts, &mut report);
    // Who was handed which turn and when each ended: the controller's account when
    // there is one (the recorder's may miss a message), else the recorder's.
    let controller = if session.decided.is_empty() {
        &session.recorded
    } else {
        &session.decided
    };
    turn_checks(controller, &mut report);
    let in_events = turn_counts(&session.recorded);
    for (q, n) in &in_events {
        if *n > 1 && !report.repeated_turns.contains(q) {
            report.repeated_turns.push(*q);
        }
    }
    report.turns_missing_from_events = turn_counts(&session.decided)
        .into_keys()
        .filter(|q| !in_events.contains_key(q))
        .collect();
    pairing_checks(session, &mut report);
    // What was heard: the timeline, and the utterance the stop cut, if any.
    let mut heard = played.clone();
    if let Some(audio) = &session.audio {
        let tail = sounding_at_end(audio, played, &cuts, &session.recorded);
        heard.extend(tail.clone());
        report.audio = audio_checks(audio, &heard, &cuts);
        report.audio.sounding_at_end = tail.map(|p| p.start_ms);
    }
    let outstanding = outstanding_turns(controller);
    let mut previous: Option<u64> = None;
    for cut in &cuts {
        let moment = moment_of(
            cut,
            played,
            session.audio.as_ref(),
            outstanding.contains(&cut.question_id),
        );
        *report.moments.entry(moment).or_default() += 1;
        if previous.is_some_and(|at| cut.at_ms - at < CLOSE_MS) {
            *report.close.entry(moment).or_default() += 1;
        }
        previous = Some(cut.at_ms);
    }
    let end_ms = session
        .audio
        .as_ref()
        .map(Audio::duration_ms)
        .unwrap_or_else(|| played.iter().map(|p| p.end_ms).max().unwrap_or(0));
    for (i, cut) in cuts.iter().enumerate() {
        let next = cuts.get(i + 1).map(|c| c.at_ms);
        let aftermath = aftermath(cut, next, end_ms, &heard, session.audio.as_ref());
        report.after.count(aftermath, cut);
    }
    report
}

/// The utterance still sounding when the recording stopped, which has no timeline line
/// (the player writes one when an utterance ends or is cut, and the stop does neither):
/// the first sound after the last utterance of the timeline and after the last interrupt
/// (plus fade), provided a turn handed out after that interrupt was never played. It is
/// newer than every interrupt and runs to the end.
pub fn sounding_at_end(
    audio: &Audio,
    played: &[Played],
    cuts: &[Cut],
    recorded: &[Recorded],
) -> Option<Played> {
    let after_timeline = played.iter().map(|p| p.end_ms + CUT_TOLERANCE_MS).max();
    let after_cut = cuts.iter().map(|c| c.at_ms + CUT_TOLERANCE_MS).max();
    let from = after_timeline.max(after_cut).unwrap_or(0);
    let end = audio.duration_ms();
    let (start_ms, _) = audio.first_sound(from, end)?;
    let since = recorded
        .iter()
        .rposition(|r| r.event == "interrupt")
        .map_or(0, |i| i + 1);
    let open_turn = recorded[since..].iter().enumerate().any(|(i, r)| {
        r.event == "turn"
            && !recorded[since + i + 1..]
                .iter()
                .any(|later| later.event == "played" && later.question_id == r.question_id)
    });
    open_turn.then_some(Played {
        question_id: u64::MAX,
        start_ms,
        end_ms: end,
        interrupted: false,
        heard: true,
    })
}

/// One step of the controller's decision log: the `played` report it got, if that was
/// the input, then the interrupts and turns it decided, in order (the decisions are
/// written as `Turn { speaker: "tutor", question_id: 7 }`, `Interrupt { kind: Reset,
/// question_id: 6 }`, ...).
pub fn controller_steps(step: &Value, out: &mut Vec<Recorded>) {
    let t_ms = u64_of(step, "at_ns").unwrap_or(0) / 1_000_000;
    let entry = |event: &str, question_id| Recorded {
        t_ms,
        event: event.to_owned(),
        question_id,
        detail: None,
    };
    if let Some(q) = step
        .pointer("/input/playback_done/question_id")
        .and_then(Value::as_u64)
    {
        out.push(entry("played", Some(q)));
    }
    let decisions = step.get("decisions").and_then(Value::as_array);
    for decision in decisions.into_iter().flatten().filter_map(Value::as_str) {
        let event = if decision.starts_with("Turn {") {
            "turn"
        } else if decision.starts_with("Interrupt {") {
            "interrupt"
        } else {
            continue;
        };
        let question_id = decision
            .split("question_id: ")
            .nth(1)
            .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok());
        out.push(entry(event, question_id));
    }
}

fn u64_of(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(Value::as_u64)
}

/// Reads a session folder's files (missing ones count as empty; unreadable lines are
/// skipped and counted; a recording that cannot be read is said why).
pub fn read_session(dir: &std::path::Path) -> Session {
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
                interrupted: v
                    .get("interrupted")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                heard: v
                    .get("text_played")
                    .and_then(Value::as_str)
                    .is_some_and(|t| t.chars().any(char::is_alphanumeric)),
            })
        })
        .collect();
    let cuts = lines(player_core::records::INTERRUPTS_FILE)
        .into_iter()
        .filter_map(|v| serde_json::from_value::<Cut>(v).ok())
        .collect();
    let recorded = lines("events.jsonl")
        .iter()
        .filter_map(|v| {
            Some(Recorded {
                t_ms: u64_of(v, "t_ms")?,
                event: v.get("event")?.as_str()?.to_owned(),
                question_id: u64_of(v, "question_id"),
                detail: v.get("detail").and_then(Value::as_str).map(str::to_owned),
            })
        })
        .collect();
    let mut decided = Vec::new();
    for v in lines("decisions/conference-controller.jsonl") {
        controller_steps(&v, &mut decided);
    }
    let (audio, audio_error) = match Audio::read(&dir.join("conversation.wav")) {
        Ok(audio) => (Some(audio), None),
        Err(e) => (None, Some(format!("{e:#}"))),
    };
    Session {
        played,
        cuts,
        recorded,
        decided,
        audio,
        audio_error,
        unreadable: bad,
    }
}

//! How a presenter spoke, measured from what was heard: the pace (words a minute) over
//! the whole talk, per slide and per answer; the pauses of two seconds or more while
//! presenting; filler words and hedges per minute of speech; the time each slide was
//! shown against the time planned for it; each answer's length and whether it took up
//! the question's words.
//!
//! Sans-IO: the rehearsal feeds what it hears, with the time; nothing here reads a clock.
//! A line's speech runs from the voice's onset ([`Delivery::speech_started`]) to its
//! transcript ([`Delivery::heard`]), so both carry the recognizer's delay. A line whose
//! words are voiced by the player (a scripted presenter's) runs from its first sound to
//! its last ([`Delivery::voice_started`], [`Delivery::voice_ended`]). A line with neither
//! (a second transcript of one stretch of speech, words typed) is timed at
//! [`ASSUMED_WORDS_PER_MINUTE`] and counted as estimated.

mod report;
pub mod speech;

use text::words::words;

pub use report::{AnswerDelivery, DeliveryReport, Pause, SlideDelivery};

/// A silence of at least this long while presenting is a pause worth naming.
pub const LONG_PAUSE_MS: u64 = 2_000;

/// The pace a line without a heard onset is timed at.
pub const ASSUMED_WORDS_PER_MINUTE: u64 = 150;

/// What the presenter was doing when a line was heard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Presenting slide `slide` (its index in the deck).
    Presenting { slide: usize },
    /// Answering the question of exchange `exchange`, asked by `asker`.
    Answering {
        exchange: u64,
        asker: String,
        question: String,
    },
}

/// One line as heard.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Line {
    /// The line's id (its question id on the wire), to match its playback.
    id: u64,
    part: Part,
    start_ms: u64,
    end_ms: u64,
    words: usize,
    text: String,
    estimated: bool,
    /// The presenter held the floor since the line before: the silence between them is a
    /// pause of theirs.
    follows: bool,
}

/// The measures of one session, fed as it goes.
#[derive(Debug, Clone, Default)]
pub struct Delivery {
    /// The onset of speech not yet transcribed.
    onset_ms: Option<u64>,
    lines: Vec<Line>,
    /// Each slide shown: its index and since when (the last one still shown).
    shown: Vec<(usize, u64)>,
    /// Someone else took the floor since the last line.
    floor_taken: bool,
}

impl Delivery {
    pub fn new() -> Self {
        Self::default()
    }

    /// The presenter's voice began (the first onset since the last line counts).
    pub fn speech_started(&mut self, now_ms: u64) {
        self.onset_ms.get_or_insert(now_ms);
    }

    /// Someone else took the floor (a question, a moderator's line): the silence until the
    /// presenter's next line is not a pause of theirs.
    pub fn floor_taken(&mut self) {
        self.floor_taken = true;
    }

    /// A slide went up.
    pub fn slide_shown(&mut self, slide: usize, now_ms: u64) {
        if self.shown.last().is_some_and(|(s, _)| *s == slide) {
            return;
        }
        self.shown.push((slide, now_ms));
    }

    /// A line of the presenter was heard (its final transcript, `id` its question id),
    /// while doing `part`.
    pub fn heard(&mut self, id: u64, text: &str, part: Part, now_ms: u64) {
        let count = words(text).len();
        if count == 0 {
            return;
        }
        let last_end = self.lines.last().map_or(0, |l| l.end_ms);
        // An onset at the transcript's own time says nothing of how long it took.
        let onset = self.onset_ms.take().filter(|&t| t < now_ms);
        let (start_ms, estimated) = match onset {
            Some(t) => (t.max(last_end), false),
            None => {
                let assumed = count as u64 * 60_000 / ASSUMED_WORDS_PER_MINUTE;
                (now_ms.saturating_sub(assumed).max(last_end), true)
            }
        };
        self.lines.push(Line {
            id,
            part,
            start_ms,
            end_ms: now_ms.max(start_ms),
            words: count,
            text: text.trim().to_owned(),
            estimated,
            follows: !std::mem::take(&mut self.floor_taken),
        });
    }

    /// The player began to voice line `id`: its speech starts now.
    pub fn voice_started(&mut self, id: u64, now_ms: u64) {
        if let Some(line) = self.lines.iter_mut().rev().find(|l| l.id == id) {
            line.start_ms = now_ms;
            line.end_ms = now_ms;
            line.estimated = false;
        }
    }

    /// The player's voice of line `id` ended (or was cut): its speech ends now.
    pub fn voice_ended(&mut self, id: u64, now_ms: u64) {
        if let Some(line) = self.lines.iter_mut().rev().find(|l| l.id == id) {
            line.end_ms = now_ms.max(line.start_ms);
        }
    }

    /// What was measured up to `now_ms`; `planned_ms` gives a slide's planned time, if any.
    pub fn report(&self, now_ms: u64, planned_ms: impl Fn(usize) -> Option<u64>) -> DeliveryReport {
        report::build(self, now_ms, planned_ms)
    }
}

#[cfg(test)]
mod tests;

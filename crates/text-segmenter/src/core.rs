//! The segmenter node's state machine.
//!
//! Text chunks of every participant come in; segments go out with speaker, question id,
//! index within the turn and a last-segment flag. Segments of one turn leave in order and
//! turns leave in question-id order: a later turn's segments wait while an earlier turn
//! is still streaming. Everything older than the newest interrupt is dropped. When a turn
//! ends after its last sentence already left, an empty segment with the last flag closes
//! it, so the player always learns where an utterance ends.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
pub use voice_protocol::messages::Segment;
use voice_protocol::{StaleFilter, StreamStatus};

use crate::split::{SegmenterConfig, TurnSegmenter};

/// The format name of the segmenter's decision log (`decisions/<node-id>.jsonl`).
pub const SEGMENTER_FORMAT: &str = "segmenter";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SegmenterInput {
    Text {
        speaker: String,
        question_id: u64,
        text: String,
        status: Option<StreamStatus>,
        /// The text ends a sentence its writer judged whole.
        ends_sentence: bool,
    },
    Interrupt {
        question_id: u64,
    },
}

/// What the segmenter decides: a segment to send, or a notice for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SegmenterOutput {
    Segment(Segment),
    Notice(SegmenterNotice),
}

/// Text that was dropped for a reason worth a warning (stale text after an interrupt is
/// routine and not reported).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SegmenterNotice {
    #[error(
        "text of turn {question_id} from `{speaker}` came after newer turn {newer} had begun to play; dropped"
    )]
    OutOfOrder {
        speaker: String,
        question_id: u64,
        newer: u64,
    },
    #[error("text of turn {question_id} from `{speaker}` came after the turn ended; dropped")]
    AfterEnd { speaker: String, question_id: u64 },
}

#[derive(Debug)]
struct Turn {
    speaker: String,
    splitter: TurnSegmenter,
    queued: Vec<Segment>,
    next_index: u32,
    ended: bool,
}

#[derive(Debug)]
pub struct SegmenterCore {
    config: SegmenterConfig,
    stale: StaleFilter,
    turns: BTreeMap<u64, Turn>,
    /// The newest turn that has released a segment: older turns can no longer start.
    released_through: u64,
}

impl SegmenterCore {
    pub fn new(config: SegmenterConfig) -> Self {
        Self {
            config,
            stale: StaleFilter::new(),
            turns: BTreeMap::new(),
            released_through: 0,
        }
    }

    /// Turns still open (for diagnostics and tests).
    pub fn open_turns(&self) -> usize {
        self.turns.len()
    }

    fn segment(&mut self, input: SegmenterInput) -> Vec<SegmenterOutput> {
        let notice = |n| vec![SegmenterOutput::Notice(n)];
        match input {
            SegmenterInput::Interrupt { question_id } => {
                self.stale.interrupt(question_id);
                self.turns.retain(|q, _| *q >= question_id);
                Vec::new()
            }
            SegmenterInput::Text {
                speaker,
                question_id,
                text,
                status,
                ends_sentence,
            } => {
                // Stale, or a turn at or below one that already left completely (a late
                // chunk, or an older turn appearing out of order): turns never go back.
                let behind =
                    question_id <= self.released_through && !self.turns.contains_key(&question_id);
                if self.stale.is_stale(question_id) {
                    return Vec::new();
                }
                if behind {
                    if text.trim().is_empty() {
                        return Vec::new();
                    }
                    return notice(if question_id < self.released_through {
                        SegmenterNotice::OutOfOrder {
                            speaker,
                            question_id,
                            newer: self.released_through,
                        }
                    } else {
                        SegmenterNotice::AfterEnd {
                            speaker,
                            question_id,
                        }
                    });
                }
                let config = self.config;
                let turn = self.turns.entry(question_id).or_insert_with(|| Turn {
                    speaker: speaker.clone(),
                    splitter: TurnSegmenter::new(config),
                    queued: Vec::new(),
                    next_index: 0,
                    ended: false,
                });
                if turn.ended {
                    if text.trim().is_empty() {
                        return Vec::new();
                    }
                    return notice(SegmenterNotice::AfterEnd {
                        speaker,
                        question_id,
                    });
                }
                let mut texts = turn.splitter.push_text(&text, ends_sentence);
                let ended = StreamStatus::ends_utterance(status);
                if ended {
                    texts.extend(turn.splitter.finish());
                    turn.ended = true;
                }
                let count = texts.len();
                for (i, text) in texts.into_iter().enumerate() {
                    turn.queued.push(Segment {
                        speaker: turn.speaker.clone(),
                        question_id,
                        index: turn.next_index,
                        last: ended && i + 1 == count,
                        text,
                    });
                    turn.next_index += 1;
                }
                if ended && count == 0 {
                    turn.queued.push(Segment {
                        speaker: turn.speaker.clone(),
                        question_id,
                        index: turn.next_index,
                        last: true,
                        text: String::new(),
                    });
                }
                self.release()
            }
        }
    }

    /// Emits what may leave: the oldest open turn streams, later ones wait for it.
    fn release(&mut self) -> Vec<SegmenterOutput> {
        let mut out = Vec::new();
        while let Some(mut entry) = self.turns.first_entry() {
            if !entry.get().queued.is_empty() {
                self.released_through = self.released_through.max(*entry.key());
            }
            out.append(&mut entry.get_mut().queued);
            if !entry.get().ended {
                break;
            }
            entry.remove();
        }
        out.into_iter().map(SegmenterOutput::Segment).collect()
    }
}

/// The segmenter has no waits of its own: text in, segments out, whatever the time.
impl conductor::Core for SegmenterCore {
    type Input = SegmenterInput;
    type Output = SegmenterOutput;
    type Opening = ();

    fn handle(&mut self, input: SegmenterInput, _now_ms: u64) -> Vec<SegmenterOutput> {
        self.segment(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The segments and the notices `input` gives.
    fn feed(c: &mut SegmenterCore, input: SegmenterInput) -> (Vec<Segment>, Vec<SegmenterNotice>) {
        let (mut segments, mut notices) = (Vec::new(), Vec::new());
        for output in conductor::Core::handle(c, input, 0) {
            match output {
                SegmenterOutput::Segment(s) => segments.push(s),
                SegmenterOutput::Notice(n) => notices.push(n),
            }
        }
        (segments, notices)
    }

    fn segments(c: &mut SegmenterCore, input: SegmenterInput) -> Vec<Segment> {
        feed(c, input).0
    }

    fn text(speaker: &str, q: u64, t: &str, status: Option<StreamStatus>) -> SegmenterInput {
        SegmenterInput::Text {
            speaker: speaker.into(),
            question_id: q,
            text: t.into(),
            status,
            ends_sentence: false,
        }
    }

    fn core() -> SegmenterCore {
        SegmenterCore::new(SegmenterConfig {
            min_chars: 1,
            max_chars: 220,
            first_clause_words: 0,
        })
    }

    #[test]
    fn a_turn_arriving_after_a_newer_one_is_dropped_with_a_notice() {
        let mut c = core();
        let (out, notices) = feed(
            &mut c,
            text("ann", 5, "Newer turn.", Some(StreamStatus::Ended)),
        );
        assert_eq!((out.len(), notices.len()), (1, 0));
        assert_eq!(
            feed(
                &mut c,
                text("bob", 4, "Older turn.", Some(StreamStatus::Ended))
            ),
            (
                vec![],
                vec![SegmenterNotice::OutOfOrder {
                    speaker: "bob".into(),
                    question_id: 4,
                    newer: 5
                }]
            )
        );
        let (out, notices) = feed(&mut c, text("ann", 5, "More.", None));
        assert!(out.is_empty());
        assert!(matches!(
            &notices[..],
            [SegmenterNotice::AfterEnd { question_id: 5, .. }]
        ));
        // Stale text after an interrupt is routine: dropped quietly.
        feed(&mut c, SegmenterInput::Interrupt { question_id: 9 });
        assert_eq!(feed(&mut c, text("bob", 8, "Old.", None)), (vec![], vec![]));
    }

    #[test]
    fn segments_carry_metadata_and_a_last_flag() {
        let mut c = core();
        let out = segments(
            &mut c,
            text("tutor", 1, "First one. Second", Some(StreamStatus::Started)),
        );
        assert_eq!(out.len(), 1);
        assert_eq!(
            (out[0].index, out[0].last, out[0].text.as_str()),
            (0, false, "First one.")
        );
        let out = segments(&mut c, text("tutor", 1, " one.", Some(StreamStatus::Ended)));
        assert_eq!(
            (out[0].index, out[0].last, out[0].text.as_str()),
            (1, true, "Second one.")
        );
        // Ended after everything already left: an empty closing segment.
        let out = segments(
            &mut c,
            text("ben", 2, "Hi there. ", Some(StreamStatus::Started)),
        );
        assert_eq!(out.len(), 0, "the end of `Hi there.` is not certain yet");
        let out = segments(&mut c, text("ben", 2, "", Some(StreamStatus::Ended)));
        assert_eq!(out.len(), 1);
        assert!(out[0].last);
        let out = segments(&mut c, text("mia", 3, "Ok. So", None));
        assert_eq!(out.last().unwrap().text, "So");
        assert!(out.last().unwrap().last);
        assert_eq!(c.open_turns(), 0);
    }

    #[test]
    fn later_turns_wait_for_earlier_ones() {
        let mut c = core();
        segments(
            &mut c,
            text("tutor", 1, "One. Two", Some(StreamStatus::Started)),
        );
        // Turn 2 streams while turn 1 has not ended: held back.
        assert!(
            segments(
                &mut c,
                text("ben", 2, "Hello. World.", Some(StreamStatus::Ended))
            )
            .is_empty()
        );
        let out = segments(&mut c, text("tutor", 1, ".", Some(StreamStatus::Ended)));
        let order: Vec<(u64, &str)> = out
            .iter()
            .map(|s| (s.question_id, s.text.as_str()))
            .collect();
        assert_eq!(order, [(1, "Two."), (2, "Hello."), (2, "World.")]);
    }

    #[test]
    fn interrupts_drop_older_turns() {
        let mut c = core();
        segments(
            &mut c,
            text("tutor", 1, "Talking. And", Some(StreamStatus::Started)),
        );
        assert!(segments(&mut c, SegmenterInput::Interrupt { question_id: 2 }).is_empty());
        assert!(
            segments(
                &mut c,
                text("tutor", 1, " more. Yes.", Some(StreamStatus::Ended))
            )
            .is_empty()
        );
        let out = segments(&mut c, text("tutor", 3, "Fresh start.", None));
        assert_eq!(out[0].question_id, 3);
        // A late chunk of a finished turn does not reopen it.
        assert!(segments(&mut c, text("tutor", 3, "Again.", None)).is_empty());
    }

    proptest! {
        /// However the text is chunked, the segments are the same.
        #[test]
        fn chunking_does_not_change_segments(
            text in "[A-Za-z .,!?3é你好。！\n]{0,120}",
            cuts in prop::collection::vec(0usize..120, 0..10),
        ) {
            let config = SegmenterConfig::default();
            let mut whole = TurnSegmenter::new(config);
            let mut expected = whole.push(&text);
            expected.extend(whole.finish());
            let mut pieces = TurnSegmenter::new(config);
            let mut got = Vec::new();
            let mut bounds: Vec<usize> = cuts.into_iter().filter(|c| *c < text.len() && text.is_char_boundary(*c)).collect();
            bounds.sort_unstable();
            bounds.dedup();
            let mut start = 0;
            for b in bounds.into_iter().chain([text.len()]) {
                got.extend(pieces.push(&text[start..b]));
                start = b;
            }
            got.extend(pieces.finish());
            prop_assert_eq!(got, expected);
        }

        /// Order and staleness under random interleavings.
        #[test]
        fn order_and_staleness(ops in prop::collection::vec((0u8..3, 1u64..6, "[a-z .]{0,12}"), 1..60)) {
            let mut c = core();
            let mut newest_interrupt = 0;
            let mut last_key = (0u64, None::<u32>);
            for (op, q, t) in ops {
                let input = match op {
                    0 => text("x", q, &t, Some(StreamStatus::Ongoing)),
                    1 => text("x", q, &t, Some(StreamStatus::Ended)),
                    _ => { newest_interrupt = newest_interrupt.max(q); SegmenterInput::Interrupt { question_id: q } }
                };
                for seg in segments(&mut c, input) {
                    prop_assert!(seg.question_id >= newest_interrupt);
                    prop_assert!(!sanitize_needed(&seg.text));
                    // Within a turn indices increase by one; turns never go backwards.
                    if seg.question_id == last_key.0 {
                        prop_assert_eq!(Some(seg.index), last_key.1.map(|i| i + 1));
                    } else {
                        prop_assert!(seg.question_id > last_key.0);
                        prop_assert_eq!(seg.index, 0);
                    }
                    last_key = (seg.question_id, Some(seg.index));
                }
            }
        }
    }

    fn sanitize_needed(text: &str) -> bool {
        text.contains("**") || text.starts_with(' ') || text.ends_with(' ')
    }
}

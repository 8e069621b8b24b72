//! What the auction reports without deciding anything: a segment, reply or clip that came
//! late, came for nothing, or failed. The core returns each as [`Output::Notice`]
//! (so that tests and `replay` see it); the node writes it to the log, a warning where
//! the listener may miss something.
//!
//! [`Output::Notice`]: super::Output::Notice

use std::fmt;

use ::conductor::NoticeLevel;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// A segment's text did not come in time: the segment is skipped.
    SegmentLate { agent: String, segment_id: String },
    /// A side request got no answer in time.
    RequestUnanswered { request_id: String },
    /// A clip was not synthesized in time: it is dropped.
    ClipLate { clip_id: String },
    /// Text for a question id no segment waits for.
    StrayText { agent: String, question_id: u64 },
    /// Text from another agent than the segment's, or after its text ended.
    UnexpectedText { agent: String, question_id: u64 },
    /// A segment longer than is kept: the rest is not kept.
    SegmentTooLong { agent: String, question_id: u64 },
    /// A segment's generation failed (an error, or no sentence in it).
    SegmentFailed { agent: String, error: String },
    /// A reply to no request waiting for one.
    StrayReply { request_id: String },
    /// A clip synthesized that is no longer wanted: it is discarded.
    ClipUnwanted { clip_id: String },
    /// The end of a clip not known.
    UnknownClipEnd { clip_id: String },
    /// An interjection not asked for: the request limits refused it.
    InterjectionNotAsked { agent: String, reason: &'static str },
    /// The human's words cut what sounded: `agent` answers them first.
    HumanAnswered { agent: String },
    /// The human's words after the end: recorded, not answered.
    HumanAfterEnd,
    /// A transcript with no words: a held clip goes on.
    EmptyTranscript,
    /// The human's sound held the clip and no words came in time: it goes on.
    FloorNotTaken,
}

impl Notice {
    /// A warning where the listener may miss something by it; a stray message ignored is
    /// routine.
    pub fn level(&self) -> NoticeLevel {
        match self {
            Notice::SegmentLate { .. }
            | Notice::RequestUnanswered { .. }
            | Notice::ClipLate { .. }
            | Notice::SegmentTooLong { .. }
            | Notice::SegmentFailed { .. } => NoticeLevel::Warning,
            Notice::HumanAnswered { .. }
            | Notice::HumanAfterEnd
            | Notice::EmptyTranscript
            | Notice::FloorNotTaken => NoticeLevel::Info,
            _ => NoticeLevel::Debug,
        }
    }
}

/// The original words of each notice first, then what it is about.
impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::SegmentLate { agent, segment_id } => {
                write!(
                    f,
                    "segment not ready in time; skipped: {agent}, {segment_id}"
                )
            }
            Notice::RequestUnanswered { request_id } => {
                write!(f, "side request not answered in time: {request_id}")
            }
            Notice::ClipLate { clip_id } => {
                write!(f, "clip not synthesized in time; dropped: {clip_id}")
            }
            Notice::StrayText { agent, question_id } => write!(
                f,
                "text of no pending segment ignored: {agent}, question {question_id}"
            ),
            Notice::UnexpectedText { agent, question_id } => {
                write!(
                    f,
                    "unexpected text ignored: {agent}, question {question_id}"
                )
            }
            Notice::SegmentTooLong { agent, question_id } => write!(
                f,
                "segment too long; the rest is not kept: {agent}, question {question_id}"
            ),
            Notice::SegmentFailed { agent, error } => {
                write!(f, "segment generation failed: {agent}: {error}")
            }
            Notice::StrayReply { request_id } => {
                write!(f, "reply to no pending request ignored: {request_id}")
            }
            Notice::ClipUnwanted { clip_id } => {
                write!(f, "clip_ready of a clip no longer wanted: {clip_id}")
            }
            Notice::UnknownClipEnd { clip_id } => {
                write!(f, "end of an unknown clip ignored: {clip_id}")
            }
            Notice::InterjectionNotAsked { agent, reason } => {
                write!(f, "interjection not asked: {agent}: {reason}")
            }
            Notice::HumanAnswered { agent } => {
                write!(
                    f,
                    "the human spoke: what sounded is cut; {agent} answers first"
                )
            }
            Notice::HumanAfterEnd => {
                write!(f, "the human spoke after the end: recorded, not answered")
            }
            Notice::EmptyTranscript => write!(f, "transcript with no words: the clip goes on"),
            Notice::FloorNotTaken => {
                write!(f, "nobody took the floor in time: the clip goes on")
            }
        }
    }
}

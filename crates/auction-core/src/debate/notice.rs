//! What the auction reports without deciding anything: a segment, reply or clip that came
//! late, came for nothing, or failed. The core returns each as [`Output::Notice`]
//! (so that tests and `replay` see it); the node writes it to the log, a warning where
//! the listener may miss something.
//!
//! [`Output::Notice`]: super::Output::Notice

use std::fmt;

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
}

impl Notice {
    /// Whether the listener may miss something by it (a warning), rather than a stray
    /// message ignored.
    pub fn is_warning(&self) -> bool {
        matches!(
            self,
            Notice::SegmentLate { .. }
                | Notice::RequestUnanswered { .. }
                | Notice::ClipLate { .. }
                | Notice::SegmentTooLong { .. }
                | Notice::SegmentFailed { .. }
        )
    }
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::SegmentLate { agent, segment_id } => {
                write!(
                    f,
                    "segment {segment_id} of {agent} not ready in time; skipped"
                )
            }
            Notice::RequestUnanswered { request_id } => {
                write!(f, "side request {request_id} not answered in time")
            }
            Notice::ClipLate { clip_id } => {
                write!(f, "clip {clip_id} not synthesized in time; dropped")
            }
            Notice::StrayText { agent, question_id } => write!(
                f,
                "text of {agent} for question {question_id}, which no segment waits for, ignored"
            ),
            Notice::UnexpectedText { agent, question_id } => write!(
                f,
                "unexpected text of {agent} for question {question_id} ignored"
            ),
            Notice::SegmentTooLong { agent, question_id } => write!(
                f,
                "segment of {agent} (question {question_id}) too long; the rest is not kept"
            ),
            Notice::SegmentFailed { agent, error } => {
                write!(f, "segment generation of {agent} failed: {error}")
            }
            Notice::StrayReply { request_id } => {
                write!(
                    f,
                    "reply to {request_id}, which no request waits for, ignored"
                )
            }
            Notice::ClipUnwanted { clip_id } => {
                write!(f, "clip {clip_id} ready but no longer wanted; discarded")
            }
            Notice::UnknownClipEnd { clip_id } => {
                write!(f, "end of an unknown clip {clip_id} ignored")
            }
            Notice::InterjectionNotAsked { agent, reason } => {
                write!(f, "interjection of {agent} not asked: {reason}")
            }
        }
    }
}

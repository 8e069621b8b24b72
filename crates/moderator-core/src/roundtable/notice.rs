//! What the roundtable reports without deciding: a message ignored, an answer late or
//! invalid, the pacing waiting for the player, the session's end. The core returns each
//! as [`Output::Notice`] (tests and `replay` see it); the node writes it to the log at
//! its [`NoticeLevel`]. Its decisions, turns and lines the node logs as it sends them.
//!
//! [`Output::Notice`]: super::Output::Notice

use std::fmt;

use ::conductor::NoticeLevel;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// An input of no agent of the scenario (nor `reply*`, `playback_done`, `control`).
    UnknownInput { input: String },
    /// An agent's text without a `question_id`.
    NoQuestionId { input: String },
    /// Text of an agent without the floor, or of a turn that is over.
    NotTheirFloor { input: String, question_id: u64 },
    /// An utterance longer than is kept: the rest is not kept.
    TooLong { agent: String },
    /// The agent's generation failed; what it said before counts.
    GenerationFailed {
        agent: String,
        question_id: u64,
        error: String,
    },
    /// The lines said and not yet heard hold the next decision.
    WaitingForPlayback { unheard: Vec<u64> },
    /// No playback report in time: the conversation goes on.
    PlaybackLate { unheard: Vec<u64> },
    /// `stop`: the roundtable closes.
    StopRequested,
    /// A control command that is neither `stats` nor `stop`.
    UnknownCommand { command: String },
    /// The closing line was heard: the roundtable is finished.
    ClosingHeard,
    /// The closing line was not reported heard in time: finished anyway.
    ClosingNotHeard,
    /// The roundtable ended after so many decisions.
    Ended { decisions: u64 },
    /// A reply from no agent of the scenario.
    UnknownReplier { input: String, speaker: String },
    /// A reply while no intent round is open.
    ReplyOutsideRound { agent: String },
    /// A reply to an older request.
    StaleReply {
        agent: String,
        request_id: Option<String>,
    },
    /// A second reply of the same agent in a round.
    RepeatedReply { agent: String },
    /// The agent's model could not answer: the heuristic decides its intent.
    IntentNotAnswered { agent: String, error: String },
    /// No intent in time: the heuristic decides it.
    IntentLate { agent: String, question_id: u64 },
    /// An answer that is no intent: the heuristic decides it.
    InvalidIntent {
        agent: String,
        answer: String,
        error: String,
    },
    /// Rounds in a row with no answer in time: later rounds wait less.
    ShorterIntentWait { rounds: u32, wait_ms: u64 },
    /// The human's words: what was unheard or being written is cut (an interrupt at
    /// `cut`), and `answerer` has the floor to answer them.
    HumanSpoke {
        cut: u64,
        held: bool,
        answerer: Option<String>,
    },
    /// The human's words after the end: recorded, not answered.
    HumanAfterEnd,
    /// A transcript with no words: a held voice goes on.
    EmptyTranscript,
    /// The human's sound held the voice and no words came in time: it goes on.
    FloorNotTaken,
}

impl Notice {
    pub fn level(&self) -> NoticeLevel {
        match self {
            Notice::NotTheirFloor { .. }
            | Notice::WaitingForPlayback { .. }
            | Notice::ReplyOutsideRound { .. }
            | Notice::StaleReply { .. }
            | Notice::RepeatedReply { .. }
            | Notice::IntentNotAnswered { .. } => NoticeLevel::Debug,
            Notice::StopRequested
            | Notice::ClosingHeard
            | Notice::Ended { .. }
            | Notice::IntentLate { .. }
            | Notice::ShorterIntentWait { .. }
            | Notice::HumanSpoke { .. }
            | Notice::HumanAfterEnd
            | Notice::EmptyTranscript
            | Notice::FloorNotTaken => NoticeLevel::Info,
            _ => NoticeLevel::Warning,
        }
    }
}

/// The original words of each notice first, then what it is about.
impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::UnknownInput { input } => write!(
                f,
                "unknown input ignored (not an agent of the scenario, `reply*`, `playback_done` or `control`): {input}"
            ),
            Notice::NoQuestionId { input } => {
                write!(f, "text without question_id ignored: {input}")
            }
            Notice::NotTheirFloor { input, question_id } => write!(
                f,
                "text of an agent without the floor (or a stale turn) dropped: {input}, question {question_id}"
            ),
            Notice::TooLong { agent } => {
                write!(f, "utterance too long; the rest is not kept: {agent}")
            }
            Notice::GenerationFailed {
                agent,
                question_id,
                error,
            } => write!(
                f,
                "the agent's generation failed: {agent}, question {question_id}: {error}"
            ),
            Notice::WaitingForPlayback { unheard } => write!(
                f,
                "waiting for playback before the next decision: unheard {unheard:?}"
            ),
            Notice::PlaybackLate { unheard } => write!(
                f,
                "no playback report in time; the conversation goes on: unheard {unheard:?}"
            ),
            Notice::StopRequested => f.write_str("stop requested: closing the roundtable"),
            Notice::UnknownCommand { command } => write!(
                f,
                "unknown control command ignored (expected stats or stop): {command:?}"
            ),
            Notice::ClosingHeard => f.write_str("the closing line was heard"),
            Notice::ClosingNotHeard => {
                f.write_str("the closing line was not reported as heard in time; ending anyway")
            }
            Notice::Ended { decisions } => {
                write!(f, "the roundtable has ended: {decisions} decisions")
            }
            Notice::UnknownReplier { input, speaker } => {
                write!(
                    f,
                    "reply from an unknown agent ignored: {speaker} on {input}"
                )
            }
            Notice::ReplyOutsideRound { agent } => {
                write!(f, "reply outside an intent round ignored: {agent}")
            }
            Notice::StaleReply { agent, request_id } => write!(
                f,
                "reply to an older request ignored: {agent}, request {}",
                request_id.as_deref().unwrap_or("without id")
            ),
            Notice::RepeatedReply { agent } => write!(f, "repeated reply ignored: {agent}"),
            Notice::IntentNotAnswered { agent, error } => write!(
                f,
                "intent not answered; using the heuristic: {agent}: {error}"
            ),
            Notice::IntentLate { agent, question_id } => write!(
                f,
                "no intent in time; using the heuristic: {agent}, question {question_id}"
            ),
            Notice::InvalidIntent {
                agent,
                answer,
                error,
            } => write!(
                f,
                "invalid intent answer; using the heuristic: {agent}: {error}: {answer:?}"
            ),
            Notice::ShorterIntentWait { rounds, wait_ms } => write!(
                f,
                "no agent answered its intent in time: later rounds wait less for them ({rounds} rounds, {wait_ms} ms)"
            ),
            Notice::HumanSpoke {
                cut,
                held,
                answerer,
            } => write!(
                f,
                "the human spoke: what was unheard is cut (question {cut}, a voice held: {held}); answering first: {}",
                answerer.as_deref().unwrap_or("nobody")
            ),
            Notice::HumanAfterEnd => {
                write!(f, "the human spoke after the end: recorded, not answered")
            }
            Notice::EmptyTranscript => write!(f, "transcript with no words: the voice goes on"),
            Notice::FloorNotTaken => {
                write!(f, "nobody took the floor in time: the voice goes on")
            }
        }
    }
}

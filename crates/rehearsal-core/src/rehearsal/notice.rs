//! What the rehearsal reports without deciding: a message ignored, an answer or a report
//! missing, the voice held or let go. The core returns each as [`Output::Notice`] (tests
//! and `replay` see it); the node writes it to the log at its [`Notice::level`].
//!
//! [`Output::Notice`]: super::Output::Notice

/// One notice of the rehearsal's.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Notice {
    #[error("no agent named `{0}` on the panel")]
    UnknownAgent(String),
    #[error("slide {0} is not in the deck")]
    UnknownSlide(usize),
    #[error("turn of `{agent}` (question {question_id}) is not the current turn; ignored")]
    StaleTurn { agent: String, question_id: u64 },
    #[error("hand of `{agent}` not raised: {reason}")]
    HandRefused { agent: String, reason: &'static str },
    #[error("no raised hand to acknowledge")]
    NoRaisedHand,
    #[error("Q&A requested while an exchange is under way; ignored")]
    Busy,
    #[error("answer received while no answer is awaited; ignored")]
    NotAwaitingAnswer,
    #[error("empty answer; still waiting")]
    EmptyAnswer,
    #[error("empty candidate from `{0}`; ignored")]
    EmptyCandidate(String),
    #[error("`{agent}` did not finish its turn in time; cancelled")]
    AgentTimedOut { agent: String },
    #[error("a rating without a verdict is left unrated: {agent}, exchange {exchange}: {reply}")]
    Unrated {
        agent: String,
        exchange: u64,
        reply: String,
    },
    #[error("reply without speaker ignored: {input}")]
    ReplyWithoutSpeaker { input: String },
    #[error("reply without request_id ignored: {input}")]
    ReplyWithoutRequestId { input: String },
    #[error("reply to an unknown request ignored: {request_id}")]
    StrayReply { request_id: String },
    #[error("candidate question not prepared: {agent}, {request_id}: {error}")]
    CandidateNotPrepared {
        agent: String,
        request_id: String,
        error: String,
    },
    #[error("candidate question off the slide; not offered: {agent}, relevance {relevance:.2}")]
    CandidateOffSlide { agent: String, relevance: f64 },
    #[error("candidate question asked before; not offered: {agent}: {asked}")]
    CandidateAskedBefore { agent: String, asked: String },
    #[error("prepared question asked since; not used: {agent}: {asked}")]
    PreparedAskedSince { agent: String, asked: String },
    #[error("still preparing; not asked again: {agent}, {kind}")]
    StillPreparing { agent: String, kind: &'static str },
    #[error("panelist turn cancelled: {agent}, question {question_id}")]
    TurnCancelled { agent: String, question_id: u64 },
    #[error("exchange logged: {exchange}, {agent}, {outcome}")]
    ExchangeLogged {
        exchange: u64,
        agent: String,
        outcome: &'static str,
    },
    #[error("the debrief waits for the panel's last ratings")]
    DebriefWaits,
    #[error("ratings still missing: the debrief is written without them")]
    RatingsMissing,
    #[error("the session is over and its closing line was heard")]
    ClosingHeard,
    #[error("the closing line was not reported as played in time; leaving")]
    ClosingNotHeard,
    #[error("notices not heard yet are cut: an exchange starts ({lines:?})")]
    NoticesCut { lines: Vec<u64> },
    #[error("playback_done without question_id ignored")]
    PlayedWithoutQuestionId,
    #[error("playback_started without question_id ignored")]
    StartedWithoutQuestionId,
    #[error("Q&A trigger → first moderator audio: {command}, {latency_ms:.1} ms")]
    FirstAudio { command: String, latency_ms: f64 },
    #[error("unknown input ignored: {input}")]
    UnknownInput { input: String },
    #[error("unreadable text; keeping only its session_status: {input}: {error}")]
    UnreadableText { input: String, error: String },
    #[error("unreadable input ignored: {input}: {error}")]
    UnreadableInput { input: String, error: String },
    #[error("text without question_id ignored: {input}")]
    NoQuestionId { input: String },
    #[error("text of no current call ignored: {input}, question {question_id}")]
    NoCurrentCall { input: String, question_id: u64 },
    #[error(
        "text from the wrong panelist ignored: {input}, question {question_id}, expected {expected}"
    )]
    WrongPanelist {
        input: String,
        question_id: u64,
        expected: String,
    },
    #[error("panelist turn too long; the rest is not kept: {agent}, question {question_id}")]
    TooLong { agent: String, question_id: u64 },
    #[error("panelist turn failed: {agent}, question {question_id}: {error}")]
    TurnFailed {
        agent: String,
        question_id: u64,
        error: String,
    },
    #[error("partial presenter transcript ignored: {text}")]
    PartialTranscript { text: String },
    #[error("empty presenter transcript ignored")]
    EmptyTranscript,
    #[error("the presenter took the floor: the held voice is cut (question {question_id})")]
    HeldVoiceCut { question_id: u64 },
    #[error("control: {command}")]
    Control { command: String },
    #[error("control input ignored: {error}")]
    BadControl { error: String },
    #[error("nobody took the floor in time: the voice goes on")]
    FloorNotTaken,
    #[error("the presenter speaks over the panel: the voice is held")]
    VoiceHeld,
    #[error("only an acknowledgement: the voice goes on")]
    VoiceGoesOn,
    #[error("dataflow stopping: ending the session")]
    Stopping,
}

impl Notice {
    /// A warning where something the session needed is missing or refused; routine
    /// drops are debug; the session's steps are info.
    pub fn level(&self) -> ::conductor::NoticeLevel {
        use ::conductor::NoticeLevel::{Debug, Info, Warning};
        match self {
            Notice::StrayReply { .. }
            | Notice::CandidateNotPrepared { .. }
            | Notice::CandidateOffSlide { .. }
            | Notice::CandidateAskedBefore { .. }
            | Notice::PreparedAskedSince { .. }
            | Notice::StillPreparing { .. }
            | Notice::NoCurrentCall { .. }
            | Notice::PartialTranscript { .. }
            | Notice::EmptyTranscript => Debug,
            Notice::TurnCancelled { .. }
            | Notice::ExchangeLogged { .. }
            | Notice::DebriefWaits
            | Notice::ClosingHeard
            | Notice::NoticesCut { .. }
            | Notice::FirstAudio { .. }
            | Notice::HeldVoiceCut { .. }
            | Notice::Control { .. }
            | Notice::FloorNotTaken
            | Notice::VoiceHeld
            | Notice::VoiceGoesOn
            | Notice::Stopping => Info,
            _ => Warning,
        }
    }
}

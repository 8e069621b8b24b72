//! The decisions' vocabulary: the [`Event`]s the auction decides on (what its messages
//! mean, or what the offline simulation reports), the [`Action`]s it decides, and the
//! public values they carry.

use serde::{Deserialize, Serialize};

use crate::emotion::Mood;
use crate::interjection::InterjectionKind;
use crate::records::{ClipRole, EventRecord};

/// A barge point of a segment: after sentence `index` (1-based), `offset_ms` after the
/// start of the clip as planned by the segmenter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BeatPlan {
    pub index: u32,
    pub offset_ms: u64,
}

/// What the node reports.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The session begins: the cold-start auction picks the first speaker.
    Start,
    /// The text of a requested segment (mood already split off, see
    /// [`crate::llm::parse_segment_payload`]), with its planned beats and duration.
    SegmentReady {
        agent: String,
        segment_id: String,
        text: String,
        beats: Vec<BeatPlan>,
        planned_ms: Option<u64>,
        mood: Option<Mood>,
    },
    /// The model could not produce a requested segment.
    SegmentFailed { segment_id: String },
    /// A clip began to sound at `at_ms` (beats are planned from here).
    ClipStarted { clip_id: String, at_ms: u64 },
    /// The player passed beat `beat` of a clip at `at_ms` (measured).
    BeatReached {
        clip_id: String,
        beat: u32,
        at_ms: u64,
    },
    /// The audio of a kicker or interjection asked with [`Action::Synthesize`] is buffered.
    ClipReady { clip_id: String },
    /// A clip ended (or its fade-out did) at `at_ms`.
    ClipFinished { clip_id: String, at_ms: u64 },
    /// A clip could not be synthesised or played; it is dropped.
    ClipFailed { clip_id: String },
    /// Model text of a requested kicker.
    KickerReady { clip_id: String, text: String },
    /// Model text of a requested interjection.
    InterjectionReady { clip_id: String, text: String },
    /// Raw model answer to [`Action::RequestBid`].
    BidReceived {
        agent: String,
        auction_id: String,
        text: String,
    },
    /// The model did not answer a bid request in time.
    LlmBidTimeout { agent: String, auction_id: String },
    /// Time passed (call at [`super::AuctionDebate::decision_deadline`] at the latest).
    Tick,
    /// End the session now.
    Stop,
    /// The human's words took the floor: what sounds is cut and a participant answers
    /// them at once (`named`: the participant their words named).
    HumanSpoke {
        speaker: String,
        words: String,
        named: Option<String>,
        /// Their voice held the clip that sounded: it is silent already, and stops.
        held: bool,
    },
}

/// How the next segment should relate to the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HintKind {
    /// Make your point.
    Open,
    /// Everyone passed: continue briefly.
    Continue,
    /// You were cut off: answer the interrupter with fresh text (never resume).
    Respond,
    /// A kicker just played: respond directly to the interruption.
    FollowInterruption,
    /// The human spoke: answer them first (`respond_to` names them).
    AnswerHuman,
}

/// An interjection the speaker should acknowledge briefly (≤ 8 words).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Acknowledgement {
    pub from: String,
    pub kind: InterjectionKind,
    pub text: String,
}

/// Context for the segment prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SegmentHint {
    pub kind: HintKind,
    pub respond_to: Option<String>,
    pub acknowledge: Option<Acknowledgement>,
    /// Words to aim for (shorter when many want the floor or on a continuation).
    pub target_words: u32,
    /// The agent's own mood, for tone and prosody.
    pub mood: Mood,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SegmentRequest {
    pub agent: String,
    pub auction_id: String,
    pub segment_id: String,
    pub clip_id: String,
    pub hint: SegmentHint,
    /// Echo of the micro-turn counter the request was made at.
    pub context_version: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    MaxSegments,
    Stopped,
    /// Segments kept failing for every agent.
    NoSpeaker,
}

/// What the node must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Something to report, for the log ([`super::Output::Notice`]).
    Notice(super::Notice),
    RequestSegment(SegmentRequest),
    /// Ask `agent` for a JSON bid, answered by `BidReceived` or `LlmBidTimeout`.
    RequestBid {
        agent: String,
        auction_id: String,
        tokens: u32,
        mood: Mood,
        deadline_ms: u64,
    },
    /// Ask `agent` for a one-sentence kicker of `min_words..=max_words` words.
    RequestKicker {
        agent: String,
        auction_id: String,
        clip_id: String,
        interrupting: String,
        min_words: u32,
        max_words: u32,
    },
    RequestInterjection {
        agent: String,
        auction_id: String,
        clip_id: String,
        speaker: String,
        kind: InterjectionKind,
        max_words: u32,
    },
    /// Synthesise (sanitised) text into a buffered clip; answer with `ClipReady`.
    Synthesize {
        clip_id: String,
        agent: String,
        text: String,
        role: ClipRole,
    },
    /// Play a clip now; `overlay` clips mix over the (ducked) main clip.
    PlayClip {
        clip_id: String,
        agent: String,
        text: String,
        role: ClipRole,
        overlay: bool,
    },
    /// Lower the main clip by `gain_db` at beat `beat`.
    Duck {
        clip_id: String,
        beat: u32,
        gain_db: f64,
        ramp_ms: u64,
    },
    Unduck {
        clip_id: String,
        ramp_ms: u64,
    },
    /// Fade the clip out over `fade_ms` and stop it (hard interrupt).
    FadeOut {
        clip_id: String,
        fade_ms: u64,
    },
    /// Start a buffered clip after `delay_ms` with a `fade_ms` fade-in (trim leading silence).
    FadeIn {
        clip_id: String,
        agent: String,
        text: String,
        delay_ms: u64,
        fade_ms: u64,
    },
    /// Drop a buffered or requested clip that will not play.
    DiscardClip {
        clip_id: String,
    },
    /// A requested segment is no longer wanted (its answer will be ignored).
    CancelSegment {
        segment_id: String,
    },
    Record(EventRecord),
    End {
        reason: EndReason,
    },
}

/// Snapshot of one agent for logs and tests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentSnapshot {
    pub name: String,
    pub tokens: u32,
    pub talk_ms: u64,
    pub share: f64,
    pub pacing: f64,
    pub reputation: f64,
    pub interrupts: u32,
    pub interjections: u32,
    pub mood: Mood,
}

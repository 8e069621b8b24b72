//! Words as they travel: utterances, streamed chunks, transcripts, backchannels, segments.

use super::{DecodeError, Fields, HeardSpan, Message, Meta, missing};
use crate::{StreamStatus, ids, keys};

/// A finished utterance, as the conversation keeps it (`utterance`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Utterance {
    pub question_id: u64,
    pub speaker: String,
    pub text: String,
    pub interrupted: bool,
    pub human: bool,
    /// When a human's words were spoken.
    pub heard: Option<HeardSpan>,
}

impl Message for Utterance {
    const OUTPUT: &'static str = ids::UTTERANCE;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        let fields = Fields::new()
            .with_question_id(self.question_id)
            .with_text(keys::SPEAKER, self.speaker)
            .with_flag(keys::INTERRUPTED, self.interrupted)
            .with_flag(keys::IS_HUMAN, self.human)
            .with_heard(self.heard.as_ref());
        (fields, self.text)
    }

    /// Missing fields take what a node-hub sender means: a human when named `human`,
    /// speaker `human` or `unknown`, not interrupted, question 0.
    fn decode(meta: &impl Meta, text: String) -> Result<Self, DecodeError> {
        let flagged = meta.flag(keys::IS_HUMAN);
        let speaker = match meta.text(keys::SPEAKER) {
            Some(speaker) => speaker.to_owned(),
            None if flagged == Some(true) => "human".to_owned(),
            None => "unknown".to_owned(),
        };
        Ok(Self {
            question_id: meta.question_id().unwrap_or(0),
            human: flagged.unwrap_or(speaker == "human"),
            interrupted: meta.flag(keys::INTERRUPTED).unwrap_or(false),
            heard: meta.heard(),
            speaker,
            text,
        })
    }
}

/// A piece of a speaker's streamed text (`text`), or a whole line when it has no status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub question_id: Option<u64>,
    pub speaker: Option<String>,
    /// `None`: a complete message.
    pub status: Option<StreamStatus>,
    /// What the sender reports went wrong (on the chunk that ends a failed turn).
    pub error: Option<String>,
    /// The roundtable moderator's kind of line.
    pub kind: Option<String>,
    /// The rehearsal moderator's phrase kind of the line.
    pub line_kind: Option<String>,
    /// The text, or why it could not be read (the chunk's status still counts).
    pub text: Result<String, String>,
    /// The text ends a sentence its writer judged whole ([`keys::ENDS_SENTENCE`]).
    pub ends_sentence: bool,
    /// The status said, when it was none of ours (the chunk is then taken as complete).
    pub unknown_status: Option<String>,
}

impl Chunk {
    /// A whole line (`ended`) of `speaker`.
    pub fn line(question_id: u64, speaker: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            question_id: Some(question_id),
            speaker: Some(speaker.into()),
            status: Some(StreamStatus::Ended),
            text: Ok(text.into()),
            ..Self::default()
        }
    }

    /// The chunk ends its utterance (`ended`, or a complete message).
    pub fn ends(&self) -> bool {
        StreamStatus::ends_utterance(self.status)
    }
}

impl Default for Chunk {
    fn default() -> Self {
        Self {
            question_id: None,
            speaker: None,
            status: None,
            error: None,
            kind: None,
            line_kind: None,
            text: Ok(String::new()),
            ends_sentence: false,
            unknown_status: None,
        }
    }
}

impl Message for Chunk {
    const OUTPUT: &'static str = ids::TEXT;
    type Payload = Result<String, String>;

    fn encode(self) -> (Fields, Result<String, String>) {
        let mut fields = Fields::new()
            .maybe_int(keys::QUESTION_ID, self.question_id.map(|id| id as i64))
            .maybe_text(keys::STREAM_STATUS, self.status.map(StreamStatus::as_str))
            .maybe_text(keys::SPEAKER, self.speaker)
            .maybe_text(keys::KIND, self.kind)
            .maybe_text(keys::LINE_KIND, self.line_kind)
            .maybe_text(keys::ERROR, self.error);
        if self.ends_sentence {
            fields = fields.with_flag(keys::ENDS_SENTENCE, true);
        }
        (fields, Ok(self.text.unwrap_or_default()))
    }

    fn decode(meta: &impl Meta, text: Result<String, String>) -> Result<Self, DecodeError> {
        let (status, unknown_status) = match meta.status() {
            Ok(status) => (status, None),
            Err(raw) => (None, Some(raw)),
        };
        Ok(Self {
            question_id: meta.question_id(),
            speaker: meta.text(keys::SPEAKER).map(str::to_owned),
            status,
            error: meta.text(keys::ERROR).map(str::to_owned),
            kind: meta.text(keys::KIND).map(str::to_owned),
            line_kind: meta.text(keys::LINE_KIND).map(str::to_owned),
            text,
            ends_sentence: meta.flag(keys::ENDS_SENTENCE).unwrap_or(false),
            unknown_status,
        })
    }
}

/// A human's words, as a recogniser (or a page, or a script) heard them (`transcript`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Transcript {
    pub speaker: Option<String>,
    /// `None` or `ended`: final; `started` / `ongoing`: a partial hypothesis.
    pub status: Option<StreamStatus>,
    pub text: String,
    pub heard: Option<HeardSpan>,
    /// The status said, when it was none of ours (the transcript is then taken as final).
    pub unknown_status: Option<String>,
}

impl Transcript {
    /// The final words of `speaker`.
    pub fn final_words(speaker: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            speaker: Some(speaker.into()),
            status: Some(StreamStatus::Ended),
            text: text.into(),
            ..Self::default()
        }
    }

    pub fn is_final(&self) -> bool {
        StreamStatus::ends_utterance(self.status)
    }
}

impl Message for Transcript {
    const OUTPUT: &'static str = ids::TRANSCRIPT;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        let fields = Fields::new()
            .maybe_text(keys::SPEAKER, self.speaker)
            .maybe_text(keys::STREAM_STATUS, self.status.map(StreamStatus::as_str))
            .with_heard(self.heard.as_ref());
        (fields, self.text)
    }

    fn decode(meta: &impl Meta, text: String) -> Result<Self, DecodeError> {
        let (status, unknown_status) = match meta.status() {
            Ok(status) => (status, None),
            Err(raw) => (None, Some(raw)),
        };
        Ok(Self {
            speaker: meta.text(keys::SPEAKER).map(str::to_owned),
            status,
            text,
            heard: meta.heard(),
            unknown_status,
        })
    }
}

/// The human's sound was only a backchannel (`backchannel`: what was heard).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backchannel {
    pub speaker: String,
    pub text: String,
}

impl Message for Backchannel {
    const OUTPUT: &'static str = ids::BACKCHANNEL;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        (
            Fields::new().with_text(keys::SPEAKER, self.speaker),
            self.text,
        )
    }

    fn decode(meta: &impl Meta, text: String) -> Result<Self, DecodeError> {
        Ok(Self {
            speaker: meta.text(keys::SPEAKER).unwrap_or_default().to_owned(),
            text,
        })
    }
}

/// One speakable piece of a turn (`segment`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub question_id: u64,
    pub speaker: String,
    /// Position within its turn, from 0.
    pub index: u32,
    /// No more segments of this turn follow.
    pub last: bool,
    pub text: String,
}

impl Message for Segment {
    const OUTPUT: &'static str = ids::SEGMENT;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        let fields = Fields::new()
            .with_question_id(self.question_id)
            .with_text(keys::SPEAKER, self.speaker)
            .with_int(keys::SEGMENT_INDEX, i64::from(self.index))
            .with_flag(keys::LAST_SEGMENT, self.last);
        (fields, self.text)
    }

    fn decode(meta: &impl Meta, text: String) -> Result<Self, DecodeError> {
        Ok(Self {
            question_id: meta
                .question_id()
                .ok_or_else(|| missing("segment", keys::QUESTION_ID))?,
            index: meta
                .int(keys::SEGMENT_INDEX)
                .and_then(|i| u32::try_from(i).ok())
                .ok_or_else(|| missing("segment", keys::SEGMENT_INDEX))?,
            speaker: meta.text(keys::SPEAKER).unwrap_or("unknown").to_owned(),
            last: meta.flag(keys::LAST_SEGMENT).unwrap_or(false),
            text,
        })
    }
}

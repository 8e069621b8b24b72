//! The typed messages of the protocol: each has one encode (its metadata [`Fields`] and
//! its payload) and one decode (from any [`Meta`]: node-kit reads dora's parameters
//! through it). A node sends and reads these, never keys by hand: a new key is one edit
//! here.

use crate::{StreamStatus, keys};

mod control;
mod model;
mod phase;
mod playback;
mod records;
mod requests;
mod status;
mod text;

pub use control::{Control, Interrupt, Prepare, PrepareFor, SpeechStarted, Turn};
pub use model::{CallKind, ModelCall, ModelReply};
pub use phase::RehearsalPhase;
pub use playback::{Audio, Held, Pause, PlaybackStarted, Played, Resume};
pub use records::{AuctionEvent, Board, ModeratorDecision, Object, RoundtableStatus};
pub use requests::{ClipJson, DEFAULT_MAX_WORDS, MAX_PROMPT_BYTES, Reply, SideRequest};
pub use status::{ParticipantWeight, PolicyStatus, Share, WordCounts};
pub use text::{Backchannel, Chunk, Segment, Transcript, Utterance};

/// A metadata value as it travels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Int(i64),
    Text(String),
    Bool(bool),
}

/// A metadata value as read: borrowed, and anything else a sender may put there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueRef<'a> {
    Int(i64),
    Text(&'a str),
    Bool(bool),
    /// A value of another type (a float, a list, ...): present, but none of ours.
    Other,
}

/// Metadata to read a message from.
pub trait Meta {
    fn value(&self, key: &str) -> Option<ValueRef<'_>>;

    fn text(&self, key: &str) -> Option<&str> {
        match self.value(key)? {
            ValueRef::Text(s) => Some(s),
            _ => None,
        }
    }

    fn int(&self, key: &str) -> Option<i64> {
        match self.value(key)? {
            ValueRef::Int(n) => Some(n),
            _ => None,
        }
    }

    fn flag(&self, key: &str) -> Option<bool> {
        match self.value(key)? {
            ValueRef::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// `question_id` as an unsigned id (an Integer, or a String of digits as hand-written
    /// inputs carry it).
    fn question_id(&self) -> Option<u64> {
        match self.value(keys::QUESTION_ID)? {
            ValueRef::Int(n) => u64::try_from(n).ok(),
            ValueRef::Text(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// `session_status`; an unknown value is `Err` with what it said.
    fn status(&self) -> Result<Option<StreamStatus>, String> {
        match self.value(keys::STREAM_STATUS) {
            None => Ok(None),
            Some(ValueRef::Text(s)) => StreamStatus::parse(s).map(Some).ok_or_else(|| s.to_owned()),
            Some(other) => Err(format!("{other:?}")),
        }
    }

    /// The span of a human's speech, if the metadata holds a whole one.
    fn heard(&self) -> Option<HeardSpan> {
        let ms = |key| self.int(key).and_then(|n| u64::try_from(n).ok());
        Some(HeardSpan {
            audio_input: self.text(keys::AUDIO_INPUT)?.to_owned(),
            start_ms: ms(keys::SPEECH_START_MS)?,
            end_ms: ms(keys::SPEECH_END_MS)?,
        })
    }
}

/// The metadata a message is sent with, in the order it was built.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fields(Vec<(&'static str, Value)>);

impl Fields {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_int(mut self, key: &'static str, value: i64) -> Self {
        self.set(key, Value::Int(value));
        self
    }

    pub fn with_text(mut self, key: &'static str, value: impl Into<String>) -> Self {
        self.set(key, Value::Text(value.into()));
        self
    }

    pub fn with_flag(mut self, key: &'static str, value: bool) -> Self {
        self.set(key, Value::Bool(value));
        self
    }

    pub fn with_question_id(self, id: u64) -> Self {
        self.with_int(keys::QUESTION_ID, id as i64)
    }

    /// Sets `key` if there is a value.
    pub fn maybe_text(self, key: &'static str, value: Option<impl Into<String>>) -> Self {
        match value {
            Some(value) => self.with_text(key, value),
            None => self,
        }
    }

    pub fn maybe_int(self, key: &'static str, value: Option<i64>) -> Self {
        match value {
            Some(value) => self.with_int(key, value),
            None => self,
        }
    }

    pub fn with_heard(self, span: Option<&HeardSpan>) -> Self {
        match span {
            Some(span) => self
                .with_text(keys::AUDIO_INPUT, span.audio_input.clone())
                .with_int(keys::SPEECH_START_MS, span.start_ms as i64)
                .with_int(keys::SPEECH_END_MS, span.end_ms as i64),
            None => self,
        }
    }

    fn set(&mut self, key: &'static str, value: Value) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = value,
            None => self.0.push((key, value)),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &Value)> {
        self.0.iter().map(|(k, v)| (*k, v))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Meta for Fields {
    fn value(&self, key: &str) -> Option<ValueRef<'_>> {
        self.0
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| match v {
                Value::Int(n) => ValueRef::Int(*n),
                Value::Text(s) => ValueRef::Text(s),
                Value::Bool(b) => ValueRef::Bool(*b),
            })
    }
}

/// Why a message could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("{message} without {key}")]
    Missing {
        message: &'static str,
        key: &'static str,
    },
    #[error("{0}")]
    Invalid(String),
    #[error("unreadable payload: {0}")]
    Payload(String),
}

fn missing(message: &'static str, key: &'static str) -> DecodeError {
    DecodeError::Missing { message, key }
}

/// A message of the protocol: one encode, one decode.
pub trait Message: Sized {
    /// The output it is sent on (a node may send it on another, e.g. the console's typed
    /// words on `human_text`).
    const OUTPUT: &'static str;
    /// What it carries as its Arrow payload.
    type Payload;

    fn encode(self) -> (Fields, Self::Payload);
    fn decode(meta: &impl Meta, payload: Self::Payload) -> Result<Self, DecodeError>;
}

/// When a human's words were spoken, as the ASR bridge heard them: carried from its
/// `transcript` through the controller's `utterance` to the player, which puts the
/// human on the recording's clock.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HeardSpan {
    /// The bridge's audio input (`audio`, `audio_<source>`): whose stream the times count.
    pub audio_input: String,
    /// Milliseconds of that stream.
    pub start_ms: u64,
    pub end_ms: u64,
}

/// The speaker a message names: its metadata's, else its payload's.
fn named(meta: &impl Meta, text: &str) -> String {
    meta.text(keys::SPEAKER).unwrap_or(text.trim()).to_owned()
}

/// A text that is empty after trimming counts as none.
fn non_blank(text: Option<&str>) -> Option<String> {
    text.filter(|t| !t.trim().is_empty()).map(str::to_owned)
}

#[cfg(test)]
mod tests;

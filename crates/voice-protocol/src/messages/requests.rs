//! Side requests and texts sent as they are: replies, plain messages, clip JSON.

use super::{DecodeError, Fields, Message, Meta};
use crate::{ids, keys};

/// A bridge's answer to a side request (`reply`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    pub request_id: Option<String>,
    /// The kind of request answered (echoed).
    pub kind: Option<String>,
    pub speaker: Option<String>,
    /// Why the request was not answered (the text is then empty).
    pub error: Option<String>,
    pub text: String,
}

impl Message for Reply {
    const OUTPUT: &'static str = ids::REPLY;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        let fields = Fields::new()
            .maybe_text(keys::REQUEST_ID, self.request_id)
            .maybe_text(keys::KIND, self.kind)
            .maybe_text(keys::SPEAKER, self.speaker)
            .maybe_text(keys::ERROR, self.error);
        (fields, self.text)
    }

    fn decode(meta: &impl Meta, text: String) -> Result<Self, DecodeError> {
        let string = |key| meta.text(key).map(str::to_owned);
        Ok(Self {
            request_id: string(keys::REQUEST_ID),
            kind: string(keys::KIND),
            speaker: string(keys::SPEAKER),
            error: string(keys::ERROR),
            text,
        })
    }
}

/// A message that is its text alone, without metadata: a command, a JSON record, a side
/// request, a phase name. Sent on the output its sender names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plain(pub String);

impl Message for Plain {
    /// Plain messages are sent on an output the sender names.
    const OUTPUT: &'static str = "";
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        (Fields::new(), self.0)
    }

    fn decode(_: &impl Meta, text: String) -> Result<Self, DecodeError> {
        Ok(Self(text))
    }
}

/// A clip message (`clip`, `command`, `clip_ready`, ...): JSON, with `clip_id` metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClipJson {
    pub clip_id: String,
    pub json: String,
}

impl ClipJson {
    pub fn of(
        clip_id: impl Into<String>,
        value: &impl serde::Serialize,
    ) -> serde_json::Result<Self> {
        Ok(Self {
            clip_id: clip_id.into(),
            json: serde_json::to_string(value)?,
        })
    }

    /// The JSON as `T`.
    pub fn parse<T: serde::de::DeserializeOwned>(&self) -> Result<T, DecodeError> {
        serde_json::from_str(&self.json).map_err(|e| {
            DecodeError::Invalid(format!(
                "invalid clip JSON ({e}): {}",
                crate::shorten(&self.json)
            ))
        })
    }
}

impl Message for ClipJson {
    /// Clip messages are sent on the output of their kind.
    const OUTPUT: &'static str = "";
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        (
            Fields::new().with_text(keys::CLIP_ID, self.clip_id),
            self.json,
        )
    }

    fn decode(meta: &impl Meta, json: String) -> Result<Self, DecodeError> {
        Ok(Self {
            clip_id: meta.text(keys::CLIP_ID).unwrap_or_default().to_owned(),
            json,
        })
    }
}

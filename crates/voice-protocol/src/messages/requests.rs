//! Side requests, their replies, and clip JSON.

use serde::{Deserialize, Serialize};

use super::{DecodeError, Fields, Message, Meta};
use crate::{ids, keys};

/// Longest accepted side-request prompt, in bytes; longer requests are refused, not cut.
pub const MAX_PROMPT_BYTES: usize = 16 * 1024;

/// Words of a text answer when the request names no limit.
pub const DEFAULT_MAX_WORDS: u32 = 40;

/// A short, non-spoken question a conductor (a moderator, an auction) puts to a
/// participant's model (`request`): its intent to speak, a bid, a candidate question, a
/// kicker, a rating. Answered with a [`Reply`] carrying the same `id`.
///
/// It travels as a JSON object, `{"id": "r-12", "kind": "intent", "prompt": "...",
/// "json": true, "max_words": 12}`, so that a request can be written by hand: `id` and
/// `prompt` are required; `kind` is echoed back (it names what is asked); `json: true`
/// asks for one JSON object as the answer, which the conductor validates itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideRequest {
    pub id: String,
    #[serde(default)]
    pub kind: String,
    pub prompt: String,
    #[serde(default)]
    pub json: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_words: Option<u32>,
    /// The one participant it is for, on an output every bridge hears; `None`: each
    /// bridge that receives it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// The participant's context as its conductor assembles it for a turn (persona,
    /// deck, notes): the answer's prompt starts with it, as the participant's turns do,
    /// so that the model reads one start for both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// How long the conductor still wants the answer, in ms (a rating read at the
    /// debrief can wait minutes; an intent is stale in seconds); `None`: the bridge's own
    /// limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within_ms: Option<u64>,
    /// The answer opens with one of these words (a verdict: "Answered", "Partly",
    /// "Dodged"): an embedded model is held to it while sampling, so that a small model's
    /// reply is never thrown away for starting otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opens_with: Vec<String>,
    /// A text whose words the answer is to take up (a slide's claims and figures, for a
    /// question that challenges them): an embedded model is steered towards its content
    /// words, and an answer that takes up none is sampled again, as an answer to the
    /// human is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub takes_up: Option<String>,
    /// The answer is a question (a candidate question): a statement is sampled again and
    /// an embedded model is steered to open with a question word, as for a turn that is
    /// to ask.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub asks: bool,
}

/// Longest a conductor may ask a bridge to wait for an answer.
pub const MAX_WITHIN_MS: u64 = 600_000;
/// Most words an answer may be held to open with, and their longest.
pub const MAX_OPENINGS: usize = 16;
pub const MAX_OPENING_BYTES: usize = 64;

impl SideRequest {
    /// A request for a spoken-style text answer of at most `max_words` words.
    pub fn text(
        id: impl Into<String>,
        kind: impl Into<String>,
        prompt: impl Into<String>,
        max_words: u32,
    ) -> Self {
        Self {
            id: id.into(),
            kind: kind.into(),
            prompt: prompt.into(),
            json: false,
            max_words: Some(max_words),
            to: None,
            context: None,
            within_ms: None,
            opens_with: Vec::new(),
            takes_up: None,
            asks: false,
        }
    }

    /// The same request, for participant `name` only.
    pub fn to(mut self, name: impl Into<String>) -> Self {
        self.to = Some(name.into());
        self
    }

    /// The same request, wanted for `ms` milliseconds.
    pub fn within(mut self, ms: u64) -> Self {
        self.within_ms = Some(ms);
        self
    }

    /// The same request, its answer opening with one of `words`.
    pub fn opening_with<S: Into<String>>(mut self, words: impl IntoIterator<Item = S>) -> Self {
        self.opens_with = words.into_iter().map(Into::into).collect();
        self
    }

    /// The same request, its answer to take up the words of `text`.
    pub fn taking_up(mut self, text: impl Into<String>) -> Self {
        self.takes_up = Some(text.into());
        self
    }

    /// The same request, its answer a question.
    pub fn asking(mut self) -> Self {
        self.asks = true;
        self
    }

    /// Whether the participant `name` is to answer it.
    pub fn is_for(&self, name: &str) -> bool {
        self.to.as_deref().is_none_or(|to| to == name)
    }

    /// A request for one JSON object as the answer.
    pub fn json(
        id: impl Into<String>,
        kind: impl Into<String>,
        prompt: impl Into<String>,
        max_words: u32,
    ) -> Self {
        Self {
            json: true,
            ..Self::text(id, kind, prompt, max_words)
        }
    }

    /// The words an answer may have (at least one).
    pub fn max_words(&self) -> usize {
        self.max_words.unwrap_or(DEFAULT_MAX_WORDS).max(1) as usize
    }

    /// Reads a request from its JSON text: a clear error for a text that is not one, an
    /// empty `id` or a prompt over [`MAX_PROMPT_BYTES`].
    pub fn parse(text: &str) -> Result<Self, DecodeError> {
        let request: Self = serde_json::from_str(text).map_err(|e| {
            DecodeError::Invalid(format!(
                "a side request must be a JSON object with `id` and `prompt` ({e}): {}",
                crate::shorten(text)
            ))
        })?;
        if request.id.trim().is_empty() {
            return Err(DecodeError::Invalid(
                "a side request's `id` must not be empty".into(),
            ));
        }
        if request.prompt.len() > MAX_PROMPT_BYTES {
            return Err(DecodeError::Invalid(format!(
                "a side request's prompt is {} bytes; at most {MAX_PROMPT_BYTES} are accepted",
                request.prompt.len()
            )));
        }
        if request
            .takes_up
            .as_ref()
            .is_some_and(|t| t.len() > MAX_PROMPT_BYTES)
        {
            return Err(DecodeError::Invalid(format!(
                "a side request's `takes_up` is at most {MAX_PROMPT_BYTES} bytes"
            )));
        }
        if request.within_ms.is_some_and(|ms| ms > MAX_WITHIN_MS) {
            return Err(DecodeError::Invalid(format!(
                "a side request's `within_ms` is at most {MAX_WITHIN_MS} (10 minutes)"
            )));
        }
        if request.opens_with.len() > MAX_OPENINGS
            || request
                .opens_with
                .iter()
                .any(|w| w.trim().is_empty() || w.len() > MAX_OPENING_BYTES)
        {
            return Err(DecodeError::Invalid(format!(
                "a side request's `opens_with` holds at most {MAX_OPENINGS} words of 1 to \
                 {MAX_OPENING_BYTES} bytes"
            )));
        }
        Ok(request)
    }

    /// The JSON text it travels as.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a side request serialises")
    }
}

impl Message for SideRequest {
    /// A conductor with several participants sends each its own (`request_<agent>`).
    const OUTPUT: &'static str = ids::REQUEST;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        let json = self.to_json();
        (Fields::new(), json)
    }

    fn decode(_: &impl Meta, text: String) -> Result<Self, DecodeError> {
        Self::parse(&text)
    }
}

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

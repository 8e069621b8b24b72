//! A bridge's requests to the model host and the host's replies.

use super::{DecodeError, Fields, Message, Meta, missing};
use crate::{ids, keys};

/// What a [`ModelCall`] asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallKind {
    /// Generate a reply (the payload is the job).
    Generate,
    /// Read the conversation into the participant's cache (the payload is the job).
    Prefill,
    /// Stop the request `call_id` (no payload).
    Cancel,
}

impl CallKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Generate => "generate",
            Self::Prefill => "prefill",
            Self::Cancel => "cancel",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        [Self::Generate, Self::Prefill, Self::Cancel]
            .into_iter()
            .find(|k| k.as_str() == text)
    }
}

/// A bridge's request to the model host (`model`). The job (persona, prompt, priority) is
/// the payload, written and read by `agent_bridge::host::HostJob`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelCall {
    pub participant: String,
    pub call_id: u64,
    pub question_id: u64,
    pub kind: CallKind,
    pub job: String,
}

impl Message for ModelCall {
    const OUTPUT: &'static str = ids::MODEL;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        let fields = Fields::new()
            .with_text(keys::PARTICIPANT, self.participant)
            .with_int(keys::CALL_ID, self.call_id as i64)
            .with_question_id(self.question_id)
            .with_text(keys::KIND, self.kind.as_str());
        (fields, self.job)
    }

    fn decode(meta: &impl Meta, job: String) -> Result<Self, DecodeError> {
        let (participant, call_id) = whose("model call", meta)?;
        let kind = meta
            .text(keys::KIND)
            .ok_or_else(|| missing("model call", keys::KIND))?;
        let kind = CallKind::parse(kind)
            .ok_or_else(|| DecodeError::Invalid(format!("unknown model call kind {kind:?}")))?;
        Ok(Self {
            participant,
            call_id,
            question_id: meta.question_id().unwrap_or(0),
            kind,
            job,
        })
    }
}

/// The model host's text for one request (`model_reply`): pieces as they are generated,
/// then one with `done` (and the error, if it failed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelReply {
    pub participant: String,
    pub call_id: u64,
    pub question_id: u64,
    pub done: bool,
    pub error: Option<String>,
    pub text: String,
    /// The text ends a sentence the host's guard judged whole.
    pub ends_sentence: bool,
}

impl Message for ModelReply {
    const OUTPUT: &'static str = ids::MODEL_REPLY;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        let fields = Fields::new()
            .with_text(keys::PARTICIPANT, self.participant)
            .with_int(keys::CALL_ID, self.call_id as i64)
            .with_question_id(self.question_id)
            .with_flag(keys::DONE, self.done)
            .with_flag(keys::ENDS_SENTENCE, self.ends_sentence)
            .maybe_text(keys::ERROR, self.error);
        (fields, self.text)
    }

    fn decode(meta: &impl Meta, text: String) -> Result<Self, DecodeError> {
        let (participant, call_id) = whose("model reply", meta)?;
        Ok(Self {
            participant,
            call_id,
            question_id: meta.question_id().unwrap_or(0),
            done: meta.flag(keys::DONE).unwrap_or(false),
            error: meta.text(keys::ERROR).map(str::to_owned),
            text,
            ends_sentence: meta.flag(keys::ENDS_SENTENCE).unwrap_or(false),
        })
    }
}

/// The participant and the call a model message concerns; both must be there.
fn whose(message: &'static str, meta: &impl Meta) -> Result<(String, u64), DecodeError> {
    let participant = meta
        .text(keys::PARTICIPANT)
        .filter(|p| !p.trim().is_empty())
        .ok_or_else(|| missing(message, keys::PARTICIPANT))?;
    let call_id = meta
        .int(keys::CALL_ID)
        .and_then(|n| u64::try_from(n).ok())
        .ok_or_else(|| missing(message, keys::CALL_ID))?;
    Ok((participant.to_owned(), call_id))
}

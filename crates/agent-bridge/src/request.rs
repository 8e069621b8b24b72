//! Side requests: short, non-spoken questions a conductor (a moderator, an auction) puts
//! to a participant's model — its intent to speak, a bid, a candidate question, a kicker
//! or an interjection — answered on the bridge's `reply` output.
//!
//! The request is a Utf8 JSON object on the `request` input:
//! `{"id": "r-12", "kind": "intent", "prompt": "...", "json": true, "max_words": 12}`.
//! `id` and `prompt` are required; `kind` is free text echoed back (it names what is
//! asked); `json: true` asks for a JSON-only answer, which the conductor validates
//! itself. The scripted stand-in answers no JSON requests: the conductor's heuristic
//! decides then, exactly as when a service fails or times out.

use serde::Deserialize;

use crate::{
    history::{ChatMessage, ChatRole, History},
    persona::Persona,
    scripted,
};

/// Longest accepted prompt, in bytes; longer requests are refused, not cut.
pub const MAX_PROMPT_BYTES: usize = 16 * 1024;

/// Words of a text answer when the request names no limit.
pub const DEFAULT_MAX_WORDS: usize = 40;

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideRequest {
    pub id: String,
    #[serde(default)]
    pub kind: String,
    pub prompt: String,
    #[serde(default)]
    pub json: bool,
    #[serde(default)]
    pub max_words: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("a request must be a JSON object with `id` and `prompt`: {0}")]
    Malformed(String),
    #[error("a request's `id` must not be empty")]
    EmptyId,
    #[error("a request's prompt is {0} bytes; at most {MAX_PROMPT_BYTES} are accepted")]
    TooLong(usize),
}

impl SideRequest {
    pub fn parse(text: &str) -> Result<Self, RequestError> {
        let request: Self =
            serde_json::from_str(text).map_err(|e| RequestError::Malformed(e.to_string()))?;
        if request.id.trim().is_empty() {
            return Err(RequestError::EmptyId);
        }
        if request.prompt.len() > MAX_PROMPT_BYTES {
            return Err(RequestError::TooLong(request.prompt.len()));
        }
        Ok(request)
    }

    pub fn max_words(&self) -> usize {
        self.max_words.unwrap_or(DEFAULT_MAX_WORDS).max(1)
    }

    /// The chat for a model: the participant's whole context, then the request.
    pub fn messages(
        &self,
        persona: &Persona,
        topic: Option<&str>,
        history: &History,
    ) -> Vec<ChatMessage> {
        let mut messages = history.chat_messages(persona, topic);
        let mut content = self.prompt.trim().to_owned();
        if self.json {
            content.push_str("\nAnswer with one JSON object only, no other text.");
        } else {
            content.push_str(&format!(
                "\nAnswer in at most {} spoken words, without a name tag.",
                self.max_words()
            ));
        }
        messages.push(ChatMessage {
            role: ChatRole::System,
            content,
        });
        messages
    }

    /// The scripted stand-in's answer: a short persona line for text requests; an error for
    /// JSON requests (the conductor's heuristic decides).
    pub fn scripted_answer(
        &self,
        persona: &Persona,
        topic: Option<&str>,
        history: &History,
    ) -> Result<String, String> {
        if self.json {
            return Err(
                "the offline model gives no structured answers; the conductor's heuristic decides"
                    .to_owned(),
            );
        }
        Ok(scripted::short_line(
            persona,
            topic,
            history,
            &self.prompt,
            self.max_words(),
            &self.kind,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_strictly() {
        let r = SideRequest::parse(
            r#"{"id":"r1","kind":"intent","prompt":"Do you want to speak?","json":true}"#,
        )
        .unwrap();
        assert_eq!(r.kind, "intent");
        assert!(r.json);
        assert_eq!(r.max_words(), DEFAULT_MAX_WORDS);
        assert!(matches!(
            SideRequest::parse(r#"{"id":"r1","prompt":"x","extra":1}"#),
            Err(RequestError::Malformed(_))
        ));
        assert_eq!(
            SideRequest::parse(r#"{"id":" ","prompt":"x"}"#),
            Err(RequestError::EmptyId)
        );
        let long = format!(
            r#"{{"id":"a","prompt":"{}"}}"#,
            "x".repeat(MAX_PROMPT_BYTES + 1)
        );
        assert!(matches!(
            SideRequest::parse(&long),
            Err(RequestError::TooLong(_))
        ));
    }

    #[test]
    fn scripted_answers_text_but_not_json() {
        let persona = Persona::fallback("skeptic");
        let history = History::new(4);
        let text = SideRequest::parse(
            r#"{"id":"k","kind":"kicker","prompt":"Cut in on the revenue claim","max_words":8}"#,
        )
        .unwrap();
        let answer = text.scripted_answer(&persona, None, &history).unwrap();
        assert!(answer.split_whitespace().count() <= 8, "{answer}");
        let json = SideRequest::parse(r#"{"id":"b","prompt":"bid","json":true}"#).unwrap();
        assert!(json.scripted_answer(&persona, None, &history).is_err());
        let m = json.messages(&persona, Some("cities"), &history);
        assert!(m.last().unwrap().content.contains("JSON"));
    }

    proptest! {
        #[test]
        fn never_panics_on_any_text(text in ".{0,200}") {
            let _ = SideRequest::parse(&text);
        }
    }
}

//! The one client of OpenAI-compatible services, for the nodes that can use one instead
//! of their embedded model: `llm-bridge` (chat completions, streamed), `asr-bridge`
//! (transcriptions) and `tts-player` (speech).
//!
//! One rule each for what they share: settings from env (`<PREFIX>_BASE_URL`,
//! `<PREFIX>_MODEL`, the key in the variable `<PREFIX>_API_KEY_ENV` names), the HTTP
//! client with its timeouts, an error answer read to at most [`MAX_ERROR_BODY_BYTES`],
//! and every error message passed through the service's [`Redactor`] before anyone sees
//! it. The protocol itself (request body, SSE parser, chunks) is pure and lives in
//! `agent_bridge::openai`.

mod blocking;
mod chat;
mod settings;

pub use blocking::BlockingClient;
pub use chat::{ChatClient, StreamLimits};
pub use reqwest::blocking::multipart;
pub use settings::{DEFAULT_BASE_URL, DEFAULT_KEY_ENV, ServiceSettings};
pub use voice_protocol::Redactor;

use std::time::Duration;

/// The most of an error answer's body read for its message (bytes): a body that never
/// ends must not be read into memory, and the message needs only its start.
pub const MAX_ERROR_BODY_BYTES: usize = 16 * 1024;

/// Why a call to a service failed. Every message is redacted (the key, the URL's
/// credentials, bearer tokens) before it leaves this crate.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("cannot set up the HTTP client: {0}")]
    Client(String),
    #[error("cannot reach the {service} at {url}: {reason}")]
    Unreachable {
        service: &'static str,
        url: String,
        reason: String,
    },
    #[error("no answer from {url} within {timeout:?}")]
    NoAnswer { url: String, timeout: Duration },
    #[error("the {service} answered HTTP {status}: {message}")]
    Status {
        service: &'static str,
        status: reqwest::StatusCode,
        message: String,
    },
    #[error("the {service}'s answer broke off: {reason}")]
    BrokenBody {
        service: &'static str,
        reason: String,
    },
    #[error("no first token within {0:?}")]
    NoFirstToken(Duration),
    #[error("the stream stalled for {0:?}")]
    Stalled(Duration),
    #[error("the stream was dropped before it ended")]
    Dropped,
    #[error("the stream broke: {0}")]
    StreamBroken(String),
    #[error(transparent)]
    Sse(#[from] agent_bridge::openai::SseError),
    /// A chunk refused: not JSON, or the service's own `error` event.
    #[error("{0}")]
    Chunk(String),
}

impl ServiceError {
    /// The same error with every text in it redacted: a service may quote the key back
    /// (a 401 body, an SSE `error` event), and a base URL may carry credentials.
    pub(crate) fn redacted(self, redactor: &Redactor) -> Self {
        let r = |text: String| redactor.redact(&text);
        match self {
            Self::Client(reason) => Self::Client(r(reason)),
            Self::Unreachable {
                service,
                url,
                reason,
            } => Self::Unreachable {
                service,
                url: r(url),
                reason: r(reason),
            },
            Self::NoAnswer { url, timeout } => Self::NoAnswer {
                url: r(url),
                timeout,
            },
            Self::Status {
                service,
                status,
                message,
            } => Self::Status {
                service,
                status,
                message: r(message),
            },
            Self::BrokenBody { service, reason } => Self::BrokenBody {
                service,
                reason: r(reason),
            },
            Self::StreamBroken(reason) => Self::StreamBroken(r(reason)),
            Self::Chunk(text) => Self::Chunk(r(text)),
            other @ (Self::NoFirstToken(_) | Self::Stalled(_) | Self::Dropped | Self::Sse(_)) => {
                other
            }
        }
    }
}

/// The message of an error answer: its `error.message` when it is OpenAI's JSON, else
/// the start of the body.
pub fn error_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| {
            v.pointer("/error/message")
                .and_then(|m| m.as_str())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| voice_protocol::shorten(&text))
}

/// reqwest's message without the URL (named once by the caller, and redacted there),
/// with its causes: its own words are only the outer layer ("error sending request"),
/// the why ("operation timed out", "connection refused") is in its sources.
fn without_url(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    if let Some(i) = text.find(" for url (") {
        text.truncate(i);
    }
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_message_is_the_services_own_or_the_start_of_the_body() {
        assert_eq!(
            error_message(br#"{"error":{"message":"invalid api key"}}"#),
            "invalid api key"
        );
        let long = "x".repeat(500);
        let message = error_message(long.as_bytes());
        assert!(message.len() < 100 && message.ends_with('…'), "{message}");
    }

    #[test]
    fn every_text_of_an_error_is_redacted() {
        let redactor = Redactor::new(Some("sk-secret-123"), "http://u:pw-42@host/v1");
        let error = ServiceError::Unreachable {
            service: "model service",
            url: "http://u:pw-42@host/v1/chat/completions".into(),
            reason: "refused sk-secret-123".into(),
        }
        .redacted(&redactor)
        .to_string();
        assert!(
            !error.contains("sk-secret-123") && !error.contains("pw-42"),
            "{error}"
        );
        let error = ServiceError::Chunk("key Bearer sk-secret-123 is over".into())
            .redacted(&redactor)
            .to_string();
        assert_eq!(error, "key Bearer *** is over");
    }
}

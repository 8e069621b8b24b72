//! Chat completions streamed over server-sent events, on the caller's tokio runtime: the
//! bridge aborts the task at a cancel, which drops the stream between two reads.

use std::{ops::ControlFlow, time::Duration};

use agent_bridge::openai::{ChunkError, SseEvent, SseParser, is_retryable, parse_chunk};
use futures_util::StreamExt;
use reqwest::Client;

use crate::{
    MAX_ERROR_BODY_BYTES, ServiceError, ServiceSettings, error_message, settings::Timeout,
    without_url,
};
use voice_protocol::Redactor;

/// The limits of one streamed answer.
#[derive(Debug, Clone, Copy)]
pub struct StreamLimits {
    /// Until the answer's headers, and then its first content.
    pub first_token: Duration,
    /// Between two pieces of content once one came.
    pub stall: Duration,
    /// Tries after the first when the service is busy (429, 408, 5xx) or unreachable,
    /// before the first byte of an answer; never once content has come.
    pub max_retries: u32,
}

/// The longest wait between two tries, whatever the service asks for.
const MAX_BACKOFF: Duration = Duration::from_secs(10);

/// An OpenAI-compatible chat-completions service.
pub struct ChatClient {
    settings: ServiceSettings,
    redactor: Redactor,
    http: Client,
    limits: StreamLimits,
}

impl ChatClient {
    /// A client with `connect` as its connection limit; a stream has no limit as a whole
    /// but `limits` (a turn's deadline is its caller's).
    pub fn new(
        settings: ServiceSettings,
        connect: Duration,
        limits: StreamLimits,
    ) -> Result<Self, ServiceError> {
        let redactor = settings.redactor();
        let http = Timeout::Connect(connect).client(Client::builder(), &redactor)?;
        Ok(Self {
            settings,
            redactor,
            http,
            limits,
        })
    }

    pub fn settings(&self) -> &ServiceSettings {
        &self.settings
    }

    /// Streams the answer to `body` (a chat-completions request with `stream: true`):
    /// each piece of content goes to `on_text` as it comes. Ends at `[DONE]`, at the
    /// close of a stream that gave its finish reason, or when `on_text` breaks (the
    /// rest of the answer is not wanted: the connection is dropped).
    pub async fn stream(
        &self,
        body: &serde_json::Value,
        mut on_text: impl FnMut(String) -> ControlFlow<()>,
    ) -> Result<(), ServiceError> {
        let url = self.settings.url("chat/completions");
        self.stream_from(&url, &body.to_string(), &mut on_text)
            .await
            .map_err(|e| e.redacted(&self.redactor))
    }

    async fn stream_from(
        &self,
        url: &str,
        body: &str,
        on_text: &mut impl FnMut(String) -> ControlFlow<()>,
    ) -> Result<(), ServiceError> {
        let response = self.open(url, body).await?;
        let mut stream = std::pin::pin!(response.bytes_stream());
        let mut parser = SseParser::new();
        let mut read = Reading::default();
        loop {
            let wait = if read.got_content {
                self.limits.stall
            } else {
                self.limits.first_token
            };
            let next = match tokio::time::timeout(wait, stream.next()).await {
                Err(_) if read.got_content => return Err(ServiceError::Stalled(wait)),
                Err(_) => return Err(ServiceError::NoFirstToken(wait)),
                Ok(next) => next,
            };
            let events = match next {
                None => {
                    // Some servers end with a finish reason and close without `[DONE]`.
                    if !read.events(parser.finish(), on_text)? && !read.finish_reason {
                        return Err(ServiceError::Dropped);
                    }
                    return Ok(());
                }
                Some(Err(e)) => return Err(ServiceError::StreamBroken(without_url(&e))),
                Some(Ok(bytes)) => parser.push(&bytes)?,
            };
            if read.events(events, on_text)? {
                return Ok(());
            }
        }
    }

    /// The answer's headers, with bounded retries before its first byte.
    async fn open(&self, url: &str, body: &str) -> Result<reqwest::Response, ServiceError> {
        let service = self.settings.service;
        let limits = self.limits;
        let mut attempt = 0;
        loop {
            let mut call = self
                .http
                .post(url)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.to_owned());
            if let Some(key) = &self.settings.api_key {
                call = call.bearer_auth(key);
            }
            let outcome = tokio::time::timeout(limits.first_token, call.send()).await;
            let retry_after = match outcome {
                Err(_) => {
                    return Err(ServiceError::NoAnswer {
                        url: url.to_owned(),
                        timeout: limits.first_token,
                    });
                }
                Ok(Err(e))
                    if attempt < limits.max_retries && (e.is_connect() || e.is_timeout()) =>
                {
                    None
                }
                Ok(Err(e)) => {
                    return Err(ServiceError::Unreachable {
                        service,
                        url: url.to_owned(),
                        reason: without_url(&e),
                    });
                }
                Ok(Ok(response)) if response.status().is_success() => return Ok(response),
                Ok(Ok(response)) => {
                    let status = response.status();
                    let retry_after = response
                        .headers()
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.trim().parse::<u64>().ok());
                    if !(is_retryable(status.as_u16()) && attempt < limits.max_retries) {
                        let body = error_body(response, limits.first_token).await;
                        return Err(ServiceError::Status {
                            service,
                            status,
                            message: error_message(&body),
                        });
                    }
                    retry_after
                }
            };
            // Exponential backoff (0.5 s, 1 s, 2 s ...), or what the server asked for,
            // capped (the shift is capped too: past 2^5 the cap decides anyway).
            let backoff = retry_after
                .map_or(
                    Duration::from_millis(500 << attempt.min(8)),
                    Duration::from_secs,
                )
                .min(MAX_BACKOFF);
            tracing::warn!(
                service,
                attempt = attempt + 1,
                wait_ms = backoff.as_millis() as u64,
                "service busy or unreachable; retrying"
            );
            tokio::time::sleep(backoff).await;
            attempt += 1;
        }
    }
}

/// What a stream said so far.
#[derive(Default)]
struct Reading {
    got_content: bool,
    finish_reason: bool,
}

impl Reading {
    /// Passes content on; true at `[DONE]` or when `on_text` wants no more.
    fn events(
        &mut self,
        events: Vec<SseEvent>,
        on_text: &mut impl FnMut(String) -> ControlFlow<()>,
    ) -> Result<bool, ServiceError> {
        for event in events {
            match event {
                SseEvent::Done => return Ok(true),
                SseEvent::Data(data) => match parse_chunk(&data) {
                    Ok(delta) => {
                        self.finish_reason |= delta.finish_reason.is_some();
                        if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
                            self.got_content = true;
                            if on_text(text).is_break() {
                                return Ok(true);
                            }
                        }
                    }
                    Err(e @ (ChunkError::Malformed(_) | ChunkError::Service(_))) => {
                        return Err(ServiceError::Chunk(e.to_string()));
                    }
                },
            }
        }
        Ok(false)
    }
}

/// The start of an error answer's body: at most [`MAX_ERROR_BODY_BYTES`], read within
/// `timeout` (a body that never ends must not hold the turn).
async fn error_body(response: reqwest::Response, timeout: Duration) -> Vec<u8> {
    let mut body = Vec::new();
    let mut stream = std::pin::pin!(response.bytes_stream());
    let read = async {
        while let Some(Ok(bytes)) = stream.next().await {
            let room = MAX_ERROR_BODY_BYTES - body.len();
            body.extend_from_slice(&bytes[..bytes.len().min(room)]);
            if body.len() >= MAX_ERROR_BODY_BYTES {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(timeout, read).await;
    body
}

//! The OpenAI-compatible chat-completions protocol, without I/O: the request body, the
//! server-sent-events stream (split anywhere across network reads) and its chunks.

use serde_json::{Value, json};

use crate::history::ChatMessage;

/// Sampling settings of a request.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatSettings {
    pub model: String,
    pub temperature: f64,
    pub max_tokens: u32,
}

/// The JSON body of a streaming chat-completions request.
pub fn request_body(settings: &ChatSettings, messages: &[ChatMessage]) -> Value {
    json!({
        "model": settings.model,
        "stream": true,
        "temperature": settings.temperature,
        "max_tokens": settings.max_tokens,
        "messages": messages
            .iter()
            .map(|m| json!({ "role": m.role.as_str(), "content": m.content }))
            .collect::<Vec<_>>(),
    })
}

/// One server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseEvent {
    /// The `data` of an event (multi-line data joined with `\n`).
    Data(String),
    /// `data: [DONE]`: the stream is complete.
    Done,
}

/// Incremental SSE parser: feed bytes as they arrive, get complete events.
#[derive(Debug, Default, Clone)]
pub struct SseParser {
    line: Vec<u8>,
    data: Vec<String>,
    after_cr: bool,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        for &b in bytes {
            // `\r\n` counts as one line end.
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' | b'\r' => {
                    self.after_cr = b == b'\r';
                    let line = std::mem::take(&mut self.line);
                    self.line_done(&line, &mut events);
                }
                _ => self.line.push(b),
            }
        }
        events
    }

    /// The stream closed: an event without its final blank line still counts.
    pub fn finish(&mut self) -> Vec<SseEvent> {
        let mut events = Vec::new();
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.line_done(&line, &mut events);
        }
        self.dispatch(&mut events);
        events
    }

    fn line_done(&mut self, line: &[u8], events: &mut Vec<SseEvent>) {
        if line.is_empty() {
            self.dispatch(events);
            return;
        }
        let line = String::from_utf8_lossy(line);
        if line.starts_with(':') {
            return; // comment / keep-alive
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line.as_ref(), ""),
        };
        if field == "data" {
            self.data.push(value.to_owned());
        }
    }

    fn dispatch(&mut self, events: &mut Vec<SseEvent>) {
        if self.data.is_empty() {
            return;
        }
        let data = std::mem::take(&mut self.data).join("\n");
        if data.trim() == "[DONE]" {
            events.push(SseEvent::Done);
        } else {
            events.push(SseEvent::Data(data));
        }
    }
}

/// What one streamed chunk says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChunkDelta {
    pub content: Option<String>,
    pub finish_reason: Option<String>,
}

/// Why a chunk was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChunkError {
    #[error("malformed SSE event (not a JSON chat-completion chunk): {0}")]
    Malformed(String),
    #[error("the model service reported an error: {0}")]
    Service(String),
}

/// Parses the data of one event.
pub fn parse_chunk(data: &str) -> Result<ChunkDelta, ChunkError> {
    let value: Value = serde_json::from_str(data)
        .map_err(|_| ChunkError::Malformed(voice_protocol::shorten(data)))?;
    if let Some(error) = value.get("error") {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| error.to_string());
        return Err(ChunkError::Service(voice_protocol::shorten(&message)));
    }
    let Some(choices) = value.get("choices").and_then(Value::as_array) else {
        return Err(ChunkError::Malformed(voice_protocol::shorten(data)));
    };
    let Some(choice) = choices.first() else {
        return Ok(ChunkDelta::default()); // e.g. a usage-only chunk
    };
    Ok(ChunkDelta {
        content: choice
            .pointer("/delta/content")
            .and_then(Value::as_str)
            .map(str::to_owned),
        finish_reason: choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

/// Whether an HTTP status is worth another try.
pub fn is_retryable(status: u16) -> bool {
    status == 429 || status == 408 || (500..600).contains(&status)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::ChatRole;
    use proptest::prelude::*;

    const STREAM: &str = "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n: keep-alive\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\r\n\r\ndata: {\"choices\":[{\"delta\":{\"content\":\"lo.\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";

    fn contents(events: &[SseEvent]) -> String {
        events
            .iter()
            .filter_map(|e| match e {
                SseEvent::Data(d) => parse_chunk(d).unwrap().content,
                SseEvent::Done => None,
            })
            .collect()
    }

    #[test]
    fn parses_a_real_stream() {
        let mut p = SseParser::new();
        let mut events = p.push(STREAM.as_bytes());
        events.extend(p.finish());
        assert_eq!(contents(&events), "Hello.");
        assert_eq!(events.last(), Some(&SseEvent::Done));
        assert_eq!(events.len(), 4);
    }

    #[test]
    fn chunks_and_errors() {
        assert_eq!(
            parse_chunk("{\"choices\":[{\"delta\":{\"content\":\"x\"},\"finish_reason\":null}]}")
                .unwrap(),
            ChunkDelta {
                content: Some("x".into()),
                finish_reason: None
            }
        );
        assert!(matches!(
            parse_chunk("{not json"),
            Err(ChunkError::Malformed(_))
        ));
        assert!(matches!(
            parse_chunk("{\"id\":1}"),
            Err(ChunkError::Malformed(_))
        ));
        assert!(matches!(
            parse_chunk("{\"error\":{\"message\":\"quota exceeded\"}}"),
            Err(ChunkError::Service(m)) if m == "quota exceeded"
        ));
        assert_eq!(
            parse_chunk("{\"choices\":[]}").unwrap(),
            ChunkDelta::default()
        );
        assert!(is_retryable(429) && is_retryable(503) && !is_retryable(401) && !is_retryable(200));
    }

    #[test]
    fn request_body_has_the_conversation() {
        let body = request_body(
            &ChatSettings {
                model: "m".into(),
                temperature: 0.5,
                max_tokens: 99,
            },
            &[ChatMessage {
                role: ChatRole::User,
                content: "[ben]: hi".into(),
            }],
        );
        assert_eq!(body["stream"], true);
        assert_eq!(body["messages"][0]["role"], "user");
        assert_eq!(body["max_tokens"], 99);
    }

    proptest! {
        /// However the bytes are split across reads, the same events come out.
        #[test]
        fn splitting_does_not_matter(cuts in prop::collection::vec(0usize..STREAM.len(), 0..12)) {
            let bytes = STREAM.as_bytes();
            let mut bounds = cuts.clone();
            bounds.sort_unstable();
            let mut p = SseParser::new();
            let mut events = Vec::new();
            let mut start = 0;
            for b in bounds.into_iter().chain([bytes.len()]) {
                events.extend(p.push(&bytes[start..b.max(start)]));
                start = b.max(start);
            }
            events.extend(p.finish());
            prop_assert_eq!(contents(&events), "Hello.");
        }

        #[test]
        fn parsers_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
            let mut p = SseParser::new();
            for e in p.push(&bytes).into_iter().chain(p.finish()) {
                if let SseEvent::Data(d) = e {
                    let _ = parse_chunk(&d);
                }
            }
        }
    }
}

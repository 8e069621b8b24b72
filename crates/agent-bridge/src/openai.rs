//! The OpenAI-compatible chat-completions protocol, without I/O: the request body, the
//! server-sent-events stream (split anywhere across network reads) and its chunks.

use serde_json::{Value, json};

use crate::prompt::ChatMessage;

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

/// Longest SSE line, and longest event data, accepted (bytes). A real chunk is a few
/// hundred bytes; a stream without line ends must not grow memory without bound.
pub const MAX_SSE_LINE_BYTES: usize = 256 * 1024;

/// Why a stream was given up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    #[error("the stream sent a line or event longer than {limit} bytes")]
    TooLong { limit: usize },
}

/// Incremental SSE parser: feed bytes as they arrive, get complete events.
#[derive(Debug, Clone)]
pub struct SseParser {
    line: Vec<u8>,
    data: Vec<String>,
    data_len: usize,
    after_cr: bool,
    max_line: usize,
    overflow: bool,
}

impl Default for SseParser {
    fn default() -> Self {
        Self::with_limit(MAX_SSE_LINE_BYTES)
    }
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// A parser that refuses lines (and events) over `max_line` bytes.
    pub fn with_limit(max_line: usize) -> Self {
        Self {
            line: Vec::new(),
            data: Vec::new(),
            data_len: 0,
            after_cr: false,
            max_line: max_line.max(1),
            overflow: false,
        }
    }

    /// The events completed by `bytes`, or an error once a line or an event outgrows the
    /// limit (the parser keeps nothing more of it).
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        let events = self.push_unbounded(bytes);
        if self.overflow || self.data_len > self.max_line {
            self.line = Vec::new();
            self.data = Vec::new();
            self.data_len = 0;
            self.overflow = false;
            return Err(SseError::TooLong {
                limit: self.max_line,
            });
        }
        Ok(events)
    }

    fn push_unbounded(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
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
                _ if self.line.len() < self.max_line => self.line.push(b),
                // Past the limit: `push` reports it; keep no more of the line.
                _ => self.overflow = true,
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
            self.data_len += value.len() + 1;
            self.data.push(value.to_owned());
        }
    }

    fn dispatch(&mut self, events: &mut Vec<SseEvent>) {
        if self.data.is_empty() {
            return;
        }
        self.data_len = 0;
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
    use crate::prompt::ChatRole;
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
        let mut events = p.push(STREAM.as_bytes()).unwrap();
        events.extend(p.finish());
        assert_eq!(contents(&events), "Hello.");
        assert_eq!(events.last(), Some(&SseEvent::Done));
        assert_eq!(events.len(), 4);
    }

    #[test]
    fn a_stream_without_line_ends_is_refused_not_kept() {
        let mut p = SseParser::with_limit(100);
        // 10 MB without a newline, in 64 KB reads: refused at the first read past the
        // limit, and nothing of it is held.
        let flood = vec![b'x'; 64 * 1024];
        assert_eq!(p.push(&flood), Err(SseError::TooLong { limit: 100 }));
        assert!(p.line.capacity() == 0 && p.data.is_empty());
        // A long line that ends within one read is refused too, not cut short.
        let mut p = SseParser::with_limit(100);
        let mut line = b"data: ".to_vec();
        line.extend(vec![b'y'; 200]);
        line.extend(b"\n\n");
        assert_eq!(p.push(&line), Err(SseError::TooLong { limit: 100 }));
        // Many short data lines of one event add up.
        let mut p = SseParser::with_limit(100);
        let lines = b"data: 0123456789\n".repeat(20);
        assert_eq!(p.push(&lines), Err(SseError::TooLong { limit: 100 }));
        // Keep-alive comments are fine however many arrive.
        let mut p = SseParser::with_limit(100);
        for _ in 0..10_000 {
            assert_eq!(p.push(b": keep-alive\n\n"), Ok(Vec::new()));
        }
        // Up to the limit, a line passes.
        let mut p = SseParser::with_limit(100);
        let mut line = b"data: ".to_vec();
        line.extend(vec![b'z'; 94]);
        line.extend(b"\n\n");
        assert_eq!(p.push(&line).unwrap().len(), 1);
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
                events.extend(p.push(&bytes[start..b.max(start)]).unwrap());
                start = b.max(start);
            }
            events.extend(p.finish());
            prop_assert_eq!(contents(&events), "Hello.");
        }

        #[test]
        fn parsers_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
            let mut p = SseParser::new();
            let pushed = p.push(&bytes).unwrap_or_default();
            for e in pushed.into_iter().chain(p.finish()) {
                if let SseEvent::Data(d) = e {
                    let _ = parse_chunk(&d);
                }
            }
        }
    }
}

//! Model backends. Each runs a generation off the main loop and reports chunks on a
//! channel; [`Cancel`] stops it at once.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use agent_bridge::{
    GenerationRequest, History, Persona, SideRequest,
    openai::{
        ChatSettings, ChunkError, SseEvent, SseParser, is_retryable, parse_chunk, request_body,
    },
    scripted,
};
use crossbeam_channel::Sender;
use futures_util::StreamExt;

pub enum BackendEvent {
    Chunk {
        question_id: u64,
        text: String,
    },
    Finished {
        question_id: u64,
        error: Option<String>,
    },
}

/// Stops a running generation; no chunk of it is reported afterwards.
pub type Cancel = Box<dyn FnOnce() + Send>;

pub trait Backend: Send + Sync {
    fn start(
        &self,
        request: GenerationRequest,
        history: History,
        events: Sender<BackendEvent>,
    ) -> Cancel;

    /// Read the conversation in `request` into the model ahead of a turn (the human it
    /// will answer is still speaking). Only a model that keeps a cache of its prompt
    /// gains from it; the others ignore it.
    fn prefill(&self, _request: GenerationRequest) {}

    /// The offline stand-in answers side requests itself (see [`SideRequest::scripted_answer`]).
    fn is_scripted(&self) -> bool {
        false
    }

    /// Called once when the node leaves: end what runs and let go of what must not be
    /// torn down by the process exit under a running thread.
    fn shutdown(&self) {}
}

/// Shuts a backend down when dropped, whichever way the node's loop ends.
pub struct ShutdownOnDrop(pub Arc<dyn Backend>);

impl Drop for ShutdownOnDrop {
    fn drop(&mut self) {
        self.0.shutdown();
    }
}

/// Chunks of a side request's answer in flight between the model and the collector; the
/// collector drains them at once, so a full channel only makes the model wait briefly.
pub const MAX_SIDE_CHUNKS_IN_FLIGHT: usize = 256;

/// Longest side-request answer collected, in bytes (an intent, a bid or a question is a
/// few hundred): past it the generation is cancelled and the request fails.
pub const MAX_SIDE_ANSWER_BYTES: usize = 64 * 1024;

/// Answers a side request with a model: the same streaming call as a turn, collected
/// into one text, on its own thread; the answer (or the error) goes to `replies`.
/// Bounded by `timeout` and [`MAX_SIDE_ANSWER_BYTES`] whatever the service does.
pub fn ask(
    backend: &Arc<dyn Backend>,
    request: SideRequest,
    messages: Vec<agent_bridge::ChatMessage>,
    history: History,
    timeout: Duration,
    replies: Sender<(SideRequest, Result<String, String>)>,
) {
    let (tx, rx) = crossbeam_channel::bounded(MAX_SIDE_CHUNKS_IN_FLIGHT);
    let cancel = backend.start(
        GenerationRequest {
            question_id: 0,
            messages,
            instruction: None,
            json: request.json,
            max_words: Some(request.max_words()),
            plan: None,
        },
        history,
        tx,
    );
    std::thread::spawn(move || {
        let deadline = std::time::Instant::now() + timeout;
        let mut text = String::new();
        let result = loop {
            match rx.recv_deadline(deadline) {
                Ok(BackendEvent::Chunk { text: chunk, .. })
                    if text.len() + chunk.len() > MAX_SIDE_ANSWER_BYTES =>
                {
                    cancel();
                    break Err(format!(
                        "the answer ran past {MAX_SIDE_ANSWER_BYTES} bytes (MAX_SIDE_ANSWER_BYTES)"
                    ));
                }
                Ok(BackendEvent::Chunk { text: chunk, .. }) => text.push_str(&chunk),
                Ok(BackendEvent::Finished { error: Some(e), .. }) => break Err(e),
                Ok(BackendEvent::Finished { error: None, .. }) if text.trim().is_empty() => {
                    break Err("the model returned an empty answer".to_owned());
                }
                Ok(BackendEvent::Finished { error: None, .. }) => break Ok(text.trim().to_owned()),
                Err(_) => {
                    cancel();
                    break Err(format!("no complete answer within {timeout:?}"));
                }
            }
        };
        let _ = replies.send((request, result));
    });
}

/// The scripted stand-in (a test double), streamed word by word at a speaking-like pace.
pub struct ScriptedBackend {
    persona: Persona,
    topic: Option<String>,
    word_delay: Duration,
}

impl ScriptedBackend {
    pub fn new(persona: Persona, topic: Option<String>, word_delay: Duration) -> Self {
        Self {
            persona,
            topic,
            word_delay,
        }
    }
}

impl Backend for ScriptedBackend {
    fn is_scripted(&self) -> bool {
        true
    }

    fn start(
        &self,
        request: GenerationRequest,
        history: History,
        events: Sender<BackendEvent>,
    ) -> Cancel {
        let text = match &request.instruction {
            Some(instruction) => scripted::instructed_reply(
                &self.persona,
                self.topic.as_deref(),
                &history,
                instruction,
            ),
            None => scripted::reply(&self.persona, self.topic.as_deref(), &history),
        };
        let delay = self.word_delay;
        let question_id = request.question_id;
        let cancelled = Arc::new(AtomicBool::new(false));
        let flag = cancelled.clone();
        std::thread::spawn(move || {
            for word in text.split_inclusive(' ') {
                std::thread::sleep(delay);
                if flag.load(Ordering::SeqCst) {
                    return;
                }
                if events
                    .send(BackendEvent::Chunk {
                        question_id,
                        text: word.to_owned(),
                    })
                    .is_err()
                {
                    return;
                }
            }
            let _ = events.send(BackendEvent::Finished {
                question_id,
                error: None,
            });
        });
        Box::new(move || cancelled.store(true, Ordering::SeqCst))
    }
}

/// Settings of the OpenAI-compatible backend (from env, see the README).
#[derive(Clone)]
pub struct OpenAiConfig {
    pub base_url: String,
    pub api_key: Option<String>,
    pub settings: ChatSettings,
    pub connect_timeout: Duration,
    pub first_token_timeout: Duration,
    pub stall_timeout: Duration,
    /// Limit of a whole turn, retries included: keep-alives and trickles count too.
    pub turn_timeout: Duration,
    pub max_retries: u32,
}

/// The most of an error answer's body read for its message (bytes).
const MAX_ERROR_BODY_BYTES: usize = 16 * 1024;

// The key must never reach a log line.
impl std::fmt::Debug for OpenAiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiConfig")
            .field("base_url", &self.redactor().redact(&self.base_url))
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .field("model", &self.settings.model)
            .finish()
    }
}

impl OpenAiConfig {
    /// What keeps this service's key and URL credentials out of messages.
    pub fn redactor(&self) -> voice_protocol::Redactor {
        voice_protocol::Redactor::new(self.api_key.as_deref(), &self.base_url)
    }
}

/// Any OpenAI-compatible chat-completions server, streamed over SSE.
pub struct OpenAiBackend {
    config: Arc<OpenAiConfig>,
    client: reqwest::Client,
    runtime: tokio::runtime::Runtime,
}

impl OpenAiBackend {
    pub fn new(config: OpenAiConfig) -> eyre::Result<Self> {
        let client = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .build()?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()?;
        Ok(Self {
            config: Arc::new(config),
            client,
            runtime,
        })
    }
}

impl Backend for OpenAiBackend {
    fn start(
        &self,
        request: GenerationRequest,
        _history: History,
        events: Sender<BackendEvent>,
    ) -> Cancel {
        let config = self.config.clone();
        let client = self.client.clone();
        let question_id = request.question_id;
        let task = self.runtime.spawn(async move {
            let turn = stream_chat(&client, &config, &request, &events);
            let error = match tokio::time::timeout(config.turn_timeout, turn).await {
                Ok(result) => result.err(),
                Err(_) => Some(format!(
                    "the turn did not end within {:?} (LLM_TURN_TIMEOUT_SECS)",
                    config.turn_timeout
                )),
            };
            // A service may quote the key or the URL's credentials back: never pass them on.
            let error = error.map(|e| config.redactor().redact(&e));
            let _ = events.send(BackendEvent::Finished { question_id, error });
        });
        Box::new(move || task.abort())
    }
}

/// One generation, with bounded retries before the first byte of a reply.
async fn stream_chat(
    client: &reqwest::Client,
    config: &OpenAiConfig,
    request: &GenerationRequest,
    events: &Sender<BackendEvent>,
) -> Result<(), String> {
    let url = format!("{}/chat/completions", config.base_url.trim_end_matches('/'));
    let body = request_body(&config.settings, &request.messages);
    let mut attempt = 0;
    let response = loop {
        let mut call = client
            .post(&url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string());
        if let Some(key) = &config.api_key {
            call = call.bearer_auth(key);
        }
        let outcome = tokio::time::timeout(config.first_token_timeout, call.send()).await;
        let retry_after = match outcome {
            Err(_) => {
                return Err(format!(
                    "no answer from {url} within {:?}",
                    config.first_token_timeout
                ));
            }
            Ok(Err(e)) if attempt < config.max_retries && (e.is_connect() || e.is_timeout()) => {
                None
            }
            Ok(Err(e)) => {
                return Err(format!(
                    "cannot reach the model service at {url}: {}",
                    without_url(&e)
                ));
            }
            Ok(Ok(response)) if response.status().is_success() => break response,
            Ok(Ok(response)) => {
                let status = response.status();
                let retry_after = response
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<u64>().ok());
                if !(is_retryable(status.as_u16()) && attempt < config.max_retries) {
                    let text = error_body(response, config.first_token_timeout).await;
                    let message = serde_json::from_str::<serde_json::Value>(&text)
                        .ok()
                        .and_then(|v| {
                            v.pointer("/error/message")
                                .and_then(|m| m.as_str())
                                .map(str::to_owned)
                        })
                        .unwrap_or_else(|| voice_protocol::shorten(&text));
                    return Err(format!(
                        "the model service answered HTTP {status}: {message}"
                    ));
                }
                retry_after
            }
        };
        // Exponential backoff (0.5 s, 1 s, 2 s ...), or what the server asked for, capped.
        let backoff =
            retry_after.map_or(Duration::from_millis(500 << attempt), Duration::from_secs);
        tracing::warn!(
            attempt = attempt + 1,
            wait_ms = backoff.as_millis() as u64,
            "model service busy or unreachable; retrying"
        );
        tokio::time::sleep(backoff.min(Duration::from_secs(10))).await;
        attempt += 1;
    };

    let mut stream = std::pin::pin!(response.bytes_stream());
    let mut parser = SseParser::new();
    let mut got_content = false;
    let mut finish_reason = false;
    loop {
        let wait = if got_content {
            config.stall_timeout
        } else {
            config.first_token_timeout
        };
        let next = match tokio::time::timeout(wait, stream.next()).await {
            Err(_) if got_content => return Err(format!("the stream stalled for {wait:?}")),
            Err(_) => return Err(format!("no first token within {wait:?}")),
            Ok(next) => next,
        };
        let sse = match next {
            None => {
                let tail = parser.finish();
                // Some servers end with a finish reason and close without `[DONE]`.
                if !handle_events(
                    tail,
                    request.question_id,
                    events,
                    &mut got_content,
                    &mut finish_reason,
                )? && !finish_reason
                {
                    return Err("the stream was dropped before it ended".to_owned());
                }
                return Ok(());
            }
            Some(Err(e)) => return Err(format!("the stream broke: {}", without_url(&e))),
            Some(Ok(bytes)) => parser.push(&bytes).map_err(|e| e.to_string())?,
        };
        if handle_events(
            sse,
            request.question_id,
            events,
            &mut got_content,
            &mut finish_reason,
        )? {
            return Ok(());
        }
    }
}

/// The start of an error answer's body, as text: at most [`MAX_ERROR_BODY_BYTES`], read
/// within `timeout` (a body that never ends must not hold the turn).
async fn error_body(response: reqwest::Response, timeout: Duration) -> String {
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
    String::from_utf8_lossy(&body).into_owned()
}

/// Forwards content; returns true at `[DONE]`.
fn handle_events(
    sse: Vec<SseEvent>,
    question_id: u64,
    events: &Sender<BackendEvent>,
    got_content: &mut bool,
    finish_reason: &mut bool,
) -> Result<bool, String> {
    for event in sse {
        match event {
            SseEvent::Done => return Ok(true),
            SseEvent::Data(data) => match parse_chunk(&data) {
                Ok(delta) => {
                    *finish_reason |= delta.finish_reason.is_some();
                    if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
                        *got_content = true;
                        let _ = events.send(BackendEvent::Chunk { question_id, text });
                    }
                }
                Err(e @ (ChunkError::Malformed(_) | ChunkError::Service(_))) => {
                    return Err(e.to_string());
                }
            },
        }
    }
    Ok(false)
}

/// reqwest's message without the URL (it may carry credentials in odd setups).
fn without_url(e: &reqwest::Error) -> String {
    let mut e = e.to_string();
    if let Some(i) = e.find(" for url (") {
        e.truncate(i);
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model that streams `chunks` chunks of `size` bytes, as fast as it can.
    struct Flood {
        chunks: usize,
        size: usize,
    }

    impl Backend for Flood {
        fn start(
            &self,
            request: GenerationRequest,
            _: History,
            events: Sender<BackendEvent>,
        ) -> Cancel {
            let (chunks, size) = (self.chunks, self.size);
            let stop = Arc::new(AtomicBool::new(false));
            let stopped = stop.clone();
            std::thread::spawn(move || {
                for _ in 0..chunks {
                    if stopped.load(Ordering::SeqCst) {
                        return;
                    }
                    let chunk = BackendEvent::Chunk {
                        question_id: request.question_id,
                        text: "x".repeat(size),
                    };
                    if events.send(chunk).is_err() {
                        return;
                    }
                }
                let _ = events.send(BackendEvent::Finished {
                    question_id: request.question_id,
                    error: None,
                });
            });
            Box::new(move || stop.store(true, Ordering::SeqCst))
        }
    }

    fn side_answer(backend: Flood) -> Result<String, String> {
        let backend: Arc<dyn Backend> = Arc::new(backend);
        let (tx, rx) = crossbeam_channel::bounded(1);
        let request = SideRequest {
            id: "r1".into(),
            kind: "intent".into(),
            prompt: "Do you want to speak?".into(),
            json: false,
            max_words: None,
        };
        ask(
            &backend,
            request,
            Vec::new(),
            History::new(4),
            Duration::from_secs(30),
            tx,
        );
        rx.recv_timeout(Duration::from_secs(60))
            .expect("an answer")
            .1
    }

    #[test]
    fn a_side_answer_past_its_cap_is_cancelled_not_collected() {
        let refused = side_answer(Flood {
            chunks: 100_000,
            size: 1024,
        })
        .unwrap_err();
        assert!(refused.contains("MAX_SIDE_ANSWER_BYTES"), "{refused}");
        let kept = side_answer(Flood {
            chunks: 1_000,
            size: 8,
        })
        .unwrap();
        assert_eq!(kept.len(), 8_000);
    }
}

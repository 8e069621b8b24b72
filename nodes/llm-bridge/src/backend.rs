//! Model backends. Each runs a generation off the main loop and reports chunks on a
//! channel; [`Cancel`] stops it at once.

use std::{
    ops::ControlFlow,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use agent_bridge::{
    ChatMessage, ChatRole, GenerationRequest, History, Persona, SideRequest,
    local::OutputFilter,
    openai::{ChatSettings, request_body},
    reply::{self, RESAMPLE_WARMING, RESAMPLES, ReplyPolicy},
    scripted,
};
use crossbeam_channel::Sender;
use service_client::{ChatClient, ServiceSettings, StreamLimits};

pub enum BackendEvent {
    Chunk {
        question_id: u64,
        text: String,
        /// The text ends a sentence the guard took whole.
        ends_sentence: bool,
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

    /// Read `request`, this participant's next turn as predicted now, into the model
    /// (a line was heard). Only a model that keeps a cache gains from it.
    fn read_ahead(&self, _request: GenerationRequest) {}

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
    prompt: agent_bridge::Prompt,
    history: History,
    timeout: Duration,
    replies: Sender<(SideRequest, Result<String, String>)>,
) {
    let (tx, rx) = crossbeam_channel::bounded(MAX_SIDE_CHUNKS_IN_FLIGHT);
    let cancel = backend.start(
        GenerationRequest {
            question_id: 0,
            prompt,
            instruction: None,
            json: request.json,
            max_words: Some(request.max_words()),
            plan: None,
            opens_with: request.opens_with.clone(),
            takes_up: request.takes_up.clone(),
            asks: request.asks,
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
                        ends_sentence: false,
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

/// Settings of the OpenAI-compatible backend (from env, see the root README).
#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    /// Where the service is, its key and what messages call it.
    pub service: ServiceSettings,
    pub chat: ChatSettings,
    pub connect_timeout: Duration,
    pub limits: StreamLimits,
    /// Limit of a whole turn, retries included: keep-alives and trickles count too.
    pub turn_timeout: Duration,
    /// A spoken turn ends at the first sentence end after this many words.
    pub max_words: usize,
}

/// Any OpenAI-compatible chat-completions server, streamed over SSE. Its replies go
/// through the same [`ReplyPolicy`] as the embedded model's: a refused sentence is not
/// said, and a reply of which nothing could be said is asked for again, warmer.
pub struct OpenAiBackend {
    client: Arc<ChatClient>,
    chat: Arc<ChatSettings>,
    persona: Arc<Persona>,
    turn_timeout: Duration,
    max_words: usize,
    runtime: tokio::runtime::Runtime,
}

impl OpenAiBackend {
    pub fn new(config: OpenAiConfig, persona: Persona) -> eyre::Result<Self> {
        let client = ChatClient::new(config.service, config.connect_timeout, config.limits)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()?;
        Ok(Self {
            client: Arc::new(client),
            chat: Arc::new(config.chat),
            persona: Arc::new(persona),
            turn_timeout: config.turn_timeout,
            max_words: config.max_words,
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
        let client = self.client.clone();
        let chat = self.chat.clone();
        let persona = self.persona.clone();
        let (turn_timeout, max_words) = (self.turn_timeout, self.max_words);
        let question_id = request.question_id;
        let task = self.runtime.spawn(async move {
            let turn = guarded_reply(&client, &chat, &persona, &request, max_words, &events);
            // The client's errors come redacted: a service may quote the key back.
            let error = match tokio::time::timeout(turn_timeout, turn).await {
                Ok(result) => result.err().map(|e| e.to_string()),
                Err(_) => Some(format!(
                    "the turn did not end within {turn_timeout:?} (LLM_TURN_TIMEOUT_SECS)"
                )),
            };
            let _ = events.send(BackendEvent::Finished { question_id, error });
        });
        Box::new(move || task.abort())
    }
}

/// What a turn whose last attempt `filter` silenced says: the prepared words, if any
/// (logged either way).
pub(crate) fn last_words<'p>(
    policy: &'p ReplyPolicy,
    filter: &OutputFilter,
    question_id: u64,
) -> Option<&'p str> {
    if !policy.silenced(filter) {
        return None;
    }
    let words = policy.prepared_words();
    match words {
        Some(words) => {
            tracing::info!(question_id, refused = ?filter.refused(), %words, "every sentence refused; the prepared words are said")
        }
        None => {
            tracing::info!(question_id, refused = ?filter.refused(), "every sentence refused; the turn ends without words")
        }
    }
    words
}

/// The highest temperature OpenAI-compatible services accept.
const MAX_TEMPERATURE: f64 = 2.0;

/// One turn from the service under the reply policy: each attempt's stream filtered as
/// it comes, the next attempt asked for (warmer; the last one afresh on the agenda's
/// point) while nothing could be said, the prepared words said when every attempt was
/// refused. A JSON answer is passed on whole, as the service wrote it.
async fn guarded_reply(
    client: &ChatClient,
    chat: &ChatSettings,
    persona: &Persona,
    request: &GenerationRequest,
    max_words: usize,
    events: &Sender<BackendEvent>,
) -> Result<(), service_client::ServiceError> {
    let question_id = request.question_id;
    let send_marked = |text: String, ends_sentence: bool| {
        if !text.is_empty() {
            let _ = events.send(BackendEvent::Chunk {
                question_id,
                text,
                ends_sentence,
            });
        }
    };
    let send = |text: String| send_marked(text, false);
    let shown = request.prompt.chat_messages(&persona.name);
    if request.json {
        return client
            .stream(&request_body(chat, &shown), |text| {
                send(text);
                ControlFlow::Continue(())
            })
            .await;
    }
    let prompt = ReplyPolicy::prompt(request);
    let policy = ReplyPolicy::new(request, persona, &prompt, &shown, max_words);
    let started = std::time::Instant::now();
    for attempt in 0..=RESAMPLES {
        let mut messages = shown.clone();
        if let Some(point) = policy.afresh_point().filter(|_| attempt == RESAMPLES) {
            messages.push(ChatMessage {
                role: ChatRole::System,
                content: reply::afresh_request(point),
            });
        }
        // Warmer, within what the APIs accept (at most 2).
        let warmer = ChatSettings {
            temperature: (chat.temperature + f64::from(RESAMPLE_WARMING) * f64::from(attempt))
                .min(MAX_TEMPERATURE.max(chat.temperature)),
            ..chat.clone()
        };
        let mut filter = policy.filter(attempt);
        let mut gave_up = false;
        client
            .stream(&request_body(&warmer, &messages), |text| {
                let filtered = filter.push(&text);
                send_marked(filtered.text, filtered.ends_sentence);
                if filtered.stop {
                    return ControlFlow::Break(());
                }
                gave_up = policy.gives_up(&filter, attempt);
                if gave_up {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
            .await?;
        if !gave_up {
            let rest = filter.finish();
            send_marked(rest.text, rest.ends_sentence);
        }
        let refused = filter.refused().len();
        tracing::info!(
            participant = %persona.name,
            question_id,
            attempt,
            refused,
            spoken_words = filter.emitted().split_whitespace().count(),
            ms = started.elapsed().as_millis() as u64,
            "service reply"
        );
        if gave_up || policy.asks_again(&filter, attempt) {
            tracing::debug!(question_id, attempt, refused = ?filter.refused(), "every sentence refused; asking again");
            continue;
        }
        if let Some(words) = last_words(&policy, &filter, question_id) {
            send(words.to_owned());
        }
        return Ok(());
    }
    Ok(())
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
                        ends_sentence: false,
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
            max_words: None,
            ..SideRequest::text("r1", "intent", "Do you want to speak?", 1)
        };
        ask(
            &backend,
            request,
            agent_bridge::Prompt::default(),
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

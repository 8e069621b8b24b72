//! Model backends. Each runs a generation on its own thread and reports chunks; the
//! cancel flag stops it between chunks.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use agent_bridge::{GenerationRequest, History, Persona, offline};
use crossbeam_channel::Sender;

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

pub trait Backend: Send + Sync {
    fn start(
        &self,
        request: GenerationRequest,
        history: History,
        events: Sender<BackendEvent>,
        cancel: Arc<AtomicBool>,
    );
}

/// The deterministic offline model, streamed word by word at a speaking-like pace.
pub struct OfflineBackend {
    persona: Persona,
    topic: Option<String>,
    word_delay: Duration,
}

impl OfflineBackend {
    pub fn new(persona: Persona, topic: Option<String>, word_delay: Duration) -> Self {
        Self {
            persona,
            topic,
            word_delay,
        }
    }
}

impl Backend for OfflineBackend {
    fn start(
        &self,
        request: GenerationRequest,
        history: History,
        events: Sender<BackendEvent>,
        cancel: Arc<AtomicBool>,
    ) {
        let text = offline::reply(&self.persona, self.topic.as_deref(), &history);
        let delay = self.word_delay;
        let question_id = request.question_id;
        std::thread::spawn(move || {
            for word in text.split_inclusive(' ') {
                std::thread::sleep(delay);
                if cancel.load(Ordering::SeqCst) {
                    return;
                }
                let chunk = BackendEvent::Chunk {
                    question_id,
                    text: word.to_owned(),
                };
                if events.send(chunk).is_err() {
                    return;
                }
            }
            let _ = events.send(BackendEvent::Finished {
                question_id,
                error: None,
            });
        });
    }
}

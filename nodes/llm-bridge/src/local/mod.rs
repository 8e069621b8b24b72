//! The embedded model: a GGUF file run in-process by llama.cpp.
//!
//! One worker thread owns the model and one context. Generations run one at a time in
//! arrival order; the context's cache keeps the tokens of the previous prompt, and a new
//! prompt only computes what follows the part it shares with it (the persona and the
//! conversation lines seen before). What the model is asked and what of its stream is
//! spoken is decided in [`agent_bridge::local`].

mod engine;
mod generate;
mod worker;

use std::{
    num::NonZeroU32,
    path::{Path, PathBuf},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Instant,
};

use agent_bridge::{
    GenerationRequest, History, Persona,
    guard::SentenceGuard,
    local::{
        FitError, LocalPrompt, OutputFilter, PromptWindow, prepared_words, quoted_spans,
        reusable_prefix,
    },
};
use crossbeam_channel::{Receiver, Sender};
use eyre::{Context, bail, eyre};
use llama_cpp_2::{
    context::{LlamaContext, params::LlamaContextParams},
    llama_backend::LlamaBackend,
    llama_batch::LlamaBatch,
    model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel, params::LlamaModelParams},
    sampling::LlamaSampler,
    token::LlamaToken,
};

use crate::backend::{Backend, BackendEvent, Cancel};
use engine::*;
use generate::*;
use worker::*;

/// The model setup.sh installs, relative to the repository: Qwen2.5-Coder-0.5B-Instruct,
/// the smallest model that keeps a conversation on its topic (docs/BENCHMARKS.md).
pub const DEFAULT_MODEL: &str = "models/qwen2.5-coder-0.5b-instruct.gguf";

/// The small, fast model setup.sh also installs (SmolLM2-135M-Instruct): tests of the
/// plumbing use it, where what is said matters less than that it streams.
pub const SMALL_MODEL: &str = "models/SmolLM2-135M-Instruct.Q4_1.gguf";

/// Settings of the embedded backend (from env, see the README).
#[derive(Debug, Clone)]
pub struct LocalConfig {
    pub model_path: PathBuf,
    pub threads: i32,
    pub context_tokens: u32,
    pub max_tokens: usize,
    pub max_words: usize,
    pub temperature: f32,
    pub seed: u32,
    /// Conversation lines a prompt shows at most.
    pub window_lines: usize,
    /// Keep the cache of the previous prompt and compute only what a new one adds
    /// (`LLM_PREFIX_REUSE`, on by default; off only to measure what it saves).
    pub prefix_reuse: bool,
}

/// Figures of one finished generation, for logs and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GenerationStats {
    /// The first attempt's prompt: its length, how much of it the cache held, and how
    /// long reading the rest took.
    pub prompt_tokens: usize,
    pub reused_tokens: usize,
    pub prompt_ms: f64,
    /// The last attempt's reply.
    pub generated_tokens: usize,
    pub generation_ms: f64,
    /// How many times the turn was sampled (a reply whose every sentence was refused is
    /// sampled again).
    pub attempts: u32,
}

struct Job {
    request: GenerationRequest,
    cancel: Arc<AtomicBool>,
    events: Sender<BackendEvent>,
    /// Only read the conversation into the cache ([`Backend::prefill`]); nothing is said.
    prefill: bool,
}

pub struct LocalBackend {
    /// Spoken turns (a question id) and side requests (none): a turn goes first, so the
    /// conversation never waits behind intents or candidate questions.
    turns: Sender<Job>,
    side_requests: Sender<Job>,
    stats: Arc<std::sync::Mutex<Option<GenerationStats>>>,
    /// Set once the node is leaving: the generation under way ends at its next token.
    shutdown: Arc<AtomicBool>,
    /// Wakes the worker when it waits for work; closed by the worker when it has let go
    /// of the model.
    stop: Sender<()>,
    finished: Receiver<()>,
}

/// How long leaving waits for the model thread to let go of the model (a token or a
/// 64-token prompt slice, normally milliseconds).
const SHUTDOWN_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// llama.cpp's process-wide state: set up once, shared by every model in the process.
fn llama() -> Result<&'static LlamaBackend, String> {
    static LLAMA: std::sync::OnceLock<Result<LlamaBackend, String>> = std::sync::OnceLock::new();
    LLAMA
        .get_or_init(|| {
            let mut backend =
                LlamaBackend::init().map_err(|e| format!("cannot start llama.cpp: {e}"))?;
            backend.void_logs();
            Ok(backend)
        })
        .as_ref()
        .map_err(Clone::clone)
}

impl LocalBackend {
    /// Loads the model (on the worker thread) and returns once it is ready, or with a
    /// clear error naming the file.
    pub fn load(config: LocalConfig, persona: Persona) -> eyre::Result<Self> {
        check_model_file(&config.model_path)?;
        let (turns, turn_rx) = crossbeam_channel::unbounded::<Job>();
        let (side_requests, side_rx) = crossbeam_channel::unbounded::<Job>();
        let (ready_tx, ready_rx) = crossbeam_channel::bounded::<Result<(), String>>(1);
        let stats = Arc::new(std::sync::Mutex::new(None));
        let shutdown = Arc::new(AtomicBool::new(false));
        let (stop, stop_rx) = crossbeam_channel::bounded::<()>(1);
        let (finished_tx, finished) = crossbeam_channel::bounded::<()>(0);
        let worker_state = WorkerState {
            stats: stats.clone(),
            shutdown: shutdown.clone(),
            stop: stop_rx,
            finished: finished_tx,
        };
        std::thread::Builder::new()
            .name("local-model".into())
            .spawn(move || worker(config, persona, (turn_rx, side_rx), ready_tx, worker_state))
            .context("cannot start the model thread")?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(Self {
                turns,
                side_requests,
                stats,
                shutdown,
                stop,
                finished,
            }),
            Ok(Err(e)) => Err(eyre!(e)),
            Err(_) => bail!("the model thread ended while loading"),
        }
    }
}

impl LocalBackend {
    /// Figures of the last finished generation.
    pub fn last_stats(&self) -> Option<GenerationStats> {
        *self.stats.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Backend for LocalBackend {
    /// Ends the generation under way and waits (bounded) until the model thread has
    /// dropped the context and the model: a process that exits while llama.cpp computes
    /// on another thread tears its global state down under it.
    fn shutdown(&self) {
        self.shutdown.store(true, Ordering::SeqCst);
        let _ = self.stop.try_send(());
        // Disconnected (the worker dropped its sender) means it is gone; only a timeout
        // leaves it running.
        if let Err(crossbeam_channel::RecvTimeoutError::Timeout) =
            self.finished.recv_timeout(SHUTDOWN_WAIT)
        {
            tracing::warn!(wait = ?SHUTDOWN_WAIT, "the model thread did not finish in time");
        }
    }

    fn start(
        &self,
        request: GenerationRequest,
        _history: History,
        events: Sender<BackendEvent>,
    ) -> Cancel {
        let cancel = Arc::new(AtomicBool::new(false));
        let question_id = request.question_id;
        let job = Job {
            request,
            cancel: cancel.clone(),
            events: events.clone(),
            prefill: false,
        };
        let queue = if question_id == 0 {
            &self.side_requests
        } else {
            &self.turns
        };
        if queue.send(job).is_err() {
            let _ = events.send(BackendEvent::Finished {
                question_id,
                error: Some("the embedded model is not running".to_owned()),
            });
        }
        Box::new(move || cancel.store(true, Ordering::SeqCst))
    }

    /// Queued with the turns, so that it is read before the turn it prepares.
    fn prefill(&self, request: GenerationRequest) {
        let (events, _) = crossbeam_channel::bounded(0);
        let job = Job {
            request,
            cancel: Arc::new(AtomicBool::new(false)),
            events,
            prefill: true,
        };
        if self.turns.send(job).is_err() {
            tracing::debug!("the embedded model is not running; nothing prefilled");
        }
    }
}

/// A missing, unreadable or non-GGUF file is an error before llama.cpp sees it.
fn check_model_file(path: &Path) -> eyre::Result<()> {
    let hint =
        "install the default model with `scripts/setup.sh`, or point LLM_MODEL_PATH at a GGUF file";
    let mut magic = [0u8; 4];
    let read = std::fs::File::open(path).and_then(|mut f| {
        use std::io::Read;
        f.read_exact(&mut magic)
    });
    match read {
        Err(e) => bail!("cannot read the model file {}: {e}; {hint}", path.display()),
        Ok(()) if &magic != b"GGUF" => {
            bail!("{} is not a GGUF model file; {hint}", path.display())
        }
        Ok(()) => Ok(()),
    }
}

impl Drop for LocalBackend {
    fn drop(&mut self) {
        self.shutdown();
    }
}

#[cfg(test)]
mod tests;

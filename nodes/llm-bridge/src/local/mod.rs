//! The embedded model: a GGUF file run in-process by llama.cpp, serving one participant
//! (the bridge's `local` backend) or every participant of a machine (the model host).
//!
//! One model and one context hold one cache sequence per participant, never thrown away:
//! a new prompt keeps what its sequence already read (the lines that left the window are
//! shifted out) and reads only what is new. Every request runs on a thread of its own,
//! one decode step at a time; before each step it waits at a priority gate
//! ([`model_schedule::Gate`]), so that the answer to the human is never behind lower work
//! for longer than one step. What the model is asked and what of its stream is spoken is
//! decided in [`agent_bridge::local`].

mod engine;
mod generate;
mod host;
mod sampling;
mod sequences;

use std::{
    collections::HashMap,
    num::NonZeroU32,
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::Instant,
};

use agent_bridge::{
    GenerationRequest, History, Persona, PromptLine,
    host::HostJob,
    local::{Filtered, FitError, LocalPrompt, OutputFilter, PromptWindow},
    reply::{RESAMPLE_WARMING, RESAMPLES, ReplyPolicy},
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
use model_schedule::{Priority, Ticket};

use crate::backend::{Backend, BackendEvent, Cancel};
use engine::*;
use generate::*;
use host::*;
use sampling::*;
use sequences::*;

/// The model setup.sh installs, relative to the repository: Qwen2.5-Coder-0.5B-Instruct,
/// the smallest model that keeps a conversation on its topic (docs/BENCHMARKS.md).
pub const DEFAULT_MODEL: &str = "models/qwen2.5-coder-0.5b-instruct.gguf";

/// The small, fast model setup.sh also installs (SmolLM2-135M-Instruct): tests of the
/// plumbing use it, where what is said matters less than that it streams.
pub const SMALL_MODEL: &str = "models/SmolLM2-135M-Instruct.Q4_1.gguf";

/// Settings of the embedded model (from env, see the root README).
#[derive(Debug, Clone)]
pub struct LocalConfig {
    pub model_path: PathBuf,
    /// Threads decoding one token of one sequence.
    pub threads: i32,
    /// Threads reading a prompt or decoding several sequences in one batch
    /// (`LLM_BATCH_THREADS`, else `threads`): that work is bound by arithmetic, where one
    /// token is bound by reading the weights.
    pub batch_threads: i32,
    /// The context of one participant's sequence, in tokens.
    pub context_tokens: u32,
    pub max_tokens: usize,
    pub max_words: usize,
    pub temperature: f32,
    pub seed: u32,
    /// Conversation lines a prompt shows at most.
    pub window_lines: usize,
    /// Keep each sequence's cache and compute only what a new prompt adds
    /// (`LLM_PREFIX_REUSE`, on by default; off only to measure what it saves).
    pub prefix_reuse: bool,
    /// How many participants keep a sequence of their own at once (two more are kept,
    /// for side requests and for turns started afresh); a participant past them takes
    /// the longest unused one.
    pub participants: u32,
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

/// One request as the model's threads run it.
struct Job {
    participant: String,
    persona: Persona,
    request: GenerationRequest,
    priority: Priority,
    cancel: Arc<AtomicBool>,
    events: Sender<BackendEvent>,
    /// Only read the conversation into the cache; nothing is said.
    prefill: bool,
    /// With `prefill`: read the whole predicted turn ([`HostJob::whole`]).
    whole: bool,
    /// When the host took the request: its `prompt_ms` and `first_text_ms` count from
    /// here, the wait for the participant's earlier work (its reading ahead) included,
    /// as the listener waits.
    received: Instant,
}

/// The loaded model, serving any number of participants. Dropping it ends what runs and
/// lets go of the model.
pub struct ModelHost {
    jobs: Sender<Job>,
    stats: Arc<Mutex<HashMap<String, GenerationStats>>>,
    /// Set once the node is leaving: every request under way ends at its next step.
    shutdown: Arc<AtomicBool>,
    /// Wakes the dispatcher when it waits for work; closed by it once it let go of the
    /// model.
    stop: Sender<()>,
    finished: Receiver<()>,
}

/// How long leaving waits for the model's threads to let go of the model (a token or a
/// prompt slice, normally milliseconds).
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

impl ModelHost {
    /// Loads the model (on the dispatcher thread) and returns once it is ready, or with a
    /// clear error naming the file.
    pub fn load(config: LocalConfig) -> eyre::Result<Self> {
        check_model_file(&config.model_path)?;
        let (jobs, job_rx) = crossbeam_channel::unbounded::<Job>();
        let (ready_tx, ready_rx) = crossbeam_channel::bounded::<Result<(), String>>(1);
        let stats = Arc::new(Mutex::new(HashMap::new()));
        let shutdown = Arc::new(AtomicBool::new(false));
        let (stop, stop_rx) = crossbeam_channel::bounded::<()>(1);
        let (finished_tx, finished) = crossbeam_channel::bounded::<()>(0);
        let state = DispatchState {
            stats: stats.clone(),
            shutdown: shutdown.clone(),
            stop: stop_rx,
            finished: finished_tx,
        };
        std::thread::Builder::new()
            .name("model-host".into())
            .spawn(move || dispatch(config, job_rx, ready_tx, state))
            .context("cannot start the model thread")?;
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(Self {
                jobs,
                stats,
                shutdown,
                stop,
                finished,
            }),
            Ok(Err(e)) => Err(eyre!(e)),
            Err(_) => bail!("the model thread ended while loading"),
        }
    }

    /// Runs `job` for `participant`; its text and its end go to `events`. A prefill
    /// reports nothing.
    pub fn submit(&self, participant: &str, job: HostJob, events: Sender<BackendEvent>) -> Cancel {
        let cancel = Arc::new(AtomicBool::new(false));
        let question_id = job.request.question_id;
        let prefill = job.prefill;
        let job = Job {
            participant: participant.to_owned(),
            persona: job.persona,
            request: job.request,
            // Reading ahead waits for everything else, but for an answer to the human
            // who speaks now: that reading is the answer's own first work, and the turns
            // it would wait for are held while the human speaks.
            priority: if prefill && job.priority != Priority::Answer {
                Priority::ReadAlong
            } else {
                job.priority
            },
            cancel: cancel.clone(),
            events: events.clone(),
            prefill,
            whole: job.whole,
            received: Instant::now(),
        };
        if self.jobs.send(job).is_err() && !prefill {
            let _ = events.send(BackendEvent::Finished {
                question_id,
                error: Some("the embedded model is not running".to_owned()),
            });
        }
        Box::new(move || cancel.store(true, Ordering::SeqCst))
    }

    /// Figures of `participant`'s last finished generation.
    pub fn last_stats(&self, participant: &str) -> Option<GenerationStats> {
        self.stats
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(participant)
            .copied()
    }

    /// Ends what runs and waits (bounded) until the model's threads have dropped the
    /// context and the model: a process that exits while llama.cpp computes on another
    /// thread tears its global state down under it.
    pub fn shutdown(&self) {
        self.shutdown.store(true, Ordering::SeqCst);
        let _ = self.stop.try_send(());
        // Disconnected (the dispatcher dropped its sender) means it is gone; only a
        // timeout leaves it running.
        if let Err(crossbeam_channel::RecvTimeoutError::Timeout) =
            self.finished.recv_timeout(SHUTDOWN_WAIT)
        {
            tracing::warn!(wait = ?SHUTDOWN_WAIT, "the model thread did not finish in time");
        }
    }
}

impl Drop for ModelHost {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The `local` backend: the embedded model in the bridge's own process, serving this
/// one participant (a dataflow's bridges share one [`ModelHost`] node instead).
pub struct LocalBackend {
    host: ModelHost,
    persona: Persona,
}

impl LocalBackend {
    pub fn load(mut config: LocalConfig, persona: Persona) -> eyre::Result<Self> {
        config.participants = 1;
        let host = ModelHost::load(config)?;
        tracing::info!(participant = %persona.name, "embedded model loaded in the bridge");
        Ok(Self { host, persona })
    }

    /// Figures of the last finished generation.
    pub fn last_stats(&self) -> Option<GenerationStats> {
        self.host.last_stats(&self.persona.name)
    }

    fn job(&self, request: GenerationRequest, prefill: bool, whole: bool) -> HostJob {
        HostJob {
            persona: self.persona.clone(),
            priority: request.priority(),
            request,
            prefill,
            whole,
        }
    }
}

impl Backend for LocalBackend {
    fn shutdown(&self) {
        self.host.shutdown();
    }

    fn start(
        &self,
        request: GenerationRequest,
        _history: History,
        events: Sender<BackendEvent>,
    ) -> Cancel {
        self.host
            .submit(&self.persona.name, self.job(request, false, false), events)
    }

    fn prefill(&self, request: GenerationRequest) {
        let (events, _) = crossbeam_channel::bounded(0);
        let _ = self
            .host
            .submit(&self.persona.name, self.job(request, true, false), events);
    }

    fn read_ahead(&self, request: GenerationRequest) {
        let (events, _) = crossbeam_channel::bounded(0);
        let _ = self
            .host
            .submit(&self.persona.name, self.job(request, true, true), events);
    }
}

/// The embedded model's settings from env. Without `LLM_MODEL_PATH`, the model setup.sh
/// installs, found from the binary's place (`target/<profile>/llm-bridge`).
pub fn config_from_env() -> eyre::Result<LocalConfig> {
    let model_path = match node_kit::env_opt("LLM_MODEL_PATH") {
        Some(path) => std::path::PathBuf::from(path),
        None => node_kit::repo_file(DEFAULT_MODEL)?,
    };
    let threads: i32 = node_kit::env_parse("LLM_THREADS", 1)?;
    if !(1..=256).contains(&threads) {
        bail!("LLM_THREADS={threads} must be between 1 and 256");
    }
    let batch_threads: i32 = node_kit::env_parse("LLM_BATCH_THREADS", threads)?;
    if !(1..=256).contains(&batch_threads) {
        bail!("LLM_BATCH_THREADS={batch_threads} must be between 1 and 256");
    }
    let context_tokens: u32 = node_kit::env_parse("LLM_CONTEXT_TOKENS", 2048)?;
    if !(256..=131_072).contains(&context_tokens) {
        bail!("LLM_CONTEXT_TOKENS={context_tokens} must be between 256 and 131072");
    }
    let max_tokens: usize = node_kit::env_parse("LLM_MAX_TOKENS", 160)?;
    let max_words: usize = node_kit::env_parse("LLM_MAX_WORDS", 22)?;
    if max_tokens == 0 || max_words == 0 || max_tokens >= context_tokens as usize / 2 {
        bail!(
            "LLM_MAX_TOKENS ({max_tokens}) and LLM_MAX_WORDS ({max_words}) must be positive, and the tokens under half of LLM_CONTEXT_TOKENS"
        );
    }
    let temperature: f32 = node_kit::env_parse("LLM_TEMPERATURE", 0.7)?;
    if !(0.0..=2.0).contains(&temperature) {
        bail!("LLM_TEMPERATURE={temperature} must be between 0 and 2");
    }
    Ok(LocalConfig {
        model_path,
        threads,
        batch_threads,
        context_tokens,
        max_tokens,
        max_words,
        temperature,
        seed: node_kit::env_parse("LLM_SEED", 42)?,
        window_lines: node_kit::env_parse::<usize>("LLM_WINDOW_LINES", 12)?.max(1),
        prefix_reuse: node_kit::env_parse::<u8>("LLM_PREFIX_REUSE", 1)? != 0,
        participants: node_kit::env_parse::<u32>("MODEL_PARTICIPANTS", 8)?.clamp(1, 63),
    })
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

#[cfg(test)]
mod tests;

//! The embedded model: a GGUF file run in-process by llama.cpp.
//!
//! One worker thread owns the model and one context. Generations run one at a time in
//! arrival order; the context's cache keeps the tokens of the previous prompt, and a new
//! prompt only computes what follows the part it shares with it (the persona and the
//! conversation lines seen before). What the model is asked and what of its stream is
//! spoken is decided in [`agent_bridge::local`].

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

/// What the worker shares with the backend handle besides the job queues.
struct WorkerState {
    stats: Arc<std::sync::Mutex<Option<GenerationStats>>>,
    shutdown: Arc<AtomicBool>,
    stop: Receiver<()>,
    /// Dropped when the worker returns, after the model: that is the signal.
    finished: Sender<()>,
}

fn worker(
    config: LocalConfig,
    persona: Persona,
    (turns, side_requests): (Receiver<Job>, Receiver<Job>),
    ready: Sender<Result<(), String>>,
    state: WorkerState,
) {
    let WorkerState {
        stats,
        shutdown,
        stop,
        finished,
    } = state;
    let backend = match llama() {
        Ok(b) => b,
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    let started = Instant::now();
    // mmap: every bridge of a dataflow maps the same file, so its pages are shared.
    let params = LlamaModelParams::default().with_use_mmap(true);
    let model = match LlamaModel::load_from_file(backend, &config.model_path, &params) {
        Ok(m) => m,
        Err(e) => {
            let _ = ready.send(Err(format!(
                "cannot load the model file {}: {e}; run `scripts/setup.sh` to install it again",
                config.model_path.display()
            )));
            return;
        }
    };
    let context_params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(config.context_tokens))
        .with_n_batch(512)
        .with_n_threads(config.threads)
        .with_n_threads_batch(config.threads);
    let context = match model.new_context(backend, context_params) {
        Ok(c) => c,
        Err(e) => {
            let _ = ready.send(Err(format!("cannot create a model context: {e}")));
            return;
        }
    };
    let template = model
        .chat_template(None)
        .or_else(|_| LlamaChatTemplate::new("chatml"))
        .expect("a static template name is a valid C string");
    tracing::info!(
        participant = %persona.name,
        model = %config.model_path.display(),
        load_ms = started.elapsed().as_millis() as u64,
        threads = config.threads,
        "embedded model loaded"
    );
    let _ = ready.send(Ok(()));
    let mut engine = Engine {
        model: &model,
        context,
        template,
        cached: Vec::new(),
        window: PromptWindow::of_lines(config.window_lines),
        names: agent_bridge::local::speaker_names(&persona),
        persona,
        config,
        turns: 0,
        stats,
        shutdown: shutdown.clone(),
    };
    loop {
        if shutdown.load(Ordering::SeqCst) {
            break;
        }
        let job = match turns.try_recv() {
            Ok(job) => job,
            Err(_) => crossbeam_channel::select! {
                recv(turns) -> job => match job { Ok(job) => job, Err(_) => break },
                recv(side_requests) -> job => match job { Ok(job) => job, Err(_) => break },
                recv(stop) -> _ => break,
            },
        };
        let question_id = job.request.question_id;
        if engine.stopped(&job) {
            continue;
        }
        if job.prefill {
            if let Err(error) = engine.prefill(&job) {
                tracing::debug!(%error, "prefill failed; the turn reads the whole prompt");
                engine.reset();
            }
            continue;
        }
        match engine.generate(&job) {
            Ok(Outcome::Cancelled) => {}
            Ok(Outcome::Finished) => {
                let _ = job.events.send(BackendEvent::Finished {
                    question_id,
                    error: None,
                });
            }
            Err(error) => {
                // The cache may be half-written: start clean.
                engine.reset();
                let _ = job.events.send(BackendEvent::Finished {
                    question_id,
                    error: Some(error),
                });
            }
        }
    }
    // The context, then the model, then the signal that both are gone.
    drop(engine);
    drop(model);
    drop(finished);
}

enum Outcome {
    Finished,
    Cancelled,
}

struct Engine<'m> {
    model: &'m LlamaModel,
    context: LlamaContext<'m>,
    template: LlamaChatTemplate,
    /// The tokens whose keys and values are in the context's cache, in order.
    cached: Vec<LlamaToken>,
    window: PromptWindow,
    names: Vec<String>,
    persona: Persona,
    config: LocalConfig,
    turns: u32,
    stats: Arc<std::sync::Mutex<Option<GenerationStats>>>,
    shutdown: Arc<AtomicBool>,
}

impl Engine<'_> {
    /// The job was cancelled, or the node is leaving.
    fn stopped(&self, job: &Job) -> bool {
        job.cancel.load(Ordering::SeqCst) || self.shutdown.load(Ordering::SeqCst)
    }

    fn reset(&mut self) {
        self.context.clear_kv_cache();
        self.cached.clear();
    }

    /// Reads the conversation so far into the cache, while the human it will answer is
    /// still speaking: the part of the prompt that stays when their words come as the
    /// next line (found by adding a line: the two prompts' common beginning). A turn that
    /// comes meanwhile waits: it would read the same tokens first.
    fn prefill(&mut self, job: &Job) -> Result<(), String> {
        let started = Instant::now();
        let mut prompt =
            LocalPrompt::from_messages(&job.request.messages, self.persona.spoken_name());
        // The window as it will be with the human's line: were it to move then, the
        // answer would read everything again.
        let mut ahead = prompt.lines.clone();
        ahead.push(format!("human: {}", STAND_IN_WORDS[0]));
        prompt.lines = self.window.select(&ahead);
        prompt.lines.pop();
        let room = self.config.context_tokens as usize;
        // Two stand-ins for the words to come: what the two prompts share stays.
        let mut tokenized = Vec::new();
        for words in STAND_IN_WORDS {
            let (tokens, _) = prompt
                .clone()
                .answering(words)
                .fit(false, room, self.config.max_tokens, |chat| {
                    self.tokenize_chat(chat)
                })
                .map_err(|e| e.to_string())?;
            tokenized.push(tokens);
        }
        let ids = |t: &[LlamaToken]| t.iter().map(|t| t.0).collect::<Vec<_>>();
        let tokens = &tokenized[0];
        let stable = reusable_prefix(&ids(&tokenized[1]), &ids(tokens));
        let reused = self.keep_cached(&tokens[..stable]);
        let shutdown = self.shutdown.clone();
        let interrupted = self
            .read_prompt(&tokens[..stable], reused, false, || {
                shutdown.load(Ordering::SeqCst)
            })?
            .is_none();
        tracing::debug!(
            tokens = stable,
            reused,
            complete = !interrupted,
            ms = started.elapsed().as_millis() as u64,
            "prefilled the conversation"
        );
        Ok(())
    }

    /// Keeps the cache's common beginning with `tokens` and drops the rest; returns how
    /// many tokens are kept.
    fn keep_cached(&mut self, tokens: &[LlamaToken]) -> usize {
        let reused = reusable_prefix(
            &self.cached.iter().map(|t| t.0).collect::<Vec<_>>(),
            &tokens.iter().map(|t| t.0).collect::<Vec<_>>(),
        );
        if self
            .context
            .clear_kv_cache_seq(Some(0), Some(reused as u32), None)
            .unwrap_or(false)
        {
            self.cached.truncate(reused);
            reused
        } else {
            self.reset();
            0
        }
    }

    /// Computes `tokens[from..]` into the cache in slices of 64, so that `stop` is seen
    /// between them (`None`: stopped early). `logits` asks for the last token's logits
    /// (a reply follows); returns where they are in the last slice.
    fn read_prompt(
        &mut self,
        tokens: &[LlamaToken],
        from: usize,
        logits: bool,
        stop: impl Fn() -> bool,
    ) -> Result<Option<i32>, String> {
        let mut batch = LlamaBatch::new(512, 1);
        let mut position = from;
        while position < tokens.len() {
            if stop() {
                return Ok(None);
            }
            let end = (position + 64).min(tokens.len());
            batch.clear();
            for (i, token) in tokens[position..end].iter().enumerate() {
                let at = position + i;
                batch
                    .add(*token, at as i32, &[0], logits && at + 1 == tokens.len())
                    .map_err(|e| format!("batch: {e}"))?;
            }
            self.context
                .decode(&mut batch)
                .map_err(|e| format!("the model failed on the prompt: {e}"))?;
            self.cached.extend_from_slice(&tokens[position..end]);
            position = end;
        }
        Ok(Some((batch.n_tokens() - 1).max(0)))
    }

    fn generate(&mut self, job: &Job) -> Result<Outcome, String> {
        let request = &job.request;
        let started = Instant::now();
        let max_words = request.max_words.unwrap_or(self.config.max_words);
        let mut names = self.names.clone();
        let mut prompt = LocalPrompt::from_messages(&request.messages, self.persona.spoken_name());
        names.extend(prompt.speakers());
        prompt.lines = self.window.select(&prompt.lines);
        tracing::debug!(
            question_id = request.question_id,
            lines = prompt.lines.len(),
            first = prompt
                .lines
                .first()
                .map(|l| voice_protocol::shorten(l))
                .unwrap_or_default(),
            "prompt window"
        );
        // The human's words this turn answers (the planner answers a human who spoke last).
        let answering = request
            .plan
            .as_ref()
            .filter(|p| p.action == dialogue_planner::Move::AnswerHuman)
            .and_then(|_| prompt.lines.last())
            .map(|line| {
                line.split_once(": ")
                    .map_or(line.as_str(), |(_, text)| text)
            })
            .map(str::to_owned);
        if let Some(words) = &answering {
            prompt = prompt.answering(words);
        }
        let asking = request
            .plan
            .as_ref()
            .is_some_and(|p| !request.json && p.asks(request.instruction.as_deref()));
        // A conductor's instruction is put to the model as the user's message.
        let following = request
            .plan
            .as_ref()
            .filter(|p| p.action == dialogue_planner::Move::FollowInstruction && !request.json)
            .and(request.instruction.as_deref())
            .filter(|i| !i.trim().is_empty());
        if let Some(instruction) = following {
            prompt = prompt.following(instruction);
        }
        let room = self.config.context_tokens as usize;
        let (tokens, chat) = prompt
            .fit(request.json, room, self.config.max_tokens, |chat| {
                self.tokenize_chat(chat)
            })
            .map_err(|e| match e {
                FitError::Measure(e) => e,
                too_long => format!("{too_long} (LLM_CONTEXT_TOKENS)"),
            })?;
        let own_names = vec![
            self.persona.name.clone(),
            self.persona.spoken_name().to_owned(),
        ];
        let others: Vec<String> = prompt
            .speakers()
            .filter(|n| !own_names.contains(n))
            .collect();
        let said: Vec<&str> = prompt
            .lines
            .iter()
            .map(|l| l.split_once(": ").map_or(l.as_str(), |(_, text)| text))
            .collect();
        // The instructions of this turn: the user's message, or, when a human's question is
        // the user's message, the requests that close the system message.
        let requests = prompt.requests.join("\n\n");
        let direction = match prompt.asked {
            Some(_) => requests.as_str(),
            None => chat.get(1).map_or("", |m| m.content.as_str()),
        };
        // The persona and the direction, without the words the direction quotes to say.
        let mut instructions = vec![prompt.system.clone()];
        for text in std::iter::once(direction).chain(following) {
            let mut unquoted = text.to_owned();
            for quote in quoted_spans(text) {
                unquoted = unquoted.replace(quote, " ");
            }
            instructions.push(unquoted);
        }
        // An answer to the human starts on the human's words; the last attempt may not,
        // so that the human is never left without an answer.
        let new_filter = |attempt: u32| {
            let mut guard = SentenceGuard::new(said.iter().copied(), &own_names, &others)
                .with_instructions(instructions.iter().map(String::as_str));
            if let Some(words) = answering.as_deref().filter(|_| attempt < RESAMPLES) {
                guard = guard.answering(words);
            }
            // A turn that is to ask a question asks one; the last attempt may not.
            if asking && attempt < RESAMPLES {
                guard = guard.asking();
            }
            OutputFilter::new(names.clone(), max_words)
                // Reciting the persona or the direction is no answer; the direction may
                // quote what to say (a prepared question): that may be said.
                .with_echo_sources(
                    chat.iter().map(|m| m.content.as_str()),
                    quoted_spans(direction),
                )
                .with_guard(guard)
        };
        // The last attempt of a move of the participant's own starts afresh: the last
        // lines only, and the agenda's point to say something new about. A conversation
        // circling on one argument then gets a new one instead of a silent turn (the
        // guard still checks the sentences against every recent line).
        let restart = request
            .plan
            .as_ref()
            .filter(|p| {
                !request.json
                    && !matches!(
                        p.action,
                        dialogue_planner::Move::AnswerHuman
                            | dialogue_planner::Move::FollowInstruction
                    )
            })
            .map(|p| p.point.clone());
        let mut tokens = tokens;
        if !self.config.prefix_reuse {
            self.reset();
        }
        // A reply whose every sentence was refused (an echo, filler, another's name) is
        // sampled again, a little warmer, a bounded number of times.
        for attempt in 0..=RESAMPLES {
            if let Some(point) = restart.as_deref().filter(|_| attempt == RESAMPLES) {
                match prompt
                    .afresh(point)
                    .fit(false, room, self.config.max_tokens, |chat| {
                        self.tokenize_chat(chat)
                    }) {
                    Ok((fresh, _)) => tokens = fresh,
                    // The same prompt once more: the turn still gets its last attempt.
                    Err(e) => tracing::debug!(error = %e, "the turn could not start afresh"),
                }
            }
            let reused = self.keep_cached(&tokens);
            let (outcome, filter) =
                self.generate_from(job, &tokens, reused, started, new_filter(attempt), attempt)?;
            let said_nothing = filter.emitted().trim().is_empty() && !request.json;
            if !matches!(outcome, Outcome::Finished) || !said_nothing || attempt == RESAMPLES {
                if said_nothing && !filter.refused().is_empty() {
                    // Words prepared for the turn (a quoted candidate question) are
                    // better than a silent turn.
                    match prepared_words(direction).filter(|_| matches!(outcome, Outcome::Finished))
                    {
                        Some(words) => {
                            tracing::info!(
                                question_id = request.question_id,
                                refused = ?filter.refused(),
                                %words,
                                "every sentence refused; the prepared words are said"
                            );
                            self.send(job, words, &mut None, started);
                        }
                        None => tracing::info!(
                            question_id = request.question_id,
                            refused = ?filter.refused(),
                            "every sentence refused; the turn ends without words"
                        ),
                    }
                }
                return Ok(outcome);
            }
            tracing::debug!(
                question_id = request.question_id,
                attempt,
                refused = ?filter.refused(),
                "every sentence refused; sampling again"
            );
        }
        unreachable!("the last attempt returns")
    }

    fn generate_from(
        &mut self,
        job: &Job,
        tokens: &[LlamaToken],
        reused: usize,
        started: Instant,
        mut filter: OutputFilter,
        attempt: u32,
    ) -> Result<(Outcome, OutputFilter), String> {
        let question_id = job.request.question_id;
        // The prompt, in slices, so that a cancel is seen between them.
        let cancel = job.cancel.clone();
        let shutdown = self.shutdown.clone();
        let stopped = || cancel.load(Ordering::SeqCst) || shutdown.load(Ordering::SeqCst);
        let Some(mut logits_at) = self.read_prompt(tokens, reused, true, stopped)? else {
            return Ok((Outcome::Cancelled, filter));
        };
        let prompt_ms = started.elapsed().as_secs_f64() * 1000.0;

        let mut sampler = self.sampler(job.request.json, attempt)?;
        if !job.request.json {
            // Repetition is judged against the conversation and the direction, not only
            // against the reply's own tokens: the prompt's last tokens go through the
            // samplers' history first.
            let from = tokens.len().saturating_sub(REPETITION_WINDOW_TOKENS);
            sampler.accept_many(&tokens[from..]);
        }
        let mut batch = LlamaBatch::new(1, 1);
        let mut utf8 = Utf8Stream::default();
        let mut first_text_ms = None;
        let mut generated = 0usize;
        let generation_started = Instant::now();
        let mut json = String::new();
        // What the model said before filtering, for the debug log.
        let mut raw = String::new();
        // Given up for a new attempt: what the filter still holds is not said.
        let mut abandoned = false;
        for _ in 0..self.config.max_tokens {
            if self.stopped(job) {
                return Ok((Outcome::Cancelled, filter));
            }
            let token = sampler.sample(&self.context, logits_at);
            if self.model.vocab().is_eog(token) {
                break;
            }
            generated += 1;
            let bytes = self.model.vocab().token_to_piece(token, false, None);
            let piece = utf8.push(&bytes);
            raw.push_str(&piece);
            let text = if job.request.json {
                json.push_str(&piece);
                String::new()
            } else {
                let filtered = filter.push(&piece);
                if filtered.stop {
                    self.send(job, filtered.text, &mut first_text_ms, started);
                    break;
                }
                // Two sentences refused and nothing said: this sample is going nowhere;
                // a new attempt costs less than the rest of this one.
                if attempt < RESAMPLES
                    && filter.emitted().is_empty()
                    && filter.refused().len() >= REFUSALS_BEFORE_RESAMPLE
                {
                    abandoned = true;
                    break;
                }
                filtered.text
            };
            self.send(job, text, &mut first_text_ms, started);
            batch.clear();
            batch
                .add(token, self.cached.len() as i32, &[0], true)
                .map_err(|e| format!("batch: {e}"))?;
            self.context
                .decode(&mut batch)
                .map_err(|e| format!("the model failed while generating: {e}"))?;
            self.cached.push(token);
            logits_at = 0;
        }
        if job.request.json {
            self.send(job, json, &mut first_text_ms, started);
        } else if !abandoned {
            let rest = filter.finish();
            self.send(job, rest.text, &mut first_text_ms, started);
        }
        self.turns += 1;
        let seconds = generation_started.elapsed().as_secs_f64().max(1e-6);
        {
            let mut stats = self.stats.lock().unwrap_or_else(|e| e.into_inner());
            // The prompt a listener waits for is the first attempt's.
            let first = match *stats {
                Some(s) if attempt > 0 => s,
                _ => GenerationStats {
                    prompt_tokens: tokens.len(),
                    reused_tokens: reused,
                    prompt_ms,
                    ..GenerationStats::default()
                },
            };
            *stats = Some(GenerationStats {
                generated_tokens: generated,
                generation_ms: seconds * 1000.0,
                attempts: attempt + 1,
                ..first
            });
        }
        tracing::debug!(question_id, raw = %raw, spoken = %filter.emitted(), refused = ?filter.refused(), "model output");
        tracing::info!(
            question_id,
            prompt_tokens = tokens.len(),
            reused_tokens = reused,
            prompt_ms = prompt_ms as u64,
            first_text_ms = first_text_ms.unwrap_or(0),
            generated_tokens = generated,
            tokens_per_s = format!("{:.0}", generated as f64 / seconds),
            "generated"
        );
        Ok((Outcome::Finished, filter))
    }

    fn send(&self, job: &Job, text: String, first: &mut Option<u64>, started: Instant) {
        if text.is_empty() {
            return;
        }
        first.get_or_insert_with(|| started.elapsed().as_millis() as u64);
        let _ = job.events.send(BackendEvent::Chunk {
            question_id: job.request.question_id,
            text,
        });
    }

    fn sampler(&self, json: bool, attempt: u32) -> Result<LlamaSampler, String> {
        // Seeded: the same conversation gives the same words; each turn (and each new
        // attempt at it) its own stream.
        let seed = self
            .config
            .seed
            .wrapping_add(self.turns.wrapping_mul(7919))
            .wrapping_add(attempt.wrapping_mul(104_729));
        let mut chain = Vec::new();
        if json {
            chain.push(
                LlamaSampler::grammar(self.model, JSON_OBJECT_GRAMMAR, "root")
                    .map_err(|e| format!("JSON grammar: {e}"))?,
            );
            chain.push(LlamaSampler::greedy());
        } else {
            // DRY: continuing a sequence that stands in the recent conversation costs
            // more the longer the copy gets; single words (the topic's) stay free.
            chain.push(LlamaSampler::dry(
                self.model,
                DRY_MULTIPLIER,
                DRY_BASE,
                DRY_ALLOWED_LENGTH,
                REPETITION_WINDOW_TOKENS as i32,
                ["\n", ":", "\"", "*"],
            ));
            chain.push(LlamaSampler::penalties(
                self.model.n_vocab(),
                64,
                1.15,
                0.0,
                0.0,
            ));
            chain.push(LlamaSampler::top_k(40));
            chain.push(LlamaSampler::top_p(0.9, 1));
            chain.push(LlamaSampler::temp(
                self.config.temperature + RESAMPLE_WARMING * attempt as f32,
            ));
            chain.push(LlamaSampler::dist(seed));
        }
        Ok(LlamaSampler::chain_simple(chain))
    }

    fn tokenize_chat(&self, chat: &[agent_bridge::ChatMessage]) -> Result<Vec<LlamaToken>, String> {
        let messages = chat
            .iter()
            .map(|m| LlamaChatMessage::new(m.role.as_str().to_owned(), m.content.replace('\0', "")))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("chat message: {e}"))?;
        let text = self
            .model
            .apply_chat_template(&self.template, &messages, true)
            .map_err(|e| format!("the model's chat template failed: {e}"))?;
        // The template writes the special tokens itself; parse them as such.
        Ok(self.model.vocab().tokenize(text.as_bytes(), true, true))
    }
}

/// Words that stand for the human's while the answer is read ahead.
const STAND_IN_WORDS: [&str; 2] = ["What is it?", "Can you show me again, please?"];

/// How many more times a turn whose every sentence was refused is sampled.
const RESAMPLES: u32 = 2;
/// How many refused sentences, with nothing said yet, end an attempt early.
const REFUSALS_BEFORE_RESAMPLE: usize = 2;
/// How much warmer each new attempt samples.
const RESAMPLE_WARMING: f32 = 0.15;
/// How many of the prompt's last tokens (the recent conversation and the direction) the
/// repetition samplers know before the reply starts.
const REPETITION_WINDOW_TOKENS: usize = 384;
/// DRY settings (llama.cpp's recommended multiplier and base); sequences of up to three
/// tokens repeat freely, so that multi-token words of the topic are not penalised.
const DRY_MULTIPLIER: f32 = 0.8;
const DRY_BASE: f32 = 1.75;
const DRY_ALLOWED_LENGTH: i32 = 3;

/// A flat JSON object of strings, numbers and booleans: what intents, bids and moods are.
const JSON_OBJECT_GRAMMAR: &str = r#"
root   ::= "{" ws pair ( ws "," ws pair )* ws "}"
pair   ::= string ws ":" ws value
value  ::= string | number | "true" | "false"
string ::= "\"" [a-zA-Z0-9 _.,!?'-]{0,60} "\""
number ::= "-"? [0-9]{1,4} ( "." [0-9]{1,3} )?
ws     ::= [ ]?
"#;

/// Token pieces are bytes; a character may span two tokens.
#[derive(Default)]
struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        match std::str::from_utf8(&self.pending) {
            Ok(text) => {
                let text = text.to_owned();
                self.pending.clear();
                text
            }
            Err(e) => {
                let valid = e.valid_up_to();
                let text = String::from_utf8_lossy(&self.pending[..valid]).into_owned();
                if e.error_len().is_some() {
                    // Not a split character but bad bytes: drop them.
                    self.pending.clear();
                } else {
                    self.pending.drain(..valid);
                }
                text
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use agent_bridge::{ChatMessage, ChatRole};

    use super::*;

    fn config() -> LocalConfig {
        LocalConfig {
            model_path: Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../..")
                .join(SMALL_MODEL),
            threads: 1,
            context_tokens: 2048,
            max_tokens: 400,
            max_words: 300,
            temperature: 0.7,
            seed: 7,
            window_lines: 12,
            prefix_reuse: true,
        }
    }

    fn request(question_id: u64, ask: &str) -> GenerationRequest {
        GenerationRequest {
            question_id,
            messages: vec![
                ChatMessage {
                    role: ChatRole::System,
                    content: "You are Ms. Rivera, a patient calculus tutor.".into(),
                },
                ChatMessage {
                    role: ChatRole::User,
                    content: format!("[human]: {ask}"),
                },
            ],
            instruction: None,
            json: false,
            max_words: None,
            plan: None,
        }
    }

    const WAIT: Duration = Duration::from_secs(120);

    /// A cancel mid-stream: not one chunk after it, no `Finished`, and the next request
    /// is answered in full.
    #[test]
    fn a_cancel_mid_stream_leaves_nothing_after_it() {
        let backend = LocalBackend::load(config(), Persona::fallback("tutor")).expect("model");
        let (tx, rx) = crossbeam_channel::unbounded();
        let cancel = backend.start(
            request(1, "Tell me everything about derivatives, at length."),
            History::new(4),
            tx.clone(),
        );
        let first = rx.recv_timeout(WAIT).expect("a first chunk");
        assert!(matches!(first, BackendEvent::Chunk { question_id: 1, .. }));
        cancel();
        // The worker may have been past its check for one token when the cancel came.
        let mut late = 0;
        let _keep_running = backend.start(request(2, "What is a derivative?"), History::new(4), tx);
        let mut second = String::new();
        loop {
            match rx.recv_timeout(WAIT).expect("the next request runs") {
                BackendEvent::Chunk { question_id: 1, .. } => late += 1,
                BackendEvent::Finished { question_id: 1, .. } => {
                    panic!("a cancelled generation must not finish")
                }
                BackendEvent::Chunk {
                    question_id: 2,
                    text,
                } => second.push_str(&text),
                BackendEvent::Finished {
                    question_id: 2,
                    error,
                } => {
                    assert_eq!(error, None);
                    break;
                }
                other => panic!(
                    "unexpected event for another question: {}",
                    describe(&other)
                ),
            }
        }
        assert!(late <= 1, "{late} chunks after the cancel");
        assert!(!second.trim().is_empty());
    }

    /// Runs `request` to its end; returns the figures of the generation.
    fn finish(backend: &LocalBackend, request: GenerationRequest) -> GenerationStats {
        let (tx, rx) = crossbeam_channel::unbounded();
        let question_id = request.question_id;
        let _cancel = backend.start(request, History::new(4), tx);
        loop {
            match rx.recv_timeout(WAIT).expect("the turn ends") {
                BackendEvent::Finished { question_id: q, .. } if q == question_id => break,
                _ => {}
            }
        }
        backend.last_stats().expect("figures of the turn")
    }

    /// Prefilled while the human speaks, the answer reads only what came after: the
    /// human's line and the turn's direction.
    #[test]
    fn a_prefilled_conversation_is_not_read_again_by_the_answer() {
        use agent_bridge::{BridgeCore, BridgeInput, BridgeOutput, Entry};
        let answer_after = |prefill: bool, config: LocalConfig| {
            let backend = LocalBackend::load(config, Persona::fallback("tutor")).expect("model");
            let mut core = BridgeCore::new(Persona::fallback("tutor"), None, 50);
            for (i, (who, text)) in [
                (
                    "student1",
                    "What does the derivative of a function tell us?",
                ),
                (
                    "tutor",
                    "It tells us how fast the function changes at each point.",
                ),
                (
                    "student2",
                    "So the slope of the tangent line is the derivative?",
                ),
            ]
            .into_iter()
            .enumerate()
            {
                core.handle(BridgeInput::Utterance(Entry::new(who, text, i as u64 + 1)));
            }
            if prefill {
                let out = core.handle(BridgeInput::Prepare {
                    speaker: "tutor".into(),
                });
                let [BridgeOutput::Prefill(request)] = &out[..] else {
                    panic!("{out:?}")
                };
                backend.prefill(request.clone());
            }
            let mut human = Entry::new("human", "Can you show me one with numbers?", 4);
            human.human = true;
            core.handle(BridgeInput::Utterance(human));
            let out = core.handle(BridgeInput::Turn {
                speaker: "tutor".into(),
                question_id: 5,
                instruction: None,
                context: None,
                prepared: None,
            });
            let [BridgeOutput::Generate(request)] = &out[..] else {
                panic!("{out:?}")
            };
            finish(&backend, request.clone())
        };
        let cold = answer_after(false, config());
        let warm = answer_after(true, config());
        assert_eq!(cold.prompt_tokens, warm.prompt_tokens);
        assert_eq!(cold.reused_tokens, 0);
        // Only the human's words and the template's frame around them are left to read.
        let unread = warm.prompt_tokens - warm.reused_tokens;
        assert!(
            unread * 5 < warm.prompt_tokens,
            "read again: {unread} of {} tokens",
            warm.prompt_tokens
        );
    }

    #[test]
    fn a_missing_or_foreign_file_is_named_with_the_fix() {
        let mut c = config();
        c.model_path = PathBuf::from("/nonexistent/model.gguf");
        let e = LocalBackend::load(c, Persona::fallback("tutor"))
            .err()
            .expect("an error")
            .to_string();
        assert!(
            e.contains("/nonexistent/model.gguf") && e.contains("scripts/setup.sh"),
            "{e}"
        );
        let bad = std::env::temp_dir().join(format!("not-a-model-{}.gguf", std::process::id()));
        std::fs::write(&bad, b"<html>not found</html>").unwrap();
        let mut c = config();
        c.model_path = bad.clone();
        let e = LocalBackend::load(c, Persona::fallback("tutor"))
            .err()
            .expect("an error")
            .to_string();
        std::fs::remove_file(&bad).unwrap();
        assert!(e.contains("not a GGUF model file"), "{e}");
    }

    fn describe(event: &BackendEvent) -> String {
        match event {
            BackendEvent::Chunk { question_id, text } => format!("chunk {question_id} {text:?}"),
            BackendEvent::Finished { question_id, error } => {
                format!("finished {question_id} {error:?}")
            }
        }
    }
}

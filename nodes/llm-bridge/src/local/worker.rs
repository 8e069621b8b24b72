//! The worker thread: the model loaded and mapped once, jobs taken in arrival order.

use super::*;

/// What the worker shares with the backend handle besides the job queues.
pub(super) struct WorkerState {
    pub(super) stats: Arc<std::sync::Mutex<Option<GenerationStats>>>,
    pub(super) shutdown: Arc<AtomicBool>,
    pub(super) stop: Receiver<()>,
    /// Dropped when the worker returns, after the model: that is the signal.
    pub(super) finished: Sender<()>,
}

pub(super) fn worker(
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

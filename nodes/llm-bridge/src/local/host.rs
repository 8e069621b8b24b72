//! The dispatcher thread (the model and its context, loaded once), the participants'
//! sequences, and the gate every decode step passes.

use std::sync::{Condvar, MutexGuard, atomic::AtomicU64};
use std::time::Duration;

use model_schedule::Gate;

use super::*;

/// What the dispatcher shares with the [`ModelHost`] handle besides the job queue.
pub(super) struct DispatchState {
    pub(super) stats: Arc<Mutex<HashMap<String, GenerationStats>>>,
    pub(super) shutdown: Arc<AtomicBool>,
    pub(super) stop: Receiver<()>,
    /// Dropped when the dispatcher returns, after the model: that is the signal.
    pub(super) finished: Sender<()>,
}

/// Most requests under way at once (each a thread); past it a request is answered with
/// an error at once. Side requests of a large panel stay far below it.
const MAX_JOBS: usize = 64;

pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

pub(super) fn dispatch(
    config: LocalConfig,
    jobs: Receiver<Job>,
    ready: Sender<Result<(), String>>,
    state: DispatchState,
) {
    let DispatchState {
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
    // One sequence per participant, one for side requests and one for turns started
    // afresh, each a context of its own size (llama.cpp splits the context evenly between
    // sequences).
    let sequences = config.participants.max(1) + 2;
    let context_params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(config.context_tokens * sequences))
        .with_n_seq_max(sequences)
        .with_kv_unified(false)
        .with_n_batch(512)
        .with_n_threads(config.threads)
        .with_n_threads_batch(config.batch_threads);
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
        model = %config.model_path.display(),
        load_ms = started.elapsed().as_millis() as u64,
        threads = config.threads,
        batch_threads = config.batch_threads,
        sequences,
        "embedded model loaded"
    );
    let reply_ends = reply_ends(&model);
    let colon_breaks = colon_breaks(&model);
    let _ = ready.send(Ok(()));
    let host = Host {
        model: &model,
        reply_ends,
        colon_breaks,
        context: Mutex::new(context),
        gate: Mutex::new(Gate::new()),
        granted: Condvar::new(),
        template,
        slots: Mutex::new(Slots::new(sequences - 2, config.window_lines)),
        aside: Mutex::new(Sequence::new((sequences - 2) as i32, config.window_lines)),
        scratch: Mutex::new(Sequence::new((sequences - 1) as i32, config.window_lines)),
        config,
        serial: AtomicU64::new(0),
        running: std::sync::atomic::AtomicUsize::new(0),
        stats,
        shutdown: shutdown.clone(),
    };
    std::thread::scope(|scope| {
        loop {
            if shutdown.load(Ordering::SeqCst) {
                break;
            }
            let job = crossbeam_channel::select! {
                recv(jobs) -> job => match job { Ok(job) => job, Err(_) => break },
                recv(stop) -> _ => break,
            };
            if host.running.load(Ordering::SeqCst) >= MAX_JOBS {
                if !job.prefill {
                    let _ = job.events.send(BackendEvent::Finished {
                        question_id: job.request.question_id,
                        error: Some(format!(
                            "the model host is busy ({MAX_JOBS} requests under way)"
                        )),
                    });
                }
                continue;
            }
            // Claimed here, in arrival order: a participant's requests run in the order
            // they came (a read-ahead before the answer that uses it).
            let claim = if job.priority == Priority::Side && !job.prefill {
                None
            } else {
                match lock(&host.slots).claim(&job.participant) {
                    Some(mut claim) => {
                        let mut ahead = lock(&claim.line.ahead);
                        if job.prefill {
                            claim.behind_a_request = claim.line.requests.load(Ordering::SeqCst) > 0;
                            for older in ahead.drain(..) {
                                older.store(true, Ordering::SeqCst);
                            }
                            ahead.push(job.cancel.clone());
                        } else {
                            ahead.clear();
                            claim.line.requests.fetch_add(1, Ordering::SeqCst);
                            let mut boost = lock(&claim.line.boost);
                            *boost = Some(boost.map_or(job.priority, |b| b.min(job.priority)));
                        }
                        drop(ahead);
                        Some(claim)
                    }
                    None => {
                        if !job.prefill {
                            let _ = job.events.send(BackendEvent::Finished {
                                question_id: job.request.question_id,
                                error: Some("every sequence of the model is in use".to_owned()),
                            });
                        }
                        continue;
                    }
                }
            };
            host.running.fetch_add(1, Ordering::SeqCst);
            let host = &host;
            let spawned = std::thread::Builder::new()
                .name(format!("model-{}", job.participant))
                .spawn_scoped(scope, move || {
                    host.run(job, claim);
                    host.running.fetch_sub(1, Ordering::SeqCst);
                });
            if let Err(e) = spawned {
                host.running.fetch_sub(1, Ordering::SeqCst);
                tracing::warn!(error = %e, "cannot start a thread for a model request");
            }
        }
        shutdown.store(true, Ordering::SeqCst);
        host.granted.notify_all();
    });
    // The context, then the model, then the signal that both are gone.
    drop(host);
    drop(model);
    drop(finished);
}

pub(super) struct Host<'m> {
    pub(super) model: &'m LlamaModel,
    pub(super) context: Mutex<LlamaContext<'m>>,
    gate: Mutex<Gate>,
    granted: Condvar,
    pub(super) template: LlamaChatTemplate,
    /// The tokens that end a reply ([`reply_ends`]).
    pub(super) reply_ends: Vec<LlamaToken>,
    /// The tokens that end a line on a colon ([`colon_breaks`]).
    pub(super) colon_breaks: Vec<LlamaToken>,
    pub(super) config: LocalConfig,
    pub(super) slots: Mutex<Slots>,
    /// Side requests' sequence: a copy of the participant's, so that the conversation is
    /// not read again; what it read goes back when nothing is lost ([`Host::copy_back`]).
    scratch: Mutex<Sequence>,
    /// Turns started afresh (a shorter prompt, [`LocalPrompt::afresh`]): a copy of the
    /// participant's, so that its own cache stays as the conversation left it.
    pub(super) aside: Mutex<Sequence>,
    serial: AtomicU64,
    running: std::sync::atomic::AtomicUsize,
    pub(super) stats: Arc<Mutex<HashMap<String, GenerationStats>>>,
    pub(super) shutdown: Arc<AtomicBool>,
}

impl<'m> Host<'m> {
    fn run(&self, job: Job, claim: Option<Claim>) {
        let question_id = job.request.question_id;
        let ticket = Ticket {
            priority: job.priority,
            question_id,
            serial: self.serial.fetch_add(1, Ordering::SeqCst),
        };
        let result = match claim {
            None => {
                let mut scratch = lock(&self.scratch);
                self.enter(ticket);
                let copied_from = self.copy_into_scratch(&job, &mut scratch, ticket);
                let result = Run::new(self, &job, &mut scratch, ticket).generate();
                self.copy_back(&job.participant, &scratch, ticket, copied_from);
                self.leave(ticket);
                result
            }
            Some(claim) => {
                let waiting = Instant::now();
                claim.line.wait_for(claim.number);
                let waited_ms = waiting.elapsed().as_millis() as u64;
                if !job.prefill {
                    *lock(&claim.line.boost) = None;
                } else if claim.behind_a_request && claim.line.requests.load(Ordering::SeqCst) > 0 {
                    // Asked while the participant's own turn was still in line, this
                    // reading predicted a conversation that turn's end changed (cut by the
                    // human's words, or its line added), and a request of the participant
                    // now waits behind it: the request reads its own prompt.
                    tracing::debug!(participant = %job.participant, "reading ahead skipped: asked behind a turn, a request waits behind it");
                    claim.line.done();
                    return;
                }
                let result = loop {
                    let mut sequence = lock(&claim.sequence);
                    self.enter(ticket);
                    let mut run = Run::new(self, &job, &mut sequence, ticket);
                    run.line = Some(claim.line.clone());
                    run.waited_ms = waited_ms;
                    if !job.prefill {
                        break run.generate();
                    }
                    if let Err(error) = run.prefill() {
                        tracing::debug!(%error, "read-ahead failed; the turn reads the whole prompt");
                        run.forget();
                    }
                    if !run.gave_way {
                        break Ok(Outcome::Cancelled);
                    }
                    // Gave way before it read all it had to: the sequence is let go (a
                    // side request of the participant's copies it meanwhile) and the
                    // reading tries again, keeping what it read, once nothing more urgent
                    // runs, unless a newer reading replaced it.
                    drop(sequence);
                    self.leave(ticket);
                    if !self.wait_until_calm(ticket, &claim.line, &job) {
                        tracing::debug!(participant = %job.participant, "reading ahead gave way and was not taken up again");
                        claim.line.done();
                        return;
                    }
                };
                self.leave(ticket);
                if !job.prefill {
                    claim.line.requests.fetch_sub(1, Ordering::SeqCst);
                }
                claim.line.done();
                result
            }
        };
        if job.prefill {
            return;
        }
        match result {
            Ok(Outcome::Cancelled) => {}
            Ok(Outcome::Finished) => {
                let _ = job.events.send(BackendEvent::Finished {
                    question_id,
                    error: None,
                });
            }
            Err(error) => {
                let _ = job.events.send(BackendEvent::Finished {
                    question_id,
                    error: Some(error),
                });
            }
        }
    }

    /// Waits until no request more urgent than a reading ahead (`ticket`, lent the
    /// priority of a request waiting in its `line`) runs or waits; `false` when the
    /// reading was replaced or cancelled meanwhile, the host is stopping, or it waited
    /// [`CALM_WAIT`].
    fn wait_until_calm(&self, ticket: Ticket, line: &Line, job: &Job) -> bool {
        let deadline = Instant::now() + CALM_WAIT;
        loop {
            if job.cancel.load(Ordering::SeqCst)
                || self.shutdown.load(Ordering::SeqCst)
                || Instant::now() >= deadline
            {
                return false;
            }
            let ticket = match line.boost() {
                Some(priority) if priority < ticket.priority => Ticket { priority, ..ticket },
                _ => ticket,
            };
            if !self.urgent_waiting(ticket) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The scratch sequence starts as a copy of the participant's (when no request runs on
    /// it now): a side request then reads only what differs from the participant's last
    /// prompt.
    /// A cancelled request (its bridge stopped waiting) stops waiting at the gate too: a
    /// turn running long would otherwise hold it, and the scratch with it. Returns the
    /// tokens the participant's sequence held, when it could be read.
    fn copy_into_scratch(
        &self,
        job: &Job,
        scratch: &mut Sequence,
        ticket: Ticket,
    ) -> Option<Vec<LlamaToken>> {
        let participant = job.participant.as_str();
        let source = lock(&self.slots).sequence_of(participant);
        let deadline = Instant::now() + SOURCE_WAIT;
        let cancelled = || job.cancel.load(Ordering::SeqCst);
        loop {
            let copied = self.step(&|| ticket, &cancelled, |context| {
                // Taken at the gate, never waited for there: a request of the
                // participant's that holds its sequence must not wait behind this one.
                let held = match source.as_ref().map(|s| s.try_lock()) {
                    Some(Ok(source)) => Some(source),
                    Some(Err(_)) => return Err(()),
                    None => None,
                };
                copy_cache(context, held.as_deref(), scratch);
                Ok(held.map(|source| source.cached.clone()))
            });
            match copied {
                Some(Ok(source)) => return source,
                // Cancelled while it waited: the request ends at its first step.
                None if cancelled() => {
                    scratch.cached.clear();
                    scratch.window.clear();
                    return None;
                }
                // Held, most often by the participant's reading along, which gives way at
                // its next step now that this request waits: worth a short wait, since
                // the whole prompt read again costs seconds.
                Some(Err(())) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                _ => {
                    tracing::debug!(
                        participant,
                        "the participant's sequence stayed busy; the side request reads its whole prompt"
                    );
                    scratch.cached.clear();
                    scratch.window.clear();
                    return None;
                }
            }
        }
    }

    /// What a side request read is not thrown away: when the participant's own cache is
    /// empty or a beginning of the scratch's (it loses nothing), or is still what the
    /// scratch was copied from and [`model_schedule::outdated`] by it (read for a prompt
    /// that began otherwise), and no request runs on it, the scratch is copied into it.
    /// Else a participant whose reading along always gives way to side requests (a
    /// rehearsal's panel, asked for questions on every slide) would never have its
    /// conversation read, and each of its side requests would read it all again; and a
    /// panelist whose cache held its persona alone when the conductor's context came read
    /// that context in every side request until its first turn (400-500 tokens, 10-20 s
    /// each at a rehearsal's start).
    fn copy_back(
        &self,
        participant: &str,
        scratch: &Sequence,
        ticket: Ticket,
        copied_from: Option<Vec<LlamaToken>>,
    ) {
        let Some(target) = lock(&self.slots).sequence_for(participant) else {
            return;
        };
        let kept = self.step(&|| ticket, &|| false, |context| {
            let mut target = target.try_lock().ok()?;
            let unchanged = copied_from.as_ref() == Some(&target.cached);
            let scratch_is_better = target.stale
                || model_schedule::extends(&target.cached, false, &scratch.cached)
                || (unchanged && model_schedule::outdated(&target.cached, &scratch.cached));
            if !scratch_is_better {
                return None;
            }
            copy_cache(context, Some(scratch), &mut target);
            Some(target.cached.len())
        });
        if let Some(Some(tokens)) = kept {
            tracing::debug!(
                participant,
                tokens,
                "a side request's reading kept in the participant's cache"
            );
        }
    }

    /// Runs `work` on the context once `ticket` holds the gate; `None` when `stop` said so
    /// while it waited (it then waited no longer).
    pub(super) fn step<R>(
        &self,
        ticket: &dyn Fn() -> Ticket,
        stop: &dyn Fn() -> bool,
        work: impl FnOnce(&mut LlamaContext<'m>) -> R,
    ) -> Option<R> {
        let mut waiting = ticket();
        let mut gate = lock(&self.gate);
        if !gate.wait(waiting) {
            loop {
                gate = self
                    .granted
                    .wait_timeout(gate, std::time::Duration::from_millis(50))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
                if gate.holds(waiting) {
                    break;
                }
                // `stop` and `ticket` may look at the gate itself: asked without its lock.
                drop(gate);
                let stopping = stop() || self.shutdown.load(Ordering::SeqCst);
                let now = ticket();
                gate = lock(&self.gate);
                if gate.holds(waiting) {
                    break;
                }
                if stopping {
                    gate.withdraw(waiting);
                    drop(gate);
                    self.granted.notify_all();
                    return None;
                }
                if now != waiting {
                    // Lent a more urgent request's priority while it waited.
                    let holds = gate.requeue(waiting, now);
                    waiting = now;
                    self.granted.notify_all();
                    if holds {
                        break;
                    }
                }
            }
        }
        drop(gate);
        let result = work(&mut lock(&self.context));
        lock(&self.gate).release(waiting);
        self.granted.notify_all();
        Some(result)
    }

    /// `ticket`'s request runs: reading along waits until it is over.
    fn enter(&self, ticket: Ticket) {
        lock(&self.gate).enter(ticket);
        self.granted.notify_all();
    }

    fn leave(&self, ticket: Ticket) {
        lock(&self.gate).leave(ticket);
        self.granted.notify_all();
    }

    /// Whether a request more urgent than `ticket` waits for the gate or runs.
    pub(super) fn urgent_waiting(&self, ticket: Ticket) -> bool {
        lock(&self.gate).more_urgent_than(ticket)
    }
}

/// How long a reading ahead that gave way waits to be taken up again: longer, and the
/// conversation it would read has most likely moved on.
const CALM_WAIT: Duration = Duration::from_secs(30);

/// How long a side request waits for the participant's sequence, held by its reading
/// along (which gives way within one step) or by its own turn, before it reads its whole
/// prompt: a 600-token prompt read again takes 10-15 s on two cores.
const SOURCE_WAIT: Duration = Duration::from_secs(2);

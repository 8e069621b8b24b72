//! Decode steps taken together: the next token of every reply being written at once is
//! decoded in one batch. Decoding one token reads all of the model's weights; a batch of
//! a few tokens of different sequences reads them once, so replies written side by side
//! each go almost as fast as one alone, where they took turns at the gate before (and
//! the answer to the human went at half its speed beside a turn being written).
//!
//! Whoever holds the gate for a token's step takes every token waiting with it (a
//! "rider"); the others find theirs decoded and sample from the logits handed to them.

use std::sync::Condvar;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;

use super::*;

/// How long the holder of a step waits for the tokens of the other replies being
/// written (each samples its next token between two steps, a few milliseconds): a step
/// of one token takes 50–60 ms with the default model.
const GATHER_WAIT: Duration = Duration::from_millis(8);

/// Most tokens in one step: past a few, a step costs as much as the tokens it decodes.
const MOST_RIDERS: usize = 8;

/// One token waiting for a step, and what became of it.
pub(super) struct Rider {
    sequence: i32,
    position: i32,
    token: LlamaToken,
    state: Mutex<Ride>,
    decoded: Condvar,
}

enum Ride {
    Waiting,
    /// In a step under way.
    Taken,
    /// Its logits, or why the step failed.
    Decoded(Result<Vec<f32>, String>),
    /// Its logits were handed over.
    Gone,
}

impl Rider {
    pub(super) fn new(sequence: i32, position: i32, token: LlamaToken) -> Arc<Self> {
        Arc::new(Self {
            sequence,
            position,
            token,
            state: Mutex::new(Ride::Waiting),
            decoded: Condvar::new(),
        })
    }

    fn taken(&self) -> bool {
        !matches!(*lock(&self.state), Ride::Waiting)
    }

    fn finish(&self, result: Result<Vec<f32>, String>) {
        *lock(&self.state) = Ride::Decoded(result);
        self.decoded.notify_all();
    }

    /// The logits once its step is over; `None` when no step took it.
    fn wait_decoded(&self) -> Option<Result<Vec<f32>, String>> {
        let mut state = lock(&self.state);
        loop {
            match std::mem::replace(&mut *state, Ride::Gone) {
                Ride::Decoded(result) => return Some(result),
                Ride::Taken => {
                    *state = Ride::Taken;
                    state = self.decoded.wait(state).unwrap_or_else(|e| e.into_inner());
                }
                Ride::Waiting | Ride::Gone => return None,
            }
        }
    }
}

/// The tokens waiting for a step, and how many replies are being written (each will
/// have one waiting soon).
#[derive(Default)]
pub(super) struct Riders {
    waiting: Mutex<Vec<Arc<Rider>>>,
    posted: Condvar,
    writing: AtomicUsize,
}

/// A reply being written, counted while it lives.
pub(super) struct Writing<'r>(&'r Riders);

impl Drop for Writing<'_> {
    fn drop(&mut self) {
        self.0.writing.fetch_sub(1, Ordering::SeqCst);
        self.0.posted.notify_all();
    }
}

impl Riders {
    /// Counts a reply as being written until the guard drops: a step waits briefly for
    /// its token.
    pub(super) fn writing(&self) -> Writing<'_> {
        self.writing.fetch_add(1, Ordering::SeqCst);
        Writing(self)
    }

    fn post(&self, rider: Arc<Rider>) {
        lock(&self.waiting).push(rider);
        self.posted.notify_all();
    }

    /// Takes `rider` back if no step took it yet.
    fn withdraw(&self, rider: &Arc<Rider>) -> bool {
        let mut waiting = lock(&self.waiting);
        let before = waiting.len();
        waiting.retain(|r| !Arc::ptr_eq(r, rider));
        waiting.len() < before
    }

    /// The tokens for the step about to be taken: those waiting, after a short wait for
    /// the replies being written that have none waiting yet.
    fn gather(&self) -> Vec<Arc<Rider>> {
        let deadline = Instant::now() + GATHER_WAIT;
        let mut waiting = lock(&self.waiting);
        while waiting.len() < self.writing.load(Ordering::SeqCst).min(MOST_RIDERS) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            waiting = self
                .posted
                .wait_timeout(waiting, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        let count = waiting.len().min(MOST_RIDERS);
        let taken: Vec<_> = waiting.drain(..count).collect();
        for rider in &taken {
            *lock(&rider.state) = Ride::Taken;
        }
        taken
    }
}

impl Host<'_> {
    /// Decodes `token` at `position` of `sequence`, in a step shared with the other
    /// replies being written, and returns the logits of the next token; `None` when
    /// `stop` said so before a step took it.
    pub(super) fn decode_token(
        &self,
        ticket: Ticket,
        stop: &dyn Fn() -> bool,
        sequence: i32,
        position: i32,
        token: LlamaToken,
    ) -> Option<Result<Vec<f32>, String>> {
        let rider = Rider::new(sequence, position, token);
        if !self.config.shared_steps {
            return self
                .step(ticket, stop, |context| {
                    *lock(&rider.state) = Ride::Taken;
                    decode_riders(context, std::slice::from_ref(&rider));
                })
                .and_then(|()| rider.wait_decoded());
        }
        self.riders.post(rider.clone());
        loop {
            // Taken by another's step, this one waits no longer at the gate: its logits
            // come. Granted the gate once its token was taken, it takes no step: its
            // next token is not sampled yet.
            let led = self.step(ticket, &|| stop() || rider.taken(), |context| {
                if !rider.taken() {
                    decode_riders(context, &self.riders.gather());
                }
            });
            if rider.taken() {
                return rider.wait_decoded();
            }
            if led.is_none() {
                if self.riders.withdraw(&rider) {
                    return None;
                }
                return rider.wait_decoded();
            }
            // Led a step its own token did not fit in: the next one.
        }
    }
}

/// Decodes the riders' tokens in one batch and hands each its logits; when the batch
/// fails, each is decoded alone, so that one sequence's failure is its own.
fn decode_riders(context: &mut LlamaContext<'_>, riders: &[Arc<Rider>]) {
    if riders.is_empty() {
        return;
    }
    tracing::trace!(tokens = riders.len(), "a decode step");
    match decode_batch(context, riders) {
        Ok(()) => {
            for (index, rider) in riders.iter().enumerate() {
                rider.finish(Ok(context.get_logits_ith(index as i32).to_vec()));
            }
        }
        Err(error) if riders.len() == 1 => riders[0].finish(Err(error)),
        Err(error) => {
            tracing::debug!(%error, riders = riders.len(), "a shared step failed; each token alone");
            for rider in riders {
                let alone = std::slice::from_ref(rider);
                match decode_batch(context, alone) {
                    Ok(()) => rider.finish(Ok(context.get_logits_ith(0).to_vec())),
                    Err(error) => rider.finish(Err(error)),
                }
            }
        }
    }
}

fn decode_batch(context: &mut LlamaContext<'_>, riders: &[Arc<Rider>]) -> Result<(), String> {
    let mut batch = LlamaBatch::new(riders.len(), 1);
    for rider in riders {
        batch
            .add(rider.token, rider.position, &[rider.sequence], true)
            .map_err(|e| format!("batch: {e}"))?;
    }
    context
        .decode(&mut batch)
        .map_err(|e| format!("the model failed while generating: {e}"))
}

/// Samples the next token from `logits`, those of the `bias` tokens moved first.
pub(super) fn sample_logits(
    sampler: &mut LlamaSampler,
    logits: &[f32],
    bias: &[(LlamaToken, f32)],
) -> LlamaToken {
    let mut candidates = LlamaTokenDataArray::from_iter(
        logits
            .iter()
            .enumerate()
            .map(|(id, &logit)| LlamaTokenData::new(LlamaToken(id as i32), logit, 0.0)),
        false,
    );
    for &(token, shift) in bias {
        if let Some(data) = candidates.data.get_mut(token.0 as usize) {
            data.set_logit(data.logit() + shift);
        }
    }
    candidates.apply_sampler(sampler);
    // The chain ends in a choice; were it to make none, the likeliest token.
    let token = candidates.selected_token().unwrap_or_else(|| {
        let best = logits
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map_or(0, |(id, _)| id);
        LlamaToken(best as i32)
    });
    sampler.accept(token);
    token
}

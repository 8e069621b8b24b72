//! The bridges' calls in flight: a call started on the host, its events passed on tagged
//! with whose they are, a cancel carried to it, a call the host cannot take answered with
//! an error.

use std::collections::HashMap;

use agent_bridge::host::HostJob;
use crossbeam_channel::{Receiver, Sender};
use llm_bridge::{
    backend::{BackendEvent, Cancel},
    local::ModelHost,
};
use voice_protocol::messages::{CallKind, ModelCall, ModelReply};

/// A reply on its way out: whose request, and what of it.
pub struct Out {
    participant: String,
    call_id: u64,
    question_id: u64,
    event: BackendEvent,
}

/// The calls running on the host (`None`: the participants use another backend, and
/// every call is answered with an error).
pub struct Calls<'h> {
    host: Option<&'h ModelHost>,
    backend: String,
    running: HashMap<(String, u64), Cancel>,
    out: Sender<Out>,
}

impl<'h> Calls<'h> {
    /// The calls of `host`, whose events come out of the returned receiver.
    pub fn new(host: Option<&'h ModelHost>, backend: String) -> (Self, Receiver<Out>) {
        let (out, events) = crossbeam_channel::unbounded();
        let calls = Self {
            host,
            backend,
            running: HashMap::new(),
            out,
        };
        (calls, events)
    }

    pub fn handle(&mut self, call: ModelCall) {
        let key = (call.participant.clone(), call.call_id);
        if call.kind == CallKind::Cancel {
            if let Some(cancel) = self.running.remove(&key) {
                cancel();
            }
            return;
        }
        let failed = |error: String| Out {
            participant: call.participant.clone(),
            call_id: call.call_id,
            question_id: call.question_id,
            event: BackendEvent::Finished {
                question_id: call.question_id,
                error: Some(error),
            },
        };
        let (host, mut job) = match (self.host, HostJob::decode(&call.job)) {
            (None, _) => {
                let error = format!("the model host is idle (LLM_BACKEND={})", self.backend);
                let _ = self.out.send(failed(error));
                return;
            }
            (_, Err(error)) => {
                tracing::warn!(participant = %call.participant, %error, "model call refused");
                let _ = self.out.send(failed(error.to_string()));
                return;
            }
            (Some(host), Ok(job)) => (host, job),
        };
        job.prefill = call.kind == CallKind::Prefill;
        let (tx, rx) = crossbeam_channel::unbounded();
        let cancel = host.submit(&call.participant, job, tx);
        if call.kind == CallKind::Generate {
            self.running.insert(key, cancel);
            forward(
                rx,
                self.out.clone(),
                call.participant,
                call.call_id,
                call.question_id,
            );
        }
    }

    /// The message an event of a call goes out as; a finished call is no longer running.
    pub fn reply(&mut self, out: Out) -> ModelReply {
        let (text, ends_sentence, done, error) = match out.event {
            BackendEvent::Chunk {
                text,
                ends_sentence,
                ..
            } => (text, ends_sentence, false, None),
            BackendEvent::Finished { error, .. } => {
                self.running.remove(&(out.participant.clone(), out.call_id));
                (String::new(), false, true, error)
            }
        };
        ModelReply {
            participant: out.participant,
            call_id: out.call_id,
            question_id: out.question_id,
            done,
            error,
            text,
            ends_sentence,
        }
    }

    /// Every call still running is cancelled.
    pub fn cancel_all(&mut self) {
        for (_, cancel) in self.running.drain() {
            cancel();
        }
    }
}

/// Passes one request's events on, tagged with whose they are, until it finishes.
fn forward(
    events: Receiver<BackendEvent>,
    out: Sender<Out>,
    participant: String,
    call_id: u64,
    question_id: u64,
) {
    std::thread::spawn(move || {
        for event in events {
            let done = matches!(event, BackendEvent::Finished { .. });
            let sent = out.send(Out {
                participant: participant.clone(),
                call_id,
                question_id,
                event,
            });
            if done || sent.is_err() {
                break;
            }
        }
    });
}

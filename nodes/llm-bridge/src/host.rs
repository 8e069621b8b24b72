//! The `host` backend: the participant's requests go to the machine's model host node
//! (`model` out), its text comes back (`model_reply` in). The host holds the one model
//! and this participant's cache; the bridge keeps the persona, the plan and the history.

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use agent_bridge::{GenerationRequest, History, Persona, host::HostJob};
use crossbeam_channel::{Receiver, Sender};
use voice_protocol::messages::{CallKind, ModelCall, ModelReply};

use crate::backend::{Backend, BackendEvent, Cancel};

/// A request sent to the host and not finished yet.
struct Pending {
    question_id: u64,
    events: Sender<BackendEvent>,
    /// When the host last said something of it.
    heard: Instant,
}

pub struct HostBackend {
    persona: Persona,
    calls: Sender<ModelCall>,
    pending: Arc<Mutex<HashMap<u64, Pending>>>,
    next_call: AtomicU64,
    /// How long a request may go without a word from the host before it fails.
    silence: Duration,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl HostBackend {
    /// The backend, and the calls the node's loop sends on `model`.
    pub fn new(persona: Persona, silence: Duration) -> (Self, Receiver<ModelCall>) {
        let (calls, rx) = crossbeam_channel::unbounded();
        // Numbered from the clock: a bridge that restarted never reuses the numbers of
        // its earlier run, whose late replies are then ignored.
        let first = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_millis() as u64 * 1000);
        let backend = Self {
            persona,
            calls,
            pending: Arc::default(),
            next_call: AtomicU64::new(first),
            silence,
        };
        (backend, rx)
    }

    fn call(&self, call_id: u64, request: GenerationRequest, kind: CallKind, whole: bool) {
        let job = HostJob {
            persona: self.persona.clone(),
            priority: request.priority(),
            prefill: kind == CallKind::Prefill,
            whole,
            request,
        };
        let _ = self.calls.send(ModelCall {
            participant: self.persona.name.clone(),
            call_id,
            question_id: job.request.question_id,
            kind,
            job: job.encode(),
        });
    }

    /// A reply from the host: this participant's go on to the request's events; others'
    /// and those of finished requests are ignored.
    pub fn deliver(&self, reply: ModelReply) {
        if reply.participant != self.persona.name {
            return;
        }
        let mut pending = lock(&self.pending);
        let Some(request) = pending.get_mut(&reply.call_id) else {
            return;
        };
        request.heard = Instant::now();
        let question_id = request.question_id;
        if !reply.text.is_empty() {
            let _ = request.events.send(BackendEvent::Chunk {
                question_id,
                text: reply.text,
                ends_sentence: reply.ends_sentence,
            });
        }
        if reply.done {
            let request = pending.remove(&reply.call_id).expect("present");
            let _ = request.events.send(BackendEvent::Finished {
                question_id,
                error: reply.error,
            });
        }
    }

    /// Fails the requests the host has said nothing of for too long (it may have died
    /// mid-turn; dora restarts it, and the next turn is asked again whole).
    pub fn expire(&self, now: Instant) {
        let silence = self.silence;
        lock(&self.pending).retain(|_, request| {
            let alive = now.duration_since(request.heard) < silence;
            if !alive {
                let _ = request.events.send(BackendEvent::Finished {
                    question_id: request.question_id,
                    error: Some(format!(
                        "the model host said nothing for {silence:?} (MODEL_HOST_SILENCE_SECS)"
                    )),
                });
            }
            alive
        });
    }

    /// The host's output closed: every open request fails now.
    pub fn host_gone(&self) {
        for (_, request) in lock(&self.pending).drain() {
            let _ = request.events.send(BackendEvent::Finished {
                question_id: request.question_id,
                error: Some("the model host is gone".to_owned()),
            });
        }
    }
}

impl Backend for HostBackend {
    fn start(
        &self,
        request: GenerationRequest,
        _history: History,
        events: Sender<BackendEvent>,
    ) -> Cancel {
        let question_id = request.question_id;
        // Registered before it is sent: the reply may come at once.
        let call_id = self.next_call.fetch_add(1, Ordering::SeqCst);
        lock(&self.pending).insert(
            call_id,
            Pending {
                question_id,
                events,
                heard: Instant::now(),
            },
        );
        self.call(call_id, request, CallKind::Generate, false);
        let pending = self.pending.clone();
        let calls = self.calls.clone();
        let participant = self.persona.name.clone();
        Box::new(move || {
            if lock(&pending).remove(&call_id).is_some() {
                let _ = calls.send(ModelCall {
                    participant,
                    call_id,
                    question_id,
                    kind: CallKind::Cancel,
                    job: String::new(),
                });
            }
        })
    }

    fn prefill(&self, request: GenerationRequest) {
        let call_id = self.next_call.fetch_add(1, Ordering::SeqCst);
        self.call(call_id, request, CallKind::Prefill, false);
    }

    fn read_ahead(&self, request: GenerationRequest) {
        let call_id = self.next_call.fetch_add(1, Ordering::SeqCst);
        self.call(call_id, request, CallKind::Prefill, true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(question_id: u64) -> GenerationRequest {
        GenerationRequest {
            question_id,
            ..GenerationRequest::default()
        }
    }

    fn reply(call: &ModelCall, text: &str, done: bool) -> ModelReply {
        ModelReply {
            participant: call.participant.clone(),
            call_id: call.call_id,
            question_id: call.question_id,
            done,
            error: None,
            text: text.into(),
            ends_sentence: false,
        }
    }

    #[test]
    fn replies_reach_their_request_and_a_cancel_is_sent_once() {
        let (backend, calls) = HostBackend::new(Persona::fallback("tutor"), Duration::from_secs(5));
        let (tx, rx) = crossbeam_channel::unbounded();
        let cancel = backend.start(request(3), History::new(4), tx);
        let call = calls.try_recv().expect("a call");
        assert_eq!(call.kind, CallKind::Generate);
        assert_eq!(HostJob::decode(&call.job).unwrap().request.question_id, 3);
        backend.deliver(reply(&call, "Hello.", false));
        let mut other = reply(&call, "not mine", false);
        other.participant = "student1".into();
        backend.deliver(other);
        assert!(
            matches!(rx.try_recv(), Ok(BackendEvent::Chunk { question_id: 3, text, .. }) if text == "Hello.")
        );
        assert!(rx.try_recv().is_err());
        cancel();
        let cancel_call = calls.try_recv().expect("a cancel");
        assert_eq!(
            (cancel_call.kind, cancel_call.call_id),
            (CallKind::Cancel, call.call_id)
        );
        // Late text of a cancelled request is dropped.
        backend.deliver(reply(&call, "late", true));
        assert!(rx.try_recv().is_err());
    }

    #[test]
    fn a_silent_or_gone_host_fails_the_request_instead_of_hanging() {
        let (backend, calls) = HostBackend::new(Persona::fallback("tutor"), Duration::from_secs(5));
        let (tx, rx) = crossbeam_channel::unbounded();
        let _cancel = backend.start(request(1), History::new(4), tx.clone());
        backend.expire(Instant::now());
        assert!(rx.try_recv().is_err());
        backend.expire(Instant::now() + Duration::from_secs(6));
        assert!(matches!(
            rx.try_recv(),
            Ok(BackendEvent::Finished {
                question_id: 1,
                error: Some(_)
            })
        ));
        let _cancel = backend.start(request(2), History::new(4), tx);
        backend.host_gone();
        assert!(matches!(
            rx.try_recv(),
            Ok(BackendEvent::Finished {
                question_id: 2,
                error: Some(_)
            })
        ));
        assert_eq!(calls.len(), 2);
    }
}

//! `model-host`: the machine's one language model. Every bridge sends its requests on
//! `model` (generate, read ahead, cancel); the text comes back on `model_reply`, tagged
//! with the participant and the bridge's call id. The model, the cache sequences and the
//! priorities are [`llm_bridge::local::ModelHost`]'s; this file moves data.

use std::collections::HashMap;

use agent_bridge::host::HostJob;
use crossbeam_channel::select;
use dora_node_api::{DoraNode, Event as DoraEvent};
use eyre::Context;
use llm_bridge::{
    backend::{BackendEvent, Cancel},
    local::ModelHost,
};
use voice_protocol::messages::{CallKind, ModelCall, ModelReply};

/// A reply on its way out: whose request, and what of it.
struct Out {
    participant: String,
    call_id: u64,
    question_id: u64,
    event: BackendEvent,
}

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let (mut node, events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    // The participants may use another backend (the scripted stand-in in tests, a model
    // service): the host then loads nothing and answers any request with an error.
    let backend = node_kit::env_opt("LLM_BACKEND").unwrap_or_else(|| "host".to_owned());
    let host = match backend.as_str() {
        "host" => Some(ModelHost::load(llm_bridge::local::config_from_env()?)?),
        other => {
            tracing::info!(
                backend = other,
                "the participants use another backend; the model host stays idle"
            );
            None
        }
    };
    let dora_events = node_kit::forward_events(events);
    let (out_tx, out_rx) = crossbeam_channel::unbounded::<Out>();
    let mut running: HashMap<(String, u64), Cancel> = HashMap::new();
    loop {
        select! {
            recv(dora_events) -> event => match event {
                Ok(DoraEvent::Input { id, metadata, data }) => {
                    let call = match node_kit::decode::<ModelCall>(&metadata.parameters, &data) {
                        Ok(call) => call,
                        Err(error) => {
                            tracing::warn!(input = %id, %error, "unreadable model call ignored");
                            continue;
                        }
                    };
                    let key = (call.participant.clone(), call.call_id);
                    if call.kind == CallKind::Cancel {
                        if let Some(cancel) = running.remove(&key) {
                            cancel();
                        }
                        continue;
                    }
                    let failed = |error: String| Out {
                        participant: call.participant.clone(),
                        call_id: call.call_id,
                        question_id: call.question_id,
                        event: BackendEvent::Finished { question_id: call.question_id, error: Some(error) },
                    };
                    let job = match (&host, HostJob::decode(&call.job)) {
                        (None, _) => {
                            let _ = out_tx.send(failed(format!("the model host is idle (LLM_BACKEND={backend})")));
                            continue;
                        }
                        (_, Err(error)) => {
                            tracing::warn!(participant = %call.participant, %error, "model call refused");
                            let _ = out_tx.send(failed(error.to_string()));
                            continue;
                        }
                        (Some(host), Ok(job)) => (host, job),
                    };
                    let (host, mut job) = job;
                    job.prefill = call.kind == CallKind::Prefill;
                    let (tx, rx) = crossbeam_channel::unbounded();
                    let cancel = host.submit(&call.participant, job, tx);
                    if call.kind == CallKind::Generate {
                        running.insert(key, cancel);
                        forward(rx, out_tx.clone(), call.participant, call.call_id, call.question_id);
                    }
                }
                Ok(DoraEvent::Stop(_)) | Err(_) => break,
                Ok(DoraEvent::Error(e)) => tracing::warn!(error = %e, "dora reported an error"),
                Ok(_) => {}
            },
            recv(out_rx) -> out => {
                let Ok(out) = out else { break };
                let (text, done, error) = match out.event {
                    BackendEvent::Chunk { text, .. } => (text, false, None),
                    BackendEvent::Finished { error, .. } => {
                        running.remove(&(out.participant.clone(), out.call_id));
                        (String::new(), true, error)
                    }
                };
                node_kit::send(&mut node, ModelReply {
                    participant: out.participant,
                    call_id: out.call_id,
                    question_id: out.question_id,
                    done,
                    error,
                    text,
                })?;
            }
        }
    }
    for (_, cancel) in running {
        cancel();
    }
    drop(host);
    Ok(())
}

/// Passes one request's events on, tagged with whose they are, until it finishes.
fn forward(
    events: crossbeam_channel::Receiver<BackendEvent>,
    out: crossbeam_channel::Sender<Out>,
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

//! The bridge as a dora node: dora's events become [`BridgeInput`]s, the core's
//! [`BridgeOutput`]s become the backend's work and the node's outputs. What to do is the
//! core's to decide; this file moves data.

use std::{
    ops::ControlFlow,
    sync::Arc,
    time::{Duration, Instant},
};

use agent_bridge::{BridgeCore, BridgeInput, BridgeOutput, Entry, SideRequest};
use conductor::Call;
use crossbeam_channel::Sender;
use dora_node_api::{DoraNode, Event as DoraEvent, MetadataParameters};
use node_kit::decisions::Recorded;
use voice_protocol::ids;
use voice_protocol::messages::{
    Chunk, DecodeError, Held, Interrupt, MAX_PROMPT_BYTES, ModelCall, ModelReply, Played, Prepare,
    Turn, Utterance,
};

use llm_bridge::{
    backend::{Backend, BackendEvent, Cancel},
    host::HostBackend,
};

/// A side request's answer (or why there is none), from the thread that asked the model.
pub type Answer = (SideRequest, Result<String, String>);

pub struct BridgeNode {
    node: DoraNode,
    recorded: Recorded<BridgeCore>,
    backend: Arc<dyn Backend>,
    /// The model host's client, when the backend is the host.
    host: Option<Arc<HostBackend>>,
    backend_events: Sender<BackendEvent>,
    answers: Sender<Answer>,
    /// A side request's limit when its conductor sets none.
    request_timeout: Duration,
    running: Option<(u64, Cancel)>,
    /// When the node started: the recorded calls' time.
    started: Instant,
    /// The scripted stand-in declines JSON requests by design: not worth a warning.
    scripted_requests: bool,
}

impl BridgeNode {
    pub fn new(
        node: DoraNode,
        recorded: Recorded<BridgeCore>,
        (backend, host): (Arc<dyn Backend>, Option<Arc<HostBackend>>),
        (backend_events, answers): (Sender<BackendEvent>, Sender<Answer>),
        request_timeout: Duration,
    ) -> Self {
        Self {
            node,
            scripted_requests: backend.is_scripted(),
            recorded,
            backend,
            host,
            backend_events,
            answers,
            request_timeout,
            running: None,
            started: Instant::now(),
        }
    }

    /// A call for the model host, sent on `model`.
    pub fn call_host(&mut self, call: ModelCall) -> eyre::Result<()> {
        node_kit::send(&mut self.node, call)
    }

    /// Fails the host's requests that went silent too long.
    pub fn expire(&self) {
        if let Some(host) = &self.host {
            host.expire(std::time::Instant::now());
        }
    }

    /// What dora's `event` (`None`: the stream ended) means to the core: an input,
    /// nothing (handled here, or ignored with a warning), or the end of the node.
    pub fn on_event(&mut self, event: Option<DoraEvent>) -> ControlFlow<(), Option<BridgeInput>> {
        match event {
            None | Some(DoraEvent::Stop(_)) => ControlFlow::Break(()),
            Some(DoraEvent::Input { id, metadata, data }) => {
                let params = &metadata.parameters;
                match id.as_str() {
                    ids::MODEL_REPLY => {
                        match (&self.host, node_kit::decode::<ModelReply>(params, &data)) {
                            (Some(host), Ok(reply)) => host.deliver(reply),
                            (None, _) => {
                                tracing::debug!("a model reply without the host backend ignored")
                            }
                            (_, Err(error)) => {
                                tracing::warn!(%error, "unreadable model reply ignored")
                            }
                        }
                        ControlFlow::Continue(None)
                    }
                    id => {
                        tracing::debug!(input = %id, question_id = ?node_kit::question_id(params), "input");
                        ControlFlow::Continue(to_bridge_input(id, params, &data))
                    }
                }
            }
            Some(DoraEvent::InputClosed { id }) if id.as_str() == ids::MODEL_REPLY => {
                if let Some(host) = &self.host {
                    tracing::warn!("the model host's output closed; open requests fail");
                    host.host_gone();
                }
                ControlFlow::Continue(None)
            }
            // The conductor is gone: no turn will ever come again. Leaving lets the nodes
            // downstream (segmenter, player, recorder) see their inputs close and finish,
            // even where the player's reports loop back to this bridge.
            Some(DoraEvent::InputClosed { id }) if id.as_str() == ids::TURN => {
                tracing::info!("the turn input closed; the bridge is done");
                ControlFlow::Break(())
            }
            Some(DoraEvent::Error(e)) => {
                tracing::warn!(error = %e, "dora reported an error");
                ControlFlow::Continue(None)
            }
            Some(_) => ControlFlow::Continue(None),
        }
    }

    /// Runs `input` through the core and carries out what it decided.
    pub fn handle(&mut self, input: BridgeInput) -> eyre::Result<()> {
        let now_ms = self.started.elapsed().as_millis() as u64;
        for output in self.recorded.call(Call::Input(input), now_ms) {
            self.carry_out(output)?;
        }
        Ok(())
    }

    fn carry_out(&mut self, output: BridgeOutput) -> eyre::Result<()> {
        match output {
            BridgeOutput::Generate(request) => {
                if let Some(plan) = &request.plan {
                    tracing::info!(question_id = request.question_id, action = plan.action.as_str(), point = %plan.point, "planned");
                }
                tracing::info!(question_id = request.question_id, "generating");
                let question_id = request.question_id;
                let history = self.recorded.core.history().clone();
                let cancel = self
                    .backend
                    .start(request, history, self.backend_events.clone());
                self.running = Some((question_id, cancel));
            }
            BridgeOutput::Prefill(request) => self.backend.prefill(request),
            BridgeOutput::ReadAhead(request) => self.backend.read_ahead(request),
            BridgeOutput::Cancel { question_id } => {
                tracing::info!(question_id, "generation cancelled");
                if self
                    .running
                    .as_ref()
                    .is_some_and(|(q, _)| *q == question_id)
                    && let Some((_, cancel)) = self.running.take()
                {
                    cancel();
                }
            }
            BridgeOutput::Text {
                question_id,
                text,
                status,
                error,
                ends_sentence,
            } => {
                if let Some(error) = &error {
                    tracing::warn!(question_id, %error, "generation failed");
                }
                let chunk = Chunk {
                    question_id: Some(question_id),
                    speaker: Some(self.recorded.core.persona().name.clone()),
                    status: Some(status),
                    error,
                    text: Ok(text),
                    ends_sentence,
                    ..Chunk::default()
                };
                node_kit::send(&mut self.node, chunk)?;
            }
            BridgeOutput::Ask { request, prompt } => {
                // The conductor's own patience, else this bridge's limit.
                let within = request
                    .within_ms
                    .map_or(self.request_timeout, Duration::from_millis);
                llm_bridge::backend::ask(
                    &self.backend,
                    request,
                    prompt,
                    self.recorded.core.history().clone(),
                    within,
                    self.answers.clone(),
                );
            }
            BridgeOutput::Reply(reply) => {
                if let Some(error) = &reply.error {
                    if self.scripted_requests {
                        tracing::debug!(request = ?reply.request_id, kind = ?reply.kind, %error, "side request not answered");
                    } else {
                        tracing::warn!(request = ?reply.request_id, kind = ?reply.kind, %error, "side request not answered");
                    }
                }
                node_kit::send(&mut self.node, reply)?;
            }
        }
        Ok(())
    }
}

impl Drop for BridgeNode {
    fn drop(&mut self) {
        if let Some((_, cancel)) = self.running.take() {
            cancel();
        }
    }
}

/// The core's input for dora input `id`, if it is one the bridge reads and it decodes.
fn to_bridge_input(
    id: &str,
    params: &MetadataParameters,
    data: &dora_node_api::DoraArray,
) -> Option<BridgeInput> {
    let warn = |e: DecodeError| {
        tracing::warn!(input = id, error = %e, "input ignored");
    };
    match id {
        ids::REQUEST => {
            let request = node_kit::decode::<SideRequest>(params, data)
                .map_err(|error| tracing::warn!(%error, "unreadable side request ignored"))
                .ok()?;
            Some(BridgeInput::Request(request))
        }
        ids::TURN => {
            let turn = node_kit::decode::<Turn>(params, data).map_err(warn).ok()?;
            // Words to take up steer the reply; past a side request's limit they would
            // only fail the model's job: the turn is said without them.
            let takes_up = turn.takes_up.filter(|words| {
                let fits = words.len() <= MAX_PROMPT_BYTES;
                if !fits {
                    tracing::warn!(
                        input = id,
                        question_id = turn.question_id,
                        bytes = words.len(),
                        "`takes_up` is over {MAX_PROMPT_BYTES} bytes; the turn goes on without it"
                    );
                }
                fits
            });
            Some(BridgeInput::Turn {
                speaker: turn.speaker,
                question_id: turn.question_id,
                instruction: turn.instruction,
                context: turn.context,
                prepared: turn.prepared,
                takes_up,
                asks: turn.asks,
                answers_human: turn.answers_human,
            })
        }
        ids::PREPARE => {
            let prepare = node_kit::decode::<Prepare>(params, data)
                .map_err(warn)
                .ok()?;
            Some(BridgeInput::Prepare {
                speaker: prepare.speaker,
                ahead_of: prepare.ahead_of,
            })
        }
        ids::INTERRUPT => {
            let interrupt = node_kit::decode::<Interrupt>(params, data)
                .map_err(warn)
                .ok()?;
            if let Some(kind) = interrupt.unknown_kind {
                tracing::warn!(%kind, "unknown interrupt kind; treating it as cancel");
            }
            Some(BridgeInput::Interrupt {
                question_id: interrupt.question_id,
            })
        }
        ids::UTTERANCE => {
            let u = node_kit::decode::<Utterance>(params, data)
                .map_err(warn)
                .ok()?;
            Some(BridgeInput::Utterance(Entry {
                human: u.human,
                interrupted: u.interrupted,
                question_id: u.question_id,
                speaker: u.speaker,
                text: u.text,
            }))
        }
        ids::PLAYED => {
            let played = node_kit::decode::<Played>(params, data)
                .map_err(warn)
                .ok()?;
            // Only cut-off utterances change the context; complete ones are already in it.
            if !played.interrupted {
                return None;
            }
            Some(BridgeInput::Played {
                speaker: played.speaker,
                question_id: played.question_id?,
                heard: played.text,
            })
        }
        ids::HELD => {
            let held = node_kit::decode::<Held>(params, data).map_err(warn).ok()?;
            Some(BridgeInput::Held {
                speaker: held.speaker,
                question_id: held.question_id,
                heard: held.text,
            })
        }
        other => {
            tracing::warn!(input = other, "unknown input ignored");
            None
        }
    }
}

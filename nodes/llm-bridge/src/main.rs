//! `llm-bridge`: one participant. Turns and interrupts from the controller in, streamed
//! `text` out. Decisions live in [`agent_bridge::BridgeCore`]; this file moves data.

mod settings;

use std::{sync::Arc, time::Duration};

use agent_bridge::{BridgeCore, BridgeInput, BridgeOutput, Entry, SideRequest};
use crossbeam_channel::select;
use dora_node_api::{DoraNode, Event as DoraEvent};
use eyre::{Context, bail};
use voice_protocol::ids;
use voice_protocol::messages::{
    Chunk, DecodeError, Held, Interrupt, ModelCall, ModelReply, Played, Prepare, Turn, Utterance,
};

use llm_bridge::{
    backend::{Backend, BackendEvent, Cancel, OpenAiBackend, ScriptedBackend},
    host::HostBackend,
    local::LocalBackend,
};

use crate::settings::{load_agenda, load_directory, load_persona, openai_config};

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let (mut node, events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    let persona = load_persona(node.id().as_ref())?;
    let topic = node_kit::env_opt("TOPIC");
    let backend_name = node_kit::env_opt("LLM_BACKEND").unwrap_or_else(|| "local".to_owned());
    // The model host's calls, sent on `model` (none for the other backends).
    let (mut host, mut calls) = (None, crossbeam_channel::never::<ModelCall>());
    let backend: Arc<dyn Backend> = match backend_name.as_str() {
        "host" => {
            let silence = node_kit::env_secs("MODEL_HOST_SILENCE_SECS", 45.0)?;
            let (backend, rx) = HostBackend::new(persona.clone(), silence);
            let backend = Arc::new(backend);
            tracing::info!(participant = %persona.name, "using the machine's model host");
            (host, calls) = (Some(backend.clone()), rx);
            backend
        }
        "local" => {
            let config = llm_bridge::local::config_from_env()?;
            Arc::new(LocalBackend::load(config, persona.clone())?)
        }
        // The deterministic template filler: exact text for tests, no language model.
        "scripted" | "offline" => {
            let delay = Duration::from_millis(node_kit::env_parse("OFFLINE_WORD_DELAY_MS", 90)?);
            tracing::info!(participant = %persona.name, "using the scripted stand-in model (template text, for tests)");
            Arc::new(ScriptedBackend::new(persona.clone(), topic.clone(), delay))
        }
        "openai" => {
            let config = openai_config()?;
            tracing::info!(participant = %persona.name, base_url = %config.service.redactor().redact(&config.service.base_url), model = %config.chat.model, key = config.service.api_key.is_some(), "using an OpenAI-compatible model service");
            Arc::new(OpenAiBackend::new(config, persona.clone())?)
        }
        other => {
            bail!(
                "LLM_BACKEND={other:?} is not supported (use `host`, `local`, `openai` or `scripted`)"
            )
        }
    };
    // Declared after the backend, so dropped first: on every way out of this function.
    let _shutdown = llm_bridge::backend::ShutdownOnDrop(backend.clone());
    let history = node_kit::env_parse("HISTORY_LIMIT", 60usize)?;
    let directory = load_directory(&persona);
    let agenda = load_agenda()?;
    // Answers to a human open with a word or two at once; the scripted stand-in keeps its
    // template text exact unless asked.
    let scripted = matches!(backend_name.as_str(), "scripted" | "offline");
    let openers = node_kit::env_parse::<u8>("ANSWER_OPENERS", u8::from(!scripted))? != 0;
    let scripted_requests = backend.is_scripted();
    let mut core = BridgeCore::new(persona, topic, history)
        .with_plan(directory, agenda)
        .with_openers(openers)
        // A model that keeps a cache reads each line as it is heard.
        .with_read_along(matches!(backend_name.as_str(), "host" | "local"))
        .with_scripted_requests(scripted_requests);

    let dora_events = node_kit::forward_events(events);
    let (backend_tx, backend_rx) = crossbeam_channel::unbounded::<BackendEvent>();
    let (reply_tx, reply_rx) =
        crossbeam_channel::unbounded::<(SideRequest, Result<String, String>)>();
    let request_timeout = node_kit::env_secs("REQUEST_TIMEOUT_SECS", 20.0)?;
    let mut running: Option<(u64, Cancel)> = None;
    let ticks = crossbeam_channel::tick(Duration::from_secs(1));

    loop {
        let input = select! {
            recv(calls) -> call => {
                if let Ok(call) = call {
                    node_kit::send(&mut node, call)?;
                }
                continue;
            }
            recv(ticks) -> _ => {
                if let Some(host) = &host {
                    host.expire(std::time::Instant::now());
                }
                continue;
            }
            recv(dora_events) -> event => match event {
                Ok(DoraEvent::Input { id, metadata, data }) if id.as_str() == ids::REQUEST => {
                    match node_kit::decode::<SideRequest>(&metadata.parameters, &data) {
                        Ok(request) => BridgeInput::Request(request),
                        Err(error) => {
                            tracing::warn!(%error, "unreadable side request ignored");
                            continue;
                        }
                    }
                }
                Ok(DoraEvent::Input { id, metadata, data }) if id.as_str() == ids::MODEL_REPLY => {
                    match (&host, node_kit::decode::<ModelReply>(&metadata.parameters, &data)) {
                        (Some(host), Ok(reply)) => host.deliver(reply),
                        (None, _) => tracing::debug!("a model reply without the host backend ignored"),
                        (_, Err(error)) => tracing::warn!(%error, "unreadable model reply ignored"),
                    }
                    continue;
                }
                Ok(DoraEvent::InputClosed { id }) if id.as_str() == ids::MODEL_REPLY => {
                    if let Some(host) = &host {
                        tracing::warn!("the model host's output closed; open requests fail");
                        host.host_gone();
                    }
                    continue;
                }
                Ok(DoraEvent::Input { id, metadata, data }) => {
                    tracing::debug!(input = %id, question_id = ?node_kit::question_id(&metadata.parameters), "input");
                    match to_bridge_input(id.as_str(), &metadata.parameters, &data) {
                        Some(input) => input,
                        None => continue,
                    }
                }
                Ok(DoraEvent::Stop(_)) | Err(_) => break,
                // The conductor is gone: no turn will ever come again. Leaving lets the nodes
                // downstream (segmenter, player, recorder) see their inputs close and finish,
                // even where the player's reports loop back to this bridge.
                Ok(DoraEvent::InputClosed { id }) if id.as_str() == ids::TURN => {
                    tracing::info!("the turn input closed; the bridge is done");
                    break;
                }
                Ok(DoraEvent::Error(e)) => { tracing::warn!(error = %e, "dora reported an error"); continue }
                Ok(_) => continue,
            },
            recv(reply_rx) -> reply => match reply {
                Ok((request, answer)) => BridgeInput::Answered { request, answer },
                Err(_) => break,
            },
            recv(backend_rx) -> event => match event {
                Ok(BackendEvent::Chunk { question_id, text }) => BridgeInput::Chunk { question_id, text },
                Ok(BackendEvent::Finished { question_id, error }) => BridgeInput::Finished { question_id, error },
                Err(_) => break,
            },
        };
        for output in core.handle(input) {
            match output {
                BridgeOutput::Generate(request) => {
                    if let Some(plan) = &request.plan {
                        tracing::info!(question_id = request.question_id, action = plan.action.as_str(), point = %plan.point, "planned");
                    }
                    tracing::info!(question_id = request.question_id, "generating");
                    let question_id = request.question_id;
                    let cancel = backend.start(request, core.history().clone(), backend_tx.clone());
                    running = Some((question_id, cancel));
                }
                BridgeOutput::Prefill(request) => backend.prefill(request),
                BridgeOutput::ReadAhead(request) => backend.read_ahead(request),
                BridgeOutput::Cancel { question_id } => {
                    tracing::info!(question_id, "generation cancelled");
                    if running.as_ref().is_some_and(|(q, _)| *q == question_id)
                        && let Some((_, cancel)) = running.take()
                    {
                        cancel();
                    }
                }
                BridgeOutput::Text {
                    question_id,
                    text,
                    status,
                    error,
                } => {
                    if let Some(error) = &error {
                        tracing::warn!(question_id, %error, "generation failed");
                    }
                    let chunk = Chunk {
                        question_id: Some(question_id),
                        speaker: Some(core.persona().name.clone()),
                        status: Some(status),
                        error,
                        text: Ok(text),
                        ..Chunk::default()
                    };
                    node_kit::send(&mut node, chunk)?;
                }
                BridgeOutput::Ask { request, messages } => {
                    // The conductor's own patience, else this bridge's limit.
                    let within = request
                        .within_ms
                        .map_or(request_timeout, Duration::from_millis);
                    llm_bridge::backend::ask(
                        &backend,
                        request,
                        messages,
                        core.history().clone(),
                        within,
                        reply_tx.clone(),
                    );
                }
                BridgeOutput::Reply(reply) => {
                    if let Some(error) = &reply.error {
                        // The stand-in answers no JSON requests by design: nothing to warn of.
                        if scripted_requests {
                            tracing::debug!(request = ?reply.request_id, kind = ?reply.kind, %error, "side request not answered");
                        } else {
                            tracing::warn!(request = ?reply.request_id, kind = ?reply.kind, %error, "side request not answered");
                        }
                    }
                    node_kit::send(&mut node, reply)?;
                }
            }
        }
    }
    if let Some((_, cancel)) = running {
        cancel();
    }
    Ok(())
}

fn to_bridge_input(
    id: &str,
    params: &dora_node_api::MetadataParameters,
    data: &dora_node_api::DoraArray,
) -> Option<BridgeInput> {
    let warn = |e: DecodeError| {
        tracing::warn!(input = id, error = %e, "input ignored");
    };
    match id {
        ids::TURN => {
            let turn = node_kit::decode::<Turn>(params, data).map_err(warn).ok()?;
            Some(BridgeInput::Turn {
                speaker: turn.speaker,
                question_id: turn.question_id,
                instruction: turn.instruction,
                context: turn.context,
                prepared: turn.prepared,
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
            Some(BridgeInput::Heard {
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

//! `model-host`: the machine's one language model. Every bridge sends its requests on
//! `model` (generate, read ahead, cancel); the text comes back on `model_reply`, tagged
//! with the participant and the bridge's call id. The model, the cache sequences and the
//! priorities are [`llm_bridge::local::ModelHost`]'s; this file moves data.

mod calls;

use crossbeam_channel::select;
use dora_node_api::{DoraNode, Event as DoraEvent};
use eyre::Context;
use llm_bridge::local::ModelHost;
use voice_protocol::messages::ModelCall;

use calls::Calls;

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    // The participants may use another backend (the scripted stand-in in tests, a model
    // service): the host then loads nothing and answers any request with an error. The
    // model loads before the node joins: dora starts the dataflow once every node has,
    // so the first turn is not handed out to a model still loading (2.8 s of the
    // silence before the first line).
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
    let (mut node, events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    let dora_events = node_kit::forward_events(events);
    let (mut calls, replies) = Calls::new(host.as_ref(), backend);
    loop {
        select! {
            recv(dora_events) -> event => match event {
                Ok(DoraEvent::Input { id, metadata, data }) => {
                    match node_kit::decode::<ModelCall>(&metadata.parameters, &data) {
                        Ok(call) => calls.handle(call),
                        Err(error) => {
                            tracing::warn!(input = %id, %error, "unreadable model call ignored")
                        }
                    }
                }
                Ok(DoraEvent::Stop(_)) | Err(_) => break,
                Ok(DoraEvent::Error(e)) => tracing::warn!(error = %e, "dora reported an error"),
                Ok(_) => {}
            },
            recv(replies) -> out => {
                let Ok(out) = out else { break };
                node_kit::send(&mut node, calls.reply(out))?;
            }
        }
    }
    calls.cancel_all();
    drop(calls);
    drop(host);
    Ok(())
}

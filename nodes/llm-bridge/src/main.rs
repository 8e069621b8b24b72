//! `llm-bridge`: one participant. Turns and interrupts from the controller in, streamed
//! `text` out. Decisions live in [`agent_bridge::BridgeCore`]; [`node`] moves data
//! between it, dora and the model backend.

mod node;
mod settings;

use std::{ops::ControlFlow, time::Duration};

use agent_bridge::{BRIDGE_FORMAT, BridgeInput, BridgeSetup};
use crossbeam_channel::select;
use dora_node_api::DoraNode;
use eyre::Context;
use node_kit::decisions::{DecisionWriter, Recorded};

use llm_bridge::backend::{BackendEvent, ShutdownOnDrop};

use crate::{
    node::{Answer, BridgeNode},
    settings::{Backends, Conversation, load_agenda, load_directory, load_persona},
};

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let (node, events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    let persona = load_persona(node.id().as_ref())?;
    let conversation = Conversation::from_env()?;
    let topic = conversation.topic;
    let Backends {
        backend,
        host,
        calls,
        scripted,
        reads_along,
    } = Backends::from_env(&persona, topic.as_deref())?;
    // Declared after the backend, so dropped first: on every way out of this function.
    let _shutdown = ShutdownOnDrop(backend.clone());
    let openers = conversation.openers.unwrap_or(!scripted);
    let setup = BridgeSetup {
        directory: load_directory(&persona),
        agenda: load_agenda()?,
        participants: dataflow_nodes(&node),
        openers,
        read_along: reads_along,
        scripted_requests: backend.is_scripted(),
        ..BridgeSetup::new(persona, topic, conversation.history)
    };
    // Every call of the core, recorded for `replay` (docs/SESSIONS.md, "Record and
    // replay").
    let folder = node_kit::session::session_folder(&node.dataflow_id().to_string())?;
    let log = DecisionWriter::open(&folder, node.id().as_ref(), BRIDGE_FORMAT, &setup);
    let core = Recorded::new(setup.build(), (), log);
    let (backend_tx, backend_rx) = crossbeam_channel::unbounded::<BackendEvent>();
    let (answer_tx, answer_rx) = crossbeam_channel::unbounded::<Answer>();
    let mut bridge = BridgeNode::new(
        node,
        core,
        (backend, host),
        (backend_tx, answer_tx),
        conversation.request_timeout,
    );

    let dora_events = node_kit::forward_events(events);
    let ticks = crossbeam_channel::tick(Duration::from_secs(1));
    bridge.handle(BridgeInput::Started)?;
    loop {
        let input = select! {
            recv(calls) -> call => {
                if let Ok(call) = call {
                    bridge.call_host(call)?;
                }
                continue;
            }
            recv(ticks) -> _ => {
                bridge.expire();
                continue;
            }
            recv(dora_events) -> event => match bridge.on_event(event.ok()) {
                ControlFlow::Continue(Some(input)) => input,
                ControlFlow::Continue(None) => continue,
                ControlFlow::Break(()) => break,
            },
            recv(answer_rx) -> answer => match answer {
                Ok((request, answer)) => BridgeInput::Answered { request, answer },
                Err(_) => break,
            },
            recv(backend_rx) -> event => match event {
                Ok(BackendEvent::Chunk { question_id, text, ends_sentence }) => {
                    BridgeInput::Chunk { question_id, text, ends_sentence }
                }
                Ok(BackendEvent::Finished { question_id, error }) => BridgeInput::Finished { question_id, error },
                Err(_) => break,
            },
        };
        bridge.handle(input)?;
    }
    Ok(())
}

/// The ids of the dataflow's nodes (none when dora gives no descriptor, as in its testing
/// mode): whoever of them has a persona takes part in this conversation.
fn dataflow_nodes(node: &DoraNode) -> Vec<String> {
    node.dataflow_descriptor()
        .map(|d| d.nodes.iter().map(|n| n.id.to_string()).collect())
        .unwrap_or_default()
}

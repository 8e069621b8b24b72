//! `session-recorder`: prints who says what and writes `transcript.jsonl` and
//! `events.jsonl` into the session folder, one flushed line at a time, so a crash loses
//! nothing already said.
//!
//! Folder: see [`node_kit::session`].
//!
//! With `AGENTS` (agent names) and `AGENTS_ROOT` (the folder holding `templates/` and
//! `session-templates/`) the folder also holds the conversation's agent-context session,
//! `context/`, frozen at the end: see [`context`].
//!
//! Optional input `auction`: event records of a conductor (one JSON object each), written
//! to `events.jsonl` as they are with `t_ms` added.

mod codec;
mod context;
mod files;
mod settings;

use std::{collections::BTreeSet, time::Instant};

use dora_node_api::{DoraNode, Event as DoraEvent};
use eyre::Context;
use node_kit::{Next, next_event, text_of};
use session_log::{Observed, SessionLog};
use voice_protocol::ids;

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let (node, mut events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    let dataflow_id = node.dataflow_id().to_string();
    let dir = node_kit::session::session_folder(&dataflow_id)?;
    // Spoken session (a `played` input from the player is wired): lines wait for what
    // was heard, unless `PACE_WITH_PLAYBACK` says otherwise.
    let wired = node
        .node_config()
        .inputs
        .keys()
        .any(|id| id.as_str() == ids::PLAYED);
    let settings = settings::Settings::from_env(wired)?;
    let agent_context = settings
        .agents
        .map(|agents| context::ContextSession::open(&dir, &dataflow_id, agents))
        .transpose()?;
    let mut files = files::Files::open(&dir, agent_context)?;
    tracing::info!(folder = %dir.display(), "recording the session");
    let start = Instant::now();
    let mut log = match settings.paced {
        true => SessionLog::spoken(),
        false => SessionLog::new(),
    };
    let mut unknown_inputs = BTreeSet::new();
    let now_ms = || start.elapsed().as_millis() as u64;
    loop {
        let observed = match next_event(&mut events, None) {
            Next::Closed | Next::Timeout => break,
            Next::Event(event) => match *event {
                DoraEvent::Input { id, metadata, data } => {
                    let text = match text_of(&data) {
                        Ok(text) => text,
                        Err(e) => {
                            tracing::warn!(input = %id, error = %e, "unreadable input ignored");
                            continue;
                        }
                    };
                    if id.as_str() == ids::AUCTION {
                        if let Some(line) = codec::event_record(id.as_str(), &text, now_ms()) {
                            files.write_event(&line)?;
                        }
                        continue;
                    }
                    let params = &metadata.parameters;
                    match codec::observed(id.as_str(), params, text, &mut unknown_inputs) {
                        Some(observed) => observed,
                        None => continue,
                    }
                }
                DoraEvent::InputClosed { id } if id.as_str() == ids::PLAYED => {
                    tracing::info!(
                        "the player's reports ended (stopped or gone); waiting lines are written now"
                    );
                    Observed::PlayerGone
                }
                DoraEvent::Stop(_) => break,
                _ => continue,
            },
        };
        for record in log.observe(observed, now_ms()) {
            files.write(&record)?;
        }
    }
    for record in log.flush() {
        files.write(&record)?;
    }
    files.finish();
    Ok(())
}

//! `conference-controller`: Arrow in → [`conference_core`] → Arrow out.
//!
//! Inputs: one per participant (its text), `human`, `human_text` (optional: typed words,
//! e.g. from the console, taken exactly like `human`), `speech_started` and `backchannel`
//! (the voice detector's: the human's floor), `control`, `playback_done` (optional, from
//! the player).
//! Outputs: `turn`, `interrupt`, `status`, `utterance`, `prepare`, and `pause` / `resume`
//! for the player (the human's floor held and released). See nodes/conference-controller/README.md.

mod codec;
mod settings;

use std::time::Instant;

use conference_core::{CONTROLLER_FORMAT, Conference, Input};
use dora_node_api::DoraNode;
use eyre::Context;
use node_kit::conduct::Conversions;
use node_kit::decisions::{DecisionWriter, Recorded};

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let setup = settings::from_env()?;
    let engine = setup.engine()?;
    let (mut node, mut events) =
        DoraNode::init_from_env().context("failed to start the dora node")?;
    codec::warn_about_wiring(&node);
    // Which inputs each upstream node feeds: a restarted node restarts those inputs.
    let sources = node_kit::InputSources::of(&node);
    let start = Instant::now();
    let now = || start.elapsed().as_millis() as u64;
    // Every call of the core, recorded for `replay` (docs/SESSIONS.md, "Record and
    // replay").
    let session = node_kit::session::session_folder(&node.dataflow_id().to_string())?;
    let log = DecisionWriter::open(&session, node.id().as_ref(), CONTROLLER_FORMAT, &setup);
    let mut conference = Recorded::new(Conference::new(engine, setup.config()), (), log);
    let mut conversions = Conversions {
        decode: codec::to_core_input,
        restarted: |input: &str| {
            Some(Input::Restarted {
                input: input.to_owned(),
            })
        },
        closed: |input: &str| {
            Some(Input::InputClosed {
                input: input.to_owned(),
            })
        },
        emit: |actions| codec::emit(&mut node, actions),
    };
    let ending = node_kit::conduct::run(
        &mut conference,
        &mut events,
        &sources,
        now,
        &mut conversions,
    )?;
    tracing::debug!(?ending, "controller loop over");
    tracing::info!(stats = %conference.core.status().to_json(), "conference controller stopped");
    Ok(())
}

//! `auction`: the organic-auction conductor. Participants bid for the floor with tokens
//! each micro-turn, interject briefly under a ducked speaker, and sometimes cut each other
//! off with a kicker. Decisions and the messages that carry them out live in
//! [`auction_core::AuctionDebate`]; this file moves data.
//!
//! Inputs: one per participant (its bridge's `text`), any number of bridges' `reply`
//! (recognised by their `request_id`), and the player's `clip_ready`, `clip_started`,
//! `beat`, `clip_finished`; the human, optional: `speech_started`, `backchannel` (the
//! ASR bridge), `human` (its transcript), `human_text` (typed).
//! Outputs: `turn`, `request_<participant>`, `interrupt`, `utterance`, `clip`, `command`,
//! `auction` (event records); `pause`, `resume` with a human. See nodes/auction/README.md.

mod codec;
mod setup;

use std::time::Instant;

use auction_core::{AUCTION_FORMAT, Input};
use dora_node_api::DoraNode;
use eyre::{Context, eyre};
use node_kit::conduct::{Conversions, Received};
use node_kit::decisions::{DecisionWriter, Recorded};

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let recipe = setup::from_env()?;
    let conductor = recipe
        .build()
        .map_err(|e| eyre!("cannot start the auction: {e}"))?;
    tracing::info!(
        participants = %recipe.participants.join(", "),
        preset = recipe.config.preset.as_deref().unwrap_or("-"),
        seed = recipe.seed,
        "auction conductor starting"
    );
    let (mut node, mut events) =
        DoraNode::init_from_env().context("failed to start the dora node")?;
    let sources = node_kit::InputSources::of(&node);
    let start = Instant::now();
    let now = || start.elapsed().as_millis() as u64;
    // Every call of the conductor, recorded for `replay` (docs/SESSIONS.md, "Record
    // and replay").
    let folder = node_kit::session::session_folder(&node.dataflow_id().to_string())?;
    let log = DecisionWriter::open(&folder, node.id().as_ref(), AUCTION_FORMAT, &recipe);
    let mut conductor = Recorded::new(conductor, (), log);
    // The session ends by itself after `max_segments` (the last clip heard); the node then
    // exits, which closes every other node's inputs and ends the dataflow.
    let participants = &recipe.participants;
    let mut conversions = Conversions {
        decode: |input: Received<'_>| codec::decode(input, participants),
        restarted: |input: &str| {
            Some(Input::Restarted {
                input: input.to_owned(),
            })
        },
        closed: |_: &str| None,
        emit: |out| codec::send(&mut node, out),
    };
    let ending =
        node_kit::conduct::run(&mut conductor, &mut events, &sources, now, &mut conversions)?;
    tracing::debug!(?ending, "auction loop over");
    for agent in conductor.core.snapshot() {
        tracing::info!(agent = %agent.name, tokens = agent.tokens, talk_ms = agent.talk_ms, interrupts = agent.interrupts, interjections = agent.interjections, "final standing");
    }
    Ok(())
}

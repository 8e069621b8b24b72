//! `auction`: the organic-auction conductor. Participants bid for the floor with tokens
//! each micro-turn, interject briefly under a ducked speaker, and sometimes cut each other
//! off with a kicker. Decisions and the messages that carry them out live in
//! [`auction_core::AuctionDebate`]; this file moves data.
//!
//! Inputs: one per participant (its bridge's `text`), any number of bridges' `reply`
//! (recognised by their `request_id`), and the player's `clip_ready`, `clip_started`,
//! `beat`, `clip_finished`.
//! Outputs: `turn`, `request_<participant>`, `interrupt`, `utterance`, `clip`, `command`,
//! `auction` (event records). See docs/ARCHITECTURE.md.

mod setup;

use std::time::Instant;

use auction_core::{
    AUCTION_FORMAT, AuctionSetup, Input, Output, RecordKind, Timeouts, render_auction_table,
};
use dora_node_api::DoraNode;
use eyre::{Context, eyre};
use node_kit::conduct::{Conversions, Received};
use node_kit::decisions::{DecisionWriter, RecordedConductor};
use voice_protocol::messages::{ClipJson, DecodeError, Interrupt, Plain, Turn, Utterance};
use voice_protocol::{InterruptKind, ids};

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let setup = setup::from_env()?;
    let timeouts = Timeouts {
        segment_ms: secs_to_ms(
            node_kit::env_parse("SEGMENT_TIMEOUT_SECS", 20.0)?,
            "SEGMENT_TIMEOUT_SECS",
        )?,
        request_ms: secs_to_ms(
            node_kit::env_parse("SIDE_REQUEST_TIMEOUT_SECS", 10.0)?,
            "SIDE_REQUEST_TIMEOUT_SECS",
        )?,
    };
    let recipe = AuctionSetup {
        config: setup.config.clone(),
        participants: setup.participants.clone(),
        seed: setup.seed,
        timeouts,
    };
    let conductor = recipe
        .build()
        .map_err(|e| eyre!("cannot start the auction: {e}"))?;
    tracing::info!(
        participants = %setup.participants.join(", "),
        preset = setup.config.preset.as_deref().unwrap_or("-"),
        seed = setup.seed,
        "auction conductor starting"
    );
    let (mut node, mut events) =
        DoraNode::init_from_env().context("failed to start the dora node")?;
    let sources = node_kit::InputSources::of(&node);
    let start = Instant::now();
    let now = || start.elapsed().as_millis() as u64;
    // Every call of the conductor, recorded for `replay` (docs/ARCHITECTURE.md, "Record
    // and replay").
    let folder = node_kit::session::session_folder(&node.dataflow_id().to_string())?;
    let log = DecisionWriter::open(&folder, node.id().as_ref(), AUCTION_FORMAT, &recipe);
    let mut conductor = RecordedConductor::new(conductor, (), log);
    // The session ends by itself after `max_segments` (the last clip heard); the node then
    // exits, which closes every other node's inputs and ends the dataflow.
    let participants = &setup.participants;
    let mut conversions = Conversions {
        decode: |input: Received<'_>| decode(input, participants),
        restarted: |input: &str| Input::Restarted {
            input: input.to_owned(),
        },
        closed: |_: &str| None,
        emit: |out| send(&mut node, out),
    };
    let ending =
        node_kit::conduct::run(&mut conductor, &mut events, &sources, now, &mut conversions)?;
    tracing::debug!(?ending, "auction loop over");
    for agent in conductor.conductor.snapshot() {
        tracing::info!(agent = %agent.name, tokens = agent.tokens, talk_ms = agent.talk_ms, interrupts = agent.interrupts, interjections = agent.interjections, "final standing");
    }
    Ok(())
}

fn secs_to_ms(secs: f64, name: &str) -> eyre::Result<u64> {
    if !(secs.is_finite() && secs > 0.0 && secs <= 3600.0) {
        return Err(eyre!("{name} must be within (0, 3600] seconds"));
    }
    Ok((secs * 1000.0) as u64)
}

/// Decodes one input; `None` (with a warning) when it cannot be used.
fn decode(input: Received<'_>, participants: &[String]) -> Option<Input> {
    fn clip<T: serde::de::DeserializeOwned>(input: &Received<'_>) -> Option<T> {
        match input.decode::<ClipJson>().and_then(|clip| clip.parse()) {
            Ok(report) => Some(report),
            Err(e @ DecodeError::Payload(_)) => {
                tracing::warn!(input = input.id, error = %e, "unreadable input ignored");
                None
            }
            Err(e) => {
                tracing::warn!(input = input.id, error = %e, "invalid JSON ignored");
                None
            }
        }
    }
    let id = input.id;
    match id {
        ids::CLIP_READY => return clip(&input).map(Input::ClipReady),
        ids::CLIP_STARTED => return clip(&input).map(Input::ClipStarted),
        ids::BEAT => return clip(&input).map(Input::Beat),
        ids::CLIP_FINISHED => return clip(&input).map(Input::ClipFinished),
        _ => {}
    }
    let reply = input.reply()?;
    if let Some(request_id) = reply.request_id {
        return Some(Input::Reply {
            request_id,
            text: reply.text,
            error: reply.error,
        });
    }
    if let Some(agent) = participants.iter().find(|p| p.as_str() == id) {
        let chunk = input.chunk();
        let Some(question_id) = chunk.question_id else {
            tracing::warn!(input = id, "text without question_id ignored");
            return None;
        };
        let ended = chunk.ends();
        let text = match chunk.text {
            Ok(text) => text,
            Err(e) => {
                tracing::warn!(input = id, error = %e, "unreadable input ignored");
                return None;
            }
        };
        return Some(Input::Text {
            agent: agent.clone(),
            question_id,
            text,
            ended,
            error: chunk.error,
        });
    }
    tracing::warn!(
        input = id,
        "unknown input ignored (not a participant, a reply or a player report)"
    );
    None
}

/// Sends the conductor's messages.
fn send(node: &mut DoraNode, out: Vec<Output>) -> eyre::Result<()> {
    for o in out {
        match o {
            Output::Turn {
                agent,
                question_id,
                instruction,
            } => {
                tracing::info!(%agent, question_id, "segment requested");
                let turn = Turn {
                    question_id,
                    speaker: agent,
                    instruction: Some(instruction),
                    ..Turn::default()
                };
                node_kit::send(node, turn)?;
            }
            Output::Request { agent, request } => {
                node_kit::send_on(node, &format!("{}_{agent}", ids::REQUEST), request)?;
            }
            Output::Interrupt { question_id } => {
                node_kit::send(node, Interrupt::new(InterruptKind::Cancel, question_id))?;
            }
            Output::Utterance {
                speaker,
                question_id,
                text,
                interrupted,
            } => {
                let utterance = Utterance {
                    question_id,
                    speaker,
                    text,
                    interrupted,
                    ..Utterance::default()
                };
                node_kit::send(node, utterance)?;
            }
            Output::Clip(spec) => {
                node_kit::send_on(node, ids::CLIP, ClipJson::of(spec.clip_id.clone(), &spec)?)?;
            }
            Output::Command(command) => {
                tracing::debug!(?command, "player command");
                node_kit::send_on(
                    node,
                    ids::COMMAND,
                    ClipJson::of(command.clip_id(), &command)?,
                )?;
            }
            Output::Record(record) => {
                match &record.kind {
                    RecordKind::Auction(a) => tracing::info!("\n{}", render_auction_table(a)),
                    RecordKind::Interrupt(i) => {
                        tracing::info!(agent = %i.agent_id, interrupted = %i.interrupted_id, beat = i.beat, "hard interrupt")
                    }
                    RecordKind::Interjection(i) => {
                        tracing::info!(agent = %i.agent_id, speaker = %i.speaker_id, kind = ?i.kind, "interjection")
                    }
                    RecordKind::Segment(s) => {
                        tracing::debug!(agent = %s.agent_id, clip = %s.clip_id, role = auction_core::debate::role_name(s.role), "main clip")
                    }
                    _ => {}
                }
                node_kit::send_on(node, ids::AUCTION, Plain(record.to_json_line()))?;
            }
            Output::Ended(reason) => {
                tracing::info!(?reason, "the auction session ended");
                // The end is on record for the session log too.
                let record = serde_json::json!({ "event": "session_end", "reason": reason });
                node_kit::send_on(node, ids::AUCTION, Plain(record.to_string()))?;
            }
        }
    }
    Ok(())
}

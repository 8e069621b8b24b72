//! `tts-player`: `segment` and `interrupt` in (optionally `pause` / `resume`, the
//! controller's hold of the human's floor); speech out to the sound device (when there
//! is one), `conversation.wav` and `timeline.jsonl` in the session folder, and the outputs
//! `audio` (Float32 blocks), `playback_started`, `playback_done` and `playback_held` (what
//! was heard of the utterance sounding when the voice was held).
//!
//! The human, optionally: `human_audio` (and `human_audio_<source>`: the microphones the
//! ASR bridge hears as `audio`, `audio_<source>`) is recorded as `human.wav` on the same
//! clock, and `utterance` (the controller's) puts each human utterance on the timeline,
//! where it was spoken; `mix.wav` holds both sides at the end. Decisions live in
//! [`player_core::Player`]; synthesis runs on a worker thread.
//!
//! Clip mode (additive, for conductors such as the auction node): `clip` (JSON
//! [`voice_protocol::clips::ClipSpec`]) and `command` (JSON
//! [`voice_protocol::clips::ClipCommand`]) in; `clip_ready`, `clip_started`, `beat` and
//! `clip_finished` (JSON, `clip_id` in the metadata) out.

mod backend;
mod inputs;
mod node;
mod output;
mod settings;
mod synth;

use std::time::Instant;

use crossbeam_channel::select;
use dora_node_api::{DoraNode, Event as DoraEvent};
use eyre::{Context, bail};
use voice_protocol::{hub, ids};

use crate::node::PlayerNode;
use crate::settings::Settings;

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let settings = Settings::from_env()?;
    let backend = backend::open(&settings.voice, settings.rate)?;
    tracing::info!(
        backend = backend.name(),
        rate = settings.rate,
        block_ms = settings.block_ms,
        "tts player starting"
    );

    let (node, events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    let (mut player, voiced) = PlayerNode::open(node, backend, &settings)?;
    let dora_events = node_kit::forward_events(events);
    loop {
        let wait = player
            .next_block_at()
            .saturating_duration_since(Instant::now());
        select! {
            recv(dora_events) -> event => match event {
                Ok(DoraEvent::Input { id, metadata, data }) if hub::is_input(id.as_str(), ids::HUMAN_AUDIO) => {
                    player.on_human_audio(id.as_str(), &metadata, &data)?;
                }
                Ok(DoraEvent::Input { id, metadata, data }) if id.as_str() == ids::UTTERANCE => {
                    player.on_utterance(&metadata, &data)?;
                }
                Ok(DoraEvent::Input { id, metadata, data }) => player.on_input(id.as_str(), &metadata, &data)?,
                Ok(DoraEvent::Stop(_)) | Err(_) => break,
                Ok(_) => {}
            },
            recv(voiced) -> result => match result {
                Ok(input) => player.on_voiced(input)?,
                Err(_) => bail!("the synthesis worker stopped"),
            },
            default(wait) => player.on_clock()?,
        }
    }
    player.finish()
}

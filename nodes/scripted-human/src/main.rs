//! `scripted-human`: a human played from a script (env `HUMAN_SCRIPT`, YAML: lines spoken
//! `during_turn: N` of the controller's `turn` input, or `at_secs: S`), in text, in voice
//! or both, by which outputs the dataflow wires (`HUMAN_OUTPUTS=text,voice` overrides):
//!
//! - text: `speech_started` when a line begins, `transcript` (Utf8, `session_status:
//!   ended`) when it has been said — in place of a microphone and an ASR bridge;
//! - voice: `audio`, Float32 blocks with `sample_rate`, streamed continuously in real time
//!   like a microphone: silence, and each line spoken by espeak-ng (`HUMAN_VOICE`) or a
//!   `.wav` file when the line's text names one.
//!
//! A simulated room (voice only): with `ROOM_ECHO_DB` set (e.g. `-10`; `off`: none), what
//! the player plays (input `room`, its `audio`) comes back into the human's microphone
//! `ROOM_ECHO_MS` (default 60) later and that much weaker, as a loudspeaker and an open
//! microphone in one room would have it.

mod act;
mod settings;
mod voice;

use std::time::{Duration, Instant};

use audio_utils::resample_linear;
use crossbeam_channel::select;
use dora_node_api::{DoraNode, Event as DoraEvent};
use eyre::Context;
use human_script::{HumanInput, HumanScript};
use voice_protocol::ids;
use voice_protocol::messages::Audio;

use crate::voice::Voice;

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let lines = settings::read_script()?;
    let (mut node, events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    let (text, spoken) = settings::outputs(&node)?;
    let mut voice = match spoken {
        true => Some(Voice::prepare(&lines, settings::voice_from_env()?)?),
        false => None,
    };
    // A spoken line lasts as long as its clip: the transcript follows its last sample.
    let lines = match &voice {
        Some(voice) => voice.timed(lines),
        None => lines,
    };
    tracing::info!(
        lines = lines.len(),
        text,
        voice = voice.is_some(),
        "scripted human ready"
    );
    let mut room = settings::room_from_env()?.and_then(|echo| voice.as_ref()?.room(echo));
    let dora_events = node_kit::forward_events(events);
    let mut script = HumanScript::new(lines);
    let start = Instant::now();
    loop {
        let script_wait = script
            .next_wake()
            .map(|d| d.saturating_sub(start.elapsed()));
        let block_wait = voice.as_ref().map(|v| {
            v.next_block_at(start)
                .saturating_duration_since(Instant::now())
        });
        // Without either, wake now and then to notice a stop.
        let wait = [script_wait, block_wait]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(Duration::from_secs(1));
        let mut input = HumanInput::Tick;
        select! {
            recv(dora_events) -> event => match event {
                Ok(DoraEvent::Input { id, .. }) if id.as_str() == ids::TURN => input = HumanInput::Turn,
                Ok(DoraEvent::Input { id, metadata, data }) if id.as_str() == ROOM => {
                    if let (Some(room), Some(voice)) = (room.as_mut(), voice.as_ref()) {
                        match node_kit::decode::<Audio>(&metadata.parameters, &data) {
                            Ok(block) => room.play(&resample_linear(&block.samples, block.sample_rate, voice.rate())),
                            Err(problem) => tracing::warn!(%problem, "room audio ignored"),
                        }
                    }
                }
                Ok(DoraEvent::Input { id, .. }) => tracing::warn!(input = %id, "unknown input ignored"),
                // The conductor is gone: no turn comes again, and the human leaves.
                Ok(DoraEvent::InputClosed { id }) if id.as_str() == ids::TURN => break,
                Ok(DoraEvent::Stop(_)) | Err(_) => break,
                Ok(_) => {}
            },
            default(wait) => {}
        }
        for action in script.handle(input, start.elapsed()) {
            act::act(&mut node, action, voice.as_mut(), text)?;
        }
        if let Some(voice) = voice.as_mut() {
            // A few blocks at a time: a stream that fell behind catches up without keeping
            // the script from being polled in between.
            for _ in 0..5 {
                if voice.next_block_at(start) > Instant::now() {
                    break;
                }
                let (rate, mut block) = voice.next_block();
                if let Some(room) = room.as_mut() {
                    room.mix_into(&mut block);
                }
                node_kit::send(&mut node, Audio::new(rate, block))?;
            }
        }
    }
    Ok(())
}

/// The input that carries what the player plays, for the simulated room.
const ROOM: &str = "room";

//! `asr-bridge`: `audio` in (Float32, metadata `sample_rate`), from a microphone or an
//! audio source node. Outputs `speech_started` as soon as voice begins, then `transcript`
//! (a real turn, `session_status` ended, for the controller's `human` input) or
//! `backchannel`: all three go to the controller, which holds and releases the human's
//! floor (the player's `pause` / `resume`).
//! A turn is sent when the words recognized at a short pause (`VAD_PAUSE_MS`) make a
//! finished turn, else at the closing silence (`VAD_HOLD_MS` after such a pause, since a
//! speaker hesitating mid-sentence pauses long; `VAD_END_MS` without one).
//! Decisions live in [`asr_core`] (its `endpoint`); recognition runs on a worker thread.
//! Any input named `audio_<source>` (e.g. `audio_console`, a browser's microphone) is a
//! second microphone of the same human, with a voice detector of its own.
//! Input `reference` (the player's `audio`, what the loudspeaker plays): its echo is taken
//! out of the microphones named in `ECHO_CANCEL_INPUTS` (default `audio`) before voice is
//! detected (`asr_core::echo`; `ECHO_TAIL_MS`, default 200, the longest echo path).

mod node;
mod settings;

use crossbeam_channel::select;
use dora_node_api::DoraNode;
use eyre::Context;

use crate::{node::AsrNode, settings::Settings};

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let settings = Settings::from_env()?;
    tracing::info!(
        backend = settings.recognizer.name(),
        pause_ms = settings.vad.pause_ms,
        commit_ms = settings.vad.commit_ms,
        hold_ms = settings.vad.hold_ms,
        end_ms = settings.vad.end_ms,
        "asr bridge starting"
    );
    let drain_timeout = settings.drain_timeout;
    let (node, events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    let dora_events = node_kit::forward_events(events);
    let (mut asr, results) = AsrNode::new(node, settings);
    loop {
        select! {
            recv(dora_events) -> event => {
                if asr.on_event(event.ok())?.is_break() {
                    break;
                }
            }
            recv(results) -> recognized => match recognized {
                Ok(recognized) => asr.on_result(recognized)?,
                Err(_) => break,
            },
        }
    }
    asr.finish(&results, drain_timeout)
}

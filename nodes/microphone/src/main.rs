//! `microphone`: streams the capture device as `audio` (Float32 blocks of `BLOCK_MS`,
//! metadata `sample_rate`) for the ASR bridge. It records the default input device
//! through cpal (ALSA, CoreAudio or WASAPI); `MIC_COMMAND` replaces the device with any
//! command that writes raw 16-bit little-endian mono PCM at `SAMPLE_RATE` to stdout (a
//! file, a network stream, a machine without a sound card).

mod settings;
mod source;

use dora_node_api::{DoraNode, Event as DoraEvent};
use eyre::Context;
use voice_protocol::messages::Audio;

use source::Source;

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let settings = settings::Settings::from_env()?;
    let (rate, block_len) = (settings.rate, settings.block_len());
    // Open the source before dora: a missing device is an error at start.
    let source = Source::open(settings.command)?;
    let (mut node, events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    // Stop when dora says so, even while a read is blocked.
    let dora_events = node_kit::forward_events(events);
    let stopped = || matches!(dora_events.try_recv(), Ok(DoraEvent::Stop(_)));
    let send = |samples: Vec<f32>| node_kit::send(&mut node, Audio::new(rate, samples));
    source.stream(rate, block_len, stopped, send)
}

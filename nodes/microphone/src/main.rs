//! `microphone`: streams the capture device as `audio` (Float32 blocks of `BLOCK_MS`,
//! metadata `sample_rate`) for the ASR bridge. It records the default input device
//! through cpal (ALSA, CoreAudio or WASAPI); `MIC_COMMAND` replaces the device with any
//! command that writes raw 16-bit little-endian mono PCM at `SAMPLE_RATE` to stdout (a
//! file, a network stream, a machine without a sound card).

mod source;

use dora_node_api::{DoraNode, Event as DoraEvent};
use eyre::{Context, bail};
use voice_protocol::messages::Audio;

use source::Source;

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let rate: u32 = node_kit::env_parse("SAMPLE_RATE", 16_000)?;
    let block_ms: u32 = node_kit::env_parse("BLOCK_MS", 20)?;
    if !(8_000..=96_000).contains(&rate) || !(5..=200).contains(&block_ms) {
        bail!("SAMPLE_RATE must be 8000..96000 and BLOCK_MS 5..200");
    }
    let block_len = (rate * block_ms / 1000) as usize;
    // Open the source before dora: a missing device is an error at start.
    let source = Source::from_env()?;
    let (mut node, events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    // Stop when dora says so, even while a read is blocked.
    let dora_events = node_kit::forward_events(events);
    let stopped = || matches!(dora_events.try_recv(), Ok(DoraEvent::Stop(_)));
    let send = |samples: Vec<f32>| node_kit::send(&mut node, Audio::new(rate, samples));
    source.stream(rate, block_len, stopped, send)
}

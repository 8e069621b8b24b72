//! `microphone`: streams the capture device as `audio` (Float32 blocks of `BLOCK_MS`,
//! metadata `sample_rate`) for the ASR bridge. It records through ALSA's `arecord`
//! (alsa-utils); `MIC_COMMAND` replaces that command with any other that writes raw
//! 16-bit little-endian mono PCM at `SAMPLE_RATE` to stdout.

use std::{
    io::Read,
    process::{Command, Stdio},
};

use dora_node_api::{DoraNode, Event as DoraEvent};
use eyre::{Context, bail};
use node_kit::Params;
use voice_protocol::{ids, keys};

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let rate: u32 = node_kit::env_parse("SAMPLE_RATE", 16_000)?;
    let block_ms: u32 = node_kit::env_parse("BLOCK_MS", 20)?;
    let command = node_kit::env_opt("MIC_COMMAND")
        .unwrap_or_else(|| format!("arecord -q -t raw -f S16_LE -c 1 -r {rate}"));
    let (mut node, events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    let mut child = Command::new("sh")
        .args(["-c", &command])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start the microphone command {command:?}"))?;
    let mut stdout = child.stdout.take().expect("piped stdout");
    tracing::info!(%command, rate, "listening");

    // Stop when dora says so, even while a read is blocked.
    let dora_events = node_kit::forward_events(events);
    let block_bytes = (rate * block_ms / 1000) as usize * 2;
    let mut buf = vec![0u8; block_bytes];
    loop {
        if let Ok(DoraEvent::Stop(_)) = dora_events.try_recv() {
            break;
        }
        match stdout.read_exact(&mut buf) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                let status = child.wait()?;
                let mut err = String::new();
                if let Some(mut stderr) = child.stderr.take() {
                    let _ = stderr.read_to_string(&mut err);
                }
                if status.success() {
                    tracing::info!("the microphone stream ended");
                    break;
                }
                bail!(
                    "the microphone command failed ({status}): {} (no capture device? set MIC_COMMAND)",
                    err.trim()
                );
            }
            Err(e) => return Err(e).context("cannot read the microphone"),
        }
        let samples: Vec<f32> = buf
            .chunks_exact(2)
            .map(|b| f32::from(i16::from_le_bytes([b[0], b[1]])) / 32_768.0)
            .collect();
        node.send_output(
            ids::AUDIO.into(),
            Params::new()
                .int(keys::SAMPLE_RATE, i64::from(rate))
                .build(),
            samples,
        )?;
    }
    let _ = child.kill();
    let _ = child.wait();
    Ok(())
}

//! `microphone`: streams the capture device as `audio` (Float32 blocks of `BLOCK_MS`,
//! metadata `sample_rate`) for the ASR bridge. It records the default input device
//! through cpal (ALSA, CoreAudio or WASAPI); `MIC_COMMAND` replaces the device with any
//! command that writes raw 16-bit little-endian mono PCM at `SAMPLE_RATE` to stdout (a
//! file, a network stream, a machine without a sound card).

use std::{
    io::Read,
    process::{Command, Stdio},
    time::Duration,
};

use audio_utils::StreamResampler;
use dora_node_api::{DoraNode, Event as DoraEvent};
use eyre::{Context, bail};
use voice_protocol::messages::Audio;

/// Where the samples come from.
enum Source {
    /// `MIC_COMMAND`: raw 16-bit mono PCM on its stdout.
    Command(String),
    Device(sound_device::Input),
}

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let rate: u32 = node_kit::env_parse("SAMPLE_RATE", 16_000)?;
    let block_ms: u32 = node_kit::env_parse("BLOCK_MS", 20)?;
    if !(8_000..=96_000).contains(&rate) || !(5..=200).contains(&block_ms) {
        bail!("SAMPLE_RATE must be 8000..96000 and BLOCK_MS 5..200");
    }
    let block_len = (rate * block_ms / 1000) as usize;
    // Open the source before dora: a missing device is an error at start.
    let source = match node_kit::env_opt("MIC_COMMAND") {
        Some(command) => Source::Command(command),
        None => {
            let hint = "set MIC_COMMAND to a command that writes raw 16-bit mono PCM (e.g. `cat speech.raw`)";
            if !sound_device::has_sound_card() {
                bail!("this machine has no sound card to listen to; {hint}");
            }
            Source::Device(
                sound_device::Input::open()
                    .map_err(|e| eyre::eyre!("no capture device ({e}); {hint}"))?,
            )
        }
    };
    let (mut node, events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    // Stop when dora says so, even while a read is blocked.
    let dora_events = node_kit::forward_events(events);
    let mut send = |samples: Vec<f32>| node_kit::send(&mut node, Audio::new(rate, samples));
    match source {
        Source::Command(command) => {
            let mut child = Command::new("sh")
                .args(["-c", &command])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .with_context(|| format!("cannot start the microphone command {command:?}"))?;
            let mut stdout = child.stdout.take().expect("piped stdout");
            tracing::info!(%command, rate, "listening");
            let mut buf = vec![0u8; block_len * 2];
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
                send(samples)?;
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        Source::Device(device) => {
            tracing::info!(
                device_rate = device.rate,
                rate,
                "listening to the capture device"
            );
            // One resampler for the whole stream: band-limited, and its state carried
            // from one captured chunk to the next, so chunk edges leave no seam and no
            // sample is lost to rounding a chunk's length.
            let mut resampler = StreamResampler::new(device.rate, rate);
            let mut pending: Vec<f32> = Vec::new();
            loop {
                if let Ok(DoraEvent::Stop(_)) = dora_events.try_recv() {
                    break;
                }
                match device.samples.recv_timeout(Duration::from_millis(200)) {
                    Ok(captured) => pending.extend(resampler.process(&captured)),
                    Err(crossbeam_channel::RecvTimeoutError::Timeout) => continue,
                    Err(crossbeam_channel::RecvTimeoutError::Disconnected) => {
                        bail!("the capture device stopped")
                    }
                }
                while pending.len() >= block_len {
                    let rest = pending.split_off(block_len);
                    send(std::mem::replace(&mut pending, rest))?;
                }
            }
        }
    }
    Ok(())
}

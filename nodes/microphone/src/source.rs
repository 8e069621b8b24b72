//! Where the microphone's samples come from: the capture device through cpal, or a
//! command that writes raw 16-bit little-endian mono PCM (`MIC_COMMAND`); each streamed
//! in blocks of the node's rate until it ends or `stopped` says so.

use std::{
    io::Read,
    process::{Command, Stdio},
    time::Duration,
};

use audio_utils::StreamResampler;
use eyre::{Context, bail};

/// Where the samples come from.
pub enum Source {
    /// `MIC_COMMAND`: raw 16-bit mono PCM on its stdout.
    Command(String),
    Device(sound_device::Input),
}

impl Source {
    /// The `command` (`MIC_COMMAND`), else the default capture device; a machine without
    /// either is an error at start, naming what to set.
    pub fn open(command: Option<String>) -> eyre::Result<Self> {
        if let Some(command) = command {
            return Ok(Source::Command(command));
        }
        let hint =
            "set MIC_COMMAND to a command that writes raw 16-bit mono PCM (e.g. `cat speech.raw`)";
        if !sound_device::has_sound_card() {
            bail!("this machine has no sound card to listen to; {hint}");
        }
        Ok(Source::Device(sound_device::Input::open().map_err(
            |e| eyre::eyre!("no capture device ({e}); {hint}"),
        )?))
    }

    /// Sends blocks of `block_len` samples at `rate` until the source ends or `stopped`.
    pub fn stream(
        self,
        rate: u32,
        block_len: usize,
        stopped: impl Fn() -> bool,
        send: impl FnMut(Vec<f32>) -> eyre::Result<()>,
    ) -> eyre::Result<()> {
        match self {
            Source::Command(command) => from_command(&command, rate, block_len, stopped, send),
            Source::Device(device) => from_device(device, rate, block_len, stopped, send),
        }
    }
}

fn from_command(
    command: &str,
    rate: u32,
    block_len: usize,
    stopped: impl Fn() -> bool,
    mut send: impl FnMut(Vec<f32>) -> eyre::Result<()>,
) -> eyre::Result<()> {
    let mut child = Command::new("sh")
        .args(["-c", command])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start the microphone command {command:?}"))?;
    let mut stdout = child.stdout.take().expect("piped stdout");
    tracing::info!(%command, rate, "listening");
    let mut buf = vec![0u8; block_len * 2];
    // Read before asking whether to stop: a command that failed at once (no device) ends
    // its stream right away, and that is its error even when a stop came first.
    loop {
        match stdout.read_exact(&mut buf) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                let status = child.wait()?;
                if status.success() {
                    tracing::info!("the microphone stream ended");
                    break;
                }
                return Err(command_failed(&mut child, status));
            }
            Err(e) => return Err(e).context("cannot read the microphone"),
        }
        let samples: Vec<f32> = buf
            .chunks_exact(2)
            .map(|b| f32::from(i16::from_le_bytes([b[0], b[1]])) / 32_768.0)
            .collect();
        send(samples)?;
        if stopped() {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    Ok(())
}

/// The error of a microphone command that exited with `status`, with what it wrote on
/// stderr.
fn command_failed(
    child: &mut std::process::Child,
    status: std::process::ExitStatus,
) -> eyre::Report {
    let mut err = String::new();
    if let Some(mut stderr) = child.stderr.take() {
        let _ = stderr.read_to_string(&mut err);
    }
    eyre::eyre!(
        "the microphone command failed ({status}): {} (no capture device? set MIC_COMMAND)",
        err.trim()
    )
}

fn from_device(
    device: sound_device::Input,
    rate: u32,
    block_len: usize,
    stopped: impl Fn() -> bool,
    mut send: impl FnMut(Vec<f32>) -> eyre::Result<()>,
) -> eyre::Result<()> {
    tracing::info!(
        device_rate = device.rate,
        rate,
        "listening to the capture device"
    );
    // One resampler for the whole stream: band-limited, and its state carried from one
    // captured chunk to the next, so chunk edges leave no seam and no sample is lost to
    // rounding a chunk's length.
    let mut resampler = StreamResampler::new(device.rate, rate);
    let mut pending: Vec<f32> = Vec::new();
    while !stopped() {
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
    Ok(())
}

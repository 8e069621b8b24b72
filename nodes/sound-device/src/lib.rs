//! The sound devices through cpal (ALSA on Linux, CoreAudio on macOS, WASAPI on Windows):
//! the player's output and the microphone node's capture. Each stream lives on a thread of
//! its own (cpal streams may not move between threads); samples cross in a bounded queue.

use std::{
    collections::VecDeque,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use cpal::{
    FromSample, SampleFormat, SizedSample,
    traits::{DeviceTrait, HostTrait, StreamTrait},
};
use eyre::{bail, eyre};

/// Whether this machine has a sound card at all. Asked before cpal on Linux, where ALSA
/// prints a screenful of errors when asked for the default device of a machine without
/// one (a server, a container, CI).
pub fn has_sound_card() -> bool {
    #[cfg(target_os = "linux")]
    {
        std::fs::read_to_string("/proc/asound/cards")
            .is_ok_and(|cards| !cards.trim().is_empty() && !cards.contains("no soundcards"))
    }
    #[cfg(not(target_os = "linux"))]
    {
        true
    }
}

/// Samples queued for the output callback; the callback plays silence when it is empty.
struct Queue {
    samples: Mutex<VecDeque<f32>>,
    failed: AtomicBool,
}

/// The default output device, fed block by block. The stream lives on its own thread
/// (cpal streams may not move between threads).
pub struct Output {
    queue: Arc<Queue>,
    /// Device samples per player sample, and channels per frame.
    ratio: f64,
    channels: usize,
    /// The most the queue may hold: what the player counts as its device buffer. More
    /// (a stalled device) is dropped from the front so a barge-in is still heard at once.
    max_queued: usize,
    _stream: StreamThread,
}

impl Output {
    /// Opens the default output device for mono samples at `sample_rate`, buffering at
    /// most `buffer` ahead.
    pub fn open(sample_rate: u32, buffer: Duration) -> eyre::Result<Self> {
        let queue = Arc::new(Queue {
            samples: Mutex::new(VecDeque::new()),
            failed: AtomicBool::new(false),
        });
        let thread_queue = queue.clone();
        let (stream, (rate, channels)) = StreamThread::start("sound-output", move || {
            start_output(sample_rate, thread_queue)
        })?;
        let ratio = f64::from(rate) / f64::from(sample_rate);
        Ok(Self {
            queue,
            ratio,
            channels,
            max_queued: ((buffer.as_secs_f64() * f64::from(rate)) as usize).max(256) * channels,
            _stream: stream,
        })
    }

    /// Queues a block; false once the device failed (the caller then stops using it).
    pub fn write(&mut self, block: &[f32]) -> bool {
        if self.queue.failed.load(Ordering::Relaxed) {
            return false;
        }
        let mut samples = self.queue.samples.lock().expect("queue lock");
        samples.extend(device_samples(block, self.ratio, self.channels));
        let excess = samples.len().saturating_sub(self.max_queued);
        samples.drain(..excess);
        true
    }
}

/// A mono block at the player's rate as the device's interleaved samples: `ratio` device
/// frames per player sample (nearest sample: the device usually runs at the player's
/// rate, ALSA's `plug` converting; otherwise a plain rate change of a voice already
/// band-limited by its synthesizer), each frame on every channel, clamped to full scale.
fn device_samples(block: &[f32], ratio: f64, channels: usize) -> Vec<f32> {
    let frames = (block.len() as f64 * ratio).round() as usize;
    let mut out = Vec::with_capacity(frames * channels);
    for i in 0..frames {
        let source = ((i as f64 / ratio) as usize).min(block.len().saturating_sub(1));
        let value = block.get(source).copied().unwrap_or(0.0).clamp(-1.0, 1.0);
        out.extend(std::iter::repeat_n(value, channels));
    }
    out
}

/// Builds and starts the output stream: the player's rate in mono when the device takes
/// it, else the device's default configuration.
fn start_output(sample_rate: u32, queue: Arc<Queue>) -> eyre::Result<(cpal::Stream, (u32, usize))> {
    let device = cpal::default_host()
        .default_output_device()
        .ok_or_else(|| eyre!("no output sound device"))?;
    let wanted = cpal::SampleRate(sample_rate);
    let config = device
        .supported_output_configs()
        .ok()
        .and_then(|mut configs| {
            configs.find(|c| {
                c.channels() == 1 && c.min_sample_rate() <= wanted && wanted <= c.max_sample_rate()
            })
        })
        .map(|c| c.with_sample_rate(wanted))
        .map_or_else(|| device.default_output_config(), Ok)
        .map_err(|e| eyre!("the output device has no usable configuration: {e}"))?;
    let format = config.sample_format();
    let config: cpal::StreamConfig = config.into();
    let (rate, channels) = (config.sample_rate.0, usize::from(config.channels));
    let stream = match format {
        SampleFormat::F32 => build_output::<f32>(&device, &config, queue),
        SampleFormat::I16 => build_output::<i16>(&device, &config, queue),
        SampleFormat::U16 => build_output::<u16>(&device, &config, queue),
        SampleFormat::I32 => build_output::<i32>(&device, &config, queue),
        other => bail!("the output device wants {other} samples, which are not supported"),
    }?;
    stream
        .play()
        .map_err(|e| eyre!("cannot start the output device: {e}"))?;
    Ok((stream, (rate, channels)))
}

fn build_output<T: SizedSample + FromSample<f32>>(
    device: &cpal::Device,
    config: &cpal::StreamConfig,
    queue: Arc<Queue>,
) -> eyre::Result<cpal::Stream> {
    let on_error = {
        let queue = queue.clone();
        move |e| {
            tracing::warn!(error = %e, "sound output failed; recording only");
            queue.failed.store(true, Ordering::Relaxed);
        }
    };
    device
        .build_output_stream(
            config,
            move |data: &mut [T], _| {
                let mut samples = queue.samples.lock().expect("queue lock");
                for out in data.iter_mut() {
                    *out = T::from_sample(samples.pop_front().unwrap_or(0.0));
                }
            },
            on_error,
            None,
        )
        .map_err(|e| eyre!("cannot open the output device: {e}"))
}

/// The default input device: mono f32 samples at the device's rate, through a channel.
pub struct Input {
    pub rate: u32,
    pub samples: crossbeam_channel::Receiver<Vec<f32>>,
    _stream: StreamThread,
}

impl Input {
    pub fn open() -> eyre::Result<Self> {
        let (tx, rx) = crossbeam_channel::bounded(256);
        let (stream, rate) = StreamThread::start("sound-input", move || start_input(tx))?;
        Ok(Self {
            rate,
            samples: rx,
            _stream: stream,
        })
    }
}

/// A cpal stream kept on a thread of its own until dropped (streams may not move between
/// threads on every platform).
struct StreamThread {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl StreamThread {
    /// Runs `open` on a new thread and waits (10 s at most) for what it reports about
    /// the stream it started.
    fn start<R: Send + 'static>(
        name: &str,
        open: impl FnOnce() -> eyre::Result<(cpal::Stream, R)> + Send + 'static,
    ) -> eyre::Result<(Self, R)> {
        let (ready_tx, ready_rx) = crossbeam_channel::bounded(1);
        let stop = Arc::new(AtomicBool::new(false));
        let thread_stop = stop.clone();
        let thread = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || {
                let stream = match open() {
                    Ok((stream, report)) => {
                        let _ = ready_tx.send(Ok(report));
                        stream
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                while !thread_stop.load(Ordering::Relaxed) {
                    std::thread::park_timeout(Duration::from_millis(200));
                }
                drop(stream);
            })?;
        let stream = Self {
            stop,
            thread: Some(thread),
        };
        let report = ready_rx
            .recv_timeout(Duration::from_secs(10))
            .map_err(|_| eyre!("the sound device ({name}) did not open within 10 s"))??;
        Ok((stream, report))
    }
}

impl Drop for StreamThread {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}

fn start_input(tx: crossbeam_channel::Sender<Vec<f32>>) -> eyre::Result<(cpal::Stream, u32)> {
    let device = cpal::default_host()
        .default_input_device()
        .ok_or_else(|| eyre!("no capture sound device"))?;
    let config = device
        .default_input_config()
        .map_err(|e| eyre!("the capture device has no usable configuration: {e}"))?;
    let format = config.sample_format();
    let config: cpal::StreamConfig = config.into();
    let rate = config.sample_rate.0;
    let stream = match format {
        SampleFormat::F32 => build_input::<f32>(&device, &config, tx),
        SampleFormat::I16 => build_input::<i16>(&device, &config, tx),
        SampleFormat::U16 => build_input::<u16>(&device, &config, tx),
        SampleFormat::I32 => build_input::<i32>(&device, &config, tx),
        other => bail!("the capture device gives {other} samples, which are not supported"),
    }?;
    stream
        .play()
        .map_err(|e| eyre!("cannot start the capture device: {e}"))?;
    Ok((stream, rate))
}

fn build_input<T: SizedSample>(
    device: &cpal::Device,
    config: &cpal::StreamConfig,
    tx: crossbeam_channel::Sender<Vec<f32>>,
) -> eyre::Result<cpal::Stream>
where
    f32: FromSample<T>,
{
    let channels = usize::from(config.channels).max(1);
    device
        .build_input_stream(
            config,
            move |data: &[T], _| {
                let mono: Vec<f32> = data
                    .chunks(channels)
                    .map(|frame| {
                        frame.iter().map(|s| s.to_sample::<f32>()).sum::<f32>() / channels as f32
                    })
                    .collect();
                // A full channel means the node stalled: drop rather than block the
                // audio thread.
                let _ = tx.try_send(mono);
            },
            |e| tracing::warn!(error = %e, "sound capture failed"),
            None,
        )
        .map_err(|e| eyre!("cannot open the capture device: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_become_device_frames() {
        assert_eq!(device_samples(&[0.1, 0.2], 1.0, 1), [0.1, 0.2]);
        assert_eq!(device_samples(&[0.1, 2.0], 1.0, 2), [0.1, 0.1, 1.0, 1.0]);
        let up = device_samples(&[0.1; 441], 48_000.0 / 22_050.0, 2);
        assert_eq!(up.len(), 960 * 2);
        assert!(device_samples(&[], 2.0, 2).is_empty());
    }
}

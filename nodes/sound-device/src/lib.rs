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

use audio_utils::StreamResampler;
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
    /// The player's rate to the device's (a pass-through when the device took the
    /// player's), carried across blocks; and channels per frame.
    resampler: StreamResampler,
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
        if rate != sample_rate {
            tracing::info!(
                sample_rate,
                device_rate = rate,
                "the output device runs at its own rate; resampling"
            );
        }
        Ok(Self {
            queue,
            resampler: StreamResampler::new(sample_rate, rate),
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
        let frames = device_samples(&mut self.resampler, block, self.channels);
        let mut samples = self.queue.samples.lock().expect("queue lock");
        samples.extend(frames);
        let excess = samples.len().saturating_sub(self.max_queued);
        samples.drain(..excess);
        true
    }
}

/// A mono block at the player's rate as the device's interleaved samples: at the device's
/// rate (the device usually runs at the player's, ALSA's `plug` converting; otherwise the
/// stream resampler, band-limited, its state carried from block to block so no block edge
/// clicks and the device gets exactly its rate's share of samples, at the cost of up to
/// 20 ms held back), each frame on every channel, clamped to full scale.
fn device_samples(resampler: &mut StreamResampler, block: &[f32], channels: usize) -> Vec<f32> {
    let frames = resampler.process(block);
    let mut out = Vec::with_capacity(frames.len() * channels);
    for value in frames {
        out.extend(std::iter::repeat_n(value.clamp(-1.0, 1.0), channels));
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
        let mut same = StreamResampler::new(22_050, 22_050);
        assert_eq!(device_samples(&mut same, &[0.1, 0.2], 1), [0.1, 0.2]);
        assert_eq!(
            device_samples(&mut same, &[0.1, 2.0], 2),
            [0.1, 0.1, 1.0, 1.0]
        );
        assert!(device_samples(&mut same, &[], 2).is_empty());
    }

    #[test]
    fn a_device_at_another_rate_gets_its_rate_block_after_block() {
        // The player's 20 ms blocks at 22.05 kHz (441 samples) to a 48 kHz stereo device:
        // 960 frames each once the resampler is running, none lost to rounding, the
        // same value on both channels, and a steady level stays steady across block
        // edges (no seam).
        let mut resampler = StreamResampler::new(22_050, 48_000);
        let mut frames = Vec::new();
        for _ in 0..100 {
            let out = device_samples(&mut resampler, &[0.5; 441], 2);
            assert_eq!(out.len() % 2, 0);
            assert!(out.chunks(2).all(|f| f[0] == f[1]));
            frames.extend(out.chunks(2).map(|f| f[0]));
        }
        let due = 100 * 960;
        assert!(frames.len() <= due && due - frames.len() <= resampler.latency());
        let steady = &frames[2_000..];
        assert!(
            steady.iter().all(|v| (v - 0.5).abs() < 0.01),
            "{:?}",
            steady
                .iter()
                .fold((1.0f32, 0.0f32), |(lo, hi), v| (lo.min(*v), hi.max(*v)))
        );
    }
}

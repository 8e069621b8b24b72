//! The recognizer as a dora node: audio blocks become the endpointers' input
//! ([`Microphones`]), their outputs become recognition jobs and the node's outputs. What
//! to do is [`asr_core`]'s to decide; this file moves data.

use std::{
    collections::BTreeSet,
    ops::ControlFlow,
    sync::{Arc, Mutex},
    thread::JoinHandle,
    time::Duration,
};

use asr_core::{
    endpoint::{EndpointInput, EndpointOutput, JobId},
    microphones::Microphones,
};
use audio_utils::{Pcm, resample_linear};
use crossbeam_channel::{Receiver, Sender, TrySendError};
use dora_node_api::{DoraNode, Event as DoraEvent};
use node_kit::HeardSpan;
use voice_protocol::ids;
use voice_protocol::messages::{Audio, Backchannel, SpeechStarted, Transcript};

use asr_bridge::recognizer::Recognizer;

use crate::settings::{Settings, VAD_RATE};

/// Utterances waiting for the recognizer (each at most the voice detector's `max_ms`,
/// 30 s): past this the newest is dropped with a warning rather than queued without end
/// when recognition falls behind the microphone.
const MAX_PENDING_UTTERANCES: usize = 16;

/// A recognition job: the audio input it came from and its number there.
pub type JobKey = (String, JobId);

/// A job's words (`None`: skipped, as cancelled before it ran).
pub type Recognized = (JobKey, Option<eyre::Result<String>>);

/// The recognizer on a thread of its own: utterances in, their words out, in order.
struct Recognition {
    /// `None` once no more jobs are taken (the node stops).
    jobs: Option<Sender<(JobKey, Pcm)>>,
    /// Jobs whose words are no longer wanted (the human spoke on after a pause): the
    /// worker skips them, so that the whole utterance's job is not queued behind them.
    cancelled: Arc<Mutex<BTreeSet<JobKey>>>,
    /// Jobs handed to the worker whose result has not come back.
    in_flight: usize,
    worker: JoinHandle<()>,
}

impl Recognition {
    fn start(mut recognizer: Box<dyn Recognizer>, results: Sender<Recognized>) -> Self {
        let (jobs, job_rx) = crossbeam_channel::bounded::<(JobKey, Pcm)>(MAX_PENDING_UTTERANCES);
        let cancelled: Arc<Mutex<BTreeSet<JobKey>>> = Arc::default();
        let worker = {
            let cancelled = Arc::clone(&cancelled);
            std::thread::spawn(move || {
                for (key, audio) in job_rx {
                    let skip = cancelled
                        .lock()
                        .map(|mut c| c.remove(&key))
                        .unwrap_or(false);
                    let result = (!skip).then(|| recognizer.transcribe(&audio));
                    if results.send((key, result)).is_err() {
                        break;
                    }
                }
            })
        };
        Self {
            jobs: Some(jobs),
            cancelled,
            in_flight: 0,
            worker,
        }
    }

    fn cancel(&self, key: JobKey) {
        if let Ok(mut cancelled) = self.cancelled.lock() {
            cancelled.insert(key);
        }
    }

    /// A job's result came back.
    fn done(&mut self, key: &JobKey) {
        self.in_flight = self.in_flight.saturating_sub(1);
        // A job cancelled after the worker took it is no longer waited for.
        if let Ok(mut cancelled) = self.cancelled.lock() {
            cancelled.remove(key);
        }
    }
}

pub struct AsrNode {
    node: DoraNode,
    speaker: String,
    mics: Microphones,
    recognition: Recognition,
    echo_tail_ms: u32,
    /// The inputs already warned about for non-finite samples: once each.
    warned_inputs: BTreeSet<String>,
    /// Jobs the worker's full queue refused, for their endpointer to forget.
    dropped: Vec<JobId>,
}

impl AsrNode {
    /// The node, and where the recognizer's words come back.
    pub fn new(node: DoraNode, settings: Settings) -> (Self, Receiver<Recognized>) {
        let (results, result_rx) = crossbeam_channel::unbounded();
        let recognition = Recognition::start(settings.recognizer, results);
        let mics = Microphones::new(
            settings.vad,
            settings.backchannels,
            settings.echo_inputs,
            settings.echo_tail_ms,
        );
        let node = Self {
            node,
            speaker: settings.speaker,
            mics,
            recognition,
            echo_tail_ms: settings.echo_tail_ms,
            warned_inputs: BTreeSet::new(),
            dropped: Vec::new(),
        };
        (node, result_rx)
    }

    /// Handles dora's `event` (`None`: the stream ended); `Break` when the node is done.
    pub fn on_event(&mut self, event: Option<DoraEvent>) -> eyre::Result<ControlFlow<()>> {
        match event {
            Some(DoraEvent::Input { id, metadata, data }) if is_audio_input(id.as_str()) => {
                let block = match node_kit::decode::<Audio>(&metadata.parameters, &data) {
                    Ok(block) => block,
                    Err(problem) => {
                        tracing::warn!(%problem, "audio block ignored");
                        return Ok(ControlFlow::Continue(()));
                    }
                };
                if block.silenced > 0 && self.warned_inputs.insert(id.to_string()) {
                    tracing::warn!(
                        input = %id,
                        replaced = block.silenced,
                        "audio holds non-finite samples (NaN or infinity): heard as silence; reported once per input"
                    );
                }
                let audio = resample_linear(&block.samples, block.sample_rate, VAD_RATE);
                let mut outputs = self.mics.audio(id.as_str(), &audio);
                while !outputs.is_empty() {
                    for output in outputs {
                        self.on_output(id.as_str(), output)?;
                    }
                    // Jobs the full queue refused: their endpointer forgets them, which
                    // may decide more.
                    outputs = std::mem::take(&mut self.dropped)
                        .into_iter()
                        .flat_map(|job| {
                            self.mics
                                .handle(id.as_str(), EndpointInput::Dropped { job })
                        })
                        .collect();
                }
            }
            Some(DoraEvent::Input { id, metadata, data }) if id.as_str() == ids::REFERENCE => {
                match node_kit::decode::<Audio>(&metadata.parameters, &data) {
                    Ok(block) => {
                        let played = resample_linear(&block.samples, block.sample_rate, VAD_RATE);
                        if self.mics.reference(&played) {
                            tracing::info!(
                                tail_ms = self.echo_tail_ms,
                                "the player's voice is taken out of the microphones"
                            );
                        }
                    }
                    Err(problem) => tracing::warn!(%problem, "reference audio ignored"),
                }
            }
            Some(DoraEvent::Input { id, .. }) => {
                tracing::warn!(input = %id, "unknown input ignored")
            }
            Some(DoraEvent::Stop(_)) | None => return Ok(ControlFlow::Break(())),
            Some(_) => {}
        }
        Ok(ControlFlow::Continue(()))
    }

    /// The words of a job (`None`: it was skipped as cancelled).
    pub fn on_result(&mut self, (key, result): Recognized) -> eyre::Result<()> {
        self.recognition.done(&key);
        let Some(result) = result else { return Ok(()) };
        let text = result.unwrap_or_else(|e| {
            tracing::warn!(error = %format!("{e:#}"), "recognition failed; treating the sound as a backchannel");
            String::new()
        });
        let (input, job) = key;
        for output in self
            .mics
            .handle(&input, EndpointInput::Recognized { job, text })
        {
            self.on_output(&input, output)?;
        }
        Ok(())
    }

    /// Ends every microphone's utterance and sends what is still being recognised,
    /// within `drain_timeout`: nothing the human said is lost.
    pub fn finish(
        mut self,
        results: &Receiver<Recognized>,
        drain_timeout: Duration,
    ) -> eyre::Result<()> {
        for input in self.mics.inputs() {
            for output in self.mics.handle(&input, EndpointInput::Finish) {
                self.on_output(&input, output)?;
            }
            // Dropped at the end: nothing to recognize them with; only forgotten.
            for job in std::mem::take(&mut self.dropped) {
                self.mics.handle(&input, EndpointInput::Dropped { job });
            }
        }
        // No more jobs: the worker ends once it has done those queued.
        self.recognition.jobs = None;
        let deadline = std::time::Instant::now() + drain_timeout;
        while self.recognition.in_flight > 0 && self.mics.awaiting() {
            match results.recv_deadline(deadline) {
                Ok(recognized) => self.on_result(recognized)?,
                Err(_) => {
                    tracing::warn!(
                        in_flight = self.recognition.in_flight,
                        timeout_secs = drain_timeout.as_secs_f64(),
                        "stopping with utterances still being recognised"
                    );
                    break;
                }
            }
        }
        // Nothing left to recognise: let the worker drop the model before the process
        // exits (a native library torn down under a running thread crashes).
        if self.recognition.in_flight == 0 {
            let _ = self.recognition.worker.join();
        }
        Ok(())
    }

    fn on_output(&mut self, input: &str, output: EndpointOutput) -> eyre::Result<()> {
        match output {
            EndpointOutput::SpeechStarted { at_ms } => {
                tracing::info!(at_ms, "speech started");
                let started = SpeechStarted {
                    speaker: self.speaker.clone(),
                };
                node_kit::send(&mut self.node, started)?;
            }
            EndpointOutput::Recognize { job, audio } => {
                let seconds = audio.samples.len() as f64 / f64::from(audio.sample_rate);
                let Some(jobs) = &self.recognition.jobs else {
                    tracing::warn!(job, seconds, "stopping: utterance not recognised");
                    return Ok(());
                };
                match jobs.try_send(((input.to_owned(), job), audio)) {
                    Ok(()) => self.recognition.in_flight += 1,
                    Err(TrySendError::Full(_)) => {
                        tracing::warn!(
                            job,
                            seconds,
                            max_pending = MAX_PENDING_UTTERANCES,
                            "recognition is behind: utterance dropped"
                        );
                        self.dropped.push(job);
                    }
                    Err(TrySendError::Disconnected(_)) => {}
                }
            }
            EndpointOutput::Cancel { job } => {
                tracing::debug!(
                    job,
                    "the human spoke on: the words at the pause are dropped"
                );
                self.recognition.cancel((input.to_owned(), job));
            }
            EndpointOutput::Turn {
                text,
                start_ms,
                end_ms,
                early,
            } => {
                tracing::info!(%text, duration_ms = end_ms - start_ms, early, "heard");
                let transcript = Transcript {
                    heard: Some(HeardSpan {
                        audio_input: input.to_owned(),
                        start_ms,
                        end_ms,
                    }),
                    ..Transcript::final_words(self.speaker.clone(), text)
                };
                node_kit::send(&mut self.node, transcript)?;
            }
            EndpointOutput::Backchannel {
                text,
                start_ms,
                end_ms,
            } => {
                tracing::info!(%text, duration_ms = end_ms - start_ms, "backchannel; playback resumes");
                let backchannel = Backchannel {
                    speaker: self.speaker.clone(),
                    text,
                };
                node_kit::send(&mut self.node, backchannel)?;
            }
        }
        Ok(())
    }
}

/// `audio`, or a further microphone `audio_<source>`.
fn is_audio_input(id: &str) -> bool {
    id == ids::AUDIO
        || id
            .strip_prefix(ids::AUDIO)
            .is_some_and(|rest| rest.starts_with('_'))
}

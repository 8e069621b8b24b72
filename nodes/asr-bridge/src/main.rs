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

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use asr_core::{
    BackchannelConfig, VadConfig,
    endpoint::{EndpointInput, EndpointOutput, JobId},
    microphones::Microphones,
};
use audio_utils::{Pcm, resample_linear};
use crossbeam_channel::select;
use dora_node_api::{DoraNode, Event as DoraEvent};
use eyre::{Context, bail};
use node_kit::HeardSpan;
use voice_protocol::ids;
use voice_protocol::messages::{Audio, Backchannel, SpeechStarted, Transcript};

use asr_bridge::{
    recognizer::{OpenAiTranscriber, Pocketsphinx, Recognizer},
    whisper::{Whisper, WhisperConfig},
};

const VAD_RATE: u32 = 16_000;

/// Utterances waiting for the recognizer (each at most the voice detector's `max_ms`,
/// 30 s): past this the newest is dropped with a warning rather than queued without end
/// when recognition falls behind the microphone.
const MAX_PENDING_UTTERANCES: usize = 16;

/// A recognition job: the audio input it came from and its number there.
type JobKey = (String, JobId);

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let mut recognizer: Box<dyn Recognizer> = match node_kit::env_opt("ASR_BACKEND")
        .as_deref()
        .unwrap_or("whisper")
    {
        "whisper" => Box::new(Whisper::load(&whisper_config()?)?),
        "pocketsphinx" => Box::new(Pocketsphinx::find()?),
        "openai" => Box::new(OpenAiTranscriber::from_env(node_kit::env_secs(
            "ASR_TIMEOUT_SECS",
            30.0,
        )?)?),
        other => {
            bail!("ASR_BACKEND={other:?} is not supported (use whisper, openai or pocketsphinx)")
        }
    };
    let speaker = node_kit::env_opt("SPEAKER").unwrap_or_else(|| "human".to_owned());
    let mut vad_config = VadConfig::new(VAD_RATE);
    vad_config.threshold = node_kit::env_parse("VAD_THRESHOLD", vad_config.threshold)?;
    vad_config.end_ms = node_kit::env_parse("VAD_END_MS", vad_config.end_ms)?;
    vad_config.pause_ms = node_kit::env_parse("VAD_PAUSE_MS", DEFAULT_PAUSE_MS)?;
    vad_config.hold_ms = node_kit::env_parse("VAD_HOLD_MS", vad_config.hold_ms)?;
    vad_config.commit_ms = node_kit::env_parse("VAD_COMMIT_MS", vad_config.commit_ms)?;
    let (vad_config, problem) = vad_config.without_impossible_pauses();
    if let Some(problem) = problem {
        tracing::warn!(
            problem,
            "VAD_PAUSE_MS: turns end at the closing silence only"
        );
    }
    let backchannels = BackchannelConfig {
        max_words: node_kit::env_parse("BACKCHANNEL_MAX_WORDS", 2)?,
        max_ms: node_kit::env_parse("BACKCHANNEL_MAX_MS", 1200)?,
        ..BackchannelConfig::default()
    };
    tracing::info!(
        backend = recognizer.name(),
        pause_ms = vad_config.pause_ms,
        commit_ms = vad_config.commit_ms,
        hold_ms = vad_config.hold_ms,
        end_ms = vad_config.end_ms,
        "asr bridge starting"
    );

    let (mut node, events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    let dora_events = node_kit::forward_events(events);
    let (job_tx, job_rx) = crossbeam_channel::bounded::<(JobKey, Pcm)>(MAX_PENDING_UTTERANCES);
    let (result_tx, result_rx) =
        crossbeam_channel::unbounded::<(JobKey, Option<eyre::Result<String>>)>();
    // Jobs whose words are no longer wanted (the human spoke on after a pause): the worker
    // skips them, so that the whole utterance's job is not queued behind them.
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
                if result_tx.send((key, result)).is_err() {
                    break;
                }
            }
        })
    };
    let drain_timeout = node_kit::env_secs("ASR_DRAIN_TIMEOUT_SECS", 30.0)?;
    // The inputs already warned about for non-finite samples: once each.
    let mut warned_inputs: BTreeSet<String> = BTreeSet::new();
    let echo_tail_ms: u32 = node_kit::env_parse("ECHO_TAIL_MS", 200)?;
    if !(10..=2000).contains(&echo_tail_ms) {
        bail!("ECHO_TAIL_MS ({echo_tail_ms}) must be 10 to 2000");
    }
    // The microphones that hear the loudspeaker directly.
    let echo_inputs = node_kit::env_opt("ECHO_CANCEL_INPUTS")
        .unwrap_or_else(|| ids::AUDIO.to_owned())
        .split(',')
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>();
    let mut mics = Microphones::new(vad_config, backchannels, echo_inputs, echo_tail_ms);
    let mut out = Outputs {
        node: &mut node,
        speaker,
        jobs: Some(job_tx),
        cancelled,
        in_flight: 0,
        dropped: Vec::new(),
    };
    loop {
        select! {
            recv(dora_events) -> event => match event {
                Ok(DoraEvent::Input { id, metadata, data }) if is_audio_input(id.as_str()) => {
                    let block = match node_kit::decode::<Audio>(&metadata.parameters, &data) {
                        Ok(block) => block,
                        Err(problem) => {
                            tracing::warn!(%problem, "audio block ignored");
                            continue;
                        }
                    };
                    if block.silenced > 0 && warned_inputs.insert(id.to_string()) {
                        tracing::warn!(
                            input = %id,
                            replaced = block.silenced,
                            "audio holds non-finite samples (NaN or infinity): heard as silence; reported once per input"
                        );
                    }
                    let audio = resample_linear(&block.samples, block.sample_rate, VAD_RATE);
                    let mut outputs = mics.audio(id.as_str(), &audio);
                    while !outputs.is_empty() {
                        for output in outputs {
                            out.on_output(id.as_str(), output)?;
                        }
                        outputs = std::mem::take(&mut out.dropped)
                            .into_iter()
                            .flat_map(|job| mics.handle(id.as_str(), EndpointInput::Dropped { job }))
                            .collect();
                    }
                }
                Ok(DoraEvent::Input { id, metadata, data }) if id.as_str() == ids::REFERENCE => {
                    match node_kit::decode::<Audio>(&metadata.parameters, &data) {
                        Ok(block) => {
                            let played = resample_linear(&block.samples, block.sample_rate, VAD_RATE);
                            if mics.reference(&played) {
                                tracing::info!(tail_ms = echo_tail_ms, "the player's voice is taken out of the microphones");
                            }
                        }
                        Err(problem) => tracing::warn!(%problem, "reference audio ignored"),
                    }
                }
                Ok(DoraEvent::Input { id, .. }) => tracing::warn!(input = %id, "unknown input ignored"),
                Ok(DoraEvent::Stop(_)) | Err(_) => break,
                Ok(_) => {}
            },
            recv(result_rx) -> result => {
                let Ok((key, result)) = result else { break };
                out.on_result(&mut mics, key, result)?;
            }
        }
    }
    for input in mics.inputs() {
        for output in mics.handle(&input, EndpointInput::Finish) {
            out.on_output(&input, output)?;
        }
        // Dropped at the end: nothing to recognize them with; only forgotten.
        for job in std::mem::take(&mut out.dropped) {
            mics.handle(&input, EndpointInput::Dropped { job });
        }
    }
    // Nothing the human said is lost: what is being recognised is still sent, within
    // `drain_timeout`. No more jobs: the worker ends once it has done those queued.
    out.jobs = None;
    let deadline = std::time::Instant::now() + drain_timeout;
    while out.in_flight > 0 && mics.awaiting() {
        match result_rx.recv_deadline(deadline) {
            Ok((key, result)) => out.on_result(&mut mics, key, result)?,
            Err(_) => {
                tracing::warn!(
                    in_flight = out.in_flight,
                    timeout_secs = drain_timeout.as_secs_f64(),
                    "stopping with utterances still being recognised"
                );
                break;
            }
        }
    }
    let drained = out.in_flight == 0;
    drop(out);
    // Nothing left to recognise: let the worker drop the model before the process exits
    // (a native library torn down under a running thread crashes).
    if drained {
        let _ = worker.join();
    }
    Ok(())
}

/// The silence after which the words so far are recognized and, when they make a finished
/// sentence or question, taken as the turn (`VAD_PAUSE_MS`; 0: only the closing silence).
const DEFAULT_PAUSE_MS: u32 = 250;

/// `audio`, or a further microphone `audio_<source>`.
fn is_audio_input(id: &str) -> bool {
    id == ids::AUDIO
        || id
            .strip_prefix(ids::AUDIO)
            .is_some_and(|rest| rest.starts_with('_'))
}

/// The embedded Whisper's settings from env. Without `ASR_MODEL_PATH`, the model
/// setup.sh installs, found from the binary's place (`target/<profile>/asr-bridge`).
fn whisper_config() -> eyre::Result<WhisperConfig> {
    let model_dir = match node_kit::env_opt("ASR_MODEL_PATH") {
        Some(path) => std::path::PathBuf::from(path),
        None => node_kit::repo_file(asr_bridge::whisper::DEFAULT_MODEL_DIR)?,
    };
    let threads: usize = node_kit::env_parse("ASR_THREADS", 1)?;
    let beam_size: usize = node_kit::env_parse("ASR_BEAM", 5)?;
    if !(1..=64).contains(&threads) || !(1..=16).contains(&beam_size) {
        bail!("ASR_THREADS ({threads}) must be 1 to 64 and ASR_BEAM ({beam_size}) 1 to 16");
    }
    let language = node_kit::env_opt("ASR_LANGUAGE").unwrap_or_else(|| "en".to_owned());
    if !(2..=3).contains(&language.len()) || !language.chars().all(|c| c.is_ascii_lowercase()) {
        bail!("ASR_LANGUAGE={language:?} must be a language code such as en or zh");
    }
    Ok(WhisperConfig {
        model_dir,
        threads,
        beam_size,
        language: Some(language),
        pad_ms: match node_kit::env_opt("ASR_PAD_MS").as_deref() {
            None => Some(8000),
            Some("full") => None,
            Some(ms) => Some(
                ms.parse()
                    .map_err(|_| eyre::eyre!("ASR_PAD_MS={ms:?} must be milliseconds or `full`"))?,
            ),
        },
        keep_fillers: node_kit::env_flag("ASR_KEEP_FILLERS", true)?,
    })
}

/// What the bridge sends, for the event loop and the drain at stop alike.
struct Outputs<'a> {
    node: &'a mut DoraNode,
    speaker: String,
    /// `None` once the stream ended.
    jobs: Option<crossbeam_channel::Sender<(JobKey, Pcm)>>,
    cancelled: Arc<Mutex<BTreeSet<JobKey>>>,
    /// Jobs handed to the worker whose result has not come back.
    in_flight: usize,
    /// Jobs the worker's full queue refused, for their endpointer to forget.
    dropped: Vec<JobId>,
}

impl Outputs<'_> {
    fn on_output(&mut self, input: &str, output: EndpointOutput) -> eyre::Result<()> {
        match output {
            EndpointOutput::SpeechStarted { at_ms } => {
                tracing::info!(at_ms, "speech started");
                let started = SpeechStarted {
                    speaker: self.speaker.clone(),
                };
                node_kit::send(self.node, started)?;
            }
            EndpointOutput::Recognize { job, audio } => {
                let seconds = audio.samples.len() as f64 / f64::from(audio.sample_rate);
                let Some(jobs) = &self.jobs else {
                    tracing::warn!(job, seconds, "stopping: utterance not recognised");
                    return Ok(());
                };
                match jobs.try_send(((input.to_owned(), job), audio)) {
                    Ok(()) => self.in_flight += 1,
                    Err(crossbeam_channel::TrySendError::Full(_)) => {
                        tracing::warn!(
                            job,
                            seconds,
                            max_pending = MAX_PENDING_UTTERANCES,
                            "recognition is behind: utterance dropped"
                        );
                        self.dropped.push(job);
                    }
                    Err(crossbeam_channel::TrySendError::Disconnected(_)) => {}
                }
            }
            EndpointOutput::Cancel { job } => {
                tracing::debug!(
                    job,
                    "the human spoke on: the words at the pause are dropped"
                );
                if let Ok(mut cancelled) = self.cancelled.lock() {
                    cancelled.insert((input.to_owned(), job));
                }
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
                node_kit::send(self.node, transcript)?;
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
                node_kit::send(self.node, backchannel)?;
            }
        }
        Ok(())
    }

    /// A job's result: `None` when it was skipped as cancelled.
    fn on_result(
        &mut self,
        mics: &mut Microphones,
        (input, job): JobKey,
        result: Option<eyre::Result<String>>,
    ) -> eyre::Result<()> {
        self.in_flight = self.in_flight.saturating_sub(1);
        // A job cancelled after the worker took it is no longer waited for.
        if let Ok(mut cancelled) = self.cancelled.lock() {
            cancelled.remove(&(input.clone(), job));
        }
        let Some(result) = result else { return Ok(()) };
        let text = result.unwrap_or_else(|e| {
            tracing::warn!(error = %format!("{e:#}"), "recognition failed; treating the sound as a backchannel");
            String::new()
        });
        for output in mics.handle(&input, EndpointInput::Recognized { job, text }) {
            self.on_output(&input, output)?;
        }
        Ok(())
    }
}

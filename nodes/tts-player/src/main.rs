//! `tts-player`: `segment` and `interrupt` in (optionally `pause` / `resume` from the ASR
//! bridge's `speech_started` / `backchannel`); speech out to the sound device (when there
//! is one), `conversation.wav` and `timeline.jsonl` in the session folder, and the outputs
//! `audio` (Float32 blocks), `playback_started` and `playback_done`. Decisions live in
//! [`player_core::Player`]; synthesis runs on a worker thread.
//!
//! Clip mode (additive, for conductors such as the auction node): `clip` (JSON
//! [`voice_protocol::clips::ClipSpec`]) and `command` (JSON
//! [`voice_protocol::clips::ClipCommand`]) in; `clip_ready`, `clip_started`, `beat` and
//! `clip_finished` (JSON, `clip_id` in the metadata) out.

mod backend;
mod output;

use std::{
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use audio_utils::resample;
use crossbeam_channel::{Receiver, Sender, select};
use dora_node_api::{DoraNode, Event as DoraEvent, arrow_v59::array::AsArray};
use eyre::{Context, bail};
use node_kit::{Params, text_of};
use player_core::{Player, PlayerConfig, PlayerEvent, PlayerInput, voice_text};
use voice_protocol::{hub, hub::LocalQuestionIds, ids, keys};

use crate::{
    backend::{Espeak, OpenAiSpeech, Silent, TtsBackend, VoiceMap},
    output::{Device, Recording},
};

/// Voices handed out in turn to speakers without a `VOICE_MAP` entry.
const VOICE_ROTATION: &[&str] = &[
    "en-us+f3", "en-us+m3", "en-us+f4", "en-us+m1", "en-us+f2", "en-us+m4",
];

/// OpenAI's voices, handed out in turn when `VOICE_MAP` names none.
const OPENAI_VOICES: &[&str] = &["alloy", "echo", "fable", "onyx", "nova", "shimmer"];

struct Job {
    speaker: String,
    question_id: u64,
    index: u32,
    text: String,
    /// Clip mode: the clip this sentence belongs to.
    clip_id: Option<String>,
}

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let rate: u32 = node_kit::env_parse("SAMPLE_RATE", 22_050)?;
    let block_ms: u64 = node_kit::env_parse("BLOCK_MS", 20)?;
    if !(8_000..=96_000).contains(&rate) || !(5..=200).contains(&block_ms) {
        bail!("SAMPLE_RATE must be 8000..96000 and BLOCK_MS 5..200");
    }
    let timeout = node_kit::env_secs("TTS_TIMEOUT_SECS", 20.0)?;
    let backend: Box<dyn TtsBackend> = match node_kit::env_opt("TTS_BACKEND")
        .as_deref()
        .unwrap_or("espeak")
    {
        "espeak" => {
            Espeak::check_installed()?;
            Box::new(Espeak {
                voices: VoiceMap::parse(
                    &node_kit::env_opt("VOICE_MAP").unwrap_or_default(),
                    VOICE_ROTATION,
                )?,
                speed: node_kit::env_parse("ESPEAK_SPEED", 175)?,
                timeout,
            })
        }
        "openai" => {
            let key_env =
                node_kit::env_opt("TTS_API_KEY_ENV").unwrap_or_else(|| "OPENAI_API_KEY".to_owned());
            let base = node_kit::env_opt("TTS_BASE_URL")
                .unwrap_or_else(|| "https://api.openai.com/v1".to_owned());
            let api_key = node_kit::env_opt(&key_env);
            Box::new(OpenAiSpeech {
                url: format!("{}/audio/speech", base.trim_end_matches('/')),
                model: node_kit::env_opt("TTS_MODEL").unwrap_or_else(|| "tts-1".to_owned()),
                redactor: voice_protocol::Redactor::new(api_key.as_deref(), &base),
                api_key,
                voices: VoiceMap::parse(
                    &node_kit::env_opt("VOICE_MAP").unwrap_or_default(),
                    OPENAI_VOICES,
                )?,
                client: reqwest::blocking::Client::builder()
                    .timeout(timeout)
                    .build()?,
            })
        }
        "silent" => Box::new(Silent {
            sample_rate: rate,
            ms_per_char: 60,
        }),
        other => bail!("TTS_BACKEND={other:?} is not supported (use espeak, openai or silent)"),
    };
    tracing::info!(
        backend = backend.name(),
        rate,
        block_ms,
        "tts player starting"
    );

    let (mut node, events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    let dir = node_kit::session::session_folder(&node.dataflow_id().to_string())?;
    let (mut recording, resumed_samples) = Recording::open(&dir, rate)?;
    let mode = node_kit::env_opt("AUDIO_OUTPUT").unwrap_or_else(|| "auto".to_owned());
    let mut device = Device::open(&mode, rate, Duration::from_millis(block_ms * 3))?;
    tracing::info!(folder = %dir.display(), device = device.is_some(), "recording the session");

    let floor = Arc::new(AtomicU64::new(0));
    let (jobs, results) = spawn_synthesizer(backend, rate, floor.clone());
    let dora_events = node_kit::forward_events(events);
    let mut player = Player::new(PlayerConfig::new(rate));
    if resumed_samples > 0 {
        // A restart: the recording goes on, and so does the utterance being spoken.
        player.resume_at(resumed_samples);
    }
    // Question ids for node-hub-style text and audio, which come without one.
    let mut local_ids = LocalQuestionIds::default();
    let block_len = (u64::from(rate) * block_ms / 1000) as usize;
    let block_time = Duration::from_millis(block_ms);
    let mut block = vec![0.0f32; block_len];
    let start = Instant::now();
    let mut rendered_blocks: u32 = 0;

    loop {
        let deadline = start + block_time * rendered_blocks;
        let wait = deadline.saturating_duration_since(Instant::now());
        let mut player_events = Vec::new();
        select! {
            recv(dora_events) -> event => match event {
                Ok(DoraEvent::Input { id, metadata, data }) => {
                    let cut_off = matches!(id.as_str(), ids::PAUSE | ids::INTERRUPT);
                    let barge_in = (id.as_str() == ids::PAUSE)
                        .then(|| (received_us(&metadata), player.is_busy() && !player.is_paused()));
                    if let Some(input) = to_player_input(id.as_str(), &metadata.parameters, &data, &mut local_ids, rate) {
                        if let PlayerInput::Interrupt { question_id } = input {
                            floor.fetch_max(question_id, Ordering::SeqCst);
                            // When, in the recording's time, older voices had to stop.
                            let record = serde_json::json!({
                                "question_id": question_id,
                                "at_ms": player.now_ms(),
                            });
                            recording.note("interrupts.jsonl", &record)?;
                        }
                        player_events = player.handle(input);
                    }
                    // A cut-off voice fades in the very next block, rendered now rather
                    // than on the block clock: the player is silent within the fade.
                    let mut faded_at = None;
                    if cut_off && player.is_fading() {
                        let (events, written_at) = render_block(&mut player, &mut block, &mut recording, &mut device, &mut node, rate)?;
                        player_events.extend(events);
                        faded_at = Some(written_at);
                        rendered_blocks += 1;
                    }
                    if let Some((received_after_us, was_playing)) = barge_in {
                        // Barge-in latency: from the sender's timestamp until the block
                        // with the fade went to the sound device and the recording, plus
                        // the fade itself.
                        let faded_at = faded_at.unwrap_or_else(std::time::SystemTime::now);
                        let record = serde_json::json!({
                            "was_playing": was_playing,
                            "received_after_us": received_after_us,
                            "silent_after_us": micros_since_sent(&metadata, faded_at) + player.fade_duration().as_micros() as u64,
                        });
                        recording.note("barge_in.jsonl", &record)?;
                    }
                }
                Ok(DoraEvent::Stop(_)) | Err(_) => break,
                Ok(_) => {}
            },
            recv(results) -> result => match result {
                Ok(input) => player_events = player.handle(input),
                Err(_) => bail!("the synthesis worker stopped"),
            },
            default(wait) => {
                // Catch up if the machine stalled, but never by more than a second.
                let behind = (start.elapsed().as_millis() as u64 / block_ms).saturating_sub(u64::from(rendered_blocks));
                for _ in 0..behind.clamp(1, 1000 / block_ms) {
                    player_events.extend(render_block(&mut player, &mut block, &mut recording, &mut device, &mut node, rate)?.0);
                    rendered_blocks += 1;
                }
                if behind > 1000 / block_ms {
                    rendered_blocks = (start.elapsed().as_millis() as u64 / block_ms) as u32;
                }
            }
        }
        for event in player_events {
            apply(event, &mut node, &jobs, &mut recording)?;
        }
    }
    recording.finish()?;
    Ok(())
}

/// Renders the next block into the recording, the sound device and the `audio` output;
/// also returns when the block reached the device and the recording.
fn render_block(
    player: &mut Player,
    block: &mut [f32],
    recording: &mut Recording,
    device: &mut Option<Device>,
    node: &mut DoraNode,
    rate: u32,
) -> eyre::Result<(Vec<PlayerEvent>, std::time::SystemTime)> {
    let rendered = player.render(block);
    if let Some(d) = device.as_mut()
        && !d.write(block)
    {
        tracing::warn!("the sound device went away; recording only");
        *device = None;
    }
    recording.write(block)?;
    let written_at = std::time::SystemTime::now();
    if let Some((speaker, question_id)) = rendered.speaker {
        let params = Params::new()
            .question_id(question_id)
            .string(keys::SPEAKER, speaker)
            .int(keys::SAMPLE_RATE, i64::from(rate))
            .build();
        node.send_output(ids::AUDIO.into(), params, block.to_vec())?;
    }
    Ok((rendered.events, written_at))
}

/// Microseconds from the sender's timestamp until now.
fn received_us(metadata: &dora_node_api::Metadata) -> u64 {
    micros_since_sent(metadata, std::time::SystemTime::now())
}

/// Microseconds from the sender's timestamp until `at`.
fn micros_since_sent(metadata: &dora_node_api::Metadata, at: std::time::SystemTime) -> u64 {
    let sent = metadata.timestamp().get_time().to_system_time();
    at.duration_since(sent).unwrap_or_default().as_micros() as u64
}

fn apply(
    event: PlayerEvent,
    node: &mut DoraNode,
    jobs: &Sender<Job>,
    recording: &mut Recording,
) -> eyre::Result<()> {
    match event {
        PlayerEvent::Synthesize {
            speaker,
            question_id,
            index,
            text,
        } => {
            let _ = jobs.send(Job {
                speaker,
                question_id,
                index,
                text,
                clip_id: None,
            });
        }
        PlayerEvent::SynthesizeClip {
            clip_id,
            speaker,
            index,
            text,
        } => {
            let _ = jobs.send(Job {
                speaker,
                question_id: u64::MAX,
                index,
                text,
                clip_id: Some(clip_id),
            });
        }
        PlayerEvent::ClipRefused { clip_id, reason } => {
            tracing::warn!(%clip_id, %reason, "clip command not honoured");
        }
        PlayerEvent::ClipReady(ready) => {
            if let Some(error) = &ready.error {
                tracing::warn!(clip_id = %ready.clip_id, %error, "clip could not be prepared");
            }
            send_json(node, ids::CLIP_READY, &ready.clip_id, &ready)?;
        }
        PlayerEvent::ClipStarted(started) => {
            tracing::debug!(clip_id = %started.clip_id, at_ms = started.at_ms, "clip started");
            send_json(node, ids::CLIP_STARTED, &started.clip_id, &started)?;
        }
        PlayerEvent::Beat(beat) => {
            send_json(node, ids::BEAT, &beat.clip_id, &beat)?;
        }
        PlayerEvent::ClipFinished(done) => {
            tracing::info!(speaker = %done.speaker, clip_id = %done.clip_id, overlay = done.overlay, interrupted = done.interrupted, chars = done.chars_played, "clip played");
            recording.timeline_clip(&done)?;
            send_json(node, ids::CLIP_FINISHED, &done.clip_id, &done)?;
        }
        PlayerEvent::Skipped {
            question_id,
            index,
            error,
        } => {
            tracing::warn!(question_id, index, %error, "segment could not be synthesized; skipped");
        }
        PlayerEvent::PlaybackStarted {
            speaker,
            question_id,
            at_ms,
        } => {
            tracing::debug!(%speaker, question_id, at_ms, "playback started");
            let params = Params::new()
                .question_id(question_id)
                .string(keys::SPEAKER, speaker.clone())
                .build();
            node.send_output(ids::PLAYBACK_STARTED.into(), params, speaker)?;
        }
        PlayerEvent::PlaybackDone(record) => {
            tracing::info!(speaker = %record.speaker, question_id = record.question_id, interrupted = record.interrupted, chars = record.chars_played, "played");
            recording.timeline(&record)?;
            let params = Params::new()
                .question_id(record.question_id)
                .string(keys::SPEAKER, record.speaker.clone())
                .bool(keys::INTERRUPTED, record.interrupted)
                .int(keys::CHARS_PLAYED, record.chars_played as i64)
                .build();
            node.send_output(ids::PLAYBACK_DONE.into(), params, record.text_played)?;
        }
    }
    Ok(())
}

/// A clip report: Utf8 JSON, `clip_id` in the metadata.
fn send_json(
    node: &mut DoraNode,
    output: &str,
    clip_id: &str,
    value: &impl serde::Serialize,
) -> eyre::Result<()> {
    let params = Params::new().string(keys::CLIP_ID, clip_id).build();
    node.send_output(
        output.to_owned().into(),
        params,
        serde_json::to_string(value)?,
    )?;
    Ok(())
}

/// One synthesis worker, in arrival order; jobs older than the newest interrupt are
/// skipped without synthesizing, and abandoned between pieces of a long one.
fn spawn_synthesizer(
    mut backend: Box<dyn TtsBackend>,
    rate: u32,
    floor: Arc<AtomicU64>,
) -> (Sender<Job>, Receiver<PlayerInput>) {
    let (job_tx, job_rx) = crossbeam_channel::unbounded::<Job>();
    let (result_tx, result_rx) = crossbeam_channel::unbounded();
    std::thread::spawn(move || {
        for job in job_rx {
            let stale = || job.clip_id.is_none() && job.question_id < floor.load(Ordering::SeqCst);
            let Some(voiced) = voice(backend.as_mut(), &job, rate, stale) else {
                continue;
            };
            let result = match (voiced, job.clip_id) {
                (Ok(samples), Some(clip_id)) => PlayerInput::ClipAudio {
                    clip_id,
                    index: job.index,
                    samples,
                },
                (Err(e), Some(clip_id)) => PlayerInput::ClipSynthesisFailed {
                    clip_id,
                    index: job.index,
                    error: format!("{e:#}"),
                },
                (Ok(samples), None) => PlayerInput::Audio {
                    question_id: job.question_id,
                    index: job.index,
                    samples,
                },
                (Err(e), None) => PlayerInput::SynthesisFailed {
                    question_id: job.question_id,
                    index: job.index,
                    error: format!("{e:#}"),
                },
            };
            if result_tx.send(result).is_err() {
                break;
            }
        }
    });
    (job_tx, result_rx)
}

/// A job's audio at the player's rate: its text sanitised, capped and synthesized piece
/// by piece (see [`voice_text`]); `None` when it went stale on the way.
fn voice(
    backend: &mut dyn TtsBackend,
    job: &Job,
    rate: u32,
    stale: impl Fn() -> bool,
) -> Option<eyre::Result<Vec<f32>>> {
    if stale() {
        return None;
    }
    let plan = voice_text::plan(&job.text);
    if plan.dropped_chars > 0 {
        tracing::warn!(
            question_id = job.question_id,
            index = job.index,
            clip_id = job.clip_id.as_deref(),
            dropped_chars = plan.dropped_chars,
            max_chars = voice_text::MAX_SEGMENT_CHARS,
            "segment too long: its end is not voiced"
        );
    }
    let pieces = plan.pieces.len();
    let mut samples = Vec::new();
    for (n, piece) in plan.pieces.iter().enumerate() {
        if n > 0 && stale() {
            return None;
        }
        let pcm = match backend.synthesize(&job.speaker, piece) {
            Ok(pcm) => pcm,
            Err(e) if pieces > 1 => {
                return Some(Err(e.wrap_err(format!("piece {} of {pieces}", n + 1))));
            }
            Err(e) => return Some(Err(e)),
        };
        if !voice_text::VOICE_SAMPLE_RATES.contains(&pcm.sample_rate) {
            return Some(Err(eyre::eyre!(
                "the voice sent audio at {} Hz (accepted: {}..={} Hz)",
                pcm.sample_rate,
                voice_text::VOICE_SAMPLE_RATES.start(),
                voice_text::VOICE_SAMPLE_RATES.end()
            )));
        }
        samples.extend(resample(&pcm.samples, pcm.sample_rate, rate));
    }
    Some(Ok(samples))
}

fn to_player_input(
    id: &str,
    params: &dora_node_api::MetadataParameters,
    data: &dora_node_api::DoraArray,
    local_ids: &mut LocalQuestionIds,
    rate: u32,
) -> Option<PlayerInput> {
    if hub::is_input(id, ids::TEXT) || hub::is_input(id, ids::AUDIO) {
        return hub_input(id, params, data, local_ids, rate);
    }
    match id {
        // The human began to speak: hold at once; a backchannel resumes, a transcript's
        // interrupt drops. No question id needed.
        ids::PAUSE => return Some(PlayerInput::Pause),
        ids::RESUME => return Some(PlayerInput::Resume),
        ids::CLIP | ids::COMMAND => {
            let text = match text_of(data) {
                Ok(text) => text,
                Err(e) => {
                    tracing::warn!(input = id, error = %e, "unreadable clip input ignored");
                    return None;
                }
            };
            let parsed = if id == ids::CLIP {
                serde_json::from_str(&text).map(PlayerInput::Clip)
            } else {
                serde_json::from_str(&text).map(PlayerInput::Command)
            };
            return match parsed {
                Ok(input) => Some(input),
                Err(e) => {
                    tracing::warn!(input = id, error = %e, text = %voice_protocol::shorten(&text), "invalid clip JSON ignored");
                    None
                }
            };
        }
        _ => {}
    }
    let Some(question_id) = node_kit::question_id(params) else {
        tracing::warn!(input = id, "message without question_id ignored");
        return None;
    };
    local_ids.observe(question_id);
    match id {
        ids::INTERRUPT => Some(PlayerInput::Interrupt { question_id }),
        ids::SEGMENT => {
            let text = match text_of(data) {
                Ok(text) => text,
                Err(e) => {
                    tracing::warn!(error = %e, "unreadable segment ignored");
                    return None;
                }
            };
            let Some(index) = node_kit::int_param(params, keys::SEGMENT_INDEX)
                .and_then(|i| u32::try_from(i).ok())
            else {
                tracing::warn!("segment without segment_index ignored");
                return None;
            };
            Some(PlayerInput::Segment {
                speaker: node_kit::string_param(params, keys::SPEAKER)
                    .unwrap_or("unknown")
                    .to_owned(),
                question_id,
                index,
                last: node_kit::bool_param(params, keys::LAST_SEGMENT).unwrap_or(false),
                text,
            })
        }
        other => {
            tracing::warn!(input = other, "unknown input ignored");
            None
        }
    }
}

/// dora node-hub conventions: `text` / `text_<speaker>` (Utf8, as a node-hub LLM sends it)
/// is one whole utterance to voice; `audio` / `audio_<speaker>` (Float32 with
/// `sample_rate`, 16 kHz when absent, as a node-hub TTS node sends it) one already
/// spoken. Without a `question_id` each gets its own, after everything seen so far.
fn hub_input(
    id: &str,
    params: &dora_node_api::MetadataParameters,
    data: &dora_node_api::DoraArray,
    local_ids: &mut LocalQuestionIds,
    rate: u32,
) -> Option<PlayerInput> {
    let is_text = hub::is_input(id, ids::TEXT);
    let prefix = if is_text { ids::TEXT } else { ids::AUDIO };
    let speaker = hub::speaker_of(
        id,
        prefix,
        node_kit::string_param(params, keys::SPEAKER),
        id,
    )
    .to_owned();
    let question_id = local_ids.or_fresh(node_kit::question_id(params));
    if is_text {
        let text = match text_of(data) {
            Ok(text) => text,
            Err(e) => {
                tracing::warn!(input = id, error = %e, "unreadable text ignored");
                return None;
            }
        };
        return Some(PlayerInput::Segment {
            speaker,
            question_id,
            index: 0,
            last: true,
            text,
        });
    }
    let from =
        match voice_protocol::valid_sample_rate(node_kit::int_param(params, keys::SAMPLE_RATE)) {
            Ok(from) => from,
            Err(problem) => {
                tracing::warn!(input = id, %problem, "audio ignored");
                return None;
            }
        };
    let Some(samples) = data
        .as_array()
        .as_primitive_opt::<dora_node_api::arrow_v59::datatypes::Float32Type>()
    else {
        tracing::warn!(input = id, data_type = %data.as_array().data_type(), "audio must be Float32; ignored");
        return None;
    };
    let clean: Vec<f32> = samples
        .values()
        .iter()
        .map(|s| if s.is_finite() { *s } else { 0.0 })
        .collect();
    Some(PlayerInput::Spoken {
        speaker,
        question_id,
        index: 0,
        last: true,
        text: node_kit::string_param(params, ids::TEXT)
            .unwrap_or_default()
            .to_owned(),
        samples: resample(&clean, from, rate),
    })
}

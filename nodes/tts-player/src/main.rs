//! `tts-player`: `segment` and `interrupt` in (optionally `pause` / `resume`, the
//! controller's hold of the human's floor); speech out to the sound device (when there
//! is one), `conversation.wav` and `timeline.jsonl` in the session folder, and the outputs
//! `audio` (Float32 blocks), `playback_started` and `playback_done`.
//!
//! The human, optionally: `human_audio` (and `human_audio_<source>`: the microphones the
//! ASR bridge hears as `audio`, `audio_<source>`) is recorded as `human.wav` on the same
//! clock, and `utterance` (the controller's) puts each human utterance on the timeline,
//! where it was spoken; `mix.wav` holds both sides at the end. Decisions live in
//! [`player_core::Player`]; synthesis runs on a worker thread.
//!
//! Clip mode (additive, for conductors such as the auction node): `clip` (JSON
//! [`voice_protocol::clips::ClipSpec`]) and `command` (JSON
//! [`voice_protocol::clips::ClipCommand`]) in; `clip_ready`, `clip_started`, `beat` and
//! `clip_finished` (JSON, `clip_id` in the metadata) out.

mod backend;
mod inputs;
mod output;
mod synth;

use std::{
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use crossbeam_channel::select;
use dora_node_api::{DoraNode, Event as DoraEvent};
use eyre::{Context, bail};
use player_core::{
    Player, PlayerConfig, PlayerInput, PlayerOutput,
    human::{HumanLine, HumanRecorder},
    records::{BARGE_IN_FILE, BargeInRecord, INTERRUPTS_FILE, InterruptRecord},
};
use voice_protocol::messages::{Audio, ClipJson, PlaybackStarted, Played, Utterance};
use voice_protocol::{hub, hub::LocalQuestionIds, ids};

use crate::{
    inputs::{micros_since_sent, since_onset_us, to_player_input},
    output::{Device, Recording},
    synth::{Job, PartOf, Voicing, spawn_synthesizer},
};

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let rate: u32 = node_kit::env_parse("SAMPLE_RATE", 22_050)?;
    let block_ms: u64 = node_kit::env_parse("BLOCK_MS", 20)?;
    if !(8_000..=96_000).contains(&rate) || !(5..=200).contains(&block_ms) {
        bail!("SAMPLE_RATE must be 8000..96000 and BLOCK_MS 5..200");
    }
    let timeout = node_kit::env_secs("TTS_TIMEOUT_SECS", 20.0)?;
    let backend = backend::from_env(rate, timeout)?;
    tracing::info!(
        backend = backend.name(),
        rate,
        block_ms,
        "tts player starting"
    );

    let (mut node, events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    let dir = node_kit::session::session_folder(&node.dataflow_id().to_string())?;
    let (mut recording, resumed_samples) = Recording::open(&dir, rate)?;
    let mut human = HumanRecorder::new(rate, recording.human_samples());
    // Microphones already reported for non-finite samples.
    let mut warned_inputs = std::collections::BTreeSet::new();
    let mode = node_kit::env_opt("AUDIO_OUTPUT").unwrap_or_else(|| "auto".to_owned());
    let mut device = Device::open(&mode, rate, Duration::from_millis(block_ms * 3))?;
    tracing::info!(folder = %dir.display(), device = device.is_some(), "recording the session");

    let floor = Arc::new(AtomicU64::new(0));
    let (voicing, results) = spawn_synthesizer(backend, rate, floor.clone());
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
                Ok(DoraEvent::Input { id, metadata, data }) if hub::is_input(id.as_str(), ids::HUMAN_AUDIO) => {
                    // The microphone the ASR bridge hears as `audio<suffix>`.
                    let mic = format!("{}{}", ids::AUDIO, &id.as_str()[ids::HUMAN_AUDIO.len()..]);
                    match node_kit::decode::<Audio>(&metadata.parameters, &data) {
                        Ok(block) => {
                            if block.silenced > 0 && warned_inputs.insert(id.to_string()) {
                                tracing::warn!(input = %id, replaced = block.silenced, "microphone audio holds non-finite samples: recorded as silence; reported once per input");
                            }
                            if let Some(heard) = human.heard(&mic, &block.samples, block.sample_rate, player.clock()) {
                                recording.write_human(&heard)?;
                            }
                        }
                        Err(problem) => tracing::warn!(input = %id, %problem, "microphone audio not recorded"),
                    }
                }
                Ok(DoraEvent::Input { id, metadata, data }) if id.as_str() == ids::UTTERANCE => {
                    if let Some(line) = human_line(&human, &metadata.parameters, &data, player.now_ms()) {
                        recording.timeline_human(&line)?;
                    }
                }
                Ok(DoraEvent::Input { id, metadata, data }) => {
                    let cut_off = matches!(id.as_str(), ids::PAUSE | ids::INTERRUPT);
                    let barge_in = (id.as_str() == ids::PAUSE)
                        .then(|| (since_onset_us(&metadata, &data), player.is_busy() && !player.is_paused()));
                    if let Some(input) = to_player_input(id.as_str(), &metadata.parameters, &data, &mut local_ids, rate) {
                        if let PlayerInput::Interrupt { question_id } = input {
                            floor.fetch_max(question_id, Ordering::SeqCst);
                            voicing.floor_raised(floor.load(Ordering::SeqCst));
                            // When, in the recording's time, older voices had to stop,
                            // and whether the player held anything then (sounding or
                            // waiting for its voice).
                            let record = InterruptRecord {
                                question_id,
                                at_ms: player.now_ms(),
                                busy: Some(player.is_busy()),
                            };
                            recording.note(INTERRUPTS_FILE, &record)?;
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
                        let record = BargeInRecord {
                            was_playing,
                            received_after_us,
                            silent_after_us: micros_since_sent(&metadata, faded_at) + player.fade_duration().as_micros() as u64,
                        };
                        recording.note(BARGE_IN_FILE, &record)?;
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
            apply(event, &mut node, &voicing, &mut recording)?;
        }
    }
    if let Some(heard) = human.finish() {
        recording.write_human(&heard)?;
    }
    recording.finish()?;
    Ok(())
}

/// A human's utterance (the controller's `utterance` with `is_human`) as a timeline line,
/// put on the recording's clock; agents' utterances are the player's own lines already.
fn human_line(
    human: &HumanRecorder,
    params: &dora_node_api::MetadataParameters,
    data: &dora_node_api::DoraArray,
    now_ms: u64,
) -> Option<HumanLine> {
    let utterance = match node_kit::decode::<Utterance>(params, data) {
        Ok(utterance) if utterance.human => utterance,
        Ok(_) => return None,
        Err(e) => {
            tracing::debug!(error = %e, "unreadable utterance not put on the timeline");
            return None;
        }
    };
    Some(
        human.line(
            &utterance.speaker,
            utterance.question_id,
            utterance.text,
            utterance
                .heard
                .as_ref()
                .map(|h| (h.audio_input.as_str(), h.start_ms, h.end_ms)),
            now_ms,
        ),
    )
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
) -> eyre::Result<(Vec<PlayerOutput>, std::time::SystemTime)> {
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
        let audio = Audio {
            question_id: Some(question_id),
            speaker: Some(speaker),
            ..Audio::new(rate, block.to_vec())
        };
        node_kit::send(node, audio)?;
    }
    Ok((rendered.events, written_at))
}

fn apply(
    event: PlayerOutput,
    node: &mut DoraNode,
    voicing: &Voicing,
    recording: &mut Recording,
) -> eyre::Result<()> {
    match event {
        PlayerOutput::Synthesize {
            speaker,
            question_id,
            index,
            text,
        } => {
            tracing::debug!(%speaker, question_id, index, chars = text.chars().count(), "to voice");
            voicing.voice(Job {
                speaker,
                index,
                text,
                part_of: PartOf::Turn { question_id },
            });
        }
        PlayerOutput::SynthesizeClip {
            clip_id,
            speaker,
            index,
            text,
        } => {
            voicing.voice(Job {
                speaker,
                index,
                text,
                part_of: PartOf::Clip { clip_id },
            });
        }
        PlayerOutput::ClipRefused { clip_id, reason } => {
            tracing::warn!(%clip_id, %reason, "clip command not honoured");
        }
        PlayerOutput::ClipReady(ready) => {
            if let Some(error) = &ready.error {
                tracing::warn!(clip_id = %ready.clip_id, %error, "clip could not be prepared");
            }
            send_json(node, ids::CLIP_READY, &ready.clip_id, &ready)?;
        }
        PlayerOutput::ClipStarted(started) => {
            tracing::debug!(clip_id = %started.clip_id, at_ms = started.at_ms, "clip started");
            send_json(node, ids::CLIP_STARTED, &started.clip_id, &started)?;
        }
        PlayerOutput::Beat(beat) => {
            send_json(node, ids::BEAT, &beat.clip_id, &beat)?;
        }
        PlayerOutput::ClipFinished(done) => {
            tracing::info!(speaker = %done.speaker, clip_id = %done.clip_id, overlay = done.overlay, interrupted = done.interrupted, chars = done.chars_played, "clip played");
            recording.timeline_clip(&done)?;
            send_json(node, ids::CLIP_FINISHED, &done.clip_id, &done)?;
        }
        PlayerOutput::Skipped {
            question_id,
            index,
            error,
        } => {
            tracing::warn!(question_id, index, %error, "segment could not be synthesized; skipped");
        }
        PlayerOutput::PlaybackStarted {
            speaker,
            question_id,
            at_ms,
        } => {
            tracing::debug!(%speaker, question_id, at_ms, "playback started");
            let started = PlaybackStarted {
                question_id: Some(question_id),
                speaker,
            };
            node_kit::send(node, started)?;
        }
        PlayerOutput::PlaybackDone(record) => {
            tracing::info!(speaker = %record.speaker, question_id = record.question_id, interrupted = record.interrupted, chars = record.chars_played, "played");
            recording.timeline(&record)?;
            let played = Played {
                question_id: Some(record.question_id),
                speaker: record.speaker,
                interrupted: record.interrupted,
                chars_played: Some(record.chars_played as u64),
                text: record.text_played,
            };
            node_kit::send(node, played)?;
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
    node_kit::send_on(node, output, ClipJson::of(clip_id, value)?)
}

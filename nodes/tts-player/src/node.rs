//! The player node between events: the core ([`Player`]), its synthesis worker, the
//! recording and the sound device. Each dora input and each tick of the block clock is
//! one method, so that `main` is the event loop alone; what to do is the core's, these
//! convert and carry it out.

use crate::settings::Settings;
use std::{
    collections::BTreeSet,
    time::{Duration, Instant, SystemTime},
};

use crossbeam_channel::Receiver;
use dora_node_api::{DoraNode, Metadata};
use player_core::{
    Player, PlayerConfig, PlayerInput, PlayerOutput,
    human::{HumanLine, HumanRecorder},
    records::{BARGE_IN_FILE, BargeInRecord, INTERRUPTS_FILE, InterruptRecord},
};
use voice_protocol::messages::{Audio, ClipJson, Held, PlaybackStarted, Played, Utterance};
use voice_protocol::{hub::LocalQuestionIds, ids};

use crate::{
    backend::TtsBackend,
    inputs::{since_onset_us, to_player_input},
    output::{Device, Recording},
    synth::{Job, PartOf, Voicing, spawn_synthesizer},
};

pub struct PlayerNode {
    node: DoraNode,
    player: Player,
    recording: Recording,
    device: Option<Device>,
    human: HumanRecorder,
    voicing: Voicing,
    /// Question ids for node-hub-style text and audio, which come without one.
    local_ids: LocalQuestionIds,
    /// Microphones already reported for non-finite samples.
    warned_inputs: BTreeSet<String>,
    rate: u32,
    block: Vec<f32>,
    block_time: Duration,
    start: Instant,
    rendered_blocks: u32,
}

impl PlayerNode {
    /// Opens the session's recording (continuing it after a restart), the sound device
    /// and the synthesis worker; returns the node and the worker's results.
    pub fn open(
        node: DoraNode,
        backend: Box<dyn TtsBackend>,
        settings: &Settings,
    ) -> eyre::Result<(Self, Receiver<PlayerInput>)> {
        let rate = settings.rate;
        let dir = node_kit::session::session_folder(&node.dataflow_id().to_string())?;
        let (recording, resumed_samples) = Recording::open(&dir, rate)?;
        let human = HumanRecorder::new(rate, recording.human_samples());
        let device = Device::open(
            &settings.output,
            rate,
            Duration::from_millis(settings.block_ms * 3),
        )?;
        tracing::info!(folder = %dir.display(), device = device.is_some(), "recording the session");
        let (voicing, results) = spawn_synthesizer(backend, rate);
        let mut player = Player::new(PlayerConfig::new(rate));
        if resumed_samples > 0 {
            // A restart: the recording goes on, and so does the utterance being spoken.
            player.resume_at(resumed_samples);
        }
        let block_len = (u64::from(rate) * settings.block_ms / 1000) as usize;
        let node = Self {
            node,
            player,
            recording,
            device,
            human,
            voicing,
            local_ids: LocalQuestionIds::default(),
            warned_inputs: BTreeSet::new(),
            rate,
            block: vec![0.0; block_len],
            block_time: Duration::from_millis(settings.block_ms),
            start: Instant::now(),
            rendered_blocks: 0,
        };
        Ok((node, results))
    }

    /// When the next block is due.
    pub fn next_block_at(&self) -> Instant {
        self.start + self.block_time * self.rendered_blocks
    }

    /// A microphone's block (`human_audio<suffix>`): recorded in `human.wav`.
    pub fn on_human_audio(
        &mut self,
        id: &str,
        metadata: &Metadata,
        data: &dora_node_api::DoraArray,
    ) -> eyre::Result<()> {
        // The microphone the ASR bridge hears as `audio<suffix>`.
        let mic = format!("{}{}", ids::AUDIO, &id[ids::HUMAN_AUDIO.len()..]);
        match node_kit::decode::<Audio>(&metadata.parameters, data) {
            Ok(block) => {
                if block.silenced > 0 && self.warned_inputs.insert(id.to_owned()) {
                    tracing::warn!(input = %id, replaced = block.silenced, "microphone audio holds non-finite samples: recorded as silence; reported once per input");
                }
                if let Some(heard) =
                    self.human
                        .heard(&mic, &block.samples, block.sample_rate, self.player.clock())
                {
                    self.recording.write_human(&heard)?;
                }
            }
            Err(problem) => tracing::warn!(input = %id, %problem, "microphone audio not recorded"),
        }
        Ok(())
    }

    /// The controller's `utterance`: a human's is put on the timeline where it was spoken.
    pub fn on_utterance(
        &mut self,
        metadata: &Metadata,
        data: &dora_node_api::DoraArray,
    ) -> eyre::Result<()> {
        if let Some(line) = human_line(
            &self.human,
            &metadata.parameters,
            data,
            self.player.now_ms(),
        ) {
            self.recording.timeline_human(&line)?;
        }
        Ok(())
    }

    /// Any other input: segments, interrupts, the hold, clips, node-hub text and audio.
    pub fn on_input(
        &mut self,
        id: &str,
        metadata: &Metadata,
        data: &dora_node_api::DoraArray,
    ) -> eyre::Result<()> {
        let cut_off = matches!(id, ids::PAUSE | ids::INTERRUPT);
        let barge_in = (id == ids::PAUSE).then(|| {
            (
                since_onset_us(metadata, data, SystemTime::now()),
                self.player.is_busy() && !self.player.is_held(),
            )
        });
        let mut events = Vec::new();
        if let Some(input) = to_player_input(
            id,
            &metadata.parameters,
            data,
            &mut self.local_ids,
            self.rate,
        ) {
            if let PlayerInput::Interrupt { question_id } = input {
                self.voicing.interrupt(question_id);
                let record = InterruptRecord {
                    question_id,
                    at_ms: self.player.now_ms(),
                    busy: Some(self.player.is_busy()),
                };
                self.recording.note(INTERRUPTS_FILE, &record)?;
            }
            events = self.player.handle(input);
        }
        // A cut-off voice fades in the very next block, rendered now rather than on the
        // block clock (and before anything is sent): the player is silent within the fade.
        let mut faded_at = None;
        if cut_off && self.player.is_fading() {
            let (written_at, rendered) = self.render_block()?;
            events.extend(rendered);
            faded_at = Some(written_at);
        }
        if let Some((received_after_us, was_playing)) = barge_in {
            // Barge-in latency: from the voice's onset (else the pause's send) until the
            // block with the fade went to the sound device and the recording, plus the
            // fade itself.
            let faded_at = faded_at.unwrap_or_else(SystemTime::now);
            let record = BargeInRecord {
                was_playing,
                received_after_us,
                silent_after_us: since_onset_us(metadata, data, faded_at)
                    + self.player.fade_duration().as_micros() as u64,
            };
            self.recording.note(BARGE_IN_FILE, &record)?;
        }
        self.apply(events)
    }

    /// Audio (or a failure) from the synthesis worker.
    pub fn on_voiced(&mut self, input: PlayerInput) -> eyre::Result<()> {
        let events = self.player.handle(input);
        self.apply(events)
    }

    /// The block clock: the blocks due are rendered (catching up if the machine stalled,
    /// but never by more than a second).
    pub fn on_clock(&mut self) -> eyre::Result<()> {
        let block_ms = self.block_time.as_millis() as u64;
        let elapsed_blocks = self.start.elapsed().as_millis() as u64 / block_ms;
        let behind = elapsed_blocks.saturating_sub(u64::from(self.rendered_blocks));
        for _ in 0..behind.clamp(1, 1000 / block_ms) {
            let (_, events) = self.render_block()?;
            self.apply(events)?;
        }
        if behind > 1000 / block_ms {
            self.rendered_blocks = elapsed_blocks as u32;
        }
        Ok(())
    }

    /// The session is over: the human's last audio, then the files closed (`mix.wav`).
    pub fn finish(mut self) -> eyre::Result<()> {
        if let Some(heard) = self.human.finish() {
            self.recording.write_human(&heard)?;
        }
        self.recording.finish()
    }

    /// Renders the next block into the recording, the sound device and the `audio`
    /// output; returns when the block reached the device and the recording, and what the
    /// core decided meanwhile (for the caller to carry out).
    fn render_block(&mut self) -> eyre::Result<(SystemTime, Vec<PlayerOutput>)> {
        let rendered = self.player.render(&mut self.block);
        self.rendered_blocks += 1;
        if let Some(d) = self.device.as_mut()
            && !d.write(&self.block)
        {
            tracing::warn!("the sound device went away; recording only");
            self.device = None;
        }
        self.recording.write(&self.block)?;
        let written_at = SystemTime::now();
        if let Some((speaker, question_id)) = rendered.speaker {
            let audio = Audio {
                question_id: Some(question_id),
                speaker: Some(speaker),
                ..Audio::new(self.rate, self.block.clone())
            };
            node_kit::send(&mut self.node, audio)?;
        }
        Ok((written_at, rendered.events))
    }

    fn apply(&mut self, events: Vec<PlayerOutput>) -> eyre::Result<()> {
        for event in events {
            apply(event, &mut self.node, &self.voicing, &mut self.recording)?;
        }
        Ok(())
    }
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
        PlayerOutput::VoiceAhead { speaker, text } => voicing.voice(Job {
            speaker,
            index: 0,
            text,
            part_of: PartOf::Ahead,
        }),
        PlayerOutput::AnswerNotComing => voicing.answer_not_coming(),
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
        PlayerOutput::Held {
            speaker,
            question_id,
            heard,
        } => {
            tracing::debug!(%speaker, question_id, chars = heard.chars().count(), "held");
            let held = Held {
                question_id,
                speaker,
                text: heard,
            };
            node_kit::send(node, held)?;
        }
        PlayerOutput::Played(record) => {
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

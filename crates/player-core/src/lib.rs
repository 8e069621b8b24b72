//! The TTS player's decisions, without devices or clocks.
//!
//! The node feeds segments (from the segmenter), synthesized audio (from its backend) and
//! interrupts, and calls [`Player::render`] once per audio block. The player's clock is
//! the number of samples rendered, so its timeline is the timeline of `conversation.wav`.
//!
//! Rules: one voice at a time; utterances play in question-id order, segments in index
//! order; a segment whose audio is not ready yet leaves a (recorded) gap; an interrupt
//! newer than an utterance stops it within the next block with a short fade and drops
//! everything older that is queued; every utterance that ends or is cut off while
//! sounding gets a timeline record saying how much of its text was heard.

//!
//! Clips (see [`clips`]) are the player's second, additive mode: addressed clips held
//! until a conductor's command plays, ducks or fades them. Utterances and clips never
//! sound together: while a clip sounds or waits to, utterances wait.
//!
//! [`voice_text`] prepares text for a voice: neutralised, capped and cut into pieces.

pub mod clips;
pub mod human;
pub mod prepared;
pub mod voice_text;
pub mod voices;

use std::collections::BTreeMap;

use serde::Serialize;
use voice_protocol::StaleFilter;
use voice_protocol::clips::{
    BeatReached, ClipCommand, ClipFinished, ClipReady, ClipSpec, ClipStarted,
};

pub use clips::{ClipAudit, ClipDeck};

/// A pause that neither a resume nor an interrupt resolves ends by itself: a safety net
/// should the controller that holds the human's floor vanish. Longer than the
/// controller's own limit on a hold (35 s: the voice detector's longest utterance, 30 s,
/// and its recognition), so that a long question is never talked over.
pub const PAUSE_LIMIT_SECS: u64 = 40;

/// Utterances held at once, the one sounding included. A conversation holds one or two; a
/// flood of new question ids past this is refused (each refused utterance is reported
/// done with nothing heard, so whoever waits for it goes on), never queued without end.
pub const MAX_QUEUED_UTTERANCES: usize = 32;

/// Segments (sentences) one utterance may hold. Past it the utterance ends with the
/// segments it has and later ones are reported and dropped.
pub const MAX_SEGMENTS_PER_UTTERANCE: usize = 512;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayerConfig {
    pub sample_rate: u32,
    /// Fade applied when an utterance is cut off, in samples.
    pub fade_samples: usize,
}

impl PlayerConfig {
    pub fn new(sample_rate: u32) -> Self {
        Self {
            sample_rate,
            // 3 ms: long enough to avoid a click, short enough that a barge-in silences
            // the voice within a few milliseconds.
            fade_samples: (sample_rate * 3 / 1000) as usize,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum PlayerInput {
    /// A speakable segment arrived from the segmenter.
    Segment {
        speaker: String,
        question_id: u64,
        index: u32,
        last: bool,
        text: String,
    },
    /// A segment that arrives already spoken (a node-hub TTS node's audio, resampled to
    /// the player's rate): queued like `Segment`, never synthesized.
    Spoken {
        speaker: String,
        question_id: u64,
        index: u32,
        last: bool,
        text: String,
        samples: Vec<f32>,
    },
    /// The backend synthesized a segment (at the player's sample rate).
    Audio {
        question_id: u64,
        index: u32,
        samples: Vec<f32>,
    },
    /// The backend could not synthesize a segment; it is skipped.
    SynthesisFailed {
        question_id: u64,
        index: u32,
        error: String,
    },
    Interrupt {
        question_id: u64,
    },
    /// The human started speaking: hold playback (muted, position kept).
    Pause,
    /// It was only a backchannel: continue where playback was held.
    Resume,
    /// A clip to prepare and hold (clip mode).
    Clip(ClipSpec),
    /// The backend synthesized sentence `index` of a clip (at the player's sample rate).
    ClipAudio {
        clip_id: String,
        index: u32,
        samples: Vec<f32>,
    },
    /// The backend could not synthesize sentence `index` of a clip; it is skipped.
    ClipSynthesisFailed {
        clip_id: String,
        index: u32,
        error: String,
    },
    /// A conductor's command for a clip.
    Command(ClipCommand),
}

/// One utterance as heard: a line of `timeline.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimelineRecord {
    pub speaker: String,
    pub question_id: u64,
    pub start_ms: u64,
    pub end_ms: u64,
    pub interrupted: bool,
    pub chars_played: usize,
    pub text_played: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PlayerEvent {
    /// Ask the backend for this segment's audio.
    Synthesize {
        speaker: String,
        question_id: u64,
        index: u32,
        text: String,
    },
    /// A segment could not be synthesized (for the log).
    Skipped {
        question_id: u64,
        index: u32,
        error: String,
    },
    PlaybackStarted {
        speaker: String,
        question_id: u64,
        at_ms: u64,
    },
    PlaybackDone(TimelineRecord),
    /// Ask the backend for the audio of sentence `index` of a clip.
    SynthesizeClip {
        clip_id: String,
        speaker: String,
        index: u32,
        text: String,
    },
    ClipReady(ClipReady),
    ClipStarted(ClipStarted),
    Beat(BeatReached),
    ClipFinished(ClipFinished),
    /// A clip or command could not be honoured (for the log).
    ClipRefused {
        clip_id: String,
        reason: String,
    },
}

#[derive(Debug, Clone)]
struct SegmentSlot {
    text: String,
    audio: Option<Vec<f32>>,
    failed: bool,
}

#[derive(Debug, Clone)]
struct Utterance {
    speaker: String,
    segments: BTreeMap<u32, SegmentSlot>,
    last_index: Option<u32>,
    playing_index: u32,
    position: usize,
    started_at: Option<u64>,
    chars_played: usize,
    text_played: String,
}

impl Utterance {
    fn finished(&self) -> bool {
        self.last_index
            .is_some_and(|last| self.playing_index > last)
    }

    /// Counts what was heard of the current segment up to `position`.
    fn credit_partial(&mut self) {
        let Some(slot) = self.segments.get(&self.playing_index) else {
            return;
        };
        let Some(audio) = &slot.audio else { return };
        if audio.is_empty() || self.position == 0 {
            return;
        }
        let fraction = self.position as f64 / audio.len() as f64;
        let total = slot.text.chars().count();
        let heard = ((total as f64) * fraction).round() as usize;
        // Cut at a word boundary so the context gets whole words.
        let prefix: String = slot.text.chars().take(heard).collect();
        let cut = match prefix.rfind(char::is_whitespace) {
            Some(i) if heard < total => &prefix[..i],
            _ => prefix.as_str(),
        };
        self.push_played(cut.trim_end());
    }

    fn push_played(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if !self.text_played.is_empty() {
            self.text_played.push(' ');
        }
        self.text_played.push_str(text);
        self.chars_played += text.chars().count();
    }
}

/// Output of one [`Player::render`] call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rendered {
    pub events: Vec<PlayerEvent>,
    /// Who was audible in this block (for the `audio` output), if anyone.
    pub speaker: Option<(String, u64)>,
    /// Clip mode: how the voices were mixed in this block.
    pub audit: ClipAudit,
}

#[derive(Debug, Clone)]
pub struct Player {
    config: PlayerConfig,
    stale: StaleFilter,
    queue: BTreeMap<u64, Utterance>,
    clock: u64,
    /// Question ids that finished playing: their late segments are ignored.
    done_through: u64,
    /// The newest utterance that began to sound.
    started_through: u64,
    /// Samples of a cut-off utterance still fading out.
    fade: Vec<f32>,
    /// Held since this sample time (muted by a human starting to speak).
    paused_since: Option<u64>,
    clips: ClipDeck,
    /// Restarted mid-conversation and no utterance seen from its start yet: the first
    /// segments of an utterance then went to the player that died, and it plays from the
    /// first segment it gets instead of waiting for them forever.
    joined_mid_stream: bool,
    /// Utterances refused because the queue was full (at most [`MAX_QUEUED_UTTERANCES`]
    /// remembered): their later segments are dropped too, never half-played.
    refused: std::collections::BTreeSet<u64>,
}

impl Player {
    pub fn new(config: PlayerConfig) -> Self {
        Self {
            config,
            stale: StaleFilter::new(),
            queue: BTreeMap::new(),
            clock: 0,
            done_through: 0,
            started_through: 0,
            fade: Vec::new(),
            paused_since: None,
            clips: ClipDeck::default(),
            joined_mid_stream: false,
            refused: std::collections::BTreeSet::new(),
        }
    }

    /// Starts the clock at `samples` (a restarted player continuing the recording), so
    /// timeline times stay positions in `conversation.wav`; the utterance being spoken
    /// when the previous player died plays on from the first sentence this one gets.
    pub fn resume_at(&mut self, samples: u64) {
        self.clock = samples;
        self.joined_mid_stream = true;
    }

    /// The clip mode's state (held clips, voices).
    pub fn clips(&self) -> &ClipDeck {
        &self.clips
    }

    /// Samples rendered so far (the position in `conversation.wav`).
    pub fn clock(&self) -> u64 {
        self.clock
    }

    /// Milliseconds of audio rendered so far (the position in `conversation.wav`).
    pub fn now_ms(&self) -> u64 {
        self.clock * 1000 / u64::from(self.config.sample_rate)
    }

    /// Whether anything is playing or waiting to play.
    pub fn is_busy(&self) -> bool {
        !self.queue.is_empty() || !self.fade.is_empty() || self.clips.is_active()
    }

    /// Whether playback is held.
    pub fn is_paused(&self) -> bool {
        self.paused_since.is_some()
    }

    /// A cut-off voice is fading out: the node renders the next block at once instead of
    /// waiting for the block clock, so a barge-in is silent within the fade.
    pub fn is_fading(&self) -> bool {
        !self.fade.is_empty()
    }

    /// How long the fade of a cut-off voice lasts.
    pub fn fade_duration(&self) -> std::time::Duration {
        std::time::Duration::from_micros(
            self.config.fade_samples as u64 * 1_000_000 / u64::from(self.config.sample_rate),
        )
    }

    pub fn handle(&mut self, input: PlayerInput) -> Vec<PlayerEvent> {
        let mut events = Vec::new();
        let rate = self.config.sample_rate;
        match input {
            PlayerInput::Clip(spec) => self.clips.prepare(spec, &mut events),
            PlayerInput::ClipAudio {
                clip_id,
                index,
                samples,
            } => self
                .clips
                .audio(&clip_id, index, Some(samples), rate, &mut events),
            PlayerInput::ClipSynthesisFailed {
                clip_id,
                index,
                error,
            } => {
                events.push(PlayerEvent::ClipRefused {
                    clip_id: clip_id.clone(),
                    reason: format!("sentence {index} could not be synthesized: {error}"),
                });
                self.clips.audio(&clip_id, index, None, rate, &mut events);
            }
            PlayerInput::Command(command) => {
                self.clips.command(command, self.clock, rate, &mut events)
            }
            PlayerInput::Pause => {
                if self.paused_since.is_none() {
                    self.paused_since = Some(self.clock);
                    self.start_fade_of_current();
                }
            }
            PlayerInput::Resume => self.paused_since = None,
            PlayerInput::Segment {
                speaker,
                question_id,
                index,
                last,
                text,
            } => self.accept_segment(speaker, question_id, index, last, text, None, &mut events),
            PlayerInput::Spoken {
                speaker,
                question_id,
                index,
                last,
                text,
                samples,
            } => self.accept_segment(
                speaker,
                question_id,
                index,
                last,
                text,
                Some(samples),
                &mut events,
            ),
            PlayerInput::Audio {
                question_id,
                index,
                samples,
            } => {
                if let Some(slot) = self
                    .queue
                    .get_mut(&question_id)
                    .and_then(|u| u.segments.get_mut(&index))
                    && slot.audio.is_none()
                {
                    slot.audio = Some(samples);
                }
            }
            PlayerInput::SynthesisFailed {
                question_id,
                index,
                error,
            } => {
                if let Some(slot) = self
                    .queue
                    .get_mut(&question_id)
                    .and_then(|u| u.segments.get_mut(&index))
                {
                    slot.failed = true;
                    events.push(PlayerEvent::Skipped {
                        question_id,
                        index,
                        error,
                    });
                }
            }
            PlayerInput::Interrupt { question_id } => {
                // The interrupt decides what happens to held audio: the rest plays on. A
                // held voice already faded out when the hold began: no second fade.
                let held = self.paused_since.take().is_some();
                self.stale.interrupt(question_id);
                let stale: Vec<u64> = self.queue.range(..question_id).map(|(q, _)| *q).collect();
                for q in stale {
                    let mut utterance = self.queue.remove(&q).expect("listed above");
                    if let Some(start) = utterance.started_at {
                        if !held {
                            self.start_fade(&utterance);
                        }
                        utterance.credit_partial();
                        events.push(PlayerEvent::PlaybackDone(TimelineRecord {
                            speaker: utterance.speaker,
                            question_id: q,
                            start_ms: self.ms(start),
                            end_ms: self.now_ms(),
                            interrupted: true,
                            chars_played: utterance.chars_played,
                            text_played: utterance.text_played,
                        }));
                    }
                }
            }
        }
        events
    }
    /// A segment to play: queued in its utterance and sent for synthesis, unless it came
    /// already spoken (`audio`, from a node-hub TTS node) or holds nothing to say.
    #[allow(clippy::too_many_arguments)]
    fn accept_segment(
        &mut self,
        speaker: String,
        question_id: u64,
        index: u32,
        last: bool,
        text: String,
        audio: Option<Vec<f32>>,
        events: &mut Vec<PlayerEvent>,
    ) {
        // Stale, already played, or older than what is sounding now: utterances never go
        // back in question-id order.
        let behind = question_id <= self.done_through
            || (question_id < self.started_through && !self.queue.contains_key(&question_id));
        if self.stale.is_stale(question_id) || behind || self.refused.contains(&question_id) {
            return;
        }
        if !self.queue.contains_key(&question_id) && self.queue.len() >= MAX_QUEUED_UTTERANCES {
            self.refuse(speaker, question_id, index, events);
            return;
        }
        if let Some(utterance) = self.queue.get_mut(&question_id)
            && utterance.segments.len() >= MAX_SEGMENTS_PER_UTTERANCE
            && !utterance.segments.contains_key(&index)
        {
            // Ends with what it holds; the segments past the cap are not voiced.
            if utterance.last_index.is_none() {
                utterance.last_index = utterance.segments.keys().next_back().copied();
            }
            events.push(PlayerEvent::Skipped {
                question_id,
                index,
                error: format!(
                    "refused: the utterance already holds {MAX_SEGMENTS_PER_UTTERANCE} segments (MAX_SEGMENTS_PER_UTTERANCE); it ends there"
                ),
            });
            return;
        }
        // Segments of an utterance arrive in order, so one first seen past its start lost
        // its beginning to a player that died; only a restarted player plays on from it.
        let joined_late =
            !self.queue.contains_key(&question_id) && index > 0 && self.joined_mid_stream;
        if index == 0 {
            self.joined_mid_stream = false;
        }
        let utterance = self.queue.entry(question_id).or_insert_with(|| Utterance {
            speaker: speaker.clone(),
            segments: BTreeMap::new(),
            last_index: None,
            playing_index: if joined_late { index } else { 0 },
            position: 0,
            started_at: None,
            chars_played: 0,
            text_played: String::new(),
        });
        if utterance.segments.contains_key(&index) {
            return; // a duplicate: the first copy stands
        }
        if last {
            utterance.last_index = Some(index);
        }
        let needs_voice = audio.is_none() && !text.trim().is_empty();
        utterance.segments.insert(
            index,
            SegmentSlot {
                text: text.clone(),
                audio: if needs_voice {
                    None
                } else {
                    Some(audio.unwrap_or_default())
                },
                failed: false,
            },
        );
        if needs_voice {
            events.push(PlayerEvent::Synthesize {
                speaker,
                question_id,
                index,
                text,
            });
        }
    }

    /// Refuses a new utterance while the queue is full: reported (for the log) and done
    /// with nothing heard (for whoever waits for its playback), and remembered so that its
    /// later segments are dropped as well.
    fn refuse(
        &mut self,
        speaker: String,
        question_id: u64,
        index: u32,
        events: &mut Vec<PlayerEvent>,
    ) {
        self.refused.insert(question_id);
        while self.refused.len() > MAX_QUEUED_UTTERANCES {
            self.refused.pop_first();
        }
        events.push(PlayerEvent::Skipped {
            question_id,
            index,
            error: format!(
                "refused: the player already holds {MAX_QUEUED_UTTERANCES} utterances (MAX_QUEUED_UTTERANCES)"
            ),
        });
        let now = self.now_ms();
        events.push(PlayerEvent::PlaybackDone(TimelineRecord {
            speaker,
            question_id,
            start_ms: now,
            end_ms: now,
            interrupted: false,
            chars_played: 0,
            text_played: String::new(),
        }));
    }

    /// Fills `block` with the next samples (speech or silence) and advances the clock.
    pub fn render(&mut self, block: &mut [f32]) -> Rendered {
        block.fill(0.0);
        let mut rendered = Rendered::default();
        let mut filled = 0;
        if !self.fade.is_empty() {
            let n = self.fade.len().min(block.len());
            block[..n].copy_from_slice(&self.fade[..n]);
            self.fade.drain(..n);
            // The cut-off voice fades; nobody else starts in the same block.
            self.clock += block.len() as u64;
            return rendered;
        }
        let rate = self.config.sample_rate;
        if self.clips.is_active() {
            rendered.speaker = self.clips.render(
                block,
                self.clock,
                rate,
                &mut rendered.events,
                &mut rendered.audit,
            );
            self.clock += block.len() as u64;
            return rendered;
        }
        if let Some(since) = self.paused_since {
            // Held: silence, unless nobody resolved the pause in time.
            if self.clock - since < u64::from(self.config.sample_rate) * PAUSE_LIMIT_SECS {
                self.clock += block.len() as u64;
                return rendered;
            }
            self.paused_since = None;
        }
        while filled < block.len() {
            let Some(mut entry) = self.queue.first_entry() else {
                break;
            };
            let question_id = *entry.key();
            let at = self.clock + filled as u64;
            let utterance = entry.get_mut();
            if utterance.finished() {
                let utterance = entry.remove();
                self.done_through = self.done_through.max(question_id);
                // Reported even when nothing sounded (a failed generation): whoever waits
                // for playback must learn that this utterance is over.
                rendered
                    .events
                    .push(PlayerEvent::PlaybackDone(TimelineRecord {
                        speaker: utterance.speaker,
                        question_id,
                        start_ms: samples_to_ms(utterance.started_at.unwrap_or(at), rate),
                        end_ms: samples_to_ms(at, rate),
                        interrupted: false,
                        chars_played: utterance.chars_played,
                        text_played: utterance.text_played,
                    }));
                continue;
            }
            let index = utterance.playing_index;
            let Some(slot) = utterance.segments.get(&index) else {
                break; // the next segment has not arrived: a gap
            };
            if slot.failed {
                utterance.playing_index += 1;
                utterance.position = 0;
                continue;
            }
            let Some(audio) = &slot.audio else {
                break; // still being synthesized: a gap
            };
            if audio.is_empty() {
                utterance.playing_index += 1;
                continue;
            }
            let n = (audio.len() - utterance.position).min(block.len() - filled);
            block[filled..filled + n]
                .copy_from_slice(&audio[utterance.position..utterance.position + n]);
            let segment_done = utterance.position + n == audio.len();
            let text = segment_done.then(|| slot.text.clone());
            if utterance.started_at.is_none() {
                utterance.started_at = Some(at);
                self.started_through = self.started_through.max(question_id);
                rendered.events.push(PlayerEvent::PlaybackStarted {
                    speaker: utterance.speaker.clone(),
                    question_id,
                    at_ms: samples_to_ms(at, rate),
                });
            }
            filled += n;
            utterance.position += n;
            rendered.speaker = Some((utterance.speaker.clone(), question_id));
            if let Some(text) = text {
                utterance.push_played(text.trim());
                utterance.playing_index += 1;
                utterance.position = 0;
            }
        }
        self.clock += block.len() as u64;
        rendered
    }

    /// Fades out whatever is sounding now, keeping its position for a resume.
    fn start_fade_of_current(&mut self) {
        if let Some((_, utterance)) = self.queue.first_key_value()
            && utterance.started_at.is_some()
        {
            // No clone of the utterance's audio: this runs on every barge-in.
            if let Some(tail) = fade_tail(utterance, self.config.fade_samples) {
                self.fade = tail;
            }
        }
    }

    fn start_fade(&mut self, utterance: &Utterance) {
        if let Some(tail) = fade_tail(utterance, self.config.fade_samples) {
            self.fade = tail;
        }
    }

    fn ms(&self, samples: u64) -> u64 {
        samples_to_ms(samples, self.config.sample_rate)
    }
}

/// The next `fade_samples` of what `utterance` is playing, faded out.
fn fade_tail(utterance: &Utterance, fade_samples: usize) -> Option<Vec<f32>> {
    let audio = utterance
        .segments
        .get(&utterance.playing_index)
        .and_then(|s| s.audio.as_ref())?;
    let end = (utterance.position + fade_samples).min(audio.len());
    let mut tail = audio[utterance.position.min(end)..end].to_vec();
    audio_utils::fade_out(&mut tail);
    Some(tail)
}

fn samples_to_ms(samples: u64, rate: u32) -> u64 {
    samples * 1000 / u64::from(rate)
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_limits;

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
mod heard;
pub mod human;
pub mod prepared;
pub mod records;
mod render;
mod segments;
pub mod synthesis;
mod utterance;
pub mod voice_text;
pub mod voices;

use std::collections::BTreeMap;

use serde::Serialize;
use voice_protocol::StaleFilter;
use voice_protocol::clips::{
    BeatReached, ClipCommand, ClipFinished, ClipReady, ClipSpec, ClipStarted,
};

pub use clips::{ClipAudit, ClipDeck};
use utterance::{SegmentSlot, Utterance};

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
    /// The human is speaking and `speaker` will answer.
    AnswerComing {
        speaker: String,
    },
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
pub enum PlayerOutput {
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
    Played(TimelineRecord),
    /// The voice was held (the human began to speak) while `question_id` sounded:
    /// `heard` is what was heard of it, as an interrupt would report it.
    Held {
        speaker: String,
        question_id: u64,
        heard: String,
    },
    /// Voice `text` in `speaker`'s voice ahead, before the turns waiting: an answer's
    /// opener it may say in a moment (kept by [`prepared::Prepared`]).
    VoiceAhead {
        speaker: String,
        text: String,
    },
    /// The hold ended without words (a backchannel, a noise): no answer is coming, and
    /// its openers not voiced yet are no longer ahead of the turn that goes on.
    AnswerNotComing,
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

/// Output of one [`Player::render`] call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rendered {
    pub events: Vec<PlayerOutput>,
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
    held_since: Option<u64>,
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
            held_since: None,
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
    pub fn is_held(&self) -> bool {
        self.held_since.is_some()
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

    pub fn handle(&mut self, input: PlayerInput) -> Vec<PlayerOutput> {
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
                events.push(PlayerOutput::ClipRefused {
                    clip_id: clip_id.clone(),
                    reason: format!("sentence {index} could not be synthesized: {error}"),
                });
                self.clips.audio(&clip_id, index, None, rate, &mut events);
            }
            PlayerInput::Command(command) => {
                self.clips.command(command, self.clock, rate, &mut events)
            }
            PlayerInput::Pause => {
                if self.held_since.is_none() && self.clips.is_active() {
                    // A conductor's clips are held as a queued voice is: faded, kept.
                    self.held_since = Some(self.clock);
                    self.start_fade_of_clips(&mut events);
                } else if self.held_since.is_none() {
                    self.held_since = Some(self.clock);
                    self.start_fade_of_current();
                    // What an interrupt now would leave heard (the held voice faded out
                    // here, and a reset drops it without a second fade).
                    if let Some((&question_id, utterance)) = self.queue.first_key_value()
                        && utterance.started_at.is_some()
                    {
                        events.push(PlayerOutput::Held {
                            speaker: utterance.speaker.clone(),
                            question_id,
                            heard: utterance.heard_so_far(),
                        });
                    }
                }
            }
            PlayerInput::Resume => {
                self.held_since = None;
                // Found in a study session: a cough's hold put the tutor's four openers
                // ahead of the rest of its sentence, 5 s of silence once it went on.
                events.push(PlayerOutput::AnswerNotComing);
            }
            // The answer's opener is the first thing it says, and the turns queued now
            // will mostly go stale with the human's words: the answerer's first choices
            // are voiced first (the voice keeps those it has, and skips them).
            PlayerInput::AnswerComing { speaker } => {
                events.extend(voice_protocol::openers::FIRST_CHOICES.iter().map(|text| {
                    PlayerOutput::VoiceAhead {
                        speaker: speaker.clone(),
                        text: (*text).to_owned(),
                    }
                }));
            }
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
                    events.push(PlayerOutput::Skipped {
                        question_id,
                        index,
                        error,
                    });
                }
            }
            PlayerInput::Interrupt { question_id } => {
                // The interrupt decides what happens to held audio: the rest plays on. A
                // held voice already faded out when the hold began: no second fade.
                let held = self.held_since.take().is_some();
                self.stale.interrupt(question_id);
                let stale: Vec<u64> = self.queue.range(..question_id).map(|(q, _)| *q).collect();
                for q in stale {
                    let mut utterance = self.queue.remove(&q).expect("listed above");
                    if let Some(start) = utterance.started_at {
                        if !held {
                            self.start_fade(&utterance);
                        }
                        utterance.credit_partial();
                        events.push(PlayerOutput::Played(TimelineRecord {
                            speaker: utterance.speaker,
                            question_id: q,
                            start_ms: self.ms(start),
                            end_ms: self.now_ms(),
                            interrupted: true,
                            chars_played: utterance.heard.chars(),
                            text_played: utterance.heard.into_text(),
                        }));
                    }
                }
            }
        }
        events
    }

    fn ms(&self, samples: u64) -> u64 {
        samples_to_ms(samples, self.config.sample_rate)
    }
}

fn samples_to_ms(samples: u64, rate: u32) -> u64 {
    samples * 1000 / u64::from(rate)
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_limits;

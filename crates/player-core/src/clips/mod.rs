//! Addressed clips, driven by a conductor's commands (see [`voice_protocol::clips`]).
//!
//! A clip is prepared (its sentences synthesized and held) and plays only when commanded:
//! as the main voice (`play`, or `fade_in` after a delay), or as an overlay over a ducked
//! main voice (`play_overlay`). Rules, checked sample by sample:
//!
//! - one main voice at a time: a main clip commanded while another sounds waits for it
//!   (and for any overlay) to end;
//! - an overlay sounds only over a main voice that has finished ramping down to its duck
//!   gain (or alone); the duck starts only when the overlay's audio is ready, so a
//!   cancelled overlay never ducks; the end of the overlay releases the duck;
//! - a clip is ducked at most once at a time: a second duck is refused;
//! - a fade-out ramps the gain to zero and ends the clip there (a hard interrupt).
//!
//! Beats are measured, not planned: beat `k` is reported at the sample where sentence `k`
//! of the main clip ends (sentences, and the phrases of a long one, are synthesized
//! separately, so the boundary is exact).

mod mixing;
mod voice;

use std::collections::{BTreeMap, VecDeque};

use voice_protocol::clips::{
    BeatReached, ClipCommand, ClipFinished, ClipReady, ClipSpec, ClipStarted, DEFAULT_DUCK_DB,
    DEFAULT_DUCK_RAMP_MS,
};

use crate::PlayerOutput;

use mixing::*;
use voice::*;

/// Held clips beyond this are dropped, oldest first (a conductor that forgets to discard).
pub const MAX_HELD_CLIPS: usize = 64;

/// Audit of one rendered block, for tests and logs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClipAudit {
    /// Highest main-voice gain at a sample where an overlay was audible too.
    pub max_main_gain_under_overlay: Option<f32>,
}

/// The clip mode of the player.
#[derive(Debug, Clone, Default)]
pub struct ClipDeck {
    held: BTreeMap<String, Clip>,
    main: Option<Voice>,
    waiting: VecDeque<Voice>,
    overlay: Option<Voice>,
    seq: u64,
}

fn db_to_gain(db: f64) -> f32 {
    10f64.powf(db / 20.0) as f32
}

impl ClipDeck {
    /// Something sounds, waits to sound, or fades.
    pub fn is_active(&self) -> bool {
        self.main.is_some() || !self.waiting.is_empty() || self.overlay.is_some()
    }

    pub fn held_count(&self) -> usize {
        self.held.len()
    }

    pub(crate) fn prepare(&mut self, spec: ClipSpec, events: &mut Vec<PlayerOutput>) {
        if spec.clip_id.trim().is_empty() || self.knows(&spec.clip_id) {
            events.push(PlayerOutput::ClipRefused {
                clip_id: spec.clip_id,
                reason: "empty or duplicate clip id".into(),
            });
            return;
        }
        // A clip played from its first sentence says a long sentence in phrases, as the
        // segmenter cuts a stream: its first words wait for a phrase's synthesis, not a
        // whole sentence's (seconds of a long one).
        let max_chars = if spec.ready_at_first_sentence {
            text_segmenter::SegmenterConfig::default().max_chars
        } else {
            usize::MAX
        };
        let (mut phrases, mut ends_sentence) = (Vec::new(), Vec::new());
        for sentence in &spec.sentences {
            let said = text_segmenter::phrases(sentence, max_chars);
            ends_sentence.extend((0..said.len()).map(|i| i + 1 == said.len()));
            phrases.extend(said);
        }
        if phrases.is_empty() {
            events.push(PlayerOutput::ClipReady(ClipReady {
                clip_id: spec.clip_id,
                speaker: spec.speaker,
                sentence_ms: Vec::new(),
                duration_ms: 0,
                pending: 0,
                error: Some("no text to speak".into()),
            }));
            return;
        }
        while self.held.len() >= MAX_HELD_CLIPS {
            let oldest = self
                .held
                .iter()
                .min_by_key(|(_, c)| c.seq)
                .map(|(id, _)| id.clone())
                .expect("not empty");
            self.held.remove(&oldest);
            events.push(PlayerOutput::ClipRefused {
                clip_id: oldest,
                reason: "too many held clips: the oldest was dropped".into(),
            });
        }
        for (index, text) in phrases.iter().enumerate() {
            events.push(PlayerOutput::SynthesizeClip {
                clip_id: spec.clip_id.clone(),
                speaker: spec.speaker.clone(),
                index: index as u32,
                text: text.clone(),
            });
        }
        self.seq += 1;
        let n = phrases.len();
        self.held.insert(
            spec.clip_id,
            Clip {
                speaker: spec.speaker,
                question_id: spec.question_id,
                phrases,
                ends_sentence,
                audio: vec![None; n],
                failed: vec![false; n],
                ready_at_first_sentence: spec.ready_at_first_sentence,
                ready_reported: false,
                seq: self.seq,
            },
        );
    }

    fn knows(&self, clip_id: &str) -> bool {
        self.held.contains_key(clip_id) || self.voice(clip_id).is_some()
    }

    fn voice(&self, clip_id: &str) -> Option<&Voice> {
        self.main
            .iter()
            .chain(self.overlay.iter())
            .chain(self.waiting.iter())
            .find(|v| v.clip_id == clip_id)
    }

    fn clip_mut(&mut self, clip_id: &str) -> Option<&mut Clip> {
        if let Some(c) = self.held.get_mut(clip_id) {
            return Some(c);
        }
        self.main
            .iter_mut()
            .chain(self.overlay.iter_mut())
            .chain(self.waiting.iter_mut())
            .find(|v| v.clip_id == clip_id)
            .map(|v| &mut v.clip)
    }

    /// Audio (or a failure) for phrase `index` of a clip; reports readiness once complete.
    pub(crate) fn audio(
        &mut self,
        clip_id: &str,
        index: u32,
        samples: Option<Vec<f32>>,
        rate: u32,
        events: &mut Vec<PlayerOutput>,
    ) {
        let Some(clip) = self.clip_mut(clip_id) else {
            return; // discarded meanwhile
        };
        let i = index as usize;
        if i >= clip.phrases.len() || clip.audio[i].is_some() || clip.failed[i] {
            return;
        }
        match samples {
            Some(s) => clip.audio[i] = Some(s),
            None => clip.failed[i] = true,
        }
        if clip.ready_reported {
            return;
        }
        let done = clip.done_prefix();
        let complete = done == clip.phrases.len();
        // Early, the clip is ready once a phrase of its done beginning has sound.
        let sounds = clip.audio[..done]
            .iter()
            .any(|a| a.as_ref().is_some_and(|a| !a.is_empty()));
        if !(complete || clip.ready_at_first_sentence && sounds) {
            return;
        }
        clip.ready_reported = true;
        // The sentences whose every phrase is synthesized, by length; the others pending.
        let mut sentence_ms: Vec<u64> = Vec::new();
        let mut sentence = 0;
        for (audio, ends) in clip.audio[..done].iter().zip(&clip.ends_sentence) {
            sentence += audio
                .as_ref()
                .map_or(0, |a| a.len() as u64 * 1000 / u64::from(rate));
            if *ends {
                sentence_ms.push(std::mem::take(&mut sentence));
            }
        }
        let pending = clip.ends_sentence.iter().filter(|e| **e).count() - sentence_ms.len();
        events.push(PlayerOutput::ClipReady(ClipReady {
            clip_id: clip_id.to_owned(),
            speaker: clip.speaker.clone(),
            duration_ms: sentence_ms.iter().sum(),
            sentence_ms,
            pending,
            error: (!sounds).then(|| "no sentence could be synthesized".to_owned()),
        }));
    }

    pub(crate) fn command(
        &mut self,
        command: ClipCommand,
        clock: u64,
        rate: u32,
        events: &mut Vec<PlayerOutput>,
    ) {
        let samples = |ms: u64| ms * u64::from(rate) / 1000;
        let mut refuse = |clip_id: &str, reason: &str| {
            events.push(PlayerOutput::ClipRefused {
                clip_id: clip_id.to_owned(),
                reason: reason.to_owned(),
            })
        };
        match command {
            ClipCommand::Play { clip_id } => match self.held.remove(&clip_id) {
                Some(clip) => self
                    .waiting
                    .push_back(Voice::new(clip_id, clip, false, clock)),
                None => refuse(&clip_id, "play: no such prepared clip"),
            },
            ClipCommand::FadeIn {
                clip_id,
                delay_ms,
                fade_ms,
            } => match self.held.remove(&clip_id) {
                Some(clip) => {
                    let mut v = Voice::new(clip_id, clip, false, clock + samples(delay_ms));
                    v.gain = 0.0;
                    v.ramp_to(1.0, samples(fade_ms));
                    // A kicker takes the floor before anything merely queued.
                    self.waiting.push_front(v);
                }
                None => refuse(&clip_id, "fade_in: no such prepared clip"),
            },
            ClipCommand::PlayOverlay { clip_id } => {
                if self.overlay.is_some() {
                    refuse(&clip_id, "play_overlay: an overlay is already playing");
                    return;
                }
                match self.held.remove(&clip_id) {
                    Some(clip) => self.overlay = Some(Voice::new(clip_id, clip, true, clock)),
                    None => refuse(&clip_id, "play_overlay: no such prepared clip"),
                }
            }
            ClipCommand::Duck {
                clip_id,
                gain_db,
                ramp_ms,
            } => match self.main.as_mut() {
                Some(m) if m.clip_id == clip_id && !m.fading_out => {
                    if m.duck.armed.is_some() || m.is_ducked() {
                        refuse(&clip_id, "duck: already ducked");
                    } else {
                        let db = if gain_db.is_finite() {
                            gain_db.clamp(-60.0, 0.0)
                        } else {
                            DEFAULT_DUCK_DB
                        };
                        m.duck.armed = Some((db_to_gain(db), samples(ramp_ms)));
                    }
                }
                _ => refuse(&clip_id, "duck: not the main clip"),
            },
            ClipCommand::Unduck { clip_id, ramp_ms } => match self.main.as_mut() {
                Some(m) if m.clip_id == clip_id => {
                    let overlay_sounding = self
                        .overlay
                        .as_ref()
                        .is_some_and(|o| o.started_at.is_some());
                    if overlay_sounding {
                        // Released when the overlay ends: never two full voices.
                        m.duck.unduck_ramp = samples(ramp_ms);
                    } else {
                        m.duck.armed = None;
                        release_duck(m, clock, samples(ramp_ms));
                    }
                }
                _ => {} // the clip ended meanwhile: nothing to release
            },
            ClipCommand::FadeOut { clip_id, fade_ms } => {
                let fade = samples(fade_ms);
                if let Some(v) = self
                    .main
                    .as_mut()
                    .into_iter()
                    .chain(self.overlay.as_mut())
                    .find(|v| v.clip_id == clip_id)
                {
                    v.fading_out = true;
                    v.ramp_to(0.0, fade);
                } else if let Some(pos) = self.waiting.iter().position(|v| v.clip_id == clip_id) {
                    self.waiting.remove(pos);
                } else {
                    refuse(&clip_id, "fade_out: not playing");
                }
            }
            ClipCommand::Discard { clip_id } => {
                if self.held.remove(&clip_id).is_some() {
                    return;
                }
                if let Some(pos) = self.waiting.iter().position(|v| v.clip_id == clip_id) {
                    self.waiting.remove(pos);
                    return;
                }
                let rate_ms = |s: u64| s * 1000 / u64::from(rate);
                if self.overlay.as_ref().is_some_and(|o| o.clip_id == clip_id) {
                    let o = self.overlay.take().expect("checked");
                    if let Some(m) = self.main.as_mut() {
                        let ramp = m.duck.armed.map_or(m.duck.unduck_ramp, |(_, r)| r);
                        m.duck.armed = None;
                        release_duck(m, clock, ramp);
                    }
                    if o.started_at.is_some() {
                        events.push(finish(o, clock, true, rate_ms));
                    }
                    return;
                }
                if self.main.as_ref().is_some_and(|m| m.clip_id == clip_id) {
                    let mut m = self.main.take().expect("checked");
                    m.credit_partial();
                    close_duck(&mut m, clock);
                    if m.started_at.is_some() {
                        events.push(finish(m, clock, true, rate_ms));
                    }
                }
            }
        }
    }
}

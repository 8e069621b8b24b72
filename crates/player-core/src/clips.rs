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
//! of the main clip ends (sentences are synthesized separately, so the boundary is exact).

use std::collections::{BTreeMap, VecDeque};

use voice_protocol::clips::{
    BeatReached, ClipCommand, ClipFinished, ClipReady, ClipSpec, ClipStarted, DEFAULT_DUCK_DB,
    DEFAULT_DUCK_RAMP_MS,
};

use crate::PlayerEvent;

/// Held clips beyond this are dropped, oldest first (a conductor that forgets to discard).
pub const MAX_HELD_CLIPS: usize = 64;

#[derive(Debug, Clone)]
struct Clip {
    speaker: String,
    question_id: u64,
    sentences: Vec<String>,
    audio: Vec<Option<Vec<f32>>>,
    failed: Vec<bool>,
    ready_reported: bool,
    /// Arrival order, for dropping the oldest held clip.
    seq: u64,
}

impl Clip {
    fn complete(&self) -> bool {
        (0..self.sentences.len()).all(|i| self.audio[i].is_some() || self.failed[i])
    }
}

#[derive(Debug, Clone)]
struct Voice {
    clip_id: String,
    clip: Clip,
    overlay: bool,
    sentence: usize,
    position: usize,
    /// Not before this sample.
    start_at: u64,
    started_at: Option<u64>,
    gain: f32,
    target: f32,
    /// Gain change per sample (positive).
    step: f32,
    fading_out: bool,
    /// Armed duck: (gain, ramp in samples).
    duck_armed: Option<(f32, u64)>,
    ducked_since: Option<u64>,
    ducked: Vec<[u64; 2]>,
    /// The ramp back up after a duck, in samples.
    unduck_ramp: u64,
    chars_played: usize,
    text_played: String,
}

impl Voice {
    fn new(clip_id: String, clip: Clip, overlay: bool, start_at: u64) -> Self {
        Self {
            clip_id,
            clip,
            overlay,
            sentence: 0,
            position: 0,
            start_at,
            started_at: None,
            gain: 1.0,
            target: 1.0,
            step: 1.0,
            fading_out: false,
            duck_armed: None,
            ducked_since: None,
            ducked: Vec::new(),
            unduck_ramp: 0,
            chars_played: 0,
            text_played: String::new(),
        }
    }

    fn ramp_to(&mut self, target: f32, samples: u64) {
        self.target = target;
        let distance = (self.gain - target).abs();
        self.step = if samples == 0 {
            f32::INFINITY
        } else {
            (distance / samples as f32).max(f32::EPSILON)
        };
    }

    fn advance_gain(&mut self) {
        if self.gain < self.target {
            self.gain = (self.gain + self.step).min(self.target);
        } else if self.gain > self.target {
            self.gain = (self.gain - self.step).max(self.target);
        }
    }

    fn is_ducked(&self) -> bool {
        self.ducked_since.is_some()
    }

    /// Ducked and done ramping down: an overlay may sound.
    fn duck_settled(&self) -> bool {
        self.is_ducked() && self.gain <= self.target
    }

    /// Audio of the current sentence, skipping failed ones; `None`: a gap (not ready).
    /// `Err(())`: no sentence left.
    fn current(&mut self) -> Result<Option<&Vec<f32>>, ()> {
        while self.sentence < self.clip.sentences.len()
            && self.clip.failed[self.sentence]
            && self.clip.audio[self.sentence].is_none()
        {
            self.sentence += 1;
            self.position = 0;
        }
        if self.sentence >= self.clip.sentences.len() {
            return Err(());
        }
        Ok(self.clip.audio[self.sentence].as_ref())
    }

    fn ready_to_sound(&mut self) -> bool {
        matches!(self.current(), Ok(Some(_)))
    }

    fn push_played(&mut self, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        if !self.text_played.is_empty() {
            self.text_played.push(' ');
        }
        self.text_played.push_str(text);
        self.chars_played += text.chars().count();
    }

    /// Credits the part of the current sentence heard so far (whole words).
    fn credit_partial(&mut self) {
        let Some(Some(audio)) = self.clip.audio.get(self.sentence) else {
            return;
        };
        if audio.is_empty() || self.position == 0 {
            return;
        }
        let text = self.clip.sentences[self.sentence].clone();
        let total = text.chars().count();
        let heard = ((total as f64) * self.position as f64 / audio.len() as f64).round() as usize;
        let prefix: String = text.chars().take(heard).collect();
        let cut = match prefix.rfind(char::is_whitespace) {
            Some(i) if heard < total => prefix[..i].to_owned(),
            _ => prefix,
        };
        self.push_played(&cut);
    }
}

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

    pub(crate) fn prepare(&mut self, spec: ClipSpec, events: &mut Vec<PlayerEvent>) {
        if spec.clip_id.trim().is_empty() || self.knows(&spec.clip_id) {
            events.push(PlayerEvent::ClipRefused {
                clip_id: spec.clip_id,
                reason: "empty or duplicate clip id".into(),
            });
            return;
        }
        let sentences: Vec<String> = spec
            .sentences
            .into_iter()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect();
        if sentences.is_empty() {
            events.push(PlayerEvent::ClipReady(ClipReady {
                clip_id: spec.clip_id,
                speaker: spec.speaker,
                sentence_ms: Vec::new(),
                duration_ms: 0,
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
            events.push(PlayerEvent::ClipRefused {
                clip_id: oldest,
                reason: "too many held clips: the oldest was dropped".into(),
            });
        }
        for (index, text) in sentences.iter().enumerate() {
            events.push(PlayerEvent::SynthesizeClip {
                clip_id: spec.clip_id.clone(),
                speaker: spec.speaker.clone(),
                index: index as u32,
                text: text.clone(),
            });
        }
        self.seq += 1;
        let n = sentences.len();
        self.held.insert(
            spec.clip_id,
            Clip {
                speaker: spec.speaker,
                question_id: spec.question_id,
                sentences,
                audio: vec![None; n],
                failed: vec![false; n],
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

    /// Audio (or a failure) for sentence `index` of a clip; reports readiness once complete.
    pub(crate) fn audio(
        &mut self,
        clip_id: &str,
        index: u32,
        samples: Option<Vec<f32>>,
        rate: u32,
        events: &mut Vec<PlayerEvent>,
    ) {
        let Some(clip) = self.clip_mut(clip_id) else {
            return; // discarded meanwhile
        };
        let i = index as usize;
        if i >= clip.sentences.len() || clip.audio[i].is_some() || clip.failed[i] {
            return;
        }
        match samples {
            Some(s) => clip.audio[i] = Some(s),
            None => clip.failed[i] = true,
        }
        if clip.complete() && !clip.ready_reported {
            clip.ready_reported = true;
            let sentence_ms: Vec<u64> = clip
                .audio
                .iter()
                .map(|a| {
                    a.as_ref()
                        .map_or(0, |a| a.len() as u64 * 1000 / u64::from(rate))
                })
                .collect();
            let all_failed = clip
                .audio
                .iter()
                .all(|a| a.as_ref().is_none_or(Vec::is_empty));
            events.push(PlayerEvent::ClipReady(ClipReady {
                clip_id: clip_id.to_owned(),
                speaker: clip.speaker.clone(),
                duration_ms: sentence_ms.iter().sum(),
                sentence_ms,
                error: all_failed.then(|| "no sentence could be synthesized".to_owned()),
            }));
        }
    }

    pub(crate) fn command(
        &mut self,
        command: ClipCommand,
        clock: u64,
        rate: u32,
        events: &mut Vec<PlayerEvent>,
    ) {
        let samples = |ms: u64| ms * u64::from(rate) / 1000;
        let mut refuse = |clip_id: &str, reason: &str| {
            events.push(PlayerEvent::ClipRefused {
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
                    if m.duck_armed.is_some() || m.is_ducked() {
                        refuse(&clip_id, "duck: already ducked");
                    } else {
                        let db = if gain_db.is_finite() {
                            gain_db.clamp(-60.0, 0.0)
                        } else {
                            DEFAULT_DUCK_DB
                        };
                        m.duck_armed = Some((db_to_gain(db), samples(ramp_ms)));
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
                        m.unduck_ramp = samples(ramp_ms);
                    } else {
                        m.duck_armed = None;
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
                        let ramp = m.duck_armed.map_or(m.unduck_ramp, |(_, r)| r);
                        m.duck_armed = None;
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

    /// Mixes the clips into `block` (already zeroed) from sample `clock`.
    pub(crate) fn render(
        &mut self,
        block: &mut [f32],
        clock: u64,
        rate: u32,
        events: &mut Vec<PlayerEvent>,
        audit: &mut ClipAudit,
    ) -> Option<(String, u64)> {
        let ms = |s: u64| s * 1000 / u64::from(rate);
        let mut audible: Option<(String, u64)> = None;
        for (i, out) in block.iter_mut().enumerate() {
            let t = clock + i as u64;
            // A waiting main voice takes the floor when it is free.
            if self.main.is_none()
                && self.overlay.as_ref().is_none_or(|o| o.started_at.is_none())
                && self.waiting.front().is_some_and(|v| v.start_at <= t)
            {
                self.main = self.waiting.pop_front();
            }
            // The overlay: ducks the main voice once its audio is ready, sounds once the
            // duck has settled.
            let mut overlay_sample = None;
            let mut overlay_over = false;
            if let Some(o) = self.overlay.as_mut() {
                if o.started_at.is_none()
                    && o.ready_to_sound()
                    && let Some(m) = self.main.as_mut()
                    && !m.is_ducked()
                {
                    let (gain, ramp) = m.duck_armed.take().unwrap_or((
                        db_to_gain(DEFAULT_DUCK_DB),
                        DEFAULT_DUCK_RAMP_MS * u64::from(rate) / 1000,
                    ));
                    m.unduck_ramp = ramp;
                    m.ducked_since = Some(t);
                    if !m.fading_out {
                        m.ramp_to(gain.min(m.gain), ramp);
                    }
                }
                if self.main.as_ref().is_none_or(Voice::duck_settled) {
                    overlay_sample = step_voice(o, t, false, events, ms);
                }
                overlay_over = voice_over(o);
            }
            if overlay_over {
                let t = t + u64::from(overlay_sample.is_some());
                let o = self.overlay.take().expect("checked");
                if let Some(m) = self.main.as_mut() {
                    let ramp = m.unduck_ramp;
                    release_duck(m, t, ramp);
                }
                if o.started_at.is_some() {
                    let interrupted = o.fading_out;
                    events.push(finish(o, t, interrupted, ms));
                }
            }
            // The main voice.
            let mut main_sample = None;
            let mut main_over = false;
            if let Some(m) = self.main.as_mut() {
                let gain_before = m.gain;
                main_sample = step_voice(m, t, true, events, ms);
                if main_sample.is_some() && overlay_sample.is_some() {
                    let g = audit.max_main_gain_under_overlay.unwrap_or(0.0);
                    audit.max_main_gain_under_overlay = Some(g.max(gain_before));
                }
                main_over = voice_over(m);
            }
            if main_over {
                let t = t + u64::from(main_sample.is_some());
                let mut m = self.main.take().expect("checked");
                close_duck(&mut m, t);
                if m.started_at.is_some() {
                    let interrupted = m.fading_out;
                    if interrupted {
                        m.credit_partial();
                    }
                    events.push(finish(m, t, interrupted, ms));
                }
            }
            if let Some((s, who)) = main_sample {
                audible = Some(who);
                *out += s;
            }
            if let Some((s, who)) = overlay_sample {
                audible.get_or_insert(who);
                *out += s;
            }
            *out = out.clamp(-1.0, 1.0);
        }
        audible
    }
}

/// Whether the voice has nothing more to play (ended, or faded to silence).
fn voice_over(v: &mut Voice) -> bool {
    (v.fading_out && v.gain <= 0.0) || v.current().is_err()
}

fn release_duck(m: &mut Voice, t: u64, ramp: u64) {
    if m.is_ducked() && !m.fading_out {
        m.ramp_to(1.0, ramp);
    }
    close_duck(m, t);
}

fn close_duck(m: &mut Voice, t: u64) {
    if let Some(since) = m.ducked_since.take() {
        m.ducked.push([since, t]);
    }
}

/// One sample of `v` at `t`, with its (speaker, question id); `None` when silent.
fn step_voice(
    v: &mut Voice,
    t: u64,
    main: bool,
    events: &mut Vec<PlayerEvent>,
    ms: impl Fn(u64) -> u64,
) -> Option<(f32, (String, u64))> {
    if t < v.start_at || (v.fading_out && v.gain <= 0.0) {
        return None;
    }
    let position = v.position;
    let (sample, len) = match v.current() {
        Ok(Some(audio)) if !audio.is_empty() => (audio[position.min(audio.len() - 1)], audio.len()),
        Ok(Some(_)) => (0.0, 0),
        // A gap (not synthesized yet): ramps go on.
        Ok(None) => {
            v.advance_gain();
            return None;
        }
        Err(()) => return None,
    };
    if v.started_at.is_none() {
        v.started_at = Some(t);
        events.push(PlayerEvent::ClipStarted(ClipStarted {
            clip_id: v.clip_id.clone(),
            speaker: v.clip.speaker.clone(),
            question_id: v.clip.question_id,
            overlay: v.overlay,
            at_ms: ms(t),
        }));
    }
    let out = sample * v.gain;
    v.advance_gain();
    v.position += 1;
    if v.position >= len {
        let text = v.clip.sentences[v.sentence].clone();
        v.push_played(&text);
        v.sentence += 1;
        v.position = 0;
        if main && !v.fading_out && v.sentence < v.clip.sentences.len() {
            events.push(PlayerEvent::Beat(BeatReached {
                clip_id: v.clip_id.clone(),
                beat: v.sentence as u32,
                at_ms: ms(t + 1),
            }));
        }
    }
    Some((out, (v.clip.speaker.clone(), v.clip.question_id)))
}

fn finish(v: Voice, t: u64, interrupted: bool, ms: impl Fn(u64) -> u64) -> PlayerEvent {
    PlayerEvent::ClipFinished(ClipFinished {
        speaker: v.clip.speaker,
        question_id: v.clip.question_id,
        start_ms: ms(v.started_at.unwrap_or(t)),
        end_ms: ms(t),
        interrupted,
        chars_played: v.chars_played,
        text_played: v.text_played,
        clip_id: v.clip_id,
        overlay: v.overlay,
        ducked: v.ducked.iter().map(|[a, b]| [ms(*a), ms(*b)]).collect(),
    })
}

//! The sounding clips mixed into a block: ducks opened and released, beats reported, voices
//! finished.

use super::*;

impl ClipDeck {
    /// Mixes the clips into `block` (already zeroed) from sample `clock`.
    pub(crate) fn render(
        &mut self,
        block: &mut [f32],
        clock: u64,
        rate: u32,
        events: &mut Vec<PlayerOutput>,
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
                    let (gain, ramp) = m.duck.armed.take().unwrap_or((
                        db_to_gain(DEFAULT_DUCK_DB),
                        DEFAULT_DUCK_RAMP_MS * u64::from(rate) / 1000,
                    ));
                    m.duck.unduck_ramp = ramp;
                    m.duck.since = Some(t);
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
                    let ramp = m.duck.unduck_ramp;
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
pub(super) fn voice_over(v: &mut Voice) -> bool {
    (v.fading_out && v.gain <= 0.0) || v.current().is_err()
}

pub(super) fn release_duck(m: &mut Voice, t: u64, ramp: u64) {
    if m.is_ducked() && !m.fading_out {
        m.ramp_to(1.0, ramp);
    }
    close_duck(m, t);
}

pub(super) fn close_duck(m: &mut Voice, t: u64) {
    if let Some(since) = m.duck.since.take() {
        m.duck.spans.push([since, t]);
    }
}

/// One sample of `v` at `t`, with its (speaker, question id); `None` when silent.
pub(super) fn step_voice(
    v: &mut Voice,
    t: u64,
    main: bool,
    events: &mut Vec<PlayerOutput>,
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
        events.push(PlayerOutput::ClipStarted(ClipStarted {
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
        v.heard.push(&v.clip.phrases[v.phrase]);
        let ended_sentence = v.clip.ends_sentence[v.phrase];
        v.phrase += 1;
        v.position = 0;
        if main && !v.fading_out && ended_sentence && v.phrase < v.clip.phrases.len() {
            let sentences_ended = v.clip.ends_sentence[..v.phrase].iter().filter(|e| **e);
            events.push(PlayerOutput::Beat(BeatReached {
                clip_id: v.clip_id.clone(),
                beat: sentences_ended.count() as u32,
                at_ms: ms(t + 1),
            }));
        }
    }
    Some((out, (v.clip.speaker.clone(), v.clip.question_id)))
}

pub(super) fn finish(v: Voice, t: u64, interrupted: bool, ms: impl Fn(u64) -> u64) -> PlayerOutput {
    PlayerOutput::ClipFinished(ClipFinished {
        speaker: v.clip.speaker,
        question_id: v.clip.question_id,
        start_ms: ms(v.started_at.unwrap_or(t)),
        end_ms: ms(t),
        interrupted,
        chars_played: v.heard.chars(),
        text_played: v.heard.into_text(),
        clip_id: v.clip_id,
        overlay: v.overlay,
        ducked: v.duck.spans.iter().map(|[a, b]| [ms(*a), ms(*b)]).collect(),
    })
}

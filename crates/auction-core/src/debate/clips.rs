//! Clip reports: kicker and interjection text and audio becoming ready, and the end
//! of a clip (overlay or main), with the bookkeeping that closes a micro-turn.

use crate::emotion::MoodEvent;
use crate::records::ClipRole;
use crate::sanitize::sanitize_spoken;

use super::AuctionDebate;
use super::events::Action;
use super::state::MainClip;

impl AuctionDebate {
    pub(super) fn on_clip_ready(&mut self, clip_id: &str, now: u64) {
        let Some(round) = self.round.as_mut() else {
            return;
        };
        if let Some(k) = round.kicker.as_mut()
            && k.clip_id == clip_id
            && k.text.is_some()
        {
            k.ready_at.get_or_insert(now);
        }
        if let Some(i) = round.interjection.as_mut()
            && i.clip_id == clip_id
            && i.text.is_some()
        {
            i.ready = true;
        }
    }

    pub(super) fn on_kicker_text(&mut self, clip_id: &str, text: &str, out: &mut Vec<Action>) {
        let max = self.cfg.interrupt.kicker_words[1] as usize;
        let Some(round) = self.round.as_mut() else {
            return;
        };
        let Some(k) = round.kicker.as_mut() else {
            return;
        };
        if k.clip_id != clip_id || k.text.is_some() {
            return;
        }
        let clean = sanitize_spoken(text, max);
        if clean.is_empty() {
            round.kicker = None;
            return;
        }
        k.text = Some(clean.clone());
        out.push(Action::Synthesize {
            clip_id: clip_id.to_owned(),
            agent: self.agents[k.agent].name.clone(),
            text: clean,
            role: ClipRole::Kicker,
        });
    }

    pub(super) fn on_interjection_text(
        &mut self,
        clip_id: &str,
        text: &str,
        out: &mut Vec<Action>,
    ) {
        let max = self.cfg.interjections.max_words as usize;
        let Some(round) = self.round.as_mut() else {
            return;
        };
        let Some(i) = round.interjection.as_mut() else {
            return;
        };
        if i.clip_id != clip_id || i.text.is_some() {
            return;
        }
        let clean = sanitize_spoken(text, max);
        if clean.is_empty() {
            let a = i.agent;
            round.interjection = None;
            let cfg = self.cfg.reputation.clone();
            self.agents[a].reputation.update(cfg.low_quality, &cfg);
            return;
        }
        i.text = Some(clean.clone());
        out.push(Action::Synthesize {
            clip_id: clip_id.to_owned(),
            agent: self.agents[i.agent].name.clone(),
            text: clean,
            role: ClipRole::Interjection,
        });
    }

    pub(super) fn on_clip_end(
        &mut self,
        clip_id: &str,
        at: u64,
        completed: bool,
        out: &mut Vec<Action>,
    ) {
        if let Some(o) = self.floor.take_overlay(clip_id) {
            if let Some(m) = self.floor.main.as_mut()
                && m.clip_id == o.under
                && m.ducked
            {
                m.ducked = false;
                out.push(Action::Unduck {
                    clip_id: m.clip_id.clone(),
                    ramp_ms: self.cfg.interjections.duck_ramp_ms,
                });
            }
            self.try_start_next(at, out);
            return;
        }
        if let Some(main) = self.floor.take_main(clip_id) {
            // Anything still waiting for a beat of this clip will not play.
            if let Some(round) = self.round.as_mut() {
                if let Some(k) = round.kicker.take() {
                    out.push(Action::DiscardClip { clip_id: k.clip_id });
                }
                if let Some(i) = round.interjection.take() {
                    out.push(Action::DiscardClip { clip_id: i.clip_id });
                }
            }
            if self.round.as_ref().is_some_and(|r| !r.resolved) {
                self.resolve(at, true, out);
            }
            self.close_micro_turn(&main, at, completed);
            self.try_start_next(at, out);
            return;
        }
        // A prepared clip failed before playing.
        if !completed && let Some(round) = self.round.as_mut() {
            if round.kicker.as_ref().is_some_and(|k| k.clip_id == clip_id) {
                round.kicker = None;
            }
            if round
                .interjection
                .as_ref()
                .is_some_and(|i| i.clip_id == clip_id)
            {
                round.interjection = None;
            }
        }
    }

    /// Bookkeeping at the end of a main clip (completed, failed or cut at `at`).
    pub(super) fn close_micro_turn(&mut self, main: &MainClip, at: u64, completed: bool) {
        let a = main.agent;
        self.economy
            .fairness
            .add_talk(a, at.saturating_sub(main.started_at));
        self.economy.tokens.end_of_segment(Some(a));
        let ecfg = self.cfg.emotion.clone();
        let rcfg = self.cfg.reputation.clone();
        if completed {
            self.agents[a]
                .emotion
                .apply_event(MoodEvent::SpokeSegment, &ecfg);
            if main.role == ClipRole::Segment {
                self.agents[a]
                    .reputation
                    .update(rcfg.uninterrupted_segment, &rcfg);
            }
        }
        for st in &mut self.agents {
            st.emotion.end_micro_turn(&ecfg);
            st.reputation.decay(&rcfg);
        }
        self.economy.fairness.update_pacing();
    }
}

//! What happens at a beat: a late beat carries nothing; otherwise a ready kicker cuts
//! the speaker off, or a ready interjection plays ducked under it.

use crate::emotion::MoodEvent;
use crate::interjection::InterjectionPlanner;
use crate::records::{ClipRole, InterjectionRecord, InterruptRecord, RecordKind, TimingRecord};

use super::events::{Acknowledgement, Action};
use super::state::{MainStart, Overlay};
use super::{AuctionDebate, record};

impl AuctionDebate {
    pub(super) fn on_beat(&mut self, clip_id: &str, beat: u32, at: u64, out: &mut Vec<Action>) {
        let Some(main) = self.floor.main.as_mut() else {
            return;
        };
        if main.clip_id != clip_id || beat <= main.last_beat {
            return;
        }
        main.last_beat = beat;
        let planned = main
            .beats
            .iter()
            .find(|b| b.index == beat)
            .map_or(at, |b| main.started_at + b.offset_ms);
        let drift = at as i64 - planned as i64;
        let late = drift > self.cfg.timing.late_beat_ms as i64;
        let pending = self.round.as_ref().is_some_and(|r| {
            r.kicker.is_some() || r.interjection.as_ref().is_some_and(|i| i.ready)
        });
        out.push(record(RecordKind::Timing(TimingRecord {
            clip_id: clip_id.to_owned(),
            beat,
            beat_planned_ms: planned,
            beat_actual_ms: at,
            drift_ms: drift,
            late,
            deferred: late && pending,
        })));
        if late {
            return;
        }
        if self.try_interrupt(beat, planned, at, out) {
            return;
        }
        self.try_interjection(beat, planned, at, out);
    }

    pub(super) fn try_interrupt(
        &mut self,
        beat: u32,
        planned: u64,
        at: u64,
        out: &mut Vec<Action>,
    ) -> bool {
        let (Some(main), Some(round)) = (self.floor.main.as_ref(), self.round.as_ref()) else {
            return false;
        };
        let k = &self.cfg.interrupt;
        let Some(kp) = round.kicker.as_ref() else {
            return false;
        };
        let ready_in_time = kp
            .ready_at
            .is_some_and(|r| r + k.commit_guard_ms <= planned);
        let end = main.started_at + main.planned_ms;
        let ok = round.resolved
            && ready_in_time
            && kp.text.is_some()
            && main.role == ClipRole::Segment
            && beat >= k.min_beat
            && self.floor.overlay.is_none()
            && end.saturating_sub(planned) >= k.soft_remaining_ms
            && self.economy.tokens.balance(kp.agent) >= kp.fee;
        if !ok {
            return false;
        }
        let main = self.floor.main.take().expect("checked");
        let mut round = self.round.take().expect("checked");
        let kp = round.kicker.take().expect("checked");
        let w = kp.agent;
        let cut = main.agent;
        let _ = self.economy.tokens.spend(w, kp.fee);
        let crossfade = self.cfg.interrupt.crossfade_ms;
        self.floor.fade_until = Some(at + crossfade);
        let text = kp.text.clone().unwrap_or_default();
        out.push(Action::FadeOut {
            clip_id: main.clip_id.clone(),
            fade_ms: crossfade,
        });
        out.push(Action::FadeIn {
            clip_id: kp.clip_id.clone(),
            agent: self.agents[w].name.clone(),
            text: text.clone(),
            delay_ms: crossfade,
            fade_ms: self.cfg.interrupt.fade_in_ms,
        });
        if let Some(i) = round.interjection.take() {
            out.push(Action::DiscardClip { clip_id: i.clip_id });
        }
        if let Some(next) = self.next.take() {
            out.push(Action::CancelSegment {
                segment_id: next.segment_id,
            });
        }
        self.economy.interrupts.record(w, round.turn);
        let rcfg = self.cfg.reputation.clone();
        self.agents[cut].reputation.update(rcfg.interrupted, &rcfg);
        let ecfg = self.cfg.emotion.clone();
        self.agents[w]
            .emotion
            .apply_event(MoodEvent::MadeInterrupt, &ecfg);
        self.agents[cut]
            .emotion
            .apply_event(MoodEvent::WasInterrupted, &ecfg);
        self.agents[cut].backlog += 1.0;
        self.agents[cut].respond_to = Some(w);
        out.push(record(RecordKind::Interrupt(InterruptRecord {
            auction_id: round.auction_id.clone(),
            turn: round.turn,
            agent_id: self.agents[w].name.clone(),
            interrupted_id: self.agents[cut].name.clone(),
            cut_clip_id: main.clip_id.clone(),
            kicker_clip_id: kp.clip_id.clone(),
            beat,
            at_ms: at,
            bid: kp.bid,
            fee: kp.fee,
            tokens_spent: kp.fee,
            text: text.clone(),
        })));
        self.close_micro_turn(&main, at + crossfade, false);
        let words = text.split_whitespace().count() as f64;
        let planned_ms = (words / self.words_per_ms()).round() as u64;
        let segment_id = kp.clip_id.trim_start_matches("clip_").to_owned();
        self.start_main(
            at + crossfade,
            MainStart {
                agent: w,
                auction_id: round.auction_id.clone(),
                segment_id,
                clip_id: kp.clip_id,
                role: ClipRole::Kicker,
                text,
                beats: Vec::new(),
                planned_ms,
                context_version: round.turn,
            },
            out,
        );
        true
    }

    pub(super) fn try_interjection(
        &mut self,
        beat: u32,
        planned: u64,
        at: u64,
        out: &mut Vec<Action>,
    ) {
        let (Some(main), Some(round)) = (self.floor.main.as_ref(), self.round.as_ref()) else {
            return;
        };
        let Some(plan) = round.interjection.as_ref() else {
            return;
        };
        let cost = self.cfg.interjections.cost;
        let ok = plan.ready
            && plan.text.is_some()
            && plan.agent != main.agent
            && main.role == ClipRole::Segment
            && !main.ducked
            && self.floor.overlay.is_none()
            && main.interjections < self.cfg.interjections.max_per_segment
            && self.economy.tokens.balance(plan.agent) >= cost;
        if !ok {
            return;
        }
        let plan = self
            .round
            .as_mut()
            .and_then(|r| r.interjection.take())
            .expect("checked");
        let auction_id = self
            .round
            .as_ref()
            .map(|r| r.auction_id.clone())
            .unwrap_or_default();
        let turn = self.progress.turn;
        let _ = self.economy.tokens.spend(plan.agent, cost);
        self.economy.interjections.record(plan.agent, turn);
        let text = plan.text.clone().unwrap_or_default();
        let importance = plan.kind.importance(&text);
        let main = self.floor.main.as_mut().expect("checked");
        main.interjections += 1;
        main.ducked = true;
        let speaker = main.agent;
        let main_clip = main.clip_id.clone();
        let acknowledge = !main.acked
            && InterjectionPlanner::should_acknowledge(
                plan.kind,
                importance,
                &self.cfg.interjections,
            );
        if acknowledge {
            main.acked = true;
            self.agents[speaker].pending_ack = Some(Acknowledgement {
                from: self.agents[plan.agent].name.clone(),
                kind: plan.kind,
                text: text.clone(),
            });
        }
        let ecfg = self.cfg.emotion.clone();
        self.agents[speaker]
            .emotion
            .apply_event(MoodEvent::ReceivedInterjection(plan.kind), &ecfg);
        out.push(Action::Duck {
            clip_id: main_clip.clone(),
            beat,
            gain_db: self.cfg.interjections.duck_db,
            ramp_ms: self.cfg.interjections.duck_ramp_ms,
        });
        out.push(Action::PlayClip {
            clip_id: plan.clip_id.clone(),
            agent: self.agents[plan.agent].name.clone(),
            text: text.clone(),
            role: ClipRole::Interjection,
            overlay: true,
        });
        out.push(record(RecordKind::Interjection(InterjectionRecord {
            auction_id,
            agent_id: self.agents[plan.agent].name.clone(),
            speaker_id: self.agents[speaker].name.clone(),
            clip_id: plan.clip_id.clone(),
            ducked_clip_id: main_clip.clone(),
            kind: plan.kind,
            importance,
            acknowledge,
            beat,
            at_ms: at,
            beat_planned_ms: planned,
            tokens_spent: cost,
            text,
        })));
        self.floor.overlay = Some(Overlay {
            clip_id: plan.clip_id,
            under: main_clip,
        });
    }
}

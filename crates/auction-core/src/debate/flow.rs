//! Session flow: the cold start, segment requests and answers, handing the floor to
//! the next main clip, and the end of the session.

use crate::emotion::Mood;
use crate::ids::{self};
use crate::records::{ClipRole, RecordKind, SegmentRecord};

use super::events::{Action, BeatPlan, EndReason, HintKind, SegmentHint, SegmentRequest};
use super::state::{MainClip, MainStart, NextSegment, ReadySegment, Round};
use super::{AuctionDebate, record};

impl AuctionDebate {
    pub(super) fn cold_start(&mut self, now: u64, out: &mut Vec<Action>) {
        if self.progress.started {
            return;
        }
        self.progress.started = true;
        let bidders: Vec<usize> = (0..self.agents.len()).collect();
        let heuristic = self.heuristic_bids(&bidders);
        let mut bids = vec![None; self.agents.len()];
        for b in heuristic {
            let a = b.agent;
            bids[a] = Some(b);
        }
        self.round = Some(Round {
            auction_id: ids::auction_id(&self.session, 0),
            turn: 0,
            speaker: None,
            bid_deadline: now,
            fallback: bids.clone(),
            bids,
            awaiting: vec![false; self.agents.len()],
            resolved: false,
            kicker: None,
            interjection: None,
        });
        self.resolve(now, false, out);
    }

    pub(super) fn finish(&mut self, reason: EndReason, out: &mut Vec<Action>) {
        if !self.progress.ended {
            self.progress.ended = true;
            out.push(Action::End { reason });
        }
    }

    pub(super) fn session_over(&self) -> bool {
        self.cfg
            .max_segments
            .is_some_and(|m| self.progress.turn >= m)
    }

    pub(super) fn words_per_ms(&self) -> f64 {
        self.cfg.timing.words_per_second / 1000.0
    }

    pub(super) fn request_segment(
        &mut self,
        agent: usize,
        auction_id: &str,
        kind: HintKind,
        target_seconds: f64,
        now: u64,
        out: &mut Vec<Action>,
    ) {
        // Segments always go out, but count toward the per-minute budget.
        self.governor.note(now);
        if let Some(old) = self.next.take() {
            out.push(Action::CancelSegment {
                segment_id: old.segment_id,
            });
        }
        let (segment_id, clip_id) = self.ids.next(auction_id, agent);
        let a = &mut self.agents[agent];
        let respond_to = a.respond_to.take();
        let human = a.answer_human.take();
        let (kind, respond_to) = match (human, respond_to) {
            (Some(human), _) => (HintKind::AnswerHuman, Some(human)),
            (None, Some(r)) => (HintKind::Respond, Some(self.agents[r].name.clone())),
            (None, None) => (kind, None),
        };
        let hint = SegmentHint {
            kind,
            respond_to,
            acknowledge: self.agents[agent].pending_ack.take(),
            target_words: (target_seconds * self.cfg.timing.words_per_second).round() as u32,
            mood: self.agents[agent].emotion.mood(),
        };
        out.push(Action::RequestSegment(SegmentRequest {
            agent: self.agents[agent].name.clone(),
            auction_id: auction_id.to_owned(),
            segment_id: segment_id.clone(),
            clip_id: clip_id.clone(),
            hint,
            context_version: self.progress.turn,
        }));
        self.next = Some(NextSegment {
            agent,
            auction_id: auction_id.to_owned(),
            segment_id,
            clip_id,
            context_version: self.progress.turn,
            ready: None,
        });
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn on_segment_ready(
        &mut self,
        agent: &str,
        segment_id: &str,
        text: String,
        beats: Vec<BeatPlan>,
        planned_ms: Option<u64>,
        mood: Option<Mood>,
        now: u64,
        out: &mut Vec<Action>,
    ) {
        let Some(next) = self.next.as_ref() else {
            return;
        };
        if next.segment_id != segment_id
            || self.agents[next.agent].name != agent
            || next.ready.is_some()
        {
            return;
        }
        let a = next.agent;
        if let Some(m) = mood {
            let cfg = self.cfg.emotion.clone();
            self.agents[a].emotion.apply_report(m, &cfg);
        }
        let words = text.split_whitespace().count();
        if words == 0 {
            self.on_segment_failed(segment_id, now, out);
            return;
        }
        self.progress.failures = 0;
        let estimated = (words as f64 / self.words_per_ms()).round() as u64;
        let planned_ms = planned_ms.filter(|&p| p > 0).unwrap_or(estimated);
        let mut beats: Vec<BeatPlan> = beats
            .into_iter()
            .filter(|b| b.index >= 1 && b.offset_ms < planned_ms)
            .collect();
        beats.sort_by_key(|b| b.index);
        beats.dedup_by_key(|b| b.index);
        if let Some(n) = self.next.as_mut() {
            n.ready = Some(ReadySegment {
                text,
                beats,
                planned_ms,
            });
        }
        self.try_start_next(now, out);
    }

    pub(super) fn on_segment_failed(&mut self, segment_id: &str, now: u64, out: &mut Vec<Action>) {
        let Some(next) = self.next.as_ref() else {
            return;
        };
        if next.segment_id != segment_id {
            return;
        }
        let failed = next.agent;
        let auction_id = next.auction_id.clone();
        self.next = None;
        self.progress.failures += 1;
        if self.progress.failures > 2 * self.agents.len() as u32 {
            self.finish(EndReason::NoSpeaker, out);
            return;
        }
        let pick = self.least_recent(Some(failed));
        let target = self.cfg.segment_seconds.target;
        self.request_segment(pick, &auction_id, HintKind::Open, target, now, out);
        self.try_start_next(now, out);
    }

    /// The agent (other than `except`) who held the floor least recently.
    pub(super) fn least_recent(&self, except: Option<usize>) -> usize {
        (0..self.agents.len())
            .filter(|&a| Some(a) != except)
            .min_by_key(|&a| {
                (
                    self.economy
                        .fairness
                        .last_spoke_turn(a)
                        .map_or(0, |t| t + 1),
                    a,
                )
            })
            .unwrap_or(0)
    }

    pub(super) fn try_start_next(&mut self, now: u64, out: &mut Vec<Action>) {
        if self.progress.ended || self.floor.main.is_some() || self.floor.overlay.is_some() {
            return;
        }
        if self.floor.fade_until.is_some_and(|t| now < t) {
            return;
        }
        if self.session_over() {
            self.finish(EndReason::MaxSegments, out);
            return;
        }
        match &self.next {
            Some(n) if n.ready.is_some() => {
                let n = self.next.take().expect("checked");
                let ready = n.ready.expect("checked");
                self.start_main(
                    now,
                    MainStart {
                        agent: n.agent,
                        auction_id: n.auction_id,
                        segment_id: n.segment_id,
                        clip_id: n.clip_id,
                        role: ClipRole::Segment,
                        text: ready.text,
                        beats: ready.beats,
                        planned_ms: ready.planned_ms,
                        context_version: n.context_version,
                    },
                    out,
                );
            }
            // The floor is free but the next segment is not ready: a lead-time miss.
            Some(_) => self.floor.waiting = self.progress.turn > 0,
            None if self.progress.started => {
                // Nobody was asked (should not happen): keep the conversation moving.
                let pick = self.least_recent(self.floor.last_speaker);
                let auction_id = ids::auction_id(&self.session, self.progress.turn);
                let target = self.cfg.segment_seconds.target;
                self.request_segment(pick, &auction_id, HintKind::Open, target, now, out);
            }
            None => {}
        }
    }

    pub(super) fn start_main(&mut self, now: u64, s: MainStart, out: &mut Vec<Action>) {
        // Each handover to a prepared segment (not the cold start) is a lead-time sample.
        if s.role == ClipRole::Segment && self.progress.turn > 0 {
            self.lead.record(self.floor.waiting);
        }
        self.floor.waiting = false;
        self.progress.turn += 1;
        let turn = self.progress.turn;
        self.economy.fairness.took_floor(s.agent, turn);
        self.floor.contiguous = if self.floor.last_speaker == Some(s.agent) {
            self.floor.contiguous + 1
        } else {
            1
        };
        self.floor.last_speaker = Some(s.agent);
        self.agents[s.agent].backlog = 0.0;
        let name = self.agents[s.agent].name.clone();
        out.push(record(RecordKind::Segment(SegmentRecord {
            agent_id: name.clone(),
            speaker_id: name.clone(),
            turn,
            auction_id: s.auction_id,
            segment_id: s.segment_id.clone(),
            clip_id: s.clip_id.clone(),
            role: s.role,
            at_ms: now,
            words: s.text.split_whitespace().count() as u32,
            planned_ms: s.planned_ms,
            context_version: s.context_version,
            prefetch: s.role == ClipRole::Segment,
        })));
        if s.role == ClipRole::Segment {
            out.push(Action::PlayClip {
                clip_id: s.clip_id.clone(),
                agent: name,
                text: s.text,
                role: s.role,
                overlay: false,
            });
        }
        self.floor.main = Some(MainClip {
            agent: s.agent,
            clip_id: s.clip_id,
            role: s.role,
            started_at: now,
            beats: s.beats,
            planned_ms: s.planned_ms,
            last_beat: 0,
            ducked: false,
            interjections: 0,
            acked: false,
        });
        self.open_round(now, out);
    }
}

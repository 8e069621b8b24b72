//! The simulated player: a clip played (its beats, its end, an overlay beside the main
//! voice) or failing while it plays.

use super::*;

impl Sim<'_> {
    /// A clip that fails while it sounds (or before its scheduled start) stops there.
    pub(super) fn fail_playing(&mut self, clip_id: &str, at: u64) {
        let Some(info) = self.clips.get_mut(clip_id) else {
            return;
        };
        let Some(i) = info.span else {
            return;
        };
        let span = &mut self.report.spans[i];
        if at < span.end {
            info.generation += 1;
            span.end = at.max(span.start);
            let end = span.end;
            for d in &mut span.ducked {
                d.1 = d.1.min(end);
            }
        }
    }

    pub(super) fn play(&mut self, clip_id: &str, start: u64, overlay: bool, role: ClipRole) {
        let Some(info) = self.clips.get(clip_id).cloned() else {
            self.report
                .violations
                .push(format!("play of unknown clip {clip_id}"));
            return;
        };
        if info.discarded {
            self.report
                .violations
                .push(format!("play of discarded clip {clip_id}"));
        }
        if info.span.is_some() {
            self.report
                .violations
                .push(format!("clip played twice: {clip_id}"));
            return;
        }
        if role != info.role {
            self.report
                .violations
                .push(format!("role mismatch: {clip_id}"));
        }
        // Real duration: planned ± a little, never before the last beat.
        let last_beat = info.beats.last().map_or(0, |b| b.offset_ms);
        let duration = (info.planned_ms as i64 + self.rng.jitter(100))
            .max(last_beat as i64 + 200)
            .max(300) as u64;
        let idx = self.report.spans.len();
        self.report.spans.push(AudioSpan {
            clip_id: clip_id.to_owned(),
            agent: info.agent.clone(),
            role,
            overlay,
            start,
            end: start + duration,
            ducked: Vec::new(),
        });
        if !overlay {
            self.report.main_clips += 1;
            self.report.speakers.push(info.agent.clone());
        }
        let generation = info.generation;
        if let Some(c) = self.clips.get_mut(clip_id) {
            c.span = Some(idx);
        }
        let guard = Some((clip_id.to_owned(), generation));
        self.push(
            start,
            Event::ClipStarted {
                clip_id: clip_id.to_owned(),
                at_ms: start,
            },
            guard.clone(),
        );
        let mut last_cb = start;
        for b in &info.beats {
            let mut at = (start + b.offset_ms) as i64 + self.rng.jitter(self.cfg.beat_jitter_ms);
            if self.rng.next_f64() < self.cfg.late_beat_rate {
                at += self.cfg.late_beat_delay_ms as i64;
            }
            let at = (at.max(last_cb as i64 + 1) as u64).min(start + duration - 1);
            last_cb = at;
            self.push(
                at,
                Event::BeatReached {
                    clip_id: clip_id.to_owned(),
                    beat: b.index,
                    at_ms: at,
                },
                guard.clone(),
            );
        }
        self.push(
            start + duration,
            Event::ClipFinished {
                clip_id: clip_id.to_owned(),
                at_ms: start + duration,
            },
            guard,
        );
    }
}

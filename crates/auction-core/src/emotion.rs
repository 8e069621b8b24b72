//! The emotion model: frustration, engagement and confidence in `[0, 1]`, driven by
//! heuristic events, by model mood reports, or by both (see [`EmotionControl`]).
//!
//! Mood never comes from token balances (character agency); it may only move a bid by
//! at most `influence_cap_tokens`, and not at all inside a deadband around the neutral
//! mood, so small jitters cannot be used to game the auction.

use serde::{Deserialize, Serialize};

use crate::config::{EmotionConfig, EmotionControl};
use crate::interjection::InterjectionKind;

/// The three mood variables, each in `[0, 1]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Mood {
    pub frustration: f64,
    pub engagement: f64,
    pub confidence: f64,
}

impl Default for Mood {
    /// Calm, half engaged, half confident.
    fn default() -> Self {
        Self {
            frustration: 0.0,
            engagement: 0.5,
            confidence: 0.5,
        }
    }
}

impl Mood {
    fn get(&self, i: usize) -> f64 {
        [self.frustration, self.engagement, self.confidence][i]
    }

    fn set(&mut self, i: usize, v: f64) {
        let v = clamp01(v);
        match i {
            0 => self.frustration = v,
            1 => self.engagement = v,
            _ => self.confidence = v,
        }
    }

    /// The bid-relevant signal `frustration − 0.25·engagement`, relative to the default mood.
    pub fn bid_signal(&self) -> f64 {
        let neutral = Mood::default();
        (self.frustration - 0.25 * self.engagement)
            - (neutral.frustration - 0.25 * neutral.engagement)
    }
}

fn clamp01(v: f64) -> f64 {
    if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) }
}

/// Salient events that move the mood heuristically.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoodEvent {
    LostBid,
    WonBid,
    MadeInterrupt,
    /// Not in the reference table: being cut off frustrates and shakes confidence a little.
    WasInterrupted,
    ReceivedInterjection(InterjectionKind),
    /// End of one's own segment: cooling down.
    SpokeSegment,
}

impl MoodEvent {
    /// `(Δfrustration, Δengagement, Δconfidence)`.
    fn deltas(self) -> [f64; 3] {
        match self {
            MoodEvent::LostBid => [0.15, 0.05, 0.0],
            MoodEvent::WonBid => [-0.10, 0.0, 0.05],
            MoodEvent::MadeInterrupt => [0.05, 0.10, 0.0],
            MoodEvent::WasInterrupted => [0.10, 0.05, -0.05],
            MoodEvent::ReceivedInterjection(InterjectionKind::Support) => [0.0, 0.0, 0.03],
            MoodEvent::ReceivedInterjection(InterjectionKind::Clarify) => [0.0, 0.02, 0.0],
            MoodEvent::ReceivedInterjection(InterjectionKind::Challenge) => [0.05, 0.0, -0.03],
            MoodEvent::SpokeSegment => [-0.05, -0.05, 0.0],
        }
    }
}

/// One agent's mood and the hysteresis state of model reports.
#[derive(Debug, Clone, PartialEq)]
pub struct EmotionState {
    mood: Mood,
    control: EmotionControl,
    /// Direction of the last applied change per variable (−1, 0, +1).
    last_dir: [i8; 3],
    /// Micro-turns since that direction was taken.
    dwell: [u32; 3],
}

impl EmotionState {
    pub fn new(control: EmotionControl) -> Self {
        Self {
            mood: Mood::default(),
            control,
            last_dir: [0; 3],
            dwell: [u32::MAX / 2; 3],
        }
    }

    pub fn mood(&self) -> Mood {
        self.mood
    }

    pub fn control(&self) -> EmotionControl {
        self.control
    }

    /// Applies a heuristic event: fully in heuristic mode, as a nudge of at most
    /// `hybrid_nudge` per variable in hybrid mode, not at all in llm mode.
    pub fn apply_event(&mut self, event: MoodEvent, cfg: &EmotionConfig) {
        let cap = match self.control {
            EmotionControl::Heuristic => f64::INFINITY,
            EmotionControl::Hybrid => cfg.hybrid_nudge,
            EmotionControl::Llm => return,
        };
        for (i, d) in event.deltas().into_iter().enumerate() {
            let d = d.clamp(-cap, cap);
            self.mood.set(i, self.mood.get(i) + d);
        }
    }

    /// Takes a model mood report (llm and hybrid modes): clamped to `[0, 1]`, smoothed
    /// by EMA, each step bounded by `max_step`, and a variable may only reverse its
    /// direction after `dwell_microturns` micro-turns. Returns whether it was used.
    pub fn apply_report(&mut self, report: Mood, cfg: &EmotionConfig) -> bool {
        if self.control == EmotionControl::Heuristic {
            return false;
        }
        for i in 0..3 {
            let target = clamp01(report.get(i));
            let current = self.mood.get(i);
            let step = (cfg.ema_alpha * (target - current)).clamp(-cfg.max_step, cfg.max_step);
            if step.abs() < 1e-9 {
                continue;
            }
            let dir: i8 = if step > 0.0 { 1 } else { -1 };
            if self.last_dir[i] != 0 && dir != self.last_dir[i] {
                if self.dwell[i] < cfg.dwell_microturns {
                    continue;
                }
                self.dwell[i] = 0;
            } else if self.last_dir[i] == 0 {
                self.dwell[i] = 0;
            }
            self.last_dir[i] = dir;
            self.mood.set(i, current + step);
        }
        true
    }

    /// End of a micro-turn: heuristic decay (not in llm mode) and hysteresis clocks.
    pub fn end_micro_turn(&mut self, cfg: &EmotionConfig) {
        if self.control != EmotionControl::Llm {
            self.mood.frustration = clamp01(self.mood.frustration * cfg.frustration_decay);
            self.mood.engagement = clamp01(self.mood.engagement * cfg.engagement_decay);
        }
        for d in &mut self.dwell {
            *d = d.saturating_add(1);
        }
    }

    /// Tokens added to (or taken from) a bid by the mood: `w_emotion × bid_gain ×` the
    /// signal beyond the deadband, rounded, capped at `±influence_cap_tokens`.
    pub fn bid_adjustment(&self, w_emotion: f64, cfg: &EmotionConfig) -> i32 {
        let signal = self.mood.bid_signal();
        let beyond = if signal.abs() <= cfg.deadband {
            0.0
        } else {
            signal - cfg.deadband * signal.signum()
        };
        let cap = cfg.influence_cap_tokens as f64;
        (w_emotion * cfg.bid_gain * beyond).round().clamp(-cap, cap) as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> EmotionConfig {
        EmotionConfig::default()
    }

    #[test]
    fn heuristic_events_and_decay() {
        let mut e = EmotionState::new(EmotionControl::Heuristic);
        e.apply_event(MoodEvent::LostBid, &cfg());
        assert!((e.mood().frustration - 0.15).abs() < 1e-9);
        e.end_micro_turn(&cfg());
        assert!((e.mood().frustration - 0.1425).abs() < 1e-9);
        assert!(!e.apply_report(Mood::default(), &cfg()));
    }

    #[test]
    fn llm_mode_ignores_heuristics_and_smooths_reports() {
        let mut e = EmotionState::new(EmotionControl::Llm);
        e.apply_event(MoodEvent::LostBid, &cfg());
        assert_eq!(e.mood(), Mood::default());
        e.apply_report(
            Mood {
                frustration: 5.0,
                engagement: f64::NAN,
                confidence: 0.5,
            },
            &cfg(),
        );
        // clamped to 1, EMA 0.4 → 0.4, within max_step 0.3 → 0.3
        assert!((e.mood().frustration - 0.3).abs() < 1e-9);
        assert!(e.mood().engagement < 0.5);
    }

    #[test]
    fn hysteresis_holds_a_reversal_until_dwell() {
        let mut e = EmotionState::new(EmotionControl::Llm);
        let high = Mood {
            frustration: 1.0,
            ..Mood::default()
        };
        let low = Mood {
            frustration: 0.0,
            ..Mood::default()
        };
        e.apply_report(high, &cfg());
        let f = e.mood().frustration;
        e.apply_report(low, &cfg());
        assert_eq!(e.mood().frustration, f, "reversal before dwell is held");
        e.end_micro_turn(&cfg());
        e.end_micro_turn(&cfg());
        e.apply_report(low, &cfg());
        assert!(e.mood().frustration < f);
    }

    #[test]
    fn hybrid_nudges_are_small() {
        let mut e = EmotionState::new(EmotionControl::Hybrid);
        e.apply_event(MoodEvent::LostBid, &cfg());
        assert!((e.mood().frustration - 0.05).abs() < 1e-9);
    }

    #[test]
    fn bid_adjustment_has_deadband_and_cap() {
        let mut e = EmotionState::new(EmotionControl::Heuristic);
        assert_eq!(e.bid_adjustment(1.0, &cfg()), 0);
        e.apply_event(MoodEvent::LostBid, &cfg()); // signal 0.1625 → beyond 0.0625 → 0.19
        assert_eq!(e.bid_adjustment(1.0, &cfg()), 0);
        for _ in 0..10 {
            e.apply_event(MoodEvent::LostBid, &cfg());
        }
        assert_eq!(e.bid_adjustment(100.0, &cfg()), 1);
    }
}

//! Interjections: short typed reactions (support, clarify, challenge; at most
//! `max_words` words) played under the ducked speaker at a beat.
//!
//! Limits: `max_per_segment` per segment (all agents together), a per-agent cooldown
//! of `cooldown_segments` micro-turns, and `cost` tokens paid when it plays. The
//! speaker is asked to acknowledge an interjection in its next segment when its
//! importance reaches `ack_importance` or it is a clarification, at most once per segment.

use serde::{Deserialize, Serialize};

use crate::config::InterjectionConfig;
use crate::emotion::Mood;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterjectionKind {
    Support,
    Clarify,
    Challenge,
}

impl InterjectionKind {
    /// The kind a listener in `mood` would produce: frustrated listeners challenge,
    /// unsure ones ask, others agree.
    pub fn for_mood(mood: &Mood) -> Self {
        if mood.frustration >= 0.3 {
            InterjectionKind::Challenge
        } else if mood.confidence < 0.4 {
            InterjectionKind::Clarify
        } else {
            InterjectionKind::Support
        }
    }

    /// Heuristic importance in `[0, 1]`: by kind, more for a question.
    pub fn importance(self, text: &str) -> f64 {
        let base: f64 = match self {
            InterjectionKind::Support => 0.3,
            InterjectionKind::Clarify => 0.6,
            InterjectionKind::Challenge => 0.7,
        };
        let question = if text.contains('?') { 0.15 } else { 0.0 };
        (base + question).min(1.0)
    }
}

/// Per-agent interjection cooldowns.
#[derive(Debug, Clone)]
pub struct InterjectionPlanner {
    last_turn: Vec<Option<u32>>,
    made: Vec<u32>,
}

impl InterjectionPlanner {
    pub fn new(agents: usize) -> Self {
        Self {
            last_turn: vec![None; agents],
            made: vec![0; agents],
        }
    }

    /// May `agent` plan an interjection in micro-turn `turn`?
    pub fn eligible(&self, agent: usize, turn: u32, tokens: u32, cfg: &InterjectionConfig) -> bool {
        if cfg.max_per_segment == 0 || tokens < cfg.cost {
            return false;
        }
        match self.last_turn[agent] {
            Some(last) => turn > last + cfg.cooldown_segments,
            None => true,
        }
    }

    /// `agent` interjected during micro-turn `turn`.
    pub fn record(&mut self, agent: usize, turn: u32) {
        self.last_turn[agent] = Some(turn);
        self.made[agent] += 1;
    }

    pub fn made_by(&self, agent: usize) -> u32 {
        self.made[agent]
    }

    /// Whether the speaker should acknowledge it.
    pub fn should_acknowledge(
        kind: InterjectionKind,
        importance: f64,
        cfg: &InterjectionConfig,
    ) -> bool {
        kind == InterjectionKind::Clarify || importance >= cfg.ack_importance
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cooldown_and_cost() {
        let cfg = InterjectionConfig::default();
        let mut p = InterjectionPlanner::new(2);
        assert!(p.eligible(0, 1, 2, &cfg));
        assert!(!p.eligible(0, 1, 1, &cfg));
        p.record(0, 1);
        assert!(!p.eligible(0, 3, 5, &cfg));
        assert!(p.eligible(0, 4, 5, &cfg));
        assert!(p.eligible(1, 2, 5, &cfg));
    }

    #[test]
    fn kinds_and_acknowledgement() {
        let cfg = InterjectionConfig::default();
        let angry = Mood {
            frustration: 0.6,
            ..Mood::default()
        };
        assert_eq!(
            InterjectionKind::for_mood(&angry),
            InterjectionKind::Challenge
        );
        assert_eq!(
            InterjectionKind::for_mood(&Mood::default()),
            InterjectionKind::Support
        );
        let s = InterjectionKind::Support;
        assert!(!InterjectionPlanner::should_acknowledge(
            s,
            s.importance("Right."),
            &cfg
        ));
        let c = InterjectionKind::Challenge;
        assert!(InterjectionPlanner::should_acknowledge(
            c,
            c.importance("No."),
            &cfg
        ));
        assert!(InterjectionPlanner::should_acknowledge(
            InterjectionKind::Clarify,
            0.0,
            &cfg
        ));
    }
}

//! Holding and taking the floor: segment lengths, interjections, hard interrupts and
//! their cooldowns.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SegmentSeconds {
    pub min: f64,
    pub target: f64,
    pub max: f64,
}

impl Default for SegmentSeconds {
    fn default() -> Self {
        Self {
            min: 3.0,
            target: 5.0,
            max: 8.0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InterjectionConfig {
    pub max_per_segment: u32,
    /// Tokens charged when the interjection is played.
    pub cost: u32,
    /// Segments an agent waits after interjecting before it may interject again.
    pub cooldown_segments: u32,
    pub max_words: u32,
    /// Gain applied to the speaker while an interjection plays.
    pub duck_db: f64,
    pub duck_ramp_ms: u64,
    /// Importance at or above which the speaker is asked to acknowledge.
    pub ack_importance: f64,
    /// Base chance per micro-turn that an eligible listener wants to interject
    /// (heuristic intents; drawn from the session's seeded generator).
    pub probability: f64,
}

impl Default for InterjectionConfig {
    fn default() -> Self {
        Self {
            max_per_segment: 1,
            cost: 2,
            cooldown_segments: 2,
            max_words: 12,
            duck_db: -12.0,
            duck_ramp_ms: 60,
            ack_importance: 0.6,
            probability: 0.35,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CooldownConfig {
    /// Micro-turns after a hard interrupt before the same agent may interrupt again.
    pub interrupt_microturns: u32,
}

impl Default for CooldownConfig {
    fn default() -> Self {
        Self {
            interrupt_microturns: 2,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterruptMode {
    /// Hard-interrupt cutoff: the current clip is faded out, the kicker plays.
    #[default]
    Cutoff,
    /// No cutting: winners wait for the end of the segment.
    BeatOnly,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InterruptConfig {
    pub mode: InterruptMode,
    /// Fade-out of the interrupted clip; the kicker starts when it is over.
    pub crossfade_ms: u64,
    pub fade_in_ms: u64,
    /// The kicker must be ready this long before the planned beat.
    pub commit_guard_ms: u64,
    /// Kickers pre-synthesised per auction (0 disables hard interrupts). Values above 1
    /// act as 1: only the top bidder's kicker is prepared.
    pub prebuffer_top: u32,
    /// `[min, max]` words of a kicker.
    pub kicker_words: [u32; 2],
    /// Hard interrupts allowed per `window_segments` micro-turns, all agents together.
    pub max_per_window: u32,
    pub window_segments: u32,
    /// No hard cut when less than this much of the segment remains (soft: wait).
    pub soft_remaining_ms: u64,
    /// First beat at which a hard interrupt may land (1: after the first sentence).
    pub min_beat: u32,
}

impl Default for InterruptConfig {
    fn default() -> Self {
        Self {
            mode: InterruptMode::Cutoff,
            crossfade_ms: 200,
            fade_in_ms: 80,
            commit_guard_ms: 200,
            prebuffer_top: 1,
            kicker_words: [8, 12],
            max_per_window: 2,
            window_segments: 5,
            soft_remaining_ms: 1000,
            min_beat: 1,
        }
    }
}

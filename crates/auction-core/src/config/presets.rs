//! The named presets a configuration file may start from.

use super::{Accrual, AuctionConfig, ConfigError, EmotionControl, InterruptMode};

impl AuctionConfig {
    /// Fast exchanges: hard cutoffs, hybrid emotion, bank of 8.
    pub fn debate_snappy() -> Self {
        let mut c = Self {
            preset: Some("debate_snappy".into()),
            emotion_control: EmotionControl::Hybrid,
            ..Self::default()
        };
        c.interrupt.mode = InterruptMode::Cutoff;
        c.interrupt.crossfade_ms = 200;
        c.interrupt.prebuffer_top = 1;
        c.tokens.accrual = Accrual::PerSegment;
        c.tokens.max_bank = 8;
        c.interjections.max_per_segment = 1;
        c.cooldowns.interrupt_microturns = 2;
        c.evidence_priority.enabled = true;
        c.emotion.influence_cap_tokens = 1;
        c.emotion.deadband = 0.1;
        c
    }

    /// Courteous panels: no hard cuts, three beats, model-reported mood, slow pacing.
    pub fn panel_civil() -> Self {
        let mut c = Self {
            preset: Some("panel_civil".into()),
            beats: 3,
            emotion_control: EmotionControl::Llm,
            ..Self::default()
        };
        c.interrupt.mode = InterruptMode::BeatOnly;
        c.interrupt.crossfade_ms = 250;
        c.interrupt.prebuffer_top = 0;
        c.tokens.accrual = Accrual::PerSegment;
        c.tokens.max_bank = 6;
        c.anti_hoarding.threshold = 5;
        c.interjections.max_per_segment = 1;
        c.cooldowns.interrupt_microturns = 3;
        c.evidence_priority.enabled = true;
        c.fairness.pacing_alpha = 0.1;
        c
    }

    /// A preset by name.
    pub fn preset(name: &str) -> Result<Self, ConfigError> {
        match name {
            "debate_snappy" => Ok(Self::debate_snappy()),
            "panel_civil" => Ok(Self::panel_civil()),
            other => Err(ConfigError::UnknownPreset(other.to_owned())),
        }
    }
}

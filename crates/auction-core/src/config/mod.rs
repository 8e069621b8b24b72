//! Session configuration: every knob of the auction mode, with the reference defaults,
//! loaded from YAML and validated. One file per group of sections:
//!
//! - [`floor`]: segment lengths, interjections, hard interrupts, cooldowns;
//! - [`economy`]: tokens, pricing, anti-hoarding;
//! - [`bidding`]: desire weights, per-agent styles, fairness;
//! - [`mood`]: emotion, reputation, evidence lane, observability;
//! - [`timing`]: late beats, the resolve lead and its adaptation;
//! - [`limits`]: model requests in flight and per minute, the bid timeout;
//! - [`presets`], and the checks in `validate`.
//!
//! A file may name a `preset` (`debate_snappy` or `panel_civil`); the preset is applied
//! first and every field present in the file overrides it, at any depth:
//!
//! ```yaml
//! preset: debate_snappy
//! max_segments: 40
//! tokens: { max_bank: 6 }
//! interrupt: { commit_guard_ms: 180 }
//! ```
//!
//! Unknown keys are errors, so a typo never silently falls back to a default. Keys that
//! were accepted once but never acted on are refused with the reason ([`REMOVED_KEYS`]).

pub mod bidding;
pub mod economy;
pub mod floor;
pub mod limits;
pub mod mood;
pub mod presets;
pub mod timing;
mod validate;

use serde::{Deserialize, Serialize};

pub use bidding::{
    AgentStyle, BidSource, BiddingConfig, FairnessConfig, FairnessMode, ResolvedStyle,
};
pub use economy::{Accrual, AntiHoardingConfig, PricingConfig, TokenConfig};
pub use floor::{
    CooldownConfig, InterjectionConfig, InterruptConfig, InterruptMode, SegmentSeconds,
};
pub use limits::{ConcurrencyConfig, QualityConfig, TimeoutsMs};
pub use mood::{
    EmotionConfig, EmotionControl, EvidenceConfig, ObservabilityConfig, ReputationConfig,
};
pub use timing::{LeadTimeConfig, TimingConfig};

/// Why a configuration was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    #[error("invalid YAML: {0}")]
    Yaml(String),
    #[error("unknown preset `{0}` (known: debate_snappy, panel_civil)")]
    UnknownPreset(String),
    #[error("invalid `{field}`: {reason}")]
    Invalid { field: &'static str, reason: String },
    #[error("`{key}` is no longer a setting: {reason}")]
    Removed {
        key: &'static str,
        reason: &'static str,
    },
}

fn invalid(field: &'static str, reason: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        field,
        reason: reason.into(),
    }
}

/// Keys (dotted paths) that were accepted once but never acted on, with what to use
/// instead. A file that still names one is refused, as any unknown key is, but with a
/// message that says why.
pub const REMOVED_KEYS: &[(&str, &str)] = &[
    (
        "tts",
        "the player's environment (TTS_BACKEND, VOICE_MAP, ...) chooses the voices",
    ),
    (
        "lead_time.baseline_ms",
        "the lead starts at timing.resolve_lead_ms",
    ),
    (
        "lead_time.top_k_prebuffer_max",
        "only the top bidder's kicker is prepared (interrupt.prebuffer_top: 0 or 1)",
    ),
    (
        "lead_time.discard_budget_s_per_min",
        "discarded audio is not measured",
    ),
    (
        "concurrency.timeouts_ms.segment",
        "the node's SEGMENT_TIMEOUT_SECS bounds a segment",
    ),
    (
        "concurrency.timeouts_ms.interjection",
        "the node's SIDE_REQUEST_TIMEOUT_SECS bounds an interjection",
    ),
    (
        "concurrency.prefetch",
        "the next speaker's segment is always requested when its auction resolves",
    ),
    (
        "quality.mode",
        "there are no fixed quality levels; quality.llm_calls_per_min governs",
    ),
    (
        "quality.budget_per_min",
        "the cost of a call is not known here; use quality.llm_calls_per_min",
    ),
];

fn reject_removed(document: &serde_yaml::Value) -> Result<(), ConfigError> {
    for &(key, reason) in REMOVED_KEYS {
        let mut at = Some(document);
        for part in key.split('.') {
            at = at.and_then(|v| v.get(part));
        }
        if at.is_some() {
            return Err(ConfigError::Removed { key, reason });
        }
    }
    Ok(())
}

/// The whole configuration of an auction session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuctionConfig {
    /// Only `auction` exists; kept so a shared manifest can name the mode.
    pub mode: ConversationMode,
    /// The preset this configuration started from (informational once loaded).
    pub preset: Option<String>,
    /// Main clips (segments and kickers) after which the session ends; `None`: until stopped.
    pub max_segments: Option<u32>,
    pub segment_seconds: SegmentSeconds,
    /// Beats (barge points) asked of each segment: sentence boundaries.
    pub beats: u32,
    /// Segments a speaker may hold in a row when every listener passes.
    pub max_contiguous_segments: u32,
    pub interjections: InterjectionConfig,
    pub tokens: TokenConfig,
    pub pricing: PricingConfig,
    pub bidding: BiddingConfig,
    pub fairness: FairnessConfig,
    pub emotion_control: EmotionControl,
    pub emotion: EmotionConfig,
    pub anti_hoarding: AntiHoardingConfig,
    pub cooldowns: CooldownConfig,
    pub evidence_priority: EvidenceConfig,
    pub reputation: ReputationConfig,
    pub interrupt: InterruptConfig,
    pub timing: TimingConfig,
    /// Adaptation of `timing.resolve_lead_ms` to measured misses.
    pub lead_time: LeadTimeConfig,
    /// Model requests in flight at once, and the model bid timeout.
    pub concurrency: ConcurrencyConfig,
    /// Model requests per minute (the budget governor).
    pub quality: QualityConfig,
    pub observability: ObservabilityConfig,
}

impl Default for AuctionConfig {
    fn default() -> Self {
        Self {
            mode: ConversationMode::Auction,
            preset: None,
            max_segments: None,
            segment_seconds: SegmentSeconds::default(),
            beats: 2,
            max_contiguous_segments: 2,
            interjections: InterjectionConfig::default(),
            tokens: TokenConfig::default(),
            pricing: PricingConfig::default(),
            bidding: BiddingConfig::default(),
            fairness: FairnessConfig::default(),
            emotion_control: EmotionControl::Heuristic,
            emotion: EmotionConfig::default(),
            anti_hoarding: AntiHoardingConfig::default(),
            cooldowns: CooldownConfig::default(),
            evidence_priority: EvidenceConfig::default(),
            reputation: ReputationConfig::default(),
            interrupt: InterruptConfig::default(),
            timing: TimingConfig::default(),
            lead_time: LeadTimeConfig::default(),
            concurrency: ConcurrencyConfig::default(),
            quality: QualityConfig::default(),
            observability: ObservabilityConfig::default(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConversationMode {
    #[default]
    Auction,
}

impl AuctionConfig {
    /// Parses and validates YAML (an empty document gives the defaults).
    pub fn from_yaml(text: &str) -> Result<Self, ConfigError> {
        let value: serde_yaml::Value =
            serde_yaml::from_str(text).map_err(|e| ConfigError::Yaml(e.to_string()))?;
        let value = match value {
            serde_yaml::Value::Null => serde_yaml::Value::Mapping(Default::default()),
            v @ serde_yaml::Value::Mapping(_) => v,
            _ => return Err(ConfigError::Yaml("the document must be a mapping".into())),
        };
        reject_removed(&value)?;
        let preset = match value.get("preset") {
            None | Some(serde_yaml::Value::Null) => None,
            Some(serde_yaml::Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(invalid("preset", "must be a string")),
        };
        let merged = match preset {
            Some(name) => {
                let base = serde_yaml::to_value(Self::preset(&name)?)
                    .map_err(|e| ConfigError::Yaml(e.to_string()))?;
                merge(base, value)
            }
            None => value,
        };
        let config: Self =
            serde_yaml::from_value(merged).map_err(|e| ConfigError::Yaml(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }
}

/// `over` wins; mappings merge key by key.
fn merge(base: serde_yaml::Value, over: serde_yaml::Value) -> serde_yaml::Value {
    use serde_yaml::Value;
    match (base, over) {
        (Value::Mapping(mut b), Value::Mapping(o)) => {
            for (k, v) in o {
                let merged = match b.remove(&k) {
                    Some(existing) => merge(existing, v),
                    None => v,
                };
                b.insert(k, merged);
            }
            Value::Mapping(b)
        }
        (_, o) => o,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_match_the_reference() {
        let c = AuctionConfig::default();
        c.validate().unwrap();
        assert_eq!(c.beats, 2);
        assert_eq!(c.tokens.max_bank, 8);
        assert_eq!(c.interjections.cost, 2);
        assert_eq!(c.interjections.max_per_segment, 1);
        assert_eq!(c.interjections.cooldown_segments, 2);
        assert_eq!(c.pricing.kicker_delta, 2);
        assert_eq!(c.pricing.kicker_fee, 1);
        assert_eq!(c.fairness.tax_rate, 0.15);
        assert_eq!(c.segment_seconds.max, 8.0);
        assert_eq!(c.emotion.frustration_decay, 0.95);
        assert_eq!(c.emotion.engagement_decay, 0.98);
    }

    #[test]
    fn presets_are_valid() {
        AuctionConfig::debate_snappy().validate().unwrap();
        AuctionConfig::panel_civil().validate().unwrap();
        assert!(AuctionConfig::preset("nope").is_err());
    }

    #[test]
    fn empty_yaml_gives_defaults() {
        assert_eq!(
            AuctionConfig::from_yaml("").unwrap(),
            AuctionConfig::default()
        );
    }

    #[test]
    fn preset_then_overrides() {
        let c = AuctionConfig::from_yaml(
            "preset: panel_civil\ntokens: { max_bank: 7 }\ninterrupt: { commit_guard_ms: 150 }\n",
        )
        .unwrap();
        assert_eq!(c.tokens.max_bank, 7);
        assert_eq!(c.interrupt.commit_guard_ms, 150);
        assert_eq!(c.interrupt.mode, InterruptMode::BeatOnly);
        assert_eq!(c.beats, 3);
        assert_eq!(c.emotion_control, EmotionControl::Llm);
    }

    #[test]
    fn unknown_keys_and_bad_values_are_refused() {
        assert!(matches!(
            AuctionConfig::from_yaml("tokens: { max_bnk: 7 }"),
            Err(ConfigError::Yaml(_))
        ));
        assert!(matches!(
            AuctionConfig::from_yaml("tokens: { max_bank: 0 }"),
            Err(ConfigError::Invalid { .. })
        ));
        assert!(matches!(
            AuctionConfig::from_yaml("preset: loud"),
            Err(ConfigError::UnknownPreset(_))
        ));
        assert!(AuctionConfig::from_yaml("- 1\n- 2").is_err());
    }

    #[test]
    fn yaml_round_trips() {
        let c = AuctionConfig::debate_snappy();
        let text = serde_yaml::to_string(&c).unwrap();
        assert_eq!(AuctionConfig::from_yaml(&text).unwrap(), c);
    }

    #[test]
    fn per_agent_style_overrides() {
        let c = AuctionConfig::from_yaml(
            "bidding: { agents: { hawk: { eagerness: 0.9, source: llm } } }",
        )
        .unwrap();
        let hawk = c.style_of("hawk");
        assert_eq!(hawk.eagerness, 0.9);
        assert_eq!(hawk.source, BidSource::Llm);
        assert_eq!(c.style_of("dove").eagerness, 0.5);
    }

    #[test]
    fn removed_keys_are_refused_by_name() {
        for (doc, key) in [
            ("tts: { voice: alloy }", "tts"),
            ("lead_time: { baseline_ms: 900 }", "lead_time.baseline_ms"),
            (
                "concurrency: { prefetch: { bids: true } }",
                "concurrency.prefetch",
            ),
            (
                "concurrency: { timeouts_ms: { segment: 900 } }",
                "concurrency.timeouts_ms.segment",
            ),
            (
                "preset: panel_civil\nquality: { mode: premium }",
                "quality.mode",
            ),
            ("quality: { budget_per_min: 2.0 }", "quality.budget_per_min"),
        ] {
            let err = AuctionConfig::from_yaml(doc).unwrap_err();
            assert!(
                matches!(err, ConfigError::Removed { key: k, .. } if k == key),
                "{doc}: {err}"
            );
            assert!(err.to_string().contains(key));
        }
    }

    #[test]
    fn only_one_kicker_may_be_prebuffered() {
        assert!(AuctionConfig::from_yaml("interrupt: { prebuffer_top: 1 }").is_ok());
        assert!(matches!(
            AuctionConfig::from_yaml("interrupt: { prebuffer_top: 2 }"),
            Err(ConfigError::Invalid {
                field: "interrupt.prebuffer_top",
                ..
            })
        ));
    }

    #[test]
    fn limits_and_lead_time_are_checked() {
        let c = AuctionConfig::from_yaml(
            "concurrency: { global_limit: 4, per_agent_limit: 1, timeouts_ms: { bid: 300 } }\n\
             quality: { llm_calls_per_min: 30 }\nlead_time: { max_ms: 4000 }\n",
        )
        .unwrap();
        assert_eq!(c.concurrency.global_limit, Some(4));
        assert_eq!(c.quality.llm_calls_per_min, Some(30));
        for doc in [
            "concurrency: { global_limit: 0 }",
            "quality: { llm_calls_per_min: 0 }",
            "timing: { resolve_lead_ms: 3000 }\nlead_time: { max_ms: 2000 }",
            "lead_time: { window_segments: 0 }",
        ] {
            assert!(
                matches!(
                    AuctionConfig::from_yaml(doc),
                    Err(ConfigError::Invalid { .. })
                ),
                "{doc}"
            );
        }
    }
}

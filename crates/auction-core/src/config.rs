//! Session configuration: every knob of the auction mode, with the reference defaults,
//! loaded from YAML and validated.
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
//! Unknown keys are errors, so a typo never silently falls back to a default.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Why a configuration was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    #[error("invalid YAML: {0}")]
    Yaml(String),
    #[error("unknown preset `{0}` (known: debate_snappy, panel_civil)")]
    UnknownPreset(String),
    #[error("invalid `{field}`: {reason}")]
    Invalid { field: &'static str, reason: String },
}

fn invalid(field: &'static str, reason: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        field,
        reason: reason.into(),
    }
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
    pub tts: TtsConfig,
    pub interrupt: InterruptConfig,
    pub timing: TimingConfig,
    pub lead_time: LeadTimeConfig,
    pub concurrency: ConcurrencyConfig,
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
            tts: TtsConfig::default(),
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Accrual {
    /// +1 to every agent when a main clip completes.
    #[default]
    PerSegment,
    /// +1 per `period_seconds` of not speaking, with the wall-clock decay.
    WallClock,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TokenConfig {
    pub accrual: Accrual,
    pub period_seconds: f64,
    pub max_bank: u32,
    /// Balance of every agent at the start of the session.
    pub initial: u32,
    /// Wall-clock mode only: `tokens = floor(tokens × (1 − decay))` per minute.
    pub wall_clock_decay: f64,
    /// An agent that has not spoken for this many segments and holds nothing gets 1 token.
    pub stipend_segments: u32,
}

impl Default for TokenConfig {
    fn default() -> Self {
        Self {
            accrual: Accrual::PerSegment,
            period_seconds: 30.0,
            max_bank: 8,
            initial: 3,
            wall_clock_decay: 0.02,
            stipend_segments: 4,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PricingConfig {
    /// Smallest bid that counts as a bid (below: pass).
    pub min_bid: u32,
    /// The softmax share of the desire is scaled to this many tokens.
    pub max_bid: u32,
    /// A hard interrupt needs a bid at least this much above the runner-up.
    pub kicker_delta: u32,
    /// Base fee paid on top of the bid for a hard interrupt.
    pub kicker_fee: u32,
    /// Extra fee per hard interrupt already made in the budget window.
    pub fee_escalation: u32,
    /// Interrupting a speaker with at least this reputation costs one token more.
    pub reputation_fee_threshold: f64,
    /// Largest rebate (fraction of the bid) for an agent far below its target share.
    pub subsidy_rate: f64,
}

impl Default for PricingConfig {
    fn default() -> Self {
        Self {
            min_bid: 1,
            max_bid: 4,
            kicker_delta: 2,
            kicker_fee: 1,
            fee_escalation: 1,
            reputation_fee_threshold: 0.5,
            subsidy_rate: 0.5,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BidSource {
    /// Bids from the desire formula (default, no model calls).
    #[default]
    Heuristic,
    /// Tiny JSON bids asked of the model, heuristic on error or timeout.
    Llm,
}

/// Weights of the desire formula; per-agent overrides leave unset fields at the session value.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AgentStyle {
    pub w_backlog: Option<f64>,
    pub w_recency: Option<f64>,
    pub w_emotion: Option<f64>,
    /// How much this persona has to say by default (0..1), the resting backlog.
    pub eagerness: Option<f64>,
    /// Bid source for this agent only.
    pub source: Option<BidSource>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BiddingConfig {
    pub source: BidSource,
    pub w_backlog: f64,
    pub w_recency: f64,
    pub w_emotion: f64,
    pub eagerness: f64,
    /// τ of the softmax mapping desire → bid.
    pub softmax_tau: f64,
    /// A desire below this is a pass.
    pub pass_below: f64,
    /// Heuristic kicker intent: frustration at or above this.
    pub kicker_frustration: f64,
    pub agents: BTreeMap<String, AgentStyle>,
}

impl Default for BiddingConfig {
    fn default() -> Self {
        Self {
            source: BidSource::Heuristic,
            w_backlog: 1.5,
            w_recency: 2.0,
            w_emotion: 1.0,
            eagerness: 0.5,
            softmax_tau: 0.3,
            pass_below: 0.6,
            kicker_frustration: 0.4,
            agents: BTreeMap::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FairnessMode {
    /// EMA pacing multiplier p ∈ (0, 1] on the bid (0.2 behaviour).
    #[default]
    Pacing,
    /// The MVP flat tax: over-target agents' bids count `1 / (1 + tax_rate)`.
    Tax,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FairnessConfig {
    pub mode: FairnessMode,
    /// Target talk-time share; `None`: `1 / number of agents`.
    pub target_share: Option<f64>,
    pub tax_rate: f64,
    /// EMA weight of the pacing update per micro-turn.
    pub pacing_alpha: f64,
    /// Lower bound of the pacing multiplier.
    pub pacing_min: f64,
}

impl Default for FairnessConfig {
    fn default() -> Self {
        Self {
            mode: FairnessMode::Pacing,
            target_share: None,
            tax_rate: 0.15,
            pacing_alpha: 0.3,
            pacing_min: 0.2,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EmotionControl {
    /// Event-driven heuristics only; model mood reports are ignored.
    #[default]
    Heuristic,
    /// Model reports are authoritative (clamped, smoothed); heuristics are ignored.
    Llm,
    /// Model reports as the baseline, heuristic events as small nudges.
    Hybrid,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EmotionConfig {
    /// EMA weight of a model mood report.
    pub ema_alpha: f64,
    /// Largest change of one variable per report.
    pub max_step: f64,
    /// Micro-turns a variable must move one way before it may reverse.
    pub dwell_microturns: u32,
    /// Mood signal within ±deadband has no effect on bids.
    pub deadband: f64,
    /// Largest effect of mood on a bid, in tokens.
    pub influence_cap_tokens: u32,
    /// Tokens per unit of mood signal beyond the deadband.
    pub bid_gain: f64,
    /// Largest heuristic nudge in hybrid mode.
    pub hybrid_nudge: f64,
    pub frustration_decay: f64,
    pub engagement_decay: f64,
}

impl Default for EmotionConfig {
    fn default() -> Self {
        Self {
            ema_alpha: 0.4,
            max_step: 0.3,
            dwell_microturns: 2,
            deadband: 0.1,
            influence_cap_tokens: 1,
            bid_gain: 3.0,
            hybrid_nudge: 0.05,
            frustration_decay: 0.95,
            engagement_decay: 0.98,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AntiHoardingConfig {
    pub enabled: bool,
    /// Fraction of a balance above `threshold` lost per minute (at least one token).
    pub decay: f64,
    pub threshold: u32,
    /// Segments without spending after which `reserve_tokens` expire.
    pub reserve_expiry_segments: u32,
    pub reserve_tokens: u32,
}

impl Default for AntiHoardingConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            decay: 0.1,
            threshold: 6,
            reserve_expiry_segments: 6,
            reserve_tokens: 1,
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvidenceConfig {
    pub enabled: bool,
    /// Price discount of an accepted evidence-backed bid.
    pub discount: f64,
    /// An agent gets the priority at most once per this many segments.
    pub agent_window_segments: u32,
    /// Quality gate: smallest relevance score accepted.
    pub min_relevance: f64,
}

impl Default for EvidenceConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            discount: 0.1,
            agent_window_segments: 3,
            min_relevance: 0.5,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReputationConfig {
    /// α of `reputation = (1 − α)·reputation + α·event_value`.
    pub alpha: f64,
    /// Largest price discount from reputation.
    pub discount_cap: f64,
    /// Fraction lost per micro-turn, to keep the score responsive.
    pub decay: f64,
    pub uninterrupted_segment: f64,
    pub strong_evidence: f64,
    pub interrupted: f64,
    pub low_quality: f64,
}

impl Default for ReputationConfig {
    fn default() -> Self {
        Self {
            alpha: 0.1,
            discount_cap: 0.1,
            decay: 0.02,
            uninterrupted_segment: 0.3,
            strong_evidence: 0.2,
            interrupted: -0.2,
            low_quality: -0.1,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LatencyMode {
    #[default]
    Low,
    Balanced,
    High,
}

/// The spec's speech settings. Not acted on: the player's own env (`TTS_BACKEND`,
/// `VOICE_MAP`, ...) chooses the voices. Accepted so that a spec configuration loads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TtsConfig {
    pub provider: String,
    pub voice: String,
    pub latency_mode: LatencyMode,
    pub enhanced_expressivity: bool,
}

impl Default for TtsConfig {
    fn default() -> Self {
        Self {
            provider: "default".into(),
            voice: "default".into(),
            latency_mode: LatencyMode::Low,
            enhanced_expressivity: false,
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TimingConfig {
    /// A beat reported more than this after its planned time is late: no interjection
    /// or interrupt lands on it; they wait for the next beat.
    pub late_beat_ms: u64,
    /// The auction must be resolved this long before the planned end of the segment;
    /// otherwise missing bids are filled heuristically and no interrupt happens this turn.
    pub resolve_lead_ms: u64,
    /// Speaking rate used when a segment comes without a planned duration.
    pub words_per_second: f64,
}

impl Default for TimingConfig {
    fn default() -> Self {
        Self {
            late_beat_ms: 250,
            resolve_lead_ms: 2000,
            words_per_second: 2.7,
        }
    }
}

/// Adaptive prefetch lead time (the spec's A4). Validated but not acted on yet: the next
/// speaker's segment is requested as soon as each micro-turn's auction is resolved (the
/// one-segment reserve), whatever these say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LeadTimeConfig {
    pub baseline_ms: u64,
    pub max_ms: u64,
    pub add_increase_ms: u64,
    pub mult_decrease: f64,
    pub miss_rate_threshold: f64,
    pub window_segments: u32,
    pub top_k_prebuffer_max: u32,
    pub discard_budget_s_per_min: f64,
}

impl Default for LeadTimeConfig {
    fn default() -> Self {
        Self {
            baseline_ms: 1000,
            max_ms: 10_000,
            add_increase_ms: 250,
            mult_decrease: 0.8,
            miss_rate_threshold: 0.2,
            window_segments: 20,
            top_k_prebuffer_max: 2,
            discard_budget_s_per_min: 4.0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TimeoutsMs {
    pub segment: u64,
    pub interjection: u64,
    /// Model bids not received within this are replaced by heuristic bids.
    pub bid: u64,
}

impl Default for TimeoutsMs {
    fn default() -> Self {
        Self {
            segment: 1200,
            interjection: 600,
            bid: 500,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PrefetchConfig {
    pub segments_top_k: u32,
    pub interjections: bool,
    pub bids: bool,
}

impl Default for PrefetchConfig {
    fn default() -> Self {
        Self {
            segments_top_k: 1,
            interjections: true,
            bids: true,
        }
    }
}

/// Of these, the core acts on `timeouts_ms.bid`; the limits and `prefetch` are validated
/// but not acted on yet (requests go out one per need: a segment per micro-turn, a bid
/// per listener, a kicker for the top bidder).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ConcurrencyConfig {
    pub global_limit: u32,
    pub per_agent_limit: u32,
    pub timeouts_ms: TimeoutsMs,
    pub prefetch: PrefetchConfig,
}

impl Default for ConcurrencyConfig {
    fn default() -> Self {
        Self {
            global_limit: 8,
            per_agent_limit: 1,
            timeouts_ms: TimeoutsMs::default(),
            prefetch: PrefetchConfig::default(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QualityMode {
    #[default]
    Auto,
    Baseline,
    Enhanced,
    Premium,
}

/// Budget governor inputs. Validated but not acted on yet (there is no budget governor).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QualityConfig {
    pub mode: QualityMode,
    pub budget_per_min: f64,
    pub llm_calls_per_min: u32,
}

impl Default for QualityConfig {
    fn default() -> Self {
        Self {
            mode: QualityMode::Auto,
            budget_per_min: 0.0,
            llm_calls_per_min: 60,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ObservabilityConfig {
    /// Mood vectors are session-private; they enter records only when this is set.
    pub log_mood: bool,
}

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

    /// Parses and validates YAML (an empty document gives the defaults).
    pub fn from_yaml(text: &str) -> Result<Self, ConfigError> {
        let value: serde_yaml::Value =
            serde_yaml::from_str(text).map_err(|e| ConfigError::Yaml(e.to_string()))?;
        let value = match value {
            serde_yaml::Value::Null => serde_yaml::Value::Mapping(Default::default()),
            v @ serde_yaml::Value::Mapping(_) => v,
            _ => return Err(ConfigError::Yaml("the document must be a mapping".into())),
        };
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

    /// Checks ranges and cross-field consistency.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let s = &self.segment_seconds;
        if !(s.min > 0.0 && s.min <= s.target && s.target <= s.max && s.max <= 60.0) {
            return Err(invalid(
                "segment_seconds",
                "need 0 < min ≤ target ≤ max ≤ 60",
            ));
        }
        if !(1..=8).contains(&self.beats) {
            return Err(invalid("beats", "must be 1..=8"));
        }
        if self.max_contiguous_segments == 0 {
            return Err(invalid("max_contiguous_segments", "must be at least 1"));
        }
        if self.max_segments == Some(0) {
            return Err(invalid("max_segments", "must be at least 1"));
        }
        let t = &self.tokens;
        if t.max_bank == 0 || t.max_bank > 1000 {
            return Err(invalid("tokens.max_bank", "must be 1..=1000"));
        }
        if t.initial > t.max_bank {
            return Err(invalid("tokens.initial", "must not exceed max_bank"));
        }
        if !(t.period_seconds.is_finite() && t.period_seconds >= 1.0) {
            return Err(invalid("tokens.period_seconds", "must be at least 1"));
        }
        unit("tokens.wall_clock_decay", t.wall_clock_decay)?;
        if t.stipend_segments == 0 {
            return Err(invalid("tokens.stipend_segments", "must be at least 1"));
        }
        let p = &self.pricing;
        if p.min_bid == 0 || p.min_bid > p.max_bid || p.max_bid > t.max_bank {
            return Err(invalid(
                "pricing",
                "need 1 ≤ min_bid ≤ max_bid ≤ tokens.max_bank",
            ));
        }
        unit("pricing.subsidy_rate", p.subsidy_rate)?;
        unit(
            "pricing.reputation_fee_threshold",
            p.reputation_fee_threshold,
        )?;
        let b = &self.bidding;
        for (field, w) in [
            ("bidding.w_backlog", b.w_backlog),
            ("bidding.w_recency", b.w_recency),
            ("bidding.w_emotion", b.w_emotion),
        ] {
            if !(w.is_finite() && (0.0..=100.0).contains(&w)) {
                return Err(invalid(field, "must be within 0..=100"));
            }
        }
        unit("bidding.eagerness", b.eagerness)?;
        if !(b.softmax_tau.is_finite() && b.softmax_tau > 0.0 && b.softmax_tau <= 10.0) {
            return Err(invalid("bidding.softmax_tau", "must be within (0, 10]"));
        }
        if !(b.pass_below.is_finite() && b.pass_below >= 0.0) {
            return Err(invalid("bidding.pass_below", "must be ≥ 0"));
        }
        unit("bidding.kicker_frustration", b.kicker_frustration)?;
        for style in b.agents.values() {
            for w in [style.w_backlog, style.w_recency, style.w_emotion]
                .into_iter()
                .flatten()
            {
                if !(w.is_finite() && (0.0..=100.0).contains(&w)) {
                    return Err(invalid("bidding.agents", "weights must be within 0..=100"));
                }
            }
            if let Some(e) = style.eagerness {
                unit("bidding.agents.eagerness", e)?;
            }
        }
        let f = &self.fairness;
        if let Some(share) = f.target_share
            && !(share.is_finite() && share > 0.0 && share <= 1.0)
        {
            return Err(invalid("fairness.target_share", "must be within (0, 1]"));
        }
        unit("fairness.tax_rate", f.tax_rate)?;
        if !(f.pacing_alpha > 0.0 && f.pacing_alpha <= 1.0) {
            return Err(invalid("fairness.pacing_alpha", "must be within (0, 1]"));
        }
        if !(f.pacing_min > 0.0 && f.pacing_min <= 1.0) {
            return Err(invalid("fairness.pacing_min", "must be within (0, 1]"));
        }
        let e = &self.emotion;
        if !(e.ema_alpha > 0.0 && e.ema_alpha <= 1.0) {
            return Err(invalid("emotion.ema_alpha", "must be within (0, 1]"));
        }
        unit("emotion.max_step", e.max_step)?;
        unit("emotion.deadband", e.deadband)?;
        unit("emotion.hybrid_nudge", e.hybrid_nudge)?;
        unit("emotion.frustration_decay", e.frustration_decay)?;
        unit("emotion.engagement_decay", e.engagement_decay)?;
        if !(e.bid_gain.is_finite() && (0.0..=100.0).contains(&e.bid_gain)) {
            return Err(invalid("emotion.bid_gain", "must be within 0..=100"));
        }
        if e.influence_cap_tokens > 3 {
            return Err(invalid("emotion.influence_cap_tokens", "at most 3"));
        }
        let a = &self.anti_hoarding;
        unit("anti_hoarding.decay", a.decay)?;
        if a.threshold > t.max_bank {
            return Err(invalid(
                "anti_hoarding.threshold",
                "must not exceed max_bank",
            ));
        }
        if a.reserve_expiry_segments == 0 {
            return Err(invalid(
                "anti_hoarding.reserve_expiry_segments",
                "must be at least 1",
            ));
        }
        let i = &self.interjections;
        if i.max_words == 0 || i.max_words > 15 {
            return Err(invalid("interjections.max_words", "must be 1..=15"));
        }
        if i.cost > t.max_bank {
            return Err(invalid("interjections.cost", "must not exceed max_bank"));
        }
        if !(i.duck_db.is_finite() && (-60.0..=0.0).contains(&i.duck_db)) {
            return Err(invalid("interjections.duck_db", "must be within -60..=0"));
        }
        unit("interjections.ack_importance", i.ack_importance)?;
        unit("interjections.probability", i.probability)?;
        let ev = &self.evidence_priority;
        unit("evidence_priority.discount", ev.discount)?;
        unit("evidence_priority.min_relevance", ev.min_relevance)?;
        if ev.agent_window_segments == 0 {
            return Err(invalid(
                "evidence_priority.agent_window_segments",
                "must be at least 1",
            ));
        }
        let r = &self.reputation;
        if !(r.alpha > 0.0 && r.alpha <= 1.0) {
            return Err(invalid("reputation.alpha", "must be within (0, 1]"));
        }
        unit("reputation.discount_cap", r.discount_cap)?;
        unit("reputation.decay", r.decay)?;
        for v in [
            r.uninterrupted_segment,
            r.strong_evidence,
            r.interrupted,
            r.low_quality,
        ] {
            if !(v.is_finite() && (-1.0..=1.0).contains(&v)) {
                return Err(invalid("reputation", "event values must be within -1..=1"));
            }
        }
        let k = &self.interrupt;
        if k.kicker_words[0] == 0 || k.kicker_words[0] > k.kicker_words[1] || k.kicker_words[1] > 18
        {
            return Err(invalid("interrupt.kicker_words", "need 1 ≤ min ≤ max ≤ 18"));
        }
        if k.window_segments == 0 {
            return Err(invalid("interrupt.window_segments", "must be at least 1"));
        }
        if k.crossfade_ms > 2000 || k.fade_in_ms > 2000 {
            return Err(invalid("interrupt", "fades must be at most 2000 ms"));
        }
        if k.prebuffer_top > 2 {
            return Err(invalid("interrupt.prebuffer_top", "must be 0..=2"));
        }
        let tm = &self.timing;
        if !(tm.words_per_second.is_finite() && (0.5..=10.0).contains(&tm.words_per_second)) {
            return Err(invalid(
                "timing.words_per_second",
                "must be within 0.5..=10",
            ));
        }
        let l = &self.lead_time;
        if l.baseline_ms > l.max_ms {
            return Err(invalid("lead_time", "baseline_ms must not exceed max_ms"));
        }
        unit("lead_time.mult_decrease", l.mult_decrease)?;
        unit("lead_time.miss_rate_threshold", l.miss_rate_threshold)?;
        if l.window_segments == 0 {
            return Err(invalid("lead_time.window_segments", "must be at least 1"));
        }
        if !(l.discard_budget_s_per_min.is_finite() && l.discard_budget_s_per_min >= 0.0) {
            return Err(invalid("lead_time.discard_budget_s_per_min", "must be ≥ 0"));
        }
        let c = &self.concurrency;
        if c.global_limit == 0 || c.per_agent_limit == 0 {
            return Err(invalid("concurrency", "limits must be at least 1"));
        }
        if !(self.quality.budget_per_min.is_finite() && self.quality.budget_per_min >= 0.0) {
            return Err(invalid("quality.budget_per_min", "must be ≥ 0"));
        }
        Ok(())
    }

    /// The effective style of `agent`: session weights with its overrides applied.
    pub fn style_of(&self, agent: &str) -> ResolvedStyle {
        let b = &self.bidding;
        let o = b.agents.get(agent).cloned().unwrap_or_default();
        ResolvedStyle {
            w_backlog: o.w_backlog.unwrap_or(b.w_backlog),
            w_recency: o.w_recency.unwrap_or(b.w_recency),
            w_emotion: o.w_emotion.unwrap_or(b.w_emotion),
            eagerness: o.eagerness.unwrap_or(b.eagerness),
            source: o.source.unwrap_or(b.source),
        }
    }
}

/// Desire weights of one agent after overrides.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ResolvedStyle {
    pub w_backlog: f64,
    pub w_recency: f64,
    pub w_emotion: f64,
    pub eagerness: f64,
    pub source: BidSource,
}

fn unit(field: &'static str, v: f64) -> Result<(), ConfigError> {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(invalid(field, "must be within 0..=1"))
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
}

//! Range and cross-field checks of a whole configuration.

use super::{AuctionConfig, ConfigError, invalid};

impl AuctionConfig {
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
        // Only the top bidder's kicker is ever prepared: a deeper prebuffer would be inert.
        if k.prebuffer_top > 1 {
            return Err(invalid(
                "interrupt.prebuffer_top",
                "must be 0 (no hard interrupts) or 1 (the top bidder's kicker is prepared)",
            ));
        }
        let tm = &self.timing;
        if !(tm.words_per_second.is_finite() && (0.5..=10.0).contains(&tm.words_per_second)) {
            return Err(invalid(
                "timing.words_per_second",
                "must be within 0.5..=10",
            ));
        }
        let l = &self.lead_time;
        if l.max_ms < tm.resolve_lead_ms {
            return Err(invalid(
                "lead_time.max_ms",
                "must not be below timing.resolve_lead_ms",
            ));
        }
        unit("lead_time.mult_decrease", l.mult_decrease)?;
        unit("lead_time.miss_rate_threshold", l.miss_rate_threshold)?;
        if l.window_segments == 0 {
            return Err(invalid("lead_time.window_segments", "must be at least 1"));
        }
        let c = &self.concurrency;
        if c.global_limit == Some(0) || c.per_agent_limit == Some(0) {
            return Err(invalid("concurrency", "limits must be at least 1"));
        }
        if self.quality.llm_calls_per_min == Some(0) {
            return Err(invalid("quality.llm_calls_per_min", "must be at least 1"));
        }
        Ok(())
    }
}

fn unit(field: &'static str, v: f64) -> Result<(), ConfigError> {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(())
    } else {
        Err(invalid(field, "must be within 0..=1"))
    }
}

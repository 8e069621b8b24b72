//! Property tests of the parsers and of the sub-managers' invariants.

use auction_core::config::{
    AntiHoardingConfig, CooldownConfig, EmotionConfig, EmotionControl, EvidenceConfig,
    InterruptConfig, PricingConfig, TokenConfig,
};
use auction_core::emotion::{EmotionState, Mood, MoodEvent};
use auction_core::evidence::{EvidenceClaim, EvidenceLane, EvidenceVerdict};
use auction_core::interjection::InterjectionKind;
use auction_core::interrupt::{InterruptPolicy, KickerBid};
use auction_core::resolver::{Candidate, price, rank};
use auction_core::tokens::TokenManager;
use auction_core::{AuctionConfig, parse_bid, parse_mood, parse_segment_payload, sanitize_spoken};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn bid_parser_never_panics(s in "\\PC{0,80}") {
        let _ = parse_bid(&s);
    }

    #[test]
    fn bid_parser_never_panics_on_json_soup(s in "[{}\\[\\]\":,a-z0-9 .\\-\\\\]{0,60}") {
        if let Ok(b) = parse_bid(&s) {
            prop_assert!(b.bid <= 1000);
        }
    }

    #[test]
    fn mood_parser_never_panics_and_clamps(s in "\\PC{0,80}", f in -2.0f64..3.0, e in -2.0f64..3.0, c in -2.0f64..3.0) {
        let _ = parse_mood(&s);
        let text = format!("{{\"frustration\":{f},\"engagement\":{e},\"confidence\":{c}}}");
        if let Ok(m) = parse_mood(&text) {
            for v in [m.frustration, m.engagement, m.confidence] {
                prop_assert!((0.0..=1.0).contains(&v));
            }
        }
    }

    #[test]
    fn segment_payload_never_panics(s in "\\PC{0,120}") {
        let p = parse_segment_payload(&s);
        prop_assert!(p.text.len() <= s.len());
        let tagged = format!("<<<SEGMENT>>>{s}<<<MOOD>>>{s}");
        let _ = parse_segment_payload(&tagged);
    }

    #[test]
    fn config_parser_never_panics(s in "\\PC{0,120}") {
        let _ = AuctionConfig::from_yaml(&s);
    }

    #[test]
    fn config_parser_never_panics_on_yaml_soup(s in "[a-z_:{} \\n0-9.,\\-\\[\\]]{0,80}") {
        if let Ok(c) = AuctionConfig::from_yaml(&s) {
            prop_assert!(c.validate().is_ok());
        }
    }

    #[test]
    fn sanitised_text_is_capped_and_clean(s in "\\PC{0,120}", max in 1usize..15) {
        let t = sanitize_spoken(&s, max);
        prop_assert!(t.split_whitespace().count() <= max);
        prop_assert!(!t.contains("```"));
        prop_assert!(!t.contains('"'));
        prop_assert!(!t.chars().any(|c| c.is_control()));
    }

    /// Balances stay within 0..=max_bank whatever happens, in both accrual modes.
    #[test]
    fn token_banks_stay_in_bounds(
        wall in any::<bool>(),
        steps in prop::collection::vec((0u8..4, 0usize..3, 0u32..10, 0u64..90_000), 1..200),
    ) {
        let mut cfg = TokenConfig::default();
        if wall {
            cfg.accrual = auction_core::config::Accrual::WallClock;
        }
        let mut t = TokenManager::new(3, &cfg, &AntiHoardingConfig::default());
        let mut now = 0;
        for (op, agent, amount, dt) in steps {
            match op {
                0 => { let _ = t.spend(agent, amount); }
                1 => t.end_of_segment(Some(agent)),
                2 => t.end_of_segment(None),
                _ => { now += dt; t.advance(now, Some(agent)); }
            }
            for &b in t.balances() {
                prop_assert!(b <= cfg.max_bank);
            }
        }
    }

    /// Anti-hoarding: a passive bank above the threshold comes down to it within
    /// a few minutes when nothing is earned.
    #[test]
    fn hoards_come_down(initial in 0u32..=8, minutes in 3u64..10) {
        let cfg = TokenConfig { initial, accrual: auction_core::config::Accrual::WallClock, period_seconds: 1e6, ..TokenConfig::default() };
        let hoard = AntiHoardingConfig::default();
        let mut t = TokenManager::new(1, &cfg, &hoard);
        t.advance(0, None);
        t.advance(minutes * 60_000, None);
        prop_assert!(t.balance(0) <= hoard.threshold);
        prop_assert!(t.balance(0) <= initial);
    }

    /// Interrupt budgets per window and per-agent cooldowns hold for any bid stream.
    #[test]
    fn interrupt_budget_and_cooldown(
        bids in prop::collection::vec((0usize..3, 0u32..8, 0u32..8, 0u32..9), 1..120),
    ) {
        let cfg = InterruptConfig::default();
        let cd = CooldownConfig::default();
        let pr = PricingConfig::default();
        let mut p = InterruptPolicy::new(3);
        let mut made: Vec<(u32, usize)> = Vec::new();
        for (turn, (agent, bid, runner_up, balance)) in bids.into_iter().enumerate() {
            let turn = turn as u32 + 1;
            let fee = p.fee(turn, 0.0, &cfg, &pr);
            prop_assert!(fee >= pr.kicker_fee);
            let k = KickerBid { agent, turn, bid, runner_up, balance, fee };
            if p.check(&k, &cfg, &cd, &pr).is_ok() {
                prop_assert!(bid >= runner_up + pr.kicker_delta);
                prop_assert!(balance >= bid + fee);
                p.record(agent, turn);
                made.push((turn, agent));
            }
        }
        for &(t, a) in &made {
            let in_window = made.iter().filter(|&&(u, _)| u <= t && t - u < cfg.window_segments).count();
            prop_assert!(in_window as u32 <= cfg.max_per_window);
            prop_assert!(!made.iter().any(|&(u, b)| b == a && u > t && u <= t + cd.interrupt_microturns));
        }
    }

    /// The evidence lane accepts only gated claims, at most once per window per agent.
    #[test]
    fn evidence_lane_limits(
        claims in prop::collection::vec((0usize..3, 0u32..3, 0.0f64..1.0, 0u32..3), 1..100),
    ) {
        let cfg = EvidenceConfig::default();
        let mut lane = EvidenceLane::new(3);
        let mut turn = 0;
        let mut accepted: Vec<(usize, u32)> = Vec::new();
        for (agent, cites, relevance, dt) in claims {
            turn += dt;
            let claim = EvidenceClaim { citations: (0..cites).map(|i| format!("kb:{i}")).collect(), relevance };
            let v = lane.judge(agent, &claim, turn, &cfg);
            if v == EvidenceVerdict::Accepted {
                prop_assert!(cites > 0 && relevance >= cfg.min_relevance);
                prop_assert!(!accepted.iter().any(|&(a, t)| a == agent && turn < t + cfg.agent_window_segments));
                accepted.push((agent, turn));
            }
            if cites == 0 || relevance < cfg.min_relevance {
                prop_assert_eq!(v, EvidenceVerdict::Rejected);
            }
        }
    }

    /// Mood stays in [0, 1] in every mode; hybrid nudges never exceed the cap; the bid
    /// influence never exceeds ±1 token.
    #[test]
    fn mood_is_bounded(
        mode in 0u8..3,
        steps in prop::collection::vec((0u8..8, -1.0f64..2.0, -1.0f64..2.0, -1.0f64..2.0), 1..80),
        w in 0.0f64..100.0,
    ) {
        let control = [EmotionControl::Heuristic, EmotionControl::Llm, EmotionControl::Hybrid][mode as usize];
        let cfg = EmotionConfig::default();
        let mut e = EmotionState::new(control);
        for (op, f, en, c) in steps {
            let before = e.mood();
            match op {
                0 => e.apply_event(MoodEvent::LostBid, &cfg),
                1 => e.apply_event(MoodEvent::WonBid, &cfg),
                2 => e.apply_event(MoodEvent::MadeInterrupt, &cfg),
                3 => e.apply_event(MoodEvent::ReceivedInterjection(InterjectionKind::Challenge), &cfg),
                4 => e.end_micro_turn(&cfg),
                _ => { e.apply_report(Mood { frustration: f, engagement: en, confidence: c }, &cfg); }
            }
            let m = e.mood();
            for v in [m.frustration, m.engagement, m.confidence] {
                prop_assert!((0.0..=1.0).contains(&v));
            }
            if control == EmotionControl::Hybrid && op < 4 {
                prop_assert!((m.frustration - before.frustration).abs() <= cfg.hybrid_nudge + 1e-12);
            }
            if op >= 5 {
                prop_assert!((m.frustration - before.frustration).abs() <= cfg.max_step + 1e-12);
            }
            prop_assert!(e.bid_adjustment(w, &cfg).abs() <= cfg.influence_cap_tokens as i32);
        }
    }

    /// First price: the winner has the highest effective bid and pays at most its bid.
    #[test]
    fn resolution_is_first_price(
        bids in prop::collection::vec((0u32..9, 0.2f64..1.0, any::<bool>(), prop::option::of(0u32..20), 0.0f64..1.0), 1..6),
        discount in 0.0f64..1.0,
    ) {
        let cands: Vec<Candidate> = bids.iter().enumerate().map(|(agent, &(amount, multiplier, evidence, last_spoke_turn, share))| {
            Candidate { agent, amount, multiplier, evidence, last_spoke_turn, share }
        }).collect();
        let ranked = rank(&cands);
        if let Some(w) = ranked.first() {
            for c in &cands {
                prop_assert!(w.effective() + 1e-9 >= c.effective());
            }
            let p = price(w.amount, discount, 1);
            prop_assert!(p <= w.amount && p >= 1);
        } else {
            prop_assert!(cands.iter().all(|c| c.amount == 0));
        }
    }
}

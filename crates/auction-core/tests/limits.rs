//! The knobs that bound model requests and adapt the resolve lead, driven through the
//! debate's decisions with scripted times.

use auction_core::config::BidSource;
use auction_core::interrupt::InterruptBlock;
use auction_core::records::RecordKind;
use auction_core::{
    Action, AuctionConfig, AuctionDebate, BeatPlan, Event, SegmentRequest, Timeouts,
};

const AGENTS: [&str; 3] = ["ada", "bo", "cy"];

fn llm_config() -> AuctionConfig {
    let mut cfg = AuctionConfig::default();
    cfg.bidding.source = BidSource::Llm;
    cfg.tokens.initial = 8;
    cfg.interjections.probability = 0.0;
    cfg
}

fn requests(actions: &[Action]) -> Vec<SegmentRequest> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::RequestSegment(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

fn bid_requests(actions: &[Action]) -> Vec<(String, String)> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::RequestBid {
                agent, auction_id, ..
            } => Some((agent.clone(), auction_id.clone())),
            _ => None,
        })
        .collect()
}

fn fallbacks(actions: &[Action]) -> Vec<(String, String)> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Record(r) => match &r.kind {
                RecordKind::BidFallback(f) => Some((f.agent_id.clone(), f.reason.clone())),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

fn ready(req: &SegmentRequest, planned_ms: u64) -> Event {
    Event::SegmentReady {
        agent: req.agent.clone(),
        segment_id: req.segment_id.clone(),
        text: "One two three four five. Six seven eight nine ten. Eleven twelve thirteen.".into(),
        beats: vec![
            BeatPlan {
                index: 1,
                offset_ms: 2000,
            },
            BeatPlan {
                index: 2,
                offset_ms: 3500,
            },
        ],
        planned_ms: Some(planned_ms),
        mood: None,
    }
}

fn bid(agent: &str, auction: &str, text: &str) -> Event {
    Event::BidReceived {
        agent: agent.into(),
        auction_id: auction.into(),
        text: text.into(),
    }
}

/// Starts a session and plays its first segment (ada's) from t = 100.
fn first_segment(c: &mut AuctionDebate) -> (SegmentRequest, Vec<Action>) {
    let r = requests(&c.decide(Event::Start, 0)).pop().unwrap();
    let out = c.decide(ready(&r, 5000), 100);
    (r, out)
}

#[test]
fn global_limit_replaces_model_bids_over_it_with_heuristic_ones() {
    let mut cfg = llm_config();
    cfg.concurrency.global_limit = Some(1);
    let mut c = AuctionDebate::new(cfg, &AGENTS, "t", 7, Timeouts::default()).unwrap();
    let (_, out) = first_segment(&mut c);
    let asked = bid_requests(&out);
    assert_eq!(asked.len(), 1, "{out:#?}");
    assert_eq!(asked[0].0, "bo");
    assert_eq!(
        fallbacks(&out),
        [("cy".to_owned(), "concurrency limit".to_owned())]
    );
}

#[test]
fn call_budget_counts_segments_and_falls_back_within_the_minute() {
    let mut cfg = llm_config();
    // The cold-start segment and one bid fill the minute.
    cfg.quality.llm_calls_per_min = Some(2);
    let mut c = AuctionDebate::new(cfg, &AGENTS, "t", 7, Timeouts::default()).unwrap();
    let (_, out) = first_segment(&mut c);
    assert_eq!(bid_requests(&out).len(), 1);
    assert_eq!(
        fallbacks(&out),
        [("cy".to_owned(), "call budget".to_owned())]
    );
}

#[test]
fn without_limits_every_model_bidder_is_asked() {
    let mut c = AuctionDebate::new(llm_config(), &AGENTS, "t", 7, Timeouts::default()).unwrap();
    let (_, out) = first_segment(&mut c);
    assert_eq!(bid_requests(&out).len(), 2);
    assert!(fallbacks(&out).is_empty());
}

#[test]
fn per_agent_limit_keeps_the_winner_to_its_segment() {
    let mut cfg = llm_config();
    cfg.concurrency.per_agent_limit = Some(1);
    let mut c = AuctionDebate::new(cfg, &AGENTS, "t", 7, Timeouts::default()).unwrap();
    let (_, out) = first_segment(&mut c);
    let auction = bid_requests(&out)[0].1.clone();
    c.decide(
        bid(
            "bo",
            &auction,
            r#"{"action":"speak","bid":5,"kicker":true}"#,
        ),
        200,
    );
    let out = c.decide(
        bid(
            "cy",
            &auction,
            r#"{"action":"pass","bid":0,"kicker":false}"#,
        ),
        250,
    );
    assert!(
        !out.iter()
            .any(|a| matches!(a, Action::RequestKicker { .. })),
        "{out:#?}"
    );
    assert_eq!(requests(&out).pop().unwrap().agent, "bo");
    let block = out.iter().find_map(|a| match a {
        Action::Record(r) => match &r.kind {
            RecordKind::Auction(a) => Some(a.kicker_block),
            _ => None,
        },
        _ => None,
    });
    assert_eq!(block, Some(Some(InterruptBlock::RequestLimit)));
}

#[test]
fn lead_time_grows_after_a_late_segment_and_closes_bidding_earlier() {
    let mut cfg = llm_config();
    cfg.timing.resolve_lead_ms = 1000;
    cfg.lead_time.max_ms = 5000;
    cfg.lead_time.add_increase_ms = 3000;
    cfg.lead_time.miss_rate_threshold = 0.0;
    cfg.lead_time.window_segments = 1;
    let mut c = AuctionDebate::new(cfg, &AGENTS, "t", 7, Timeouts::default()).unwrap();
    assert_eq!(c.lead_ms(), 1000);
    let (r, out) = first_segment(&mut c);
    let auction = bid_requests(&out)[0].1.clone();
    c.decide(
        bid(
            "bo",
            &auction,
            r#"{"action":"speak","bid":2,"kicker":false}"#,
        ),
        200,
    );
    let out = c.decide(
        bid(
            "cy",
            &auction,
            r#"{"action":"pass","bid":0,"kicker":false}"#,
        ),
        250,
    );
    let next = requests(&out).pop().unwrap();
    // ada's clip ends before bo's segment is ready: the floor waits (a miss).
    c.decide(
        Event::ClipFinished {
            clip_id: r.clip_id.clone(),
            at_ms: 5100,
        },
        5100,
    );
    assert_eq!(c.lead_ms(), 1000, "a miss counts once the segment starts");
    // bo's 4-second segment starts at 6000: the lead is now 4 s, so the bidding must
    // close at once; before the miss it would have waited for the model bids.
    let out = c.decide(ready(&next, 4000), 6000);
    assert_eq!(c.lead_ms(), 4000);
    assert_eq!(bid_requests(&out).len(), 2);
    assert_eq!(requests(&out).len(), 1, "resolved at once: {out:#?}");
    assert!(
        fallbacks(&out)
            .iter()
            .all(|(_, reason)| reason == "guard band")
    );
}

#[test]
fn lead_time_stays_at_the_floor_when_segments_are_on_time() {
    let mut cfg = llm_config();
    cfg.lead_time.miss_rate_threshold = 0.0;
    cfg.lead_time.window_segments = 1;
    let mut c = AuctionDebate::new(cfg, &AGENTS, "t", 7, Timeouts::default()).unwrap();
    let (r, out) = first_segment(&mut c);
    let auction = bid_requests(&out)[0].1.clone();
    c.decide(
        bid(
            "bo",
            &auction,
            r#"{"action":"speak","bid":2,"kicker":false}"#,
        ),
        200,
    );
    let out = c.decide(
        bid(
            "cy",
            &auction,
            r#"{"action":"pass","bid":0,"kicker":false}"#,
        ),
        250,
    );
    let next = requests(&out).pop().unwrap();
    // The next segment is ready before ada's clip ends.
    c.decide(ready(&next, 4000), 3000);
    c.decide(
        Event::ClipFinished {
            clip_id: r.clip_id.clone(),
            at_ms: 5100,
        },
        5100,
    );
    assert_eq!(c.lead_ms(), AuctionConfig::default().timing.resolve_lead_ms);
}

//! Auction resolution time per micro-turn: drives the decisions of an [`AuctionDebate`]
//! through micro-turns (segments always ready, no model or audio latency) and times the
//! event that closes one micro-turn and opens the next: bookkeeping, heuristic bids of
//! every listener, ranking, pricing, interjection and kicker planning, records.
//!
//!   target/release/auction-bench [micro-turns per size, default 20000]

use std::time::Instant;

use auction_core::{Action, AuctionConfig, AuctionDebate, BeatPlan, Event, Timeouts};

fn main() {
    let turns: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    println!("agents  micro-turns  mean µs  p50 µs  p99 µs  records/turn");
    for agents in [3usize, 16, 64] {
        let (mut times, records) = run(agents, turns);
        times.sort_unstable();
        let mean = times.iter().sum::<u128>() as f64 / times.len() as f64 / 1000.0;
        let pct = |p: f64| times[((times.len() - 1) as f64 * p) as usize] as f64 / 1000.0;
        println!(
            "{agents:>6}  {:>11}  {mean:>7.2}  {:>6.2}  {:>6.2}  {:>12.1}",
            times.len(),
            pct(0.5),
            pct(0.99),
            records as f64 / times.len() as f64
        );
    }
}

/// Times of each micro-turn switch in ns, and the number of records written.
fn run(agents: usize, turns: usize) -> (Vec<u128>, usize) {
    let names: Vec<String> = (0..agents).map(|i| format!("a{i}")).collect();
    let mut debate = AuctionDebate::new(
        AuctionConfig::debate_snappy(),
        &names,
        "bench",
        42,
        Timeouts::default(),
    )
    .expect("valid session");
    let mut now = 0u64;
    let mut main: Option<String> = None;
    let mut times = Vec::with_capacity(turns);
    let mut records = 0usize;
    let mut pending = debate.decide(Event::Start, now);
    while times.len() < turns {
        // Answer every request at once; remember the main clip.
        let mut follow = Vec::new();
        for action in pending.drain(..) {
            match action {
                Action::RequestSegment(req) => follow.push(Event::SegmentReady {
                    agent: req.agent,
                    segment_id: req.segment_id,
                    text: "One short sentence here. And a second one there.".into(),
                    beats: vec![BeatPlan {
                        index: 1,
                        offset_ms: 1800,
                    }],
                    planned_ms: Some(3600),
                    mood: None,
                }),
                Action::PlayClip {
                    clip_id,
                    overlay: false,
                    ..
                } => main = Some(clip_id),
                Action::FadeIn { clip_id, .. } => main = Some(clip_id),
                Action::Record(_) => records += 1,
                _ => {}
            }
        }
        if !follow.is_empty() {
            for event in follow {
                pending.extend(debate.decide(event, now));
            }
            continue;
        }
        // The main clip ends: the next micro-turn opens and its auction resolves.
        let Some(clip_id) = main.take() else {
            panic!("the session stalled");
        };
        now += 3600;
        let t = Instant::now();
        pending = debate.decide(
            Event::ClipFinished {
                clip_id,
                at_ms: now,
            },
            now,
        );
        times.push(t.elapsed().as_nanos());
    }
    (times, records)
}

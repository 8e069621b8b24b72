//! Scripted scenarios of the auction debate's decisions.

use auction_core::config::BidSource;
use auction_core::records::{Decision, RecordKind};
use auction_core::{
    Action, AuctionConfig, AuctionDebate, BeatPlan, EndReason, Event, HintKind, SegmentRequest,
    Timeouts,
};

const AGENTS: [&str; 3] = ["ada", "bo", "cy"];

fn debate(cfg: AuctionConfig) -> AuctionDebate {
    AuctionDebate::new(cfg, &AGENTS, "t", 7, Timeouts::default()).unwrap()
}

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

fn ready(req: &SegmentRequest, beats: &[(u32, u64)], planned_ms: u64) -> Event {
    Event::SegmentReady {
        agent: req.agent.clone(),
        segment_id: req.segment_id.clone(),
        text: "One two three four five. Six seven eight nine ten. Eleven twelve thirteen.".into(),
        beats: beats
            .iter()
            .map(|&(index, offset_ms)| BeatPlan { index, offset_ms })
            .collect(),
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

fn records(actions: &[Action]) -> Vec<RecordKind> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Record(r) => Some(r.kind.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn cold_start_request_play_and_next_auction() {
    let mut c = debate(AuctionConfig::default());
    let out = c.decide(Event::Start, 0);
    let reqs = requests(&out);
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(r.auction_id, "auction_t_0000");
    assert_eq!(r.segment_id, format!("seg_auction_t_0000_0_1"));
    assert_eq!(r.clip_id, format!("clip_{}", r.segment_id));
    assert_eq!(r.agent, "ada");
    assert_eq!(r.hint.kind, HintKind::Open);

    // A stale answer is ignored.
    let mut stale = r.clone();
    stale.segment_id = "seg_other".into();
    assert!(c.decide(ready(&stale, &[], 3000), 50).is_empty());

    let out = c.decide(ready(r, &[(1, 1500)], 3000), 100);
    assert!(out.iter().any(|a| matches!(a,
        Action::PlayClip { clip_id, overlay: false, .. } if *clip_id == r.clip_id)));
    // Heuristic bids resolve at once; the winner is asked for the next segment.
    let next = requests(&out);
    assert_eq!(next.len(), 1);
    assert_eq!(next[0].auction_id, "auction_t_0001");
    assert_ne!(next[0].agent, "ada");
    assert!(
        records(&out)
            .iter()
            .any(|k| matches!(k, RecordKind::Auction(a) if a.decision == Decision::Won))
    );
}

#[test]
fn all_pass_continues_then_hands_to_least_recent() {
    let mut cfg = AuctionConfig::default();
    cfg.bidding.pass_below = 1000.0;
    let mut c = debate(cfg);
    let mut now = 0;
    let mut out = c.decide(Event::Start, now);
    let mut speakers = Vec::new();
    for _ in 0..4 {
        let r = requests(&out).pop().expect("someone is always asked");
        speakers.push(r.agent.clone());
        now += 100;
        let played = c.decide(ready(&r, &[], 3000), now);
        now += 3000;
        let clip = r.clip_id.clone();
        out = played;
        if requests(&out).is_empty() {
            out = c.decide(Event::Tick, now);
        }
        let mut fin = c.decide(
            Event::ClipFinished {
                clip_id: clip,
                at_ms: now,
            },
            now,
        );
        out.append(&mut fin);
    }
    // Two segments in a row at most (`max_contiguous_segments`), then the least recent.
    assert_eq!(speakers, vec!["ada", "ada", "bo", "bo"]);
}

/// Drives a session to the point where `bo` won with a kicker against `ada`.
fn kicker_setup(c: &mut AuctionDebate) -> (SegmentRequest, String, String) {
    let out = c.decide(Event::Start, 0);
    let r = requests(&out).pop().unwrap();
    assert_eq!(r.agent, "ada");
    let out = c.decide(ready(&r, &[(1, 2000), (2, 3500)], 5000), 100);
    let asked: Vec<_> = out
        .iter()
        .filter_map(|a| match a {
            Action::RequestBid {
                agent, auction_id, ..
            } => Some((agent.clone(), auction_id.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(asked.len(), 2);
    let auction = asked[0].1.clone();
    assert!(
        c.decide(
            bid(
                "bo",
                &auction,
                r#"{"action":"speak","bid":5,"kicker":true}"#
            ),
            200
        )
        .is_empty()
    );
    let out = c.decide(
        bid(
            "cy",
            &auction,
            r#"{"action":"pass","bid":0,"kicker":false}"#,
        ),
        250,
    );
    let kicker_clip = out
        .iter()
        .find_map(|a| match a {
            Action::RequestKicker {
                clip_id,
                agent,
                interrupting,
                ..
            } => {
                assert_eq!((agent.as_str(), interrupting.as_str()), ("bo", "ada"));
                Some(clip_id.clone())
            }
            _ => None,
        })
        .expect("kicker requested");
    let reserve = requests(&out).pop().unwrap();
    assert_eq!(reserve.agent, "bo");
    let out = c.decide(
        Event::KickerReady {
            clip_id: kicker_clip.clone(),
            text:
                "**bo:** <break/> Hold on, that ignores the cost to families entirely, surely, yes?"
                    .into(),
        },
        400,
    );
    let text = out
        .iter()
        .find_map(|a| match a {
            Action::Synthesize { text, .. } => Some(text.clone()),
            _ => None,
        })
        .expect("sanitised kicker synthesised");
    assert!(text.split_whitespace().count() <= 12);
    assert!(!text.contains('*') && !text.contains('<'));
    (r, kicker_clip, reserve.segment_id)
}

#[test]
fn hard_interrupt_commits_when_kicker_ready_before_guard() {
    let mut c = debate(llm_config());
    let (r, kicker, reserve) = kicker_setup(&mut c);
    assert!(
        c.decide(
            Event::ClipReady {
                clip_id: kicker.clone()
            },
            600
        )
        .is_empty()
    );
    let out = c.decide(
        Event::BeatReached {
            clip_id: r.clip_id.clone(),
            beat: 1,
            at_ms: 2110,
        },
        2110,
    );
    let fade_out = out.iter().position(
        |a| matches!(a, Action::FadeOut { clip_id, fade_ms: 200 } if *clip_id == r.clip_id),
    );
    let fade_in = out.iter().position(
        |a| matches!(a, Action::FadeIn { clip_id, delay_ms: 200, .. } if *clip_id == kicker),
    );
    assert!(fade_out.is_some() && fade_in.is_some(), "{out:#?}");
    assert!(
        out.iter()
            .any(|a| matches!(a, Action::CancelSegment { segment_id } if *segment_id == reserve))
    );
    assert!(records(&out).iter().any(
        |k| matches!(k, RecordKind::Interrupt(i) if i.agent_id == "bo" && i.interrupted_id == "ada")
    ));
    // bo paid bid 5 and fee 1 and got the accrual of the (cut) micro-turn.
    assert_eq!(c.balances()[1], 8 - 5 - 1 + 1);
    // Later beats of the cut clip are ignored; the interrupted speaker will respond.
    assert!(
        c.decide(
            Event::BeatReached {
                clip_id: r.clip_id.clone(),
                beat: 2,
                at_ms: 2300
            },
            2300
        )
        .iter()
        .all(|a| matches!(a, Action::Record(_)))
    );
}

#[test]
fn kicker_ready_too_late_lets_the_segment_finish() {
    let mut c = debate(llm_config());
    let (r, kicker, _) = kicker_setup(&mut c);
    // Ready 100 ms before the planned beat: inside the 200 ms guard band.
    c.decide(
        Event::ClipReady {
            clip_id: kicker.clone(),
        },
        2000,
    );
    let out = c.decide(
        Event::BeatReached {
            clip_id: r.clip_id.clone(),
            beat: 1,
            at_ms: 2100,
        },
        2100,
    );
    assert!(!out.iter().any(|a| matches!(a, Action::FadeOut { .. })));
    let out = c.decide(
        Event::ClipFinished {
            clip_id: r.clip_id.clone(),
            at_ms: 5100,
        },
        5100,
    );
    assert!(
        out.iter()
            .any(|a| matches!(a, Action::DiscardClip { clip_id } if *clip_id == kicker))
    );
    assert_eq!(
        c.balances()[1],
        8 - 5 + 1,
        "only the bid was paid; one token accrued"
    );
}

#[test]
fn interjection_waits_out_a_late_beat_and_unducks() {
    let mut c = debate(llm_config());
    let out = c.decide(Event::Start, 0);
    let r = requests(&out).pop().unwrap();
    let out = c.decide(ready(&r, &[(1, 1500), (2, 3000)], 5000), 100);
    let auction = out
        .iter()
        .find_map(|a| match a {
            Action::RequestBid { auction_id, .. } => Some(auction_id.clone()),
            _ => None,
        })
        .unwrap();
    c.decide(
        bid(
            "bo",
            &auction,
            r#"{"action":"speak","bid":2,"kicker":false}"#,
        ),
        150,
    );
    let out = c.decide(
        bid(
            "cy",
            &auction,
            r#"{"action":"interject","bid":0,"kicker":false}"#,
        ),
        160,
    );
    let ij = out
        .iter()
        .find_map(|a| match a {
            Action::RequestInterjection { clip_id, agent, .. } => {
                assert_eq!(agent, "cy");
                Some(clip_id.clone())
            }
            _ => None,
        })
        .expect("interjection requested");
    c.decide(
        Event::InterjectionReady {
            clip_id: ij.clone(),
            text: "Wait, which costs do you mean?".into(),
        },
        400,
    );
    c.decide(
        Event::ClipReady {
            clip_id: ij.clone(),
        },
        500,
    );
    // Beat 1 is 400 ms late: nothing lands, the timing record says deferred.
    let out = c.decide(
        Event::BeatReached {
            clip_id: r.clip_id.clone(),
            beat: 1,
            at_ms: 2000,
        },
        2000,
    );
    assert!(!out.iter().any(|a| matches!(a, Action::Duck { .. })));
    assert!(
        records(&out).iter().any(
            |k| matches!(k, RecordKind::Timing(t) if t.late && t.deferred && t.drift_ms == 400)
        )
    );
    // Beat 2 on time: duck + overlay.
    let out = c.decide(
        Event::BeatReached {
            clip_id: r.clip_id.clone(),
            beat: 2,
            at_ms: 3120,
        },
        3120,
    );
    assert!(
        out.iter()
            .any(|a| matches!(a, Action::Duck { clip_id, beat: 2, .. } if *clip_id == r.clip_id))
    );
    assert!(
        out.iter().any(
            |a| matches!(a, Action::PlayClip { clip_id, overlay: true, .. } if *clip_id == ij)
        )
    );
    let out = c.decide(
        Event::ClipFinished {
            clip_id: ij.clone(),
            at_ms: 4300,
        },
        4300,
    );
    assert!(
        out.iter()
            .any(|a| matches!(a, Action::Unduck { clip_id, .. } if *clip_id == r.clip_id))
    );
    assert_eq!(c.balances()[2], 6, "interjection cost 2");
}

#[test]
fn cancelled_interjection_never_ducks() {
    let mut c = debate(llm_config());
    let out = c.decide(Event::Start, 0);
    let r = requests(&out).pop().unwrap();
    let out = c.decide(ready(&r, &[(1, 1500)], 5000), 100);
    let auction = out
        .iter()
        .find_map(|a| match a {
            Action::RequestBid { auction_id, .. } => Some(auction_id.clone()),
            _ => None,
        })
        .unwrap();
    c.decide(bid("bo", &auction, "garbage"), 150);
    let out = c.decide(
        bid("cy", &auction, r#"{"action":"interject","bid":0}"#),
        160,
    );
    let ij = out
        .iter()
        .find_map(|a| match a {
            Action::RequestInterjection { clip_id, .. } => Some(clip_id.clone()),
            _ => None,
        })
        .unwrap();
    c.decide(
        Event::InterjectionReady {
            clip_id: ij.clone(),
            text: "Exactly right.".into(),
        },
        400,
    );
    c.decide(
        Event::ClipReady {
            clip_id: ij.clone(),
        },
        500,
    );
    c.decide(
        Event::ClipFailed {
            clip_id: ij.clone(),
        },
        1599,
    );
    let out = c.decide(
        Event::BeatReached {
            clip_id: r.clip_id.clone(),
            beat: 1,
            at_ms: 1600,
        },
        1600,
    );
    assert!(
        !out.iter()
            .any(|a| matches!(a, Action::Duck { .. } | Action::PlayClip { .. }))
    );
}

#[test]
fn garbage_and_timeouts_fall_back_to_heuristics() {
    let mut c = debate(llm_config());
    let out = c.decide(Event::Start, 0);
    let r = requests(&out).pop().unwrap();
    let out = c.decide(ready(&r, &[(1, 1500)], 5000), 100);
    let auction = out
        .iter()
        .find_map(|a| match a {
            Action::RequestBid { auction_id, .. } => Some(auction_id.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(c.decision_deadline(), Some(600));
    let out = c.decide(bid("bo", &auction, "I bid everything!"), 200);
    assert!(
        records(&out)
            .iter()
            .any(|k| matches!(k, RecordKind::BidFallback(f) if f.agent_id == "bo"))
    );
    // cy never answers: the deadline resolves the auction.
    let out = c.decide(Event::Tick, 600);
    assert!(records(&out).iter().any(
        |k| matches!(k, RecordKind::BidFallback(f) if f.agent_id == "cy" && f.reason == "timeout")
    ));
    assert_eq!(requests(&out).len(), 1);
    assert_eq!(c.decision_deadline(), None);
}

#[test]
fn stop_ends_the_session() {
    let mut c = debate(AuctionConfig::default());
    c.decide(Event::Start, 0);
    let out = c.decide(Event::Stop, 10);
    assert_eq!(
        out,
        vec![Action::End {
            reason: EndReason::Stopped
        }]
    );
    assert!(c.decide(Event::Tick, 20).is_empty());
    assert!(c.is_ended());
}

#[test]
fn construction_errors() {
    assert!(
        AuctionDebate::new(
            AuctionConfig::default(),
            &["solo"],
            "s",
            0,
            Timeouts::default()
        )
        .is_err()
    );
    assert!(
        AuctionDebate::new(
            AuctionConfig::default(),
            &["a", "a"],
            "s",
            0,
            Timeouts::default()
        )
        .is_err()
    );
}

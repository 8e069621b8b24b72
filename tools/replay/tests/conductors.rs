//! A roundtable and an auction, each run through its conductor and logged as its node
//! logs it, replay to the same decisions; the auction's inputs replayed with a lower
//! segment limit show the first decision that differs.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

use auction_core::{self as auction, AUCTION_FORMAT, AuctionSetup, Timeouts};
use conductor::{Call, Core};
use moderator_core::SAMPLE_SCENARIO;
use moderator_core::roundtable::{Config, Input, Output, ROUNDTABLE_FORMAT, RoundtableSetup};
use serde::Serialize;
use voice_protocol::clips::{
    BeatReached, ClipCommand, ClipFinished, ClipReady, ClipSpec, ClipStarted,
};

/// A conductor whose every call is logged the way the nodes log it (`conductor::drive`
/// calls it as a node's event loop would).
struct Logged<C> {
    inner: C,
    log: String,
}

impl<C: Core> Logged<C>
where
    C::Input: Serialize + Clone,
    C::Output: std::fmt::Debug,
{
    fn new<S: Serialize>(inner: C, format: &str, setup: &S) -> Self {
        Self {
            inner,
            log: decision_log::setup_line(format, setup) + "\n",
        }
    }

    fn step(&mut self, call: Call<C::Input>, now_ms: u64, out: &[C::Output]) {
        self.log
            .push_str(&decision_log::step_line(now_ms * 1_000_000, &call, out));
        self.log.push('\n');
    }
}

impl<C: Core> Core for Logged<C>
where
    C::Input: Serialize + Clone,
    C::Output: std::fmt::Debug,
{
    type Input = C::Input;
    type Output = C::Output;
    type Opening = C::Opening;

    fn start(&mut self, opening: &C::Opening, now_ms: u64) -> Vec<C::Output> {
        let out = self.inner.start(opening, now_ms);
        self.step(Call::Start, now_ms, &out);
        out
    }

    fn handle(&mut self, input: C::Input, now_ms: u64) -> Vec<C::Output> {
        let out = self.inner.handle(input.clone(), now_ms);
        self.step(Call::Input(input), now_ms, &out);
        out
    }

    fn tick(&mut self, now_ms: u64) -> Vec<C::Output> {
        let out = self.inner.tick(now_ms);
        self.step(Call::Tick, now_ms, &out);
        out
    }

    fn next_wake(&self) -> Option<u64> {
        self.inner.next_wake()
    }

    fn finished(&self) -> bool {
        self.inner.finished()
    }
}

/// What a drive decided, without the times.
fn outputs<O>(timed: Vec<(u64, O)>) -> Vec<O> {
    timed.into_iter().map(|(_, o)| o).collect()
}

fn session_with(name: &str, node: &str, log: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("replay-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("decisions")).unwrap();
    std::fs::write(dir.join(format!("decisions/{node}.jsonl")), log).unwrap();
    dir
}

/// Replays `dir` and returns its only segment's comparison.
fn replayed(dir: &Path) -> decision_log::Comparison {
    let replays = replay::replay_session(dir, None, &[]).unwrap();
    assert_eq!(replays.len(), 1);
    assert_eq!(replays[0].segments.len(), 1);
    replays[0].segments[0].clone()
}

/// The sample roundtable, paced by a player reporting every line heard: each agent
/// answers its turn in two chunks, and every intent request gets an answer.
fn roundtable_log() -> String {
    let setup = RoundtableSetup {
        scenario_yaml: SAMPLE_SCENARIO.into(),
        config: Config {
            paced: true,
            max_unplayed: 1,
            playback_timeout_ms: 30_000,
        },
        phrases: String::new(),
    };
    let mut c = Logged::new(setup.build().unwrap(), ROUNDTABLE_FORMAT, &setup);
    let mut now = 0;
    let start = c.start(&(), now);
    let mut pending = start;
    let mut round = 0usize;
    while !c.finished() {
        round += 1;
        assert!(round < 2_000, "the roundtable does not end");
        let mut inputs = Vec::new();
        for out in &pending {
            now += 10;
            match out {
                Output::Turn {
                    agent, question_id, ..
                } => {
                    for (text, ends) in [
                        ("Congestion charges paid for the tram, ", false),
                        ("don't you agree, engineer?", true),
                    ] {
                        inputs.push((
                            now,
                            Input::Text {
                                input: agent.clone(),
                                question_id: Some(*question_id),
                                ends,
                                text: text.into(),
                                error: None,
                            },
                        ));
                    }
                    inputs.push((
                        now + 5,
                        Input::Played {
                            question_id: *question_id,
                        },
                    ));
                }
                Output::Line { question_id, .. } => {
                    inputs.push((
                        now,
                        Input::Played {
                            question_id: *question_id,
                        },
                    ));
                }
                Output::Request(request) => {
                    for (i, agent) in ["economist", "engineer", "ethicist"].iter().enumerate() {
                        let answer = match (round + i) % 3 {
                            0 => r#"{"intent":"speak","urgency":3}"#,
                            1 => r#"{"intent":"pass"}"#,
                            _ => "not json",
                        };
                        inputs.push((
                            now,
                            Input::Reply {
                                input: format!("reply_{agent}"),
                                speaker: Some((*agent).into()),
                                request_id: Some(request.id.clone()),
                                answer: answer.into(),
                                error: None,
                            },
                        ));
                    }
                }
                _ => {}
            }
        }
        now += 10;
        let until = c.next_wake().unwrap_or(now).max(now);
        pending = outputs(conductor::drive(&mut c, inputs, until));
        now = until;
    }
    c.log
}

#[test]
fn a_recorded_roundtable_replays_to_the_same_decisions() {
    let log = roundtable_log();
    for made in ["Turn {", "Request(", "Decision("] {
        assert!(log.contains(made), "{made} missing");
    }
    let comparison = replayed(&session_with("roundtable", "moderator", &log));
    assert_eq!(comparison.first_difference, None, "{comparison:#?}");
    assert_eq!(comparison.steps, log.lines().count() - 1);
    assert!(comparison.decisions > 50, "{comparison:?}");
}

fn auction_setup(max_segments: Option<u32>) -> AuctionSetup {
    AuctionSetup {
        config: auction_core::AuctionConfig {
            max_segments,
            ..Default::default()
        },
        participants: vec!["ada".into(), "bo".into(), "cy".into()],
        seed: 7,
        timeouts: Timeouts {
            segment_ms: 5_000,
            request_ms: 2_000,
        },
    }
}

/// Two minutes of an auction in which every turn is answered at once and a player
/// synthesizes and plays every clip (one second per sentence); side requests are left
/// to their timeouts.
fn auction_log(setup: &AuctionSetup) -> String {
    let mut c = Logged::new(setup.build().unwrap(), AUCTION_FORMAT, setup);
    let start = c.start(&(), 0);
    let mut pending = start;
    let mut clips: BTreeMap<String, ClipSpec> = BTreeMap::new();
    let mut now = 0;
    while now < 120_000 && !c.finished() {
        let mut inputs: Vec<(u64, auction::Input)> = Vec::new();
        for o in &pending {
            match o {
                auction::Output::Turn {
                    agent, question_id, ..
                } => inputs.push((
                    now + 10,
                    auction::Input::Text {
                        agent: agent.clone(),
                        question_id: *question_id,
                        text: format!("{agent} says cars choke the old town. Walking is better!"),
                        ended: true,
                        error: None,
                    },
                )),
                auction::Output::Clip(spec) => {
                    clips.insert(spec.clip_id.clone(), spec.clone());
                    inputs.push((
                        now + 20,
                        auction::Input::ClipReady(ClipReady {
                            clip_id: spec.clip_id.clone(),
                            speaker: spec.speaker.clone(),
                            sentence_ms: vec![1_000; spec.sentences.len()],
                            duration_ms: 1_000 * spec.sentences.len() as u64,
                            pending: 0,
                            error: None,
                        }),
                    ));
                }
                auction::Output::Command(
                    ClipCommand::Play { clip_id } | ClipCommand::PlayOverlay { clip_id },
                ) => {
                    let Some(spec) = clips.get(clip_id) else {
                        continue;
                    };
                    let overlay =
                        matches!(o, auction::Output::Command(ClipCommand::PlayOverlay { .. }));
                    let at = now + 30;
                    inputs.push((
                        at,
                        auction::Input::ClipStarted(ClipStarted {
                            clip_id: clip_id.clone(),
                            speaker: spec.speaker.clone(),
                            question_id: spec.question_id,
                            overlay,
                            at_ms: at,
                        }),
                    ));
                    let sentences = spec.sentences.len() as u64;
                    for beat in 1..=sentences {
                        inputs.push((
                            at + beat * 1_000,
                            auction::Input::Beat(BeatReached {
                                clip_id: clip_id.clone(),
                                beat: beat as u32,
                                at_ms: at + beat * 1_000,
                            }),
                        ));
                    }
                    inputs.push((
                        at + sentences * 1_000,
                        auction::Input::ClipFinished(ClipFinished {
                            speaker: spec.speaker.clone(),
                            question_id: spec.question_id,
                            start_ms: at,
                            end_ms: at + sentences * 1_000,
                            interrupted: false,
                            chars_played: spec.sentences.concat().len(),
                            text_played: spec.sentences.join(" "),
                            clip_id: clip_id.clone(),
                            overlay,
                            ducked: Vec::new(),
                        }),
                    ));
                }
                _ => {}
            }
        }
        inputs.sort_by_key(|(at, _)| *at);
        // Up to the last answer, or else to the next wake-up.
        let until = match inputs.last() {
            Some((at, _)) => *at,
            None => c.next_wake().unwrap_or(now + 1_000).max(now + 10),
        };
        pending = outputs(conductor::drive(&mut c, inputs, until));
        now = until;
    }
    c.log
}

#[test]
fn a_recorded_auction_replays_to_the_same_decisions_and_another_limit_differs() {
    let log = auction_log(&auction_setup(None));
    for made in ["Turn {", "Play {", "Bid("] {
        assert!(log.contains(made), "{made} missing");
    }
    let comparison = replayed(&session_with("auction", "auction", &log));
    assert_eq!(comparison.first_difference, None, "{comparison:#?}");
    assert_eq!(comparison.steps, log.lines().count() - 1);

    // The same inputs to an auction ending after two segments: the first calls decide
    // alike, then it ends where the recorded one went on.
    let mut lines = log.lines();
    lines.next();
    let hastier: String = std::iter::once(decision_log::setup_line(
        AUCTION_FORMAT,
        &auction_setup(Some(2)),
    ))
    .chain(lines.map(str::to_owned))
    .map(|l| l + "\n")
    .collect();
    let comparison = replayed(&session_with("hastier-auction", "auction", &hastier));
    let difference = comparison
        .first_difference
        .expect("another limit decides otherwise");
    assert!(
        difference.step > 0 && comparison.decisions > 0,
        "{difference:#?}"
    );
    assert_eq!(comparison.steps, difference.step + 1);
    assert_ne!(difference.recorded, difference.replayed);
}

#[test]
fn json_objects_keep_the_order_the_nodes_write() {
    // The nodes are built with serde_json's `preserve_order` (through dora-node-api): a
    // replay sorting keys would report every decision holding JSON as changed.
    let value = serde_json::json!({ "id": "r-1", "kind": "candidate_question", "json": false });
    assert_eq!(
        value.to_string(),
        r#"{"id":"r-1","kind":"candidate_question","json":false}"#
    );
}

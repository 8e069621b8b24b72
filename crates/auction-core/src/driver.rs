//! The sans-IO driver: [`AuctionCore::handle`] takes an [`Event`] with the current
//! monotonic time in milliseconds and returns the [`Action`]s the node must carry out.
//!
//! # Micro-turns
//!
//! A *main clip* (a segment, or a kicker after a hard interrupt) holds the floor; each
//! one is a micro-turn and opens an auction for the slot after it:
//!
//! 1. The clip starts ([`Action::PlayClip`]); listeners bid at once (heuristic) or are
//!    asked for a JSON bid ([`Action::RequestBid`], heuristic fallback on error, on
//!    [`Event::LlmBidTimeout`] or after `concurrency.timeouts_ms.bid`). One listener may
//!    be asked for an interjection ([`Action::RequestInterjection`]).
//! 2. When the bids are in, the auction resolves: the winner pays and is asked for its
//!    next segment at once ([`Action::RequestSegment`]), so it is ready when the floor
//!    frees. If the winner bid a kicker and may interrupt, its kicker line is requested
//!    too ([`Action::RequestKicker`]). If everyone passed, the speaker continues
//!    (up to `max_contiguous_segments`), else the least-recent speaker is chosen.
//!    If bids are still missing `timing.resolve_lead_ms` before the planned end of the
//!    clip, they are filled heuristically and no interrupt happens this turn.
//! 3. At each beat ([`Event::BeatReached`], measured time): a beat later than
//!    `timing.late_beat_ms` after its plan carries nothing (deferred to the next one).
//!    Otherwise a hard interrupt commits if the kicker's audio was ready
//!    `commit_guard_ms` before the planned beat and enough of the segment remains
//!    ([`Action::FadeOut`] of the speaker, then [`Action::FadeIn`] of the kicker);
//!    else a ready interjection plays ducked under the speaker ([`Action::Duck`] +
//!    [`Action::PlayClip`] with `overlay: true`, [`Action::Unduck`] when it ends).
//! 4. When the clip and any interjection have finished, the next segment plays.
//!
//! Only one main voice sounds at a time; an interjection is the only overlap, and only
//! over a ducked speaker. Model text for interjections and kickers is sanitised and
//! capped before it is synthesised ([`Action::Synthesize`], answered by
//! [`Event::ClipReady`]).

use serde::{Deserialize, Serialize};

use crate::bidding::{self, Bid, BidIntent, BidSourceKind, DesireInputs, HeuristicInput};
use crate::config::{AuctionConfig, BidSource, InterruptMode, ResolvedStyle};
use crate::emotion::{EmotionState, Mood, MoodEvent};
use crate::evidence::{EvidenceLane, EvidenceVerdict};
use crate::fairness::FairnessAdjuster;
use crate::ids::{self, IdGen};
use crate::interjection::{InterjectionKind, InterjectionPlanner};
use crate::interrupt::{InterruptBlock, InterruptPolicy, KickerBid};
use crate::llm;
use crate::records::{
    AuctionRecord, AuctionRow, BidFallbackRecord, BidRecord, BidResult, ClipRole, Decision,
    EventRecord, InterjectionRecord, InterruptRecord, RecordKind, SegmentRecord, TimingRecord,
};
use crate::reputation::Reputation;
use crate::resolver::{self, Candidate};
use crate::rng::SplitMix64;
use crate::sanitize::sanitize_spoken;
use crate::tokens::TokenManager;

/// A barge point of a segment: after sentence `index` (1-based), `offset_ms` after the
/// start of the clip as planned by the segmenter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BeatPlan {
    pub index: u32,
    pub offset_ms: u64,
}

/// What the node reports.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The session begins: the cold-start auction picks the first speaker.
    Start,
    /// The text of a requested segment (mood already split off, see
    /// [`crate::llm::parse_segment_payload`]), with its planned beats and duration.
    SegmentReady {
        agent: String,
        segment_id: String,
        text: String,
        beats: Vec<BeatPlan>,
        planned_ms: Option<u64>,
        mood: Option<Mood>,
    },
    /// The model could not produce a requested segment.
    SegmentFailed { segment_id: String },
    /// A clip began to sound at `at_ms` (beats are planned from here).
    ClipStarted { clip_id: String, at_ms: u64 },
    /// The player passed beat `beat` of a clip at `at_ms` (measured).
    BeatReached {
        clip_id: String,
        beat: u32,
        at_ms: u64,
    },
    /// The audio of a kicker or interjection asked with [`Action::Synthesize`] is buffered.
    ClipReady { clip_id: String },
    /// A clip ended (or its fade-out did) at `at_ms`.
    ClipFinished { clip_id: String, at_ms: u64 },
    /// A clip could not be synthesised or played; it is dropped.
    ClipFailed { clip_id: String },
    /// Model text of a requested kicker.
    KickerReady { clip_id: String, text: String },
    /// Model text of a requested interjection.
    InterjectionReady { clip_id: String, text: String },
    /// Raw model answer to [`Action::RequestBid`].
    BidReceived {
        agent: String,
        auction_id: String,
        text: String,
    },
    /// The model did not answer a bid request in time.
    LlmBidTimeout { agent: String, auction_id: String },
    /// Time passed (call at [`AuctionCore::next_deadline`] at the latest).
    Tick,
    /// End the session now.
    Stop,
}

/// How the next segment should relate to the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HintKind {
    /// Make your point.
    Open,
    /// Everyone passed: continue briefly.
    Continue,
    /// You were cut off: answer the interrupter with fresh text (never resume).
    Respond,
    /// A kicker just played: respond directly to the interruption.
    FollowInterruption,
}

/// An interjection the speaker should acknowledge briefly (≤ 8 words).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Acknowledgement {
    pub from: String,
    pub kind: InterjectionKind,
    pub text: String,
}

/// Context for the segment prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SegmentHint {
    pub kind: HintKind,
    pub respond_to: Option<String>,
    pub acknowledge: Option<Acknowledgement>,
    /// Words to aim for (shorter when many want the floor or on a continuation).
    pub target_words: u32,
    /// The agent's own mood, for tone and prosody.
    pub mood: Mood,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SegmentRequest {
    pub agent: String,
    pub auction_id: String,
    pub segment_id: String,
    pub clip_id: String,
    pub hint: SegmentHint,
    /// Echo of the micro-turn counter the request was made at.
    pub context_version: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    MaxSegments,
    Stopped,
    /// Segments kept failing for every agent.
    NoSpeaker,
}

/// What the node must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    RequestSegment(SegmentRequest),
    /// Ask `agent` for a JSON bid, answered by `BidReceived` or `LlmBidTimeout`.
    RequestBid {
        agent: String,
        auction_id: String,
        tokens: u32,
        mood: Mood,
        deadline_ms: u64,
    },
    /// Ask `agent` for a one-sentence kicker of `min_words..=max_words` words.
    RequestKicker {
        agent: String,
        auction_id: String,
        clip_id: String,
        interrupting: String,
        min_words: u32,
        max_words: u32,
    },
    RequestInterjection {
        agent: String,
        auction_id: String,
        clip_id: String,
        speaker: String,
        kind: InterjectionKind,
        max_words: u32,
    },
    /// Synthesise (sanitised) text into a buffered clip; answer with `ClipReady`.
    Synthesize {
        clip_id: String,
        agent: String,
        text: String,
        role: ClipRole,
    },
    /// Play a clip now; `overlay` clips mix over the (ducked) main clip.
    PlayClip {
        clip_id: String,
        agent: String,
        text: String,
        role: ClipRole,
        overlay: bool,
    },
    /// Lower the main clip by `gain_db` at beat `beat`.
    Duck {
        clip_id: String,
        beat: u32,
        gain_db: f64,
        ramp_ms: u64,
    },
    Unduck {
        clip_id: String,
        ramp_ms: u64,
    },
    /// Fade the clip out over `fade_ms` and stop it (hard interrupt).
    FadeOut {
        clip_id: String,
        fade_ms: u64,
    },
    /// Start a buffered clip after `delay_ms` with a `fade_ms` fade-in (trim leading silence).
    FadeIn {
        clip_id: String,
        agent: String,
        text: String,
        delay_ms: u64,
        fade_ms: u64,
    },
    /// Drop a buffered or requested clip that will not play.
    DiscardClip {
        clip_id: String,
    },
    /// A requested segment is no longer wanted (its answer will be ignored).
    CancelSegment {
        segment_id: String,
    },
    Record(EventRecord),
    End {
        reason: EndReason,
    },
}

#[derive(Debug, Clone)]
struct AgentState {
    name: String,
    style: ResolvedStyle,
    emotion: EmotionState,
    reputation: Reputation,
    /// Pending replies (e.g. after being cut off), added to the persona's eagerness.
    backlog: f64,
    pending_ack: Option<Acknowledgement>,
    respond_to: Option<usize>,
}

#[derive(Debug, Clone)]
struct MainClip {
    agent: usize,
    clip_id: String,
    role: ClipRole,
    started_at: u64,
    beats: Vec<BeatPlan>,
    planned_ms: u64,
    last_beat: u32,
    ducked: bool,
    interjections: u32,
    acked: bool,
}

#[derive(Debug, Clone)]
struct KickerPlan {
    agent: usize,
    clip_id: String,
    bid: u32,
    fee: u32,
    text: Option<String>,
    ready_at: Option<u64>,
}

#[derive(Debug, Clone)]
struct InterjectionPlan {
    agent: usize,
    clip_id: String,
    kind: InterjectionKind,
    text: Option<String>,
    ready: bool,
}

#[derive(Debug, Clone)]
struct Round {
    auction_id: String,
    turn: u32,
    speaker: Option<usize>,
    bid_deadline: u64,
    bids: Vec<Option<Bid>>,
    fallback: Vec<Option<Bid>>,
    awaiting: Vec<bool>,
    resolved: bool,
    kicker: Option<KickerPlan>,
    interjection: Option<InterjectionPlan>,
}

#[derive(Debug, Clone)]
struct ReadySegment {
    text: String,
    beats: Vec<BeatPlan>,
    planned_ms: u64,
}

#[derive(Debug, Clone)]
struct NextSegment {
    agent: usize,
    auction_id: String,
    segment_id: String,
    clip_id: String,
    context_version: u32,
    ready: Option<ReadySegment>,
}

#[derive(Debug, Clone)]
struct Overlay {
    clip_id: String,
    under: String,
}

/// Snapshot of one agent for logs and tests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AgentSnapshot {
    pub name: String,
    pub tokens: u32,
    pub talk_ms: u64,
    pub share: f64,
    pub pacing: f64,
    pub reputation: f64,
    pub interrupts: u32,
    pub interjections: u32,
    pub mood: Mood,
}

/// The auction conversation state machine.
#[derive(Debug, Clone)]
pub struct AuctionCore {
    cfg: AuctionConfig,
    session: String,
    rng: SplitMix64,
    agents: Vec<AgentState>,
    tokens: TokenManager,
    fairness: FairnessAdjuster,
    evidence: EvidenceLane,
    interrupts: InterruptPolicy,
    interjections: InterjectionPlanner,
    ids: IdGen,
    turn: u32,
    started: bool,
    ended: bool,
    main: Option<MainClip>,
    overlay: Option<Overlay>,
    round: Option<Round>,
    next: Option<NextSegment>,
    contiguous: u32,
    last_speaker: Option<usize>,
    failures: u32,
    /// A cut clip is still fading out until then: nothing new may start before.
    fade_until: Option<u64>,
}

/// Why a core could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CoreError {
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error("an auction needs at least two agents")]
    TooFewAgents,
    #[error("duplicate agent name `{0}`")]
    DuplicateAgent(String),
}

impl AuctionCore {
    /// A session of `agents` (in a fixed order: their indices appear in ids), with a
    /// short session id for ids and a seed for the few random choices.
    pub fn new<S: AsRef<str>>(
        cfg: AuctionConfig,
        agents: &[S],
        session: &str,
        seed: u64,
    ) -> Result<Self, CoreError> {
        cfg.validate()?;
        if agents.len() < 2 {
            return Err(CoreError::TooFewAgents);
        }
        let names: Vec<String> = agents.iter().map(|a| a.as_ref().to_owned()).collect();
        for (i, n) in names.iter().enumerate() {
            if names[..i].contains(n) {
                return Err(CoreError::DuplicateAgent(n.clone()));
            }
        }
        let n = names.len();
        let states = names
            .into_iter()
            .map(|name| AgentState {
                style: cfg.style_of(&name),
                name,
                emotion: EmotionState::new(cfg.emotion_control),
                reputation: Reputation::default(),
                backlog: 0.0,
                pending_ack: None,
                respond_to: None,
            })
            .collect();
        Ok(Self {
            tokens: TokenManager::new(n, &cfg.tokens, &cfg.anti_hoarding),
            fairness: FairnessAdjuster::new(n, &cfg.fairness),
            evidence: EvidenceLane::new(n),
            interrupts: InterruptPolicy::new(n),
            interjections: InterjectionPlanner::new(n),
            ids: IdGen::default(),
            rng: SplitMix64::new(seed),
            session: session.to_owned(),
            agents: states,
            cfg,
            turn: 0,
            started: false,
            ended: false,
            main: None,
            overlay: None,
            round: None,
            next: None,
            contiguous: 0,
            last_speaker: None,
            failures: 0,
            fade_until: None,
        })
    }

    pub fn config(&self) -> &AuctionConfig {
        &self.cfg
    }

    pub fn agent_names(&self) -> Vec<&str> {
        self.agents.iter().map(|a| a.name.as_str()).collect()
    }

    /// Micro-turns started so far.
    pub fn turn(&self) -> u32 {
        self.turn
    }

    pub fn is_ended(&self) -> bool {
        self.ended
    }

    /// Token balances in agent order.
    pub fn balances(&self) -> &[u32] {
        self.tokens.balances()
    }

    pub fn tokens(&self) -> &TokenManager {
        &self.tokens
    }

    pub fn snapshot(&self) -> Vec<AgentSnapshot> {
        self.agents
            .iter()
            .enumerate()
            .map(|(i, a)| AgentSnapshot {
                name: a.name.clone(),
                tokens: self.tokens.balance(i),
                talk_ms: self.fairness.talk_ms(i),
                share: self.fairness.share(i),
                pacing: self.fairness.pacing(i),
                reputation: a.reputation.value(),
                interrupts: self.interrupts.made_by(i),
                interjections: self.interjections.made_by(i),
                mood: a.emotion.mood(),
            })
            .collect()
    }

    /// When the node must send [`Event::Tick`] at the latest (bid timeout or guard band).
    pub fn next_deadline(&self) -> Option<u64> {
        let mut deadline = self.fade_until;
        if let Some(round) = self.round.as_ref()
            && !round.resolved
        {
            let mut d = round.bid_deadline;
            if let Some(lead) = self.lead_deadline() {
                d = d.min(lead);
            }
            deadline = Some(deadline.map_or(d, |f| f.min(d)));
        }
        deadline
    }

    /// Processes one event at monotonic time `now_ms`.
    pub fn handle(&mut self, event: Event, now_ms: u64) -> Vec<Action> {
        let mut out = Vec::new();
        if self.ended {
            return out;
        }
        self.tokens
            .advance(now_ms, self.main.as_ref().map(|m| m.agent));
        match event {
            Event::Start => self.start(now_ms, &mut out),
            Event::SegmentReady {
                agent,
                segment_id,
                text,
                beats,
                planned_ms,
                mood,
            } => self.on_segment_ready(
                &agent,
                &segment_id,
                text,
                beats,
                planned_ms,
                mood,
                now_ms,
                &mut out,
            ),
            Event::SegmentFailed { segment_id } => {
                self.on_segment_failed(&segment_id, now_ms, &mut out)
            }
            Event::ClipStarted { clip_id, at_ms } => {
                if let Some(m) = self.main.as_mut()
                    && m.clip_id == clip_id
                {
                    m.started_at = at_ms;
                }
            }
            Event::BeatReached {
                clip_id,
                beat,
                at_ms,
            } => self.on_beat(&clip_id, beat, at_ms, &mut out),
            Event::ClipReady { clip_id } => self.on_clip_ready(&clip_id, now_ms),
            Event::ClipFinished { clip_id, at_ms } => {
                self.on_clip_end(&clip_id, at_ms, true, &mut out)
            }
            Event::ClipFailed { clip_id } => self.on_clip_end(&clip_id, now_ms, false, &mut out),
            Event::KickerReady { clip_id, text } => self.on_kicker_text(&clip_id, &text, &mut out),
            Event::InterjectionReady { clip_id, text } => {
                self.on_interjection_text(&clip_id, &text, &mut out)
            }
            Event::BidReceived {
                agent,
                auction_id,
                text,
            } => self.on_bid(&agent, &auction_id, Ok(&text), &mut out),
            Event::LlmBidTimeout { agent, auction_id } => {
                self.on_bid(&agent, &auction_id, Err("timeout"), &mut out)
            }
            Event::Tick => {}
            Event::Stop => {
                self.finish(EndReason::Stopped, &mut out);
                return out;
            }
        }
        self.check_deadlines(now_ms, &mut out);
        if self.fade_until.is_some_and(|t| now_ms >= t) {
            self.fade_until = None;
            self.try_start_next(now_ms, &mut out);
        }
        out
    }

    // ----- session flow -------------------------------------------------------------

    fn start(&mut self, now: u64, out: &mut Vec<Action>) {
        if self.started {
            return;
        }
        self.started = true;
        let bidders: Vec<usize> = (0..self.agents.len()).collect();
        let heuristic = self.heuristic_bids(&bidders);
        let mut bids = vec![None; self.agents.len()];
        for b in heuristic {
            let a = b.agent;
            bids[a] = Some(b);
        }
        self.round = Some(Round {
            auction_id: ids::auction_id(&self.session, 0),
            turn: 0,
            speaker: None,
            bid_deadline: now,
            fallback: bids.clone(),
            bids,
            awaiting: vec![false; self.agents.len()],
            resolved: false,
            kicker: None,
            interjection: None,
        });
        self.resolve(now, false, out);
    }

    fn finish(&mut self, reason: EndReason, out: &mut Vec<Action>) {
        if !self.ended {
            self.ended = true;
            out.push(Action::End { reason });
        }
    }

    fn session_over(&self) -> bool {
        self.cfg.max_segments.is_some_and(|m| self.turn >= m)
    }

    fn words_per_ms(&self) -> f64 {
        self.cfg.timing.words_per_second / 1000.0
    }

    fn request_segment(
        &mut self,
        agent: usize,
        auction_id: &str,
        kind: HintKind,
        target_seconds: f64,
        out: &mut Vec<Action>,
    ) {
        if let Some(old) = self.next.take() {
            out.push(Action::CancelSegment {
                segment_id: old.segment_id,
            });
        }
        let (segment_id, clip_id) = self.ids.next(auction_id, agent);
        let a = &mut self.agents[agent];
        let respond_to = a.respond_to.take();
        let kind = if respond_to.is_some() {
            HintKind::Respond
        } else {
            kind
        };
        let hint = SegmentHint {
            kind,
            respond_to: respond_to.map(|r| self.agents[r].name.clone()),
            acknowledge: self.agents[agent].pending_ack.take(),
            target_words: (target_seconds * self.cfg.timing.words_per_second).round() as u32,
            mood: self.agents[agent].emotion.mood(),
        };
        out.push(Action::RequestSegment(SegmentRequest {
            agent: self.agents[agent].name.clone(),
            auction_id: auction_id.to_owned(),
            segment_id: segment_id.clone(),
            clip_id: clip_id.clone(),
            hint,
            context_version: self.turn,
        }));
        self.next = Some(NextSegment {
            agent,
            auction_id: auction_id.to_owned(),
            segment_id,
            clip_id,
            context_version: self.turn,
            ready: None,
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn on_segment_ready(
        &mut self,
        agent: &str,
        segment_id: &str,
        text: String,
        beats: Vec<BeatPlan>,
        planned_ms: Option<u64>,
        mood: Option<Mood>,
        now: u64,
        out: &mut Vec<Action>,
    ) {
        let Some(next) = self.next.as_ref() else {
            return;
        };
        if next.segment_id != segment_id
            || self.agents[next.agent].name != agent
            || next.ready.is_some()
        {
            return;
        }
        let a = next.agent;
        if let Some(m) = mood {
            let cfg = self.cfg.emotion.clone();
            self.agents[a].emotion.apply_report(m, &cfg);
        }
        let words = text.split_whitespace().count();
        if words == 0 {
            self.on_segment_failed(segment_id, now, out);
            return;
        }
        self.failures = 0;
        let estimated = (words as f64 / self.words_per_ms()).round() as u64;
        let planned_ms = planned_ms.filter(|&p| p > 0).unwrap_or(estimated);
        let mut beats: Vec<BeatPlan> = beats
            .into_iter()
            .filter(|b| b.index >= 1 && b.offset_ms < planned_ms)
            .collect();
        beats.sort_by_key(|b| b.index);
        beats.dedup_by_key(|b| b.index);
        if let Some(n) = self.next.as_mut() {
            n.ready = Some(ReadySegment {
                text,
                beats,
                planned_ms,
            });
        }
        self.try_start_next(now, out);
    }

    fn on_segment_failed(&mut self, segment_id: &str, now: u64, out: &mut Vec<Action>) {
        let Some(next) = self.next.as_ref() else {
            return;
        };
        if next.segment_id != segment_id {
            return;
        }
        let failed = next.agent;
        let auction_id = next.auction_id.clone();
        self.next = None;
        self.failures += 1;
        if self.failures > 2 * self.agents.len() as u32 {
            self.finish(EndReason::NoSpeaker, out);
            return;
        }
        let pick = self.least_recent(Some(failed));
        let target = self.cfg.segment_seconds.target;
        self.request_segment(pick, &auction_id, HintKind::Open, target, out);
        self.try_start_next(now, out);
    }

    /// The agent (other than `except`) who held the floor least recently.
    fn least_recent(&self, except: Option<usize>) -> usize {
        (0..self.agents.len())
            .filter(|&a| Some(a) != except)
            .min_by_key(|&a| (self.fairness.last_spoke_turn(a).map_or(0, |t| t + 1), a))
            .unwrap_or(0)
    }

    fn try_start_next(&mut self, now: u64, out: &mut Vec<Action>) {
        if self.ended || self.main.is_some() || self.overlay.is_some() {
            return;
        }
        if self.fade_until.is_some_and(|t| now < t) {
            return;
        }
        if self.session_over() {
            self.finish(EndReason::MaxSegments, out);
            return;
        }
        match &self.next {
            Some(n) if n.ready.is_some() => {
                let n = self.next.take().expect("checked");
                let ready = n.ready.expect("checked");
                self.start_main(
                    now,
                    MainStart {
                        agent: n.agent,
                        auction_id: n.auction_id,
                        segment_id: n.segment_id,
                        clip_id: n.clip_id,
                        role: ClipRole::Segment,
                        text: ready.text,
                        beats: ready.beats,
                        planned_ms: ready.planned_ms,
                        context_version: n.context_version,
                    },
                    out,
                );
            }
            Some(_) => {}
            None if self.started => {
                // Nobody was asked (should not happen): keep the conversation moving.
                let pick = self.least_recent(self.last_speaker);
                let auction_id = ids::auction_id(&self.session, self.turn);
                let target = self.cfg.segment_seconds.target;
                self.request_segment(pick, &auction_id, HintKind::Open, target, out);
            }
            None => {}
        }
    }

    fn start_main(&mut self, now: u64, s: MainStart, out: &mut Vec<Action>) {
        self.turn += 1;
        let turn = self.turn;
        self.fairness.took_floor(s.agent, turn);
        self.contiguous = if self.last_speaker == Some(s.agent) {
            self.contiguous + 1
        } else {
            1
        };
        self.last_speaker = Some(s.agent);
        self.agents[s.agent].backlog = 0.0;
        let name = self.agents[s.agent].name.clone();
        out.push(record(RecordKind::Segment(SegmentRecord {
            agent_id: name.clone(),
            speaker_id: name.clone(),
            turn,
            auction_id: s.auction_id,
            segment_id: s.segment_id.clone(),
            clip_id: s.clip_id.clone(),
            role: s.role,
            at_ms: now,
            words: s.text.split_whitespace().count() as u32,
            planned_ms: s.planned_ms,
            context_version: s.context_version,
            prefetch: s.role == ClipRole::Segment,
        })));
        if s.role == ClipRole::Segment {
            out.push(Action::PlayClip {
                clip_id: s.clip_id.clone(),
                agent: name,
                text: s.text,
                role: s.role,
                overlay: false,
            });
        }
        self.main = Some(MainClip {
            agent: s.agent,
            clip_id: s.clip_id,
            role: s.role,
            started_at: now,
            beats: s.beats,
            planned_ms: s.planned_ms,
            last_beat: 0,
            ducked: false,
            interjections: 0,
            acked: false,
        });
        self.open_round(now, out);
    }

    // ----- auctions -----------------------------------------------------------------

    /// Tokens a heuristic agent wants before acting on a kicker intent: a typical bid
    /// plus `kicker_delta` plus the base fee (0 when hard interrupts are off).
    fn kicker_reserve(&self) -> u32 {
        let k = &self.cfg.interrupt;
        if k.mode != InterruptMode::Cutoff || k.prebuffer_top == 0 {
            return 0;
        }
        let p = &self.cfg.pricing;
        p.max_bid.div_ceil(2) + p.kicker_delta + p.kicker_fee
    }

    fn heuristic_input(&self, a: usize) -> HeuristicInput {
        let st = &self.agents[a];
        let d = bidding::desire(&DesireInputs {
            w_backlog: st.style.w_backlog,
            w_recency: st.style.w_recency,
            w_emotion: st.style.w_emotion,
            backlog: (st.style.eagerness + st.backlog).clamp(0.0, 2.0),
            recency: bidding::recency(
                self.turn,
                self.fairness.last_spoke_turn(a),
                self.agents.len(),
            ),
        });
        HeuristicInput {
            agent: a,
            desire: d,
            tokens: self.tokens.balance(a),
            mood_tokens: st
                .emotion
                .bid_adjustment(st.style.w_emotion, &self.cfg.emotion),
            kicker_intent: st.emotion.mood().frustration >= self.cfg.bidding.kicker_frustration,
            kicker_reserve: self.kicker_reserve(),
        }
    }

    fn heuristic_bids(&self, bidders: &[usize]) -> Vec<Bid> {
        let inputs: Vec<HeuristicInput> =
            bidders.iter().map(|&a| self.heuristic_input(a)).collect();
        let p = &self.cfg.pricing;
        bidding::heuristic_bids(
            &inputs,
            self.cfg.bidding.softmax_tau,
            p.max_bid,
            p.min_bid,
            self.cfg.bidding.pass_below,
        )
    }

    fn open_round(&mut self, now: u64, out: &mut Vec<Action>) {
        let Some(main) = self.main.as_ref() else {
            return;
        };
        let speaker = main.agent;
        let role = main.role;
        let has_beats = !main.beats.is_empty();
        let speaker_name = self.agents[speaker].name.clone();
        let turn = self.turn;
        let auction_id = ids::auction_id(&self.session, turn);
        let n = self.agents.len();
        let closing = self.session_over();
        let bidders: Vec<usize> = (0..n).filter(|&a| a != speaker).collect();
        let mut bids = vec![None; n];
        let mut fallback = vec![None; n];
        let mut awaiting = vec![false; n];
        let bid_timeout = self.cfg.concurrency.timeouts_ms.bid;
        if !closing {
            for b in self.heuristic_bids(&bidders) {
                let a = b.agent;
                if self.agents[a].style.source == BidSource::Llm {
                    awaiting[a] = true;
                    out.push(Action::RequestBid {
                        agent: self.agents[a].name.clone(),
                        auction_id: auction_id.clone(),
                        tokens: self.tokens.balance(a),
                        mood: self.agents[a].emotion.mood(),
                        deadline_ms: now + bid_timeout,
                    });
                } else {
                    bids[a] = Some(b.clone());
                }
                fallback[a] = Some(b);
            }
        }
        self.round = Some(Round {
            auction_id: auction_id.clone(),
            turn,
            speaker: Some(speaker),
            bid_deadline: now + bid_timeout,
            bids,
            fallback,
            awaiting,
            resolved: closing,
            kicker: None,
            interjection: None,
        });
        if closing {
            out.push(record(RecordKind::Auction(AuctionRecord {
                auction_id,
                turn,
                at_ms: now,
                speaker_id: Some(speaker_name),
                winner_id: None,
                decision: Decision::Closing,
                tokens_spent: 0,
                guard_band_missed: false,
                kicker_planned: false,
                kicker_block: None,
                rows: Vec::new(),
            })));
        }
        // Heuristic interjection intent: one listener at most, by a seeded draw.
        if role == ClipRole::Segment && has_beats && self.cfg.interjections.max_per_segment > 0 {
            let mut best: Option<(usize, f64)> = None;
            for &a in &bidders {
                if self.agents[a].style.source == BidSource::Llm
                    || self.heuristic_input(a).saving()
                    || !self.interjections.eligible(
                        a,
                        turn,
                        self.tokens.balance(a),
                        &self.cfg.interjections,
                    )
                {
                    continue;
                }
                let mood = self.agents[a].emotion.mood();
                let urge = 0.5 * mood.engagement
                    + 0.5 * mood.frustration
                    + 0.3 * self.agents[a].style.eagerness;
                let p = (self.cfg.interjections.probability * (0.5 + urge)).min(1.0);
                if self.rng.next_f64() < p && best.is_none_or(|(_, u)| urge > u) {
                    best = Some((a, urge));
                }
            }
            if let Some((a, _)) = best {
                self.plan_interjection(a, out);
            }
        }
    }

    fn plan_interjection(&mut self, agent: usize, out: &mut Vec<Action>) {
        let Some(main) = self.main.as_ref() else {
            return;
        };
        let speaker = self.agents[main.agent].name.clone();
        let Some(round) = self.round.as_ref() else {
            return;
        };
        if round.interjection.is_some() {
            return;
        }
        let auction_id = round.auction_id.clone();
        let kind = InterjectionKind::for_mood(&self.agents[agent].emotion.mood());
        let (_, clip_id) = self.ids.next(&auction_id, agent);
        out.push(Action::RequestInterjection {
            agent: self.agents[agent].name.clone(),
            auction_id,
            clip_id: clip_id.clone(),
            speaker,
            kind,
            max_words: self.cfg.interjections.max_words,
        });
        if let Some(round) = self.round.as_mut() {
            round.interjection = Some(InterjectionPlan {
                agent,
                clip_id,
                kind,
                text: None,
                ready: false,
            });
        }
    }

    fn on_bid(
        &mut self,
        agent: &str,
        auction_id: &str,
        answer: Result<&str, &str>,
        out: &mut Vec<Action>,
    ) {
        let Some(a) = self.agents.iter().position(|s| s.name == agent) else {
            return;
        };
        let Some(round) = self.round.as_mut() else {
            return;
        };
        if round.auction_id != auction_id || round.resolved || !round.awaiting[a] {
            return;
        }
        round.awaiting[a] = false;
        let fallback = round.fallback[a].clone();
        let parsed = match answer {
            Ok(text) => llm::parse_bid(text).map_err(|e| e.to_string()),
            Err(reason) => Err(reason.to_owned()),
        };
        match parsed {
            Ok(b) => {
                let balance = self.tokens.balance(a);
                let amount = b.bid.min(balance);
                let counts = b.intent == BidIntent::Speak && amount >= self.cfg.pricing.min_bid;
                let bid = Bid {
                    agent: a,
                    amount: if counts { amount } else { 0 },
                    kicker: counts && b.kicker,
                    intent: b.intent,
                    source: BidSourceKind::Llm,
                    evidence: b.evidence,
                    desire: fallback.as_ref().map_or(0.0, |f| f.desire),
                };
                round.bids[a] = Some(bid);
                let turn = round.turn;
                let may_interject = b.intent == BidIntent::Interject
                    && round.interjection.is_none()
                    && self
                        .main
                        .as_ref()
                        .is_some_and(|m| m.role == ClipRole::Segment && !m.beats.is_empty())
                    && self.interjections.eligible(
                        a,
                        turn,
                        self.tokens.balance(a),
                        &self.cfg.interjections,
                    );
                if may_interject {
                    self.plan_interjection(a, out);
                }
            }
            Err(reason) => {
                out.push(record(RecordKind::BidFallback(BidFallbackRecord {
                    auction_id: auction_id.to_owned(),
                    agent_id: agent.to_owned(),
                    reason,
                })));
                round.bids[a] = fallback.map(|mut f| {
                    f.source = BidSourceKind::Fallback;
                    f
                });
            }
        }
    }

    fn lead_deadline(&self) -> Option<u64> {
        let m = self.main.as_ref()?;
        Some((m.started_at + m.planned_ms).saturating_sub(self.cfg.timing.resolve_lead_ms))
    }

    fn check_deadlines(&mut self, now: u64, out: &mut Vec<Action>) {
        let Some(round) = self.round.as_ref() else {
            return;
        };
        if round.resolved {
            return;
        }
        let all_in = !round.awaiting.iter().any(|&w| w);
        let lead_passed = self.lead_deadline().is_some_and(|d| now >= d);
        if all_in || now >= round.bid_deadline || lead_passed {
            self.resolve(now, lead_passed && !all_in, out);
        }
    }

    /// Resolves the open round: fills missing bids, ranks, charges, plans a kicker and
    /// asks the next speaker for its segment.
    fn resolve(&mut self, now: u64, guard_missed: bool, out: &mut Vec<Action>) {
        let Some(mut round) = self.round.take() else {
            return;
        };
        if round.resolved {
            self.round = Some(round);
            return;
        }
        round.resolved = true;
        let n = self.agents.len();
        for a in 0..n {
            if round.awaiting[a] {
                round.awaiting[a] = false;
                out.push(record(RecordKind::BidFallback(BidFallbackRecord {
                    auction_id: round.auction_id.clone(),
                    agent_id: self.agents[a].name.clone(),
                    reason: if guard_missed {
                        "guard band".into()
                    } else {
                        "timeout".into()
                    },
                })));
                round.bids[a] = round.fallback[a].clone().map(|mut f| {
                    f.source = BidSourceKind::Fallback;
                    f
                });
            }
        }
        let mut verdicts = vec![None; n];
        let mut candidates = Vec::new();
        for bid in round.bids.iter().flatten() {
            let a = bid.agent;
            let mut accepted = false;
            if let Some(claim) = &bid.evidence {
                let v = self
                    .evidence
                    .judge(a, claim, round.turn, &self.cfg.evidence_priority);
                if v == EvidenceVerdict::Rejected {
                    let cfg = self.cfg.reputation.clone();
                    self.agents[a].reputation.update(cfg.low_quality, &cfg);
                }
                if v == EvidenceVerdict::Accepted {
                    let cfg = self.cfg.reputation.clone();
                    self.agents[a].reputation.update(cfg.strong_evidence, &cfg);
                }
                accepted = v == EvidenceVerdict::Accepted;
                verdicts[a] = Some(v);
            }
            let amount = bid.amount.min(self.tokens.balance(a));
            if bid.intent == BidIntent::Speak && amount >= self.cfg.pricing.min_bid {
                candidates.push(Candidate {
                    agent: a,
                    amount,
                    multiplier: self.fairness.multiplier(a),
                    evidence: accepted,
                    last_spoke_turn: self.fairness.last_spoke_turn(a),
                    share: self.fairness.share(a),
                });
            }
        }
        self.raise_kicker_bids(&round, &mut candidates, now, guard_missed);
        let ranked = resolver::rank(&candidates);
        let cold = round.speaker.is_none();
        let mut price = 0;
        let mut kicker_block = None;
        let (winner, decision) = match ranked.first() {
            Some(best) => {
                let a = best.agent;
                if !cold {
                    let discount = self.agents[a].reputation.discount(&self.cfg.reputation)
                        + if best.evidence {
                            self.cfg.evidence_priority.discount
                        } else {
                            0.0
                        }
                        + self.fairness.subsidy(a, &self.cfg.pricing);
                    price = resolver::price(best.amount, discount, self.cfg.pricing.min_bid);
                    if self.tokens.spend(a, price).is_err() {
                        price = 0;
                    }
                }
                (
                    Some(a),
                    if cold {
                        Decision::ColdStart
                    } else {
                        Decision::Won
                    },
                )
            }
            None => match round.speaker {
                Some(s) if self.contiguous < self.cfg.max_contiguous_segments => {
                    (Some(s), Decision::Continue)
                }
                Some(s) => (Some(self.least_recent(Some(s))), Decision::LeastRecent),
                None => (Some(self.least_recent(None)), Decision::ColdStart),
            },
        };
        // Emotions: the winner of a contested auction is relieved, the losers frustrated.
        let ecfg = self.cfg.emotion.clone();
        for c in &ranked {
            let ev = if Some(c.agent) == winner {
                MoodEvent::WonBid
            } else {
                MoodEvent::LostBid
            };
            self.agents[c.agent].emotion.apply_event(ev, &ecfg);
        }
        // Hard interrupt plan.
        if let (Some(w), Decision::Won, Some(speaker)) = (winner, decision, round.speaker) {
            let wants = round.bids[w].as_ref().is_some_and(|b| b.kicker);
            if wants {
                let allowed = self.kicker_allowed(
                    w,
                    speaker,
                    round.turn,
                    ranked[0].amount,
                    ranked.get(1).map_or(0, |c| c.amount),
                    // Already paid: bid and fee must have been affordable together.
                    self.tokens.balance(w) + price,
                    now,
                    guard_missed,
                );
                match allowed {
                    Ok(fee) => {
                        let (_, clip_id) = self.ids.next(&round.auction_id, w);
                        let words = self.cfg.interrupt.kicker_words;
                        out.push(Action::RequestKicker {
                            agent: self.agents[w].name.clone(),
                            auction_id: round.auction_id.clone(),
                            clip_id: clip_id.clone(),
                            interrupting: self.agents[speaker].name.clone(),
                            min_words: words[0],
                            max_words: words[1],
                        });
                        round.kicker = Some(KickerPlan {
                            agent: w,
                            clip_id,
                            bid: ranked[0].amount,
                            fee,
                            text: None,
                            ready_at: None,
                        });
                    }
                    Err(block) => kicker_block = Some(block),
                }
            }
        }
        // Records.
        let log_mood = self.cfg.observability.log_mood;
        for bid in round.bids.iter().flatten() {
            let a = bid.agent;
            out.push(record(RecordKind::Bid(BidRecord {
                auction_id: round.auction_id.clone(),
                agent_id: self.agents[a].name.clone(),
                bid: bid.amount,
                effective: bid.amount as f64 * self.fairness.multiplier(a),
                kicker: bid.kicker,
                intent: bid.intent,
                source: bid.source,
                desire: bid.desire,
                tokens: self.tokens.balance(a),
                pacing: self.fairness.pacing(a),
                evidence: verdicts[a],
                emotion: log_mood.then(|| self.agents[a].emotion.mood()),
            })));
        }
        let rows = round
            .bids
            .iter()
            .flatten()
            .map(|bid| {
                let a = bid.agent;
                let ranked_entry = ranked.iter().find(|c| c.agent == a);
                AuctionRow {
                    agent_id: self.agents[a].name.clone(),
                    bid: ranked_entry.map_or(0, |c| c.amount),
                    effective: ranked_entry.map_or(0.0, |c| c.effective()),
                    kicker: bid.kicker,
                    result: match ranked_entry {
                        None => BidResult::Pass,
                        Some(_) if Some(a) == winner => BidResult::Win,
                        Some(_) => BidResult::Lose,
                    },
                    tokens_left: self.tokens.balance(a),
                }
            })
            .collect();
        out.push(record(RecordKind::Auction(AuctionRecord {
            auction_id: round.auction_id.clone(),
            turn: round.turn,
            at_ms: now,
            speaker_id: round.speaker.map(|s| self.agents[s].name.clone()),
            winner_id: winner.map(|w| self.agents[w].name.clone()),
            decision,
            tokens_spent: price,
            guard_band_missed: guard_missed,
            kicker_planned: round.kicker.is_some(),
            kicker_block,
            rows,
        })));
        // The next speaker prepares its segment now (one-segment reserve).
        if let Some(w) = winner {
            let s = &self.cfg.segment_seconds;
            let contested = ranked.len() >= 2;
            let (kind, seconds) = match decision {
                Decision::Continue => (HintKind::Continue, s.min),
                _ if self
                    .main
                    .as_ref()
                    .is_some_and(|m| m.role == ClipRole::Kicker) =>
                {
                    (HintKind::FollowInterruption, s.target)
                }
                _ if contested => (HintKind::Open, s.target),
                _ => (HintKind::Open, (s.target + s.max) / 2.0),
            };
            let auction_id = round.auction_id.clone();
            self.round = Some(round);
            self.request_segment(w, &auction_id, kind, seconds, out);
            self.try_start_next(now, out);
        } else {
            self.round = Some(round);
        }
    }

    /// Whether `w` may cut `speaker` off with a kicker bid of `bid` against a runner-up
    /// of `runner_up`, holding `balance` before paying; the fee if so.
    #[allow(clippy::too_many_arguments)]
    fn kicker_allowed(
        &self,
        w: usize,
        speaker: usize,
        turn: u32,
        bid: u32,
        runner_up: u32,
        balance: u32,
        now: u64,
        guard_missed: bool,
    ) -> Result<u32, InterruptBlock> {
        let main = self.main.as_ref().ok_or(InterruptBlock::Disabled)?;
        if guard_missed || main.role != ClipRole::Segment {
            return Err(InterruptBlock::Disabled);
        }
        let k = &self.cfg.interrupt;
        let end = main.started_at + main.planned_ms;
        let usable_beat = main.beats.iter().any(|b| {
            let at = main.started_at + b.offset_ms;
            b.index >= k.min_beat
                && b.index > main.last_beat
                && at > now + k.commit_guard_ms
                && end.saturating_sub(at) >= k.soft_remaining_ms
        });
        if !usable_beat {
            return Err(InterruptBlock::Disabled);
        }
        let fee = self.interrupts.fee(
            turn,
            self.agents[speaker].reputation.value(),
            k,
            &self.cfg.pricing,
        );
        let kb = KickerBid {
            agent: w,
            turn,
            bid,
            runner_up,
            balance,
            fee,
        };
        self.interrupts
            .check(&kb, k, &self.cfg.cooldowns, &self.cfg.pricing)?;
        Ok(fee)
    }

    /// A heuristic bidder that wants to interrupt raises its bid to the frontier
    /// (highest other bid + `kicker_delta`) when the interrupt is allowed and it can
    /// afford bid and fee; the most eager such bidder only.
    fn raise_kicker_bids(
        &self,
        round: &Round,
        candidates: &mut [Candidate],
        now: u64,
        guard_missed: bool,
    ) {
        let Some(speaker) = round.speaker else {
            return;
        };
        let eager = candidates
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                round.bids[c.agent]
                    .as_ref()
                    .is_some_and(|b| b.kicker && b.source != BidSourceKind::Llm)
            })
            .max_by(|(_, a), (_, b)| {
                let da = round.bids[a.agent].as_ref().map_or(0.0, |x| x.desire);
                let db = round.bids[b.agent].as_ref().map_or(0.0, |x| x.desire);
                da.total_cmp(&db).then(b.agent.cmp(&a.agent))
            })
            .map(|(i, _)| i);
        let Some(i) = eager else {
            return;
        };
        let c = candidates[i];
        let others = candidates
            .iter()
            .filter(|o| o.agent != c.agent)
            .map(|o| o.amount)
            .max()
            .unwrap_or(0);
        let needed = others + self.cfg.pricing.kicker_delta;
        if needed <= c.amount {
            return;
        }
        let balance = self.tokens.balance(c.agent);
        if self
            .kicker_allowed(
                c.agent,
                speaker,
                round.turn,
                needed,
                others,
                balance,
                now,
                guard_missed,
            )
            .is_ok()
        {
            candidates[i].amount = needed;
        }
    }

    // ----- clips, beats ---------------------------------------------------------------

    fn on_clip_ready(&mut self, clip_id: &str, now: u64) {
        let Some(round) = self.round.as_mut() else {
            return;
        };
        if let Some(k) = round.kicker.as_mut()
            && k.clip_id == clip_id
            && k.text.is_some()
        {
            k.ready_at.get_or_insert(now);
        }
        if let Some(i) = round.interjection.as_mut()
            && i.clip_id == clip_id
            && i.text.is_some()
        {
            i.ready = true;
        }
    }

    fn on_kicker_text(&mut self, clip_id: &str, text: &str, out: &mut Vec<Action>) {
        let max = self.cfg.interrupt.kicker_words[1] as usize;
        let Some(round) = self.round.as_mut() else {
            return;
        };
        let Some(k) = round.kicker.as_mut() else {
            return;
        };
        if k.clip_id != clip_id || k.text.is_some() {
            return;
        }
        let clean = sanitize_spoken(text, max);
        if clean.is_empty() {
            round.kicker = None;
            return;
        }
        k.text = Some(clean.clone());
        out.push(Action::Synthesize {
            clip_id: clip_id.to_owned(),
            agent: self.agents[k.agent].name.clone(),
            text: clean,
            role: ClipRole::Kicker,
        });
    }

    fn on_interjection_text(&mut self, clip_id: &str, text: &str, out: &mut Vec<Action>) {
        let max = self.cfg.interjections.max_words as usize;
        let Some(round) = self.round.as_mut() else {
            return;
        };
        let Some(i) = round.interjection.as_mut() else {
            return;
        };
        if i.clip_id != clip_id || i.text.is_some() {
            return;
        }
        let clean = sanitize_spoken(text, max);
        if clean.is_empty() {
            let a = i.agent;
            round.interjection = None;
            let cfg = self.cfg.reputation.clone();
            self.agents[a].reputation.update(cfg.low_quality, &cfg);
            return;
        }
        i.text = Some(clean.clone());
        out.push(Action::Synthesize {
            clip_id: clip_id.to_owned(),
            agent: self.agents[i.agent].name.clone(),
            text: clean,
            role: ClipRole::Interjection,
        });
    }

    fn on_beat(&mut self, clip_id: &str, beat: u32, at: u64, out: &mut Vec<Action>) {
        let Some(main) = self.main.as_mut() else {
            return;
        };
        if main.clip_id != clip_id || beat <= main.last_beat {
            return;
        }
        main.last_beat = beat;
        let planned = main
            .beats
            .iter()
            .find(|b| b.index == beat)
            .map_or(at, |b| main.started_at + b.offset_ms);
        let drift = at as i64 - planned as i64;
        let late = drift > self.cfg.timing.late_beat_ms as i64;
        let pending = self.round.as_ref().is_some_and(|r| {
            r.kicker.is_some() || r.interjection.as_ref().is_some_and(|i| i.ready)
        });
        out.push(record(RecordKind::Timing(TimingRecord {
            clip_id: clip_id.to_owned(),
            beat,
            beat_planned_ms: planned,
            beat_actual_ms: at,
            drift_ms: drift,
            late,
            deferred: late && pending,
        })));
        if late {
            return;
        }
        if self.try_interrupt(beat, planned, at, out) {
            return;
        }
        self.try_interjection(beat, planned, at, out);
    }

    fn try_interrupt(&mut self, beat: u32, planned: u64, at: u64, out: &mut Vec<Action>) -> bool {
        let (Some(main), Some(round)) = (self.main.as_ref(), self.round.as_ref()) else {
            return false;
        };
        let k = &self.cfg.interrupt;
        let Some(kp) = round.kicker.as_ref() else {
            return false;
        };
        let ready_in_time = kp
            .ready_at
            .is_some_and(|r| r + k.commit_guard_ms <= planned);
        let end = main.started_at + main.planned_ms;
        let ok = round.resolved
            && ready_in_time
            && kp.text.is_some()
            && main.role == ClipRole::Segment
            && beat >= k.min_beat
            && self.overlay.is_none()
            && end.saturating_sub(planned) >= k.soft_remaining_ms
            && self.tokens.balance(kp.agent) >= kp.fee;
        if !ok {
            return false;
        }
        let main = self.main.take().expect("checked");
        let mut round = self.round.take().expect("checked");
        let kp = round.kicker.take().expect("checked");
        let w = kp.agent;
        let cut = main.agent;
        let _ = self.tokens.spend(w, kp.fee);
        let crossfade = self.cfg.interrupt.crossfade_ms;
        self.fade_until = Some(at + crossfade);
        let text = kp.text.clone().unwrap_or_default();
        out.push(Action::FadeOut {
            clip_id: main.clip_id.clone(),
            fade_ms: crossfade,
        });
        out.push(Action::FadeIn {
            clip_id: kp.clip_id.clone(),
            agent: self.agents[w].name.clone(),
            text: text.clone(),
            delay_ms: crossfade,
            fade_ms: self.cfg.interrupt.fade_in_ms,
        });
        if let Some(i) = round.interjection.take() {
            out.push(Action::DiscardClip { clip_id: i.clip_id });
        }
        if let Some(next) = self.next.take() {
            out.push(Action::CancelSegment {
                segment_id: next.segment_id,
            });
        }
        self.interrupts.record(w, round.turn);
        let rcfg = self.cfg.reputation.clone();
        self.agents[cut].reputation.update(rcfg.interrupted, &rcfg);
        let ecfg = self.cfg.emotion.clone();
        self.agents[w]
            .emotion
            .apply_event(MoodEvent::MadeInterrupt, &ecfg);
        self.agents[cut]
            .emotion
            .apply_event(MoodEvent::WasInterrupted, &ecfg);
        self.agents[cut].backlog += 1.0;
        self.agents[cut].respond_to = Some(w);
        out.push(record(RecordKind::Interrupt(InterruptRecord {
            auction_id: round.auction_id.clone(),
            turn: round.turn,
            agent_id: self.agents[w].name.clone(),
            interrupted_id: self.agents[cut].name.clone(),
            cut_clip_id: main.clip_id.clone(),
            kicker_clip_id: kp.clip_id.clone(),
            beat,
            at_ms: at,
            bid: kp.bid,
            fee: kp.fee,
            tokens_spent: kp.fee,
            text: text.clone(),
        })));
        self.close_micro_turn(&main, at + crossfade, false);
        let words = text.split_whitespace().count() as f64;
        let planned_ms = (words / self.words_per_ms()).round() as u64;
        let segment_id = kp.clip_id.trim_start_matches("clip_").to_owned();
        self.start_main(
            at + crossfade,
            MainStart {
                agent: w,
                auction_id: round.auction_id.clone(),
                segment_id,
                clip_id: kp.clip_id,
                role: ClipRole::Kicker,
                text,
                beats: Vec::new(),
                planned_ms,
                context_version: round.turn,
            },
            out,
        );
        true
    }

    fn try_interjection(&mut self, beat: u32, planned: u64, at: u64, out: &mut Vec<Action>) {
        let (Some(main), Some(round)) = (self.main.as_ref(), self.round.as_ref()) else {
            return;
        };
        let Some(plan) = round.interjection.as_ref() else {
            return;
        };
        let cost = self.cfg.interjections.cost;
        let ok = plan.ready
            && plan.text.is_some()
            && plan.agent != main.agent
            && main.role == ClipRole::Segment
            && !main.ducked
            && self.overlay.is_none()
            && main.interjections < self.cfg.interjections.max_per_segment
            && self.tokens.balance(plan.agent) >= cost;
        if !ok {
            return;
        }
        let plan = self
            .round
            .as_mut()
            .and_then(|r| r.interjection.take())
            .expect("checked");
        let auction_id = self
            .round
            .as_ref()
            .map(|r| r.auction_id.clone())
            .unwrap_or_default();
        let turn = self.turn;
        let _ = self.tokens.spend(plan.agent, cost);
        self.interjections.record(plan.agent, turn);
        let text = plan.text.clone().unwrap_or_default();
        let importance = plan.kind.importance(&text);
        let main = self.main.as_mut().expect("checked");
        main.interjections += 1;
        main.ducked = true;
        let speaker = main.agent;
        let main_clip = main.clip_id.clone();
        let acknowledge = !main.acked
            && InterjectionPlanner::should_acknowledge(
                plan.kind,
                importance,
                &self.cfg.interjections,
            );
        if acknowledge {
            main.acked = true;
            self.agents[speaker].pending_ack = Some(Acknowledgement {
                from: self.agents[plan.agent].name.clone(),
                kind: plan.kind,
                text: text.clone(),
            });
        }
        let ecfg = self.cfg.emotion.clone();
        self.agents[speaker]
            .emotion
            .apply_event(MoodEvent::ReceivedInterjection(plan.kind), &ecfg);
        out.push(Action::Duck {
            clip_id: main_clip.clone(),
            beat,
            gain_db: self.cfg.interjections.duck_db,
            ramp_ms: self.cfg.interjections.duck_ramp_ms,
        });
        out.push(Action::PlayClip {
            clip_id: plan.clip_id.clone(),
            agent: self.agents[plan.agent].name.clone(),
            text: text.clone(),
            role: ClipRole::Interjection,
            overlay: true,
        });
        out.push(record(RecordKind::Interjection(InterjectionRecord {
            auction_id,
            agent_id: self.agents[plan.agent].name.clone(),
            speaker_id: self.agents[speaker].name.clone(),
            clip_id: plan.clip_id.clone(),
            ducked_clip_id: main_clip.clone(),
            kind: plan.kind,
            importance,
            acknowledge,
            beat,
            at_ms: at,
            beat_planned_ms: planned,
            tokens_spent: cost,
            text,
        })));
        self.overlay = Some(Overlay {
            clip_id: plan.clip_id,
            under: main_clip,
        });
    }

    fn on_clip_end(&mut self, clip_id: &str, at: u64, completed: bool, out: &mut Vec<Action>) {
        if self.overlay.as_ref().is_some_and(|o| o.clip_id == clip_id) {
            let o = self.overlay.take().expect("checked");
            if let Some(m) = self.main.as_mut()
                && m.clip_id == o.under
                && m.ducked
            {
                m.ducked = false;
                out.push(Action::Unduck {
                    clip_id: m.clip_id.clone(),
                    ramp_ms: self.cfg.interjections.duck_ramp_ms,
                });
            }
            self.try_start_next(at, out);
            return;
        }
        if self.main.as_ref().is_some_and(|m| m.clip_id == clip_id) {
            let main = self.main.take().expect("checked");
            // Anything still waiting for a beat of this clip will not play.
            if let Some(round) = self.round.as_mut() {
                if let Some(k) = round.kicker.take() {
                    out.push(Action::DiscardClip { clip_id: k.clip_id });
                }
                if let Some(i) = round.interjection.take() {
                    out.push(Action::DiscardClip { clip_id: i.clip_id });
                }
            }
            if self.round.as_ref().is_some_and(|r| !r.resolved) {
                self.resolve(at, true, out);
            }
            self.close_micro_turn(&main, at, completed);
            self.try_start_next(at, out);
            return;
        }
        // A prepared clip failed before playing.
        if !completed && let Some(round) = self.round.as_mut() {
            if round.kicker.as_ref().is_some_and(|k| k.clip_id == clip_id) {
                round.kicker = None;
            }
            if round
                .interjection
                .as_ref()
                .is_some_and(|i| i.clip_id == clip_id)
            {
                round.interjection = None;
            }
        }
    }

    /// Bookkeeping at the end of a main clip (completed, failed or cut at `at`).
    fn close_micro_turn(&mut self, main: &MainClip, at: u64, completed: bool) {
        let a = main.agent;
        self.fairness
            .add_talk(a, at.saturating_sub(main.started_at));
        self.tokens.end_of_segment(Some(a));
        let ecfg = self.cfg.emotion.clone();
        let rcfg = self.cfg.reputation.clone();
        if completed {
            self.agents[a]
                .emotion
                .apply_event(MoodEvent::SpokeSegment, &ecfg);
            if main.role == ClipRole::Segment {
                self.agents[a]
                    .reputation
                    .update(rcfg.uninterrupted_segment, &rcfg);
            }
        }
        for st in &mut self.agents {
            st.emotion.end_micro_turn(&ecfg);
            st.reputation.decay(&rcfg);
        }
        self.fairness.update_pacing();
    }
}

struct MainStart {
    agent: usize,
    auction_id: String,
    segment_id: String,
    clip_id: String,
    role: ClipRole,
    text: String,
    beats: Vec<BeatPlan>,
    planned_ms: u64,
    context_version: u32,
}

fn record(kind: RecordKind) -> Action {
    Action::Record(EventRecord::new(kind))
}

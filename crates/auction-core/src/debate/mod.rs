//! [`AuctionDebate`]: the auction-debate format as one sans-IO state machine. Its node
//! drives it through [`conductor::Core`]: [`Input`]s (a participant's streamed text,
//! replies to side requests, the player's clip reports) in, [`Output`]s (turns, side
//! requests, clips and commands, utterances, records) out. The offline simulation
//! ([`crate::sim`]) and the scenario tests drive its decisions directly:
//! [`AuctionDebate::decide`] takes an [`Event`] with the current monotonic time in
//! milliseconds and returns the [`Action`]s decided, which the node's side of the same
//! machine otherwise carries out as messages.
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
//!    If bids are still missing `timing.resolve_lead_ms` (adapted by `lead_time`) before
//!    the planned end of the clip, they are filled heuristically and no interrupt happens
//!    this turn. Model requests over a `concurrency` or `quality` limit are not made.
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
//!
//! # Files
//!
//! - `events`: the decisions' vocabulary ([`Event`], [`Action`] and what they carry);
//! - `state`: the decisions' private bookkeeping (agents, the playing clip, the round);
//! - `flow`: cold start, segment requests and answers, handing the floor on, the end;
//! - `round`: opening an auction (bids, the interjection intent, bidding deadlines);
//! - `resolve`: resolving it (ranking, charging, the kicker plan, records);
//! - `beats`: a beat's hard interrupt or ducked interjection;
//! - `clips`: kicker and interjection text and audio, the end of a clip;
//! - `limits`: model requests in flight, checked against `concurrency` and `quality`;
//! - `human`: the human's floor (their voice holds the clip that sounds, their words
//!   cut it and are answered first);
//! - `inputs`: the node's messages in: text gathered into segments, replies matched to
//!   their requests, the player's clock, waits that time out;
//! - `outputs`: the decisions carried out as messages: turns, side requests, clips;
//! - `prompts`: what a participant is asked to say, and a text's sentences (its beats);
//! - `setup`: what a debate is built from, as its decision log records it.

mod beats;
mod clips;
mod events;
mod flow;
mod human;
mod inputs;
mod limits;
mod notice;
mod outputs;
mod prompts;
mod resolve;
mod round;
mod setup;
mod state;

use crate::config::AuctionConfig;
use crate::emotion::EmotionState;
use crate::evidence::EvidenceLane;
use crate::fairness::FairnessAdjuster;
use crate::governor::RequestGovernor;
use crate::ids::IdGen;
use crate::interjection::InterjectionPlanner;
use crate::interrupt::InterruptPolicy;
use crate::lead_time::LeadTime;
use crate::records::{EventRecord, RecordKind};
use crate::reputation::Reputation;
use crate::rng::SplitMix64;
use crate::tokens::TokenManager;

pub use events::{
    Acknowledgement, Action, AgentSnapshot, BeatPlan, EndReason, Event, HintKind, SegmentHint,
    SegmentRequest,
};
pub use inputs::Input;
use inputs::Wire;
pub use notice::Notice;
pub use outputs::Output;
pub use prompts::{role_name, segment_instruction, split_sentences};
pub use setup::{AUCTION_FORMAT, AuctionSetup, Timeouts};
use state::{AgentState, Economy, Floor, NextSegment, Progress, Round};

/// Side requests remembered at most (each also has a deadline).
const MAX_OPEN_REQUESTS: usize = 256;

/// The auction debate: its decisions and the messages that carry them.
#[derive(Debug, Clone)]
pub struct AuctionDebate {
    cfg: AuctionConfig,
    session: String,
    rng: SplitMix64,
    agents: Vec<AgentState>,
    /// Token balances, fairness, evidence judged, interrupts and interjections made.
    economy: Economy,
    ids: IdGen,
    /// The turn count, whether the debate started or ended, failures in a row.
    progress: Progress,
    /// Who has the floor: the main clip, an overlay, the fade, the speaker run.
    floor: Floor,
    round: Option<Round>,
    next: Option<NextSegment>,
    /// The resolve lead, adapted to handovers that waited for their segment.
    lead: LeadTime,
    /// Limits on model requests in flight and per minute.
    governor: RequestGovernor,

    /// The node's messages in flight: ids, segments, side requests, clips.
    wire: Wire,
}

/// Why a debate could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DebateError {
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    #[error("an auction needs at least two agents")]
    TooFewAgents,
    #[error("duplicate agent name `{0}`")]
    DuplicateAgent(String),
}

impl AuctionDebate {
    /// A session of `agents` (in a fixed order: their indices appear in ids), with a
    /// short session id for ids, a seed for the few random choices and the node's waits.
    pub fn new<S: AsRef<str>>(
        cfg: AuctionConfig,
        agents: &[S],
        session: &str,
        seed: u64,
        timeouts: Timeouts,
    ) -> Result<Self, DebateError> {
        cfg.validate()?;
        if agents.len() < 2 {
            return Err(DebateError::TooFewAgents);
        }
        let names: Vec<String> = agents.iter().map(|a| a.as_ref().to_owned()).collect();
        for (i, n) in names.iter().enumerate() {
            if names[..i].contains(n) {
                return Err(DebateError::DuplicateAgent(n.clone()));
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
                answer_human: None,
            })
            .collect();
        Ok(Self {
            lead: LeadTime::new(cfg.timing.resolve_lead_ms, &cfg.lead_time),
            governor: RequestGovernor::new(&cfg.concurrency, &cfg.quality),
            economy: Economy {
                tokens: TokenManager::new(n, &cfg.tokens, &cfg.anti_hoarding),
                fairness: FairnessAdjuster::new(n, &cfg.fairness),
                evidence: EvidenceLane::new(n),
                interrupts: InterruptPolicy::new(n),
                interjections: InterjectionPlanner::new(n),
            },
            ids: IdGen::default(),
            rng: SplitMix64::new(seed),
            session: session.to_owned(),
            agents: states,
            cfg,
            progress: Progress::default(),
            floor: Floor::default(),
            round: None,
            next: None,
            wire: Wire::new(timeouts),
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
        self.progress.turn
    }

    /// The resolve lead in force: `timing.resolve_lead_ms`, raised after misses.
    pub fn lead_ms(&self) -> u64 {
        self.lead.lead_ms()
    }

    pub fn is_ended(&self) -> bool {
        self.progress.ended
    }

    /// Token balances in agent order.
    pub fn balances(&self) -> &[u32] {
        self.economy.tokens.balances()
    }

    pub fn tokens(&self) -> &TokenManager {
        &self.economy.tokens
    }

    pub fn snapshot(&self) -> Vec<AgentSnapshot> {
        self.agents
            .iter()
            .enumerate()
            .map(|(i, a)| AgentSnapshot {
                name: a.name.clone(),
                tokens: self.economy.tokens.balance(i),
                talk_ms: self.economy.fairness.talk_ms(i),
                share: self.economy.fairness.share(i),
                pacing: self.economy.fairness.pacing(i),
                reputation: a.reputation.value(),
                interrupts: self.economy.interrupts.made_by(i),
                interjections: self.economy.interjections.made_by(i),
                mood: a.emotion.mood(),
            })
            .collect()
    }

    /// When [`Event::Tick`] is due at the latest (bid timeout or guard band).
    pub fn decision_deadline(&self) -> Option<u64> {
        let mut deadline = self.floor.fade_until;
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

    /// Decides on one event at monotonic time `now_ms`.
    pub fn decide(&mut self, event: Event, now_ms: u64) -> Vec<Action> {
        let mut out = Vec::new();
        if self.progress.ended {
            return out;
        }
        self.economy
            .tokens
            .advance(now_ms, self.floor.main.as_ref().map(|m| m.agent));
        match event {
            Event::Start => self.cold_start(now_ms, &mut out),
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
                if let Some(m) = self.floor.main.as_mut()
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
            } => self.on_bid(&agent, &auction_id, Ok(&text), now_ms, &mut out),
            Event::LlmBidTimeout { agent, auction_id } => {
                self.on_bid(&agent, &auction_id, Err("timeout"), now_ms, &mut out)
            }
            Event::Tick => {}
            Event::HumanSpoke {
                speaker,
                words,
                named,
                held,
            } => self.on_human(speaker, &words, named.as_deref(), held, now_ms, &mut out),
            Event::Stop => {
                self.finish(EndReason::Stopped, &mut out);
                return out;
            }
        }
        self.check_deadlines(now_ms, &mut out);
        if self.floor.fade_until.is_some_and(|t| now_ms >= t) {
            self.floor.fade_until = None;
            self.try_start_next(now_ms, &mut out);
        }
        out
    }
}

/// Ada, Bo and Cy with the default config, seed 7, 5 s segments and 2 s requests: the
/// debate the node-side tests drive.
#[cfg(test)]
pub(crate) fn three_participants() -> AuctionDebate {
    AuctionDebate::new(
        AuctionConfig::default(),
        &["ada", "bo", "cy"],
        "t",
        7,
        Timeouts {
            segment_ms: 5_000,
            request_ms: 2_000,
        },
    )
    .unwrap()
}

fn record(kind: RecordKind) -> Action {
    Action::Record(EventRecord::new(kind))
}

impl ::conductor::Core for AuctionDebate {
    type Input = Input;
    type Output = Output;
    type Opening = ();

    fn start(&mut self, _: &(), now_ms: u64) -> Vec<Output> {
        AuctionDebate::start(self, now_ms)
    }

    fn handle(&mut self, input: Input, now_ms: u64) -> Vec<Output> {
        AuctionDebate::handle(self, input, now_ms)
    }

    fn tick(&mut self, now_ms: u64) -> Vec<Output> {
        AuctionDebate::tick(self, now_ms)
    }

    fn next_wake(&self) -> Option<u64> {
        self.next_deadline()
    }

    fn finished(&self) -> bool {
        self.is_ended()
    }
}

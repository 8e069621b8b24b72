//! The decisions' private bookkeeping, as owned sub-states: agents, who has the floor,
//! the economy, how far the debate is, the open round and the prepared next segment.

use crate::bidding::Bid;
use crate::config::ResolvedStyle;
use crate::emotion::EmotionState;
use crate::interjection::InterjectionKind;
use crate::records::ClipRole;
use crate::reputation::Reputation;

use super::events::{Acknowledgement, BeatPlan};

#[derive(Debug, Clone)]
pub(super) struct AgentState {
    pub(super) name: String,
    pub(super) style: ResolvedStyle,
    pub(super) emotion: EmotionState,
    pub(super) reputation: Reputation,
    /// Pending replies (e.g. after being cut off), added to the persona's eagerness.
    pub(super) backlog: f64,
    pub(super) pending_ack: Option<Acknowledgement>,
    pub(super) respond_to: Option<usize>,
    /// The human who spoke, whom the next segment answers first.
    pub(super) answer_human: Option<String>,
}

#[derive(Debug, Clone)]
pub(super) struct MainClip {
    pub(super) agent: usize,
    pub(super) clip_id: String,
    pub(super) role: ClipRole,
    pub(super) started_at: u64,
    pub(super) beats: Vec<BeatPlan>,
    pub(super) planned_ms: u64,
    pub(super) last_beat: u32,
    pub(super) ducked: bool,
    pub(super) interjections: u32,
    pub(super) acked: bool,
}

#[derive(Debug, Clone)]
pub(super) struct KickerPlan {
    pub(super) agent: usize,
    pub(super) clip_id: String,
    pub(super) bid: u32,
    pub(super) fee: u32,
    pub(super) text: Option<String>,
    pub(super) ready_at: Option<u64>,
}

#[derive(Debug, Clone)]
pub(super) struct InterjectionPlan {
    pub(super) agent: usize,
    pub(super) clip_id: String,
    pub(super) kind: InterjectionKind,
    pub(super) text: Option<String>,
    pub(super) ready: bool,
}

#[derive(Debug, Clone)]
pub(super) struct Round {
    pub(super) auction_id: String,
    pub(super) turn: u32,
    pub(super) speaker: Option<usize>,
    pub(super) bid_deadline: u64,
    pub(super) bids: Vec<Option<Bid>>,
    pub(super) fallback: Vec<Option<Bid>>,
    pub(super) awaiting: Vec<bool>,
    pub(super) resolved: bool,
    pub(super) kicker: Option<KickerPlan>,
    pub(super) interjection: Option<InterjectionPlan>,
}

#[derive(Debug, Clone)]
pub(super) struct ReadySegment {
    pub(super) text: String,
    pub(super) beats: Vec<BeatPlan>,
    pub(super) planned_ms: u64,
}

#[derive(Debug, Clone)]
pub(super) struct NextSegment {
    pub(super) agent: usize,
    pub(super) auction_id: String,
    pub(super) segment_id: String,
    pub(super) clip_id: String,
    pub(super) context_version: u32,
    pub(super) ready: Option<ReadySegment>,
}

#[derive(Debug, Clone)]
pub(super) struct Overlay {
    pub(super) clip_id: String,
    pub(super) under: String,
}

pub(super) struct MainStart {
    pub(super) agent: usize,
    pub(super) auction_id: String,
    pub(super) segment_id: String,
    pub(super) clip_id: String,
    pub(super) role: ClipRole,
    pub(super) text: String,
    pub(super) beats: Vec<BeatPlan>,
    pub(super) planned_ms: u64,
    pub(super) context_version: u32,
}

/// Who has the floor: the main clip playing, an overlay over it, a cut clip still
/// fading out, whether the free floor waits for its next segment, and the run of
/// segments by one speaker.
#[derive(Debug, Clone, Default)]
pub(super) struct Floor {
    pub(super) main: Option<MainClip>,
    pub(super) overlay: Option<Overlay>,
    /// A cut clip is still fading out until then: nothing new may start before.
    pub(super) fade_until: Option<u64>,
    /// The floor is free and waits for the next segment (a lead-time miss).
    pub(super) waiting: bool,
    /// Segments in a row by the last speaker.
    pub(super) contiguous: u32,
    pub(super) last_speaker: Option<usize>,
}

impl Floor {
    /// The overlay, taken off the floor if it is clip `clip_id`.
    pub(super) fn take_overlay(&mut self, clip_id: &str) -> Option<Overlay> {
        self.overlay.take_if(|o| o.clip_id == clip_id)
    }

    /// The main clip, taken off the floor if it is clip `clip_id`.
    pub(super) fn take_main(&mut self, clip_id: &str) -> Option<MainClip> {
        self.main.take_if(|m| m.clip_id == clip_id)
    }
}

/// The auction's economy: token balances, the fairness adjuster's subsidies and
/// pacing, evidence judged, and the interrupts and interjections each agent made.
#[derive(Debug, Clone)]
pub(super) struct Economy {
    pub(super) tokens: crate::tokens::TokenManager,
    pub(super) fairness: crate::fairness::FairnessAdjuster,
    pub(super) evidence: crate::evidence::EvidenceLane,
    pub(super) interrupts: crate::interrupt::InterruptPolicy,
    pub(super) interjections: crate::interjection::InterjectionPlanner,
}

/// How far the debate is: its turn count, whether it started or ended, and the
/// failures in a row that end it early.
#[derive(Debug, Clone, Default)]
pub(super) struct Progress {
    pub(super) turn: u32,
    pub(super) started: bool,
    pub(super) ended: bool,
    pub(super) failures: u32,
}

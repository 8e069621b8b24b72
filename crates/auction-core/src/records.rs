//! Event records: everything the auction decides, as serializable values for message
//! metadata and the session's events file (one JSON object per line).
//!
//! Each record carries `"event"` (segment, bid, auction, interjection, interrupt,
//! timing, bid_fallback, session_end), the deterministic ids it concerns, and a provenance.

use serde::{Deserialize, Serialize};

use crate::bidding::{BidIntent, BidSourceKind};
use crate::emotion::Mood;
use crate::evidence::EvidenceVerdict;
use crate::interjection::InterjectionKind;
use crate::interrupt::InterruptBlock;

pub const POLICY: &str = "auction/v1";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    pub policy: String,
    pub version: String,
}

impl Default for Provenance {
    fn default() -> Self {
        Self {
            policy: POLICY.into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

/// One record with its provenance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventRecord {
    #[serde(flatten)]
    pub kind: RecordKind,
    pub provenance: Provenance,
}

impl EventRecord {
    pub fn new(kind: RecordKind) -> Self {
        Self {
            kind,
            provenance: Provenance::default(),
        }
    }

    /// One line of JSON for an events file.
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RecordKind {
    Segment(SegmentRecord),
    Bid(BidRecord),
    BidFallback(BidFallbackRecord),
    Auction(AuctionRecord),
    Interjection(InterjectionRecord),
    Interrupt(InterruptRecord),
    Timing(TimingRecord),
    /// The session ended: its last record.
    SessionEnd(SessionEndRecord),
}

/// Why the session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionEndRecord {
    pub reason: crate::debate::EndReason,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClipRole {
    Segment,
    Kicker,
    Interjection,
}

/// A main clip started: the micro-turn `turn` begins.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SegmentRecord {
    pub agent_id: String,
    pub speaker_id: String,
    pub turn: u32,
    /// The auction that granted this clip.
    pub auction_id: String,
    pub segment_id: String,
    pub clip_id: String,
    pub role: ClipRole,
    pub at_ms: u64,
    pub words: u32,
    pub planned_ms: u64,
    /// Context version the segment was generated against (the micro-turn counter).
    pub context_version: u32,
    /// Generated ahead of time as the next speaker's reserve.
    pub prefetch: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BidRecord {
    pub auction_id: String,
    pub agent_id: String,
    pub bid: u32,
    pub effective: f64,
    pub kicker: bool,
    pub intent: BidIntent,
    pub source: BidSourceKind,
    pub desire: f64,
    pub tokens: u32,
    pub pacing: f64,
    pub evidence: Option<EvidenceVerdict>,
    /// Only with `observability.log_mood`.
    pub emotion: Option<Mood>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BidFallbackRecord {
    pub auction_id: String,
    pub agent_id: String,
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BidResult {
    Win,
    Lose,
    Pass,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuctionRow {
    pub agent_id: String,
    pub bid: u32,
    pub effective: f64,
    pub kicker: bool,
    pub result: BidResult,
    pub tokens_left: u32,
}

/// How the next speaker was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Highest bid won.
    Won,
    /// Everyone passed; the speaker continues.
    Continue,
    /// Everyone passed and the speaker had its maximum run: least-recent speaker.
    LeastRecent,
    /// Cold start.
    ColdStart,
    /// Session over: nobody is asked.
    Closing,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuctionRecord {
    pub auction_id: String,
    pub turn: u32,
    pub at_ms: u64,
    pub speaker_id: Option<String>,
    pub winner_id: Option<String>,
    pub decision: Decision,
    pub tokens_spent: u32,
    /// Missing model bids were filled heuristically at the guard band; no interrupt.
    pub guard_band_missed: bool,
    pub kicker_planned: bool,
    pub kicker_block: Option<InterruptBlock>,
    pub rows: Vec<AuctionRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InterjectionRecord {
    pub auction_id: String,
    pub agent_id: String,
    pub speaker_id: String,
    pub clip_id: String,
    pub ducked_clip_id: String,
    pub kind: InterjectionKind,
    pub importance: f64,
    pub acknowledge: bool,
    pub beat: u32,
    pub at_ms: u64,
    pub beat_planned_ms: u64,
    pub tokens_spent: u32,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InterruptRecord {
    pub auction_id: String,
    /// Micro-turn that was cut.
    pub turn: u32,
    pub agent_id: String,
    pub interrupted_id: String,
    pub cut_clip_id: String,
    pub kicker_clip_id: String,
    pub beat: u32,
    pub at_ms: u64,
    pub bid: u32,
    pub fee: u32,
    pub tokens_spent: u32,
    pub text: String,
}

/// A beat: planned against measured time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimingRecord {
    pub clip_id: String,
    pub beat: u32,
    pub beat_planned_ms: u64,
    pub beat_actual_ms: u64,
    pub drift_ms: i64,
    /// Later than `late_beat_ms`: nothing lands on it.
    pub late: bool,
    /// Something was waiting for this beat and moves to the next one.
    pub deferred: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_shape_and_round_trip() {
        let r = EventRecord::new(RecordKind::Timing(TimingRecord {
            clip_id: "clip_x".into(),
            beat: 1,
            beat_planned_ms: 2600,
            beat_actual_ms: 2650,
            drift_ms: 50,
            late: false,
            deferred: false,
        }));
        let line = r.to_json_line();
        assert!(line.starts_with(r#"{"event":"timing","clip_id":"clip_x""#));
        assert!(line.contains(r#""provenance":{"policy":"auction/v1""#));
        let back: EventRecord = serde_json::from_str(&line).unwrap();
        assert_eq!(back, r);
    }

    /// What the console reads of a record ([`voice_protocol::messages::AuctionEvent`])
    /// is what the records write: a bid's agent, amount and tokens; an auction's rows.
    #[test]
    fn the_console_reads_what_the_records_write() {
        use voice_protocol::messages::AuctionEvent;
        let bid = EventRecord::new(RecordKind::Bid(BidRecord {
            auction_id: "a-1".into(),
            agent_id: "ana".into(),
            bid: 3,
            effective: 3.0,
            kicker: false,
            intent: BidIntent::Speak,
            source: BidSourceKind::Heuristic,
            desire: 0.5,
            tokens: 7,
            pacing: 1.0,
            evidence: None,
            emotion: None,
        }));
        let bid = AuctionEvent::of(&bid).unwrap();
        assert_eq!(
            (bid.event(), bid.agent(), bid.bid(), bid.tokens()),
            ("bid", Some("ana"), Some(3), Some(7))
        );
        let row = |agent_id: &str, tokens_left| AuctionRow {
            agent_id: agent_id.into(),
            bid: 1,
            effective: 1.0,
            kicker: false,
            result: BidResult::Lose,
            tokens_left,
        };
        let auction = EventRecord::new(RecordKind::Auction(AuctionRecord {
            auction_id: "a-1".into(),
            turn: 1,
            at_ms: 0,
            speaker_id: None,
            winner_id: Some("ben".into()),
            decision: Decision::Won,
            tokens_spent: 1,
            guard_band_missed: false,
            kicker_planned: false,
            kicker_block: None,
            rows: vec![row("ana", 2), row("ben", 5)],
        }));
        let auction = AuctionEvent::of(&auction).unwrap();
        assert_eq!(auction.event(), "auction");
        assert_eq!(auction.tokens_left(), [("ana", 2), ("ben", 5)]);
    }
}

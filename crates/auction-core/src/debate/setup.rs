//! What a debate is built from: recorded at the head of its decision log, so that a
//! replay builds the same one.

use super::{AuctionDebate, DebateError};

/// Limits on waits for other nodes.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Timeouts {
    /// A requested segment must be generated and synthesized within this.
    pub segment_ms: u64,
    /// Side requests (kickers, interjections) and clip synthesis.
    pub request_ms: u64,
}

/// The node's own defaults (`SEGMENT_TIMEOUT_SECS`, `SIDE_REQUEST_TIMEOUT_SECS`); a
/// debate driven by its decisions alone awaits no message and runs none of them out.
impl Default for Timeouts {
    fn default() -> Self {
        Self {
            segment_ms: 20_000,
            request_ms: 10_000,
        }
    }
}

/// The name of the auction's decision logs (their `setup` line's `format`).
pub const AUCTION_FORMAT: &str = "auction";

/// Everything an [`AuctionDebate`] is built from: recorded at the head of the
/// session's decision log, so a replay builds the same one (the seed included).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AuctionSetup {
    pub config: crate::AuctionConfig,
    pub participants: Vec<String>,
    pub seed: u64,
    pub timeouts: Timeouts,
}

impl AuctionSetup {
    pub fn build(&self) -> Result<AuctionDebate, DebateError> {
        let session = format!("s{}", self.seed);
        AuctionDebate::new(
            self.config.clone(),
            &self.participants,
            &session,
            self.seed,
            self.timeouts,
        )
    }
}

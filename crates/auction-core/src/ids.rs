//! Deterministic identifiers, so that transcripts of two runs with the same seed and
//! the same inputs are identical:
//!
//! - `auction_{session}_{turn:04}`: the auction opened for micro-turn `turn` (0: cold start);
//! - `seg_{auctionId}_{agentIdx}_{nonce}`: a segment, kicker or interjection granted or
//!   planned by that auction, `nonce` counting all segments of the session;
//! - `clip_{segId}`: its audio.

/// Id of the auction of micro-turn `turn`.
pub fn auction_id(session: &str, turn: u32) -> String {
    format!("auction_{session}_{turn:04}")
}

/// Id of a segment; see the module documentation.
pub fn segment_id(auction_id: &str, agent_index: usize, nonce: u32) -> String {
    format!("seg_{auction_id}_{agent_index}_{nonce}")
}

/// Id of the clip of a segment.
pub fn clip_id(segment_id: &str) -> String {
    format!("clip_{segment_id}")
}

/// Hands out segment and clip ids with a session-wide nonce.
#[derive(Debug, Clone, Default)]
pub struct IdGen {
    nonce: u32,
}

impl IdGen {
    /// A fresh `(segment_id, clip_id)` pair.
    pub fn next(&mut self, auction_id: &str, agent_index: usize) -> (String, String) {
        self.nonce += 1;
        let seg = segment_id(auction_id, agent_index, self.nonce);
        let clip = clip_id(&seg);
        (seg, clip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        let a = auction_id("s1", 7);
        assert_eq!(a, "auction_s1_0007");
        let mut ids = IdGen::default();
        let (seg, clip) = ids.next(&a, 2);
        assert_eq!(seg, "seg_auction_s1_0007_2_1");
        assert_eq!(clip, "clip_seg_auction_s1_0007_2_1");
        assert_eq!(ids.next(&a, 2).0, "seg_auction_s1_0007_2_2");
    }
}

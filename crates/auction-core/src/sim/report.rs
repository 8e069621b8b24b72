//! What a simulated session reports: its records, the clips as heard and the rules they
//! broke, counts, balances and the speakers in order.

use crate::debate::{AgentSnapshot, EndReason};
use crate::records::{ClipRole, EventRecord};

/// One clip as heard.
#[derive(Debug, Clone, PartialEq)]
pub struct AudioSpan {
    pub clip_id: String,
    pub agent: String,
    pub role: ClipRole,
    pub overlay: bool,
    pub start: u64,
    pub end: u64,
    /// `(from, to)` while ducked.
    pub ducked: Vec<(u64, u64)>,
}

#[derive(Debug, Clone, Default)]
pub struct SimReport {
    pub records: Vec<EventRecord>,
    pub spans: Vec<AudioSpan>,
    /// Broken audio or protocol rules seen by the simulated player.
    pub violations: Vec<String>,
    /// Signed offset of each interjection's start from its planned beat.
    pub interjection_offsets_ms: Vec<i64>,
    pub interrupts: usize,
    pub interjections: usize,
    pub main_clips: usize,
    pub end: Option<EndReason>,
    pub end_ms: u64,
    /// Highest and lowest balance seen after any event.
    pub max_balance: u32,
    pub min_balance: u32,
    pub final_agents: Vec<AgentSnapshot>,
    pub token_stats: Vec<crate::tokens::TokenStats>,
    /// Balances after each event, for invariant checks.
    pub balance_trace: Vec<Vec<u32>>,
    /// Main-clip speaker of each micro-turn, in order.
    pub speakers: Vec<String>,
}

impl SimReport {
    /// Pairs of overlapping spans that are not "interjection over a ducked speaker".
    pub fn overlap_violations(&self) -> Vec<String> {
        let mut bad = Vec::new();
        for (i, a) in self.spans.iter().enumerate() {
            for b in &self.spans[i + 1..] {
                let s = a.start.max(b.start);
                let e = a.end.min(b.end);
                if s >= e {
                    continue;
                }
                let allowed = match (a.overlay, b.overlay) {
                    (true, false) => covered(&b.ducked, s, e),
                    (false, true) => covered(&a.ducked, s, e),
                    _ => false,
                };
                if !allowed {
                    bad.push(format!(
                        "{} [{}, {}) overlaps {} [{}, {})",
                        a.clip_id, a.start, a.end, b.clip_id, b.start, b.end
                    ));
                }
            }
        }
        bad
    }
}

fn covered(windows: &[(u64, u64)], s: u64, e: u64) -> bool {
    windows.iter().any(|&(from, to)| from <= s && e <= to)
}

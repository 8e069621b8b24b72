//! The per-auction table for the session log.

use std::fmt::Write;

use crate::records::{AuctionRecord, BidResult};

/// Renders who bid what, who won and the tokens left, e.g.
///
/// ```text
/// auction_s1_0003  speaker: hawk  winner: dove (won, paid 3)
///   agent      bid   eff  kick  result  tokens
///   dove         3  3.00        win          2
///   owl          2  1.40        lose         6
/// ```
pub fn render_auction_table(r: &AuctionRecord) -> String {
    let mut out = String::new();
    let speaker = r.speaker_id.as_deref().unwrap_or("-");
    let winner = r.winner_id.as_deref().unwrap_or("-");
    let decision = serde_json::to_value(r.decision)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let _ = write!(
        out,
        "{}  speaker: {speaker}  winner: {winner} ({decision}, paid {})",
        r.auction_id, r.tokens_spent
    );
    if r.kicker_planned {
        out.push_str("  kicker planned");
    }
    if r.guard_band_missed {
        out.push_str("  guard band missed");
    }
    out.push('\n');
    let width = r
        .rows
        .iter()
        .map(|row| row.agent_id.chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    let _ = writeln!(
        out,
        "  {:<width$}  {:>4}  {:>5}  {:<4}  {:<6}  {:>6}",
        "agent", "bid", "eff", "kick", "result", "tokens"
    );
    for row in &r.rows {
        let result = match row.result {
            BidResult::Win => "win",
            BidResult::Lose => "lose",
            BidResult::Pass => "pass",
        };
        let _ = writeln!(
            out,
            "  {:<width$}  {:>4}  {:>5.2}  {:<4}  {:<6}  {:>6}",
            row.agent_id,
            row.bid,
            row.effective,
            if row.kicker { "yes" } else { "" },
            result,
            row.tokens_left
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{AuctionRow, Decision};

    #[test]
    fn renders_rows() {
        let r = AuctionRecord {
            auction_id: "auction_s_0003".into(),
            turn: 3,
            at_ms: 0,
            speaker_id: Some("hawk".into()),
            winner_id: Some("dove".into()),
            decision: Decision::Won,
            tokens_spent: 3,
            guard_band_missed: false,
            kicker_planned: false,
            kicker_block: None,
            rows: vec![
                AuctionRow {
                    agent_id: "dove".into(),
                    bid: 3,
                    effective: 3.0,
                    kicker: false,
                    result: BidResult::Win,
                    tokens_left: 2,
                },
                AuctionRow {
                    agent_id: "owl".into(),
                    bid: 2,
                    effective: 1.4,
                    kicker: true,
                    result: BidResult::Lose,
                    tokens_left: 6,
                },
            ],
        };
        let t = render_auction_table(&r);
        assert!(t.starts_with("auction_s_0003  speaker: hawk  winner: dove (won, paid 3)\n"));
        assert!(
            t.contains("  dove      3   3.00        win          2\n"),
            "{t}"
        );
        assert!(t.contains("owl"));
        assert!(t.contains("yes"));
    }
}

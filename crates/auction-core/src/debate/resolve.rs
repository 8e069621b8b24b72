//! Resolving an auction: fill missing bids, rank, charge the winner, plan a kicker,
//! record the round and ask the next speaker for its segment.

use crate::bidding::{BidIntent, BidSourceKind};
use crate::emotion::MoodEvent;
use crate::evidence::EvidenceVerdict;
use crate::interrupt::{InterruptBlock, KickerBid};
use crate::records::{
    AuctionRecord, AuctionRow, BidFallbackRecord, BidRecord, BidResult, ClipRole, Decision,
    RecordKind,
};
use crate::resolver::{self, Candidate};

use super::events::{Action, HintKind};
use super::limits::count_round;
use super::state::{KickerPlan, Round};
use super::{AuctionDebate, record};

impl AuctionDebate {
    /// Resolves the open round: fills missing bids, ranks, charges, plans a kicker and
    /// asks the next speaker for its segment.
    pub(super) fn resolve(&mut self, now: u64, guard_missed: bool, out: &mut Vec<Action>) {
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
                let v =
                    self.economy
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
            let amount = bid.amount.min(self.economy.tokens.balance(a));
            if bid.intent == BidIntent::Speak && amount >= self.cfg.pricing.min_bid {
                candidates.push(Candidate {
                    agent: a,
                    amount,
                    multiplier: self.economy.fairness.multiplier(a),
                    evidence: accepted,
                    last_spoke_turn: self.economy.fairness.last_spoke_turn(a),
                    share: self.economy.fairness.share(a),
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
                        + self.economy.fairness.subsidy(a, &self.cfg.pricing);
                    price = resolver::price(best.amount, discount, self.cfg.pricing.min_bid);
                    if self.economy.tokens.spend(a, price).is_err() {
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
                Some(s) if self.floor.contiguous < self.cfg.max_contiguous_segments => {
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
                let allowed = self
                    .kicker_allowed(
                        w,
                        speaker,
                        round.turn,
                        ranked[0].amount,
                        ranked.get(1).map_or(0, |c| c.amount),
                        // Already paid: bid and fee must have been affordable together.
                        self.economy.tokens.balance(w) + price,
                        now,
                        guard_missed,
                    )
                    .and_then(|fee| {
                        // The winner's next segment is requested right below: count it too.
                        let mut flight = self.in_flight();
                        count_round(&round, &mut flight);
                        flight.add(w);
                        self.admit_request(w, &flight, now)
                            .map(|()| fee)
                            .map_err(|_| InterruptBlock::RequestLimit)
                    });
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
                effective: bid.amount as f64 * self.economy.fairness.multiplier(a),
                kicker: bid.kicker,
                intent: bid.intent,
                source: bid.source,
                desire: bid.desire,
                tokens: self.economy.tokens.balance(a),
                pacing: self.economy.fairness.pacing(a),
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
                    tokens_left: self.economy.tokens.balance(a),
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
                    .floor
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
            self.request_segment(w, &auction_id, kind, seconds, now, out);
            self.try_start_next(now, out);
        } else {
            self.round = Some(round);
        }
    }

    /// Whether `w` may cut `speaker` off with a kicker bid of `bid` against a runner-up
    /// of `runner_up`, holding `balance` before paying; the fee if so.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn kicker_allowed(
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
        let main = self.floor.main.as_ref().ok_or(InterruptBlock::Disabled)?;
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
        let fee = self.economy.interrupts.fee(
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
        self.economy
            .interrupts
            .check(&kb, k, &self.cfg.cooldowns, &self.cfg.pricing)?;
        Ok(fee)
    }

    /// A heuristic bidder that wants to interrupt raises its bid to the frontier
    /// (highest other bid + `kicker_delta`) when the interrupt is allowed and it can
    /// afford bid and fee; the most eager such bidder only.
    pub(super) fn raise_kicker_bids(
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
        let balance = self.economy.tokens.balance(c.agent);
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
}

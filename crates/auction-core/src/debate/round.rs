//! Opening a micro-turn's auction: heuristic and model bids, the interjection
//! intent, and the deadlines that close the bidding.

use crate::bidding::{self, Bid, BidIntent, BidSourceKind, DesireInputs, HeuristicInput};
use crate::config::{BidSource, InterruptMode};
use crate::ids::{self};
use crate::interjection::InterjectionKind;
use crate::llm;
use crate::records::{AuctionRecord, BidFallbackRecord, ClipRole, Decision, RecordKind};

use super::events::Action;
use super::state::{InterjectionPlan, Round};
use super::{AuctionDebate, record};

impl AuctionDebate {
    /// Tokens a heuristic agent wants before acting on a kicker intent: a typical bid
    /// plus `kicker_delta` plus the base fee (0 when hard interrupts are off).
    pub(super) fn kicker_reserve(&self) -> u32 {
        let k = &self.cfg.interrupt;
        if k.mode != InterruptMode::Cutoff || k.prebuffer_top == 0 {
            return 0;
        }
        let p = &self.cfg.pricing;
        p.max_bid.div_ceil(2) + p.kicker_delta + p.kicker_fee
    }

    pub(super) fn heuristic_input(&self, a: usize) -> HeuristicInput {
        let st = &self.agents[a];
        let d = bidding::desire(&DesireInputs {
            w_backlog: st.style.w_backlog,
            w_recency: st.style.w_recency,
            w_emotion: st.style.w_emotion,
            backlog: (st.style.eagerness + st.backlog).clamp(0.0, 2.0),
            recency: bidding::recency(
                self.progress.turn,
                self.economy.fairness.last_spoke_turn(a),
                self.agents.len(),
            ),
        });
        HeuristicInput {
            agent: a,
            desire: d,
            tokens: self.economy.tokens.balance(a),
            mood_tokens: st
                .emotion
                .bid_adjustment(st.style.w_emotion, &self.cfg.emotion),
            kicker_intent: st.emotion.mood().frustration >= self.cfg.bidding.kicker_frustration,
            kicker_reserve: self.kicker_reserve(),
        }
    }

    pub(super) fn heuristic_bids(&self, bidders: &[usize]) -> Vec<Bid> {
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

    pub(super) fn open_round(&mut self, now: u64, out: &mut Vec<Action>) {
        let Some(main) = self.floor.main.as_ref() else {
            return;
        };
        let speaker = main.agent;
        let role = main.role;
        let has_beats = !main.beats.is_empty();
        let speaker_name = self.agents[speaker].name.clone();
        let turn = self.progress.turn;
        let auction_id = ids::auction_id(&self.session, turn);
        let n = self.agents.len();
        let closing = self.session_over();
        let bidders: Vec<usize> = (0..n).filter(|&a| a != speaker).collect();
        let mut bids = vec![None; n];
        let mut fallback = vec![None; n];
        let mut awaiting = vec![false; n];
        let bid_timeout = self.cfg.concurrency.timeouts_ms.bid;
        if !closing {
            let mut flight = self.in_flight();
            for b in self.heuristic_bids(&bidders) {
                let a = b.agent;
                let wants_model = self.agents[a].style.source == BidSource::Llm;
                match wants_model.then(|| self.admit_request(a, &flight, now)) {
                    Some(Ok(())) => {
                        flight.add(a);
                        awaiting[a] = true;
                        out.push(Action::RequestBid {
                            agent: self.agents[a].name.clone(),
                            auction_id: auction_id.clone(),
                            tokens: self.economy.tokens.balance(a),
                            mood: self.agents[a].emotion.mood(),
                            deadline_ms: now + bid_timeout,
                        });
                    }
                    Some(Err(refusal)) => {
                        // Over a limit: the heuristic bids at once instead of the model.
                        out.push(record(RecordKind::BidFallback(BidFallbackRecord {
                            auction_id: auction_id.clone(),
                            agent_id: self.agents[a].name.clone(),
                            reason: refusal.reason().into(),
                        })));
                        let mut f = b.clone();
                        f.source = BidSourceKind::Fallback;
                        bids[a] = Some(f);
                    }
                    None => bids[a] = Some(b.clone()),
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
                    || !self.economy.interjections.eligible(
                        a,
                        turn,
                        self.economy.tokens.balance(a),
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
                self.plan_interjection(a, now, out);
            }
        }
    }

    pub(super) fn plan_interjection(&mut self, agent: usize, now: u64, out: &mut Vec<Action>) {
        let Some(main) = self.floor.main.as_ref() else {
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
        let flight = self.in_flight();
        if let Err(refusal) = self.admit_request(agent, &flight, now) {
            out.push(Action::Notice(super::Notice::InterjectionNotAsked {
                agent: self.agents[agent].name.clone(),
                reason: refusal.reason(),
            }));
            return;
        }
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

    pub(super) fn on_bid(
        &mut self,
        agent: &str,
        auction_id: &str,
        answer: Result<&str, &str>,
        now: u64,
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
                let balance = self.economy.tokens.balance(a);
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
                        .floor
                        .main
                        .as_ref()
                        .is_some_and(|m| m.role == ClipRole::Segment && !m.beats.is_empty())
                    && self.economy.interjections.eligible(
                        a,
                        turn,
                        self.economy.tokens.balance(a),
                        &self.cfg.interjections,
                    );
                if may_interject {
                    self.plan_interjection(a, now, out);
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

    pub(super) fn lead_deadline(&self) -> Option<u64> {
        let m = self.floor.main.as_ref()?;
        Some((m.started_at + m.planned_ms).saturating_sub(self.lead.lead_ms()))
    }

    pub(super) fn check_deadlines(&mut self, now: u64, out: &mut Vec<Action>) {
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
}

//! An offline session: [`run`] drives the decisions of an [`AuctionDebate`] with a
//! simulated node (models answering after random latencies, a player with beat-callback
//! jitter, late beats and last-moment clip failures), all from one seed, and reports what
//! was heard.
//!
//! The report's audio spans let tests check the audio rules: no two voices overlap,
//! except an interjection over a ducked speaker; no clip is ducked twice.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use crate::config::AuctionConfig;
use crate::debate::{Action, AuctionDebate, BeatPlan, DebateError, Event, Timeouts};
use crate::records::ClipRole;
use crate::rng::SplitMix64;

mod playback;
mod report;

pub use report::{AudioSpan, SimReport};

/// The simulated environment.
#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    pub seed: u64,
    pub agents: Vec<String>,
    /// Beat callbacks arrive within ±this of the planned time.
    pub beat_jitter_ms: u64,
    /// Chance that a beat callback is late by `late_beat_delay_ms` more.
    pub late_beat_rate: f64,
    pub late_beat_delay_ms: u64,
    /// Model latency range.
    pub llm_latency_ms: (u64, u64),
    /// Speech synthesis latency range for kickers and interjections.
    pub tts_latency_ms: (u64, u64),
    /// Chance that a prepared clip fails right before its beat.
    pub clip_fail_rate: f64,
    /// Chance that a model bid answer is garbage / never comes.
    pub bid_garbage_rate: f64,
    pub bid_timeout_rate: f64,
    /// Chance that a segment request fails.
    pub segment_fail_rate: f64,
    /// Stop after this much simulated time.
    pub max_ms: u64,
    /// Agents that report a mood with their segments: frustration range per agent.
    pub moods: BTreeMap<String, (f64, f64)>,
}

impl SimConfig {
    pub fn new(seed: u64, agents: &[&str]) -> Self {
        Self {
            seed,
            agents: agents.iter().map(|s| s.to_string()).collect(),
            beat_jitter_ms: 150,
            late_beat_rate: 0.0,
            late_beat_delay_ms: 500,
            llm_latency_ms: (150, 700),
            tts_latency_ms: (80, 300),
            clip_fail_rate: 0.0,
            bid_garbage_rate: 0.0,
            bid_timeout_rate: 0.0,
            segment_fail_rate: 0.0,
            max_ms: 30 * 60 * 1000,
            moods: BTreeMap::new(),
        }
    }
}

#[derive(Debug, Clone)]
struct ClipInfo {
    agent: String,
    role: ClipRole,
    beats: Vec<BeatPlan>,
    planned_ms: u64,
    generation: u32,
    span: Option<usize>,
    discarded: bool,
}

/// An event scheduled for a clip is dropped if the clip was cut or failed since.
type ClipGeneration = (String, u32);

struct Sim<'a> {
    cfg: &'a SimConfig,
    rng: SplitMix64,
    queue: BinaryHeap<Reverse<(u64, u64, usize)>>,
    events: Vec<Option<(Event, Option<ClipGeneration>)>>,
    seq: u64,
    clips: BTreeMap<String, ClipInfo>,
    report: SimReport,
    wps: f64,
}

const WORDS: &[&str] = &[
    "evidence", "policy", "cost", "people", "markets", "risk", "data", "history", "rules",
    "growth", "trust", "energy", "cities", "schools", "prices", "future", "science",
];

impl Sim<'_> {
    fn push(&mut self, at: u64, event: Event, guard: Option<ClipGeneration>) {
        self.seq += 1;
        self.events.push(Some((event, guard)));
        self.queue
            .push(Reverse((at, self.seq, self.events.len() - 1)));
    }

    fn sentence(&mut self, words: usize) -> String {
        let mut s: Vec<String> = (0..words)
            .map(|_| WORDS[self.rng.range_u64(0, WORDS.len() as u64 - 1) as usize].to_owned())
            .collect();
        if let Some(first) = s.first_mut() {
            let mut c = first.chars();
            if let Some(f) = c.next() {
                *first = f.to_uppercase().collect::<String>() + c.as_str();
            }
        }
        s.join(" ") + "."
    }

    fn latency(&mut self, (lo, hi): (u64, u64)) -> u64 {
        self.rng.range_u64(lo, hi)
    }

    fn apply(&mut self, now: u64, actions: Vec<Action>) {
        for action in actions {
            match action {
                Action::RequestSegment(req) => {
                    let at = now + self.latency(self.cfg.llm_latency_ms);
                    if self.rng.next_f64() < self.cfg.segment_fail_rate {
                        self.push(
                            at,
                            Event::SegmentFailed {
                                segment_id: req.segment_id,
                            },
                            None,
                        );
                        continue;
                    }
                    let sentences = self.rng.range_u64(2, 3) as usize;
                    let mut text = Vec::new();
                    let mut beats = Vec::new();
                    let mut words = 0usize;
                    for i in 0..sentences {
                        let n = self.rng.range_u64(4, 8) as usize;
                        text.push(self.sentence(n));
                        words += n;
                        if i + 1 < sentences {
                            beats.push(BeatPlan {
                                index: i as u32 + 1,
                                offset_ms: (words as f64 / self.wps) as u64,
                            });
                        }
                    }
                    let planned_ms = (words as f64 / self.wps) as u64;
                    let text = text.join(" ");
                    let mood = self.cfg.moods.get(&req.agent).copied().map(|(lo, hi)| {
                        let f = lo + (hi - lo) * self.rng.next_f64();
                        crate::emotion::Mood {
                            frustration: f,
                            engagement: 0.4 + 0.4 * self.rng.next_f64(),
                            confidence: 0.5,
                        }
                    });
                    self.clips.insert(
                        req.clip_id.clone(),
                        ClipInfo {
                            agent: req.agent.clone(),
                            role: ClipRole::Segment,
                            beats: beats.clone(),
                            planned_ms,
                            generation: 0,
                            span: None,
                            discarded: false,
                        },
                    );
                    self.push(
                        at,
                        Event::SegmentReady {
                            agent: req.agent,
                            segment_id: req.segment_id,
                            text,
                            beats,
                            planned_ms: Some(planned_ms),
                            mood,
                        },
                        None,
                    );
                }
                Action::RequestBid {
                    agent,
                    auction_id,
                    tokens,
                    deadline_ms,
                    ..
                } => {
                    let r = self.rng.next_f64();
                    if r < self.cfg.bid_timeout_rate {
                        if self.rng.next_f64() < 0.5 {
                            self.push(
                                deadline_ms,
                                Event::LlmBidTimeout { agent, auction_id },
                                None,
                            );
                        }
                        continue;
                    }
                    let text = if r < self.cfg.bid_timeout_rate + self.cfg.bid_garbage_rate {
                        "I really want to speak now! {bid: lots}".to_owned()
                    } else {
                        let action = match self.rng.range_u64(0, 9) {
                            0..=5 => "speak",
                            6..=7 => "interject",
                            _ => "pass",
                        };
                        let bid = self.rng.range_u64(0, tokens as u64);
                        let kicker = self.rng.next_f64() < 0.3;
                        format!(
                            "Here you go:\n{{\"action\": \"{action}\", \"bid\": {bid}, \"kicker\": {kicker}}}"
                        )
                    };
                    let at = now + self.latency((100, 450));
                    self.push(
                        at,
                        Event::BidReceived {
                            agent,
                            auction_id,
                            text,
                        },
                        None,
                    );
                }
                Action::RequestKicker {
                    agent,
                    clip_id,
                    min_words,
                    ..
                } => {
                    let n = min_words as usize + self.rng.range_u64(0, 2) as usize;
                    let text = format!("**{agent}:** Hold on, {}", self.sentence(n - 2));
                    let at = now + self.latency(self.cfg.llm_latency_ms);
                    self.push(at, Event::KickerReady { clip_id, text }, None);
                }
                Action::RequestInterjection { clip_id, kind, .. } => {
                    let n = self.rng.range_u64(3, 7) as usize;
                    let lead = match kind {
                        crate::interjection::InterjectionKind::Support => "Exactly,",
                        crate::interjection::InterjectionKind::Clarify => "Wait, which",
                        crate::interjection::InterjectionKind::Challenge => "That's *not* true,",
                    };
                    let text = format!("\"{lead} {}\" 😀", self.sentence(n));
                    let at = now + self.latency((120, 500));
                    self.push(at, Event::InterjectionReady { clip_id, text }, None);
                }
                Action::Synthesize {
                    clip_id,
                    agent,
                    text,
                    role,
                } => {
                    let words = text.split_whitespace().count();
                    self.clips.insert(
                        clip_id.clone(),
                        ClipInfo {
                            agent,
                            role,
                            beats: Vec::new(),
                            planned_ms: (words as f64 / self.wps) as u64,
                            generation: 0,
                            span: None,
                            discarded: false,
                        },
                    );
                    let at = now + self.latency(self.cfg.tts_latency_ms);
                    if self.rng.next_f64() < self.cfg.clip_fail_rate {
                        // Fails at the last moment: shortly after it was ready.
                        self.push(
                            at,
                            Event::ClipReady {
                                clip_id: clip_id.clone(),
                            },
                            None,
                        );
                        let later = at + self.latency((0, 3000));
                        self.push(later, Event::ClipFailed { clip_id }, None);
                    } else {
                        self.push(at, Event::ClipReady { clip_id }, None);
                    }
                }
                Action::PlayClip {
                    clip_id,
                    overlay,
                    role,
                    ..
                } => self.play(&clip_id, now, overlay, role),
                Action::FadeIn {
                    clip_id, delay_ms, ..
                } => self.play(&clip_id, now + delay_ms, false, ClipRole::Kicker),
                Action::FadeOut { clip_id, fade_ms } => {
                    let end = now + fade_ms;
                    let Some(info) = self.clips.get_mut(&clip_id) else {
                        self.report
                            .violations
                            .push(format!("fade-out of unknown clip {clip_id}"));
                        continue;
                    };
                    info.generation += 1;
                    let generation = info.generation;
                    if let Some(i) = info.span {
                        let span = &mut self.report.spans[i];
                        if span.end < now {
                            self.report
                                .violations
                                .push(format!("fade-out of finished clip {clip_id}"));
                        }
                        span.end = span.end.min(end);
                        for d in &mut span.ducked {
                            d.1 = d.1.min(end);
                        }
                    }
                    self.push(
                        end,
                        Event::ClipFinished {
                            clip_id: clip_id.clone(),
                            at_ms: end,
                        },
                        Some((clip_id, generation)),
                    );
                }
                Action::Duck { clip_id, .. } => {
                    let Some(i) = self.clips.get(&clip_id).and_then(|c| c.span) else {
                        self.report
                            .violations
                            .push(format!("duck of a clip not playing: {clip_id}"));
                        continue;
                    };
                    let span = &mut self.report.spans[i];
                    if span.end <= now {
                        self.report
                            .violations
                            .push(format!("duck after end: {clip_id}"));
                    }
                    if span.ducked.iter().any(|d| d.1 > now) {
                        self.report
                            .violations
                            .push(format!("double duck: {clip_id}"));
                    }
                    let end = span.end;
                    span.ducked.push((now, end));
                }
                Action::Unduck { clip_id, .. } => {
                    let Some(i) = self.clips.get(&clip_id).and_then(|c| c.span) else {
                        self.report
                            .violations
                            .push(format!("unduck of unknown clip {clip_id}"));
                        continue;
                    };
                    let span = &mut self.report.spans[i];
                    match span.ducked.last_mut() {
                        Some(d) if d.1 > now => d.1 = now,
                        _ => self
                            .report
                            .violations
                            .push(format!("unduck without duck: {clip_id}")),
                    }
                }
                Action::DiscardClip { clip_id } => {
                    if let Some(c) = self.clips.get_mut(&clip_id) {
                        c.discarded = true;
                        if c.span.is_some() {
                            self.report
                                .violations
                                .push(format!("discard of a clip that played: {clip_id}"));
                        }
                    }
                }
                Action::CancelSegment { .. } | Action::Notice(_) => {}
                Action::Record(r) => {
                    match &r.kind {
                        crate::records::RecordKind::Interrupt(_) => self.report.interrupts += 1,
                        crate::records::RecordKind::Interjection(_) => {
                            self.report.interjections += 1
                        }
                        _ => {}
                    }
                    self.report.records.push(r);
                }
                Action::End { reason } => {
                    self.report.end = Some(reason);
                    self.report.end_ms = now;
                }
            }
        }
    }
}

/// Runs a whole session offline.
pub fn run(config: AuctionConfig, sim: &SimConfig) -> Result<SimReport, DebateError> {
    let names: Vec<&str> = sim.agents.iter().map(String::as_str).collect();
    let wps = config.timing.words_per_second / 1000.0;
    let mut debate = AuctionDebate::new(config, &names, "sim", sim.seed, Timeouts::default())?;
    let mut s = Sim {
        cfg: sim,
        rng: SplitMix64::new(sim.seed ^ 0x005E_ED0F_5105),
        queue: BinaryHeap::new(),
        events: Vec::new(),
        seq: 0,
        clips: BTreeMap::new(),
        report: SimReport {
            min_balance: u32::MAX,
            ..SimReport::default()
        },
        wps,
    };
    s.push(0, Event::Start, None);
    let mut next_tick = 1000;
    while let Some(Reverse((at, _, idx))) = s.queue.pop() {
        if at > sim.max_ms || debate.is_ended() {
            break;
        }
        while next_tick < at {
            let actions = debate.decide(Event::Tick, next_tick);
            s.apply(next_tick, actions);
            next_tick += 1000;
        }
        let Some((event, guard)) = s.events[idx].take() else {
            continue;
        };
        if let Some((clip, generation)) = guard
            && s.clips
                .get(&clip)
                .is_some_and(|c| c.generation != generation)
        {
            continue;
        }
        if let Event::ClipFailed { clip_id } = &event {
            s.fail_playing(clip_id, at);
        }
        let actions = debate.decide(event, at);
        s.apply(at, actions);
        if let Some(d) = debate.decision_deadline() {
            s.push(d.max(at), Event::Tick, None);
        }
        let balances = debate.balances().to_vec();
        for &b in &balances {
            s.report.max_balance = s.report.max_balance.max(b);
            s.report.min_balance = s.report.min_balance.min(b);
        }
        s.report.balance_trace.push(balances);
    }
    s.report.final_agents = debate.snapshot();
    s.report.token_stats = (0..names.len()).map(|a| debate.tokens().stats(a)).collect();
    if s.report.end_ms == 0 {
        s.report.end_ms = s.queue.peek().map_or(0, |Reverse((t, _, _))| *t);
    }
    // Interjection landing offsets against their planned beats.
    let starts: BTreeMap<&str, u64> = s
        .report
        .spans
        .iter()
        .map(|sp| (sp.clip_id.as_str(), sp.start))
        .collect();
    let mut offsets = Vec::new();
    for r in &s.report.records {
        if let crate::records::RecordKind::Interjection(i) = &r.kind
            && let Some(&start) = starts.get(i.clip_id.as_str())
        {
            offsets.push(start as i64 - i.beat_planned_ms as i64);
        }
    }
    s.report.interjection_offsets_ms = offsets;
    Ok(s.report)
}

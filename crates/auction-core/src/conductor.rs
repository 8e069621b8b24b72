//! The conductor: carries [`AuctionCore`]'s actions out as messages and turns messages
//! back into core events. No I/O and no clock: the node passes `now` in milliseconds.
//!
//! Segment text never goes straight from a bridge to the player: the conductor collects
//! the bridge's streamed `text` of a requested segment, splits it into sentences (the
//! beats), and hands the player a clip under the auction's own clip id. The player
//! synthesizes and holds it (`clip_ready` with measured sentence durations → the
//! segment's planned beats) until the auction says `play`.

use std::collections::BTreeMap;

use crate::{
    Action, AuctionCore, BeatPlan, ClipRole, EndReason, Event, EventRecord, HintKind,
    SegmentRequest, parse_segment_payload,
};
use text_segmenter::{SegmenterConfig, TurnSegmenter};
use voice_protocol::clips::{
    BeatReached, ClipCommand, ClipFinished, ClipReady, ClipSpec, ClipStarted,
};

/// What the node received, decoded.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Input {
    /// A streamed chunk of a participant's `text`.
    Text {
        agent: String,
        question_id: u64,
        text: String,
        ended: bool,
        error: Option<String>,
    },
    /// A bridge's answer to a side request.
    Reply {
        request_id: String,
        text: String,
        error: Option<String>,
    },
    ClipReady(ClipReady),
    ClipStarted(ClipStarted),
    Beat(BeatReached),
    ClipFinished(ClipFinished),
    /// The node feeding input `input` restarted (dora's `NodeRestarted`).
    Restarted {
        input: String,
    },
}

/// What the node must send.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    Turn {
        agent: String,
        question_id: u64,
        instruction: String,
    },
    /// A side request (JSON) for one participant.
    Request {
        agent: String,
        json: String,
    },
    /// Cancel generations older than `question_id`.
    Interrupt {
        question_id: u64,
    },
    Utterance {
        speaker: String,
        question_id: u64,
        text: String,
        interrupted: bool,
    },
    Clip(ClipSpec),
    Command(ClipCommand),
    Record(EventRecord),
    Ended(EndReason),
}

/// Limits on waits for other nodes.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Timeouts {
    /// A requested segment must be generated and synthesized within this.
    pub segment_ms: u64,
    /// Side requests (kickers, interjections) and clip synthesis.
    pub request_ms: u64,
}

#[derive(Debug, Clone, PartialEq)]
enum Stage {
    Generating,
    Synthesizing,
}

#[derive(Debug, Clone)]
struct PendingSegment {
    req: SegmentRequest,
    /// The participant's chunks as they came.
    streamed: ::conductor::Utterance,
    /// What is spoken: the streamed text cleaned and cut into sentences.
    text: String,
    mood: Option<crate::Mood>,
    stage: Stage,
    deadline: u64,
}

#[derive(Debug, Clone)]
enum RequestKind {
    Kicker { clip_id: String },
    Interjection { clip_id: String },
    Bid { agent: String, auction_id: String },
}

#[derive(Debug, Clone)]
struct ClipInfo {
    agent: String,
    question_id: u64,
}

/// Side requests remembered at most (each also has a deadline).
const MAX_OPEN_REQUESTS: usize = 256;

pub struct Conductor {
    core: AuctionCore,
    timeouts: Timeouts,
    next_id: u64,
    /// By question id of the turn.
    segments: BTreeMap<u64, PendingSegment>,
    requests: ::conductor::Requests<RequestKind>,
    /// Kicker and interjection clips waiting for `clip_ready`: deadline.
    synthesizing: BTreeMap<String, u64>,
    clips: BTreeMap<String, ClipInfo>,
    /// Node clock minus player clock (smallest seen: the least delayed report).
    offset: Option<i64>,
    /// The last sentence heard from each agent, for prompts.
    last_words: BTreeMap<String, String>,
    /// The speaker of the latest finished main utterance.
    last_speaker: Option<String>,
}

impl Conductor {
    pub fn new(core: AuctionCore, timeouts: Timeouts) -> Self {
        Self {
            core,
            timeouts,
            next_id: 0,
            segments: BTreeMap::new(),
            requests: ::conductor::Requests::new(MAX_OPEN_REQUESTS),
            synthesizing: BTreeMap::new(),
            clips: BTreeMap::new(),
            offset: None,
            last_words: BTreeMap::new(),
            last_speaker: None,
        }
    }

    pub fn core(&self) -> &AuctionCore {
        &self.core
    }

    fn fresh_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    pub fn start(&mut self, now: u64) -> Vec<Output> {
        let actions = self.core.handle(Event::Start, now);
        self.carry_out(actions, now)
    }

    /// The earliest time [`Conductor::tick`] is due.
    pub fn next_deadline(&self) -> Option<u64> {
        let own = self
            .segments
            .values()
            .map(|s| s.deadline)
            .chain(self.requests.next_deadline())
            .chain(self.synthesizing.values().copied());
        own.chain(self.core.next_deadline()).min()
    }

    /// Time passed: expired waits give up, then the core ticks.
    pub fn tick(&mut self, now: u64) -> Vec<Output> {
        let mut out = Vec::new();
        let expired: Vec<u64> = self
            .segments
            .iter()
            .filter(|(_, s)| s.deadline <= now)
            .map(|(q, _)| *q)
            .collect();
        for q in expired {
            let s = self.segments.remove(&q).expect("listed");
            tracing::warn!(agent = %s.req.agent, segment = %s.req.segment_id, "segment not ready in time; skipped");
            out.extend(self.abandon(&s));
            let actions = self.core.handle(
                Event::SegmentFailed {
                    segment_id: s.req.segment_id.clone(),
                },
                now,
            );
            out.extend(self.carry_out(actions, now));
        }
        for (id, kind) in self.requests.take_expired(now) {
            tracing::warn!(request = %id, "side request not answered in time");
            let event = unanswered(kind);
            let actions = self.core.handle(event, now);
            out.extend(self.carry_out(actions, now));
        }
        let expired: Vec<String> = self
            .synthesizing
            .iter()
            .filter(|(_, d)| **d <= now)
            .map(|(id, _)| id.clone())
            .collect();
        for clip_id in expired {
            self.synthesizing.remove(&clip_id);
            tracing::warn!(%clip_id, "clip not synthesized in time; dropped");
            out.push(Output::Command(ClipCommand::Discard {
                clip_id: clip_id.clone(),
            }));
            let actions = self.core.handle(Event::ClipFailed { clip_id }, now);
            out.extend(self.carry_out(actions, now));
        }
        let actions = self.core.handle(Event::Tick, now);
        out.extend(self.carry_out(actions, now));
        out
    }

    /// Converts a time of the player's clock to the node's.
    fn player_time(&mut self, at_ms: u64, now: u64) -> u64 {
        let seen = now as i64 - at_ms as i64;
        let offset = *self
            .offset
            .insert(self.offset.map_or(seen, |o| o.min(seen)));
        (at_ms as i64 + offset).max(0) as u64
    }

    pub fn handle(&mut self, incoming: Input, now: u64) -> Vec<Output> {
        let mut out = Vec::new();
        let event = match incoming {
            // A restarted bridge lost the segments it was writing: each fails now, as a
            // failed generation does (the round need not wait for a timeout).
            Input::Restarted { input } => {
                let lost: Vec<u64> = self
                    .segments
                    .iter()
                    .filter(|(_, s)| s.req.agent == input && s.stage == Stage::Generating)
                    .map(|(q, _)| *q)
                    .collect();
                for question_id in lost {
                    let failed = Input::Text {
                        agent: input.clone(),
                        question_id,
                        text: String::new(),
                        ended: true,
                        error: Some("the participant's bridge restarted".into()),
                    };
                    out.extend(self.handle(failed, now));
                }
                return out;
            }
            Input::Text {
                agent,
                question_id,
                text,
                ended,
                error,
            } => {
                let Some(s) = self.segments.get_mut(&question_id) else {
                    tracing::debug!(%agent, question_id, "text of no pending segment ignored");
                    return out;
                };
                if s.req.agent != agent || s.stage != Stage::Generating {
                    tracing::debug!(%agent, question_id, "unexpected text ignored");
                    return out;
                }
                if s.streamed.push(&text) {
                    tracing::warn!(%agent, question_id, "segment too long; the rest is not kept");
                }
                if !ended {
                    return out;
                }
                let payload = parse_segment_payload(s.streamed.as_str());
                let sentences = split_sentences(&payload.text);
                if error.is_some() || sentences.is_empty() {
                    let s = self.segments.remove(&question_id).expect("present");
                    tracing::warn!(%agent, error = error.as_deref().unwrap_or("empty text"), "segment generation failed");
                    Event::SegmentFailed {
                        segment_id: s.req.segment_id,
                    }
                } else {
                    s.stage = Stage::Synthesizing;
                    s.text = sentences.join(" ");
                    s.mood = payload.mood;
                    let spec = ClipSpec {
                        clip_id: s.req.clip_id.clone(),
                        speaker: agent.clone(),
                        question_id,
                        sentences,
                    };
                    self.clips
                        .insert(spec.clip_id.clone(), ClipInfo { agent, question_id });
                    out.push(Output::Clip(spec));
                    return out;
                }
            }
            Input::Reply {
                request_id,
                text,
                error,
            } => {
                let Some(kind) = self.requests.take(&request_id) else {
                    tracing::debug!(request = %request_id, "reply to no pending request ignored");
                    return out;
                };
                match (kind, error) {
                    (RequestKind::Kicker { clip_id }, e) => Event::KickerReady {
                        clip_id,
                        text: if e.is_some() { String::new() } else { text },
                    },
                    (RequestKind::Interjection { clip_id }, e) => Event::InterjectionReady {
                        clip_id,
                        text: if e.is_some() { String::new() } else { text },
                    },
                    (RequestKind::Bid { agent, auction_id }, Some(_)) => {
                        Event::LlmBidTimeout { agent, auction_id }
                    }
                    (RequestKind::Bid { agent, auction_id }, None) => Event::BidReceived {
                        agent,
                        auction_id,
                        text,
                    },
                }
            }
            Input::ClipReady(ready) => {
                if self.synthesizing.remove(&ready.clip_id).is_some() {
                    match ready.error {
                        Some(_) => Event::ClipFailed {
                            clip_id: ready.clip_id,
                        },
                        None => Event::ClipReady {
                            clip_id: ready.clip_id,
                        },
                    }
                } else if let Some((&q, _)) = self
                    .segments
                    .iter()
                    .find(|(_, s)| s.req.clip_id == ready.clip_id && s.stage == Stage::Synthesizing)
                {
                    let s = self.segments.remove(&q).expect("found");
                    if ready.error.is_some() {
                        Event::SegmentFailed {
                            segment_id: s.req.segment_id,
                        }
                    } else {
                        let mut beats = Vec::new();
                        let mut at = 0;
                        let n = ready.sentence_ms.len();
                        for (i, ms) in ready.sentence_ms.iter().enumerate() {
                            at += ms;
                            if i + 1 < n {
                                beats.push(BeatPlan {
                                    index: i as u32 + 1,
                                    offset_ms: at,
                                });
                            }
                        }
                        Event::SegmentReady {
                            agent: s.req.agent,
                            segment_id: s.req.segment_id,
                            text: s.text,
                            beats,
                            planned_ms: Some(ready.duration_ms),
                            mood: s.mood,
                        }
                    }
                } else {
                    tracing::debug!(clip_id = %ready.clip_id, "clip_ready of a clip no longer wanted");
                    out.push(Output::Command(ClipCommand::Discard {
                        clip_id: ready.clip_id,
                    }));
                    return out;
                }
            }
            Input::ClipStarted(s) => Event::ClipStarted {
                at_ms: self.player_time(s.at_ms, now),
                clip_id: s.clip_id,
            },
            Input::Beat(b) => Event::BeatReached {
                at_ms: self.player_time(b.at_ms, now),
                clip_id: b.clip_id,
                beat: b.beat,
            },
            Input::ClipFinished(f) => {
                let at_ms = self.player_time(f.end_ms, now);
                let Some(info) = self.clips.remove(&f.clip_id) else {
                    tracing::debug!(clip_id = %f.clip_id, "end of an unknown clip ignored");
                    return out;
                };
                if let Some(last) = f.text_played.split_inclusive(['.', '!', '?']).next_back() {
                    self.last_words
                        .insert(info.agent.clone(), last.trim().to_owned());
                }
                if !f.overlay {
                    self.last_speaker = Some(info.agent.clone());
                }
                out.push(Output::Utterance {
                    speaker: info.agent,
                    question_id: info.question_id,
                    text: f.text_played,
                    interrupted: f.interrupted,
                });
                Event::ClipFinished {
                    clip_id: f.clip_id,
                    at_ms,
                }
            }
        };
        let actions = self.core.handle(event, now);
        out.extend(self.carry_out(actions, now));
        out
    }

    /// A pending segment is given up: stop its generation or drop its clip.
    fn abandon(&mut self, s: &PendingSegment) -> Vec<Output> {
        match s.stage {
            Stage::Generating => {
                let question_id = self.fresh_id();
                vec![Output::Interrupt { question_id }]
            }
            Stage::Synthesizing => {
                self.clips.remove(&s.req.clip_id);
                vec![Output::Command(ClipCommand::Discard {
                    clip_id: s.req.clip_id.clone(),
                })]
            }
        }
    }

    /// Sends a side request to `agent` and remembers what its answer is for, until
    /// `deadline` (then the core hears of the miss and falls back).
    #[allow(clippy::too_many_arguments)]
    fn request(
        &mut self,
        out: &mut Vec<Output>,
        agent: &str,
        kind: &str,
        prompt: String,
        json: bool,
        max_words: u32,
        pending: RequestKind,
        deadline: u64,
    ) {
        let id = self.requests.open(kind, pending, Some(deadline));
        let body = serde_json::json!({
            "id": id, "kind": kind, "prompt": prompt, "json": json, "max_words": max_words,
        });
        out.push(Output::Request {
            agent: agent.to_owned(),
            json: body.to_string(),
        });
    }

    fn carry_out(&mut self, actions: Vec<Action>, now: u64) -> Vec<Output> {
        let mut out = Vec::new();
        for action in actions {
            match action {
                Action::RequestSegment(req) => {
                    let question_id = self.fresh_id();
                    // What the segment answers: the interrupter, or the last other voice.
                    let other = req
                        .hint
                        .respond_to
                        .clone()
                        .or_else(|| self.last_speaker.clone().filter(|s| *s != req.agent));
                    let heard = other.map(|o| self.last_heard(&o)).unwrap_or_default();
                    let instruction = segment_instruction(&req, heard);
                    out.push(Output::Turn {
                        agent: req.agent.clone(),
                        question_id,
                        instruction,
                    });
                    self.segments.insert(
                        question_id,
                        PendingSegment {
                            req,
                            streamed: ::conductor::Utterance::default(),
                            text: String::new(),
                            mood: None,
                            stage: Stage::Generating,
                            deadline: now + self.timeouts.segment_ms,
                        },
                    );
                }
                Action::RequestBid {
                    agent,
                    auction_id,
                    tokens,
                    mood,
                    deadline_ms,
                } => {
                    let prompt = format!(
                        "You have {tokens} tokens. Mood: frustration={:.2}, engagement={:.2}. \
                         Decide your action for the next beat. Output JSON only: \
                         {{\"action\": \"speak|interject|pass\", \"bid\": int, \"kicker\": bool}}",
                        mood.frustration, mood.engagement
                    );
                    let to = agent.clone();
                    let pending = RequestKind::Bid { agent, auction_id };
                    let deadline = deadline_ms.max(now + 1);
                    self.request(&mut out, &to, "bid", prompt, true, 30, pending, deadline);
                }
                Action::RequestKicker {
                    agent,
                    clip_id,
                    interrupting,
                    min_words,
                    max_words,
                    ..
                } => {
                    let heard = self.last_heard(&interrupting);
                    let prompt = format!(
                        "Cut in on {interrupting} with one sentence of {min_words} to \
                         {max_words} words that turns the point around. {heard}No filler. \
                         Say only the sentence."
                    );
                    let pending = RequestKind::Kicker { clip_id };
                    let deadline = now + self.timeouts.request_ms;
                    self.request(
                        &mut out, &agent, "kicker", prompt, false, max_words, pending, deadline,
                    );
                }
                Action::RequestInterjection {
                    agent,
                    clip_id,
                    speaker,
                    kind,
                    max_words,
                    ..
                } => {
                    let tone = serde_json::to_value(kind)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default();
                    let heard = self.last_heard(&speaker);
                    let prompt = format!(
                        "Say one short remark of at most {max_words} words to {speaker}. \
                         {heard}Tone: {tone}. Say only the remark."
                    );
                    let pending = RequestKind::Interjection { clip_id };
                    let deadline = now + self.timeouts.request_ms;
                    self.request(
                        &mut out,
                        &agent,
                        "interjection",
                        prompt,
                        false,
                        max_words,
                        pending,
                        deadline,
                    );
                }
                Action::Synthesize {
                    clip_id,
                    agent,
                    text,
                    ..
                } => {
                    let question_id = self.fresh_id();
                    let mut sentences = split_sentences(&text);
                    if sentences.is_empty() {
                        sentences.push(text);
                    }
                    self.clips.insert(
                        clip_id.clone(),
                        ClipInfo {
                            agent: agent.clone(),
                            question_id,
                        },
                    );
                    self.synthesizing
                        .insert(clip_id.clone(), now + self.timeouts.request_ms);
                    out.push(Output::Clip(ClipSpec {
                        clip_id,
                        speaker: agent,
                        question_id,
                        sentences,
                    }));
                }
                Action::PlayClip {
                    clip_id,
                    overlay,
                    text,
                    agent,
                    ..
                } => {
                    if let Some(first) = split_sentences(&text).into_iter().next() {
                        self.last_words.insert(agent, first);
                    }
                    out.push(Output::Command(if overlay {
                        ClipCommand::PlayOverlay { clip_id }
                    } else {
                        ClipCommand::Play { clip_id }
                    }));
                }
                Action::Duck {
                    clip_id,
                    gain_db,
                    ramp_ms,
                    ..
                } => out.push(Output::Command(ClipCommand::Duck {
                    clip_id,
                    gain_db,
                    ramp_ms,
                })),
                Action::Unduck { clip_id, ramp_ms } => {
                    out.push(Output::Command(ClipCommand::Unduck { clip_id, ramp_ms }))
                }
                Action::FadeOut { clip_id, fade_ms } => {
                    out.push(Output::Command(ClipCommand::FadeOut { clip_id, fade_ms }))
                }
                Action::FadeIn {
                    clip_id,
                    delay_ms,
                    fade_ms,
                    ..
                } => out.push(Output::Command(ClipCommand::FadeIn {
                    clip_id,
                    delay_ms,
                    fade_ms,
                })),
                Action::DiscardClip { clip_id } => {
                    self.requests.retain(|kind| match kind {
                        RequestKind::Kicker { clip_id: c }
                        | RequestKind::Interjection { clip_id: c } => *c != clip_id,
                        RequestKind::Bid { .. } => true,
                    });
                    self.synthesizing.remove(&clip_id);
                    self.clips.remove(&clip_id);
                    out.push(Output::Command(ClipCommand::Discard { clip_id }));
                }
                Action::CancelSegment { segment_id } => {
                    if let Some((&q, _)) = self
                        .segments
                        .iter()
                        .find(|(_, s)| s.req.segment_id == segment_id)
                    {
                        let s = self.segments.remove(&q).expect("found");
                        out.extend(self.abandon(&s));
                    }
                }
                Action::Record(record) => out.push(Output::Record(record)),
                Action::End { reason } => out.push(Output::Ended(reason)),
            }
        }
        out
    }

    fn last_heard(&self, agent: &str) -> String {
        match self.last_words.get(agent) {
            Some(words) if !words.is_empty() => {
                format!("{agent} just said: {}. ", strip_quotes(words))
            }
            _ => String::new(),
        }
    }
}

/// The event that stands for an unanswered side request.
fn unanswered(kind: RequestKind) -> Event {
    match kind {
        RequestKind::Kicker { clip_id } => Event::KickerReady {
            clip_id,
            text: String::new(),
        },
        RequestKind::Interjection { clip_id } => Event::InterjectionReady {
            clip_id,
            text: String::new(),
        },
        RequestKind::Bid { agent, auction_id } => Event::LlmBidTimeout { agent, auction_id },
    }
}

/// Quotes in an instruction would be spoken verbatim by the offline stand-in model.
fn strip_quotes(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, '"' | '“' | '”'))
        .collect::<String>()
        .trim_end_matches(['.', '!', '?'])
        .to_owned()
}

/// Sentences of a segment (sanitized; very short ones merged): one beat between each two.
pub fn split_sentences(text: &str) -> Vec<String> {
    let mut s = TurnSegmenter::new(SegmenterConfig {
        min_chars: 12,
        max_chars: 220,
        first_clause_words: 0,
    });
    let mut out = s.push(text);
    out.extend(s.finish());
    out.into_iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The `instruction` of a segment turn. Its fixed words are short on purpose: the offline
/// stand-in model answers about the longest unusual word, which should come from what was
/// heard, not from the instruction's own wording.
pub fn segment_instruction(req: &SegmentRequest, heard: String) -> String {
    let hint = &req.hint;
    let words = hint.target_words.clamp(6, 40);
    let mut text = match hint.kind {
        HintKind::Open => {
            format!("Make your point in a sentence or two, about {words} words.")
        }
        HintKind::Continue => {
            format!("Go on with your point in a sentence or two, about {words} words.")
        }
        HintKind::Respond => format!(
            "{} cut you off. Answer {} in a sentence or two, about {words} words, \
             with fresh words: do not repeat what you said.",
            hint.respond_to.as_deref().unwrap_or("Someone"),
            hint.respond_to.as_deref().unwrap_or("them"),
        ),
        HintKind::FollowInterruption => format!(
            "Reply to the cut-in you just made in a sentence or two, about {words} words. \
             Do not repeat what was said."
        ),
    };
    if let Some(ack) = &hint.acknowledge {
        text.push_str(&format!(
            " First give {} a short nod for what they said (at most eight words).",
            ack.from
        ));
    }
    if !heard.is_empty() {
        text.push(' ');
        text.push_str(heard.trim_end());
    }
    let m = hint.mood;
    let tone = if m.frustration >= 0.5 {
        "heated"
    } else if m.engagement >= 0.6 {
        "keen"
    } else {
        "calm"
    };
    text.push_str(&format!(" Your mood: {tone}."));
    text
}

/// Roles for logs.
pub fn role_name(role: ClipRole) -> &'static str {
    match role {
        ClipRole::Segment => "segment",
        ClipRole::Kicker => "kicker",
        ClipRole::Interjection => "interjection",
    }
}

impl ::conductor::Conductor for Conductor {
    type Input = Input;
    type Output = Output;
    type Opening = ();

    fn start(&mut self, _: &(), now_ms: u64) -> Vec<Output> {
        Conductor::start(self, now_ms)
    }

    fn handle(&mut self, input: Input, now_ms: u64) -> Vec<Output> {
        Conductor::handle(self, input, now_ms)
    }

    fn tick(&mut self, now_ms: u64) -> Vec<Output> {
        Conductor::tick(self, now_ms)
    }

    fn next_wake(&self) -> Option<u64> {
        self.next_deadline()
    }

    fn finished(&self) -> bool {
        self.core.is_ended()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ada, Bo and Cy with the default config, seed 7, 5 s segments and 2 s requests.
    fn three_participants() -> Conductor {
        let core = AuctionCore::new(
            crate::AuctionConfig::default(),
            &["ada", "bo", "cy"],
            "t",
            7,
        )
        .unwrap();
        Conductor::new(
            core,
            Timeouts {
                segment_ms: 5_000,
                request_ms: 2_000,
            },
        )
    }

    #[test]
    fn through_the_common_interface_nobody_answering_never_stalls_the_floor() {
        let mut c = three_participants();
        let started = c.start(0);
        let out = ::conductor::drive(&mut c, [], 120_000);
        let asked: std::collections::BTreeSet<String> = started
            .iter()
            .chain(out.iter().map(|(_, o)| o))
            .filter_map(|o| match o {
                Output::Turn { agent, .. } => Some(agent.clone()),
                _ => None,
            })
            .collect();
        assert!(asked.len() >= 2, "turns went to {asked:?}");
    }

    #[test]
    fn a_restarted_bridge_fails_its_segment_at_once_as_an_error_would() {
        let conductor = || {
            let mut c = three_participants();
            let started = c.start(0);
            let (_, mut out): (Vec<u64>, Vec<Output>) =
                ::conductor::drive(&mut c, [], 3_000).into_iter().unzip();
            out.extend(started);
            (c, out)
        };
        let (mut restarted, out) = conductor();
        let (agent, q) = out
            .iter()
            .find_map(|o| match o {
                Output::Turn {
                    agent, question_id, ..
                } => Some((agent.clone(), *question_id)),
                _ => None,
            })
            .expect("a turn within three seconds");
        let restart = |input: &str| Input::Restarted {
            input: input.into(),
        };
        let other = if agent == "ada" { "bo" } else { "ada" };
        assert!(restarted.handle(restart(other), 3_000).is_empty());
        let after_restart = restarted.handle(restart(&agent), 3_000);
        let (mut failed, _) = conductor();
        let after_error = failed.handle(
            Input::Text {
                agent: agent.clone(),
                question_id: q,
                text: String::new(),
                ended: true,
                error: Some("model down".into()),
            },
            3_000,
        );
        assert_eq!(after_restart, after_error);
        assert!(!after_restart.is_empty());
        // The segment is gone: late text for it is ignored.
        let late = Input::Text {
            agent,
            question_id: q,
            text: "Late.".into(),
            ended: true,
            error: None,
        };
        assert!(restarted.handle(late, 3_100).is_empty());
    }

    #[test]
    fn sentences_and_instructions() {
        assert_eq!(
            split_sentences("**Cars** choke the old town. Walking is better!"),
            ["Cars choke the old town.", "Walking is better!"]
        );
        assert!(split_sentences("   ").is_empty());
        assert_eq!(strip_quotes("He said \"no\"."), "He said no");
    }
}

/// The name of the auction's decision logs (their `setup` line's `format`).
pub const AUCTION_FORMAT: &str = "auction";

/// Everything an auction [`Conductor`] is built from: recorded at the head of the
/// session's decision log, so a replay builds the same one (the seed included).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AuctionSetup {
    pub config: crate::AuctionConfig,
    pub participants: Vec<String>,
    pub seed: u64,
    pub timeouts: Timeouts,
}

impl AuctionSetup {
    pub fn build(&self) -> Result<Conductor, crate::CoreError> {
        let session = format!("s{}", self.seed);
        let core =
            crate::AuctionCore::new(self.config.clone(), &self.participants, &session, self.seed)?;
        Ok(Conductor::new(core, self.timeouts))
    }
}

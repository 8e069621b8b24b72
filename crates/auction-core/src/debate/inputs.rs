//! The node's messages in. Segment text never goes straight from a bridge to the
//! player: the debate gathers the bridge's streamed `text` of a requested segment, splits
//! it into sentences (the beats), and hands the player a clip under the auction's own
//! clip id. The player synthesizes and holds it (`clip_ready` with measured sentence
//! durations → the segment's planned beats) until the auction says `play`. Each message
//! becomes the [`Event`] the decisions take; waits that run out become failures.

use voice_protocol::clips::{
    BeatReached, ClipCommand, ClipFinished, ClipReady, ClipSpec, ClipStarted,
};

use std::collections::BTreeMap;

use super::Notice;
use super::events::{BeatPlan, Event, SegmentRequest};
use super::outputs::Output;
use super::prompts::split_sentences;
use super::{AuctionDebate, MAX_OPEN_REQUESTS, Timeouts};
use crate::parse_segment_payload;

/// The node's messages in flight, as the auction's own sub-state: the question ids
/// handed out, the segments asked for and their text so far, side requests awaiting
/// replies, clips being synthesized and handed to the player, the player's clock, and
/// the last words heard (for prompts).
#[derive(Debug, Clone)]
pub(super) struct Wire {
    /// How long the node waits for other nodes.
    pub(super) timeouts: Timeouts,
    /// The last question id handed out (turns, interrupts, clips).
    pub(super) question_id: u64,
    /// Segments asked for, by the question id of their turn.
    pub(super) segments: BTreeMap<u64, PendingSegment>,
    /// Side requests (bids, kickers, interjections) awaiting their replies.
    pub(super) requests: ::conductor::Requests<RequestKind>,
    /// Kicker and interjection clips waiting for `clip_ready`: deadline.
    pub(super) synthesizing: BTreeMap<String, u64>,
    /// Clips handed to the player, for the utterance each becomes.
    pub(super) clips: BTreeMap<String, ClipInfo>,
    /// Node clock minus player clock (smallest seen: the least delayed report).
    pub(super) clock_offset: Option<i64>,
    /// The last sentence heard from each agent (and the human's words), for prompts.
    pub(super) last_words: BTreeMap<String, String>,
    /// The human's voice over the clips: what sounds, and whether it is held.
    pub(super) human_floor: ::conductor::Floor,
    /// The speaker of the latest finished main utterance.
    pub(super) last_voice: Option<String>,
}

impl Wire {
    pub(super) fn new(timeouts: Timeouts) -> Self {
        Self {
            timeouts,
            question_id: 0,
            segments: BTreeMap::new(),
            requests: ::conductor::Requests::new(MAX_OPEN_REQUESTS),
            synthesizing: BTreeMap::new(),
            clips: BTreeMap::new(),
            clock_offset: None,
            last_words: BTreeMap::new(),
            human_floor: ::conductor::Floor::new(),
            last_voice: None,
        }
    }
}

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
    /// The human's voice began (`speech_started`; its first sound sent at `onset_us`).
    SpeechStarted {
        onset_us: Option<i64>,
    },
    /// The human only acknowledged (`backchannel`).
    Backchannel,
    /// The human's final words (`human`: a transcript, or typed).
    Human {
        speaker: Option<String>,
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        heard: Option<voice_protocol::messages::HeardSpan>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Stage {
    Generating,
    Synthesizing,
}

#[derive(Debug, Clone)]
pub(super) struct PendingSegment {
    pub(super) req: SegmentRequest,
    /// The participant's chunks as they came.
    pub(super) streamed: ::conductor::Utterance,
    /// What is spoken: the streamed text cleaned and cut into sentences.
    pub(super) text: String,
    pub(super) mood: Option<crate::Mood>,
    pub(super) stage: Stage,
    pub(super) deadline: u64,
}

#[derive(Debug, Clone)]
pub(super) enum RequestKind {
    Kicker { clip_id: String },
    Interjection { clip_id: String },
    Bid { agent: String, auction_id: String },
}

#[derive(Debug, Clone)]
pub(super) struct ClipInfo {
    pub(super) agent: String,
    pub(super) question_id: u64,
}

impl AuctionDebate {
    pub fn start(&mut self, now: u64) -> Vec<Output> {
        let actions = self.decide(Event::Start, now);
        self.carry_out(actions, now)
    }

    /// The earliest time [`AuctionDebate::tick`] is due.
    pub fn next_deadline(&self) -> Option<u64> {
        let own = self
            .wire
            .segments
            .values()
            .map(|s| s.deadline)
            .chain(self.wire.requests.next_deadline())
            .chain(self.wire.synthesizing.values().copied())
            .chain(self.wire.human_floor.next_wake());
        own.chain(self.decision_deadline()).min()
    }

    /// Time passed: expired waits give up, then the decisions take the tick.
    pub fn tick(&mut self, now: u64) -> Vec<Output> {
        let mut out = self.human_floor_tick(now);
        let expired: Vec<u64> = self
            .wire
            .segments
            .iter()
            .filter(|(_, s)| s.deadline <= now)
            .map(|(q, _)| *q)
            .collect();
        for q in expired {
            let s = self.wire.segments.remove(&q).expect("listed");
            out.push(Output::Notice(Notice::SegmentLate {
                agent: s.req.agent.clone(),
                segment_id: s.req.segment_id.clone(),
            }));
            out.extend(self.abandon(&s));
            let actions = self.decide(
                Event::SegmentFailed {
                    segment_id: s.req.segment_id.clone(),
                },
                now,
            );
            out.extend(self.carry_out(actions, now));
        }
        for (id, kind) in self.wire.requests.take_expired(now) {
            out.push(Output::Notice(Notice::RequestUnanswered {
                request_id: id.clone(),
            }));
            let event = unanswered(kind);
            let actions = self.decide(event, now);
            out.extend(self.carry_out(actions, now));
        }
        let expired: Vec<String> = self
            .wire
            .synthesizing
            .iter()
            .filter(|(_, d)| **d <= now)
            .map(|(id, _)| id.clone())
            .collect();
        for clip_id in expired {
            self.wire.synthesizing.remove(&clip_id);
            out.push(Output::Notice(Notice::ClipLate {
                clip_id: clip_id.clone(),
            }));
            out.push(Output::Command(ClipCommand::Discard {
                clip_id: clip_id.clone(),
            }));
            let actions = self.decide(Event::ClipFailed { clip_id }, now);
            out.extend(self.carry_out(actions, now));
        }
        let actions = self.decide(Event::Tick, now);
        out.extend(self.carry_out(actions, now));
        out
    }

    /// Converts a time of the player's clock to the node's.
    fn player_time(&mut self, at_ms: u64, now: u64) -> u64 {
        let seen = now as i64 - at_ms as i64;
        let offset = *self
            .wire
            .clock_offset
            .insert(self.wire.clock_offset.map_or(seen, |o| o.min(seen)));
        (at_ms as i64 + offset).max(0) as u64
    }

    pub fn handle(&mut self, incoming: Input, now: u64) -> Vec<Output> {
        let mut out = Vec::new();
        let event =
            match incoming {
                // A restarted bridge lost the segments it was writing: each fails now, as a
                // failed generation does (the round need not wait for a timeout).
                Input::Restarted { input } => {
                    let lost: Vec<u64> = self
                        .wire
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
                Input::SpeechStarted { onset_us } => return self.on_speech_started(onset_us, now),
                Input::Backchannel => return self.on_backchannel(),
                Input::Human {
                    speaker,
                    text,
                    heard,
                } => return self.on_human_words(speaker, &text, heard, now),
                Input::Text {
                    agent,
                    question_id,
                    text,
                    ended,
                    error,
                } => {
                    let Some(s) = self.wire.segments.get_mut(&question_id) else {
                        out.push(Output::Notice(Notice::StrayText { agent, question_id }));
                        return out;
                    };
                    if s.req.agent != agent || s.stage != Stage::Generating {
                        out.push(Output::Notice(Notice::UnexpectedText {
                            agent,
                            question_id,
                        }));
                        return out;
                    }
                    if s.streamed.push(&text) {
                        out.push(Output::Notice(Notice::SegmentTooLong {
                            agent: agent.clone(),
                            question_id,
                        }));
                    }
                    if !ended {
                        return out;
                    }
                    let payload = parse_segment_payload(s.streamed.as_str());
                    let sentences = split_sentences(&payload.text);
                    if error.is_some() || sentences.is_empty() {
                        let s = self.wire.segments.remove(&question_id).expect("present");
                        out.push(Output::Notice(Notice::SegmentFailed {
                            agent: agent.clone(),
                            error: error.unwrap_or_else(|| "empty text".to_owned()),
                        }));
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
                            // A segment plays from its first sentence: its whole synthesis
                            // would outlast the clip before it.
                            ready_at_first_sentence: true,
                        };
                        self.wire
                            .clips
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
                    let Some(kind) = self.wire.requests.take(&request_id) else {
                        out.push(Output::Notice(Notice::StrayReply { request_id }));
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
                    if self.wire.synthesizing.remove(&ready.clip_id).is_some() {
                        match ready.error {
                            Some(_) => Event::ClipFailed {
                                clip_id: ready.clip_id,
                            },
                            None => Event::ClipReady {
                                clip_id: ready.clip_id,
                            },
                        }
                    } else if let Some((&q, _)) = self.wire.segments.iter().find(|(_, s)| {
                        s.req.clip_id == ready.clip_id && s.stage == Stage::Synthesizing
                    }) {
                        let s = self.wire.segments.remove(&q).expect("found");
                        if ready.error.is_some() {
                            Event::SegmentFailed {
                                segment_id: s.req.segment_id,
                            }
                        } else {
                            // Sentences still being synthesized are planned at the
                            // speaking rate; the player's beats say where they really end.
                            let pending: Vec<usize> = split_sentences(&s.text)
                                .iter()
                                .skip(ready.sentence_ms.len())
                                .take(ready.pending)
                                .map(|sentence| sentence.split_whitespace().count())
                                .collect();
                            let (beats, planned_ms) =
                                planned_beats(&ready.sentence_ms, &pending, self.words_per_ms());
                            Event::SegmentReady {
                                agent: s.req.agent,
                                segment_id: s.req.segment_id,
                                text: s.text,
                                beats,
                                planned_ms: Some(planned_ms),
                                mood: s.mood,
                            }
                        }
                    } else {
                        out.push(Output::Notice(Notice::ClipUnwanted {
                            clip_id: ready.clip_id.clone(),
                        }));
                        out.push(Output::Command(ClipCommand::Discard {
                            clip_id: ready.clip_id,
                        }));
                        return out;
                    }
                }
                Input::ClipStarted(s) => {
                    self.wire.human_floor.voice_started(s.question_id);
                    Event::ClipStarted {
                        at_ms: self.player_time(s.at_ms, now),
                        clip_id: s.clip_id,
                    }
                }
                Input::Beat(b) => Event::BeatReached {
                    at_ms: self.player_time(b.at_ms, now),
                    clip_id: b.clip_id,
                    beat: b.beat,
                },
                Input::ClipFinished(f) => {
                    self.wire.human_floor.voice_stopped(f.question_id);
                    let at_ms = self.player_time(f.end_ms, now);
                    let Some(info) = self.wire.clips.remove(&f.clip_id) else {
                        out.push(Output::Notice(Notice::UnknownClipEnd {
                            clip_id: f.clip_id,
                        }));
                        return out;
                    };
                    if let Some(last) = f.text_played.split_inclusive(['.', '!', '?']).next_back() {
                        self.wire
                            .last_words
                            .insert(info.agent.clone(), last.trim().to_owned());
                    }
                    if !f.overlay {
                        self.wire.last_voice = Some(info.agent.clone());
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
        let actions = self.decide(event, now);
        out.extend(self.carry_out(actions, now));
        out
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

/// The beats (sentence ends but the last) and length of a clip: the measured durations of
/// its synthesized sentences, then those still pending estimated from their words.
pub(super) fn planned_beats(
    sentence_ms: &[u64],
    pending_words: &[usize],
    words_per_ms: f64,
) -> (Vec<BeatPlan>, u64) {
    let estimated = pending_words
        .iter()
        .map(|&words| (words.max(1) as f64 / words_per_ms).round() as u64);
    let durations: Vec<u64> = sentence_ms.iter().copied().chain(estimated).collect();
    let mut beats = Vec::new();
    let mut at = 0;
    for (i, ms) in durations.iter().enumerate() {
        at += ms;
        if i + 1 < durations.len() {
            beats.push(BeatPlan {
                index: i as u32 + 1,
                offset_ms: at,
            });
        }
    }
    (beats, at)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::debate::three_participants;

    /// The participant and question of the first turn in `out`.
    fn first_turn(out: &[Output]) -> (String, u64) {
        out.iter()
            .find_map(|o| match o {
                Output::Turn {
                    agent, question_id, ..
                } => Some((agent.clone(), *question_id)),
                _ => None,
            })
            .expect("a turn within three seconds")
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
        let (agent, q) = first_turn(&out);
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
        // The same decisions; the error alone is also reported as a failed generation.
        let decisions = |out: &[Output]| -> Vec<Output> {
            out.iter()
                .filter(|o| !matches!(o, Output::Notice(_)))
                .cloned()
                .collect()
        };
        assert_eq!(decisions(&after_restart), decisions(&after_error));
        assert!(!after_restart.is_empty());
        assert!(after_error.iter().any(|o| matches!(
            o,
            Output::Notice(Notice::SegmentFailed { error, .. }) if error == "model down"
        )));
        // The segment is gone: late text for it is ignored, and said to be.
        let late = Input::Text {
            agent: agent.clone(),
            question_id: q,
            text: "Late.".into(),
            ended: true,
            error: None,
        };
        assert_eq!(
            restarted.handle(late, 3_100),
            [Output::Notice(Notice::StrayText {
                agent,
                question_id: q
            })]
        );
    }

    #[test]
    fn sentences_still_synthesized_are_planned_at_the_speaking_rate() {
        // 2 words a second: 1 ms a word is 0.002 words per ms.
        let (beats, planned) = planned_beats(&[1_200, 800], &[4, 0], 0.002);
        let offsets: Vec<(u32, u64)> = beats.iter().map(|b| (b.index, b.offset_ms)).collect();
        assert_eq!(offsets, [(1, 1_200), (2, 2_000), (3, 4_000)]);
        // A sentence without words still takes a word's time.
        assert_eq!(planned, 4_500);
        let (beats, planned) = planned_beats(&[900], &[], 0.002);
        assert!(beats.is_empty());
        assert_eq!(planned, 900);
    }

    #[test]
    fn a_segment_ready_at_its_first_sentence_plays_with_its_beats_planned() {
        let mut c = three_participants();
        let mut out = c.start(0);
        out.extend(
            ::conductor::drive(&mut c, [], 3_000)
                .into_iter()
                .map(|(_, o)| o),
        );
        let (agent, q) = first_turn(&out);
        let text = "One two three four. Five six seven eight. Nine ten.";
        let spec = c
            .handle(
                Input::Text {
                    agent: agent.clone(),
                    question_id: q,
                    text: text.into(),
                    ended: true,
                    error: None,
                },
                3_000,
            )
            .into_iter()
            .find_map(|o| match o {
                Output::Clip(spec) => Some(spec),
                _ => None,
            })
            .expect("the segment's clip");
        assert!(spec.ready_at_first_sentence);
        assert_eq!(spec.sentences.len(), 3);
        let ready = c.handle(
            Input::ClipReady(ClipReady {
                clip_id: spec.clip_id.clone(),
                speaker: agent.clone(),
                sentence_ms: vec![1_500],
                duration_ms: 1_500,
                pending: 2,
                error: None,
            }),
            3_500,
        );
        assert!(
            ready.iter().any(|o| matches!(o,
                Output::Command(ClipCommand::Play { clip_id }) if *clip_id == spec.clip_id)),
            "{ready:?}"
        );
        let planned = ready
            .iter()
            .find_map(|o| match o {
                Output::Record(crate::records::EventRecord {
                    kind: crate::records::RecordKind::Segment(s),
                    ..
                }) => Some(s.planned_ms),
                _ => None,
            })
            .expect("the segment's record");
        // 1.5 s measured, then 4 and 2 words at the default 2.7 words a second.
        assert_eq!(planned, 1_500 + 1_481 + 741);
    }
}

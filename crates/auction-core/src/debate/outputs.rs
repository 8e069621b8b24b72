//! The decisions carried out as the node's messages: turns with their instructions,
//! side requests remembered until answered or expired, clips and player commands.

use voice_protocol::clips::{ClipCommand, ClipSpec};
pub use voice_protocol::messages::SideRequest;

use super::AuctionDebate;
use super::events::{Action, EndReason, HintKind};
use super::inputs::{ClipInfo, PendingSegment, RequestKind, Stage};
use super::prompts::{segment_instruction, split_sentences, strip_quotes};
use crate::records::EventRecord;

/// What the node must send.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    Turn {
        agent: String,
        question_id: u64,
        instruction: String,
    },
    /// A side request for one participant.
    Request {
        agent: String,
        request: SideRequest,
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
    /// `turn`, marked as the answer to the human's words (the model serves it first).
    AnswerTurn {
        agent: String,
        question_id: u64,
        instruction: String,
    },
    /// `utterance`: the human's words, to everyone (they are not voiced).
    HumanSaid {
        speaker: String,
        question_id: u64,
        text: String,
        heard: Option<voice_protocol::messages::HeardSpan>,
    },
    /// `pause` / `resume`: the human's voice holds the clip that sounds or lets it go on.
    Floor(::conductor::FloorChange),
    Record(EventRecord),
    Ended(EndReason),
    /// Something late, stray or failed, for the log.
    Notice(super::Notice),
}

impl AuctionDebate {
    pub(super) fn fresh_question_id(&mut self) -> u64 {
        self.wire.question_id += 1;
        self.wire.question_id
    }
    /// A pending segment is given up: stop its generation or drop its clip.
    pub(super) fn abandon(&mut self, s: &PendingSegment) -> Vec<Output> {
        match s.stage {
            Stage::Generating => {
                let question_id = self.fresh_question_id();
                vec![Output::Interrupt { question_id }]
            }
            Stage::Synthesizing => {
                self.wire.clips.remove(&s.req.clip_id);
                vec![Output::Command(ClipCommand::Discard {
                    clip_id: s.req.clip_id.clone(),
                })]
            }
        }
    }

    /// Sends a side request to `agent` and remembers what its answer is for, until
    /// `deadline` (then the decisions hear of the miss and fall back). It is wanted no
    /// longer than that (`within_ms`): a model still working on it after the fallback
    /// would keep the segments waiting.
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
        (now, deadline): (u64, u64),
    ) {
        let id = self.wire.requests.open(kind, pending, Some(deadline));
        let request = SideRequest {
            json,
            ..SideRequest::text(id, kind, prompt, max_words)
        }
        .within(deadline.saturating_sub(now).max(1));
        out.push(Output::Request {
            agent: agent.to_owned(),
            request,
        });
    }

    pub(super) fn carry_out(&mut self, actions: Vec<Action>, now: u64) -> Vec<Output> {
        let mut out = Vec::new();
        for action in actions {
            match action {
                Action::Notice(notice) => out.push(Output::Notice(notice)),
                Action::RequestSegment(req) => {
                    let question_id = self.fresh_question_id();
                    // What the segment answers: the interrupter, or the last other voice.
                    let other = req
                        .hint
                        .respond_to
                        .clone()
                        .or_else(|| self.wire.last_voice.clone().filter(|s| *s != req.agent));
                    let heard = other.map(|o| self.last_heard(&o)).unwrap_or_default();
                    let instruction = segment_instruction(&req, heard);
                    let agent = req.agent.clone();
                    out.push(match req.hint.kind {
                        HintKind::AnswerHuman => Output::AnswerTurn {
                            agent,
                            question_id,
                            instruction,
                        },
                        _ => Output::Turn {
                            agent,
                            question_id,
                            instruction,
                        },
                    });
                    self.wire.segments.insert(
                        question_id,
                        PendingSegment {
                            req,
                            streamed: ::conductor::Utterance::default(),
                            text: String::new(),
                            mood: None,
                            stage: Stage::Generating,
                            deadline: now + self.wire.timeouts.segment_ms,
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
                    self.request(
                        &mut out,
                        &to,
                        "bid",
                        prompt,
                        true,
                        30,
                        pending,
                        (now, deadline),
                    );
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
                    let deadline = now + self.wire.timeouts.request_ms;
                    self.request(
                        &mut out,
                        &agent,
                        "kicker",
                        prompt,
                        false,
                        max_words,
                        pending,
                        (now, deadline),
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
                    let deadline = now + self.wire.timeouts.request_ms;
                    self.request(
                        &mut out,
                        &agent,
                        "interjection",
                        prompt,
                        false,
                        max_words,
                        pending,
                        (now, deadline),
                    );
                }
                Action::Synthesize {
                    clip_id,
                    agent,
                    text,
                    ..
                } => {
                    let question_id = self.fresh_question_id();
                    let mut sentences = split_sentences(&text);
                    if sentences.is_empty() {
                        sentences.push(text);
                    }
                    self.wire.clips.insert(
                        clip_id.clone(),
                        ClipInfo {
                            agent: agent.clone(),
                            question_id,
                        },
                    );
                    self.wire
                        .synthesizing
                        .insert(clip_id.clone(), now + self.wire.timeouts.request_ms);
                    out.push(Output::Clip(ClipSpec {
                        clip_id,
                        speaker: agent,
                        question_id,
                        sentences,
                        ready_at_first_sentence: false,
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
                        self.wire.last_words.insert(agent, first);
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
                    self.wire.requests.retain(|kind| match kind {
                        RequestKind::Kicker { clip_id: c }
                        | RequestKind::Interjection { clip_id: c } => *c != clip_id,
                        RequestKind::Bid { .. } => true,
                    });
                    self.wire.synthesizing.remove(&clip_id);
                    self.wire.clips.remove(&clip_id);
                    out.push(Output::Command(ClipCommand::Discard { clip_id }));
                }
                Action::CancelSegment { segment_id } => {
                    if let Some((&q, _)) = self
                        .wire
                        .segments
                        .iter()
                        .find(|(_, s)| s.req.segment_id == segment_id)
                    {
                        let s = self.wire.segments.remove(&q).expect("found");
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
        match self.wire.last_words.get(agent) {
            Some(words) if !words.is_empty() => {
                // Quoted as the bridges' planner quotes, which then quotes no older line.
                let mark = dialogue_planner::QUOTE_MARK;
                format!("{agent} {mark} {}. ", strip_quotes(words))
            }
            _ => String::new(),
        }
    }
}

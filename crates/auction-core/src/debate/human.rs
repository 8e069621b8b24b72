//! The human at the auction. Their first sound holds whatever clip sounds (the player's
//! `pause`, through [`::conductor::Floor`], as in every conductor), a backchannel or a
//! transcript with no words lets it go on, and their words take the floor: the clip
//! that sounds fades out, the round and the prepared next segment are dropped, the words
//! go to everyone, and the participant they named (else the one they talked over, else
//! the last voice) is asked at once for a segment that answers them. That segment plays
//! as any other and opens the next auction.

use ::conductor::FloorChange;
use voice_protocol::messages::HeardSpan;

use super::events::{Action, Event, HintKind};
use super::outputs::Output;
use super::{AuctionDebate, Notice, record};
use crate::ids;
use crate::records::{InterruptRecord, RecordKind};

impl AuctionDebate {
    /// The human's voice began: a clip that sounds is held.
    pub(super) fn on_speech_started(&mut self, onset_us: Option<i64>, now: u64) -> Vec<Output> {
        self.wire
            .human_floor
            .speech_started(onset_us, now)
            .map(Output::Floor)
            .into_iter()
            .collect()
    }

    /// The human only acknowledged: a held clip goes on.
    pub(super) fn on_backchannel(&mut self) -> Vec<Output> {
        self.wire
            .human_floor
            .no_words()
            .map(Output::Floor)
            .into_iter()
            .collect()
    }

    /// The human's final words (`speaker`: their name when the source gives one).
    pub(super) fn on_human_words(
        &mut self,
        speaker: Option<String>,
        text: &str,
        heard: Option<HeardSpan>,
        now: u64,
    ) -> Vec<Output> {
        let mut out = Vec::new();
        let text = text.trim();
        if text.is_empty() {
            out.push(Output::Notice(Notice::EmptyTranscript));
            out.extend(self.wire.human_floor.no_words().map(Output::Floor));
            return out;
        }
        let speaker = speaker
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| voice_protocol::ids::HUMAN.to_owned());
        // A held clip is stopped by the decisions, and only then is the hold let go.
        let held = self.wire.human_floor.words();
        let question_id = self.fresh_question_id();
        out.push(Output::HumanSaid {
            speaker: speaker.clone(),
            question_id,
            text: text.to_owned(),
            heard,
        });
        if self.is_ended() {
            out.push(Output::Notice(Notice::HumanAfterEnd));
            if held {
                out.push(Output::Floor(FloorChange::Release));
            }
            return out;
        }
        self.wire
            .last_words
            .insert(speaker.clone(), text.to_owned());
        let named = self.named_in(text);
        let event = Event::HumanSpoke {
            speaker,
            words: text.to_owned(),
            named,
            held,
        };
        let actions = self.decide(event, now);
        out.extend(self.carry_out(actions, now));
        // The held clip is stopped above: the player may sound again (a hold left
        // standing kept the answer silent until the player's own limit, 36 s).
        if held {
            out.push(Output::Floor(FloorChange::Release));
        }
        out
    }

    /// A hold nobody resolved in time: the clip goes on.
    pub(super) fn human_floor_tick(&mut self, now: u64) -> Vec<Output> {
        match self.wire.human_floor.tick(now) {
            Some(change @ FloorChange::Release) => {
                vec![Output::Notice(Notice::FloorNotTaken), Output::Floor(change)]
            }
            _ => Vec::new(),
        }
    }

    /// The decisions: what sounds is cut, the round and the next segment dropped, and
    /// the answerer asked at once.
    pub(super) fn on_human(
        &mut self,
        speaker: String,
        words: &str,
        named: Option<&str>,
        held: bool,
        now: u64,
        out: &mut Vec<Action>,
    ) {
        let auction_id = ids::auction_id(&self.session, self.progress.turn);
        let talked_over = self.floor.main.take().map(|main| {
            // A held clip faded out at the hold: it stops now; else it fades out.
            let fade_ms = if held {
                out.push(Action::DiscardClip {
                    clip_id: main.clip_id.clone(),
                });
                0
            } else {
                let fade_ms = self.cfg.interrupt.crossfade_ms;
                out.push(Action::FadeOut {
                    clip_id: main.clip_id.clone(),
                    fade_ms,
                });
                fade_ms
            };
            self.floor.fade_until = Some(now + fade_ms);
            // On record as any interrupt: the human's, with no kicker and no tokens.
            out.push(record(RecordKind::Interrupt(InterruptRecord {
                auction_id: auction_id.clone(),
                turn: self.progress.turn,
                agent_id: speaker.clone(),
                interrupted_id: self.agents[main.agent].name.clone(),
                cut_clip_id: main.clip_id.clone(),
                kicker_clip_id: String::new(),
                beat: main.last_beat,
                at_ms: now,
                bid: 0,
                fee: 0,
                tokens_spent: 0,
                text: words.to_owned(),
            })));
            self.close_micro_turn(&main, now + fade_ms, false);
            main.agent
        });
        if let Some(overlay) = self.floor.overlay.take() {
            out.push(Action::DiscardClip {
                clip_id: overlay.clip_id,
            });
        }
        if let Some(mut round) = self.round.take() {
            for clip_id in [
                round.kicker.take().map(|k| k.clip_id),
                round.interjection.take().map(|i| i.clip_id),
            ]
            .into_iter()
            .flatten()
            {
                out.push(Action::DiscardClip { clip_id });
            }
        }
        let answerer = named
            .and_then(|n| self.agents.iter().position(|a| a.name == n))
            .or(talked_over)
            .or(self.floor.last_speaker)
            .unwrap_or_else(|| self.least_recent(None));
        self.agents[answerer].answer_human = Some(speaker);
        self.agents[answerer].respond_to = None;
        out.push(Action::Notice(Notice::HumanAnswered {
            agent: self.agents[answerer].name.clone(),
        }));
        let target = self.cfg.segment_seconds.target;
        // Replaces (and cancels) the prepared next segment.
        self.request_segment(
            answerer,
            &auction_id,
            HintKind::AnswerHuman,
            target,
            now,
            out,
        );
    }

    /// The participant the words name first, by name.
    fn named_in(&self, text: &str) -> Option<String> {
        let words = text::words::words(text);
        self.agents
            .iter()
            .filter_map(|a| {
                let name = text::words::words(&a.name);
                let at = words.windows(name.len().max(1)).position(|w| w == name)?;
                Some((at, a.name.clone()))
            })
            .min()
            .map(|(_, name)| name)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Input;
    use super::*;
    use voice_protocol::clips::{ClipCommand, ClipFinished, ClipReady, ClipStarted};

    use crate::debate::three_participants;

    fn turn_of(out: &[Output]) -> Option<(String, u64, bool)> {
        out.iter().find_map(|o| match o {
            Output::Turn {
                agent, question_id, ..
            } => Some((agent.clone(), *question_id, false)),
            Output::AnswerTurn {
                agent, question_id, ..
            } => Some((agent.clone(), *question_id, true)),
            _ => None,
        })
    }

    /// A debate whose first segment sounds: its speaker, the clip and its question.
    fn sounding() -> (AuctionDebate, String, String, u64) {
        let mut c = three_participants();
        let mut out = c.start(0);
        out.extend(
            ::conductor::drive(&mut c, [], 3_000)
                .into_iter()
                .map(|(_, o)| o),
        );
        let (agent, q, _) = turn_of(&out).expect("a first turn");
        let text = "Cars choke the old town. Trams do not.";
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
        c.handle(
            Input::ClipReady(ClipReady {
                clip_id: spec.clip_id.clone(),
                speaker: agent.clone(),
                sentence_ms: vec![1_500, 1_000],
                duration_ms: 2_500,
                pending: 0,
                error: None,
            }),
            3_100,
        );
        c.handle(
            Input::ClipStarted(ClipStarted {
                clip_id: spec.clip_id.clone(),
                speaker: agent.clone(),
                question_id: q,
                overlay: false,
                at_ms: 3_100,
            }),
            3_100,
        );
        (c, agent, spec.clip_id, q)
    }

    #[test]
    fn the_humans_sound_holds_the_clip_and_a_nod_lets_it_go_on() {
        let (mut c, _, _, _) = sounding();
        assert_eq!(
            c.handle(Input::SpeechStarted { onset_us: Some(5) }, 3_200),
            [Output::Floor(FloorChange::Hold { onset_us: Some(5) })]
        );
        assert_eq!(
            c.handle(Input::Backchannel, 3_400),
            [Output::Floor(FloorChange::Release)]
        );
        c.handle(Input::SpeechStarted { onset_us: None }, 3_500);
        let limit = c.next_deadline().expect("the hold's limit");
        assert!(limit <= 3_500 + ::conductor::floor::HOLD_LIMIT_MS);
        let out = c.tick(3_500 + ::conductor::floor::HOLD_LIMIT_MS);
        assert!(
            out.contains(&Output::Floor(FloorChange::Release)),
            "{out:?}"
        );
    }

    #[test]
    fn the_humans_words_cut_the_clip_and_the_one_they_name_answers_first() {
        let (mut c, speaker, clip_id, q) = sounding();
        let other = if speaker == "bo" { "cy" } else { "bo" };
        c.handle(Input::SpeechStarted { onset_us: None }, 3_200);
        let out = c.handle(
            Input::Human {
                speaker: None,
                text: format!("Wait, {other}, what would trams cost?"),
                heard: None,
            },
            3_900,
        );
        let said = out
            .iter()
            .position(|o| matches!(o, Output::HumanSaid { .. }))
            .expect("the words go to everyone");
        // Held, the clip is silent already: it stops, then the hold is let go.
        let cut = out
            .iter()
            .position(|o| matches!(o, Output::Command(ClipCommand::Discard { clip_id: c }) if *c == clip_id))
            .expect("the clip that sounds is cut");
        let released = out
            .iter()
            .position(|o| *o == Output::Floor(FloorChange::Release))
            .expect("the hold is let go");
        assert!(cut < released, "{out:?}");
        let (answerer, answer_q, marked) = turn_of(&out).expect("an answer asked at once");
        assert!(said < cut, "{out:?}");
        assert_eq!(answerer, other);
        assert!(marked && answer_q > q);
        let instruction = out
            .iter()
            .find_map(|o| match o {
                Output::AnswerTurn { instruction, .. } => Some(instruction.clone()),
                _ => None,
            })
            .unwrap();
        assert!(
            instruction.contains("what would trams cost"),
            "{instruction}"
        );
        // The cut clip's end changes nothing more; the answer plays when it is ready.
        let ended = c.handle(
            Input::ClipFinished(ClipFinished {
                speaker: speaker.clone(),
                question_id: q,
                start_ms: 3_100,
                end_ms: 3_950,
                interrupted: true,
                chars_played: 10,
                text_played: "Cars choke".into(),
                clip_id: clip_id.clone(),
                overlay: false,
                ducked: Vec::new(),
            }),
            3_950,
        );
        assert!(turn_of(&ended).is_none(), "{ended:?}");
        let answer = c.handle(
            Input::Text {
                agent: other.into(),
                question_id: answer_q,
                text: "About a tenth of a road.".into(),
                ended: true,
                error: None,
            },
            5_000,
        );
        let spec = answer
            .iter()
            .find_map(|o| match o {
                Output::Clip(spec) => Some(spec.clone()),
                _ => None,
            })
            .expect("the answer's clip");
        let ready = c.handle(
            Input::ClipReady(ClipReady {
                clip_id: spec.clip_id.clone(),
                speaker: other.into(),
                sentence_ms: vec![1_200],
                duration_ms: 1_200,
                pending: 0,
                error: None,
            }),
            5_100,
        );
        assert!(
            ready.iter().any(|o| matches!(o, Output::Command(ClipCommand::Play { clip_id }) if *clip_id == spec.clip_id)),
            "{ready:?}"
        );
    }

    #[test]
    fn words_that_name_nobody_are_answered_by_the_one_talked_over() {
        let (mut c, speaker, _, _) = sounding();
        let out = c.handle(
            Input::Human {
                speaker: Some("Sam".into()),
                text: "I am not sure about that.".into(),
                heard: None,
            },
            3_900,
        );
        assert_eq!(turn_of(&out).map(|t| t.0), Some(speaker));
        // Typed words, nothing held: the clip fades out, and no hold is let go.
        assert!(
            out.iter()
                .any(|o| matches!(o, Output::Command(ClipCommand::FadeOut { .. })))
        );
        assert!(!out.iter().any(|o| matches!(o, Output::Floor(_))));
    }
}

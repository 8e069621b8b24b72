//! What the voice synthesizes next, and which call a new job stops: the synthesis
//! worker's decisions, without the worker's thread or the voice. The node's worker asks
//! [`Schedule::next_call`], makes the call, and reports it with [`Schedule::finished`]; the
//! event loop hands jobs over with [`Schedule::hand_over`] and interrupts with
//! [`Schedule::interrupt`], each of which says whether to stop the call under way.
//!
//! The order, the answer to the human first:
//! 1. an answer's openers (`PartOf::Ahead`, handed over when the controller says who
//!    answers), unless kept already or the answer itself has come since;
//! 2. the jobs waiting, in arrival order; a turn older than the newest interrupt is
//!    skipped, and a turn whose text was voiced ahead is answered from the kept audio;
//! 3. with nothing waiting, the next phrase to voice ahead ([`Prepared`]), a call that
//!    any job stops.

use std::collections::VecDeque;

use crate::{PlayerInput, prepared::Prepared};

/// Jobs waiting for the voice. The player's queue caps how many it asks for
/// ([`crate::MAX_QUEUED_UTTERANCES`] utterances of at most
/// [`crate::MAX_SEGMENTS_PER_UTTERANCE`] segments, and [`crate::clips::MAX_HELD_CLIPS`]
/// clips); jobs gone stale are skipped without synthesizing, so past this bound (an
/// interrupt storm while one long call runs) the sender waits for the worker instead of
/// the queue growing.
pub const MAX_PENDING_JOBS: usize = 4_096;

/// A sentence (or phrase) to voice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    pub speaker: String,
    pub index: u32,
    pub text: String,
    pub part_of: PartOf,
}

/// What a sentence to voice belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartOf {
    /// An utterance of a turn: stale once an interrupt passes its question id.
    Turn { question_id: u64 },
    /// A clip (clip mode): never stale, cut only by its commands.
    Clip { clip_id: String },
    /// An answer's opener, voiced first because that speaker's answer is coming (or, from
    /// [`Schedule::next_call`], a phrase voiced ahead while idle).
    Ahead,
}

/// The call the voice is making, as far as stopping it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// Nothing, or a clip (cut only by its commands).
    Other,
    Turn(u64),
    /// A phrase voiced ahead while idle: any job stops it.
    Ahead {
        speaker: String,
        text: String,
    },
    /// A phrase voiced first because this speaker's answer is coming: only that answer's
    /// own text stops it. Other speakers' turns, written while the human still speaks,
    /// wait behind it (they mostly go stale with the human's words); stopped by them, the
    /// answer's openers were never ready and were voiced when said, 2.9 s after the
    /// human's words where a kept one sounds in tens of milliseconds.
    AheadOfAnswer {
        speaker: String,
        text: String,
    },
}

impl Call {
    /// Whether a job to voice for `speaker` (not a phrase ahead; `turn`: its question
    /// id, if a turn's), just handed over, stops this call. The answer is a turn newer
    /// than every turn handed over before its openers were (`answer_after`): the
    /// speaker's turn written before the human spoke goes stale with the human's words.
    /// An answer whose text is the very phrase being voiced lets it finish: it is kept,
    /// and the answer finds it ready.
    pub fn stopped_by(
        &self,
        speaker: &str,
        turn: Option<u64>,
        answer_after: u64,
        text: &str,
    ) -> bool {
        match self {
            Call::Ahead { .. } => true,
            Call::AheadOfAnswer {
                speaker: answering,
                text: voicing,
            } => {
                answering == speaker && turn.is_some_and(|id| id > answer_after) && voicing != text
            }
            Call::Other | Call::Turn(_) => false,
        }
    }

    /// Whether this call gives way to `speaker`'s opener `text`, handed over because the
    /// answer to the human is coming and not voiced yet: a turn's sentence (it is voiced
    /// again after it, unless the human's words make it stale, as they mostly do) or
    /// another phrase voiced while idle. Found in a study session: a student's sentence
    /// of 58 characters, begun just before the human spoke, kept the answer's opener
    /// waiting 2.7 s after the human's words.
    pub fn gives_way_to_opener(&self, speaker: &str, text: &str) -> bool {
        match self {
            Call::Turn(_) => true,
            Call::Ahead {
                speaker: voicing_for,
                text: voicing,
            } => voicing_for != speaker || voicing != text,
            Call::AheadOfAnswer { .. } | Call::Other => false,
        }
    }
}

/// What the voice does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// The job's audio was voiced ahead and kept: send it, no call.
    Kept(PlayerInput),
    /// Voice this job; the call is named ([`Schedule::call`]) until
    /// [`Schedule::finished`].
    Voice(Job),
}

/// The synthesis worker's queues and the call under way.
#[derive(Debug)]
pub struct Schedule {
    prepared: Prepared,
    /// An answer's openers, taken before the jobs waiting.
    answer_openers: VecDeque<Job>,
    waiting: VecDeque<Job>,
    call: Call,
    /// The newest interrupt's question id: older turns are not voiced.
    floor: u64,
    /// The newest turn handed over, and which it was when an answer's openers were.
    newest_turn: u64,
    answer_after: u64,
    /// The call under way was stopped for an answer's opener: a turn's sentence is
    /// voiced again after it, a phrase voiced while idle is put back.
    set_aside: bool,
    /// The hold ended without words while an answer's opener was being voiced.
    answer_withdrawn: bool,
}

impl Schedule {
    pub fn new(prepared: Prepared) -> Self {
        Self {
            prepared,
            answer_openers: VecDeque::new(),
            waiting: VecDeque::new(),
            call: Call::Other,
            floor: 0,
            newest_turn: 0,
            answer_after: 0,
            set_aside: false,
            answer_withdrawn: false,
        }
    }

    /// Takes `job`: an answer's opener to its own queue, taken first; any other job to the
    /// queue of jobs waiting. Returns whether the call under way is to be stopped
    /// ([`Call::gives_way_to_opener`] for an opener not kept yet, [`Call::stopped_by`]
    /// for any other job).
    pub fn hand_over(&mut self, job: Job) -> bool {
        let turn = match job.part_of {
            PartOf::Turn { question_id } => Some(question_id),
            PartOf::Clip { .. } | PartOf::Ahead => None,
        };
        if let Some(id) = turn {
            self.newest_turn = self.newest_turn.max(id);
        }
        if job.part_of == PartOf::Ahead {
            self.answer_after = self.newest_turn;
            self.answer_withdrawn = false;
            let stop = self.prepared.wants(&job.speaker, &job.text)
                && self.call.gives_way_to_opener(&job.speaker, &job.text);
            self.set_aside |= stop;
            self.answer_openers.push_back(job);
            return stop;
        }
        let stop = self
            .call
            .stopped_by(&job.speaker, turn, self.answer_after, &job.text);
        self.waiting.push_back(job);
        stop
    }

    /// The hold ended without words: an answer's openers not begun yet are no longer
    /// first (they are voiced while idle, as every phrase is). Returns whether the call
    /// under way voices one of them, to be stopped: the sentence it set aside, of the
    /// turn that goes on, is wanted now (heard in a study session: a backchannel's hold
    /// set the tutor's next sentence aside for an opener, and the turn went on into
    /// 6.9 s of silence).
    pub fn answer_not_coming(&mut self) -> bool {
        self.answer_openers.clear();
        self.answer_withdrawn = matches!(self.call, Call::AheadOfAnswer { .. });
        self.answer_withdrawn
    }

    /// An interrupt with `question_id` came: older turns are no longer voiced. Returns
    /// whether the call under way voices one of them, to be stopped.
    pub fn interrupt(&mut self, question_id: u64) -> bool {
        self.floor = self.floor.max(question_id);
        matches!(self.call, Call::Turn(id) if id < self.floor)
    }

    /// Whether the queue of jobs waiting is at its bound ([`MAX_PENDING_JOBS`]).
    pub fn is_full(&self) -> bool {
        self.waiting.len() >= MAX_PENDING_JOBS
    }

    /// The call under way.
    pub fn call(&self) -> &Call {
        &self.call
    }

    /// Whether the call under way is no longer worth finishing: a turn older than the
    /// newest interrupt, or a phrase voiced ahead while idle once a job waits, or a call
    /// set aside for an answer's opener. Asked between the pieces of a long call.
    pub fn call_is_moot(&self) -> bool {
        match &self.call {
            Call::Turn(id) => *id < self.floor || self.set_aside,
            Call::Ahead { .. } => !self.waiting.is_empty() || self.set_aside,
            // Once no answer is coming, its opener gives way to the turn that goes on.
            Call::AheadOfAnswer { .. } => self.answer_withdrawn,
            Call::Other => false,
        }
    }

    /// What to do next, or `None` when there is nothing to voice. A job to voice names
    /// the call under way until [`Schedule::finished`].
    pub fn next_call(&mut self) -> Option<Next> {
        while let Some(job) = self.answer_openers.pop_front() {
            // Voiced unless kept already, or a turn newer than the openers was handed
            // over since (the answer, or what follows it): then the openers still queued
            // would only delay the answer's text.
            if self.prepared.wants(&job.speaker, &job.text) && self.newest_turn <= self.answer_after
            {
                self.call = Call::AheadOfAnswer {
                    speaker: job.speaker.clone(),
                    text: job.text.clone(),
                };
                return Some(Next::Voice(job));
            }
        }
        while let Some(job) = self.waiting.pop_front() {
            match &job.part_of {
                PartOf::Turn { question_id } if *question_id < self.floor => continue,
                PartOf::Turn { question_id } => {
                    if let Some(samples) = self.prepared.get(&job.speaker, &job.text) {
                        return Some(Next::Kept(PlayerInput::Audio {
                            question_id: *question_id,
                            index: job.index,
                            samples: samples.clone(),
                        }));
                    }
                    self.call = Call::Turn(*question_id);
                }
                PartOf::Clip { .. } => self.call = Call::Other,
                // Handed over as an answer's opener, never queued here.
                PartOf::Ahead => continue,
            }
            return Some(Next::Voice(job));
        }
        let (speaker, text) = self.prepared.next_to_voice()?;
        self.call = Call::Ahead {
            speaker: speaker.clone(),
            text: text.clone(),
        };
        Some(Next::Voice(Job {
            speaker,
            index: 0,
            text,
            part_of: PartOf::Ahead,
        }))
    }

    /// The call for `job` ended: with its audio, its error, or `None` when it went stale
    /// on the way (stopped). Returns what the player is to be told, if anything; a phrase
    /// voiced ahead is kept, and one voiced while idle that a job stopped is put back,
    /// to be voiced at the next idle moment.
    pub fn finished(
        &mut self,
        job: Job,
        voiced: Option<Result<Vec<f32>, String>>,
    ) -> Option<PlayerInput> {
        let call = std::mem::replace(&mut self.call, Call::Other);
        let set_aside = std::mem::take(&mut self.set_aside);
        self.answer_withdrawn = false;
        match (voiced, job.part_of) {
            (Some(Ok(samples)), PartOf::Turn { question_id }) => {
                self.prepared.said(&job.speaker, &job.text, &samples);
                Some(PlayerInput::Audio {
                    question_id,
                    index: job.index,
                    samples,
                })
            }
            (Some(Err(error)), PartOf::Turn { question_id }) => {
                Some(PlayerInput::SynthesisFailed {
                    question_id,
                    index: job.index,
                    error,
                })
            }
            (Some(Ok(samples)), PartOf::Clip { clip_id }) => Some(PlayerInput::ClipAudio {
                clip_id,
                index: job.index,
                samples,
            }),
            (Some(Err(error)), PartOf::Clip { clip_id }) => {
                Some(PlayerInput::ClipSynthesisFailed {
                    clip_id,
                    index: job.index,
                    error,
                })
            }
            (Some(Ok(samples)), PartOf::Ahead) => {
                self.prepared.said(&job.speaker, &job.text, &samples);
                None
            }
            (Some(Err(_)) | None, PartOf::Ahead) => {
                if matches!(call, Call::Ahead { .. }) && (set_aside || !self.waiting.is_empty()) {
                    self.prepared.put_back(job.speaker, job.text);
                }
                None
            }
            (None, PartOf::Turn { question_id }) => {
                if set_aside && question_id >= self.floor {
                    // Still wanted (the human's words did not make it stale): first again.
                    self.waiting.push_front(Job {
                        part_of: PartOf::Turn { question_id },
                        ..job
                    });
                }
                None
            }
            (None, PartOf::Clip { .. }) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const PHRASES: &[&str] = &["Sure.", "Let me think about that."];

    fn schedule() -> Schedule {
        Schedule::new(Prepared::new(vec!["tutor".into()], PHRASES))
    }

    fn turn(speaker: &str, question_id: u64, text: &str) -> Job {
        Job {
            speaker: speaker.into(),
            index: 0,
            text: text.into(),
            part_of: PartOf::Turn { question_id },
        }
    }

    fn opener(text: &str) -> Job {
        Job {
            speaker: "tutor".into(),
            index: 0,
            text: text.into(),
            part_of: PartOf::Ahead,
        }
    }

    fn voiced(next: Option<Next>) -> Job {
        match next {
            Some(Next::Voice(job)) => job,
            other => panic!("expected a job to voice, got {other:?}"),
        }
    }

    #[test]
    fn an_answer_s_opener_voiced_first_is_stopped_by_its_own_turn_only() {
        let text = "The slope is two.";
        let idle = Call::Ahead {
            speaker: "tutor".into(),
            text: "Sure.".into(),
        };
        // While idle: any job stops it (real work first).
        assert!(idle.stopped_by("student1", Some(3), 0, text));
        assert!(idle.stopped_by("student1", None, 0, text));
        // The answer is coming (turn 6 was the newest then): another speaker's turn
        // waits behind it, and so does the speaker's own turn written before the human
        // spoke; the answer, newer, stops it, unless it opens with the very phrase.
        let answering = Call::AheadOfAnswer {
            speaker: "tutor".into(),
            text: "Let me think about that.".into(),
        };
        assert!(!answering.stopped_by("student1", Some(7), 6, text));
        assert!(!answering.stopped_by("tutor", Some(6), 6, text));
        assert!(!answering.stopped_by("tutor", None, 6, text));
        assert!(answering.stopped_by("tutor", Some(7), 6, text));
        assert!(!answering.stopped_by("tutor", Some(7), 6, "Let me think about that."));
        // A turn under way is stopped by interrupts, never by a job.
        assert!(!Call::Turn(3).stopped_by("tutor", Some(4), 0, text));
        assert!(!Call::Other.stopped_by("tutor", Some(4), 0, text));
    }

    #[test]
    fn while_idle_the_phrases_are_voiced_ahead_and_a_job_stops_one_which_comes_again() {
        let mut s = schedule();
        let first = voiced(s.next_call());
        assert_eq!(
            (first.text.as_str(), first.part_of.clone()),
            ("Sure.", PartOf::Ahead)
        );
        assert!(!s.call_is_moot());
        // A turn's text comes: the idle phrase is stopped, and put back.
        assert!(s.hand_over(turn("student1", 1, "What is a slope?")));
        assert!(s.call_is_moot());
        assert_eq!(s.finished(first, None), None);
        assert_eq!(voiced(s.next_call()).text, "What is a slope?");
        assert_eq!(s.call(), &Call::Turn(1));
        let again = voiced(s.next_call());
        assert_eq!(again.text, "Sure.", "put back, voiced next");
        assert_eq!(s.finished(again, Some(Ok(vec![0.5]))), None);
        // Said in a turn: answered from the kept audio, without a call.
        s.hand_over(turn("tutor", 2, "Sure."));
        assert_eq!(
            s.next_call(),
            Some(Next::Kept(PlayerInput::Audio {
                question_id: 2,
                index: 0,
                samples: vec![0.5]
            }))
        );
    }

    #[test]
    fn an_answer_s_openers_come_before_the_jobs_waiting_until_the_answer_comes() {
        let mut s = schedule();
        s.hand_over(turn("student1", 4, "I think the slope is the rise."));
        s.hand_over(turn("tutor", 5, "Earlier turn."));
        assert!(!s.hand_over(opener("Let me think about that.")));
        assert!(!s.hand_over(opener("Sure.")));
        let job = voiced(s.next_call());
        assert_eq!(job.text, "Let me think about that.");
        assert!(matches!(s.call(), Call::AheadOfAnswer { .. }));
        // Other speakers' turns, and the answerer's older one, do not stop it.
        assert!(!s.hand_over(turn("student2", 5, "Another line.")));
        // The answer does; the opener still queued is then skipped.
        assert!(s.hand_over(turn("tutor", 6, "The slope is two.")));
        assert_eq!(s.finished(job, None), None);
        assert_eq!(voiced(s.next_call()).text, "I think the slope is the rise.");
    }

    #[test]
    fn a_call_gives_way_to_an_answer_s_opener_not_kept_yet_and_comes_again_after_it() {
        let mut s = schedule();
        // Both phrases kept while idle but "Sure." for the tutor, which is being voiced.
        let sure = voiced(s.next_call());
        assert_eq!(sure.text, "Sure.");
        // The same phrase as an answer's opener: the call goes on, and is kept.
        assert!(!s.hand_over(opener("Sure.")));
        assert_eq!(s.finished(sure, Some(Ok(vec![0.3]))), None);
        assert_eq!(
            voiced(s.next_call()).text,
            "Let me think about that.",
            "the opener kept is not voiced again; the next phrase is voiced while idle"
        );
        // A student's sentence under way when the answer's opener comes: it gives way.
        let mut s = schedule();
        s.hand_over(turn(
            "student2",
            3,
            "A long sentence begun before the human spoke.",
        ));
        let sentence = voiced(s.next_call());
        assert!(s.hand_over(opener("Let me think about that.")));
        assert!(s.call_is_moot());
        assert_eq!(s.finished(sentence, None), None);
        assert_eq!(voiced(s.next_call()).text, "Let me think about that.");
        // Not stale (no interrupt came): voiced again, before the jobs after it.
        s.hand_over(turn("student1", 4, "Next."));
        assert_eq!(
            voiced(s.next_call()).text,
            "A long sentence begun before the human spoke."
        );
        // An opener kept already stops nothing.
        let mut s = schedule();
        let sure = voiced(s.next_call());
        s.finished(sure, Some(Ok(vec![0.3])));
        s.hand_over(turn("student2", 3, "A sentence."));
        let sentence = voiced(s.next_call());
        assert!(!s.hand_over(opener("Sure.")));
        assert!(!s.call_is_moot());
        // Set aside, then made stale by the human's words: not voiced again.
        assert!(s.hand_over(opener("Let me think about that.")));
        s.interrupt(5);
        assert_eq!(s.finished(sentence, None), None);
        let opener = voiced(s.next_call());
        assert_eq!(opener.text, "Let me think about that.");
        s.finished(opener, Some(Ok(vec![0.4])));
        assert!(
            s.next_call().is_none(),
            "every phrase kept, the sentence stale"
        );
    }

    #[test]
    fn openers_for_an_answer_that_is_not_coming_give_the_turn_back_its_place() {
        let mut s = schedule();
        s.hand_over(turn("tutor", 2, "The slope of the tangent line"));
        s.hand_over(turn("tutor", 2, "is the derivative."));
        let first = voiced(s.next_call());
        // A hold: the tutor's openers come, and the sentence under way gives way.
        assert!(s.hand_over(opener("Let me think about that.")));
        s.hand_over(opener("Sure."));
        s.finished(first, None);
        let begun = voiced(s.next_call());
        assert_eq!(begun.text, "Let me think about that.");
        // No words came: the opener begun is stopped, the other waits for an idle moment,
        // and the sentence set aside is voiced at once.
        assert!(s.answer_not_coming());
        assert!(s.call_is_moot());
        s.finished(begun, None);
        let sentence = voiced(s.next_call());
        assert_eq!(sentence.text, "The slope of the tangent line");
        assert!(matches!(
            s.finished(sentence, Some(Ok(vec![0.1]))),
            Some(PlayerInput::Audio { question_id: 2, .. })
        ));
        assert_eq!(voiced(s.next_call()).text, "is the derivative.");
    }

    #[test]
    fn turns_older_than_an_interrupt_are_skipped_and_their_call_stopped() {
        let mut s = schedule();
        s.hand_over(turn("tutor", 3, "One."));
        s.hand_over(turn("tutor", 3, "Two."));
        s.hand_over(turn("tutor", 4, "Three."));
        let one = voiced(s.next_call());
        assert!(!s.interrupt(3), "turn 3 is not older than the floor 3");
        assert!(s.interrupt(4));
        assert!(s.call_is_moot());
        assert_eq!(s.finished(one, None), None);
        assert_eq!(voiced(s.next_call()).text, "Three.");
    }

    #[test]
    fn failures_are_reported_for_turns_and_clips_only() {
        let mut s = schedule();
        s.hand_over(turn("tutor", 1, "One."));
        let job = voiced(s.next_call());
        assert!(matches!(
            s.finished(job, Some(Err("no voice".into()))),
            Some(PlayerInput::SynthesisFailed { question_id: 1, .. })
        ));
        s.hand_over(Job {
            speaker: "narrator".into(),
            index: 2,
            text: "A clip.".into(),
            part_of: PartOf::Clip {
                clip_id: "c1".into(),
            },
        });
        let clip = voiced(s.next_call());
        assert_eq!(s.call(), &Call::Other);
        assert!(matches!(
            s.finished(clip, Some(Err("no voice".into()))),
            Some(PlayerInput::ClipSynthesisFailed { index: 2, .. })
        ));
        let ahead = voiced(s.next_call());
        assert_eq!(s.finished(ahead, Some(Err("no voice".into()))), None);
        assert_eq!(
            voiced(s.next_call()).text,
            "Let me think about that.",
            "a failed phrase is not retried while idle"
        );
    }

    #[derive(Debug, Clone)]
    enum Step {
        Turn(u8, u64),
        Opener(u8),
        Interrupt(u64),
        NoAnswer,
        /// Finish the call under way (stopped if the schedule says it is moot), or
        /// begin the next.
        Next,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0u8..3, 0u64..8).prop_map(|(s, q)| Step::Turn(s, q)),
            (0u8..2).prop_map(Step::Opener),
            (0u64..8).prop_map(Step::Interrupt),
            Just(Step::NoAnswer),
            Just(Step::Next),
            Just(Step::Next),
        ]
    }

    proptest! {
        /// Whatever comes in whatever order, with calls under way while jobs, openers,
        /// interrupts and holds without words come: an answer's opener still wanted is
        /// never voiced after a job waiting, no turn older than the newest interrupt is
        /// voiced, no turn's audio is made twice, and a turn set aside and not stale is
        /// voiced again.
        #[test]
        fn the_answer_first_and_nothing_stale(steps in prop::collection::vec(step(), 1..80)) {
            let mut s = schedule();
            let speakers = ["tutor", "student1", "student2"];
            let mut floor = 0;
            let mut serial = 0u32;
            let mut under_way: Option<Job> = None;
            let mut made = std::collections::BTreeSet::new();
            for step in steps {
                match step {
                    Step::Turn(who, q) => {
                        serial += 1;
                        s.hand_over(Job { index: serial, ..turn(speakers[usize::from(who)], q, &format!("Line {serial}.")) });
                    }
                    Step::Opener(n) => { s.hand_over(opener(PHRASES[usize::from(n)])); }
                    Step::Interrupt(q) => { s.interrupt(q); floor = floor.max(q); }
                    Step::NoAnswer => { s.answer_not_coming(); }
                    Step::Next => match under_way.take() {
                        Some(job) => {
                            let stopped = s.call_is_moot();
                            let (index, question_id) = (job.index, match job.part_of { PartOf::Turn { question_id } => Some(question_id), _ => None });
                            let result = s.finished(job, if stopped { None } else { Some(Ok(vec![0.1])) });
                            if let (Some(_), Some(PlayerInput::Audio { .. })) = (question_id, &result) {
                                prop_assert!(made.insert(index), "made twice");
                            }
                            if stopped && question_id.is_some_and(|q| q >= floor) {
                                prop_assert!(s.waiting.iter().any(|j| j.index == index), "a turn set aside was lost");
                            }
                        }
                        None => {
                            let openers_wanted = s.answer_openers.iter().any(|j| s.prepared.wants(&j.speaker, &j.text))
                                && s.newest_turn <= s.answer_after;
                            match s.next_call() {
                                Some(Next::Voice(job)) => {
                                    if let PartOf::Turn { question_id } = job.part_of {
                                        prop_assert!(!openers_wanted, "a turn before the answer's opener");
                                        prop_assert!(question_id >= floor);
                                        prop_assert!(!made.contains(&job.index), "voiced again once made");
                                    }
                                    under_way = Some(job);
                                }
                                Some(Next::Kept(_)) | None => prop_assert!(!openers_wanted),
                            }
                        }
                    },
                }
            }
        }
    }
}

//! One human's turns from their audio: when speech starts, what to recognize, and when
//! what was heard is a turn or a backchannel.
//!
//! With a short pause configured ([`VadConfig::pause_ms`]), the utterance so far is
//! recognized at once (a speculative job) and the pause is held: it closes the utterance
//! only after `hold_ms`, longer than `end_ms`, since a speaker who hesitates mid-sentence
//! pauses longer than 700 ms. If the words make a finished turn ([`completion`]) the turn
//! is taken as soon as they are known; if not, they wait: the held closing silence sends
//! them without recognizing the same audio again, and voice coming back cancels the job
//! (its result, by id, is ignored). Without a pause, an utterance is recognized when the
//! closing silence (`end_ms`) ends it.
//!
//! Time is the number of samples pushed; recognition results come back by job id, in any
//! order, whenever the recognizer is done.

use std::collections::BTreeMap;

use audio_utils::Pcm;

use crate::{
    BackchannelConfig, Heard, Vad, VadConfig, VadEvent, classify,
    end_of_turn::{Completion, completion},
};

/// A recognition job, numbered from 0 by one [`Endpointer`].
pub type JobId = u64;

#[derive(Debug, Clone, PartialEq)]
pub enum EndpointInput<'a> {
    /// Microphone samples, at the voice detector's rate.
    Audio(&'a [f32]),
    /// The text of a job handed out by [`EndpointOutput::Recognize`] (empty when
    /// recognition failed).
    Recognized { job: JobId, text: String },
    /// A job handed out was not recognized (the recognizer's queue was full): a final
    /// job's words are lost and no longer waited for; a pause's job is forgotten, so
    /// that the utterance is recognized whole when it closes.
    Dropped { job: JobId },
    /// The stream ended: an utterance in progress is finished.
    Finish,
}

#[derive(Debug, Clone, PartialEq)]
pub enum EndpointOutput {
    /// Voice began: the human may be taking the floor.
    SpeechStarted { at_ms: u64 },
    /// Recognize this audio; the text comes back as [`EndpointInput::Recognized`].
    Recognize { job: JobId, audio: Pcm },
    /// The job's result is no longer wanted (the human spoke on): it may be skipped.
    Cancel { job: JobId },
    /// A turn: the human's words. `early`: taken at a pause, before the closing silence.
    Turn {
        text: String,
        start_ms: u64,
        end_ms: u64,
        early: bool,
    },
    /// Feedback or a sound: the conversation goes on.
    Backchannel {
        text: String,
        start_ms: u64,
        end_ms: u64,
    },
}

/// The utterance so far, being recognized at a pause.
#[derive(Debug, Clone)]
struct Speculation {
    job: JobId,
    start_ms: u64,
    end_ms: u64,
    /// Its words, when they came back and did not make a finished turn, or did but the
    /// silence is still shorter than `commit_ms`.
    heard: Option<String>,
    /// The words make a finished turn: taken once the silence reaches `commit_ms`.
    finished: bool,
}

#[derive(Debug, Clone)]
pub struct Endpointer {
    vad: Vad,
    commit_ms: u64,
    backchannels: BackchannelConfig,
    next_job: JobId,
    speculation: Option<Speculation>,
    /// Jobs of whole utterances (a speculation becomes one at the closing silence):
    /// (start_ms, end_ms).
    finals: BTreeMap<JobId, (u64, u64)>,
}

impl Endpointer {
    pub fn new(vad: VadConfig, backchannels: BackchannelConfig) -> Self {
        Self {
            commit_ms: u64::from(vad.commit_ms),
            vad: Vad::new(vad),
            backchannels,
            next_job: 0,
            speculation: None,
            finals: BTreeMap::new(),
        }
    }

    /// Whether the human is speaking (an utterance is open).
    pub fn is_speaking(&self) -> bool {
        self.vad.is_speaking()
    }

    /// Jobs whose text will still make a turn or a backchannel.
    pub fn awaiting(&self) -> usize {
        self.finals.len()
    }

    pub fn handle(&mut self, input: EndpointInput<'_>) -> Vec<EndpointOutput> {
        let mut out = Vec::new();
        match input {
            EndpointInput::Audio(samples) => {
                for event in self.vad.push(samples) {
                    self.on_vad(event, &mut out);
                }
                self.commit_if_due(false, &mut out);
            }
            EndpointInput::Finish => {
                for event in self.vad.finish() {
                    self.on_vad(event, &mut out);
                }
            }
            EndpointInput::Recognized { job, text } => self.on_text(job, text, &mut out),
            EndpointInput::Dropped { job } => {
                self.finals.remove(&job);
                if self.speculation.as_ref().is_some_and(|s| s.job == job) {
                    self.speculation = None;
                }
            }
        }
        out
    }

    fn job(&mut self) -> JobId {
        let job = self.next_job;
        self.next_job += 1;
        job
    }

    fn on_vad(&mut self, event: VadEvent, out: &mut Vec<EndpointOutput>) {
        match event {
            VadEvent::SpeechStarted { at_ms } => out.push(EndpointOutput::SpeechStarted { at_ms }),
            VadEvent::Paused {
                audio,
                start_ms,
                end_ms,
            } => {
                let job = self.job();
                self.vad.hold();
                self.speculation = Some(Speculation {
                    job,
                    start_ms,
                    end_ms,
                    heard: None,
                    finished: false,
                });
                out.push(EndpointOutput::Recognize { job, audio });
            }
            VadEvent::Resumed => {
                if let Some(speculation) = self.speculation.take() {
                    out.push(EndpointOutput::Cancel {
                        job: speculation.job,
                    });
                }
            }
            VadEvent::Utterance {
                audio,
                start_ms,
                end_ms,
            } => match self.speculation.take() {
                // No voice since the pause: the audio is the one being recognized, and
                // its words, whenever they come, are the utterance's.
                Some(Speculation {
                    heard: Some(text),
                    start_ms,
                    end_ms,
                    ..
                }) => out.push(self.heard(text, start_ms, end_ms, false)),
                Some(waiting) => {
                    self.finals
                        .insert(waiting.job, (waiting.start_ms, waiting.end_ms));
                }
                None => {
                    let job = self.job();
                    self.finals.insert(job, (start_ms, end_ms));
                    out.push(EndpointOutput::Recognize { job, audio });
                }
            },
        }
    }

    fn on_text(&mut self, job: JobId, text: String, out: &mut Vec<EndpointOutput>) {
        if let Some((start_ms, end_ms)) = self.finals.remove(&job) {
            out.push(self.heard(text, start_ms, end_ms, false));
            return;
        }
        let Some(speculation) = self.speculation.as_mut().filter(|s| s.job == job) else {
            return; // cancelled: the human spoke on
        };
        let (start_ms, end_ms) = (speculation.start_ms, speculation.end_ms);
        let (finished, backchannel) = match classify(&text, end_ms - start_ms, &self.backchannels) {
            Heard::Backchannel => (true, true),
            Heard::Turn(words) => (completion(&words) == Completion::Complete, false),
        };
        speculation.heard = Some(text);
        speculation.finished = finished;
        // A nod resumes the held voice at once; a finished turn waits for `commit_ms`.
        self.commit_if_due(backchannel, out);
    }

    /// Takes words that make a finished turn once the silence is long enough (`now`: at
    /// once).
    fn commit_if_due(&mut self, now: bool, out: &mut Vec<EndpointOutput>) {
        let due = self.speculation.as_ref().is_some_and(|s| s.finished)
            && (now || self.vad.silence_ms() >= self.commit_ms);
        if !due {
            return;
        }
        let Some(Speculation {
            heard: Some(text),
            start_ms,
            end_ms,
            ..
        }) = self.speculation.take()
        else {
            return;
        };
        self.vad.cut();
        out.push(self.heard(text, start_ms, end_ms, true));
    }

    fn heard(&self, text: String, start_ms: u64, end_ms: u64, early: bool) -> EndpointOutput {
        match classify(&text, end_ms - start_ms, &self.backchannels) {
            Heard::Turn(text) => EndpointOutput::Turn {
                text,
                start_ms,
                end_ms,
                early,
            },
            Heard::Backchannel => EndpointOutput::Backchannel {
                text,
                start_ms,
                end_ms,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const RATE: u32 = 16_000;

    fn config(pause_ms: u32) -> VadConfig {
        VadConfig {
            pause_ms,
            ..VadConfig::new(RATE)
        }
    }

    fn tone(ms: u32, level: f32) -> Vec<f32> {
        (0..RATE * ms / 1000)
            .map(|i| (i as f32 * 0.3).sin() * level)
            .collect()
    }

    fn endpointer(pause_ms: u32) -> Endpointer {
        Endpointer::new(config(pause_ms), BackchannelConfig::default())
    }

    fn jobs(out: &[EndpointOutput]) -> Vec<JobId> {
        out.iter()
            .filter_map(|o| match o {
                EndpointOutput::Recognize { job, .. } => Some(*job),
                _ => None,
            })
            .collect()
    }

    fn turns(out: &[EndpointOutput]) -> Vec<(String, bool)> {
        out.iter()
            .filter_map(|o| match o {
                EndpointOutput::Turn { text, early, .. } => Some((text.clone(), *early)),
                _ => None,
            })
            .collect()
    }

    fn say(e: &mut Endpointer, ms: u32) -> Vec<EndpointOutput> {
        e.handle(EndpointInput::Audio(&tone(ms, 0.5)))
    }

    fn pause(e: &mut Endpointer, ms: u32) -> Vec<EndpointOutput> {
        e.handle(EndpointInput::Audio(&tone(ms, 0.0)))
    }

    fn text(e: &mut Endpointer, job: JobId, text: &str) -> Vec<EndpointOutput> {
        e.handle(EndpointInput::Recognized {
            job,
            text: text.to_owned(),
        })
    }

    #[test]
    fn a_finished_question_is_taken_at_the_pause() {
        let mut e = endpointer(250);
        assert!(matches!(
            say(&mut e, 1500)[..],
            [EndpointOutput::SpeechStarted { .. }]
        ));
        let out = pause(&mut e, 260);
        assert_eq!(jobs(&out), [0]);
        assert!(text(&mut e, 0, "What is the derivative of x squared?").is_empty());
        // Taken at `commit_ms` of silence, before the closing silence.
        let out = pause(&mut e, 240);
        assert_eq!(
            turns(&out),
            [("What is the derivative of x squared?".to_owned(), true)]
        );
        assert!(!e.is_speaking());
        // The closing silence brings nothing more: the words were taken.
        assert!(pause(&mut e, 1000).is_empty());
        assert_eq!(e.awaiting(), 0);
    }

    #[test]
    fn an_unfinished_clause_waits_and_the_speaker_goes_on() {
        let mut e = endpointer(250);
        say(&mut e, 1200);
        assert_eq!(jobs(&pause(&mut e, 300)), [0]);
        assert!(text(&mut e, 0, "What is the derivative of").is_empty());
        let out = say(&mut e, 800);
        assert_eq!(out, [EndpointOutput::Cancel { job: 0 }]);
        let out = pause(&mut e, 1300);
        let all = [jobs(&out), jobs(&pause(&mut e, 0))].concat();
        assert_eq!(all, [1], "the whole utterance is recognized once more");
        let out = text(&mut e, 1, "What is the derivative of x squared?");
        assert_eq!(
            turns(&out),
            [("What is the derivative of x squared?".to_owned(), false)]
        );
    }

    #[test]
    fn finished_words_wait_for_the_least_silence() {
        let mut e = endpointer(250);
        say(&mut e, 1500);
        pause(&mut e, 300);
        assert!(text(&mut e, 0, "Can you show me it?").is_empty());
        // The speaker goes on before 500 ms of silence: nothing was taken.
        assert_eq!(say(&mut e, 500), [EndpointOutput::Cancel { job: 0 }]);
        pause(&mut e, 300);
        assert!(text(&mut e, 1, "Can you show me a derivative?").is_empty());
        let out = pause(&mut e, 200);
        assert_eq!(
            turns(&out),
            [("Can you show me a derivative?".to_owned(), true)]
        );
    }

    #[test]
    fn a_hesitation_longer_than_the_closing_silence_does_not_end_the_turn() {
        let mut e = endpointer(250);
        say(&mut e, 1200);
        pause(&mut e, 300);
        assert!(text(&mut e, 0, "Could you give me an example of").is_empty());
        assert!(pause(&mut e, 600).is_empty(), "900 ms of hesitation");
        assert_eq!(say(&mut e, 600), [EndpointOutput::Cancel { job: 0 }]);
        let out = pause(&mut e, 1300);
        assert_eq!(jobs(&out), [1]);
        let out = text(&mut e, 1, "Could you give me an example of a limit?");
        assert_eq!(
            turns(&out),
            [("Could you give me an example of a limit?".to_owned(), false)]
        );
    }

    #[test]
    fn an_unfinished_clause_followed_by_silence_is_sent_without_a_second_recognition() {
        let mut e = endpointer(250);
        say(&mut e, 1200);
        pause(&mut e, 300);
        assert!(text(&mut e, 0, "So I was wondering about the").is_empty());
        // Held: a silence past `end_ms` is still a hesitation...
        assert!(pause(&mut e, 600).is_empty());
        // ...until `hold_ms`.
        let out = pause(&mut e, 400);
        assert!(jobs(&out).is_empty());
        assert_eq!(
            turns(&out),
            [("So I was wondering about the".to_owned(), false)]
        );
    }

    #[test]
    fn a_dropped_job_is_not_waited_for() {
        // A pause's job dropped: the utterance is recognized whole when it closes.
        let mut e = endpointer(250);
        say(&mut e, 1200);
        assert_eq!(jobs(&pause(&mut e, 300)), [0]);
        assert!(e.handle(EndpointInput::Dropped { job: 0 }).is_empty());
        let out = pause(&mut e, 1000);
        assert_eq!(jobs(&out), [1]);
        assert_eq!(e.awaiting(), 1);
        // That one dropped too: its words are lost, and nothing is waited for.
        assert!(e.handle(EndpointInput::Dropped { job: 1 }).is_empty());
        assert_eq!(e.awaiting(), 0);
        assert!(text(&mut e, 1, "Too late.").is_empty());
    }

    #[test]
    fn a_late_speculative_text_after_the_closing_silence_is_the_turn() {
        let mut e = endpointer(250);
        say(&mut e, 1200);
        pause(&mut e, 1300);
        assert_eq!(e.awaiting(), 1);
        let out = text(&mut e, 0, "And then the slope");
        assert_eq!(turns(&out), [("And then the slope".to_owned(), false)]);
        assert_eq!(e.awaiting(), 0);
    }

    #[test]
    fn a_cancelled_job_is_ignored() {
        let mut e = endpointer(250);
        say(&mut e, 1200);
        pause(&mut e, 300);
        say(&mut e, 500);
        assert!(text(&mut e, 0, "What is it?").is_empty());
        assert!(text(&mut e, 7, "What is it?").is_empty(), "unknown job");
    }

    #[test]
    fn a_backchannel_resumes_at_the_pause() {
        let mut e = endpointer(250);
        say(&mut e, 400);
        pause(&mut e, 300);
        let out = text(&mut e, 0, "Mm-hmm.");
        assert!(matches!(out[..], [EndpointOutput::Backchannel { .. }]));
    }

    #[test]
    fn without_a_pause_only_the_closing_silence_ends_a_turn() {
        let mut e = endpointer(0);
        say(&mut e, 1200);
        assert!(pause(&mut e, 300).is_empty());
        let out = pause(&mut e, 500);
        assert_eq!(jobs(&out), [0]);
        let out = text(&mut e, 0, "Why is that so?");
        assert_eq!(turns(&out), [("Why is that so?".to_owned(), false)]);
    }

    /// What the fake recognizer hears: a finished question for long audio, an unfinished
    /// clause for shorter audio.
    fn words_of(audio: &Pcm) -> &'static str {
        if audio.samples.len() > RATE as usize * 2 {
            "Why is the derivative of a constant zero?"
        } else {
            "Why is the derivative of"
        }
    }

    proptest! {
        /// Each utterance makes exactly one turn or backchannel, whatever the pauses and
        /// however late the recognizer answers; no audio is recognized twice unless the
        /// speaker went on.
        #[test]
        fn every_utterance_is_heard_once(
            steps in prop::collection::vec((0u32..1500, any::<bool>(), 0usize..3), 1..30),
            pause_ms in prop::sample::select(vec![0u32, 200, 250, 400]),
        ) {
            let mut e = endpointer(pause_ms);
            let mut queued: Vec<(JobId, &'static str)> = Vec::new();
            let mut started = 0usize;
            let mut heard = 0usize;
            let mut cancelled = Vec::new();
            let mut count = |out: Vec<EndpointOutput>, queued: &mut Vec<(JobId, &'static str)>| {
                for o in out {
                    match o {
                        EndpointOutput::SpeechStarted { .. } => started += 1,
                        EndpointOutput::Recognize { job, audio } => queued.push((job, words_of(&audio))),
                        EndpointOutput::Cancel { job } => cancelled.push(job),
                        EndpointOutput::Turn { .. } | EndpointOutput::Backchannel { .. } => heard += 1,
                    }
                }
            };
            for (ms, voiced, answer) in steps {
                let out = e.handle(EndpointInput::Audio(&tone(ms, if voiced { 0.5 } else { 0.0 })));
                count(out, &mut queued);
                for _ in 0..answer.min(queued.len()) {
                    let (job, words) = queued.remove(0);
                    let out = e.handle(EndpointInput::Recognized { job, text: words.to_owned() });
                    count(out, &mut queued);
                }
            }
            let out = e.handle(EndpointInput::Finish);
            count(out, &mut queued);
            while !queued.is_empty() {
                let (job, words) = queued.remove(0);
                let out = e.handle(EndpointInput::Recognized { job, text: words.to_owned() });
                count(out, &mut queued);
            }
            prop_assert_eq!(heard, started);
            prop_assert_eq!(e.awaiting(), 0);
        }
    }
}

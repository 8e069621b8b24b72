//! The synthesis worker: one thread, jobs in arrival order, each sentence voiced piece by
//! piece at the player's rate; jobs older than the newest interrupt are skipped. While no
//! job waits it voices short phrases ahead (openers), and stops that call the moment a
//! job comes.

use std::sync::{
    Arc, Mutex,
    atomic::{AtomicU64, Ordering},
};

use audio_utils::resample;
use crossbeam_channel::{Receiver, Sender, TryRecvError};
use player_core::{PlayerInput, prepared::Prepared, voice_text};

use crate::backend::TtsBackend;

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
    /// A phrase voiced ahead (an opener): while idle, or first when an answer is coming.
    Ahead,
}

/// Jobs waiting for the synthesis worker. The player's queue caps how many it asks for
/// ([`player_core::MAX_QUEUED_UTTERANCES`] utterances of at most
/// [`player_core::MAX_SEGMENTS_PER_UTTERANCE`] segments, and
/// [`player_core::clips::MAX_HELD_CLIPS`] clips); jobs gone stale are skipped without
/// synthesizing, so past this bound (an interrupt storm while one long call runs) the
/// sender waits for the worker instead of the queue growing.
pub const MAX_PENDING_JOBS: usize = 4_096;

/// The call the worker is making, as far as stopping it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Call {
    /// Nothing, or a clip (cut only by its commands).
    Other,
    Turn(u64),
    /// A phrase voiced ahead while idle: any job stops it.
    Ahead,
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
    /// id, if a turn's), just handed to the worker, stops this call. The answer is a turn
    /// newer than every turn handed over before its openers were (`answer_after`): the
    /// speaker's turn written before the human spoke goes stale with the human's words.
    /// An answer whose text is the very phrase being voiced lets it finish: it is kept,
    /// and the answer finds it ready.
    fn stopped_by(&self, speaker: &str, turn: Option<u64>, answer_after: u64, text: &str) -> bool {
        match self {
            Call::Ahead => true,
            Call::AheadOfAnswer {
                speaker: answering,
                text: voicing,
            } => {
                answering == speaker && turn.is_some_and(|id| id > answer_after) && voicing != text
            }
            Call::Other | Call::Turn(_) => false,
        }
    }
}

/// The call under way, changed and read under one lock with the voice's cancel, so that
/// a cancel meant for one call never stops the next: the worker re-arms the voice in the
/// same lock as it names the new call.
type Running = Arc<Mutex<Call>>;

/// The event loop's side of the worker: jobs in, and the call under way stopped where the
/// voice allows it (Kokoro) when it is no longer worth finishing: a turn older than a
/// new interrupt's floor, finished for nobody while the next answer waits for the core,
/// or a phrase voiced ahead when a job comes.
pub struct Voicing {
    jobs: Sender<Job>,
    /// The newest interrupt's question id, shared with the worker: older jobs are
    /// skipped there without asking the core.
    floor: Arc<AtomicU64>,
    running: Running,
    cancel: Option<Box<dyn Fn() + Send + Sync>>,
    /// An answer's openers, taken by the worker before the jobs waiting.
    answer_openers: Sender<Job>,
    /// The newest turn handed over, and which it was when an answer's openers were.
    newest_turn: Arc<AtomicU64>,
    answer_after: Arc<AtomicU64>,
}

impl Voicing {
    /// Hands `job` to the worker: an answer's opener to its own queue, taken first; any
    /// other job to the queue of jobs waiting, stopping the phrase voiced ahead meanwhile
    /// where [`Call::stopped_by`] says so.
    pub fn voice(&self, job: Job) {
        let turn = match job.part_of {
            PartOf::Turn { question_id } => Some(question_id),
            PartOf::Clip { .. } | PartOf::Ahead => None,
        };
        if let Some(id) = turn {
            self.newest_turn.fetch_max(id, Ordering::SeqCst);
        }
        if job.part_of == PartOf::Ahead {
            self.answer_after
                .store(self.newest_turn.load(Ordering::SeqCst), Ordering::SeqCst);
            // Ahead of the jobs waiting: the answer to the human comes first.
            let _ = self.answer_openers.send(job);
            return;
        }
        let (speaker, text) = (job.speaker.clone(), job.text.clone());
        let _ = self.jobs.send(job);
        let answer_after = self.answer_after.load(Ordering::SeqCst);
        self.stop_if(|call| call.stopped_by(&speaker, turn, answer_after, &text));
    }

    /// An interrupt came: turns older than `question_id` are no longer voiced, and the
    /// call voicing one is stopped.
    pub fn interrupt(&self, question_id: u64) {
        let floor = self
            .floor
            .fetch_max(question_id, Ordering::SeqCst)
            .max(question_id);
        self.stop_if(|call| matches!(call, Call::Turn(id) if *id < floor));
    }

    fn stop_if(&self, stale: impl Fn(&Call) -> bool) {
        if let Some(cancel) = &self.cancel {
            let running = self.running.lock().unwrap_or_else(|e| e.into_inner());
            if stale(&running) {
                cancel();
            }
        }
    }
}

/// Names the call the worker makes next and clears an earlier cancel, in one lock.
fn begin(running: &Running, backend: &mut dyn TtsBackend, call: Call) {
    let mut running = running.lock().unwrap_or_else(|e| e.into_inner());
    backend.rearm();
    *running = call;
}

/// One synthesis worker, in arrival order; jobs older than the newest interrupt are
/// skipped without synthesizing, abandoned between pieces of a long one, and stopped
/// within a piece by [`Voicing::interrupt`] where the voice allows it.
pub fn spawn_synthesizer(
    mut backend: Box<dyn TtsBackend>,
    rate: u32,
) -> (Voicing, Receiver<PlayerInput>) {
    let floor = Arc::new(AtomicU64::new(0));
    let (job_tx, job_rx) = crossbeam_channel::bounded::<Job>(MAX_PENDING_JOBS);
    let (openers_tx, openers_rx) = crossbeam_channel::bounded::<Job>(MAX_PENDING_JOBS);
    // One result per job at most, drained by the event loop at every turn; bounding it
    // too could leave both sides waiting on each other.
    let (result_tx, result_rx) = crossbeam_channel::unbounded();
    let running: Running = Arc::new(Mutex::new(Call::Other));
    let voicing = Voicing {
        jobs: job_tx,
        answer_openers: openers_tx,
        floor: floor.clone(),
        running: running.clone(),
        cancel: backend.canceller(),
        newest_turn: Arc::new(AtomicU64::new(0)),
        answer_after: Arc::new(AtomicU64::new(0)),
    };
    let (newest_turn, answer_after) = (voicing.newest_turn.clone(), voicing.answer_after.clone());
    let mut prepared = Prepared::new(
        backend.speakers_to_prepare(),
        voice_protocol::openers::PHRASES,
    );
    std::thread::spawn(move || {
        loop {
            // An answer's openers before the jobs waiting (those mostly go stale with the
            // human's words); the call under way finishes first.
            let job = match openers_rx.try_recv().or_else(|_| job_rx.try_recv()) {
                Ok(job) => job,
                Err(TryRecvError::Disconnected) => break,
                Err(TryRecvError::Empty) => {
                    // Idle: voice one phrase ahead (a short call), then look again.
                    if let Some((speaker, text)) = prepared.next_to_voice() {
                        voice_ahead(
                            backend.as_mut(),
                            &running,
                            &job_rx,
                            &mut prepared,
                            rate,
                            speaker,
                            text,
                        );
                        continue;
                    }
                    crossbeam_channel::select! {
                        recv(openers_rx) -> job => match job {
                            Ok(job) => job,
                            Err(_) => break,
                        },
                        recv(job_rx) -> job => match job {
                            Ok(job) => job,
                            Err(_) => break,
                        },
                    }
                }
            };
            if let (Some(samples), PartOf::Turn { question_id }) =
                (prepared.get(&job.speaker, &job.text), &job.part_of)
            {
                if *question_id >= floor.load(Ordering::SeqCst) {
                    let audio = PlayerInput::Audio {
                        question_id: *question_id,
                        index: job.index,
                        samples: samples.clone(),
                    };
                    if result_tx.send(audio).is_err() {
                        break;
                    }
                }
                continue;
            }
            // An answer's opener is voiced unless it is kept already, or a turn newer than
            // the openers was handed over since (the answer, or what follows it): then the
            // openers still queued would only delay the answer's text.
            if job.part_of == PartOf::Ahead
                && (!prepared.wants(&job.speaker, &job.text)
                    || newest_turn.load(Ordering::SeqCst) > answer_after.load(Ordering::SeqCst))
            {
                continue;
            }
            // In this order, a cancel cannot be lost: cleared first, then the job made
            // visible to the event loop, then its staleness read. An interrupt after the
            // read finds the job running and stops the call.
            let turn = match job.part_of {
                PartOf::Turn { question_id } => Some(question_id),
                PartOf::Clip { .. } | PartOf::Ahead => None,
            };
            let call = match job.part_of {
                PartOf::Turn { question_id } => Call::Turn(question_id),
                PartOf::Ahead => Call::AheadOfAnswer {
                    speaker: job.speaker.clone(),
                    text: job.text.clone(),
                },
                PartOf::Clip { .. } => Call::Other,
            };
            begin(&running, backend.as_mut(), call);
            let stale = || turn.is_some_and(|id| id < floor.load(Ordering::SeqCst));
            let started = std::time::Instant::now();
            let voiced = voice(backend.as_mut(), &job, rate, stale);
            begin(&running, backend.as_mut(), Call::Other);
            if let Some(Ok(samples)) = &voiced {
                tracing::debug!(
                    speaker = %job.speaker,
                    question_id = turn,
                    index = job.index,
                    chars = job.text.chars().count(),
                    audio_ms = samples.len() as u64 * 1000 / u64::from(rate.max(1)),
                    voice_ms = started.elapsed().as_millis() as u64,
                    "voiced"
                );
            }
            let Some(voiced) = voiced else {
                continue;
            };
            let result = match (voiced, job.part_of) {
                (Ok(samples), PartOf::Clip { clip_id }) => PlayerInput::ClipAudio {
                    clip_id,
                    index: job.index,
                    samples,
                },
                (Err(e), PartOf::Clip { clip_id }) => PlayerInput::ClipSynthesisFailed {
                    clip_id,
                    index: job.index,
                    error: format!("{e:#}"),
                },
                (Ok(samples), PartOf::Turn { question_id }) => {
                    prepared.said(&job.speaker, &job.text, &samples);
                    PlayerInput::Audio {
                        question_id,
                        index: job.index,
                        samples,
                    }
                }
                (Err(e), PartOf::Turn { question_id }) => PlayerInput::SynthesisFailed {
                    question_id,
                    index: job.index,
                    error: format!("{e:#}"),
                },
                (Ok(samples), PartOf::Ahead) => {
                    prepared.said(&job.speaker, &job.text, &samples);
                    continue;
                }
                (Err(e), PartOf::Ahead) => {
                    tracing::debug!(
                        speaker = %job.speaker,
                        text = %job.text,
                        error = %format!("{e:#}"),
                        "a phrase could not be voiced ahead; it will be voiced when said"
                    );
                    continue;
                }
            };
            if result_tx.send(result).is_err() {
                break;
            }
        }
    });
    (voicing, result_rx)
}

/// Voices `text` in `speaker`'s voice ahead, for [`Prepared`]; a job that comes meanwhile
/// stops the call (or it is not begun), and the phrase waits for the next idle moment.
fn voice_ahead(
    backend: &mut dyn TtsBackend,
    running: &Running,
    jobs: &Receiver<Job>,
    prepared: &mut Prepared,
    rate: u32,
    speaker: String,
    text: String,
) {
    // Named first, then the queue read: a job sent after the read stops the call.
    begin(running, backend, Call::Ahead);
    let phrase = Job {
        speaker,
        index: 0,
        text,
        part_of: PartOf::Ahead,
    };
    let voiced = voice(backend, &phrase, rate, || !jobs.is_empty());
    begin(running, backend, Call::Other);
    match voiced {
        Some(Ok(samples)) => prepared.said(&phrase.speaker, &phrase.text, &samples),
        Some(Err(_)) | None if !jobs.is_empty() => prepared.put_back(phrase.speaker, phrase.text),
        Some(Err(e)) => tracing::debug!(
            speaker = %phrase.speaker,
            text = %phrase.text,
            error = %format!("{e:#}"),
            "a phrase could not be voiced ahead; it will be voiced when said"
        ),
        None => {}
    }
}

/// A job's audio at the player's rate: its text sanitised, capped and synthesized piece
/// by piece (see [`voice_text`]); `None` when it went stale on the way.
fn voice(
    backend: &mut dyn TtsBackend,
    job: &Job,
    rate: u32,
    stale: impl Fn() -> bool,
) -> Option<eyre::Result<Vec<f32>>> {
    if stale() {
        return None;
    }
    let plan = voice_text::plan(&job.text);
    if plan.dropped_chars > 0 {
        tracing::warn!(
            part_of = ?job.part_of,
            index = job.index,
            dropped_chars = plan.dropped_chars,
            max_chars = voice_text::MAX_SEGMENT_CHARS,
            "segment too long: its end is not voiced"
        );
    }
    let pieces = plan.pieces.len();
    let mut samples = Vec::new();
    for (n, piece) in plan.pieces.iter().enumerate() {
        if n > 0 && stale() {
            return None;
        }
        let pcm = match backend.synthesize(&job.speaker, piece) {
            Ok(pcm) => pcm,
            // Stopped because an interrupt made it stale: nothing to report.
            Err(_) if stale() => return None,
            Err(e) if pieces > 1 => {
                return Some(Err(e.wrap_err(format!("piece {} of {pieces}", n + 1))));
            }
            Err(e) => return Some(Err(e)),
        };
        if !voice_text::VOICE_SAMPLE_RATES.contains(&pcm.sample_rate) {
            return Some(Err(eyre::eyre!(
                "the voice sent audio at {} Hz (accepted: {}..={} Hz)",
                pcm.sample_rate,
                voice_text::VOICE_SAMPLE_RATES.start(),
                voice_text::VOICE_SAMPLE_RATES.end()
            )));
        }
        samples.extend(resample(&pcm.samples, pcm.sample_rate, rate));
    }
    Some(Ok(samples))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use audio_utils::Pcm;
    use player_core::voice_text::holds_markup;

    use super::*;

    /// A voice that keeps every text it is handed: what espeak-ng would read on stdin
    /// (it writes the text it gets there byte for byte) and what a service gets as
    /// `input`.
    #[derive(Default)]
    struct Capture(Vec<String>);

    impl TtsBackend for Capture {
        fn name(&self) -> &'static str {
            "capture"
        }

        fn synthesize(&mut self, _speaker: &str, text: &str) -> eyre::Result<Pcm> {
            self.0.push(text.to_owned());
            Ok(Pcm {
                sample_rate: 16_000,
                samples: vec![0.1; 160],
            })
        }
    }

    fn job(text: &str) -> Job {
        Job {
            speaker: "tutor".into(),
            index: 0,
            text: text.into(),
            part_of: PartOf::Turn { question_id: 1 },
        }
    }

    /// A voice that counts its calls and prepares phrases for `tutor`.
    struct Counting(Arc<std::sync::Mutex<Vec<String>>>);

    impl TtsBackend for Counting {
        fn name(&self) -> &'static str {
            "counting"
        }

        fn synthesize(&mut self, _speaker: &str, text: &str) -> eyre::Result<Pcm> {
            self.0.lock().unwrap().push(text.to_owned());
            Ok(Pcm {
                sample_rate: 16_000,
                samples: vec![0.1; 16 * text.len()],
            })
        }

        fn speakers_to_prepare(&self) -> Vec<String> {
            vec!["tutor".into()]
        }
    }

    /// Waits (at most ten seconds) until `calls` holds `n` texts.
    fn wait_for_calls(calls: &std::sync::Mutex<Vec<String>>, n: usize) {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while calls.lock().unwrap().len() < n {
            assert!(
                std::time::Instant::now() < deadline,
                "{:?}",
                calls.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Hands `text` to the worker as a turn's segment and returns its audio.
    fn say(voicing: &Voicing, results: &Receiver<PlayerInput>, index: u32, text: &str) -> Vec<f32> {
        voicing.voice(Job { index, ..job(text) });
        match results.recv_timeout(Duration::from_secs(10)) {
            Ok(PlayerInput::Audio { samples, .. }) => samples,
            other => panic!("no audio for {text:?}: {other:?}"),
        }
    }

    #[test]
    fn openers_are_voiced_while_idle_and_then_sound_without_a_call() {
        let calls = Arc::new(std::sync::Mutex::new(Vec::new()));
        let backend = Box::new(Counting(calls.clone()));
        let (voicing, results) = spawn_synthesizer(backend, 16_000);
        let phrases = voice_protocol::openers::PHRASES;
        // From the start, in the order of the list (the most used first).
        wait_for_calls(&calls, phrases.len());
        assert_eq!(calls.lock().unwrap()[..], phrases[..]);
        for (index, text) in phrases.iter().enumerate() {
            assert_eq!(
                say(&voicing, &results, index as u32, text).len(),
                16 * text.len()
            );
        }
        assert_eq!(
            say(&voicing, &results, 9, "The slope is two.").len(),
            16 * 17
        );
        // Only the sentence needed its own call.
        assert_eq!(calls.lock().unwrap().len(), phrases.len() + 1);
    }

    /// A voice whose first call for `held` runs until it is cancelled (at most a minute).
    struct Stoppable {
        calls: Arc<std::sync::Mutex<Vec<String>>>,
        cancelled: Arc<std::sync::atomic::AtomicBool>,
        held: &'static str,
    }

    impl TtsBackend for Stoppable {
        fn name(&self) -> &'static str {
            "stoppable"
        }

        fn synthesize(&mut self, _speaker: &str, text: &str) -> eyre::Result<Pcm> {
            let first = {
                let mut calls = self.calls.lock().unwrap();
                calls.push(text.to_owned());
                calls.iter().filter(|c| *c == text).count() == 1
            };
            if text == self.held && first {
                let deadline = std::time::Instant::now() + Duration::from_secs(60);
                while !self.cancelled.load(Ordering::SeqCst) {
                    assert!(std::time::Instant::now() < deadline, "never stopped");
                    std::thread::sleep(Duration::from_millis(1));
                }
                eyre::bail!("stopped");
            }
            Ok(Pcm {
                sample_rate: 16_000,
                samples: vec![0.1; 16 * text.len()],
            })
        }

        fn canceller(&self) -> Option<Box<dyn Fn() + Send + Sync>> {
            let cancelled = self.cancelled.clone();
            Some(Box::new(move || cancelled.store(true, Ordering::SeqCst)))
        }

        fn rearm(&mut self) {
            self.cancelled.store(false, Ordering::SeqCst);
        }

        fn speakers_to_prepare(&self) -> Vec<String> {
            vec!["tutor".into()]
        }
    }

    #[test]
    fn an_answer_s_opener_voiced_first_is_stopped_by_its_own_turn_only() {
        let text = "The slope is two.";
        // While idle: any job stops it (real work first).
        assert!(Call::Ahead.stopped_by("student1", Some(3), 0, text));
        assert!(Call::Ahead.stopped_by("student1", None, 0, text));
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
    fn a_turns_text_stops_a_phrase_voiced_ahead_which_comes_again_later() {
        let phrases = voice_protocol::openers::PHRASES;
        let calls = Arc::new(std::sync::Mutex::new(Vec::new()));
        let backend = Box::new(Stoppable {
            calls: calls.clone(),
            cancelled: Default::default(),
            held: phrases[1],
        });
        let (voicing, results) = spawn_synthesizer(backend, 16_000);
        // The worker is in the call that would run for a minute.
        wait_for_calls(&calls, 2);
        assert_eq!(calls.lock().unwrap()[1], phrases[1]);
        // The turn's sentence is voiced at once, not after the phrase.
        assert_eq!(
            say(&voicing, &results, 0, "The slope is two.").len(),
            16 * 17
        );
        // The phrase was put back and voiced once the worker was idle again.
        wait_for_calls(&calls, phrases.len() + 2);
        let text = calls.lock().unwrap().clone();
        assert_eq!(text[2], "The slope is two.");
        assert_eq!(text[3], phrases[1]);
        assert_eq!(
            say(&voicing, &results, 1, phrases[1]).len(),
            16 * phrases[1].len()
        );
        assert_eq!(calls.lock().unwrap().len(), phrases.len() + 2);
    }

    const HOSTILE: &[&str] = &[
        "<speak><prosody rate=\"x-slow\">slow</prosody><break time=\"30s\"/>done</speak>",
        "say [[h@l'oU]] then [[[ w'3:ld ]]] now",
        "\u{1}80S loud \u{1b}[31m red \u{85} next\u{7}",
        "<phoneme alphabet=\"ipa\" ph=\"x\">word</phoneme> <audio src=\"http://127.0.0.1/\"/>",
        "<!-- note --> <?xml version=\"1.0\"?> <speak",
    ];

    #[test]
    fn the_text_a_voice_gets_is_neutralised() {
        let mut voice_backend = Capture::default();
        for text in HOSTILE {
            let audio = voice(&mut voice_backend, &job(text), 16_000, || false);
            assert!(matches!(audio, Some(Ok(_))));
        }
        assert_eq!(voice_backend.0.len(), HOSTILE.len());
        for text in &voice_backend.0 {
            assert!(!holds_markup(text), "{text:?}");
            assert!(!text.contains("[[") && !text.contains("]]"), "{text:?}");
            assert!(
                !text.contains("<speak") && !text.contains("<break"),
                "{text:?}"
            );
        }
        assert_eq!(voice_backend.0[0], "slow  done");
        // Prose keeps its comparisons, and a leading dash is just text.
        let mut voice_backend = Capture::default();
        voice(
            &mut voice_backend,
            &job("-v de --help: x < y"),
            16_000,
            || false,
        );
        assert_eq!(voice_backend.0, ["-v de --help: x < y"]);
    }

    /// espeak-ng as the player runs it by default (`TTS_BACKEND` unset: espeak).
    fn espeak() -> Box<dyn TtsBackend> {
        assert!(std::env::var_os("TTS_BACKEND").is_none());
        let voice = crate::settings::VoiceSettings::from_env().unwrap();
        let backend = crate::backend::open(&voice, 16_000).unwrap();
        assert_eq!(backend.name(), "espeak");
        backend
    }

    /// espeak-ng reads text on stdin, never as arguments: a text that begins with `-`
    /// (`-v de`, `--help`, `-w /tmp/x.wav`) is spoken like any other.
    #[test]
    fn espeak_speaks_a_leading_dash_instead_of_reading_an_option() {
        let mut backend = espeak();
        let target = std::env::temp_dir().join(format!("espeak-dash-{}.wav", std::process::id()));
        let text = format!("-w {} --help -v de", target.display());
        let audio = voice(backend.as_mut(), &job(&text), 16_000, || false)
            .expect("not stale")
            .expect("espeak-ng voices it");
        // About two seconds of speech, not silence and not a usage text.
        assert!(audio.len() > 16_000, "{} samples", audio.len());
        assert!(audio_utils::rms(&audio) > 0.01);
        assert!(!target.exists(), "an option was read from the text");
        // The same words without the dash take about as long: they were voiced.
        let plain = voice(backend.as_mut(), &job(&text[1..]), 16_000, || false)
            .unwrap()
            .unwrap();
        assert!(
            audio.len() * 10 > plain.len() * 8,
            "{} vs {}",
            audio.len(),
            plain.len()
        );
    }

    /// Phoneme escapes reach espeak-ng as ordinary brackets: the words are read as words.
    #[test]
    fn espeak_reads_neutralised_phoneme_escapes_and_markup_as_text() {
        let mut backend = espeak();
        for text in HOSTILE {
            let audio = voice(backend.as_mut(), &job(text), 16_000, || false)
                .unwrap()
                .unwrap_or_else(|e| panic!("{text:?}: {e:#}"));
            assert!(!audio.is_empty(), "{text:?}");
            assert!(audio.iter().all(|s| s.is_finite()));
        }
        // A 30 s break would have been 480,000 samples at 16 kHz: it was not obeyed.
        let audio = voice(backend.as_mut(), &job(HOSTILE[0]), 16_000, || false)
            .unwrap()
            .unwrap();
        assert!(audio.len() < 16_000 * 5, "{} samples", audio.len());
    }
}

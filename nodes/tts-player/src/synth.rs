//! The synthesis worker: one thread, jobs in arrival order, each sentence voiced piece by
//! piece at the player's rate; jobs older than the newest interrupt are skipped.

use std::sync::{
    Arc,
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
    /// A phrase voiced ahead, while idle (an opener).
    Ahead,
}

/// Jobs waiting for the synthesis worker. The player's queue caps how many it asks for
/// ([`player_core::MAX_QUEUED_UTTERANCES`] utterances of at most
/// [`player_core::MAX_SEGMENTS_PER_UTTERANCE`] segments, and
/// [`player_core::clips::MAX_HELD_CLIPS`] clips); jobs gone stale are skipped without
/// synthesizing, so past this bound (an interrupt storm while one long call runs) the
/// sender waits for the worker instead of the queue growing.
pub const MAX_PENDING_JOBS: usize = 4_096;

/// No turn's text is being voiced (a clip, or nothing).
const NOT_RUNNING: u64 = u64::MAX;

/// The event loop's side of the worker: after an interrupt raised the floor, the call
/// voicing an older turn is stopped where the voice allows it (Kokoro), rather than
/// finished for nobody while the next answer waits for the core.
pub struct Cancellation {
    running: Arc<AtomicU64>,
    cancel: Option<Box<dyn Fn() + Send + Sync>>,
}

impl Cancellation {
    /// The floor (the newest interrupt's question id) was raised to `floor`.
    pub fn floor_raised(&self, floor: u64) {
        if let Some(cancel) = &self.cancel
            && self.running.load(Ordering::SeqCst) < floor
        {
            cancel();
        }
    }
}

/// One synthesis worker, in arrival order; jobs older than the newest interrupt are
/// skipped without synthesizing, abandoned between pieces of a long one, and stopped
/// within a piece by [`Cancellation`] where the voice allows it.
pub fn spawn_synthesizer(
    mut backend: Box<dyn TtsBackend>,
    rate: u32,
    floor: Arc<AtomicU64>,
) -> (Sender<Job>, Receiver<PlayerInput>, Cancellation) {
    let (job_tx, job_rx) = crossbeam_channel::bounded::<Job>(MAX_PENDING_JOBS);
    // One result per job at most, drained by the event loop at every turn; bounding it
    // too could leave both sides waiting on each other.
    let (result_tx, result_rx) = crossbeam_channel::unbounded();
    let running = Arc::new(AtomicU64::new(NOT_RUNNING));
    let cancellation = Cancellation {
        running: running.clone(),
        cancel: backend.canceller(),
    };
    let mut prepared = Prepared::new(
        backend.speakers_to_prepare(),
        voice_protocol::openers::PHRASES,
    );
    std::thread::spawn(move || {
        loop {
            let job = match job_rx.try_recv() {
                Ok(job) => job,
                Err(TryRecvError::Disconnected) => break,
                Err(TryRecvError::Empty) => {
                    // Idle: voice one phrase ahead (a short call), then look again.
                    if let Some((speaker, text)) = prepared.next_to_voice() {
                        backend.rearm();
                        let phrase = Job {
                            speaker,
                            index: 0,
                            text,
                            part_of: PartOf::Ahead,
                        };
                        match voice(backend.as_mut(), &phrase, rate, || false) {
                            Some(Ok(samples)) => {
                                prepared.said(&phrase.speaker, &phrase.text, &samples);
                            }
                            Some(Err(e)) => tracing::debug!(
                                speaker = %phrase.speaker,
                                text = %phrase.text,
                                error = %format!("{e:#}"),
                                "a phrase could not be voiced ahead; it will be voiced when said"
                            ),
                            None => {}
                        }
                        continue;
                    }
                    match job_rx.recv() {
                        Ok(job) => job,
                        Err(_) => break,
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
            // In this order, a cancel cannot be lost: cleared first, then the job made
            // visible to the event loop, then its staleness read. An interrupt after the
            // read finds the job running and stops the call.
            backend.rearm();
            let turn = match job.part_of {
                PartOf::Turn { question_id } => Some(question_id),
                PartOf::Clip { .. } | PartOf::Ahead => None,
            };
            running.store(turn.unwrap_or(NOT_RUNNING), Ordering::SeqCst);
            let stale = || turn.is_some_and(|id| id < floor.load(Ordering::SeqCst));
            let started = std::time::Instant::now();
            let voiced = voice(backend.as_mut(), &job, rate, stale);
            running.store(NOT_RUNNING, Ordering::SeqCst);
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
                // Only the worker voices ahead, above, and keeps what it voiced there.
                (_, PartOf::Ahead) => continue,
            };
            if result_tx.send(result).is_err() {
                break;
            }
        }
    });
    (job_tx, result_rx, cancellation)
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

    #[test]
    fn a_speakers_openers_are_voiced_while_idle_once_it_said_one() {
        let calls = Arc::new(std::sync::Mutex::new(Vec::new()));
        let backend = Box::new(Counting(calls.clone()));
        let (jobs, results, _) = spawn_synthesizer(backend, 16_000, Arc::new(AtomicU64::new(0)));
        let phrases = voice_protocol::openers::PHRASES;
        let say = |index: u32, text: &str| {
            jobs.send(Job { index, ..job(text) }).unwrap();
            let Ok(PlayerInput::Audio { samples, .. }) =
                results.recv_timeout(Duration::from_secs(10))
            else {
                panic!("no audio for {text:?}")
            };
            assert_eq!(samples.len(), 16 * text.len());
        };
        say(0, "The slope is two.");
        say(1, phrases[1]);
        // Nothing was voiced ahead before the speaker said an opener: the worker voices
        // one thing at a time, so a phrase voiced ahead would stand between the two.
        assert_eq!(
            calls.lock().unwrap()[..2],
            ["The slope is two.".to_owned(), phrases[1].to_owned()]
        );
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while calls.lock().unwrap().len() < phrases.len() + 1 {
            assert!(std::time::Instant::now() < deadline, "not voiced ahead");
            std::thread::sleep(Duration::from_millis(5));
        }
        // Then every opener sounds from what was prepared: no call more (each `say`
        // waited for its audio, and nothing is left to voice ahead).
        for (index, text) in phrases.iter().enumerate() {
            say(2 + index as u32, text);
        }
        let calls = calls.lock().unwrap();
        assert_eq!(calls.len(), phrases.len() + 1, "{calls:?}");
        let mut voiced = calls[1..].to_vec();
        voiced.sort();
        let mut expected: Vec<String> = phrases.iter().map(|p| p.to_string()).collect();
        expected.sort();
        assert_eq!(voiced, expected);
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
        let backend = crate::backend::from_env(16_000, Duration::from_secs(20)).unwrap();
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

//! The synthesis worker: one thread that makes the voice's calls in the order
//! [`Schedule`] decides (an answer's openers, then the jobs waiting, then phrases voiced
//! ahead while idle), each sentence voiced piece by piece at the player's rate. The event
//! loop hands jobs over and interrupts through [`Voicing`], which stops the call under
//! way where the schedule says so and the voice allows it (Kokoro).

use std::{
    sync::{Arc, Condvar, Mutex, MutexGuard},
    time::Duration,
};

use audio_utils::resample;
use crossbeam_channel::Receiver;
use player_core::{
    PlayerInput,
    prepared::Prepared,
    synthesis::{Next, Schedule},
    voice_text,
};

pub use player_core::synthesis::{Job, PartOf};

use crate::backend::TtsBackend;

/// How long a wait for work, or for room in the queue, lasts before it looks again.
const WAKE: Duration = Duration::from_secs(1);

/// The schedule and whether the event loop is gone, under one lock with the voice's
/// cancel, so that a cancel meant for one call never stops the next: the worker re-arms
/// the voice in the same lock as the schedule names the new call.
struct Shared {
    state: Mutex<State>,
    /// A job or an interrupt came, or the event loop is gone.
    work: Condvar,
    /// The worker took a job from the queue.
    room: Condvar,
}

struct State {
    schedule: Schedule,
    closed: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The event loop's side of the worker: jobs in, and the call under way stopped when
/// the schedule says it is no longer worth finishing.
pub struct Voicing {
    shared: Arc<Shared>,
    cancel: Option<Box<dyn Fn() + Send + Sync>>,
}

impl Voicing {
    /// Hands `job` to the worker (waiting while the queue is at its bound), stopping the
    /// call under way where [`player_core::synthesis::Call::stopped_by`] says so.
    pub fn voice(&self, job: Job) {
        let mut state = self.shared.lock();
        while state.schedule.is_full() {
            state = match self.shared.room.wait_timeout(state, WAKE) {
                Ok((state, _)) => state,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        if state.schedule.hand_over(job) {
            self.stop();
        }
        drop(state);
        self.shared.work.notify_one();
    }

    /// The hold ended without words: the answer's openers not begun are no longer first.
    pub fn answer_not_coming(&self) {
        let mut state = self.shared.lock();
        if state.schedule.answer_not_coming() {
            self.stop();
        }
    }

    /// An interrupt came: turns older than `question_id` are no longer voiced, and the
    /// call voicing one is stopped.
    pub fn interrupt(&self, question_id: u64) {
        let mut state = self.shared.lock();
        if state.schedule.interrupt(question_id) {
            self.stop();
        }
    }

    /// Called with the lock held: the worker cannot begin another call meanwhile, so the
    /// cancel stops the call the schedule named.
    fn stop(&self) {
        if let Some(cancel) = &self.cancel {
            cancel();
        }
    }
}

impl Drop for Voicing {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.work.notify_one();
    }
}

/// Starts the synthesis worker; its results (audio, failures) come on the receiver.
pub fn spawn_synthesizer(
    mut backend: Box<dyn TtsBackend>,
    rate: u32,
) -> (Voicing, Receiver<PlayerInput>) {
    let prepared = Prepared::new(
        backend.speakers_to_prepare(),
        voice_protocol::openers::PHRASES,
    );
    let shared = Arc::new(Shared {
        state: Mutex::new(State {
            schedule: Schedule::new(prepared),
            closed: false,
        }),
        work: Condvar::new(),
        room: Condvar::new(),
    });
    // One result per job at most, drained by the event loop at every turn; bounding it
    // too could leave both sides waiting on each other.
    let (result_tx, result_rx) = crossbeam_channel::unbounded();
    let voicing = Voicing {
        shared: shared.clone(),
        cancel: backend.canceller(),
    };
    std::thread::spawn(move || {
        while let Some(next) = next_call(&shared, backend.as_mut()) {
            let result = match next {
                Next::Kept(audio) => Some(audio),
                Next::Voice(job) => {
                    let started = std::time::Instant::now();
                    let moot = || shared.lock().schedule.call_is_moot();
                    let voiced = voice(backend.as_mut(), &job, rate, moot);
                    log_voiced(&job, voiced.as_ref(), started, rate);
                    let mut state = shared.lock();
                    backend.rearm();
                    state
                        .schedule
                        .finished(job, voiced.map(|v| v.map_err(|e| format!("{e:#}"))))
                }
            };
            if let Some(result) = result
                && result_tx.send(result).is_err()
            {
                break;
            }
        }
    });
    (voicing, result_rx)
}

/// Waits for the schedule's next call and re-arms the voice for it, in one lock; `None`
/// once the event loop is gone.
fn next_call(shared: &Shared, backend: &mut dyn TtsBackend) -> Option<Next> {
    let mut state = shared.lock();
    loop {
        if state.closed {
            return None;
        }
        if let Some(next) = state.schedule.next_call() {
            backend.rearm();
            drop(state);
            shared.room.notify_one();
            return Some(next);
        }
        state = match shared.work.wait_timeout(state, WAKE) {
            Ok((state, _)) => state,
            Err(poisoned) => poisoned.into_inner().0,
        };
    }
}

fn log_voiced(
    job: &Job,
    voiced: Option<&eyre::Result<Vec<f32>>>,
    started: std::time::Instant,
    rate: u32,
) {
    let question_id = match job.part_of {
        PartOf::Turn { question_id } => Some(question_id),
        PartOf::Clip { .. } | PartOf::Ahead => None,
    };
    match voiced {
        Some(Ok(samples)) => tracing::debug!(
            speaker = %job.speaker,
            question_id,
            index = job.index,
            chars = job.text.chars().count(),
            audio_ms = samples.len() as u64 * 1000 / u64::from(rate.max(1)),
            voice_ms = started.elapsed().as_millis() as u64,
            "voiced"
        ),
        Some(Err(e)) if job.part_of == PartOf::Ahead => tracing::debug!(
            speaker = %job.speaker,
            text = %job.text,
            error = %format!("{e:#}"),
            "a phrase could not be voiced ahead; it will be voiced when said"
        ),
        Some(Err(_)) | None => {}
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
    use std::sync::atomic::Ordering;

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

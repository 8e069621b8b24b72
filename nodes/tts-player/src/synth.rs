//! The synthesis worker: one thread, jobs in arrival order, each sentence voiced piece by
//! piece at the player's rate; jobs older than the newest interrupt are skipped.

use std::sync::{
    Arc,
    atomic::{AtomicU64, Ordering},
};

use audio_utils::resample;
use crossbeam_channel::{Receiver, Sender};
use player_core::{PlayerInput, voice_text};

use crate::backend::TtsBackend;

pub struct Job {
    pub speaker: String,
    pub question_id: u64,
    pub index: u32,
    pub text: String,
    /// Clip mode: the clip this sentence belongs to.
    pub clip_id: Option<String>,
}

/// One synthesis worker, in arrival order; jobs older than the newest interrupt are
/// skipped without synthesizing, and abandoned between pieces of a long one.
pub fn spawn_synthesizer(
    mut backend: Box<dyn TtsBackend>,
    rate: u32,
    floor: Arc<AtomicU64>,
) -> (Sender<Job>, Receiver<PlayerInput>) {
    let (job_tx, job_rx) = crossbeam_channel::unbounded::<Job>();
    let (result_tx, result_rx) = crossbeam_channel::unbounded();
    std::thread::spawn(move || {
        for job in job_rx {
            let stale = || job.clip_id.is_none() && job.question_id < floor.load(Ordering::SeqCst);
            let Some(voiced) = voice(backend.as_mut(), &job, rate, stale) else {
                continue;
            };
            let result = match (voiced, job.clip_id) {
                (Ok(samples), Some(clip_id)) => PlayerInput::ClipAudio {
                    clip_id,
                    index: job.index,
                    samples,
                },
                (Err(e), Some(clip_id)) => PlayerInput::ClipSynthesisFailed {
                    clip_id,
                    index: job.index,
                    error: format!("{e:#}"),
                },
                (Ok(samples), None) => PlayerInput::Audio {
                    question_id: job.question_id,
                    index: job.index,
                    samples,
                },
                (Err(e), None) => PlayerInput::SynthesisFailed {
                    question_id: job.question_id,
                    index: job.index,
                    error: format!("{e:#}"),
                },
            };
            if result_tx.send(result).is_err() {
                break;
            }
        }
    });
    (job_tx, result_rx)
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
            question_id = job.question_id,
            index = job.index,
            clip_id = job.clip_id.as_deref(),
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

//! The player's side: playback started, what was played, audio, pause and resume.

use super::{DecodeError, Fields, Message, Meta, missing, named};
use crate::{ids, keys};

/// The player began to voice an utterance (`playback_started`; payload: the speaker).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlaybackStarted {
    /// `None` from a sender that gives none (the question cannot be told).
    pub question_id: Option<u64>,
    pub speaker: String,
}

impl Message for PlaybackStarted {
    const OUTPUT: &'static str = ids::PLAYBACK_STARTED;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        let fields = Fields::new()
            .maybe_int(keys::QUESTION_ID, self.question_id.map(|id| id as i64))
            .with_text(keys::SPEAKER, self.speaker.clone());
        (fields, self.speaker)
    }

    fn decode(meta: &impl Meta, text: String) -> Result<Self, DecodeError> {
        Ok(Self {
            question_id: meta.question_id(),
            speaker: named(meta, &text),
        })
    }
}

/// What was heard of an utterance, once it finished or was cut (`playback_done`; payload:
/// the text heard).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    pub question_id: Option<u64>,
    pub speaker: String,
    pub interrupted: bool,
    /// Characters of the utterance that were heard.
    pub chars_played: Option<u64>,
    pub text: String,
}

impl Message for Played {
    const OUTPUT: &'static str = ids::PLAYBACK_DONE;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        let fields = Fields::new()
            .maybe_int(keys::QUESTION_ID, self.question_id.map(|id| id as i64))
            .with_text(keys::SPEAKER, self.speaker)
            .with_flag(keys::INTERRUPTED, self.interrupted)
            .maybe_int(keys::CHARS_PLAYED, self.chars_played.map(|n| n as i64));
        (fields, self.text)
    }

    fn decode(meta: &impl Meta, text: String) -> Result<Self, DecodeError> {
        Ok(Self {
            question_id: meta.question_id(),
            speaker: meta.text(keys::SPEAKER).unwrap_or("unknown").to_owned(),
            interrupted: meta.flag(keys::INTERRUPTED).unwrap_or(false),
            chars_played: meta
                .int(keys::CHARS_PLAYED)
                .and_then(|n| u64::try_from(n).ok()),
            text,
        })
    }
}

/// The voice was held while an utterance sounded (`playback_held`; payload: the text heard
/// so far): if the human's words now interrupt, this is what was heard of it; if they
/// only nod, it plays on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    pub question_id: u64,
    pub speaker: String,
    pub text: String,
}

impl Message for Held {
    const OUTPUT: &'static str = ids::PLAYBACK_HELD;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        let fields = Fields::new()
            .with_question_id(self.question_id)
            .with_text(keys::SPEAKER, self.speaker);
        (fields, self.text)
    }

    fn decode(meta: &impl Meta, text: String) -> Result<Self, DecodeError> {
        Ok(Self {
            question_id: meta
                .question_id()
                .ok_or_else(|| missing("playback_held", keys::QUESTION_ID))?,
            speaker: meta.text(keys::SPEAKER).unwrap_or("unknown").to_owned(),
            text,
        })
    }
}

/// A block of audio (`audio`): samples and their rate; a player's blocks also say whose
/// utterance they sound.
#[derive(Debug, Clone, PartialEq)]
pub struct Audio {
    pub sample_rate: u32,
    pub samples: Vec<f32>,
    pub question_id: Option<u64>,
    pub speaker: Option<String>,
    /// What the audio speaks (a node-hub TTS node may say).
    pub text: Option<String>,
    /// Samples that were not finite and were read as silence (decode only).
    pub silenced: usize,
}

impl Audio {
    pub fn new(sample_rate: u32, samples: Vec<f32>) -> Self {
        Self {
            sample_rate,
            samples,
            question_id: None,
            speaker: None,
            text: None,
            silenced: 0,
        }
    }
}

impl Message for Audio {
    const OUTPUT: &'static str = ids::AUDIO;
    /// The samples, or why the data holds none (told after a bad rate).
    type Payload = Result<Vec<f32>, String>;

    fn encode(self) -> (Fields, Result<Vec<f32>, String>) {
        let fields = Fields::new()
            .maybe_int(keys::QUESTION_ID, self.question_id.map(|id| id as i64))
            .maybe_text(keys::SPEAKER, self.speaker)
            .maybe_text(keys::TEXT, self.text)
            .with_int(keys::SAMPLE_RATE, i64::from(self.sample_rate));
        (fields, Ok(self.samples))
    }

    /// A rate outside [`crate::SAMPLE_RATES`] is refused; none means
    /// [`crate::DEFAULT_SAMPLE_RATE`]. Non-finite samples are silenced and counted.
    fn decode(meta: &impl Meta, samples: Result<Vec<f32>, String>) -> Result<Self, DecodeError> {
        let sample_rate =
            crate::valid_sample_rate(meta.int(keys::SAMPLE_RATE)).map_err(DecodeError::Invalid)?;
        let mut samples = samples.map_err(DecodeError::Payload)?;
        let silenced = samples
            .iter_mut()
            .filter(|s| !s.is_finite())
            .map(|s| *s = 0.0)
            .count();
        Ok(Self {
            sample_rate,
            samples,
            question_id: meta.question_id(),
            speaker: meta.text(keys::SPEAKER).map(str::to_owned),
            text: meta.text(keys::TEXT).map(str::to_owned),
            silenced,
        })
    }
}

/// A conductor's `pause` (the controller's, the rehearsal moderator's): hold the agents'
/// voice, the human speaks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pause {
    /// When the voice detector's `speech_started` was sent (µs since the Unix epoch).
    pub onset_sent_us: Option<i64>,
}

impl Message for Pause {
    const OUTPUT: &'static str = ids::PAUSE;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        let fields = Fields::new().maybe_int(keys::ONSET_SENT_US, self.onset_sent_us);
        (fields, "hold".to_owned())
    }

    fn decode(meta: &impl Meta, _: String) -> Result<Self, DecodeError> {
        Ok(Self {
            onset_sent_us: meta.int(keys::ONSET_SENT_US).filter(|&at| at > 0),
        })
    }
}

/// A conductor's `resume`: the held voice goes on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Resume;

impl Message for Resume {
    const OUTPUT: &'static str = ids::RESUME;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        (Fields::new(), "resume".to_owned())
    }

    fn decode(_: &impl Meta, _: String) -> Result<Self, DecodeError> {
        Ok(Self)
    }
}

//! The typed messages of the protocol: each has one encode (its metadata [`Fields`] and
//! its payload) and one decode (from any [`Meta`]: node-kit reads dora's parameters
//! through it). A node sends and reads these, never keys by hand: a new key is one edit
//! here.

use crate::{InterruptKind, SessionStatus, ids, keys};

/// A metadata value as it travels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Int(i64),
    Text(String),
    Bool(bool),
}

/// A metadata value as read: borrowed, and anything else a sender may put there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueRef<'a> {
    Int(i64),
    Text(&'a str),
    Bool(bool),
    /// A value of another type (a float, a list, ...): present, but none of ours.
    Other,
}

/// Metadata to read a message from.
pub trait Meta {
    fn value(&self, key: &str) -> Option<ValueRef<'_>>;

    fn text(&self, key: &str) -> Option<&str> {
        match self.value(key)? {
            ValueRef::Text(s) => Some(s),
            _ => None,
        }
    }

    fn int(&self, key: &str) -> Option<i64> {
        match self.value(key)? {
            ValueRef::Int(n) => Some(n),
            _ => None,
        }
    }

    fn flag(&self, key: &str) -> Option<bool> {
        match self.value(key)? {
            ValueRef::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// `question_id` as an unsigned id (an Integer, or a String of digits as hand-written
    /// inputs carry it).
    fn question_id(&self) -> Option<u64> {
        match self.value(keys::QUESTION_ID)? {
            ValueRef::Int(n) => u64::try_from(n).ok(),
            ValueRef::Text(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// `session_status`; an unknown value is `Err` with what it said.
    fn status(&self) -> Result<Option<SessionStatus>, String> {
        match self.value(keys::SESSION_STATUS) {
            None => Ok(None),
            Some(ValueRef::Text(s)) => SessionStatus::parse(s)
                .map(Some)
                .ok_or_else(|| s.to_owned()),
            Some(other) => Err(format!("{other:?}")),
        }
    }

    /// The span of a human's speech, if the metadata holds a whole one.
    fn heard(&self) -> Option<HeardSpan> {
        let ms = |key| self.int(key).and_then(|n| u64::try_from(n).ok());
        Some(HeardSpan {
            audio_input: self.text(keys::AUDIO_INPUT)?.to_owned(),
            start_ms: ms(keys::SPEECH_START_MS)?,
            end_ms: ms(keys::SPEECH_END_MS)?,
        })
    }
}

/// The metadata a message is sent with, in the order it was built.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fields(Vec<(&'static str, Value)>);

impl Fields {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn with_int(mut self, key: &'static str, value: i64) -> Self {
        self.set(key, Value::Int(value));
        self
    }

    pub fn with_text(mut self, key: &'static str, value: impl Into<String>) -> Self {
        self.set(key, Value::Text(value.into()));
        self
    }

    pub fn with_flag(mut self, key: &'static str, value: bool) -> Self {
        self.set(key, Value::Bool(value));
        self
    }

    pub fn with_question_id(self, id: u64) -> Self {
        self.with_int(keys::QUESTION_ID, id as i64)
    }

    /// Sets `key` if there is a value.
    pub fn maybe_text(self, key: &'static str, value: Option<impl Into<String>>) -> Self {
        match value {
            Some(value) => self.with_text(key, value),
            None => self,
        }
    }

    pub fn maybe_int(self, key: &'static str, value: Option<i64>) -> Self {
        match value {
            Some(value) => self.with_int(key, value),
            None => self,
        }
    }

    pub fn with_heard(self, span: Option<&HeardSpan>) -> Self {
        match span {
            Some(span) => self
                .with_text(keys::AUDIO_INPUT, span.audio_input.clone())
                .with_int(keys::SPEECH_START_MS, span.start_ms as i64)
                .with_int(keys::SPEECH_END_MS, span.end_ms as i64),
            None => self,
        }
    }

    fn set(&mut self, key: &'static str, value: Value) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = value,
            None => self.0.push((key, value)),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &Value)> {
        self.0.iter().map(|(k, v)| (*k, v))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Meta for Fields {
    fn value(&self, key: &str) -> Option<ValueRef<'_>> {
        self.0
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| match v {
                Value::Int(n) => ValueRef::Int(*n),
                Value::Text(s) => ValueRef::Text(s),
                Value::Bool(b) => ValueRef::Bool(*b),
            })
    }
}

/// Why a message could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("{message} without {key}")]
    Missing {
        message: &'static str,
        key: &'static str,
    },
    #[error("{0}")]
    Invalid(String),
    #[error("unreadable payload: {0}")]
    Payload(String),
}

fn missing(message: &'static str, key: &'static str) -> DecodeError {
    DecodeError::Missing { message, key }
}

/// A message of the protocol: one encode, one decode.
pub trait Message: Sized {
    /// The output it is sent on (a node may send it on another, e.g. the console's typed
    /// words on `human_text`).
    const OUTPUT: &'static str;
    /// What it carries as its Arrow payload.
    type Payload;

    fn encode(self) -> (Fields, Self::Payload);
    fn decode(meta: &impl Meta, payload: Self::Payload) -> Result<Self, DecodeError>;
}

/// When a human's words were spoken, as the ASR bridge heard them: carried from its
/// `transcript` through the controller's `utterance` to the player, which puts the
/// human on the recording's clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeardSpan {
    /// The bridge's audio input (`audio`, `audio_<source>`): whose stream the times count.
    pub audio_input: String,
    /// Milliseconds of that stream.
    pub start_ms: u64,
    pub end_ms: u64,
}

/// The speaker a message names: its metadata's, else its payload's.
fn named(meta: &impl Meta, text: &str) -> String {
    meta.text(keys::SPEAKER).unwrap_or(text.trim()).to_owned()
}

/// Messages that only name a speaker, in their metadata and as their payload.
macro_rules! speaker_message {
    ($(#[$doc:meta])* $name:ident, $output:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $name {
            pub speaker: String,
        }

        impl Message for $name {
            const OUTPUT: &'static str = $output;
            type Payload = String;

            fn encode(self) -> (Fields, String) {
                (Fields::new().with_text(keys::SPEAKER, self.speaker.clone()), self.speaker)
            }

            /// The speaker in the metadata, else the payload's.
            fn decode(meta: &impl Meta, text: String) -> Result<Self, DecodeError> {
                Ok(Self {
                    speaker: named(meta, &text),
                })
            }
        }
    };
}

speaker_message!(
    /// The controller's `prepare`: `speaker` will answer the human who is speaking.
    Prepare,
    ids::PREPARE
);

speaker_message!(
    /// The voice detector heard a human begin to speak (`speech_started`); acting on it
    /// needs nothing but its arrival.
    SpeechStarted,
    ids::SPEECH_STARTED
);

/// A text that is empty after trimming counts as none.
fn non_blank(text: Option<&str>) -> Option<String> {
    text.filter(|t| !t.trim().is_empty()).map(str::to_owned)
}

/// The controller's (or a conductor's) `turn`: `speaker` speaks now. Its payload is the
/// speaker's name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Turn {
    pub question_id: u64,
    pub speaker: String,
    /// What the conductor asks of this turn.
    pub instruction: Option<String>,
    /// Context assembled for this call; replaces the persona prompt.
    pub context: Option<String>,
    /// Words prepared ahead, said as they are.
    pub prepared: Option<String>,
    /// The rehearsal exchange the turn belongs to.
    pub exchange_id: Option<u64>,
}

impl Message for Turn {
    const OUTPUT: &'static str = ids::TURN;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        let fields = Fields::new()
            .with_question_id(self.question_id)
            .with_text(keys::SPEAKER, self.speaker.clone())
            .maybe_text(keys::INSTRUCTION, self.instruction)
            .maybe_int(keys::EXCHANGE_ID, self.exchange_id.map(|id| id as i64))
            .maybe_text(keys::CONTEXT, self.context)
            .maybe_text(keys::PREPARED, self.prepared);
        (fields, self.speaker)
    }

    fn decode(meta: &impl Meta, speaker: String) -> Result<Self, DecodeError> {
        Ok(Self {
            question_id: meta
                .question_id()
                .ok_or_else(|| missing("turn", keys::QUESTION_ID))?,
            speaker: speaker.trim().to_owned(),
            instruction: non_blank(meta.text(keys::INSTRUCTION)).map(|i| i.trim().to_owned()),
            context: non_blank(meta.text(keys::CONTEXT)),
            prepared: non_blank(meta.text(keys::PREPARED)),
            exchange_id: meta
                .int(keys::EXCHANGE_ID)
                .and_then(|id| u64::try_from(id).ok()),
        })
    }
}

/// `interrupt`: drop everything older than `question_id`. Its payload is the kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interrupt {
    pub question_id: u64,
    pub kind: InterruptKind,
    /// The kind said, when it was none of ours (taken as a cancel).
    pub unknown_kind: Option<String>,
}

impl Interrupt {
    pub fn new(kind: InterruptKind, question_id: u64) -> Self {
        Self {
            question_id,
            kind,
            unknown_kind: None,
        }
    }
}

impl Message for Interrupt {
    const OUTPUT: &'static str = ids::INTERRUPT;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        (
            Fields::new().with_question_id(self.question_id),
            self.kind.as_str().to_owned(),
        )
    }

    fn decode(meta: &impl Meta, kind: String) -> Result<Self, DecodeError> {
        let question_id = meta
            .question_id()
            .ok_or_else(|| missing("interrupt", keys::QUESTION_ID))?;
        Ok(match InterruptKind::parse(&kind) {
            Some(kind) => Self::new(kind, question_id),
            None => Self {
                question_id,
                kind: InterruptKind::Cancel,
                unknown_kind: Some(crate::shorten(&kind)),
            },
        })
    }
}

/// A finished utterance, as the conversation keeps it (`utterance`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Utterance {
    pub question_id: u64,
    pub speaker: String,
    pub text: String,
    pub interrupted: bool,
    pub human: bool,
    /// When a human's words were spoken.
    pub heard: Option<HeardSpan>,
}

impl Message for Utterance {
    const OUTPUT: &'static str = ids::UTTERANCE;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        let fields = Fields::new()
            .with_question_id(self.question_id)
            .with_text(keys::SPEAKER, self.speaker)
            .with_flag(keys::INTERRUPTED, self.interrupted)
            .with_flag(keys::IS_HUMAN, self.human)
            .with_heard(self.heard.as_ref());
        (fields, self.text)
    }

    /// Missing fields take what a node-hub sender means: a human when named `human`,
    /// speaker `human` or `unknown`, not interrupted, question 0.
    fn decode(meta: &impl Meta, text: String) -> Result<Self, DecodeError> {
        let flagged = meta.flag(keys::IS_HUMAN);
        let speaker = match meta.text(keys::SPEAKER) {
            Some(speaker) => speaker.to_owned(),
            None if flagged == Some(true) => "human".to_owned(),
            None => "unknown".to_owned(),
        };
        Ok(Self {
            question_id: meta.question_id().unwrap_or(0),
            human: flagged.unwrap_or(speaker == "human"),
            interrupted: meta.flag(keys::INTERRUPTED).unwrap_or(false),
            heard: meta.heard(),
            speaker,
            text,
        })
    }
}

/// A piece of a speaker's streamed text (`text`), or a whole line when it has no status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub question_id: Option<u64>,
    pub speaker: Option<String>,
    /// `None`: a complete message.
    pub status: Option<SessionStatus>,
    /// What the sender reports went wrong (on the chunk that ends a failed turn).
    pub error: Option<String>,
    /// The roundtable moderator's kind of line.
    pub kind: Option<String>,
    /// The rehearsal moderator's phrase kind of the line.
    pub line_kind: Option<String>,
    /// The text, or why it could not be read (the chunk's status still counts).
    pub text: Result<String, String>,
    /// The status said, when it was none of ours (the chunk is then taken as complete).
    pub unknown_status: Option<String>,
}

impl Chunk {
    /// A whole line (`ended`) of `speaker`.
    pub fn line(question_id: u64, speaker: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            question_id: Some(question_id),
            speaker: Some(speaker.into()),
            status: Some(SessionStatus::Ended),
            text: Ok(text.into()),
            ..Self::default()
        }
    }

    /// The chunk ends its utterance (`ended`, or a complete message).
    pub fn ends(&self) -> bool {
        SessionStatus::ends_utterance(self.status)
    }
}

impl Default for Chunk {
    fn default() -> Self {
        Self {
            question_id: None,
            speaker: None,
            status: None,
            error: None,
            kind: None,
            line_kind: None,
            text: Ok(String::new()),
            unknown_status: None,
        }
    }
}

impl Message for Chunk {
    const OUTPUT: &'static str = ids::TEXT;
    type Payload = Result<String, String>;

    fn encode(self) -> (Fields, Result<String, String>) {
        let fields = Fields::new()
            .maybe_int(keys::QUESTION_ID, self.question_id.map(|id| id as i64))
            .maybe_text(keys::SESSION_STATUS, self.status.map(SessionStatus::as_str))
            .maybe_text(keys::SPEAKER, self.speaker)
            .maybe_text(keys::KIND, self.kind)
            .maybe_text(keys::LINE_KIND, self.line_kind)
            .maybe_text(keys::ERROR, self.error);
        (fields, Ok(self.text.unwrap_or_default()))
    }

    fn decode(meta: &impl Meta, text: Result<String, String>) -> Result<Self, DecodeError> {
        let (status, unknown_status) = match meta.status() {
            Ok(status) => (status, None),
            Err(raw) => (None, Some(raw)),
        };
        Ok(Self {
            question_id: meta.question_id(),
            speaker: meta.text(keys::SPEAKER).map(str::to_owned),
            status,
            error: meta.text(keys::ERROR).map(str::to_owned),
            kind: meta.text(keys::KIND).map(str::to_owned),
            line_kind: meta.text(keys::LINE_KIND).map(str::to_owned),
            text,
            unknown_status,
        })
    }
}

/// A human's words, as a recogniser (or a page, or a script) heard them (`transcript`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Transcript {
    pub speaker: Option<String>,
    /// `None` or `ended`: final; `started` / `ongoing`: a partial hypothesis.
    pub status: Option<SessionStatus>,
    pub text: String,
    pub heard: Option<HeardSpan>,
    /// The status said, when it was none of ours (the transcript is then taken as final).
    pub unknown_status: Option<String>,
}

impl Transcript {
    /// The final words of `speaker`.
    pub fn final_words(speaker: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            speaker: Some(speaker.into()),
            status: Some(SessionStatus::Ended),
            text: text.into(),
            ..Self::default()
        }
    }

    pub fn is_final(&self) -> bool {
        SessionStatus::ends_utterance(self.status)
    }
}

impl Message for Transcript {
    const OUTPUT: &'static str = ids::TRANSCRIPT;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        let fields = Fields::new()
            .maybe_text(keys::SPEAKER, self.speaker)
            .maybe_text(keys::SESSION_STATUS, self.status.map(SessionStatus::as_str))
            .with_heard(self.heard.as_ref());
        (fields, self.text)
    }

    fn decode(meta: &impl Meta, text: String) -> Result<Self, DecodeError> {
        let (status, unknown_status) = match meta.status() {
            Ok(status) => (status, None),
            Err(raw) => (None, Some(raw)),
        };
        Ok(Self {
            speaker: meta.text(keys::SPEAKER).map(str::to_owned),
            status,
            text,
            heard: meta.heard(),
            unknown_status,
        })
    }
}

/// The human's sound was only a backchannel (`backchannel`: what was heard).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Backchannel {
    pub speaker: String,
    pub text: String,
}

impl Message for Backchannel {
    const OUTPUT: &'static str = ids::BACKCHANNEL;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        (
            Fields::new().with_text(keys::SPEAKER, self.speaker),
            self.text,
        )
    }

    fn decode(meta: &impl Meta, text: String) -> Result<Self, DecodeError> {
        Ok(Self {
            speaker: meta.text(keys::SPEAKER).unwrap_or_default().to_owned(),
            text,
        })
    }
}

/// One speakable piece of a turn (`segment`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    pub question_id: u64,
    pub speaker: String,
    /// Position within its turn, from 0.
    pub index: u32,
    /// No more segments of this turn follow.
    pub last: bool,
    pub text: String,
}

impl Message for Segment {
    const OUTPUT: &'static str = ids::SEGMENT;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        let fields = Fields::new()
            .with_question_id(self.question_id)
            .with_text(keys::SPEAKER, self.speaker)
            .with_int(keys::SEGMENT_INDEX, i64::from(self.index))
            .with_flag(keys::LAST_SEGMENT, self.last);
        (fields, self.text)
    }

    fn decode(meta: &impl Meta, text: String) -> Result<Self, DecodeError> {
        Ok(Self {
            question_id: meta
                .question_id()
                .ok_or_else(|| missing("segment", keys::QUESTION_ID))?,
            index: meta
                .int(keys::SEGMENT_INDEX)
                .and_then(|i| u32::try_from(i).ok())
                .ok_or_else(|| missing("segment", keys::SEGMENT_INDEX))?,
            speaker: meta.text(keys::SPEAKER).unwrap_or("unknown").to_owned(),
            last: meta.flag(keys::LAST_SEGMENT).unwrap_or(false),
            text,
        })
    }
}

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

/// The controller's `pause`: hold the agents' voice, the human speaks.
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

/// The controller's `resume`: the held voice goes on.
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

/// A bridge's answer to a side request (`reply`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    pub request_id: Option<String>,
    /// The kind of request answered (echoed).
    pub kind: Option<String>,
    pub speaker: Option<String>,
    /// Why the request was not answered (the text is then empty).
    pub error: Option<String>,
    pub text: String,
}

impl Message for Reply {
    const OUTPUT: &'static str = ids::REPLY;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        let fields = Fields::new()
            .maybe_text(keys::REQUEST_ID, self.request_id)
            .maybe_text(keys::KIND, self.kind)
            .maybe_text(keys::SPEAKER, self.speaker)
            .maybe_text(keys::ERROR, self.error);
        (fields, self.text)
    }

    fn decode(meta: &impl Meta, text: String) -> Result<Self, DecodeError> {
        let string = |key| meta.text(key).map(str::to_owned);
        Ok(Self {
            request_id: string(keys::REQUEST_ID),
            kind: string(keys::KIND),
            speaker: string(keys::SPEAKER),
            error: string(keys::ERROR),
            text,
        })
    }
}

/// A message that is its text alone, without metadata: a command, a JSON record, a side
/// request, a phase name. Sent on the output its sender names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plain(pub String);

impl Message for Plain {
    /// Plain messages are sent on an output the sender names.
    const OUTPUT: &'static str = "";
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        (Fields::new(), self.0)
    }

    fn decode(_: &impl Meta, text: String) -> Result<Self, DecodeError> {
        Ok(Self(text))
    }
}

/// A clip message (`clip`, `command`, `clip_ready`, ...): JSON, with `clip_id` metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClipJson {
    pub clip_id: String,
    pub json: String,
}

impl ClipJson {
    pub fn of(
        clip_id: impl Into<String>,
        value: &impl serde::Serialize,
    ) -> serde_json::Result<Self> {
        Ok(Self {
            clip_id: clip_id.into(),
            json: serde_json::to_string(value)?,
        })
    }

    /// The JSON as `T`.
    pub fn parse<T: serde::de::DeserializeOwned>(&self) -> Result<T, DecodeError> {
        serde_json::from_str(&self.json).map_err(|e| {
            DecodeError::Invalid(format!(
                "invalid clip JSON ({e}): {}",
                crate::shorten(&self.json)
            ))
        })
    }
}

impl Message for ClipJson {
    /// Clip messages are sent on the output of their kind.
    const OUTPUT: &'static str = "";
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        (
            Fields::new().with_text(keys::CLIP_ID, self.clip_id),
            self.json,
        )
    }

    fn decode(meta: &impl Meta, json: String) -> Result<Self, DecodeError> {
        Ok(Self {
            clip_id: meta.text(keys::CLIP_ID).unwrap_or_default().to_owned(),
            json,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn round_trip<M: Message + Clone + PartialEq + std::fmt::Debug>(message: M) {
        let (fields, payload) = message.clone().encode();
        assert_eq!(M::decode(&fields, payload).unwrap(), message);
    }

    #[test]
    fn a_turn_carries_only_what_it_has_and_reads_blank_as_none() {
        let turn = Turn {
            question_id: 4,
            speaker: "ann".into(),
            instruction: Some("Ask a question.".into()),
            ..Turn::default()
        };
        let (fields, payload) = turn.clone().encode();
        assert_eq!(payload, "ann");
        assert_eq!(fields.text(keys::CONTEXT), None);
        assert_eq!(fields.text(keys::SPEAKER), Some("ann"));
        round_trip(turn);
        let fields = Fields::new()
            .with_text(keys::QUESTION_ID, " 9 ")
            .with_text(keys::INSTRUCTION, "  ")
            .with_text(keys::CONTEXT, "\n");
        let turn = Turn::decode(&fields, " bo\n".into()).unwrap();
        assert_eq!((turn.question_id, turn.speaker.as_str()), (9, "bo"));
        assert_eq!((turn.instruction, turn.context), (None, None));
        assert_eq!(
            Turn::decode(&Fields::new(), "bo".into()),
            Err(missing("turn", keys::QUESTION_ID))
        );
    }

    #[test]
    fn an_unknown_interrupt_kind_is_a_cancel_that_says_so() {
        round_trip(Interrupt::new(InterruptKind::Reset, 3));
        let interrupt =
            Interrupt::decode(&Fields::new().with_question_id(3), "stop!".into()).unwrap();
        assert_eq!(interrupt.kind, InterruptKind::Cancel);
        assert_eq!(interrupt.unknown_kind.as_deref(), Some("stop!"));
    }

    #[test]
    fn chunks_keep_an_unreadable_text_and_an_unknown_status_apart() {
        round_trip(Chunk::line(2, "ann", "Hello."));
        let fields = Fields::new().with_text(keys::SESSION_STATUS, "finished?");
        let chunk = Chunk::decode(&fields, Err("Int32".into())).unwrap();
        assert!(chunk.ends());
        assert_eq!(chunk.unknown_status.as_deref(), Some("finished?"));
        assert_eq!(chunk.text, Err("Int32".into()));
    }

    #[test]
    fn an_utterance_without_metadata_takes_the_node_hub_defaults() {
        let u = Utterance::decode(&Fields::new(), "hi".into()).unwrap();
        assert_eq!(
            (u.speaker.as_str(), u.human, u.question_id),
            ("unknown", false, 0)
        );
        let u = Utterance::decode(
            &Fields::new().with_text(keys::SPEAKER, "human"),
            "hi".into(),
        );
        assert!(u.unwrap().human);
    }

    #[test]
    fn audio_at_an_impossible_rate_is_refused_and_non_finite_samples_are_silenced() {
        let fields = Fields::new().with_int(keys::SAMPLE_RATE, 1);
        assert!(Audio::decode(&fields, Ok(vec![0.0])).is_err());
        let audio = Audio::decode(&Fields::new(), Ok(vec![f32::NAN, 0.5, f32::INFINITY])).unwrap();
        assert_eq!((audio.sample_rate, audio.silenced), (16_000, 2));
        assert_eq!(audio.samples, vec![0.0, 0.5, 0.0]);
    }

    #[test]
    fn a_segment_needs_its_id_and_index() {
        let segment = Segment {
            question_id: 1,
            speaker: "ann".into(),
            index: 0,
            last: true,
            text: "Hi.".into(),
        };
        round_trip(segment);
        let fields = Fields::new().with_question_id(1);
        assert_eq!(
            Segment::decode(&fields, "Hi.".into()),
            Err(missing("segment", keys::SEGMENT_INDEX))
        );
    }

    fn name() -> impl Strategy<Value = String> {
        "[a-z]{1,8}"
    }

    fn span() -> impl Strategy<Value = Option<HeardSpan>> {
        proptest::option::of((name(), 0u64..1 << 40, 0u64..1 << 40).prop_map(
            |(audio_input, start_ms, end_ms)| HeardSpan {
                audio_input,
                start_ms,
                end_ms,
            },
        ))
    }

    proptest! {
        #[test]
        fn every_message_reads_back_as_it_was_written(
            question_id in 0u64..1 << 62,
            speaker in name(),
            text in "\\PC{0,40}",
            flags in any::<(bool, bool)>(),
            index in any::<u32>(),
            extra in proptest::option::of("[a-z]{1,12}"),
            heard in span(),
            rate in 4_000u32..=384_000,
            samples in proptest::collection::vec(-1.0f32..1.0, 0..32),
        ) {
            round_trip(Turn {
                question_id,
                speaker: speaker.clone(),
                instruction: extra.clone(),
                context: extra.clone(),
                prepared: extra.clone(),
                exchange_id: Some(index.into()),
            });
            round_trip(Prepare { speaker: speaker.clone() });
            round_trip(Utterance {
                question_id,
                speaker: speaker.clone(),
                text: text.clone(),
                interrupted: flags.0,
                human: flags.1,
                heard: heard.clone(),
            });
            round_trip(Chunk {
                question_id: Some(question_id),
                speaker: Some(speaker.clone()),
                status: Some(SessionStatus::Ongoing),
                error: extra.clone(),
                kind: extra.clone(),
                line_kind: extra.clone(),
                text: Ok(text.clone()),
                unknown_status: None,
            });
            round_trip(Transcript {
                speaker: Some(speaker.clone()),
                status: Some(SessionStatus::Ended),
                text: text.clone(),
                heard,
                unknown_status: None,
            });
            round_trip(Segment { question_id, speaker: speaker.clone(), index, last: flags.0, text: text.clone() });
            round_trip(Played {
                question_id: Some(question_id),
                speaker: speaker.clone(),
                interrupted: flags.1,
                chars_played: Some(index.into()),
                text: text.clone(),
            });
            round_trip(PlaybackStarted { question_id: Some(question_id), speaker: speaker.clone() });
            round_trip(Backchannel { speaker: speaker.clone(), text: text.clone() });
            round_trip(Reply {
                request_id: extra.clone(),
                kind: extra.clone(),
                speaker: Some(speaker.clone()),
                error: extra,
                text,
            });
            round_trip(Audio { question_id: Some(question_id), speaker: Some(speaker), ..Audio::new(rate, samples) });
        }

        #[test]
        fn decoding_any_metadata_never_panics(
            entries in proptest::collection::vec(
                (prop_oneof![
                    Just(keys::QUESTION_ID), Just(keys::SESSION_STATUS), Just(keys::SPEAKER),
                    Just(keys::SEGMENT_INDEX), Just(keys::SAMPLE_RATE), Just(keys::SPEECH_START_MS),
                ],
                prop_oneof![
                    any::<i64>().prop_map(Value::Int),
                    "\\PC{0,12}".prop_map(Value::Text),
                    any::<bool>().prop_map(Value::Bool),
                ]),
                0..6,
            ),
            text in "\\PC{0,20}",
        ) {
            let mut fields = Fields::new();
            for (key, value) in entries {
                fields.set(key, value);
            }
            let _ = Turn::decode(&fields, text.clone());
            let _ = Interrupt::decode(&fields, text.clone());
            let _ = Utterance::decode(&fields, text.clone());
            let _ = Chunk::decode(&fields, Ok(text.clone()));
            let _ = Transcript::decode(&fields, text.clone());
            let _ = Segment::decode(&fields, text.clone());
            let _ = Played::decode(&fields, text.clone());
            let _ = Audio::decode(&fields, Ok(vec![0.0; 4]));
        }
    }
}

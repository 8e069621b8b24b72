//! The protocol every node speaks, documented once (see crates/voice-protocol/README.md).
//!
//! Data travels as Arrow arrays (text: a Utf8 array); everything else rides in dora
//! metadata under the keys below. Stale data is discarded by `question_id`, never by
//! timing: see [`StaleFilter`].

use std::fmt;

pub mod clips;
pub mod hub;
pub mod messages;
pub mod openers;
pub mod redact;

pub mod sounds;

pub use redact::{Redactor, redact};

/// Input and output ids used across the dataflows.
pub mod ids {
    /// Bridge output, model host input: a request to the model host (generate, read
    /// ahead, cancel), its job as the payload.
    pub const MODEL: &str = "model";
    /// Model host output, bridge input: a request's text as it is generated.
    pub const MODEL_REPLY: &str = "model_reply";
    /// Controller output: the next speaker's name.
    pub const TURN: &str = "turn";
    /// Controller output, bridge input: the participant named (Utf8, and `speaker`) will
    /// answer the human who is speaking: it may read the conversation into its model now.
    pub const PREPARE: &str = "prepare";
    /// Controller output: `cancel` or `reset`; drop everything older than its question id.
    pub const INTERRUPT: &str = "interrupt";
    /// Controller output: the policy stats JSON.
    pub const STATUS: &str = "status";
    /// Controller output: a finished utterance (text, with speaker metadata).
    pub const UTTERANCE: &str = "utterance";
    /// Controller input: commands (`reset`, `cancel`, `stats`, `ready`).
    pub const CONTROL: &str = "control";
    /// Controller input: a final human utterance.
    pub const HUMAN: &str = "human";
    /// Console output, controller input: the human's typed words, taken exactly like
    /// [`HUMAN`] (a second source of them: a dora input has one source).
    pub const HUMAN_TEXT: &str = "human_text";
    /// Controller input: the human started speaking (voice activity).
    pub const SPEECH_STARTED: &str = "speech_started";
    /// Bridge input: the player's `playback_done` (what was heard of each utterance).
    pub const PLAYED: &str = "played";
    /// Participant output: streamed text chunks.
    pub const TEXT: &str = "text";
    /// Human source output: a final transcript.
    pub const TRANSCRIPT: &str = "transcript";
    /// Segmenter output: one speakable segment.
    pub const SEGMENT: &str = "segment";
    /// Player input: hold playback (wired to the ASR bridge's `speech_started`).
    pub const PAUSE: &str = "pause";
    /// Player input: continue held playback (wired to the ASR bridge's `backchannel`).
    pub const RESUME: &str = "resume";
    /// ASR output: the speech turned out to be a backchannel (Utf8: what was heard).
    pub const BACKCHANNEL: &str = "backchannel";
    /// Player output: Float32 audio blocks as heard.
    pub const AUDIO: &str = "audio";
    /// ASR input: the player's `audio`, what the loudspeaker plays: its echo is taken out
    /// of the microphones.
    pub const REFERENCE: &str = "reference";
    /// Player output: an utterance began to sound (Utf8 speaker).
    pub const PLAYBACK_STARTED: &str = "playback_started";
    /// Player output: an utterance finished or was cut off (Utf8: the text heard).
    pub const PLAYBACK_DONE: &str = "playback_done";
    /// Player output: the voice was held while an utterance sounded (Utf8: the text heard
    /// so far, what an interrupt would leave).
    pub const PLAYBACK_HELD: &str = "playback_held";
    /// Bridge input: the player's `playback_held`.
    pub const HELD: &str = "held";
    /// Bridge input: a side request (Utf8 JSON: id, kind, prompt, json, max_words).
    pub const REQUEST: &str = "request";
    /// Bridge output: the answer to a side request (Utf8), with `request_id`, `kind`.
    pub const REPLY: &str = "reply";
    /// Rehearsal moderator input: the presenter's final transcript text.
    pub const PRESENTER: &str = "presenter";
    /// Rehearsal moderator output: the presenter's words, re-sent with a question id so
    /// the player voices them in order (offline demo).
    pub const PRESENTER_TEXT: &str = "presenter_text";
    /// Rehearsal moderator output: the phase entered (`presenting`, `qa_trigger`,
    /// `exchange`, `resolving`, `ended`).
    pub const PHASE: &str = "phase";
    /// Rehearsal moderator output, console input: what the presenter's screen shows
    /// (Utf8 JSON: slide, points, phase, exchange, hands, debrief), sent when it changes.
    pub const BOARD: &str = "board";
    /// Moderator output, recorder input: one moderator decision (Utf8 JSON object).
    pub const DECISION: &str = "decision";
    /// Player input: a clip to prepare (Utf8 JSON [`crate::clips::ClipSpec`]).
    pub const CLIP: &str = "clip";
    /// Player input: play, duck, fade a prepared clip (Utf8 JSON [`crate::clips::ClipCommand`]).
    pub const COMMAND: &str = "command";
    /// Player output: a clip is synthesized and held (JSON [`crate::clips::ClipReady`]).
    pub const CLIP_READY: &str = "clip_ready";
    /// Player output: a clip began to sound (JSON [`crate::clips::ClipStarted`]).
    pub const CLIP_STARTED: &str = "clip_started";
    /// Player output: the main clip passed a sentence boundary (JSON [`crate::clips::BeatReached`]).
    pub const BEAT: &str = "beat";
    /// Player output: a clip ended or was cut (JSON [`crate::clips::ClipFinished`]).
    pub const CLIP_FINISHED: &str = "clip_finished";
    /// Auction output, recorder input: one auction event record (Utf8 JSON object).
    pub const AUCTION: &str = "auction";
    /// Player input: a microphone's audio as the ASR bridge hears it (`human_audio`, and
    /// `human_audio_<source>` for the bridge's `audio_<source>`), recorded as `human.wav`.
    pub const HUMAN_AUDIO: &str = "human_audio";
}

/// Audio sample rates a node accepts in `sample_rate` metadata, in Hz. Outside it a block
/// is refused with a warning: a rate of 1 would turn a 16 KB block into an hour of audio,
/// one of 10^9 into nothing.
pub const SAMPLE_RATES: std::ops::RangeInclusive<i64> = 4_000..=384_000;

/// The rate of audio that comes without `sample_rate` metadata: dora node-hub's
/// microphone sends 16 kHz blocks and says nothing.
pub const DEFAULT_SAMPLE_RATE: u32 = 16_000;

/// The `sample_rate` of an audio block, if it is a rate a node can use; none given means
/// [`DEFAULT_SAMPLE_RATE`].
pub fn valid_sample_rate(rate: Option<i64>) -> Result<u32, String> {
    match rate {
        None => Ok(DEFAULT_SAMPLE_RATE),
        Some(rate) if SAMPLE_RATES.contains(&rate) => Ok(rate as u32),
        Some(rate) => Err(format!(
            "sample_rate {rate} is outside {}..={} Hz",
            SAMPLE_RATES.start(),
            SAMPLE_RATES.end()
        )),
    }
}

/// Metadata keys.
pub mod keys {
    /// Integer: the turn or interrupt this message belongs to.
    pub const QUESTION_ID: &str = "question_id";
    /// String: `started` | `ongoing` | `ended`, a streamed chunk's [`crate::StreamStatus`].
    /// The wire spelling is older than the name: kept so that recorded inputs and other
    /// senders stay readable.
    pub const STREAM_STATUS: &str = "session_status";
    /// String: who said it.
    pub const SPEAKER: &str = "speaker";
    /// Bool: the utterance was cut short.
    pub const INTERRUPTED: &str = "interrupted";
    /// Bool: the speaker is a human.
    pub const IS_HUMAN: &str = "is_human";
    /// Bool, on `text` and `model_reply`: the text ends a sentence its writer judged
    /// whole (a model host's guard releases whole sentences), so a reader need not wait
    /// for what follows to know the sentence is over.
    pub const ENDS_SENTENCE: &str = "ends_sentence";
    /// Integers, on a human's transcript and utterance: when the voice detector heard the
    /// speech begin and end, in milliseconds of the microphone's stream
    /// ([`AUDIO_INPUT`]).
    pub const SPEECH_START_MS: &str = "speech_start_ms";
    pub const SPEECH_END_MS: &str = "speech_end_ms";
    /// String, on a human's transcript and utterance: the ASR bridge's audio input that
    /// heard it (`audio`, `audio_<source>`).
    pub const AUDIO_INPUT: &str = "audio_input";
    /// String: what went wrong while producing this message.
    pub const ERROR: &str = "error";
    /// Integer: position of a segment within its turn, from 0.
    pub const SEGMENT_INDEX: &str = "segment_index";
    /// Bool: no more segments of this turn follow.
    pub const LAST_SEGMENT: &str = "last_segment";
    /// Integer: characters of an utterance that were actually heard.
    pub const CHARS_PLAYED: &str = "chars_played";
    /// String, on a dora node-hub TTS node's audio: the text it speaks.
    pub const TEXT: &str = "text";
    /// Integer: audio sample rate in Hz.
    pub const SAMPLE_RATE: &str = "sample_rate";
    /// String, on `turn`: what the conductor asks of this turn.
    pub const INSTRUCTION: &str = "instruction";
    /// String, on `turn`: context assembled for this call; replaces the persona prompt.
    pub const CONTEXT: &str = "context";
    /// String, on `turn`: words prepared ahead for this turn (a rehearsal panelist's
    /// candidate question), said as they are, without generating.
    pub const PREPARED: &str = "prepared";
    /// String, on `turn`: words the reply is to take up (a slide's claims, the answer a
    /// follow-up tests); the reply is steered towards them and may quote them.
    pub const TAKES_UP: &str = "takes_up";
    /// Bool, on `turn`: the reply is a question (a statement is sampled again).
    pub const ASKS: &str = "asks";
    /// Bool, on `turn`: the turn answers the human's words just said (the machine's
    /// model serves it before any other work).
    pub const ANSWERS_HUMAN: &str = "answers_human";
    /// String, on `reply`: the side request answered.
    pub const REQUEST_ID: &str = "request_id";
    /// String, on `prepare`: what the named participant reads ahead for, `answer` (the
    /// human who is speaking; the default) or `turn` (its next turn, once the voice has
    /// caught up).
    pub const PREPARE_FOR: &str = "prepare_for";
    /// String, on `reply`: the kind of side request answered (echoed).
    pub const KIND: &str = "kind";
    /// String, on the rehearsal moderator's `text`: the phrase kind of the line
    /// (`transition`, `micro-phrase`, `bridge-back`, ...).
    pub const LINE_KIND: &str = "line_kind";
    /// Integer, on the rehearsal moderator's `turn`: the exchange the turn belongs to.
    pub const EXCHANGE_ID: &str = "exchange_id";
    /// String, on clip messages: the clip concerned.
    pub const CLIP_ID: &str = "clip_id";
    /// Integer, on the controller's `pause`: when the voice detector's `speech_started`
    /// was sent (microseconds since the Unix epoch), so that the player measures voice
    /// onset → silence over both hops.
    pub const ONSET_SENT_US: &str = "onset_sent_us";
    /// Integer, on `model` and `model_reply`: the bridge's number for one model request.
    pub const CALL_ID: &str = "call_id";
    /// String, on `model` and `model_reply`: the participant whose sequence it concerns.
    pub const PARTICIPANT: &str = "participant";
    /// Boolean, on `model_reply`: the request is over (nothing more comes for it).
    pub const DONE: &str = "done";
}

/// Where a streamed chunk sits in its utterance. No status means a complete message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StreamStatus {
    Started,
    Ongoing,
    Ended,
}

impl StreamStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            StreamStatus::Started => "started",
            StreamStatus::Ongoing => "ongoing",
            StreamStatus::Ended => "ended",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "started" => Some(StreamStatus::Started),
            "ongoing" => Some(StreamStatus::Ongoing),
            "ended" => Some(StreamStatus::Ended),
            _ => None,
        }
    }

    /// Whether this chunk ends the utterance (a message without status is complete).
    pub fn ends_utterance(status: Option<Self>) -> bool {
        matches!(status, None | Some(StreamStatus::Ended))
    }
}

impl fmt::Display for StreamStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The two kinds of interrupt the controller sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InterruptKind {
    /// Stop what is being generated or played.
    Cancel,
    /// Stop, and forget buffered state (a human spoke, or the session was reset).
    Reset,
}

impl InterruptKind {
    pub fn as_str(self) -> &'static str {
        match self {
            InterruptKind::Cancel => "cancel",
            InterruptKind::Reset => "reset",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cancel" => Some(InterruptKind::Cancel),
            "reset" => Some(InterruptKind::Reset),
            _ => None,
        }
    }
}

impl fmt::Display for InterruptKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A command on the controller's `control` input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ControlCommand {
    /// Back to the cold start: counts cleared, everything in flight dropped.
    Reset,
    /// Stop the current speaker and pause until `ready` or a human speaks.
    Cancel,
    /// Publish the stats on `status`.
    Stats,
    /// Continue: hand out the next turn (or repeat the current one).
    Ready,
}

/// Why a control message was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("unknown control command `{0}` (expected reset, cancel, stats or ready)")]
    Unknown(String),
    #[error("control JSON has no string field `command`: {0}")]
    MissingCommand(String),
}

impl ControlCommand {
    pub fn as_str(self) -> &'static str {
        match self {
            ControlCommand::Reset => "reset",
            ControlCommand::Cancel => "cancel",
            ControlCommand::Stats => "stats",
            ControlCommand::Ready => "ready",
        }
    }

    /// Accepts `stats` as plain text or `{"command": "stats"}` (case-insensitive).
    pub fn parse(text: &str) -> Result<Self, CommandError> {
        let word = command_text(text)?;
        match word.as_str() {
            "reset" => Ok(ControlCommand::Reset),
            "cancel" => Ok(ControlCommand::Cancel),
            "stats" => Ok(ControlCommand::Stats),
            "ready" => Ok(ControlCommand::Ready),
            _ => Err(CommandError::Unknown(shorten(&word))),
        }
    }
}

/// The command a `control` message holds, in lower case: the text itself, or the string
/// field `command` of a JSON object (`{"command": "stats"}`). Every decision node's
/// control input is read through it; each format has its own words.
pub fn command_text(text: &str) -> Result<String, CommandError> {
    let trimmed = text.trim();
    if !trimmed.starts_with('{') {
        return Ok(trimmed.to_lowercase());
    }
    let value: serde_json::Value = serde_json::from_str(trimmed)
        .map_err(|_| CommandError::MissingCommand(shorten(trimmed)))?;
    match value.get("command").and_then(|c| c.as_str()) {
        Some(command) => Ok(command.trim().to_lowercase()),
        None => Err(CommandError::MissingCommand(shorten(trimmed))),
    }
}

/// Cuts text for log messages to a readable length, on a character boundary.
pub fn shorten(text: &str) -> String {
    const MAX: usize = 80;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// Drops data that belongs to a question older than the newest interrupt.
///
/// Every downstream node keeps one: an interrupt with id `n` makes everything with a
/// question id below `n` stale, whatever order the messages arrive in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StaleFilter {
    floor: u64,
}

impl StaleFilter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Records an interrupt; returns false if it is itself older than one already seen.
    pub fn interrupt(&mut self, question_id: u64) -> bool {
        if question_id < self.floor {
            return false;
        }
        self.floor = question_id;
        true
    }

    /// Whether data of `question_id` must be dropped.
    pub fn is_stale(&self, question_id: u64) -> bool {
        question_id < self.floor
    }

    /// The oldest question id that is still current.
    pub fn floor(&self) -> u64 {
        self.floor
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sample_rates_outside_what_audio_can_be_are_refused() {
        assert_eq!(super::valid_sample_rate(Some(16_000)), Ok(16_000));
        assert_eq!(super::valid_sample_rate(Some(24_000)), Ok(24_000));
        // node-hub's microphone says nothing: 16 kHz.
        assert_eq!(super::valid_sample_rate(None), Ok(16_000));
        for bad in [Some(0), Some(1), Some(-16_000), Some(1_000_000_000)] {
            assert!(super::valid_sample_rate(bad).is_err(), "{bad:?}");
        }
    }

    use super::*;
    use proptest::prelude::*;

    #[test]
    fn commands_as_text_or_json() {
        assert_eq!(ControlCommand::parse("stats"), Ok(ControlCommand::Stats));
        assert_eq!(ControlCommand::parse(" RESET\n"), Ok(ControlCommand::Reset));
        assert_eq!(
            ControlCommand::parse(r#"{"command": "cancel"}"#),
            Ok(ControlCommand::Cancel)
        );
        assert_eq!(
            ControlCommand::parse(r#"{"command":"Ready","extra":1}"#),
            Ok(ControlCommand::Ready)
        );
        assert!(matches!(
            ControlCommand::parse("dance"),
            Err(CommandError::Unknown(_))
        ));
        assert!(matches!(
            ControlCommand::parse(r#"{"cmd": "stats"}"#),
            Err(CommandError::MissingCommand(_))
        ));
        assert!(matches!(
            ControlCommand::parse("{not json"),
            Err(CommandError::MissingCommand(_))
        ));
    }

    #[test]
    fn statuses_and_interrupts_round_trip() {
        for s in [
            StreamStatus::Started,
            StreamStatus::Ongoing,
            StreamStatus::Ended,
        ] {
            assert_eq!(StreamStatus::parse(s.as_str()), Some(s));
        }
        assert!(StreamStatus::ends_utterance(None));
        assert!(!StreamStatus::ends_utterance(Some(StreamStatus::Ongoing)));
        for k in [InterruptKind::Cancel, InterruptKind::Reset] {
            assert_eq!(InterruptKind::parse(k.as_str()), Some(k));
        }
    }

    #[test]
    fn stale_filter_orders_by_id_not_arrival() {
        let mut f = StaleFilter::new();
        assert!(!f.is_stale(1));
        assert!(f.interrupt(5));
        assert!(f.is_stale(4));
        assert!(!f.is_stale(5));
        // A late, older interrupt does not lower the floor.
        assert!(!f.interrupt(3));
        assert_eq!(f.floor(), 5);
    }

    proptest! {
        #[test]
        fn command_parser_never_panics(s in "\\PC{0,60}") {
            let _ = ControlCommand::parse(&s);
            let _ = shorten(&s);
        }
    }
}

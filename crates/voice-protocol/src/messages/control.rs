//! Who speaks when: `prepare`, `speech_started`, `turn`, `interrupt`; and the commands
//! on a decision node's `control`.

use super::{DecodeError, Fields, Message, Meta, missing, named, non_blank};
use crate::{InterruptKind, ids, keys};

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

/// The controller's `prepare`: `speaker` speaks soon and may read ahead for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepare {
    pub speaker: String,
    pub ahead_of: PrepareFor,
}

/// What a [`Prepare`] reads ahead for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PrepareFor {
    /// The answer to the human who is speaking (the words still to come).
    #[default]
    Answer,
    /// The participant's next turn, handed out once the voice has caught up with the
    /// lines already written: the others only read the conversation meanwhile.
    Turn,
}

impl PrepareFor {
    fn as_str(self) -> &'static str {
        match self {
            PrepareFor::Answer => "answer",
            PrepareFor::Turn => "turn",
        }
    }
}

impl Message for Prepare {
    const OUTPUT: &'static str = ids::PREPARE;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        let fields = Fields::new()
            .with_text(keys::SPEAKER, self.speaker.clone())
            .with_text(keys::PREPARE_FOR, self.ahead_of.as_str());
        (fields, self.speaker)
    }

    /// The speaker in the metadata, else the payload's; without `prepare_for`, an
    /// answer (what every `prepare` meant before turns were foretold).
    fn decode(meta: &impl Meta, text: String) -> Result<Self, DecodeError> {
        let ahead_of = match meta.text(keys::PREPARE_FOR) {
            None | Some("answer") => PrepareFor::Answer,
            Some("turn") => PrepareFor::Turn,
            Some(other) => {
                return Err(DecodeError::Invalid(format!(
                    "{}={other:?}: expected answer or turn",
                    keys::PREPARE_FOR
                )));
            }
        };
        Ok(Self {
            speaker: named(meta, &text),
            ahead_of,
        })
    }
}

speaker_message!(
    /// The voice detector heard a human begin to speak (`speech_started`); acting on it
    /// needs nothing but its arrival.
    SpeechStarted,
    ids::SPEECH_STARTED
);

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
    /// Words the reply is to take up (see [`keys::TAKES_UP`]).
    pub takes_up: Option<String>,
    /// The reply is a question.
    pub asks: bool,
    /// The turn answers the human's words just said, though the conductor's instruction
    /// says how (see [`keys::ANSWERS_HUMAN`]).
    pub answers_human: bool,
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
            .maybe_text(keys::PREPARED, self.prepared)
            .maybe_text(keys::TAKES_UP, self.takes_up);
        let fields = match self.asks {
            true => fields.with_flag(keys::ASKS, true),
            false => fields,
        };
        let fields = match self.answers_human {
            true => fields.with_flag(keys::ANSWERS_HUMAN, true),
            false => fields,
        };
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
            takes_up: non_blank(meta.text(keys::TAKES_UP)),
            asks: meta.flag(keys::ASKS).unwrap_or(false),
            answers_human: meta.flag(keys::ANSWERS_HUMAN).unwrap_or(false),
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

/// A command on a decision node's `control` input, in the words of its format (`stats`,
/// `slide 2`, `move_on`, ...): typed on a page, sent by a script, or `{"command": "…"}`.
/// Read in lower case ([`crate::command_text`]); each format reads its own words from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Control {
    pub command: String,
}

impl Control {
    pub fn new(command: impl Into<String>) -> Self {
        Self {
            command: command.into(),
        }
    }
}

impl Message for Control {
    const OUTPUT: &'static str = ids::CONTROL;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        (Fields::new(), self.command)
    }

    fn decode(_: &impl Meta, text: String) -> Result<Self, DecodeError> {
        let command =
            crate::command_text(&text).map_err(|e| DecodeError::Invalid(e.to_string()))?;
        if command.is_empty() {
            return Err(DecodeError::Invalid("an empty control command".to_owned()));
        }
        Ok(Self { command })
    }
}

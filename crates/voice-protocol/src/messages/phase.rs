//! The rehearsal moderator's `phase`: where the session is.

use super::{DecodeError, Fields, Message, Meta};
use crate::ids;

/// Where a rehearsal is, sent on `phase` as its name (`presenting`, `qa_trigger`,
/// `exchange`, `resolving`, `ended`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RehearsalPhase {
    Presenting,
    QaTrigger,
    Exchange,
    Resolving,
    Ended,
}

impl RehearsalPhase {
    pub const ALL: [RehearsalPhase; 5] = [
        RehearsalPhase::Presenting,
        RehearsalPhase::QaTrigger,
        RehearsalPhase::Exchange,
        RehearsalPhase::Resolving,
        RehearsalPhase::Ended,
    ];

    /// The phase as sent on `phase` and written in logs.
    pub fn name(self) -> &'static str {
        match self {
            RehearsalPhase::Presenting => "presenting",
            RehearsalPhase::QaTrigger => "qa_trigger",
            RehearsalPhase::Exchange => "exchange",
            RehearsalPhase::Resolving => "resolving",
            RehearsalPhase::Ended => "ended",
        }
    }

    /// The phase named `name` (surrounding blanks aside).
    pub fn from_name(name: &str) -> Option<Self> {
        let name = name.trim();
        Self::ALL.into_iter().find(|p| p.name() == name)
    }
}

impl Message for RehearsalPhase {
    const OUTPUT: &'static str = ids::PHASE;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        (Fields::new(), self.name().to_owned())
    }

    fn decode(_: &impl Meta, text: String) -> Result<Self, DecodeError> {
        Self::from_name(&text).ok_or_else(|| {
            DecodeError::Invalid(format!(
                "unknown phase `{}` (expected presenting, qa_trigger, exchange, resolving or ended)",
                crate::shorten(&text)
            ))
        })
    }
}

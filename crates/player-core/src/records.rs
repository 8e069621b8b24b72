//! The player's measurement records, one JSON object a line in the session folder, written
//! by the node and read by the benches: typed here so that writer and readers agree.

use serde::{Deserialize, Serialize};

/// The file of [`InterruptRecord`]s.
pub const INTERRUPTS_FILE: &str = "interrupts.jsonl";
/// The file of [`BargeInRecord`]s.
pub const BARGE_IN_FILE: &str = "barge_in.jsonl";

/// An interrupt as the player received it: when, in the recording's time, older voices
/// had to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterruptRecord {
    pub question_id: u64,
    /// The player's clock (the position in `conversation.wav`).
    pub at_ms: u64,
    /// Whether the player held anything (an utterance queued, sounding or waiting for
    /// its voice); absent in sessions recorded before it was.
    #[serde(default)]
    pub busy: Option<bool>,
}

/// A hold of the human's floor (`pause`) as the player carried it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BargeInRecord {
    /// A voice was sounding (not paused already, not idle).
    pub was_playing: bool,
    /// From the voice detector's timestamp to the player having the input.
    pub received_after_us: u64,
    /// From that timestamp until the fade was written to the device and the recording,
    /// plus the fade itself.
    pub silent_after_us: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_read_back_and_an_old_interrupt_line_lacks_busy() {
        let record = InterruptRecord {
            question_id: 7,
            at_ms: 1200,
            busy: Some(true),
        };
        let line = serde_json::to_string(&record).unwrap();
        assert_eq!(
            serde_json::from_str::<InterruptRecord>(&line).unwrap(),
            record
        );
        let old: InterruptRecord = serde_json::from_str(r#"{"question_id":3,"at_ms":5}"#).unwrap();
        assert_eq!(old.busy, None);
        let barge = BargeInRecord {
            was_playing: true,
            received_after_us: 1800,
            silent_after_us: 4200,
        };
        let line = serde_json::to_string(&barge).unwrap();
        assert_eq!(serde_json::from_str::<BargeInRecord>(&line).unwrap(), barge);
    }
}

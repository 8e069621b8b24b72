//! The recorder as a [`conductor::Core`], and what it is built from: written at the head
//! of its decision log, so that `replay` builds the same log and feeds it again.

use serde::{Deserialize, Serialize};

use crate::{Observed, Record, SessionLog};

/// The format name of the recorder's decision log (`decisions/<node-id>.jsonl`).
pub const RECORDER_FORMAT: &str = "session-recorder";

/// What a recorder is built from: whether its session is spoken (lines wait for what
/// was heard).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecorderSetup {
    pub spoken: bool,
}

impl RecorderSetup {
    pub fn build(self) -> SessionLog {
        if self.spoken {
            SessionLog::spoken()
        } else {
            SessionLog::new()
        }
    }
}

/// The recorder has no waits of its own: what it observes, whatever the time.
impl conductor::Core for SessionLog {
    type Input = Observed;
    type Output = Record;
    type Opening = ();

    fn handle(&mut self, observed: Observed, now_ms: u64) -> Vec<Record> {
        self.observe(observed, now_ms)
    }
}

#[cfg(test)]
mod tests {
    use conductor::Core;

    use super::*;

    #[test]
    fn the_end_writes_what_waits_and_a_format_record_is_stamped() {
        let mut log = RecorderSetup { spoken: true }.build();
        let line = Observed::Utterance {
            speaker: "tutor".into(),
            text: "Limits describe approach.".into(),
            question_id: 1,
            interrupted: false,
            human: false,
        };
        // Spoken: the line waits for what the player reports as heard.
        assert!(log.handle(line, 10).is_empty());
        let mut record = serde_json::Map::new();
        record.insert("event".into(), "bid".into());
        let out = log.handle(Observed::Record(record), 20);
        assert!(matches!(&out[..], [Record::Stamped(r)] if r["t_ms"] == 20 && r["event"] == "bid"));
        let out = log.handle(Observed::Ended, 30);
        assert!(
            matches!(&out[..], [Record::Transcript(t)] if t.question_id == 1),
            "{out:?}"
        );
    }
}

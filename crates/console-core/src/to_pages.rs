//! What the pages are sent: the transcript kept, and the messages that show the state.

use serde_json::Value;

use crate::*;

impl Console {
    pub(crate) fn push_line(
        &mut self,
        kind: &'static str,
        speaker: String,
        question_id: Option<u64>,
        text: String,
        now: u64,
    ) -> String {
        let line = Line {
            seq: self.next_seq,
            kind,
            speaker,
            question_id,
            text,
            played: None,
            cut: None,
            interrupted: false,
            at_ms: now,
        };
        self.next_seq += 1;
        let json = line_msg(&line);
        self.lines.push_back(line);
        self.trim_lines();
        json
    }

    pub(crate) fn trim_lines(&mut self) {
        while self.lines.len() > self.config.max_lines.max(1) {
            self.lines.pop_front();
        }
    }

    pub(crate) fn policy_msg(&self) -> String {
        msg(
            "policy",
            serde_json::to_value(&self.policy).unwrap_or_default(),
        )
    }

    pub(crate) fn latency_msg(&self) -> String {
        msg(
            "latency",
            serde_json::to_value(self.latency.view()).unwrap_or_default(),
        )
    }

    pub(crate) fn speaking_msg(&self) -> String {
        msg(
            "speaking",
            serde_json::json!({
                "now": self.voices.speaking.as_ref().map(|s| &s.0),
                "now_question_id": self.voices.speaking.as_ref().map(|s| s.1),
                "next": self.voices.next_speaker.as_ref().map(|s| &s.0),
                "human_speaking": self.voices.human_speaking,
            }),
        )
    }

    pub(crate) fn mic_msg(&self, client: ClientId) -> String {
        msg(
            "mic",
            serde_json::json!({
                "granted": self.mic_holder == Some(client),
                "busy": self.mic_holder.is_some_and(|h| h != client),
            }),
        )
    }
}

/// `{"type": kind, ...fields}`.
pub fn msg(kind: &str, fields: Value) -> String {
    let mut obj = match fields {
        Value::Object(map) => map,
        Value::Null => serde_json::Map::new(),
        other => {
            let mut m = serde_json::Map::new();
            m.insert("value".to_owned(), other);
            m
        }
    };
    obj.insert("type".to_owned(), Value::String(kind.to_owned()));
    Value::Object(obj).to_string()
}

pub(crate) fn line_msg(line: &Line) -> String {
    msg("line", serde_json::to_value(line).unwrap_or_default())
}

pub(crate) fn notice(text: &str) -> String {
    msg("notice", serde_json::json!({ "text": text }))
}

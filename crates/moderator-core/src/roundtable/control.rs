//! The operator's commands (`stats`, `stop`) and the JSON records the roundtable sends:
//! each decision and the status.

use serde_json::json;
use voice_protocol::shorten;

use super::decision::Decision;
use super::{Output, Roundtable};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Control {
    Stats,
    Stop,
}

impl Roundtable {
    /// A `control` command: `stats` or `stop` (plain text or `{"command": "..."}`).
    pub fn on_control(&mut self, text: &str, now_ms: u64) -> Vec<Output> {
        let mut out = Vec::new();
        match parse_control(text) {
            Some(Control::Stats) => out.push(Output::Status(self.status_json())),
            Some(Control::Stop) => {
                if self.close.ending.is_none() {
                    tracing::info!("stop requested: closing the roundtable");
                    self.floor = None;
                    self.pacing.held = None;
                    self.stop_rounds(now_ms, &mut out);
                }
            }
            None => tracing::warn!(
                command = %shorten(text),
                "unknown control command ignored (expected stats or stop)"
            ),
        }
        out
    }

    /// One decision as recorded: the decision, its number, time and phase.
    pub(super) fn decision_json(&self, d: &Decision, now_ms: u64) -> String {
        let mut value = serde_json::to_value(d).unwrap_or_else(|_| json!({}));
        if let Some(map) = value.as_object_mut() {
            map.insert("n".into(), json!(self.decisions));
            map.insert("t_ms".into(), json!(now_ms));
            map.insert("phase".into(), json!(self.state.phase.as_str()));
        }
        value.to_string()
    }

    fn status_json(&self) -> String {
        json!({
            "phase": self.state.phase.as_str(),
            "decisions": self.decisions,
            "phase_round": self.state.phase_round,
            "speak_counts": self.state.speak_counts,
            "current_speaker": self.current_speaker().map(|(a, _)| a),
            "question_id": self.current_speaker().map(|(_, q)| q).or(self.collecting()),
            "unheard": self.pacing.unplayed.len(),
            "ended": self.close.ending.is_some(),
        })
        .to_string()
    }
}

fn parse_control(text: &str) -> Option<Control> {
    let trimmed = text.trim();
    let word = if trimmed.starts_with('{') {
        serde_json::from_str::<serde_json::Value>(trimmed)
            .ok()?
            .get("command")?
            .as_str()?
            .trim()
            .to_ascii_lowercase()
    } else {
        trimmed.to_ascii_lowercase()
    };
    match word.as_str() {
        "stats" => Some(Control::Stats),
        "stop" | "end" => Some(Control::Stop),
        _ => None,
    }
}

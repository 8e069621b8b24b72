//! The operator's commands (`stats`, `stop`) and the JSON records the roundtable sends:
//! each decision and the status.

use std::collections::BTreeMap;

use serde::Serialize;
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
        to_json(&DecisionRecord {
            decision: d,
            n: self.decisions,
            t_ms: now_ms,
            phase: self.state.phase.as_str(),
        })
    }

    fn status_json(&self) -> String {
        to_json(&Status {
            phase: self.state.phase.as_str(),
            decisions: self.decisions,
            phase_round: self.state.phase_round,
            speak_counts: &self.state.speak_counts,
            current_speaker: self.current_speaker().map(|(a, _)| a),
            question_id: self.current_speaker().map(|(_, q)| q).or(self.collecting()),
            unheard: self.pacing.unplayed.len(),
            ended: self.close.ending.is_some(),
        })
    }
}

/// A decision on the `decision` output: the decision's own fields, then its number, time
/// and the phase it was taken in.
#[derive(Serialize)]
struct DecisionRecord<'a> {
    #[serde(flatten)]
    decision: &'a Decision,
    n: u64,
    t_ms: u64,
    phase: &'a str,
}

/// The roundtable's state, on `status` when asked for `stats`.
#[derive(Serialize)]
struct Status<'a> {
    phase: &'a str,
    decisions: u64,
    phase_round: u32,
    speak_counts: &'a BTreeMap<String, u32>,
    current_speaker: Option<&'a str>,
    question_id: Option<u64>,
    unheard: usize,
    ended: bool,
}

fn to_json(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|error| {
        tracing::warn!(%error, "a roundtable record not written as JSON");
        "{}".to_owned()
    })
}

fn parse_control(text: &str) -> Option<Control> {
    match voice_protocol::command_text(text).ok()?.as_str() {
        "stats" => Some(Control::Stats),
        "stop" | "end" => Some(Control::Stop),
        _ => None,
    }
}

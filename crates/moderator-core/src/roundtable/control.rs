//! The operator's commands (`stats`, `stop`) and the records the roundtable sends: each
//! decision and the status.

use voice_protocol::messages::{ModeratorDecision, RoundtableStatus};
use voice_protocol::shorten;

use super::decision::Decision;
use super::{Notice, Output, Roundtable};

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
            Some(Control::Stats) => out.push(Output::Status(self.status())),
            Some(Control::Stop) => {
                if self.close.ending.is_none() {
                    out.push(Output::Notice(Notice::StopRequested));
                    self.floor = None;
                    self.pacing.held = None;
                    self.stop_rounds(now_ms, &mut out);
                }
            }
            None => out.push(Output::Notice(Notice::UnknownCommand {
                command: shorten(text),
            })),
        }
        out
    }

    /// One decision as recorded: the decision, its number, time and phase.
    pub(super) fn decision_record(&self, d: &Decision, now_ms: u64) -> ModeratorDecision {
        ModeratorDecision {
            action: d.action.as_str().to_owned(),
            target: d.target.clone(),
            reason: d.reason.clone(),
            next_phase: d.next_phase.map(|p| p.as_str().to_owned()),
            is_interrupt: d.is_interrupt,
            is_rollback: d.is_rollback,
            n: self.decisions,
            t_ms: now_ms,
            phase: self.state.phase.as_str().to_owned(),
        }
    }

    fn status(&self) -> RoundtableStatus {
        RoundtableStatus {
            phase: self.state.phase.as_str().to_owned(),
            decisions: self.decisions,
            phase_round: self.state.phase_round,
            speak_counts: self.state.speak_counts.clone(),
            current_speaker: self.current_speaker().map(|(a, _)| a.to_owned()),
            question_id: self.current_speaker().map(|(_, q)| q).or(self.collecting()),
            unheard: self.pacing.unplayed.len(),
            ended: self.close.ending.is_some(),
        }
    }
}

fn parse_control(text: &str) -> Option<Control> {
    match voice_protocol::command_text(text).ok()?.as_str() {
        "stats" => Some(Control::Stats),
        "stop" | "end" => Some(Control::Stop),
        _ => None,
    }
}

//! The panelists' turns: the turn handed out, its streamed text assembled by wire
//! question id, and its end (the utterance, the notes, the rules told).

use voice_protocol::StreamStatus;

use super::Output;
use super::Rehearsal;
use super::decisions::{Event, Instruction};
use super::files::{AgentFile, ContextFile, Record, RecordEvent, WriteMode};
use super::notice::Notice;
use crate::messages;

/// A panelist's turn (`turn`); the node adds the assembled context.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub agent: String,
    pub question_id: u64,
    pub exchange_id: u64,
    /// What the panelist is asked to do, as sent.
    pub instruction: String,
    /// The panelist's prepared question, when the turn asks it: said as it is.
    pub prepared: Option<String>,
    pub kind: Instruction,
    pub at_ms: u64,
    /// What the question is to take up (`messages::turn_takes_up`).
    pub takes_up: Option<String>,
}

impl Turn {
    /// Whether the reply is to be a question: every panelist's turn asks the presenter.
    pub fn asks(&self) -> bool {
        matches!(
            self.kind,
            Instruction::AskQuestion | Instruction::FollowUp | Instruction::PileOn
        )
    }

    /// The `call` record of this turn, with what its context was made of.
    pub fn record(&self, context_bytes: usize, context_parts: &[String]) -> Record {
        Record::new(
            self.at_ms,
            RecordEvent::Call {
                agent: self.agent.clone(),
                question_id: self.question_id,
                exchange_id: self.exchange_id,
                instruction: self.kind,
                text: self.instruction.clone(),
                prepared: self.prepared.clone(),
                context_bytes,
                context_parts: context_parts.to_vec(),
            },
        )
    }
}

/// A turn handed to a panelist, by wire question id.
#[derive(Debug, Clone)]
pub(super) struct Call {
    pub(super) agent: String,
    /// The number the rules gave the call ([`Action::CallAgent`]'s `question_id`).
    pub(super) call_id: u64,
    pub(super) text: ::conductor::Utterance,
}

impl Rehearsal {
    /// Whether an input id is a panelist's text stream.
    pub(super) fn is_panelist(&self, input: &str) -> bool {
        self.config().agent_index(input).is_some()
    }

    /// A restarted bridge lost the turns it was answering: each ends now with what was said
    /// of it, as a failed generation ends (the exchange need not wait for the answer
    /// timeout).
    pub(super) fn restarted(&mut self, input: &str, now_ms: u64, out: &mut Vec<Output>) {
        let lost: Vec<u64> = self
            .pending
            .calls
            .iter()
            .filter(|(_, call)| call.agent == input)
            .map(|(q, _)| *q)
            .collect();
        for q in lost {
            self.agent_text(
                input,
                Some(q),
                Ok(String::new()),
                Some(StreamStatus::Ended),
                Some("the panelist's bridge restarted".into()),
                now_ms,
                out,
            );
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn agent_text(
        &mut self,
        agent: &str,
        question_id: Option<u64>,
        text: Result<String, String>,
        status: Option<StreamStatus>,
        error: Option<String>,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        let panelist = self.is_panelist(agent);
        let text = match text {
            Ok(text) if panelist => text,
            Ok(_) => {
                out.push(Output::Notice(Notice::UnknownInput {
                    input: agent.to_owned(),
                }));
                return;
            }
            // An `ended` chunk still ends the turn.
            Err(e) if panelist && status.is_some() => {
                out.push(Output::Notice(Notice::UnreadableText {
                    input: agent.to_owned(),
                    error: e,
                }));
                String::new()
            }
            Err(e) => {
                out.push(Output::Notice(Notice::UnreadableInput {
                    input: agent.to_owned(),
                    error: e,
                }));
                return;
            }
        };
        let Some(q) = question_id else {
            out.push(Output::Notice(Notice::NoQuestionId {
                input: agent.to_owned(),
            }));
            return;
        };
        let Some(call) = self.pending.calls.get_mut(&q) else {
            out.push(Output::Notice(Notice::NoCurrentCall {
                input: agent.to_owned(),
                question_id: q,
            }));
            return;
        };
        if call.agent != agent {
            out.push(Output::Notice(Notice::WrongPanelist {
                input: agent.to_owned(),
                question_id: q,
                expected: call.agent.clone(),
            }));
            return;
        }
        if call.text.push(&text) {
            out.push(Output::Notice(Notice::TooLong {
                agent: agent.to_owned(),
                question_id: q,
            }));
        }
        if !StreamStatus::ends_utterance(status) {
            return;
        }
        let Some(call) = self.pending.calls.remove(&q) else {
            return;
        };
        if let Some(error) = error {
            out.push(Output::Notice(Notice::TurnFailed {
                agent: agent.to_owned(),
                question_id: q,
                error,
            }));
        }
        let spoken = call.text.as_str().trim().to_owned();
        out.push(Output::Utterance {
            speaker: agent.to_owned(),
            question_id: q,
            text: spoken.clone(),
            human: false,
        });
        self.write(
            out,
            ContextFile::agent(agent, AgentFile::ExchangeNotes),
            format!("- [{}] I asked: {spoken}\n", messages::clock(now_ms)),
            WriteMode::Append,
        );
        self.qa.exchange_text.push(format!("{agent}: {spoken}"));
        self.feed(
            Event::AgentTurnFinished {
                agent: agent.to_owned(),
                question_id: call.call_id,
                text: spoken,
            },
            now_ms,
            out,
        );
    }
}

//! The floor holder's streamed text, assembled into its utterance; chunks of anyone
//! else, or of an older turn, are dropped.

use super::{Notice, Output, Roundtable, pacing::Held};

#[derive(Debug, Clone)]
pub(super) struct Floor {
    pub(super) agent: String,
    pub(super) question_id: u64,
    pub(super) text: ::conductor::Utterance,
}

impl Roundtable {
    /// A chunk of an agent's `text` stream (`input` is the agent id).
    pub fn on_text(
        &mut self,
        input: &str,
        question_id: Option<u64>,
        ends: bool,
        text: &str,
        error: Option<&str>,
        now_ms: u64,
    ) -> Vec<Output> {
        let mut out = Vec::new();
        if self.scenario().agent(input).is_none() {
            out.push(Output::Notice(Notice::UnknownInput {
                input: input.to_owned(),
            }));
            return out;
        }
        let Some(question_id) = question_id else {
            out.push(Output::Notice(Notice::NoQuestionId {
                input: input.to_owned(),
            }));
            return out;
        };
        let Some(floor) = self
            .floor
            .as_mut()
            .filter(|f| f.agent == input && f.question_id == question_id)
        else {
            out.push(Output::Notice(Notice::NotTheirFloor {
                input: input.to_owned(),
                question_id,
            }));
            return out;
        };
        if floor.text.push(text) {
            out.push(Output::Notice(Notice::TooLong {
                agent: input.to_owned(),
            }));
        }
        if !ends {
            return out;
        }
        let Some(floor) = self.floor.take() else {
            return out;
        };
        if let Some(error) = error {
            out.push(Output::Notice(Notice::GenerationFailed {
                agent: floor.agent.clone(),
                question_id,
                error: error.to_owned(),
            }));
        }
        let text = floor.text.as_str().trim().to_owned();
        if !text.is_empty() {
            out.push(Output::Utterance {
                speaker: floor.agent.clone(),
                question_id,
                text: text.clone(),
                human: false,
                heard: None,
            });
            self.said.last_said = Some((floor.agent.clone(), text.clone()));
            if self.config.paced {
                self.pacing.unplayed.said(question_id, None);
            }
        }
        self.pacing.held = Some(Held {
            agent: floor.agent,
            question_id,
            text,
        });
        if self.too_much_unplayed() {
            self.pacing.last_progress_ms = now_ms;
            out.push(Output::Notice(Notice::WaitingForPlayback {
                unheard: self.pacing.unplayed.ids().collect(),
            }));
        } else {
            self.deliver_held(now_ms, &mut out);
        }
        out
    }

    /// A restarted bridge lost the turn it was answering: the turn ends now, with what
    /// was heard of it, as a failed generation ends (the next speaker need not wait for
    /// the speech timeout).
    pub fn on_restarted(&mut self, input: &str, now_ms: u64) -> Vec<Output> {
        let lost = self
            .floor
            .as_ref()
            .filter(|f| f.agent == input)
            .map(|f| f.question_id);
        match lost {
            Some(question_id) => self.on_text(
                input,
                Some(question_id),
                true,
                "",
                Some("the agent's bridge restarted"),
                now_ms,
            ),
            None => Vec::new(),
        }
    }

    /// `agent` has the floor for the turn `question_id`: its text is taken from now on.
    pub(super) fn open_floor(&mut self, agent: &str, question_id: u64) {
        self.floor = Some(Floor {
            agent: agent.to_owned(),
            question_id,
            text: ::conductor::Utterance::default(),
        });
    }
}

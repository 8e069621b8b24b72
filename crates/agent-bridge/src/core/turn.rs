//! A turn of this participant: started (said from prepared words, or asked of the
//! model with the answer's opener first), its chunks passed on, and its end.

use voice_protocol::StreamStatus;

use super::{Active, BridgeCore, BridgeInput, BridgeOutput, GenerationRequest};
use crate::opener;

/// A turn handed to this participant, as [`BridgeInput::Turn`] carries it.
pub(super) struct TurnOrder {
    pub(super) question_id: u64,
    pub(super) instruction: Option<String>,
    pub(super) context: Option<String>,
    pub(super) prepared: Option<String>,
    pub(super) takes_up: Option<String>,
    pub(super) asks: bool,
    pub(super) answers_human: bool,
}

impl BridgeCore {
    /// A turn handed to this participant: its prompt asked of the model, or its prepared
    /// words said at once.
    pub(super) fn start_turn(&mut self, order: TurnOrder) -> Vec<BridgeOutput> {
        let TurnOrder {
            question_id,
            instruction,
            context,
            prepared,
            takes_up,
            asks,
            answers_human,
        } = order;
        let mut out = Vec::new();
        self.answered = question_id;
        // Kept for every later prompt, a turn said from prepared words too.
        if let Some(context) = context.filter(|c| !c.trim().is_empty()) {
            self.conductor_context = Some(context);
        }
        if let Some(a) = &self.active {
            out.push(BridgeOutput::Cancel {
                question_id: a.question_id,
            });
        }
        self.active = Some(Active {
            question_id,
            sent_any: false,
            lead: None,
            asked: None,
        });
        // The conversation's first line, when the agenda writes one: said at once,
        // while the model reads its first prompts (7 s of silence otherwise). Only
        // the first turn: a bridge restarted mid-session knows no lines either.
        let opening = (question_id == 1 && instruction.is_none() && self.history.is_empty())
            .then(|| self.agenda.opening().map(str::to_owned))
            .flatten();
        // Prepared ahead (while others spoke): said now, as a generation would.
        if let Some(words) = prepared.or(opening).filter(|w| !w.trim().is_empty()) {
            out.extend(self.decide(BridgeInput::Chunk {
                question_id,
                text: words.trim().to_owned(),
                ends_sentence: false,
            }));
            out.extend(self.decide(BridgeInput::Finished {
                question_id,
                error: None,
            }));
            return out;
        }
        let persona = self.speaking_persona();
        // What this participant contributes now: the conductor's request, or the
        // move the planner chose, put as a director's instruction.
        let (mut plan, direction) = self.plan_turn(question_id, instruction.as_deref());
        let prompt = self.turn_prompt(&persona, &direction);
        // The conductor said how to answer the human: it is an answer all the same.
        if answers_human {
            plan.action = dialogue_planner::Move::AnswerHuman;
        }
        // An answer to the human opens at once; the line break lets the
        // segmenter pass the opener on alone, before the model's words.
        let human_words = self.history.entries().rfind(|e| e.human);
        let opener = self
            .openers
            .as_mut()
            .filter(|_| plan.action == dialogue_planner::Move::AnswerHuman)
            .zip(human_words)
            .and_then(|(openers, line)| openers.choose(&line.text));
        if let (Some(opener), Some(active)) = (opener, self.active.as_mut()) {
            active.sent_any = true;
            active.lead = Some(String::new());
            out.push(BridgeOutput::Text {
                question_id,
                text: format!("{opener}\n"),
                status: StreamStatus::Started,
                error: None,
                ends_sentence: false,
            });
        }
        let asked = GenerationRequest {
            question_id,
            prompt,
            instruction,
            json: false,
            max_words: None,
            plan: Some(plan),
            opens_with: Vec::new(),
            takes_up: takes_up.filter(|t| !t.trim().is_empty()),
            asks,
        };
        if let Some(active) = self.active.as_mut() {
            active.asked = Some(asked.clone());
        }
        out.push(BridgeOutput::Generate(asked));
        out
    }

    /// A chunk of the model's reply to the active turn, passed on once its opener's lead
    /// is decided.
    pub(super) fn on_chunk(
        &mut self,
        question_id: u64,
        text: String,
        ends_sentence: bool,
    ) -> Vec<BridgeOutput> {
        let mut out = Vec::new();
        let Some(active) = self.active.as_mut() else {
            return out;
        };
        if active.question_id != question_id || text.is_empty() {
            return out;
        }
        let text = match active.lead.as_mut() {
            Some(lead) => {
                lead.push_str(&text);
                if !opener::lead_is_decided(lead) {
                    return out;
                }
                // After the opener's line break: no leading space.
                let stripped = opener::strip_lead(lead).trim_start().to_owned();
                lead.clear();
                // A lone "Sure!": the next words may open with one too.
                if stripped.trim().is_empty() {
                    return out;
                }
                active.lead = None;
                stripped
            }
            None => text,
        };
        let status = if active.sent_any {
            StreamStatus::Ongoing
        } else {
            StreamStatus::Started
        };
        active.sent_any = true;
        out.push(BridgeOutput::Text {
            question_id,
            text,
            status,
            error: None,
            ends_sentence,
        });
        out
    }

    /// The model's reply ended: what waited for its lead, then one `ended` chunk (with an
    /// error when it failed or said nothing).
    pub(super) fn on_finished(
        &mut self,
        question_id: u64,
        error: Option<String>,
    ) -> Vec<BridgeOutput> {
        let mut out = Vec::new();
        let Some(active) = self.active.take_if(|a| a.question_id == question_id) else {
            return out;
        };
        // What waited to have its pleasantry cut, when the reply ended first.
        if let Some(lead) = &active.lead {
            let rest = opener::strip_lead(lead).trim_start().to_owned();
            if !rest.is_empty() {
                out.push(BridgeOutput::Text {
                    question_id,
                    text: rest,
                    status: StreamStatus::Ongoing,
                    error: None,
                    ends_sentence: false,
                });
            }
        }
        let error = match (error, active.sent_any) {
            (None, false) => Some("the model returned an empty answer".to_owned()),
            (error, _) => error,
        };
        out.push(BridgeOutput::Text {
            question_id,
            text: String::new(),
            status: StreamStatus::Ended,
            error,
            ends_sentence: false,
        });
        out
    }
}

//! What goes in and out of the bridge core, and what a backend is asked for.

use dialogue_planner::TurnPlan;
use model_schedule::Priority;
use voice_protocol::{
    StreamStatus,
    messages::{PrepareFor, Reply},
};

use crate::{history::Entry, prompt::Prompt, request::SideRequest};

/// What a backend must produce.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GenerationRequest {
    pub question_id: u64,
    pub prompt: Prompt,
    /// What the conductor (a moderator, an auction) asked of this turn, if anything.
    pub instruction: Option<String>,
    /// A side request asking for one JSON object instead of speech.
    pub json: bool,
    /// The spoken length asked for (a side request's `max_words`); `None`: the backend's
    /// own turn budget.
    pub max_words: Option<usize>,
    /// The turn's move, when the bridge planned one (turns do, side requests don't).
    pub plan: Option<TurnPlan>,
    /// The reply opens with one of these words (a side request's verdict); empty: free.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub opens_with: Vec<String>,
    /// A text whose words the reply is to take up (a side request's `takes_up`); an
    /// answer to the human takes up the human's words without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub takes_up: Option<String>,
    /// The reply is a question (a side request's `asks`); a turn's plan says so itself.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub asks: bool,
}

impl GenerationRequest {
    /// How urgent this request is for a model that serves several participants: an
    /// answer to the human before any other turn, turns before side requests. Reading
    /// ahead ([`BridgeOutput::Prefill`]) is [`Priority::ReadAlong`], but for an answer
    /// to the human, whose reading ahead is the answer's own first work.
    pub fn priority(&self) -> Priority {
        match &self.plan {
            Some(plan) if plan.action == dialogue_planner::Move::AnswerHuman => Priority::Answer,
            _ if self.question_id == 0 => Priority::Side,
            _ => Priority::Turn,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BridgeInput {
    /// The node is up: a model that keeps a cache reads the participant's standing (its
    /// persona, the others) while nothing is said yet, instead of at its first turn.
    Started,
    /// The controller handed the turn to `speaker`, optionally with an instruction for
    /// this turn (a moderator's call, "keep it to one sentence", ...).
    Turn {
        speaker: String,
        question_id: u64,
        instruction: Option<String>,
        /// Context assembled by the conductor for this call (persona, knowledge, session
        /// files): replaces the persona's system prompt for this turn.
        context: Option<String>,
        /// Words prepared ahead for this turn (the participant's own, e.g. a candidate
        /// question): said at once, without generating.
        prepared: Option<String>,
        /// Words the reply is to take up (a slide's claims, the answer a follow-up
        /// tests): steered towards, and quoting them is no echo.
        takes_up: Option<String>,
        /// The reply is a question.
        asks: bool,
        /// The turn answers the human's words just said, as the instruction says: the
        /// model serves it first, and it opens as an answer does.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        answers_human: bool,
    },
    /// `speaker` will answer the human who is speaking, or is handed the next turn once
    /// the voice has caught up (the controller's `prepare`).
    Prepare {
        speaker: String,
        ahead_of: PrepareFor,
    },
    /// Everything older than `question_id` is stale.
    Interrupt { question_id: u64 },
    /// A finished utterance of anyone (this participant included).
    Utterance(Entry),
    /// The player's report (`played`) of an utterance cut off: only `heard` of it was heard.
    Played {
        speaker: String,
        question_id: u64,
        heard: String,
    },
    /// The player held its voice (the human began to speak) while an utterance sounded:
    /// `heard` of it was heard so far, all of it if the human's words now interrupt.
    Held {
        speaker: String,
        question_id: u64,
        heard: String,
    },
    /// The backend produced text for a generation (`ends_sentence`: it ends a sentence
    /// the guard took whole).
    Chunk {
        question_id: u64,
        text: String,
        ends_sentence: bool,
    },
    /// The backend finished a generation (with an error, if it failed).
    Finished {
        question_id: u64,
        error: Option<String>,
    },
    /// A conductor's side request (an intent, a bid, a candidate question, ...).
    Request(SideRequest),
    /// The model's answer to a side request (or why there is none).
    Answered {
        request: SideRequest,
        answer: Result<String, String>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BridgeOutput {
    /// Start generating (the node runs the backend).
    Generate(GenerationRequest),
    /// Read the conversation so far into the model ahead of a turn: the request's
    /// prompt is the turn's as far as it is known, and nothing is said.
    Prefill(GenerationRequest),
    /// Read this participant's next turn into the model as it would be asked now: if
    /// nothing more is said before it comes, the turn reads one token.
    ReadAhead(GenerationRequest),
    /// Stop the generation of `question_id` at once.
    Cancel { question_id: u64 },
    /// Send a chunk on `text` (`ends_sentence`: it ends a sentence the guard took whole).
    Text {
        question_id: u64,
        text: String,
        status: StreamStatus,
        error: Option<String>,
        ends_sentence: bool,
    },
    /// Ask the model a side request (the node runs it beside any turn, bounded in time),
    /// with the participant's whole context and the request last; its answer comes back
    /// as [`BridgeInput::Answered`].
    Ask {
        request: SideRequest,
        prompt: Prompt,
    },
    /// Send a side request's answer on `reply`.
    Reply(Reply),
}

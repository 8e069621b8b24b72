//! The reply policy: what of a model's reply may be said, the same for every backend.
//!
//! A turn's request (its prompt, plan and side-request fields) decides which sentences
//! the guard refuses (echoes of the conversation, recited instructions, another's name,
//! a statement where a question was due), what the reply is to take up, when a reply of
//! which nothing could be said is asked for again, and what is said when every attempt
//! was refused. The embedded model samples under it (steered, a refused sentence sampled
//! again from its own start); a service's streamed reply goes through the same filter
//! and is asked for again, a little warmer, when nothing of it could be said.

use crate::{
    ChatMessage, GenerationRequest, Persona, PromptLine,
    guard::{Refusal, SentenceGuard},
    local::{LocalPrompt, OutputFilter, prepared_words, quoted_spans, speaker_names},
};

/// How many more times a turn whose every sentence was refused is asked for.
pub const RESAMPLES: u32 = 2;

/// How many refused sentences, with nothing said yet, end an attempt early: that sample
/// is going nowhere, and a new attempt costs less than the rest of it.
pub const REFUSALS_BEFORE_RESAMPLE: usize = 2;

/// How much warmer each new attempt samples.
pub const RESAMPLE_WARMING: f32 = 0.15;

/// The request that ends a turn started afresh ([`ReplyPolicy::afresh_point`]).
pub fn afresh_request(point: &str) -> String {
    format!(
        "All of that has been said: give a fact or a reason about {point} that nobody gave yet, in one sentence."
    )
}

/// What a turn's reply may say; see the module's documentation.
#[derive(Debug, Clone)]
pub struct ReplyPolicy {
    /// Every name a speaker tag in the reply may use.
    names: Vec<String>,
    max_words: usize,
    /// The conversation's recent lines, without their speakers.
    said: Vec<String>,
    own_names: Vec<String>,
    others: Vec<String>,
    /// The persona and the direction, without the words the direction quotes to say.
    instructions: Vec<String>,
    /// What the model was shown: reciting it is no answer.
    shown: Vec<String>,
    /// What the reply may repeat: the words the direction quotes, what it takes up.
    may_repeat: Vec<String>,
    taking_up: Option<String>,
    asking: bool,
    /// A verdict on what was said (a rating) quotes it by nature: it is not guarded.
    verdict: bool,
    json: bool,
    prepared: Option<String>,
    afresh: Option<String>,
}

impl ReplyPolicy {
    /// The human's words a turn answers: the last line, when the plan is to answer the
    /// human who spoke last.
    pub fn answering(request: &GenerationRequest, prompt: &LocalPrompt) -> Option<String> {
        request
            .plan
            .as_ref()
            .filter(|p| p.action == dialogue_planner::Move::AnswerHuman)
            .and_then(|_| prompt.lines.last())
            .map(|line| line.text.clone())
    }

    /// The conductor's instruction a spoken turn follows.
    pub fn following(request: &GenerationRequest) -> Option<String> {
        request
            .plan
            .as_ref()
            .filter(|p| p.action == dialogue_planner::Move::FollowInstruction && !request.json)
            .and(request.instruction.as_deref())
            .filter(|i| !i.trim().is_empty())
            .map(str::to_owned)
    }

    /// The turn as the embedded model is given `request`'s prompt ([`LocalPrompt`]), with
    /// the human's words it answers and the instruction it follows put to the model.
    pub fn prompt(request: &GenerationRequest) -> LocalPrompt {
        Self::prompt_in_window(request, |lines| lines.to_vec())
    }

    /// As [`ReplyPolicy::prompt`], with the lines `window` selects of the conversation
    /// (an embedded model's window, [`crate::local::PromptWindow`]).
    pub fn prompt_in_window(
        request: &GenerationRequest,
        window: impl FnOnce(&[PromptLine]) -> Vec<PromptLine>,
    ) -> LocalPrompt {
        let mut prompt = LocalPrompt::new(&request.prompt);
        prompt.lines = window(&prompt.lines);
        if let Some(words) = Self::answering(request, &prompt) {
            prompt = prompt.answering(&words);
        }
        if let Some(instruction) = Self::following(request) {
            prompt = prompt.following(&instruction);
        }
        prompt
    }

    /// The policy of `request`'s reply, for `persona`. `prompt`: the turn as
    /// [`ReplyPolicy::prompt`] makes it (the lines the model sees); `shown`: the messages
    /// the model is given; `max_words`: the spoken length when the request sets none.
    pub fn new(
        request: &GenerationRequest,
        persona: &Persona,
        prompt: &LocalPrompt,
        shown: &[ChatMessage],
        max_words: usize,
    ) -> Self {
        // Everyone who spoke, also those whose lines no longer fit the prompt.
        let mut names = speaker_names(persona);
        names.extend(request.prompt.lines.iter().map(|l| l.speaker.clone()));
        names.extend(prompt.speakers());
        let answering = request
            .plan
            .as_ref()
            .filter(|p| p.action == dialogue_planner::Move::AnswerHuman)
            .and(prompt.asked.clone());
        // The words the reply is to take up: the human's it answers, or those a side
        // request names (a slide's claims for a question that challenges them).
        let taking_up = answering.or_else(|| {
            request
                .takes_up
                .clone()
                .filter(|_| !request.json && request.opens_with.is_empty())
        });
        let asking = !request.json
            && (request.asks
                || request
                    .plan
                    .as_ref()
                    .is_some_and(|p| p.asks(request.instruction.as_deref())));
        let own_names = vec![persona.name.clone(), persona.spoken_name().to_owned()];
        let others = prompt
            .speakers()
            .filter(|n| !own_names.contains(n))
            .collect();
        let said = prompt.lines.iter().map(|l| l.text.clone()).collect();
        // The instructions of this turn: the requests that close the system message when
        // something is asked, else the user's message.
        let direction = match prompt.asked {
            Some(_) => prompt.requests.join("\n\n"),
            None => prompt
                .to_messages(request.json)
                .get(1)
                .map(|m| m.content.clone())
                .unwrap_or_default(),
        };
        let following = Self::following(request);
        let instructions = std::iter::once(prompt.system.as_str())
            .chain(std::iter::once(direction.as_str()))
            .chain(following.as_deref())
            .map(|text| {
                quoted_spans(text)
                    .into_iter()
                    .fold(text.to_owned(), |text, quote| text.replace(quote, " "))
            })
            .collect();
        let may_repeat = quoted_spans(&direction)
            .into_iter()
            .map(str::to_owned)
            .chain(request.takes_up.clone())
            .collect();
        // The last attempt of a move of the participant's own starts afresh, on the
        // agenda's point: a conversation circling on one argument then gets a new one
        // instead of a silent turn.
        let afresh = request
            .plan
            .as_ref()
            .filter(|p| {
                !request.json
                    && !matches!(
                        p.action,
                        dialogue_planner::Move::AnswerHuman
                            | dialogue_planner::Move::FollowInstruction
                    )
            })
            .map(|p| p.point.clone());
        Self {
            names,
            max_words: request.max_words.unwrap_or(max_words),
            said,
            own_names,
            others,
            instructions,
            shown: shown.iter().map(|m| m.content.clone()).collect(),
            may_repeat,
            taking_up,
            asking,
            verdict: !request.opens_with.is_empty(),
            json: request.json,
            prepared: prepared_words(&direction),
            afresh,
        }
    }

    /// The filter of attempt `attempt` (from 0). The last attempt
    /// ([`RESAMPLES`]) may answer off the point and state instead of asking: a turn that
    /// does is still better than a silent one.
    pub fn filter(&self, attempt: u32) -> OutputFilter {
        let mut filter = OutputFilter::new(self.names.clone(), self.max_words);
        if self.verdict {
            return filter;
        }
        if self.asking {
            filter = filter.ending_after_question();
        }
        let last = attempt >= RESAMPLES;
        let mut guard = SentenceGuard::new(
            self.said.iter().map(String::as_str),
            &self.own_names,
            &self.others,
        )
        .with_instructions(self.instructions.iter().map(String::as_str));
        if let Some(words) = self.taking_up.as_deref() {
            guard = guard.quoting(words);
            if !last {
                guard = guard.answering(words);
            }
        }
        if self.asking && !last {
            guard = guard.asking();
        }
        filter
            .with_echo_sources(
                self.shown.iter().map(String::as_str),
                self.may_repeat.iter().map(String::as_str),
            )
            .with_guard(guard)
    }

    /// The words the reply is to take up (the human's it answers, a side request's).
    pub fn taking_up(&self) -> Option<&str> {
        self.taking_up.as_deref()
    }

    /// The reply is to ask a question.
    pub fn asking(&self) -> bool {
        self.asking
    }

    /// Whether attempt `attempt`, which `filter` judged so far, is given up for a new one:
    /// nothing said yet and [`REFUSALS_BEFORE_RESAMPLE`] sentences refused.
    pub fn gives_up(&self, filter: &OutputFilter, attempt: u32) -> bool {
        attempt < RESAMPLES
            && filter.emitted().is_empty()
            && filter.refused().len() >= REFUSALS_BEFORE_RESAMPLE
    }

    /// Whether a finished attempt that said what `filter` emitted is asked for again.
    pub fn asks_again(&self, filter: &OutputFilter, attempt: u32) -> bool {
        attempt < RESAMPLES && !self.json && filter.emitted().trim().is_empty()
    }

    /// What the next attempt starts on after `filter`'s: a question word where a
    /// statement was refused for asking nothing.
    pub fn insists_on_a_question(filter: &OutputFilter) -> bool {
        filter
            .refused()
            .iter()
            .any(|(why, _)| *why == Refusal::NoQuestion)
    }

    /// Whether the last attempt, which `filter` judged, said nothing because every
    /// sentence was refused (then [`ReplyPolicy::prepared_words`] are said, if any).
    pub fn silenced(&self, filter: &OutputFilter) -> bool {
        !self.json && filter.emitted().trim().is_empty() && !filter.refused().is_empty()
    }

    /// The words the direction prepared for the turn (a quoted candidate question): a
    /// turn whose every sentence was refused says them rather than nothing.
    pub fn prepared_words(&self) -> Option<&str> {
        self.prepared.as_deref()
    }

    /// The agenda's point the last attempt starts afresh on (a move of the participant's
    /// own; not an answer, an instruction followed or a side request).
    pub fn afresh_point(&self) -> Option<&str> {
        self.afresh.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Prompt;

    fn shown(request: &GenerationRequest) -> Vec<ChatMessage> {
        request.prompt.chat_messages("tutor")
    }

    fn persona() -> Persona {
        Persona::fallback("tutor")
    }

    fn request(lines: &[(&str, &str)], direction: &str) -> GenerationRequest {
        GenerationRequest {
            question_id: 1,
            prompt: Prompt {
                persona: "You are a patient calculus tutor.".into(),
                lines: lines
                    .iter()
                    .map(|(who, text)| PromptLine::new(*who, *text))
                    .collect(),
                requests: vec![direction.to_owned()],
                ..Prompt::default()
            },
            ..GenerationRequest::default()
        }
    }

    fn spoken(policy: &ReplyPolicy, attempt: u32, reply: &str) -> String {
        let mut filter = policy.filter(attempt);
        filter.push(reply);
        filter.finish();
        filter.emitted().trim().to_owned()
    }

    #[test]
    fn an_echo_of_the_last_line_is_refused_and_a_new_point_is_said() {
        let request = request(
            &[(
                "Ben",
                "A limit is the value a function approaches as x gets close.",
            )],
            "Reply to Ben with one new point.",
        );
        let persona = persona();
        let prompt = ReplyPolicy::prompt(&request);
        let policy = ReplyPolicy::new(&request, &persona, &prompt, &shown(&request), 22);
        assert_eq!(
            spoken(
                &policy,
                0,
                "A limit is the value a function approaches as x gets close. "
            ),
            ""
        );
        let fresh = "Think of walking toward a wall: you get as close as you like.";
        assert_eq!(spoken(&policy, 0, fresh), fresh);
    }

    #[test]
    fn a_reply_that_said_nothing_is_asked_again_until_the_last_attempt() {
        let request = request(&[("Ben", "What is a limit?")], "Answer Ben.");
        let persona = persona();
        let prompt = ReplyPolicy::prompt(&request);
        let policy = ReplyPolicy::new(&request, &persona, &prompt, &shown(&request), 22);
        let silent = policy.filter(0);
        assert!(policy.asks_again(&silent, 0));
        assert!(!policy.asks_again(&silent, RESAMPLES));
        let mut said = policy.filter(0);
        said.push("Picture a road sign that says the town is near. ");
        said.finish();
        assert!(!policy.asks_again(&said, 0));
    }

    #[test]
    fn the_direction_s_quoted_words_are_prepared_and_may_be_said() {
        let request = request(
            &[("Ben", "Our margin doubles in a year.")],
            "Ask the presenter: “Over how many months, at what capital cost?”",
        );
        let persona = persona();
        let prompt = ReplyPolicy::prompt(&request);
        let policy = ReplyPolicy::new(&request, &persona, &prompt, &shown(&request), 22);
        assert_eq!(
            policy.prepared_words(),
            Some("Over how many months, at what capital cost?")
        );
        assert_eq!(
            spoken(&policy, 0, "Over how many months, at what capital cost?"),
            "Over how many months, at what capital cost?"
        );
    }
}

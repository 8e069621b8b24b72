//! How a turn is worded for the model: the transcript, the request, the names it may write.

use super::*;

/// Speakers of any conversation whose name tags a small model may write out: its own
/// output is cut at them like at the other participants' names.
pub const COMMON_SPEAKERS: [&str; 6] = [
    "human",
    "tutor",
    "student",
    "moderator",
    "user",
    "assistant",
];

/// Every name a speaker tag in `persona`'s output may use: its own (as written and as
/// spoken) and the [`COMMON_SPEAKERS`]. A prompt adds the speakers of its lines
/// ([`LocalPrompt::speakers`]).
pub fn speaker_names(persona: &crate::Persona) -> Vec<String> {
    let mut names = vec![persona.name.clone(), persona.spoken_name().to_owned()];
    names.extend(COMMON_SPEAKERS.iter().map(|s| s.to_string()));
    names
}

/// Why a prompt cannot be given to the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FitError<E> {
    /// Measuring the prompt failed.
    #[error("{0}")]
    Measure(E),
    /// Even without any conversation line the prompt leaves no room to answer.
    #[error("the prompt needs {tokens} tokens; the context holds {room}")]
    TooLong { tokens: usize, room: usize },
}

/// The conversation lines a turn started afresh keeps ([`LocalPrompt::afresh`]).
pub const AFRESH_LINES: usize = 2;

/// A turn as a local model gets it: the persona as the system message, then one user
/// message with the recent conversation and what to do now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalPrompt {
    /// The persona and the topic.
    pub system: String,
    pub topic: Option<String>,
    /// Conversation lines, oldest first.
    pub lines: Vec<PromptLine>,
    /// What this call asks (a conductor's instruction, a side request's prompt).
    pub requests: Vec<String>,
    /// The words put to the participant this turn: the human's words it answers, or a
    /// conductor's instruction. A question is a request to the participant, so it is the
    /// user's message, as a small model expects a question to come; the instructions then
    /// close the system message. Without it, every line is context and the instructions
    /// are the user's message.
    pub asked: Option<String>,
}

impl LocalPrompt {
    /// A request's prompt as the embedded model is given it.
    pub fn new(prompt: &Prompt) -> Self {
        Self {
            system: prompt.system().trim().to_owned(),
            topic: prompt.topic.clone(),
            lines: prompt.lines.clone(),
            requests: prompt
                .requests
                .iter()
                .map(|r| r.trim().to_owned())
                .collect(),
            asked: None,
        }
    }

    /// This turn follows a conductor's `instruction` (a moderator's call, a question to
    /// probe): like a human's question, it is put to the model as the user's message, and
    /// the direction refers to it instead of holding it too (a small model recites what it
    /// reads twice, or reports on it).
    pub fn following(mut self, instruction: &str) -> Self {
        let instruction = instruction.trim();
        if instruction.is_empty() {
            return self;
        }
        let clause = dialogue_planner::task_clause(instruction);
        for request in &mut self.requests {
            *request = request.replace(&clause, dialogue_planner::TASK_ASKED_APART);
        }
        // A first line quoting what someone said ("The moderator said: Ben, would you start
        // us off?") is in the transcript already; asked again, the model answers the call
        // ("Yes, I am ready") instead of the task after it.
        let task = match instruction.split_once('\n') {
            Some((first, rest)) if quotes_a_call(first) && !rest.trim().is_empty() => rest.trim(),
            _ => instruction,
        };
        self.asked = Some(task.to_owned());
        self
    }

    /// This turn answers a human who said `words` (see [`LocalPrompt::asked`]). Their
    /// line, when it ends the transcript, is left out of it: said once, as the user's
    /// message, after the direction. Everything before the words is then the prompt as
    /// it was before the human spoke, which the model may have read ahead.
    pub fn answering(mut self, words: &str) -> Self {
        let words = words.trim();
        if words.is_empty() {
            self.asked = None;
            return self;
        }
        if self.lines.last().map(|l| l.text.trim()) == Some(words) {
            self.lines.pop();
        }
        self.asked = Some(words.to_owned());
        self
    }

    /// The same turn started afresh, for a last attempt after every sentence was refused
    /// as said before: only the last [`AFRESH_LINES`] lines, and a request for one new
    /// thing about `point` (the agenda's), so that a conversation circling on one
    /// argument gets a new one rather than a silent turn.
    pub fn afresh(&self, point: &str) -> Self {
        let mut fresh = self.clone();
        let keep = fresh.lines.len().saturating_sub(AFRESH_LINES);
        fresh.lines.drain(..keep);
        fresh.requests.push(crate::reply::afresh_request(point));
        fresh
    }

    /// The speakers of its lines, oldest first.
    pub fn speakers(&self) -> impl Iterator<Item = String> + '_ {
        self.lines.iter().map(|l| l.speaker.trim().to_owned())
    }

    /// The chat for a context of `room` tokens that must leave `answer` tokens to the
    /// answer: the oldest lines are dropped until the chat (as `tokenize` counts it)
    /// fits. Without any line left, a chat within 8 tokens of `room` is refused; a
    /// shorter one is given, the answer being cut by the context. Returns the tokens and
    /// the chat.
    pub fn fit<T, E>(
        &mut self,
        json: bool,
        room: usize,
        answer: usize,
        mut tokenize: impl FnMut(&[ChatMessage]) -> Result<Vec<T>, E>,
    ) -> Result<(Vec<T>, Vec<ChatMessage>), FitError<E>> {
        loop {
            let chat = self.to_messages(json);
            let tokens = tokenize(&chat).map_err(FitError::Measure)?;
            if tokens.len() + answer < room || self.lines.is_empty() {
                if tokens.len() + 8 >= room {
                    return Err(FitError::TooLong {
                        tokens: tokens.len(),
                        room,
                    });
                }
                return Ok((tokens, chat));
            }
            // Too long for the context: show fewer lines.
            self.lines.remove(0);
        }
    }

    /// The chat for the model: the persona and the whole conversation so far (a
    /// transcript with names) as its system message, then a director's instruction as the
    /// user's message: what this participant does now (the turn's move, a conductor's
    /// request). The last line is context like the others, never a request made to this
    /// speaker: handed over as the user's words, a small model answers, revises or
    /// repeats it. `json` asks for one JSON object instead of speech. The spoken length is
    /// the [`OutputFilter`]'s to enforce.
    pub fn to_messages(&self, json: bool) -> Vec<ChatMessage> {
        let mut system = cap_chars(&self.system, MAX_SYSTEM_CHARS);
        if !self.lines.is_empty() {
            system.push_str("\n\nThe conversation so far:\n");
            for line in &self.lines {
                system.push_str(&line.transcript());
                system.push('\n');
            }
        }
        let mut user = match (self.lines.last(), &self.topic) {
            // A conductor's instruction or the turn's move says what to do.
            _ if !self.requests.is_empty() => String::new(),
            (Some(line), _) => format!(
                "Reply to {}'s last line with one new point, in your own words.",
                line.speaker
            ),
            (None, Some(topic)) => {
                format!("Open our conversation about {topic} with one short question.")
            }
            (None, None) => "Open our conversation with one short question.".to_owned(),
        };
        for request in &self.requests {
            if !user.is_empty() {
                user.push_str("\n\n");
            }
            user.push_str(request);
        }
        if json {
            user.push_str("\nAnswer with one JSON object only.");
        } else if self.requests.iter().any(|r| has_chinese(r)) {
            user.push_str(" 请用中文回答。");
        }
        if let Some(asked) = self.asked.as_ref().filter(|_| !json) {
            system.push_str("\n\n");
            system.push_str(user.trim());
            user = asked.clone();
        }
        vec![
            ChatMessage {
                role: ChatRole::System,
                content: system,
            },
            ChatMessage {
                role: ChatRole::User,
                content: user,
            },
        ]
    }
}

/// `Someone said: …`: a line that quotes a call rather than asks something itself.
pub(super) fn quotes_a_call(line: &str) -> bool {
    line.split_once(':').is_some_and(|(who, _)| {
        let who = who.trim();
        who.ends_with(" said") && who.split_whitespace().count() <= 4
    })
}

/// The spans of `text` in quotes (“…”, "…"): words a speaker may be asked to say as they
/// are (a prepared question), unlike the rest of an instruction.
pub fn quoted_spans(text: &str) -> Vec<&str> {
    let mut spans = Vec::new();
    for (open, close) in [('“', '”'), ('"', '"'), ('「', '」')] {
        let mut rest = text;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + open.len_utf8()..];
            let Some(end) = after.find(close) else { break };
            if !after[..end].trim().is_empty() {
                spans.push(&after[..end]);
            }
            rest = &after[end + close.len_utf8()..];
        }
    }
    spans
}

/// What to say when every sample of a turn was refused but its direction quotes words
/// prepared for it (a rehearsal panelist's candidate question): the quote's first two
/// sentences, so that the turn is not silent. A quote of what someone said ("X just said:
/// “…”") is theirs, never prepared words.
pub fn prepared_words(direction: &str) -> Option<String> {
    let quote = quoted_spans(direction).into_iter().find(|quote| {
        let before = direction
            .find(quote)
            .map_or("", |at| &direction[..at])
            .trim_end_matches(['“', '"', '「'])
            .trim_end();
        !before.ends_with("said:") && !before.ends_with("said")
    })?;
    let mut said = String::new();
    for (n, sentence) in quote.split_inclusive(['.', '?', '!']).enumerate() {
        if n == 2 {
            break;
        }
        said.push_str(sentence);
    }
    let said = said.split_whitespace().collect::<Vec<_>>().join(" ");
    (!said.is_empty()).then_some(said)
}

/// Longest persona or conductor context a local prompt keeps (about 400 tokens): a model of
/// this size does not use more, and reading it would cost seconds per turn.
pub const MAX_SYSTEM_CHARS: usize = 1600;

/// `text` cut to at most `max` bytes at a line or sentence end where there is one.
pub(super) fn cap_chars(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    let cut = head
        .rfind('\n')
        .or_else(|| head.rfind(". ").map(|i| i + 1))
        .filter(|&i| i > max / 2)
        .unwrap_or(end);
    text[..cut].trim_end().to_owned()
}

pub(super) fn has_chinese(text: &str) -> bool {
    text.chars().any(text::script::is_han_or_kana)
}

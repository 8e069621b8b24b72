//! Prompting a small embedded model, without I/O: which lines of the conversation it
//! sees ([`PromptWindow`]), how a turn is worded for it ([`LocalPrompt`]), and how its
//! raw stream becomes spoken words ([`OutputFilter`]).
//!
//! A model of a hundred million parameters follows a transcript plus one plain request
//! far better than a long multi-turn chat, and it tends to continue the transcript as
//! other speakers, to put a name tag first and to decorate with markdown. The filter
//! removes all of that before any text leaves the bridge.

use crate::{
    guard::{Refusal, SentenceGuard},
    history::{ChatMessage, ChatRole},
};

/// How many conversation lines a local prompt shows at most, and how many are dropped at
/// once when that is exceeded. Dropping in steps keeps the prompt's beginning identical
/// from one turn to the next, so the model's cache of it can be reused.
#[derive(Debug, Clone)]
pub struct PromptWindow {
    max_lines: usize,
    hop: usize,
    kept: Vec<String>,
}

impl PromptWindow {
    /// The window of a bridge that shows at most `max_lines` lines: it drops a third of
    /// them at a time (at least one).
    pub fn of_lines(max_lines: usize) -> Self {
        Self::new(max_lines, (max_lines / 3).max(1))
    }

    pub fn new(max_lines: usize, hop: usize) -> Self {
        let max_lines = max_lines.max(1);
        Self {
            max_lines,
            hop: hop.clamp(1, max_lines),
            kept: Vec::new(),
        }
    }

    /// The lines to show, oldest first: the previous window extended by the lines that
    /// came after its last one; when it grows past `max_lines`, the oldest `hop` lines (or
    /// more) go. When a line of the previous window changed (cut to what was heard when
    /// the human barged in), the window keeps its first line and takes the lines as they
    /// are now from there, so the cache still holds everything before the change. Only
    /// when its first line is gone (the conversation window moved under it) does it
    /// start again from the newest lines.
    pub fn select(&mut self, lines: &[String]) -> Vec<String> {
        let continued = self.kept.last().and_then(|last| {
            let at = lines.iter().rposition(|l| l == last)?;
            let start = (at + 1).checked_sub(self.kept.len())?;
            (lines[start..=at] == self.kept[..]).then_some(at + 1)
        });
        let anchored = || {
            let first = self.kept.first()?;
            // The latest place the first line could start a window that ends now.
            let from = lines.len().saturating_sub(self.max_lines + self.kept.len());
            lines[from..]
                .iter()
                .position(|l| l == first)
                .map(|at| from + at)
        };
        match (continued, anchored()) {
            (Some(next), _) => self.kept.extend(lines[next..].iter().cloned()),
            (None, Some(start)) => self.kept = lines[start..].to_vec(),
            (None, None) => {
                let keep = self.max_lines.saturating_sub(self.hop).max(1);
                self.kept = lines[lines.len().saturating_sub(keep)..].to_vec();
            }
        }
        if self.kept.len() > self.max_lines {
            let keep = self.max_lines.saturating_sub(self.hop).max(1);
            self.kept.drain(..self.kept.len() - keep);
        }
        self.kept.clone()
    }
}

/// How many tokens of a model's cache (`cached`, the tokens it last computed) a new
/// `prompt` can keep: their common beginning, but never the whole prompt, since the
/// last prompt token must be computed again to predict what follows it.
pub fn reusable_prefix(cached: &[i32], prompt: &[i32]) -> usize {
    let common = cached
        .iter()
        .zip(prompt)
        .take_while(|(a, b)| a == b)
        .count();
    common.min(prompt.len().saturating_sub(1))
}

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
    pub system: String,
    /// Conversation lines, `Name: text`, oldest first.
    pub lines: Vec<String>,
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
    /// Reads the chat a bridge builds for any model (system prompt, attributed lines, then
    /// trailing instructions as system messages) back into its parts. `own_name` labels the
    /// participant's own (`assistant`) lines.
    pub fn from_messages(messages: &[ChatMessage], own_name: &str) -> Self {
        let mut system = String::new();
        let mut lines = Vec::new();
        let mut requests = Vec::new();
        for (i, message) in messages.iter().enumerate() {
            match message.role {
                ChatRole::System if i == 0 => system = persona_part(&message.content),
                ChatRole::System => {
                    let text = message.content.trim();
                    let text = text.strip_prefix("For this turn:").unwrap_or(text).trim();
                    requests.push(text.to_owned());
                }
                ChatRole::User => lines.push(user_line(&message.content)),
                ChatRole::Assistant => {
                    lines.push(format!("{own_name}: {}", message.content.trim()))
                }
            }
        }
        Self {
            system,
            lines,
            requests,
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
        let last_said = self.lines.last().map(|l| {
            l.split_once(": ")
                .map_or(l.as_str(), |(_, text)| text)
                .trim()
        });
        if last_said == Some(words) {
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
        fresh.requests.push(format!(
            "All of that has been said: give a fact or a reason about {point} that nobody gave yet, in one sentence."
        ));
        fresh
    }

    /// The speakers of its lines (the names before `:`), oldest first.
    pub fn speakers(&self) -> impl Iterator<Item = String> + '_ {
        self.lines
            .iter()
            .filter_map(|l| l.split_once(':').map(|(n, _)| n.trim().to_owned()))
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
                system.push_str(line);
                system.push('\n');
            }
        }
        let mut user = match (self.lines.last(), topic_of(&self.system)) {
            // A conductor's instruction or the turn's move says what to do.
            _ if !self.requests.is_empty() => String::new(),
            (Some(line), _) => match line.split_once(": ") {
                Some((speaker, _)) => {
                    format!("Reply to {speaker}'s last line with one new point, in your own words.")
                }
                None => "Reply to the last line with one new point, in your own words.".to_owned(),
            },
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
        } else if self.requests.iter().any(|r| has_cjk(r)) {
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
fn quotes_a_call(line: &str) -> bool {
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
fn cap_chars(text: &str, max: usize) -> String {
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

/// The topic a bridge wrote into the system prompt (`The topic of this conversation: X.`).
fn topic_of(system: &str) -> Option<&str> {
    let start =
        system.find("The topic of this conversation: ")? + "The topic of this conversation: ".len();
    let topic = system[start..].lines().next()?.trim().trim_end_matches('.');
    (!topic.is_empty()).then_some(topic)
}

/// The system prompt without the note on `[name]:` attribution that a bridge adds for
/// chat models (a local prompt spells the lines out itself).
fn persona_part(system: &str) -> String {
    let system = system.trim();
    match system.find("\nYou are `") {
        Some(i) if system[i..].contains("Other speakers' lines are shown as") => {
            system[..i].trim().to_owned()
        }
        _ => system.to_owned(),
    }
}

/// `[name]: text` (how a bridge attributes others' lines) as `name: text`.
fn user_line(content: &str) -> String {
    let content = content.trim();
    if let Some(rest) = content.strip_prefix('[')
        && let Some((name, text)) = rest.split_once("]:")
    {
        return format!("{}: {}", name.trim(), text.trim());
    }
    content.to_owned()
}

fn has_cjk(text: &str) -> bool {
    text.chars()
        .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c) || ('\u{3400}'..='\u{4dbf}').contains(&c))
}

/// What the filter made of a piece of the model's stream.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Filtered {
    /// Text to send now (possibly empty).
    pub text: String,
    /// Generation should stop: the budget is spent at a sentence end, or the model began
    /// speaking for someone else.
    pub stop: bool,
}

/// Turns a model's raw token stream into spoken text: drops a leading name tag
/// (`Ben:`, `[student1]:`, `Ms. Rivera (tutor):`), role and template tags, markdown
/// and quotes around the whole reply; stops where the model starts another speaker's
/// line, and at the first sentence end once `max_words` words were said (or at
/// `max_words * 2` words whatever happens).
#[derive(Debug, Clone)]
pub struct OutputFilter {
    names: Vec<String>,
    max_words: usize,
    /// Raw text not yet decided on (the start of the reply, or a line start that may be
    /// a name tag).
    pending: String,
    started: bool,
    words: usize,
    emitted: String,
    done: bool,
    /// The sentence being written, held back until it ends.
    sentence: String,
    sentence_words: usize,
    echo_sources: Vec<String>,
    /// Texts the reply may repeat (what it was asked to say).
    echo_allowed: Vec<String>,
    /// Refuses echoes of the conversation, filler and identity slips.
    guard: SentenceGuard,
    /// Sentences not said, and why.
    refused: Vec<(Refusal, String)>,
    /// The sentence being written goes on from a first clause already said: it is said
    /// to its end (the guard judged its beginning; half a sentence is worse).
    continuing: bool,
}

/// Words the reply's first clause needs before its comma or colon to be sent on its own
/// (as the segmenter cuts a first clause).
const FIRST_CLAUSE_WORDS: usize = 4;

/// How much of the reply's start is held back to recognise a name tag.
const HEAD_CHARS: usize = 48;

impl OutputFilter {
    /// `names`: every name a speaker tag may use (participant names, display names).
    pub fn new(names: Vec<String>, max_words: usize) -> Self {
        Self {
            names: names
                .into_iter()
                .map(|n| n.trim().to_lowercase())
                .filter(|n| !n.is_empty())
                .collect(),
            max_words: max_words.max(1),
            pending: String::new(),
            started: false,
            words: 0,
            emitted: String::new(),
            done: false,
            sentence: String::new(),
            sentence_words: 0,
            echo_sources: Vec::new(),
            echo_allowed: Vec::new(),
            guard: SentenceGuard::default(),
            refused: Vec::new(),
            continuing: false,
        }
    }

    /// Sentences are also checked by `guard` (the recent conversation, the names).
    pub fn with_guard(mut self, guard: SentenceGuard) -> Self {
        self.guard = guard;
        self
    }

    /// The sentences the model wrote that were not said, and why.
    pub fn refused(&self) -> &[(Refusal, String)] {
        &self.refused
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Everything emitted so far.
    pub fn emitted(&self) -> &str {
        &self.emitted
    }

    pub fn push(&mut self, piece: &str) -> Filtered {
        if self.done {
            return Filtered {
                text: String::new(),
                stop: true,
            };
        }
        self.pending.push_str(piece);
        if !self.started {
            // Hold the start back until a tag could be recognised.
            if self.pending.chars().count() < HEAD_CHARS && !self.pending.contains('\n') {
                return Filtered::default();
            }
            let head = std::mem::take(&mut self.pending);
            self.pending = strip_head(&head, &self.names);
            self.started = !self.pending.trim().is_empty();
            if !self.started {
                return Filtered::default();
            }
        }
        self.release(false)
    }

    /// The stream ended: whatever is still held back.
    pub fn finish(&mut self) -> Filtered {
        if self.done {
            return Filtered {
                text: String::new(),
                stop: true,
            };
        }
        if !self.started {
            let head = std::mem::take(&mut self.pending);
            self.pending = strip_head(&head, &self.names);
            self.started = true;
        }
        self.release(true)
    }

    /// Emits complete words of `pending`, watching for another speaker's tag and the
    /// budget.
    fn release(&mut self, at_end: bool) -> Filtered {
        let mut out = String::new();
        // A new line may begin another speaker's line: decide once it is long enough.
        if let Some(nl) = self.pending.find('\n') {
            let after = &self.pending[nl + 1..];
            let decided = at_end || after.contains(':') || after.chars().count() >= HEAD_CHARS;
            if !decided {
                let before = self.pending[..nl].to_owned();
                let rest = self.pending[nl..].to_owned();
                self.pending = before;
                let f = self.emit_words(&mut out, false);
                self.pending.push_str(&rest);
                return Filtered { text: out, stop: f };
            }
            if starts_with_tag(after, &self.names) || after.trim_start().starts_with("<|") {
                self.pending.truncate(nl);
                let _ = self.emit_words(&mut out, true);
                self.done = true;
                return Filtered {
                    text: out,
                    stop: true,
                };
            }
            self.pending = self.pending.replacen('\n', " ", 1);
        }
        if let Some(i) = self.pending.find("<|") {
            // A template token leaked: the reply is over.
            self.pending.truncate(i);
            let _ = self.emit_words(&mut out, true);
            self.done = true;
            return Filtered {
                text: out,
                stop: true,
            };
        }
        let stop = self.emit_words(&mut out, at_end);
        Filtered { text: out, stop }
    }

    /// Moves whole words from `pending` to `out`; with `all`, the last partial word too.
    /// Returns true when the budget ends the reply.
    fn emit_words(&mut self, out: &mut String, all: bool) -> bool {
        let cut = if all {
            self.pending.len()
        } else {
            // After the last whitespace, which may take more than one byte (a model may
            // write a no-break space).
            match self
                .pending
                .char_indices()
                .rev()
                .find(|(_, c)| ends_piece(*c))
            {
                Some((i, c)) => i + c.len_utf8(),
                None => return false,
            }
        };
        let ready: String = self.pending.drain(..cut).collect();
        for word in ready.split_inclusive(ends_piece) {
            let clean = clean_markup(word);
            if clean.trim().is_empty() {
                if !self.sentence.is_empty() && !self.sentence.ends_with(' ') && !clean.is_empty() {
                    self.sentence.push(' ');
                }
                continue;
            }
            self.sentence.push_str(&clean);
            self.sentence_words += spoken_words(&clean);
            let sentence_end = clean
                .trim_end()
                .ends_with(['.', '!', '?', '。', '！', '？'])
                && !is_abbreviation(clean.trim());
            let total = self.words + self.sentence_words;
            if self.words > 0
                && !self.continuing
                && total > self.max_words + budget_slack(self.max_words)
            {
                // Something is said already and this sentence cannot end near the
                // budget: drop it and stop generating, rather than run to twice the budget.
                self.sentence.clear();
                self.sentence_words = 0;
                self.done = true;
                self.pending.clear();
                return true;
            }
            // The first clause of an answer to a human goes to the voice at its comma or
            // colon when the guard takes it as it stands (it takes up the human's words):
            // the human need not wait for a long first sentence. Between agents the next
            // turn is prepared while one plays, and a clause said early would commit the
            // sentence before the guard could judge it (its rest repeating a line).
            let clause_end = !sentence_end
                && self.emitted.is_empty()
                && self.sentence_words >= FIRST_CLAUSE_WORDS
                && clean.trim_end().ends_with([',', ';', ':', '—'])
                && self.guard.answers_human()
                && !self.guard.awaits_question();
            if clause_end && self.release_clause(out) {
                self.done = true;
                self.pending.clear();
                return true;
            }
            let runaway = total >= self.max_words * 2;
            if (sentence_end && self.flush(out)) || runaway {
                if runaway {
                    self.flush(out);
                }
                self.done = true;
                self.pending.clear();
                return true;
            }
        }
        if all {
            self.flush(out);
        }
        false
    }

    /// The first clause of the reply, if the guard takes it as it stands: sent, and the
    /// sentence goes on from empty. Refused, it stays held as part of its sentence.
    /// True when the budget is spent.
    fn release_clause(&mut self, out: &mut String) -> bool {
        // The question it answers is in the prompt and in the recent lines: a clause that
        // starts on the human's words is not an echo for that.
        if self.guard.check_clause(&self.sentence).is_some() {
            return false;
        }
        let clause = std::mem::take(&mut self.sentence);
        let words = std::mem::take(&mut self.sentence_words);
        let spent = self.say(clause, words, out);
        self.continuing = true;
        spent
    }

    /// Sends the sentence held back, unless it only repeats the prompt; true when the
    /// budget is spent.
    fn flush(&mut self, out: &mut String) -> bool {
        let sentence = std::mem::take(&mut self.sentence);
        let words = std::mem::take(&mut self.sentence_words);
        // Nothing a voice could say (a closing `\]` left over from the last turn), or a
        // list's number alone ("1.", a list the budget cut after its first mark).
        if !sentence.chars().any(char::is_alphabetic) {
            self.continuing = false;
            return false;
        }
        if std::mem::take(&mut self.continuing) {
            return self.say(sentence, words, out);
        }
        if self.is_echo(&sentence) {
            self.refused
                .push((Refusal::Echo, sentence.trim().to_owned()));
            return false;
        }
        if let Some(refusal) = self.guard.check(&sentence) {
            self.refused.push((refusal, sentence.trim().to_owned()));
            return false;
        }
        self.say(sentence, words, out)
    }

    /// `sentence` (of `words` words) is said; true when the budget is spent.
    fn say(&mut self, sentence: String, words: usize, out: &mut String) -> bool {
        self.guard.remember(&sentence);
        let mut text = if self.emitted.is_empty() {
            sentence.trim_start()
        } else {
            sentence.as_str()
        }
        .to_owned();
        if !self.emitted.is_empty() && !self.emitted.ends_with(char::is_whitespace) {
            text.insert(0, ' ');
        }
        out.push_str(&text);
        self.emitted.push_str(&text);
        self.words += words;
        self.words >= self.max_words
    }

    /// A sentence of four words or more that stands in the prompt is an echo of it.
    fn is_echo(&self, sentence: &str) -> bool {
        let sentence = normalized_words(sentence);
        sentence.split(' ').count() >= 4
            && self.echo_sources.iter().any(|s| s.contains(&sentence))
            && !self.echo_allowed.iter().any(|s| s.contains(&sentence))
    }

    /// Sentences that merely repeat `sources` (the system prompt) are not spoken, unless
    /// they also stand in `allowed` (the request, which may quote what to say).
    pub fn with_echo_sources<'a>(
        mut self,
        sources: impl IntoIterator<Item = &'a str>,
        allowed: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        self.echo_sources = sources.into_iter().map(normalized_words).collect();
        self.echo_allowed = allowed.into_iter().map(normalized_words).collect();
        self
    }
}

/// How far past the budget a sentence after the first may end and still be said: half
/// the budget, at least two words (a short first sentence, "Yes, exactly.", must leave
/// room for the point that follows it). The first sentence may run to twice the budget,
/// so that a reply is never empty.
/// Where a piece of the reply ends: at whitespace, or in Chinese, which writes no spaces,
/// at its punctuation.
fn ends_piece(c: char) -> bool {
    c.is_whitespace() || matches!(c, '。' | '！' | '？' | '；' | '，' | '：' | '、')
}

/// How many words a piece of the reply counts for the budget: one, or for Chinese one
/// per two characters (about as long to say as an English word).
fn spoken_words(piece: &str) -> usize {
    let han = piece
        .chars()
        .filter(|c| matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}'))
        .count();
    han.div_ceil(2).max(1)
}

pub fn budget_slack(max_words: usize) -> usize {
    (max_words / 2).max(2)
}

/// A title or abbreviation whose full stop ends no sentence ("Ms. Rivera", "e.g.").
fn is_abbreviation(word: &str) -> bool {
    const ABBREVIATIONS: [&str; 12] = [
        "mr.", "ms.", "mrs.", "dr.", "prof.", "st.", "e.g.", "i.e.", "vs.", "etc.", "no.",
        "approx.",
    ];
    let word = word.trim_start_matches(|c: char| !c.is_alphanumeric());
    ABBREVIATIONS.contains(&word.to_lowercase().as_str())
}

/// Lower-case words of letters and digits, one space apart.
fn normalized_words(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The reply's beginning without a name tag, quotes or leading markup.
fn strip_head(head: &str, names: &[String]) -> String {
    let mut text = head.trim_start().to_owned();
    for _ in 0..3 {
        let before = text.clone();
        for tag in ["<|im_start|>", "assistant\n", "assistant:", "Assistant:"] {
            if let Some(rest) = text.strip_prefix(tag) {
                text = rest.trim_start().to_owned();
            }
        }
        if let Some(rest) = strip_tag(&text, names) {
            text = rest.trim_start().to_owned();
        }
        text = text
            .trim_start_matches(['"', '“', '*', '#', '-', '>', '`', ' '])
            .to_owned();
        if text == before {
            break;
        }
    }
    text
}

/// The text after a leading speaker tag, if it starts with one.
fn strip_tag<'a>(text: &'a str, names: &[String]) -> Option<&'a str> {
    let colon = text.find(':')?;
    let tag = &text[..colon];
    if tag.chars().count() > 40 || tag.contains('\n') {
        return None;
    }
    let tag = tag
        .trim()
        .trim_matches(['[', ']', '*', '"'])
        .trim()
        .to_lowercase();
    let bare = tag.split(" (").next().unwrap_or(&tag).trim();
    let known = names.iter().any(|n| {
        n == &tag || n == bare || tag.contains(&format!("({n})")) || bare.ends_with(n.as_str())
    });
    let generic = ["assistant", "answer", "reply", "response", "you", "me"].contains(&bare);
    (known || generic).then(|| &text[colon + 1..])
}

fn starts_with_tag(text: &str, names: &[String]) -> bool {
    strip_tag(text.trim_start(), names).is_some()
}

/// A word without markdown emphasis and code marks.
fn clean_markup(word: &str) -> String {
    word.chars()
        .filter(|c| !matches!(c, '*' | '`' | '#' | '_' | '|'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prepared_words_are_the_quotes_first_two_sentences() {
        let direction = "The moderator gives you the floor on The Problem. Ask your prepared question, in one or two sentences: \u{201c}How does the robot  pick? Why now? What about drones?\u{201d}";
        assert_eq!(
            prepared_words(direction).as_deref(),
            Some("How does the robot pick? Why now?")
        );
        assert_eq!(prepared_words("Ask one short follow-up question."), None);
        assert_eq!(
            prepared_words("Mia just said: \u{201c}Cities need trams.\u{201d}\nAnswer her."),
            None
        );
        assert_eq!(prepared_words("Say \u{201c} \u{201d}"), None);
    }

    #[test]
    fn a_bridges_window_drops_a_third_of_its_lines_at_a_time() {
        let lines: Vec<String> = (0..13).map(|i| format!("a: {i}")).collect();
        let mut w = PromptWindow::of_lines(12);
        assert_eq!(
            w.select(&lines[..12]).len(),
            8,
            "starts from the newest 12 - 4"
        );
        let mut w = PromptWindow::of_lines(12);
        w.select(&lines[..8]);
        assert_eq!(w.select(&lines[..12]).len(), 12);
        assert_eq!(w.select(&lines).len(), 8, "the oldest third went");
        let mut w = PromptWindow::of_lines(2);
        w.select(&lines[..2]);
        assert_eq!(w.select(&lines[..3]).len(), 2);
        assert_eq!(
            w.select(&lines[..4]).len(),
            1,
            "one line at a time, at least"
        );
    }

    #[test]
    fn speaker_names_are_the_personas_and_the_common_ones_and_the_prompts() {
        let persona = crate::Persona::fallback("tutor");
        let names = speaker_names(&persona);
        assert_eq!(names[0], "tutor");
        for common in COMMON_SPEAKERS {
            assert!(names.iter().any(|n| n == common), "{common}");
        }
        let prompt = LocalPrompt {
            system: String::new(),
            lines: vec!["Ann: hi".into(), "no tag".into(), " Bo : yes".into()],
            requests: Vec::new(),
            asked: None,
        };
        assert_eq!(prompt.speakers().collect::<Vec<_>>(), ["Ann", "Bo"]);
    }

    #[test]
    fn a_prompt_drops_its_oldest_lines_until_it_fits() {
        let mut prompt = LocalPrompt {
            system: "You are Ann.".into(),
            lines: (0..10)
                .map(|i| format!("Bo: line {i} of the talk"))
                .collect(),
            requests: Vec::new(),
            asked: None,
        };
        // One token per word of the whole chat.
        let words = |chat: &[ChatMessage]| -> Result<Vec<()>, ()> {
            Ok(chat
                .iter()
                .flat_map(|m| m.content.split_whitespace())
                .map(|_| ())
                .collect())
        };
        let full = words(&prompt.to_messages(false)).unwrap().len();
        let (tokens, chat) = prompt.fit(false, full + 10, 20, words).unwrap();
        assert!(tokens.len() + 20 < full + 10, "{}", tokens.len());
        assert_eq!(chat, prompt.to_messages(false));
        assert_eq!(
            prompt.lines.last().unwrap(),
            "Bo: line 9 of the talk",
            "the newest stay"
        );
        assert!(prompt.lines.len() < 10 && !prompt.lines.is_empty());
        // Nothing left to drop and no room: refused.
        let mut bare = LocalPrompt {
            system: "You are Ann, and this persona is far too long.".into(),
            lines: vec!["Bo: hello".into()],
            requests: Vec::new(),
            asked: None,
        };
        assert!(matches!(
            bare.fit(false, 8, 20, words),
            Err(FitError::TooLong { room: 8, .. })
        ));
        assert!(bare.lines.is_empty());
        assert_eq!(
            bare.fit(false, 1_000, 20, |_| Err::<Vec<()>, _>("no template")),
            Err(FitError::Measure("no template"))
        );
    }
    use proptest::prelude::*;

    fn names() -> Vec<String> {
        ["tutor", "Ms. Rivera", "student1", "Ben", "human"]
            .map(String::from)
            .to_vec()
    }

    fn run(filter: &mut OutputFilter, pieces: &[&str]) -> (String, bool) {
        let mut text = String::new();
        for p in pieces {
            let f = filter.push(p);
            text.push_str(&f.text);
            if f.stop {
                return (text, true);
            }
        }
        let f = filter.finish();
        text.push_str(&f.text);
        (text, f.stop)
    }

    #[test]
    fn a_leading_name_tag_and_markdown_are_dropped() {
        let mut f = OutputFilter::new(names(), 40);
        let (text, _) = run(
            &mut f,
            &[
                "Ms. Rivera",
                " (tutor):",
                " **Great** question",
                ", Ben. ",
                "Let's try x",
                " squared.",
            ],
        );
        assert_eq!(text, "Great question, Ben. Let's try x squared.");
        let mut f = OutputFilter::new(names(), 40);
        let (text, _) = run(&mut f, &["[student1]: I", " think so."]);
        assert_eq!(text, "I think so.");
    }

    #[test]
    fn another_speakers_line_ends_the_reply() {
        let mut f = OutputFilter::new(names(), 40);
        let (text, stop) = run(
            &mut f,
            &[
                "The derivative of x squared is two x.",
                "\nBen: ",
                "Oh I see.",
            ],
        );
        assert_eq!(text, "The derivative of x squared is two x.");
        assert!(stop);
        let mut f = OutputFilter::new(names(), 40);
        let (text, _) = run(&mut f, &["Yes, exactly.<|im_end|>", "junk"]);
        assert_eq!(text, "Yes, exactly.");
    }

    #[test]
    fn the_first_clause_of_an_answer_to_a_human_is_sent_at_its_comma() {
        let asked = "Ben: What is the derivative of x cubed?";
        let answering = || {
            OutputFilter::new(names(), 60)
                .with_guard(SentenceGuard::new([asked], &[], &[]).answering(asked))
        };
        let mut f = answering();
        // (The reply's first 48 characters are held to recognise a name tag.)
        assert_eq!(
            f.push("The derivative of x cubed, at any point x, ").text,
            ""
        );
        assert_eq!(f.push("is three ").text, "The derivative of x cubed, ");
        let rest = f.push("x squared. ");
        assert_eq!(rest.text, "at any point x, is three x squared. ");
        // Later clauses wait for their sentence.
        assert_eq!(f.push("So at two, ").text, "");
        // Once its first clause is said, a sentence is said to its end, past the budget
        // of words and whatever the guard would say of its rest alone.
        let mut f = OutputFilter::new(names(), 10)
            .with_guard(SentenceGuard::new([asked], &[], &[]).answering(asked));
        let (text, _) = run(
            &mut f,
            &[
                "The derivative of x cubed, at any point x along the whole real line, ",
                "is three x squared. The rest is over budget.",
            ],
        );
        assert_eq!(
            text.trim(),
            "The derivative of x cubed, at any point x along the whole real line, is three x squared."
        );
        // A clause the guard would refuse (not on the question) is held with its
        // sentence, judged whole.
        let mut f = answering();
        assert_eq!(
            f.push("Thank you so much, Ben, good that you ask, ").text,
            ""
        );
        let (text, _) = run(&mut f, &["the derivative is three x squared. "]);
        assert_eq!(
            text.trim(),
            "Thank you so much, Ben, good that you ask, the derivative is three x squared."
        );
        // Between agents, and in a turn that must ask, sentences leave whole.
        for mut f in [
            OutputFilter::new(names(), 60),
            OutputFilter::new(names(), 60).with_guard(
                SentenceGuard::new([asked], &[], &[])
                    .answering(asked)
                    .asking(),
            ),
        ] {
            assert_eq!(
                f.push("The derivative of x cubed, at any point x, is three ")
                    .text,
                ""
            );
        }
    }

    #[test]
    fn a_sentence_repeating_the_prompt_is_not_spoken() {
        let mut f = OutputFilter::new(names(), 40)
            .with_echo_sources(
                ["The topic of this conversation: derivatives in calculus. Ask: “Why is the slope a limit?”"],
                ["Ask your question: “Why is the slope a limit?”"],
            );
        let (text, _) = run(
            &mut f,
            &[
                "Why is the slope a limit? ",
                "The topic of this conversation: derivatives",
                " in calculus. ",
                "Take x squared.",
            ],
        );
        assert_eq!(text, "Why is the slope a limit? Take x squared.");
    }

    #[test]
    fn a_sentence_without_a_word_is_not_said() {
        let mut f = OutputFilter::new(names(), 20);
        let (text, _) = run(&mut f, &["\\]"]);
        assert_eq!(text, "");
        assert!(f.refused().is_empty());
        let mut f = OutputFilter::new(names(), 20);
        let (text, _) = run(&mut f, &["Take x cubed. 1. 2."]);
        assert_eq!(text.trim(), "Take x cubed.");
    }

    #[test]
    fn a_title_ends_no_sentence() {
        let mut f = OutputFilter::new(names(), 6);
        let (text, _) = run(
            &mut f,
            &[
                "Ms. Rivera says the slope is two. ",
                "Then more words follow here.",
            ],
        );
        assert_eq!(text.trim(), "Ms. Rivera says the slope is two.");
    }

    #[test]
    fn the_budget_ends_at_a_sentence_end() {
        let mut f = OutputFilter::new(names(), 5);
        let pieces: Vec<String> = "One two three four five six. Seven eight nine. Ten."
            .split_inclusive(' ')
            .map(String::from)
            .collect();
        let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
        let (text, stop) = run(&mut f, &refs);
        assert_eq!(text.trim(), "One two three four five six.");
        assert!(stop);
    }

    #[test]
    fn chinese_counts_two_characters_a_word_and_ends_at_its_full_stop() {
        let mut f = OutputFilter::new(names(), 10);
        // Streamed in pieces of three characters, with no space anywhere.
        let text = "我认为城市应该限制私家车。这样可以减少拥堵和污染。但是商店需要送货的通道。最后一句不该说。";
        let chars: Vec<char> = text.chars().collect();
        let pieces: Vec<String> = chars.chunks(3).map(|c| c.iter().collect()).collect();
        let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
        let (said, stop) = run(&mut f, &refs);
        // 12 characters (6 words), then 11 (6 words): the budget of 10 is spent at the
        // second full stop.
        assert_eq!(
            said.replace(' ', ""),
            "我认为城市应该限制私家车。这样可以减少拥堵和污染。"
        );
        assert!(stop);
    }

    #[test]
    fn a_later_sentence_that_overruns_the_budget_is_dropped() {
        let said = |text: &str| {
            let mut f = OutputFilter::new(names(), 10);
            let pieces: Vec<String> = text.split_inclusive(' ').map(String::from).collect();
            let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
            run(&mut f, &refs)
        };
        // 8 + 8 words: the second sentence would end 6 past the budget of 10.
        let (text, stop) = said(
            "One two three four five six seven eight. Nine ten eleven twelve thirteen fourteen fifteen sixteen. More.",
        );
        assert_eq!(text.trim(), "One two three four five six seven eight.");
        assert!(stop);
        // 8 + 3 words: one past the budget, within the slack.
        let (text, stop) =
            said("One two three four five six seven eight. Nine ten eleven. Twelve.");
        assert_eq!(
            text.trim(),
            "One two three four five six seven eight. Nine ten eleven."
        );
        assert!(stop);
    }

    #[test]
    fn a_window_grows_by_appending_and_drops_in_steps() {
        let mut w = PromptWindow::new(6, 3);
        let lines: Vec<String> = (0..20).map(|i| format!("l{i}")).collect();
        let mut previous: Vec<String> = Vec::new();
        let mut reused = 0;
        for n in 1..=20 {
            let shown = w.select(&lines[..n]);
            assert_eq!(shown.last(), lines.get(n - 1));
            assert!(shown.len() <= 6);
            if shown.starts_with(&previous) && !previous.is_empty() {
                reused += 1;
            }
            previous = shown;
        }
        // Most turns extend the previous prompt.
        assert!(reused >= 12, "{reused}");
    }

    #[test]
    fn a_line_cut_to_what_was_heard_keeps_the_window_before_it() {
        let mut w = PromptWindow::new(6, 3);
        let mut lines: Vec<String> = (0..5).map(|i| format!("l{i}")).collect();
        assert_eq!(w.select(&lines), lines[2..]);
        // The last line was cut when the human barged in, and the human's line follows.
        lines[4] = "l4 (cut)".into();
        lines.push("human: a question".into());
        let shown = w.select(&lines);
        assert_eq!(shown, ["l2", "l3", "l4 (cut)", "human: a question"]);
        // A window whose first line is gone starts again from the newest lines.
        let lines: Vec<String> = (10..20).map(|i| format!("l{i}")).collect();
        assert_eq!(w.select(&lines), lines[7..]);
    }

    #[test]
    fn an_opening_names_the_topic() {
        let p = LocalPrompt::from_messages(
            &[ChatMessage {
                role: ChatRole::System,
                content: "You are Ben.\nThe topic of this conversation: limits.\nYou are `student1`. Other speakers' lines are shown as `[name]: text`. Reply with your own spoken words only, without a name tag.".into(),
            }],
            "student1",
        );
        assert_eq!(
            p.system,
            "You are Ben.\nThe topic of this conversation: limits."
        );
        let chat = p.to_messages(false);
        assert_eq!(
            chat[1].content,
            "Open our conversation about limits with one short question."
        );
    }

    fn message(role: ChatRole, content: &str) -> ChatMessage {
        ChatMessage {
            role,
            content: content.into(),
        }
    }

    #[test]
    fn prompt_parts_round_trip() {
        let messages = vec![
            message(ChatRole::System, "You are the tutor."),
            message(ChatRole::User, "[human]: What is a derivative?"),
            message(ChatRole::Assistant, "A rate of change."),
            message(ChatRole::System, "For this turn: 请用一句话回答。"),
        ];
        let p = LocalPrompt::from_messages(&messages, "tutor");
        assert_eq!(
            p.lines,
            ["human: What is a derivative?", "tutor: A rate of change."]
        );
        assert_eq!(p.requests, ["请用一句话回答。"]);
        let chat = p.to_messages(false);
        assert_eq!(chat.len(), 2);
        assert!(chat[0].content.starts_with("You are the tutor."));
        assert!(chat[0].content.contains("human: What is a derivative?"));
        // The last line is context too; the user's message is only what to do.
        assert!(chat[0].content.contains("tutor: A rate of change."));
        assert!(chat[1].content.starts_with("请用一句话回答。"));
        assert!(chat[1].content.contains("请用一句话回答。"));
        assert!(chat[1].content.ends_with("请用中文回答。"));
    }

    #[test]
    fn a_humans_question_is_the_users_message() {
        let messages = vec![
            message(ChatRole::System, "You are the tutor."),
            message(ChatRole::User, "[Ben]: What is a limit?"),
            message(
                ChatRole::User,
                "[human]: Why is the derivative of x squared 2x?",
            ),
            message(
                ChatRole::System,
                "For this turn: Answer the question directly.",
            ),
        ];
        let p = LocalPrompt::from_messages(&messages, "tutor")
            .answering("Why is the derivative of x squared 2x?");
        let chat = p.to_messages(false);
        assert_eq!(chat.len(), 2);
        // The conversation and then the instructions are the system message...
        assert!(chat[0].content.contains("Ben: What is a limit?"));
        assert!(
            chat[0].content.ends_with("Answer the question directly."),
            "{}",
            chat[0].content
        );
        // ...and the human asks, as a user does, once: their line is not in the
        // transcript, so that the prompt before their words is the one before they spoke.
        assert_eq!(chat[1].content, "Why is the derivative of x squared 2x?");
        assert!(!chat[0].content.contains("squared"), "{}", chat[0].content);
        let before =
            LocalPrompt::from_messages(&[messages[0].clone(), messages[1].clone()], "tutor");
        assert!(p.lines == before.lines);
        // A side request in JSON keeps its shape.
        assert!(p.to_messages(true)[1].content.contains("JSON"));
        // Blank words ask nothing.
        assert_eq!(
            LocalPrompt::from_messages(&messages, "tutor")
                .answering("  ")
                .asked,
            None
        );
    }

    #[test]
    fn a_whitespace_of_several_bytes_ends_a_word_without_a_panic() {
        let mut f = OutputFilter::new(vec![], 60);
        let mut said = f.push("Ein\u{a0}Wort\u{3000}und ").text;
        said.push_str(&f.push("noch eines.").text);
        said.push_str(&f.finish().text);
        assert!(said.contains("Wort"), "{said}");
        assert!(said.contains("noch eines."), "{said}");
    }

    #[test]
    fn a_conductors_instruction_is_the_users_message_and_stands_once() {
        let instruction = "Probe the answer you just heard, in one short question: it sells.";
        let direction = format!(
            "For this turn: Your turn, Marcus (skeptic). {} Speak as Marcus.",
            dialogue_planner::task_clause(instruction)
        );
        let messages = vec![
            message(ChatRole::System, "You are Marcus, a skeptic."),
            message(ChatRole::User, "[presenter]: It sells."),
            message(ChatRole::System, &direction),
        ];
        let p = LocalPrompt::from_messages(&messages, "Marcus").following(instruction);
        let chat = p.to_messages(false);
        assert_eq!(chat[1].content, instruction);
        assert!(
            !chat[0].content.contains("Probe the answer"),
            "{}",
            chat[0].content
        );
        assert!(
            chat[0].content.contains(dialogue_planner::TASK_ASKED_APART),
            "{}",
            chat[0].content
        );
        // The call quoted before the task is context, not asked again.
        let call = "The moderator said: Marcus, would you start us off?\nWhat is your position?";
        let p = LocalPrompt::from_messages(&messages, "Marcus").following(call);
        assert_eq!(p.asked.as_deref(), Some("What is your position?"));
        // Nothing to follow, nothing asked.
        let p = LocalPrompt::from_messages(&messages, "Marcus").following(" ");
        assert_eq!(p.asked, None);
    }

    #[test]
    fn the_cache_keeps_the_shared_beginning_but_not_the_last_token() {
        assert_eq!(reusable_prefix(&[1, 2, 3, 9], &[1, 2, 3, 4, 5]), 3);
        assert_eq!(reusable_prefix(&[1, 2, 3], &[1, 2, 3]), 2);
        assert_eq!(reusable_prefix(&[], &[1]), 0);
        assert_eq!(reusable_prefix(&[5], &[]), 0);
    }

    #[test]
    fn a_turn_started_afresh_keeps_the_last_lines_and_asks_for_a_new_point() {
        let p = LocalPrompt {
            system: "You are the judge.".into(),
            lines: (1..=6).map(|i| format!("Ann: line {i}")).collect(),
            requests: vec!["Rebut the last argument.".into()],
            asked: None,
        };
        let fresh = p.afresh("parking and bikes");
        assert_eq!(fresh.lines, ["Ann: line 5", "Ann: line 6"]);
        let user = &fresh.to_messages(false)[1].content;
        assert!(user.contains("Rebut the last argument."), "{user}");
        assert!(
            user.contains("about parking and bikes that nobody gave yet"),
            "{user}"
        );
        assert!(!fresh.to_messages(false)[0].content.contains("line 4"));
    }

    #[test]
    fn a_long_context_is_cut_at_a_line_end() {
        let context = format!("You are Marcus.\n{}", "Some knowledge line.\n".repeat(200));
        let p = LocalPrompt {
            system: context,
            lines: vec![],
            requests: vec!["Ask your question.".into()],
            asked: None,
        };
        let system = &p.to_messages(false)[0].content;
        assert!(system.len() <= MAX_SYSTEM_CHARS, "{}", system.len());
        assert!(system.starts_with("You are Marcus.") && system.ends_with("line."));
    }

    proptest! {
        #[test]
        fn reuse_is_a_true_prefix(a in prop::collection::vec(0i32..4, 0..20), b in prop::collection::vec(0i32..4, 0..20)) {
            let n = reusable_prefix(&a, &b);
            prop_assert!(n < b.len().max(1));
            prop_assert_eq!(&a[..n], &b[..n]);
        }

        /// Whatever the model streams, the filter never emits a template tag, never more
        /// than twice the budget in words (a long first sentence), never more than the
        /// budget and its slack once a second sentence is said, and the output is the
        /// concatenation of what it returned.
        #[test]
        fn filter_output_is_bounded_and_clean(pieces in prop::collection::vec("[ a-zA-Z.:\\[\\]<|>\n*#]{0,12}", 0..60), budget in 1usize..30) {
            let mut f = OutputFilter::new(names(), budget);
            let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
            let (text, _) = run(&mut f, &refs);
            prop_assert!(!text.contains("<|"));
            prop_assert!(!text.contains('*') && !text.contains('#'));
            let words: Vec<&str> = text.split_whitespace().collect();
            prop_assert!(words.len() <= budget * 2);
            // After the first sentence, the reply ends within the budget's slack.
            // "Mr." ends no sentence.
            let first_end = words.iter().position(|w| w.ends_with('.') && !is_abbreviation(w));
            if first_end.is_some_and(|end| end + 1 < words.len()) {
                prop_assert!(words.len() <= budget + budget_slack(budget), "{text:?}");
            }
            prop_assert_eq!(text, f.emitted().to_owned());
        }

        /// With a guard, no sentence of the recent lines leaves the filter, however the
        /// model's stream is cut into pieces.
        #[test]
        fn a_recent_sentence_never_leaves_the_filter(
            // The last word ends in z: never a title such as "vs." that ends no sentence.
            recent in prop::collection::vec("[a-z]{2,6}( [a-z]{2,6}){3,8}z\\.", 1..8),
            fresh in "[q-z]{2,6}( [q-z]{2,6}){3,6}\\.",
            order in prop::collection::vec(any::<prop::sample::Index>(), 1..4),
            cut in 1usize..9,
        ) {
            let guard = SentenceGuard::new(recent.iter().map(String::as_str), &[], &[]);
            let mut f = OutputFilter::new(names(), 200).with_guard(guard);
            let mut reply = String::new();
            for pick in &order {
                let line: &String = pick.get(&recent);
                reply.push_str(line);
                reply.push(' ');
            }
            reply.push_str(&fresh);
            let chars: Vec<char> = reply.chars().collect();
            let pieces: Vec<String> = chars.chunks(cut).map(|c| c.iter().collect()).collect();
            let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
            let (text, _) = run(&mut f, &refs);
            for line in &recent {
                prop_assert!(!text.contains(line.as_str()), "{line:?} in {text:?}");
            }
            prop_assert_eq!(f.refused().len(), order.len());
        }

        /// The window always ends with the newest line and never exceeds its size.
        #[test]
        fn window_is_bounded(ops in prop::collection::vec(0u8..3, 1..60)) {
            let mut w = PromptWindow::new(8, 3);
            let mut lines: Vec<String> = Vec::new();
            for (i, op) in ops.into_iter().enumerate() {
                match op {
                    0 | 1 => lines.push(format!("line {i}")),
                    _ => { if let Some(last) = lines.last_mut() { last.push('x'); } }
                }
                if lines.len() > 20 { lines.remove(0); }
                let shown = w.select(&lines);
                prop_assert!(shown.len() <= 8);
                prop_assert_eq!(shown.last(), lines.last());
            }
        }
    }
}

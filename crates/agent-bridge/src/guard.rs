//! What a participant must not say, sentence by sentence, before words leave a bridge.
//!
//! Group chats of language models drift into loops: a sentence said a moment ago is said
//! again, everyone thanks everyone, one speaker introduces itself with another's name. A
//! [`SentenceGuard`] holds the recent lines of the conversation and refuses such sentences;
//! the bridge then samples again or ends the turn short.

use std::collections::HashSet;

use conversation_quality::{answers, words::words as quality_words};

/// How many recent lines (by anyone) a sentence is compared with.
pub const RECENT_LINES: usize = 8;

/// The share of a sentence's word 3-grams already said in the recent lines from which it
/// counts as an echo: stricter than the benchmark's half, since a model rewording the
/// last line changes a few words of it and keeps the rest.
pub const ECHO_SHARE: f64 = 0.35;

/// Why a sentence is not spoken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Mostly said in the recent lines.
    Echo,
    /// Nothing but a stock pleasantry, after the opening exchange.
    Pleasantry,
    /// The speaker presents itself as someone else.
    Identity,
    /// The first sentence of an answer to the human takes up none of the human's words.
    Unanswered,
    /// It reports what someone said ("The human asked: …", "Her answer: …") or narrates
    /// the conversation ("Tomás Lindqvist has expressed interest …", said by Tomás;
    /// "David Dove suggested …") instead of saying something.
    Reported,
    /// The turn was to ask a question, and this sentence (past a short lead-in) asks
    /// none.
    NoQuestion,
}

impl Refusal {
    pub fn as_str(self) -> &'static str {
        match self {
            Refusal::Echo => "echo",
            Refusal::Pleasantry => "pleasantry",
            Refusal::Identity => "identity",
            Refusal::Unanswered => "unanswered",
            Refusal::Reported => "reported",
            Refusal::NoQuestion => "no_question",
        }
    }
}

/// Sentences that thank, agree or encourage and say nothing else: fine as an opening,
/// filler once the conversation runs.
pub const PLEASANTRIES: &[&str] = &[
    "thank you",
    "thanks",
    "you're welcome",
    "you are welcome",
    "great question",
    "good question",
    "great point",
    "good point",
    "i'm glad",
    "i am glad",
    "i'm so glad",
    "glad to help",
    "happy to help",
    "feel free to ask",
    "if you have any other questions",
    "if you have any more questions",
    "let me know if",
    "i hope this helps",
    "i agree",
    "absolutely",
    "exactly",
    "well said",
    "that's a great",
    "that is a great",
    "that's right",
    "sounds good",
    "nice to meet you",
    "keep up the good work",
    "you're doing great",
    "i appreciate",
    "sure",
    "of course",
    "certainly",
    "okay",
    "ok",
    "alright",
    "all right",
    "no problem",
    "great",
    "yes",
    "hi",
    "hello",
    "hey",
    "welcome",
    "let's discuss",
    "let's continue",
    "let's start",
    "let's begin",
    "let's dive in",
    "let's dive into",
    "sure thing",
    "how can i help",
    "yeah",
    "yep",
    "i see",
    "i know",
    "i understand",
    "got it",
    "makes sense",
    "oh",
    "hmm",
    "surely",
    "you're right",
    "you are right",
    "you're absolutely right",
    "you're correct",
    "you are correct",
    "that's correct",
    "that is correct",
    "you're absolutely",
    "indeed",
];

/// What an assistant says, never a participant of a conversation: refused like filler.
pub const ASSISTANT_LINES: &[&str] = &[
    "i'm sorry but i can't",
    "i am sorry but i can't",
    "i'm sorry but i cannot",
    "sorry but i can't",
    "i can't assist",
    "i cannot assist",
    "not able to assist",
    "unable to assist",
    "can't help with that",
    "cannot help with that",
    "not able to help with that",
    "can't fulfill",
    "cannot fulfill",
    "can't comply",
    "cannot comply",
    "apologize but",
    "don't have enough context",
    "don't have enough information",
    "do not have enough context",
    "do not have enough information",
    "provide more details",
    "provide more context",
    "provide more information",
    "as an ai",
    "as a language model",
    "how can i help",
    "how can i assist",
    "is there anything else",
    "i'm here to help",
    "i am here to help",
    "sorry for any confusion",
    "sorry for the confusion",
    "sorry for the misunderstanding",
    "sorry for any misunderstanding",
    "apologize for",
];

/// Words that may stand between a name and its verb ("Dr. Nadia also states").
const ADVERBS: &[&str] = &[
    "also", "then", "now", "clearly", "further", "again", "still",
];

/// What the speaker's own name may possess in a narrator's line ("Tomás Lindqvist's
/// position: …", said by Tomás).
const POSSESSED: &[&str] = &[
    "position",
    "point",
    "statement",
    "claim",
    "closing",
    "opening",
    "view",
    "argument",
    "answer",
    "question",
    "last",
    "final",
    "tone",
    "mood",
    "message",
    "response",
    "reply",
];

/// Verbs after another participant's name that make a sentence report on them.
const REPORTING: &[&str] = &[
    "said",
    "says",
    "asked",
    "asks",
    "stated",
    "states",
    "suggested",
    "suggests",
    "mentioned",
    "mentions",
    "discussed",
    "discusses",
    "emphasized",
    "emphasised",
    "emphasizes",
    "argued",
    "argues",
    "thinks",
    "believes",
    "agrees",
    "agreed",
    "disagrees",
    "disagreed",
    "expressed",
    "explained",
    "explains",
    "noted",
    "notes",
    "pointed",
    "just",
    "encouraged",
    "encourages",
    "claims",
    "claimed",
    "wants",
    "wanted",
    "felt",
    "feels",
    "acknowledged",
    "acknowledges",
    "insists",
    "insisted",
    "replied",
    "replies",
    "responded",
    "responds",
    "points",
    "countered",
    "counters",
    "called",
    "concluded",
    "concludes",
];

/// Verbs after the speaker's own name that make a sentence narrate it in the third
/// person: those of [`REPORTING`] and a few more.
const NARRATING: &[&str] = &[
    "said",
    "says",
    "asked",
    "asks",
    "stated",
    "suggested",
    "suggests",
    "mentioned",
    "discussed",
    "emphasized",
    "emphasised",
    "argued",
    "argues",
    "thinks",
    "believes",
    "agrees",
    "disagrees",
    "expressed",
    "explained",
    "noted",
    "pointed",
    "just",
    "encouraged",
    "claims",
    "wants",
    "has",
    "had",
    "is",
    "was",
    "will",
    "would",
    "can",
    "feels",
    "knows",
    "hopes",
    "felt",
    "acknowledged",
    "states",
    "replied",
    "responded",
    "concludes",
    "concluded",
    "countered",
    "counters",
    "called",
    "calls",
    "points",
    "rules",
    "ruled",
    "finds",
];

/// How many words a statement before the question of an asking turn may have.
pub const LEAD_IN_WORDS: usize = 6;

/// A sentence that asks (ends with a question mark, perhaps before a closing quote).
fn is_question(sentence: &str) -> bool {
    sentence
        .trim_end()
        .trim_end_matches(['"', '\'', '”', '’', ')'])
        .ends_with(['?', '？'])
}

/// Titles that make the next words a name.
const TITLES: &[&str] = &[
    "dr",
    "dr.",
    "doctor",
    "prof",
    "prof.",
    "professor",
    "ms",
    "ms.",
    "mr",
    "mr.",
    "mrs",
    "mrs.",
    "judge",
    "counsel",
];

/// A sentence guard for one participant's turn.
#[derive(Debug, Clone, Default)]
pub struct SentenceGuard {
    /// Word 3-grams of the recent lines.
    recent: HashSet<[String; 3]>,
    /// Word 3-grams of the speaker's instructions.
    instructions: HashSet<[String; 3]>,
    /// Whole recent lines and sentences, normalized, for short sentences.
    recent_sentences: HashSet<String>,
    /// The conversation is past its opening line.
    running: bool,
    /// Names this participant answers to (lower case words).
    own_names: Vec<String>,
    /// Names of the others (lower case words).
    other_names: Vec<String>,
    /// Role words only this participant's names hold ("judge" for "Judge Okafor",
    /// "defense" for "Counsel for the defense"): a subject like a name.
    own_roles: Vec<String>,
    /// Role words only the others' names hold.
    other_roles: Vec<String>,
    /// The content-word stems of the human's line being answered, until a sentence that
    /// takes one of them up is said.
    answering: Option<HashSet<String>>,
    /// The turn is to ask a question, until one is said.
    asking: bool,
    /// A short statement before the question was said.
    led_in: bool,
}

impl SentenceGuard {
    /// `recent`: the conversation's last lines, oldest first (only the last
    /// [`RECENT_LINES`] count); `own_names`: the names of the speaker; `other_names`: the
    /// names of the other participants.
    pub fn new<'a>(
        recent: impl IntoIterator<Item = &'a str>,
        own_names: &[String],
        other_names: &[String],
    ) -> Self {
        let lines: Vec<&str> = recent.into_iter().collect();
        // Past the opening line: from then on a bare pleasantry answers nothing.
        let running = !lines.is_empty();
        let lines = &lines[lines.len().saturating_sub(RECENT_LINES)..];
        let (own_roles, other_roles) = (role_words(own_names), role_words(other_names));
        let mut guard = Self {
            running,
            own_names: name_words(own_names),
            other_names: name_words(other_names)
                .into_iter()
                .filter(|n| !name_words(own_names).contains(n))
                .collect(),
            own_roles: own_roles
                .iter()
                .filter(|r| !other_roles.contains(r))
                .cloned()
                .collect(),
            other_roles: other_roles
                .iter()
                .filter(|r| !own_roles.contains(r))
                .cloned()
                .collect(),
            ..Self::default()
        };
        for line in lines {
            guard.remember(line);
        }
        guard
    }

    /// Instructions the speaker was given (its persona, the turn's direction): a sentence
    /// mostly made of their 3-grams recites them, and is refused like an echo. Quoted
    /// spans in them (words to say) should be left out by the caller.
    pub fn with_instructions<'a>(mut self, texts: impl IntoIterator<Item = &'a str>) -> Self {
        for text in texts {
            let said = words(text);
            for gram in said.windows(3) {
                self.instructions
                    .insert([gram[0].clone(), gram[1].clone(), gram[2].clone()]);
            }
        }
        self
    }

    /// The turn answers the human's `line`: its first sentence must take up one of the
    /// line's content words (as the benchmark counts an answer that addresses the human),
    /// so that the reply starts on what was asked rather than on the agenda. A line with
    /// no content word asks nothing of the reply.
    pub fn answering(mut self, line: &str) -> Self {
        let stems = answers::content_stems(&quality_words(line));
        self.answering = (!stems.is_empty()).then_some(stems);
        self
    }

    /// The turn is to ask a question (its move or its conductor says so): the first
    /// sentence must be a question, or a short lead-in of at most
    /// [`LEAD_IN_WORDS`] words followed by one.
    pub fn asking(mut self) -> Self {
        self.asking = true;
        self
    }

    /// The turn must still ask its question: only a whole sentence can tell.
    pub fn awaits_question(&self) -> bool {
        self.asking
    }

    /// The turn answers a human whose words the reply has not taken up yet.
    pub fn answers_human(&self) -> bool {
        self.answering.is_some()
    }

    /// A sentence now said counts as recent for the rest of the turn.
    pub fn remember(&mut self, text: &str) {
        self.answering = None;
        if self.asking {
            if sentences(text).any(is_question) {
                self.asking = false;
            } else {
                self.led_in = true;
            }
        }
        let said = words(text);
        for gram in said.windows(3) {
            self.recent
                .insert([gram[0].clone(), gram[1].clone(), gram[2].clone()]);
        }
        for sentence in sentences(text) {
            let normalized = words(sentence).join(" ");
            if !normalized.is_empty() {
                self.recent_sentences.insert(normalized);
            }
        }
    }

    /// Why `sentence` must not be said, if it must not.
    pub fn check(&self, sentence: &str) -> Option<Refusal> {
        self.judge(sentence, true)
    }

    /// Why the first clause of an answer to the human must not be said on its own, if it
    /// must not: as [`SentenceGuard::check`], but a clause may restate the question (an
    /// answer starts on the human's words, and a few words are all question).
    pub fn check_clause(&self, clause: &str) -> Option<Refusal> {
        self.judge(clause, false)
    }

    fn judge(&self, sentence: &str, echo: bool) -> Option<Refusal> {
        let words = words(sentence);
        if words.is_empty() {
            return None;
        }
        if echo && self.is_echo(&words) {
            return Some(Refusal::Echo);
        }
        if self.presents_as_another(sentence) {
            return Some(Refusal::Identity);
        }
        if reports_speech(sentence) || self.narrates(&words) {
            return Some(Refusal::Reported);
        }
        if self.running && self.only_calls_someone(&words) {
            return Some(Refusal::Pleasantry);
        }
        let text = words.join(" ");
        if ASSISTANT_LINES.iter().any(|l| text.contains(l)) {
            return Some(Refusal::Pleasantry);
        }
        // At the opening too, a pleasantry that answers the instruction ("Sure, I'd be
        // happy to help!") says nothing to anyone in the room.
        let to_the_director = words.first().is_some_and(|w| {
            ["sure", "certainly", "absolutely", "okay", "ok"].contains(&w.as_str())
        });
        if (self.running || to_the_director) && is_pleasantry(&words) {
            return Some(Refusal::Pleasantry);
        }
        if let Some(asked) = &self.answering
            && !answers::content_stems(&quality_words(sentence))
                .iter()
                .any(|s| asked.contains(s))
        {
            return Some(Refusal::Unanswered);
        }
        if self.asking && !is_question(sentence) && (self.led_in || words.len() > LEAD_IN_WORDS) {
            return Some(Refusal::NoQuestion);
        }
        None
    }

    /// A sentence whose subject is a participant's name or role, the speaker's own
    /// ("Tomás Lindqvist has expressed interest", said by Tomás; "The judge Okafor
    /// concludes …", said by the judge) or another's followed by a verb of saying or
    /// thinking ("David Dove suggested …", "Counsel for the defense agrees …"): a
    /// narrator's line, not a participant's.
    fn narrates(&self, words: &[String]) -> bool {
        let mut rest = words.iter().map(String::as_str).peekable();
        rest.next_if(|w| *w == "the");
        let mut own = false;
        let mut other = false;
        let mut possessive = false;
        let mut subject = false;
        while let Some(word) = rest.peek() {
            // "Lindqvist's position: …" names its speaker like "Lindqvist says".
            let (name, s) = match word.strip_suffix("'s").or_else(|| word.strip_suffix("’s")) {
                Some(name) => (name, true),
                None => (*word, false),
            };
            let is = |list: &[String]| list.iter().any(|n| n == name);
            if is(&self.own_names) || is(&self.own_roles) {
                own = true;
            } else if is(&self.other_names) || is(&self.other_roles) {
                other = true;
            } else if TITLES.contains(&name) || (subject && ["for", "the"].contains(&name)) {
                // A title, or the inside of "Counsel for the defense".
            } else {
                break;
            }
            subject = true;
            possessive |= s;
            rest.next();
            if s {
                break;
            }
        }
        if !own && !other {
            // "She pointed out that …": another participant by pronoun, reported.
            let pronoun = words
                .first()
                .is_some_and(|w| ["he", "she"].contains(&w.as_str()));
            // "He also argues …": an adverb between the pronoun and its verb.
            let verb = words
                .iter()
                .skip(1)
                .find(|w| !ADVERBS.contains(&w.as_str()));
            return pronoun && verb.is_some_and(|w| REPORTING.contains(&w.as_str()));
        }
        // "Judge Okafor is saying …": a verb of saying in the progressive.
        if other
            && !own
            && !possessive
            && rest.next_if(|w| ["is", "was"].contains(w)).is_some()
            && let Some(verb) = rest.peek()
        {
            return [
                "saying",
                "asking",
                "suggesting",
                "arguing",
                "claiming",
                "stating",
            ]
            .contains(verb);
        }
        // "Dr. Nadia also states …": an adverb between the name and its verb.
        while rest.next_if(|w| ADVERBS.contains(w)).is_some() {}
        let Some(next) = rest.next() else {
            return false;
        };
        if possessive {
            return (own && POSSESSED.contains(&next))
                || (other && ["tone", "mood", "message"].contains(&next));
        }
        (own && !other && NARRATING.contains(&next)) || (other && !own && REPORTING.contains(&next))
    }

    fn is_echo(&self, words: &[String]) -> bool {
        if words.len() < 3 {
            // Too short for 3-grams: only a whole repeated sentence of two words counts.
            return words.len() == 2 && self.recent_sentences.contains(&words.join(" "));
        }
        let grams: Vec<[String; 3]> = words
            .windows(3)
            .map(|g| [g[0].clone(), g[1].clone(), g[2].clone()])
            .collect();
        let share = |known: &HashSet<[String; 3]>| {
            grams.iter().filter(|g| known.contains(*g)).count() as f64 / grams.len() as f64
        };
        share(&self.recent) >= ECHO_SHARE || share(&self.instructions) >= ECHO_SHARE
    }

    /// "Ben?", "Oh, hello! Ms. Rivera?": names, titles and interjections only, calling
    /// someone without saying anything. A shortened name ("Ms. River") counts.
    fn only_calls_someone(&self, words: &[String]) -> bool {
        let is_name = |w: &str| {
            w.chars().count() >= 3
                && self
                    .other_names
                    .iter()
                    .chain(&self.own_names)
                    .any(|n| n.starts_with(w))
        };
        let mut named = false;
        for word in words {
            let title = TITLES.contains(&word.as_str());
            let call = ["oh", "hey", "hi", "hello", "um", "uh", "well", "so", "and"]
                .contains(&word.as_str());
            let name = is_name(word);
            if !(title || call || name) {
                return false;
            }
            named |= name;
        }
        named
    }

    /// "I'm Dr. Okafor", "my name is Ben", "this is Mia here" with another's name.
    fn presents_as_another(&self, sentence: &str) -> bool {
        let lower = sentence.to_lowercase();
        let raw: Vec<&str> = lower.split_whitespace().collect();
        for (i, pair) in raw.windows(2).enumerate() {
            let intro = match pair {
                ["i'm" | "i’m" | "im", _] => Some(i + 1),
                ["i", "am"] => Some(i + 2),
                ["name", "is"] if i > 0 && raw[i - 1] == "my" => Some(i + 2),
                ["this", "is"] if i == 0 => Some(i + 2),
                _ => None,
            };
            let Some(at) = intro else { continue };
            let mut next = raw.get(at..).unwrap_or_default().iter().map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric() && c != '.')
                    .to_owned()
            });
            let Some(mut first) = next.next() else {
                continue;
            };
            if TITLES.contains(&first.as_str()) {
                first = next.next().unwrap_or_default();
            }
            let first = first.trim_end_matches('.').to_owned();
            if self.other_names.contains(&first) && !self.own_names.contains(&first) {
                return true;
            }
        }
        false
    }
}

/// A stock pleasantry with nothing besides but filler words and perhaps a name ("Thank
/// you so much, Ben!", "Sure, I'd be happy to help!"); "Yes, the slope is 6." says
/// something. The sentence must open with a pleasantry; every pleasantry in it is taken
/// out before what remains is weighed.
fn is_pleasantry(words: &[String]) -> bool {
    let text = format!(" {} ", words.join(" "));
    let opens = PLEASANTRIES
        .iter()
        .any(|p| text.starts_with(&format!(" {p} ")));
    if !opens {
        return false;
    }
    let mut rest = text;
    for phrase in PLEASANTRIES {
        rest = rest.replace(&format!(" {phrase} "), " ");
    }
    let rest: Vec<&str> = rest.split(' ').filter(|w| !w.is_empty()).collect();
    let said = rest
        .iter()
        .filter(|w| !PLEASANTRY_FILLER.contains(w))
        .count();
    rest.len() <= 6 && said <= 1
}

/// Words a pleasantry may carry without saying anything.
const PLEASANTRY_FILLER: &[&str] = &[
    // promises of content that never comes ("Sure thing, I can share some insights.")
    "can",
    "share",
    "some",
    "my",
    "insights",
    "thoughts",
    "happy",
    "topic",
    "together",
    "so",
    "much",
    "very",
    "for",
    "that",
    "this",
    "again",
    "today",
    "everyone",
    "all",
    "asking",
    "sharing",
    "the",
    "question",
    "point",
    "a",
    "your",
    "you",
    "too",
    "feel",
    "free",
    "to",
    "ask",
    "me",
    "know",
    "it",
    "is",
    "and",
    "indeed",
    "really",
    "of",
    "course",
    "great",
    "good",
    "nice",
    "here",
    "there",
    "now",
    "guys",
    "class",
    "let's",
    "discuss",
    "continue",
    "with",
    "on",
    "i",
    "we",
    "can",
    "do",
    "are",
    "right",
    "correct",
    "exactly",
    "absolutely",
    "definitely",
    "he",
    "she",
    "they",
    "i'd",
    "be",
    "would",
    "love",
];

/// A sentence that reports speech: a word of saying or asking followed by a colon or an
/// opening quote ("The human asked: …", "Ms. Rivera's answer: …", "He just said “…”").
fn reports_speech(sentence: &str) -> bool {
    const SAYING: &[&str] = &[
        "said",
        "says",
        "say",
        "asked",
        "asks",
        "ask",
        "answer",
        "answered",
        "answers",
        "replied",
        "replies",
        "reply",
        "response",
        "responded",
    ];
    let lower = sentence.to_lowercase();
    lower
        .match_indices(|c: char| c == ':' || "\"“”«「".contains(c))
        .any(|(at, _)| {
            let before = lower[..at].trim_end();
            let word = before
                .rsplit(|c: char| !(c.is_alphanumeric() || c == '\''))
                .next()
                .unwrap_or("");
            SAYING.contains(&word)
        })
}

/// Lower-case words of letters, digits and apostrophes.
/// Lower-case words; a Chinese character is a word of its own (Chinese writes no
/// spaces), so that a line copied in Chinese is an echo as one copied in English is.
fn words(text: &str) -> Vec<String> {
    let mut spaced = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}') {
            spaced.extend([' ', c, ' ']);
        } else {
            spaced.push(c);
        }
    }
    spaced
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .map(|w| w.trim_matches(['\'', '’']).to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.split_inclusive(['.', '!', '?', '。', '！', '？'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The words of names, lower case, without titles or short particles: "Dr. Nadia Okafor"
/// gives "nadia" and "okafor".
/// The words of `names` that say a role rather than a name ("judge", "counsel",
/// "defense"): neither a name word nor a courtesy title.
fn role_words(names: &[String]) -> Vec<String> {
    let named = name_words(names);
    let mut out: Vec<String> = names
        .iter()
        .flat_map(|n| words(n))
        .map(|w| w.trim_end_matches('.').to_owned())
        .filter(|w| w.chars().count() >= 3 && !named.contains(w))
        .filter(|w| {
            !["the", "for", "and", "doctor", "prof", "professor", "mrs"].contains(&w.as_str())
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

fn name_words(names: &[String]) -> Vec<String> {
    let mut out: Vec<String> = names
        .iter()
        .flat_map(|n| words(n))
        .filter(|w| w.chars().count() >= 3 && !TITLES.contains(&w.as_str()))
        .filter(|w| {
            !["the", "for", "and", "counsel", "defense", "prosecution"].contains(&w.as_str())
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn guard(recent: &[&str]) -> SentenceGuard {
        SentenceGuard::new(
            recent.iter().copied(),
            &names(&["student1", "Ben"]),
            &names(&["tutor", "Ms. Rivera", "student2", "Mia", "Dr. Nadia Okafor"]),
        )
    }

    #[test]
    fn apologies_and_bare_agreement_heard_in_a_session_are_refused() {
        let g = guard(&["Mia: What is a limit?"]);
        for line in [
            "Surely!",
            "You're right.",
            "You're absolutely right!",
            "You are correct.",
            "I'm sorry for the misunderstanding earlier.",
            "I'm sorry for any confusion earlier.",
            // A panelist called on in a rehearsal, and one's opening.
            "Sure thing, I can share some insights.",
            "Let's dive into this topic together.",
        ] {
            assert_eq!(g.check(line), Some(Refusal::Pleasantry), "{line}");
        }
        assert_eq!(g.check("You're right that the slope is six."), None);
        assert_eq!(
            g.check("Sure, I can share my numbers: 55 percent of the cost."),
            None
        );
    }

    #[test]
    fn narrating_the_conversation_is_refused() {
        let g = guard(&["Mia: What is a limit?"]);
        // Itself in the third person, another's words reported.
        for narration in [
            "Ben has expressed interest in exploring this topic further.",
            "Ben thinks the slope is a limit.",
            "Ben is glad to share his view.",
            "Ms. Rivera just asked us to discuss the slope.",
            "Dr. Nadia Okafor suggested a compromise.",
            "Mia agrees with the tutor.",
            "Ben's position: the slope is complex.",
            "Dr. Nadia also states that Ben believes it.",
            "Mia felt that Ben's message was unclear.",
            "Mia's tone has been calm since the tutor cut in.",
            "The tutor said the slope is a limit.",
        ] {
            assert_eq!(g.check(narration), Some(Refusal::Reported), "{narration}");
        }
        // A debate's roles stand for names: the judge and the counsel, heard so.
        let judge = SentenceGuard::new(
            ["Counsel for the defense: Cars bring customers to the shops."],
            &names(&["judge", "Judge Okafor"]),
            &names(&["Counsel for the defense", "Counsel for the prosecution"]),
        );
        let defense = SentenceGuard::new(
            ["Judge Okafor: Where is the evidence?"],
            &names(&["defense", "Counsel for the defense"]),
            &names(&["Judge Okafor", "Counsel for the prosecution"]),
        );
        for (g, narration) in [
            (&judge, "The judge Okafor concludes that this step is weak."),
            (
                &judge,
                "Counsel for the defense agrees and says buses are better.",
            ),
            (&judge, "The prosecution argued that the air is cleaner."),
            (
                &defense,
                "Judge Okafor countered by stating that bikes help.",
            ),
            (&defense, "Counsel for the prosecution suggests more buses."),
            (&defense, "The judge asked us about parking."),
            (&defense, "Judge Okafor is saying that shops close early."),
            (&judge, "She pointed out that noise levels are high."),
            (&judge, "He also argues that the shops need access."),
            (&judge, "Judge Okafor's claim is fundamentally flawed."),
        ] {
            assert_eq!(g.check(narration), Some(Refusal::Reported), "{narration}");
        }
        for (g, line) in [
            (&judge, "The defense is right that deliveries need access."),
            (
                &judge,
                "Counsel for the prosecution, where is your evidence on noise?",
            ),
            (&judge, "The evidence on noise is thin."),
            (
                &defense,
                "Judge Okafor, the shops lose customers without parking.",
            ),
            (
                &defense,
                "The prosecution's figures on air quality ignore the buses.",
            ),
        ] {
            assert_eq!(g.check(line), None, "{line}");
        }
        // Names as words of a line that says something, or to address someone.
        for line in [
            "Mia, the slope is a limit of secant slopes.",
            "Ms. Rivera, why is the slope a limit?",
            "Mia is right that the slope changes at every point.",
            "I think the slope is six at three.",
            "Mia's point about the secant misses the limit.",
        ] {
            assert_eq!(g.check(line), None, "{line}");
        }
    }

    #[test]
    fn an_asking_turn_asks_after_at_most_a_short_lead_in() {
        let mut g = guard(&["Mia: The slope is six at three."]).asking();
        assert_eq!(
            g.check("Yes, I'm ready for a follow-up question about the margin and turnover."),
            Some(Refusal::NoQuestion)
        );
        assert_eq!(g.check("Why is it six at three?"), None);
        // A short lead-in, then the question; a second statement is refused.
        assert_eq!(g.check("I'm still confused."), None);
        g.remember("I'm still confused.");
        assert_eq!(g.check("The slope is a limit."), Some(Refusal::NoQuestion));
        assert_eq!(g.check("Why is the slope a limit?"), None);
        g.remember("Why is the slope a limit?");
        // Once asked, the rest of the turn is free.
        assert_eq!(g.check("The secant lines get closer and closer."), None);
    }

    #[test]
    fn a_sentence_said_in_the_recent_lines_is_an_echo() {
        let g = guard(&[
            "I'm so glad you're sharing your dedication to making a difference.",
            "The derivative of x squared is two x.",
        ]);
        assert_eq!(
            g.check("The derivative of x squared is two x!"),
            Some(Refusal::Echo)
        );
        assert_eq!(
            g.check("So the derivative of x squared is two x, right?"),
            Some(Refusal::Echo)
        );
        assert_eq!(g.check("What about x cubed then?"), None);
        let g = guard(&["Two x.", "Right."]);
        assert_eq!(g.check("Two x!"), Some(Refusal::Echo), "a short repeat");
        assert_ne!(g.check("Yes."), Some(Refusal::Echo));
    }

    #[test]
    fn a_chinese_sentence_said_in_the_recent_lines_is_an_echo() {
        let g =
            guard(&["经济学家: 政府需要采取措施来控制私家车的使用，以减少对公共交通系统的影响。"]);
        assert_eq!(
            g.check("政府需要采取措施来控制私家车的使用，以减少其对公共交通系统的影响。"),
            Some(Refusal::Echo)
        );
        assert_eq!(
            g.check("我认为步行街能让小商店的生意更好。"),
            None,
            "a new point on the same subject"
        );
    }

    #[test]
    fn reciting_the_instructions_is_an_echo() {
        let g = guard(&[]).with_instructions([
            "You are Ben, the student. Probe the answer you just heard: ask about churn. Do not greet, do not thank.",
        ]);
        assert_eq!(
            g.check("Mm-hmm, probe the answer you just heard about churn."),
            Some(Refusal::Echo)
        );
        assert_eq!(g.check("You are Ben, the student."), Some(Refusal::Echo));
        assert_eq!(g.check("What is your churn rate each month?"), None);
    }

    #[test]
    fn only_the_last_eight_lines_count() {
        let mut lines = vec!["The slope of the tangent line is the derivative."];
        lines.extend(["Another line here."; RECENT_LINES]);
        let g = guard(&lines);
        assert_eq!(
            g.check("The slope of the tangent line is the derivative."),
            None
        );
    }

    #[test]
    fn pleasantries_are_refused_once_the_conversation_runs() {
        let opening = guard(&[]);
        assert_eq!(opening.check("Thank you!"), None);
        assert_eq!(
            opening.check("Sure, I'd be happy to help!"),
            Some(Refusal::Pleasantry)
        );
        let g = guard(&["What is a limit?"]);
        for filler in [
            "Thank you so much!",
            "Great question, Ben.",
            "You're welcome!",
            "If you have any other questions, feel free to ask.",
            "I agree.",
        ] {
            assert_eq!(g.check(filler), Some(Refusal::Pleasantry), "{filler}");
        }
        assert_eq!(
            g.check("I agree that the slope is 6 at x equals 3."),
            None,
            "a pleasantry with content stays"
        );
        assert_eq!(g.check("Yes, the slope is six."), None);
        assert_eq!(g.check("Yes, Ben is right."), Some(Refusal::Pleasantry));
        assert_eq!(g.check("Yes, you are right."), Some(Refusal::Pleasantry));
        assert_eq!(
            g.check("Sure! Let's discuss derivatives again."),
            Some(Refusal::Pleasantry)
        );
        assert_eq!(g.check("Sure!"), Some(Refusal::Pleasantry));
        assert_eq!(
            g.check("Sure, I'd be happy to help!"),
            Some(Refusal::Pleasantry)
        );
        assert_eq!(g.check("Sure, the derivative of x squared is 2 x."), None);
        assert_eq!(
            opening.check("I'm sorry, but I can't assist with that request."),
            Some(Refusal::Pleasantry),
            "an assistant's line, even at the opening"
        );
        for refusal in [
            "I apologize, but I'm not able to assist with that.",
            "I'm afraid I cannot help with that.",
            "Sorry, I am unable to assist with this request.",
            "I'm sorry, I don't have enough context or information about what you're referring to.",
            "Please provide more details so we can better understand and respond.",
        ] {
            assert_eq!(
                opening.check(refusal),
                Some(Refusal::Pleasantry),
                "{refusal}"
            );
        }
        assert_eq!(
            opening.check("Who will help with that backlog of warehouse orders?"),
            None
        );
    }

    #[test]
    fn presenting_oneself_as_another_is_refused() {
        let g = guard(&[]);
        for slip in [
            "I'm Dr. Nadia Okafor, and I study cities.",
            "Hello, I am Mia.",
            "My name is Rivera.",
            "This is Okafor speaking.",
        ] {
            assert_eq!(g.check(slip), Some(Refusal::Identity), "{slip}");
        }
        assert_eq!(g.check("I'm Ben, and I'm confused."), None);
        assert_eq!(g.check("I am not sure, Mia."), None);
        assert_eq!(g.check("I'm glad Mia asked."), None);
    }

    #[test]
    fn reporting_what_was_said_is_refused() {
        let g = guard(&["What is a limit?"]);
        for frame in [
            "The human asked: \"Sorry?\"",
            "Ms. Rivera's answer: The function has a maximum at zero.",
            "The human just asked \"Can you explain the chain rule again?\"",
            "Mia said: the slope is two.",
        ] {
            assert_eq!(g.check(frame), Some(Refusal::Reported), "{frame}");
        }
        // A colon or a quote elsewhere is fine.
        assert_eq!(g.check("Here is the rule: multiply by the power."), None);
        assert_eq!(g.check("We call it \"the slope\" for short."), None);
    }

    #[test]
    fn calling_someone_without_a_word_more_is_refused() {
        let g = guard(&["What is a limit?"]);
        for call in ["Ben?", "Ms. Rivera?", "Oh, hello Mia!", "Ms. River?"] {
            assert_eq!(g.check(call), Some(Refusal::Pleasantry), "{call}");
        }
        assert_eq!(g.check("Ben, what is two x at three?"), None);
        assert_eq!(g.check("I know."), Some(Refusal::Pleasantry));
        assert_eq!(g.check("Yeah!"), Some(Refusal::Pleasantry));
    }

    #[test]
    fn an_answer_to_the_human_starts_on_what_was_asked() {
        let asked = "Can you show me a derivative with actual numbers?";
        let mut g = guard(&["Ben: What is a limit?", asked]).answering(asked);
        assert_eq!(
            g.check("Let's look at the agenda first."),
            Some(Refusal::Unanswered)
        );
        let answer = "Sure, the derivative of x squared at 3 is 6.";
        assert_eq!(g.check(answer), None, "'derivative' is taken up");
        assert_eq!(g.check("Numbers help."), None, "'numbers' is taken up");
        // Once the answer has started, the next sentences are free.
        g.remember(answer);
        assert_eq!(g.check("Now try x cubed yourself."), None);
        // A line that asks nothing in particular asks nothing of the reply.
        let g = guard(&["Why is it so?"]).answering("Why is it so?");
        assert_eq!(g.check("Slopes measure change."), None);
    }

    proptest! {
        /// The first sentence said in answer to the human shares a content word with
        /// the human's line, whatever was generated.
        #[test]
        fn an_answer_never_starts_off_the_question(
            asked in "[a-z]{3,8}( [a-z]{3,8}){2,8}\\?",
            reply in "[a-z]{3,8}( [a-z]{3,8}){2,8}\\.",
        ) {
            let g = guard(&[]).answering(&asked);
            let asked_stems = answers::content_stems(&quality_words(&asked));
            let reply_stems = answers::content_stems(&quality_words(&reply));
            if g.check(&reply).is_none() && !asked_stems.is_empty() {
                prop_assert!(reply_stems.iter().any(|s| asked_stems.contains(s)));
            }
        }
    }

    proptest! {
        /// A sentence that stands in the recent lines is never let through, whatever
        /// else was said.
        #[test]
        fn a_recent_sentence_is_never_said_again(
            lines in prop::collection::vec("[a-z]{1,6}( [a-z]{1,6}){2,10}\\.", 1..RECENT_LINES),
            pick in any::<prop::sample::Index>(),
        ) {
            let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
            let g = guard(&refs);
            let said = pick.get(&lines);
            prop_assert!(g.check(said).is_some(), "{said:?} passed");
        }

        /// Nothing of the recent lines, no refusal for echo.
        #[test]
        fn new_words_are_no_echo(sentence in "[q-z]{3,8}( [q-z]{3,8}){3,8}\\.") {
            let g = guard(&["the cat sat on the mat.", "a b c d e f."]);
            prop_assert_ne!(g.check(&sentence), Some(Refusal::Echo));
        }
    }
}

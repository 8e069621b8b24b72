//! What a participant must not say, sentence by sentence, before words leave a bridge.
//!
//! Group chats of language models drift into loops: a sentence said a moment ago is said
//! again, everyone thanks everyone, one speaker introduces itself with another's name. A
//! [`SentenceGuard`] holds the recent lines of the conversation and refuses such sentences;
//! the bridge then samples again or ends the turn short.

mod judge;
mod phrases;
mod pleasantry;

use std::collections::{HashMap, HashSet};

use conversation_quality::answers;
use text::words::{asks, line_asks, sentences, words};

use phrases::*;
pub use phrases::{
    ASSENTS, ASSISTANT_LINES, DIRECTOR_REPLIES, DIRECTOR_REPLY_WORDS, LEAD_IN_WORDS, TITLES,
    only_offers,
};
pub use pleasantry::PLEASANTRIES;
use pleasantry::is_pleasantry;

/// How many recent lines (by anyone) a sentence is compared with.
pub const RECENT_LINES: usize = 8;

/// The share of a sentence's word 3-grams already said in the recent lines from which it
/// counts as an echo: stricter than the benchmark's half, since a model rewording the
/// last line changes a few words of it and keeps the rest.
pub const ECHO_SHARE: f64 = 0.35;

/// Words a sentence's start needs before it is judged a copy while being written
/// ([`SentenceGuard::copies_recent`]): five 3-grams, none of them new.
pub const COPIED_START_WORDS: usize = 7;

/// Why a sentence is not spoken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Mostly said in the recent lines.
    Echo,
    /// Nothing but a stock pleasantry, after the opening exchange.
    Pleasantry,
    /// The speaker presents itself as someone else.
    Identity,
    /// A sentence of an answer to the human that has not taken up the human's words yet
    /// takes up none of them (the one sentence that may come first, setting up the
    /// example or the numbers they asked for, aside), or offers to answer a second time.
    Unanswered,
    /// It reports what someone said ("The human asked: …", "Her answer: …") or narrates
    /// the conversation ("Tomás Lindqvist has expressed interest …", said by Tomás;
    /// "David Dove suggested …") instead of saying something.
    Reported,
    /// The turn was to ask a question, and this sentence (past a short lead-in) asks
    /// none.
    NoQuestion,
    /// The reply ended on a lead-in whose substance never came ("Let's break it down:",
    /// before a list the filter stopped at).
    LeadIn,
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
            Refusal::LeadIn => "lead_in",
        }
    }
}

/// A sentence guard for one participant's turn.
#[derive(Debug, Clone, Default)]
pub struct SentenceGuard {
    /// Word 3-grams of the recent lines.
    recent: HashSet<[String; 3]>,
    /// Two words of the recent lines written as one ("isthe" for "is the"), and the two:
    /// a small model copying a line under a penalty for repeats drops the space between
    /// words, and the copy must still read as one.
    recent_glued: HashMap<String, [String; 2]>,
    /// Word 3-grams of the speaker's instructions.
    instructions: HashSet<[String; 3]>,
    /// Word 3-grams of what the turn is to take up (a slide's claims, the answer a
    /// follow-up tests): a question quoting them to test them is not an echo.
    quotable: HashSet<[String; 3]>,
    /// Word 3-grams of the last line when it asks: a statement answering it may take up
    /// its words, as long as it adds words of its own ([`SentenceGuard::check`]).
    asked: HashSet<[String; 3]>,
    /// Whole recent lines and sentences, normalized, for short sentences.
    recent_sentences: HashSet<String>,
    /// The conversation is past its opening line.
    running: bool,
    /// Who is who: the names and role words of this participant and of the others.
    names: Names,
    /// The content-word stems of the human's line being answered, until a sentence that
    /// takes one of them up is said.
    answering: Option<HashSet<String>>,
    /// The human's line asks for an example or for numbers: an answer may start by
    /// setting one up ([`sets_up_example`]).
    wants_example: bool,
    /// The answer has said its one lead-in (an offer, a promise, an example set up):
    /// the next sentence must take up the human's words.
    lead_in_said: bool,
    /// The turn is to ask a question, until one is said.
    asking: bool,
    /// A short statement before the question was said.
    led_in: bool,
}

/// The names a sentence may call this participant and the others by, as lower case
/// words.
#[derive(Debug, Clone, Default)]
struct Names {
    /// Names this participant answers to.
    own: Vec<String>,
    /// Names of the others.
    others: Vec<String>,
    /// Role words only this participant's names hold ("judge" for "Judge Okafor",
    /// "defense" for "Counsel for the defense"): a subject like a name.
    own_roles: Vec<String>,
    /// Role words only the others' names hold.
    other_roles: Vec<String>,
}

impl Names {
    /// Whether `word` is one of this participant's names; `after_title`: it follows a
    /// title, where a name the model misspelt by a letter or two at its end counts too
    /// ("Mr. River" for "Ms. Rivera", as a tutor called itself in study sessions; four
    /// letters or more of its start).
    fn is_own(&self, word: &str, after_title: bool) -> bool {
        self.own.iter().any(|name| {
            name == word
                || (after_title
                    && word.len() >= 4
                    && name.starts_with(word)
                    && name.len() - word.len() <= 2)
        })
    }

    fn new(own_names: &[String], other_names: &[String]) -> Self {
        let own = name_words(own_names);
        let (own_roles, other_roles) = (role_words(own_names), role_words(other_names));
        Self {
            others: name_words(other_names)
                .into_iter()
                .filter(|n| !own.contains(n))
                .collect(),
            own,
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
        }
    }
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
        let mut guard = Self {
            running,
            names: Names::new(own_names, other_names),
            ..Self::default()
        };
        for line in lines {
            guard.remember(line);
        }
        if let Some(question) = lines.last().filter(|line| line_asks(line)) {
            guard.asked = grams(&words(question)).collect();
        }
        guard
    }

    /// Instructions the speaker was given (its persona, the turn's direction): a sentence
    /// mostly made of their 3-grams recites them, and is refused like an echo. Quoted
    /// spans in them (words to say) should be left out by the caller.
    pub fn with_instructions<'a>(mut self, texts: impl IntoIterator<Item = &'a str>) -> Self {
        for text in texts {
            self.instructions.extend(grams(&words(text)));
        }
        self
    }

    /// The turn answers the human's `line`: its first sentence must take up one of the
    /// line's content words (as the benchmark counts an answer that addresses the human),
    /// so that the reply starts on what was asked rather than on the agenda. A line with
    /// no content word asks nothing of the reply.
    pub fn answering(mut self, line: &str) -> Self {
        let stems = answers::content_stems(&words(line));
        self.answering = (!stems.is_empty()).then_some(stems);
        self.wants_example = words(line)
            .iter()
            .any(|w| EXAMPLE_REQUESTS.contains(&w.as_str()));
        self
    }

    /// What the turn is to take up (see [`SentenceGuard::answering`]): a question may
    /// quote it, even where a recent line said the same.
    pub fn quoting(mut self, text: &str) -> Self {
        self.quotable.extend(grams(&words(text)));
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
        // A lead-in is no answer yet: an offer or a promise to answer ("I can show you
        // a derivative with actual numbers!"), or the example asked for set up. The
        // human's words are still to be taken up, by the next sentence.
        let lead_in = self.answering.as_ref().is_some_and(|asked| {
            only_offers(text)
                || (self.wants_example && sets_up_example(text) && !takes_up(asked, &words(text)))
        });
        if lead_in {
            self.lead_in_said = true;
        } else {
            self.answering = None;
        }
        if self.asking {
            if line_asks(text) {
                self.asking = false;
            } else {
                self.led_in = true;
            }
        }
        let said = words(text);
        self.recent.extend(grams(&said));
        for pair in said.windows(2) {
            self.recent_glued.insert(
                format!("{}{}", pair[0], pair[1]),
                [pair[0].clone(), pair[1].clone()],
            );
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

    /// Whether the start of a sentence still being written copies the recent lines word
    /// for word (every 3-gram of at least [`COPIED_START_WORDS`] words): whatever follows,
    /// a listener hears a line said again, and sampling it on to its end would only cost
    /// the time to refuse it. Not in an answer to the human, which may start on their
    /// words.
    pub fn copies_recent(&self, start: &str) -> bool {
        let words = words(start);
        // The question just asked may be taken up word for word by its answer, which
        // is judged whole at its end.
        words.len() >= COPIED_START_WORDS
            && !self.answers_human()
            && grams(&words).all(|g| self.recent.contains(&g) && !self.asked.contains(&g))
    }

    /// Why the first clause of an answer to the human must not be said on its own, if it
    /// must not: as [`SentenceGuard::check`], but a clause may restate the question (an
    /// answer starts on the human's words, and a few words are all question).
    pub fn check_clause(&self, clause: &str) -> Option<Refusal> {
        self.judge(clause, false)
    }
}

/// Whether `said` (its words) takes up a content word (by stem) of the human's line
/// being answered, whose stems are `asked`.
fn takes_up(asked: &HashSet<String>, said: &[String]) -> bool {
    answers::content_stems(said)
        .iter()
        .any(|s| asked.contains(s))
}

/// Word 3-grams of `words`, in order.
fn grams(words: &[String]) -> impl Iterator<Item = [String; 3]> + '_ {
    words
        .windows(3)
        .map(|g| [g[0].clone(), g[1].clone(), g[2].clone()])
}

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

/// The words of names, lower case, without titles or short particles: "Dr. Nadia Okafor"
/// gives "nadia" and "okafor".
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
mod tests;

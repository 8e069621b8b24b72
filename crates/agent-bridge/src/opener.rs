//! An answer's opener: a word or two the answerer says the moment the human's question is
//! in ("Let me see.", "Sure."), while the model is still reading it. On two cores the
//! answer's first words take seconds; a person asked something answers "let me see"
//! first too. The opener fits what the human said (a request, a why or how, another
//! question, a statement), is never one of the last two used, and the model's own
//! opening pleasantry is then cut from its reply ([`strip_lead`]), so that nothing is
//! said twice.

use std::collections::VecDeque;

use voice_protocol::openers::{self, PHRASES};

/// How many recent openers are not used again.
const NOT_AGAIN: usize = 2;

/// What the human's words ask for, as far as an opener goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Asked {
    /// "Can you give me an example?", "Explain it again, slowly."
    Request,
    /// "Why …?", "How …?"
    Reason,
    Question,
    Statement,
}

const REQUEST_WORDS: &[&str] = &[
    "can you",
    "could you",
    "would you",
    "will you",
    "please",
    "show me",
    "give me",
    "tell me",
    "explain",
    "example",
    "again",
    "repeat",
];

const QUESTION_STARTS: &[&str] = &[
    "what", "which", "who", "whom", "whose", "when", "where", "is", "are", "does", "do", "did",
    "can", "should", "would", "could", "will", "isn't", "aren't", "doesn't",
];

fn asked(words: &str) -> Asked {
    let lower = words.to_lowercase();
    let tokens: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    let joined = format!(" {} ", tokens.join(" "));
    if REQUEST_WORDS
        .iter()
        .any(|w| joined.contains(&format!(" {w} ")))
    {
        return Asked::Request;
    }
    if tokens.iter().any(|w| matches!(*w, "why" | "how")) {
        return Asked::Reason;
    }
    let question = text::words::asks(&lower)
        || tokens
            .first()
            .is_some_and(|first| QUESTION_STARTS.contains(first));
    if question {
        Asked::Question
    } else {
        Asked::Statement
    }
}

fn candidates(asked: Asked) -> &'static [&'static str] {
    match asked {
        Asked::Request => openers::FOR_REQUEST,
        Asked::Reason => openers::FOR_REASON,
        Asked::Question => openers::FOR_QUESTION,
        Asked::Statement => openers::FOR_STATEMENT,
    }
}

/// The openers one answerer said last, newest at the back.
#[derive(Debug, Clone, Default)]
pub struct Openers {
    recent: VecDeque<&'static str>,
}

impl Openers {
    /// The opener for an answer to `human_words`, remembered as said; `None` for words
    /// not in English (the openers are English words; a Chinese answer starts on its own).
    pub fn choose(&mut self, human_words: &str) -> Option<&'static str> {
        if human_words.trim().is_empty()
            || human_words.chars().any(text::script::is_cjk)
            || !human_words.chars().any(|c| c.is_ascii_alphabetic())
        {
            return None;
        }
        let options = candidates(asked(human_words));
        let chosen = options
            .iter()
            .find(|o| !self.recent.contains(o))
            // Every option said lately: the one said longest ago.
            .or_else(|| {
                options.iter().min_by_key(|o| {
                    self.recent
                        .iter()
                        .rposition(|r| r == *o)
                        .map_or(0, |p| p + 1)
                })
            })
            .copied()?;
        debug_assert!(PHRASES.contains(&chosen));
        self.recent.push_back(chosen);
        while self.recent.len() > NOT_AGAIN {
            self.recent.pop_front();
        }
        Some(chosen)
    }
}

/// Pleasantries a reply may open with that an opener already said, longest first where
/// one begins another.
const LEADS: &[&str] = &[
    "that's a great question",
    "that's a good question",
    "that is a great question",
    "what a great question",
    "great question",
    "good question",
    "sure thing",
    "sure",
    "of course",
    "certainly",
    "absolutely",
    "okay",
    "ok",
    "alright",
    "all right",
    "right",
    "well",
    "yes",
    "let me see",
    "let me think about that",
    "let me think",
    "let me walk you through it",
    "i see",
    "hmm",
    "ah",
    "oh",
];

fn is_lead_mark(c: char) -> bool {
    matches!(c, ',' | '.' | '!' | ':' | ';' | '—' | '–' | '-' | '…')
}

/// `text` without the pleasantries it opens with ("Sure, here's an example" → "Here's an
/// example"), its first letter then in upper case. A lead counts only when a mark follows
/// it ("Sure," but not "Surely" or "Well known"). Empty when the text was nothing else.
pub fn strip_lead(text: &str) -> String {
    let mut rest = text.trim_start();
    let mut cut = false;
    loop {
        let lower = rest.to_lowercase();
        let found = LEADS.iter().find_map(|lead| {
            let after = lower.strip_prefix(lead)?;
            after.starts_with(is_lead_mark).then_some(lead.len())
        });
        // Lower-casing keeps these ASCII leads' byte lengths, so `len` indexes `rest`.
        let Some(len) = found.filter(|len| rest.is_char_boundary(*len)) else {
            break;
        };
        rest = rest[len..].trim_start_matches(is_lead_mark).trim_start();
        cut = true;
    }
    if !cut {
        return text.to_owned();
    }
    let mut chars = rest.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Whether `text` (a reply's first words, streamed) shows where its lead ends: a lead
/// with its mark came, or no lead can begin it any more ("The", "Surely").
pub fn lead_is_decided(text: &str) -> bool {
    let start = text.trim_start().to_lowercase();
    if start.is_empty() {
        return false;
    }
    let cut = text.trim_end() != strip_lead(text).trim_end();
    // Still a beginning of some lead ("sure", "great ques"): its mark may follow.
    let may_grow = LEADS.iter().any(|lead| lead.starts_with(&start));
    cut || !may_grow
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_opener_fits_what_the_human_said() {
        let first = |words: &str| Openers::default().choose(words);
        assert_eq!(
            first("Sorry? Can you give me an example with numbers?"),
            Some("Let me walk you through it.")
        );
        assert_eq!(
            first("Explain the chain rule again, slowly."),
            Some("Let me walk you through it.")
        );
        assert_eq!(
            first("Why is the derivative of x squared 2x?"),
            Some("Let me think about that.")
        );
        assert_eq!(
            first("So how do we find a tangent line?"),
            Some("Let me think about that.")
        );
        assert_eq!(
            first("What is the derivative of a constant?"),
            Some("That's a good question.")
        );
        assert_eq!(first("I think it's the slope."), Some("Right."));
        assert_eq!(first("导数是什么？"), None);
        assert_eq!(first("  "), None);
    }

    #[test]
    fn an_opener_is_not_said_again_soon() {
        let mut openers = Openers::default();
        let said: Vec<_> = (0..6)
            .map(|_| openers.choose("What is a limit?").unwrap())
            .collect();
        for pair in said.windows(2) {
            assert_ne!(pair[0], pair[1], "{said:?}");
        }
        for three in said.windows(3) {
            assert!(three[0] != three[2] || three[0] != three[1], "{said:?}");
        }
        // Three options: each in turn.
        let mut openers = Openers::default();
        let said: Vec<_> = (0..4)
            .map(|_| openers.choose("Can you show me?").unwrap())
            .collect();
        assert_eq!(
            said,
            [
                "Let me walk you through it.",
                "Of course.",
                "Sure thing.",
                "Let me walk you through it."
            ]
        );
    }

    #[test]
    fn the_replys_own_pleasantry_is_cut() {
        assert_eq!(
            strip_lead("Sure, here's a concrete example:"),
            "Here's a concrete example:"
        );
        assert_eq!(
            strip_lead("Great question! The slope is the rate."),
            "The slope is the rate."
        );
        assert_eq!(strip_lead("Of course. Sure! Let's go."), "Let's go.");
        assert_eq!(strip_lead("Sure!"), "");
        assert_eq!(
            strip_lead("Surely the limit exists."),
            "Surely the limit exists."
        );
        assert_eq!(
            strip_lead("Well known results apply."),
            "Well known results apply."
        );
        assert_eq!(strip_lead("The slope, sure."), "The slope, sure.");
    }

    #[test]
    fn a_lead_is_decided_by_its_mark_or_as_soon_as_none_can_begin_the_text() {
        assert!(!lead_is_decided(""));
        assert!(!lead_is_decided("Sure"));
        assert!(!lead_is_decided("Great ques"));
        assert!(lead_is_decided("Sure,"));
        assert!(lead_is_decided("Surely"));
        assert!(lead_is_decided("The"));
        assert!(lead_is_decided("Okay so the slope"));
        assert!(lead_is_decided("Sure thing it is, the slope is two"));
    }

    #[test]
    fn every_opener_is_a_phrase_the_player_prepares() {
        for asked in [
            Asked::Request,
            Asked::Reason,
            Asked::Question,
            Asked::Statement,
        ] {
            for o in candidates(asked) {
                assert!(PHRASES.contains(o), "{o}");
            }
        }
    }

    proptest! {
        /// What is left is the text's end (its first letter perhaps in upper case).
        #[test]
        fn stripping_keeps_the_texts_end(text in "\\PC{0,60}") {
            let stripped = strip_lead(&text);
            let mut chars = stripped.chars();
            if let Some(first) = chars.next() {
                let tail: String = chars.collect();
                prop_assert!(text.ends_with(&tail), "{text:?} → {stripped:?}");
                prop_assert!(text.to_lowercase().contains(&first.to_lowercase().to_string())
                    || text.contains(first));
            }
        }

        #[test]
        fn an_opener_is_always_a_phrase(words in "\\PC{0,60}") {
            if let Some(o) = Openers::default().choose(&words) {
                prop_assert!(PHRASES.contains(&o));
            }
        }
    }
}

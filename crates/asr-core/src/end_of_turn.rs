//! Has the human finished their turn? Decided from the words recognized at a short pause,
//! so that the floor can be taken before the full closing silence.
//!
//! A false "complete" cuts the human off mid-sentence; a false "incomplete" only waits for
//! the closing silence as before. So the rules lean to incomplete: a turn is complete when
//! the recognizer closed it with `.`, `?` or `!`, its last word cannot end a clause (not
//! "and", "of", "the", "um", "is", ...), and it is more than an opener: a statement of
//! fewer than four words ("Sorry to interrupt.", "Thanks, that helps."), a short one that
//! announces ("I have a question.") and a request to speak ("Can I ask something?")
//! usually go on.

use text::script::is_cjk_letter;

/// What the words so far say about the human's turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// A finished sentence or question: the floor can be taken now.
    Complete,
    /// A trailing conjunction, filler or unfinished clause: wait for the closing silence.
    Incomplete,
}

/// Words after which an English clause goes on: conjunctions, relative words,
/// prepositions, articles and determiners, subject pronouns, fillers.
const GOES_ON: &[&str] = &[
    // conjunctions and relative words
    "and",
    "or",
    "but",
    "so",
    "because",
    "cause",
    "if",
    "when",
    "while",
    "although",
    "though",
    "unless",
    "since",
    "then",
    "than",
    "that",
    "which",
    "who",
    "whom",
    "whose",
    "where",
    "whether",
    "until",
    "nor",
    "plus",
    "minus",
    "times",
    "over",
    "whereas",
    // prepositions
    "of",
    "to",
    "in",
    "on",
    "at",
    "for",
    "with",
    "from",
    "by",
    "about",
    "into",
    "onto",
    "like",
    "as",
    "between",
    "through",
    "after",
    "before",
    "without",
    "during",
    "under",
    "per",
    "against",
    "toward",
    "towards",
    "via",
    "within",
    "among",
    // articles, determiners, possessives
    "the",
    "a",
    "an",
    "this",
    "these",
    "those",
    "my",
    "your",
    "his",
    "her",
    "our",
    "their",
    "its",
    "some",
    "any",
    "every",
    "each",
    "another",
    "other",
    "such",
    "no",
    "all",
    "both",
    "either",
    "neither",
    "more",
    "most",
    "less",
    "very",
    "much",
    "many",
    "few",
    // subjects that need a verb
    "i",
    "we",
    "they",
    "he",
    "she",
    "i'm",
    "we're",
    "they're",
    "it's",
    "there's",
    "what's",
    "i've",
    "i'd",
    "i'll",
    "let's",
    // fillers
    "um",
    "uh",
    "er",
    "erm",
    "hmm",
    "mm",
    "ah",
    "eh",
    "well",
    "mean",
    "basically",
    "actually",
    "just",
    "kind",
    "sort",
];

/// Verbs that need what follows them, unless the turn is a question ("Do you know what it
/// is?").
const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "am", "be", "been", "being", "can", "could", "would", "should",
    "will", "shall", "may", "might", "must", "do", "does", "did", "have", "has", "had", "get",
    "got", "isn't", "aren't", "doesn't", "don't", "didn't", "can't", "won't",
];

/// A statement shorter than this is an opener ("Sorry to interrupt.", "Okay, so."): the
/// speaker usually goes on.
const MIN_STATEMENT_WORDS: usize = 4;

/// A statement that opens with an apology and is shorter than this is an opener too.
const MIN_APOLOGY_WORDS: usize = 6;

/// A short statement ending in one of these announces what comes next ("I have a
/// question.", "Sorry to interrupt." heard as "All right, then interrupt."): the speaker
/// goes on.
const ANNOUNCING: &[&str] = &["interrupt", "interrupting", "question", "something"];

/// A statement that announces and is shorter than this is an opener too.
const MAX_ANNOUNCEMENT_WORDS: usize = 8;

/// Whether `text`, the words recognized so far of the human's turn, is a finished turn.
pub fn completion(text: &str) -> Completion {
    let text = text.trim();
    // The recognizer's own mark of a cut-off: a trailing ellipsis, dash or comma.
    if text.ends_with("...")
        || text.ends_with('…')
        || text.ends_with(['-', '—', '–', ',', ';', ':'])
    {
        return Completion::Incomplete;
    }
    let closing = text.chars().last();
    let asks = matches!(closing, Some('?' | '？'));
    let closed = asks || matches!(closing, Some('.' | '!' | '。' | '！'));
    if !closed {
        return Completion::Incomplete;
    }
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect();
    let Some(&last) = words.last() else {
        return Completion::Incomplete;
    };
    // Without spaces between words (Chinese, Japanese) the closing mark is all there is.
    if last.chars().any(is_cjk_letter) {
        return Completion::Complete;
    }
    if GOES_ON.contains(&last) {
        return Completion::Incomplete;
    }
    if AUXILIARIES.contains(&last) && !(asks && words.len() >= 4) {
        return Completion::Incomplete;
    }
    if !asks && words.len() < MIN_STATEMENT_WORDS {
        return Completion::Incomplete;
    }
    // "Sorry to interrupt," is followed by what the human came to say, even when the
    // recognizer heard it as a longer sentence ("Sorry to enter out.").
    let apologizes = matches!(words[0], "sorry" | "excuse" | "pardon");
    if !asks && apologizes && words.len() < MIN_APOLOGY_WORDS {
        return Completion::Incomplete;
    }
    if !asks && words.len() < MAX_ANNOUNCEMENT_WORDS && ANNOUNCING.contains(&last) {
        return Completion::Incomplete;
    }
    let asks_to_speak =
        asks && words.len() <= 5 && matches!(words[..], ["can" | "may" | "could", "i", ..]);
    if asks_to_speak {
        return Completion::Incomplete;
    }
    Completion::Complete
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_short_apology_is_an_opener_however_it_was_heard() {
        for opener in [
            "Sorry to interrupt.",
            "Sorry to enter out.",
            "Excuse me, one thing.",
            "Sorry, sorry, go on.",
            // Heard so in a run whose human went on after the pause at its comma.
            "All right, then interrupt.",
            "I have a question.",
            "Let me add something.",
        ] {
            assert_eq!(completion(opener), Completion::Incomplete, "{opener}");
        }
        for turn in [
            "Sorry, but I think the derivative is two x.",
            "Sorry, what was the derivative again?",
        ] {
            assert_eq!(completion(turn), Completion::Complete, "{turn}");
        }
    }

    #[test]
    fn finished_questions_and_sentences_are_complete() {
        for text in [
            "What is the derivative of x squared?",
            "Why does the slope change?",
            "I don't get the chain rule.",
            "Can you give me an example?",
            "Why?",
            "Do you know what it is?",
            "导数是什么？",
        ] {
            assert_eq!(completion(text), Completion::Complete, "{text}");
        }
    }

    #[test]
    fn trailing_words_that_go_on_are_incomplete() {
        for text in [
            "What is the derivative of",
            "What is the derivative of?",
            "So the slope is.",
            "I think that, um.",
            "And then we.",
            "What is?",
            "Derivatives.",
            "Sorry to interrupt.",
            "Can I ask something?",
            "What about the...",
            "Because the limit —",
            "",
            "?",
        ] {
            assert_eq!(completion(text), Completion::Incomplete, "{text}");
        }
    }

    proptest! {
        #[test]
        fn never_panics(text in "\\PC{0,60}") {
            let _ = completion(&text);
        }

        #[test]
        fn a_turn_ending_in_a_conjunction_is_never_complete(
            words in prop::collection::vec("[a-z]{1,8}", 1..10),
            tail in prop::sample::select(vec!["and", "so", "because", "the", "of", "um"]),
            mark in prop::sample::select(vec![".", "?", "!", "", ","]),
        ) {
            let text = format!("{} {tail}{mark}", words.join(" "));
            prop_assert_eq!(completion(&text), Completion::Incomplete);
        }
    }
}

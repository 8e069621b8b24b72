//! Word-level text helpers shared by the deck parser and the moderator rules.
//!
//! Every rule that compares texts (slide relevance, circular answers, pile-on references,
//! dodged answers) goes through the same deterministic normalisation: lowercase runs of
//! letters and digits, stop words dropped, the project's one stem. No language model is
//! involved, so the same transcript always yields the same decisions.

use std::collections::BTreeSet;

use ::text::words::stem;

/// Function words that carry no topic. Kept short and English: decks and panels are
/// configured in English; other scripts simply keep all their words.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "com",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "even",
    "few",
    "for",
    "from",
    "further",
    "get",
    "got",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "him",
    "his",
    "how",
    "http",
    "https",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "let",
    "like",
    "me",
    "more",
    "most",
    "much",
    "my",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "ok",
    "okay",
    "on",
    "once",
    "one",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "out",
    "over",
    "own",
    "really",
    "same",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "us",
    "very",
    "was",
    "way",
    "we",
    "well",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "www",
    "yes",
    "you",
    "your",
    "yours",
    "yeah",
    "think",
    "know",
    "mean",
    "going",
    "thing",
    "things",
    "sure",
    "right",
    "actually",
    "question",
    "questions",
];

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '\'' || c == '’'
}

/// Lowercase words of `text`: runs of letters, digits and apostrophes.
pub fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !is_word_char(c))
        .map(|w| w.trim_matches(|c| c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase().replace('’', "'"))
}

/// Stems of the topic-carrying words of `text`, in order, duplicates kept.
///
/// A content word has two characters or more, is not a stop word and is not a
/// contraction ("don't", "we're"); a possessive `'s` is dropped first.
pub fn content_words(text: &str) -> Vec<String> {
    tokens(text)
        .filter_map(|w| {
            let w = w.strip_suffix("'s").map(str::to_owned).unwrap_or(w);
            if w.contains('\'') || w.chars().count() < 2 || STOP_WORDS.contains(&w.as_str()) {
                None
            } else {
                Some(stem(&w))
            }
        })
        .collect()
}

/// The set of [`content_words`] of `text`.
pub fn content_set(text: &str) -> BTreeSet<String> {
    content_words(text).into_iter().collect()
}

/// Jaccard similarity of two word sets, 0 when both are empty.
pub fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        0.0
    } else {
        a.intersection(b).count() as f64 / union as f64
    }
}

/// How many words two sets share.
pub fn shared(a: &BTreeSet<String>, b: &BTreeSet<String>) -> usize {
    a.intersection(b).count()
}

/// Whether two questions ask the same thing: three quarters or more of the content words
/// of the one with fewer (two at least) are the other's. "Can autonomous picking robots
/// improve warehouse performance by reducing overhead?" asks "Can autonomous picking
/// robots be used to improve warehouse performance?" again; "How much does a picking
/// robot cost?" does not.
pub fn asks_again(a: &BTreeSet<String>, b: &BTreeSet<String>) -> bool {
    let fewer = a.len().min(b.len());
    fewer >= 2 && shared(a, b) * 4 >= fewer * 3
}

/// Whitespace-separated words, for answer-length statistics.
pub fn word_count(text: &str) -> usize {
    text.split_whitespace().count()
}

/// Phrases with which a presenter asks the moderator to end an exchange.
pub const MOVE_ON_PHRASES: &[&str] = &[
    "move on",
    "moving on",
    "next question",
    "let's continue",
    "lets continue",
    "let us continue",
    "let's keep going",
    "let's move forward",
    "take that offline",
    "take this offline",
    "park that",
    "park this",
];

/// Whether `text` asks to end the exchange ("can we move on?", "next question, please").
/// Matching is on whole words, case- and punctuation-insensitive.
pub fn asks_to_move_on(text: &str) -> bool {
    let normalised = format!(" {} ", tokens(text).collect::<Vec<_>>().join(" "));
    MOVE_ON_PHRASES
        .iter()
        .any(|p| normalised.contains(&format!(" {p} ")))
}

/// At most `max` characters of `text` (whitespace collapsed), with an ellipsis when cut.
pub fn excerpt(text: &str, max: usize) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= max {
        collapsed
    } else {
        let cut: String = collapsed.chars().take(max.saturating_sub(1)).collect();
        format!("{}…", cut.trim_end())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_asked_again_in_other_words_is_told_apart_from_a_new_one() {
        let set = |t: &str| content_set(t);
        let asked = set("Can autonomous picking robots be used to improve warehouse performance?");
        for again in [
            "Can autonomous picking robots improve warehouse performance by reducing overhead and increasing efficiency?",
            "What do you believe the picking robots are used for in their capacity to improve warehouse performance?",
        ] {
            assert!(asks_again(&set(again), &asked), "{again}");
        }
        for new in [
            "How much does a picking robot cost?",
            "What would prove the warehouse automation market grows by forty billion?",
            "Robots?",
        ] {
            assert!(!asks_again(&set(new), &asked), "{new}");
        }
    }

    #[test]
    fn content_words_drop_stop_words_and_stem_plurals() {
        assert_eq!(
            content_words("The margins of our companies' businesses, don't they?"),
            vec!["margin", "company", "business"]
        );
        assert_eq!(content_words("AI and ML"), vec!["ai", "ml"]);
        assert_eq!(
            content_words("Analysis of the bonus"),
            vec!["analysis", "bonus"]
        );
    }

    #[test]
    fn jaccard_and_shared() {
        let a = content_set("revenue growth margin");
        let b = content_set("margin growth churn");
        assert_eq!(shared(&a, &b), 2);
        assert!((jaccard(&a, &b) - 0.5).abs() < 1e-9);
        assert_eq!(jaccard(&BTreeSet::new(), &BTreeSet::new()), 0.0);
    }

    #[test]
    fn move_on_detection_is_whole_word() {
        assert!(asks_to_move_on("Can we MOVE ON, please?"));
        assert!(asks_to_move_on("Next question."));
        assert!(asks_to_move_on("Let’s continue with the plan"));
        assert!(!asks_to_move_on("We removed online onboarding"));
        assert!(!asks_to_move_on("The next questionnaire is due"));
    }

    #[test]
    fn excerpt_is_char_safe() {
        assert_eq!(excerpt("ééééé", 3), "éé…");
        assert_eq!(excerpt("a  b\nc", 10), "a b c");
    }
}

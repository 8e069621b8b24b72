//! Filler words and hedges in what the presenter said.
//!
//! A recognizer writes a filler as a word ("um", "uh") or, for "like", between commas
//! ("it was, like, huge"); "like" as a verb or a comparison ("companies like ours") is
//! not one. Hedges are counted as phrases of whole words.

use std::collections::BTreeMap;

use voice_protocol::sounds::HESITATIONS;

/// Words that fill a pause besides the recognizer's hesitation sounds
/// ([`voice_protocol::sounds::HESITATIONS`]): each counts wherever it stands.
pub const FILLER_PHRASES: &[&str] = &["you know"];

/// "like", counted only where it is set off by commas or opens a sentence with one.
pub const LIKE: &str = "like";

/// Phrases that soften a claim.
pub const HEDGES: &[&str] = &[
    "i think",
    "i guess",
    "i believe",
    "maybe",
    "perhaps",
    "probably",
    "sort of",
    "kind of",
];

/// One word as said: lower case without its punctuation, and whether a comma (or a
/// sentence's start) stands before and after it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Token {
    word: String,
    set_off_before: bool,
    comma_after: bool,
}

fn tokens(text: &str) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::new();
    let mut sentence_start = true;
    for raw in text.split_whitespace() {
        let word: String = raw
            .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
            .to_lowercase();
        let comma_before = out.last().is_some_and(|t| t.comma_after) || raw.starts_with(',');
        let trimmed = raw.trim_end_matches(['"', '\'', '”', '’', ')']);
        let comma_after = trimmed.ends_with([',', '，', ';', '—', '-']);
        let ends_sentence = trimmed.ends_with(['.', '!', '?', '。', '！', '？']);
        if !word.is_empty() {
            out.push(Token {
                word,
                set_off_before: comma_before || sentence_start,
                comma_after,
            });
        }
        sentence_start = ends_sentence;
    }
    out
}

/// How often each filler and each hedge occurs in `text` (only those that do).
pub fn count(text: &str) -> (BTreeMap<String, usize>, BTreeMap<String, usize>) {
    let tokens = tokens(text);
    let mut fillers = BTreeMap::new();
    let mut hedges = BTreeMap::new();
    for (i, token) in tokens.iter().enumerate() {
        let tally = |phrase: &str, counts: &mut BTreeMap<String, usize>| {
            if phrase_at(&tokens, i, phrase) {
                *counts.entry(phrase.to_owned()).or_insert(0) += 1;
            }
        };
        for phrase in HESITATIONS.iter().chain(FILLER_PHRASES) {
            tally(phrase, &mut fillers);
        }
        for phrase in HEDGES {
            tally(phrase, &mut hedges);
        }
        if token.word == LIKE && token.set_off_before && token.comma_after {
            *fillers.entry(LIKE.to_owned()).or_insert(0) += 1;
        }
    }
    (fillers, hedges)
}

fn phrase_at(tokens: &[Token], at: usize, phrase: &str) -> bool {
    let words: Vec<&str> = phrase.split(' ').collect();
    tokens.len() >= at + words.len()
        && tokens[at..at + words.len()]
            .iter()
            .zip(&words)
            .all(|(t, w)| t.word == *w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fillers_and_hedges_are_found_as_whole_words() {
        let (fillers, hedges) = count(
            "Um, so our margin is, uh, I think about forty percent. Umbrella sales, you know, \
             maybe grow. Summer is kind of slow.",
        );
        assert_eq!(fillers.get("um"), Some(&1), "{fillers:?}");
        assert_eq!(fillers.get("uh"), Some(&1));
        assert_eq!(fillers.get("you know"), Some(&1));
        assert_eq!(hedges.get("i think"), Some(&1));
        assert_eq!(hedges.get("maybe"), Some(&1));
        assert_eq!(hedges.get("kind of"), Some(&1));
        assert_eq!(fillers.values().sum::<usize>(), 3);
    }

    #[test]
    fn like_is_a_filler_only_when_set_off() {
        let (fillers, _) = count("Companies like ours, like, grow. Like, it works. I like it.");
        assert_eq!(fillers.get("like"), Some(&2), "{fillers:?}");
        let (none, _) = count("We would like to show warehouses like yours.");
        assert!(none.is_empty(), "{none:?}");
    }
}

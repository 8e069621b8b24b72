//! espeak-ng's IPA turned into Kokoro's symbols, and symbols into token ids.
//!
//! espeak-ng (`--ipa=3`) joins the letters of one phoneme with U+200D (zero-width
//! joiner), removed here. Kokoro's own normalization is applied (`r` is `ɹ`, `x` is `k`,
//! `ɬ` is `l`, no palatal mark). Mapping diphthongs and affricates to misaki's single
//! symbols (`oʊ` to `O`) was tried and measured: Whisper misheard more words (3–10 %
//! against 2.5–7.5 % per voice), so espeak-ng's phonemes are kept as they are.

use std::collections::HashMap;

use crate::{MAX_TOKENS, clauses::Clause};

/// The joiner espeak-ng puts between the letters of one phoneme.
const JOINER: char = '\u{200d}';

/// espeak-ng symbols Kokoro does not use, and what it reads instead.
const NORMALIZED: &[(char, &str)] = &[('r', "ɹ"), ('x', "k"), ('ɬ', "l"), ('ʲ', ""), (JOINER, "")];

/// Kokoro's symbols for one clause of espeak-ng output (`--ipa=3`, one line or several):
/// lines joined by spaces, language-switch marks such as `(en)` removed, normalized.
pub fn to_symbols(ipa: &str) -> String {
    let mut text = String::with_capacity(ipa.len());
    let mut words = ipa.split_whitespace().peekable();
    while let Some(word) = words.next() {
        text.push_str(&strip_language_marks(word));
        if words.peek().is_some() {
            text.push(' ');
        }
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match NORMALIZED.iter().find(|(from, _)| *from == c) {
            Some((_, to)) => out.push_str(to),
            None => out.push(c),
        }
    }
    out
}

/// `wˈo2(en)mɛ4n(cmn)` without its `(en)` and `(cmn)` marks.
fn strip_language_marks(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut rest = word;
    while let Some(open) = rest.find('(') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find(')') {
            Some(close) if is_language_code(&after[..close]) => {
                rest = &after[close + 1..];
            }
            _ => {
                out.push('(');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `en`, `cmn`, `en-us`: what espeak-ng writes between parentheses when it switches.
fn is_language_code(text: &str) -> bool {
    (2..=8).contains(&text.len()) && text.chars().all(|c| c.is_ascii_lowercase() || c == '-')
}

/// Interjections espeak-ng spells out letter by letter ("Mm-hmm" as "em em hum"), and
/// how they sound.
const INTERJECTIONS: &[(&str, &str)] = &[
    ("mm-hmm", "əmhˈəm"),
    ("mm-hm", "əmhˈəm"),
    ("mhm", "əmhˈəm"),
    ("mmhmm", "əmhˈəm"),
    ("uh-huh", "ʌhˈʌ"),
    ("mm", "ˈəm"),
    ("mmm", "ˈəːm"),
    ("hmm", "hˈəm"),
    ("hm", "hˈəm"),
];

/// The symbols of a clause made only of interjections (`Mm-hmm`, `Hmm, hmm`), which
/// espeak-ng would spell; `None` when any other word is in it.
pub fn interjections(words: &str) -> Option<String> {
    let mut out = Vec::new();
    for word in words.split_whitespace() {
        let word = word
            .trim_matches(|c: char| !c.is_alphanumeric() && c != '-')
            .to_lowercase();
        let (_, symbols) = INTERJECTIONS.iter().find(|(w, _)| *w == word)?;
        out.push(*symbols);
    }
    (!out.is_empty()).then(|| out.join(" "))
}

/// A clause's symbols followed by its mark: what the model reads for it.
pub fn with_marks<'a>(clauses: impl IntoIterator<Item = (&'a Clause<'a>, String)>) -> String {
    let mut out = String::new();
    for (clause, symbols) in clauses {
        let symbols = symbols.trim();
        if symbols.is_empty() && clause.mark.is_none() {
            continue;
        }
        if !out.is_empty() && !symbols.is_empty() {
            out.push(' ');
        }
        out.push_str(symbols);
        if let Some(mark) = clause.mark {
            out.push(mark);
        }
    }
    out
}

/// A vocabulary that is not Kokoro's `vocab.json`.
#[derive(Debug, thiserror::Error)]
pub enum VocabError {
    #[error("the vocabulary is not JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("the vocabulary has no symbols (expected {{\"vocab\": {{\"a\": 43, ...}}}})")]
    Empty,
    #[error("the vocabulary's entry {0:?} is not one symbol with a token id from 1 to 255")]
    Entry(String),
}

/// Kokoro's symbols and their token ids (`vocab.json`); 0 is the padding at both ends.
#[derive(Debug, Clone)]
pub struct Vocab {
    ids: HashMap<char, i64>,
    /// Ids of the space and the clause marks, where a long input may be cut.
    breaks: Vec<i64>,
}

impl Vocab {
    /// Reads `{"vocab": {"a": 43, ...}}` (or the inner map alone).
    pub fn from_json(json: &str) -> Result<Self, VocabError> {
        let value: serde_json::Value = serde_json::from_str(json)?;
        let map = value
            .get("vocab")
            .unwrap_or(&value)
            .as_object()
            .filter(|m| !m.is_empty())
            .ok_or(VocabError::Empty)?;
        let mut ids = HashMap::new();
        for (symbol, id) in map {
            let mut chars = symbol.chars();
            let (Some(c), None) = (chars.next(), chars.next()) else {
                return Err(VocabError::Entry(symbol.clone()));
            };
            let id = id
                .as_i64()
                .filter(|id| (1..=255).contains(id))
                .ok_or_else(|| VocabError::Entry(symbol.clone()))?;
            ids.insert(c, id);
        }
        let breaks = [' ', ',', ';', ':', '.', '!', '?', '—', '…']
            .iter()
            .filter_map(|c| ids.get(c).copied())
            .collect();
        Ok(Self { ids, breaks })
    }

    /// The token ids of `symbols`; symbols the model does not know are left out.
    pub fn tokens(&self, symbols: &str) -> Vec<i64> {
        symbols
            .chars()
            .filter_map(|c| self.ids.get(&c).copied())
            .collect()
    }

    /// `tokens` cut into runs of at most [`MAX_TOKENS`], each after its last space or
    /// clause mark when it has one; runs are never empty.
    pub fn batches(&self, tokens: &[i64]) -> Vec<Vec<i64>> {
        let mut out = Vec::new();
        let mut rest = tokens;
        while rest.len() > MAX_TOKENS {
            let window = &rest[..MAX_TOKENS];
            let cut = window
                .iter()
                .rposition(|t| self.breaks.contains(t))
                .filter(|&i| i > 0)
                .map_or(MAX_TOKENS, |i| i + 1);
            out.push(rest[..cut].to_vec());
            rest = &rest[cut..];
        }
        if !rest.is_empty() {
            out.push(rest.to_vec());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::clauses::clauses;

    const J: &str = "\u{200d}";

    fn vocab() -> Vocab {
        Vocab::from_json(
            r#"{"vocab": {" ": 16, ",": 3, ".": 4, "?": 6, "h": 50, "ə": 83, "l": 54, "ˈ": 156, "O": 31, "w": 65, "ɜ": 87, "ɹ": 123, "d": 46}}"#,
        )
        .unwrap()
    }

    #[test]
    fn espeak_phonemes_become_kokoro_symbols() {
        // "hello world, how are you" as espeak-ng -q --ipa=3 -v en-us writes it.
        let ipa = format!("həlˈo{J}ʊ wˈɜːld\nhˌa{J}ʊ ɑː{J}ɹ juː");
        assert_eq!(to_symbols(&ipa), "həlˈoʊ wˈɜːld hˌaʊ ɑːɹ juː");
        assert_eq!(to_symbols("xrɬʲa"), "kɹla");
        assert_eq!(to_symbols("wˈo2 (en)mɛ4n(cmn)"), "wˈo2 mɛ4n");
    }

    #[test]
    fn clauses_keep_their_marks() {
        let text = "Hello, world?";
        let cut = clauses(text);
        let symbols = ["həlˈO".to_owned(), "wˈɜɹld".to_owned()];
        let joined = with_marks(cut.iter().zip(symbols));
        assert_eq!(joined, "həlˈO, wˈɜɹld?");
        // Symbols the model does not know are left out.
        assert_eq!(
            vocab().tokens(&format!("{joined}§")),
            [50, 83, 54, 156, 31, 3, 16, 65, 156, 87, 123, 54, 46, 6]
        );
    }

    #[test]
    fn interjections_are_sounds_not_letters() {
        assert_eq!(interjections("Mm-hmm").as_deref(), Some("əmhˈəm"));
        assert_eq!(interjections("hmm MHM").as_deref(), Some("hˈəm əmhˈəm"));
        assert_eq!(interjections("Mm-hmm go on"), None);
        assert_eq!(interjections(""), None);
    }

    #[test]
    fn a_vocabulary_is_checked() {
        assert!(matches!(Vocab::from_json("[]"), Err(VocabError::Empty)));
        assert!(matches!(Vocab::from_json("{"), Err(VocabError::Json(_))));
        assert!(matches!(
            Vocab::from_json(r#"{"ab": 3}"#),
            Err(VocabError::Entry(_))
        ));
        assert!(matches!(
            Vocab::from_json(r#"{"a": 0}"#),
            Err(VocabError::Entry(_))
        ));
        assert_eq!(
            Vocab::from_json(r#"{"a": 9}"#).unwrap().tokens("ab a"),
            [9, 9]
        );
    }

    proptest! {
        /// Batches keep every token in order and stay within the model's limit.
        #[test]
        fn batches_cover_the_input_within_the_limit(
            tokens in proptest::collection::vec(prop_oneof![Just(16i64), 1i64..200], 0..2_000)
        ) {
            let batches = vocab().batches(&tokens);
            prop_assert!(batches.iter().all(|b| !b.is_empty() && b.len() <= MAX_TOKENS));
            prop_assert_eq!(batches.concat(), tokens);
        }

        /// Whatever espeak-ng writes, the symbols hold no joiner and no line break.
        #[test]
        fn symbols_are_one_line_without_joiners(ipa in "[a-zəɜːɪʊ\u{200d}ˈˌ() \n]{0,60}") {
            let symbols = to_symbols(&ipa);
            prop_assert!(!symbols.contains(JOINER) && !symbols.contains('\n'));
        }
    }
}

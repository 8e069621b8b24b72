//! Words, stems, stopwords and sentences: the common ground of every metric, so that two
//! metrics never disagree about what a word is.

use crate::script::is_han_or_kana;

/// Words that carry no subject of their own: they neither put a line on topic nor show
/// that an answer took up the human's question.
#[rustfmt::skip]
pub const STOPWORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and",
    "any", "are", "aren't", "around", "as", "at", "be", "because", "been", "before",
    "being", "below", "between", "both", "but", "by", "can", "can't", "cannot", "could",
    "couldn't", "did", "didn't", "do", "does", "doesn't", "doing", "don't", "down",
    "during", "each", "even", "ever", "every", "few", "for", "from", "further", "get",
    "gets", "got", "had", "hadn't", "has", "hasn't", "have", "haven't", "having", "he",
    "he's", "her", "here", "here's", "hers", "herself", "him", "himself", "his", "how",
    "how's", "i", "i'd", "i'll", "i'm", "i've", "if", "in", "into", "is", "isn't", "it",
    "it's", "its", "itself", "just", "let", "let's", "like", "may", "me", "might", "more",
    "most", "much", "must", "my", "myself", "no", "nor", "not", "now", "of", "off", "oh",
    "ok", "okay", "on", "once", "one", "only", "or", "other", "others", "our", "ours",
    "ourselves", "out", "over", "own", "really", "same", "say", "says", "said", "see",
    "shall", "she", "she's", "should", "shouldn't", "so", "some", "such", "sure", "tell",
    "than", "that", "that's", "the", "their", "theirs", "them", "themselves", "then",
    "there", "there's", "these", "they", "they'd", "they'll", "they're", "they've", "thing",
    "things", "think", "this", "those", "through", "to", "too", "under", "until", "up",
    "us", "very", "want", "was", "wasn't", "we", "we'd", "we'll", "we're", "we've", "well",
    "were", "weren't", "what", "what's", "when", "when's", "where", "where's", "whether",
    "which", "while", "who", "who's", "whom", "why", "why's", "will", "with", "won't",
    "would", "wouldn't", "yes", "yeah", "yet", "you", "you'd", "you'll", "you're", "you've",
    "your", "yours", "yourself", "yourselves",
];

/// Lower-case words of letters and digits. An apostrophe inside a word stays part of it
/// ("I'm", "don't"), so that contractions read as one word as they are spoken. Chinese
/// writes no spaces: each Han character is a word of its own, so that n-grams and
/// phrases work on it as on English words.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let end_word = |word: &mut String, out: &mut Vec<String>| {
        let trimmed = word.trim_matches('\'');
        if !trimmed.is_empty() {
            out.push(trimmed.to_lowercase());
        }
        word.clear();
    };
    for c in text.chars() {
        let c = if c == '’' { '\'' } else { c };
        if is_han_or_kana(c) {
            end_word(&mut word, &mut out);
            out.push(c.to_string());
        } else if c.is_alphanumeric() || c == '\'' {
            word.push(c);
        } else {
            end_word(&mut word, &mut out);
        }
    }
    end_word(&mut word, &mut out);
    out
}

/// Whether `text` is written mostly in Chinese: it holds at least as many Han characters
/// as other words (a character is about a spoken syllable, as a short English word is;
/// digits count as neither). `None` without either.
pub fn mostly_chinese(text: &str) -> Option<bool> {
    let (han, other) = words(text)
        .iter()
        .filter(|w| w.chars().any(char::is_alphabetic))
        .fold((0, 0), |(han, other), w| {
            match w.chars().any(is_han_or_kana) {
                true => (han + 1, other),
                false => (han, other + 1),
            }
        });
    (han + other > 0).then_some(han >= other)
}

/// Whether `word` (lower case) is a stopword.
pub fn is_stopword(word: &str) -> bool {
    STOPWORDS.contains(&word)
}

/// A word that can carry a subject: not a stopword and at least 3 characters long.
pub fn is_content_word(word: &str) -> bool {
    word.chars().count() >= 3 && !is_stopword(word)
}

/// A crude suffix-stripping stem, enough for "derivatives" to meet "derivative",
/// "changing" to meet "change" and "businesses" to meet "business" (a word ending in
/// `ss`, `is` or `us`, "analysis", "bonus", keeps its `s`). The one stem of the answers'
/// judge, the bridge's steering and the rehearsal's topics.
pub fn stem(word: &str) -> String {
    let w = word.to_lowercase();
    let len = w.chars().count();
    let stripped = if len > 4 && w.ends_with("ies") {
        format!("{}y", &w[..w.len() - 3])
    } else if len > 5 && w.ends_with("ing") {
        w[..w.len() - 3].to_owned()
    } else if len > 4 && (w.ends_with("ed") || ends_with_sibilant_es(&w)) {
        w[..w.len() - 2].to_owned()
    } else if len > 3
        && w.ends_with('s')
        && !w.ends_with("ss")
        && !w.ends_with("is")
        && !w.ends_with("us")
    {
        w[..w.len() - 1].to_owned()
    } else {
        w
    };
    match stripped.strip_suffix('e') {
        Some(rest) if rest.chars().count() >= 3 => rest.to_owned(),
        _ => stripped,
    }
}

/// "buses", "matches": a plural whose "es" goes with the "s".
fn ends_with_sibilant_es(word: &str) -> bool {
    ["ses", "xes", "ches", "shes", "zes"]
        .iter()
        .any(|s| word.ends_with(s))
}

/// Abbreviations whose full stop ends no sentence ("Dr. Lee", "e.g. a ruler"): lower
/// case, without their last dot. ("etc." and "no." are left out: in speech they end a
/// sentence more often than not.)
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "e.g", "i.e", "u.s", "u.k", "a.m",
    "p.m", "fig", "approx", "inc", "ltd", "mt", "dept", "est", "cf",
];

/// Whether `word` (with or without its last `.`, in any case, quotes or brackets before
/// it ignored) is an abbreviation whose full stop ends no sentence. The one list of the
/// segmenter, the model's output filter and [`sentences`].
pub fn is_abbreviation(word: &str) -> bool {
    let word = word.trim_start_matches(|c: char| !c.is_alphanumeric());
    let word = word.strip_suffix('.').unwrap_or(word);
    ABBREVIATIONS.iter().any(|a| a.eq_ignore_ascii_case(word))
}

/// The sentences of `text`, trimmed. One ends at `.`, `!`, `?` or `…` followed by white
/// space or the text's end (so "3.14", "e.on" and "?!" stay whole, and a `.` after an
/// abbreviation, "Dr. Lee", ends none), or at a full-width `。`, `！` or `？`; closing
/// quotes and brackets after its mark stay with it. The one splitter of the project's
/// judges, moderators and briefings.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let full_width = matches!(c, '。' | '！' | '？');
        if !full_width && !matches!(c, '.' | '!' | '?' | '…') {
            continue;
        }
        let mut end = i + c.len_utf8();
        while let Some(&(j, closer)) = chars.peek() {
            if !matches!(
                closer,
                '"' | '\'' | '”' | '’' | ')' | ']' | '」' | '』' | '）'
            ) {
                break;
            }
            end = j + closer.len_utf8();
            chars.next();
        }
        let after_abbreviation = c == '.'
            && is_abbreviation(
                text[start..i]
                    .rsplit(char::is_whitespace)
                    .next()
                    .unwrap_or_default(),
            );
        let ends = full_width || chars.peek().is_none_or(|&(_, next)| next.is_whitespace());
        if ends && !after_abbreviation {
            out.push(text[start..end].trim());
            start = end;
        }
    }
    out.push(text[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

/// Whether `sentence` asks: it ends with a question mark (`?` or `？`), perhaps before
/// closing quotes or a bracket.
pub fn asks(sentence: &str) -> bool {
    sentence
        .trim_end()
        .trim_end_matches(['"', '\'', '”', '’', ')'])
        .ends_with(['?', '？'])
}

/// Whether a line asks something: one of its sentences asks ([`asks`]), wherever it
/// stands ("Why? Because …" asks too). The planner and the moderators judge a line by
/// this; the guard judges each sentence by [`asks`].
pub fn line_asks(text: &str) -> bool {
    sentences(text).into_iter().any(asks)
}

/// Words that begin a phrase (conjunctions, relative pronouns, prepositions): a long
/// sentence without a clause mark is cut before one, where a speaker could pause.
pub const PHRASE_OPENERS: &[&str] = &[
    "and", "but", "or", "so", "because", "since", "although", "though", "while", "when", "where",
    "which", "who", "that", "if", "unless", "until", "then", "than", "as", "to", "of", "for",
    "with", "without", "in", "on", "at", "by", "from", "into", "about", "after", "before",
    "between", "through",
];

/// `text` begins with a word of [`PHRASE_OPENERS`] (any case).
pub fn opens_phrase(text: &str) -> bool {
    let word: String = text
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect();
    PHRASE_OPENERS.contains(&word.as_str())
}

/// Whether `phrase` occurs in `words` as consecutive whole words.
pub fn contains_phrase(words: &[String], phrase: &[String]) -> bool {
    !phrase.is_empty() && words.windows(phrase.len()).any(|w| w == phrase)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_asks_when_any_of_its_sentences_asks() {
        assert!(line_asks("Really?"));
        assert!(line_asks("真的吗？"));
        assert!(line_asks("Why does it hold? I doubt it."));
        assert!(line_asks("He said \"why not?\""));
        assert!(!line_asks("Yes."));
        assert!(!line_asks(""));
    }

    #[test]
    fn words_are_lower_case_letters_and_digits_with_inner_apostrophes() {
        assert_eq!(
            words("I’m Ms. Rivera: x^2 is 'two x', isn't it?"),
            [
                "i'm", "ms", "rivera", "x", "2", "is", "two", "x", "isn't", "it"
            ]
        );
        assert!(words(" ... !? ").is_empty());
    }

    #[test]
    fn a_sentence_asks_when_it_ends_on_a_question_mark() {
        for asking in ["Why?", "She asked “why?”", "(Really?) ", "为什么？"] {
            assert!(asks(asking), "{asking:?}");
        }
        for telling in ["Why? Because.", "It is so.", "?!", ""] {
            assert!(!asks(telling), "{telling:?}");
        }
    }

    #[test]
    fn each_han_character_is_a_word() {
        assert_eq!(
            words("我认为city中心，应该禁止cars。"),
            [
                "我", "认", "为", "city", "中", "心", "应", "该", "禁", "止", "cars"
            ]
        );
        assert_eq!(mostly_chinese("我认为 cars 应该禁止"), Some(true));
        assert_eq!(mostly_chinese("I think 汽车 should go"), Some(false));
        assert_eq!(mostly_chinese("… 42 !"), None);
    }

    #[test]
    fn stems_meet_across_plurals_and_suffixes() {
        for (a, b) in [
            ("derivatives", "derivative"),
            ("changing", "change"),
            ("changed", "changes"),
            ("cities", "city"),
            ("buses", "bus"),
            ("slopes", "slope"),
            ("businesses", "business"),
            ("bonuses", "bonus"),
            ("margins", "margin"),
            ("taxes", "tax"),
            ("pitches", "pitch"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} / {b}");
        }
        assert_ne!(stem("business"), stem("bus"));
        assert_eq!(stem("analysis"), "analysis");
    }

    #[test]
    fn content_words_skip_stopwords_and_short_words() {
        assert!(is_content_word("slope"));
        assert!(!is_content_word("the"));
        assert!(!is_content_word("ox"));
        assert!(!is_content_word("would"));
    }

    #[test]
    fn sentences_end_at_a_mark_before_white_space_and_keep_their_closing_quote() {
        assert_eq!(
            sentences("It is 3.14 here. He said \"yes.\" Then?! Sure… ok。好"),
            [
                "It is 3.14 here.",
                "He said \"yes.\"",
                "Then?!",
                "Sure…",
                "ok。",
                "好"
            ]
        );
        assert!(sentences("  ").is_empty());
    }

    #[test]
    fn an_abbreviation_s_full_stop_ends_no_sentence() {
        assert_eq!(
            sentences("In my work, Dr. Lee and Mr. Cho agree, e.g. on costs. Then we vote."),
            [
                "In my work, Dr. Lee and Mr. Cho agree, e.g. on costs.",
                "Then we vote."
            ]
        );
        assert!(is_abbreviation("Dr."));
        assert!(is_abbreviation("(e.g."));
        assert!(is_abbreviation("ms"));
        assert!(!is_abbreviation("correct."));
        assert!(!is_abbreviation("etc."));
    }

    #[test]
    fn sentences_split_after_end_marks() {
        assert_eq!(
            sentences("Hi. Why? Sure!  ok"),
            ["Hi.", "Why?", "Sure!", "ok"]
        );
    }

    #[test]
    fn a_phrase_opens_on_a_conjunction_or_preposition() {
        assert!(opens_phrase("because it"));
        assert!(opens_phrase(" Which one"));
        assert!(!opens_phrase("thereby"));
        assert!(!opens_phrase(""));
    }

    #[test]
    fn phrases_match_whole_words_only() {
        let line = words("you are a patient tutor");
        assert!(contains_phrase(&line, &words("are a patient")));
        assert!(!contains_phrase(&line, &words("are a pat")));
        assert!(!contains_phrase(&line, &[]));
    }
}

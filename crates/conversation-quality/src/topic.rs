//! On topic: a line that holds a word of the conversation's subject.

use std::collections::HashSet;

use crate::inputs::Agenda;
use text::script::is_han_or_kana;

use text::words::{contains_phrase, is_stopword, words};

fn is_han_word(word: &str) -> bool {
    word.chars().any(is_han_or_kana)
}

/// The words that mark a line as on topic.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lexicon {
    words: HashSet<String>,
    /// Chinese entries ("汽车"): a run of Han characters, each a word of its own.
    phrases: Vec<Vec<String>>,
}

impl Lexicon {
    /// Every word of the agenda's `lexicon`, and the words of its `topic` and `agenda`
    /// items that are not stopwords (the subject's own words are on topic too). A
    /// Chinese entry is a phrase; the Chinese of the topic and agenda is not taken
    /// character by character (a single character such as 是 carries no subject).
    pub fn from_agenda(agenda: &Agenda) -> Self {
        let mut lexicon = Self::default();
        for entry in &agenda.lexicon {
            let entry_words = words(entry);
            if entry_words.iter().any(|w| is_han_word(w)) {
                lexicon.phrases.push(entry_words);
            } else {
                lexicon.words.extend(entry_words);
            }
        }
        let subject = std::iter::once(&agenda.topic)
            .chain(&agenda.agenda)
            .flat_map(|item| words(item))
            .filter(|w| !is_stopword(w) && !is_han_word(w));
        lexicon.words.extend(subject);
        lexicon
    }

    /// Whether `line` (its words) holds a lexicon word or phrase.
    pub fn matches(&self, line: &[String]) -> bool {
        line.iter().any(|w| self.words.contains(w))
            || self.phrases.iter().any(|p| contains_phrase(line, p))
    }

    pub fn contains(&self, word: &str) -> bool {
        self.words.contains(&word.to_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lexicon() -> Lexicon {
        Lexicon::from_agenda(&Agenda {
            topic: "derivatives in first-year calculus".into(),
            agenda: vec!["the power rule".into()],
            lexicon: vec!["slope".into(), "Tangent".into()],
            conductors: Vec::new(),
            language: None,
        })
    }

    #[test]
    fn lexicon_topic_and_agenda_words_count_but_not_stopwords() {
        let l = lexicon();
        for w in [
            "slope",
            "tangent",
            "derivatives",
            "calculus",
            "power",
            "rule",
            "first",
        ] {
            assert!(l.contains(w), "{w}");
        }
        assert!(!l.contains("the"));
        assert!(!l.contains("in"));
    }

    #[test]
    fn a_line_is_on_topic_by_whole_words_in_any_case() {
        let l = lexicon();
        assert!(l.matches(&words("The SLOPE is steep.")));
        assert!(!l.matches(&words("Slopestyle skiing is fun.")));
        assert!(!l.matches(&words("")));
    }

    #[test]
    fn chinese_entries_are_phrases_and_the_chinese_topic_is_not_split_into_characters() {
        let l = Lexicon::from_agenda(&Agenda {
            topic: "城市是否应该禁止私家车？".into(),
            lexicon: vec!["汽车".into(), "交通".into()],
            ..Agenda::default()
        });
        assert!(l.matches(&words("我认为汽车太多了。")));
        assert!(l.matches(&words("公共交通更好")));
        // 是 and 车 are characters of the topic, not entries.
        assert!(!l.matches(&words("这是一辆车")));
        assert!(!l.matches(&words("汽 and 车 apart")));
    }
}

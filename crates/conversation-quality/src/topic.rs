//! On topic: a line that holds a word of the conversation's subject.

use std::collections::HashSet;

use crate::inputs::Agenda;
use crate::words::{is_stopword, words};

/// The words that mark a line as on topic.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lexicon {
    words: HashSet<String>,
}

impl Lexicon {
    /// Every word of the agenda's `lexicon`, and the words of its `topic` and `agenda`
    /// items that are not stopwords (the subject's own words are on topic too).
    pub fn from_agenda(agenda: &Agenda) -> Self {
        let listed = agenda.lexicon.iter().flat_map(|entry| words(entry));
        let subject = std::iter::once(&agenda.topic)
            .chain(&agenda.agenda)
            .flat_map(|item| words(item))
            .filter(|w| !is_stopword(w));
        Self {
            words: listed.chain(subject).collect(),
        }
    }

    /// Whether `line` (its words) holds a lexicon word.
    pub fn matches(&self, line: &[String]) -> bool {
        line.iter().any(|w| self.words.contains(w))
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
}

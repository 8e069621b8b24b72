//! Answers to the human: the first agent line after a human line should take up what the
//! human said, not carry on as if no one had spoken.

use std::collections::HashSet;

use crate::words::{is_content_word, stem};

/// The stems of `line`'s content words: what a reply can take up.
pub fn content_stems(line: &[String]) -> HashSet<String> {
    line.iter()
        .filter(|w| is_content_word(w))
        .map(|w| stem(w))
        .collect()
}

/// Whether `answer` shares a content word (by stem) with `question`.
pub fn addresses(question: &[String], answer: &[String]) -> bool {
    let asked = content_stems(question);
    content_stems(answer).iter().any(|s| asked.contains(s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::words;

    #[test]
    fn an_answer_taking_up_a_word_addresses_the_question() {
        assert!(addresses(
            &words("Why is the slope a limit?"),
            &words("Because slopes of secants approach it.")
        ));
        assert!(addresses(
            &words("How do derivatives change?"),
            &words("The derivative is changing with x.")
        ));
    }

    #[test]
    fn stopwords_and_short_words_do_not_count() {
        assert!(!addresses(
            &words("Why is it so?"),
            &words("It is what it is, so why not.")
        ));
        assert!(!addresses(&words("What about x?"), &words("x marks it.")));
    }
}

//! Answers to the human: the first agent line after a human line should take up what the
//! human said, not carry on as if no one had spoken.

use std::collections::HashSet;

use crate::words::{is_content_word, stem};

/// The stem a figure stands for: a question asking for numbers is taken up by an answer
/// that gives some ("show me a derivative with actual numbers" → "at 3 the slope is 6"),
/// as a listener hears it, though the two share no word.
pub const NUMBER_STEM: &str = "number";

/// Numbers spelled out, as a recognizer or a model may write them.
const NUMERALS: &[&str] = &[
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    "twenty", "hundred", "thousand", "million", "billion",
];

/// The stems of `line`'s content words: what a reply can take up. A figure (digits or a
/// spelled-out number) counts as [`NUMBER_STEM`].
pub fn content_stems(line: &[String]) -> HashSet<String> {
    line.iter()
        .filter_map(|w| {
            if (!w.is_empty() && w.chars().all(|c| c.is_ascii_digit()))
                || NUMERALS.contains(&w.as_str())
            {
                Some(NUMBER_STEM.to_owned())
            } else {
                is_content_word(w).then(|| stem(w))
            }
        })
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
    fn figures_take_up_a_question_asking_for_numbers() {
        let asked = words("Can you show me a derivative with actual numbers?");
        assert!(addresses(&asked, &words("At 3 the slope is 6.")));
        assert!(addresses(
            &asked,
            &words("Take two apples and three pears.")
        ));
        assert!(!addresses(&asked, &words("The area under a curve.")));
        assert!(addresses(&words("Is it 42?"), &words("No, 41.")));
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

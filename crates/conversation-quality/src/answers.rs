//! Answers to the human: the first agent line after a human line should take up what the
//! human said, not carry on as if no one had spoken.

use std::collections::HashSet;

use text::words::{is_content_word, stem, words};

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

/// Content words a question shares with one sentence of what it challenges for that
/// sentence to count as a claim it takes up.
pub const CLAIM_SHARED_WORDS: usize = 3;

/// Of those shared words, how many must not be words of the talk's subject.
pub const CLAIM_OWN_WORDS: usize = 2;

/// Whether `question` bites on `source` (a slide, an answer): it names one of the
/// source's figures (the same digits: "62" of "62%", "500" of "$2,500"), or shares
/// [`CLAIM_SHARED_WORDS`] content words (by stem) with one of its sentences, a claim.
/// Of the shared words, [`CLAIM_OWN_WORDS`] are not words of `subject` (what the whole
/// talk is about: a deck's title slide), which every question of the talk has. A
/// question about the subject in general ("what drives warehouse costs?") does neither.
pub fn takes_up_claim(question: &str, source: &str, subject: &str) -> bool {
    let asked = words(question);
    let figure = |w: &String| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit());
    let figures: HashSet<&String> = asked.iter().filter(|w| figure(w)).collect();
    if words(source)
        .iter()
        .any(|w| figure(w) && figures.contains(w))
    {
        return true;
    }
    let mut stems = content_stems(&asked);
    stems.remove(NUMBER_STEM);
    let general = content_stems(&words(subject));
    text::words::sentences(source).iter().any(|sentence| {
        let shared: Vec<String> = content_stems(&words(sentence))
            .into_iter()
            .filter(|s| stems.contains(s))
            .collect();
        let own = shared.iter().filter(|s| !general.contains(*s)).count();
        shared.len() >= CLAIM_SHARED_WORDS && own >= CLAIM_OWN_WORDS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_question_bites_on_a_figure_or_a_claim_of_the_slide() {
        let slide = "Robots-as-a-service at $2,500 per robot per month. Gross margin of 62% \
                     at 50 robots, payback in 9 months.";
        // A figure of the slide, named.
        assert!(takes_up_claim(
            "Does the 62% margin hold below fifty robots?",
            slide,
            ""
        ));
        assert!(takes_up_claim(
            "Who pays the $2,500 when a robot idles?",
            slide,
            ""
        ));
        // A claim: three of its words.
        assert!(takes_up_claim(
            "What would prove the gross margin holds at fewer robots?",
            slide,
            ""
        ));
        // The subject in general, or another figure.
        assert!(!takes_up_claim("What drives your costs?", slide, ""));
        assert!(!takes_up_claim("Is a margin of 40% realistic?", slide, ""));
        assert!(!takes_up_claim("How big is the market?", "", ""));
    }

    #[test]
    fn the_words_of_the_talks_subject_are_no_claim() {
        let subject = "Acme Robotics. Autonomous picking robots for mid-size warehouses.";
        let slide = "Autonomous picking robots for mid-size warehouses. Picking is 55% of \
                     labour cost in a mid-size warehouse.";
        // Three words of the title, nothing of the slide's own claim.
        let general = "What do autonomous picking robots change for you?";
        assert!(takes_up_claim(general, slide, ""));
        assert!(!takes_up_claim(general, slide, subject));
        // One word of the claim beside the title's is not enough.
        assert!(!takes_up_claim(
            "What do autonomous picking robots cost?",
            slide,
            subject
        ));
        // The claim itself, and a figure, still bite.
        assert!(takes_up_claim(
            "Is picking really most of the labour cost in a warehouse?",
            slide,
            subject
        ));
        assert!(takes_up_claim(
            "Where does the 55% come from?",
            slide,
            subject
        ));
    }
}

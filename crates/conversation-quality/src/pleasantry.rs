//! Pleasantry loops: participants thanking and agreeing with each other line after line,
//! saying nothing. One such line is manners; two in a row is a loop starting.

use text::words::{is_stopword, sentences, words};

/// Openings of stock pleasantries (matched on whole words at a sentence's start, any
/// case): thanks, welcome, praise of the question, gladness, offers of help, agreement.
pub const PLEASANTRY_OPENINGS: &[&str] = &[
    "thank you",
    "thanks",
    "you're welcome",
    "you are welcome",
    "great question",
    "good question",
    "excellent question",
    "great point",
    "good point",
    "excellent point",
    "i'm glad",
    "i am glad",
    "i'm so glad",
    "glad to help",
    "happy to help",
    "i'm happy to help",
    "feel free to ask",
    "if you have any other questions",
    "if you have any more questions",
    "let me know if",
    "i hope this helps",
    "i agree",
    "i totally agree",
    "i completely agree",
    "absolutely",
    "exactly",
    "definitely",
    "of course",
    "well said",
    "that's a great",
    "that is a great",
    "that's right",
    "that's true",
    "sounds good",
    "nice to meet you",
    "keep up the good work",
    "you're doing great",
    "i appreciate",
];

/// Words that may follow an opening without the sentence saying anything ("Thank you so
/// much for sharing your thoughts").
#[rustfmt::skip]
pub const PLEASANTRY_FILLER: &[&str] = &[
    "question", "questions", "point", "points", "insight", "insights", "thoughts", "input",
    "answer", "explanation", "help", "helpful", "helps", "sharing", "share", "asking",
    "ask", "glad", "happy", "great", "good", "nice", "wonderful", "fantastic", "excellent",
    "interesting", "important", "welcome", "thanks", "thank", "agree", "absolutely",
    "exactly", "definitely", "indeed", "totally", "completely", "right", "true", "course",
    "everyone", "today", "conversation", "discussion", "time", "appreciate", "hear", "hope",
    "free", "feel", "know", "anything", "else", "keep", "work", "doing", "said", "meet",
    "love", "again", "perspective", "contribution", "observation", "comment", "asked",
];

/// How many words of substance (neither stopword nor filler) a pleasantry may hold: one,
/// for a name ("Thank you, Ben!").
const SUBSTANCE_ALLOWED: usize = 1;

/// Whether every sentence of `text` is a stock pleasantry (and there is at least one).
pub fn is_pleasantry_only(text: &str) -> bool {
    let sentences = sentences(text);
    let mut said_something = false;
    for sentence in sentences {
        let words = words(sentence);
        if words.is_empty() {
            continue;
        }
        if !is_pleasantry(&words) {
            return false;
        }
        said_something = true;
    }
    said_something
}

/// A sentence opening with a pleasantry and holding at most [`SUBSTANCE_ALLOWED`] words
/// of substance after it.
fn is_pleasantry(sentence: &[String]) -> bool {
    PLEASANTRY_OPENINGS.iter().any(|opening| {
        let opening = words(opening);
        sentence.starts_with(&opening) && substance(&sentence[opening.len()..]) <= SUBSTANCE_ALLOWED
    })
}

fn substance(rest: &[String]) -> usize {
    rest.iter()
        .filter(|w| !is_stopword(w) && !PLEASANTRY_FILLER.contains(&w.as_str()))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stock_thanks_and_agreement_are_pleasantries() {
        for line in [
            "Thank you so much, Ben!",
            "Great question. I'm glad you asked.",
            "Absolutely! I agree with you.",
            "Thanks for sharing your thoughts. Feel free to ask anything else!",
            "If you have any other questions, feel free to ask.",
            "You're welcome.",
        ] {
            assert!(is_pleasantry_only(line), "{line}");
        }
    }

    #[test]
    fn a_sentence_with_substance_is_not() {
        for line in [
            "Great question. The derivative of x squared is two x.",
            "Thank you, Ben, the slope of the tangent is the limit.",
            "I agree that the slope is 6 at x equals 3.",
            "The slope is steep.",
            "",
            "...",
        ] {
            assert!(!is_pleasantry_only(line), "{line}");
        }
    }
}

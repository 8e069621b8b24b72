//! The words an answer to a human may open with, said while the rest is still being
//! written (a listener hears the answerer take the floor within a breath).
//!
//! The bridge that answers chooses one (`agent_bridge::opener`), by what the human's
//! words ask for, among the options of that kind that it did not say lately; a player
//! that voices slowly prepares their audio ahead, so that an opener sounds as soon as it
//! arrives, and the first options of every kind first.
//!
//! The answer's own words come seconds later on two cores: where the human asked for
//! something, or why, an opener of about a second and a half fills more of that wait
//! than one word does. Each is one sentence without a comma, so that it is voiced, and
//! kept, as one phrase.

/// The options for a request ("Can you give me an example?", "Explain it again").
pub const FOR_REQUEST: &[&str] = &["Let me walk you through it.", "Of course.", "Sure thing."];
/// The options for a why or a how.
pub const FOR_REASON: &[&str] = &["Let me think about that.", "That's a good question."];
/// The options for another question.
pub const FOR_QUESTION: &[&str] = &[
    "That's a good question.",
    "Let me think about that.",
    "Let me see.",
];
/// The options for a statement.
pub const FOR_STATEMENT: &[&str] = &["Right.", "I see.", "Okay."];

/// The first option of every kind: what an answerer says first, whatever it is asked.
pub const FIRST_CHOICES: &[&str] = &[
    FOR_REQUEST[0],
    FOR_REASON[0],
    FOR_QUESTION[0],
    FOR_STATEMENT[0],
];

/// Every opener, as the bridge sends it and the segmenter passes it on (its line break
/// apart): the player's cache is keyed by these exact texts. The first choices first.
pub const PHRASES: &[&str] = &[
    "Let me walk you through it.",
    "Let me think about that.",
    "That's a good question.",
    "Right.",
    "Of course.",
    "Sure thing.",
    "Let me see.",
    "I see.",
    "Okay.",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_is_a_phrase_once_and_one_sentence_without_a_comma() {
        let options: Vec<&str> = [FOR_REQUEST, FOR_REASON, FOR_QUESTION, FOR_STATEMENT]
            .concat()
            .into_iter()
            .collect();
        for option in &options {
            assert!(PHRASES.contains(option), "{option}");
            assert!(!option.contains(','), "{option}");
            let marks = option.matches(['.', '!', '?']).count();
            assert_eq!(marks, 1, "{option}");
        }
        for phrase in PHRASES {
            assert!(options.contains(phrase), "{phrase}");
            assert_eq!(PHRASES.iter().filter(|p| *p == phrase).count(), 1);
        }
        assert_eq!(&PHRASES[..FIRST_CHOICES.len()], FIRST_CHOICES);
    }
}

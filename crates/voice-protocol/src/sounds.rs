//! Sounds a recognizer writes that carry no word, in one list for everyone who reads a
//! transcript: the recognizer's end of turn (an utterance made only of them is feedback
//! or a hesitation, not a turn) and the rehearsal coach (fillers counted per minute).

/// A speaker holding the floor while thinking ("um", "uh", "er").
pub const HESITATIONS: &[&str] = &["um", "umm", "uh", "uhh", "uhm", "er", "erm", "hmm", "mm"];

/// A listener's feedback to whoever speaks ("mm-hmm", "uh-huh").
pub const FEEDBACK: &[&str] = &["mm-hmm", "mhm", "uh-huh", "hm", "ah"];

/// Whether `word` (in lower case, without punctuation) is a sound that carries no word.
pub fn is_wordless(word: &str) -> bool {
    HESITATIONS.contains(&word) || FEEDBACK.contains(&word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hesitations_and_feedback_are_wordless_and_words_are_not() {
        assert!(is_wordless("um") && is_wordless("mm-hmm") && is_wordless("uhh"));
        assert!(!is_wordless("umbrella") && !is_wordless("yes") && !is_wordless("Um"));
        // No sound is in both lists: each says one thing.
        assert!(HESITATIONS.iter().all(|h| !FEEDBACK.contains(h)));
    }
}

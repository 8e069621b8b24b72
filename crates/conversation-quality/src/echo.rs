//! Echoes: a line mostly made of word 3-grams just said, by anyone. Small models in a
//! group chat copy each other's sentences; the share of copied 3-grams catches a line
//! that repeats with a word or two changed.

use std::collections::HashSet;

/// How many lines before a line (by anyone, the human included) it is compared with.
pub const ECHO_WINDOW: usize = 8;

/// The share of a line's word 3-grams already said from which it is an echo.
pub const ECHO_SHARE: f64 = 0.5;

/// The share of `line`'s word 3-grams found in `context` (the lines before it), or `None`
/// when the line has fewer than 3 words (too short to echo).
pub fn echoed_share(line: &[String], context: &[&[String]]) -> Option<f64> {
    if line.len() < 3 {
        return None;
    }
    let said: HashSet<&[String]> = context.iter().flat_map(|w| w.windows(3)).collect();
    let grams = line.windows(3).count();
    let repeated = line.windows(3).filter(|g| said.contains(g)).count();
    Some(repeated as f64 / grams as f64)
}

/// Whether `line` is an echo of `context`.
pub fn is_echo(line: &[String], context: &[&[String]]) -> bool {
    echoed_share(line, context).is_some_and(|share| share >= ECHO_SHARE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use text::words::words;

    fn echo(line: &str, context: &[&str]) -> bool {
        let context: Vec<Vec<String>> = context.iter().map(|l| words(l)).collect();
        let context: Vec<&[String]> = context.iter().map(Vec::as_slice).collect();
        is_echo(&words(line), &context)
    }

    #[test]
    fn a_line_repeated_with_a_word_changed_is_an_echo() {
        assert!(echo(
            "So the derivative of x squared is two x!",
            &["The derivative of x squared is two x."]
        ));
    }

    #[test]
    fn a_new_line_is_no_echo() {
        assert!(!echo(
            "What about x cubed then?",
            &["The derivative of x squared is two x."]
        ));
    }

    #[test]
    fn short_lines_never_echo() {
        assert!(!echo("Yes, exactly.", &["Yes, exactly."]));
        assert_eq!(echoed_share(&words("Yes exactly"), &[]), None);
    }

    #[test]
    fn half_the_grams_is_enough() {
        // 4 grams, 2 said before.
        assert!(echo("a b c d e f", &["a b c d"]));
        assert!(!echo("a b c d e f", &["a b c"]));
    }
}

//! Word counting for ratio balancing.
//!
//! Rule: every CJK ideograph or kana counts as one word (Chinese and
//! Japanese are written without spaces); every other run of letters or digits counts as
//! one word, where `'`, `’` and `-` between letters, and `.` or `,` between digits, keep
//! the run together ("don't", "well-known", "3.14"). Punctuation, symbols and white space count for nothing. Hangul is
//! written with spaces between words, so it is counted like Latin script.

use crate::script::is_han_or_kana;

/// Counts the words of `text` by the rule in the module documentation.
pub fn count_words(text: &str) -> u64 {
    let mut words = 0;
    let mut in_word = false;
    let mut prev = ' ';
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        if is_han_or_kana(c) {
            words += 1;
            in_word = false;
        } else if c.is_alphanumeric() {
            if !in_word {
                words += 1;
                in_word = true;
            }
        } else if in_word && is_joiner(prev, c, next) {
            // "don't", "well-known", "3.14": one word
        } else {
            in_word = false;
        }
        prev = c;
    }
    words
}

fn is_joiner(prev: char, c: char, next: Option<char>) -> bool {
    let Some(next) = next else { return false };
    match c {
        '\'' | '’' | '-' => next.is_alphanumeric() && !is_han_or_kana(next),
        '.' | ',' => prev.is_ascii_digit() && next.is_ascii_digit(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin_words() {
        assert_eq!(count_words(""), 0);
        assert_eq!(count_words("   "), 0);
        assert_eq!(count_words("Hello, world!"), 2);
        assert_eq!(count_words("Don't stop—it's well-known."), 4);
        assert_eq!(count_words("3.14 is pi, 1,000 times"), 5);
        assert_eq!(count_words("-- ... !!"), 0);
        assert_eq!(count_words("tab\tand\nnewline"), 3);
    }

    #[test]
    fn cjk_characters_count_one_each() {
        assert_eq!(count_words("我们开始吧。"), 5);
        assert_eq!(count_words("今日はいい天気"), 7);
        assert_eq!(count_words("孙老师 says 你好"), 6);
        assert_eq!(count_words("GPT模型"), 3);
        assert_eq!(count_words("안녕하세요 여러분"), 2);
    }
}

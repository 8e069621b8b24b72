//! Markup and stage directions: text meant for a screen or a script, not for a voice.
//! A speech synthesiser reads "*smiles*" or "\frac{1}{2}" aloud, symbol by symbol.

/// Characters of Markdown formatting (emphasis, headings, code, tables).
const MARKDOWN: &[char] = &['*', '#', '`', '|'];

/// Fragments of LaTeX.
const LATEX: &[&str] = &["\\(", "\\[", "\\frac", "^"];

/// Why a line is markup rather than speech.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Markup {
    Markdown(char),
    Latex(&'static str),
    /// `$` not starting an amount ("$x$", "$$"); "$5" is money.
    Dollar,
    /// A parenthesised direction of 1–3 words, "(smirking)".
    StageDirection(String),
    /// A leading speaker or format tag, "A:", "Q:", "Ms. Rivera:".
    Tag(String),
}

/// The first piece of markup in `text`, if any.
pub fn markup(text: &str) -> Option<Markup> {
    text.chars()
        .find(|c| MARKDOWN.contains(c))
        .map(Markup::Markdown)
        .or_else(|| {
            LATEX
                .iter()
                .find(|l| text.contains(**l))
                .map(|l| Markup::Latex(l))
        })
        .or_else(|| has_non_money_dollar(text).then_some(Markup::Dollar))
        .or_else(|| stage_direction(text).map(Markup::StageDirection))
        .or_else(|| leading_tag(text).map(Markup::Tag))
}

fn has_non_money_dollar(text: &str) -> bool {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' && !chars.peek().is_some_and(char::is_ascii_digit) {
            return true;
        }
    }
    false
}

/// "(smirking)", "(laughs softly)": 1–3 words of letters in parentheses that open the
/// line or follow a space, the first of 3 letters or more ("f(x)" and "(x squared)" are
/// mathematics).
fn stage_direction(text: &str) -> Option<String> {
    let mut rest = text;
    let mut offset = 0;
    while let Some(open) = rest.find('(') {
        let at = offset + open;
        let after_space = text[..at]
            .chars()
            .next_back()
            .is_none_or(char::is_whitespace);
        let inner_start = at + 1;
        if let Some(close) = text[inner_start..].find(')') {
            let inner = &text[inner_start..inner_start + close];
            if after_space && is_direction(inner) {
                return Some(format!("({inner})"));
            }
        }
        offset = inner_start;
        rest = &text[offset..];
    }
    None
}

fn is_direction(inner: &str) -> bool {
    let words: Vec<&str> = inner.split_whitespace().collect();
    (1..=3).contains(&words.len())
        && words.iter().all(|w| {
            w.chars()
                .all(|c| c.is_alphabetic() || c == '\'' || c == '-')
        })
        && words[0].chars().count() >= 3
}

/// "A:", "Q:", "Student 1:", "Ms. Rivera:" opening the line: 1–3 words, each capitalised
/// or a number, then a colon ("For example: ..." is speech).
fn leading_tag(text: &str) -> Option<String> {
    let text = text.trim_start();
    let (head, _) = text.split_once(':')?;
    let words: Vec<&str> = head.split_whitespace().collect();
    let capitalised = words.iter().all(|w| {
        w.chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
    });
    let wordlike = words.iter().all(|w| {
        w.chars()
            .all(|c| c.is_alphanumeric() || c == '.' || c == '\'')
    });
    ((1..=3).contains(&words.len()) && capitalised && wordlike && !head.ends_with(' '))
        .then(|| format!("{head}:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_and_latex_are_markup() {
        assert_eq!(markup("**Slope** is key."), Some(Markup::Markdown('*')));
        assert_eq!(markup("## Limits"), Some(Markup::Markdown('#')));
        assert_eq!(markup("Use `x`."), Some(Markup::Markdown('`')));
        assert_eq!(markup("| a | b |"), Some(Markup::Markdown('|')));
        assert_eq!(markup("It is \\(2x\\)."), Some(Markup::Latex("\\(")));
        assert_eq!(markup("\\frac{1}{2}"), Some(Markup::Latex("\\frac")));
        assert_eq!(markup("x^2"), Some(Markup::Latex("^")));
        assert_eq!(markup("So $x$ grows."), Some(Markup::Dollar));
    }

    #[test]
    fn stage_directions_and_tags_are_markup() {
        assert_eq!(
            markup("(smirking) Well, no."),
            Some(Markup::StageDirection("(smirking)".into()))
        );
        assert_eq!(
            markup("Right (laughs softly) fine."),
            Some(Markup::StageDirection("(laughs softly)".into()))
        );
        assert_eq!(markup("A: the slope."), Some(Markup::Tag("A:".into())));
        assert_eq!(
            markup("Ms. Rivera: try x."),
            Some(Markup::Tag("Ms. Rivera:".into()))
        );
    }

    #[test]
    fn plain_speech_money_and_function_notation_are_not() {
        for line in [
            "The derivative of f(x) is 2x.",
            "It costs $5 million a year.",
            "Take (x squared) first.",
            "The limit (as h goes to zero, of course) is the slope.",
            "Here is the thing: slopes.",
            "For example: x squared.",
            "",
        ] {
            assert_eq!(markup(line), None, "{line}");
        }
    }
}

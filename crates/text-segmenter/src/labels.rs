//! A speaker's label at the start of a line (`Tutor:`, `Dr. Okafor:`, `A:`), dropped: it
//! names who speaks and is not said; a lead-in before a colon (`Note: …`) is said.

/// Labels dropped at the start whatever follows them.
const FIXED_LABELS: &[&str] = &["A", "Q", "Answer", "Response", "Reply"];

/// Capitalised words that, before a colon, introduce what follows rather than name a
/// speaker: `Note: The …`, `Steps: 1. …` are said.
const LEAD_INS: &[&str] = &[
    "note",
    "notes",
    "remember",
    "example",
    "examples",
    "hint",
    "tip",
    "tips",
    "warning",
    "caution",
    "important",
    "summary",
    "definition",
    "formula",
    "step",
    "steps",
    "key",
    "result",
    "results",
    "conclusion",
    "reason",
    "solution",
    "why",
    "how",
    "what",
    "yes",
    "no",
    "well",
    "first",
    "second",
    "third",
    "finally",
    "also",
    "next",
    "now",
    "so",
    "but",
    "and",
    "then",
    "here",
    "there",
    "this",
    "that",
    "these",
    "those",
    "it",
    "the",
    "objection",
    "verdict",
    "ruling",
    "idea",
    "fact",
    "goal",
    "task",
    "problem",
    "correct",
    "wrong",
    "true",
    "false",
    "exactly",
    "right",
    "okay",
    "ok",
    "wait",
    "listen",
    "look",
    "think",
    "imagine",
    "consider",
    "recall",
    "careful",
    "bonus",
    "update",
    "context",
    "claim",
    "evidence",
    "rebuttal",
    "point",
    "premise",
    "therefore",
    "thus",
    "hence",
    "today",
];

/// Titles whose full stop belongs to a speaker's name (`Dr. Okafor:`).
const TITLES: &[&str] = &[
    "Dr", "Mr", "Mrs", "Ms", "Prof", "Sr", "Jr", "St", "Capt", "Gen", "Rev", "Sgt",
];

/// `text` without a leading speaker label (`Judge:`, `Dr. Okafor:`, `A:`, `Answer:`).
///
/// A name label of one or two capitalised words goes only when a sentence follows it
/// (a capital or an uncased letter) or nothing does, and its first word is not a
/// lead-in such as `Note`: `Steps: 1. mix` and `Note: the …` are said.
pub(crate) fn strip_label(text: &str) -> &str {
    let t = text.trim_start();
    let Some((name, after)) = split_label(t) else {
        return text;
    };
    if !(after.is_empty() || after.starts_with(char::is_whitespace)) {
        return text;
    }
    let body = after.trim_start();
    if FIXED_LABELS.contains(&name) {
        return body;
    }
    let first = name
        .split([' ', '.'])
        .next()
        .unwrap_or_default()
        .to_lowercase();
    if LEAD_INS.contains(&first.as_str()) {
        return text;
    }
    let opens_sentence = body
        .chars()
        .find(|c| {
            !matches!(
                c,
                '"' | '\'' | '“' | '‘' | '«' | '(' | '-' | '•' | '#' | '>' | ' '
            )
        })
        .is_none_or(|c| c.is_alphabetic() && !c.is_lowercase());
    if opens_sentence { body } else { text }
}

/// `("Dr. Okafor", rest after the colon)` for `Dr. Okafor: rest`.
fn split_label(t: &str) -> Option<(&str, &str)> {
    let mut end = name_word_len(t)?;
    if t[end..].starts_with('.') && TITLES.contains(&&t[..end]) {
        end += 1;
    }
    let colon = |at: usize| {
        let rest = &t[at..];
        rest.strip_prefix(':')
            .or_else(|| rest.strip_prefix('：'))
            .map(|after| (&t[..at], after))
    };
    if let Some(found) = colon(end) {
        return (!t[..end].ends_with('.')).then_some(found);
    }
    let second = t[end..].strip_prefix(' ')?;
    let len = name_word_len(second)?;
    colon(end + 1 + len)
}

/// Length of a capitalised word at the start of `s` (at most 20 characters).
fn name_word_len(s: &str) -> Option<usize> {
    let mut chars = s.char_indices();
    let (_, first) = chars.next()?;
    if !first.is_uppercase() {
        return None;
    }
    let end = chars
        .find(|(_, c)| !(c.is_alphabetic() || matches!(c, '\'' | '-')))
        .map_or(s.len(), |(i, _)| i);
    (s[..end].chars().count() <= 20).then_some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_labels_go() {
        let cases = [
            ("Judge: The motion carries.", "The motion carries."),
            ("Dr. Okafor: Thank you.", "Thank you."),
            ("Ben: I disagree.", "I disagree."),
            ("Mary Ann: Yes.", "Yes."),
            ("A: 42.", "42."),
            ("Q: what is x?", "what is x?"),
            ("Answer: 12", "12"),
            ("Reply: Sure.", "Sure."),
            ("Judge:", ""),
            ("Ben: 你好", "你好"),
            ("Steps: 1. mix", "Steps: 1. mix"),
            ("Note: The limit exists.", "Note: The limit exists."),
            ("Remember: the slope.", "Remember: the slope."),
            ("Paris: the capital.", "Paris: the capital."),
            ("It is 3:30 now.", "It is 3:30 now."),
            ("Ben:30", "Ben:30"),
            ("Dr.: hi", "Dr.: hi"),
            ("So the answer: Yes.", "So the answer: Yes."),
        ];
        for (input, expected) in cases {
            assert_eq!(strip_label(input), expected, "{input:?}");
        }
    }
}

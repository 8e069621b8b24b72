//! Text cut where a speaker pauses, so that a phonemizer, which drops punctuation, can
//! be given one clause at a time and the model still sees the commas and full stops that
//! shape its intonation.

/// Marks that end a clause (when followed by a space or the end of the text: `3.5` and
/// `e.g.x` are not cut).
const CLAUSE_MARKS: &[char] = &[',', ';', ':', '.', '!', '?', '—', '…'];

/// One clause: its words, and the mark that ended it (none at the end of a text without
/// one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clause<'a> {
    pub words: &'a str,
    pub mark: Option<char>,
}

/// `text` cut after every clause mark followed by whitespace or the end; clauses without
/// words (`"?!"`, `" , "`) are kept only for their mark.
pub fn clauses(text: &str) -> Vec<Clause<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if !CLAUSE_MARKS.contains(&c) {
            continue;
        }
        let ends = chars.peek().is_none_or(|&(_, next)| next.is_whitespace());
        if !ends {
            continue;
        }
        out.push(Clause {
            words: text[start..i].trim(),
            mark: Some(c),
        });
        start = i + c.len_utf8();
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(Clause {
            words: rest,
            mark: None,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(text: &str) -> Vec<(&str, Option<char>)> {
        clauses(text)
            .into_iter()
            .map(|c| (c.words, c.mark))
            .collect()
    }

    #[test]
    fn cuts_after_marks_followed_by_a_space() {
        assert_eq!(
            cut("Hello, world. It is 3.5 meters; e.g.x stays? Yes"),
            [
                ("Hello", Some(',')),
                ("world", Some('.')),
                ("It is 3.5 meters", Some(';')),
                ("e.g.x stays", Some('?')),
                ("Yes", None)
            ]
        );
        assert_eq!(cut("Wait…"), [("Wait", Some('…'))]);
        assert_eq!(cut("  "), []);
        assert_eq!(cut("?! ok"), [("?", Some('!')), ("ok", None)]);
    }
}

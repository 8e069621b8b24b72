//! Where a sentence ends in a stream of text, and where one too long for a phrase is
//! cut: the character classes and the boundary search of [`super::TurnSegmenter`].

use text::script::is_cjk;
use text::words::opens_phrase;

pub(super) fn is_terminal(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '…' | '。' | '！' | '？' | '；')
}

pub(super) fn is_cjk_terminal(c: char) -> bool {
    matches!(c, '。' | '！' | '？' | '；')
}

pub(super) fn is_closer(c: char) -> bool {
    matches!(
        c,
        '"' | '\''
            | '”'
            | '’'
            | ')'
            | ']'
            | '}'
            | '」'
            | '』'
            | '》'
            | '）'
            | '】'
            | '〉'
            | '*'
            | '_'
    )
}

pub(super) fn is_clause_mark(c: char) -> bool {
    matches!(c, ',' | ';' | ':' | '—' | '，' | '、' | '：')
}

/// What is known of the text after a buffer's last character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BufferEnd {
    /// More may come.
    Open,
    /// More may come, but a sentence mark at the end ends a sentence (its writer said so).
    Sentence,
    /// Nothing more comes.
    Stream,
}

/// How far past `max_chars` a boundary search looks (closing marks, the next word).
pub(super) const LOOKAHEAD_CHARS: usize = 256;

/// Byte length of the first complete sentence of `buf`, if its end is certain.
///
/// Only the first `max_chars + LOOKAHEAD_CHARS` characters are looked at, so finding one
/// sentence costs the same however much text waits behind it (a sentence end followed
/// by a longer run of marks or blanks than that is taken as certain).
pub(super) fn find_boundary(buf: &str, end_of_buf: BufferEnd, max_chars: usize) -> Option<usize> {
    let view_end = buf
        .char_indices()
        .nth(max_chars.saturating_add(LOOKAHEAD_CHARS))
        .map_or(buf.len(), |(b, _)| b);
    // Past the view more text has arrived: decide as if the view were all there is.
    let (buf, at_end) = (
        &buf[..view_end],
        end_of_buf == BufferEnd::Stream || view_end < buf.len(),
    );
    // A mark followed by nothing (or only blanks) yet ends a sentence.
    let certain = at_end || end_of_buf == BufferEnd::Sentence;
    let chars: Vec<(usize, char)> = buf.char_indices().collect();
    let n = chars.len();
    let byte_end = |k: usize| chars.get(k + 1).map_or(buf.len(), |(b, _)| *b);
    let limit = n.min(max_chars);
    let mut i = 0;
    while i < limit {
        let c = chars[i].1;
        if c == '\n' {
            if !buf[..chars[i].0].trim().is_empty() {
                return Some(byte_end(i));
            }
            i += 1;
            continue;
        }
        if !is_terminal(c) {
            i += 1;
            continue;
        }
        let mut j = i;
        while j + 1 < n && is_terminal(chars[j + 1].1) {
            j += 1;
        }
        let mut k = j;
        while k + 1 < n && is_closer(chars[k + 1].1) {
            k += 1;
        }
        let end = byte_end(k);
        let run = &buf[chars[i].0..byte_end(j)];
        let next = chars.get(k + 1).map(|(_, c)| *c);
        if run.chars().any(is_cjk_terminal) {
            // A closing bracket may still follow: certain once anything else arrived.
            return (next.is_some() || certain).then_some(end);
        }
        match next {
            None => return certain.then_some(end),
            Some(ws) if ws.is_whitespace() => {}
            // No white space after the mark: a decimal, a URL, "e.g.", "v1.2".
            Some(_) => {
                i = k + 1;
                continue;
            }
        }
        if run == "." && (follows_abbreviation(buf, chars[i].0) || is_list_number(buf, chars[i].0))
        {
            i = k + 1;
            continue;
        }
        // A line break among the blanks after the mark ends the line too: the segment
        // takes it, so that it ends the same however the text was chunked.
        let line_end = chars[k + 1..]
            .iter()
            .take_while(|(_, c)| c.is_whitespace())
            .position(|(_, c)| *c == '\n')
            .map(|p| byte_end(k + 1 + p));
        match chars[k + 1..]
            .iter()
            .map(|(_, c)| *c)
            .find(|c| !c.is_whitespace())
        {
            // Only blanks so far: certain once a line break ended the line.
            None if !certain => return line_end,
            Some(word) if word.is_lowercase() => {
                i = k + 1;
                continue;
            }
            _ => return Some(line_end.unwrap_or(end)),
        }
    }
    if n > max_chars {
        return Some(long_sentence_cut(buf, &chars, max_chars));
    }
    None
}

/// The word before the `.` at `dot` is a known abbreviation.
pub(super) fn follows_abbreviation(buf: &str, dot: usize) -> bool {
    let before = &buf[..dot];
    let start = before
        .char_indices()
        .rev()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '.'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    text::words::is_abbreviation(&before[start..])
}

/// `1.` at the start of the sentence (or of a line): a numbered list item.
pub(super) fn is_list_number(buf: &str, dot: usize) -> bool {
    let before = &buf[..dot];
    let digits = before
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .count();
    if digits == 0 {
        return false;
    }
    let head = &before[..before.len() - digits];
    head.trim().is_empty() || head.ends_with('\n')
}

/// Where to cut a sentence that grew past `max_chars` characters.
pub(super) fn long_sentence_cut(buf: &str, chars: &[(usize, char)], max_chars: usize) -> usize {
    let window = &chars[..max_chars];
    let after = |k: usize| chars.get(k + 1).map_or(buf.len(), |(b, _)| *b);
    let clause = window.iter().enumerate().rev().find(|(k, (_, c))| {
        is_clause_mark(*c)
            && (is_cjk(*c) || *c == '—' || chars.get(k + 1).is_some_and(|(_, n)| n.is_whitespace()))
    });
    if let Some((k, _)) = clause.filter(|(k, _)| *k > 0) {
        return after(k);
    }
    // No clause mark: before a word that opens a phrase ("because", "which", "of"), where
    // a speaker could pause, if there is one in the window's second half.
    if let Some((k, _)) = window
        .iter()
        .enumerate()
        .rev()
        .take_while(|(k, _)| *k >= max_chars / 2)
        .find(|(_, (at, c))| c.is_whitespace() && opens_phrase(buf[*at..].trim_start()))
    {
        return chars[k].0;
    }
    if let Some((k, _)) = window
        .iter()
        .enumerate()
        .rev()
        .find(|(k, (_, c))| *k > 0 && c.is_whitespace())
    {
        return chars[k].0;
    }
    after(max_chars - 1)
}

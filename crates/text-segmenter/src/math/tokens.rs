//! The text cut into tokens: math delimiters, code spans, numbers, commands, signs.

use super::lexicon::*;
use super::{Kind, Mode, NONE, Tok};

pub(super) fn tokenize<'a>(text: &'a str) -> Vec<Tok<'a>> {
    let mut toks = Vec::new();
    let mut mode = Mode::Prose;
    let mut closer = "";
    let mut outer = Mode::Prose;
    let mut code_end = NONE;
    let mut code_ticks = 0;
    let mut i = 0;
    'scan: while i < text.len() {
        let rest = &text[i..];
        let delim = |toks: &mut Vec<Tok<'a>>, len: usize, mode: Mode| {
            toks.push(Tok {
                kind: Kind::Delim,
                text: &rest[..len],
                mode,
            });
        };
        if mode == Mode::Code {
            if i == code_end {
                delim(&mut toks, code_ticks, mode);
                i += code_ticks;
                mode = outer;
                code_end = NONE;
                continue;
            }
        } else {
            if mode == Mode::Math && rest.starts_with(closer) {
                delim(&mut toks, closer.len(), mode);
                i += closer.len();
                mode = Mode::Prose;
                continue;
            }
            if mode == Mode::Prose {
                for (open, close) in [("\\(", "\\)"), ("\\[", "\\]"), ("$$", "$$")] {
                    if rest.starts_with(open) {
                        delim(&mut toks, 2, mode);
                        i += 2;
                        mode = Mode::Math;
                        closer = close;
                        continue 'scan;
                    }
                }
                // A closer without its opener (the sentence was cut inside the math).
                if rest.starts_with("\\)") || rest.starts_with("\\]") {
                    delim(&mut toks, 2, mode);
                    i += 2;
                    continue;
                }
                if rest.starts_with('$') && opens_inline_math(text, i) {
                    delim(&mut toks, 1, mode);
                    i += 1;
                    mode = Mode::Math;
                    closer = "$";
                    continue;
                }
            }
            if rest.starts_with('`') {
                let ticks = rest.len() - rest.trim_start_matches('`').len();
                match closing_ticks(text, i + ticks, ticks) {
                    Some(end) => {
                        delim(&mut toks, ticks, mode);
                        outer = mode;
                        mode = Mode::Code;
                        code_end = end;
                        code_ticks = ticks;
                    }
                    None => toks.push(Tok {
                        kind: Kind::Sym('`'),
                        text: &rest[..ticks],
                        mode,
                    }),
                }
                i += ticks;
                continue;
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        let after = &rest[c.len_utf8()..];
        let (kind, start, len) = if c.is_whitespace() {
            let len = rest
                .find(|c: char| !c.is_whitespace())
                .unwrap_or(rest.len());
            (Kind::Space, 0, len)
        } else if c.is_ascii_digit()
            || (c == '$' && after.starts_with(|d: char| d.is_ascii_digit()))
        {
            (Kind::Num, 0, number_len(rest))
        } else if c == '\\' {
            if after.starts_with('$') && after[1..].starts_with(|d: char| d.is_ascii_digit()) {
                // `\$5`: the escaped sign of an amount.
                (Kind::Delim, 0, 1)
            } else if after.starts_with(|c: char| c.is_ascii_alphabetic()) {
                let name = after
                    .find(|c: char| !c.is_ascii_alphabetic())
                    .unwrap_or(after.len());
                (Kind::Cmd, 1, name)
            } else {
                // A fence tick is left to close its code span.
                let name = after
                    .chars()
                    .next()
                    .filter(|&c| c != '`')
                    .map_or(0, char::len_utf8);
                (Kind::Cmd, 1, name)
            }
        } else if greek_name(c).is_some() {
            let len = rest
                .find(|c: char| greek_name(c).is_none())
                .unwrap_or(rest.len());
            (Kind::Word, 0, len)
        } else if c.is_alphabetic() {
            let len = rest
                .find(|c: char| !c.is_alphabetic() || greek_name(c).is_some())
                .unwrap_or(rest.len());
            (Kind::Word, 0, len)
        } else if sup_char(c).is_some() {
            let len = rest
                .find(|c: char| sup_char(c).is_none())
                .unwrap_or(rest.len());
            (Kind::Sup, 0, len)
        } else {
            (Kind::Sym(c), 0, c.len_utf8())
        };
        toks.push(Tok {
            kind,
            text: &rest[start..start + len],
            mode,
        });
        i += start + len;
    }
    toks
}

/// Byte length of the number at the start of `s` (`$2,500.75`, `3.14`, `42`).
pub(super) fn number_len(s: &str) -> usize {
    let b = s.as_bytes();
    let mut k = usize::from(b.first() == Some(&b'$'));
    while k < b.len() && b[k].is_ascii_digit() {
        k += 1;
    }
    while k + 1 < b.len() && matches!(b[k], b'.' | b',') && b[k + 1].is_ascii_digit() {
        k += 1;
        while k < b.len() && b[k].is_ascii_digit() {
            k += 1;
        }
    }
    k
}

/// Whether the `$` at `i` opens inline math: a non-blank follows it and the next `$` on
/// the line closes it (a non-blank before it, no digit after it). `$5 and $10` is money.
pub(super) fn opens_inline_math(text: &str, i: usize) -> bool {
    if text[..i].ends_with('\\') {
        return false;
    }
    let body = &text[i + 1..];
    let Some(first) = body.chars().next() else {
        return false;
    };
    if first.is_whitespace() || first == '$' {
        return false;
    }
    let Some(close) = body.find('$') else {
        return false;
    };
    let inner = &body[..close];
    !inner.contains('\n')
        && inner
            .chars()
            .next_back()
            .is_some_and(|c| !c.is_whitespace() && c != '\\')
        && !body[close + 1..].starts_with(|c: char| c.is_ascii_digit())
}

/// Where the run of exactly `ticks` backticks closing a code span starts (same line).
pub(super) fn closing_ticks(text: &str, from: usize, ticks: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut k = from;
    while k < b.len() && b[k] != b'\n' {
        if b[k] == b'`' {
            let start = k;
            while k < b.len() && b[k] == b'`' {
                k += 1;
            }
            if k - start == ticks {
                return Some(start);
            }
        } else {
            k += 1;
        }
    }
    None
}

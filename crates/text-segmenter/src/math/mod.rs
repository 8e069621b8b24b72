//! Math markup as words. LaTeX (`\frac{a}{b}`, `\sqrt{x}`, `x^2`, `\lim_{x \to 0}`, Greek
//! letters) and the plain-text math small models write (`3x+1`, `f'(x) = 2x`, `2/3`,
//! `x ≤ 5`) become what a teacher would say aloud: "a over b", "x squared", "f prime of
//! x equals 2 x".
//!
//! Inside math delimiters (`\( \)`, `\[ \]`, `$ $`, `$$ $$`) every sign is math. Outside
//! them a sign is read as math only between operands (numbers, single letters, brackets),
//! so prose keeps its hyphens, dashes and slashes ("first-year", "e-mail", "and/or").
//! `$` before a digit is money. Code spans (backticks) keep their operators as written;
//! their fences are kept in the output for the caller to remove.
//!
//! The text is cut into tokens and every decision looks at the neighbouring tokens with
//! those that render as nothing skipped: the same view a second pass over the output
//! has, so a second pass almost never finds anything left to do.

mod latex;
mod lexicon;
mod neighbours;
mod operators;
mod render;
mod scripts;
mod skip;
mod tokens;
mod unspoken;
mod words;

use std::borrow::Cow;

use lexicon::*;
use skip::Skip;
use tokens::tokenize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Prose,
    Math,
    Code,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// White space.
    Space,
    /// Letters (a Greek run is a word of its own: `Δx` is `Δ`, `x`).
    Word,
    /// Digits with inner `.`/`,` (`2,500`, `3.14`), with a leading `$` for money.
    Num,
    /// `\name` (text is the name) or `\c` for one other character.
    Cmd,
    /// A run of superscript digits and signs (`²`, `⁻¹`).
    Sup,
    Sym(char),
    /// A math delimiter or code-span fence: never spoken.
    Delim,
}

#[derive(Debug, Clone, Copy)]
struct Tok<'a> {
    kind: Kind,
    text: &'a str,
    mode: Mode,
}

/// How a token is spoken.
#[derive(Debug, Clone)]
enum Render {
    /// As written.
    Text,
    /// As words, set apart from what surrounds them.
    Words(Cow<'static, str>),
}

const NONE: usize = usize::MAX;

/// Returns `text` with its math spoken as words; text without math comes back unchanged.
pub(crate) fn speak(text: &str) -> String {
    if !text.chars().any(is_trigger) {
        return text.to_owned();
    }
    let mut speaker = Speaker::new(tokenize(text));
    speaker.decide();
    speaker.render()
}

/// Characters without which nothing here applies.
fn is_trigger(c: char) -> bool {
    matches!(
        c,
        '\\' | '^'
            | '$'
            | '='
            | '+'
            | '-'
            | '*'
            | '/'
            | '<'
            | '>'
            | '_'
            | '('
            | '|'
            | '{'
            | '}'
            | '`'
            | '−'
            | '×'
            | '·'
            | '⋅'
            | '∙'
            | '÷'
            | '′'
    ) || unicode_math_words(c).is_some()
        || sup_char(c).is_some()
        || greek_name(c).is_some()
}

/// An argument of a command, `^` or `_`: a brace group or one token.
#[derive(Debug, Clone, Copy)]
struct Arg {
    /// First token (the `{` of a group).
    open: usize,
    /// Last token (the `}` of a group).
    last: usize,
    /// The token after it.
    next: usize,
}

struct Speaker<'a> {
    toks: Vec<Tok<'a>>,
    /// Renders as nothing; invisible to the neighbour checks.
    hidden: Vec<bool>,
    /// Renders as a space.
    blank: Vec<bool>,
    render: Vec<Render>,
    /// Words after the token.
    post: Vec<&'static str>,
    /// Decided: later rules leave it alone.
    done: Vec<bool>,
    /// Spoken as a value (an operand), e.g. the `^` of "squared".
    value: Vec<bool>,
    space_before: Vec<bool>,
    /// The matching bracket of `{}`, `()`, `[]`.
    partner: Vec<usize>,
    /// Tokens not hidden, before and after an index.
    shown_before: std::cell::RefCell<Skip>,
    shown_after: std::cell::RefCell<Skip>,
    /// Tokens neither hidden nor blank.
    sig_before: std::cell::RefCell<Skip>,
    sig_after: std::cell::RefCell<Skip>,
}

impl<'a> Speaker<'a> {
    /// Which tokens show is settled first (what never shows, then the signs that go
    /// for want of an operand), so that every choice between reading a sign as math and
    /// leaving it as written sees the same neighbours as a second pass over the output.
    fn decide(&mut self) {
        self.hide_static();
        self.star_runs();
        self.absolute_values();
        self.hide_unspoken();
        for i in 0..self.len() {
            if !self.done[i] {
                self.structure(i);
            }
        }
        for i in 0..self.len() {
            if !self.done[i] && !self.hidden[i] && self.toks[i].mode != Mode::Code {
                self.operator(i);
            }
        }
        self.glue();
    }
}

#[cfg(test)]
mod tests;

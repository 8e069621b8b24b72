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

use std::borrow::Cow;

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

// ---------------------------------------------------------------------------------------
// Tokens

fn tokenize<'a>(text: &'a str) -> Vec<Tok<'a>> {
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
fn number_len(s: &str) -> usize {
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
fn opens_inline_math(text: &str, i: usize) -> bool {
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
fn closing_ticks(text: &str, from: usize, ticks: usize) -> Option<usize> {
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

fn sup_char(c: char) -> Option<char> {
    Some(match c {
        '⁰' => '0',
        '¹' => '1',
        '²' => '2',
        '³' => '3',
        '⁴' => '4',
        '⁵' => '5',
        '⁶' => '6',
        '⁷' => '7',
        '⁸' => '8',
        '⁹' => '9',
        '⁺' => '+',
        '⁻' => '-',
        _ => return None,
    })
}

fn greek_name(c: char) -> Option<&'static str> {
    Some(match c {
        'α' | 'Α' => "alpha",
        'β' | 'Β' => "beta",
        'γ' | 'Γ' => "gamma",
        'δ' | 'Δ' => "delta",
        'ε' | 'Ε' | 'ϵ' => "epsilon",
        'ζ' | 'Ζ' => "zeta",
        'η' | 'Η' => "eta",
        'θ' | 'Θ' | 'ϑ' => "theta",
        'ι' | 'Ι' => "iota",
        'κ' | 'Κ' => "kappa",
        'λ' | 'Λ' => "lambda",
        'μ' | 'Μ' => "mu",
        'ν' | 'Ν' => "nu",
        'ξ' | 'Ξ' => "xi",
        'ο' | 'Ο' => "omicron",
        'π' | 'Π' => "pi",
        'ρ' | 'Ρ' => "rho",
        'σ' | 'ς' | 'Σ' => "sigma",
        'τ' | 'Τ' => "tau",
        'υ' | 'Υ' => "upsilon",
        'φ' | 'Φ' | 'ϕ' => "phi",
        'χ' | 'Χ' => "chi",
        'ψ' | 'Ψ' => "psi",
        'ω' | 'Ω' => "omega",
        _ => return None,
    })
}

/// Math signs that are words wherever they appear.
fn unicode_math_words(c: char) -> Option<&'static str> {
    Some(match c {
        '∞' => "infinity",
        '√' => "the square root of",
        '∑' => "the sum of",
        '∏' => "the product of",
        '∫' => "the integral of",
        '∂' => "partial",
        '∆' => "delta",
        '∇' => "del",
        '≤' | '⩽' => "is less than or equal to",
        '≥' | '⩾' => "is greater than or equal to",
        '≠' => "is not equal to",
        '≈' => "is approximately",
        '≡' => "is equivalent to",
        '∝' => "is proportional to",
        '→' | '⟶' => "goes to",
        '⇒' | '⟹' => "implies",
        '⇔' | '⟺' => "if and only if",
        '±' => "plus or minus",
        '∓' => "minus or plus",
        '÷' => "divided by",
        '∈' => "in",
        '∉' => "not in",
        '∀' => "for all",
        '∃' => "there exists",
        '∅' => "the empty set",
        '∩' => "intersection",
        '∪' => "union",
        '⊂' | '⊆' => "is a subset of",
        _ => return None,
    })
}

/// LaTeX commands that are words.
fn command_words(name: &str) -> Option<&'static str> {
    if let Some(greek) = greek_command(name) {
        return Some(greek);
    }
    Some(match name {
        "cdot" | "times" | "ast" => "times",
        "div" => "divided by",
        "pm" => "plus or minus",
        "mp" => "minus or plus",
        "le" | "leq" | "leqslant" => "is less than or equal to",
        "ge" | "geq" | "geqslant" => "is greater than or equal to",
        "lt" => "is less than",
        "gt" => "is greater than",
        "ne" | "neq" => "is not equal to",
        "approx" | "simeq" => "is approximately",
        "sim" => "is similar to",
        "equiv" => "is equivalent to",
        "cong" => "is congruent to",
        "propto" => "is proportional to",
        "to" | "rightarrow" | "longrightarrow" | "mapsto" => "goes to",
        "Rightarrow" | "Longrightarrow" | "implies" => "implies",
        "iff" | "Leftrightarrow" | "Longleftrightarrow" => "if and only if",
        "infty" => "infinity",
        "partial" => "partial",
        "nabla" => "del",
        "in" => "in",
        "notin" => "not in",
        "cup" => "union",
        "cap" => "intersection",
        "subset" | "subseteq" => "is a subset of",
        "emptyset" | "varnothing" => "the empty set",
        "forall" => "for all",
        "exists" => "there exists",
        "neg" | "lnot" => "not",
        "land" | "wedge" => "and",
        "lor" | "vee" => "or",
        "angle" => "angle",
        "perp" => "is perpendicular to",
        "parallel" => "is parallel to",
        "triangle" => "triangle",
        "cdots" | "ldots" | "dots" | "dotsc" | "dotsb" | "vdots" => "and so on",
        "mid" => "such that",
        "prime" => "prime",
        "degree" => "degrees",
        "sin" => "sine",
        "cos" => "cosine",
        "tan" => "tangent",
        "sec" => "secant",
        "csc" => "cosecant",
        "cot" => "cotangent",
        "arcsin" => "arc sine",
        "arccos" => "arc cosine",
        "arctan" => "arc tangent",
        "sinh" => "hyperbolic sine",
        "cosh" => "hyperbolic cosine",
        "tanh" => "hyperbolic tangent",
        "log" => "log",
        "ln" => "natural log",
        "exp" => "exp",
        "max" => "max",
        "min" => "min",
        "det" => "determinant",
        "gcd" => "gcd",
        "&" => "and",
        "%" => "percent",
        _ => return None,
    })
}

fn greek_command(name: &str) -> Option<&'static str> {
    let base = name.strip_prefix("var").unwrap_or(name);
    let lower = base.to_ascii_lowercase();
    [
        "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
        "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi",
        "chi", "psi", "omega",
    ]
    .into_iter()
    .find(|g| *g == lower)
    // `\Delta` is "delta"; `\ALPHA` is not a command.
    .filter(|_| base.chars().skip(1).all(|c| c.is_ascii_lowercase()))
}

/// Commands spoken as a space.
fn is_spacing_command(name: &str) -> bool {
    matches!(
        name,
        "," | ";"
            | ":"
            | "!"
            | " "
            | "\\"
            | "quad"
            | "qquad"
            | "enspace"
            | "thinspace"
            | "medspace"
            | "thickspace"
            | "newline"
            | "cr"
    ) || name.chars().all(char::is_whitespace)
}

/// Commands whose brace argument is not spoken either.
fn hides_argument(name: &str) -> bool {
    matches!(
        name,
        "begin"
            | "end"
            | "hspace"
            | "vspace"
            | "label"
            | "tag"
            | "color"
            | "textcolor"
            | "phantom"
            | "hphantom"
            | "vphantom"
    )
}

/// Sizing commands whose delimiter `.` stands for nothing (`\left. x \right|`).
fn is_sizing(name: &str) -> bool {
    matches!(
        name,
        "left"
            | "right"
            | "big"
            | "Big"
            | "bigg"
            | "Bigg"
            | "bigl"
            | "bigr"
            | "Bigl"
            | "Bigr"
            | "biggl"
            | "biggr"
            | "Biggl"
            | "Biggr"
    )
}

fn is_big_operator(name: &str) -> bool {
    matches!(
        name,
        "lim"
            | "limsup"
            | "liminf"
            | "sum"
            | "prod"
            | "int"
            | "iint"
            | "iiint"
            | "oint"
            | "bigcup"
            | "bigcap"
    )
}

/// A lone letter: a variable in math (`x`, `θ`).
fn is_var(word: &str) -> bool {
    let mut chars = word.chars();
    matches!((chars.next(), chars.next()), (Some(c), None) if c.is_ascii_alphabetic() || greek_name(c).is_some())
}

/// `dy` → "d y", `d` → "d" (the parts of `dy/dx`).
fn d_word(word: &str) -> Option<String> {
    match word.as_bytes() {
        [b'd'] => Some("d".to_owned()),
        [b'd', c] if c.is_ascii_alphabetic() => Some(format!("d {}", *c as char)),
        _ => None,
    }
}

/// `w/o` and its kind are abbreviations, not fractions.
const SLASH_ABBREVIATIONS: &[&str] = &[
    "w/o", "n/a", "c/o", "a/c", "b/c", "w/e", "i/o", "s/o", "y/o",
];

/// Numbers joined by a hyphen that are names, not ranges.
const DASH_NAMES: &[&str] = &["50-50", "24-7", "9-5"];

/// Slashed numbers that are names, not fractions.
const SLASH_NAMES: &[&str] = &["24/7", "9/11", "50/50"];

// ---------------------------------------------------------------------------------------
// Decisions

/// The nearest open index in one direction, where indices only ever close. Path halving
/// keeps crossing a long closed run cheap, so looking up a neighbour past thousands of
/// hidden tokens stays near constant time.
struct Skip {
    parent: Vec<usize>,
    /// Looking backwards (slot `k + 1` is token `k`, slot 0 is "none") or forwards (slot
    /// `k` is token `k`, slot `n` is "none").
    backwards: bool,
}

impl Skip {
    fn new(n: usize, backwards: bool) -> Self {
        Self {
            parent: (0..=n).collect(),
            backwards,
        }
    }

    fn close(&mut self, k: usize) {
        if self.backwards {
            self.parent[k + 1] = k;
        } else {
            self.parent[k] = k + 1;
        }
    }

    fn root(&mut self, mut slot: usize) -> usize {
        while self.parent[slot] != slot {
            let up = self.parent[self.parent[slot]];
            self.parent[slot] = up;
            slot = up;
        }
        slot
    }

    /// The nearest open token before `i` (backwards) or after it (forwards).
    fn beyond(&mut self, i: usize) -> Option<usize> {
        if self.backwards {
            self.root(i).checked_sub(1)
        } else {
            let slot = self.root(i + 1);
            (slot + 1 < self.parent.len()).then_some(slot)
        }
    }
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
    fn new(toks: Vec<Tok<'a>>) -> Self {
        let n = toks.len();
        let mut partner = vec![NONE; n];
        let mut stacks: [Vec<usize>; 3] = Default::default();
        for (i, t) in toks.iter().enumerate() {
            let Kind::Sym(c) = t.kind else { continue };
            let (slot, opens) = match c {
                '{' => (0, true),
                '}' => (0, false),
                '(' => (1, true),
                ')' => (1, false),
                '[' => (2, true),
                ']' => (2, false),
                _ => continue,
            };
            if opens {
                stacks[slot].push(i);
            } else if let Some(open) = stacks[slot].pop() {
                partner[open] = i;
                partner[i] = open;
            }
        }
        let blank: Vec<bool> = toks.iter().map(|t| t.kind == Kind::Space).collect();
        let mut sig_before = Skip::new(n, true);
        let mut sig_after = Skip::new(n, false);
        for (k, _) in blank.iter().enumerate().filter(|(_, b)| **b) {
            sig_before.close(k);
            sig_after.close(k);
        }
        Self {
            toks,
            hidden: vec![false; n],
            blank,
            render: vec![Render::Text; n],
            post: vec![""; n],
            done: vec![false; n],
            value: vec![false; n],
            space_before: vec![false; n],
            partner,
            shown_before: Skip::new(n, true).into(),
            shown_after: Skip::new(n, false).into(),
            sig_before: sig_before.into(),
            sig_after: sig_after.into(),
        }
    }

    fn len(&self) -> usize {
        self.toks.len()
    }

    fn kind(&self, i: usize) -> Kind {
        self.toks[i].kind
    }

    fn sym(&self, i: usize) -> Option<char> {
        match self.toks[i].kind {
            Kind::Sym(c) => Some(c),
            _ => None,
        }
    }

    fn is_sym(&self, i: Option<usize>, set: &[char]) -> bool {
        i.and_then(|i| self.sym(i))
            .is_some_and(|c| set.contains(&c))
    }

    /// A sign outside math delimiters: one that may stay as written. Inside them every
    /// sign becomes words, so it cannot make a run with its neighbours.
    fn is_written_sym(&self, i: Option<usize>, set: &[char]) -> bool {
        self.is_sym(i, set)
            && i.is_some_and(|i| {
                self.toks[i].mode != Mode::Math && matches!(self.render[i], Render::Text)
            })
    }

    fn hide(&mut self, i: usize) {
        self.conceal(i);
        self.done[i] = true;
    }

    /// Hidden, but still to be decided (a `\frac` speaks through its arguments).
    fn conceal(&mut self, i: usize) {
        self.hidden[i] = true;
        for skip in [
            &self.shown_before,
            &self.shown_after,
            &self.sig_before,
            &self.sig_after,
        ] {
            skip.borrow_mut().close(i);
        }
    }

    /// Spoken as a space.
    fn set_blank(&mut self, i: usize) {
        self.blank[i] = true;
        self.sig_before.borrow_mut().close(i);
        self.sig_after.borrow_mut().close(i);
    }

    fn say(&mut self, i: usize, words: impl Into<Cow<'static, str>>) {
        self.render[i] = Render::Words(words.into());
        self.done[i] = true;
    }

    /// The previous token that shows, and whether white space lies between.
    fn prev_sig(&self, i: usize) -> Option<(usize, bool)> {
        let nearest = self.shown_before.borrow_mut().beyond(i)?;
        if !self.blank[nearest] {
            return Some((nearest, false));
        }
        let sig = self.sig_before.borrow_mut().beyond(nearest)?;
        Some((sig, true))
    }

    fn next_sig(&self, i: usize) -> Option<(usize, bool)> {
        let nearest = self.shown_after.borrow_mut().beyond(i)?;
        if !self.blank[nearest] {
            return Some((nearest, false));
        }
        let sig = self.sig_after.borrow_mut().beyond(nearest)?;
        Some((sig, true))
    }

    /// The previous token that shows if nothing but hidden ones lie between.
    fn prev_adj(&self, i: usize) -> Option<usize> {
        self.prev_sig(i)
            .filter(|(_, spaced)| !spaced)
            .map(|(j, _)| j)
    }

    fn next_adj(&self, i: usize) -> Option<usize> {
        self.next_sig(i)
            .filter(|(_, spaced)| !spaced)
            .map(|(j, _)| j)
    }

    /// Something an operator can follow: `3`, `x`, `)`, `x²`, `\pi`.
    fn left_operand(&self, j: usize) -> bool {
        let t = self.toks[j];
        self.value[j]
            || match t.kind {
                Kind::Num | Kind::Cmd | Kind::Sup => true,
                Kind::Word => t.mode == Mode::Math || is_var(t.text),
                Kind::Sym(c) => {
                    matches!(c, ')' | ']' | '%' | '\'' | '′' | '∞')
                        || (t.mode == Mode::Math && c == '!')
                }
                _ => false,
            }
    }

    /// Something an operator can precede: `3`, `x`, `(`, `-2`, `\frac`.
    fn right_operand(&self, j: usize) -> bool {
        let t = self.toks[j];
        self.value[j]
            || match t.kind {
                Kind::Num | Kind::Cmd => true,
                Kind::Word => t.mode == Mode::Math || is_var(t.text),
                Kind::Sym(c) => {
                    matches!(c, '(' | '[' | '√' | '∞')
                        || (matches!(c, '-' | '−' | '+')
                            && self.next_adj(j).is_some_and(|k| self.kind(k) == Kind::Num))
                }
                _ => false,
            }
    }

    /// The number `j` is or ends (`50` of `50%`).
    fn number_at(&self, j: usize) -> Option<usize> {
        match self.kind(j) {
            Kind::Num => Some(j),
            Kind::Sym('%') => self.prev_adj(j).filter(|&k| self.kind(k) == Kind::Num),
            _ => None,
        }
    }

    /// A sign that makes its neighbours math: `2024-2025 = x` is a subtraction.
    fn is_operatorish(&self, j: usize) -> bool {
        matches!(self.kind(j), Kind::Cmd | Kind::Sup)
            || self.is_sym(
                Some(j),
                &[
                    '=', '+', '-', '−', '*', '×', '·', '⋅', '÷', '±', '<', '>', '≤', '≥', '≠', '≈',
                    '^', '/',
                ],
            )
    }

    /// The number just before the sign at `s` (`50` of `50%-`).
    fn number_before(&self, s: usize) -> Option<usize> {
        self.prev_adj(s).and_then(|k| self.number_at(k))
    }

    fn number_after(&self, s: usize) -> Option<usize> {
        self.next_adj(s).filter(|&k| self.kind(k) == Kind::Num)
    }

    /// A written `-` or `/` with a number directly on each side.
    fn joins_numbers(&self, s: usize) -> bool {
        self.is_written_sym(Some(s), &['-', '−', '/'])
            && self.number_before(s).is_some()
            && self.number_after(s).is_some()
    }

    /// Whether the sign at `i` is one link of a longer run of numbers joined by `-` or
    /// `/`: 2024-05-01, 1-800-555-0199, 12/25/2024. Every sign of such a run sees it,
    /// so they are all read alike.
    fn chained(&self, i: usize) -> bool {
        let (Some(l), Some(r)) = (self.number_before(i), self.number_after(i)) else {
            return false;
        };
        let after_r = self.next_adj(r).and_then(|k| {
            if self.sym(k) == Some('%') {
                self.next_adj(k)
            } else {
                Some(k)
            }
        });
        self.prev_adj(l).is_some_and(|s| self.joins_numbers(s))
            || after_r.is_some_and(|s| self.joins_numbers(s))
    }

    /// Whether the `/` at `i` and another one hold a single token between them with
    /// nothing in between: a/b/c, http://x/y.
    fn slash_path(&self, i: usize) -> bool {
        let written_slash = |k: Option<usize>| self.is_written_sym(k, &['/']);
        written_slash(self.prev_adj(i).and_then(|x| self.prev_adj(x)))
            || written_slash(self.next_adj(i).and_then(|x| self.next_adj(x)))
    }

    /// The argument at or after `from` (white space skipped).
    fn arg(&self, from: usize) -> Option<Arg> {
        let mut j = from;
        while j < self.len() && matches!(self.kind(j), Kind::Space | Kind::Delim) {
            j += 1;
        }
        if j >= self.len() {
            return None;
        }
        match self.kind(j) {
            Kind::Sym('{') => {
                let close = self.partner[j];
                (close != NONE).then(|| Arg {
                    open: j,
                    last: close,
                    next: close + 1,
                })
            }
            Kind::Num | Kind::Word | Kind::Cmd => Some(Arg {
                open: j,
                last: j,
                next: j + 1,
            }),
            _ => None,
        }
    }

    /// The tokens of `a` that show, the first two at most (enough to tell a lone one).
    fn visible(&self, a: Arg) -> Vec<usize> {
        (a.open..=a.last)
            .filter(|&k| !self.hidden[k] && !self.blank[k])
            .take(2)
            .collect()
    }

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

    /// Delimiters, braces, stray `$` and backticks, commands that are not spoken.
    fn hide_static(&mut self) {
        for i in 0..self.len() {
            let t = self.toks[i];
            match t.kind {
                Kind::Delim | Kind::Sym('{' | '}' | '$' | '`') => self.hide(i),
                Kind::Sym('&') if t.mode == Mode::Math => {
                    self.set_blank(i);
                    self.done[i] = true;
                }
                Kind::Cmd if is_spacing_command(t.text) => {
                    self.set_blank(i);
                    self.done[i] = true;
                }
                _ => {}
            }
        }
        for i in 0..self.len() {
            let t = self.toks[i];
            if t.kind != Kind::Cmd || self.done[i] {
                continue;
            }
            let name = t.text;
            if hides_argument(name) {
                self.hide(i);
                if let Some(a) = self.arg(i + 1)
                    && self.kind(a.open) == Kind::Sym('{')
                {
                    for k in a.open..=a.last {
                        self.hide(k);
                    }
                }
            } else if is_sizing(name) {
                self.hide(i);
                if let Some(j) = self.next_adj(i)
                    && self.sym(j) == Some('.')
                {
                    self.hide(j);
                }
            } else if matches!(
                name,
                "frac"
                    | "dfrac"
                    | "tfrac"
                    | "cfrac"
                    | "binom"
                    | "dbinom"
                    | "tbinom"
                    | "overline"
                    | "bar"
                    | "hat"
                    | "widehat"
                    | "tilde"
                    | "widetilde"
                    | "dot"
                    | "ddot"
            ) {
                // Spoken through words placed after their arguments.
                self.conceal(i);
            } else if matches!(name, "vec" | "overrightarrow") {
                if self.arg(i + 1).is_none() {
                    self.hide(i);
                }
            } else if command_words(name).is_none() && !is_big_operator(name) && name != "sqrt" {
                // Formatting (`\text`, `\mathbf`) and unknown names: only their
                // arguments are spoken.
                self.hide(i);
            }
        }
    }

    /// Runs of `*`: `2**3` (a power, as code writes it) or emphasis (`**bold**`). A
    /// lone `*` is settled later, once its neighbours are.
    fn star_runs(&mut self) {
        let mut i = 0;
        while i < self.len() {
            if self.sym(i) != Some('*') {
                i += 1;
                continue;
            }
            let mut end = i + 1;
            while end < self.len() && self.sym(end) == Some('*') {
                end += 1;
            }
            if end - i >= 2 {
                let t = self.toks[i];
                let base = self.prev_adj(i).is_some_and(|l| self.left_operand(l));
                let exponent =
                    self.toks.get(end).copied().filter(|e| {
                        e.kind == Kind::Num || (e.kind == Kind::Word && is_var(e.text))
                    });
                let power = end - i == 2 && base && exponent.is_some() && t.mode != Mode::Code;
                for k in i + usize::from(power)..end {
                    self.hide(k);
                }
                if power && let Some(e) = exponent {
                    self.value[i] = true;
                    match (e.kind, e.text) {
                        (Kind::Num, "2") => self.say(i, "squared"),
                        (Kind::Num, "3") => self.say(i, "cubed"),
                        _ => self.say(i, "to the power of"),
                    }
                    if matches!(e.text, "2" | "3") && e.kind == Kind::Num {
                        self.hide(end);
                    }
                }
            }
            i = end;
        }
    }

    /// Heading, quote and bullet marks that open a line once what is never spoken is
    /// skipped (`\, > x`): they go like those the line cleanup removes.
    fn hide_line_marks(&mut self) -> bool {
        let mut changed = false;
        let mut line_start = true;
        let mut i = 0;
        while i < self.len() {
            let t = self.toks[i];
            if t.kind == Kind::Space && t.text.contains('\n') {
                line_start = true;
                i += 1;
                continue;
            }
            if self.hidden[i] || self.blank[i] || !line_start {
                i += 1;
                continue;
            }
            line_start = false;
            let mark = t.mode == Mode::Prose
                && match t.kind {
                    Kind::Sym('#' | '>') => true,
                    // A bullet is followed by white space or ends the line.
                    Kind::Sym('-' | '*' | '+' | '•') => {
                        self.next_sig(i).is_none_or(|(_, spaced)| spaced)
                    }
                    _ => false,
                };
            if mark {
                self.hide(i);
                changed = true;
                // What follows opens the line now (`> - x`).
                line_start = true;
            }
            i += 1;
        }
        changed
    }

    /// Signs that go for want of an operand: `^` with nothing to raise, emphasis `*`, a
    /// footnote mark `¹`, and the marks that open a line. Hiding one can leave another
    /// without an operand, so this repeats until nothing changes (a few rounds at most
    /// on real text).
    fn hide_unspoken(&mut self) {
        for _ in 0..8 {
            let mut changed = self.hide_line_marks();
            for i in 0..self.len() {
                if self.hidden[i] || self.done[i] {
                    continue;
                }
                let t = self.toks[i];
                let math = t.mode == Mode::Math;
                let left = || self.prev_sig(i).is_some_and(|(l, _)| self.left_operand(l));
                let unspoken = match t.kind {
                    Kind::Sym('^') => {
                        let base = self.prev_sig(i).is_some_and(|(j, _)| {
                            self.left_operand(j) || self.kind(j) == Kind::Word
                        });
                        !base || self.exponent(i + 1).is_none()
                    }
                    Kind::Sym('_') if math => !left() || self.arg(i + 1).is_none(),
                    Kind::Sup => !self.superscript_speaks(i),
                    Kind::Sym('*') => !self.is_times(i),
                    Kind::Sym('!') if math => {
                        !self.is_sym(self.next_adj(i), &['='])
                            && !self.prev_adj(i).is_some_and(|l| self.left_operand(l))
                    }
                    Kind::Sym('\'' | '′') if math => {
                        !self.prev_adj(i).is_some_and(|l| self.left_operand(l))
                    }
                    _ => false,
                };
                if unspoken {
                    self.hide(i);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for i in 0..self.len() {
            if self.sym(i) == Some('*') && !self.hidden[i] && !self.done[i] {
                self.say(i, "times");
            }
        }
    }

    /// A lone `*` between operands (after one, in math).
    fn is_times(&self, i: usize) -> bool {
        let t = self.toks[i];
        let left = self.prev_sig(i).is_some_and(|(l, _)| self.left_operand(l));
        let right = self.next_sig(i).is_some_and(|(r, _)| self.right_operand(r));
        match t.mode {
            Mode::Math => left,
            Mode::Prose => left && right,
            Mode::Code => false,
        }
    }

    /// Commands, powers, subscripts, `f(x)`, `dy/dx`, Greek letters, math symbols.
    fn structure(&mut self, i: usize) {
        let t = self.toks[i];
        match t.kind {
            Kind::Cmd => self.command(i),
            Kind::Word => self.word(i),
            Kind::Sup => self.superscript(i),
            Kind::Sym('^') => self.power(i),
            Kind::Sym('_') => self.subscript(i),
            Kind::Sym(c) => {
                if let Some(words) = unicode_math_words(c) {
                    self.say(i, words);
                    self.value[i] = matches!(c, '∞' | '∂' | '∆' | '∇' | '∅');
                }
            }
            _ => {}
        }
    }

    fn command(&mut self, i: usize) {
        let name = self.toks[i].text;
        match name {
            "frac" | "dfrac" | "tfrac" | "cfrac" => {
                self.hide(i);
                let Some(top) = self.arg(i + 1) else { return };
                let Some(bottom) = self.arg(top.next) else {
                    return;
                };
                let (t, b) = (self.visible(top), self.visible(bottom));
                if let ([tk], [bk]) = (t.as_slice(), b.as_slice())
                    && self.kind(*tk) == Kind::Word
                    && self.kind(*bk) == Kind::Word
                    && let (Some(tw), Some(bw)) =
                        (d_word(self.toks[*tk].text), d_word(self.toks[*bk].text))
                    && bw.len() > 1
                {
                    self.say(*tk, tw);
                    self.say(*bk, bw);
                    self.post[top.last] = "by";
                } else {
                    self.post[top.last] = "over";
                }
            }
            "sqrt" => self.root(i),
            _ if is_big_operator(name) => self.big_operator(i),
            "overline" | "bar" | "hat" | "widehat" | "tilde" | "widetilde" | "dot" | "ddot"
            | "vec" | "overrightarrow" => {
                let Some(a) = self.arg(i + 1) else {
                    self.hide(i);
                    return;
                };
                if matches!(name, "vec" | "overrightarrow") {
                    self.say(i, "vector");
                    return;
                }
                self.hide(i);
                self.post[a.last] = match name {
                    "overline" | "bar" => "bar",
                    "hat" | "widehat" => "hat",
                    "tilde" | "widetilde" => "tilde",
                    "dot" => "dot",
                    _ => "double dot",
                };
            }
            "binom" | "dbinom" | "tbinom" => {
                self.hide(i);
                if let Some(a) = self.arg(i + 1) {
                    self.post[a.last] = "choose";
                }
            }
            _ => match command_words(name) {
                Some(words) => {
                    self.say(i, words);
                    self.value[i] = greek_command(name).is_some() || name == "infty";
                }
                None => self.hide(i),
            },
        }
    }

    /// `\sqrt{x}`, `\sqrt[3]{x}`.
    fn root(&mut self, i: usize) {
        let mut words: Cow<'static, str> = "the square root of".into();
        let mut j = i + 1;
        while j < self.len() && self.kind(j) == Kind::Space {
            j += 1;
        }
        if j < self.len() && self.sym(j) == Some('[') && self.partner[j] != NONE {
            let close = self.partner[j];
            self.hide(j);
            self.hide(close);
            let inner: Vec<usize> = (j + 1..close)
                .filter(|&k| !self.hidden[k] && !self.blank[k])
                .take(2)
                .collect();
            let index = match inner.as_slice() {
                [k] if self.kind(*k) == Kind::Num => Some(self.toks[*k].text),
                _ => None,
            };
            match index {
                Some("2") => self.hide(inner[0]),
                Some("3") => {
                    self.hide(inner[0]);
                    words = "the cube root of".into();
                }
                _ => {
                    words = "the".into();
                    self.post[close] = "th root of";
                }
            }
        }
        self.say(i, words);
    }

    /// `\lim_{x \to 0}`, `\sum_{i=1}^{n}`, `\int_a^b`.
    fn big_operator(&mut self, i: usize) {
        let name = self.toks[i].text;
        let head = match name {
            "sum" => "the sum",
            "prod" => "the product",
            "bigcup" => "the union",
            "bigcap" => "the intersection",
            n if n.starts_with("lim") => "the limit",
            _ => "the integral",
        };
        let mut j = i + 1;
        let mut sub = None;
        let mut sup = None;
        loop {
            while j < self.len()
                && (self.kind(j) == Kind::Space || (self.kind(j) == Kind::Cmd && self.hidden[j]))
            {
                j += 1;
            }
            if j >= self.len() {
                break;
            }
            let slot = match self.sym(j) {
                Some('_') if sub.is_none() => &mut sub,
                Some('^') if sup.is_none() => &mut sup,
                _ => break,
            };
            let Some(a) = self.arg(j + 1) else { break };
            *slot = Some((j, a));
            j = a.next;
        }
        if sub.is_none() && sup.is_none() {
            self.say(i, format!("{head} of"));
            return;
        }
        self.say(i, head);
        let limit = head == "the limit";
        let mut last = 0;
        if let Some((u, a)) = sub {
            let word = match (limit, sup.is_some()) {
                (true, _) => "as",
                (false, true) => "from",
                (false, false) => "over",
            };
            self.say(u, word);
            last = last.max(a.last);
        }
        if let Some((u, a)) = sup {
            self.say(u, "to");
            last = last.max(a.last);
        }
        self.post[last] = "of";
    }

    fn word(&mut self, i: usize) {
        let t = self.toks[i];
        self.done[i] = true;
        if let Some(first) = t.text.chars().next()
            && greek_name(first).is_some()
        {
            if is_var(t.text) {
                self.say(i, greek_name(first).unwrap_or_default());
            } else if t.mode == Mode::Math {
                let names: Vec<&str> = t.text.chars().filter_map(greek_name).collect();
                self.say(i, names.join(" "));
            }
        }
        if t.mode == Mode::Code {
            return;
        }
        // dy/dx → "d y by d x"; d/dx → "d by d x".
        if let Some(top) = d_word(t.text)
            && let Some(slash) = self.next_adj(i)
            && self.sym(slash) == Some('/')
            && let Some(k) = self.next_adj(slash)
            && self.kind(k) == Kind::Word
            && let Some(bottom) = d_word(self.toks[k].text).filter(|b| b.len() > 1)
        {
            self.say(i, top);
            self.say(slash, "by");
            self.say(k, bottom);
            self.value[i] = true;
            self.value[k] = true;
            self.done[k] = true;
            return;
        }
        if !is_var(t.text) {
            return;
        }
        // f(x), f'(x), f''(2).
        let mut primes = Vec::new();
        let mut j = self.next_adj(i);
        while let Some(k) = j
            && self.is_sym(Some(k), &['\'', '′'])
        {
            primes.push(k);
            j = self.next_adj(k);
        }
        let applied = j.filter(|&open| {
            self.sym(open) == Some('(') && self.partner[open] != NONE && {
                let close = self.partner[open];
                let inner: Vec<usize> = (open + 1..close)
                    .filter(|&k| !self.hidden[k])
                    .take(2)
                    .collect();
                match inner.as_slice() {
                    [k] => {
                        let a = self.toks[*k];
                        a.kind == Kind::Num || (a.kind == Kind::Word && is_var(a.text))
                    }
                    _ => false,
                }
            }
        });
        if applied.is_none() && (t.mode != Mode::Math || primes.is_empty()) {
            return;
        }
        if let Some((&first, rest)) = primes.split_first() {
            let words = match primes.len() {
                1 => "prime",
                2 => "double prime",
                _ => "triple prime",
            };
            self.say(first, words);
            self.value[first] = true;
            for &k in rest {
                self.hide(k);
            }
        }
        if let Some(open) = applied {
            self.say(open, "of");
            self.value[open] = true;
            let close = self.partner[open];
            self.hide(close);
        }
    }

    /// `x²` → "x squared"; a superscript after a word that is not a unit is a footnote.
    fn superscript(&mut self, i: usize) {
        let digits = self.superscript_digits(i);
        match digits.as_str() {
            "2" => self.say(i, "squared"),
            "3" => self.say(i, "cubed"),
            d => {
                let spoken = d.replace('-', " minus ").replace('+', " plus ");
                self.say(i, format!("to the power of {}", spoken.trim()));
            }
        }
        self.value[i] = true;
    }

    fn superscript_digits(&self, i: usize) -> String {
        self.toks[i].text.chars().filter_map(sup_char).collect()
    }

    /// A power after an operand, or `²`/`³` after a unit (`cm²`); else a footnote mark.
    fn superscript_speaks(&self, i: usize) -> bool {
        let digits = self.superscript_digits(i);
        let base = self.prev_adj(i);
        let operand = base.is_some_and(|b| self.left_operand(b));
        let after_word = base.is_some_and(|b| self.kind(b) == Kind::Word);
        match digits.as_str() {
            "2" | "3" => operand || after_word,
            d => operand && d.chars().any(|c| c.is_ascii_digit()),
        }
    }

    /// `x^2` → "x squared", `e^{-x}` → "e to the power of minus x".
    fn power(&mut self, i: usize) {
        self.done[i] = true;
        let base = self
            .prev_sig(i)
            .map(|(j, _)| j)
            .filter(|&j| self.left_operand(j) || self.kind(j) == Kind::Word);
        let exponent = self.exponent(i + 1);
        let (Some(_), Some(a)) = (base, exponent) else {
            // `[^1]`: no base, or nothing raised: the sign alone goes.
            self.hide(i);
            return;
        };
        self.value[i] = true;
        let vis = self.visible(a);
        // `\circ` is hidden as a command of its own but still names the degrees.
        let written: Vec<usize> = (a.open..=a.last)
            .filter(|&k| {
                !self.blank[k] && !matches!(self.kind(k), Kind::Delim | Kind::Sym('{' | '}'))
            })
            .take(2)
            .collect();
        let single = match written.as_slice() {
            [k] => Some((self.kind(*k), self.toks[*k].text)),
            _ => None,
        };
        let words = match single {
            Some((Kind::Num, "2")) => "squared",
            Some((Kind::Num, "3")) => "cubed",
            Some((Kind::Cmd, "circ")) | Some((Kind::Sym('°'), _)) => "degrees",
            Some((Kind::Cmd, "prime")) | Some((Kind::Sym('\'' | '′'), _)) => "prime",
            _ => {
                self.say(i, "to the power of");
                if let Some(&k) = vis.first()
                    && self.is_sym(Some(k), &['-', '−'])
                {
                    self.say(k, "minus");
                }
                return;
            }
        };
        self.say(i, words);
        self.hide(written[0]);
    }

    /// What `^` raises to: a group, a token, a signed token or a parenthesised group.
    fn exponent(&self, from: usize) -> Option<Arg> {
        if let Some(a) = self.arg(from) {
            return Some(a);
        }
        let mut j = from;
        while j < self.len() && self.kind(j) == Kind::Space {
            j += 1;
        }
        if j >= self.len() {
            return None;
        }
        match self.sym(j) {
            Some('-' | '−' | '+') => {
                let k = self.next_adj(j)?;
                matches!(self.kind(k), Kind::Num | Kind::Word | Kind::Cmd).then_some(Arg {
                    open: j,
                    last: k,
                    next: k + 1,
                })
            }
            Some('(') if self.partner[j] != NONE => Some(Arg {
                open: j,
                last: self.partner[j],
                next: self.partner[j] + 1,
            }),
            Some('°' | '\'' | '′') => Some(Arg {
                open: j,
                last: j,
                next: j + 1,
            }),
            _ => None,
        }
    }

    /// `x_1` → "x sub 1"; prose keeps `snake_case`.
    fn subscript(&mut self, i: usize) {
        self.done[i] = true;
        let t = self.toks[i];
        match t.mode {
            Mode::Code => {}
            Mode::Prose => {
                let Some(b) = self.prev_adj(i) else { return };
                let base_ok = self.kind(b) == Kind::Word && is_var(self.toks[b].text);
                // A brace group, or a number as the next token that shows.
                let group = self.sym(i + 1) == Some('{') && self.partner[i + 1] != NONE;
                let number = self.next_adj(i).is_some_and(|k| self.kind(k) == Kind::Num);
                if base_ok && (group || number) {
                    self.say(i, "sub");
                    self.value[i] = true;
                }
            }
            Mode::Math => {
                let base = self.prev_sig(i).is_some_and(|(b, _)| self.left_operand(b));
                if base && self.arg(i + 1).is_some() {
                    self.say(i, "sub");
                    self.value[i] = true;
                } else {
                    self.hide(i);
                }
            }
        }
    }

    /// `|x|` in math → "the absolute value of x".
    fn absolute_values(&mut self) {
        let mut open = false;
        for i in 0..self.len() {
            let t = self.toks[i];
            if t.mode != Mode::Math {
                open = false;
                continue;
            }
            if t.kind == Kind::Sym('|') && !self.done[i] {
                if open {
                    self.hide(i);
                } else {
                    self.say(i, "the absolute value of");
                }
                open = !open;
            }
        }
    }

    fn operator(&mut self, i: usize) {
        let t = self.toks[i];
        let Kind::Sym(c) = t.kind else { return };
        let math = t.mode == Mode::Math;
        match c {
            '=' => self.equals(i),
            '!' => {
                self.done[i] = true;
                if let Some(k) = self.next_adj(i)
                    && self.sym(k) == Some('=')
                    && !self.done[k]
                {
                    self.say(i, "is not equal to");
                    self.hide(k);
                } else if math {
                    // One without an operand was hidden already.
                    self.say(i, "factorial");
                    self.value[i] = true;
                }
            }
            '<' | '>' => self.compare(i, c),
            '-' | '−' => self.minus(i),
            '+' => {
                self.done[i] = true;
                if self.is_written_sym(self.next_adj(i), &['+'])
                    || self.is_written_sym(self.prev_adj(i), &['+'])
                {
                    self.mark_run(i, &['+']);
                } else if math || self.between_operands(i) {
                    self.say(i, "plus");
                }
            }
            '×' | '·' | '⋅' | '∙' => {
                self.done[i] = true;
                if math || self.between_operands(i) {
                    self.say(i, "times");
                }
            }
            '/' => self.over(i),
            '\'' | '′' if math => {
                self.say(i, "prime");
                self.value[i] = true;
            }
            _ => self.done[i] = true,
        }
    }

    fn between_operands(&self, i: usize) -> bool {
        self.prev_sig(i).is_some_and(|(l, _)| self.left_operand(l))
            && self.next_sig(i).is_some_and(|(r, _)| self.right_operand(r))
    }

    /// Leaves a run of the same signs (`++`, `--`, `<<`) as written.
    fn mark_run(&mut self, i: usize, set: &[char]) {
        self.done[i] = true;
        let mut k = self.next_adj(i);
        while let Some(j) = k
            && self.is_sym(Some(j), set)
        {
            self.done[j] = true;
            k = self.next_adj(j);
        }
    }

    fn equals(&mut self, i: usize) {
        let mut run = vec![i];
        let mut last = i;
        while let Some(k) = self.next_adj(last)
            && self.sym(k) == Some('=')
            && !self.done[k]
        {
            run.push(k);
            last = k;
        }
        for &k in &run {
            self.done[k] = true;
        }
        if let Some(k) = self.next_adj(last)
            && self.sym(k) == Some('>')
            && !self.done[k]
        {
            self.say(i, "implies");
            for &r in &run[1..] {
                self.hide(r);
            }
            self.hide(k);
            return;
        }
        let operands = self.prev_sig(i).is_some_and(|(l, _)| self.left_operand(l))
            || self
                .next_sig(last)
                .is_some_and(|(r, _)| self.right_operand(r));
        if run.len() <= 2 || operands || self.toks[i].mode == Mode::Math {
            self.say(i, "equals");
        } else {
            // A rule of `=====` under a heading.
            self.set_blank(i);
        }
        for &r in &run[1..] {
            self.hide(r);
        }
    }

    fn compare(&mut self, i: usize, c: char) {
        self.done[i] = true;
        let next = self.next_adj(i);
        if self.is_written_sym(next, &['<', '>'])
            || self.is_written_sym(self.prev_adj(i), &['<', '>'])
        {
            self.mark_run(i, &['<', '>']);
            return;
        }
        if let Some(k) = next
            && self.sym(k) == Some('=')
            && !self.done[k]
        {
            self.hide(k);
            if c == '<'
                && let Some(g) = self.next_adj(k)
                && self.sym(g) == Some('>')
                && !self.done[g]
            {
                self.hide(g);
                self.say(i, "if and only if");
            } else if c == '<' {
                self.say(i, "is less than or equal to");
            } else {
                self.say(i, "is greater than or equal to");
            }
            return;
        }
        // `<b>`, `</p>`: a tag, not a comparison.
        if c == '<'
            && let Some(w) = next
            && (self.kind(w) == Kind::Word || self.sym(w) == Some('/'))
        {
            let end = if self.kind(w) == Kind::Word {
                Some(w)
            } else {
                self.next_adj(w)
            };
            if let Some(close) = end.and_then(|e| self.next_adj(e))
                && self.sym(close) == Some('>')
            {
                self.done[close] = true;
                return;
            }
        }
        let words = if c == '<' {
            "is less than"
        } else {
            "is greater than"
        };
        if self.toks[i].mode == Mode::Math {
            self.say(i, words);
            return;
        }
        let (Some((l, _)), Some((r, _))) = (self.prev_sig(i), self.next_sig(i)) else {
            return;
        };
        if !(self.left_operand(l) && self.right_operand(r)) {
            return;
        }
        // Between two numbers the sign reads well as it is ("3 < 4").
        if self.number_at(l).is_some() && self.kind(r) == Kind::Num {
            return;
        }
        self.say(i, words);
    }

    fn minus(&mut self, i: usize) {
        self.done[i] = true;
        let dashes = ['-', '−'];
        let next = self.next_adj(i);
        // "--", "---": a dash.
        if self.is_written_sym(next, &dashes) || self.is_written_sym(self.prev_adj(i), &dashes) {
            self.mark_run(i, &dashes);
            return;
        }
        if let Some(k) = next
            && self.sym(k) == Some('>')
            && !self.done[k]
            && !self.is_written_sym(self.prev_adj(i), &['<'])
        {
            self.say(i, "goes to");
            self.hide(k);
            return;
        }
        if self.toks[i].mode == Mode::Math {
            self.say(i, "minus");
            return;
        }
        let (Some((l, lsp)), Some((r, rsp))) = (self.prev_sig(i), self.next_sig(i)) else {
            return;
        };
        if !(self.left_operand(l) && self.right_operand(r)) {
            return;
        }
        let spaced = lsp || rsp;
        let right_number = self.kind(r) == Kind::Num;
        if !spaced
            && right_number
            && let Some(left_number) = self.number_at(l)
        {
            let pair = format!("{}-{}", self.toks[left_number].text, self.toks[r].text);
            if self.chained(i) || DASH_NAMES.contains(&pair.as_str()) {
                // 2024-05-01, 1-800-555-0199: read as written.
                return;
            }
            let in_math = self
                .prev_sig(left_number)
                .is_some_and(|(k, _)| self.is_operatorish(k))
                || self
                    .next_sig(r)
                    .is_some_and(|(k, _)| self.is_operatorish(k));
            // 2024-2025, 3-4 times: a range.
            self.say(i, if in_math { "minus" } else { "to" });
            return;
        }
        let t = self.toks[l];
        if !spaced
            && right_number
            && t.kind == Kind::Word
            && t.text.len() == 1
            && t.text.starts_with(|c: char| c.is_ascii_uppercase())
        {
            // F-16, B-52: a name.
            return;
        }
        self.say(i, "minus");
    }

    fn over(&mut self, i: usize) {
        self.done[i] = true;
        if self.toks[i].mode == Mode::Math {
            self.say(i, "over");
            return;
        }
        let (Some((l, _)), Some((r, _))) = (self.prev_sig(i), self.next_sig(i)) else {
            return;
        };
        let small = |k: usize, bracket: char| {
            let t = self.toks[k];
            self.value[k]
                || matches!(t.kind, Kind::Num | Kind::Cmd | Kind::Sup)
                || (t.kind == Kind::Word && is_var(t.text))
                || t.kind == Kind::Sym(bracket)
        };
        if !(small(l, ')') && small(r, '(')) {
            return;
        }
        // Paths and URLs: a/b/c, http://x/y; dates: 12/25/2024, 1-2/3.
        if self.slash_path(i) || self.chained(i) {
            return;
        }
        let (lt, rt) = (self.toks[l], self.toks[r]);
        if lt.kind == Kind::Word && rt.kind == Kind::Word {
            let upper = |w: &str| w.chars().all(|c| c.is_ascii_uppercase());
            let pair = format!("{}/{}", lt.text, rt.text).to_lowercase();
            if (upper(lt.text) && upper(rt.text)) || SLASH_ABBREVIATIONS.contains(&pair.as_str()) {
                return;
            }
        }
        if lt.kind == Kind::Num
            && rt.kind == Kind::Num
            && SLASH_NAMES.contains(&format!("{}/{}", lt.text, rt.text).as_str())
        {
            return;
        }
        self.say(i, "over");
    }

    /// `3x` → "3 x" in an expression (`3x+1`, `= 2x`); "2x faster" stays.
    fn glue(&mut self) {
        for i in 0..self.len() {
            let t = self.toks[i];
            if t.kind != Kind::Num || self.hidden[i] || t.mode == Mode::Code {
                continue;
            }
            let Some(j) = self.next_adj(i) else { continue };
            let w = self.toks[j];
            if w.kind != Kind::Word
                || !matches!(self.render[j], Render::Text)
                || !w.text.starts_with(|c: char| c.is_ascii_alphabetic())
            {
                continue;
            }
            let split = t.mode == Mode::Math
                || w.mode == Mode::Math
                || (is_var(w.text)
                    && (self
                        .prev_sig(i)
                        .is_some_and(|(k, _)| self.is_operatorish(k))
                        || self.next_sig(j).is_some_and(|(k, _)| {
                            self.is_operatorish(k) || self.sym(k) == Some('(')
                        })));
            if split {
                self.space_before[j] = true;
            }
        }
    }

    fn render(&self) -> String {
        let mut out = Out::default();
        for (i, t) in self.toks.iter().enumerate() {
            if t.kind == Kind::Delim && t.text.starts_with('`') {
                // Code fences stay for the caller, so that another pass over the output
                // still reads the span as code.
                out.blank(t.text);
            } else if self.hidden[i] {
                // `0{0}` is "0 0", not "00": merged, the two would read differently.
                out.gap = true;
            } else if self.blank[i] {
                out.blank(if t.kind == Kind::Space { t.text } else { " " });
            } else {
                if self.space_before[i] {
                    out.blank(" ");
                }
                match &self.render[i] {
                    Render::Text => {
                        // A `.` or `,` that would join two numbers once nothing hidden
                        // lies between them (`2\n.24` is not 2.24).
                        let joint = matches!(t.kind, Kind::Sym('.' | ','))
                            && self.toks.get(i + 1).is_some_and(|n| n.kind == Kind::Num);
                        out.raw(t.text, joint);
                    }
                    Render::Words(w) => out.words(w),
                }
            }
            out.words(self.post[i]);
        }
        out.s
    }
}

/// The spoken text being built: words are set apart from their neighbours by spaces.
#[derive(Default)]
struct Out {
    s: String,
    /// Words were just added: a following letter, digit or bracket needs a space.
    after_words: bool,
    /// Something unspoken (a command, a brace) separated what comes next.
    gap: bool,
}

impl Out {
    fn raw(&mut self, text: &str, joint: bool) {
        let Some(first) = text.chars().next() else {
            return;
        };
        let mut tail = self.s.chars().rev();
        let (last, before_last) = (tail.next(), tail.next());
        let digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
        let merges = (first.is_alphanumeric() && last.is_some_and(char::is_alphanumeric))
            || (joint && digit(last))
            || (first.is_ascii_digit() && matches!(last, Some('.' | ',')) && digit(before_last));
        let join = (self.after_words
            && (first.is_alphanumeric() || matches!(first, '(' | '[' | '$')))
            || ((self.gap || self.after_words) && merges);
        if join {
            self.s.push(' ');
        }
        self.s.push_str(text);
        self.after_words = false;
        self.gap = false;
    }

    fn words(&mut self, words: &str) {
        if words.is_empty() {
            return;
        }
        if let Some(last) = self.s.chars().next_back()
            && !last.is_whitespace()
            && !matches!(
                last,
                '(' | '[' | '-' | '−' | '/' | '+' | '"' | '\'' | '“' | '‘'
            )
        {
            self.s.push(' ');
        }
        self.s.push_str(words);
        self.after_words = true;
        self.gap = false;
    }

    fn blank(&mut self, text: &str) {
        self.s.push_str(text);
        self.after_words = false;
        self.gap = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn say(text: &str) -> String {
        speak(text).split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn tokens() {
        let kinds: Vec<Kind> = tokenize("3x+$2,500 \\frac{a}")
            .iter()
            .map(|t| t.kind)
            .collect();
        assert_eq!(
            kinds,
            [
                Kind::Num,
                Kind::Word,
                Kind::Sym('+'),
                Kind::Num,
                Kind::Space,
                Kind::Cmd,
                Kind::Sym('{'),
                Kind::Word,
                Kind::Sym('}'),
            ]
        );
        let modes: Vec<Mode> = tokenize("a $b$ `c`").iter().map(|t| t.mode).collect();
        assert_eq!(
            modes,
            [
                Mode::Prose,
                Mode::Prose,
                Mode::Prose,
                Mode::Math,
                Mode::Math,
                Mode::Prose,
                Mode::Prose,
                Mode::Code,
                Mode::Code,
            ]
        );
    }

    #[test]
    fn money_is_not_math() {
        assert!(!opens_inline_math("$5 and $10", 0));
        assert!(!opens_inline_math("$5-$10", 0));
        assert!(opens_inline_math("$2$.", 0));
        assert!(opens_inline_math("$x = 2$ now", 0));
        assert!(!opens_inline_math("$ x$", 0));
        assert!(!opens_inline_math("$x\n$", 0));
        assert_eq!(say("It costs $2,500 or $5."), "It costs $2,500 or $5.");
    }

    #[test]
    fn fractions_roots_limits() {
        let cases = [
            ("\\frac{a}{b}", "a over b"),
            (
                "\\frac{1}{2} + \\frac{x+1}{3}",
                "1 over 2 plus x plus 1 over 3",
            ),
            ("\\frac{dy}{dx}", "d y by d x"),
            ("\\sqrt{x}", "the square root of x"),
            ("\\sqrt[3]{8} = 2", "the cube root of 8 equals 2"),
            ("\\sqrt[n]{x}", "the n th root of x"),
            (
                "\\lim_{x \\to 0} \\frac{\\sin x}{x} = 1",
                "the limit as x goes to 0 of sine x over x equals 1",
            ),
            ("\\sum_{i=1}^{n} i", "the sum from i equals 1 to n of i"),
            ("\\int_0^1 x dx", "the integral from 0 to 1 of x dx"),
            ("\\lim f", "the limit of f"),
            ("\\binom{n}{k}", "n choose k"),
            ("\\bar{x}", "x bar"),
            ("\\vec{v}", "vector v"),
        ];
        for (input, expected) in cases {
            assert_eq!(say(input), expected, "{input:?}");
        }
    }

    #[test]
    fn powers_and_subscripts() {
        let cases = [
            ("x^2", "x squared"),
            ("x^3", "x cubed"),
            ("x^n", "x to the power of n"),
            ("x^{n}", "x to the power of n"),
            ("x^{n+1}", "x to the power of n plus 1"),
            ("e^{-x}", "e to the power of minus x"),
            ("10^-3", "10 to the power of minus 3"),
            ("2^(n+1)", "2 to the power of (n plus 1)"),
            ("90^\\circ", "90 degrees"),
            ("x² + y²", "x squared plus y squared"),
            ("10⁻³", "10 to the power of minus 3"),
            ("E = mc²", "E equals mc squared"),
            ("a fact¹", "a fact"),
            ("see [^1]", "see [1]"),
            ("x_1 + x_{2}", "x sub 1 plus x sub 2"),
            ("snake_case stays", "snake_case stays"),
            ("$a_n$", "a sub n"),
        ];
        for (input, expected) in cases {
            assert_eq!(say(input), expected, "{input:?}");
        }
    }

    #[test]
    fn greek_and_commands() {
        let cases = [
            ("\\Delta x", "delta x"),
            ("\\alpha + \\beta", "alpha plus beta"),
            ("\\varepsilon", "epsilon"),
            ("Δx", "delta x"),
            ("2π", "2 pi"),
            ("the α particle", "the alpha particle"),
            ("Ελλάδα", "Ελλάδα"),
            ("a \\cdot b \\times c", "a times b times c"),
            ("\\text{area} = \\pi r^2", "area equals pi r squared"),
            ("\\mathbb{R}", "R"),
            ("\\unknown{y}", "y"),
            ("x \\leq 3", "x is less than or equal to 3"),
            ("\\left( x \\right)", "( x )"),
            ("\\infty", "infinity"),
            ("x → ∞", "x goes to infinity"),
            ("\\begin{cases} x \\end{cases}", "x"),
            ("a\\,b", "a b"),
            ("100\\%", "100 percent"),
        ];
        for (input, expected) in cases {
            assert_eq!(say(input), expected, "{input:?}");
        }
    }

    #[test]
    fn operators_between_operands() {
        let cases = [
            ("3x+1", "3 x plus 1"),
            ("f'(x) = 2x", "f prime of x equals 2 x"),
            (
                "f(x) = x^2 + 3x - 5",
                "f of x equals x squared plus 3 x minus 5",
            ),
            ("g''(2)", "g double prime of 2"),
            ("the slope is 2/3", "the slope is 2 over 3"),
            ("x/y", "x over y"),
            ("dy/dx", "d y by d x"),
            ("d/dx", "d by d x"),
            ("5 * 3", "5 times 3"),
            ("2**3 + x**2", "2 cubed plus x squared"),
            ("2**n", "2 to the power of n"),
            ("**3** apples", "3 apples"),
            ("2×3", "2 times 3"),
            ("x < 5", "x is less than 5"),
            ("x>0", "x is greater than 0"),
            ("x <= 5", "x is less than or equal to 5"),
            ("x >= y", "x is greater than or equal to y"),
            ("a != b", "a is not equal to b"),
            ("A => B", "A implies B"),
            ("x -> 0", "x goes to 0"),
            ("10 - 5 = 5", "10 minus 5 equals 5"),
            ("10-5=5", "10 minus 5 equals 5"),
            ("n-1", "n minus 1"),
            ("x-y", "x minus y"),
            ("(a+b)/2", "(a plus b) over 2"),
            ("2 * -3", "2 times -3"),
            ("x = -3", "x equals -3"),
        ];
        for (input, expected) in cases {
            assert_eq!(say(input), expected, "{input:?}");
        }
    }

    #[test]
    fn prose_stays() {
        let cases = [
            "a first-year student",
            "a well-known result",
            "send an e-mail",
            "the x-axis and the y-intercept",
            "COVID-19 and GPT-4",
            "an F-16 jet",
            "at 3:30, 50% off",
            "It costs $2,500.",
            "and/or, km/h, w/o, 24/7, A/B testing",
            "C++ and -5 degrees",
            "3 < 4",
            "a <b> tag",
            "a 3D film, 2x faster, the 1st",
            "pages 1-2-3 and 2024-05-01",
            "wait -- no",
            "I - well - no, a dash - here",
            "x- and y-values",
            "snake_case_name",
            "(see above)",
            "don't stop",
        ];
        for input in cases {
            assert_eq!(say(input), input, "{input:?}");
        }
    }

    #[test]
    fn ranges_read_as_to() {
        assert_eq!(say("in 2024-2025"), "in 2024 to 2025");
        assert_eq!(say("3-4 times"), "3 to 4 times");
        assert_eq!(say("a 50-50 chance"), "a 50-50 chance");
        assert_eq!(say("$5-$10"), "$5 to $10");
        assert_eq!(say("50%-60%"), "50% to 60%");
    }

    #[test]
    fn delimiters() {
        let cases = [
            ("\\( x = 2 \\)", "x equals 2"),
            ("\\[ x^2 \\]", "x squared"),
            ("$x = 2$", "x equals 2"),
            ("$$\\frac{1}{2}$$", "1 over 2"),
            ("so $-3 < x$", "so minus 3 is less than x"),
            ("$2$.", "2."),
            ("\\( x = 2.", "x equals 2."),
            ("\\) then", "then"),
            ("$|x|$", "the absolute value of x"),
            ("$n!$", "n factorial"),
            ("$2xy$", "2 xy"),
            ("Use `x + 1` here", "Use `x + 1` here"),
            ("`a^2`", "`a squared`"),
        ];
        for (input, expected) in cases {
            assert_eq!(say(input), expected, "{input:?}");
        }
    }
}

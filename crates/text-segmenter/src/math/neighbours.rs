//! The speaker built from its tokens, and what each token sees of its neighbours.

use super::lexicon::*;
use super::{Arg, Kind, Mode, NONE, Render, Skip, Speaker, Tok};
use std::borrow::Cow;

impl<'a> Speaker<'a> {
    pub(super) fn new(toks: Vec<Tok<'a>>) -> Self {
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

    pub(super) fn len(&self) -> usize {
        self.toks.len()
    }

    pub(super) fn kind(&self, i: usize) -> Kind {
        self.toks[i].kind
    }

    pub(super) fn sym(&self, i: usize) -> Option<char> {
        match self.toks[i].kind {
            Kind::Sym(c) => Some(c),
            _ => None,
        }
    }

    pub(super) fn is_sym(&self, i: Option<usize>, set: &[char]) -> bool {
        i.and_then(|i| self.sym(i))
            .is_some_and(|c| set.contains(&c))
    }

    /// A sign outside math delimiters: one that may stay as written. Inside them every
    /// sign becomes words, so it cannot make a run with its neighbours.
    pub(super) fn is_written_sym(&self, i: Option<usize>, set: &[char]) -> bool {
        self.is_sym(i, set)
            && i.is_some_and(|i| {
                self.toks[i].mode != Mode::Math && matches!(self.render[i], Render::Text)
            })
    }

    pub(super) fn hide(&mut self, i: usize) {
        self.conceal(i);
        self.done[i] = true;
    }

    /// Hidden, but still to be decided (a `\frac` speaks through its arguments).
    pub(super) fn conceal(&mut self, i: usize) {
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
    pub(super) fn set_blank(&mut self, i: usize) {
        self.blank[i] = true;
        self.sig_before.borrow_mut().close(i);
        self.sig_after.borrow_mut().close(i);
    }

    pub(super) fn say(&mut self, i: usize, words: impl Into<Cow<'static, str>>) {
        self.render[i] = Render::Words(words.into());
        self.done[i] = true;
    }

    /// The previous token that shows, and whether white space lies between.
    pub(super) fn prev_sig(&self, i: usize) -> Option<(usize, bool)> {
        let nearest = self.shown_before.borrow_mut().beyond(i)?;
        if !self.blank[nearest] {
            return Some((nearest, false));
        }
        let sig = self.sig_before.borrow_mut().beyond(nearest)?;
        Some((sig, true))
    }

    pub(super) fn next_sig(&self, i: usize) -> Option<(usize, bool)> {
        let nearest = self.shown_after.borrow_mut().beyond(i)?;
        if !self.blank[nearest] {
            return Some((nearest, false));
        }
        let sig = self.sig_after.borrow_mut().beyond(nearest)?;
        Some((sig, true))
    }

    /// The previous token that shows if nothing but hidden ones lie between.
    pub(super) fn prev_adj(&self, i: usize) -> Option<usize> {
        self.prev_sig(i)
            .filter(|(_, spaced)| !spaced)
            .map(|(j, _)| j)
    }

    pub(super) fn next_adj(&self, i: usize) -> Option<usize> {
        self.next_sig(i)
            .filter(|(_, spaced)| !spaced)
            .map(|(j, _)| j)
    }

    /// Something an operator can follow: `3`, `x`, `)`, `x²`, `\pi`.
    pub(super) fn left_operand(&self, j: usize) -> bool {
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
    pub(super) fn right_operand(&self, j: usize) -> bool {
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
    pub(super) fn number_at(&self, j: usize) -> Option<usize> {
        match self.kind(j) {
            Kind::Num => Some(j),
            Kind::Sym('%') => self.prev_adj(j).filter(|&k| self.kind(k) == Kind::Num),
            _ => None,
        }
    }

    /// A sign that makes its neighbours math: `2024-2025 = x` is a subtraction.
    pub(super) fn is_operatorish(&self, j: usize) -> bool {
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
    pub(super) fn number_before(&self, s: usize) -> Option<usize> {
        self.prev_adj(s).and_then(|k| self.number_at(k))
    }

    pub(super) fn number_after(&self, s: usize) -> Option<usize> {
        self.next_adj(s).filter(|&k| self.kind(k) == Kind::Num)
    }

    /// A written `-` or `/` with a number directly on each side.
    pub(super) fn joins_numbers(&self, s: usize) -> bool {
        self.is_written_sym(Some(s), &['-', '−', '/'])
            && self.number_before(s).is_some()
            && self.number_after(s).is_some()
    }

    /// Whether the sign at `i` is one link of a longer run of numbers joined by `-` or
    /// `/`: 2024-05-01, 1-800-555-0199, 12/25/2024. Every sign of such a run sees it,
    /// so they are all read alike.
    pub(super) fn chained(&self, i: usize) -> bool {
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
    pub(super) fn slash_path(&self, i: usize) -> bool {
        let written_slash = |k: Option<usize>| self.is_written_sym(k, &['/']);
        written_slash(self.prev_adj(i).and_then(|x| self.prev_adj(x)))
            || written_slash(self.next_adj(i).and_then(|x| self.next_adj(x)))
    }

    /// The argument at or after `from` (white space skipped).
    pub(super) fn arg(&self, from: usize) -> Option<Arg> {
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
    pub(super) fn visible(&self, a: Arg) -> Vec<usize> {
        (a.open..=a.last)
            .filter(|&k| !self.hidden[k] && !self.blank[k])
            .take(2)
            .collect()
    }
}

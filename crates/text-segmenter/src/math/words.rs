//! Which rule takes a token, and the tokens spoken as they stand: Greek, `f(x)`, `dy/dx`, `|x|`.

use super::lexicon::*;
use super::{Kind, Mode, NONE, Speaker};

impl<'a> Speaker<'a> {
    /// Commands, powers, subscripts, `f(x)`, `dy/dx`, Greek letters, math symbols.
    pub(super) fn structure(&mut self, i: usize) {
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

    pub(super) fn word(&mut self, i: usize) {
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

    /// `|x|` in math → "the absolute value of x".
    pub(super) fn absolute_values(&mut self) {
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
}

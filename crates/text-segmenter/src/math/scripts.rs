//! Powers and subscripts: `x^2`, `x²`, `e^{-x}`, `x_1`.

use super::lexicon::*;
use super::{Arg, Kind, Mode, NONE, Speaker};

impl<'a> Speaker<'a> {
    /// `x²` → "x squared"; a superscript after a word that is not a unit is a footnote.
    pub(super) fn superscript(&mut self, i: usize) {
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

    pub(super) fn superscript_digits(&self, i: usize) -> String {
        self.toks[i].text.chars().filter_map(sup_char).collect()
    }

    /// A power after an operand, or `²`/`³` after a unit (`cm²`); else a footnote mark.
    pub(super) fn superscript_speaks(&self, i: usize) -> bool {
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
    pub(super) fn power(&mut self, i: usize) {
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
    pub(super) fn exponent(&self, from: usize) -> Option<Arg> {
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
    pub(super) fn subscript(&mut self, i: usize) {
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
}

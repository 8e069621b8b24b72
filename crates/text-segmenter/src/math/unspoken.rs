//! What never shows: delimiters, unspoken commands, emphasis, line marks, signs without an operand.

use super::lexicon::*;
use super::{Kind, Mode, Speaker};

impl<'a> Speaker<'a> {
    /// Delimiters, braces, stray `$` and backticks, commands that are not spoken.
    pub(super) fn hide_static(&mut self) {
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
    pub(super) fn star_runs(&mut self) {
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
    pub(super) fn hide_line_marks(&mut self) -> bool {
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
    pub(super) fn hide_unspoken(&mut self) {
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
}

//! Signs between operands: `=`, `<`, `-`, `+`, `/`, `*`, and `3x` spoken as "3 x".

use super::lexicon::*;
use super::{Kind, Mode, Render, Speaker};

impl<'a> Speaker<'a> {
    /// A lone `*` between operands (after one, in math).
    pub(super) fn is_times(&self, i: usize) -> bool {
        let t = self.toks[i];
        let left = self.prev_sig(i).is_some_and(|(l, _)| self.left_operand(l));
        let right = self.next_sig(i).is_some_and(|(r, _)| self.right_operand(r));
        match t.mode {
            Mode::Math => left,
            Mode::Prose => left && right,
            Mode::Code => false,
        }
    }

    pub(super) fn operator(&mut self, i: usize) {
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

    pub(super) fn between_operands(&self, i: usize) -> bool {
        self.prev_sig(i).is_some_and(|(l, _)| self.left_operand(l))
            && self.next_sig(i).is_some_and(|(r, _)| self.right_operand(r))
    }

    /// Leaves a run of the same signs (`++`, `--`, `<<`) as written.
    pub(super) fn mark_run(&mut self, i: usize, set: &[char]) {
        self.done[i] = true;
        let mut k = self.next_adj(i);
        while let Some(j) = k
            && self.is_sym(Some(j), set)
        {
            self.done[j] = true;
            k = self.next_adj(j);
        }
    }

    pub(super) fn equals(&mut self, i: usize) {
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

    pub(super) fn compare(&mut self, i: usize, c: char) {
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

    pub(super) fn minus(&mut self, i: usize) {
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

    pub(super) fn over(&mut self, i: usize) {
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
    pub(super) fn glue(&mut self) {
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
}

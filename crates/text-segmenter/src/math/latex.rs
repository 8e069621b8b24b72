//! LaTeX commands: words, `\frac`, `\sqrt`, `\lim`, `\sum`, `\int`.

use super::lexicon::*;
use super::{Kind, NONE, Speaker};
use std::borrow::Cow;

impl<'a> Speaker<'a> {
    pub(super) fn command(&mut self, i: usize) {
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
    pub(super) fn root(&mut self, i: usize) {
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
    pub(super) fn big_operator(&mut self, i: usize) {
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
}

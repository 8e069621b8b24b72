//! The spoken text put together from what was decided for each token.

use super::{Kind, Render, Speaker};

impl<'a> Speaker<'a> {
    pub(super) fn render(&self) -> String {
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

//! The streaming sentence splitter of one utterance.
//!
//! A segment ends at a sentence end — `.` `!` `?` `…` followed by white space, or `。`
//! `！` `？` `；` — together with any closing quotes and brackets that follow. It is not an
//! end inside a decimal (`3.14`), a URL or `e.g.` (no white space follows), after a known
//! abbreviation (`Dr.`, `Mr.`, `U.S.`), after the number of a numbered list (`1. `), or
//! when the next word starts in lower case (`Wait... what?`). A line break ends a segment
//! too. A segment leaves as soon as its end is certain: for `.` that means the next
//! non-blank character has arrived, or the writer said its text ends a sentence (a model
//! host whose guard releases whole sentences: the next one may be seconds away).
//!
//! A sentence longer than `max_chars` is cut at its last clause mark (`,` `;` `:` `—` `，`
//! `、` `：`) before the limit, else before the last word in the limit's second half that
//! opens a phrase (`because`, `which`, `of`), else at the last space, else at the limit. Segments shorter
//! than `min_chars` wait to be merged with the next one (the last one of a turn goes out
//! as it is).
//!
//! A turn's first segment may be shorter: its first clause, cut at a clause mark followed
//! by a space once `first_clause_words` words came before it, or, in a sentence running on
//! past twice that many words without one, before a word that opens a phrase (else after
//! twice that many words), so that the voice can start on a few words while the rest of
//! the sentence is still being written. A turn's first line leaves however short (an
//! answer's opener, "Sure.", sent with a line break), and the first clause after it may
//! still leave early.

use text::script::is_cjk;
use text::words::opens_phrase;

use crate::sanitize::sanitize;

mod boundary;

use boundary::{
    BufferEnd, find_boundary, follows_abbreviation, is_clause_mark, is_closer, is_terminal,
    long_sentence_cut,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SegmenterConfig {
    /// Shorter segments are merged with the next one.
    pub min_chars: usize,
    /// Longer sentences are cut at clause marks.
    pub max_chars: usize,
    /// A turn's first clause of at least this many words leaves on its own (0: never).
    pub first_clause_words: usize,
}

impl Default for SegmenterConfig {
    fn default() -> Self {
        Self {
            min_chars: 20,
            // A phrase of two to three seconds: a voice slower than speech (Kokoro on two
            // cores) is heard as soon as its first phrase is voiced, not its whole
            // sentence, and the next phrase is voiced while this one plays.
            max_chars: 50,
            first_clause_words: 4,
        }
    }
}

/// One utterance's splitter: feed chunks, get the segments whose end is certain.
#[derive(Debug, Clone, Default)]
pub struct TurnSegmenter {
    config: SegmenterConfig,
    buf: String,
    pending: String,
    /// A segment has left: the first-clause cut is spent.
    emitted: bool,
    /// The writer said the text so far ends a sentence.
    ends_sentence: bool,
}

impl TurnSegmenter {
    pub fn new(config: SegmenterConfig) -> Self {
        Self {
            config,
            buf: String::new(),
            pending: String::new(),
            emitted: false,
            ends_sentence: false,
        }
    }

    /// Adds streamed text; returns the segments that are complete.
    pub fn push(&mut self, text: &str) -> Vec<String> {
        self.push_text(text, false)
    }

    /// Adds streamed text that its writer says ends a sentence: a sentence mark at its
    /// end is certain without waiting for what follows.
    pub fn push_text(&mut self, text: &str, ends_sentence: bool) -> Vec<String> {
        self.buf.push_str(text);
        if !text.is_empty() {
            self.ends_sentence = ends_sentence;
        }
        self.drain(false)
    }

    /// The stream ended: returns everything left.
    pub fn finish(&mut self) -> Vec<String> {
        let mut out = self.drain(true);
        let rest = std::mem::take(&mut self.buf);
        self.emit(&rest, &mut out);
        if !self.pending.is_empty() {
            out.push(std::mem::take(&mut self.pending));
        }
        out
    }

    fn drain(&mut self, at_end: bool) -> Vec<String> {
        let mut out = Vec::new();
        // The buffer is cut once at the end: cutting it per sentence would copy the rest
        // each time (quadratic in the sentences of one big chunk).
        let mut start = 0;
        if !self.emitted
            && self.pending.is_empty()
            && let Some(end) = first_clause(&self.buf, self.config.first_clause_words)
            && find_boundary(&self.buf, self.end(at_end), self.config.max_chars)
                .is_none_or(|s| end < s)
            && !dangles(&self.buf, end)
        {
            let clause = self.buf[..end].to_owned();
            start = end;
            let clean = sanitize(&clause);
            if !clean.is_empty() {
                out.push(clean);
                self.emitted = true;
            }
        }
        while let Some(end) =
            find_boundary(&self.buf[start..], self.end(at_end), self.config.max_chars)
        {
            if dangles(&self.buf[start..], end) {
                // What the colon announces has not come: wait for it; at the end it never
                // will, and "Let's break the problem down:" alone is not said.
                if at_end {
                    start = self.buf.len();
                }
                break;
            }
            let sentence = self.buf[start..start + end].to_owned();
            start += end;
            self.emit(&sentence, &mut out);
        }
        self.buf.drain(..start);
        out
    }

    /// How the buffer's end is taken: the stream's end, a sentence end the writer is
    /// sure of, or text that may go on.
    fn end(&self, at_end: bool) -> BufferEnd {
        if at_end {
            BufferEnd::Stream
        } else if self.ends_sentence {
            BufferEnd::Sentence
        } else {
            BufferEnd::Open
        }
    }

    fn emit(&mut self, raw: &str, out: &mut Vec<String>) {
        let clean = sanitize(raw);
        if clean.is_empty() {
            return;
        }
        // A turn's first line leaves however short: an answer's opener ("Sure.") is
        // voiced while the rest is still being written, whose first clause may then
        // leave early as a turn's first words do.
        let first_line = !self.emitted && self.pending.is_empty() && raw.ends_with('\n');
        // A short piece waits to be merged with the next, but a turn's first words do not
        // wait past the phrase's length: "You're asking:" and a 60-character question
        // made one first segment that the voice took four seconds to say.
        if !self.emitted
            && !self.pending.is_empty()
            && self.pending.chars().count() + 1 + clean.chars().count() > self.config.max_chars
        {
            out.push(std::mem::take(&mut self.pending));
            self.emitted = true;
        }
        let merged = join(std::mem::take(&mut self.pending), &clean);
        if first_line {
            out.push(merged);
        } else if merged.chars().count() < self.config.min_chars {
            self.pending = merged;
        } else {
            out.push(merged);
            self.emitted = true;
        }
    }
}

/// `buf[..end]` ends with a colon and nothing speakable follows it yet (perhaps a list's
/// first number: "… such as:\n1.").
fn dangles(buf: &str, end: usize) -> bool {
    let head = buf[..end].trim_end();
    // "This argument fails because: 1." cut before its first item.
    let head = head
        .strip_suffix("1.")
        .or_else(|| head.strip_suffix("1)"))
        .map_or(head, str::trim_end);
    head.ends_with([':', '：']) && sanitize(&buf[end..]).is_empty()
}

/// Byte length of `buf`'s first clause when it has at least `min_words` words and ends at
/// a clause mark followed by white space (so the mark is certain: not `3,5`). A sentence
/// that runs on past twice `min_words` words without one is cut before its last word
/// that opens a phrase (after `min_words` words), else after twice `min_words` words:
/// the voice's first words wait for as few words as can be said on their own.
fn first_clause(buf: &str, min_words: usize) -> Option<usize> {
    if min_words == 0 {
        return None;
    }
    let max_words = min_words * 2;
    let mut words = 0;
    let mut in_word = false;
    // Where the white space before a word began, the words before it, and whether the
    // word opens a phrase.
    let mut word_starts: Vec<(usize, usize, bool)> = Vec::new();
    let mut space_at = None;
    let mut chars = buf.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        // An abbreviation's dot ("Ms. Rivera") or a decimal's ("3.5") does not end the
        // sentence: the first clause may still be cut after it.
        let inner_dot = c == '.'
            && (follows_abbreviation(buf, i)
                || chars.peek().is_some_and(|(_, next)| !next.is_whitespace()));
        if (is_terminal(c) || c == '\n') && !inner_dot {
            // The sentence ends first: it is the first segment.
            return None;
        }
        if c.is_whitespace() {
            in_word = false;
            space_at.get_or_insert(i);
            continue;
        }
        if !in_word && c.is_alphanumeric() {
            words += 1;
            in_word = true;
            if let Some(at) = space_at {
                word_starts.push((at, words - 1, opens_phrase(&buf[i..])));
            }
            if words > max_words {
                // The word after the limit has begun: the sentence runs on. Cut before the
                // last phrase opener with at least `min_words` words before it, else
                // before this word.
                let cut = word_starts
                    .iter()
                    .rev()
                    .find(|(_, before, opens)| *opens && *before >= min_words)
                    .or_else(|| {
                        word_starts
                            .last()
                            .filter(|(_, before, _)| *before >= min_words)
                    });
                return cut.map(|(at, _, _)| *at);
            }
        }
        if !c.is_whitespace() {
            space_at = None;
        }
        if is_clause_mark(c) && !is_cjk(c) && words >= min_words {
            match chars.peek() {
                Some((_, next)) if next.is_whitespace() => return Some(i + c.len_utf8()),
                _ => {}
            }
        }
    }
    None
}

fn join(mut left: String, right: &str) -> String {
    if left.is_empty() {
        return right.to_owned();
    }
    let cjk_seam =
        left.chars().last().is_some_and(is_cjk) || right.chars().next().is_some_and(is_cjk);
    if !cjk_seam {
        left.push(' ');
    }
    left.push_str(right);
    left
}

/// Whether `text` ends a sentence: a sentence mark, then only closing quotes, brackets
/// or blanks (`… now."`). A phrase cut at a clause mark does not.
pub fn ends_sentence(text: &str) -> bool {
    text.trim_end()
        .trim_end_matches(is_closer)
        .ends_with(is_terminal)
}

/// A whole sentence as the phrases a voice says it in: cut where a sentence longer than
/// `max_chars` characters is cut in a stream (at a clause mark, else before a word that
/// opens a phrase, else between words), so that its first phrase is voiced sooner.
pub fn phrases(sentence: &str, max_chars: usize) -> Vec<String> {
    let max_chars = max_chars.max(8);
    let mut out = Vec::new();
    let mut rest = sentence.trim();
    while rest.chars().count() > max_chars {
        let chars: Vec<(usize, char)> = rest.char_indices().collect();
        let cut = long_sentence_cut(rest, &chars, max_chars);
        let (head, tail) = rest.split_at(cut);
        if !head.trim().is_empty() {
            out.push(head.trim().to_owned());
        }
        rest = tail.trim_start();
    }
    if !rest.is_empty() {
        out.push(rest.to_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentence_ends_at_its_mark_and_closers_not_at_a_clause_mark() {
        for text in [
            "Sure.",
            "Is it? ",
            "It said \"no.\"",
            "(Really!)",
            "好。",
            "Wait…",
        ] {
            assert!(ends_sentence(text), "{text}");
        }
        for text in [
            "In calculus,",
            "The slope of a curve",
            "",
            "Dr. Okafor said:",
            "3.14",
        ] {
            assert!(!ends_sentence(text), "{text}");
        }
    }

    #[test]
    fn a_long_sentence_is_said_in_phrases_and_a_short_one_whole() {
        let long = "The city should ban cars from the old town because it would make \
                    traffic worse, and it could disrupt local businesses.";
        let said = phrases(long, 50);
        assert_eq!(
            said,
            [
                "The city should ban cars from the old town",
                "because it would make traffic worse,",
                "and it could disrupt local businesses."
            ]
        );
        assert_eq!(said.join(" "), long);
        assert_eq!(phrases("  Cars must go.  ", 50), ["Cars must go."]);
        assert!(phrases(" ", 50).is_empty());
    }

    proptest::proptest! {
        #[test]
        fn phrases_keep_every_letter_in_order_and_fit(text in "[a-z ,.]{0,300}", max in 8usize..120) {
            let said = phrases(&text, max);
            // (A run longer than a phrase without a blank is cut inside it.)
            let letters = |t: &str| t.chars().filter(|c| !c.is_whitespace()).collect::<String>();
            proptest::prop_assert_eq!(letters(&said.concat()), letters(&text));
            for phrase in &said {
                proptest::prop_assert!(!phrase.is_empty());
                proptest::prop_assert!(phrase.chars().count() <= max.max(8));
            }
        }
    }

    fn all(text: &str) -> Vec<String> {
        let mut s = TurnSegmenter::new(SegmenterConfig {
            min_chars: 1,
            max_chars: 220,
            first_clause_words: 0,
        });
        let mut out = s.push(text);
        out.extend(s.finish());
        out
    }

    /// Table of (input, expected segments), English and Chinese.
    #[test]
    fn sentence_rules_table() {
        let table: &[(&str, &[&str])] = &[
            (
                "Hello there. How are you? Fine!",
                &["Hello there.", "How are you?", "Fine!"],
            ),
            ("Pi is 3.14 roughly. Yes.", &["Pi is 3.14 roughly.", "Yes."]),
            (
                "Dr. Smith met Mr. Jones. Then left.",
                &["Dr. Smith met Mr. Jones.", "Then left."],
            ),
            (
                "Use tools, e.g. a ruler. Done.",
                &["Use tools, e.g. a ruler.", "Done."],
            ),
            (
                "He moved to the U.S. in May. Good.",
                &["He moved to the U.S. in May.", "Good."],
            ),
            (
                "Visit example.com/a.b for more. Thanks.",
                &["Visit example.com/a.b for more.", "Thanks."],
            ),
            ("Wait... what? Really.", &["Wait... what?", "Really."]),
            ("Well… I see. Ok.", &["Well…", "I see.", "Ok."]),
            (
                "He said \"stop.\" Then he left.",
                &["He said \"stop.\"", "Then he left."],
            ),
            (
                "(This is aside.) Next one.",
                &["(This is aside.)", "Next one."],
            ),
            (
                "1. First step\n2. Second step",
                &["1. First step", "2. Second step"],
            ),
            (
                "Steps: 1. mix 2. bake. Done.",
                &["Steps: 1. mix 2. bake.", "Done."],
            ),
            (
                "我们开始吧。今天讲导数！好吗？",
                &["我们开始吧。", "今天讲导数！", "好吗？"],
            ),
            (
                "他说：「很好。」然后走了。",
                &["他说：「很好。」", "然后走了。"],
            ),
            ("第一；第二。", &["第一；", "第二。"]),
            ("价格是3.5元。便宜。", &["价格是3.5元。", "便宜。"]),
            (
                "**Important**, this is *key*. [Tutor]: Next.",
                &["Important, this is key.", "Next."],
            ),
            ("Great job 🎉! Keep going.", &["Great job !", "Keep going."]),
            ("no terminal punctuation", &["no terminal punctuation"]),
        ];
        for (input, expected) in table {
            assert_eq!(all(input), *expected, "{input:?}");
        }
    }

    #[test]
    fn math_and_stage_directions_are_spoken_per_segment() {
        assert_eq!(
            all("Judge: (clears throat) We get \\(x = 2\\). Then $y^2 = 9$, so y = 3."),
            [
                "We get x equals 2.",
                "Then y squared equals 9, so y equals 3."
            ]
        );
        // A sentence end inside the math cuts it; each half is still read as math.
        assert_eq!(all("$$x = 2. Y = 3$$"), ["x equals 2.", "Y equals 3"]);
        assert_eq!(
            all("\\[\n\\frac{1}{2}\n\\]\n*smiles* Easy."),
            ["1 over 2", "Easy."]
        );
    }

    #[test]
    fn segments_leave_as_soon_as_their_end_is_certain() {
        let mut s = TurnSegmenter::new(SegmenterConfig {
            min_chars: 1,
            max_chars: 220,
            first_clause_words: 0,
        });
        assert!(s.push("Hello there").is_empty());
        // "." could be "3.14" or an abbreviation: wait for what follows.
        assert!(s.push(".").is_empty());
        assert!(s.push(" ").is_empty());
        assert_eq!(s.push("How"), ["Hello there."]);
        assert!(s.push(" are you?").is_empty());
        assert_eq!(s.push(" I"), ["How are you?"]);
        // CJK marks are certain once the next character arrived.
        assert!(s.push(" am fine。").is_empty());
        assert_eq!(s.push("好"), ["I am fine。"]);
        assert_eq!(s.finish(), ["好"]);
    }

    #[test]
    fn long_sentences_split_at_clause_marks() {
        let mut s = TurnSegmenter::new(SegmenterConfig {
            min_chars: 1,
            max_chars: 40,
            first_clause_words: 0,
        });
        let text = "This sentence keeps going, and going with more words, until it is far too long for one breath.";
        let mut out = s.push(text);
        out.extend(s.finish());
        assert!(out.len() >= 3, "{out:?}");
        assert_eq!(out[0], "This sentence keeps going,");
        assert!(out.iter().all(|seg| seg.chars().count() <= 40), "{out:?}");
        assert_eq!(out.join(" "), text);
        // Chinese clause marks, and a hard cut when there is none.
        let mut s = TurnSegmenter::new(SegmenterConfig {
            min_chars: 1,
            max_chars: 10,
            first_clause_words: 0,
        });
        let mut out = s.push("一二三四五，六七八九十一二三四五六七八九十");
        out.extend(s.finish());
        assert_eq!(out[0], "一二三四五，");
        assert!(out.iter().all(|seg| seg.chars().count() <= 10), "{out:?}");
        // No clause mark: before a word that opens a phrase, where one is near the limit.
        let mut s = TurnSegmenter::new(SegmenterConfig {
            min_chars: 1,
            max_chars: 52,
            first_clause_words: 0,
        });
        let text =
            "The slope shows how fast it changes because the tangent line touches the curve there.";
        let mut out = s.push(text);
        out.extend(s.finish());
        assert_eq!(out[0], "The slope shows how fast it changes");
        assert!(out.iter().all(|seg| seg.chars().count() <= 52), "{out:?}");
        assert_eq!(out.join(" "), text);
    }

    /// A turn's short first piece leaves alone when the sentence after it would make one
    /// segment longer than a phrase: the voice starts on a second of speech, not four.
    #[test]
    fn a_short_first_piece_does_not_wait_for_a_long_sentence() {
        let mut s = TurnSegmenter::new(SegmenterConfig::default());
        let mut out = s.push_text("Sure.\n", false);
        out.extend(s.push_text(
            "You're asking: what is the derivative of e^x at point (1, 0)? It tells us how quickly it grows. ",
            true,
        ));
        out.extend(s.finish());
        assert_eq!(
            out,
            [
                "Sure.",
                "You're asking:",
                "what is the derivative of e to the power of x at point (1, 0)?",
                "It tells us how quickly it grows."
            ]
        );
        // Later in the turn, a short piece still waits for the next one.
        let mut s = TurnSegmenter::new(SegmenterConfig::default());
        let mut out = s.push_text(
            "The slope at three is six, which we found. Yes. Then we try four and get eight instead. ",
            true,
        );
        out.extend(s.finish());
        assert_eq!(
            out,
            [
                "The slope at three is six,",
                "which we found. Yes.",
                "Then we try four and get eight instead."
            ]
        );
    }

    /// A turn's first clause of four words or more leaves at its comma, streamed word by
    /// word; later clauses stay in their sentences, and short or uncertain marks do not cut.
    #[test]
    fn the_first_clause_leaves_early() {
        let stream = |text: &str| {
            // Sentences longer than the default phrase stay whole here: the first clause's
            // cut is what is tested.
            let mut s = TurnSegmenter::new(SegmenterConfig {
                max_chars: 220,
                ..SegmenterConfig::default()
            });
            let mut out = Vec::new();
            for word in text.split_inclusive(' ') {
                out.extend(s.push(word));
            }
            out.extend(s.finish());
            out
        };
        assert_eq!(
            stream(
                "Take f of x equals x squared, then the slope at three is six. Next, we try four."
            ),
            [
                "Take f of x equals x squared,",
                "then the slope at three is six.",
                "Next, we try four."
            ]
        );
        // Too few words before the comma, a decimal comma, a sentence that ends first.
        assert_eq!(
            stream("Well, the limit is 3,5 here. And then, more words follow."),
            [
                "Well, the limit is 3,5 here.",
                "And then, more words follow."
            ]
        );
        assert_eq!(stream("No comma here at all."), ["No comma here at all."]);
        // A first sentence that runs on without a comma: cut before a phrase's first word
        // within the first eight words, else after eight.
        assert_eq!(
            stream("The slope of the tangent line at three tells us the rate of change there."),
            [
                "The slope of the tangent line",
                "at three tells us the rate of change there."
            ]
        );
        assert_eq!(
            stream("Derivatives measure how quickly functions change near one chosen point today."),
            [
                "Derivatives measure how quickly functions change near one",
                "chosen point today."
            ]
        );
        // A title's dot or a decimal's is no sentence end: the first words still leave.
        assert_eq!(
            stream("I'm not sure exactly what Ms. Rivera has been saying yet, but I try."),
            [
                "I'm not sure exactly what Ms. Rivera has",
                "been saying yet, but I try."
            ]
        );
        assert_eq!(
            stream("At 2.5 the slope is five, so the line rises."),
            ["At 2.5 the slope is five,", "so the line rises."]
        );
        // Eight words and the sentence ends: it stays whole.
        assert_eq!(
            stream("The derivative of x squared is two x."),
            ["The derivative of x squared is two x."]
        );
    }

    #[test]
    fn a_colon_with_nothing_after_it_is_not_said() {
        let mut t = TurnSegmenter::new(SegmenterConfig::default());
        let mut out = t.push("Cars add noise. ");
        out.extend(t.push("It may stem from factors such as:\n"));
        out.extend(t.push(" 1."));
        out.extend(t.finish());
        assert_eq!(out, ["Cars add noise."]);
        let mut t = TurnSegmenter::new(SegmenterConfig::default());
        let mut out = t.push("Let's break down the problem:\n");
        out.extend(t.finish());
        assert!(out.is_empty(), "{out:?}");
        let mut t = TurnSegmenter::new(SegmenterConfig::default());
        let mut out = t.push("I doubt it. This argument fails because: 1.");
        out.extend(t.finish());
        assert_eq!(out, ["I doubt it."]);
        // What follows the colon comes: both are said.
        let mut t = TurnSegmenter::new(SegmenterConfig::default());
        let mut out = t.push("Three reasons matter here:\n");
        out.extend(t.push("noise, air and safety.\n"));
        out.extend(t.finish());
        assert_eq!(
            out.concat().replace(' ', ""),
            "Threereasonsmatterhere:noise,airandsafety."
        );
    }

    #[test]
    fn a_turns_short_first_line_leaves_at_once() {
        let mut s = TurnSegmenter::new(SegmenterConfig::default());
        assert_eq!(s.push("Sure.\n"), ["Sure."]);
        // The words after it still leave at their first clause.
        assert_eq!(
            s.push("Take f of x equals x squared, which"),
            ["Take f of x equals x squared,"]
        );
        let mut out = s.push(" is a parabola. Then");
        out.extend(s.finish());
        assert_eq!(out, ["which is a parabola.", "Then"]);
        let mut s = TurnSegmenter::new(SegmenterConfig::default());
        assert!(s.push("Yes. Ok.").is_empty());
    }

    #[test]
    fn tiny_fragments_merge() {
        let mut s = TurnSegmenter::new(SegmenterConfig {
            min_chars: 20,
            max_chars: 220,
            first_clause_words: 4,
        });
        let mut out = s.push("Yes. Ok. That is a longer sentence now. Hi.");
        out.extend(s.finish());
        assert_eq!(out, ["Yes. Ok. That is a longer sentence now.", "Hi."]);
    }

    /// By default a long sentence leaves phrase by phrase, each cut before a word that
    /// opens a phrase, so a slow voice starts on its first phrase.
    #[test]
    fn by_default_a_long_sentence_leaves_as_phrases() {
        let mut s = TurnSegmenter::new(SegmenterConfig {
            first_clause_words: 0,
            ..SegmenterConfig::default()
        });
        let sentence = "It is a rate at which an object's velocity changes when its position \
                        increases from the start of the interval to some later point.";
        let mut out = Vec::new();
        for word in sentence.split_inclusive(' ') {
            out.extend(s.push(word));
        }
        out.extend(s.finish());
        assert_eq!(
            out,
            [
                "It is a rate at which an object's velocity",
                "changes when its position increases",
                "from the start of the interval",
                "to some later point."
            ]
        );
        assert_eq!(out.join(" "), sentence);
    }

    #[test]
    fn one_huge_chunk_of_sentences_loses_nothing() {
        // Sentences only (the first clause's early cut is tested above).
        let mut s = TurnSegmenter::new(SegmenterConfig {
            first_clause_words: 0,
            max_chars: 220,
            ..SegmenterConfig::default()
        });
        let sentence = "The derivative measures how fast a value changes right now. ";
        let text = sentence.repeat(20_000);
        let mut out = s.push(&text);
        out.extend(s.finish());
        assert_eq!(out.len(), 20_000);
        assert!(out.iter().all(|seg| seg == sentence.trim()));
    }

    #[test]
    fn a_sentence_end_followed_by_a_flood_of_blanks_still_leaves() {
        let mut s = TurnSegmenter::new(SegmenterConfig {
            min_chars: 1,
            max_chars: 50,
            first_clause_words: 0,
        });
        let mut out = s.push(&format!("First sentence.{}", " ".repeat(10_000)));
        out.extend(s.push("Second one."));
        out.extend(s.finish());
        assert_eq!(out, ["First sentence.", "Second one."]);
    }

    #[test]
    fn a_sentence_its_writer_ended_leaves_without_waiting_for_the_next() {
        let mut s = TurnSegmenter::new(SegmenterConfig::default());
        // The guard held the next sentence back: nothing follows the mark yet.
        assert!(s.push("Ms. Rivera's statement is correct. ").is_empty());
        let mut s = TurnSegmenter::new(SegmenterConfig::default());
        assert_eq!(
            s.push_text("Ms. Rivera's statement is correct. ", true),
            ["Ms. Rivera's statement is correct."]
        );
        // Without a trailing blank, and a question, alike.
        let mut s = TurnSegmenter::new(SegmenterConfig::default());
        assert_eq!(
            s.push_text("So what does the slope tell us?", true),
            ["So what does the slope tell us?"]
        );
        // What follows is the next segment; the word says nothing of text without a mark.
        assert!(s.push_text(" And the curve", true).is_empty());
        let mut out = s.push_text(" bends here. ", false);
        assert!(out.is_empty(), "{out:?}");
        out.extend(s.finish());
        assert_eq!(out, ["And the curve bends here."]);
    }

    #[test]
    fn a_writers_sentence_end_still_respects_abbreviations_and_short_segments() {
        let mut s = TurnSegmenter::new(SegmenterConfig::default());
        // "Dr." is no sentence end, whatever the writer says of its chunk.
        assert!(s.push_text("We asked Dr. ", true).is_empty());
        // A short sentence waits to be merged, as it would anyway.
        let mut s = TurnSegmenter::new(SegmenterConfig::default());
        assert!(s.push_text("Yes. ", true).is_empty());
        assert_eq!(
            s.push_text("The slope is the rate of change. ", true),
            ["Yes. The slope is the rate of change."]
        );
    }

    proptest::proptest! {
        /// Marking whole sentences changes when segments leave, never what they say.
        #[test]
        fn marked_sentence_ends_change_timing_not_words(
            sentences in proptest::collection::vec(
                ("[A-Z][a-z]{1,8}( [a-z]{1,8}){0,12}", proptest::sample::select(vec![".", "?", "!"])),
                1..6,
            )
        ) {
            let text: Vec<String> = sentences.iter().map(|(s, mark)| format!("{s}{mark} ")).collect();
            let mut plain = TurnSegmenter::new(SegmenterConfig::default());
            let mut marked = TurnSegmenter::new(SegmenterConfig::default());
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for sentence in &text {
                a.extend(plain.push(sentence));
                b.extend(marked.push_text(sentence, true));
            }
            a.extend(plain.finish());
            b.extend(marked.finish());
            proptest::prop_assert_eq!(a, b);
        }
    }
}

//! How the model's raw stream becomes spoken words: name tags, markup and other speakers'
//! lines dropped, sentences guarded, the word budget kept.

use super::spoken::*;
use super::*;
use text::words::{is_abbreviation, opens_phrase};

mod saying;

/// What the filter made of a piece of the model's stream.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Filtered {
    /// Text to send now (possibly empty).
    pub text: String,
    /// Generation should stop: the budget is spent at a sentence end, or the model began
    /// speaking for someone else.
    pub stop: bool,
    /// `text` ends a sentence the guard took whole: whoever voices it need not wait for
    /// the next one (which is held back until it is judged) to know the sentence is over.
    pub ends_sentence: bool,
}

/// Turns a model's raw token stream into spoken text: drops a leading name tag
/// (`Ben:`, `[student1]:`, `Ms. Rivera (tutor):`), role and template tags, markdown
/// and quotes around the whole reply; stops where the model starts another speaker's
/// line, and at the first sentence end once `max_words` words were said (or at
/// `max_words * 2` words whatever happens), or, for a turn that is to ask, once it asked.
#[derive(Debug, Clone)]
pub struct OutputFilter {
    names: Vec<String>,
    max_words: usize,
    /// Raw text not yet decided on (the start of the reply, or a line start that may be
    /// a name tag).
    pending: String,
    started: bool,
    words: usize,
    emitted: String,
    done: bool,
    /// The sentence being written, held back until it ends.
    sentence: Sentence,
    echo_sources: Vec<String>,
    /// Texts the reply may repeat (what it was asked to say).
    echo_allowed: Vec<String>,
    /// Refuses echoes of the conversation, filler and identity slips.
    guard: SentenceGuard,
    /// Sentences not said, and why.
    refused: Vec<(Refusal, String)>,
    /// What was last said ended a whole sentence (not a first clause or a phrase of one).
    said_whole_sentence: bool,
    /// What the last sentence, refused, leaves to the next.
    last_refused: LastRefused,
    /// The turn is to ask: it ends after the first sentence that asks (what a small
    /// model writes after its question answers it, or recites its direction).
    ends_after_question: bool,
}

/// What a refused sentence leaves to the text after it, which may be its rest.
#[derive(Debug, Clone, Copy, Default)]
struct LastRefused {
    /// It ended on an ellipsis: a next sentence that starts in lower case is its rest (a
    /// quote's `…"` ended it early) and goes with it.
    ended_on_ellipsis: bool,
    /// It opened a quote: what follows up to the quote's end is the rest of what it
    /// reported (`Rivera asked: "Is it four? Or five?"`).
    left_quote_open: bool,
}

/// The sentence being written, held back until it ends (or sent on from its first
/// clause), with how it goes on.
#[derive(Debug, Clone, Default)]
struct Sentence {
    text: String,
    words: usize,
    /// It goes on from a first clause already said: it is said to its end (the guard
    /// judged its beginning; half a sentence is worse).
    continuing: bool,
    /// Bytes of `text` already sent: a sentence that goes on from its first clause is
    /// sent phrase by phrase as it is written.
    sent: usize,
    /// It was refused before its end (it copies a recent line): its remaining words are
    /// dropped up to its end.
    dropping: bool,
}

/// Words the reply's first clause needs before its comma or colon to be sent on its own
/// (as the segmenter cuts a first clause).
pub(super) const FIRST_CLAUSE_WORDS: usize = 4;

/// How much of the reply's start is held back to recognise a name tag.
pub(super) const HEAD_CHARS: usize = 48;

impl OutputFilter {
    /// `names`: every name a speaker tag may use (participant names, display names).
    pub fn new(names: Vec<String>, max_words: usize) -> Self {
        Self {
            names: names
                .into_iter()
                .map(|n| n.trim().to_lowercase())
                .filter(|n| !n.is_empty())
                .collect(),
            max_words: max_words.max(1),
            pending: String::new(),
            started: false,
            words: 0,
            emitted: String::new(),
            done: false,
            sentence: Sentence::default(),
            echo_sources: Vec::new(),
            echo_allowed: Vec::new(),
            guard: SentenceGuard::default(),
            refused: Vec::new(),
            said_whole_sentence: false,
            last_refused: LastRefused::default(),
            ends_after_question: false,
        }
    }

    /// The reply ends after its first sentence that asks.
    pub fn ending_after_question(mut self) -> Self {
        self.ends_after_question = true;
        self
    }

    /// Sentences are also checked by `guard` (the recent conversation, the names).
    pub fn with_guard(mut self, guard: SentenceGuard) -> Self {
        self.guard = guard;
        self
    }

    /// The sentences the model wrote that were not said, and why.
    pub fn refused(&self) -> &[(Refusal, String)] {
        &self.refused
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The model goes back to where the sentence just refused began and samples it
    /// again: what the filter holds of the text after it is dropped, and a reply that
    /// said nothing yet may open with a name tag again. `at_line_start`: the refused
    /// sentence began a line, so the one sampled in its place does too, and another
    /// speaker's tag there ends the reply (the line break before it was taken already).
    pub fn rewind(&mut self, at_line_start: bool) {
        self.pending.clear();
        if at_line_start && self.started {
            self.pending.push('\n');
        }
        // Words of the next sentence already taken from the stream.
        self.sentence = Sentence::default();
        self.last_refused = LastRefused::default();
        if self.emitted.is_empty() {
            self.started = false;
        }
    }

    /// Everything emitted so far.
    pub fn emitted(&self) -> &str {
        &self.emitted
    }

    pub fn push(&mut self, piece: &str) -> Filtered {
        if self.done {
            return Filtered {
                stop: true,
                ..Filtered::default()
            };
        }
        self.pending.push_str(piece);
        if !self.started {
            // Hold the start back until a tag could be recognised.
            if self.pending.chars().count() < HEAD_CHARS && !self.pending.contains('\n') {
                return Filtered::default();
            }
            let head = std::mem::take(&mut self.pending);
            self.pending = strip_head(&head, &self.names);
            self.started = !self.pending.trim().is_empty();
            if !self.started {
                return Filtered::default();
            }
        }
        self.release_marked(false)
    }

    /// The stream ended: whatever is still held back.
    pub fn finish(&mut self) -> Filtered {
        if self.done {
            return Filtered {
                stop: true,
                ..Filtered::default()
            };
        }
        if !self.started {
            let head = std::mem::take(&mut self.pending);
            self.pending = strip_head(&head, &self.names);
            self.started = true;
        }
        self.release_marked(true)
    }

    /// [`Self::release`], saying whether the text ends a whole sentence.
    fn release_marked(&mut self, at_end: bool) -> Filtered {
        let mut filtered = self.release(at_end);
        filtered.ends_sentence = !filtered.text.is_empty() && self.said_whole_sentence;
        filtered
    }

    /// Emits complete words of `pending`, watching for another speaker's tag and the
    /// budget.
    pub(super) fn release(&mut self, at_end: bool) -> Filtered {
        let mut out = String::new();
        // A new line may begin another speaker's line: decide once it is long enough (or
        // complete), each line in turn.
        let mut from = 0;
        while let Some(nl) = self.pending[from..].find('\n').map(|i| from + i) {
            let after = &self.pending[nl + 1..];
            let line = after.split('\n').next().unwrap_or_default();
            let decided = at_end
                || line.len() < after.len()
                || line.contains(':')
                || line.chars().count() >= HEAD_CHARS;
            if !decided {
                // The line break ends the word before it: a sentence that ends there is
                // judged now, not once the next line is long enough to be read.
                let before = format!("{} ", &self.pending[..nl]);
                let rest = self.pending[nl..].to_owned();
                self.pending = before;
                let f = self.emit_words(&mut out, false);
                self.pending.push_str(&rest);
                return Filtered {
                    text: out,
                    stop: f,
                    ..Filtered::default()
                };
            }
            if starts_with_tag(line, &self.names) || line.trim_start().starts_with("<|") {
                self.pending.truncate(nl);
                let _ = self.emit_words(&mut out, true);
                self.done = true;
                return Filtered {
                    text: out,
                    stop: true,
                    ..Filtered::default()
                };
            }
            // A line without an end mark before one that opens with a capital
            // ("f(x) = x^2\nThen f'(x) = 2x\n\nThe slope …"): the model ended its sentence
            // with the line; joined with a space, the formulas and the sentence after them
            // ran on as one to the budget's cut.
            let before = match self.pending[..nl].trim_end() {
                "" => self.sentence.text.trim_end(),
                before => before,
            };
            let ends_line = !before.is_empty()
                && !before
                    .trim_end_matches(['"', '”', '’', '\'', ')', ']'])
                    .ends_with(['.', '!', '?', ':', ';', ',', '—', '…', '。', '！', '？'])
                && line.trim_start().starts_with(char::is_uppercase);
            let joint = if ends_line { ". " } else { " " };
            self.pending.replace_range(nl..nl + 1, joint);
            from = nl + joint.len();
        }
        if let Some(i) = self.pending.find("<|") {
            // A template token leaked: the reply is over.
            self.pending.truncate(i);
            let _ = self.emit_words(&mut out, true);
            self.done = true;
            return Filtered {
                text: out,
                stop: true,
                ..Filtered::default()
            };
        }
        let stop = self.emit_words(&mut out, at_end);
        Filtered {
            text: out,
            stop,
            ..Filtered::default()
        }
    }

    /// Moves whole words from `pending` to `out`; with `all`, the last partial word too.
    /// Returns true when the budget ends the reply.
    pub(super) fn emit_words(&mut self, out: &mut String, all: bool) -> bool {
        let cut = if all {
            self.pending.len()
        } else {
            // After the last whitespace, which may take more than one byte (a model may
            // write a no-break space).
            match self
                .pending
                .char_indices()
                .rev()
                .find(|(_, c)| ends_piece(*c))
            {
                Some((i, c)) => i + c.len_utf8(),
                None => return false,
            }
        };
        let ready: String = self.pending.drain(..cut).collect();
        for word in ready.split_inclusive(ends_piece) {
            let clean = clean_markup(word);
            if clean.trim().is_empty() {
                if !self.sentence.text.is_empty()
                    && !self.sentence.text.ends_with(' ')
                    && !clean.is_empty()
                {
                    self.sentence.text.push(' ');
                }
                continue;
            }
            if self.last_refused.left_quote_open {
                // Not said, but kept with the refusal it belongs to, for the log.
                if let Some((_, refused)) = self.refused.last_mut() {
                    refused.push(' ');
                    refused.push_str(clean.trim());
                }
                self.last_refused.left_quote_open = !clean.contains(['"', '”']);
                continue;
            }
            // A first clause without a clause mark ends before a word that opens a phrase,
            // once the sentence ran on as long as the segmenter lets a first clause run.
            if self.may_release_clause()
                && self.sentence.words >= 2 * FIRST_CLAUSE_WORDS
                && opens_phrase(&clean)
                && self.release_clause(out)
            {
                self.done = true;
                self.pending.clear();
                return true;
            }
            // A bracket closing a formula, then a capital ("… (2 over x squared) Let's
            // take", "… over h ) For example"): the model left out the full stop, and the
            // sentence ends at the bracket, else it runs on through the next one to the
            // budget's cut, and the listener hears both as one breathless line.
            if !self.sentence.dropping
                && ends_on_bracket(&self.sentence.text)
                && clean.trim_start().starts_with(char::is_uppercase)
            {
                let end = self.sentence.text.trim_end().len();
                self.sentence.text.truncate(end);
                self.sentence.text.push('.');
                if self.flush(out) {
                    self.done = true;
                    self.pending.clear();
                    return true;
                }
            }
            // A closing quote or bracket after the mark ends the sentence too (`point B."`):
            // else the next sentence is judged as part of this one.
            let sentence_end = clean
                .trim_end()
                .trim_end_matches(['"', '”', '’', '\'', ')', ']'])
                .ends_with(['.', '!', '?', '。', '！', '？'])
                && !is_abbreviation(clean.trim());
            if self.sentence.text.is_empty()
                && std::mem::take(&mut self.last_refused.ended_on_ellipsis)
                && clean.trim_start().starts_with(char::is_lowercase)
            {
                self.sentence.dropping = true;
            }
            if self.sentence.dropping {
                self.sentence.dropping = !sentence_end;
                continue;
            }
            // The stop a line break put after a word already taken: against that word.
            if clean.trim() == "." {
                let end = self.sentence.text.trim_end().len().max(self.sentence.sent);
                self.sentence.text.truncate(end);
            }
            self.sentence.text.push_str(&clean);
            self.sentence.words += spoken_words(&clean);
            // A start copied from a recent line is refused as it is written: the model
            // goes back to the sentence's start at once instead of finishing the copy.
            if !self.sentence.continuing
                && !sentence_end
                && self.guard.copies_recent(&self.sentence.text)
            {
                self.refused
                    .push((Refusal::Echo, self.sentence.text.trim().to_owned()));
                self.sentence.text.clear();
                self.sentence.words = 0;
                self.sentence.dropping = true;
                continue;
            }
            let total = self.words + self.sentence.words;
            if self.words > 0
                && !self.sentence.continuing
                && total > self.max_words + budget_slack(self.max_words)
            {
                // Something is said already and this sentence cannot end near the
                // budget: drop it and stop generating, rather than run to twice the budget.
                self.sentence.text.clear();
                self.sentence.words = 0;
                self.done = true;
                self.pending.clear();
                return true;
            }
            // The first clause of an answer to a human goes to the voice at its comma or
            // colon when the guard takes it as it stands (it takes up the human's words):
            // the human need not wait for a long first sentence. Between agents the next
            // turn is prepared while one plays, and a clause said early would commit the
            // sentence before the guard could judge it (its rest repeating a line).
            let clause_mark = clean.trim_end().ends_with([',', ';', ':', '—']);
            let clause_end = !sentence_end
                && self.may_release_clause()
                && self.sentence.words >= FIRST_CLAUSE_WORDS
                && clause_mark;
            if clause_end && self.release_clause(out) {
                self.done = true;
                self.pending.clear();
                return true;
            }
            let runaway = total >= self.max_words * 2;
            // The rest of a sentence whose first clause was said leaves as it is written,
            // a phrase at a time, so the voice need not wait for the sentence's end.
            if self.sentence.continuing && !sentence_end && !runaway {
                let unsent = &self.sentence.text[self.sentence.sent..];
                // After a quote mark, the rest waits for the sentence's end: it may give
                // the quote to someone ("…,\" David Dove said"), which is not said.
                let quoting = unsent.contains(['"', '”']);
                if !quoting && (clause_mark || spoken_words_in(unsent) >= STREAMED_PHRASE_WORDS) {
                    self.send_on(out);
                }
                continue;
            }
            if (sentence_end && self.flush(out)) || runaway {
                if runaway {
                    self.flush(out);
                }
                self.done = true;
                self.pending.clear();
                return true;
            }
        }
        if all {
            self.flush(out);
        }
        false
    }

    /// A sentence of four words or more that stands in the prompt is an echo of it.
    pub(super) fn is_echo(&self, sentence: &str) -> bool {
        let sentence = normalized_words(sentence);
        sentence.split(' ').count() >= 4
            && self.echo_sources.iter().any(|s| s.contains(&sentence))
            && !self.echo_allowed.iter().any(|s| s.contains(&sentence))
    }

    /// Sentences that merely repeat `sources` (the system prompt) are not spoken, unless
    /// they also stand in `allowed` (the request, which may quote what to say).
    pub fn with_echo_sources<'a>(
        mut self,
        sources: impl IntoIterator<Item = &'a str>,
        allowed: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        self.echo_sources = sources.into_iter().map(normalized_words).collect();
        self.echo_allowed = allowed.into_iter().map(normalized_words).collect();
        self
    }
}

/// Whether `sentence` (three words or more) ends on a closing bracket without a stop.
fn ends_on_bracket(sentence: &str) -> bool {
    sentence.trim_end().ends_with(')') && sentence.split_whitespace().nth(2).is_some()
}

/// Whether `sentence`'s last quote mark opens a quote (`asked: "Is it four?`), not closes
/// one (`four?"`).
fn leaves_quote_open(sentence: &str) -> bool {
    let Some((at, mark)) = sentence.trim_end().rmatch_indices(['"', '“', '”']).next() else {
        return false;
    };
    match mark {
        "“" => true,
        "”" => false,
        _ => sentence[at + 1..]
            .chars()
            .next()
            .is_some_and(char::is_alphanumeric),
    }
}

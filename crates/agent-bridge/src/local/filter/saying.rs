//! How the filter says what it held: an answer's first clause before its sentence ends,
//! the rest of that sentence a phrase at a time, and a whole sentence once the guard
//! takes it.

use super::*;

impl OutputFilter {
    /// Whether the sentence being written may leave before its end, at its first clause:
    /// only in an answer to the human that has said nothing yet (between agents the next
    /// turn is prepared while one plays, and a clause said early would commit its
    /// sentence before the guard could judge it), and not in a turn that must ask.
    pub(super) fn may_release_clause(&self) -> bool {
        self.emitted.is_empty()
            && !self.sentence.text.trim().is_empty()
            && self.guard.answers_human()
            && !self.guard.awaits_question()
    }

    /// Sends what is not sent yet of a sentence that goes on from its first clause.
    pub(super) fn send_on(&mut self, out: &mut String) {
        let mut text = self.sentence.text[self.sentence.sent..].to_owned();
        self.sentence.sent = self.sentence.text.len();
        if text.trim().is_empty() {
            return;
        }
        if !self.emitted.ends_with(char::is_whitespace) && !text.starts_with(char::is_whitespace) {
            text.insert(0, ' ');
        }
        out.push_str(&text);
        self.emitted.push_str(&text);
        self.said_whole_sentence = false;
    }

    /// The first clause of the reply, if the guard takes it as it stands: sent, and the
    /// sentence goes on from empty. Refused, it stays held as part of its sentence.
    /// True when the budget is spent.
    pub(in crate::local) fn release_clause(&mut self, out: &mut String) -> bool {
        // The question it answers is in the prompt and in the recent lines: a clause that
        // starts on the human's words is not an echo for that.
        if self.guard.check_clause(&self.sentence.text).is_some() {
            return false;
        }
        let clause = std::mem::take(&mut self.sentence.text);
        let words = std::mem::take(&mut self.sentence.words);
        let spent = self.say(clause, words, out);
        self.sentence.continuing = true;
        self.said_whole_sentence = false;
        spent
    }

    /// Sends the sentence held back, unless it only repeats the prompt; true when the
    /// budget is spent.
    pub(in crate::local) fn flush(&mut self, out: &mut String) -> bool {
        let sentence = std::mem::take(&mut self.sentence.text);
        let words = std::mem::take(&mut self.sentence.words);
        // Nothing a voice could say (a closing `\]` left over from the last turn), or a
        // list's number alone ("1.", a list the budget cut after its first mark).
        if !sentence.chars().any(char::is_alphabetic) {
            self.sentence.continuing = false;
            return false;
        }
        if std::mem::take(&mut self.sentence.continuing) {
            let sent = std::mem::take(&mut self.sentence.sent).min(sentence.len());
            // Its head is voiced already; a tail that gives it to someone ("…,\" David
            // Dove said shortly thereafter.") is a narrator's, and is not said.
            if let Some(at) = self.guard.quote_attributed(&sentence[sent..]) {
                let (head, tail) = sentence.split_at(sent + at);
                self.refused
                    .push((Refusal::Reported, tail.trim().to_owned()));
                let head = head.trim_end().to_owned();
                return self.say_from(head, sent, words, out);
            }
            return self.say_from(sentence, sent, words, out);
        }
        // Held to the reply's end, a sentence ending on its colon is a lead-in whose
        // substance never came (the model went on to a list, or another speaker's
        // label): after what was said, it is not said.
        let lead_in = !self.emitted.is_empty()
            && sentence
                .trim_end()
                .trim_end_matches(['"', '”', '’', '\'', ')'])
                .ends_with([':', '：']);
        // A list's first number after the sentence's colon ("… for you: 1.") is no word
        // to say: the sentence ends on its colon, and the list goes on after it.
        let sentence = match without_list_number(&sentence) {
            Some(lead) => lead.to_owned(),
            None => sentence,
        };
        let refusal = if lead_in {
            Some(Refusal::LeadIn)
        } else if self.is_echo(&sentence) {
            Some(Refusal::Echo)
        } else {
            self.guard.check(&sentence)
        };
        if let Some(refusal) = refusal {
            let end = sentence
                .trim_end()
                .trim_end_matches(['"', '”', '’', '\'', ')']);
            self.last_refused.ended_on_ellipsis = end.ends_with("...") || end.ends_with('…');
            self.last_refused.left_quote_open = leaves_quote_open(&sentence);
            self.refused.push((refusal, sentence.trim().to_owned()));
            return false;
        }
        self.say(sentence, words, out)
    }

    /// `sentence` (of `words` words) is said; true when the budget is spent.
    pub(in crate::local) fn say(
        &mut self,
        sentence: String,
        words: usize,
        out: &mut String,
    ) -> bool {
        self.say_from(sentence, 0, words, out)
    }

    /// As [`Self::say`], of a sentence whose first `sent` bytes were sent already.
    pub(super) fn say_from(
        &mut self,
        sentence: String,
        sent: usize,
        words: usize,
        out: &mut String,
    ) -> bool {
        self.guard.remember(&sentence);
        let rest = &sentence[sent.min(sentence.len())..];
        let mut text = if self.emitted.is_empty() {
            rest.trim_start()
        } else {
            rest
        }
        .to_owned();
        if !text.is_empty()
            && !self.emitted.is_empty()
            && !self.emitted.ends_with(char::is_whitespace)
            && !text.starts_with(char::is_whitespace)
        {
            text.insert(0, ' ');
        }
        // A quote that closes the sentence but was never opened in it (its opening went
        // with the reply's label).
        let unopened = sentence.matches('"').count() % 2 == 1
            || sentence.matches('”').count() > sentence.matches('“').count();
        let end = text.trim_end().len();
        if unopened && text[..end].ends_with(['"', '”']) {
            let quote = text[..end].chars().next_back().map_or(0, char::len_utf8);
            text.replace_range(end - quote..end, "");
        }
        out.push_str(&text);
        self.emitted.push_str(&text);
        self.said_whole_sentence = true;
        self.words += words;
        self.words >= self.max_words || (self.ends_after_question && text::words::asks(&sentence))
    }
}

/// `sentence` up to its colon, when all that follows the colon is a list's first number
/// ("1.", "1)"): another figure there may be what the sentence says ("The slope at 3
/// is: 6.").
fn without_list_number(sentence: &str) -> Option<&str> {
    let (lead, number) = sentence.trim_end().rsplit_once([':', '：'])?;
    let first = matches!(number.trim(), "1." | "1)");
    let colon = sentence[lead.len()..].chars().next()?;
    first.then(|| &sentence[..lead.len() + colon.len_utf8()])
}

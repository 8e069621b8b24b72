//! The judgement of one sentence: an echo, a pleasantry, narration, a bare call, another's
//! name, reported speech.

use super::*;

impl SentenceGuard {
    pub(super) fn judge(&self, sentence: &str, echo: bool) -> Option<Refusal> {
        let words = words(sentence);
        if words.is_empty() {
            return None;
        }
        if echo && self.is_echo(&words, asks(sentence)) {
            return Some(Refusal::Echo);
        }
        if self.presents_as_another(sentence) || self.calls_itself(sentence) {
            return Some(Refusal::Identity);
        }
        if reports_speech(sentence)
            || self.narrates(&words)
            || self.narrates_itself_within(&words)
            || self.quote_attributed(sentence).is_some()
        {
            return Some(Refusal::Reported);
        }
        if self.running && (self.only_calls_someone(&words) || self.introduces_itself(&words)) {
            return Some(Refusal::Pleasantry);
        }
        let text = words.join(" ");
        if ASSISTANT_LINES.iter().any(|l| text.contains(l))
            || (words.len() <= DIRECTOR_REPLY_WORDS
                && DIRECTOR_REPLIES.iter().any(|l| text.contains(l)))
            || is_bare_verdict(&words)
        {
            return Some(Refusal::Pleasantry);
        }
        // At the opening too, a pleasantry that answers the instruction ("Sure, I'd be
        // happy to help!") says nothing to anyone in the room.
        let to_the_director = words.first().is_some_and(|w| {
            ["sure", "certainly", "absolutely", "okay", "ok"].contains(&w.as_str())
        });
        if (self.running || to_the_director) && is_pleasantry(&words) {
            return Some(Refusal::Pleasantry);
        }
        if let Some(asked) = &self.answering
            && !takes_up(asked, &words)
            && !(self.wants_example && !self.lead_in_said && sets_up_example(sentence))
        {
            return Some(Refusal::Unanswered);
        }
        // One lead-in, then the answer: a second offer to answer is none.
        if self.answering.is_some() && self.lead_in_said && only_offers(sentence) {
            return Some(Refusal::Unanswered);
        }
        if self.asking && !asks(sentence) && (self.led_in || words.len() > LEAD_IN_WORDS) {
            return Some(Refusal::NoQuestion);
        }
        None
    }

    /// Where in `sentence` a quote closes that the words after it give to someone
    /// ("…,\" David Dove said shortly thereafter.", an auction debate's first line, said
    /// before anyone else was heard): a narrator's line. The speaker is a participant the
    /// guard knows, or any name or pronoun before a verb of saying.
    pub(crate) fn quote_attributed(&self, sentence: &str) -> Option<usize> {
        sentence
            .match_indices(['"', '”'])
            .find(|(at, quote)| {
                let after = &sentence[at + quote.len()..];
                self.narrates(&words(after)) || names_a_speaker(after)
            })
            .map(|(at, _)| at)
    }

    /// The speaker's own name as a subject further into a sentence ("In a world where
    /// cars are a threat, Olivia Owl has been thinking …", said by Olivia Owl): a
    /// narrator's line as much as at its start.
    pub(super) fn narrates_itself_within(&self, words: &[String]) -> bool {
        (1..words.len()).any(|at| {
            let titled = TITLES.contains(&words[at - 1].as_str());
            if !self.names.is_own(&words[at], titled) || self.names.is_own(&words[at - 1], false) {
                return false;
            }
            // "Yes, Ms. Rivera can explain …": from the title on.
            let from = if titled { at - 1 } else { at };
            from > 0 && self.narrates(&words[from..])
        })
    }

    /// A sentence whose subject is a participant's name or role, the speaker's own
    /// ("Tomás Lindqvist has expressed interest", said by Tomás; "The judge Okafor
    /// concludes …", said by the judge) or another's followed by a verb of saying or
    /// thinking ("David Dove suggested …", "Counsel for the defense agrees …"): a
    /// narrator's line, not a participant's.
    pub(super) fn narrates(&self, words: &[String]) -> bool {
        let mut rest = words.iter().map(String::as_str).peekable();
        rest.next_if(|w| *w == "the");
        let mut own = false;
        let mut other = false;
        let mut possessive = false;
        let mut subject = false;
        let mut after_title = false;
        while let Some(word) = rest.peek() {
            // "Lindqvist's position: …" names its speaker like "Lindqvist says".
            let (name, s) = match word.strip_suffix("'s").or_else(|| word.strip_suffix("’s")) {
                Some(name) => (name, true),
                None => (*word, false),
            };
            let is = |list: &[String]| list.iter().any(|n| n == name);
            let titled = std::mem::take(&mut after_title);
            if self.names.is_own(name, titled) || is(&self.names.own_roles) {
                own = true;
            } else if is(&self.names.others) || is(&self.names.other_roles) {
                other = true;
            } else if TITLES.contains(&name) {
                after_title = true;
            } else if subject && ["for", "the"].contains(&name) {
                // The inside of "Counsel for the defense".
            } else {
                break;
            }
            subject = true;
            possessive |= s;
            rest.next();
            if s {
                break;
            }
        }
        if !own && !other {
            // "She pointed out that …": another participant by pronoun, reported.
            let pronoun = words
                .first()
                .is_some_and(|w| ["he", "she"].contains(&w.as_str()));
            // "He also argues …": an adverb between the pronoun and its verb.
            let verb = words
                .iter()
                .skip(1)
                .find(|w| !ADVERBS.contains(&w.as_str()));
            return pronoun && verb.is_some_and(|w| REPORTING.contains(&w.as_str()));
        }
        // "Judge Okafor is saying …": a verb of saying in the progressive.
        if other
            && !own
            && !possessive
            && rest.next_if(|w| ["is", "was"].contains(w)).is_some()
            && let Some(verb) = rest.peek()
        {
            return REPORTING_PROGRESSIVE.contains(verb);
        }
        // "Dr. Nadia also states …": an adverb between the name and its verb.
        while rest.next_if(|w| ADVERBS.contains(w)).is_some() {}
        // "Olivia Owl has been considering …", "David Dove has expressed …": another's
        // name, then a perfect.
        if other && !own && !possessive && rest.next_if(|w| ["has", "had"].contains(w)).is_some() {
            // "… has already explained …"
            while rest.next_if(|w| ADVERBS.contains(w)).is_some() {}
            rest.next_if(|w| *w == "been");
            return rest.next().is_some_and(|verb| {
                REPORTING.contains(&verb) || REPORTING_PROGRESSIVE.contains(&verb)
            });
        }
        let Some(next) = rest.next() else {
            return false;
        };
        if possessive {
            return (own && POSSESSED.contains(&next))
                || (other && ["tone", "mood", "message"].contains(&next));
        }
        (own && !other && narrates_oneself_with(next))
            || (other && !own && REPORTING.contains(&next))
            || ((own || other) && GESTURES.contains(&next))
    }

    /// `question`: the sentence asks, and may quote what the turn takes up.
    pub(super) fn is_echo(&self, words: &[String], question: bool) -> bool {
        // Words glued together as the recent lines have them apart count as those words
        // (and a word a line has whole stays whole: either reading may be the echo).
        let parted: Vec<String> = words
            .iter()
            .flat_map(|w| match self.recent_glued.get(w) {
                Some(pair) => pair.to_vec(),
                None => vec![w.clone()],
            })
            .collect();
        self.echoes(words, question) || self.echoes(&parted, question)
    }

    /// Whether `words` are mostly 3-grams of the recent lines or of the instructions.
    fn echoes(&self, words: &[String], question: bool) -> bool {
        if words.len() < 3 {
            // Too short for 3-grams: only a whole repeated sentence of two words counts.
            return words.len() == 2 && self.recent_sentences.contains(&words.join(" "));
        }
        let grams: Vec<[String; 3]> = grams(words).collect();
        let quoted = |g: &[String; 3]| question && self.quotable.contains(g);
        // A statement answering the question just asked may restate it ("The slope of
        // the tangent line is 0."), if a third of it (two 3-grams at least) is its own.
        let own = grams
            .iter()
            .filter(|g| !self.recent.contains(*g) && !self.instructions.contains(*g))
            .count();
        let answers = !question && own >= 2 && own * 3 >= grams.len();
        let taken_up = |g: &[String; 3]| answers && self.asked.contains(g);
        let share = |known: &HashSet<[String; 3]>| {
            grams
                .iter()
                .filter(|g| known.contains(*g) && !quoted(g) && !taken_up(g))
                .count() as f64
                / grams.len() as f64
        };
        share(&self.recent) >= ECHO_SHARE || share(&self.instructions) >= ECHO_SHARE
    }

    /// "My name is Mia and I am a student in a spoken study session.", "I'm Mia.": a
    /// participant introducing itself to people it has been talking with (its persona
    /// recited, heard in a study session's third minute).
    pub(super) fn introduces_itself(&self, words: &[String]) -> bool {
        let own = |at: usize| words.get(at).is_some_and(|w| self.names.is_own(w, false));
        let starts =
            |head: &[&str]| words.len() > head.len() && words.iter().zip(head).all(|(w, h)| w == h);
        starts(&["my", "name", "is"])
            || (starts(&["i", "am"]) && own(2))
            || (starts(&["i'm"]) && own(1))
            || (starts(&["this", "is"]) && own(2))
    }

    /// "Ben?", "Oh, hello! Ms. Rivera?": names, titles and interjections only, calling
    /// someone without saying anything. A shortened name ("Ms. River") counts.
    pub(super) fn only_calls_someone(&self, words: &[String]) -> bool {
        let is_name = |w: &str| {
            w.chars().count() >= 3
                && self
                    .names
                    .others
                    .iter()
                    .chain(&self.names.own)
                    .any(|n| n.starts_with(w))
        };
        let mut named = false;
        for word in words {
            let title = TITLES.contains(&word.as_str());
            let call = ["oh", "hey", "hi", "hello", "um", "uh", "well", "so", "and"]
                .contains(&word.as_str());
            let name = is_name(word);
            if !(title || call || name) {
                return false;
            }
            named |= name;
        }
        named
    }

    /// "I'm Dr. Okafor", "my name is Ben", "this is Mia here" with another's name.
    /// A sentence that calls the speaker by its own name, at its opening ("Mia, you're
    /// welcome!" said by Mia) or as the whole of a clause after a word of reply ("Yes,
    /// Ms. Rivera!" said by Ms. Rivera): the model wrote another's reply to it.
    pub(super) fn calls_itself(&self, sentence: &str) -> bool {
        let is_own_name = |clause: &str| {
            let called = words(clause);
            !called.is_empty()
                && called.len() <= 3
                && called.iter().any(|w| self.names.own.contains(w))
                && called
                    .iter()
                    .all(|w| self.names.own.contains(w) || TITLES.contains(&w.as_str()))
        };
        let mut clauses = sentence.trim_start().split([',', '!', '?', ';', ':']);
        let Some(opening) = clauses.next() else {
            return false;
        };
        (sentence.contains(',') && is_own_name(opening))
            || (is_reply_word(opening) && clauses.next().is_some_and(is_own_name))
    }

    /// "As counsel for the prosecution, I believe …" said by the defense: a sentence that
    /// opens by speaking in another's name or role (names, roles and titles only before
    /// its comma; "As Ben said, …" only refers to him).
    fn speaks_as_another(&self, sentence: &str) -> bool {
        let Some((head, _)) = sentence.split_once(',') else {
            return false;
        };
        let head = words(head);
        let Some(("as", who)) = head
            .split_first()
            .map(|(first, rest)| (first.as_str(), rest))
        else {
            return false;
        };
        let is = |list: &[String], w: &str| list.iter().any(|n| n == w);
        let names_only = !who.is_empty()
            && who.iter().all(|w| {
                is(&self.names.others, w)
                    || is(&self.names.other_roles, w)
                    || is(&self.names.own, w)
                    || is(&self.names.own_roles, w)
                    || TITLES.contains(&w.as_str())
                    || ["counsel", "for", "the", "a", "an"].contains(&w.as_str())
            });
        let another = who
            .iter()
            .any(|w| is(&self.names.others, w) || is(&self.names.other_roles, w));
        let own = who
            .iter()
            .any(|w| is(&self.names.own, w) || is(&self.names.own_roles, w));
        names_only && another && !own
    }

    pub(super) fn presents_as_another(&self, sentence: &str) -> bool {
        if self.speaks_as_another(sentence) {
            return true;
        }
        let lower = sentence.to_lowercase();
        let raw: Vec<&str> = lower.split_whitespace().collect();
        for (i, pair) in raw.windows(2).enumerate() {
            let intro = match pair {
                ["i'm" | "i’m" | "im", _] => Some(i + 1),
                ["i", "am"] => Some(i + 2),
                ["name", "is"] if i > 0 && raw[i - 1] == "my" => Some(i + 2),
                ["this", "is"] if i == 0 => Some(i + 2),
                _ => None,
            };
            let Some(at) = intro else { continue };
            let mut next = raw.get(at..).unwrap_or_default().iter().map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric() && c != '.')
                    .to_owned()
            });
            let Some(mut first) = next.next() else {
                continue;
            };
            if TITLES.contains(&first.as_str()) {
                first = next.next().unwrap_or_default();
            }
            let first = first.trim_end_matches('.').to_owned();
            if self.names.others.contains(&first) && !self.names.own.contains(&first) {
                return true;
            }
        }
        false
    }
}

/// Words of saying: before a colon or a quote, they report what someone said.
const SAYING: &[&str] = &[
    "said",
    "says",
    "say",
    "asked",
    "asks",
    "ask",
    "answer",
    "answered",
    "answers",
    "replied",
    "replies",
    "reply",
    "response",
    "responded",
    // A narrator's verbs, before what they report ("…, Ms. Rivera explained: …").
    "explained",
    "noted",
    "stated",
    "added",
    "continued",
    "concluded",
    "remarked",
    "wrote",
    "suggested",
    "argued",
    "exclaimed",
    "insisted",
    "declared",
    "announced",
    "mentioned",
    "commented",
    "observed",
];

/// A sentence that reports speech: a word of saying or asking followed by a colon or an
/// opening quote ("The human asked: …", "Ms. Rivera's answer: …", "He just said “…”").
pub(super) fn reports_speech(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    lower
        .match_indices(|c: char| c == ':' || "\"“”«「".contains(c))
        .any(|(at, _)| {
            let before = lower[..at].trim_end();
            let word = before
                .rsplit(|c: char| !(c.is_alphanumeric() || c == '\''))
                .next()
                .unwrap_or("");
            SAYING.contains(&word)
        })
}

/// Whether `text` opens on a speaker and a verb of saying: one to three capitalised
/// words or a pronoun, then (past an adverb) "said", "asked", "argued" ….
fn names_a_speaker(text: &str) -> bool {
    let mut rest = text
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '.'))
        .filter(|w| !w.is_empty())
        .peekable();
    let pronoun = rest
        .next_if(|w| ["he", "she", "they"].contains(w))
        .is_some();
    let mut named = 0;
    while !pronoun
        && named < 3
        && rest
            .next_if(|w| w.starts_with(char::is_uppercase))
            .is_some()
    {
        named += 1;
    }
    if !pronoun && named == 0 {
        return false;
    }
    while rest.next_if(|w| ADVERBS.contains(w)).is_some() {}
    rest.next().is_some_and(|verb| {
        let verb = verb.trim_end_matches('.').to_lowercase();
        REPORTING.contains(&verb.as_str()) || SAYING.contains(&verb.as_str())
    })
}

/// "Yes", "Thank you", "Hello": a word of reply that a vocative may follow.
fn is_reply_word(clause: &str) -> bool {
    const REPLY_WORDS: &[&str] = &[
        "yes", "no", "thanks", "thank", "you", "sure", "okay", "ok", "right", "well", "hi",
        "hello", "indeed", "exactly",
    ];
    let words = words(clause);
    !words.is_empty() && words.len() <= 2 && words.iter().all(|w| REPLY_WORDS.contains(&w.as_str()))
}

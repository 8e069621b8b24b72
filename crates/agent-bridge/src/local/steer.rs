//! Steering while sampling: what the guard refuses most often is made unlikely before it
//! is sampled, so that a turn's tokens are spent on words that are said. A refused
//! sentence costs its tokens and, when every sentence is refused, a whole new attempt.
//!
//! The engine maps each word to the model's tokens (a word whose first token is not the
//! whole word is left alone: biasing a prefix such as "Th" would bend every "The").

use crate::PromptLine;
use crate::guard::{ASSENTS, TITLES, only_offers};
use conversation_quality::answers;
use text::words::{is_content_word, sentences, words};

/// Words that open the stock sentences the guard refuses as filler ("Sure, here's …",
/// "Great question!", "Absolutely.", "Oh, hello Mia!", "Sorry to interrupt."): made
/// unlikely where a sentence starts. Words that open real answers ("Yes, because …",
/// "Good examples are …") are not among them.
pub const STOCK_OPENERS: &[&str] = &[
    "Oh",
    "Sorry",
    "Sure",
    "Thank",
    "Thanks",
    "Great",
    "Absolutely",
    "Certainly",
    "Okay",
    "OK",
    "Alright",
    "Hi",
    "Hello",
    "Hey",
    "Welcome",
    "Indeed",
    "Glad",
];

/// Apologies for a confusion nobody had ("I apologize for any confusion caused
/// earlier.") and an assistant's refusals ("I'm sorry for any confusion, but I can't
/// assist with that request.", twice the first attempt of an answer to the human; "I'm
/// afraid I can't provide that."), the guard's most common refusals once stock openers
/// were steered against: they open on "I", which cannot be held against a reply, so
/// their words are, everywhere.
pub const APOLOGIES_AND_DECLINES: &[&str] = &[
    "apologize",
    "apologise",
    "apologies",
    "Apologies",
    "sorry",
    "assist",
    "afraid",
];

/// An assistant's offers of help ("I'm happy to help!", "Yes, I can help with that!",
/// "I can help you with that too!", "I'm here to help you learn calculus."): the first
/// sentence of most answers to the human the guard refused once apologies were steered
/// against. A word a tutor rarely needs otherwise, so steered against everywhere, less
/// hard than an apology.
pub const ASSISTANT_OFFERS: &[&str] = &["help", "happy"];

/// Markup a voice cannot say (the filter strips it; a model that starts a list, a
/// heading or a LaTeX formula then spends its turn on it): made unlikely everywhere.
pub const MARKUP: &[&str] = &[
    "*", "**", "#", "##", "###", "`", "```", "\\(", "\\[", "\\frac", "\\text",
];

/// How hard each is steered against, in logits (a bias, not a ban: a word the
/// conversation really needs can still come).
pub const OPENER_BIAS: f32 = -6.0;
pub const MARKUP_BIAS: f32 = -8.0;
pub const ECHO_START_BIAS: f32 = -3.0;
/// Against an offer of help: less than an apology, since "help" may be the topic's word.
pub const OFFER_BIAS: f32 = -4.0;
/// Against the first token of a refused sentence where it is sampled again (and of a
/// reply refused whole, in the next attempt): the same first token leads back towards
/// the same sentence, and to the same refusal.
pub const REFUSED_START_BIAS: f32 = -8.0;

/// Words that open a question: a turn that is to ask one is steered to start with one
/// (the guard refuses a statement there, and a refused first sentence costs an attempt).
pub const QUESTION_STARTS: &[&str] = &[
    "What", "How", "Why", "Can", "Could", "Is", "Does", "Do", "If", "When", "Would",
];
/// Strong enough that a turn that is to ask rarely opens on a long statement (a lead-in of
/// a few words before the question is still allowed, and still happens): at +2.5 the
/// first turn of every study session opened on "The slope of the tangent line …", 56
/// tokens refused for asking nothing before the second attempt asked.
pub const QUESTION_BIAS: f32 = 5.0;
/// Once a sentence of such a turn was refused for asking nothing, the next sentence is
/// all but made to start with a question word: another statement would cost the turn
/// another sentence's tokens, or a whole attempt.
pub const QUESTION_INSIST_BIAS: f32 = 8.0;

/// The human's words an answer is steered towards until it has taken one up: the guard
/// refuses a first sentence that takes up none of them, and a small model asked for a
/// derivative with numbers starts on the area under a curve as readily as on the
/// derivative. A nudge, not a script: the answer still picks which word and where.
pub const ANSWER_WORD_BIAS: f32 = 2.0;

/// Words of a human's line that say how it asks, not what about ("Sorry to interrupt,
/// can you show me …"): an answer starting on them takes up nothing.
const MANNER_WORDS: &[&str] = &[
    "sorry",
    "interrupt",
    "please",
    "thanks",
    "thank",
    "show",
    "tell",
    "explain",
    "actual",
    "actually",
    "really",
    "just",
    "again",
    "mean",
    "know",
    "think",
    "okay",
    "right",
    "wait",
    "example",
    "give",
];

/// How many of the last lines' first words a reply is steered not to start with.
pub const ECHO_START_LINES: usize = 3;

/// First words too common to hold against a reply ("The", "I", "So", …).
const COMMON_STARTS: &[&str] = &[
    "I", "The", "A", "An", "It", "It's", "This", "That", "So", "And", "But", "What", "How", "Why",
    "We", "You", "If", "In", "To", "Yes", "No", "Can", "Is", "Do", "Let's",
];

/// Where a word is steered against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Wherever a sentence starts.
    SentenceStart,
    /// Only as the reply's very first word.
    ReplyStart,
    /// Where a sentence starts, once a sentence was refused for asking no question.
    AfterNoQuestion,
    /// Everywhere.
    Anywhere,
    /// Everywhere, until the reply has taken up a word of the human's line it answers
    /// ([`takes_up`]).
    UntilAnswered,
}

/// One word to steer against.
#[derive(Debug, Clone, PartialEq)]
pub struct Steer {
    pub word: String,
    pub bias: f32,
    pub place: Place,
}

/// What a reply is steered against, given the conversation `lines` it follows (oldest
/// first): stock openers and markup, and the first words of the last lines
/// (a reply that starts like the line before it tends to repeat it); a turn that is
/// `asking` is steered towards starting with a question word, and all but made to once
/// a statement was refused; a turn `answering` the human's line is steered towards that
/// line's words until it has taken one up.
pub fn steering(lines: &[PromptLine], asking: bool, answering: Option<&str>) -> Vec<Steer> {
    let mut steer: Vec<Steer> = STOCK_OPENERS
        .iter()
        .map(|w| Steer {
            word: (*w).to_owned(),
            bias: OPENER_BIAS,
            place: Place::SentenceStart,
        })
        .chain(MARKUP.iter().map(|w| Steer {
            word: (*w).to_owned(),
            bias: MARKUP_BIAS,
            place: Place::Anywhere,
        }))
        .chain(APOLOGIES_AND_DECLINES.iter().map(|w| Steer {
            word: (*w).to_owned(),
            bias: OPENER_BIAS,
            place: Place::Anywhere,
        }))
        .chain(ASSISTANT_OFFERS.iter().map(|w| Steer {
            word: (*w).to_owned(),
            bias: OFFER_BIAS,
            place: Place::Anywhere,
        }))
        .collect();
    if asking {
        for (bias, place) in [
            (QUESTION_BIAS, Place::ReplyStart),
            (QUESTION_INSIST_BIAS, Place::AfterNoQuestion),
        ] {
            steer.extend(QUESTION_STARTS.iter().map(|w| Steer {
                word: (*w).to_owned(),
                bias,
                place,
            }));
        }
    }
    for word in answering.map(answer_words).unwrap_or_default() {
        steer.push(Steer {
            word,
            bias: ANSWER_WORD_BIAS,
            place: Place::UntilAnswered,
        });
    }
    for line in lines.iter().rev().take(ECHO_START_LINES) {
        let Some(first) = line.text.split_whitespace().next() else {
            continue;
        };
        let word = first.trim_end_matches([',', '.', '!', '?', ';', ':']);
        if word.is_empty()
            || COMMON_STARTS.iter().any(|c| c.eq_ignore_ascii_case(word))
            || steer.iter().any(|s| s.word == word)
        {
            continue;
        }
        steer.push(Steer {
            word: word.to_owned(),
            bias: ECHO_START_BIAS,
            place: Place::ReplyStart,
        });
    }
    steer
}

/// Against a sentence that opens on a participant's name. With the shipped model that is
/// a narrator's line ("Olivia Owl thinks there's a legal basis …", "David Dove asked …",
/// "Hawk just said: …"): 6 of the 13 sentences the guard refused in an auction debate,
/// while none of the sentences it let through in that run and a study session opened on
/// a participant's name but one, a narration too. A participant addressed by name can
/// still open a sentence ("Mia, try x = 2."): a bias, not a ban.
pub const NAME_START_BIAS: f32 = -4.0;

/// The words of the participants' names, steered against where a sentence starts: the
/// speakers of `lines` and the participant's `own` names (as written and as spoken). A
/// title ("Ms. Rivera", the guard's [`TITLES`]) is left alone: the word after its dot
/// counts as a sentence's start already.
pub fn against_names<'a>(
    lines: &'a [PromptLine],
    own: impl IntoIterator<Item = &'a str>,
) -> Vec<Steer> {
    let names = lines.iter().map(|l| l.speaker.as_str()).chain(own);
    let mut words: Vec<String> = Vec::new();
    for word in names.flat_map(str::split_whitespace) {
        let word = word.trim_matches(|c: char| !c.is_alphanumeric());
        if word.chars().count() < 2
            || !word.starts_with(char::is_uppercase)
            || TITLES.contains(&word.to_lowercase().as_str())
            || COMMON_STARTS.iter().any(|c| c.eq_ignore_ascii_case(word))
            || words.iter().any(|w| w == word)
        {
            continue;
        }
        words.push(word.to_owned());
    }
    words
        .into_iter()
        .map(|word| Steer {
            word,
            bias: NAME_START_BIAS,
            place: Place::SentenceStart,
        })
        .collect()
}

/// The spellings of the words of the human's `line` an answer is steered towards: its
/// content words but those of manner, as said, in lower case and capitalized.
fn answer_words(line: &str) -> Vec<String> {
    let mut spellings: Vec<String> = Vec::new();
    for word in line
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .map(|w| w.trim_matches('\''))
    {
        let lower = word.to_lowercase();
        if !is_content_word(&lower) || MANNER_WORDS.contains(&lower.as_str()) {
            continue;
        }
        let mut chars = lower.chars();
        let capital: String = chars
            .next()
            .map(|c| c.to_uppercase().chain(chars).collect())
            .unwrap_or_default();
        for spelling in [word.to_owned(), lower, capital] {
            if !spellings.contains(&spelling) {
                spellings.push(spelling);
            }
        }
    }
    spellings
}

/// Whether `said` takes up a content word (by stem) of the human's line `asked`, as the
/// guard and the quality benchmark count an answer that addresses the human.
pub fn takes_up(asked: &str, said: &str) -> bool {
    answers::addresses(&words(asked), &words(said))
}

/// Whether `said`, a reply so far, has answered the human's line `asked`: one of its
/// sentences takes up the line's words and is more than an offer to answer
/// ([`only_offers`]: "I can show you a derivative with actual numbers!").
pub fn has_answered(asked: &str, said: &str) -> bool {
    // The reply as written may open on its speaker's label ("Ms. Rivera: Sure, …").
    let said = said.trim();
    let said = super::spoken::strip_label(said).unwrap_or(said);
    sentences(said)
        .into_iter()
        .any(|sentence| !only_offers(sentence) && takes_up(asked, sentence))
}

/// How a reply opens a promise to say something ("Let me explain …", "I'll show you …").
const PROMISES: &[&str] = &[
    "let me",
    "i'll",
    "i will",
    "i can",
    "i'd like to",
    "allow me",
    "we'll",
    "we will",
];

/// Pushed against ending a reply that has only promised so far: "Let me explain that
/// you're right." was a tutor's whole first answer, in every study session, and the
/// listener heard the explanation promised and never given.
pub const END_AFTER_PROMISE_BIAS: f32 = -10.0;

/// Whether `said`, a reply so far, has only promised to say something: a sentence that
/// opens with a promise ("Let me explain that you're right."), with nothing else beside
/// it but a speaker label or a few words of greeting ("Ms. Rivera: Yes, Ben!").
pub fn only_promises(said: &str) -> bool {
    let said = said.trim();
    let said = super::spoken::strip_label(said).unwrap_or(said);
    let mut promised = false;
    for sentence in sentences(said) {
        let sentence = sentence.to_lowercase();
        // "Yes, I can explain why …": the promise behind a word of assent.
        let sentence = match sentence.split_once(", ") {
            Some((first, rest)) if ASSENTS.contains(&first) => rest,
            _ => sentence.as_str(),
        };
        if PROMISES.iter().any(|p| {
            sentence
                .strip_prefix(p)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
        }) {
            promised = true;
        } else if sentence.split_whitespace().count() > 3 {
            return false;
        }
    }
    promised
}

/// Whether `said`, a reply so far, stops short of what it announced: it has only
/// promised ([`only_promises`]), or it ends on a colon, a lead-in whose substance has not
/// come ("The derivative of y is equal to:", "Let's start by discussing derivatives:",
/// two tutor's lines of one study session, each the whole of it: the model ended the
/// line there and wrote the next speaker's label). Its end is held off as a promise's is.
pub fn stops_short(said: &str) -> bool {
    ends_on_lead_in(said) || only_promises(said)
}

/// Whether `said`, a reply so far, ends on a colon: its end there is not taken at all
/// ([`END_AFTER_LEAD_IN_BIAS`]).
pub fn ends_on_lead_in(said: &str) -> bool {
    said.trim_end().ends_with([':', '：'])
}

/// Whether a token's `piece` puts a colon and then a line break (":\n", ":\n\n", one
/// token in Qwen's vocabulary): a lead-in ending its line, which [`ends_on_lead_in`] cannot
/// see coming since the colon comes with the break. Shut like a reply's end after a colon.
pub fn is_colon_break(piece: &str) -> bool {
    piece
        .rfind([':', '：'])
        .map(|at| &piece[at..])
        .and_then(|rest| rest.strip_prefix(':').or_else(|| rest.strip_prefix('：')))
        .is_some_and(|after| after.contains('\n') && after.trim().is_empty())
}

/// Pushed against ending a reply on its colon, where nothing can follow: pushed only as
/// hard as a promise's end, the model still ended there ("Let's proceed with your
/// instruction:" was a tutor's whole line in a study session, its pleasantry before it
/// refused), and a lead-in alone is never what the listener should hear.
pub const END_AFTER_LEAD_IN_BIAS: f32 = -100.0;

/// Stock replies of two words whose first word is too common to steer against alone
/// ("You're welcome!", "You're correct!", "No problem!", "No worries!", "Of course!",
/// "That's right!"): the guard refused them as filler about once in every four turns of
/// a study session. Their second word is steered against right after their first opens
/// a sentence; "You're looking at …", "No one …", "Of all …" stay free.
pub const STOCK_SECOND_WORDS: &[(&str, &[&str])] = &[
    ("You're", &["welcome", "correct", "right", "absolutely"]),
    ("No", &["problem", "worries"]),
    ("Of", &["course"]),
    ("That's", &["right", "correct"]),
];

/// How hard a stock reply's second word is steered against.
pub const STOCK_SECOND_WORD_BIAS: f32 = -6.0;

/// The first word of a [`STOCK_SECOND_WORDS`] pair when it is all the sentence under way
/// has said so far (its second word is next), else `None`.
pub fn stock_opener_so_far(said: &str) -> Option<&'static str> {
    let trimmed = said.trim_end();
    if trimmed.len() == said.len() {
        // The word may still go on ("No" → "Nothing"): only after its space.
        return None;
    }
    // The text after the last sentence end (a mark may be several bytes long: "。").
    let sentence = trimmed
        .rsplit(['.', '?', '!', '。', '？', '！', '\n'])
        .next()
        .unwrap_or_default()
        .trim();
    STOCK_SECOND_WORDS
        .iter()
        .map(|(first, _)| *first)
        .find(|first| sentence == *first || sentence == first.replace('\'', "’"))
}

/// Whether the next token of a reply that said `said` so far starts a sentence.
pub fn at_sentence_start(said: &str) -> bool {
    let said = said.trim_end();
    said.is_empty() || said.ends_with(['.', '?', '!', '。', '？', '！', '\n'])
}

/// Which of a reply's sentence starts (`starts`: offsets into `raw`, in order, the first
/// the reply's own) the sentence `refused` began at. A sentence is judged once the word
/// after it is in, so the latest start is often the next sentence's; and an abbreviation
/// ("Ms.") makes a start inside a sentence. It is the latest start whose text holds the
/// refused sentence's first words; else the latest with more than its first word after
/// it.
pub fn refused_sentence_start(raw: &str, starts: &[usize], refused: &str) -> usize {
    let letters = |text: &str| -> String {
        text.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let key = letters(&refused.split_whitespace().take(3).collect::<String>());
    let text_at = |at: usize| raw.get(at..).unwrap_or_default();
    let latest = |holds: &dyn Fn(&str) -> bool| starts.iter().rposition(|&at| holds(text_at(at)));
    latest(&|text| !key.is_empty() && letters(text).contains(&key))
        .or_else(|| latest(&|text| text.split_whitespace().nth(1).is_some()))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_sentence_is_found_where_it_began() {
        // Judged when the next sentence's first word came: the latest start is that one's.
        let raw = "It is one. Yes, I'm ready now? Or";
        let starts = [0, 10, 30];
        assert_eq!(
            refused_sentence_start(raw, &starts, "Yes, I'm ready now?"),
            1
        );
        // An abbreviation made a start inside the refused sentence.
        let raw = "Ms. Rivera asked: \"Is it four? Or";
        let starts = [0, 3, 30];
        assert_eq!(refused_sentence_start(raw, &starts, raw), 0);
        // A label the filter took off the reply's head is still found.
        let raw = "Mike: The slope is two. So";
        assert_eq!(
            refused_sentence_start(raw, &[0, 23], "The slope is two."),
            0
        );
        // Words written otherwise (a formula in words): the start before the next word.
        let raw = "It is 6x^2. Then";
        assert_eq!(refused_sentence_start(raw, &[0, 11], "Six x squared."), 0);
        assert_eq!(refused_sentence_start(raw, &[0], ""), 0);
    }

    #[test]
    fn participants_names_are_steered_against_where_a_sentence_starts() {
        let lines = [
            PromptLine::new("Harriet Hawk", "Cars must go."),
            PromptLine::new("Ms. Rivera", "The slope is two."),
            PromptLine::new("human", "Why?"),
            PromptLine::new("Harriet Hawk", "Because."),
        ];
        let steer = against_names(&lines, ["David Dove", "dove"]);
        let words: Vec<&str> = steer.iter().map(|s| s.word.as_str()).collect();
        // Each once; no title, no word in lower case (the human's label, an id).
        assert_eq!(words, ["Harriet", "Hawk", "Rivera", "David", "Dove"]);
        assert!(
            steer
                .iter()
                .all(|s| s.place == Place::SentenceStart && s.bias == NAME_START_BIAS)
        );
        assert!(against_names(&[], []).is_empty());
    }

    #[test]
    fn stock_openers_and_markup_are_steered_against_where_they_do_harm() {
        let steer = steering(&[], false, None);
        assert!(!steer.iter().any(|s| s.word == "What"));
        let asking = steering(&[], true, None);
        let insisted = |w: &str| {
            asking
                .iter()
                .find(|s| s.word == w && s.place == Place::AfterNoQuestion)
                .map(|s| s.bias)
        };
        assert!(insisted("How").unwrap() > QUESTION_BIAS);
        assert_eq!(insisted("Sure"), None);
        assert!(
            steer
                .iter()
                .any(|s| s.word == "\\(" && s.place == Place::Anywhere)
        );
        assert!(
            steering(&[], true, None)
                .iter()
                .any(|s| s.word == "What" && s.bias > 0.0 && s.place == Place::ReplyStart)
        );
        let sure = steer.iter().find(|s| s.word == "Sure").unwrap();
        assert_eq!(sure.place, Place::SentenceStart);
        let star = steer.iter().find(|s| s.word == "**").unwrap();
        assert_eq!(star.place, Place::Anywhere);
        for word in ["apologize", "sorry", "assist"] {
            let apology = steer.iter().find(|s| s.word == word).unwrap();
            assert_eq!(
                (apology.place, apology.bias),
                (Place::Anywhere, OPENER_BIAS)
            );
        }
        let help = steer.iter().find(|s| s.word == "help").unwrap();
        assert_eq!((help.place, help.bias), (Place::Anywhere, OFFER_BIAS));
        assert!(steer.iter().all(|s| s.bias < 0.0));
        assert!(
            asking
                .iter()
                .filter(|s| s.bias > 0.0)
                .all(|s| QUESTION_STARTS.contains(&s.word.as_str()))
        );
        assert!(!steer.iter().any(|s| s.word == "Yes"));
    }

    #[test]
    fn a_reply_is_steered_away_from_starting_like_the_last_lines() {
        let lines = [
            PromptLine::new("student1", "Derivatives measure change."),
            PromptLine::new("tutor", "Exactly, the slope."),
            PromptLine::new("student2", "The tangent line touches once."),
        ];
        let words: Vec<String> = steering(&lines, false, None)
            .into_iter()
            .filter(|s| s.place == Place::ReplyStart)
            .map(|s| s.word)
            .collect();
        assert_eq!(words, ["Exactly", "Derivatives"]);
    }

    #[test]
    fn an_answer_is_steered_towards_the_humans_words_not_their_manner() {
        let asked = "Sorry to interrupt. Can you show me a derivative with actual numbers?";
        let towards: Vec<String> = steering(&[], false, Some(asked))
            .into_iter()
            .filter(|s| s.place == Place::UntilAnswered)
            .inspect(|s| assert!(s.bias > 0.0))
            .map(|s| s.word)
            .collect();
        assert!(towards.contains(&"derivative".to_owned()), "{towards:?}");
        assert!(towards.contains(&"Derivative".to_owned()), "{towards:?}");
        assert!(towards.contains(&"numbers".to_owned()), "{towards:?}");
        for manner in [
            "Sorry",
            "sorry",
            "interrupt",
            "show",
            "actual",
            "Can",
            "you",
        ] {
            assert!(
                !towards.contains(&manner.to_owned()),
                "{manner}: {towards:?}"
            );
        }
        assert!(takes_up(asked, "The derivative of x squared at 3 is 6."));
        assert!(!takes_up(asked, "Let's consider the area under the curve."));
        assert!(
            steering(&[], false, Some("Why is it so?"))
                .iter()
                .all(|s| s.place != Place::UntilAnswered)
        );
    }

    #[test]
    fn a_reply_that_only_promised_is_told_apart() {
        for promise in [
            "Let me explain that you're right.",
            "Ms. Rivera: Yes, Ben! Let me explain that you're right.",
            "Sure. I'll show you how it works.",
            "Let me think",
            // A study session's whole line, to a student who asked.
            "Yes, I can explain why the derivative is not equal to a limit.",
        ] {
            assert!(only_promises(promise), "{promise}");
        }
        for said in [
            "",
            "Yes, Ben!",
            "Let me explain. The slope of the tangent line is the derivative.",
            "The derivative of x squared is two x.",
            "Letting go of the limit, the slope is six.",
        ] {
            assert!(!only_promises(said), "{said}");
        }
    }

    #[test]
    fn a_colon_and_a_line_break_in_one_piece_is_a_colon_break() {
        for piece in [":\n", ":\n\n", " example:\n", "：\n", ": \n"] {
            assert!(is_colon_break(piece), "{piece:?}");
        }
        for piece in [":", "\n", ": x\n", "a\n", ".\n", ":\nThe"] {
            assert!(!is_colon_break(piece), "{piece:?}");
        }
    }

    #[test]
    fn a_reply_that_ends_on_its_lead_in_stops_short() {
        for said in [
            "Ms. Rivera: The derivative of y is equal to:",
            "Let's start by discussing derivatives: ",
            "Ms. Rivera:",
            "Let me explain that you're right.",
        ] {
            assert!(stops_short(said), "{said}");
        }
        for said in [
            "",
            "The derivative of y is equal to: two x.",
            "Ratio: one to three",
            "Yes, Ben!",
        ] {
            assert!(!stops_short(said), "{said}");
        }
    }

    #[test]
    fn a_stock_reply_s_first_word_is_found_when_it_is_all_the_sentence_said() {
        assert_eq!(stock_opener_so_far("You're "), Some("You're"));
        assert_eq!(stock_opener_so_far("The slope is six. No "), Some("No"));
        assert_eq!(stock_opener_so_far("Right!\nOf "), Some("Of"));
        // The word may go on, or more than it was said.
        assert_eq!(stock_opener_so_far("No"), None);
        assert_eq!(stock_opener_so_far("No one "), None);
        assert_eq!(stock_opener_so_far("I said no "), None);
        assert_eq!(stock_opener_so_far(""), None);
        // After a mark of several bytes too, and never a panic there.
        assert_eq!(stock_opener_so_far("斜率是六。 "), None);
        assert_eq!(stock_opener_so_far("斜率是六。No "), Some("No"));
        assert_eq!(stock_opener_so_far("好！ 。 "), None);
        for (first, seconds) in STOCK_SECOND_WORDS {
            assert!(!seconds.is_empty(), "{first}");
        }
    }

    proptest::proptest! {
        /// Sampling asks this after every token of any text the model writes.
        #[test]
        fn a_stock_reply_s_first_word_is_looked_for_in_any_text_without_a_panic(said in "\\PC{0,40}") {
            let _ = stock_opener_so_far(&said);
            let _ = stock_opener_so_far(&format!("{said} "));
        }
    }

    #[test]
    fn sentence_starts_are_found_after_a_stop() {
        assert!(at_sentence_start(""));
        assert!(at_sentence_start("It grows. "));
        assert!(at_sentence_start("Why?"));
        assert!(!at_sentence_start("It grows"));
        assert!(!at_sentence_start("It grows,"));
    }
}

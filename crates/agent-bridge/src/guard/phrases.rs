//! The phrases a participant must not say: assistant lines, narration, reported speech, and the titles that end no sentence; and how an answer may set up
//! the example it was asked for.

use text::words::words;

/// What an assistant says, never a participant of a conversation: refused like filler.
pub const ASSISTANT_LINES: &[&str] = &[
    "i'm sorry but i can't",
    "i am sorry but i can't",
    "i'm sorry but i cannot",
    "sorry but i can't",
    "i can't assist",
    "i cannot assist",
    "not able to assist",
    "unable to assist",
    "can't help with that",
    "cannot help with that",
    "not able to help with that",
    "can't fulfill",
    "cannot fulfill",
    "can't comply",
    "cannot comply",
    "apologize but",
    "don't have enough context",
    "don't have enough information",
    "do not have enough context",
    "do not have enough information",
    "provide more details",
    "provide more context",
    "provide more information",
    "as an ai",
    "as a language model",
    "how can i help",
    "how can i assist",
    "is there anything else",
    // "I'm here to help", and its kin heard in study sessions: "I'm here to provide you
    // with a simple, yet interesting conversation", "I'm here to listen!", "I'm here to
    // discuss".
    "i'm here to",
    "i am here to",
    "sorry for any confusion",
    "sorry for the confusion",
    "sorry for the misunderstanding",
    "sorry for any misunderstanding",
    "apologize for",
    // A debater's whole line (2026-12-01): "I'm unable to engage in discussions
    // regarding political matters due to its sensitive nature. My primary function is
    // to provide advice on legal issues …", and the next one telling the judge the same.
    "unable to engage",
    "not able to engage",
    "cannot engage in",
    "can't engage in",
    "not engage in discussions",
    "my primary function",
    // "I'm glad you found the information helpful.", a student's whole line.
    "glad you found",
    "hope you found",
];

/// Answers to the director's "Your turn" and an assistant's sign-off: refused in a short
/// sentence only ("Yes, I'm ready.", "I'm glad I could help."), where they are all it
/// says; "I'm ready to invest if churn stays low" says something.
pub const DIRECTOR_REPLIES: &[&str] = &["i'm ready", "i am ready", "glad i could help"];

/// A verdict on someone's words and nothing more ("Ms. Rivera's statement is correct!",
/// "I just said that Rivera's statement was correct!", "Ms. Rivera's response was
/// correct!"): what was said, a verb, then the verdict, perhaps with an adverb between;
/// refused in a short sentence only ([`VERDICT_WORDS`]); one that goes on to say why
/// says something.
pub const VERDICT_SUBJECTS: &[&str] = &[
    "statement",
    "answer",
    "point",
    "response",
    "reply",
    "explanation",
    "reasoning",
    "claim",
    "definition",
    "example",
    "idea",
    "solution",
    "calculation",
];
pub const VERDICT_VERBS: &[&str] = &["is", "was", "seems", "sounds"];
pub const VERDICT_ADVERBS: &[&str] = &[
    "absolutely",
    "completely",
    "totally",
    "perfectly",
    "entirely",
    "quite",
    "very",
    "not",
    "100%",
];
pub const VERDICTS: &[&str] = &[
    "correct",
    "right",
    "true",
    "accurate",
    "valid",
    "wrong",
    "incorrect",
    "spot-on",
];

/// Whether `words` (lower case) are a bare verdict on someone's words (see
/// [`VERDICT_SUBJECTS`]).
pub fn is_bare_verdict(words: &[String]) -> bool {
    let is =
        |list: &[&str], word: Option<&String>| word.is_some_and(|w| list.contains(&w.as_str()));
    words.len() <= VERDICT_WORDS
        && (0..words.len()).any(|i| {
            is(VERDICT_SUBJECTS, words.get(i))
                && is(VERDICT_VERBS, words.get(i + 1))
                && (is(VERDICTS, words.get(i + 2))
                    || (is(VERDICT_ADVERBS, words.get(i + 2)) && is(VERDICTS, words.get(i + 3))))
        })
}

/// The longest sentence, in words, that can be a bare verdict ([`is_bare_verdict`]).
pub const VERDICT_WORDS: usize = 9;

/// The longest sentence, in words, that [`DIRECTOR_REPLIES`] can make a bare reply.
pub const DIRECTOR_REPLY_WORDS: usize = 6;

/// Words that may stand between a name and its verb ("Dr. Nadia also states").
pub(super) const ADVERBS: &[&str] = &[
    "also", "then", "now", "clearly", "further", "again", "still", "already",
];

/// What the speaker's own name may possess in a narrator's line ("Tomás Lindqvist's
/// position: …", said by Tomás).
pub(super) const POSSESSED: &[&str] = &[
    "position",
    "point",
    "statement",
    "claim",
    "closing",
    "opening",
    "view",
    "argument",
    "answer",
    "question",
    "last",
    "final",
    "tone",
    "mood",
    "message",
    "response",
    "reply",
    "proposal",
    "suggestion",
    "stance",
];

/// Verbs after another participant's name that make a sentence report on them.
pub(super) const REPORTING: &[&str] = &[
    "said",
    "says",
    "asked",
    "asks",
    "stated",
    "states",
    "suggested",
    "suggests",
    "mentioned",
    "mentions",
    "discussed",
    "discusses",
    "emphasized",
    "emphasised",
    "emphasizes",
    "argued",
    "argues",
    "thinks",
    "believes",
    "agrees",
    "agreed",
    "disagrees",
    "disagreed",
    "expressed",
    "explained",
    "explains",
    "noted",
    "notes",
    "pointed",
    "just",
    "encouraged",
    "encourages",
    "claims",
    "claimed",
    "wants",
    "wanted",
    "felt",
    "feels",
    "acknowledged",
    "acknowledges",
    "insists",
    "insisted",
    "replied",
    "replies",
    "responded",
    "responds",
    "points",
    "countered",
    "counters",
    "called",
    "concluded",
    "concludes",
    "thought",
    "believed",
    "decided",
    "considered",
    "clarified",
    "clarifies",
    "confirmed",
    "confirms",
    "highlights",
    "highlighted",
    "stresses",
    "stressed",
];

/// The same verbs in the progressive, after "is", "was" or "has been" ("Olivia Owl has
/// been considering …").
pub(super) const REPORTING_PROGRESSIVE: &[&str] = &[
    "saying",
    "asking",
    "suggesting",
    "arguing",
    "claiming",
    "stating",
    "thinking",
    "considering",
    "proposing",
    "telling",
    "pointing",
    "explaining",
];

/// Verbs after the speaker's own name that make a sentence narrate it in the third
/// person besides those of [`REPORTING`] ("Harriet Hawk has …", "Olivia Owl will …"):
/// said of oneself, they tell a story about the speaker ([`narrates_oneself_with`]).
pub(super) const NARRATING_ONLY: &[&str] = &[
    "has", "had", "is", "was", "will", "would", "can", "could", "knows", "hopes", "calls", "rules",
    "ruled", "finds", "proposed", "proposes",
];

/// Whether `verb` after the speaker's own name narrates the speaker: a verb of
/// [`REPORTING`] or of [`NARRATING_ONLY`].
pub(super) fn narrates_oneself_with(verb: &str) -> bool {
    REPORTING.contains(&verb) || NARRATING_ONLY.contains(&verb)
}

/// Gestures after anyone's name, told as a story tells them ("Dove nodded and agreed"):
/// said of a participant by a participant, narration, not speech.
pub(super) const GESTURES: &[&str] = &[
    "nodded", "nods", "smiled", "smiles", "laughed", "sighed", "shrugged", "frowned", "grinned",
];

/// How many words a statement before the question of an asking turn may have.
pub const LEAD_IN_WORDS: usize = 6;

/// Words of a human's line that ask for an example or for numbers ("Can you show me a
/// derivative with actual numbers?", "Give me an example").
pub const EXAMPLE_REQUESTS: &[&str] = &[
    "example",
    "examples",
    "instance",
    "number",
    "numbers",
    "numeric",
    "numerical",
    "concrete",
];

/// How a sentence sets up an example ("Let's say f(x) = x squared.", "Suppose x is 3.").
const EXAMPLE_LEADS: &[&str] = &[
    "let's say",
    "let us say",
    "let's take",
    "let's use",
    "let",
    "say",
    "suppose",
    "take",
    "consider",
    "imagine",
    "for example",
    "for instance",
];

/// Words that make a sentence a formula or a figure when it holds no digit or `=`.
const FORMULA_WORDS: &[&str] = &["squared", "cubed", "plus", "minus", "times"];

/// Whether `sentence` sets up an example with a figure or a formula ("Let's say f(x) =
/// x squared."): an answer to a request for an example or numbers may start so, though it
/// takes up none of the request's words (the guard refused that opening as unanswered,
/// and the answer waited seconds for another attempt). "Let me look at the agenda first."
/// holds no figure and sets up nothing; "Let me explain it in 2 steps." only promises.
pub fn sets_up_example(sentence: &str) -> bool {
    let lower = sentence.trim_start().to_lowercase();
    // "Let x be 3." sets one up; "Let me explain it in 2 steps." only promises.
    let leads = EXAMPLE_LEADS.iter().any(|lead| {
        lower.strip_prefix(lead).is_some_and(|rest| {
            rest.starts_with([' ', ','])
                && !(*lead == "let" && matches!(rest.split_whitespace().next(), Some("me" | "us")))
        })
    });
    let words = words(&lower);
    let figure = lower.contains(|c: char| c.is_ascii_digit() || c == '=')
        || words.iter().any(|w| FORMULA_WORDS.contains(&w.as_str()));
    leads && figure
}

/// Verbs with which a speaker offers to answer rather than answers ("I can explain …",
/// "Mr. River could definitely provide a derivative with actual numbers!").
const OFFERING_VERBS: &[&str] = &[
    "provide",
    "show",
    "explain",
    "give",
    "walk",
    "demonstrate",
    "help",
    "tell",
    "share",
    "break",
    "go",
];

/// Words between an offer's modal and its verb ("could definitely provide").
const OFFER_ADVERBS: &[&str] = &["definitely", "certainly", "gladly", "also", "surely", "now"];

/// Words of assent an offer or a promise may stand behind ("Sure, I can show you …",
/// "Yes, I can explain why …").
pub const ASSENTS: &[&str] = &[
    "sure",
    "yes",
    "okay",
    "ok",
    "well",
    "so",
    "certainly",
    "absolutely",
];

/// Whether `sentence` only offers or promises to answer: "Let me explain it in two
/// steps.", "I'll show you.", "Mr. River could definitely provide a derivative with actual
/// numbers!" (heard as a tutor's whole answer to "Can you show me a derivative with
/// actual numbers?": it takes up the human's words and says nothing of them). A
/// sentence with a figure or a formula is no mere offer.
pub fn only_offers(sentence: &str) -> bool {
    if sentence.contains(|c: char| c.is_ascii_digit() || c == '=') {
        return false;
    }
    // The words as written: who offers is told by their case.
    let written: Vec<&str> = sentence
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’'))
        .filter(|w| !w.is_empty())
        .collect();
    if written.len() > 16 {
        return false;
    }
    let lower: Vec<String> = written
        .iter()
        .map(|w| w.to_lowercase().replace('’', "'"))
        .collect();
    let from = usize::from(lower.first().is_some_and(|w| ASSENTS.contains(&w.as_str())));
    let (written, lower) = (&written[from..], &lower[from..]);
    let promise = matches!(lower, [first, second, ..] if first == "let" && (second == "me" || second == "us"))
        || lower
            .first()
            .is_some_and(|w| ["i'll", "we'll"].contains(&w.as_str()));
    if promise {
        return true;
    }
    // Who offers: "I", "we", or a name (each word capitalized: "Mr. River"), not a thing
    // ("The derivative can show how fast it changes." says something).
    let offers = |subject: &[&str]| match subject {
        [one] if ["I", "We", "we"].contains(one) => true,
        _ => {
            subject.iter().all(|w| w.starts_with(char::is_uppercase))
                && !subject.iter().any(|w| {
                    [
                        "the", "a", "an", "this", "that", "it", "you", "my", "our", "your", "they",
                    ]
                    .contains(&w.to_lowercase().as_str())
                })
        }
    };
    // A subject of at most three words, a modal, perhaps an adverb, an offering verb.
    (1..=3.min(lower.len())).any(|at| {
        let rest = &lower[at..];
        let modal = rest
            .first()
            .is_some_and(|w| ["can", "could", "will", "would"].contains(&w.as_str()));
        let verb = rest
            .iter()
            .skip(1)
            .find(|w| !OFFER_ADVERBS.contains(&w.as_str()));
        modal
            && verb.is_some_and(|v| OFFERING_VERBS.contains(&v.as_str()))
            && offers(&written[..at])
    })
}

/// Titles that make the next words a name (in lower case).
pub const TITLES: &[&str] = &[
    "dr",
    "dr.",
    "doctor",
    "prof",
    "prof.",
    "professor",
    "ms",
    "ms.",
    "mr",
    "mr.",
    "mrs",
    "mrs.",
    "judge",
    "counsel",
];

//! The roundtable moderator's lines, so that it can speak without a model.
//!
//! The lines live in a phrase library in the conductors' one format
//! ([`conductor::phrases`]), English and Chinese: the built-in one
//! (`builtin-phrases.md`) under whatever file the user gives (`PHRASES`). Lines are
//! templates with placeholders (`{name}`, `{names}`, `{topic}`, `{moderator}`, ...),
//! filled in a single pass (a topic that itself contains `{name}` stays as written).
//! Where a kind has several variants, the caller passes a counter and the variant is
//! `counter % len`, which keeps runs reproducible while avoiding the same sentence twice
//! in a row. Joining names and ending the topic's sentence are grammar, kept here.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

pub use conductor::phrases::{Language, LoadReport, PhraseWarning, fill};

use crate::scenario::PhaseType;

/// What a moderator line is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    Opening,
    Question,
    Call,
    Summary,
    Transition,
    Warning,
    Closing,
}

impl LineKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LineKind::Opening => "opening",
            LineKind::Question => "question",
            LineKind::Call => "call",
            LineKind::Summary => "summary",
            LineKind::Transition => "transition",
            LineKind::Warning => "warning",
            LineKind::Closing => "closing",
        }
    }
}

/// The kinds of line in a roundtable phrase library (its `## kind` headings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Phrase {
    /// The opening line when the topic is a question.
    OpeningQuestion,
    /// The opening line when the topic is a subject.
    OpeningSubject,
    /// The opening's last sentence (`{next}`) when the first phase is statements.
    NextStatements,
    /// ... when the first phase is the closing statements.
    NextClosing,
    /// ... when the first phase is a discussion.
    NextOpenFloor,
    /// Back into free discussion after a rollback.
    TransitionReopen,
    TransitionOpening,
    TransitionFreeDiscussion,
    TransitionFocusedConflict,
    TransitionConvergence,
    TransitionClosing,
    /// Calling on the first speaker of the opening statements.
    CallFirst,
    CallOpening,
    /// Calling on someone during free discussion or a focused conflict.
    CallDiscussion,
    CallConvergence,
    CallClosing,
    /// A question to everyone in the opening or closing statements.
    QuestionStatements,
    QuestionFreeDiscussion,
    QuestionFocusedConflict,
    QuestionConvergence,
    Warning,
    Closing,
    InstructionOpening,
    InstructionFreeDiscussion,
    InstructionFocusedConflict,
    InstructionConvergence,
    InstructionClosing,
    /// Wraps the instruction of a panelist cutting in on another.
    InstructionCuttingIn,
    /// Wraps the instruction of a panelist called on by name.
    InstructionCalled,
    /// Wraps the instruction of a panelist answering the human's words.
    InstructionAnsweringHuman,
}

/// Every kind and its heading, in the order a library file lists them.
const KINDS: &[(Phrase, &str)] = &[
    (Phrase::OpeningQuestion, "opening.question"),
    (Phrase::OpeningSubject, "opening.subject"),
    (Phrase::NextStatements, "opening.next.statements"),
    (Phrase::NextClosing, "opening.next.closing"),
    (Phrase::NextOpenFloor, "opening.next.open-floor"),
    (Phrase::TransitionReopen, "transition.reopen"),
    (Phrase::TransitionOpening, "transition.opening"),
    (
        Phrase::TransitionFreeDiscussion,
        "transition.free-discussion",
    ),
    (
        Phrase::TransitionFocusedConflict,
        "transition.focused-conflict",
    ),
    (Phrase::TransitionConvergence, "transition.convergence"),
    (Phrase::TransitionClosing, "transition.closing"),
    (Phrase::CallFirst, "call.first"),
    (Phrase::CallOpening, "call.opening"),
    (Phrase::CallDiscussion, "call.discussion"),
    (Phrase::CallConvergence, "call.convergence"),
    (Phrase::CallClosing, "call.closing"),
    (Phrase::QuestionStatements, "question.statements"),
    (Phrase::QuestionFreeDiscussion, "question.free-discussion"),
    (Phrase::QuestionFocusedConflict, "question.focused-conflict"),
    (Phrase::QuestionConvergence, "question.convergence"),
    (Phrase::Warning, "warning"),
    (Phrase::Closing, "closing"),
    (Phrase::InstructionOpening, "instruction.opening"),
    (
        Phrase::InstructionFreeDiscussion,
        "instruction.free-discussion",
    ),
    (
        Phrase::InstructionFocusedConflict,
        "instruction.focused-conflict",
    ),
    (Phrase::InstructionConvergence, "instruction.convergence"),
    (Phrase::InstructionClosing, "instruction.closing"),
    (Phrase::InstructionCuttingIn, "instruction.cutting-in"),
    (Phrase::InstructionCalled, "instruction.called"),
    (
        Phrase::InstructionAnsweringHuman,
        "instruction.answering-human",
    ),
];

/// The kinds alone, for [`conductor::phrases::PhraseKind::all`].
const ALL: [Phrase; KINDS.len()] = {
    let mut all = [Phrase::OpeningQuestion; KINDS.len()];
    let mut i = 0;
    while i < KINDS.len() {
        all[i] = KINDS[i].0;
        i += 1;
    }
    all
};

impl conductor::phrases::PhraseKind for Phrase {
    fn all() -> &'static [Self] {
        &ALL
    }

    fn slug(self) -> &'static str {
        KINDS
            .iter()
            .find(|(kind, _)| *kind == self)
            .map_or("", |(_, slug)| slug)
    }

    fn placeholders(self) -> &'static [&'static str] {
        use Phrase::*;
        match self {
            OpeningQuestion | OpeningSubject => &["moderator", "names", "topic", "next"],
            NextStatements | NextClosing | NextOpenFloor => &["moderator", "names"],
            CallFirst | CallOpening | CallDiscussion | CallConvergence | CallClosing | Warning => {
                &["name"]
            }
            Closing => &["names"],
            InstructionCuttingIn => &["previous", "instruction"],
            InstructionCalled => &["instruction"],
            InstructionAnsweringHuman => &["speaker", "said", "instruction"],
            _ => &["topic"],
        }
    }
}

/// The built-in library (both languages, every kind).
const BUILTIN: &str = include_str!("builtin-phrases.md");

/// A roundtable phrase library: every kind has a line in every language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundtablePhrases {
    library: conductor::phrases::PhraseLibrary<Phrase>,
}

impl Default for RoundtablePhrases {
    fn default() -> Self {
        Self::builtin().clone()
    }
}

impl RoundtablePhrases {
    /// The built-in lines, parsed once.
    pub fn builtin() -> &'static Self {
        static BUILTIN_LIBRARY: OnceLock<RoundtablePhrases> = OnceLock::new();
        BUILTIN_LIBRARY.get_or_init(|| {
            let (library, warnings) = conductor::phrases::PhraseLibrary::parse(BUILTIN);
            debug_assert!(warnings.is_empty(), "{warnings:?}");
            Self { library }
        })
    }

    /// A library file over the built-in lines. Never fails; skipped content is reported
    /// as warnings.
    pub fn parse(markdown: &str) -> (Self, Vec<PhraseWarning>) {
        let (phrases, report) = Self::load(markdown, Language::En);
        (phrases, report.warnings)
    }

    /// A library file's text (empty: none) over the built-in lines, with what it skipped
    /// and the kinds it leaves out in `language` ([`conductor::phrases::load`]).
    pub fn load(markdown: &str, language: Language) -> (Self, LoadReport) {
        let (library, report) =
            conductor::phrases::load(markdown, &Self::builtin().library, language);
        (Self { library }, report)
    }

    /// The library as a file [`RoundtablePhrases::parse`] reads back.
    pub fn to_markdown(&self) -> String {
        self.library.to_markdown("Roundtable moderator phrases")
    }

    /// The phrases of one kind in `lang` (never empty).
    pub fn phrases(&self, lang: Language, kind: Phrase) -> &[String] {
        self.library.phrases(lang, kind)
    }

    fn line(&self, lang: Language, kind: Phrase, counter: u64, values: &[(&str, &str)]) -> String {
        fill(self.library.pick(lang, kind, counter), values)
    }

    /// Said when the session starts (switch into the first phase). The topic may be a
    /// question ("Should cities ban cars?") or a subject ("car-free city centres").
    pub fn opening(
        &self,
        lang: Language,
        topic: &str,
        moderator: &str,
        names: &[&str],
        first: PhaseType,
    ) -> String {
        let topic = topic.trim();
        let next = match first {
            PhaseType::Opening => Phrase::NextStatements,
            PhaseType::Closing => Phrase::NextClosing,
            _ => Phrase::NextOpenFloor,
        };
        let names = join_names_in(lang, names);
        let values = [("moderator", moderator), ("names", names.as_str())];
        let next = self.line(lang, next, 0, &values);
        let question = text::words::line_asks(topic);
        // The topic ends a sentence: a question as it is, a subject with a full stop.
        let end = match lang {
            Language::Zh if !topic.ends_with(['。', '！', '？', '.', '!', '?']) => "。",
            Language::En if !question && !topic.ends_with(['.', '!', '。', '！']) => ".",
            _ => "",
        };
        let topic = format!("{topic}{end}");
        let kind = if question {
            Phrase::OpeningQuestion
        } else {
            Phrase::OpeningSubject
        };
        self.line(
            lang,
            kind,
            0,
            &[
                ("moderator", moderator),
                ("names", names.as_str()),
                ("topic", &topic),
                ("next", &next),
            ],
        )
    }

    /// Announces the switch into `to`.
    pub fn transition(
        &self,
        lang: Language,
        to: PhaseType,
        topic: &str,
        is_rollback: bool,
    ) -> String {
        let kind = match (to, is_rollback) {
            (PhaseType::FreeDiscussion, true) => Phrase::TransitionReopen,
            (PhaseType::Opening, _) => Phrase::TransitionOpening,
            (PhaseType::FreeDiscussion, false) => Phrase::TransitionFreeDiscussion,
            (PhaseType::FocusedConflict, _) => Phrase::TransitionFocusedConflict,
            (PhaseType::Convergence, _) => Phrase::TransitionConvergence,
            (PhaseType::Closing, _) => Phrase::TransitionClosing,
        };
        self.line(lang, kind, 0, &[("topic", topic)])
    }

    /// The moderator gives the floor to `name`, who did not ask for it; `first`: nobody
    /// has had the floor in this phase yet.
    pub fn call(
        &self,
        lang: Language,
        phase: PhaseType,
        name: &str,
        first: bool,
        counter: u64,
    ) -> String {
        let kind = match phase {
            PhaseType::Opening if first => Phrase::CallFirst,
            PhaseType::Opening => Phrase::CallOpening,
            PhaseType::Closing => Phrase::CallClosing,
            PhaseType::Convergence => Phrase::CallConvergence,
            PhaseType::FreeDiscussion | PhaseType::FocusedConflict => Phrase::CallDiscussion,
        };
        self.line(lang, kind, counter, &[("name", name)])
    }

    /// A guiding question to everyone; `custom` (from the scenario) replaces the
    /// library's.
    pub fn question(
        &self,
        lang: Language,
        phase: PhaseType,
        topic: &str,
        counter: u64,
        custom: &[String],
    ) -> String {
        if !custom.is_empty() {
            let i = (counter % custom.len() as u64) as usize;
            return fill(&custom[i], &[("topic", topic)]);
        }
        let kind = match phase {
            PhaseType::Opening | PhaseType::Closing => Phrase::QuestionStatements,
            PhaseType::FreeDiscussion => Phrase::QuestionFreeDiscussion,
            PhaseType::FocusedConflict => Phrase::QuestionFocusedConflict,
            PhaseType::Convergence => Phrase::QuestionConvergence,
        };
        self.line(lang, kind, counter, &[("topic", topic)])
    }

    /// For an agent that keeps asking for the floor beyond the consecutive-speech limit.
    pub fn warning(&self, lang: Language, name: &str, counter: u64) -> String {
        self.line(lang, Phrase::Warning, counter, &[("name", name)])
    }

    /// The last line of the session.
    pub fn closing(&self, lang: Language, names: &[&str]) -> String {
        let names = join_names_in(lang, names);
        self.line(lang, Phrase::Closing, 0, &[("names", &names)])
    }

    /// The instruction handed to the agent with the floor. `custom` (the phase's
    /// `instruction`) replaces the library's; an interruption or a call by name wraps it
    /// so the agent can say so.
    pub fn instruction(
        &self,
        lang: Language,
        phase: PhaseType,
        topic: &str,
        custom: Option<&str>,
        interrupting: Option<&str>,
        called: bool,
    ) -> String {
        let body = match custom {
            Some(c) => fill(c, &[("topic", topic)]),
            None => {
                let kind = match phase {
                    PhaseType::Opening => Phrase::InstructionOpening,
                    PhaseType::FreeDiscussion => Phrase::InstructionFreeDiscussion,
                    PhaseType::FocusedConflict => Phrase::InstructionFocusedConflict,
                    PhaseType::Convergence => Phrase::InstructionConvergence,
                    PhaseType::Closing => Phrase::InstructionClosing,
                };
                self.line(lang, kind, 0, &[("topic", topic)])
            }
        };
        match (interrupting, called) {
            (Some(previous), _) => self.line(
                lang,
                Phrase::InstructionCuttingIn,
                0,
                &[("previous", previous), ("instruction", &body)],
            ),
            (None, true) => self.line(
                lang,
                Phrase::InstructionCalled,
                0,
                &[("instruction", &body)],
            ),
            (None, false) => body,
        }
    }

    /// The instruction of a panelist answering what the human (`speaker`) just `said`,
    /// before the phase's own.
    pub fn answering_human(
        &self,
        lang: Language,
        phase: PhaseType,
        topic: &str,
        custom: Option<&str>,
        speaker: &str,
        said: &str,
    ) -> String {
        let instruction = self.instruction(lang, phase, topic, custom, None, false);
        self.line(
            lang,
            Phrase::InstructionAnsweringHuman,
            0,
            &[
                ("speaker", speaker),
                ("said", said),
                ("instruction", &instruction),
            ],
        )
    }
}

/// "A", "A and B", "A, B and C"; in Chinese "A、B和C".
pub fn join_names_in<S: AsRef<str>>(lang: Language, names: &[S]) -> String {
    match lang {
        Language::En => join_names(names),
        Language::Zh => match names {
            [] => String::new(),
            [one] => one.as_ref().to_owned(),
            [init @ .., last] => {
                let head: Vec<&str> = init.iter().map(AsRef::as_ref).collect();
                format!("{}和{}", head.join("、"), last.as_ref())
            }
        },
    }
}

/// "A", "A and B", "A, B and C".
pub fn join_names<S: AsRef<str>>(names: &[S]) -> String {
    match names {
        [] => String::new(),
        [one] => one.as_ref().to_owned(),
        [init @ .., last] => {
            let head: Vec<&str> = init.iter().map(AsRef::as_ref).collect();
            format!("{} and {}", head.join(", "), last.as_ref())
        }
    }
}

/// `text` with its first letter in upper case ("the engineer, ..." → "The engineer, ...").
pub fn capitalize_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use conductor::phrases::PhraseKind;

    #[test]
    fn builtin_has_every_kind_in_both_languages_and_round_trips() {
        let (file, warnings) = conductor::phrases::PhraseLibrary::<Phrase>::parse(BUILTIN);
        assert!(warnings.is_empty(), "{warnings:?}");
        for lang in Language::ALL {
            for &kind in Phrase::all() {
                assert!(file.has(lang, kind), "{lang:?} {kind:?}");
            }
        }
        let lib = RoundtablePhrases::builtin();
        let (back, warnings) = RoundtablePhrases::parse(&lib.to_markdown());
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(&back, lib);
    }

    #[test]
    fn a_file_replaces_kinds_per_language() {
        let md = "# Roundtable

## Closing
- Goodnight, {names}.

# 中文

## warning
- {name}，请简短。
## call: discussion
- {nom}？
";
        let (lib, warnings) = RoundtablePhrases::parse(md);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(
            lib.closing(Language::En, &["Ann", "Bo"]),
            "Goodnight, Ann and Bo."
        );
        // Chinese keeps its own built-in closing; English keeps its built-in warning.
        assert!(
            lib.closing(Language::Zh, &["甲"])
                .starts_with("今天的圆桌讨论到此结束")
        );
        assert_eq!(lib.warning(Language::Zh, "甲", 5), "甲，请简短。");
        assert!(
            lib.warning(Language::En, "Ann", 0)
                .starts_with("Ann, thank you")
        );
        // The dropped phrase left the built-in calls in place.
        assert_eq!(
            lib.call(Language::Zh, PhaseType::FreeDiscussion, "甲", false, 0),
            "甲，您怎么看？"
        );
    }

    #[test]
    fn openings_end_the_topic_sentence_once() {
        let lib = RoundtablePhrases::builtin();
        let names = ["Ann", "Bo"];
        let q = lib.opening(
            Language::En,
            "Should cities ban cars?",
            "Mo",
            &names,
            PhaseType::Opening,
        );
        assert_eq!(
            q,
            "Welcome to our roundtable. I'm Mo, and with me are Ann and Bo. Our question today: Should cities ban cars? Let's begin with a short opening statement from each of you."
        );
        let s = lib.opening(
            Language::En,
            "car-free centres",
            "Mo",
            &names,
            PhaseType::FreeDiscussion,
        );
        assert!(
            s.contains("Our topic today: car-free centres. The floor is open."),
            "{s}"
        );
        let zh = lib.opening(
            Language::Zh,
            "城市应该禁车吗",
            "莫",
            &["甲", "乙"],
            PhaseType::Closing,
        );
        assert_eq!(
            zh,
            "欢迎来到我们的圆桌讨论。我是主持人莫，今天的嘉宾是甲和乙。今天的话题：城市应该禁车吗。时间有限，我们直接进入简短的总结陈述。"
        );
    }

    #[test]
    fn instructions_wrap_once() {
        let lib = RoundtablePhrases::builtin();
        assert_eq!(
            lib.instruction(
                Language::En,
                PhaseType::Closing,
                "T",
                None,
                Some("{name}"),
                true
            ),
            "You are cutting in on {name}: be brief and direct. What is your final position, and why? Say it in one or two sentences."
        );
        assert_eq!(
            lib.instruction(Language::Zh, PhaseType::Opening, "话题", None, None, true),
            "主持人点名请你发言。请用中文简短陈述你的立场。话题：话题"
        );
    }
}

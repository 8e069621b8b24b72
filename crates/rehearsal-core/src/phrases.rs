//! The rehearsal moderator's phrase library and the deterministic choice among phrases.
//!
//! The library is a file in the conductors' one phrase format
//! ([`conductor::phrases`]), English and Chinese: a `# English` / `# 中文` section per
//! language, a `## kind` heading per kind of line, `- phrase` bullets under it. Headings
//! are matched loosely ("Micro-phrases", "Bridge-back phrases", "Hand raise notice" all
//! work). Kinds missing from the file keep the built-in phrases (`builtin-phrases.md`),
//! so a partial library is fine; the panel's `language` chooses the section spoken, and
//! a language without a kind falls back to English.
//!
//! Placeholders: `{agent}` (spoken name of the panelist), `{slide}` (slide title),
//! `{minutes}` (whole minutes remaining), `{moderator}`. A phrase with any other
//! `{…}` is dropped with a warning, so the voice never reads out a brace.

use std::collections::BTreeMap;

use conductor::phrases as shared;
use serde::{Deserialize, Serialize};

pub use conductor::phrases::{Language, LoadReport, PhraseWarning};

/// What a moderator line is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhraseKind {
    /// Opens Q&A and calls on a panelist; long enough to cover the question's generation.
    Transition,
    /// Short back-channel ("Mm-hmm.") while a follow-up is generated.
    MicroPhrase,
    /// Closes an exchange and hands the floor back to the presenter.
    BridgeBack,
    /// "[Agent] has a question."
    HandRaiseNotice,
    /// Invites a second panelist to build on the exchange that just ended.
    PileOn,
    /// No questions for a while: invites the panel in.
    EngagementPrompt,
    /// The presenter has talked a long time without interaction.
    SuggestPause,
    /// Every panelist has asked about the current slide.
    EncourageAdvance,
    /// End of session.
    Closing,
}

impl PhraseKind {
    pub const ALL: [PhraseKind; 9] = [
        PhraseKind::Transition,
        PhraseKind::MicroPhrase,
        PhraseKind::BridgeBack,
        PhraseKind::HandRaiseNotice,
        PhraseKind::PileOn,
        PhraseKind::EngagementPrompt,
        PhraseKind::SuggestPause,
        PhraseKind::EncourageAdvance,
        PhraseKind::Closing,
    ];

    /// The heading this kind has in a library file.
    pub fn slug(self) -> &'static str {
        match self {
            PhraseKind::Transition => "transition",
            PhraseKind::MicroPhrase => "micro-phrase",
            PhraseKind::BridgeBack => "bridge-back",
            PhraseKind::HandRaiseNotice => "hand-raise-notice",
            PhraseKind::PileOn => "pile-on",
            PhraseKind::EngagementPrompt => "engagement-prompt",
            PhraseKind::SuggestPause => "suggest-pause",
            PhraseKind::EncourageAdvance => "encourage-advance",
            PhraseKind::Closing => "closing",
        }
    }

    /// Loose heading match ([`shared::normalize`]), by prefix.
    pub fn from_heading(heading: &str) -> Option<Self> {
        let key = shared::normalize(heading);
        const PREFIXES: &[(&str, PhraseKind)] = &[
            ("transition", PhraseKind::Transition),
            ("micro", PhraseKind::MicroPhrase),
            ("bridge", PhraseKind::BridgeBack),
            ("handraise", PhraseKind::HandRaiseNotice),
            ("pileon", PhraseKind::PileOn),
            ("engagement", PhraseKind::EngagementPrompt),
            ("suggestpause", PhraseKind::SuggestPause),
            ("pause", PhraseKind::SuggestPause),
            ("encourageadvance", PhraseKind::EncourageAdvance),
            ("advance", PhraseKind::EncourageAdvance),
            ("closing", PhraseKind::Closing),
        ];
        PREFIXES
            .iter()
            .find(|(p, _)| key.starts_with(p))
            .map(|(_, k)| *k)
    }
}

/// Placeholders a phrase may use.
pub const PLACEHOLDERS: [&str; 4] = ["agent", "slide", "minutes", "moderator"];

impl shared::PhraseKind for PhraseKind {
    fn all() -> &'static [Self] {
        &Self::ALL
    }

    fn slug(self) -> &'static str {
        PhraseKind::slug(self)
    }

    fn placeholders(self) -> &'static [&'static str] {
        &PLACEHOLDERS
    }

    fn from_heading(heading: &str) -> Option<Self> {
        PhraseKind::from_heading(heading)
    }
}

/// The built-in library, in the shared format.
const BUILTIN: &str = include_str!("builtin-phrases.md");

/// Phrases per language and kind; every kind has at least one in every language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhraseLibrary {
    library: shared::PhraseLibrary<PhraseKind>,
}

impl Default for PhraseLibrary {
    fn default() -> Self {
        Self::builtin()
    }
}

impl PhraseLibrary {
    /// The built-in phrases.
    pub fn builtin() -> Self {
        let (library, warnings) = shared::PhraseLibrary::parse(BUILTIN);
        debug_assert!(warnings.is_empty(), "{warnings:?}");
        Self { library }
    }

    /// Parses a library file over the built-in phrases. Never fails; skipped content is
    /// reported as warnings.
    pub fn parse(markdown: &str) -> (Self, Vec<PhraseWarning>) {
        let (library, report) = Self::load(markdown, Language::En);
        (library, report.warnings)
    }

    /// A library file's text (empty: none) over the built-in phrases, with what it
    /// skipped and the kinds it leaves out in `language` ([`shared::load`]).
    pub fn load(markdown: &str, language: Language) -> (Self, LoadReport) {
        let (library, report) = shared::load(markdown, &Self::builtin().library, language);
        (Self { library }, report)
    }

    /// The English phrases of one kind (never empty).
    pub fn phrases(&self, kind: PhraseKind) -> &[String] {
        self.library.phrases(Language::En, kind)
    }

    /// The phrases of one kind in `language`, else in English (never empty).
    pub fn phrases_in(&self, language: Language, kind: PhraseKind) -> &[String] {
        self.library.phrases(language, kind)
    }

    /// The library as a Markdown file that [`PhraseLibrary::parse`] reads back.
    pub fn to_markdown(&self) -> String {
        self.library.to_markdown("Moderator phrase library")
    }
}

/// Values for the placeholders; `None` falls back to a neutral wording.
#[derive(Debug, Clone, Default)]
pub struct PhraseContext<'a> {
    pub agent: Option<&'a str>,
    pub slide: Option<&'a str>,
    pub minutes: Option<u64>,
    pub moderator: Option<&'a str>,
}

/// Fills the placeholders of an English `template` ([`shared::fill`]).
pub fn render(template: &str, ctx: &PhraseContext<'_>) -> String {
    render_in(Language::En, template, ctx)
}

/// Fills the placeholders of `template`, a line in `language` (the neutral wordings
/// are in that language).
pub fn render_in(language: Language, template: &str, ctx: &PhraseContext<'_>) -> String {
    let (agent, slide, minutes, moderator) = match language {
        Language::En => ("our panelist", "this slide", "a few", "the moderator"),
        Language::Zh => ("我们的评委", "这一页", "几", "主持人"),
    };
    let minutes = ctx
        .minutes
        .map_or_else(|| minutes.to_owned(), |m| m.to_string());
    shared::fill(
        template,
        &[
            ("agent", ctx.agent.unwrap_or(agent)),
            ("slide", ctx.slide.unwrap_or(slide)),
            ("minutes", &minutes),
            ("moderator", ctx.moderator.unwrap_or(moderator)),
        ],
    )
}

/// Counts the lines said of each kind, and picks the next variant with the shared
/// [`shared::PhraseLibrary::pick`]: deterministic, a rotation that never says the same
/// phrase twice in a row when a kind has two or more (the library removes duplicates).
#[derive(Debug, Clone, Default)]
pub struct PhrasePicker {
    language: Language,
    said: BTreeMap<PhraseKind, u64>,
}

impl PhrasePicker {
    /// A picker of the lines in `language`.
    pub fn new(language: Language) -> Self {
        Self {
            language,
            said: BTreeMap::new(),
        }
    }

    pub fn pick<'l>(&mut self, library: &'l PhraseLibrary, kind: PhraseKind) -> &'l str {
        let counter = self.said.entry(kind).or_insert(0);
        let phrase = library.library.pick(self.language, kind, *counter);
        *counter += 1;
        phrase
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_covers_every_kind_and_round_trips() {
        let lib = PhraseLibrary::builtin();
        for kind in PhraseKind::ALL {
            assert!(!lib.phrases(kind).is_empty(), "{kind:?}");
            for p in lib.phrases(kind) {
                shared::check_placeholders(p, &PLACEHOLDERS, 0).unwrap();
            }
        }
        let (back, warnings) = PhraseLibrary::parse(&lib.to_markdown());
        assert!(warnings.is_empty());
        assert_eq!(back, lib);
    }

    #[test]
    fn parses_loose_headings_bullets_and_quotes() {
        let md = "# Library\n- orphan\n## Micro-phrases\nSome commentary.\n- \"Mm-hmm.\"\n* Go on.\n- Mm-hmm.\n## Bridge back phrases ##\n+ Back to you, {agent}.\n## Jokes\n- ha\n## Closing\n- Bye {name}\n- Bye {agent\n";
        let (lib, warnings) = PhraseLibrary::parse(md);
        assert_eq!(lib.phrases(PhraseKind::MicroPhrase), ["Mm-hmm.", "Go on."]);
        assert_eq!(
            lib.phrases(PhraseKind::BridgeBack),
            ["Back to you, {agent}."]
        );
        // Closing had only invalid phrases: built-in ones stay.
        assert_eq!(
            lib.phrases(PhraseKind::Closing),
            PhraseLibrary::builtin().phrases(PhraseKind::Closing)
        );
        assert_eq!(warnings.len(), 4, "{warnings:?}");
        assert!(matches!(
            warnings[0],
            PhraseWarning::OrphanBullet { line: 2 }
        ));
        assert!(matches!(warnings[1], PhraseWarning::UnknownHeading { .. }));
        assert!(matches!(
            warnings[2],
            PhraseWarning::UnknownPlaceholder { .. }
        ));
        assert!(matches!(warnings[3], PhraseWarning::UnclosedBrace { .. }));
    }

    #[test]
    fn picker_rotates_without_back_to_back_repeats() {
        let lib = PhraseLibrary::builtin();
        let mut picker = PhrasePicker::default();
        let mut last = String::new();
        for _ in 0..10 {
            let p = picker.pick(&lib, PhraseKind::MicroPhrase).to_owned();
            assert_ne!(p, last);
            last = p;
        }
    }

    #[test]
    fn render_fills_and_falls_back() {
        let ctx = PhraseContext {
            agent: Some("Marcus Webb"),
            minutes: Some(4),
            ..Default::default()
        };
        assert_eq!(
            render("{agent} on {slide}, {minutes} min, {moderator}", &ctx),
            "Marcus Webb on this slide, 4 min, the moderator"
        );
    }

    #[test]
    fn heading_aliases() {
        assert_eq!(
            PhraseKind::from_heading("Hand-raise notices"),
            Some(PhraseKind::HandRaiseNotice)
        );
        assert_eq!(
            PhraseKind::from_heading("pile_on"),
            Some(PhraseKind::PileOn)
        );
        assert_eq!(
            PhraseKind::from_heading("Encourage advance"),
            Some(PhraseKind::EncourageAdvance)
        );
        assert_eq!(PhraseKind::from_heading("???"), None);
    }
}

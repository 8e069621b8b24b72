//! The moderator's phrase library and the deterministic choice among phrases.
//!
//! A library file is Markdown: a `## kind` heading per kind of line, `- phrase` bullets
//! under it (`*` and `+` bullets too; surrounding quotes are dropped). Other lines are
//! commentary and ignored. Headings are matched loosely ("Micro-phrases",
//! "Bridge-back phrases", "Hand raise notice" all work). Kinds missing from the file
//! keep the built-in phrases, so a partial library is fine.
//!
//! Placeholders: `{agent}` (spoken name of the panelist), `{slide}` (slide title),
//! `{minutes}` (whole minutes remaining), `{moderator}`. A phrase with any other
//! `{…}` is dropped with a warning, so the voice never reads out a brace.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

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

    /// Loose heading match: letters and digits only, lowercase, by prefix.
    pub fn from_heading(heading: &str) -> Option<Self> {
        let key: String = heading
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect();
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

/// Something in a library file that was skipped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PhraseWarning {
    #[error("line {line}: heading `{heading}` names no phrase kind; its bullets are ignored")]
    UnknownHeading { line: usize, heading: String },
    #[error("line {line}: bullet before any `## kind` heading; ignored")]
    OrphanBullet { line: usize },
    #[error("line {line}: unknown placeholder `{{{name}}}`; phrase dropped")]
    UnknownPlaceholder { line: usize, name: String },
    #[error("line {line}: unclosed `{{`; phrase dropped")]
    UnclosedBrace { line: usize },
}

/// Phrases per kind; every kind has at least one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhraseLibrary {
    phrases: BTreeMap<PhraseKind, Vec<String>>,
}

const BUILTIN: &[(PhraseKind, &[&str])] = &[
    (
        PhraseKind::Transition,
        &[
            "Let me pause you there for a moment, because the panel has been listening closely. {agent}, I believe you have a question about {slide}.",
            "Thank you, that feels like a natural place to stop for a question. {agent}, what's on your mind about {slide}?",
            "Before we go any further, I'd like to bring in one of our panelists on {slide}. {agent}, over to you.",
            "That section gave the panel something to chew on, so let's dig in for a moment. {agent}, go ahead.",
        ],
    ),
    (
        PhraseKind::MicroPhrase,
        &[
            "Mm-hmm.",
            "Interesting.",
            "I see.",
            "Okay.",
            "Right, go on.",
        ],
    ),
    (
        PhraseKind::BridgeBack,
        &[
            "Thank you both. Let's get back to the presentation; please carry on.",
            "Good exchange. Let's leave it there and pick up where you left off.",
            "Let's park that for now; it will be in the debrief. Please continue.",
        ],
    ),
    (
        PhraseKind::HandRaiseNotice,
        &[
            "{agent} has a question.",
            "{agent} has a question, whenever you're ready.",
        ],
    ),
    (
        PhraseKind::PileOn,
        &[
            "{agent}, you wanted to build on that?",
            "One quick follow-on before we move on. {agent}?",
        ],
    ),
    (
        PhraseKind::EngagementPrompt,
        &[
            "Let me check in with the panel: does anyone have a question so far?",
            "It's been quiet on the panel for a while. Any reactions to {slide}?",
        ],
    ),
    (
        PhraseKind::SuggestPause,
        &[
            "You've been going for a while; this might be a good moment to pause and take questions.",
            "Consider pausing here for a moment so the panel can catch up.",
        ],
    ),
    (
        PhraseKind::EncourageAdvance,
        &[
            "The whole panel has weighed in on {slide}; it may be time to move to your next slide.",
            "I think {slide} has been covered from every angle. Shall we advance?",
        ],
    ),
    (
        PhraseKind::Closing,
        &[
            "That brings us to the end of the session. Thank you for presenting; your debrief is ready.",
            "Let's close there. Thank you, and thank you to the panel. Your debrief is on its way.",
        ],
    ),
];

/// Checks placeholders; `Err` carries the warning.
fn check_placeholders(phrase: &str, line: usize) -> Result<(), PhraseWarning> {
    let mut rest = phrase;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return Err(PhraseWarning::UnclosedBrace { line });
        };
        let name = &after[..close];
        if !PLACEHOLDERS.contains(&name) {
            return Err(PhraseWarning::UnknownPlaceholder {
                line,
                name: name.to_owned(),
            });
        }
        rest = &after[close + 1..];
    }
    Ok(())
}

fn strip_quotes(s: &str) -> &str {
    for (open, close) in [('"', '"'), ('“', '”'), ('\'', '\'')] {
        if let Some(inner) = s.strip_prefix(open).and_then(|r| r.strip_suffix(close))
            && !inner.is_empty()
        {
            return inner.trim();
        }
    }
    s
}

impl Default for PhraseLibrary {
    fn default() -> Self {
        Self::builtin()
    }
}

impl PhraseLibrary {
    /// The built-in phrases.
    pub fn builtin() -> Self {
        Self {
            phrases: BUILTIN
                .iter()
                .map(|(k, p)| (*k, p.iter().map(|s| (*s).to_owned()).collect()))
                .collect(),
        }
    }

    /// Parses a library file over the built-in phrases. Never fails; skipped content is
    /// reported as warnings.
    pub fn parse(markdown: &str) -> (Self, Vec<PhraseWarning>) {
        let mut parsed: BTreeMap<PhraseKind, Vec<String>> = BTreeMap::new();
        let mut warnings = Vec::new();
        // None: before any heading; Some(None): under an unknown heading.
        let mut section: Option<Option<PhraseKind>> = None;
        for (i, raw) in markdown.lines().enumerate() {
            let line = i + 1;
            let t = raw.trim();
            if let Some(h) = t.strip_prefix("##")
                && !h.starts_with('#')
            {
                let heading = h.trim().trim_end_matches('#').trim();
                let kind = PhraseKind::from_heading(heading);
                if kind.is_none() {
                    warnings.push(PhraseWarning::UnknownHeading {
                        line,
                        heading: heading.to_owned(),
                    });
                }
                section = Some(kind);
                continue;
            }
            let Some(item) = ["- ", "* ", "+ "]
                .iter()
                .find_map(|b| t.strip_prefix(b))
                .map(str::trim)
            else {
                continue;
            };
            let phrase = strip_quotes(item);
            if phrase.is_empty() {
                continue;
            }
            match section {
                None => warnings.push(PhraseWarning::OrphanBullet { line }),
                Some(None) => {}
                Some(Some(kind)) => match check_placeholders(phrase, line) {
                    Ok(()) => {
                        let list = parsed.entry(kind).or_default();
                        if !list.iter().any(|p| p == phrase) {
                            list.push(phrase.to_owned());
                        }
                    }
                    Err(w) => warnings.push(w),
                },
            }
        }
        let mut library = Self::builtin();
        for (kind, list) in parsed {
            if !list.is_empty() {
                library.phrases.insert(kind, list);
            }
        }
        (library, warnings)
    }

    /// The phrases of one kind (never empty).
    pub fn phrases(&self, kind: PhraseKind) -> &[String] {
        self.phrases.get(&kind).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The library as a Markdown file that [`PhraseLibrary::parse`] reads back.
    pub fn to_markdown(&self) -> String {
        let mut out = String::from("# Moderator phrase library\n");
        for kind in PhraseKind::ALL {
            out.push_str(&format!("\n## {}\n\n", kind.slug()));
            for p in self.phrases(kind) {
                out.push_str(&format!("- {p}\n"));
            }
        }
        out
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

/// Fills the placeholders of `template`.
pub fn render(template: &str, ctx: &PhraseContext<'_>) -> String {
    template
        .replace("{agent}", ctx.agent.unwrap_or("our panelist"))
        .replace("{slide}", ctx.slide.unwrap_or("this slide"))
        .replace(
            "{minutes}",
            &ctx.minutes
                .map(|m| m.to_string())
                .unwrap_or_else(|| "a few".into()),
        )
        .replace("{moderator}", ctx.moderator.unwrap_or("the moderator"))
}

/// Rotates through each kind's phrases: deterministic, and never the same phrase twice
/// in a row when a kind has two or more (the library removes duplicates).
#[derive(Debug, Clone, Default)]
pub struct PhrasePicker {
    next: BTreeMap<PhraseKind, usize>,
}

impl PhrasePicker {
    pub fn pick<'l>(&mut self, library: &'l PhraseLibrary, kind: PhraseKind) -> &'l str {
        let list = library.phrases(kind);
        if list.is_empty() {
            return "";
        }
        let slot = self.next.entry(kind).or_insert(0);
        let phrase = &list[*slot % list.len()];
        *slot = (*slot + 1) % list.len();
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
                check_placeholders(p, 0).unwrap();
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

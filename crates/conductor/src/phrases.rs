//! One phrase-library format for every conductor's own lines (the roundtable
//! moderator's, the rehearsal moderator's), in English and Chinese.
//!
//! A library is Markdown. A `# English` / `# 中文` heading (also `# en`, `# zh`,
//! `# Chinese`, `# Language: zh`) starts the lines of that language; other level-1
//! headings are titles, and lines before any language heading are English. Under it, a
//! `## kind` heading per kind of line and `- phrase` bullets (`*` and `+` too; surrounding
//! quotes are dropped). Everything else is commentary. Headings match loosely: case,
//! spaces and punctuation don't count, and a format may accept aliases
//! ([`PhraseKind::from_heading`]).
//!
//! Each kind declares the `{placeholders}` its phrases may use; a phrase with any other
//! `{…}` is dropped with a warning, so a voice never reads out a brace. A file need not
//! be complete: [`PhraseLibrary::over`] lays it over the built-in library, kind by kind
//! and language by language, and a language without a kind falls back to English.

use std::collections::BTreeMap;
use std::fmt::Debug;

use serde::{Deserialize, Serialize};

/// The language of a conductor's own lines and of the instructions it hands out.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// English.
    #[default]
    En,
    /// Mandarin Chinese (simplified characters).
    Zh,
}

impl Language {
    pub const ALL: [Language; 2] = [Language::En, Language::Zh];

    /// The heading a library file gives this language's section.
    pub fn heading(self) -> &'static str {
        match self {
            Language::En => "English",
            Language::Zh => "中文",
        }
    }

    /// A level-1 heading naming a language ("English", "zh", "Language: 中文").
    pub fn from_heading(heading: &str) -> Option<Self> {
        let key = normalize(heading);
        let key = key.strip_prefix("language").unwrap_or(&key);
        match key {
            "en" | "english" => Some(Language::En),
            "zh" | "zhcn" | "chinese" | "mandarin" | "中文" | "汉语" | "普通话" => {
                Some(Language::Zh)
            }
            _ => None,
        }
    }
}

/// The kinds of line one conductor says.
pub trait PhraseKind: Copy + Ord + Debug + 'static {
    /// Every kind, in the order a library file lists them.
    fn all() -> &'static [Self];

    /// The kind's heading in a library file.
    fn slug(self) -> &'static str;

    /// The placeholders its phrases may use (without braces).
    fn placeholders(self) -> &'static [&'static str];

    /// The kind a `##` heading names: its slug, loosely ([`normalize`]). Formats may
    /// accept more.
    fn from_heading(heading: &str) -> Option<Self> {
        let key = normalize(heading);
        Self::all()
            .iter()
            .copied()
            .find(|kind| normalize(kind.slug()) == key)
    }
}

/// Letters and digits only, lower case: how headings are compared.
pub fn normalize(heading: &str) -> String {
    heading
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

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

/// Checks that `phrase` uses only `allowed` placeholders.
pub fn check_placeholders(
    phrase: &str,
    allowed: &[&str],
    line: usize,
) -> Result<(), PhraseWarning> {
    let mut rest = phrase;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return Err(PhraseWarning::UnclosedBrace { line });
        };
        let name = &after[..close];
        if !allowed.contains(&name) {
            return Err(PhraseWarning::UnknownPlaceholder {
                line,
                name: name.to_owned(),
            });
        }
        rest = &after[close + 1..];
    }
    Ok(())
}

/// Fills `{key}` placeholders from `values` in one pass (a value that itself contains
/// `{key}` stays as written); unknown placeholders stay.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let key = &after[..close];
                match values.iter().find(|(k, _)| *k == key) {
                    Some((_, v)) => out.push_str(v),
                    None => {
                        out.push('{');
                        out.push_str(key);
                        out.push('}');
                    }
                }
                rest = &after[close + 1..];
            }
            None => {
                out.push_str(&rest[open..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

fn strip_quotes(s: &str) -> &str {
    for (open, close) in [('"', '"'), ('“', '”'), ('\'', '\''), ('「', '」')] {
        if let Some(inner) = s.strip_prefix(open).and_then(|r| r.strip_suffix(close))
            && !inner.is_empty()
        {
            return inner.trim();
        }
    }
    s
}

/// Phrases per language and kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhraseLibrary<K> {
    phrases: BTreeMap<(Language, K), Vec<String>>,
}

impl<K> Default for PhraseLibrary<K> {
    fn default() -> Self {
        Self {
            phrases: BTreeMap::new(),
        }
    }
}

impl<K: PhraseKind> PhraseLibrary<K> {
    /// What a library file holds, and what was skipped in it. Never fails.
    pub fn parse(markdown: &str) -> (Self, Vec<PhraseWarning>) {
        let mut library = Self::default();
        let mut warnings = Vec::new();
        let mut language = Language::En;
        // None: before any kind heading; Some(None): under an unknown heading.
        let mut section: Option<Option<K>> = None;
        for (i, raw) in markdown.lines().enumerate() {
            let line = i + 1;
            let t = raw.trim();
            if let Some(h) = t.strip_prefix('#')
                && !h.starts_with('#')
            {
                // A level-1 heading: a language section, or a title.
                if let Some(lang) = Language::from_heading(h.trim().trim_end_matches('#')) {
                    language = lang;
                    section = None;
                }
                continue;
            }
            if let Some(h) = t.strip_prefix("##")
                && !h.starts_with('#')
            {
                let heading = h.trim().trim_end_matches('#').trim();
                let kind = K::from_heading(heading);
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
                Some(Some(kind)) => match check_placeholders(phrase, kind.placeholders(), line) {
                    Ok(()) => {
                        let list = library.phrases.entry((language, kind)).or_default();
                        if !list.iter().any(|p| p == phrase) {
                            list.push(phrase.to_owned());
                        }
                    }
                    Err(w) => warnings.push(w),
                },
            }
        }
        (library, warnings)
    }

    /// This library over `base`: where this one has no phrase of a kind in a language,
    /// `base`'s phrases stay.
    pub fn over(self, base: &Self) -> Self {
        let mut phrases = base.phrases.clone();
        phrases.extend(
            self.phrases
                .into_iter()
                .filter(|(_, list)| !list.is_empty()),
        );
        Self { phrases }
    }

    /// The phrases of a kind in `language`, else in English; empty when neither has any.
    pub fn phrases(&self, language: Language, kind: K) -> &[String] {
        self.phrases
            .get(&(language, kind))
            .or_else(|| self.phrases.get(&(Language::En, kind)))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Whether `language` has phrases of its own for `kind` (no English fallback).
    pub fn has(&self, language: Language, kind: K) -> bool {
        self.phrases
            .get(&(language, kind))
            .is_some_and(|l| !l.is_empty())
    }

    /// Variant `counter % len` of a kind: reproducible, and never the same line twice in
    /// a row for a caller that counts up. `""` when the kind has no phrase.
    pub fn pick(&self, language: Language, kind: K, counter: u64) -> &str {
        let list = self.phrases(language, kind);
        if list.is_empty() {
            return "";
        }
        &list[(counter % list.len() as u64) as usize]
    }

    /// The kinds `language` has no phrase of its own for (no English fallback).
    pub fn left_out(&self, language: Language) -> Vec<K> {
        K::all()
            .iter()
            .copied()
            .filter(|kind| !self.has(language, *kind))
            .collect()
    }

    /// The languages the library has any phrase in.
    pub fn languages(&self) -> Vec<Language> {
        let mut out: Vec<Language> = self.phrases.keys().map(|(l, _)| *l).collect();
        out.dedup();
        out
    }

    /// The library as a file [`PhraseLibrary::parse`] reads back.
    pub fn to_markdown(&self, title: &str) -> String {
        let mut out = format!("# {title}\n");
        for language in self.languages() {
            out.push_str(&format!("\n# {}\n", language.heading()));
            for &kind in K::all() {
                let Some(list) = self.phrases.get(&(language, kind)) else {
                    continue;
                };
                out.push_str(&format!("\n## {}\n\n", kind.slug()));
                for p in list {
                    out.push_str(&format!("- {p}\n"));
                }
            }
        }
        out
    }
}

/// What a library file did not give a conductor: the content it skipped, and the kinds
/// it has no line of in the language spoken (the built-in lines say those).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// The language spoken.
    pub language: Language,
    /// What was skipped in the file.
    pub warnings: Vec<PhraseWarning>,
    /// The headings of the kinds the file leaves out in `language`; empty without a file.
    pub left_out: Vec<&'static str>,
}

/// The one loader of every conductor's phrase library: a file's text (empty: no file)
/// laid over the format's built-in library, and what the file skipped or left out for
/// `language`. Pure: the node reads the file, the conductor speaks from the library.
pub fn load<K: PhraseKind>(
    text: &str,
    builtin: &PhraseLibrary<K>,
    language: Language,
) -> (PhraseLibrary<K>, LoadReport) {
    if text.trim().is_empty() {
        let report = LoadReport {
            language,
            ..LoadReport::default()
        };
        return (builtin.clone(), report);
    }
    let (file, warnings) = PhraseLibrary::parse(text);
    let left_out = file
        .left_out(language)
        .into_iter()
        .map(PhraseKind::slug)
        .collect();
    let report = LoadReport {
        language,
        warnings,
        left_out,
    };
    (file.over(builtin), report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    enum Kind {
        Greeting,
        Farewell,
    }

    impl PhraseKind for Kind {
        fn all() -> &'static [Self] {
            &[Kind::Greeting, Kind::Farewell]
        }
        fn slug(self) -> &'static str {
            match self {
                Kind::Greeting => "greeting",
                Kind::Farewell => "farewell",
            }
        }
        fn placeholders(self) -> &'static [&'static str] {
            match self {
                Kind::Greeting => &["name"],
                Kind::Farewell => &[],
            }
        }
    }

    const FILE: &str = "# Greetings\n\n## Greeting\n- Hello, {name}.\n- \"Hi {name}!\"\n\n# 中文\n\n## greeting\n- 你好，{name}。\n## Farewell\n- 再见{who}。\n";

    #[test]
    fn languages_kinds_and_fallback() {
        let (lib, warnings) = PhraseLibrary::<Kind>::parse(FILE);
        assert_eq!(
            lib.phrases(Language::En, Kind::Greeting),
            ["Hello, {name}.", "Hi {name}!"]
        );
        assert_eq!(
            lib.phrases(Language::Zh, Kind::Greeting),
            ["你好，{name}。"]
        );
        // The Chinese farewell used an unknown placeholder: dropped, and English has none.
        assert_eq!(
            warnings,
            [PhraseWarning::UnknownPlaceholder {
                line: 12,
                name: "who".into()
            }]
        );
        assert!(lib.phrases(Language::Zh, Kind::Farewell).is_empty());
        assert_eq!(lib.pick(Language::En, Kind::Greeting, 3), "Hi {name}!");
        assert_eq!(lib.pick(Language::Zh, Kind::Farewell, 0), "");

        let base = PhraseLibrary::<Kind>::parse("## farewell\n- Goodbye.\n").0;
        let lib = lib.over(&base);
        assert_eq!(lib.pick(Language::Zh, Kind::Farewell, 0), "Goodbye.");
        assert!(!lib.has(Language::Zh, Kind::Farewell));
        assert!(lib.has(Language::Zh, Kind::Greeting));
    }

    #[test]
    fn one_loader_lays_a_file_over_the_builtin_and_reports_what_it_did_not_give() {
        let builtin = PhraseLibrary::<Kind>::parse("## greeting\n- Hi.\n## farewell\n- Bye.\n").0;
        let (lib, report) = load(FILE, &builtin, Language::Zh);
        assert_eq!(lib.pick(Language::Zh, Kind::Greeting, 0), "你好，{name}。");
        assert_eq!(lib.pick(Language::Zh, Kind::Farewell, 0), "Bye.");
        assert_eq!(report.language, Language::Zh);
        assert_eq!(report.left_out, ["farewell"]);
        assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
        let (lib, report) = load(" \n", &builtin, Language::En);
        assert_eq!(lib, builtin);
        assert!(report.warnings.is_empty() && report.left_out.is_empty());
    }

    #[test]
    fn markdown_round_trips() {
        let (lib, _) = PhraseLibrary::<Kind>::parse(FILE);
        let (back, warnings) = PhraseLibrary::parse(&lib.to_markdown("Greetings"));
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(back, lib);
    }

    #[test]
    fn language_headings() {
        for (h, l) in [
            ("English", Some(Language::En)),
            ("Language: zh", Some(Language::Zh)),
            (" 中文 ", Some(Language::Zh)),
            ("zh-CN", Some(Language::Zh)),
            ("Moderator phrase library", None),
        ] {
            assert_eq!(Language::from_heading(h), l, "{h}");
        }
    }

    #[test]
    fn fill_is_one_pass() {
        assert_eq!(
            fill(
                "{name} on {topic} {x} {",
                &[("name", "{topic}"), ("topic", "T")]
            ),
            "{topic} on T {x} {"
        );
    }

    proptest! {
        /// Any text parses; whatever is kept uses only declared placeholders.
        #[test]
        fn any_text_parses(text in "(#{0,3} ?[a-z中文 ]{0,12}\n|[-*+] [^\n]{0,20}\n|\\{[a-z]{0,5}\\}?\n){0,20}") {
            let (lib, _) = PhraseLibrary::<Kind>::parse(&text);
            for language in Language::ALL {
                for &kind in Kind::all() {
                    for p in lib.phrases(language, kind) {
                        prop_assert!(check_placeholders(p, kind.placeholders(), 0).is_ok());
                    }
                }
            }
        }
    }
}

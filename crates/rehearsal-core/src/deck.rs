//! The slide deck: a Markdown file with one `## Title` section per slide.
//!
//! Rules, chosen so that decks written for Markdown slide tools load as they look:
//! - A line `## Title` (up to three leading spaces, optional closing `#`s) starts a
//!   slide. `###` and deeper headings belong to the slide's body. Headings inside
//!   fenced code blocks (```` ``` ```` or `~~~`) are text.
//! - YAML front matter (a first line `---` up to the next `---` or `...`) is skipped.
//! - Text before the first `##` heading, if it has any non-blank line, becomes a
//!   **title slide at index 0**: its title is the first `# Heading`, or else its first
//!   non-blank line. Slide indices in [`crate::Event::SlideChanged`] count this slide,
//!   so they match what a presentation tool shows (the title slide first).
//! - Parsing never fails: any string yields a (possibly empty) deck.

use std::collections::{BTreeMap, BTreeSet};

use crate::text::{content_set, content_words};

/// Keywords kept per slide.
pub const MAX_KEYWORDS: usize = 12;
/// Title words count this many times when ranking keywords: titles name the topic.
const TITLE_WEIGHT: usize = 3;

/// One slide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slide {
    /// Position in the deck, from 0.
    pub index: usize,
    pub title: String,
    /// The Markdown under the heading, trimmed.
    pub body: String,
    /// Up to [`MAX_KEYWORDS`] stemmed content words, most salient first.
    pub keywords: Vec<String>,
}

impl Slide {
    fn new(index: usize, title: &str, body: &str) -> Self {
        let title = title.trim();
        let title = if title.is_empty() {
            format!("Slide {}", index + 1)
        } else {
            title.to_owned()
        };
        let body = body.trim().to_owned();
        let keywords = extract_keywords(&title, &body);
        Self {
            index,
            title,
            body,
            keywords,
        }
    }

    /// Every content word of title and body (not only the top keywords).
    pub fn words(&self) -> BTreeSet<String> {
        let mut words = content_set(&self.title);
        words.extend(content_set(&self.body));
        words
    }

    /// Whether a focus-area keyword ("burn rate", "TAM") occurs on this slide: all its
    /// content words appear in the slide's words.
    pub fn mentions(&self, focus: &str) -> bool {
        let needed = content_set(focus);
        !needed.is_empty() && needed.is_subset(&self.words())
    }
}

fn extract_keywords(title: &str, body: &str) -> Vec<String> {
    // word -> (score, first position)
    let mut scores: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let title_words = content_words(title);
    let body_words = content_words(body);
    let weighted = title_words
        .into_iter()
        .map(|w| (w, TITLE_WEIGHT))
        .chain(body_words.into_iter().map(|w| (w, 1)));
    for (pos, (word, weight)) in weighted.enumerate() {
        let entry = scores.entry(word).or_insert((0, pos));
        entry.0 += weight;
    }
    let mut ranked: Vec<(String, usize, usize)> =
        scores.into_iter().map(|(w, (s, p))| (w, s, p)).collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(&b.2)));
    ranked
        .into_iter()
        .take(MAX_KEYWORDS)
        .map(|(w, _, _)| w)
        .collect()
}

/// A parsed deck.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Deck {
    pub slides: Vec<Slide>,
    /// Whether slide 0 was made from the text before the first `##` heading.
    pub has_title_slide: bool,
}

/// The heading text if `line` is a level-2 ATX heading.
fn level2_heading(line: &str) -> Option<&str> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = line[indent..].strip_prefix("##")?;
    if rest.starts_with('#') {
        return None;
    }
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    Some(rest.trim().trim_end_matches('#').trim())
}

/// The heading text if `line` is a level-1 ATX heading.
fn level1_heading(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('#')?;
    if rest.starts_with('#') || !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    Some(rest.trim().trim_end_matches('#').trim())
}

fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

impl Deck {
    /// Parses a Markdown deck. Never fails; see the module docs for the rules.
    pub fn parse(markdown: &str) -> Self {
        let lines: Vec<&str> = markdown.lines().collect();
        let mut start = 0;
        if lines.first().map(|l| l.trim_end()) == Some("---")
            && let Some(end) = lines[1..]
                .iter()
                .position(|l| matches!(l.trim_end(), "---" | "..."))
        {
            start = end + 2;
        }

        let mut preamble: Vec<&str> = Vec::new();
        let mut sections: Vec<(String, Vec<&str>)> = Vec::new();
        let mut in_fence = false;
        for line in &lines[start..] {
            if is_fence(line) {
                in_fence = !in_fence;
            } else if !in_fence && let Some(title) = level2_heading(line) {
                sections.push((title.to_owned(), Vec::new()));
                continue;
            }
            match sections.last_mut() {
                Some((_, body)) => body.push(line),
                None => preamble.push(line),
            }
        }

        let mut slides = Vec::new();
        let has_title_slide = preamble.iter().any(|l| !l.trim().is_empty());
        if has_title_slide {
            let title_at = preamble
                .iter()
                .position(|l| level1_heading(l).is_some())
                .or_else(|| preamble.iter().position(|l| !l.trim().is_empty()))
                .unwrap_or(0);
            let title_line = preamble[title_at];
            let title = level1_heading(title_line)
                .unwrap_or_else(|| title_line.trim().trim_start_matches('#').trim());
            let body: Vec<&str> = preamble
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != title_at)
                .map(|(_, l)| *l)
                .collect();
            slides.push(Slide::new(0, title, &body.join("\n")));
        }
        for (title, body) in sections {
            let index = slides.len();
            slides.push(Slide::new(index, &title, &body.join("\n")));
        }
        Self {
            slides,
            has_title_slide,
        }
    }

    pub fn len(&self) -> usize {
        self.slides.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slides.is_empty()
    }

    pub fn slide(&self, index: usize) -> Option<&Slide> {
        self.slides.get(index)
    }

    /// What the whole talk is about: the title slide's title and text ("" without a
    /// title slide).
    pub fn subject(&self) -> String {
        match self.slides.first().filter(|_| self.has_title_slide) {
            Some(title) => format!("{}. {}", title.title, title.body),
            None => String::new(),
        }
    }

    /// The slide's title, or `Slide N` for an index outside the deck.
    pub fn title_of(&self, index: usize) -> String {
        self.slide(index)
            .map(|s| s.title.clone())
            .unwrap_or_else(|| format!("Slide {}", index + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DECK: &str = "---\ntheme: dark\n---\n# Acme Robotics\nSeed round, 2025\n\n## The Problem\nWarehouses lose margin to manual picking.\n\n```\n## not a slide\n```\n### Detail\nPicking costs 40% of labour.\n\n## Market ##\nTAM of $40B in warehouse automation.\n##\n";

    #[test]
    fn parses_title_slide_sections_and_fences() {
        let deck = Deck::parse(DECK);
        assert!(deck.has_title_slide);
        let titles: Vec<&str> = deck.slides.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(
            titles,
            ["Acme Robotics", "The Problem", "Market", "Slide 4"]
        );
        assert_eq!(deck.slides[0].body, "Seed round, 2025");
        assert!(deck.slides[1].body.contains("## not a slide"));
        assert!(deck.slides[1].body.contains("### Detail"));
        assert!(!deck.slides[1].body.contains("theme"));
        assert_eq!(deck.slides[2].index, 2);
        assert_eq!(deck.subject(), "Acme Robotics. Seed round, 2025");
    }

    #[test]
    fn keywords_rank_title_words_first() {
        let deck = Deck::parse("## Unit Economics\nMargin per robot, margin per site, churn.");
        let kw = &deck.slides[0].keywords;
        assert_eq!(&kw[..3], ["unit", "economic", "margin"]);
        assert!(deck.slides[0].mentions("unit economics"));
        assert!(deck.slides[0].mentions("Churn"));
        assert!(!deck.slides[0].mentions("burn rate"));
        assert!(!deck.slides[0].mentions("the"));
    }

    #[test]
    fn no_preamble_means_no_title_slide() {
        let deck = Deck::parse("\n\n## One\nx\n## Two\n");
        assert!(!deck.has_title_slide);
        assert_eq!(deck.subject(), "");
        assert_eq!(deck.len(), 2);
        assert_eq!(deck.title_of(1), "Two");
        assert_eq!(deck.title_of(9), "Slide 10");
        assert!(Deck::parse("").is_empty());
    }

    #[test]
    fn non_headings_are_body() {
        let deck = Deck::parse("## A\n##B\n    ## indented code\n#### deep\n");
        assert_eq!(deck.len(), 1);
        assert!(deck.slides[0].body.contains("##B"));
    }
}

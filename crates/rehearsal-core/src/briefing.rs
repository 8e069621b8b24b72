//! The documents written into the context session when a rehearsal starts:
//! `session-config.md`, `board-dossier.md`, `external-intel.md` and each panelist's
//! `focus-brief.md`. Pure text in, Markdown out.
//!
//! `external-intel.md` is the "research" row of the context: what the panel knows from
//! outside the deck. Nothing here goes online: it holds the deck's checkable claims
//! (sentences with figures, each marked sourced or not and given to the panelists whose
//! focus it touches) and, below them, the research notes the user supplies (a Markdown
//! file named in the dataflow), verbatim.

use std::collections::BTreeMap;

use crate::config::PanelConfig;
use crate::deck::Deck;
use crate::text::{content_set, excerpt};

/// Words that say where a figure comes from.
const SOURCE_MARKERS: &[&str] = &[
    "survey",
    "source",
    "according to",
    "report",
    "study",
    "audited",
    "data from",
    "measured",
];

/// Research notes longer than this are cut (the context has size caps anyway; a runaway
/// file should not crowd out the deck).
pub const MAX_NOTES_CHARS: usize = 8_000;

/// One sentence of the deck that states a figure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pub slide: usize,
    pub slide_title: String,
    pub sentence: String,
    /// The figures as written: `$40B`, `14%`, `120`.
    pub figures: Vec<String>,
    /// Whether the sentence names where the figure comes from.
    pub sourced: bool,
    /// Panelists (agent names) whose focus areas the sentence (with its slide's title)
    /// touches.
    pub owners: Vec<String>,
}

/// Sentences of a slide body ([`text::words::sentences`]), list items
/// joined into their paragraph first.
fn sentences(body: &str) -> Vec<String> {
    body.split("\n\n")
        .flat_map(|paragraph| {
            let joined = paragraph
                .lines()
                .map(|l| l.trim().trim_start_matches(['-', '*', '+']).trim())
                .collect::<Vec<_>>()
                .join(" ");
            text::words::sentences(&joined)
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The figures of a sentence: tokens holding a digit, with their currency sign, unit
/// suffix or percent sign, trailing punctuation removed.
fn figures(sentence: &str) -> Vec<String> {
    sentence
        .split_whitespace()
        .map(|t| t.trim_end_matches([',', '.', ';', ':', ')', '!', '?']))
        .map(|t| t.trim_start_matches(['(', '"', '\'']))
        .filter(|t| t.chars().any(|c| c.is_ascii_digit()))
        .map(str::to_owned)
        .collect()
}

/// Every sentence of the deck that states a figure, in deck order.
pub fn claims(deck: &Deck, config: &PanelConfig) -> Vec<Claim> {
    let mut out = Vec::new();
    for slide in &deck.slides {
        for sentence in sentences(&slide.body) {
            let figures = figures(&sentence);
            if figures.is_empty() {
                continue;
            }
            let lower = sentence.to_lowercase();
            // The slide's title names the topic the sentence speaks to ("Market Size").
            let mut words = content_set(&sentence);
            words.extend(content_set(&slide.title));
            let owners = config
                .agents
                .iter()
                .filter(|a| {
                    a.focus.iter().any(|f| {
                        let needed = content_set(f);
                        !needed.is_empty() && needed.is_subset(&words)
                    })
                })
                .map(|a| a.name.clone())
                .collect();
            out.push(Claim {
                slide: slide.index,
                slide_title: slide.title.clone(),
                sourced: SOURCE_MARKERS.iter().any(|m| lower.contains(m)),
                sentence,
                figures,
                owners,
            });
        }
    }
    out
}

/// `external-intel.md`: the deck's checkable claims and the supplied research notes.
pub fn external_intel_markdown(deck: &Deck, config: &PanelConfig, notes: Option<&str>) -> String {
    let names: BTreeMap<&str, &str> = config
        .agents
        .iter()
        .map(|a| (a.name.as_str(), a.spoken_name()))
        .collect();
    let mut s = String::from("# External intel\n\n## Claims to check\n\n");
    let claims = claims(deck, config);
    if claims.is_empty() {
        s.push_str("The deck states no figures: ask for them.\n");
    }
    for c in &claims {
        let owners: Vec<&str> = c
            .owners
            .iter()
            .map(|o| names.get(o.as_str()).copied().unwrap_or(o))
            .collect();
        s.push_str(&format!(
            "- slide {} ({}): \"{}\" — figures {}; {}{}\n",
            c.slide,
            c.slide_title,
            excerpt(&c.sentence, 240),
            c.figures.join(", "),
            if c.sourced {
                "a source is named"
            } else {
                "no source given"
            },
            if owners.is_empty() {
                String::new()
            } else {
                format!("; for {}", owners.join(", "))
            }
        ));
    }
    s.push_str("\n## Research notes\n\n");
    match notes.map(str::trim).filter(|n| !n.is_empty()) {
        Some(notes) => {
            let cut: String = notes.chars().take(MAX_NOTES_CHARS).collect();
            s.push_str(&cut);
            if cut.len() < notes.len() {
                s.push_str("\n\n(notes cut here)");
            }
            s.push('\n');
        }
        None => s.push_str("None supplied: the panel knows only what the deck says.\n"),
    }
    s
}

/// `board-dossier.md`: who sits on the panel, how each one asks, and the session's rules,
/// so every agent knows its colleagues. `styles` maps agent names to the `style` line of
/// their persona templates (absent ones are left out).
pub fn board_dossier_markdown(config: &PanelConfig, styles: &BTreeMap<String, String>) -> String {
    let mut s = format!(
        "# Board dossier\n\nChair: {} (moderator). Intensity {}: each exchange ends after {} panelist turns. Questions come {}.\n\n",
        config.moderator,
        format!("{:?}", config.intensity).to_lowercase(),
        config.intensity.max_agent_turns(),
        match config.mode {
            crate::config::InteractionMode::SectionBreaks => "at section breaks",
            crate::config::InteractionMode::HandRaise => "by raised hands the presenter takes",
            crate::config::InteractionMode::FreeFlow => "whenever the presenter pauses",
        }
    );
    for a in &config.agents {
        s.push_str(&format!(
            "## {} ({})\n\n- role: {}\n- probes: {}\n",
            a.spoken_name(),
            a.name,
            format!("{:?}", a.role).to_lowercase(),
            a.focus.join(", ")
        ));
        if let Some(style) = styles.get(&a.name).filter(|s| !s.trim().is_empty()) {
            s.push_str(&format!("- style: {}\n", style.trim()));
        }
        s.push('\n');
    }
    s
}

/// `session-config.md`, written once at the start.
pub fn session_config_markdown(config: &PanelConfig, deck: &Deck, deck_path: &str) -> String {
    let mut s = String::from("# Session config\n\n");
    s.push_str(&format!("- moderator: {}\n", config.moderator));
    s.push_str(&format!("- intensity: {:?}\n", config.intensity).to_lowercase());
    s.push_str(&format!("- mode: {:?}\n", config.mode).to_lowercase());
    s.push_str(&format!(
        "- planned length: {} min\n",
        config.session_duration_s / 60
    ));
    s.push_str(&format!("- deck: {deck_path} ({} slides)\n", deck.len()));
    s.push_str("- panel:\n");
    for a in &config.agents {
        s.push_str(&format!(
            "  - {} ({}, {:?}): {}\n",
            a.spoken_name(),
            a.name,
            a.role,
            a.focus.join(", ")
        ));
    }
    s
}

/// `focus-brief.md` of a panelist: the slides that touch its focus areas.
pub fn focus_brief_markdown(config: &PanelConfig, deck: &Deck, agent: &str) -> String {
    let Some(a) = config.agents.iter().find(|a| a.name == agent) else {
        return "# Focus brief\n\nNot on this session's panel.\n".to_owned();
    };
    let mut s = format!(
        "# Focus brief: {}\n\nFocus areas: {}.\n\n",
        a.spoken_name(),
        a.focus.join(", ")
    );
    let mut any = false;
    for slide in (0..deck.len()).filter_map(|i| deck.slide(i)) {
        let hits: Vec<&str> = a
            .focus
            .iter()
            .filter(|f| slide.mentions(f))
            .map(String::as_str)
            .collect();
        if !hits.is_empty() {
            any = true;
            s.push_str(&format!(
                "- slide {} ({}): {} — {}\n",
                slide.index,
                slide.title,
                hits.join(", "),
                excerpt(&slide.body, 160)
            ));
        }
    }
    if !any {
        s.push_str("- no slide names these areas directly: ask what the deck leaves out.\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const DECK: &str = "# Acme\nIntro.\n## Market Size\nThe warehouse automation market is $40B and growing 14% a year. Our survey of 120 operators shows 70% plan to automate.\n## Pricing\nRobots at $2,500 per month, gross margin 62%. Revenue is $1.2M ARR.\n## Team\nWe love robots.";

    fn panel() -> PanelConfig {
        PanelConfig::from_yaml(
            "moderator: Diana Chen\nagents:\n  - name: skeptic\n    display_name: Marcus Webb\n    role: skeptic\n    focus: [margin, revenue]\n  - name: analyst\n    display_name: Priya Sharma\n    role: analyst\n    focus: [market size, survey]\n  - name: contrarian\n    role: contrarian\n    focus: [competition]\n",
        )
        .unwrap()
    }

    #[test]
    fn claims_are_the_sentences_with_figures() {
        let deck = Deck::parse(DECK);
        let claims = claims(&deck, &panel());
        let sentences: Vec<&str> = claims.iter().map(|c| c.sentence.as_str()).collect();
        assert_eq!(
            sentences,
            [
                "The warehouse automation market is $40B and growing 14% a year.",
                "Our survey of 120 operators shows 70% plan to automate.",
                "Robots at $2,500 per month, gross margin 62%.",
                "Revenue is $1.2M ARR.",
            ]
        );
        assert_eq!(claims[0].figures, ["$40B", "14%"]);
        assert!(!claims[0].sourced && claims[1].sourced);
        assert_eq!(claims[0].owners, ["analyst"], "market size");
        assert_eq!(claims[2].owners, ["skeptic"], "margin");
        assert_eq!(claims[3].slide_title, "Pricing");
    }

    #[test]
    fn intel_lists_claims_then_the_supplied_notes() {
        let deck = Deck::parse(DECK);
        let md = external_intel_markdown(&deck, &panel(), Some("Gartner puts the market at $30B."));
        assert!(md.starts_with("# External intel"));
        assert!(md.contains("figures $40B, 14%; no source given; for Priya Sharma"));
        assert!(md.contains("a source is named"));
        assert!(md.ends_with("Gartner puts the market at $30B.\n"));
        let bare = external_intel_markdown(&Deck::parse("## A\nNo numbers."), &panel(), None);
        assert!(bare.contains("The deck states no figures"));
        assert!(bare.contains("None supplied"));
    }

    #[test]
    fn dossier_names_every_panelist_with_style() {
        let styles = BTreeMap::from([("skeptic".to_owned(), "blunt, numbers first".to_owned())]);
        let md = board_dossier_markdown(&panel(), &styles);
        assert!(md.contains("Chair: Diana Chen"));
        assert!(md.contains("## Marcus Webb (skeptic)"));
        assert!(md.contains("- style: blunt, numbers first"));
        assert!(md.contains("## contrarian (contrarian)"));
        assert_eq!(md.matches("- style:").count(), 1);
    }

    #[test]
    fn focus_briefs_name_matching_slides() {
        let deck = Deck::parse(DECK);
        let config = PanelConfig::default();
        let brief = focus_brief_markdown(&config, &deck, "skeptic");
        assert!(brief.contains("Pricing"), "{brief}");
        assert!(focus_brief_markdown(&config, &deck, "economist").contains("Not on"));
    }

    proptest! {
        #[test]
        fn any_deck_gives_claims_with_figures(text in "\\PC{0,400}") {
            let deck = Deck::parse(&text);
            for c in claims(&deck, &panel()) {
                prop_assert!(!c.figures.is_empty());
                prop_assert!(c.figures.iter().all(|f| f.chars().any(|ch| ch.is_ascii_digit())));
            }
            let _ = external_intel_markdown(&deck, &panel(), Some(&text));
        }
    }
}

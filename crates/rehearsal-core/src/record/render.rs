//! The debrief in Markdown: the exchanges by slide, the challenges left open, the answers
//! as the panel rated them.

use std::fmt::Write as _;

use super::*;

fn cell(text: &str) -> String {
    excerpt(text, 80).replace('|', "\\|")
}

fn quote(text: &str) -> String {
    format!("\u{201c}{}\u{201d}", excerpt(text, 160))
}

fn clock(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}", s / 60, s % 60)
}

/// The panelist's name as the debrief writes it: how the panel calls it (its display
/// name), else its identifier.
pub(crate) fn spoken_name(config: &PanelConfig, agent: &str) -> String {
    config
        .agent_index(agent)
        .map(|i| config.agents[i].spoken_name().to_owned())
        .unwrap_or_else(|| agent.to_owned())
}

/// The debrief's section on the panel's ratings: each rated (or unrated) answer, then the
/// weakest one quoted with what a stronger answer would have used (the slide's figures).
pub fn render_ratings(ratings: &[RatingRecord], deck: &Deck, config: &PanelConfig) -> String {
    let name = |agent: &str| spoken_name(config, agent);
    let mut out = String::from("## Answers as the panel rated them\n\n");
    if ratings.is_empty() {
        out.push_str("No answer was rated.\n");
        return out;
    }
    out.push_str("| exchange | asked by | slide | rating | why |\n|---:|---|---|---|---|\n");
    for r in ratings {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            r.exchange,
            name(&r.agent),
            deck.title_of(r.slide),
            r.rating.map_or("unrated", Rating::as_str),
            r.why.replace('|', "/")
        );
    }
    let Some(weakest) = ratings
        .iter()
        .filter(|r| r.rating.is_some_and(|x| x != Rating::Answered))
        .min_by_key(|r| (r.rating, r.exchange))
    else {
        // Unrated answers are no answers met: they stay open (the section after this).
        if ratings.iter().all(|r| r.rating.is_none()) {
            out.push_str("\nNo rating came before the debrief.\n");
        } else {
            out.push_str("\nEvery rated answer met its question.\n");
        }
        return out;
    };
    let _ = write!(
        out,
        "\n**The weakest answer** (exchange {}, {} by {}):\n\n> {}: {}\n>\n> Presenter: {}\n\nWhy: {}\n",
        weakest.exchange,
        weakest.rating.map_or("unrated", Rating::as_str),
        name(&weakest.agent),
        name(&weakest.agent),
        weakest.question,
        weakest.answer,
        if weakest.why.is_empty() {
            "no reason given"
        } else {
            &weakest.why
        }
    );
    let figures: Vec<&str> = deck
        .slides
        .get(weakest.slide)
        .map(|s| {
            s.body
                .split_inclusive(['.', '!', '?'])
                .map(str::trim)
                .filter(|s| s.chars().any(|c| c.is_ascii_digit()))
                .take(2)
                .collect()
        })
        .unwrap_or_default();
    if !figures.is_empty() {
        let _ = writeln!(
            out,
            "A stronger answer would have used the slide's own figures: {}",
            figures.join(" ").replace('\n', " ")
        );
    }
    out
}

/// Renders the debrief in Markdown.
pub fn render_debrief(
    records: &[ExchangeRecord],
    deck: &Deck,
    config: &PanelConfig,
    elapsed_ms: u64,
) -> String {
    let name = |agent: &str| spoken_name(config, agent);
    let mut out = String::from("# Rehearsal debrief\n\n");
    let _ = writeln!(
        out,
        "Session {} of {} planned · intensity {} · mode {} · {} exchange{}\n",
        clock(elapsed_ms),
        clock(config.duration_ms()),
        match config.intensity {
            Intensity::Friendly => "friendly",
            Intensity::Moderate => "moderate",
            Intensity::Adversarial => "adversarial",
        },
        match config.mode {
            InteractionMode::SectionBreaks => "section breaks",
            InteractionMode::HandRaise => "hand raise",
            InteractionMode::FreeFlow => "free flow",
        },
        records.len(),
        if records.len() == 1 { "" } else { "s" }
    );

    // Exchanges per slide.
    out.push_str(
        "## Exchanges per slide\n\n| # | Slide | Exchanges | Panelists |\n|---|---|---|---|\n",
    );
    let mut per_slide: BTreeMap<usize, (usize, Vec<String>)> = BTreeMap::new();
    for r in records {
        let e = per_slide.entry(r.slide).or_default();
        e.0 += 1;
        for who in std::iter::once(&r.agent).chain(
            r.pile_on
                .as_ref()
                .and_then(|p| matches!(p.status, PileOnStatus::Asked { .. }).then_some(&p.agent)),
        ) {
            let n = name(who);
            if !e.1.contains(&n) {
                e.1.push(n);
            }
        }
    }
    let last = deck
        .len()
        .max(per_slide.keys().next_back().map_or(0, |k| k + 1));
    for index in 0..last {
        let (count, who) = per_slide.remove(&index).unwrap_or_default();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            index,
            cell(&deck.title_of(index)),
            count,
            if who.is_empty() {
                "—".to_owned()
            } else {
                cell(&who.join(", "))
            }
        );
    }

    // Questions that bite.
    let bites = questions_that_bite(records, deck);
    if !bites.is_empty() {
        out.push_str(
            "\n## Questions that bite\n\nA question bites when it names a figure of its \
             slide or of the answer before it, or takes up one of their claims.\n\n",
        );
        for b in &bites {
            let _ = writeln!(out, "- {}: {} of {}.", name(&b.agent), b.biting, b.asked);
        }
    }

    // Unresolved challenges.
    out.push_str("\n## Unresolved challenges\n\n");
    let mut any = false;
    for r in records {
        if r.outcome.is_unresolved() {
            any = true;
            let _ = writeln!(
                out,
                "- **{}** on *{}*: {} ({}).",
                name(&r.agent),
                r.slide_title,
                quote(r.question().unwrap_or("(no question recorded)")),
                r.outcome.describe()
            );
        }
        if let Some(p) = &r.pile_on
            && let PileOnStatus::SkippedTimeTight { remaining_ms } = p.status
        {
            any = true;
            let _ = writeln!(
                out,
                "- **{}** on *{}* (pile-on skipped, {} left): {}.",
                name(&p.agent),
                r.slide_title,
                clock(remaining_ms),
                quote(&p.question)
            );
        }
    }
    if !any {
        out.push_str("None.\n");
    }

    // Presenter profile.
    out.push_str("\n## Presenter profile\n\n");
    let answers: Vec<&TurnRecord> = records.iter().flat_map(|r| r.answers()).collect();
    let pile_answers: Vec<&String> = records
        .iter()
        .filter_map(|r| match &r.pile_on.as_ref()?.status {
            PileOnStatus::Asked { answer } => answer.as_ref(),
            _ => None,
        })
        .collect();
    let total_answers = answers.len() + pile_answers.len();
    let total_words: usize = answers.iter().map(|t| word_count(&t.text)).sum::<usize>()
        + pile_answers.iter().map(|a| word_count(a)).sum::<usize>();
    match total_words.checked_div(total_answers) {
        None => out.push_str("- No answers were recorded.\n"),
        Some(average) => {
            let _ = writeln!(
                out,
                "- Answers given: {total_answers}, {average} words on average."
            );
        }
    }
    let dodged: Vec<(&ExchangeRecord, &TurnRecord)> = records
        .iter()
        .flat_map(|r| r.turns.iter().filter(|t| t.dodged).map(move |t| (r, t)))
        .collect();
    let _ = writeln!(
        out,
        "- Answers that did not touch the question's topic: {}.",
        dodged.len()
    );
    for (r, t) in &dodged {
        let _ = writeln!(out, "  - On *{}*: {}", r.slide_title, quote(&t.text));
    }
    let count = |o: Outcome| records.iter().filter(|r| r.outcome == o).count();
    let stepped = records
        .iter()
        .filter(|r| r.outcome.moderator_stepped_in())
        .count();
    let _ = writeln!(
        out,
        "- The moderator stepped in {stepped} time{} (turn limit {}, circular {}, friendly close {}).",
        if stepped == 1 { "" } else { "s" },
        count(Outcome::TurnLimit),
        count(Outcome::Circular),
        count(Outcome::FriendlyClose)
    );
    let _ = writeln!(
        out,
        "- The presenter asked to move on {} time(s); left {} question(s) unanswered.",
        count(Outcome::PresenterMovedOn),
        count(Outcome::NoAnswer)
    );

    // Exchange log.
    out.push_str("\n## Exchange log\n");
    if records.is_empty() {
        out.push_str("\nNo exchanges.\n");
    }
    for (n, r) in records.iter().enumerate() {
        let _ = writeln!(
            out,
            "\n### {}. {} on {} ({}, {}–{})\n",
            n + 1,
            name(&r.agent),
            r.slide_title,
            r.trigger.label(),
            clock(r.started_ms),
            clock(r.ended_ms)
        );
        for t in &r.turns {
            let who = match &t.speaker {
                Speaker::Agent(a) => name(a),
                Speaker::Presenter => "Presenter".to_owned(),
            };
            let _ = writeln!(
                out,
                "- {who}: {}{}",
                quote(&t.text),
                if t.dodged { " *(off-topic)*" } else { "" }
            );
        }
        if let Some(p) = &r.pile_on {
            match &p.status {
                PileOnStatus::Asked { answer } => {
                    let _ = writeln!(out, "- Pile-on, {}: {}", name(&p.agent), quote(&p.question));
                    if let Some(a) = answer {
                        let _ = writeln!(out, "- Presenter: {}", quote(a));
                    }
                }
                PileOnStatus::SkippedTimeTight { .. } => {
                    let _ = writeln!(
                        out,
                        "- Pile-on by {} skipped: time was tight.",
                        name(&p.agent)
                    );
                }
            }
        }
        let _ = writeln!(out, "- Outcome: {}.", r.outcome.describe());
    }
    out
}

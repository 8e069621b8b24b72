//! What the presenter's screen shows of the session: the slide with its points, the
//! phase, the exchange under way and its turn count, the raised hands, the panel and,
//! once the session is over, the debrief. The rehearsal sends it (`board`, JSON) each
//! time it changes, so a page draws it without knowing the rules.

use serde::Serialize;

use crate::dashboard::Dashboard;
use crate::{Intensity, InteractionMode, Phase, Rehearsal};

/// The debrief as it was written when the session ended: its Markdown and its figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WrittenDebrief {
    pub markdown: String,
    pub dashboard: Dashboard,
}

/// Points kept per slide, and characters per point: a slide is read at a glance.
const MAX_POINTS: usize = 12;
const MAX_POINT_CHARS: usize = 400;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Board {
    /// The slide on show (its fields stand at the board's top level in the JSON).
    #[serde(flatten)]
    pub on_show: SlideView,
    /// `presenting`, `qa_trigger`, `exchange`, `resolving`, `ended`.
    pub phase: &'static str,
    pub mode: InteractionMode,
    pub intensity: Intensity,
    pub moderator: String,
    pub panel: Vec<Panelist>,
    pub exchange: Option<ExchangeView>,
    /// The panelist holding the floor, if any.
    pub speaking: Option<String>,
    /// Raised hands, earliest first.
    pub hands: Vec<Panelist>,
    pub exchanges_logged: usize,
    /// Whole minutes of the session left.
    pub minutes_left: u64,
    /// The debrief (Markdown), once the session is over.
    pub debrief: Option<String>,
    /// The debrief's figures, drawn beside it (boxed: a board is sent often, its figures
    /// once).
    pub dashboard: Option<Box<Dashboard>>,
}

/// The slide the presenter is on, as the page shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SlideView {
    /// Its index (0 = the first slide of the deck), of `slides`.
    pub slide: usize,
    pub slides: usize,
    pub title: String,
    /// Its body as the points a presenter would show: bullets and paragraphs.
    pub points: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Panelist {
    /// The panelist's id (a bridge's node id, the `ack` argument).
    pub agent: String,
    /// The spoken name.
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExchangeView {
    pub id: u64,
    pub agent: String,
    pub name: String,
    pub slide: usize,
    /// The panelist's turns so far (question and follow-ups) and the intensity's limit.
    pub turns: u32,
    pub max_turns: u32,
}

impl Board {
    /// The board of `rehearsal` at `now_ms`, with the debrief once it was written.
    pub fn of(rehearsal: &Rehearsal, debrief: Option<&WrittenDebrief>, now_ms: u64) -> Self {
        let debrief = debrief.filter(|_| rehearsal.phase() == Phase::Ended);
        let config = rehearsal.config();
        let panelist = |agent: &str| Panelist {
            agent: agent.to_owned(),
            name: config
                .agent_index(agent)
                .map_or(agent, |i| config.agents[i].spoken_name())
                .to_owned(),
        };
        let deck = rehearsal.deck();
        let slide = rehearsal.current_slide();
        Self {
            on_show: SlideView {
                slide,
                slides: deck.len(),
                title: deck.title_of(slide),
                points: deck
                    .slide(slide)
                    .map(|s| points(&s.body))
                    .unwrap_or_default(),
            },
            phase: rehearsal.phase().name(),
            mode: config.mode,
            intensity: config.intensity,
            moderator: config.moderator.clone(),
            panel: config.agents.iter().map(|a| panelist(&a.name)).collect(),
            exchange: rehearsal.exchange().map(|(id, agent, slide)| ExchangeView {
                id,
                agent: agent.to_owned(),
                name: panelist(agent).name,
                slide,
                turns: rehearsal.exchange_agent_turns().unwrap_or(0),
                max_turns: config.intensity.max_agent_turns(),
            }),
            speaking: rehearsal.speaking().map(|(agent, _)| agent.to_owned()),
            hands: rehearsal.hands_raised().into_iter().map(panelist).collect(),
            exchanges_logged: rehearsal.records().len(),
            minutes_left: rehearsal.remaining_ms(now_ms).div_ceil(60_000),
            debrief: debrief.map(|d| d.markdown.clone()),
            dashboard: debrief.map(|d| Box::new(d.dashboard.clone())),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// A slide body as points: each bullet or numbered item is one, a paragraph (lines
/// wrapped in the source joined) is one; headings inside the body are points too.
pub fn points(body: &str) -> Vec<String> {
    let mut points: Vec<String> = Vec::new();
    let mut open = false;
    for line in body.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("```") || line.starts_with("~~~") {
            open = false;
            continue;
        }
        let item = bullet(line);
        let text = item.unwrap_or(line).trim_start_matches('#').trim();
        if text.is_empty() {
            continue;
        }
        match points.last_mut() {
            Some(last) if open && item.is_none() && !line.starts_with('#') => {
                last.push(' ');
                last.push_str(text);
            }
            _ => points.push(text.to_owned()),
        }
        open = !line.starts_with('#');
    }
    points
        .into_iter()
        .take(MAX_POINTS)
        .map(|p| match p.char_indices().nth(MAX_POINT_CHARS) {
            Some((cut, _)) => format!("{}…", &p[..cut]),
            None => p,
        })
        .collect()
}

/// The text of a bullet (`-`, `*`, `+`) or numbered (`1.`, `2)`) item.
fn bullet(line: &str) -> Option<&str> {
    if let Some(rest) = line
        .strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))
        .or_else(|| line.strip_prefix("+ "))
    {
        return Some(rest);
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && digits <= 3 {
        let rest = &line[digits..];
        return rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") "));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Deck, PanelConfig, PhraseLibrary};

    #[test]
    fn wrapped_paragraphs_and_bullets_become_points() {
        let body = "Mid-size warehouses lose margin:\nstaff turnover runs above 40%.\n\n- Robots as a service\n- $2,500 per robot\n  per month? no, a new item\n1. First step\n2) Second step\n### Details\nMore text.";
        assert_eq!(
            points(body),
            vec![
                "Mid-size warehouses lose margin: staff turnover runs above 40%.",
                "Robots as a service",
                "$2,500 per robot per month? no, a new item",
                "First step",
                "Second step",
                "Details",
                "More text.",
            ]
        );
        assert!(points("").is_empty());
        assert_eq!(points("```\ncode\n```").len(), 1);
    }

    #[test]
    fn the_board_follows_the_session() {
        let config = PanelConfig::from_yaml("intensity: friendly").unwrap();
        let deck = Deck::parse("## Problem\n- Manual picking kills margin.\n## Market\nTAM $40B.");
        let mut core = Rehearsal::new(
            config,
            deck,
            PhraseLibrary::builtin(),
            crate::rehearsal::Config { paced: true },
        )
        .unwrap();
        let board = Board::of(&core, None, 0);
        assert_eq!((board.on_show.slide, board.on_show.slides), (0, 2));
        assert_eq!(board.on_show.title, "Problem");
        assert_eq!(board.on_show.points, vec!["Manual picking kills margin."]);
        // The page reads the slide's fields at the board's top level.
        let json: serde_json::Value = serde_json::from_str(&board.to_json()).unwrap();
        assert_eq!(
            (&json["title"], &json["slides"]),
            (&"Problem".into(), &2.into())
        );
        assert_eq!(board.phase, "presenting");
        assert_eq!(board.panel.len(), 3);
        assert!(board.exchange.is_none() && board.debrief.is_none());
        core.decide(
            crate::Event::PresenterSpeech {
                text: "Picking is costly.".into(),
                start_ms: 0,
                end_ms: 4_000,
            },
            4_000,
        );
        core.decide(crate::Event::SlideChanged { index: 1 }, 5_000);
        let board = Board::of(&core, None, 5_000);
        assert_eq!(board.on_show.title, "Market");
        let exchange = board.exchange.expect("a section break opens an exchange");
        assert_eq!(
            (exchange.slide, exchange.turns, exchange.max_turns),
            (0, 1, 2)
        );
        assert_eq!(board.speaking.as_deref(), Some(exchange.agent.as_str()));
        assert_eq!(exchange.name, "Marcus Webb");
        core.decide(crate::Event::EndSession, 6_000);
        let written = WrittenDebrief {
            markdown: "# Debrief".into(),
            dashboard: core.dashboard(),
        };
        let board = Board::of(&core, Some(&written), 6_000);
        assert_eq!(board.phase, "ended");
        assert_eq!(board.debrief.as_deref(), Some("# Debrief"));
        assert_eq!(board.dashboard.as_deref(), Some(&written.dashboard));
        let json: serde_json::Value = serde_json::from_str(&board.to_json()).unwrap();
        assert_eq!(json["mode"], "section_breaks");
        assert_eq!(json["intensity"], "friendly");
    }
}

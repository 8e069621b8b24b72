//! What the panel remembers of a presenter across sessions: each session's pace, fillers
//! and the challenges it left open (answers the panel rated partly or dodged, or left
//! unrated). The node keeps one file per presenter beside the sessions; the next session's
//! panelists find what they left open in their presenter profile and ask about it first,
//! and the debrief compares the two sessions.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::rating::{Rating, RatingRecord};

/// A challenge a session left open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenChallenge {
    /// The panelist who asked (its identifier).
    pub agent: String,
    pub slide: usize,
    pub slide_title: String,
    pub question: String,
    /// How the answer was rated (`None`: unrated).
    pub rating: Option<Rating>,
}

/// One session, as the next one remembers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PastSession {
    /// The session folder's name.
    pub session: String,
    /// When it ended (wall clock, set by the node).
    pub ended_unix_ms: u64,
    pub words_per_minute: Option<f64>,
    pub fillers_per_minute: Option<f64>,
    pub open: Vec<OpenChallenge>,
}

impl PastSession {
    /// The first challenge `agent` left open in this session, if any: the question it
    /// asks again first in the next.
    pub fn first_open_for(&self, agent: &str) -> Option<&OpenChallenge> {
        self.open.iter().find(|c| c.agent == agent)
    }
}

/// A presenter's sessions, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PresenterHistory {
    pub presenter: String,
    pub sessions: Vec<PastSession>,
}

/// Sessions a history keeps; older ones are dropped.
pub const MAX_SESSIONS: usize = 50;

impl PresenterHistory {
    pub fn new(presenter: impl Into<String>) -> Self {
        Self {
            presenter: presenter.into(),
            sessions: Vec::new(),
        }
    }

    pub fn parse(json: &str) -> Result<Self, String> {
        serde_json::from_str(json).map_err(|e| format!("not a presenter history: {e}"))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a history serialises")
    }

    pub fn last(&self) -> Option<&PastSession> {
        self.sessions.last()
    }

    /// Adds a session (the oldest leave past [`MAX_SESSIONS`]).
    pub fn push(&mut self, session: PastSession) {
        self.sessions.push(session);
        let extra = self.sessions.len().saturating_sub(MAX_SESSIONS);
        self.sessions.drain(..extra);
    }
}

/// The challenges left open by a session's ratings: every answer not rated answered.
pub fn open_challenges(
    ratings: &[RatingRecord],
    title: impl Fn(usize) -> String,
) -> Vec<OpenChallenge> {
    ratings
        .iter()
        .filter(|r| r.rating != Some(Rating::Answered))
        .map(|r| OpenChallenge {
            agent: r.agent.clone(),
            slide: r.slide,
            slide_title: title(r.slide),
            question: r.question.clone(),
            rating: r.rating,
        })
        .collect()
}

/// What a panelist finds in its presenter profile at the start of a session: what it
/// left open last time, to ask about first. `None` when it left nothing open.
pub fn left_open_for(agent: &str, last: &PastSession) -> Option<String> {
    let mine: Vec<&OpenChallenge> = last.open.iter().filter(|c| c.agent == agent).collect();
    if mine.is_empty() {
        return None;
    }
    let mut out = String::from(
        "## Left open in the last session\n\nAsk about these first, before anything new:\n",
    );
    for c in mine {
        let _ = writeln!(
            out,
            "- on “{}”: you asked “{}”; the answer was {}.",
            c.slide_title,
            c.question,
            c.rating.map_or("never rated", Rating::as_str)
        );
    }
    Some(out)
}

/// The debrief's section on what this session leaves open: what the next session's
/// panel is told and asks about first (`name` gives a panelist's spoken name).
pub fn render_left_open(open: &[OpenChallenge], name: impl Fn(&str) -> String) -> String {
    let mut out = String::from("## Left open for next time\n\n");
    if open.is_empty() {
        out.push_str("Nothing: every answer was rated answered.\n");
        return out;
    }
    out.push_str("The panel asks about these first next session:\n\n");
    for c in open {
        let _ = writeln!(
            out,
            "- **{}** on *{}*: “{}” ({}).",
            name(&c.agent),
            c.slide_title,
            c.question,
            c.rating.map_or("never rated", |r| match r {
                Rating::Answered => "answered",
                Rating::Partly => "answered in part",
                Rating::Dodged => "dodged",
            })
        );
    }
    out
}

/// How many of the challenges `last` left open were answered in `ratings`: rated answered
/// by the same panelist on the same slide.
pub fn answered_again(last: &PastSession, ratings: &[RatingRecord]) -> usize {
    last.open
        .iter()
        .filter(|c| {
            ratings.iter().any(|r| {
                r.agent == c.agent && r.slide == c.slide && r.rating == Some(Rating::Answered)
            })
        })
        .count()
}

/// The debrief's comparison with the last session: pace, fillers, and how many of the
/// challenges it left open were answered this time (rated answered by the same panelist
/// on the same slide).
pub fn compare(
    last: &PastSession,
    words_per_minute: Option<f64>,
    fillers_per_minute: Option<f64>,
    ratings: &[RatingRecord],
) -> String {
    let figure = |v: Option<f64>| v.map_or_else(|| "–".to_owned(), |v| format!("{v:.0}"));
    let one = |v: Option<f64>| v.map_or_else(|| "–".to_owned(), |v| format!("{v:.1}"));
    let answered = answered_again(last, ratings);
    let mut out = String::from("## Since the last session\n\n");
    let _ = writeln!(
        out,
        "- Pace {} → {} words a minute.",
        figure(last.words_per_minute),
        figure(words_per_minute)
    );
    let _ = writeln!(
        out,
        "- Filler words {} → {} a minute.",
        one(last.fillers_per_minute),
        one(fillers_per_minute)
    );
    let _ = writeln!(
        out,
        "- {answered} of {} challenge(s) left open last time answered.",
        last.open.len()
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rating(agent: &str, slide: usize, rating: Option<Rating>) -> RatingRecord {
        RatingRecord {
            exchange: 1,
            agent: agent.into(),
            slide,
            question: format!("{agent}'s question on slide {slide}?"),
            answer: "An answer.".into(),
            rating,
            why: String::new(),
        }
    }

    fn session(open: Vec<OpenChallenge>) -> PastSession {
        PastSession {
            session: "s1".into(),
            ended_unix_ms: 1,
            words_per_minute: Some(168.0),
            fillers_per_minute: Some(9.0),
            open,
        }
    }

    #[test]
    fn what_was_not_answered_is_left_open_and_told_to_its_asker() {
        let ratings = [
            rating("skeptic", 1, Some(Rating::Dodged)),
            rating("analyst", 2, Some(Rating::Answered)),
            rating("contrarian", 3, None),
        ];
        let open = open_challenges(&ratings, |s| format!("Slide {s}"));
        assert_eq!(open.len(), 2);
        let last = session(open);
        let told = left_open_for("skeptic", &last).unwrap();
        assert!(told.contains("skeptic's question on slide 1?"), "{told}");
        assert!(told.contains("dodged") && told.contains("Ask about these first"));
        assert!(left_open_for("analyst", &last).is_none());
        assert!(
            left_open_for("contrarian", &last)
                .unwrap()
                .contains("never rated")
        );
    }

    #[test]
    fn the_debrief_lists_what_the_next_panel_asks_first() {
        let open = open_challenges(
            &[
                rating("skeptic", 1, Some(Rating::Dodged)),
                rating("analyst", 2, Some(Rating::Answered)),
                rating("contrarian", 3, None),
            ],
            |s| format!("Slide {s}"),
        );
        let text = render_left_open(&open, |agent| agent.to_uppercase());
        assert!(text.starts_with("## Left open for next time"), "{text}");
        assert!(
            text.contains("- **SKEPTIC** on *Slide 1*: “skeptic's question on slide 1?” (dodged)."),
            "{text}"
        );
        assert!(text.contains("CONTRARIAN") && text.contains("(never rated)"));
        assert!(!text.contains("ANALYST"), "{text}");
        assert!(render_left_open(&[], str::to_owned).contains("Nothing"));
    }

    #[test]
    fn the_debrief_compares_with_the_last_session() {
        let last = session(open_challenges(
            &[
                rating("skeptic", 1, Some(Rating::Dodged)),
                rating("analyst", 2, Some(Rating::Partly)),
            ],
            |s| format!("Slide {s}"),
        ));
        let now = [rating("skeptic", 1, Some(Rating::Answered))];
        let text = compare(&last, Some(142.4), Some(4.0), &now);
        assert!(text.contains("Pace 168 → 142 words a minute."), "{text}");
        assert!(text.contains("Filler words 9.0 → 4.0 a minute."), "{text}");
        assert!(text.contains("1 of 2 challenge(s) left open last time answered."));
    }

    #[test]
    fn a_history_round_trips_keeps_its_newest_and_refuses_garbage() {
        let mut history = PresenterHistory::new("Ada");
        for i in 0..MAX_SESSIONS + 3 {
            history.push(PastSession {
                session: format!("s{i}"),
                ..session(Vec::new())
            });
        }
        assert_eq!(history.sessions.len(), MAX_SESSIONS);
        assert_eq!(
            history.last().unwrap().session,
            format!("s{}", MAX_SESSIONS + 2)
        );
        assert_eq!(
            PresenterHistory::parse(&history.to_json()).unwrap(),
            history
        );
        assert!(PresenterHistory::parse("{not json").is_err());
        assert!(PresenterHistory::parse("[]").is_err());
    }
}

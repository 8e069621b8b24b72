//! The debrief's figures as the presenter's page draws them: pace and fillers, the time
//! each slide was up against its plan, the panel's ratings, the challenges left open and
//! the change since the last session. Built from the same reports as `debrief.md`, so the
//! page and the file never disagree.

use serde::Serialize;

use crate::history::{self, OpenChallenge, PastSession};
use crate::rating::{Rating, RatingRecord};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Dashboard {
    pub session_ms: u64,
    pub planned_ms: u64,
    pub words_per_minute: Option<f64>,
    pub fillers_per_minute: Option<f64>,
    pub hedges_per_minute: Option<f64>,
    /// Silences of two seconds or more while presenting.
    pub long_pauses: usize,
    /// In the order first shown: the pace over the session.
    pub slides: Vec<SlideFigures>,
    pub ratings: RatingCounts,
    /// Each panelist's questions, and how many named a figure or took up a claim.
    pub bites: Vec<PanelistBites>,
    pub open_challenges: Vec<OpenChallenge>,
    /// `None` on a first session (or a fresh start).
    pub since_last: Option<SinceLast>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SlideFigures {
    pub slide: usize,
    pub title: String,
    pub shown_ms: u64,
    pub planned_ms: Option<u64>,
    pub words_per_minute: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PanelistBites {
    /// The spoken name.
    pub name: String,
    pub biting: usize,
    pub asked: usize,
}

/// The panel's verdicts on the answers, each answer counted once.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RatingCounts {
    pub answered: usize,
    pub partly: usize,
    pub dodged: usize,
    pub unrated: usize,
}

impl RatingCounts {
    pub fn of(ratings: &[RatingRecord]) -> Self {
        let mut counts = Self::default();
        for record in ratings {
            match record.rating {
                Some(Rating::Answered) => counts.answered += 1,
                Some(Rating::Partly) => counts.partly += 1,
                Some(Rating::Dodged) => counts.dodged += 1,
                None => counts.unrated += 1,
            }
        }
        counts
    }
}

/// The last session's figures beside this one's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SinceLast {
    /// Last session's, then this one's.
    pub words_per_minute: [Option<f64>; 2],
    pub fillers_per_minute: [Option<f64>; 2],
    /// Challenges the last session left open, and how many of them were answered now.
    pub left_open: usize,
    pub answered: usize,
}

impl Dashboard {
    pub fn new(
        session_ms: u64,
        planned_ms: u64,
        delivery: &delivery::DeliveryReport,
        title: impl Fn(usize) -> String,
        ratings: &[RatingRecord],
        bites: Vec<PanelistBites>,
        previous: Option<&PastSession>,
    ) -> Self {
        Self {
            session_ms,
            planned_ms,
            words_per_minute: delivery.words_per_minute,
            fillers_per_minute: delivery.fillers_per_minute,
            hedges_per_minute: delivery.hedges_per_minute,
            long_pauses: delivery.long_pauses.len(),
            slides: delivery
                .slides
                .iter()
                .map(|s| SlideFigures {
                    slide: s.slide,
                    title: title(s.slide),
                    shown_ms: s.shown_ms,
                    planned_ms: s.planned_ms,
                    words_per_minute: s.words_per_minute,
                })
                .collect(),
            ratings: RatingCounts::of(ratings),
            bites,
            open_challenges: history::open_challenges(ratings, &title),
            since_last: previous.map(|last| SinceLast {
                words_per_minute: [last.words_per_minute, delivery.words_per_minute],
                fillers_per_minute: [last.fillers_per_minute, delivery.fillers_per_minute],
                left_open: last.open.len(),
                answered: history::answered_again(last, ratings),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rated(agent: &str, slide: usize, rating: Option<Rating>) -> RatingRecord {
        RatingRecord {
            exchange: 1,
            agent: agent.into(),
            slide,
            question: format!("{agent} asks about slide {slide}?"),
            answer: "Because of the pilot.".into(),
            rating,
            why: String::new(),
        }
    }

    fn delivery_of(words_per_minute: Option<f64>) -> delivery::DeliveryReport {
        delivery::DeliveryReport {
            speaking_ms: 60_000,
            words: 140,
            words_per_minute,
            fillers: Default::default(),
            fillers_per_minute: Some(2.0),
            hedges: Default::default(),
            hedges_per_minute: Some(1.0),
            long_pauses: vec![],
            slides: vec![delivery::SlideDelivery {
                slide: 1,
                shown_ms: 90_000,
                planned_ms: Some(60_000),
                speaking_ms: 60_000,
                words: 140,
                words_per_minute,
            }],
            answers: vec![],
            estimated_lines: 0,
        }
    }

    #[test]
    fn the_figures_count_each_verdict_and_compare_with_the_last_session() {
        let ratings = [
            rated("skeptic", 1, Some(Rating::Answered)),
            rated("analyst", 2, Some(Rating::Dodged)),
            rated("contrarian", 2, None),
        ];
        let last = PastSession {
            session: "before".into(),
            ended_unix_ms: 0,
            words_per_minute: Some(168.0),
            fillers_per_minute: Some(9.0),
            open: history::open_challenges(&[rated("skeptic", 1, Some(Rating::Partly))], |s| {
                format!("Slide {s}")
            }),
        };
        let dashboard = Dashboard::new(
            300_000,
            1_200_000,
            &delivery_of(Some(140.0)),
            |s| format!("Slide {s}"),
            &ratings,
            vec![PanelistBites {
                name: "Marcus Webb".into(),
                biting: 1,
                asked: 2,
            }],
            Some(&last),
        );
        assert_eq!(
            dashboard.ratings,
            RatingCounts {
                answered: 1,
                partly: 0,
                dodged: 1,
                unrated: 1
            }
        );
        assert_eq!(dashboard.open_challenges.len(), 2);
        assert_eq!(dashboard.bites[0].asked, 2);
        assert_eq!(dashboard.slides[0].title, "Slide 1");
        assert_eq!(dashboard.slides[0].planned_ms, Some(60_000));
        let since = dashboard.since_last.expect("a last session");
        assert_eq!(since.words_per_minute, [Some(168.0), Some(140.0)]);
        assert_eq!((since.left_open, since.answered), (1, 1));
        // A first session compares with nothing.
        let first = Dashboard::new(
            1,
            1,
            &delivery_of(None),
            |s| s.to_string(),
            &[],
            vec![],
            None,
        );
        assert!(first.since_last.is_none() && first.open_challenges.is_empty());
        assert_eq!(first.ratings, RatingCounts::default());
    }
}

//! The debrief: what the session is worth to the presenter, as Markdown, as the page's
//! dashboard and as `debrief.json`, and what the presenter's history keeps of it.

use crate::history::{self, OpenChallenge, PastSession};
use crate::rating::RatingRecord;
use crate::record::render_ratings;
use crate::{ExchangeRecord, render_debrief};

use super::Rehearsal;

/// The debrief's figures, as `debrief.json` holds them (the page's dashboard reads it).
#[derive(Debug, Clone, serde::Serialize)]
pub struct DebriefFigures {
    pub session_ms: u64,
    /// The session's planned length (the panel file's `session_duration_s`).
    pub planned_ms: u64,
    pub exchanges: Vec<ExchangeRecord>,
    pub ratings: Vec<RatingRecord>,
    pub open_challenges: Vec<OpenChallenge>,
    pub delivery: delivery::DeliveryReport,
}

impl Rehearsal {
    /// The debrief as it would be written now.
    pub fn debrief_markdown(&self) -> String {
        let mut markdown =
            render_debrief(&self.results.records, &self.deck, &self.config, self.now);
        markdown.push('\n');
        markdown.push_str(&render_ratings(
            &self.results.ratings,
            &self.deck,
            &self.config,
        ));
        markdown.push('\n');
        markdown.push_str(&history::render_left_open(
            &self.open_challenges(),
            |agent| crate::record::spoken_name(&self.config, agent),
        ));
        markdown.push('\n');
        let delivery = self.delivery();
        markdown.push_str(&delivery.to_markdown(|slide| self.slide_title(slide)));
        if let Some(last) = &self.panel.previous {
            markdown.push('\n');
            markdown.push_str(&history::compare(
                last,
                delivery.words_per_minute,
                delivery.fillers_per_minute,
                &self.results.ratings,
            ));
        }
        markdown
    }

    /// Remembers the presenter's last session: its open challenges go to the panelists
    /// who asked them at the start, and the debrief compares with it.
    pub fn with_previous(mut self, previous: Option<PastSession>) -> Self {
        self.panel.previous = previous;
        self
    }

    /// The challenges this session leaves open (answers not rated answered).
    pub fn open_challenges(&self) -> Vec<OpenChallenge> {
        history::open_challenges(&self.results.ratings, |slide| self.slide_title(slide))
    }

    /// How the presenter spoke so far.
    pub fn delivery(&self) -> delivery::DeliveryReport {
        self.results
            .delivery
            .report(self.now, |slide| self.config.planned_slide_ms(slide))
    }

    /// The debrief's figures as the page draws them.
    pub fn dashboard(&self) -> crate::dashboard::Dashboard {
        crate::dashboard::Dashboard::new(
            self.now,
            self.config.duration_ms(),
            &self.delivery(),
            |slide| self.slide_title(slide),
            &self.results.ratings,
            crate::record::questions_that_bite(&self.results.records, &self.deck)
                .into_iter()
                .map(|b| crate::dashboard::PanelistBites {
                    name: crate::record::spoken_name(&self.config, &b.agent),
                    biting: b.biting,
                    asked: b.asked,
                })
                .collect(),
            self.panel.previous.as_ref(),
        )
    }

    /// The debrief's figures, for `debrief.json`: the session's length, its exchanges and
    /// the delivery measures.
    pub fn debrief_figures(&self) -> DebriefFigures {
        DebriefFigures {
            session_ms: self.now,
            planned_ms: self.config.duration_ms(),
            exchanges: self.results.records.clone(),
            ratings: self.results.ratings.clone(),
            open_challenges: self.open_challenges(),
            delivery: self.delivery(),
        }
    }

    /// [`Self::debrief_figures`] in JSON.
    pub(super) fn debrief_figures_json(&self) -> String {
        serde_json::to_string(&self.debrief_figures()).unwrap_or_default()
    }

    /// This session as the presenter's history keeps it; the node sets its name and time.
    pub fn remembered(&self) -> PastSession {
        let delivery = self.delivery();
        PastSession {
            session: String::new(),
            ended_unix_ms: 0,
            words_per_minute: delivery.words_per_minute,
            fillers_per_minute: delivery.fillers_per_minute,
            open: self.open_challenges(),
        }
    }

    fn slide_title(&self, slide: usize) -> String {
        match self.deck.slides.get(slide) {
            Some(s) if !s.title.trim().is_empty() => s.title.clone(),
            _ => format!("slide {slide}"),
        }
    }
}

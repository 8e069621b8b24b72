//! Side requests to the panel (candidate questions, ratings of an answer), and the
//! matching of their replies.

use voice_protocol::{ids, messages::SideRequest, shorten};

use super::Output;
use super::Rehearsal;
use super::decisions::{CandidatePurpose, Event};
use super::files::{AgentFile, ContextFile, RecordEvent, WriteMode};
use super::notice::Notice;
use crate::messages;
use crate::rating::{
    RATING_KIND, RATING_MAX_WORDS, RATING_VERDICTS, RATING_WITHIN_MS, RatingRecord, parse_rating,
    rating_prompt,
};
use crate::record::{ExchangeRecord, Speaker};

/// Candidate-question requests remembered at most; older answers would be about an
/// old slide anyway.
pub(super) const MAX_OPEN_REQUESTS: usize = 32;

/// How long a panelist's unanswered request keeps it from being asked again. A bridge
/// answers every request within its time (with an error at worst); this only frees a
/// panelist whose reply was lost.
pub(super) const REPLY_PATIENCE_MS: u64 = crate::rating::RATING_WITHIN_MS + 30_000;

/// A side request in flight.
#[derive(Debug, Clone)]
pub(super) struct Request {
    /// The panelists asked whose reply has not come yet.
    pub(super) agents: Vec<String>,
    pub(super) opened_ms: u64,
    pub(super) slide: usize,
    pub(super) purpose: CandidatePurpose,
    /// A rating of the answer in exchange `rates`, not a candidate question.
    pub(super) rates: Option<u64>,
}

impl Rehearsal {
    /// Asks the panelist who opened a logged exchange to rate the presenter's answer.
    pub(super) fn ask_rating(
        &mut self,
        record: &ExchangeRecord,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        let Some(question) = record.question().map(str::to_owned) else {
            return;
        };
        let answer = record
            .turns
            .iter()
            .filter(|t| t.speaker == Speaker::Presenter)
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        if answer.trim().is_empty() {
            return;
        }
        let id = self.pending.requests.open(
            "rate",
            Request {
                agents: vec![record.agent.clone()],
                opened_ms: now_ms,
                slide: record.slide,
                purpose: CandidatePurpose::Question,
                rates: Some(record.id),
            },
            None,
        );
        let prompt = rating_prompt(&question, &answer);
        out.push(Output::Request(
            SideRequest::text(id, RATING_KIND, prompt, RATING_MAX_WORDS)
                .to(record.agent.clone())
                .within(RATING_WITHIN_MS)
                .opening_with(RATING_VERDICTS),
        ));
        self.results.ratings.push(RatingRecord {
            exchange: record.id,
            agent: record.agent.clone(),
            slide: record.slide,
            question,
            answer,
            rating: None,
            why: "unrated: no reply came before the debrief".to_owned(),
        });
    }

    /// Whether `agent` was asked something it has not replied to yet: a panelist's model
    /// answers one request at a time, and on a busy machine a new one asked before the
    /// last was answered only waits behind it, then times out.
    pub(super) fn awaits_reply(&self, agent: &str, now_ms: u64) -> bool {
        self.pending.requests.values().any(|r| {
            r.agents.iter().any(|a| a == agent)
                && now_ms < r.opened_ms.saturating_add(REPLY_PATIENCE_MS)
        })
    }

    /// Whether a rating asked for is still awaited (its panelist has not replied and the
    /// request is still wanted).
    pub(super) fn ratings_pending(&self, now_ms: u64) -> bool {
        self.pending.requests.values().any(|r| {
            r.rates.is_some()
                && !r.agents.is_empty()
                && now_ms < r.opened_ms.saturating_add(RATING_WITHIN_MS)
        })
    }

    /// A panelist's rating of an answer: its verdict and why, or unrated with the reason.
    fn rated(
        &mut self,
        exchange: u64,
        agent: &str,
        text: &str,
        error: Option<String>,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        let Some(record) = self
            .results
            .ratings
            .iter_mut()
            .find(|r| r.exchange == exchange && r.agent == agent)
        else {
            return;
        };
        match (error, parse_rating(text)) {
            (Some(error), _) => record.why = format!("unrated: {error}"),
            (None, Some((rating, why))) => {
                record.rating = Some(rating);
                record.why = why;
            }
            (None, None) => {
                out.push(Output::Notice(Notice::Unrated {
                    agent: agent.to_owned(),
                    exchange,
                    reply: shorten(text),
                }));
                record.why = format!("unrated: the reply gave no verdict ({})", shorten(text));
            }
        }
        let event = RecordEvent::Rating {
            exchange: record.exchange,
            agent: record.agent.clone(),
            rating: record.rating,
            why: record.why.clone(),
        };
        Self::record(out, now_ms, event);
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn reply(
        &mut self,
        input: &str,
        speaker: Option<String>,
        request_id: Option<String>,
        text: &str,
        error: Option<String>,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        let agent = speaker.or_else(|| {
            input
                .strip_prefix(ids::REPLY)
                .map(|s| s.trim_start_matches(['_', '-', '/']).to_owned())
                .filter(|s| !s.is_empty())
        });
        let Some(agent) = agent else {
            out.push(Output::Notice(Notice::ReplyWithoutSpeaker {
                input: input.to_owned(),
            }));
            return;
        };
        let Some(request_id) = request_id else {
            out.push(Output::Notice(Notice::ReplyWithoutRequestId {
                input: input.to_owned(),
            }));
            return;
        };
        let Some(request) = self.pending.requests.get(&request_id) else {
            out.push(Output::Notice(Notice::StrayReply { request_id }));
            return;
        };
        if !request.agents.contains(&agent) {
            return;
        }
        let request = request.clone();
        // Its reply came: the panelist may be asked again (a second reply is ignored).
        if let Some(open) = self.pending.requests.get_mut(&request_id) {
            open.agents.retain(|a| *a != agent);
        }
        if let Some(exchange) = request.rates {
            self.rated(exchange, &agent, text, error, now_ms, out);
            self.debrief_if_due(now_ms, out);
            return;
        }
        if let Some(error) = error {
            out.push(Output::Notice(Notice::CandidateNotPrepared {
                agent,
                request_id,
                error,
            }));
            return;
        }
        let text = text.trim().to_owned();
        if text.is_empty() {
            out.push(Output::Notice(Notice::EmptyCandidate(agent)));
            return;
        }
        let (slide, purpose) = (request.slide, request.purpose);
        let deck = self.deck();
        let relevance = messages::relevance(&text, deck.slide(slide));
        let title = messages::slide_label(deck, slide);
        self.write(
            out,
            ContextFile::agent(&agent, AgentFile::CandidateQuestion),
            format!(
                "# Candidate question\n\n- slide {slide} ({title}), {purpose:?}, relevance {relevance:.2}, at {}\n\n{text}\n",
                messages::clock(now_ms)
            ),
            WriteMode::Overwrite,
        );
        Self::record(
            out,
            now_ms,
            RecordEvent::Candidate {
                agent: agent.clone(),
                slide,
                relevance,
                text: text.clone(),
            },
        );
        if relevance < self.config().thresholds.min_candidate_relevance {
            // Not worth asking: the panelist will be called on the slide itself.
            out.push(Output::Notice(Notice::CandidateOffSlide {
                agent,
                relevance,
            }));
            return;
        }
        if let Some(asked) = self.asked_before(&text) {
            // The panel does not ask again, in other words, what it asked this session.
            out.push(Output::Notice(Notice::CandidateAskedBefore {
                agent,
                asked,
            }));
            return;
        }
        self.feed(
            Event::CandidateReady {
                agent,
                text,
                relevance,
            },
            now_ms,
            out,
        );
    }
}

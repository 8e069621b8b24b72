//! Candidate-question requests to the panel, and the matching of their replies.

use serde_json::json;
use voice_protocol::ids;

use super::Output;
use super::Rehearsal;
use super::decisions::{CandidatePurpose, Event};
use super::files::{AgentFile, ContextFile, WriteMode};
use crate::messages;

/// Candidate-question requests remembered at most; older answers would be about an
/// old slide anyway.
pub(super) const MAX_OPEN_REQUESTS: usize = 32;

/// A candidate-question request in flight.
#[derive(Debug, Clone)]
pub(super) struct Request {
    pub(super) agents: Vec<String>,
    pub(super) slide: usize,
    pub(super) purpose: CandidatePurpose,
}

impl Rehearsal {
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
            tracing::warn!(input, "reply without speaker ignored");
            return;
        };
        let Some(request_id) = request_id else {
            tracing::warn!(input, "reply without request_id ignored");
            return;
        };
        let Some(request) = self.requests.get(&request_id) else {
            tracing::debug!(request = %request_id, "reply to an unknown request ignored");
            return;
        };
        if !request.agents.contains(&agent) {
            return;
        }
        if let Some(error) = error {
            tracing::debug!(%agent, request = %request_id, %error, "candidate question not prepared");
            return;
        }
        let text = text.trim().to_owned();
        if text.is_empty() {
            tracing::debug!(%agent, "empty candidate question ignored");
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
            "candidate",
            json!({ "agent": agent, "slide": slide, "relevance": relevance, "text": text }),
        );
        if relevance < self.config().thresholds.min_candidate_relevance {
            // Not worth asking: the panelist will be called on the slide itself.
            tracing::debug!(%agent, relevance, "candidate question off the slide; not offered");
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

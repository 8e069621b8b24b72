//! What the moderator says and keeps: its lines (with their question ids), the decisions
//! recorded, the recent events its rules look back on, and the phase's summary.

use super::decision::{Decision, RecentEvent};
use super::{MODERATOR, Output, RECENT_EVENTS, Roundtable};
use crate::phrases::{self, LineKind};
use crate::summary::extractive_summary;

impl Roundtable {
    pub(super) fn next_question_id(&mut self) -> u64 {
        self.last_question_id += 1;
        self.last_question_id
    }

    pub(super) fn remember(&mut self, event: RecentEvent) {
        self.recent.push(event);
        if self.recent.len() > RECENT_EVENTS {
            let excess = self.recent.len() - RECENT_EVENTS;
            self.recent.drain(..excess);
        }
    }

    /// A decision taken: counted, logged and recorded.
    pub(super) fn record(&mut self, d: &Decision, now_ms: u64, out: &mut Vec<Output>) {
        self.decisions += 1;
        tracing::info!(
            phase = %self.state.phase,
            action = ?d.action,
            target = d.target.as_deref().unwrap_or("-"),
            reason = %d.reason,
            "decision"
        );
        out.push(Output::Decision(self.decision_json(d, now_ms)));
    }

    /// A moderator line: said as a complete text and kept as an utterance.
    pub(super) fn say(&mut self, text: String, kind: LineKind, out: &mut Vec<Output>) {
        let text = phrases::capitalize_first(&text);
        let question_id = self.next_question_id();
        self.lines_said += 1;
        self.last_line = Some((None, text.clone()));
        self.remember(RecentEvent::ModeratorLine { kind });
        tracing::info!(question_id, kind = kind.as_str(), %text, "moderator");
        if matches!(kind, LineKind::Call | LineKind::Question) {
            self.pending_prompt = Some(text.clone());
        }
        if kind == LineKind::Closing {
            self.closing_question_id = Some(question_id);
        }
        if self.config.paced {
            self.unplayed.said(question_id, ());
        }
        self.last_said = Some((MODERATOR.to_owned(), text.clone()));
        out.push(Output::Line {
            question_id,
            text: text.clone(),
            kind,
        });
        out.push(Output::Utterance {
            speaker: MODERATOR.to_owned(),
            question_id,
            text,
        });
    }

    pub(super) fn display_names(&self) -> Vec<&str> {
        self.scenario()
            .agents
            .iter()
            .map(|a| a.name.as_str())
            .collect()
    }

    pub(super) fn language(&self) -> phrases::Language {
        self.scenario().language
    }

    pub(super) fn summary_text(&self) -> String {
        let scenario = self.scenario();
        let label = self.state.phase.phase_type().map_or(
            match scenario.language {
                phrases::Language::En => "the discussion",
                phrases::Language::Zh => "讨论",
            },
            |p| p.spoken_label_in(scenario.language),
        );
        let mut spoken = Vec::new();
        let mut silent = Vec::new();
        for agent in &scenario.agents {
            match self
                .phase_utterances
                .iter()
                .rev()
                .find(|(a, _)| *a == agent.id)
            {
                Some((_, text)) => spoken.push((agent.name.clone(), text.clone())),
                None => silent.push(agent.name.clone()),
            }
        }
        extractive_summary(scenario.language, label, &spoken, &silent)
    }
}

//! What the moderator says and keeps: its lines (with their question ids), the decisions
//! recorded, the recent events its rules look back on, and the phase's summary.

use super::decision::{Decision, RecentEvent};
use super::{MODERATOR, Output, RECENT_EVENTS, Roundtable};
use crate::phrases::{self, LineKind};
use crate::summary::extractive_summary;

/// What was said, as the rounds and the intake read it: the last question id handed
/// out, the recent events, this phase visit's utterances, the last line taken in and
/// the last finished, how many lines were said, and the moderator's prompt pending.
#[derive(Debug, Clone, Default)]
pub(super) struct Said {
    pub(super) last_question_id: u64,
    pub(super) recent: Vec<RecentEvent>,
    /// `(agent id, text)` of this phase visit, for the summary.
    pub(super) phase_utterances: Vec<(String, String)>,
    /// The last line the rounds took in: speaker (`None`: the moderator) and text.
    pub(super) last_line: Option<(Option<String>, String)>,
    pub(super) lines_said: u64,
    /// The last line said, as soon as it was finished: speaker and text (quoted in
    /// intent requests).
    pub(super) last_said: Option<(String, String)>,
    /// The moderator's call or question not yet followed by a turn.
    pub(super) pending_prompt: Option<String>,
    /// The moderator's lines the human cut before they were heard: said again once
    /// the human has been answered.
    pub(super) cut_lines: Vec<(LineKind, String)>,
}

/// After the end: the closing line, and whether its wait is over.
#[derive(Debug, Clone, Default)]
pub(super) struct Close {
    /// The closing line's question id, if one was said (`None`: not ended yet).
    pub(super) ending: Option<Option<u64>>,
    pub(super) closing_question_id: Option<u64>,
    pub(super) finished: bool,
}

impl Roundtable {
    pub(super) fn next_question_id(&mut self) -> u64 {
        self.said.last_question_id += 1;
        self.said.last_question_id
    }

    pub(super) fn remember(&mut self, event: RecentEvent) {
        self.said.recent.push(event);
        if self.said.recent.len() > RECENT_EVENTS {
            let excess = self.said.recent.len() - RECENT_EVENTS;
            self.said.recent.drain(..excess);
        }
    }

    /// A decision taken: counted, logged and recorded.
    pub(super) fn record(&mut self, d: &Decision, now_ms: u64, out: &mut Vec<Output>) {
        self.decisions += 1;
        out.push(Output::Decision(self.decision_record(d, now_ms)));
    }

    /// A moderator line: said as a complete text and kept as an utterance.
    pub(super) fn say(&mut self, text: String, kind: LineKind, out: &mut Vec<Output>) {
        let text = phrases::capitalize_first(&text);
        let question_id = self.next_question_id();
        self.said.lines_said += 1;
        self.said.last_line = Some((None, text.clone()));
        self.remember(RecentEvent::ModeratorLine { kind });
        if matches!(kind, LineKind::Call | LineKind::Question) {
            self.said.pending_prompt = Some(text.clone());
        }
        if kind == LineKind::Closing {
            self.close.closing_question_id = Some(question_id);
        }
        if self.config.paced {
            // A call goes with its turn, and the closing is never cut: the rest carries
            // the session's thread (the phase, its summary, its question).
            let thread = !matches!(kind, LineKind::Call | LineKind::Closing);
            self.pacing
                .unplayed
                .said(question_id, thread.then(|| (kind, text.clone())));
        }
        self.said.last_said = Some((MODERATOR.to_owned(), text.clone()));
        out.push(Output::Line {
            question_id,
            text: text.clone(),
            kind,
        });
        out.push(Output::Utterance {
            speaker: MODERATOR.to_owned(),
            question_id,
            text,
            human: false,
            heard: None,
        });
    }

    /// Says again the lines the human cut unheard.
    pub(super) fn say_cut_lines(&mut self, out: &mut Vec<Output>) {
        for (kind, text) in std::mem::take(&mut self.said.cut_lines) {
            self.say(text, kind, out);
        }
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
                .said
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

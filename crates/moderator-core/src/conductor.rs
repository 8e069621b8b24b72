//! What the moderator node does around [`crate::Roundtable`] without deciding
//! anything: it assembles the floor holder's streamed text into utterances, turns the
//! agents' intent replies into intents (strict parser, heuristic fallback on error,
//! invalid answer or timeout), paces the conversation against what has been heard, and
//! waits for the closing line before the node ends. Time is passed in (ms since start).

use crate::phrases::RoundtablePhrases;
use ::conductor::RoundReply;

use crate::{
    Action, Decision, Event, Intent, LineKind, Phase, Roundtable, Scenario, heuristic_intent,
    parse_intent,
};
use serde_json::json;
use voice_protocol::shorten;

/// The speaker name of the moderator's own lines.
pub const MODERATOR: &str = "moderator";
/// Characters of one utterance kept (a runaway stream is cut, not buffered forever).
pub use ::conductor::MAX_UTTERANCE_CHARS;
/// Characters of the last line quoted in an intent request.
const MAX_QUOTED_CHARS: usize = 300;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Config {
    /// A player reports `playback_done`: pace the conversation and wait for the
    /// closing line.
    pub paced: bool,
    /// Finished utterances (and moderator lines) that may wait unheard before the next
    /// decision is taken.
    pub max_unplayed: usize,
    /// Longest wait for a playback report before going on anyway.
    pub playback_timeout_ms: u64,
}

/// A message for the dataflow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// `turn`: Utf8 agent id, with `question_id`, `speaker` and `instruction`.
    Turn {
        agent: String,
        question_id: u64,
        instruction: Option<String>,
    },
    /// `text`: a moderator line, complete (`session_status: ended`).
    Line {
        question_id: u64,
        text: String,
        kind: LineKind,
    },
    /// `utterance`: a finished utterance, the moderator's included.
    Utterance {
        speaker: String,
        question_id: u64,
        text: String,
    },
    /// `request`: the broadcast intent request (Utf8 JSON).
    Request(String),
    /// `decision`: one decision record (Utf8 JSON).
    Decision(String),
    /// `status`: the answer to a `stats` command (Utf8 JSON).
    Status(String),
}

#[derive(Debug, Clone)]
struct Floor {
    agent: String,
    question_id: u64,
    text: ::conductor::Utterance,
}

#[derive(Debug, Clone)]
struct Held {
    agent: String,
    question_id: u64,
    text: String,
}

#[derive(Debug, Clone)]
struct Collecting {
    question_id: u64,
    /// The agents asked for their intent; missing answers fall back to the heuristic at
    /// its deadline.
    round: ::conductor::Round<String>,
}

/// A decoded input, for the common interface ([`::conductor::Conductor::handle`]); each
/// variant is one of the `on_*` methods.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Input {
    /// A chunk of an agent's `text` stream (`input` is the agent id).
    Text {
        input: String,
        question_id: Option<u64>,
        ends: bool,
        text: String,
        error: Option<String>,
    },
    /// An agent bridge's `reply` (`input` is the input id, e.g. `reply_economist`).
    Reply {
        input: String,
        speaker: Option<String>,
        request_id: Option<String>,
        answer: String,
        error: Option<String>,
    },
    /// The player's `playback_done`.
    Played { question_id: u64 },
    /// A `control` command, as received.
    Control(String),
    /// The node feeding input `input` restarted (dora's `NodeRestarted`).
    Restarted { input: String },
}

/// The node's state between dora and the roundtable driver.
pub struct Conductor {
    rt: Roundtable,
    config: Config,
    floor: Option<Floor>,
    /// A finished utterance waiting until older lines have been heard.
    held: Option<Held>,
    /// Question ids of spoken lines not yet reported as heard (paced only).
    unplayed: ::conductor::Unheard<()>,
    /// The last playback report (or the start of the current wait).
    last_progress_ms: u64,
    collecting: Option<Collecting>,
    /// The moderator's call or question not yet followed by a turn.
    pending_prompt: Option<String>,
    /// The last line said: speaker and text (for intent requests).
    last_line: Option<(String, String)>,
    phase: Phase,
    /// After the end: the closing line's question id, if one was said.
    ending: Option<Option<u64>>,
    closing_question_id: Option<u64>,
    /// Decisions recorded so far (numbers the records).
    decisions: u64,
    finished: bool,
}

impl Conductor {
    pub fn new(scenario: Scenario, config: Config) -> Self {
        Self::with_phrases(scenario, config, RoundtablePhrases::default())
    }

    /// A conductor whose moderator says the lines of `phrases`.
    pub fn with_phrases(scenario: Scenario, config: Config, phrases: RoundtablePhrases) -> Self {
        Self {
            rt: Roundtable::with_phrases(scenario, phrases),
            config,
            floor: None,
            held: None,
            unplayed: ::conductor::Unheard::new(),
            last_progress_ms: 0,
            collecting: None,
            pending_prompt: None,
            last_line: None,
            phase: Phase::NotStarted,
            ending: None,
            closing_question_id: None,
            decisions: 0,
            finished: false,
        }
    }

    pub fn roundtable(&self) -> &Roundtable {
        &self.rt
    }

    /// The session is over and, when paced, the closing line was heard (or the wait for
    /// it timed out): the node may exit.
    pub fn finished(&self) -> bool {
        self.finished
    }

    pub fn start(&mut self, now_ms: u64) -> Vec<Output> {
        let mut out = Vec::new();
        let actions = self.rt.handle(Event::Start, now_ms);
        self.process(actions, now_ms, &mut out);
        out
    }

    /// When [`Self::tick`] must run at the latest.
    pub fn next_wake(&self) -> Option<u64> {
        if self.finished {
            return None;
        }
        if self.ending.is_some() {
            return Some(self.playback_deadline());
        }
        [
            self.held.as_ref().map(|_| self.hold_deadline()),
            self.collecting.as_ref().map(|c| c.round.deadline()),
            self.rt.next_deadline(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Time passed: overdue playback reports, missing intents, the driver's deadlines.
    pub fn tick(&mut self, now_ms: u64) -> Vec<Output> {
        let mut out = Vec::new();
        if self.finished {
            return out;
        }
        if self.ending.is_some() {
            if now_ms >= self.playback_deadline() {
                tracing::warn!("the closing line was not reported as heard in time; ending anyway");
                self.finished = true;
            }
            return out;
        }
        if self.held.is_some() && now_ms >= self.hold_deadline() {
            tracing::warn!(
                unheard = ?self.unplayed.ids().collect::<Vec<_>>(),
                "no playback report in time; the conversation goes on"
            );
            self.unplayed.clear();
            self.deliver_held(now_ms, &mut out);
        }
        if let Some(collecting) = self.collecting.as_mut() {
            let question_id = collecting.question_id;
            let silent = collecting.round.expired(now_ms);
            for agent in silent {
                tracing::info!(%agent, question_id, "no intent in time; using the heuristic");
                self.intent(question_id, &agent, None, now_ms, &mut out);
            }
        }
        let actions = self.rt.handle(Event::Tick, now_ms);
        self.process(actions, now_ms, &mut out);
        out
    }

    /// A chunk of an agent's `text` stream (`input` is the agent id).
    /// A restarted bridge lost the turn it was answering: the turn ends now, with what was
    /// heard of it, as a failed generation ends (the next speaker need not wait for the
    /// speech timeout).
    pub fn on_restarted(&mut self, input: &str, now_ms: u64) -> Vec<Output> {
        let lost = self
            .floor
            .as_ref()
            .filter(|f| f.agent == input)
            .map(|f| f.question_id);
        match lost {
            Some(question_id) => self.on_text(
                input,
                Some(question_id),
                true,
                "",
                Some("the agent's bridge restarted"),
                now_ms,
            ),
            None => Vec::new(),
        }
    }

    pub fn on_text(
        &mut self,
        input: &str,
        question_id: Option<u64>,
        ends: bool,
        text: &str,
        error: Option<&str>,
        now_ms: u64,
    ) -> Vec<Output> {
        let mut out = Vec::new();
        if self.rt.scenario().agent(input).is_none() {
            tracing::warn!(
                input,
                "unknown input ignored (not an agent of the scenario, `reply*`, `playback_done` or `control`)"
            );
            return out;
        }
        let Some(question_id) = question_id else {
            tracing::warn!(input, "text without question_id ignored");
            return out;
        };
        let Some(floor) = self
            .floor
            .as_mut()
            .filter(|f| f.agent == input && f.question_id == question_id)
        else {
            tracing::debug!(
                input,
                question_id,
                "text of an agent without the floor (or a stale turn) dropped"
            );
            return out;
        };
        if floor.text.push(text) {
            tracing::warn!(agent = input, "utterance too long; the rest is not kept");
        }
        if !ends {
            return out;
        }
        let Some(floor) = self.floor.take() else {
            return out;
        };
        if let Some(error) = error {
            tracing::warn!(agent = %floor.agent, question_id, %error, "the agent's generation failed");
        }
        let text = floor.text.as_str().trim().to_owned();
        tracing::info!(agent = %floor.agent, question_id, text = %shorten(&text), "utterance finished");
        if !text.is_empty() {
            out.push(Output::Utterance {
                speaker: floor.agent.clone(),
                question_id,
                text: text.clone(),
            });
            self.last_line = Some((floor.agent.clone(), text.clone()));
            if self.config.paced {
                self.unplayed.said(question_id, ());
            }
        }
        self.held = Some(Held {
            agent: floor.agent,
            question_id,
            text,
        });
        if self.too_much_unplayed() {
            self.last_progress_ms = now_ms;
            tracing::debug!(unheard = ?self.unplayed.ids().collect::<Vec<_>>(), "waiting for playback before the next decision");
        } else {
            self.deliver_held(now_ms, &mut out);
        }
        out
    }

    /// An agent bridge's `reply` (`input` is the input id, e.g. `reply_economist`).
    pub fn on_reply(
        &mut self,
        input: &str,
        speaker: Option<&str>,
        request_id: Option<&str>,
        answer: &str,
        error: Option<&str>,
        now_ms: u64,
    ) -> Vec<Output> {
        let mut out = Vec::new();
        let agent = match speaker {
            Some(s) if !s.trim().is_empty() => s.trim().to_owned(),
            _ => input
                .trim_start_matches("reply")
                .trim_start_matches(['_', '-', '/'])
                .to_owned(),
        };
        if self.rt.scenario().agent(&agent).is_none() {
            tracing::warn!(input, speaker = %agent, "reply from an unknown agent ignored");
            return out;
        }
        let Some(collecting) = self.collecting.as_mut() else {
            tracing::debug!(%agent, "reply outside an intent round ignored");
            return out;
        };
        let question_id = collecting.question_id;
        match collecting.round.reply(request_id, &agent) {
            RoundReply::Counted => {}
            RoundReply::Stale => {
                tracing::debug!(%agent, request = ?request_id, "reply to an older request ignored");
                return out;
            }
            RoundReply::NotWaited => {
                tracing::debug!(%agent, "repeated reply ignored");
                return out;
            }
        }
        let answer = match error {
            Some(error) => {
                tracing::debug!(%agent, %error, "intent not answered; using the heuristic");
                None
            }
            None => Some(answer),
        };
        self.intent(question_id, &agent, answer, now_ms, &mut out);
        out
    }

    /// The player's `playback_done` for `question_id`.
    pub fn on_played(&mut self, question_id: u64, now_ms: u64) -> Vec<Output> {
        let mut out = Vec::new();
        self.last_progress_ms = now_ms;
        // The player sounds lines in question-id order: older ones are done too.
        self.unplayed.heard(question_id);
        if let Some(closing) = self.ending {
            if closing.is_none_or(|q| q <= question_id) {
                tracing::info!("the closing line was heard");
                self.finished = true;
            }
            return out;
        }
        if self.held.is_some() && !self.too_much_unplayed() {
            self.deliver_held(now_ms, &mut out);
        }
        out
    }

    /// A `control` command: `stats` or `stop` (plain text or `{"command": "..."}`).
    pub fn on_control(&mut self, text: &str, now_ms: u64) -> Vec<Output> {
        let mut out = Vec::new();
        match parse_control(text) {
            Some(Control::Stats) => out.push(Output::Status(self.status_json())),
            Some(Control::Stop) => {
                if self.ending.is_none() {
                    tracing::info!("stop requested: closing the roundtable");
                    self.floor = None;
                    self.held = None;
                    let actions = self.rt.handle(Event::Stop, now_ms);
                    self.process(actions, now_ms, &mut out);
                }
            }
            None => tracing::warn!(
                command = %shorten(text),
                "unknown control command ignored (expected stats or stop)"
            ),
        }
        out
    }

    fn too_much_unplayed(&self) -> bool {
        self.config.paced && self.unplayed.len() > self.config.max_unplayed
    }

    fn playback_deadline(&self) -> u64 {
        self.last_progress_ms
            .saturating_add(self.config.playback_timeout_ms)
    }

    /// A held utterance goes on after the playback timeout, and always before the
    /// driver would count its speaker as absent.
    fn hold_deadline(&self) -> u64 {
        let wait = self.playback_deadline();
        match self.rt.next_deadline() {
            Some(d) => wait.min(d.saturating_sub(1)),
            None => wait,
        }
    }

    fn deliver_held(&mut self, now_ms: u64, out: &mut Vec<Output>) {
        let Some(held) = self.held.take() else {
            return;
        };
        let actions = self.rt.handle(
            Event::UtteranceFinished {
                speaker: held.agent,
                question_id: Some(held.question_id),
                text: held.text,
            },
            now_ms,
        );
        self.process(actions, now_ms, out);
    }

    /// One agent's intent for the round: its answer parsed strictly, or the heuristic.
    fn intent(
        &mut self,
        question_id: u64,
        agent: &str,
        answer: Option<&str>,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        let heuristic = |rt: &Roundtable| {
            rt.heuristic_context(agent)
                .map(|ctx| heuristic_intent(agent, &ctx))
                .unwrap_or_else(|| Intent::pass(agent))
        };
        let intent = match answer {
            None => heuristic(&self.rt),
            Some(answer) => match parse_intent(agent, answer) {
                Ok(intent) => intent,
                Err(e) => {
                    tracing::warn!(%agent, answer = %shorten(answer), error = %e, "invalid intent answer; using the heuristic");
                    heuristic(&self.rt)
                }
            },
        };
        tracing::debug!(%agent, kind = intent.kind.as_str(), urgency = intent.urgency, "intent");
        let actions = self.rt.handle(
            Event::IntentReceived {
                question_id,
                intent,
            },
            now_ms,
        );
        self.process(actions, now_ms, out);
    }

    fn process(&mut self, actions: Vec<Action>, now_ms: u64, out: &mut Vec<Output>) {
        for action in actions {
            match action {
                Action::Decision(d) => {
                    self.decisions += 1;
                    tracing::info!(
                        phase = %self.phase,
                        action = ?d.action,
                        target = d.target.as_deref().unwrap_or("-"),
                        reason = %d.reason,
                        "decision"
                    );
                    out.push(Output::Decision(self.decision_json(&d, now_ms)));
                }
                Action::ModeratorSay {
                    question_id,
                    text,
                    kind,
                } => {
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
                    self.last_line = Some((MODERATOR.to_owned(), text.clone()));
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
                Action::PhaseChanged {
                    from,
                    to,
                    is_rollback,
                } => {
                    tracing::info!(%from, %to, is_rollback, "phase");
                    self.phase = to;
                }
                Action::CollectIntents { question_id, phase } => {
                    let window = self.rt.scenario().moderator.intent_timeout_ms;
                    let agents = self.rt.scenario().agents.iter().map(|a| a.id.clone());
                    self.collecting = Some(Collecting {
                        question_id,
                        // Missing answers fall back to the heuristic a little before the
                        // driver would count them as `pass`.
                        round: ::conductor::Round::new(
                            request_id_for(question_id),
                            agents,
                            now_ms.saturating_add(window - window / 4),
                        ),
                    });
                    out.push(Output::Request(self.request_json(question_id, phase)));
                }
                Action::GiveFloor {
                    agent,
                    question_id,
                    instruction,
                    is_interrupt,
                } => {
                    tracing::info!(%agent, question_id, is_interrupt, "turn");
                    self.collecting = None;
                    let instruction = match (self.pending_prompt.take(), instruction) {
                        (Some(said), Some(i)) => Some(format!("The moderator said: {said}\n{i}")),
                        (Some(said), None) => Some(format!("The moderator said: {said}")),
                        (None, i) => i,
                    };
                    self.floor = Some(Floor {
                        agent: agent.clone(),
                        question_id,
                        text: ::conductor::Utterance::default(),
                    });
                    out.push(Output::Turn {
                        agent,
                        question_id,
                        instruction,
                    });
                }
                Action::End => {
                    tracing::info!(decisions = self.rt.decisions(), "the roundtable has ended");
                    self.floor = None;
                    self.held = None;
                    self.collecting = None;
                    self.last_progress_ms = now_ms;
                    self.ending = Some(self.closing_question_id);
                    if !self.config.paced || self.closing_question_id.is_none() {
                        self.finished = true;
                    }
                }
            }
        }
    }

    fn decision_json(&self, d: &Decision, now_ms: u64) -> String {
        let mut value = serde_json::to_value(d).unwrap_or_else(|_| json!({}));
        if let Some(map) = value.as_object_mut() {
            map.insert("n".into(), json!(self.decisions));
            map.insert("t_ms".into(), json!(now_ms));
            map.insert("phase".into(), json!(self.phase.as_str()));
        }
        value.to_string()
    }

    fn request_json(&self, question_id: u64, phase: Phase) -> String {
        let scenario = self.rt.scenario();
        let label = phase
            .phase_type()
            .map_or("the discussion", |p| p.spoken_label());
        let last = match &self.last_line {
            Some((speaker, text)) => {
                let quoted: String = text.chars().take(MAX_QUOTED_CHARS).collect();
                format!(" The last words, from {speaker}: {quoted}")
            }
            None => String::new(),
        };
        let prompt = format!(
            "You are on a moderated roundtable about: {topic}. We are in {label}.{last}\n\
             Do you want the floor now? Answer with one JSON object only, exactly \
             {{\"intent\":\"speak|interrupt|pass\",\"urgency\":1-5}}: \"speak\" to take the next \
             turn, \"interrupt\" to cut in at once (you were addressed, or strongly disagree), \
             \"pass\" to listen; urgency from 1 (low) to 5 (high).",
            topic = scenario.topic,
        );
        json!({
            "id": request_id_for(question_id),
            "kind": "intent",
            "prompt": prompt,
            "json": true,
            "max_words": 12,
        })
        .to_string()
    }

    fn status_json(&self) -> String {
        let state = self.rt.state();
        json!({
            "phase": self.phase.as_str(),
            "decisions": self.rt.decisions(),
            "phase_round": state.phase_round,
            "speak_counts": state.speak_counts,
            "current_speaker": self.rt.current_speaker().map(|(a, _)| a),
            "question_id": self.rt.current_speaker().map(|(_, q)| q).or(self.rt.collecting()),
            "unheard": self.unplayed.len(),
            "ended": self.ending.is_some(),
        })
        .to_string()
    }
}

/// The request id of the intent round `question_id`.
pub fn request_id_for(question_id: u64) -> String {
    format!("intent-{question_id}")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Control {
    Stats,
    Stop,
}

fn parse_control(text: &str) -> Option<Control> {
    let trimmed = text.trim();
    let word = if trimmed.starts_with('{') {
        serde_json::from_str::<serde_json::Value>(trimmed)
            .ok()?
            .get("command")?
            .as_str()?
            .trim()
            .to_ascii_lowercase()
    } else {
        trimmed.to_ascii_lowercase()
    };
    match word.as_str() {
        "stats" => Some(Control::Stats),
        "stop" | "end" => Some(Control::Stop),
        _ => None,
    }
}

impl ::conductor::Conductor for Conductor {
    type Input = Input;
    type Output = Output;
    type Opening = ();

    fn start(&mut self, _: &(), now_ms: u64) -> Vec<Output> {
        Conductor::start(self, now_ms)
    }

    fn handle(&mut self, input: Input, now_ms: u64) -> Vec<Output> {
        match input {
            Input::Text {
                input,
                question_id,
                ends,
                text,
                error,
            } => self.on_text(&input, question_id, ends, &text, error.as_deref(), now_ms),
            Input::Reply {
                input,
                speaker,
                request_id,
                answer,
                error,
            } => self.on_reply(
                &input,
                speaker.as_deref(),
                request_id.as_deref(),
                &answer,
                error.as_deref(),
                now_ms,
            ),
            Input::Played { question_id } => self.on_played(question_id, now_ms),
            Input::Control(text) => self.on_control(&text, now_ms),
            Input::Restarted { input } => self.on_restarted(&input, now_ms),
        }
    }

    fn tick(&mut self, now_ms: u64) -> Vec<Output> {
        Conductor::tick(self, now_ms)
    }

    fn next_wake(&self) -> Option<u64> {
        Conductor::next_wake(self)
    }

    fn finished(&self) -> bool {
        Conductor::finished(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCENARIO: &str = "
topic: Should cities ban cars?
agents:
  - id: a
  - id: b
moderator:
  intent_timeout_ms: 1000
  idle_pause_ms: 0
phases:
  - type: opening
    max_rounds: 2
  - type: free_discussion
    max_rounds: 2
  - type: closing
    max_rounds: 2
";

    #[test]
    fn the_common_interface_plays_a_whole_session() {
        // Every agent answers its turn at once; intents are left to their fallback.
        let mut c = conductor(false);
        let mut now = 0;
        let mut pending = c.start(now);
        let mut steps = 0;
        while !c.finished() {
            steps += 1;
            assert!(steps < 500, "the session does not end");
            let inputs: Vec<(u64, Input)> = turn(&pending)
                .map(|(agent, q)| {
                    (
                        now + 10,
                        Input::Text {
                            input: agent,
                            question_id: Some(q),
                            ends: true,
                            text: "I think so, b.".into(),
                            error: None,
                        },
                    )
                })
                .into_iter()
                .collect();
            now += 10;
            let until = ::conductor::Conductor::next_wake(&c)
                .unwrap_or(now)
                .max(now);
            pending = ::conductor::drive(&mut c, inputs, until)
                .into_iter()
                .map(|(_, o)| o)
                .collect();
            now = until;
        }
    }

    #[test]
    fn a_restarted_bridge_ends_its_turn_at_once_with_what_it_had_said() {
        let mut c = conductor(false);
        let (agent, q) = turn(&c.start(0)).expect("a first turn");
        let other = if agent == "a" { "b" } else { "a" };
        c.on_text(&agent, Some(q), false, "Cars are", None, 10);
        assert!(
            c.on_restarted(other, 20).is_empty(),
            "not the speaker's bridge"
        );
        let out = ::conductor::Conductor::handle(
            &mut c,
            Input::Restarted {
                input: agent.clone(),
            },
            30,
        );
        assert!(
            out.iter().any(|o| matches!(o, Output::Utterance { question_id, text, .. } if *question_id == q && text == "Cars are")),
            "{out:#?}"
        );
        // The next turn comes from the conductor's own pacing, not the speech timeout.
        let mut now = 30;
        let mut next = turn(&out);
        while next.is_none() {
            now = ::conductor::Conductor::next_wake(&c)
                .expect("a wake-up")
                .max(now);
            assert!(now < 30 + 90_000, "waited for the speech timeout");
            next = turn(&c.tick(now));
        }
        let next = next.unwrap();
        assert!(next.1 > q, "{next:?}");
        // The lost turn is over: its bridge restarting again changes nothing.
        if next.0 != agent {
            assert!(c.on_restarted(&agent, now + 1).is_empty());
        }
    }

    fn conductor(paced: bool) -> Conductor {
        Conductor::new(
            Scenario::from_yaml(SCENARIO).unwrap(),
            Config {
                paced,
                max_unplayed: 1,
                playback_timeout_ms: 5_000,
            },
        )
    }

    fn turn(out: &[Output]) -> Option<(String, u64)> {
        out.iter().find_map(|o| match o {
            Output::Turn {
                agent, question_id, ..
            } => Some((agent.clone(), *question_id)),
            _ => None,
        })
    }

    fn lines(out: &[Output]) -> Vec<(u64, LineKind)> {
        out.iter()
            .filter_map(|o| match o {
                Output::Line {
                    question_id, kind, ..
                } => Some((*question_id, *kind)),
                _ => None,
            })
            .collect()
    }

    /// Plays a whole session: agents answer every turn at once, intents fall back.
    fn play(c: &mut Conductor, paced: bool) -> Vec<Output> {
        let mut now = 0;
        let mut all = c.start(now);
        let mut pending = all.clone();
        let mut steps = 0;
        while !c.finished() {
            steps += 1;
            assert!(steps < 500, "the session does not end");
            now += 10;
            let mut next = Vec::new();
            if paced {
                for (q, _) in lines(&pending) {
                    next.extend(c.on_played(q, now));
                }
            }
            if let Some((agent, q)) = turn(&pending) {
                next.extend(c.on_text(&agent, Some(q), true, "I think so, b.", None, now));
                if paced {
                    next.extend(c.on_played(q, now));
                }
            }
            if next.is_empty() && !c.finished() {
                now = c
                    .next_wake()
                    .unwrap_or_else(|| panic!("no wake-up (paced {paced}): {all:#?}"))
                    .max(now);
                next = c.tick(now);
            }
            all.extend(next.clone());
            pending = next;
        }
        all
    }

    #[test]
    fn a_session_runs_through_every_phase_and_ends_with_the_closing_line() {
        for paced in [false, true] {
            let mut c = conductor(paced);
            let all = play(&mut c, paced);
            let kinds: Vec<LineKind> = all
                .iter()
                .filter_map(|o| match o {
                    Output::Line { kind, .. } => Some(*kind),
                    _ => None,
                })
                .collect();
            assert_eq!(kinds.first(), Some(&LineKind::Opening));
            assert_eq!(kinds.last(), Some(&LineKind::Closing));
            assert!(kinds.contains(&LineKind::Summary), "{kinds:?}");
            let phases: std::collections::BTreeSet<String> = all
                .iter()
                .filter_map(|o| match o {
                    Output::Decision(j) => {
                        Some(serde_json::from_str::<serde_json::Value>(j).unwrap())
                    }
                    _ => None,
                })
                .flat_map(|d| [d["phase"].clone(), d["next_phase"].clone()])
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect();
            for p in ["opening", "free_discussion", "closing", "ended"] {
                assert!(phases.contains(p), "{p} missing from {phases:?}");
            }
            // Question ids of turns and lines only grow.
            let ids: Vec<u64> = all
                .iter()
                .filter_map(|o| match o {
                    Output::Line { question_id, .. } | Output::Turn { question_id, .. } => {
                        Some(*question_id)
                    }
                    _ => None,
                })
                .collect();
            assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
        }
    }

    #[test]
    fn a_finished_utterance_waits_for_older_lines_to_be_heard() {
        let mut c = conductor(true);
        let out = c.start(0);
        let (agent, q) = turn(&out).unwrap();
        // Opening and call lines are still unheard: the next decision waits.
        let out = c.on_text(&agent, Some(q), true, "Cars out.", None, 10);
        assert!(turn(&out).is_none() && lines(&out).is_empty(), "{out:?}");
        assert!(
            out.iter()
                .any(|o| matches!(o, Output::Utterance { speaker, .. } if speaker == "a"))
        );
        // The player reports the moderator's lines: the next turn goes out, while the
        // agent's own utterance may still be unheard.
        let out = c.on_played(q - 1, 20);
        assert_eq!(turn(&out).map(|(a, _)| a), Some("b".to_owned()), "{out:?}");
    }

    #[test]
    fn no_playback_report_does_not_stall_the_conversation() {
        let mut c = conductor(true);
        let out = c.start(0);
        let (agent, q) = turn(&out).unwrap();
        assert!(
            c.on_text(&agent, Some(q), true, "Cars out.", None, 10)
                .iter()
                .all(|o| !matches!(o, Output::Turn { .. }))
        );
        let wake = c.next_wake().unwrap();
        assert!(wake <= 10 + 5_000);
        let out = c.tick(wake);
        assert!(turn(&out).is_some(), "{out:?}");
    }

    #[test]
    fn intents_parse_strictly_and_fall_back_to_the_heuristic() {
        let mut c = conductor(false);
        let mut now = 0;
        let mut out = c.start(now);
        // Opening: two round-robin turns.
        for _ in 0..2 {
            let (agent, q) = turn(&out).unwrap();
            now += 10;
            out = c.on_text(&agent, Some(q), true, "A point.", None, now);
        }
        let request = out
            .iter()
            .find_map(|o| match o {
                Output::Request(j) => Some(serde_json::from_str::<serde_json::Value>(j).unwrap()),
                _ => None,
            })
            .expect("free discussion asks for intents");
        assert_eq!(request["json"], true);
        assert!(request["prompt"].as_str().unwrap().contains("\"intent\""));
        let id = request["id"].as_str().unwrap().to_owned();
        // A stale reply, an unknown agent, then `a` passes and `b` rambles.
        assert!(
            c.on_reply(
                "reply_a",
                None,
                Some("intent-0"),
                "{\"intent\":\"speak\",\"urgency\":5}",
                None,
                now
            )
            .is_empty()
        );
        assert!(
            c.on_reply("reply_x", Some("x"), Some(&id), "{}", None, now)
                .is_empty()
        );
        assert!(
            c.on_reply(
                "reply_a",
                None,
                Some(&id),
                "{\"intent\":\"pass\"}",
                None,
                now
            )
            .is_empty()
        );
        let out = c.on_reply(
            "reply_b",
            Some("b"),
            Some(&id),
            "Sure, I'd love to!",
            None,
            now,
        );
        // b's heuristic: it did not speak last, so it asks for the floor.
        assert_eq!(turn(&out).map(|(a, _)| a), Some("b".to_owned()), "{out:?}");
    }

    #[test]
    fn missing_intents_fall_back_at_the_reply_deadline() {
        let mut c = conductor(false);
        let mut now = 0;
        let mut out = c.start(now);
        for _ in 0..2 {
            let (agent, q) = turn(&out).unwrap();
            now += 10;
            out = c.on_text(&agent, Some(q), true, "A point.", None, now);
        }
        assert!(turn(&out).is_none());
        let wake = c.next_wake().unwrap();
        assert_eq!(wake, now + 750, "before the driver's own deadline");
        let out = c.tick(wake);
        assert!(
            turn(&out).is_some(),
            "the heuristic picked a speaker: {out:?}"
        );
    }

    #[test]
    fn chunks_of_others_and_stale_turns_are_dropped() {
        let mut c = conductor(false);
        let out = c.start(0);
        let (agent, q) = turn(&out).unwrap();
        assert!(c.on_text("b", Some(q), true, "Me!", None, 1).is_empty());
        assert!(
            c.on_text(&agent, Some(q - 1), true, "Old.", None, 1)
                .is_empty()
        );
        assert!(c.on_text(&agent, None, true, "No id.", None, 1).is_empty());
        assert!(
            c.on_text("stranger", Some(q), true, "Hi.", None, 1)
                .is_empty()
        );
        assert!(
            c.on_text(&agent, Some(q), false, "Cars ", None, 2)
                .is_empty()
        );
        let out = c.on_text(&agent, Some(q), true, "out.", None, 3);
        assert!(out.contains(&Output::Utterance {
            speaker: agent.clone(),
            question_id: q,
            text: "Cars out.".into()
        }));
    }

    #[test]
    fn stop_ends_with_the_closing_line_and_stats_report() {
        let mut c = conductor(true);
        c.start(0);
        let status: serde_json::Value = match &c.on_control("{\"command\":\"STATS\"}", 1)[..] {
            [Output::Status(j)] => serde_json::from_str(j).unwrap(),
            other => panic!("{other:?}"),
        };
        assert_eq!(status["phase"], "opening");
        assert_eq!(status["current_speaker"], "a");
        assert!(c.on_control("dance", 1).is_empty());
        let out = c.on_control("stop", 2);
        let (closing, kind) = *lines(&out).last().unwrap();
        assert_eq!(kind, LineKind::Closing);
        assert!(!c.finished(), "waits for the closing line to be heard");
        c.on_played(closing - 1, 3);
        assert!(!c.finished());
        c.on_played(closing, 4);
        assert!(c.finished());
    }

    #[test]
    fn a_turn_carries_the_moderators_call_as_its_instruction() {
        let mut c = conductor(false);
        let out = c.start(0);
        let instruction = out
            .iter()
            .find_map(|o| match o {
                Output::Turn { instruction, .. } => instruction.clone(),
                _ => None,
            })
            .unwrap();
        assert!(
            instruction.starts_with("The moderator said: A, would you start us off?"),
            "{instruction}"
        );
        assert!(
            instruction.contains("Should cities ban cars?"),
            "{instruction}"
        );
    }

    #[test]
    fn the_wait_for_the_closing_line_is_bounded() {
        let mut c = conductor(true);
        c.start(0);
        c.on_control("stop", 2);
        assert!(!c.finished());
        let wake = c.next_wake().unwrap();
        c.tick(wake);
        assert!(c.finished());
    }
}

/// The name of the roundtable moderator's decision logs (their `setup` line's `format`).
pub const ROUNDTABLE_FORMAT: &str = "roundtable-moderator";

/// Everything a roundtable [`Conductor`] is built from: recorded at the head of the
/// session's decision log, so a replay builds the same one.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RoundtableSetup {
    /// The scenario file's text (`SCENARIO`), not its path: the replay needs no file.
    pub scenario_yaml: String,
    pub config: Config,
    /// The phrase library's text (`PHRASES`); empty: the built-in lines.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub phrases: String,
}

impl RoundtableSetup {
    pub fn build(&self) -> Result<Conductor, String> {
        self.build_reporting().map(|(conductor, _)| conductor)
    }

    /// [`RoundtableSetup::build`], with what the phrase library skipped or leaves out in
    /// the scenario's language, for the node to report.
    pub fn build_reporting(&self) -> Result<(Conductor, crate::phrases::LoadReport), String> {
        let scenario =
            crate::Scenario::from_yaml(&self.scenario_yaml).map_err(|e| e.to_string())?;
        let (phrases, report) = RoundtablePhrases::load(&self.phrases, scenario.language);
        Ok((
            Conductor::with_phrases(scenario, self.config, phrases),
            report,
        ))
    }
}

#[cfg(test)]
mod setup_tests {
    use super::*;

    #[test]
    fn the_setup_loads_its_phrase_file_once_in_the_scenarios_language_and_reports_it() {
        let setup = RoundtableSetup {
            scenario_yaml: "topic: 城市应该禁车吗\nlanguage: zh\nagents:\n  - id: a\n  - id: b\n"
                .into(),
            config: Config {
                paced: false,
                max_unplayed: 1,
                playback_timeout_ms: 5_000,
            },
            phrases: "# 中文\n\n## closing\n- 谢谢{names}，再见。\n## warning\n- {nom}？\n".into(),
        };
        let (mut conductor, report) = setup.build_reporting().unwrap();
        assert_eq!(report.language, crate::phrases::Language::Zh);
        assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
        assert!(
            report.left_out.contains(&"warning"),
            "{:?}",
            report.left_out
        );
        assert!(!report.left_out.contains(&"closing"));
        // The conductor speaks the file's line, in the scenario's language.
        conductor.start(0);
        let out = conductor.on_control("stop", 1);
        let wake = conductor.next_wake().unwrap_or(1);
        let out: Vec<Output> = out.into_iter().chain(conductor.tick(wake)).collect();
        assert!(
            out.iter()
                .any(|o| matches!(o, Output::Line { text, .. } if text == "谢谢a和b，再见。")),
            "{out:?}"
        );
    }
}

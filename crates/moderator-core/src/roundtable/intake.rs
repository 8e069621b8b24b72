//! The agents' intents: the broadcast request of a round, each reply parsed strictly,
//! and the heuristic in place of an error, an invalid answer or a missing reply.

use ::conductor::RoundReply;
use voice_protocol::messages::SideRequest;
use voice_protocol::shorten;

use super::{Notice, Output, Roundtable};
use crate::intent::{HeuristicContext, Intent, heuristic_intent, mentions_name, parse_intent};
use crate::scenario::Phase;

/// Characters of the last line quoted in an intent request.
const MAX_QUOTED_CHARS: usize = 300;

/// Intent rounds in a row without one answer in time after which a round waits only a
/// quarter of `intent_timeout_ms`: the agents' model is too busy or too slow to answer
/// (on two cores it answered none in a whole session), and every round's wait was
/// silence before the heuristic's speaker could even start. One answer in time brings
/// the whole window back.
pub(super) const SILENT_ROUNDS_BEFORE_A_SHORT_WAIT: u32 = 2;

#[derive(Debug, Clone)]
pub(super) struct Intake {
    question_id: u64,
    /// An agent answered (not an error in its place) before the round's deadline.
    answered: bool,
    /// The agents asked for their intent; missing answers fall back to the heuristic at
    /// its deadline.
    pub(super) round: ::conductor::Round<String>,
}

/// The request id of the intent round `question_id`.
pub fn request_id_for(question_id: u64) -> String {
    format!("intent-{question_id}")
}

impl Roundtable {
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
        if self.scenario().agent(&agent).is_none() {
            out.push(Output::Notice(Notice::UnknownReplier {
                input: input.to_owned(),
                speaker: agent,
            }));
            return out;
        }
        let Some(intake) = self.intake.as_mut() else {
            out.push(Output::Notice(Notice::ReplyOutsideRound { agent }));
            return out;
        };
        let question_id = intake.question_id;
        match intake.round.reply(request_id, &agent) {
            RoundReply::Counted => {}
            RoundReply::Stale => {
                out.push(Output::Notice(Notice::StaleReply {
                    agent,
                    request_id: request_id.map(str::to_owned),
                }));
                return out;
            }
            RoundReply::NotWaited => {
                out.push(Output::Notice(Notice::RepeatedReply { agent }));
                return out;
            }
        }
        let answer = match error {
            Some(error) => {
                out.push(Output::Notice(Notice::IntentNotAnswered {
                    agent: agent.clone(),
                    error: error.to_owned(),
                }));
                None
            }
            None => {
                intake.answered = true;
                Some(answer)
            }
        };
        self.intent(question_id, &agent, answer, now_ms, &mut out);
        out
    }

    /// What [`heuristic_intent`] needs for `agent` (`None` for an unknown agent).
    pub fn heuristic_context(&self, agent: &str) -> Option<HeuristicContext> {
        let scenario = self.scenario();
        let me = scenario.agent(agent)?;
        let (last_speaker, last_text) =
            self.said.last_line.clone().unwrap_or((None, String::new()));
        let addressed = last_speaker.as_deref() != Some(agent)
            && (mentions_name(&last_text, &me.name) || mentions_name(&last_text, &me.id));
        let others: Vec<&str> = scenario
            .agents
            .iter()
            .filter(|a| a.id != agent)
            .map(|a| a.id.as_str())
            .collect();
        Some(HeuristicContext {
            is_question: text::words::line_asks(&last_text),
            addressed,
            last_speaker,
            last_text,
            own_speaks: self.state.speaks(agent),
            others_speaks: others
                .iter()
                .fold(0u32, |sum, a| sum.saturating_add(self.state.speaks(a))),
            others_count: u32::try_from(others.len()).unwrap_or(u32::MAX),
            rounds_since_spoke: self.state.rounds_since_spoke(agent),
            phase: self.state.phase,
        })
    }

    /// The heuristic intents of every agent for the current round, in scenario order.
    pub fn heuristic_intents(&self) -> Vec<Intent> {
        self.scenario()
            .agents
            .iter()
            .filter_map(|a| {
                self.heuristic_context(&a.id)
                    .map(|ctx| heuristic_intent(&a.id, &ctx))
            })
            .collect()
    }

    /// How long a round waits for intents: `intent_timeout_ms`, a quarter of it after
    /// [`SILENT_ROUNDS_BEFORE_A_SHORT_WAIT`] rounds without an answer.
    pub(super) fn intent_window_ms(&self) -> u64 {
        let window = self.scenario().moderator.intent_timeout_ms;
        if self.silent_intent_rounds >= SILENT_ROUNDS_BEFORE_A_SHORT_WAIT {
            window / 4
        } else {
            window
        }
    }

    /// Counts the round that ends now as answered or silent.
    pub(super) fn close_intake(&mut self, out: &mut Vec<Output>) {
        let Some(intake) = self.intake.as_ref() else {
            return;
        };
        if intake.answered {
            self.silent_intent_rounds = 0;
            return;
        }
        self.silent_intent_rounds += 1;
        if self.silent_intent_rounds == SILENT_ROUNDS_BEFORE_A_SHORT_WAIT {
            out.push(Output::Notice(Notice::ShorterIntentWait {
                rounds: self.silent_intent_rounds,
                wait_ms: self.intent_window_ms(),
            }));
        }
    }

    /// Asks every agent for its intent in the round `question_id`.
    pub(super) fn ask_intents(&mut self, question_id: u64, now_ms: u64, out: &mut Vec<Output>) {
        let phase = self.state.phase;
        let window = self.intent_window_ms();
        // Missing answers fall back to the heuristic a little before the round would
        // count them as `pass`.
        let wanted = window - window / 4;
        let agents = self.scenario().agents.iter().map(|a| a.id.clone());
        self.intake = Some(Intake {
            question_id,
            answered: false,
            round: ::conductor::Round::new(
                request_id_for(question_id),
                agents,
                now_ms.saturating_add(wanted),
            ),
        });
        // Wanted no longer than that: a model still working on it after the heuristic
        // decided would only keep the turns and the reading along waiting.
        let request = self.intent_request(question_id, phase).within(wanted);
        out.push(Output::Request(request));
    }

    /// The heuristic for every agent whose reply is overdue.
    pub(super) fn intents_overdue(&mut self, now_ms: u64, out: &mut Vec<Output>) {
        if let Some(intake) = self.intake.as_mut() {
            let question_id = intake.question_id;
            let silent = intake.round.expired(now_ms);
            for agent in silent {
                out.push(Output::Notice(Notice::IntentLate {
                    agent: agent.clone(),
                    question_id,
                }));
                self.intent(question_id, &agent, None, now_ms, out);
            }
        }
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
            None => heuristic(self),
            Some(answer) => match parse_intent(agent, answer) {
                Ok(intent) => intent,
                Err(e) => {
                    out.push(Output::Notice(Notice::InvalidIntent {
                        agent: agent.to_owned(),
                        answer: shorten(answer),
                        error: e.to_string(),
                    }));
                    heuristic(self)
                }
            },
        };
        self.take_intent(question_id, intent, now_ms, out);
    }

    fn intent_request(&self, question_id: u64, phase: Phase) -> SideRequest {
        let scenario = self.scenario();
        let label = phase
            .phase_type()
            .map_or("the discussion", |p| p.spoken_label());
        let last = match &self.said.last_said {
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
        SideRequest::json(request_id_for(question_id), "intent", prompt, 12)
    }
}

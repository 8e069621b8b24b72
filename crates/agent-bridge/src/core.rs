//! The bridge state machine: turns in, generation requests and `text` chunks out.
//!
//! Guarantees: a generation starts only for a turn addressed to this participant that is
//! not older than the newest interrupt; once an interrupt newer than the running
//! generation arrives, not one more chunk of it is emitted; every generation that emitted
//! anything ends with exactly one `ended` chunk (carrying an error when the backend
//! failed or said nothing).

mod messages;
mod prompts;
mod setup;
mod turn;

pub use messages::{BridgeInput, BridgeOutput, GenerationRequest};
pub use setup::{BRIDGE_FORMAT, BridgeSetup};

use dialogue_planner::{Agenda, Participant, PlanInput, Said, TurnPlan};
use turn::TurnOrder;
use voice_protocol::{
    StaleFilter,
    messages::{PrepareFor, Reply},
};

use crate::{
    history::{Entry, History},
    opener::Openers,
    persona::Persona,
    prompt::Prompt,
    request::{Answering, SideRequest},
};

/// Whose words an answer prepared ahead stands in for: the voice detector does not say
/// who speaks, and the controller's humans are `human` unless named.
const HUMAN_STAND_IN: &str = "human";

#[derive(Debug, Clone)]
struct Active {
    question_id: u64,
    sent_any: bool,
    /// An opener was said: the reply's first words wait here until its own opening
    /// pleasantry, if any, can be cut ([`opener::strip_lead`]).
    lead: Option<String>,
    /// What the model was asked (none for words prepared ahead).
    asked: Option<GenerationRequest>,
}

#[derive(Debug, Clone)]
pub struct BridgeCore {
    persona: Persona,
    topic: Option<String>,
    /// Participants known by name and role (the persona templates): how the others are
    /// called and what they do. Only those of this conversation are named in a prompt.
    directory: Vec<Participant>,
    agenda: Agenda,
    history: History,
    stale: StaleFilter,
    active: Option<Active>,
    /// Turns up to this id were already answered (a repeated turn is ignored).
    answered: u64,
    /// The newest turn seen, whoever it went to: a turn sent again (the controller's
    /// resend, a `ready`) changes nothing, not even who is foretold to speak next.
    turns_seen: u64,
    /// Answers to a human open with a word or two at once (`None`: they don't).
    openers: Option<Openers>,
    /// What is read ahead: lines into the cache, the turn foretold, the answer's prompt.
    ahead: Ahead,
    /// Side requests are answered by the scripted stand-in.
    scripted_requests: bool,
    /// The context a conductor gave with this participant's last turn (its persona, the
    /// deck, its notes): every later prompt (reading along, a side request, the next
    /// turn) starts with it too, so that the model's cache of one is the start of the
    /// next instead of being read again from the first token.
    conductor_context: Option<String>,
}

/// What the bridge reads ahead of its turns: whether lines go into the model's cache
/// as they are heard, whether this participant was foretold the next turn or the answer
/// to the human, a turn set aside while the human speaks, and the line held with it.
#[derive(Debug, Clone, Default)]
struct Ahead {
    /// Every line heard is read into the model's cache as it comes: the conversation
    /// only ([`BridgeOutput::Prefill`]), or, for the participant foretold to speak next,
    /// its whole next turn as predicted now ([`BridgeOutput::ReadAhead`]), so that the
    /// turn itself reads one token.
    read_along: bool,
    /// This participant was foretold the next turn (a [`BridgeInput::Prepare`] for a
    /// turn): the others' turns read ahead would be thrown away at the next line.
    upcoming: bool,
    /// This participant will answer the human who speaks now (a [`BridgeInput::Prepare`]
    /// for an answer): a line heard meanwhile is read into the answer's prompt, not into
    /// a turn that will not come.
    answer_foretold: bool,
    /// A turn of its own that had said nothing when the human began to speak, stopped so
    /// that the answer is read meanwhile: asked again when the controller repeats the
    /// turn at the hold's end (the human only nodded), dropped with a new question.
    set_aside: Option<GenerationRequest>,
    /// The utterance sounding when the voice was held, and what was heard of it: the
    /// answer is read ahead with the line cut there, as the human's words will leave it
    /// (read with the whole line, the cut would make the answer read again from it).
    held: Option<(String, u64, String)>,
}

impl BridgeCore {
    pub fn new(persona: Persona, topic: Option<String>, history_capacity: usize) -> Self {
        let agenda = Agenda::from_topic(topic.as_deref().unwrap_or("the topic"));
        Self {
            persona,
            topic,
            directory: Vec::new(),
            agenda,
            history: History::new(history_capacity),
            stale: StaleFilter::new(),
            active: None,
            answered: 0,
            turns_seen: 0,
            openers: None,
            ahead: Ahead::default(),
            scripted_requests: false,
            conductor_context: None,
        }
    }

    /// Side requests are answered by the scripted stand-in, not asked of a model.
    pub fn with_scripted_requests(mut self, on: bool) -> Self {
        self.scripted_requests = on;
        self
    }

    /// Answers to a human open at once with a word or two that fit what they said
    /// ("Let me see.", "Sure."), while the model reads the question.
    pub fn with_openers(mut self, on: bool) -> Self {
        self.openers = on.then(Openers::default);
        self
    }

    /// Reads every line into the model as it is heard (a backend that keeps a cache).
    pub fn with_read_along(mut self, on: bool) -> Self {
        self.ahead.read_along = on;
        self
    }

    /// Participants known by name and role (`directory`), and the agenda the turns move
    /// through (which may list this conversation's participants).
    pub fn with_plan(mut self, directory: Vec<Participant>, agenda: Option<Agenda>) -> Self {
        self.directory = directory;
        if let Some(agenda) = agenda {
            self.agenda = agenda;
        }
        // An agenda that lists this conversation's participants also says whom the
        // directory's names are for: another format's persona that shares an id (the
        // rehearsal's moderator and the roundtable's) keeps its plain id.
        let listed = self.agenda.participants();
        if !listed.is_empty() {
            self.directory.retain(|p| listed.contains(&p.id));
        }
        self
    }

    /// The ids of the conversation's participants (the nodes of its dataflow), for an
    /// agenda that names none: the others this participant is told about (its standing,
    /// read first in every prompt) are then known from the start. Else they are those
    /// heard so far, and every newcomer's first line changes the standing and throws
    /// away every participant's cache (a rehearsal's panelists read 500 tokens again at
    /// each new voice).
    pub fn with_participants(mut self, ids: Vec<String>) -> Self {
        if ids.is_empty() {
            return self;
        }
        let agenda = self.agenda.clone().or_participants(ids);
        let directory = std::mem::take(&mut self.directory);
        self.with_plan(directory, Some(agenda))
    }

    pub fn agenda(&self) -> &Agenda {
        &self.agenda
    }

    pub fn persona(&self) -> &Persona {
        &self.persona
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    pub fn topic(&self) -> Option<&str> {
        self.topic.as_deref()
    }

    /// The question id being generated, if any.
    pub fn active(&self) -> Option<u64> {
        self.active.as_ref().map(|a| a.question_id)
    }

    /// Decides on one input (the bridge has no waits of its own: no time is read; as a
    /// [`conductor::Core`], its node records every call).
    pub fn decide(&mut self, input: BridgeInput) -> Vec<BridgeOutput> {
        let mut out = Vec::new();
        match input {
            BridgeInput::Started => {
                if self.ahead.read_along && self.active.is_none() {
                    out.push(BridgeOutput::Prefill(self.read_ahead()));
                }
            }
            BridgeInput::Turn {
                speaker,
                question_id,
                instruction,
                context,
                prepared,
                takes_up,
                asks,
                answers_human,
            } => {
                if question_id <= self.turns_seen {
                    // The turn repeated at the hold's end: no answer is coming, the held
                    // voice plays on (its line is not to be cut later), and the turn set
                    // aside goes on.
                    self.ahead.answer_foretold = false;
                    self.ahead.held = None;
                    if let Some(asked) = self
                        .ahead
                        .set_aside
                        .take_if(|asked| asked.question_id == question_id)
                        .filter(|_| !self.stale.is_stale(question_id))
                    {
                        self.active = Some(Active {
                            question_id,
                            sent_any: false,
                            lead: None,
                            asked: Some(asked.clone()),
                        });
                        out.push(BridgeOutput::Generate(asked));
                    }
                    return out;
                }
                self.turns_seen = question_id;
                self.ahead.set_aside = None;
                // A turn without an interrupt before it: the held voice played on.
                self.ahead.held = None;
                // The turn foretold went out (to whomever the policy gave it at last).
                self.ahead.upcoming = false;
                self.ahead.answer_foretold = false;
                if speaker != self.persona.name
                    || self.stale.is_stale(question_id)
                    || question_id <= self.answered
                {
                    return out;
                }
                out.extend(self.start_turn(TurnOrder {
                    question_id,
                    instruction,
                    context,
                    prepared,
                    takes_up,
                    asks,
                    answers_human,
                }));
            }
            BridgeInput::Prepare {
                speaker,
                ahead_of: PrepareFor::Answer,
            } => {
                self.ahead.answer_foretold = speaker == self.persona.name;
                if self.ahead.answer_foretold {
                    // A turn of its own still generating would hold the model's sequence
                    // through the hold, and the answer would read its prompt after the
                    // human stopped: one that said nothing yet is set aside instead (a
                    // model that keeps no cache has nothing to read ahead: it goes on).
                    if let Some(turn) = self
                        .active
                        .take_if(|a| self.ahead.read_along && !a.sent_any && a.asked.is_some())
                    {
                        out.push(BridgeOutput::Cancel {
                            question_id: turn.question_id,
                        });
                        self.ahead.set_aside = turn.asked;
                    }
                    out.push(BridgeOutput::Prefill(self.answer_ahead()));
                }
            }
            BridgeInput::Prepare {
                speaker,
                ahead_of: PrepareFor::Turn,
            } => {
                self.ahead.upcoming = speaker == self.persona.name;
                // The human only nodded, or was answered: no answer is coming, and the
                // held line plays on.
                self.ahead.answer_foretold = false;
                self.ahead.held = None;
                if self.ahead.upcoming && self.ahead.read_along && self.active.is_none() {
                    out.push(BridgeOutput::ReadAhead(self.read_ahead()));
                }
            }
            BridgeInput::Interrupt { question_id } => {
                self.ahead.upcoming = false;
                self.stale.interrupt(question_id);
                self.ahead
                    .set_aside
                    .take_if(|asked| self.stale.is_stale(asked.question_id));
                // The human's words cut the line held where it was held; the player's own
                // report of it may come after the answer's turn, which must read it cut.
                if let Some((speaker, held_id, heard)) = self
                    .ahead
                    .held
                    .take_if(|(_, held_id, _)| self.stale.is_stale(*held_id))
                {
                    self.history.cut_to_heard(&speaker, held_id, &heard);
                    self.history.drop_queued(held_id, question_id);
                }
                if let Some(a) = self.active.take_if(|a| self.stale.is_stale(a.question_id)) {
                    out.push(BridgeOutput::Cancel {
                        question_id: a.question_id,
                    });
                }
            }
            BridgeInput::Utterance(entry) => {
                let entry_human = entry.human;
                self.history.push(entry);
                // While a turn of its own generates, the next one reads the line anyway.
                // A human's words are not: their answerer is handed the turn at once and
                // reads them as its question (read as a line first, the cache would be
                // thrown away); the others read them with the next line.
                if self.ahead.read_along && self.active.is_none() && !entry_human {
                    out.push(if self.ahead.answer_foretold {
                        BridgeOutput::Prefill(self.answer_ahead())
                    } else if self.ahead.upcoming {
                        BridgeOutput::ReadAhead(self.read_ahead())
                    } else {
                        BridgeOutput::Prefill(self.read_ahead())
                    });
                }
            }
            BridgeInput::Played {
                speaker,
                question_id,
                heard,
            } => self.history.cut_to_heard(&speaker, question_id, &heard),
            BridgeInput::Held {
                speaker,
                question_id,
                heard,
            } => {
                self.ahead.held = Some((speaker, question_id, heard));
                // The answer read ahead with the whole line is read again, cut.
                if self.ahead.answer_foretold && self.ahead.read_along && self.active.is_none() {
                    out.push(BridgeOutput::Prefill(self.answer_ahead()));
                }
            }
            BridgeInput::Chunk {
                question_id,
                text,
                ends_sentence,
            } => out.extend(self.on_chunk(question_id, text, ends_sentence)),
            // Addressed to another participant: not this bridge's to answer.
            BridgeInput::Request(request) if !request.is_for(&self.persona.name) => {}
            BridgeInput::Request(request) => {
                if let Some(context) = request.context.clone().filter(|c| !c.trim().is_empty()) {
                    self.conductor_context = Some(context);
                }
                if self.scripted_requests {
                    let answer = request.scripted_answer(
                        &self.persona,
                        self.topic.as_deref(),
                        &self.history,
                    );
                    out.push(self.reply(request, answer));
                } else {
                    let name_of = |id: &str| self.name_of(id);
                    let prompt = request.prompt(
                        &self.speaking_persona(),
                        self.topic.as_deref(),
                        &self.history,
                        &name_of,
                    );
                    out.push(BridgeOutput::Ask { request, prompt });
                }
            }
            BridgeInput::Answered { request, answer } => out.push(self.reply(request, answer)),
            BridgeInput::Finished { question_id, error } => {
                out.extend(self.on_finished(question_id, error))
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use voice_protocol::StreamStatus;

    fn core() -> BridgeCore {
        BridgeCore::new(Persona::fallback("tutor"), None, 50)
    }

    /// The lines of `prompt`, one a line.
    fn said(prompt: &Prompt) -> String {
        prompt
            .lines
            .iter()
            .map(|l| l.text.clone())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The human's words interrupt (question `q`), are heard, and the tutor is handed the
    /// answer: the request it makes.
    fn answer_after_the_humans_words(c: &mut BridgeCore, q: u64) -> GenerationRequest {
        c.decide(BridgeInput::Interrupt { question_id: q });
        let mut human = Entry::new("human", "Why a limit?", q);
        human.human = true;
        c.decide(BridgeInput::Utterance(human));
        let out = c.decide(turn("tutor", q + 1));
        let [BridgeOutput::Generate(answer)] = &out[..] else {
            panic!("{out:?}")
        };
        answer.clone()
    }

    fn turn(speaker: &str, q: u64) -> BridgeInput {
        BridgeInput::Turn {
            speaker: speaker.into(),
            question_id: q,
            instruction: None,
            context: None,
            prepared: None,
            takes_up: None,
            asks: false,
            answers_human: false,
        }
    }

    #[test]
    fn side_requests_go_to_the_model_and_come_back_as_replies() {
        let mut c = core();
        let request = SideRequest::json("r-1", "intent", "Do you want the floor?", 12);
        let out = c.decide(BridgeInput::Request(request.clone()));
        let [
            BridgeOutput::Ask {
                request: asked,
                prompt,
            },
        ] = out.as_slice()
        else {
            panic!("{out:?}");
        };
        assert_eq!(asked, &request);
        assert!(
            prompt
                .requests
                .last()
                .unwrap()
                .contains("Do you want the floor?")
        );
        assert!(c.active().is_none(), "a side request is not a turn");
        let answered = c.decide(BridgeInput::Answered {
            request: request.clone(),
            answer: Ok(r#"{"intent":"pass"}"#.into()),
        });
        let [BridgeOutput::Reply(reply)] = answered.as_slice() else {
            panic!("{answered:?}");
        };
        assert_eq!(reply.request_id.as_deref(), Some("r-1"));
        assert_eq!(reply.kind.as_deref(), Some("intent"));
        assert_eq!(reply.speaker.as_deref(), Some(c.persona().name.as_str()));
        assert_eq!(reply.error, None);
        // A failed answer is an empty reply that says why.
        let failed = c.decide(BridgeInput::Answered {
            request,
            answer: Err("timed out".into()),
        });
        let [BridgeOutput::Reply(reply)] = failed.as_slice() else {
            panic!("{failed:?}");
        };
        assert_eq!(
            (reply.text.as_str(), reply.error.as_deref()),
            ("", Some("timed out"))
        );
    }

    #[test]
    fn the_dataflows_participants_are_known_before_they_speak_and_the_standing_holds() {
        let directory = vec![
            Participant::new("moderator", "Diana Chen", "moderator"),
            Participant::new("skeptic", "Marcus Webb", "investor"),
            Participant::new("student1", "Mia", "student"),
        ];
        let nodes = ["moderator", "skeptic", "presenter", "tts", "tutor"];
        let mut c = core()
            .with_plan(directory.clone(), None)
            .with_participants(nodes.map(str::to_owned).to_vec());
        let before = c.speaking_persona().system_prompt;
        assert!(before.contains("Diana Chen the moderator"), "{before}");
        assert!(before.contains("Marcus Webb the investor"), "{before}");
        assert!(!before.contains("Mia"), "{before}");
        c.decide(BridgeInput::Utterance(Entry::new(
            "moderator",
            "Let me pause you there.",
            1,
        )));
        assert_eq!(c.speaking_persona().system_prompt, before);
        // Without the dataflow's nodes, those heard so far: the standing grows.
        let mut heard = core()
            .with_plan(directory, None)
            .with_participants(Vec::new());
        let alone = heard.speaking_persona().system_prompt;
        heard.decide(BridgeInput::Utterance(Entry::new(
            "moderator",
            "Let me pause you there.",
            1,
        )));
        assert_ne!(heard.speaking_persona().system_prompt, alone);
    }

    #[test]
    fn a_spoken_reply_loses_a_participants_label_and_a_json_one_is_kept() {
        let directory = vec![Participant::new("skeptic", "Dana Whitfield", "investor")];
        let c = core().with_plan(directory, None);
        let reply = |text: &str, json: bool| {
            let request = if json {
                SideRequest::json("r", "intent", "Want the floor?", 12)
            } else {
                SideRequest::text("r", "follow_up", "Ask about margins.", 40)
            };
            let BridgeOutput::Reply(reply) = c.reply(request, Ok(text.into())) else {
                panic!()
            };
            reply.text
        };
        for labelled in [
            "Skeptic: What margin do you expect?",
            "[Dana Whitfield]: What margin do you expect?",
            "**Investor:** What margin do you expect?",
            "Tutor: What margin do you expect?",
        ] {
            assert_eq!(
                reply(labelled, false),
                "What margin do you expect?",
                "{labelled}"
            );
        }
        // Not a participant's label, a label alone, or a JSON answer: as it came.
        for kept in ["Margins: what do you expect?", "Skeptic:"] {
            assert_eq!(reply(kept, false), kept);
        }
        assert_eq!(reply(r#"skeptic: {"a": 1}"#, true), r#"skeptic: {"a": 1}"#);
    }

    #[test]
    fn a_request_addressed_to_another_participant_is_not_answered() {
        let mut c = core().with_scripted_requests(true);
        let rating = SideRequest::text("rate-1", "rating", "Rate it.", 40);
        assert!(
            c.decide(BridgeInput::Request(rating.clone().to("skeptic")))
                .is_empty()
        );
        assert_eq!(c.decide(BridgeInput::Request(rating.to("tutor"))).len(), 1);
    }

    #[test]
    fn the_scripted_stand_in_rates_an_answer_by_what_it_took_up() {
        let mut c = core().with_scripted_requests(true);
        let mut verdict = |answer: &str| {
            let prompt = format!(
                "Your question was: What margin do you make per robot?\n\
                 The presenter's answer: {answer}\nRate the answer."
            );
            let out = c.decide(BridgeInput::Request(SideRequest::text(
                "rate-1", "rating", prompt, 40,
            )));
            let [BridgeOutput::Reply(reply)] = out.as_slice() else {
                panic!("{out:?}");
            };
            reply.text.split(':').next().unwrap().to_owned()
        };
        assert_eq!(verdict("Our margin is 62 percent per robot."), "Answered");
        assert_eq!(verdict("The margin per robot grows."), "Partly");
        assert_eq!(verdict("Our team is excellent."), "Dodged");
    }

    #[test]
    fn the_scripted_stand_in_answers_text_requests_and_declines_json_at_once() {
        let mut c = core().with_scripted_requests(true);
        let text = SideRequest::text("k-1", "kicker", "Cut in on the revenue claim", 8);
        let out = c.decide(BridgeInput::Request(text));
        let [BridgeOutput::Reply(reply)] = out.as_slice() else {
            panic!("{out:?}");
        };
        assert!(reply.error.is_none());
        assert!(!reply.text.is_empty() && reply.text.split_whitespace().count() <= 8);
        let out = c.decide(BridgeInput::Request(SideRequest::json(
            "b-1", "bid", "Bid.", 12,
        )));
        let [BridgeOutput::Reply(reply)] = out.as_slice() else {
            panic!("{out:?}");
        };
        assert!(reply.text.is_empty() && reply.error.is_some());
    }

    #[test]
    fn a_turn_that_answers_the_human_is_served_first_with_the_conductors_words() {
        for answers_human in [false, true] {
            let mut c = core();
            let out = c.decide(BridgeInput::Turn {
                speaker: "tutor".into(),
                question_id: 1,
                instruction: Some("You are answering our guest. Then: argue.".into()),
                context: None,
                prepared: None,
                takes_up: None,
                asks: false,
                answers_human,
            });
            let request = out
                .iter()
                .find_map(|o| match o {
                    BridgeOutput::Generate(r) => Some(r),
                    _ => None,
                })
                .expect("the turn is asked of the model");
            let expected = match answers_human {
                true => model_schedule::Priority::Answer,
                false => model_schedule::Priority::Turn,
            };
            assert_eq!(request.priority(), expected);
            assert!(format!("{:?}", request.prompt).contains("You are answering our guest"));
        }
    }

    #[test]
    fn a_conductors_context_starts_every_later_prompt_so_the_cache_holds() {
        let mut c = core().with_read_along(true);
        c.decide(BridgeInput::Turn {
            speaker: "tutor".into(),
            question_id: 1,
            instruction: Some("Ask the presenter about churn.".into()),
            context: Some("You are Marcus Webb. The deck: ...".into()),
            prepared: None,
            takes_up: None,
            asks: false,
            answers_human: false,
        });
        c.decide(BridgeInput::Finished {
            question_id: 1,
            error: None,
        });
        let out = c.decide(BridgeInput::Request(SideRequest::text(
            "r-1",
            "rating",
            "Rate the answer.",
            20,
        )));
        let [BridgeOutput::Ask { prompt, .. }] = out.as_slice() else {
            panic!("{out:?}");
        };
        assert!(prompt.persona.contains("\n\nYou are Marcus Webb."));
        // A request's own context (its conductor's, newer) is taken up the same way.
        let mut request = SideRequest::text("r-2", "candidate", "A question?", 20);
        request.context = Some("You are Marcus Webb, on slide 2.".into());
        let out = c.decide(BridgeInput::Request(request));
        let [BridgeOutput::Ask { prompt, .. }] = out.as_slice() else {
            panic!("{out:?}");
        };
        assert!(
            prompt
                .persona
                .contains("\n\nYou are Marcus Webb, on slide 2.")
        );
        let out = c.decide(BridgeInput::Utterance(Entry::new(
            "presenter",
            "Churn is four percent.",
            2,
        )));
        let [BridgeOutput::Prefill(read)] = out.as_slice() else {
            panic!("{out:?}");
        };
        assert!(
            read.prompt
                .persona
                .contains("\n\nYou are Marcus Webb, on slide 2.")
        );
    }

    #[test]
    fn an_instruction_closes_the_prompt() {
        let mut c = core();
        let out = c.decide(BridgeInput::Turn {
            speaker: "tutor".into(),
            question_id: 1,
            instruction: Some("Ask the presenter about churn.".into()),
            context: Some("You are Marcus Webb. The deck: ...".into()),
            prepared: None,
            takes_up: None,
            asks: false,
            answers_human: false,
        });
        let BridgeOutput::Generate(request) = &out[0] else {
            panic!("{out:?}")
        };
        assert!(request.prompt.persona.contains("\n\nYou are Marcus Webb."));
        let last = request.prompt.requests.last().unwrap();
        // The conductor's request, put as the director's instruction for this turn.
        assert!(
            last.starts_with("Your turn, tutor.")
                && last.contains("(do not read it out): Ask the presenter about churn."),
            "{last}"
        );
        assert_eq!(
            request.instruction.as_deref(),
            Some("Ask the presenter about churn.")
        );
    }

    fn asked(c: &mut BridgeCore, words: &str, q: u64) {
        let mut human = Entry::new("human", words, q);
        human.human = true;
        c.decide(BridgeInput::Utterance(human));
    }

    fn texts(out: &[BridgeOutput]) -> Vec<(String, StreamStatus)> {
        out.iter()
            .filter_map(|o| match o {
                BridgeOutput::Text { text, status, .. } => Some((text.clone(), *status)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn an_answer_to_the_human_opens_at_once_and_the_models_pleasantry_is_cut() {
        let mut c = core().with_openers(true);
        asked(&mut c, "Can you give me an example?", 1);
        let out = c.decide(turn("tutor", 2));
        assert_eq!(
            texts(&out),
            [(
                "Let me walk you through it.\n".to_owned(),
                StreamStatus::Started
            )]
        );
        assert!(
            matches!(out.last(), Some(BridgeOutput::Generate(_))),
            "{out:?}"
        );
        // The model's "Sure," waits for its mark, then goes without it.
        let chunk = |c: &mut BridgeCore, text: &str| {
            c.decide(BridgeInput::Chunk {
                question_id: 2,
                text: text.into(),
                ends_sentence: false,
            })
        };
        assert!(chunk(&mut c, "Sure").is_empty());
        let out = chunk(&mut c, ", take f of x equals x squared.");
        assert_eq!(
            texts(&out),
            [(
                "Take f of x equals x squared.".to_owned(),
                StreamStatus::Ongoing
            )]
        );
        // Later words pass as they come.
        let out = chunk(&mut c, " Sure, why not.");
        assert_eq!(texts(&out)[0].0, " Sure, why not.");
        let out = c.decide(BridgeInput::Finished {
            question_id: 2,
            error: None,
        });
        assert_eq!(texts(&out), [(String::new(), StreamStatus::Ended)]);
    }

    #[test]
    fn a_reply_that_ends_while_its_lead_waits_says_what_it_had() {
        let mut c = core().with_openers(true);
        asked(&mut c, "Why is that?", 1);
        c.decide(turn("tutor", 2));
        // " Sure" may still become "Sure," when the reply ends.
        for text in ["Great question!", " Sure"] {
            c.decide(BridgeInput::Chunk {
                question_id: 2,
                text: text.into(),
                ends_sentence: false,
            });
        }
        let out = c.decide(BridgeInput::Finished {
            question_id: 2,
            error: None,
        });
        let said: Vec<String> = texts(&out).into_iter().map(|(t, _)| t).collect();
        assert_eq!(said, ["Sure", ""]);
        // Only the opener: the turn still ends without an error (it said something).
        asked(&mut c, "Why is that?", 3);
        c.decide(turn("tutor", 4));
        let out = c.decide(BridgeInput::Finished {
            question_id: 4,
            error: None,
        });
        assert!(
            matches!(
                &out[..],
                [BridgeOutput::Text {
                    error: None,
                    status: StreamStatus::Ended,
                    ..
                }]
            ),
            "{out:?}"
        );
    }

    #[test]
    fn only_answers_to_a_human_open_and_only_when_asked_to() {
        // The human did not speak last: a move of the tutor's own.
        let mut c = core().with_openers(true);
        asked(&mut c, "What is a limit?", 1);
        c.decide(BridgeInput::Utterance(Entry::new(
            "student1",
            "A limit is where f goes.",
            2,
        )));
        let out = c.decide(turn("tutor", 3));
        assert!(texts(&out).is_empty(), "{out:?}");
        // Openers off (the default).
        let mut c = core();
        asked(&mut c, "What is a limit?", 1);
        let out = c.decide(turn("tutor", 2));
        assert!(texts(&out).is_empty(), "{out:?}");
    }

    #[test]
    fn prepared_words_are_said_without_generating() {
        let mut c = core();
        let out = c.decide(BridgeInput::Turn {
            speaker: "tutor".into(),
            question_id: 3,
            instruction: Some("Ask your prepared question: \u{201c}Why now?\u{201d}".into()),
            context: None,
            prepared: Some(" Why now? ".into()),
            takes_up: None,
            asks: false,
            answers_human: false,
        });
        let said: Vec<(String, StreamStatus)> = out
            .iter()
            .map(|o| match o {
                BridgeOutput::Text { text, status, .. } => (text.clone(), *status),
                other => panic!("no generation expected: {other:?}"),
            })
            .collect();
        assert_eq!(
            said,
            [
                ("Why now?".to_owned(), StreamStatus::Started),
                (String::new(), StreamStatus::Ended)
            ]
        );
        assert_eq!(c.active(), None);
    }

    /// The agenda's opening line is the conversation's first, said without the model; a
    /// later turn is generated, even by a bridge that restarted and knows no lines.
    #[test]
    fn the_agendas_opening_line_opens_the_conversation() {
        let agenda = Agenda::parse("topic: derivatives\nopening: What is a derivative?\n").unwrap();
        let mut c = core().with_plan(Vec::new(), Some(agenda));
        let said: Vec<String> = c
            .decide(turn("tutor", 1))
            .iter()
            .map(|o| match o {
                BridgeOutput::Text { text, .. } => text.clone(),
                other => panic!("no generation expected: {other:?}"),
            })
            .collect();
        assert_eq!(said, ["What is a derivative?", ""]);
        c.decide(BridgeInput::Utterance(Entry::new(
            "tutor",
            "What is a derivative?",
            1,
        )));
        assert!(
            c.decide(turn("tutor", 2))
                .iter()
                .any(|o| matches!(o, BridgeOutput::Generate(_)))
        );
        // Restarted mid-session, it knows no lines: a later turn is generated.
        let agenda = Agenda::parse("topic: derivatives\nopening: What is a derivative?\n").unwrap();
        let mut restarted = core().with_plan(Vec::new(), Some(agenda));
        assert!(
            restarted
                .decide(turn("tutor", 7))
                .iter()
                .any(|o| matches!(o, BridgeOutput::Generate(_)))
        );
    }

    fn chunk(q: u64, t: &str) -> BridgeInput {
        BridgeInput::Chunk {
            question_id: q,
            text: t.into(),
            ends_sentence: false,
        }
    }

    #[test]
    fn answers_only_its_own_turns_and_streams_statuses() {
        let mut c = core();
        assert!(c.decide(turn("student1", 1)).is_empty());
        let out = c.decide(turn("tutor", 2));
        assert!(matches!(&out[..], [BridgeOutput::Generate(r)] if r.question_id == 2));
        // A repeated turn (controller `ready`) does not restart the generation.
        assert!(c.decide(turn("tutor", 2)).is_empty());
        let statuses: Vec<StreamStatus> = [chunk(2, "Hello"), chunk(2, " there")]
            .into_iter()
            .chain([BridgeInput::Finished {
                question_id: 2,
                error: None,
            }])
            .flat_map(|i| c.decide(i))
            .map(|o| match o {
                BridgeOutput::Text { status, .. } => status,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            statuses,
            [
                StreamStatus::Started,
                StreamStatus::Ongoing,
                StreamStatus::Ended
            ]
        );
    }

    #[test]
    fn a_bridge_that_reads_along_reads_its_standing_when_it_starts() {
        let mut c = core().with_read_along(true);
        let out = c.decide(BridgeInput::Started);
        let [BridgeOutput::Prefill(prefill)] = &out[..] else {
            panic!("{out:?}")
        };
        // The first turn's prompt begins with what was read.
        let out = c.decide(turn("tutor", 1));
        let [BridgeOutput::Generate(request)] = &out[..] else {
            panic!("{out:?}")
        };
        assert_eq!(prefill.prompt.persona, request.prompt.persona);
        assert!(prefill.prompt.lines.is_empty());
        // A model that keeps no cache has nothing to read.
        assert!(core().decide(BridgeInput::Started).is_empty());
    }

    #[test]
    fn the_human_s_answerer_prefills_the_turn_s_prompt_when_its_model_is_free() {
        let mut c = core().with_read_along(true);
        c.decide(BridgeInput::Utterance(Entry::new(
            "student1",
            "What is a slope?",
            1,
        )));
        let prepare = |who: &str| BridgeInput::Prepare {
            speaker: who.into(),
            ahead_of: PrepareFor::Answer,
        };
        assert!(c.decide(prepare("student1")).is_empty(), "not this bridge");
        let out = c.decide(prepare("tutor"));
        let [BridgeOutput::Prefill(prefill)] = &out[..] else {
            panic!("{out:?}")
        };
        // The human's words come; the turn's prompt is the prepared one with them
        // before the direction, which is the same.
        let mut human = Entry::new("human", "Why is it a limit?", 2);
        human.human = true;
        c.decide(BridgeInput::Utterance(human));
        let out = c.decide(turn("tutor", 3));
        let [BridgeOutput::Generate(request)] = &out[..] else {
            panic!("{out:?}")
        };
        assert_eq!(prefill.prompt.requests, request.prompt.requests);
        let (_, before) = request.prompt.lines.split_last().unwrap();
        assert_eq!(prefill.prompt.lines[..], before[..]);
        assert_eq!(prefill.plan, request.plan);
        assert!(prefill.instruction.is_none());
        assert!(prefill.plan.as_ref().unwrap().action == dialogue_planner::Move::AnswerHuman);
        // While a turn that said nothing yet generates, it is set aside for the reading.
        assert!(matches!(
            &c.decide(prepare("tutor"))[..],
            [
                BridgeOutput::Cancel { question_id: 3 },
                BridgeOutput::Prefill(_)
            ]
        ));
    }

    #[test]
    fn a_turn_set_aside_for_the_answer_goes_on_when_repeated_and_not_after_a_question() {
        let prepare = BridgeInput::Prepare {
            speaker: "tutor".into(),
            ahead_of: PrepareFor::Answer,
        };
        let mut c = core().with_read_along(true);
        c.decide(BridgeInput::Utterance(Entry::new("student1", "Slopes?", 1)));
        let out = c.decide(turn("tutor", 2));
        let [BridgeOutput::Generate(asked)] = &out[..] else {
            panic!("{out:?}")
        };
        let out = c.decide(prepare.clone());
        assert!(
            matches!(
                &out[..],
                [
                    BridgeOutput::Cancel { question_id: 2 },
                    BridgeOutput::Prefill(_)
                ]
            ),
            "{out:?}"
        );
        // Its late words are not said; the repeat at the hold's end asks it again.
        assert!(
            c.decide(BridgeInput::Chunk {
                question_id: 2,
                text: "Late.".into(),
                ends_sentence: false,
            })
            .is_empty()
        );
        assert_eq!(
            c.decide(turn("tutor", 2)),
            [BridgeOutput::Generate(asked.clone())]
        );
        // Once is enough: another repeat changes nothing.
        assert!(c.decide(turn("tutor", 2)).is_empty());
        let out = c.decide(BridgeInput::Chunk {
            question_id: 2,
            text: "Slopes are rates.".into(),
            ends_sentence: false,
        });
        assert!(matches!(&out[..], [BridgeOutput::Text { .. }]), "{out:?}");

        // A turn that already said words is not set aside.
        c.decide(BridgeInput::Finished {
            question_id: 2,
            error: None,
        });
        let out = c.decide(turn("tutor", 3));
        assert!(matches!(&out[..], [BridgeOutput::Generate(_)]));
        c.decide(BridgeInput::Chunk {
            question_id: 3,
            text: "Rates.".into(),
            ends_sentence: false,
        });
        assert!(matches!(
            &c.decide(prepare.clone())[..],
            [BridgeOutput::Prefill(_)]
        ));

        // Set aside, then the human asks: the question's interrupt drops it.
        let mut c = core().with_read_along(true);
        c.decide(turn("tutor", 2));
        c.decide(prepare.clone());
        c.decide(BridgeInput::Interrupt { question_id: 3 });
        assert!(c.decide(turn("tutor", 2)).is_empty());
        assert!(matches!(
            &c.decide(turn("tutor", 4))[..],
            [BridgeOutput::Generate(request)] if request.question_id == 4
        ));

        // A model without a cache (a service) has nothing to read ahead: the turn goes on.
        let mut c = core();
        c.decide(turn("tutor", 2));
        assert!(matches!(&c.decide(prepare)[..], [BridgeOutput::Prefill(_)]));
        assert_eq!(c.active(), Some(2));
    }

    #[test]
    fn a_line_queued_behind_the_held_one_is_not_in_the_answer() {
        let mut c = core().with_read_along(true);
        c.decide(BridgeInput::Utterance(Entry::new(
            "student1",
            "The slope is the limit of the secant slopes.",
            1,
        )));
        c.decide(BridgeInput::Prepare {
            speaker: "tutor".into(),
            ahead_of: PrepareFor::Answer,
        });
        c.decide(BridgeInput::Held {
            speaker: "student1".into(),
            question_id: 1,
            heard: "The slope is".into(),
        });
        // The next turn, written while the human speaks, is queued behind the held line.
        let out = c.decide(BridgeInput::Utterance(Entry::new(
            "student2",
            "If we had the limit of the difference quotient at any point.",
            2,
        )));
        let [BridgeOutput::Prefill(read)] = &out[..] else {
            panic!("{out:?}")
        };
        assert!(!said(&read.prompt).contains("difference quotient"));
        // The human's words: the answer's prompt starts as the one read ahead.
        let answer = answer_after_the_humans_words(&mut c, 3);
        assert!(!said(&answer.prompt).contains("difference quotient"));
        assert_eq!(
            answer.prompt.lines[..read.prompt.lines.len()],
            read.prompt.lines[..]
        );
    }

    #[test]
    fn the_answer_is_read_ahead_with_the_held_line_cut_where_the_voice_was_held() {
        let line = "The slope is the limit of the secant slopes as the two points meet.";
        let mut c = core().with_read_along(true);
        c.decide(BridgeInput::Utterance(Entry::new("student1", line, 1)));
        c.decide(BridgeInput::Prepare {
            speaker: "tutor".into(),
            ahead_of: PrepareFor::Answer,
        });
        let held = BridgeInput::Held {
            speaker: "student1".into(),
            question_id: 1,
            heard: "The slope is the limit".into(),
        };
        let out = c.decide(held.clone());
        let [BridgeOutput::Prefill(read)] = &out[..] else {
            panic!("{out:?}")
        };
        assert!(said(&read.prompt).contains("The slope is the limit —"));
        assert!(!said(&read.prompt).contains("secant"));
        // The human's words interrupt: the answer's prompt holds the line as read ahead,
        // before the player's own report of the cut has come.
        let answer = answer_after_the_humans_words(&mut c, 2);
        assert_eq!(
            answer.prompt.lines[..read.prompt.lines.len()],
            read.prompt.lines[..]
        );

        // The human only nods, and the turn in progress is sent again: the line held
        // plays on, and a later question's interrupt does not cut it.
        let mut c = core().with_read_along(true);
        c.decide(BridgeInput::Utterance(Entry::new("student1", line, 1)));
        c.decide(turn("student2", 2));
        c.decide(BridgeInput::Prepare {
            speaker: "tutor".into(),
            ahead_of: PrepareFor::Answer,
        });
        c.decide(held.clone());
        c.decide(turn("student2", 2));
        c.decide(BridgeInput::Interrupt { question_id: 3 });
        let out = c.decide(turn("tutor", 4));
        let [BridgeOutput::Generate(answer)] = &out[..] else {
            panic!("{out:?}")
        };
        assert!(said(&answer.prompt).contains("secant"));

        // The human only nods: the line plays on, whole in the conversation.
        let mut c = core().with_read_along(true);
        c.decide(BridgeInput::Utterance(Entry::new("student1", line, 1)));
        c.decide(BridgeInput::Prepare {
            speaker: "tutor".into(),
            ahead_of: PrepareFor::Answer,
        });
        c.decide(held);
        c.decide(BridgeInput::Prepare {
            speaker: "student2".into(),
            ahead_of: PrepareFor::Turn,
        });
        let out = c.decide(turn("tutor", 2));
        let [BridgeOutput::Generate(turn)] = &out[..] else {
            panic!("{out:?}")
        };
        assert!(said(&turn.prompt).contains("secant"));
    }

    #[test]
    fn a_line_heard_while_the_human_speaks_is_read_into_the_answer() {
        let mut c = core().with_read_along(true);
        c.decide(BridgeInput::Prepare {
            speaker: "tutor".into(),
            ahead_of: PrepareFor::Answer,
        });
        // Another's line ends while the human speaks: read with the answer's direction
        // after it, as the answer will be asked.
        let out = c.decide(BridgeInput::Utterance(Entry::new("student1", "Slopes!", 1)));
        let [BridgeOutput::Prefill(read)] = &out[..] else {
            panic!("{out:?}")
        };
        let ahead = c.answer_ahead();
        assert_eq!(read.prompt, ahead.prompt);
        assert_eq!(
            read.plan.as_ref().unwrap().action,
            dialogue_planner::Move::AnswerHuman
        );
        // The human only nodded, and the next turn is foretold to another: lines are
        // read as the conversation again.
        c.decide(BridgeInput::Prepare {
            speaker: "student2".into(),
            ahead_of: PrepareFor::Turn,
        });
        let out = c.decide(BridgeInput::Utterance(Entry::new("student2", "Yes.", 2)));
        let [BridgeOutput::Prefill(read)] = &out[..] else {
            panic!("{out:?}")
        };
        assert_ne!(
            read.plan.as_ref().unwrap().action,
            dialogue_planner::Move::AnswerHuman
        );
    }

    #[test]
    fn interrupt_cancels_and_silences_the_old_turn() {
        let mut c = core();
        c.decide(turn("tutor", 3));
        c.decide(chunk(3, "Let me"));
        let out = c.decide(BridgeInput::Interrupt { question_id: 4 });
        assert_eq!(out, [BridgeOutput::Cancel { question_id: 3 }]);
        assert!(c.decide(chunk(3, " explain")).is_empty());
        assert!(
            c.decide(BridgeInput::Finished {
                question_id: 3,
                error: None
            })
            .is_empty()
        );
        // A turn older than the interrupt (reordered delivery) is ignored.
        assert!(c.decide(turn("tutor", 3)).is_empty());
        assert!(!c.decide(turn("tutor", 5)).is_empty());
    }

    #[test]
    fn empty_answer_ends_with_an_error() {
        let mut c = core();
        c.decide(turn("tutor", 1));
        let out = c.decide(BridgeInput::Finished {
            question_id: 1,
            error: None,
        });
        assert!(matches!(
            &out[..],
            [BridgeOutput::Text {
                status: StreamStatus::Ended,
                error: Some(_),
                ..
            }]
        ));
    }

    proptest! {
        /// Under any interleaving, no chunk of a question older than the newest interrupt
        /// is ever emitted, and each generation ends at most once.
        #[test]
        fn no_stale_chunk_ever_leaves(ops in prop::collection::vec((0u8..4, 0u64..12), 1..80)) {
            let mut c = core();
            let mut newest_interrupt = 0;
            let mut ended = std::collections::HashSet::new();
            for (op, q) in ops {
                let input = match op {
                    0 => turn("tutor", q),
                    1 => { newest_interrupt = newest_interrupt.max(q); BridgeInput::Interrupt { question_id: q } }
                    2 => chunk(q, "w "),
                    _ => BridgeInput::Finished { question_id: q, error: None },
                };
                for o in c.decide(input) {
                    if let BridgeOutput::Text { question_id, status, .. } = o {
                        prop_assert!(question_id >= newest_interrupt);
                        if status == StreamStatus::Ended {
                            prop_assert!(ended.insert(question_id));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_turn_sent_again_leaves_the_participant_foretold_to_speak_next() {
        let mut c = BridgeCore::new(Persona::fallback("tutor"), None, 10).with_read_along(true);
        c.decide(turn("student1", 1));
        c.decide(BridgeInput::Prepare {
            speaker: "tutor".into(),
            ahead_of: PrepareFor::Turn,
        });
        // student1's turn again (the controller heard nothing of it yet): still foretold,
        // the next line is read with the whole turn ahead.
        assert!(c.decide(turn("student1", 1)).is_empty());
        let out = c.decide(BridgeInput::Utterance(Entry::new(
            "student1",
            "What is a slope?",
            1,
        )));
        assert!(matches!(&out[..], [BridgeOutput::ReadAhead(_)]), "{out:?}");
        // A new turn to another does end it.
        c.decide(turn("student2", 2));
        let out = c.decide(BridgeInput::Utterance(Entry::new("student2", "Hm.", 2)));
        assert!(matches!(&out[..], [BridgeOutput::Prefill(_)]), "{out:?}");
    }

    #[test]
    fn a_bridge_that_reads_along_reads_each_line_as_it_is_heard() {
        let mut c = BridgeCore::new(Persona::fallback("tutor"), None, 10).with_read_along(true);
        // Nobody foretold it the next turn: the conversation only.
        let out = c.decide(BridgeInput::Utterance(Entry::new("student2", "Hello.", 1)));
        let [BridgeOutput::Prefill(along)] = &out[..] else {
            panic!("{out:?}")
        };
        assert!(along.prompt.lines.iter().any(|l| l.text.contains("Hello.")));
        // Foretold: its whole turn at once, and again with each line until it comes.
        let out = c.decide(BridgeInput::Prepare {
            speaker: "tutor".into(),
            ahead_of: PrepareFor::Turn,
        });
        assert!(matches!(&out[..], [BridgeOutput::ReadAhead(_)]), "{out:?}");
        let out = c.decide(BridgeInput::Utterance(Entry::new(
            "student1",
            "What is a slope?",
            1,
        )));
        let [BridgeOutput::ReadAhead(ahead)] = &out[..] else {
            panic!("{out:?}")
        };
        assert!(
            ahead
                .prompt
                .lines
                .iter()
                .any(|l| l.text.contains("What is a slope?"))
        );
        // Read ahead, it is the turn that comes next if nothing more is said.
        let ahead = ahead.clone();
        let out = c.decide(BridgeInput::Turn {
            speaker: "tutor".into(),
            question_id: 2,
            instruction: None,
            context: None,
            prepared: None,
            takes_up: None,
            asks: false,
            answers_human: false,
        });
        let [BridgeOutput::Generate(turn)] = &out[..] else {
            panic!("{out:?}")
        };
        assert_eq!(turn, &ahead);
        // Another participant foretold: the conversation only again.
        let mut c = BridgeCore::new(Persona::fallback("tutor"), None, 10).with_read_along(true);
        c.decide(BridgeInput::Prepare {
            speaker: "tutor".into(),
            ahead_of: PrepareFor::Turn,
        });
        let out = c.decide(BridgeInput::Prepare {
            speaker: "student1".into(),
            ahead_of: PrepareFor::Turn,
        });
        assert!(out.is_empty(), "{out:?}");
        let out = c.decide(BridgeInput::Utterance(Entry::new("student2", "A rate.", 2)));
        assert!(matches!(&out[..], [BridgeOutput::Prefill(_)]), "{out:?}");
        // Foretold, and the turn went to another after all: the conversation only.
        c.decide(BridgeInput::Prepare {
            speaker: "tutor".into(),
            ahead_of: PrepareFor::Turn,
        });
        c.decide(BridgeInput::Turn {
            speaker: "student1".into(),
            question_id: 3,
            instruction: None,
            context: None,
            prepared: None,
            takes_up: None,
            asks: false,
            answers_human: false,
        });
        let out = c.decide(BridgeInput::Utterance(Entry::new("student1", "Why?", 3)));
        assert!(matches!(&out[..], [BridgeOutput::Prefill(_)]), "{out:?}");
        // A human's words are read by their answerer as its question, by the others
        // with the next line.
        let out = c.decide(BridgeInput::Utterance(Entry::new(
            "human",
            "Why a rate?",
            4,
        )));
        assert!(out.is_empty(), "{out:?}");
        // Without it, a line is only kept.
        let mut c = BridgeCore::new(Persona::fallback("tutor"), None, 10);
        assert!(
            c.decide(BridgeInput::Utterance(Entry::new("student1", "Hi.", 1)))
                .is_empty()
        );
    }
}
